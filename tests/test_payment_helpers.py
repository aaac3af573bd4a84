"""Payment helpers for bot writers: the cards an automatic payment spends, the cost in
cards of every affordable build, and the caller's own card values driving the payment."""

from __future__ import annotations

import random

import pytest

from bench.payment import random_position
from solver.rules.actions import Build
from solver.rules.cards import load_card_set
from solver.rules.engine import apply, legal_actions, new_game
from solver.rules.payment import (
    PaymentInfeasible,
    PaymentRequestError,
    affordable_cards,
    auto_payment_cards,
    build_costs,
    cheapest_cards_needed,
    cheapest_payment,
    spent_cards,
)

CARDS = load_card_set()


def build_positions(n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        yield random_position(rng, CARDS, rng.randint(1, 7), 1)[0]


def test_auto_payment_cards_are_what_the_engine_discards():
    for seed in range(20):
        state = new_game(2, seed)
        rng = random.Random(seed)
        while not state.is_over:
            action = rng.choice(legal_actions(state))
            if type(action) is Build:
                c = CARDS.card(action.card)
                spent = auto_payment_cards(state, c)
                after = apply(state, action)
                gone = [x for x in state.player.hand if x not in after.players[
                    state.current].hand and x != c]
                assert sorted(spent) == sorted(gone)
                assert after.players[state.current].discard == state.player.discard + spent
            state = apply(state, action)


def test_build_costs_are_the_fewest_cards_of_each_affordable_build():
    for state in build_positions(300, 1):
        costs = build_costs(state)
        assert list(costs) == affordable_cards(state)
        for c, n in costs.items():
            assert n == cheapest_cards_needed(state, c) == len(auto_payment_cards(state, c))
        for c in state.player.hand:
            if c not in costs:
                assert auto_payment_cards(state, c) is None


def test_a_callers_values_choose_the_cards_spent():
    rng = random.Random(3)
    for state in build_positions(300, 2):
        weights = [rng.random() * 10 for _ in CARDS.highway]

        def worth(c, weights=weights):
            return weights[c]

        for c in affordable_cards(state):
            mine = cheapest_payment(state, c, worth)
            assert mine == cheapest_payment(state, c, weights)  # function or sequence
            assert mine == cheapest_payment(state, c, dict(enumerate(weights)))
            default = spent_cards(state, cheapest_payment(state, c))
            chosen = spent_cards(state, mine)
            assert len(chosen) == len(default)  # fewest cards first, whatever the values
            assert sum(map(worth, chosen)) <= sum(map(worth, default)) + 1e-6


def test_spent_cards_of_a_payment_without_discards_is_empty():
    assert spent_cards(new_game(2, 1), ()) == []


def test_cheapest_payment_takes_the_card_id_of_a_build_and_the_view_of_the_seat_to_act():
    """A Build names its card by id (``Build.card``); the payment helpers answered an id
    with "tuple indices must be integers or slices, not str" and a view with an
    AttributeError. They take both, as joint_payment takes ids and build_costs views."""
    import pytest

    from solver.rules.cards import UnknownCardError
    from solver.rules.engine import play
    from solver.rules.views import view_of

    checked = 0
    for state in build_positions(100, 4):
        view = view_of(state, state.current)
        for action in legal_actions(state):
            if type(action) is not Build:
                continue
            c = CARDS.card(action.card)
            payment = cheapest_payment(state, c)
            assert cheapest_payment(state, action.card) == payment
            assert cheapest_payment(view, action.card) == payment
            assert auto_payment_cards(state, action.card) == auto_payment_cards(state, c)
            # the payment it names is the action a user plays
            paid = Build(action.card, action.side, payment)
            assert play(state, paid.notation()) == apply(state, action)
            checked += 1
    assert checked > 100
    state = next(build_positions(1, 4))
    with pytest.raises(UnknownCardError, match="'H99'"):
        cheapest_payment(state, "H99")
    other = view_of(state, (state.current + 1) % state.num_players)
    with pytest.raises(PaymentRequestError, match="only the seat to act pays"):
        cheapest_payment(other, state.cards.highway[state.player.hand[0]].id)


def test_joint_payments_take_the_view_of_the_seat_to_act():
    """joint_payment and cheapest_joint failed on a view with "'PlayerView' object has no
    attribute 'player'", though cheapest_payment takes one: they pay the view of the seat
    to act as the state (a payment reads only the payer's cards and public ones), and
    name another seat's view and anything else as a PaymentRequestError."""
    from solver.payment_ilp import cheapest_joint
    from solver.rules.payment import joint_payment
    from solver.rules.views import view_of

    checked = 0
    for state in build_positions(40, 5):
        view = view_of(state, state.current)
        ids = [state.cards.highway[c].id for c in state.player.hand
               if cheapest_payment(state, c) is not None]
        requests = [[(ids[0], "L")], [(ids[0], "R"), (ids[-1], "L")]] if ids else []
        for builds in requests[:len(ids)]:
            try:
                expected = joint_payment(state, builds)
            except PaymentInfeasible:
                with pytest.raises(PaymentInfeasible):
                    joint_payment(view, builds)
                continue
            for solve in (joint_payment, cheapest_joint):
                plan = solve(view, builds)
                assert (plan.cards_spent, plan.value) == (expected.cards_spent,
                                                          expected.value)
            checked += 1
    assert checked > 20
    state = next(build_positions(1, 4))
    other = view_of(state, (state.current + 1) % state.num_players)
    card = state.cards.highway[state.player.hand[0]].id
    for solve in (joint_payment, cheapest_joint):
        with pytest.raises(PaymentRequestError, match="only the seat to act pays"):
            solve(other, [card])
        with pytest.raises(PaymentRequestError, match="a GameState or a PlayerView, got str"):
            solve("position.json", [card])


@pytest.mark.parametrize("index", [999, -1])
def test_cheapest_payment_names_a_card_index_out_of_range(index):
    """cheapest_payment(state, 999) failed with 'tuple index out of range' (and -1 priced
    the set's last card): an index outside the set is named, as an unknown id is."""
    from solver.rules.cards import UnknownCardError
    from solver.rules.engine import new_game, play
    from solver.rules.payment import cheapest_payment

    state = play(play(new_game(2, seed=1), "take deck"), "take deck")
    with pytest.raises(UnknownCardError, match=f"no Highway card has index {index}"):
        cheapest_payment(state, index)


def test_affordable_cards_and_sets_take_the_view_of_the_seat_to_act():
    """affordable_cards(view) and affordable_sets(view) failed with an AttributeError,
    while build_costs, cheapest_payment and joint_payment take the view of the seat to
    act: they read it as the state, and name another seat's view and anything else."""
    from solver.rules.payment import affordable_sets
    from solver.rules.views import view_of

    for state in build_positions(60, 6):
        view = view_of(state, state.current)
        assert affordable_cards(view) == affordable_cards(state)
        assert affordable_sets(view, 2) == affordable_sets(state, 2)
    other = view_of(state, (state.current + 1) % state.num_players)
    for helper in (affordable_cards, affordable_sets):
        with pytest.raises(PaymentRequestError, match="only the seat to act pays"):
            helper(other)
        with pytest.raises(PaymentRequestError, match="a GameState or a PlayerView, got str"):
            helper("position.json")


def tutorial_position():
    """docs/rules.md's position: seat 1 at its build step, H37 and H36 in hand."""
    from solver.rules.engine import play

    state = new_game(2, seed=8)
    for move in ["take H06", "take H22", "end", "take H18", "take H19", "end",
                 "take H02", "take H37"]:
        state = play(state, move)
    return state


@pytest.mark.parametrize("builds, words", [
    ("H11", "must be a list of card ids such as ['H11'], got str 'H11'"),
    (None, "must be a list of card ids such as ['H11'] (missing)"),
    (11, "must be a list of card ids such as ['H11'], got int"),
    (b"H11", "must be a list of card ids such as ['H11'], got bytes"),
], ids=["id", "none", "index", "bytes"])
def test_builds_that_are_no_list_are_named(builds, words):
    """joint_payment(state, "H11") read the string letter by letter ("builds[0]: unknown
    Highway card 'H'"), and a number was a TypeError from inside: the request names
    ``builds`` and the list it takes, which then pays."""
    from solver.payment_ilp import cheapest_joint
    from solver.rules.payment import joint_cost, joint_payment

    state = tutorial_position()
    for ask in (joint_payment, joint_cost, cheapest_joint):
        with pytest.raises(PaymentRequestError) as info:
            ask(state, builds)
        assert str(info.value) == f"builds: {words}"
    assert joint_payment(state, ["H11"]).cards_spent == 3


@pytest.mark.parametrize("values, words", [
    ({0: 1.0}, "no value for card index {index} ({id})"),
    ([1.0] * 3, "no value for card index {index} ({id})"),
    ({"H36": 1.0}, "no value for card index {index} ({id})"),
    ("abc", "must be a function of a card index, or a list or dict by card index, got str"),
    (7, "must be a function of a card index, or a list or dict by card index, got int"),
    ([None] * 69, "the value of card index {index} ({id}) must be a finite number, got None"),
    ([float("nan")] * 69, "the value of card index {index} ({id}) must be a finite number"),
    (lambda c: "x", "the value of card index {index} ({id}) must be a finite number"),
])
def test_malformed_values_are_named(values, words):
    """values={0: 1.0} raised KeyError: 35, [1.0] * 3 and "abc" an IndexError: the request
    names ``values`` and the hand card it has no number for."""
    from solver.payment_ilp import cheapest_joint
    from solver.rules.payment import joint_cost, joint_payment

    state = tutorial_position()
    target = state.cards.card("H37")
    first = next(c for c in state.player.hand if c != target)
    words = words.format(index=first, id=state.cards.highway[first].id)
    for ask in (lambda: cheapest_payment(state, target, values),
                lambda: auto_payment_cards(state, target, values),
                lambda: joint_payment(state, [target], values),
                lambda: joint_cost(state, [target], values),
                lambda: cheapest_joint(state, [target], values)):
        with pytest.raises(PaymentRequestError) as info:
            ask()
        assert str(info.value).startswith("values: ") and words in str(info.value)
    assert cheapest_payment(state, target, [1.0] * 69) is not None


@pytest.mark.parametrize("card", [True, False, 1.0, None])
def test_cheapest_payment_refuses_a_card_that_is_no_id_or_index(card):
    """cheapest_payment(state, True) priced card 1 (a bool is an int), as 1.0 did, while
    joint_payment and view_of refuse bools: the card is named; numpy integers are
    indices."""
    np = pytest.importorskip("numpy")
    from solver.rules.cards import UnknownCardError

    state = tutorial_position()
    for ask in (cheapest_payment, auto_payment_cards):
        with pytest.raises(UnknownCardError, match=rf"^card: must be a Highway card id or "
                           rf"an index 0 to 68, got {card!r} \({type(card).__name__}\)$"):
            ask(state, card)
    target = state.cards.card("H37")
    assert cheapest_payment(state, np.int64(target)) == cheapest_payment(state, "H37") \
        == cheapest_payment(state, target) is not None
