"""perft regression: pinned counts of action sequences from fixed seeded positions.

The counts were computed once with :func:`solver.rules.perft.perft` and checked against
an independent brute-force count (:func:`brute_count`: every action of the product space
is tried through the checked :func:`play`, and the distinct successor states are
counted), so a change in move generation or in how an action changes the state shows
up here. The counts belong to the default card set (the test first checks its
fingerprint) and to the engine's auto-payment: a Build of legal_actions is paid the
cheapest way, so a change in which cards that spends changes the later positions.
After a deliberate change of the cards, the rules or the auto-payment, re-pin with
``python tests/test_perft.py`` (it prints PINNED, every count checked by brute force).
"""

from __future__ import annotations

import json

import pytest

from solver.rules.actions import Build, Claim, End, IllegalActionError, Take
from solver.rules.cards import load_card_set
from solver.rules.engine import legal_actions, new_game, play
from solver.rules.perft import divide, perft, seeded_position
from solver.rules.position import state_to_json
from solver.rules.state import GameState, Phase

CARDS = load_card_set()

# (players, seed, turns) for perft.seeded_position: the deal when turns is None, else
# the build step after a seeded random line of ``turns`` turns (seeds chosen so that
# builds and claims are legal there).
POSITIONS = {
    "start-2p": (2, 1, None),
    "start-3p": (3, 2, None),
    "start-4p": (4, 3, None),
    "mid-2p": (2, 142, 12),
    "mid-3p": (3, 88, 14),
    "mid-4p": (4, 94, 16),
}

FINGERPRINT = "ccda1df5efb80772"
DEPTHS = (1, 2, 3, 4, 5, 6)
BRUTE_DEPTH = 5  # brute force checks the counts up to this depth in every run
PINNED: dict[str, list[int]] = {
    "start-2p": [6, 31, 105, 260, 1405, 5266],
    "start-3p": [6, 31, 84, 247, 1287, 4230],
    "start-4p": [6, 31, 81, 236, 1261, 3414],
    "mid-2p": [19, 154, 934, 5257, 27201, 89920],
    "mid-3p": [5, 24, 129, 1089, 4335, 19767],
    "mid-4p": [13, 92, 517, 2061, 6410, 35203],
}  # name -> perft counts at DEPTHS


def position(name: str) -> GameState:
    players, seed, turns = POSITIONS[name]
    return seeded_position(players, seed, turns, CARDS)


def candidates(state: GameState):
    """Every action of the product space that could be legal, without asking the rules
    which ones are: any card to take, any hand card built at either end, any Landmark
    of the row above any Highway card, and ending the turn."""
    ids = [c.id for c in CARDS.highway]
    if state.phase == Phase.TAKE:
        yield Take(None)
        for c in CARDS.deck_for(state.num_players):
            yield Take(ids[c])
        return
    player = state.player
    for c in player.hand:
        for side in ("L", "R"):
            yield Build(ids[c], side)
    for lm in state.landmark_row:
        for c in player.highway:
            yield Claim(CARDS.landmarks[lm].id, ids[c])
    yield End()


def successors(state: GameState) -> list[GameState]:
    """The distinct states that the checked :func:`play` accepts one action into
    (building the first card at either end gives one state, counted once)."""
    out = {}
    for action in candidates(state):
        try:
            after = play(state, action)
        except IllegalActionError:
            continue
        out.setdefault(json.dumps(state_to_json(after), sort_keys=True), after)
    return list(out.values())


def brute_count(state: GameState, depth: int) -> int:
    """perft by brute force through the checked path, independent of legal_actions."""
    if depth == 0 or state.is_over:
        return int(depth == 0)
    return sum(brute_count(s, depth - 1) for s in successors(state))


def test_card_set_is_the_pinned_one():
    assert CARDS.fingerprint == FINGERPRINT, (
        "the default card set changed: re-pin the counts with `python tests/test_perft.py`")


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_perft_counts(name):
    state = position(name)
    before = state.copy()
    counts = [perft(state, depth) for depth in DEPTHS]
    assert state == before, "perft changed the position"
    assert counts[0] == len(legal_actions(state))
    if state.phase == Phase.TAKE:
        assert counts[0] == len(set(state.depot)) + bool(state.deck)
    assert counts == PINNED[name]


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_perft_matches_brute_force(name):
    state = position(name)
    depths = range(1, BRUTE_DEPTH + 1)
    assert [brute_count(state, d) for d in depths] == [perft(state, d) for d in depths]


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_divide_adds_up(name):
    state = position(name)
    split = divide(state, 4)
    assert sorted(split) == sorted(a.notation() for a in legal_actions(state))
    assert sum(split.values()) == perft(state, 4)


def test_perft_rejects_negative_depth():
    with pytest.raises(ValueError, match="depth"):
        perft(new_game(2, seed=1, cards=CARDS), -1)


if __name__ == "__main__":  # re-pin: print the counts, checked by brute force
    pins = {}
    for pin_name in POSITIONS:
        pin_state = position(pin_name)
        pins[pin_name] = [perft(pin_state, d) for d in DEPTHS]
        assert pins[pin_name] == [brute_count(pin_state, d) for d in DEPTHS], pin_name
    print(f'FINGERPRINT = "{CARDS.fingerprint}"')
    print("PINNED: dict[str, list[int]] = {")
    for pin_name, counts in pins.items():
        print(f'    "{pin_name}": {counts},')
    print("}")
