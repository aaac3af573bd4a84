"""Every rule of paying, one position each, checked on both optimisers (the fast exact
path and CP-SAT) and, on tiny cases, against a brute-force oracle that tries every
sequence of payment steps.

The oracle (:func:`brute_force`) is written from the rules text, independently of
``solver.rules.payment``: it walks payment steps one at a time (discard, substitution
with each possible last card, each Persistent card, Recycling of the current top, each
borrowed Material), keeps the discard pile top as it goes, and scores every complete
payment by (cards spent, their quantised value, -usefulness of the final top).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import pytest
from rules_testkit import card_set, hw, ids, lm, make_state

from solver.payment_ilp import cheapest_joint
from solver.rules.actions import Build, Recycle, Substitute
from solver.rules.constants import MATERIALS
from solver.rules.engine import play
from solver.rules.payment import (
    VALUE_SCALE,
    PaymentInfeasible,
    PaymentRequestError,
    affordable_cards,
    affordable_sets,
    allowances,
    card_keep_value,
    cheapest_cards_needed,
    cheapest_payment,
    joint_payment,
)

SOLVERS = {"fast": joint_payment, "cp-sat": cheapest_joint}


# ------------------------------------------------------------------ the oracle

def brute_force(state, builds, values=None):
    """Best (cards spent, quantised value, -usefulness) over every payment of ``builds``
    (card indices, in order), or None when nothing pays. Exponential: tiny cases only."""
    cards = state.cards
    material = cards.material
    per = cards.persistent
    me = state.player
    builds = tuple(builds)
    pool = frozenset(c for c in me.hand if c not in builds)
    value = (lambda c: values[c]) if values is not None else (lambda c: card_keep_value(cards, c))
    q = {c: round(value(c) * VALUE_SCALE) for c in pool}
    allowed = allowances(cards, me)
    left = {k: allowed[k] - state.resource_uses.get(k, 0) for k in allowed}
    others = [p for i, p in enumerate(state.players) if i != state.current]
    lend_h = {per[c] for p in others for c in p.highway if per[c] >= 0}
    lend_d = {material[p.discard[-1]] for p in others if p.discard}

    def useful(hand, top):
        if top is None:
            return 0
        m = material[top]
        return sum(cards.cost_counts[c][m] for c in hand)

    @cache
    def go(i, need, hand, top, rec_used, uses, extra, bh, bd):
        if not any(need):
            if i + 1 == len(builds):
                spent = pool - hand
                return (len(spent), sum(q[c] for c in spent), -useful(hand, top))
            return go(i + 1, cards.cost_counts[builds[i + 1]], hand, top, rec_used, uses,
                      extra, bh, bd)
        options = []

        def minus(m):
            return tuple(n - (j == m) for j, n in enumerate(need))

        for c in hand:
            if need[material[c]]:
                options.append(go(i, minus(material[c]), hand - {c}, c, rec_used, uses,
                                  extra, bh, bd))
        for group in combinations(sorted(hand), 3):
            for m in range(len(MATERIALS)):
                if need[m]:
                    for last in group:
                        options.append(go(i, minus(m), hand - set(group), last, rec_used,
                                          uses, extra, bh, bd))
        used = dict(uses)
        for c in list(me.highway) + list(builds[:i]):
            m = per[c]
            if m >= 0 and need[m]:
                n = used.get(c, 0)
                if n == 0 or extra < left["persistent_extra_use"]:
                    new_uses = tuple(sorted({**used, c: n + 1}.items()))
                    options.append(go(i, minus(m), hand, top, rec_used, new_uses,
                                      extra + (n > 0), bh, bd))
        if not rec_used and top is not None and need[material[top]]:
            options.append(go(i, minus(material[top]), hand, top, True, uses, extra, bh, bd))
        if bh < left["borrow_highway"]:
            for m in lend_h:
                if need[m]:
                    options.append(go(i, minus(m), hand, top, rec_used, uses, extra, bh + 1, bd))
        if bd < left["borrow_discard"]:
            for m in lend_d:
                if need[m]:
                    options.append(go(i, minus(m), hand, top, rec_used, uses, extra, bh, bd + 1))
        options = [o for o in options if o is not None]
        return min(options) if options else None

    top0 = me.discard[-1] if me.discard else None
    uses0 = tuple(sorted((c, n) for c, n in state.persistent_uses.items() if n))
    return go(0, cards.cost_counts[builds[0]], pool, top0, state.recycle_used, uses0, 0, 0, 0)


def replay(state, plan):
    """Apply the plan's actions with the checked engine; the final state."""
    for action in plan.actions(state.cards):
        state = play(state, action)
    top = state.player.discard[-1] if state.player.discard else None
    assert top == plan.top
    return state


