"""A digest of the engine's behaviour over seeded games, to show that a speed change
changes nothing: run it before and after and compare the two hex lines.

    python -m bench.engine_digest [--games N]

It hashes, at every step of seeded random games (2 to 4 players), greedy games and
noisy greedy rollouts: the legal actions in order, the action chosen, the whole state
(its position JSON), and at every build step the automatic payment and the cheapest
card count of each hand card; then the final scores with their breakdowns. Not a test
(the pinned perft counts are that); a tool for engine work.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random

from solver.rules.cards import load_card_set
from solver.rules.engine import apply_inplace, legal_actions, new_game, outcome
from solver.rules.payment import affordable_cards, cheapest_cards_needed, cheapest_payment
from solver.rules.position import state_to_json
from solver.rules.state import Phase
from solver.search.policies import greedy_action, play_turn


def _step(h, state, actions=None) -> None:
    h.update(json.dumps(state_to_json(state), sort_keys=True).encode())
    if actions is not None:
        h.update(" ".join(a.notation() for a in actions).encode())
    if state.phase == Phase.BUILD:
        afford = affordable_cards(state)
        h.update(repr(afford).encode())
        for c in sorted(set(state.player.hand)):
            payment = cheapest_payment(state, c)
            h.update(f"{c}:{cheapest_cards_needed(state, c)}:{payment!r};".encode())


def _end(h, state) -> None:
    h.update(json.dumps(outcome(state).to_json(), sort_keys=True).encode())


def digest(games: int) -> dict[str, str]:
    cards = load_card_set()
    parts = {}
    h = hashlib.sha256()
    for seed in range(games):
        state = new_game(2 + seed % 3, seed, cards)
        rng = random.Random(seed)
        while not state.is_over:
            actions = legal_actions(state)
            _step(h, state, actions)
            action = rng.choice(actions)
            h.update(action.notation().encode())
            apply_inplace(state, action)
        _end(h, state)
    parts["random"] = h.hexdigest()
    h = hashlib.sha256()
    for seed in range(games // 4):
        state = new_game(2 + seed % 3, 1000 + seed, cards)
        while not state.is_over:
            _step(h, state, legal_actions(state))
            action = greedy_action(state)
            h.update(action.notation().encode())
            apply_inplace(state, action)
        _end(h, state)
    parts["greedy"] = h.hexdigest()
    h = hashlib.sha256()
    for seed in range(games // 2):
        state = new_game(2 + seed % 3, 2000 + seed, cards)
        rng = random.Random(seed)
        while not state.is_over:
            _step(h, state)
            play_turn(state, rng, noise=0.3, lookahead=seed % 2)
        _end(h, state)
    parts["rollouts"] = h.hexdigest()
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_digest", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300, help="random games (default 300)")
    args = parser.parse_args(argv)
    print_digest(digest(args.games))
    return 0


def print_digest(parts: dict[str, str]) -> None:
    """One line per part, then the hash of them all (the line to compare)."""
    for name, value in parts.items():
        print(f"{name:9} {value}")
    print(f"{'all':9} {hashlib.sha256(''.join(parts.values()).encode()).hexdigest()}")


if __name__ == "__main__":
    raise SystemExit(main())
