"""Stretches and final scoring: adjacency, icon counts, overlaps, separate Stretches, mile
increases, 2-Mile bonuses, the Landmark count table, the rules' 30-point example, ties."""

from __future__ import annotations

import pytest
from rules_testkit import card_set, hw, lm, make_state

from solver.rules.constants import landmark_count_points
from solver.rules.engine import outcome, play
from solver.rules.scoring import final_scores, score_player
from solver.rules.state import Phase, PlayerState
from solver.rules.stretches import runs, stretches

NO_BONUS = {"kind": "mile_cards", "miles": 4, "points": 1}  # scores 0 without 4-Mile cards


def found(cards, highway: str):
    """{(scenery name, card ids, miles)} of the qualifying Stretches of a Highway."""
    from solver.rules.constants import SCENERIES

    hwy = [cards.card(c) for c in highway.split()]
    return {(SCENERIES[s.scenery], " ".join(cards.highway[c].id for c in s.cards), s.miles)
            for s in stretches(cards, hwy)}


def player(cards, highway: str, landmarks=()):
    return PlayerState(highway=[cards.card(c) for c in highway.split()],
                       landmarks=[(cards.landmark(a), cards.card(b)) for a, b in landmarks])


def test_adjacency_across_both_icons():
    cards = card_set([hw("X", 3, "ocean mountain"), hw("Y", 2, "mountain ocean", bonus=NO_BONUS),
                      hw("Z", 1, "ocean mountain")])
    assert found(cards, "X Y Z") == {("ocean", "X Y Z", 6), ("mountain", "X Y Z", 6)}


def test_order_of_icons_does_not_matter():
    a = card_set([hw("A", 3, "ocean forest"), hw("B", 3, "forest ocean"),
                  hw("C", 3, "ocean field")])
    b = card_set([hw("A", 3, "forest ocean"), hw("B", 3, "ocean forest"),
                  hw("C", 3, "field ocean")])
    assert found(a, "A B C") == found(b, "A B C") == {("ocean", "A B C", 9)}


@pytest.mark.parametrize("highway, expected", [
    ("A", set()),  # one card with 2 equal icons: 2 icons
    ("A B", {("ocean", "A B", 6)}),  # 2 + 1 icons on 2 cards
    ("B C", set()),  # 2 matching icons: not a Stretch
    ("B C D", {("ocean", "B C D", 9)}),  # 3 icons
    ("B C D E", {("ocean", "B C D E", 12)}),  # 4 icons
    ("A E", {("ocean", "A E", 6)}),
])
def test_icon_counts(highway, expected):
    cards = card_set([hw("A", 3, "ocean ocean"), hw("B", 3, "ocean field"),
                      hw("C", 3, "ocean forest"), hw("D", 3, "flower ocean"),
                      hw("E", 3, "ocean mountain")])
    assert found(cards, highway) == expected


def test_stretch_length_is_the_sum_of_miles():
    """The rules' example: a Forest Stretch of 2, 2, 3 and 1 miles is 8 miles, 8 points."""
    cards = card_set([hw("A", 2, "forest field", bonus=NO_BONUS),
                      hw("B", 2, "forest ocean", bonus=NO_BONUS),
                      hw("C", 3, "forest mountain"), hw("D", 1, "forest flower")])
    assert found(cards, "A B C D") == {("forest", "A B C D", 8)}
    s = score_player(cards, player(cards, "A B C D"))
    assert (s.stretches, s.bonuses, s.total) == (8, 0, 8)


def test_overlapping_stretches_of_different_scenery_score_independently():
    cards = card_set([hw("A", 3, "ocean ocean"), hw("B", 4, "ocean mountain"),
                      hw("C", 1, "mountain mountain")])
    assert found(cards, "A B C") == {("ocean", "A B", 7), ("mountain", "B C", 5)}
    s = score_player(cards, player(cards, "A B C"))
    assert s.stretches == 7 + 5  # B's 4 miles count in both
    assert [d["what"] for d in s.details] == ["ocean Stretch", "mountain Stretch"]


def test_separate_stretches_of_one_scenery():
    cards = card_set([hw("A", 3, "ocean ocean"), hw("B", 1, "ocean field"),
                      hw("G", 4, "forest flower"),
                      hw("C", 2, "ocean ocean", bonus=NO_BONUS), hw("D", 3, "ocean forest"),
                      hw("E", 3, "ocean ocean")])
    assert found(cards, "A B G C D E") == {("ocean", "A B", 4), ("ocean", "C D E", 8)}
    assert score_player(cards, player(cards, "A B G C D E")).stretches == 12
    # the gap card alone decides: without it the run is one Stretch
    assert found(cards, "A B C D E") == {("ocean", "A B C D E", 12)}


def test_runs_report_non_qualifying_sequences_too():
    cards = card_set([hw("A", 3, "ocean field"), hw("B", 3, "ocean forest")])
    (ocean,) = runs(cards, [cards.card("A"), cards.card("B")], scenery=0)
    assert (ocean.icons, ocean.miles, ocean.qualifies) == (2, 6, False)


def test_sections_without_a_stretch_score_nothing():
    cards = card_set([hw("A", 4, "ocean field"), hw("B", 4, "forest mountain"),
                      hw("C", 4, "flower ocean")])
    s = score_player(cards, player(cards, "A B C"))
    assert (s.stretches, s.total, s.details) == (0, 0, [])