def check_both(state, builds, expect=None):
    """Both solvers agree (with the oracle when ``expect`` is None and the case is tiny),
    their plans replay through the engine; returns the fast plan."""
    plans = {}
    for name, solve in SOLVERS.items():
        plans[name] = plan = solve(state, builds)
        replay(state, plan)
        for (card, _side), payment in zip(plan.builds, plan.payments, strict=True):
            assert len(payment) == len(state.cards.cost[card])  # exactly the cost
    assert plans["fast"].objective == plans["cp-sat"].objective
    if expect is not None:
        assert plans["fast"].objective[0] == expect
    oracle = brute_force(state, [b if isinstance(b, int) else b[0] for b in builds])
    assert oracle == plans["fast"].objective
    return plans["fast"]


def check_infeasible(state, builds, short: str | None = None):
    for solve in SOLVERS.values():
        with pytest.raises(PaymentInfeasible) as err:
            solve(state, builds)
        if short:
            assert short in err.value.short
    assert brute_force(state, builds) is None


def steps_of(plan, i):
    return [s.notation() for s in plan.payments[i]]


# ------------------------------------------------------------------ card sets

@pytest.fixture(scope="module")
def cs():
    """Small set: A-cards to build, plain Material cards, 1-Mile Persistent cards."""
    highway = [
        hw("A1", cost="stone timber", back="steel"),
        hw("A2", cost="water water", back="steel"),
        hw("A3", cost="stone water", back="steel"),
        hw("A4", cost="stone stone", back="steel"),
        hw("A5", cost="engineering steel", back="steel"),
        hw("A6", cost="water steel", back="steel"),
        hw("P1", miles=1, cost="water timber", back="steel", per="stone"),
        hw("P2", miles=1, cost="water timber", back="steel", per="water"),
        hw("S1", back="stone"), hw("S2", back="stone"), hw("S3", back="stone"),
        hw("W1", back="water"), hw("W2", back="water"), hw("W3", back="water"),
        hw("T1", back="timber"), hw("T2", back="timber"), hw("T3", back="timber"),
        hw("E1", back="engineering"),
        hw("V1", miles=2, back="water", bonus={"kind": "distinct_scenery", "points": 1}),
        hw("O1", back="steel"), hw("O2", back="steel"),
    ]
    landmarks = [lm("LX", ability={"kind": "persistent_extra_use", "uses": 1}),
                 lm("LH", ability={"kind": "borrow_highway", "uses": 1}),
                 lm("LD", ability={"kind": "borrow_discard", "uses": 1})]
    return card_set(highway, landmarks)


def seat(hand="", highway="", discard="", landmarks=()):
    return {"hand": hand, "highway": highway, "discard": discard, "landmarks": list(landmarks)}


def position(cs, me, other=None, **kw):
    return make_state(cs, [me, other or seat(highway="O1", discard="O2")], **kw)


# ------------------------------------------------------------------ the rules

def test_discard_pays_its_material_and_exact_cost(cs):
    state = position(cs, seat(hand="A1 S1 T1 S2"))
    plan = check_both(state, [cs.card("A1")], expect=2)
    assert sorted(steps_of(plan, 0)) == ["S1", "T1"] or sorted(steps_of(plan, 0)) == ["S2", "T1"]


