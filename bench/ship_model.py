"""Ship a generation of the value model: copy it into the package and record it in
``bench/results/value-model.json`` with its held-out report and its head-to-head against
the model it replaces (the record it replaces moves under ``history``).

    bigsur train --data gen2-data.npz --policy mcts:60i --init value.npz --out gen2.npz \\
        --report gen2.json
    python -m bench.variants value=gen2.npz --budget 1.0 --games 200 --seed 13
    python -m bench.ship_model gen2.npz --report gen2.json

The head-to-head is the ``bench.variants`` run whose only override is ``value=`` this
file (the new model against the shipped one, today's search otherwise); a model with no
such run, or trained on another card set, is refused. So is one that lost the match,
unless ``--even-if-worse`` says that is meant. ``--record-only`` records a generation
that was measured but is not shipped (under ``not_shipped`` of the shipped model's
record), so that every generation's strength stays on record.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from bench.common import RESULTS, write_json
from solver.rules.cards import load_card_set
from solver.search.value import SHIPPED_MODEL, ValueModel, ValueModelError


def head_to_head(model_path: str, variants: Path) -> dict | None:
    """The newest ``bench.variants`` run of ``value=model_path``, or None."""
    try:
        runs = json.loads(variants.read_text(encoding="utf-8"))["runs"]
    except (OSError, KeyError, ValueError):
        return None
    mine = [r for r in runs if r.get("params") == {"value": model_path}]
    return mine[-1] if mine else None


def ship(model_path: str, report_path: str, variants: Path = RESULTS / "variants.json",
         record: Path = RESULTS / "value-model.json", dest: Path = SHIPPED_MODEL,
         even_if_worse: bool = False, record_only: bool = False) -> dict:
    """Check the model, its report and its match; copy it to ``dest`` and write its
    record to ``record`` (``record_only``: add it to the record's ``not_shipped`` and
    leave the shipped model alone). Returns the new model's entry; raises SystemExit
    naming what is missing."""
    try:
        model = ValueModel.load(model_path)
    except ValueModelError as err:
        raise SystemExit(f"bench.ship_model: {model_path}: {err}") from None
    cards = load_card_set()
    if model.fingerprint != cards.fingerprint:
        raise SystemExit(f"bench.ship_model: {model_path} was trained on another card set "
                         f"than the shipped one")
    try:
        report = json.loads(Path(report_path).read_text(encoding="utf-8"))["by_phase"]
    except (OSError, KeyError, ValueError) as err:
        raise SystemExit(f"bench.ship_model: --report {report_path}: not a bigsur train "
                         f"report ({err})") from None
    match = head_to_head(model_path, variants)
    if match is None:
        raise SystemExit(f"bench.ship_model: no head-to-head of {model_path} in {variants}: "
                         f"run python -m bench.variants value={model_path} --budget 1.0 "
                         f"--games 200 first")
    if match["margin"] <= 0 and not (even_if_worse or record_only):
        raise SystemExit(f"bench.ship_model: {model_path} lost its head-to-head (win rate "
                         f"{match['win_rate']:.1%}, margin {match['margin']:+.2f}); "
                         f"--even-if-worse ships it anyway")
    try:
        previous = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = None
    if record_only and not previous:
        raise SystemExit(f"bench.ship_model: --record-only: no record of the shipped model "
                         f"in {record}")
    history = []
    if previous:
        history = [{k: v for k, v in previous.items() if k != "history"},
                   *previous.get("history", [])]
    entry = {
        "model": str(dest.relative_to(Path.cwd())) if dest.is_relative_to(Path.cwd())
        else str(dest),
        "generation": model.meta.get("generation"),
        "meta": model.meta,
        "held_out": {"what": "held-out games of its training data (split by game); "
                             "current = the model it replaces",
                     "by_phase": report},
        "head_to_head": {"command": f"python -m bench.variants value={model_path} "
                                    f"--budget {match['budget_seconds']:g} --games "
                                    f"{match['games']} --seed {match['seed']}",
                         **{k: match[k] for k in ("win_rate", "win_ci", "margin", "margin_ci",
                                                  "seconds_per_turn", "finished")}},
        "shipped": time.strftime("%Y-%m-%d %H:%M"),
        "history": history,
    }
    if record_only:
        del entry["history"], entry["model"]
        entry["file"], entry["shipped"] = model_path, None
        previous["not_shipped"] = [*previous.get("not_shipped", []), entry]
        write_json(record, previous)
        return entry
    shutil.copyfile(model_path, dest)
    write_json(record, entry)
    return entry


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.ship_model", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="the model file (bigsur train --out)")
    p.add_argument("--report", required=True, help="its report (bigsur train --report)")
    p.add_argument("--even-if-worse", action="store_true",
                   help="ship a model that lost its head-to-head")
    p.add_argument("--record-only", action="store_true",
                   help="record a measured generation without shipping it")
    args = p.parse_args(argv)
    entry = ship(args.model, args.report, even_if_worse=args.even_if_worse,
                 record_only=args.record_only)
    h = entry["head_to_head"]
    every = [r for r in entry["held_out"]["by_phase"] if r["phase"] == "all"][0]
    what = f"recorded generation {entry['generation']} (not shipped)" if args.record_only \
        else f"shipped generation {entry['generation']} as {entry['model']}"
    print(f"{what}: "
          f"head-to-head {h['win_rate']:.1%} [{h['win_ci'][0]:.1%}, {h['win_ci'][1]:.1%}], "
          f"margin {h['margin']:+.2f}; held-out margin MAE {every['margin_mae_model']:.2f}"
          + (f" (the model in use: {every['margin_mae_current']:.2f})"
             if "margin_mae_current" in every else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
