"""Claiming Landmarks: every restriction of the rules, each illegal claim's message, and
the agreement of ``legal_actions`` with the checked entry point."""

from __future__ import annotations

import itertools
import random

import pytest
from rules_testkit import card_set, fillers, hw, lm, make_state

from solver.rules.actions import Claim, IllegalActionError
from solver.rules.engine import apply, claimable, legal_actions, new_game, play
from solver.rules.state import Phase


def claim_set():
    """Ocean/mountain cards for overlapping Stretches, a field card to split runs."""
    return card_set(
        [hw("A", 3, "ocean ocean"), hw("B", 3, "ocean mountain"), hw("C", 3, "mountain mountain"),
         hw("D", 3, "ocean field"), hw("E", 3, "ocean ocean"), hw("F", 3, "field flower"),
         hw("G", 3, "ocean forest"), hw("H", 3, "ocean ocean"), hw("K", 3, "mountain ocean")]
        + fillers(16),
        [lm("O1", "ocean"), lm("O2", "ocean"), lm("M1", "mountain"), lm("F1", "forest"),
         lm("O3", "ocean"), lm("N1", "ocean"), lm("N2", "mountain")])


def state_with(cards, highway, landmarks=(), row="O1 O2 M1 F1 O3", lm_deck="N1 N2",
               hand="", **kw):
    return make_state(cards, [{"highway": highway, "landmarks": landmarks, "hand": hand},
                              {"hand": "X11"}],
                      deck="X0 X1 X2 X3 X4 X5", depot="X6 X7 X8 X9 X10", landmark_row=row,
                      landmark_deck=lm_deck, **kw)


def claim_error(state, text) -> str:
    with pytest.raises(IllegalActionError) as info:
        play(state, text)
    msg = str(info.value)
    assert f"illegal action {text!r}" in msg  # the message names the action
    return msg


def test_claim_places_the_landmark_and_refills_the_row_at_once():
    cards = claim_set()
    state = state_with(cards, "A B")
    after = play(state, "claim O2 B")
    assert after.players[0].landmarks == [(cards.landmark("O2"), cards.card("B"))]
    # O2 left the row; the next Landmark (N1, top of the Landmark deck) filled it
    assert [cards.landmarks[x].id for x in after.landmark_row] == ["O1", "M1", "F1", "O3", "N1"]
    assert [cards.landmarks[x].id for x in after.landmark_deck] == ["N2"]
    assert (after.current, after.phase) == (1, Phase.TAKE)  # the claim ended the turn


def test_row_shrinks_when_the_landmark_deck_is_empty():
    cards = claim_set()
    after = play(state_with(cards, "A B", lm_deck=""), "claim O1 A")
    assert len(after.landmark_row) == 4


def test_landmark_above_any_card_of_the_stretch():
    cards = claim_set()
    state = state_with(cards, "A B C")
    for card in "AB":
        play(state, f"claim O1 {card}")
    msg = claim_error(state, "claim O1 C")  # C is in the mountain Stretch only
    assert "C shows no ocean icon" in msg


def test_stretch_must_match_the_landmark_scenery():
    cards = claim_set()
    state = state_with(cards, "A B")  # an ocean Stretch only
    assert "no forest icon" in claim_error(state, "claim F1 A")
    assert "the mountain run through B has 1 icon(s); a Stretch needs at least 3" in \
        claim_error(state, "claim M1 B")


def test_stretch_must_qualify():
    cards = claim_set()
    state = state_with(cards, "D G F A")  # ocean D G: 2 icons; A alone: 2 icons
    assert "has 2 icon(s); a Stretch needs at least 3" in claim_error(state, "claim O1 D")
    assert "has 2 icon(s)" in claim_error(state, "claim O1 A")
    assert not claimable(state)


def test_landmark_must_be_in_the_row_and_card_in_the_highway():
    cards = claim_set()
    state = state_with(cards, "A B", hand="E")
    msg = claim_error(state, "claim N1 A")
    assert "N1 is not in the Landmark row (O1 O2 M1 F1 O3)" in msg
    assert "E is not in your Highway" in claim_error(state, "claim O1 E")
    assert "unknown Landmark 'ZZ'" in claim_error(state, "claim ZZ A")
    assert "unknown Highway card 'ZZ'" in claim_error(state, "claim O1 ZZ")


def test_one_landmark_per_card():
    cards = claim_set()
    # ocean A B used by O1 above B; mountain B C K unused: but B already carries a Landmark
    state = state_with(cards, "A B C K", landmarks=[("O1", "B")], row="O2 M1 F1 O3 N1")
    assert "B already has a Landmark above it" in claim_error(state, "claim M1 B")
    play(state, "claim M1 C")  # another card of the mountain Stretch is fine


def test_each_stretch_claims_only_once_even_when_longer():
    cards = claim_set()
    state = state_with(cards, "A B", landmarks=[("O1", "A")], row="O2 M1 F1 O3 N1",
                       hand="E H X12 X13 X14 X15")
    assert "that ocean Stretch was already used to claim O1" in claim_error(state, "claim O2 B")
    # the Stretch grows: still used
    grown = play(play(state, "build E R pay X12 X13"), "build H L pay X14 X15")
    assert [cards.highway[c].id for c in grown.player.highway] == ["H", "A", "B", "E"]
    for card in "HBE":
        assert "already used to claim O1" in claim_error(grown, f"claim O2 {card}")
    assert not any(isinstance(a, Claim) for a in legal_actions(grown))


