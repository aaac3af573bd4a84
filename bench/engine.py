"""Engine benchmark: random full games per second, actions per second, perft nodes per
second, and where the time goes (cProfile).

    python -m bench.engine [--quick] [--out bench/results/engine.json]

One process, one core. A random game is the bare engine loop: ``legal_actions``, a
uniform choice with a seeded ``random.Random``, ``apply_inplace``, until the game is
over (no notation, no checks). perft nodes are the leaves counted by
:func:`solver.rules.perft.perft` (the last ply is counted in bulk, as chess engines do).
Caches (the payment plan cache) warm up over the run, as they would in a search.
Bar of issue 2: 200 random 2-player games/s per core; project goal 1,000.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import random
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.common import write_json
from solver.rules.cards import load_card_set
from solver.rules.engine import apply_inplace, legal_actions, new_game
from solver.rules.perft import perft, seeded_position

BAR_GAMES_PER_S = 200
GOAL_GAMES_PER_S = 1000
RESULTS = Path(__file__).parent / "results" / "engine.json"

# (players, games) full / quick
GAMES = {False: ((2, 2000), (3, 1200), (4, 1000)), True: ((2, 300), (3, 200), (4, 150))}
# (label, players, seed, turns, depth): perft.seeded_position positions
PERFT = {
    False: (("start-2p", 2, 1, None, 9), ("start-4p", 4, 3, None, 10),
            ("mid-2p", 2, 142, 12, 7), ("mid-3p", 3, 88, 14, 6)),
    True: (("start-2p", 2, 1, None, 7), ("mid-2p", 2, 142, 12, 5)),
}
PROFILE_GAMES = {False: 400, True: 100}


def random_games(cards, players: int, games: int, first_seed: int = 0) -> dict:
    """Play ``games`` random full games; seeds first_seed, first_seed + 1, ..."""
    actions = 0
    start = time.process_time()
    for seed in range(first_seed, first_seed + games):
        state = new_game(players, seed, cards)
        rng = random.Random(seed)
        while not state.is_over:
            apply_inplace(state, rng.choice(legal_actions(state)))
            actions += 1
    seconds = time.process_time() - start
    return {"players": players, "games": games, "seconds": round(seconds, 3),
            "games_per_s": round(games / seconds, 1),
            "actions_per_s": round(actions / seconds),
            "actions_per_game": round(actions / games, 1)}


def perft_run(cards, label: str, players: int, seed: int, turns, depth: int) -> dict:
    state = seeded_position(players, seed, turns, cards)
    start = time.process_time()
    nodes = perft(state, depth)
    seconds = time.process_time() - start
    return {"position": label, "players": players, "seed": seed, "turns": turns,
            "depth": depth, "nodes": nodes, "seconds": round(seconds, 3),
            "nodes_per_s": round(nodes / seconds)}


def profile(cards, games: int, top: int = 10) -> dict:
    """cProfile of ``games`` random 2-player games: the top functions by cumulative and
    by own time (profiling slows the run; compare shares, not seconds)."""
    profiler = cProfile.Profile()
    profiler.enable()
    random_games(cards, 2, games, first_seed=10_000)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    rows = []
    for (path, line, name), (_cc, calls, own, cum, _callers) in stats.stats.items():
        short = path if path.startswith("<") or path.startswith("{") else \
            "/".join(Path(path).parts[-2:])
        rows.append({"function": f"{short}:{line}({name})", "calls": calls,
                     "own_s": round(own, 4), "cum_s": round(cum, 4),
                     "own_share": round(own / total, 3), "cum_share": round(cum / total, 3)})
    run_frame = {"random_games", "profile", "<module>", "<built-in method builtins.exec>"}
    by_cum = [r for r in sorted(rows, key=lambda r: -r["cum_s"])
              if not any(f"({n})" in r["function"] for n in run_frame)
              and "disable" not in r["function"]]
    by_own = sorted(rows, key=lambda r: -r["own_s"])
    return {"games": games, "players": 2, "total_s": round(total, 3),
            "top_cumulative": by_cum[:top], "top_own": by_own[:top]}


def table(headers: list[str], rows: list[list]) -> str:
    cells = [headers] + [[str(x) for x in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                       enumerate(zip(row, widths, strict=True))) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few seconds: smaller runs")
    parser.add_argument("--out", default=str(RESULTS), help=f"JSON results (default {RESULTS})")
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile run")
    args = parser.parse_args(argv)
    quick = args.quick
    cards = load_card_set()

    games = [random_games(cards, p, n) for p, n in GAMES[quick]]
    print(f"Engine benchmark ({'quick' if quick else 'full'}), card set {cards.label}")
    print(f"Python {platform.python_version()} on {platform.machine()}, one process\n")
    print(table(["random games", "games", "s", "games/s", "actions/s", "actions/game"],
                [[f"{g['players']} players", g["games"], g["seconds"], g["games_per_s"],
                  g["actions_per_s"], g["actions_per_game"]] for g in games]))
    two = games[0]["games_per_s"]
    verdict = "meets" if two >= BAR_GAMES_PER_S else "BELOW"
    print(f"\n2-player: {two} games/s ({verdict} the bar of {BAR_GAMES_PER_S}; "
          f"goal {GOAL_GAMES_PER_S})\n")

    perfts = [perft_run(cards, *spec) for spec in PERFT[quick]]
    print(table(["perft", "depth", "nodes", "s", "nodes/s"],
                [[p["position"], p["depth"], p["nodes"], p["seconds"], p["nodes_per_s"]]
                 for p in perfts]))
    nodes = sum(p["nodes"] for p in perfts)
    seconds = sum(p["seconds"] for p in perfts)
    print(f"\nperft overall: {round(nodes / seconds)} nodes/s\n")

    prof = None
    if not args.no_profile:
        prof = profile(cards, PROFILE_GAMES[quick])
        for key, title in (("top_cumulative", "cumulative"), ("top_own", "own time")):
            print(f"Profile of {prof['games']} random 2-player games, top by {title} "
                  f"(profiled total {prof['total_s']} s)")
            print(table(["function", "calls", "own s", "cum s", "own %", "cum %"],
                        [[r["function"], r["calls"], r["own_s"], r["cum_s"],
                          f"{100 * r['own_share']:.1f}", f"{100 * r['cum_share']:.1f}"]
                         for r in prof[key]]))
            print()

    result = {
        "bench": "engine",
        "mode": "quick" if quick else "full",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "implementation":
                    platform.python_implementation(), "machine": platform.machine(),
                    "processor": platform.processor(), "cpus": os.cpu_count()},
        "card_set": cards.identity(),
        "bar_games_per_s_2p": BAR_GAMES_PER_S,
        "goal_games_per_s_2p": GOAL_GAMES_PER_S,
        "random_games": games,
        "perft": perfts,
        "perft_nodes_per_s": round(nodes / seconds),
        "profile": prof,
    }
    print(f"wrote {write_json(args.out, result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