def test_substitution_three_cards_for_any_material(cs):
    state = position(cs, seat(hand="A5 E1 O1 O2 S1"))  # no steel card but O1/O2 are steel
    plan = check_both(state, [cs.card("A5")])
    assert plan.cards_spent == 2
    state = position(cs, seat(hand="A5 E1 S1 S2 W1"), recycle_used=True)  # no steel
    plan = check_both(state, [cs.card("A5")], expect=4)
    subs = [s for s in plan.payments[0] if isinstance(s, Substitute)]
    assert len(subs) == 1 and subs[0].material == "steel"


def test_substitution_needs_three_cards(cs):
    check_infeasible(position(cs, seat(hand="A5 E1 S1")), [cs.card("A5")], short="steel")


def test_persistent_once_per_turn(cs):
    state = position(cs, seat(hand="A4 S1", highway="P1"), recycle_used=True)
    plan = check_both(state, [cs.card("A4")], expect=1)
    assert "per:P1" in steps_of(plan, 0)
    state = position(cs, seat(hand="A4 T1", highway="P1"), recycle_used=True)
    check_infeasible(state, [cs.card("A4")], "stone")


def test_persistent_used_earlier_this_turn_stays_used(cs):
    state = position(cs, seat(hand="A4 S1", highway="P1"), persistent_uses={"P1": 1},
                     recycle_used=True)
    check_infeasible(state, [cs.card("A4")], "stone")
    state = position(cs, seat(hand="A4 S1 S2", highway="P1"), persistent_uses={"P1": 1},
                     recycle_used=True)
    plan = check_both(state, [cs.card("A4")], expect=2)
    assert "per:P1" not in steps_of(plan, 0)


def test_extra_persistent_use_from_landmark(cs):
    me = seat(hand="A4 T1", highway="P1", landmarks=[("LX", "P1")])
    plan = check_both(position(cs, me), [cs.card("A4")], expect=0)
    assert steps_of(plan, 0) == ["per:P1", "per:P1"]
    # the extra use is spent already this turn
    check_infeasible(position(cs, me, resource_uses={"persistent_extra_use": 1}),
                     [cs.card("A4")], "stone")


def test_extra_use_needs_a_used_persistent(cs):
    # P2 (water) was used this turn already: the extra use may repeat it
    me = seat(hand="A2 W1", highway="P2", landmarks=[("LX", "P2")])
    state = position(cs, me, persistent_uses={"P2": 1}, recycle_used=True)
    plan = check_both(state, [cs.card("A2")], expect=1)
    assert "per:P2" in steps_of(plan, 0)
    check_infeasible(position(cs, me, persistent_uses={"P2": 1}, recycle_used=True,
                              resource_uses={"persistent_extra_use": 1}), [cs.card("A2")])


def test_recycling_the_top_at_the_start(cs):
    state = position(cs, seat(hand="A1 T1 W1", discard="S1"))
    plan = check_both(state, [cs.card("A1")], expect=1)
    assert "rec" in steps_of(plan, 0)


def test_recycling_once_per_turn(cs):
    state = position(cs, seat(hand="A1 T1 W1", discard="S1"), recycle_used=True)
    check_infeasible(state, [cs.card("A1")], "stone")


def test_recycling_a_card_discarded_earlier_in_the_turn(cs):
    # A2 needs water twice; one water card: discard it, then recycle it
    state = position(cs, seat(hand="A2 W1 S1", discard="T1"))
    plan = check_both(state, [cs.card("A2")], expect=1)
    assert steps_of(plan, 0) == ["W1", "rec"]
    # across builds: A3's stone is recycled from A1's last discard, the only stone card
    state = position(cs, seat(hand="A1 A3 S1 T1 W1", discard="T2"))
    plan = check_both(state, [cs.card("A1"), cs.card("A3")], expect=3)
    assert steps_of(plan, 0)[-1] == "S1" and "rec" in steps_of(plan, 1)


def test_recycling_a_card_spent_in_a_substitution(cs):
    # A6 needs water and steel: no steel card, so W1 goes into the substitution for
    # steel, last, and Recycling it pays the water
    state = position(cs, seat(hand="A6 W1 S1 S2", discard="T1"))
    plan = check_both(state, [cs.card("A6")], expect=3)
    steps = plan.payments[0]
    assert isinstance(steps[0], Substitute) and steps[0].cards[-1] == "W1"
    assert isinstance(steps[1], Recycle)