def test_mile_increase_applies_to_the_whole_card():
    cards = card_set([hw("A", 3, "ocean ocean"), hw("B", 1, "ocean field"),
                      hw("C", 3, "field field")],
                     [lm("M", "ocean", {"kind": "mile_bonus", "miles": 2})])
    plain = score_player(cards, player(cards, "A B C"))
    assert plain.stretches == (3 + 1) + (1 + 3)
    raised = score_player(cards, player(cards, "A B C", [("M", "B")]))
    assert raised.stretches == (3 + 3) + (3 + 3)
    assert (raised.landmark_count, raised.landmark_abilities) == (3, 0)


def test_two_mile_bonuses_score_outside_stretches():
    cards = card_set([hw("B", 2, "ocean forest", bonus={"kind": "distinct_scenery", "points": 1}),
                      hw("C", 3, "mountain field"),
                      hw("D", 2, "flower field", bonus={"kind": "highway_end", "points": 2})])
    s = score_player(cards, player(cards, "B C D"))
    assert s.stretches == 0
    assert s.bonuses == 5 + 2  # every 2-Mile card in the Highway scores its condition
    assert {d["what"] for d in s.details} == {"B: distinct_scenery", "D: highway_end"}


@pytest.mark.parametrize("count, points", [(0, 0), (1, 3), (2, 3), (3, 5), (4, 5), (5, 8),
                                           (6, 8), (7, 8)])
def test_landmark_count_table(count, points):
    assert landmark_count_points(count) == points
    highway = " ".join(f"H{i}" for i in range(7))
    cards = card_set([hw(f"H{i}", 3, "ocean ocean") for i in range(7)],
                     [lm(f"L{i}", "ocean") for i in range(7)])
    s = score_player(cards, player(cards, highway, [(f"L{i}", f"H{i}") for i in range(count)]))
    assert s.landmark_count == points  # a category total, not points per Landmark
    assert s.total == 21 + points


def test_scoring_example_from_the_rules_totals_30():
    """Field 6 + Ocean 6 + Mountain 7; a lone Forest icon scores nothing; a 2-Mile card
    worth 1 per Scenery type sees Forest, Field, Ocean, Mountain (4); 1 Landmark (3) whose
    ability is worth 4 (1 per Ocean icon, 4 icons): 30. The Landmark is claimed by play."""
    cards = card_set(
        [hw("G", 2, "forest ocean", bonus={"kind": "distinct_scenery", "points": 1}),
         hw("A", 3, "field field"), hw("B", 3, "field ocean"), hw("C", 3, "ocean ocean"),
         hw("D", 4, "mountain mountain"), hw("E", 3, "mountain forest"), hw("Z", 3)],
        [lm("BIX", "ocean", {"kind": "scenery_points", "scenery": "ocean", "points": 1},
            name="Bixby Creek Bridge")])
    assert found(cards, "G A B C D E") == {
        ("field", "A B", 6), ("ocean", "B C", 6), ("mountain", "D E", 7)}
    state = make_state(cards, [{"highway": "G A B C D E"}, {}], deck="", depot="Z")
    final = play(state, "claim BIX C")
    assert final.phase == Phase.OVER
    s = outcome(final).scores[0]
    assert (s.stretches, s.bonuses, s.landmark_count, s.landmark_abilities) == (19, 4, 3, 4)
    assert s.total == 30
    assert s.to_json()["total"] == 30
    assert sum(d["points"] for d in s.details) == 30


def test_ties_are_shared_wins():
    cards = card_set([hw("A", 3, "ocean ocean"), hw("B", 3, "ocean ocean"),
                      hw("C", 3, "ocean ocean"), hw("D", 3, "ocean ocean"), hw("E", 4)])
    state = make_state(cards, [{"highway": "A B"}, {"highway": "C D"}, {"highway": "E"}],
                       phase=Phase.OVER, picks=0)
    result = final_scores(state)
    assert [s.total for s in result.scores] == [6, 6, 0]
    assert result.winners == (0, 1)
    assert result.to_json()["winners"] == [0, 1]
    alone = make_state(cards, [{"highway": "A B C"}, {"highway": "D"}], phase=Phase.OVER,
                       picks=0)
    assert final_scores(alone).winners == (0,)
    nobody = make_state(cards, [{}, {}], phase=Phase.OVER, picks=0)
    assert final_scores(nobody).winners == (0, 1)  # 0 - 0: shared


def test_claim_totals_score_each_claim_as_the_final_scoring_does():
    """scoring.claim_totals shares a Highway's facts between claims: the totals must be
    score_player's, with every Landmark of the shipped set (mile bonuses among them,
    which change the Stretches) below every card of Highways from real games."""
    import random

    from solver.rules.cards import load_card_set
    from solver.rules.engine import new_game
    from solver.rules.scoring import claim_totals
    from solver.search.policies import play_turn

    cards = load_card_set()
    kinds = set()
    for seed in range(3):
        state = new_game(2, seed, cards)
        rng = random.Random(seed)
        while state.phase != Phase.OVER:
            play_turn(state, rng, noise=0.3)
            for p in state.players:
                if not p.highway:
                    continue
                claims = [(k, c) for k in range(len(cards.landmarks)) for c in p.highway[::3]
                          if all(k != held for held, _c in p.landmarks)]
                highway, held = tuple(p.highway), tuple(p.landmarks)
                want = [score_player(cards, PlayerState(highway=list(highway),
                                                        landmarks=list(held)), False).total]
                want += [score_player(cards, PlayerState(highway=list(highway),
                                                         landmarks=[*held, claim]), False).total
                         for claim in claims]
                assert claim_totals(cards, highway, held, claims) == want
                kinds |= {cards.landmarks[k].ability.kind for k, _c in claims}
    assert "mile_bonus" in kinds and "landmark_collection" in kinds
