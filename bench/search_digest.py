"""A digest of the search heuristic's and the search's outputs over seeded positions, to
show that a speed change of the search changes no result: run it before and after and
compare the hex lines (the engine's own digest is :mod:`bench.engine_digest`).

    python -m bench.search_digest [--positions N] [--iterations N]

From mid-game positions of greedy self-play (2, 3 and 4 players, take and build steps)
and the states a few noisy greedy turns on from each, it hashes, with every float as its
``repr`` (so a change of arithmetic order shows): :func:`build_macros`,
:func:`build_options` (exact and not), :func:`claim_options`, :func:`take_values`,
:func:`lookahead_take_values` and :func:`root_moves` (inside the tree and at a root);
then the root statistics (visits, totals, wins, margins, lines) of a seeded
``Searcher(...).run(iterations=...)`` from each position. Not a test; a tool for
search speed work.
"""

from __future__ import annotations

import argparse
import hashlib
import random

from bench.engine_digest import print_digest
from bench.strength import mid_game_positions
from solver.rules.cards import load_card_set
from solver.rules.engine import apply_inplace
from solver.rules.state import GameState, Phase
from solver.rules.views import view_of
from solver.search.ismcts import DEFAULT_PARAMS, Searcher, root_moves
from solver.search.policies import (
    build_macros,
    build_options,
    claim_options,
    lookahead_take_values,
    play_turn,
    take_values,
)


def _action(a) -> str:
    return a.notation() if hasattr(a, "notation") else repr(a)


def _scored(options) -> str:
    """``[(value, action or sequence), ...]`` with the values' reprs."""
    out = []
    for v, a in options:
        acts = a if isinstance(a, tuple) else (a,)
        out.append(f"{v!r}:{'|'.join(_action(x) for x in acts)}")
    return ";".join(out)


def _moves(moves) -> str:
    return ";".join("|".join(_action(x) for x in m) for m in moves)


def _heuristics(h, state: GameState) -> None:
    h.update(f"{state.num_players}:{state.turn}:{int(state.phase)}:{state.current}".encode())
    if state.phase == Phase.BUILD:
        h.update(_scored(build_macros(state)).encode())
        h.update(_scored(build_options(state)).encode())
        h.update(_scored(build_options(state, exact=False)).encode())
        h.update(_scored(claim_options(state)).encode())
    elif state.phase == Phase.TAKE:
        h.update(_scored(take_values(state)).encode())
        h.update(_scored(lookahead_take_values(state)).encode())
    h.update(_moves(root_moves(state)).encode())


def positions(count: int) -> list[GameState]:
    """``count`` seeded mid-game positions, 2, 3 and 4 players in turn."""
    cards = load_card_set()
    out = []
    for i in range(count):
        out += mid_game_positions(1, 100 + i, cards, players=2 + i % 3)
    return out


def digest(count: int, iterations: int) -> dict[str, str]:
    states = positions(count)
    parts = {}
    h = hashlib.sha256()
    for i, state in enumerate(states):
        _heuristics(h, state)
        view = view_of(state, state.current)
        h.update(_moves(root_moves(state, DEFAULT_PARAMS, view.unseen_cards())).encode())
        s = state.copy()
        rng = random.Random(i)
        for _turn in range(4):
            if s.is_over:
                break
            play_turn(s, rng)
            _heuristics(h, s)
            if s.phase == Phase.TAKE:
                building = s.copy()  # the next seat's build step after greedy takes
                while building.phase == Phase.TAKE:
                    apply_inplace(building, take_values(building)[0][1])
                _heuristics(h, building)
    parts["heuristic"] = h.hexdigest()
    h = hashlib.sha256()
    for i, state in enumerate(states):
        searcher = Searcher(view_of(state, state.current), i, DEFAULT_PARAMS)
        searcher.run(iterations=iterations)
        for m in searcher.root_stats():
            h.update(f"{_moves([m.move])}:{m.visits}:{m.total!r}:{m.wins!r}:{m.margin!r}:"
                     f"{' '.join(m.line)};".encode())
        h.update(f"best:{_moves([searcher.best()])}".encode())
    parts["search"] = h.hexdigest()
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_digest", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=20, help="positions (default 20)")
    parser.add_argument("--iterations", type=int, default=300,
                        help="search iterations per position (default 300)")
    args = parser.parse_args(argv)
    print_digest(digest(args.positions, args.iterations))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
