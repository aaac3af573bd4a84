"""Actions: the text notation (round trip, errors), the checked entry point (never
changes its input, names the action in errors), and the payment rules of a Build with an
explicit payment."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_testkit import card_set, fillers, hw, make_state

from solver.rules.actions import (
    Action,
    BorrowDiscard,
    BorrowHighway,
    Build,
    Claim,
    Discard,
    End,
    IllegalActionError,
    NotationError,
    Persistent,
    Recycle,
    Substitute,
    Take,
    parse_action,
    parse_step,
)
from solver.rules.cards import CardSetError, load_card_set, parse_card_set
from solver.rules.constants import MATERIALS
from solver.rules.engine import legal_actions, new_game, play
from solver.rules.payment import PaymentError
from solver.rules.state import Phase

# ------------------------------------------------------------------ notation

ID_CHARS = string.ascii_letters + string.digits + "-_.#/'()[]{}<>!?*&^%$@~|;\"é"
ids = st.text(alphabet=ID_CHARS, min_size=1, max_size=6).filter(  # words of the notation
    lambda s: s.lower() != "deck" and s != "rec")
steps = st.one_of(
    st.builds(Discard, ids),
    st.builds(Substitute, st.tuples(ids, ids, ids), st.sampled_from(MATERIALS)),
    st.builds(Persistent, ids), st.just(Recycle()),
    st.builds(BorrowHighway, st.integers(0, 3), ids), st.builds(BorrowDiscard, st.integers(0, 3)))
actions = st.one_of(
    st.builds(Take, st.none() | ids),
    st.builds(Build, ids, st.sampled_from("LR"), st.none() | st.lists(steps, min_size=1,
                                                                       max_size=5).map(tuple)),
    st.builds(Claim, ids, ids), st.just(End()))


@given(actions)
@settings(max_examples=400, deadline=None)
def test_notation_round_trip(action):
    text = action.notation()
    assert Action.parse(text) == action
    assert str(action) == text
    assert parse_action(f"  {text}  ") == action  # surrounding spaces are ignored


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=5))
@settings(max_examples=300, deadline=None)
def test_every_id_the_validator_accepts_round_trips(card_id):
    raw = {"format": "bigsur-cards/1", "name": "t",
           "highway": [{"id": card_id, "miles": 3, "scenery": ["ocean", "ocean"],
                        "cost": ["stone", "stone"], "material": "stone", "players": [2]}],
           "landmarks": []}
    try:
        parse_card_set(raw, require_full=False)
    except CardSetError:
        return
    for action in (Take(card_id), Build(card_id, "R", (Discard(card_id), Persistent(card_id),
                                                      BorrowHighway(1, card_id))),
                   Claim(card_id, card_id)):
        assert Action.parse(action.notation()) == action


@pytest.mark.parametrize("text, action", [
    ("take H17", Take("H17")), ("take deck", Take(None)), ("TAKE deck", Take(None)),
    ("build H12 l", Build("H12", "L")), ("end", End()), ("claim L07 H12", Claim("L07", "H12")),
    ("build H12 R pay H03 sub:H01+H02+H04=steel per:H05 rec bh:1:H30 bd:2",
     Build("H12", "R", (Discard("H03"), Substitute(("H01", "H02", "H04"), "steel"),
                        Persistent("H05"), Recycle(), BorrowHighway(1, "H30"),
                        BorrowDiscard(2)))),
])
def test_parse_examples(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("text, words", [
    ("", "empty action"), ("   ", "empty action"), ("jump H1", "cannot read action 'jump H1'"),
    ("take", "cannot read"), ("take a b", "cannot read"), ("end now", "cannot read"),
    ("claim L1", "cannot read"), ("build H1", "cannot read"),
    ("build H1 M", "the side must be L or R, got 'M'"),
    ("build H1 L H2", "after the side expected 'pay STEP ...'"),
    ("build H1 L pay", "after the side expected 'pay STEP ...'"),
    ("build H1 L pay sub:A+B=steel", "exactly 3 cards"),
    ("build H1 L pay sub:A+B+C+D=steel", "exactly 3 cards"),
    ("build H1 L pay sub:A++C=steel", "exactly 3 cards"),
    ("build H1 L pay sub:A+B+C=gold", "must end with '=MATERIAL'"),
    ("build H1 L pay sub:A+B+C", "must end with '=MATERIAL'"),
    ("build H1 L pay bh:x:H2", "seat must be a number, got 'x'"),
    ("build H1 L pay bh:1:", "expected a card id"),
    ("build H1 L pay bd:", "seat must be a number"),
    ("build H1 L pay per:", "expected a card id"),
    ("build H1 L pay per:A:B", "expected a card id"),
    ("build H1 L pay A=B", "expected a card id"),
    ("take a:b", "expected a card id"), ("claim L1 x+y", "expected a card id"),
])
def test_notation_errors(text, words):
    with pytest.raises(NotationError) as info:
        parse_action(text)
    assert words in str(info.value)
    assert isinstance(info.value, ValueError)


def test_notation_error_for_non_text():
    with pytest.raises(NotationError, match="must be text"):
        parse_action(7)
    with pytest.raises(NotationError, match="payment step 'sub:"):
        parse_step("sub:a")


def test_play_raises_notation_error_for_bad_text(small):
    state = new_game(2, seed=1, cards=small)
    with pytest.raises(NotationError):
        play(state, "dance")
    with pytest.raises(IllegalActionError, match=r"not an action: 42 \(int\): play takes an "
                       r"Action or its text, e.g. 'take deck'"):
        play(state, 42)  # (it said only "not an action: 42")


# ------------------------------------------------------------------ checked entry point


def test_play_never_changes_its_input(small):
    """Over random games, try many illegal actions (and the legal ones) at each step:
    the given state stays equal to a copy taken before."""
    card_ids = [c.id for c in small.highway]
    lm_ids = [x.id for x in small.landmarks]
    tried = errors = 0
    for seed in range(4):
        state = new_game(2 + seed % 3, seed, small)
        rng = random.Random(seed)
        while not state.is_over:
            before = state.copy()
            hand = [small.highway[c].id for c in state.player.hand]
            candidates = [f"take {rng.choice(card_ids)}", "take deck", "end",
                          f"claim {rng.choice(lm_ids)} {rng.choice(card_ids)}",
                          f"build {rng.choice(card_ids)} L"]
            for _ in range(4):
                if hand:
                    pay = " ".join(rng.sample(hand, min(len(hand), rng.randint(1, 3))))
                    extra = rng.choice(["", " rec", " per:S00", " bd:1", " bh:1:S04"])
                    candidates.append(f"build {rng.choice(hand)} {rng.choice('LR')} pay "
                                      f"{pay}{extra}")
            candidates += [a.notation() for a in legal_actions(state)]
            for text in candidates:
                tried += 1
                try:
                    play(state, text)
                except IllegalActionError as err:
                    errors += 1
                    assert "illegal action" in str(err) and repr(text) in str(err)
                assert state == before, text
            state = play(state, rng.choice(legal_actions(state)))
    assert errors > 100 and tried > errors


def test_illegal_action_message_names_action_seat_turn_and_step():
    cards = card_set(fillers(10))
    state = make_state(cards, [{"hand": "X0"}, {"hand": "X1"}, {"hand": "X2"}], current=2,
                       turn=5, phase=Phase.TAKE, depot="X3", deck="X4")
    with pytest.raises(IllegalActionError) as info:
        play(state, "take X9")
    assert str(info.value).startswith("illegal action 'take X9' for seat 2 (turn 6, take step): ")


def test_errors_are_value_errors():
    assert issubclass(IllegalActionError, ValueError) and issubclass(NotationError, ValueError)
    assert issubclass(PaymentError, IllegalActionError)


# ------------------------------------------------------------------ payments


def pay_set():
    """Cards named by what they do: backs S(tone) W(ater) T(imber) E(ngineering) F(steel)."""
    backs = {"S": "stone", "W": "water", "T": "timber", "E": "engineering", "F": "steel"}
    highway = [hw(f"{b}{i}", 3, back=m) for b, m in backs.items() for i in range(1, 6)]
    highway += [
        hw("SW", 3, cost="stone water"), hw("SS", 3, cost="stone stone"),
        hw("WW", 3, cost="water water"), hw("FS", 3, cost="steel stone"),
        hw("WWW", 3, cost="water water water"), hw("TW", 3, cost="timber water"),
        hw("P", 1, "ocean ocean", cost="stone stone", back="timber", per="water"),
        hw("P2", 1, "ocean ocean", cost="timber stone", back="timber", per="steel"),
    ]
    return card_set(highway)


def state_of(hand, highway="", discard="", **kw):
    cards = pay_set()
    return cards, make_state(cards, [{"hand": hand, "highway": highway, "discard": discard},
                                     {"hand": "E5"}],
                             deck="F1 F2 F3 F4 F5 E2 E3 E4 T5 S5 W5", depot="", **kw)


def names(cards, xs):
    return [cards.highway[c].id for c in xs]


def bad_payment(state, text, words):
    with pytest.raises(IllegalActionError) as info:
        play(state, text)
    assert repr(text) in str(info.value) and words in str(info.value), str(info.value)


def test_discard_cards_for_their_back_material():
    cards, state = state_of("SW S1 W1 T1")
    after = play(state, "build SW L pay S1 W1")
    p = after.player
    assert names(cards, p.highway) == ["SW"] and names(cards, p.discard) == ["S1", "W1"]
    assert sorted(names(cards, p.hand)) == ["T1"]
    bad_payment(state, "build SW L pay S1 T1", "supplies timber, which the cost of SW does "
                "not need")


def test_discard_order_last_paid_is_the_new_top():
    cards, state = state_of("SW S1 W1", discard="T1")
    assert names(cards, play(state, "build SW L pay S1 W1").player.discard) == ["T1", "S1", "W1"]
    assert names(cards, play(state, "build SW L pay W1 S1").player.discard) == ["T1", "W1", "S1"]


def test_substitution_three_cards_for_one_material_of_choice():
    cards, state = state_of("FS S1 T1 T2 E1")
    after = play(state, "build FS R pay sub:T1+E1+T2=steel S1")
    assert names(cards, after.player.discard) == ["T1", "E1", "T2", "S1"]  # spent, in order
    assert names(cards, after.player.hand) == []
    # the chosen Material can be any, even one the three cards show
    cards, state = state_of("SS S1 S2 S3 S4")
    assert play(state, "build SS R pay sub:S1+S2+S3=stone S4").player.discard
    bad_payment(state, "build SS R pay sub:S1+S1+S2=stone S3", "the 3 cards must differ")
    bad_payment(state, "build SS R pay sub:S1+S2+T9=stone S3", "unknown Highway card 'T9'")
    bad_payment(state, "build SS R pay sub:S1+S2+E5=stone S3", "E5 is not in your hand")


def test_exact_cost_no_overpayment_no_underpayment():
    cards, state = state_of("SW S1 W1 W2")
    bad_payment(state, "build SW L pay S1 W1 W2", "supplies water, which the cost of SW does "
                "not need (any more)")
    bad_payment(state, "build SW L pay S1", "the payment leaves water unpaid for SW")
    bad_payment(state, "build SW L pay W1", "leaves stone unpaid")


def test_cannot_spend_the_card_being_built_or_a_card_twice():
    """Each says why: the card being built was said 'not in your hand (or is already
    spent)', though it is in hand."""
    cards, state = state_of("SS S1 S2")
    bad_payment(state, "build SS L pay SS S1",
                "SS is the card being built; it cannot pay for itself")
    bad_payment(state, "build SS L pay S1 S1",
                "S1 is already spent by an earlier step of this payment")
    bad_payment(state, "build SS L pay sub:S1+S2+SS=stone",
                "SS is the card being built; it cannot pay for itself")
    bad_payment(state, "build SS L pay S1 sub:S1+S2+S2=stone",
                "S1 is already spent by an earlier step of this payment")