def test_recycling_needs_a_top(cs):
    check_infeasible(position(cs, seat(hand="A1 T1")), [cs.card("A1")], "stone")
    check_both(position(cs, seat(hand="A1 T1", discard="S1")), [cs.card("A1")], expect=1)


def test_borrow_highway(cs):
    me = seat(hand="A4 S1", highway="A1", landmarks=[("LH", "A1")])
    other = seat(highway="P1", discard="O2")
    plan = check_both(position(cs, me, other, recycle_used=True), [cs.card("A4")], expect=1)
    assert "bh:1:P1" in steps_of(plan, 0)
    state = position(cs, me, other, resource_uses={"borrow_highway": 1}, recycle_used=True)
    check_infeasible(state, [cs.card("A4")], "stone")


def test_borrow_discard(cs):
    me = seat(hand="A4 S1", highway="A1", landmarks=[("LD", "A1")])
    other = seat(highway="O1", discard="W1 S2")
    plan = check_both(position(cs, me, other, recycle_used=True), [cs.card("A4")], expect=1)
    assert "bd:1" in steps_of(plan, 0)
    state = position(cs, me, seat(highway="O1", discard="S2 W1"), recycle_used=True)
    check_infeasible(state, [cs.card("A4")], "stone")


def test_built_persistent_serves_later_builds_only(cs):
    # P1 (Persistent stone) built first pays A4's stone; built second it cannot
    state = position(cs, seat(hand="P1 A4 W1 T1 S1"), recycle_used=True)
    plan = check_both(state, [cs.card("P1"), cs.card("A4")], expect=3)
    assert "per:P1" in steps_of(plan, 1)
    state = position(cs, seat(hand="A4 P1 W1 T1 S1"), recycle_used=True)
    check_infeasible(state, [cs.card("A4"), cs.card("P1")], "stone")


def test_cards_being_built_are_not_spent(cs):
    # alone, A5 is paid with E1 and A1 (steel on its back); built with A1, A1 is not spent
    state = position(cs, seat(hand="A5 A1 E1 S1 T1"))
    payment = cheapest_payment(state, cs.card("A5"))
    assert sorted(step.notation() for step in payment) == ["A1", "E1"]
    check_infeasible(state, [cs.card("A5"), cs.card("A1")], "steel")
    check_infeasible(state, [cs.card("A1"), cs.card("A5")], "steel")


def test_discard_order_last_paid_is_the_new_top(cs):
    # the kept hand (A2 needs water twice) makes water the most useful top
    state = position(cs, seat(hand="A3 A2 S1 W1"))
    plan = check_both(state, [cs.card("A3")], expect=2)
    assert plan.top == cs.card("W1")
    assert steps_of(plan, 0)[-1] == "W1"
    assert plan.usefulness == 2
    assert replay(state, plan).player.discard[-1] == cs.card("W1")


def test_least_valuable_cards_are_spent(cs):
    # V1 (2 miles) is worth less than W1 (3 miles): V1 pays the water
    state = position(cs, seat(hand="A3 S1 W1 V1"))
    plan = check_both(state, [cs.card("A3")], expect=2)
    assert cs.card("V1") in plan.spent and cs.card("W1") not in plan.spent
    # caller's values reverse it
    values = {c: 1.0 for c in range(len(cs.highway))}
    values[cs.card("V1")] = 5.0
    for solve in SOLVERS.values():
        plan = solve(state, [cs.card("A3")], values)
        assert cs.card("W1") in plan.spent
    assert brute_force(state, [cs.card("A3")], values) == plan.objective


def test_joint_beats_greedy_recycling(cs):
    """Paying A1 alone the cheapest way recycles the stone on top; then A2 (water twice)
    has one water card and no Recycling left. Jointly: A1 with S1 + T1, then A2 with W1
    and Recycling W1."""
    state = position(cs, seat(hand="A1 A2 S1 T1 W1", discard="S2"))
    greedy = play(state, Build("A1", "L"))
    assert greedy.player.hand.count(cs.card("W1")) == 1
    assert cheapest_payment(greedy, cs.card("A2")) is None
    plan = check_both(state, [cs.card("A1"), cs.card("A2")], expect=3)
    assert steps_of(plan, 1) == ["W1", "rec"]


