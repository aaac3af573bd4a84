"""How often a search variant's top move matches the slow (16 s) tops that
``bench.strength --part hints`` saved, without re-running the slow searches: the quick
loop behind the hints goal, and its noise ceiling.

    python -m bench.hint_agreement --iterations 3000 --phase take          # today's search
    python -m bench.hint_agreement --iterations 3000 race_z=3.0             # a variant
    python -m bench.hint_agreement --seconds 1 own_step_upgrade=2          # at 1 s
    python -m bench.hint_agreement --seconds 1 --phase take --repeats 3 c_own=0.2
    python -m bench.hint_agreement --again --phase take --positions 50      # the ceiling
    python -m bench.hint_agreement --again root_takes=pairs --keep-tops /tmp/slow.json
    python -m bench.hint_agreement --again --iterations 48000 --keep-tops /tmp/slow.json
    python -m bench.hint_agreement root_takes=pairs --against /tmp/slow.json # its own

An iteration budget (3,000 is about what a 1 s search runs on an idle 2-core machine)
makes the comparison independent of the machine's load. ``--again`` runs the slow
search itself once more, with another seed and the saved slow budget: the share of
positions where two slow searches agree is the most a fast search can be expected to
reach against one of them. ``--keep-tops`` saves a run's tops and ``--against``
compares with them instead, so a variant that changes what the slow search plays is
measured against its own slow search (``--again --iterations N``: a slow search of N
iterations, which the machine's load does not change). "first" is the agreement on the
move's first action, the one played now (a pair of takes agrees when its first take
does). Agreement is also split by the searching seat's place in its round
(:func:`round_place`): a search held to the round (``cutoff="round"``) sees no other seat
move after the round's last turn, so there it is a fixed one-turn lookahead whatever its
budget. Positions are the hints part's (``mid_game_positions`` with its seed), so the
saved rows must come from the same code's benchmark run. Each run is added to
``bench/results/hint-agreement.json`` (newest kept per setting and commit of the code).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench.common import RESULTS, code_version, keep_run, machine
from bench.strength import mid_game_positions
from bench.variants import parse_overrides
from solver.rules.cards import load_card_set
from solver.rules.state import GameState
from solver.search.api import Budget, analyse
from solver.search.ismcts import DEFAULT_PARAMS
from solver.search.tournament import Progress

STRENGTH = RESULTS / "strength.json"


def _top(job: tuple) -> tuple[int, str]:
    index, state, budget, seed, overrides = job
    import dataclasses

    params = dataclasses.replace(DEFAULT_PARAMS, **overrides)
    result = analyse(state, budget, seed, params=params)
    return index, " ; ".join(result.best.actions)


def round_place(state: GameState) -> str:
    """Where the seat to act sits in its round: "last" (the round ends with its turn, so a
    search held to the round sees no other seat move after it) or "earlier"."""
    return "last" if (state.turn + 1) % state.num_players == 0 else "earlier"


def _kept_tops(path: str, positions) -> dict[int, str]:
    """The tops a ``--keep-tops`` run saved at ``path``, for ``positions``."""
    try:
        saved = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise SystemExit(f"bench.hint_agreement: --against {path}: cannot read kept tops "
                         f"({err})") from None
    missing = [i for i in positions if str(i) not in saved]
    if missing:
        raise SystemExit(f"bench.hint_agreement: --against {path}: no top for positions "
                         f"{missing[:5]}; keep them with the same --phase and --positions")
    return {i: saved[str(i)] for i in positions}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.hint_agreement", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("overrides", nargs="*", help="NAME=VALUE fields of SearchParams")
    p.add_argument("--iterations", type=int,
                   help="the budget: 3000 (about 1 s); with --again, the saved slow seconds")
    p.add_argument("--seconds", type=float,
                   help="a time budget instead, as the hints part's fast search has (the "
                        "result then depends on the machine and its load)")
    p.add_argument("--again", action="store_true",
                   help="run the slow search again (another seed): the noise ceiling")
    p.add_argument("--phase", choices=("take", "build", "all"), default="all")
    p.add_argument("--positions", type=int, help="only the first N saved positions")
    p.add_argument("--keep-tops", metavar="PATH", help="save this run's tops (JSON)")
    p.add_argument("--against", metavar="PATH",
                   help="compare with the tops of a --keep-tops run, not the saved slow tops")
    p.add_argument("--repeats", type=int, default=1,
                   help="search each position this many times with other seeds (the first "
                        "with the benchmark's): agreement over all of them, less seed noise")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out", default=str(RESULTS / "hint-agreement.json"))
    args = p.parse_args(argv)
    overrides = parse_overrides(args.overrides)
    try:
        hints = json.loads(STRENGTH.read_text(encoding="utf-8"))["parts"]["hints"]
    except (OSError, KeyError, json.JSONDecodeError):
        raise SystemExit(f"bench.hint_agreement: no saved hints part in {STRENGTH}; run "
                         "python -m bench.strength --part hints first") from None
    rows = hints["rows"][:args.positions]
    rows = [r for r in rows if args.phase == "all" or r["phase"] == args.phase]
    reference = {r["position"]: r["slow_top"] for r in rows}
    against = "the saved slow tops"
    if args.against:
        reference = _kept_tops(args.against, reference)
        against = f"the tops in {args.against}"
    # position i depends on i alone: the ones up to the last asked for (a run of the
    # first N does not replay all 56 games)
    needed = max((r["position"] for r in rows), default=-1) + 1
    states = mid_game_positions(needed, hints["seed"], load_card_set(), hints.get("players", 2))
    if args.seconds is not None and args.iterations is not None:
        p.error("give --iterations or --seconds, not both")
    if args.seconds is not None:
        budget = Budget(seconds=args.seconds)
        setting = f"{args.seconds:g} s{', another seed' if args.again else ''}"
    elif args.again and args.iterations is None:
        budget = Budget(seconds=hints["slow_seconds"])
        setting = f"slow search again ({hints['slow_seconds']:g} s, another seed)"
    else:
        budget = Budget(iterations=args.iterations or 3000)
        setting = f"{budget.iterations} iterations{', another seed' if args.again else ''}"
    # the hints part seeds position i's searches with seed + 7919 i (+1 for the slow one)
    # (repeat k adds 1,000,003 k to the seeds)
    if args.repeats < 1:
        p.error(f"--repeats {args.repeats}: give 1 or more searches per position")
    repeats = args.repeats
    jobs = [(r["position"], states[r["position"]], budget,
             hints["seed"] + 7919 * r["position"] + (2 if args.again else 3) + 1_000_003 * k,
             overrides)
            for k in range(repeats) for r in rows]
    start = time.time()
    tops: list[dict[int, str]] = [{} for _ in range(repeats)]
    bar = Progress(len(jobs), "searches")
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        for k, (index, top) in enumerate(pool.map(_top, jobs)):
            tops[k // len(rows)][index] = top
            bar.update()
    bar.close()
    if args.keep_tops:
        Path(args.keep_tops).write_text(json.dumps({str(k): v for k, v in tops[0].items()}))
    by_phase: dict[str, list[bool]] = {}
    first: dict[str, list[bool]] = {}
    by_place: dict[str, list[bool]] = {}
    for run in tops:
        for r in rows:
            top, ref = run[r["position"]], reference[r["position"]]
            by_phase.setdefault(r["phase"], []).append(top == ref)
            first.setdefault(r["phase"], []).append(
                top.split(" ; ")[0] == ref.split(" ; ")[0])
            by_place.setdefault(round_place(states[r["position"]]), []).append(top == ref)
    for table in (by_phase, first):
        table["all"] = [a for phase in list(table) for a in table[phase]]
    print(f"{'phase':<7}{'searches':>10}{'agree':>8}{'first':>8}   ({setting}"
          f"{', ' + str(overrides) if overrides else ''} vs {against})")
    for phase, agree in by_phase.items():
        print(f"{phase:<7}{len(agree):>10}{sum(agree) / len(agree):>8.1%}"
              f"{sum(first[phase]) / len(agree):>8.1%}")
    for place, agree in sorted(by_place.items()):
        print(f"{place:<7}{len(agree):>10}{sum(agree) / len(agree):>8.1%}   (the searching "
              f"seat's place in its round)")
    entry = {"params": overrides, "budget": budget.to_json(), "again": args.again,
             "phase": args.phase, "positions": len(rows),
             "repeats": repeats if repeats > 1 else None,  # (None: as runs before it)
             "against": args.against,
             "agreement": {k: {"agree": sum(v), "first": sum(first[k]), "of": len(v)}
                           for k, v in by_phase.items()},
             "by_place": {k: {"agree": sum(v), "of": len(v)} for k, v in by_place.items()},
             "wall_seconds": round(time.time() - start, 1),
             "finished": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
             "commit": code_version()}
    setting_keys = ("params", "budget", "again", "phase", "positions", "repeats", "against",
                    "commit")
    print(f"wrote {keep_run(args.out, entry, setting_keys)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