def test_persistent_material_once_per_turn_without_discarding():
    cards, state = state_of("WW WWW W1 W2 W3", highway="P")
    after = play(state, "build WW R pay per:P W1")
    assert names(cards, after.player.highway) == ["P", "WW"]  # P stays built
    assert after.persistent_uses == {cards.card("P"): 1}
    bad_payment(state, "build WW R pay per:P per:P", "no Landmark of yours allows it")
    bad_payment(after, "build WWW R pay per:P W2 W3", "P already used")
    # next turn it is available again
    nxt = play(play(play(play(play(after, "end"), "take deck"), "take deck"), "end"),
               "take deck")
    nxt = play(nxt, "take deck")
    assert nxt.current == 0 and nxt.persistent_uses == {}
    play(nxt, "build WWW R pay per:P W2 W3")


def test_each_persistent_material_is_independent():
    cards = pay_set()
    state = make_state(cards, [{"hand": "FS S1 WW W1", "highway": "P P2"}, {}])
    after = play(state, "build FS R pay per:P2 S1")
    assert after.persistent_uses == {cards.card("P2"): 1}
    after = play(after, "build WW R pay per:P W1")  # P's use is its own
    assert after.persistent_uses == {cards.card("P2"): 1, cards.card("P"): 1}
    bad_payment(state, "build WW R pay per:P per:P2", "supplies steel")