def test_joint_beats_greedy_values():
    """A5 alone substitutes the two cheapest cards (the 2-Mile water cards) with E1 and
    recycles E1 (3 cards); then A2 has no water. Jointly the substitution takes X1 and
    X2 and A2 gets both water cards (5 cards, X3 kept)."""
    cs = card_set([
        hw("A5", cost="engineering steel", back="steel"),
        hw("A6", cost="water steel", back="steel"),
        hw("A2", cost="water water", back="stone"),
        hw("E1", back="engineering"),
        hw("W1", miles=2, back="water", bonus={"kind": "distinct_scenery", "points": 1}),
        hw("W2", miles=2, back="water", bonus={"kind": "distinct_scenery", "points": 1}),
        hw("X1", back="timber"), hw("X2", back="timber"), hw("X3", miles=4, back="timber"),
        hw("O1", back="stone")])
    state = make_state(cs, [{"hand": "A5 A2 E1 W1 W2 X1 X2 X3"}, {"highway": "O1"}])
    greedy = play(state, Build("A5", "L"))
    assert cheapest_payment(greedy, cs.card("A2")) is None
    plan = check_both(state, [cs.card("A5"), cs.card("A2")], expect=5)
    assert set(plan.spent) == set(ids(cs, "E1 W1 W2 X1 X2"))  # X3, worth most, is kept


def test_recycling_a_substituted_card_may_need_one_single_fewer():
    """E1 is the only engineering card, and B1 and B3 both need engineering. Paying B1's
    with E1 leaves B3 a substitution: 7 cards, one more than the hand holds. The only
    payment pays B1's engineering by a substitution instead, so that E1 ends B2's timber
    substitution on top and B3 recycles it: 6 cards (the count search must consider
    fewer single discards than the hand allows)."""
    cs = card_set([
        hw("B1", cost="engineering stone", back="steel"),
        hw("B2", cost="timber stone", back="steel"),
        hw("B3", cost="engineering stone", back="steel"),
        hw("Q1", miles=1, back="steel", per="stone"),
        hw("Q2", miles=1, back="steel", per="stone"),
        hw("Q3", miles=1, back="steel", per="stone"),
        hw("E1", back="engineering"),
        *(hw(f"F{i}", back="water") for i in range(1, 6)),
        hw("O1", back="stone")])
    state = make_state(cs, [{"hand": "B1 B2 B3 E1 F1 F2 F3 F4 F5", "highway": "Q1 Q2 Q3"},
                            {"highway": "O1"}])
    plan = check_both(state, ids(cs, "B1 B2 B3"), expect=6)
    b2 = [s for s in plan.payments[1] if isinstance(s, Substitute)]
    assert b2[-1].cards[-1] == "E1" and "rec" in steps_of(plan, 2)


def test_requests_are_checked(cs):
    state = position(cs, seat(hand="A1 S1 T1"))
    for solve in SOLVERS.values():
        with pytest.raises(PaymentRequestError, match="not in the hand"):
            solve(state, [cs.card("A2")])
        with pytest.raises(PaymentRequestError, match="twice"):
            solve(state, [cs.card("A1"), cs.card("A1")])
        with pytest.raises(PaymentRequestError, match="side"):
            solve(state, [(cs.card("A1"), "X")])
        with pytest.raises(PaymentRequestError, match="at least one"):
            solve(state, [])
    from solver.rules.state import Phase

    take = position(cs, seat(hand="A1 S1 T1"), phase=Phase.TAKE)
    with pytest.raises(PaymentRequestError, match="take step"):
        joint_payment(take, ["A1"])


def test_infeasible_message_names_the_short_material(cs):
    state = position(cs, seat(hand="A2 S1"))
    for solve in SOLVERS.values():
        with pytest.raises(PaymentInfeasible, match="water") as err:
            solve(state, ["A2"])
        assert err.value.short == ("water",)


