"""Effects: one test per kind of 2-Mile bonus and Landmark ability, each with values
computed by hand from the Highway in the test."""

from __future__ import annotations

import pytest
from rules_testkit import card_set, hw, lm, make_state

from solver.rules.actions import IllegalActionError
from solver.rules.effects import REGISTRY, describe
from solver.rules.engine import play
from solver.rules.scoring import score_player
from solver.rules.state import PlayerState

TESTED_KINDS: set[str] = set()


def kind(name: str):
    """Mark a test as covering effect kind ``name`` (checked against the registry)."""
    TESTED_KINDS.add(name)
    return lambda fn: fn


def score(cards, highway: str, landmarks=()):
    """Score a Highway given as ids (left to right) with (landmark, card) placements."""
    player = PlayerState(highway=[cards.card(c) for c in highway.split()],
                         landmarks=[(cards.landmark(a), cards.card(b)) for a, b in landmarks])
    return score_player(cards, player)


# ------------------------------------------------------------------ 2-Mile bonuses


@kind("distinct_scenery")
def test_distinct_scenery():
    cards = card_set([hw("B", 2, "ocean forest", bonus={"kind": "distinct_scenery", "points": 2}),
                      hw("C", 3, "mountain mountain"), hw("D", 3, "ocean ocean")])
    # B alone: ocean, forest -> 2 types x 2 points; no Stretch
    assert (score(cards, "B").bonuses, score(cards, "B").stretches) == (4, 0)
    # B C: ocean, forest, mountain -> 3 x 2 = 6; mountain has only 2 icons: no Stretch
    s = score(cards, "B C")
    assert (s.bonuses, s.stretches, s.total) == (6, 0, 6)
    # a repeated type counts once: D B C -> still 3 types; ocean Stretch D+B = 3 + 2 miles
    s = score(cards, "D B C")
    assert (s.bonuses, s.stretches, s.total) == (6, 5, 11)


@kind("scenery_points")
def test_scenery_points_bonus():
    cards = card_set([
        hw("B", 2, "ocean forest", bonus={"kind": "scenery_points", "scenery": "ocean",
                                           "points": 1}),
        hw("C", 3, "ocean ocean"), hw("E", 4, "field forest")])
    s = score(cards, "E B C")  # ocean icons: 1 + 2 = 3; ocean Stretch B C = 2 + 3 = 5 miles
    assert (s.bonuses, s.stretches) == (3, 5)
    assert score(cards, "B").bonuses == 1


@kind("mile_cards")
def test_mile_cards():
    cards = card_set([
        hw("B", 2, bonus={"kind": "mile_cards", "miles": 1, "points": 2}),
        hw("A1", 1, "ocean field"), hw("A2", 1, "forest field"), hw("D", 4, "ocean field")])
    assert score(cards, "A1 B A2 D").bonuses == 2 * 2
    assert score(cards, "B D").bonuses == 0


def test_mile_cards_counts_printed_miles_not_landmark_increases():
    cards = card_set([
        hw("B", 2, "ocean ocean", bonus={"kind": "mile_cards", "miles": 2, "points": 1}),
        hw("A", 1, "ocean forest")],
        [lm("M", "ocean", {"kind": "mile_bonus", "miles": 1})])
    # A counts 2 miles in the Stretch with the Landmark, but it is still a 1-Mile card
    s = score(cards, "B A", [("M", "A")])
    assert (s.bonuses, s.stretches) == (1, 2 + 2)


@kind("stretch_count")
def test_stretch_count():
    cards = card_set([
        hw("B", 2, "ocean mountain", bonus={"kind": "stretch_count", "points": 2}),
        hw("C", 3, "ocean mountain"), hw("D", 3, "ocean mountain"), hw("F", 3, "field field"),
        hw("G", 3, "forest flower")])
    # ocean Stretch and mountain Stretch over B C D (overlapping): 2 Stretches
    s = score(cards, "B C D")
    assert (s.bonuses, s.stretches) == (4, 8 + 8)
    # F alone has 2 field icons: not a Stretch
    assert score(cards, "G B F").bonuses == 0