def test_persistent_usable_the_turn_it_is_built_but_not_by_itself():
    cards, state = state_of("P WW S1 S2 W1", discard="")
    bad_payment(state, "build P L pay per:P S1", "P is not a 1-Mile card in your Highway")
    after = play(state, "build P L pay S1 S2")
    after = play(after, "build WW R pay per:P W1")  # a later build of the same turn
    assert after.persistent_uses == {cards.card("P"): 1}


def test_persistent_step_errors():
    cards, state = state_of("SW S1 W1", highway="SS")
    bad_payment(state, "build SW L pay per:SS W1", "SS is not a 1-Mile card in your Highway")
    bad_payment(state, "build SW L pay per:P S1", "P is not a 1-Mile card in your Highway")
    bad_payment(state, "build SW L pay per:QQ S1", "unknown Highway card 'QQ'")


def test_recycling_supplies_the_top_without_removing_it():
    cards, state = state_of("SW W1", discard="T1 S1")
    after = play(state, "build SW L pay rec W1")
    assert names(cards, after.player.discard) == ["T1", "S1", "W1"]  # S1 stays
    assert after.recycle_used is True


def test_recycling_once_per_turn():
    cards, state = state_of("SS SW S1 S2 W1", discard="S3")
    bad_payment(state, "build SS L pay rec rec", "Recycling is already used this turn")
    after = play(state, "build SS L pay rec S1")
    bad_payment(after, "build SW R pay rec W1", "Recycling is already used this turn")