def test_single_build_helpers_agree(cs):
    state = position(cs, seat(hand="A1 A2 A3 A4 S1 T1 W1", highway="P2", discard="W2"))
    afford = set(affordable_cards(state))
    for c in state.player.hand:
        n = cheapest_cards_needed(state, c)
        assert (n is not None) == (c in afford)
        payment = cheapest_payment(state, c)
        assert (payment is None) == (n is None)
        if payment is not None:
            after = play(state, Build(cs.highway[c].id, "R", payment))
            assert len(after.player.hand) == len(state.player.hand) - 1 - n
            assert joint_payment(state, [c]).cards_spent == n


def test_affordable_sets(cs):
    state = position(cs, seat(hand="P1 A4 A1 S1 T1 W1 S2", discard="T2"))
    sets = affordable_sets(state, max_size=3)
    for members, (order, n) in sets.items():
        assert set(order) == members
        plan = joint_payment(state, list(order))
        assert plan.cards_spent == n
        replay(state, plan)
    # P1 first lends its stone to A4
    pair = frozenset(ids(cs, "P1 A4"))
    assert sets[pair][0] == tuple(ids(cs, "P1 A4"))
    # every set of up to 3 cards missing from the answer is unpayable in every order
    from itertools import permutations

    hand = state.player.hand
    for size in (1, 2, 3):
        for members in combinations(hand, size):
            if frozenset(members) not in sets:
                assert all(brute_force(state, order) is None
                           for order in permutations(members))


def test_plan_json_is_readable(cs):
    state = position(cs, seat(hand="A6 W1 S1 S2", discard="T1"))
    out = joint_payment(state, [(cs.card("A6"), "R")]).to_json(state)
    build = out["builds"][0]
    assert build["card"] == "A6" and build["side"] == "R"
    assert [(row["source"], row["material"]) for row in build["pay"]] == [
        ("substitution", "steel"), ("recycle", "water")]
    assert build["pay"][1]["cards"] == ["W1"]
    assert build["action"].startswith("build A6 R pay sub:")
    assert out["cards_spent"] == 3 and out["top"] == "W1"


def test_engine_auto_pay_is_the_cheapest(cs):
    state = position(cs, seat(hand="A1 A2 S1 T1 W1 W2", discard="S2"))
    for card in ("A1", "A2"):
        payment = cheapest_payment(state, cs.card(card))
        expected = brute_force(state, [cs.card(card)])
        after = play(state, Build(card, "L", payment))
        spent = len(state.player.hand) - 1 - len(after.player.hand)
        assert spent == expected[0]
        auto = play(state, Build(card, "L"))
        assert auto == after


def test_a_borrowed_discard_top_is_named_only_to_those_who_saw_it(cs):
    """Explained for a seat whose state is a sample behind its view, another seat's
    discard top is its Material alone unless its front is known (hints must not name a
    sampled guess, nor a hidden card)."""
    me = seat(hand="A4 S1", highway="A1", landmarks=[("LD", "A1")])
    state = position(cs, me, seat(highway="O1", discard="W1 S2"), recycle_used=True)
    plan = check_both(state, [cs.card("A4")], expect=1)

    def borrowed(viewer):
        rows = plan.to_json(state, viewer)["builds"][0]["pay"]
        return [r for r in rows if r["source"] == "borrow_discard"]

    assert borrowed(None) == [{"material": "stone", "source": "borrow_discard", "seat": 1,
                               "cards": ["S2"]}]
    assert borrowed(0)[0]["cards"] == []  # seat 0 never saw seat 1's top
    assert borrowed(1)[0]["cards"] == ["S2"]  # its own pile
    state.players[1].known_discard.add(cs.card("S2"))
    assert borrowed(0)[0]["cards"] == ["S2"]  # a front known to all


def test_a_payment_request_on_a_finished_game_says_the_game_is_over():
    from solver.cli import play_random_game  # ("at the over step" before)

    over = play_random_game(2, 5).replay()
    card = over.players[over.current].hand[0]
    for solve in SOLVERS.values():
        with pytest.raises(PaymentRequestError, match="builds: the game is over; payments"):
            solve(over, [card])