@kind("landmark_collection")
def test_landmark_collection_bonus_and_ability():
    cards = card_set([
        hw("B", 2, "ocean ocean", bonus={"kind": "landmark_collection", "points": 2}),
        hw("C", 3, "ocean forest"), hw("D", 3, "forest forest"),
        hw("K", 2, "field field", bonus={"kind": "landmark_collection", "points": 1,
                                         "sceneries": ["forest"]})],
        [lm("LO", "ocean"), lm("LF", "forest"),
         lm("LC", "forest", {"kind": "landmark_collection", "points": 3,
                             "sceneries": ["ocean", "field"]})])
    s = score(cards, "B C D", [("LO", "B"), ("LF", "D")])
    assert (s.bonuses, s.landmark_count, s.landmark_abilities) == (2 * 2, 3, 0)
    # only forest Landmarks count for K; the LC ability counts ocean Landmarks (LO) x 3
    s = score(cards, "K B C D", [("LO", "B"), ("LC", "D")])
    assert s.bonuses == 2 * 2 + 1 * 1  # B: 2 Landmarks; K: LC is forest
    assert s.landmark_abilities == 3 * 1


@kind("material_cards")
def test_material_cards():
    cards = card_set([
        hw("B", 2, back="water", bonus={"kind": "material_cards", "material": "water",
                                        "points": 1}),
        hw("W1", 3, back="water"), hw("W2", 4, back="water"), hw("S", 3, back="steel")])
    # the bonus card's own back counts: B, W1, W2 are water
    assert score(cards, "W1 B S W2").bonuses == 3
    assert score(cards, "S B").bonuses == 1


@kind("highway_end")
def test_highway_end():
    cards = card_set([hw("B", 2, bonus={"kind": "highway_end", "points": 3}),
                      hw("C", 3), hw("D", 3)])
    assert score(cards, "B C D").bonuses == 3
    assert score(cards, "C D B").bonuses == 3
    assert score(cards, "C B D").bonuses == 0
    assert score(cards, "B").bonuses == 3  # both ends at once still scores once


@kind("longest_stretch")
def test_longest_stretch():
    cards = card_set([
        hw("B", 2, "ocean ocean", bonus={"kind": "longest_stretch", "divisor": 3}),
        hw("C", 3, "ocean mountain"), hw("D", 2, "mountain mountain",
                                          bonus={"kind": "mile_cards", "miles": 4, "points": 1}),
        hw("E", 4, "field flower")])
    # ocean B C = 5 miles, mountain C D = 5 miles -> longest 5 // 3 = 1
    s = score(cards, "B C D")
    assert (s.stretches, s.bonuses) == (10, 1)
    # with E: D E has a 4-Mile card (+1 for D) and no new Stretch
    assert score(cards, "B C D E").bonuses == 1 + 1
    assert score(cards, "E").bonuses == 0


# ------------------------------------------------------------------ Landmark scoring


def test_scenery_points_landmark_ability():
    cards = card_set([hw("C", 3, "mountain mountain"), hw("D", 4, "mountain ocean")],
                     [lm("LM", "mountain", {"kind": "scenery_points", "scenery": "mountain",
                                            "points": 2})])
    s = score(cards, "C D", [("LM", "C")])
    # mountain icons 3 -> 6 ability points; mountain Stretch 7 miles; 1 Landmark -> 3
    assert (s.stretches, s.landmark_count, s.landmark_abilities, s.total) == (7, 3, 6, 16)


@kind("mile_bonus")
def test_mile_bonus_counts_in_every_stretch_containing_the_card():
    cards = card_set([hw("A", 1, "ocean mountain"), hw("O", 3, "ocean ocean"),
                      hw("M", 3, "mountain mountain"), hw("F", 3, "field forest")],
                     [lm("MB", "ocean", {"kind": "mile_bonus", "miles": 2})])
    base = score(cards, "O A M F")
    assert base.stretches == (3 + 1) + (1 + 3)
    s = score(cards, "O A M F", [("MB", "A")])
    # A counts 1 + 2 = 3 miles in the ocean Stretch and in the mountain Stretch
    assert s.stretches == (3 + 3) + (3 + 3)
    assert (s.landmark_count, s.landmark_abilities) == (3, 0)
    # a card in no Stretch gains nothing
    assert score(cards, "O A M F", [("MB", "F")]).stretches == base.stretches


# ------------------------------------------------------------------ payment abilities


