"""What every benchmark shares: the machine description, writing results, and the
loop of the multi-part benchmarks (each part saved as soon as it finishes, so a long
run can be done in pieces and survives an interruption)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def machine() -> dict:
    """Cores, CPU model, platform and Python of the machine a figure was measured on."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": model or platform.processor(),
            "platform": platform.platform(), "python": platform.python_version()}


def code_version() -> str | None:
    """The git commit of the code a figure was measured with ("+dirty" when the checkout
    has uncommitted changes), so a re-run on a changed search is kept next to the run
    before it rather than replacing it; None outside a git checkout."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=Path(__file__).parent, check=True,
                              capture_output=True, text=True).stdout.strip()
    try:
        commit = git("rev-parse", "--short=7", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty else "")


def value_model(cards) -> dict | None:
    """The learned evaluation today's search uses on ``cards`` (its generation, where its
    games came from, and whether it was trained on these cards), recorded with every
    strength figure; None: the hand-written evaluation (no model file)."""
    from solver.search.value import SHIPPED_MODEL, model_in_use

    model = model_in_use(cards)
    if model is None:
        return None
    return {"generation": model.meta.get("generation"), "games": model.meta.get("games"),
            "policy": model.meta.get("policy"),
            "file": "shipped" if model.source == str(SHIPPED_MODEL) else model.source,
            "trained_on_these_cards": model.fingerprint == cards.fingerprint}


def played(summary, bench: str):
    """``summary`` (a tournament's) when at least one game was counted; otherwise stop
    the benchmark with the first game's error, rather than write a win rate of NaN into
    a result file. Failed games beside counted ones are left out of the figures and
    listed in the table (``Summary.table``)."""
    if summary.games == 0:
        first = summary.failed[0] if summary.failed else None
        why = (f"the first: {first['kind']} of bot {first['bot']} in {first['game']}: "
               f"{first['message']}" if first else "no game was played")
        raise SystemExit(f"{bench}: every game failed, no figure to report ({why})")
    return summary


def write_json(path: str | Path, data: dict) -> Path:
    """Write a result file (creating its folder) and say so."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def keep_run(path: str | Path, entry: dict, key: tuple[str, ...]) -> Path:
    """Add ``entry`` to the ``runs`` of the result file ``path``, replacing a run with the
    same values of the fields ``key`` (one entry per setting, the newest)."""
    path = Path(path)
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        saved = {"runs": []}
    same = tuple(entry.get(k) for k in key)
    saved["runs"] = [r for r in saved["runs"] if tuple(r.get(k) for k in key) != same]
    saved["runs"].append(entry)
    return write_json(path, saved)


def empty_caches() -> None:
    """Empty every ``functools.lru_cache`` of the process (the payment searches, the
    heuristic's tables and their memos, scores, claims) and the memos kept in dicts
    (cheapest payments, the seat's own build steps and takes): what follows starts as a
    new game or a fresh server worker does, not warmed by what came before (a second
    10 s search of one position runs about 15% faster; 2 workers fork from this process
    and inherit its caches)."""
    import functools
    import gc

    from solver.rules.payment import api as payment_api
    from solver.search.ismcts import clear_memos

    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):
            obj.cache_clear()
    payment_api.clear_caches()
    clear_memos()


def run_parts(name: str, args, cfg: dict, runners: dict[str, Callable], cards,
              summary_table: Callable[[dict], str], last_run_extra: dict | None = None) -> int:
    """Run the parts named by ``args.part`` (default: all) of benchmark ``name``, merging
    each result into ``args.out`` (default ``bench/results/NAME[-quick].json``) as it
    finishes, then print the summary table."""
    out = Path(args.out) if args.out else RESULTS / (
        f"{name}-quick.json" if args.quick else f"{name}.json")
    parts = args.part or list(runners)
    try:
        saved = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        saved = {}
    saved.setdefault("parts", {})
    start = time.monotonic()
    for part in parts:
        print(f"\n== {part}: {json.dumps(cfg[part])}", flush=True)
        t0 = time.monotonic()
        result = runners[part](cfg[part], args, cards)
        result.update(config=cfg[part], quick=args.quick, seed=args.seed,
                      wall_seconds=round(time.monotonic() - t0, 2),
                      finished=time.strftime("%Y-%m-%dT%H:%M:%S"), machine=machine(),
                      value_model=value_model(cards), card_set=cards.identity(),
                      commit=code_version())
        saved["parts"][part] = result
        print(f"({part}: {result['wall_seconds']:.1f} s)")
        write_json(out, saved)
    wall = time.monotonic() - start
    saved["last_run"] = {"parts": parts, "quick": args.quick, "wall_seconds": round(wall, 2),
                         "workers": args.workers, "machine": machine(),
                         "card_set": cards.identity(), **(last_run_extra or {})}
    write_json(out, saved)
    print(f"\n{summary_table(saved)}\n\nwhole run: {wall:.1f} s on {machine()['cores']} "
          f"core(s); wrote {out}")
    return 0
