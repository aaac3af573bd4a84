"""Our MCTSBot against OpenSpiel's Python searches on ``python_big_sur`` (issue 7): prints
a table per part and writes ``bench/results/vs_openspiel.json``.

    python -m bench.vs_openspiel                   # the full run: hours, run it in parts
    python -m bench.vs_openspiel --part speed      # one part (repeat --part for more)
    python -m bench.vs_openspiel --quick           # minutes: proves the benchmark works

Needs the ``[openspiel]`` extra. Opponents (:class:`solver.openspiel.OpenSpielBot`):
``os-ismcts`` is OpenSpiel's Python ISMCTSBot (UCT c = 2, one random rollout to the end
per simulation, resampling with our determinizer); ``os-mcts`` is OpenSpiel's Python
MCTSBot searching one determinization of the view per decision. Budgets are per TURN
for both sides, split over a turn's decisions the same way.

===========  ==========================================================  ===============
part         what                                                        goal
===========  ==========================================================  ===============
equal-sims   mcts:<N>i vs os-ismcts:<N>i and vs os-mcts:<N>i, 2 players,  win rate >= 60%
             200 games each (paired deals, seats rotated)
equal-time   mcts:<T>s vs os-ismcts:<T>s and vs os-mcts:<T>s, 2 players,  win rate >= 80%
             200 games each
speed        simulations per second of the three searches on the same    ours >= 5x
             mid-game positions, same wall time each (one process)       OpenSpiel's
===========  ==========================================================  ===============

A "simulation" is one iteration of each search: ours samples a determinization, descends
its tree and rolls out with the greedy policy for two rounds before a heuristic cut-off;
OpenSpiel's sample (ISMCTS), descend and roll out uniformly at random to the end.
``--quick`` shrinks every part and writes ``bench/results/vs_openspiel-quick.json``
unless ``--out`` is given, so it never overwrites the full results.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from bench.common import played, run_parts
from bench.strength import mid_game_positions
from solver.openspiel import game_for, os_search, register_bots, state_from_engine
from solver.rules.cards import CardSet, load_card_set
from solver.rules.engine import legal_actions
from solver.rules.views import view_of
from solver.search.determinize import determinize
from solver.search.ismcts import search
from solver.search.tournament import run_tournament

PARTS = ("equal-sims", "equal-time", "speed")
OPPONENTS = ("os-ismcts", "os-mcts")
GOALS = {"equal-sims": 0.60, "equal-time": 0.80, "speed": 5.0}

FULL = {
    "equal-sims": {"simulations": 100, "games": 200},
    "equal-time": {"seconds": 0.5, "games": 200},
    "speed": {"positions": 10, "seconds": 2.0},
}
QUICK = {
    "equal-sims": {"simulations": 10, "games": 2},
    "equal-time": {"seconds": 0.05, "games": 2},
    "speed": {"positions": 2, "seconds": 0.3},
}


def _match(ours: str, budget: str, cfg: dict, args, cards: CardSet, goal: float) -> dict:
    """Our bot against each OpenSpiel opponent at the same per-turn budget."""
    rows = {}
    for kind in OPPONENTS:
        theirs = f"{kind}:{budget}"
        print(f"-- {ours} vs {theirs}", flush=True)
        executor = ProcessPoolExecutor(max_workers=args.workers or os.cpu_count() or 1,
                                       initializer=register_bots)
        try:
            summary = run_tournament([ours, theirs], 2, cfg["games"], args.seed, cards,
                                     executor=executor, progress=not args.quiet)
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
        print(summary.table())
        played(summary, "bench.vs_openspiel")
        s = summary.stats(ours)
        out = summary.to_json()
        out.pop("config", None)
        out["goal"] = {"bot": ours, "opponent": theirs, "win_rate_at_least": goal,
                       "win_rate": s.win_rate, "win_ci": list(s.win_ci),
                       "reached": s.win_rate >= goal}
        rows[kind] = out
    return {"opponents": rows, "goal": {"win_rate_at_least": goal, "reached": all(
        r["goal"]["reached"] for r in rows.values())}}


def part_equal_sims(cfg, args, cards) -> dict:
    n = cfg["simulations"]
    return _match(f"mcts:{n}i", f"{n}i", cfg, args, cards, GOALS["equal-sims"])


def part_equal_time(cfg, args, cards) -> dict:
    t = cfg["seconds"]
    return _match(f"mcts:{t:g}s", f"{t:g}s", cfg, args, cards, GOALS["equal-time"])


def part_speed(cfg, args, cards) -> dict:
    """Each search runs ``seconds`` of wall time on every position (the seat to act,
    positions with more than one legal action); simulations per second overall."""
    seconds = cfg["seconds"]
    states = [s for s in mid_game_positions(cfg["positions"] * 3, args.seed + 5, cards)
              if len(legal_actions(s)) > 1][:cfg["positions"]]
    totals = {"ours": [0, 0.0], "os-ismcts": [0, 0.0], "os-mcts": [0, 0.0]}
    rows = []
    for i, gs in enumerate(states):
        seed = args.seed * 1_000 + i
        view = view_of(gs, gs.current)
        game = game_for(cards, gs.num_players)
        row = {"position": i, "turn": gs.turn, "phase": gs.phase.name.lower(),
               "legal_actions": len(legal_actions(gs))}
        start = time.perf_counter()
        out = search(view, seconds=seconds, seed=seed)
        wall = time.perf_counter() - start
        row["ours"] = out.iterations / wall
        totals["ours"][0] += out.iterations
        totals["ours"][1] += wall
        # OpenSpiel sees the position only through a determinization of the same view
        sample = state_from_engine(game, determinize(view, random.Random(seed)))
        for kind in ("ismcts", "mcts"):
            start = time.perf_counter()
            _action, sims = os_search(kind, sample.clone(), seed, seconds=seconds)
            wall = time.perf_counter() - start
            row[f"os-{kind}"] = sims / wall
            totals[f"os-{kind}"][0] += sims
            totals[f"os-{kind}"][1] += wall
        rows.append(row)
        print(f"position {i} (turn {gs.turn + 1}, {row['phase']}, {row['legal_actions']} "
              f"legal): ours {row['ours']:,.0f}/s, os-ismcts {row['os-ismcts']:,.0f}/s, "
              f"os-mcts {row['os-mcts']:,.0f}/s", flush=True)
    rate = {k: (n / t if t else 0.0) for k, (n, t) in totals.items()}
    ratio = {k: (rate["ours"] / rate[k] if rate[k] else None) for k in ("os-ismcts", "os-mcts")}
    print(f"simulations/s over {len(rows)} positions: ours {rate['ours']:,.0f}, "
          f"os-ismcts {rate['os-ismcts']:,.0f} (x{ratio['os-ismcts'] or 0:.1f}), "
          f"os-mcts {rate['os-mcts']:,.0f} (x{ratio['os-mcts'] or 0:.1f})")
    reached = all(r is not None and r >= GOALS["speed"] for r in ratio.values())
    return {"positions": len(rows), "seconds_each": seconds, "rows": rows,
            "simulations_per_second": rate, "ratio": ratio,
            "goal": {"ratio_at_least": GOALS["speed"], "reached": reached}}


RUNNERS = {"equal-sims": part_equal_sims, "equal-time": part_equal_time, "speed": part_speed}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.vs_openspiel", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="tiny budgets and games (minutes)")
    p.add_argument("--part", action="append", choices=PARTS,
                   help="run only this part (repeatable; default: all)")
    p.add_argument("--games", type=int, help="games per pairing")
    p.add_argument("--simulations", type=int, help="simulations per turn (equal-sims)")
    p.add_argument("--seconds", type=float, help="seconds per turn (equal-time)")
    p.add_argument("--positions", type=int, help="positions of the speed part")
    p.add_argument("--speed-seconds", type=float, help="search time per speed measurement")
    p.add_argument("--workers", type=int, default=None,
                   help="parallel games (default: all cores)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cards", help="card-set file (default: the shipped reconstruction)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", help="JSON file (default bench/results/vs_openspiel.json, "
                                 "vs_openspiel-quick.json with --quick)")
    return p.parse_args(argv)


def configure(args) -> dict:
    cfg = json.loads(json.dumps(QUICK if args.quick else FULL))
    if args.games:
        cfg["equal-sims"]["games"] = cfg["equal-time"]["games"] = args.games
    if args.simulations:
        cfg["equal-sims"]["simulations"] = args.simulations
    if args.seconds:
        cfg["equal-time"]["seconds"] = args.seconds
    if args.positions:
        cfg["speed"]["positions"] = args.positions
    if args.speed_seconds:
        cfg["speed"]["seconds"] = args.speed_seconds
    return cfg


def summary_table(saved: dict) -> str:
    """One line per part and opponent: the result against the goal, and the wall time."""
    lines = [f"{'part':11} {'result':62} {'goal met':>8} {'wall s':>8}"]
    for part in PARTS:
        r = saved.get("parts", {}).get(part)
        if r is None:
            continue
        q = " (q)" if r.get("quick") else ""
        if part == "speed":
            rate, ratio = r["simulations_per_second"], r["ratio"]
            text = (f"sims/s ours {rate['ours']:,.0f}, os-ismcts {rate['os-ismcts']:,.0f} "
                    f"(x{ratio['os-ismcts'] or 0:.1f}), os-mcts {rate['os-mcts']:,.0f} "
                    f"(x{ratio['os-mcts'] or 0:.1f})")
            flag = ("yes" if r["goal"]["reached"] else "no") + q
            lines.append(f"{part:11} {text:62} {flag:>8} {r['wall_seconds']:>8.1f}")
            continue
        for row in r["opponents"].values():
            g = row["goal"]
            text = (f"{g['bot']} vs {g['opponent']}: {100 * g['win_rate']:.1f}% "
                    f"[{100 * g['win_ci'][0]:.1f}, {100 * g['win_ci'][1]:.1f}] "
                    f"over {row['games']} games")
            flag = ("yes" if g["reached"] else "no") + q
            lines.append(f"{part:11} {text:62} {flag:>8} {row['wall_seconds']:>8.1f}")
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    cards = load_card_set(args.cards) if args.cards else load_card_set()
    register_bots()
    import pyspiel

    version = getattr(pyspiel, "__version__", None) or _os_version()
    return run_parts("vs_openspiel", args, configure(args), RUNNERS, cards, summary_table,
                     {"open_spiel": version})


def _os_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("open-spiel")
    except PackageNotFoundError:
        return None


if __name__ == "__main__":
    sys.exit(main())