def payment_set():
    return card_set(
        [hw("P", 1, "ocean ocean", back="stone", per="water"),
         hw("Q", 1, "forest forest", back="stone", per="steel"),
         hw("R", 1, "field field", back="stone", per="water"),
         hw("WW", 3, cost="water water"), hw("WWW", 3, cost="water water water"),
         hw("SW", 3, cost="steel water"), hw("SN", 3, cost="stone water"),
         hw("TT", 3, cost="timber timber"),
         hw("X1", 3, back="timber"), hw("X2", 3, back="engineering"), hw("Y", 3, back="steel")],
        [lm("EX", "ocean", {"kind": "persistent_extra_use", "uses": 1}),
         lm("EX2", "ocean", {"kind": "persistent_extra_use", "uses": 2}),
         lm("BH", "forest", {"kind": "borrow_highway", "uses": 1}),
         lm("BD", "field", {"kind": "borrow_discard", "uses": 1}),
         lm("N", "forest", {"kind": "landmark_collection", "points": 1})])


@kind("persistent_extra_use")
def test_persistent_extra_use():
    cards = payment_set()
    with_lm = make_state(cards, [{"hand": "WW WWW", "highway": "P", "landmarks": [("EX", "P")]},
                                 {"hand": "X1"}])
    after = play(with_lm, "build WW R pay per:P per:P")
    assert after.persistent_uses == {cards.card("P"): 2}
    assert after.resource_uses == {"persistent_extra_use": 1}
    # a third use is beyond the one extra use
    with pytest.raises(IllegalActionError,
                       match="a second use of a Persistent Material this turn is not possible"):
        play(with_lm, "build WWW R pay per:P per:P per:P")
    # without the Landmark a second use is refused
    plain = make_state(cards, [{"hand": "WW", "highway": "P"}, {"hand": "X1"}])
    with pytest.raises(IllegalActionError, match="no Landmark of yours allows it"):
        play(plain, "build WW R pay per:P per:P")
    # uses=2 allows three uses of one card in a turn
    two = make_state(cards, [{"hand": "WWW", "highway": "P", "landmarks": [("EX2", "P")]},
                             {"hand": "X1"}])
    assert play(two, "build WWW R pay per:P per:P per:P").persistent_uses[cards.card("P")] == 3


def test_persistent_extra_use_is_shared_across_cards_and_builds():
    cards = payment_set()
    state = make_state(cards, [{"hand": "WW WWW", "highway": "P R",
                                "landmarks": [("EX", "P")]}, {"hand": "X1"}])
    state = play(state, "build WW R pay per:P per:P")  # the extra use is spent
    with pytest.raises(IllegalActionError, match="all 1 use"):
        play(state, "build WWW L pay per:R per:R X1")
    # each Persistent Material is still available once on its own
    state2 = make_state(cards, [{"hand": "WW", "highway": "P R", "landmarks": [("EX", "P")]},
                                {"hand": "X1"}])
    assert play(state2, "build WW R pay per:P per:R").resource_uses == {}


@kind("borrow_highway")
def test_borrow_highway():
    cards = payment_set()
    state = make_state(cards, [{"hand": "SW SN", "highway": "P", "landmarks": [("BH", "P")]},
                               {"highway": "Q"}, {"highway": "R", "discard": "Y"}])
    after = play(state, "build SW R pay bh:1:Q per:P")
    assert after.resource_uses == {"borrow_highway": 1}
    assert after.players[1].highway == [cards.card("Q")]  # the lender loses nothing
    # the borrowed Material is Q's Persistent Material (steel), not its back (stone)
    with pytest.raises(IllegalActionError, match="supplies steel, which the cost of SN"):
        play(state, "build SN R pay bh:1:Q per:P")
    errors = {
        "bh:0:P per:P": "seat must be another player's",
        "bh:5:Q per:P": "seat must be another player's",
        "bh:2:Q per:P": "not a 1-Mile card in seat 2's Highway",
        "bh:1:ZZ per:P": "unknown Highway card",
    }
    for pay, words in errors.items():
        with pytest.raises(IllegalActionError, match=words):
            play(state, f"build SW R pay {pay}")
    plain = make_state(cards, [{"hand": "SW", "highway": "P"}, {"highway": "Q"}])
    with pytest.raises(IllegalActionError, match="borrowing a Persistent Material from "
                                                 "another player.s Highway is not possible"):
        play(plain, "build SW R pay bh:1:Q per:P")


def test_borrow_highway_once_per_turn():
    cards = payment_set()
    state = make_state(cards, [{"hand": "SW WW", "highway": "P", "landmarks": [("BH", "P")]},
                               {"highway": "Q R"}])
    state = play(state, "build SW R pay bh:1:Q per:P")
    with pytest.raises(IllegalActionError, match="all 1 use"):
        play(state, "build WW R pay bh:1:R bh:1:R")


