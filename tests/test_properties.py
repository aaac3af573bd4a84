"""Property tests: random legal games of 2, 3 and 4 players, checked after every action.

Each hypothesis example is one full game: the seats, the game seed (which also seeds
the random player) and an ``end_bias`` are drawn by hypothesis. The random player picks
uniformly among the legal actions; with ``end_bias`` > 0 it instead ends the turn with
that probability whenever it may, so some games are played by hoarders (big hands,
substitutions, long build sequences later) and not only by eager builders.

By default the three tests play GAMES_CONSERVATION + GAMES_CHECKED + GAMES_FORMATS
= 1,000 full games (marked ``slow``: this reduced form is the default run);
``BIGSUR_FULL=1`` plays 30 times more (30,000).
A failure prints the drawn (players, seed, end_bias): ``random_game(*game)`` replays it.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.rules.actions import Action, Claim, End, Take
from solver.rules.cards import load_card_set
from solver.rules.engine import apply, legal_actions, new_game, outcome, play, turns_per_player
from solver.rules.position import check_state, state_from_json, state_to_json
from solver.rules.record import GameRecord
from solver.rules.scoring import score_player
from solver.rules.state import GameState, Phase
from solver.rules.views import view_of, view_to_json

CARDS = load_card_set()
SCALE = 30 if os.environ.get("BIGSUR_FULL") == "1" else 1  # BIGSUR_FULL=1: 30x the games

GAMES_CONSERVATION = 500  # conservation, check_state, equal turns, scores
GAMES_CHECKED = 300  # every legal action passes play; play and apply agree
GAMES_FORMATS = 200  # position JSON, views, record replay

games = st.tuples(st.sampled_from((2, 3, 4)), st.integers(0, 2**32 - 1),
                  st.sampled_from((0.0, 0.0, 0.5)))


def _settings(examples: int):
    return settings(max_examples=examples, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def random_game(players: int, seed: int, end_bias: float):
    """Yield (state, legal actions, chosen action) for every step of a random legal game,
    then (final state, [], None). The yielded state must not be changed by the caller."""
    state = new_game(players, seed, CARDS)
    rng = random.Random(seed)
    while not state.is_over:
        legal = legal_actions(state)
        action = rng.choice(legal)
        if end_bias and state.phase == Phase.BUILD and rng.random() < end_bias:
            action = End()
        yield state, legal, action
        state = apply(state, action)
    yield state, [], None


# ------------------------------------------------------------------ checks

def assert_conserved(state: GameState) -> None:
    """Each Highway card of the game is in exactly one place, and each Landmark too."""
    placed = state.deck + state.depot
    for p in state.players:
        placed += p.hand + p.highway + p.discard
    assert sorted(placed) == sorted(CARDS.deck_for(state.num_players))
    landmarks = state.landmark_deck + state.landmark_row
    for p in state.players:
        landmarks += [lm for lm, _card in p.landmarks]
    assert sorted(landmarks) == list(range(len(CARDS.landmarks)))


def assert_scores(state: GameState) -> None:
    """Scores are non-negative, each category is the sum of its detail lines, the total
    the sum of the categories, and the winners are exactly the best totals."""
    result = outcome(state)
    assert result is not None
    for seat, breakdown in enumerate(result.scores):
        assert breakdown == score_player(CARDS, state.players[seat])
        by_category = Counter()
        for line in breakdown.details:
            assert line["points"] >= 0, line
            by_category[line["category"]] += line["points"]
        parts = {"stretches": breakdown.stretches, "bonuses": breakdown.bonuses,
                 "landmark_count": breakdown.landmark_count,
                 "landmark_abilities": breakdown.landmark_abilities}
        for category, points in parts.items():
            assert points >= 0
            assert by_category[category] == points, category
        assert breakdown.total == sum(parts.values())
    best = max(s.total for s in result.scores)
    assert result.winners == tuple(i for i, s in enumerate(result.scores) if s.total == best)


def json_strings(raw, out: set[str]) -> set[str]:
    """Every string (values and keys) in a JSON value."""
    if isinstance(raw, str):
        out.add(raw)
    elif isinstance(raw, dict):
        for k, v in raw.items():
            out.add(k)
            json_strings(v, out)
    elif isinstance(raw, list):
        for v in raw:
            json_strings(v, out)
    return out


def assert_view_hides(state: GameState, seat: int) -> None:
    """The JSON view of ``seat`` names no card hidden from it (the deck, other hands
    except their known cards, other discard piles except their known fronts) and names
    every card it may see."""
    raw = view_to_json(view_of(state, seat))
    raw.pop("cards")  # the card set itself ("default", or the whole set inline)
    shown = json_strings(raw, set())
    hid = [c.id for c in CARDS.highway]
    hidden = set(state.deck)
    visible = set(state.depot)
    for i, p in enumerate(state.players):
        visible.update(p.highway)
        if i == seat:
            visible.update(p.hand + p.discard)
        else:
            hidden.update(c for c in p.hand if c not in p.known_hand)
            hidden.update(c for c in p.discard if c not in p.known_discard)
            visible.update(p.known_hand | p.known_discard)
    assert not visible & hidden
    leaked = {hid[c] for c in hidden} & shown
    assert not leaked, f"view of seat {seat} shows hidden card(s) {sorted(leaked)}"
    missing = {hid[c] for c in visible} - shown
    assert not missing, f"view of seat {seat} lacks visible card(s) {sorted(missing)}"


# ------------------------------------------------------------------ the games

def check_conservation_game(players: int, seed: int, end_bias: float) -> None:
    turns_taken = [0] * players  # counted from the actions, independently of the state
    picks = 0
    for state, legal, action in random_game(players, seed, end_bias):
        assert_conserved(state)
        check_state(state)
        if action is None:
            break
        assert legal and action in legal
        if type(action) is Take:
            picks += 1
        if type(action) in (End, Claim):
            assert picks == 2, "a turn ends after exactly 2 cards are taken"
            turns_taken[state.current] += 1
            picks = 0
    assert state.is_over
    assert not state.deck
    per_player = turns_per_player(state)
    assert turns_taken == [per_player] * players
    assert [p.turns for p in state.players] == [per_player] * players
    assert state.turn == per_player * players
    assert_scores(state)


def check_checked_game(players: int, seed: int, end_bias: float) -> None:
    for state, legal, action in random_game(players, seed, end_bias):
        if action is None:
            break
        before = state.copy()
        assert len(set(legal)) == len(legal), "legal_actions lists an action twice"
        for a in legal:
            assert Action.parse(a.notation()) == a
            # play raises if the checked path disagrees about legality
            assert play(state, a) == apply(state, a), a.notation()
        assert state == before, "play or apply changed the state it was given"
        assert play(state, action.notation()) == apply(state, action)


def check_formats_game(players: int, seed: int, end_bias: float) -> None:
    record = GameRecord.start(players, seed, CARDS)
    for state, _legal, action in random_game(players, seed, end_bias):
        text = json.dumps(state_to_json(state))
        assert state_from_json(json.loads(text)) == state
        for seat in range(players):
            assert_view_hides(state, seat)
        if action is None:
            break
        record.actions.append(action.notation())
    assert record.replay() == state
    again = GameRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert again.replay() == state


@pytest.mark.slow
@given(games)
@_settings(SCALE * GAMES_CONSERVATION)
def test_random_games_conserve_cards_and_end_evenly(game):
    check_conservation_game(*game)


@pytest.mark.slow
@given(games)
@_settings(SCALE * GAMES_CHECKED)
def test_random_games_checked_and_unchecked_agree(game):
    check_checked_game(*game)


@pytest.mark.slow
@given(games)
@_settings(SCALE * GAMES_FORMATS)
def test_random_games_positions_views_and_records(game):
    check_formats_game(*game)