def test_changing_the_top_does_not_reset_recycling():
    cards, state = state_of("SS SW S1 S2 W1", discard="S3")
    after = play(state, "build SS L pay rec S1")  # S1 is the new top
    assert names(cards, after.player.discard)[-1] == "S1"
    bad_payment(after, "build SW R pay W1 rec", "Recycling is already used this turn")


def test_recycling_a_card_discarded_earlier_this_turn():
    cards, state = state_of("SS WW S1 S2 W1", discard="")
    bad_payment(state, "build SS L pay rec S1", "your discard pile is empty")
    after = play(state, "build SS L pay S1 S2")
    after = play(after, "build WW R pay W1 rec")  # recycles W1, discarded just before
    assert names(cards, after.player.discard) == ["S1", "S2", "W1"]
    # and within one payment: discard, then recycle the card just discarded
    cards, state = state_of("WW W1", discard="")
    assert play(state, "build WW L pay W1 rec").recycle_used


def test_recycling_at_any_moment_reads_the_top_at_that_moment():
    cards, state = state_of("SW W1 S1", discard="S2")
    play(state, "build SW L pay rec W1")  # top S2 gives stone
    bad_payment(state, "build SW L pay W1 rec", "supplies water")  # top is now W1
    # combine the three sources in any order
    cards, state = state_of("WWW W1", highway="P", discard="W2")
    for pay in ("per:P rec W1", "W1 per:P rec", "rec W1 per:P"):
        assert play(state, f"build WWW R pay {pay}").player.highway


def test_spent_depot_cards_stay_publicly_known_in_the_discard_pile():
    cards = pay_set()
    state = make_state(cards, [{"hand": "SW S1 W1", "known_hand": "S1 SW"}, {}])
    after = play(state, "build SW L pay S1 W1")
    p = after.player
    assert p.known_hand == set() and p.known_discard == {cards.card("S1")}


def test_engine_pays_the_cheapest_way_when_no_payment_is_given():
    cards, state = state_of("SW S1 W1 T1 E1", discard="")
    after = play(state, "build SW L")
    assert len(after.player.hand) == 2 and sorted(names(cards, after.player.hand)) == ["E1", "T1"]
    cards, state = state_of("SW S1", highway="P")
    after = play(state, "build SW R")  # water from P, stone from S1
    assert names(cards, after.player.discard) == ["S1"]


@pytest.mark.parametrize("deck", ["DECK", "Deck", "deck"])
def test_deck_is_read_in_any_case_as_the_verbs_are(deck):
    """'TAKE DECK' said "unknown Highway card 'DECK'": the verb was read in any case and
    'deck' was not. A card id may not be 'deck' in any case, so the notation still
    round-trips."""
    assert parse_action(f"TAKE {deck}") == parse_action(f"take {deck}") == Take(None)
    state = new_game(2, seed=1)
    assert play(state, f"Take {deck}") == play(state, "take deck")
    raw = load_card_set().to_json()
    raw["highway"][0]["id"] = deck
    with pytest.raises(CardSetError, match=f"'{deck}' is reserved by the action notation"):
        parse_card_set(raw)


@pytest.mark.parametrize("side", ["l", "r"])
def test_a_lowercase_side_builds_as_the_notation_reads_it(side):
    """Build("H68", "l") was built and then refused by play ("the side must be L or R")
    while Action.parse("build H68 l") read the side in any case. The constructor makes it
    upper case, so both routes give one action, equal and hashed alike."""
    lower, upper = Build("H11", side), Build("H11", side.upper())
    assert lower == upper == parse_action(f"build H11 {side}")
    assert hash(lower) == hash(upper) and lower.side == side.upper()
    assert lower.notation() == f"build H11 {side.upper()}"
    state = new_game(2, seed=8)  # docs/rules.md's position: H11 can be paid for
    for move in ["take H06", "take H22", "end", "take H18", "take H19", "end",
                 "take H02", "take H37"]:
        state = play(state, move)
    assert play(state, Build("H11", side)) == play(state, f"build H11 {side}")