@kind("borrow_discard")
def test_borrow_discard():
    cards = payment_set()
    state = make_state(cards, [{"hand": "SW", "highway": "P", "landmarks": [("BD", "P")]},
                               {"discard": "X1 Y"}, {}])
    after = play(state, "build SW R pay bd:1 per:P")  # Y (steel) is on top of seat 1's pile
    assert after.resource_uses == {"borrow_discard": 1}
    assert after.players[1].discard == state.players[1].discard
    with pytest.raises(IllegalActionError, match="seat 2's discard pile is empty"):
        play(state, "build SW R pay bd:2 per:P")
    with pytest.raises(IllegalActionError, match="seat must be another"):
        play(state, "build SW R pay bd:0 per:P")
    plain = make_state(cards, [{"hand": "SW", "highway": "P"}, {"discard": "Y"}])
    with pytest.raises(IllegalActionError, match="borrowing the top of another player.s "
                                                 "discard pile is not possible"):
        play(plain, "build SW R pay bd:1 per:P")
    used = make_state(cards, [{"hand": "SW", "highway": "P", "landmarks": [("BD", "P")]},
                              {"discard": "Y"}], resource_uses={"borrow_discard": 1})
    with pytest.raises(IllegalActionError, match="all 1 use"):
        play(used, "build SW R pay bd:1 per:P")


def test_payment_abilities_reset_at_end_of_turn():
    cards = payment_set()
    state = make_state(cards, [{"hand": "SW", "highway": "P", "landmarks": [("BD", "P")]},
                               {"discard": "Y"}], deck="Q R WW WWW TT X1 X2", depot="")
    state = play(state, "build SW R pay bd:1 per:P")
    state = play(state, "end")
    assert (state.current, len(state.depot), len(state.deck)) == (1, 5, 2)
    assert (state.resource_uses, state.persistent_uses, state.recycle_used) == ({}, {}, False)


def test_payment_abilities_score_nothing():
    cards = payment_set()
    s = score(cards, "P", [("EX", "P")])
    assert (s.landmark_count, s.landmark_abilities) == (3, 0)


# ------------------------------------------------------------------ the registry


@pytest.mark.parametrize("raw, text", [
    ({"kind": "distinct_scenery", "points": 1}, "1 point per different Scenery type"),
    ({"kind": "scenery_points", "scenery": "ocean", "points": 2}, "2 points per Ocean icon"),
    ({"kind": "mile_cards", "miles": 1, "points": 2}, "2 points per 1-Mile card"),
    ({"kind": "stretch_count", "points": 1}, "1 point per Stretch"),
    ({"kind": "landmark_collection", "points": 1, "sceneries": ["ocean", "field"]},
     "1 point per Ocean/Field Landmark"),
    ({"kind": "material_cards", "material": "water", "points": 1}, "1 point per Water card"),
    ({"kind": "highway_end", "points": 3}, "3 points if this card ends your Highway"),
    ({"kind": "longest_stretch", "divisor": 2}, "1 point per 2 miles of your longest Stretch"),
    ({"kind": "mile_bonus", "miles": 1}, "counts 1 more miles"),
    ({"kind": "persistent_extra_use", "uses": 1}, "1 extra time each turn"),
    ({"kind": "borrow_highway", "uses": 1}, "another player's Highway, 1 time per turn"),
    ({"kind": "borrow_discard", "uses": 2}, "another player's discard pile, 2 times per turn"),
])
def test_describe(raw, text):
    assert text in describe(raw)


def test_registry_has_the_rules_kinds_and_six_bonuses():
    bonus_kinds = {k for k, s in REGISTRY.items() if "bonus" in s.on}
    landmark_kinds = {k for k, s in REGISTRY.items() if "landmark" in s.on}
    assert len(bonus_kinds) >= 6 and "distinct_scenery" in bonus_kinds
    assert {"persistent_extra_use", "borrow_highway", "borrow_discard", "mile_bonus",
            "scenery_points", "landmark_collection"} <= landmark_kinds


def test_every_registered_kind_has_a_test():
    """Adding an effect kind without a test here fails (keep TESTED_KINDS in step)."""
    assert set(REGISTRY) == TESTED_KINDS
