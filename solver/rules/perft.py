"""perft: count the action sequences of a given length from a position.

As in chess engines, the count of every sequence of ``depth`` legal actions is a
regression check of move generation (a change in :func:`legal_actions` or in how an
action changes the state changes some count) and a benchmark of the engine's hot path.
A Build counts once per (card, side), as :func:`legal_actions` lists it (the engine pays
the cheapest way); the game is fully known to the engine, so a deck draw is one action.
A finished game has no actions: sequences that end the game early are not counted.

>>> from solver.rules.engine import new_game
>>> state = new_game(2, seed=1)
>>> perft(state, 1) == len(legal_actions(state))
True
>>> sum(divide(state, 2).values()) == perft(state, 2)
True
"""

from __future__ import annotations

import random

from .cards import CardSet
from .engine import apply_inplace, legal_actions, new_game
from .state import GameState, Phase


def perft(state: GameState, depth: int) -> int:
    """Number of sequences of ``depth`` legal actions from ``state`` (unchanged)."""
    if depth < 0:
        raise ValueError(f"depth: must be at least 0, got {depth}")
    if depth == 0:
        return 1
    actions = legal_actions(state)
    if depth == 1:
        return len(actions)  # bulk count: the leaves are not played
    total = 0
    for action in actions:
        child = state.copy()
        apply_inplace(child, action)
        total += perft(child, depth - 1)
    return total


def divide(state: GameState, depth: int) -> dict[str, int]:
    """perft split by first action (notation -> count), to find where two counts differ."""
    if depth < 1:
        raise ValueError(f"depth: must be at least 1, got {depth}")
    out = {}
    for action in legal_actions(state):
        child = state.copy()
        apply_inplace(child, action)
        out[action.notation()] = perft(child, depth - 1)
    return out


def seeded_position(players: int, seed: int, turns: int | None = None,
                    cards: CardSet | None = None) -> GameState:
    """A reproducible position for perft and benchmarks: the deal of
    ``new_game(players, seed)`` when ``turns`` is None, else a random line seeded by
    ``seed`` played until ``turns`` turns are complete and the player to act has taken
    their 2 cards. The line picks among the legal actions sorted by notation, so it does
    not depend on the order :func:`legal_actions` lists them in."""
    state = new_game(players, seed, cards)
    if turns is None:
        return state
    rng = random.Random(seed)
    while not (state.turn == turns and state.phase == Phase.BUILD):
        if state.is_over:
            raise ValueError(f"turns: the game of seed {seed} ended before turn {turns}")
        legal = sorted(legal_actions(state), key=lambda a: a.notation())
        apply_inplace(state, rng.choice(legal))
    return state