def test_overlapping_stretches_each_claim_their_own():
    cards = claim_set()
    # ocean A B K (4 icons) and mountain B C K (4 icons) share B and K
    state = state_with(cards, "A B C K", row="O1 M1 F1 O2 O3")
    first = play(state, "claim O1 B")
    # next turn of seat 0: the mountain Stretch is unused although it shares B
    again = make_state(cards, [{"highway": "A B C K", "landmarks": [("O1", "B")]},
                               {"hand": "X11"}], landmark_row="M1 F1 O2 O3 N1",
                       landmark_deck="N2", deck="X0 X1", depot="X6 X7 X8 X9 X10")
    assert first.players[0].landmarks == again.players[0].landmarks
    assert "already has a Landmark" in claim_error(again, "claim M1 B")
    after = play(again, "claim M1 K")
    assert len(after.players[0].landmarks) == 2
    assert "already used to claim O1" in claim_error(again, "claim O2 A")


def test_separate_stretches_of_one_scenery_each_claim():
    cards = claim_set()
    state = state_with(cards, "A G F E H", landmarks=[("O1", "A")], row="O2 M1 F1 O3 N1")
    play(state, "claim O2 H")  # E H is another ocean Stretch
    assert "already used" in claim_error(state, "claim O2 G")


def test_only_one_claim_per_turn():
    cards = claim_set()
    state = state_with(cards, "A B C E H")
    after = play(state, "claim O1 A")
    assert after.current == 1
    assert "first take 2 more card" in claim_error(after, "claim M1 C")


def test_claims_are_made_in_the_build_step_only():
    cards = claim_set()
    state = state_with(cards, "A B", phase=Phase.TAKE, picks=0)
    assert "first take 2 more card" in claim_error(state, "claim O1 A")
    assert not any(isinstance(a, Claim) for a in legal_actions(state))


def test_claimable_agrees_with_play_on_every_pair():
    """Exhaustive: for several Highways and placements, a claim is legal by ``play``
    exactly when ``legal_actions`` lists it."""
    cards = claim_set()
    layouts = [("A B C K", ()), ("A B C K", [("O1", "B")]), ("A G F E H", [("O1", "A")]),
               ("D A B C", [("M1", "C")]), ("H A E", ()), ("F", ()), ("", ())]
    for highway, placed in layouts:
        used = {x for x, _ in placed}
        row = " ".join([x for x in ("O1", "O2", "M1", "F1", "O3", "N1") if x not in used][:5])
        state = state_with(cards, highway, landmarks=placed, row=row)
        listed = {a for a in legal_actions(state) if isinstance(a, Claim)}
        for lm_index, c in itertools.product(state.landmark_row, state.player.highway):
            action = Claim(cards.landmarks[lm_index].id, cards.highway[c].id)
            try:
                play(state, action)
                ok = True
            except IllegalActionError:
                ok = False
            assert ok == (action in listed), (highway, placed, action)


def test_claims_in_random_games_agree_with_play(small):
    """In random games on the small set, every listed claim passes ``play`` and claims
    are made (so the check above is not vacuous on real deals)."""
    made = 0
    for seed in range(6):
        state = new_game(2 + seed % 3, seed, small)
        rng = random.Random(seed)
        while not state.is_over:
            acts = legal_actions(state)
            claims = [a for a in acts if isinstance(a, Claim)]
            for a in claims:
                play(state, a)
            action = rng.choice(claims) if claims and rng.random() < 0.7 else rng.choice(acts)
            made += isinstance(action, Claim)
            state = apply(state, action)
    assert made > 0


def test_claimed_landmarks_are_never_moved_or_replaced(small):
    """Over random games a seat's Landmarks only ever gain one at the end."""
    claims = 0
    for seed in range(6):
        state = new_game(2 + seed % 3, seed, small)
        rng = random.Random(seed)
        while not state.is_over:
            acts = legal_actions(state)
            claim = [a for a in acts if isinstance(a, Claim)]
            after = apply(state, rng.choice(claim) if claim else rng.choice(acts))
            for old, new in zip(state.players, after.players, strict=True):
                assert new.landmarks[:len(old.landmarks)] == old.landmarks
                assert len(new.landmarks) - len(old.landmarks) in (0, 1)
                claims += len(new.landmarks) > len(old.landmarks)
            state = after
    assert claims > 0


def test_claimable_takes_a_view_of_any_seat(small):
    """claimable(view) failed ('PlayerView' object has no attribute 'players') where
    legal_actions took the view: a claim reads only public facts, so every seat's view
    gives every seat's pairs as the full state does."""
    from solver.rules.views import view_of

    found = 0
    for seed in range(4):
        state = new_game(2 + seed % 3, seed, small)
        rng = random.Random(seed)
        while not state.is_over:
            for viewer in range(state.num_players):
                view = view_of(state, viewer)
                assert claimable(view) == claimable(state)
                for seat in range(state.num_players):
                    assert claimable(view, seat) == claimable(state, seat)
                    found += bool(claimable(state, seat))
            acts = legal_actions(state)
            claims = [a for a in acts if isinstance(a, Claim)]
            state = apply(state, rng.choice(claims) if claims and rng.random() < 0.5
                          else rng.choice(acts))
    assert found  # not vacuous: some seat could claim
