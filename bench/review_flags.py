"""How far a short review's mistakes and blunders can be trusted: the labels of a review
at the page's budgets against those of a long review of the same games.

    python -m bench.review_flags                       # 4 games, 30 and 300 vs 6,000 it.
    python -m bench.review_flags --games 8 --reference 12000
    python -m bench.review_flags --reference-from bench/results/review-flags.json

Games are played by ``mcts:200i`` against itself and against ``greedy`` (whose moves
include real mistakes), deal ``seed + i``. Each is reviewed at every short budget twice:
as the review does it (a labelled loss measured again by a search of just the best and
the played move, :func:`solver.analysis.review_decision`) and with the first search's
figures alone (the second search answered with no move, so the first figures stand),
then once at the long reference budget. A decision is *flagged* when labelled a mistake
or a blunder. "false" counts flags the reference does not make, "missed" the
reference's flags a review does not make. Iteration budgets (30: the page's "quick";
300: about its "normal" 0.1 s on an idle machine; 6,000: about 2 s) keep the figures
independent of the machine's load; the games are the same in every run of the same
``--games`` and ``--seed`` (iteration-budget bots, seeded), so ``--reference-from`` takes
the reference's flags from an earlier run of the same setting (the long review is most
of the time: 30 of 34 minutes on 2 cores) to compare another review of the short ones.
Each run is added to ``bench/results/review-flags.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor

from bench.common import RESULTS, code_version, keep_run, machine
from solver.analysis import AGAIN_FACTOR, LABELS, analyse_record
from solver.rules.record import GameRecord
from solver.search.api import Budget, analyse
from solver.search.tournament import GameTask, Progress, play_game

LINEUPS = (("mcts:200i", "mcts:200i"), ("mcts:200i", "greedy"))
FLAGGED = LABELS[1:]  # mistake, blunder


def first_search_only(view, budget, seed=None, moves=None, **kwargs):
    """The search, except that the review's second search of a labelled loss (two
    candidate moves) finds nothing, so the first search's figures stand."""
    if moves is not None and len(moves) == 2:
        return {"moves": []}
    return analyse(view, budget, seed, moves=moves, **kwargs)


def _flags(job: tuple) -> tuple[int, str, dict[int, str]]:
    """The flagged decisions (index -> label) of game ``job[0]`` reviewed as ``job[1]``."""
    game, setting, record_json, iterations, again = job
    record = GameRecord.from_json(record_json)
    review = analyse_record(record, Budget(iterations=iterations), seed=game,
                            search=None if again else first_search_only)
    return game, setting, {d.index: d.label for d in review.decisions if d.label in FLAGGED}


def _kept_reference(path: str, args) -> dict:
    """The newest run in ``path`` of this setting (games, seed, reference budget)."""
    try:
        runs = json.loads(open(path, encoding="utf-8").read())["runs"]
    except (OSError, KeyError, json.JSONDecodeError) as err:
        raise SystemExit(f"bench.review_flags: --reference-from {path}: cannot read its "
                         f"runs ({err})") from None
    same = [r for r in runs if (r.get("games"), r.get("seed"), r.get("reference"))
            == (args.games, args.seed, args.reference) and "reference" in r.get("flags", {})]
    if not same:
        raise SystemExit(f"bench.review_flags: --reference-from {path}: no run of "
                         f"{args.games} games, seed {args.seed}, reference {args.reference}")
    return same[-1]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.review_flags", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--budgets", type=int, nargs="+", default=[30, 300],
                   help="the short reviews' iterations per decision")
    p.add_argument("--reference", type=int, default=6000,
                   help="the long review's iterations per decision")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--reference-from", metavar="PATH",
                   help="the reference's flags from the newest run in PATH with the same "
                        "--games, --seed and --reference (not reviewed again)")
    p.add_argument("--out", default=str(RESULTS / "review-flags.json"))
    args = p.parse_args(argv)
    if args.games < 1:
        p.error(f"--games: must be 1 or more, got {args.games}")
    kept = None
    if args.reference_from:
        kept = _kept_reference(args.reference_from, args)
    start = time.time()
    tasks = [GameTask(deal=i, seed=args.seed + i, rotation=0,
                      lineup=LINEUPS[i % len(LINEUPS)], cards="default")
             for i in range(args.games)]
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        records = [r.record for r in pool.map(play_game, tasks)]
        digest = hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()[:16]
        if kept is not None and kept.get("records_digest") not in (None, digest):
            raise SystemExit(f"bench.review_flags: --reference-from {args.reference_from}: "
                             "its games were not these (another records digest)")
        settings = [] if kept is not None else [("reference", args.reference, True)]
        for b in args.budgets:
            settings += [(f"{b} measured again", b, True), (f"{b} first search", b, False)]
        jobs = [(g, name, records[g], it, again) for g in range(args.games)
                for name, it, again in settings]
        flags: dict[str, dict[int, dict[int, str]]] = {name: {} for name, _, _ in settings}
        if kept is not None:
            flags["reference"] = {int(g): {int(i): lab for i, lab in f.items()}
                                  for g, f in kept["flags"]["reference"].items()}
        bar = Progress(len(jobs), "reviews")
        for game, name, flagged in pool.map(_flags, jobs):
            flags[name][game] = flagged
            bar.update()
        bar.close()
    decisions = sum(len(GameRecord.from_json(r).actions) for r in records)
    reference = flags["reference"]
    rows = []
    print(f"{'review':<22}{'flags':>7}{'false':>7}{'missed':>8}   ({args.games} games, "
          f"{decisions} actions; reference {args.reference} iterations: "
          f"{sum(len(f) for f in reference.values())} flags)")
    for name in [name for name, _, _ in settings if name != "reference"]:
        mine = flags[name]
        false = sum(len(set(mine[g]) - set(reference[g])) for g in mine)
        missed = sum(len(set(reference[g]) - set(mine[g])) for g in mine)
        total = sum(len(f) for f in mine.values())
        print(f"{name:<22}{total:>7}{false:>7}{missed:>8}")
        rows.append({"review": name, "flags": total, "false": false, "missed": missed})
    entry = {"games": args.games, "seed": args.seed, "lineups": [list(x) for x in LINEUPS],
             "budgets": args.budgets, "reference": args.reference, "actions": decisions,
             "reference_flags": sum(len(f) for f in reference.values()), "rows": rows,
             "again_factor": AGAIN_FACTOR, "records_digest": digest,
             "reference_from": (f"{args.reference_from} (commit {kept['commit']})"
                                if kept is not None else None),
             "flags": {name: {str(g): {str(i): lab for i, lab in f.items()}
                              for g, f in by_game.items()} for name, by_game in flags.items()},
             "wall_seconds": round(time.time() - start, 1),
             "finished": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
             "commit": code_version()}
    key = ('games', 'seed', 'budgets', 'reference', 'again_factor', 'commit')
    print(f"wrote {keep_run(args.out, entry, key)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
