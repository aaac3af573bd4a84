"""Would the value model predict better with more features? Fresh fits of the same
network on the same saved games and the same held-out split, one per feature set,
printed as held-out errors and added to ``bench/results/value-features.json``.

    python -m bench.value_features --data gen1-data.npz gen2-data.npz

The saved rows hold each seat's own :data:`~solver.search.value.FEATURE_NAMES`; the
rows of one state are every seat's, so what the opponents' rows say can be added to a
seat's own without playing the games again:

- ``own``: the seat's own features (the shipped model's inputs);
- ``own+opp_max``: and, per feature, the largest value among the other seats;
- ``own+opp_max+opp_mean``: and their mean too;
- ``own+position``: and :data:`POSITION_FEATURES`, computed from the positions saved
  with the data (``bigsur train --save-data`` keeps them): how many hand cards the seat
  could pay for now, how many fit its Highway and the second-best fit, what the Depot
  offers it, and the Landmarks it could claim now and how many of those another seat
  could claim too;
- ``own+cards``: and one column per card (:func:`card_row`: in the hand, on the
  Highway; Landmarks claimed, in the row), what card-specific values the hand-written
  terms miss; ``own+position+cards``: both.

``--init MODEL`` fine-tunes that model (widened with zero weights for the extra inputs,
:meth:`~solver.search.value.ValueModel.widened`) instead of fitting afresh: the
comparison that decides whether a feature is worth a new model generation.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

from bench.common import RESULTS, keep_run, machine
from solver.rules.cards import CardSet, load_card_set
from solver.rules.payment import affordable_cards
from solver.rules.state import GameState
from solver.search.policies import claimable_pairs, tables
from solver.search.train import Dataset, fit

FEATURE_SETS = ("own", "own+opp_max", "own+opp_max+opp_mean", "own+position", "own+cards",
                "own+position+cards")

POSITION_FEATURES = ("hand_affordable", "hand_fitting", "hand_fit_second", "depot_fit_max",
                     "depot_fit_sum", "claimable_landmarks", "contested_landmarks")


def position_row(state: GameState, seat: int) -> list[float]:
    """The :data:`POSITION_FEATURES` of ``seat`` (a turn start: per-turn uses are clear)."""
    tab = tables(state.cards)
    p = state.players[seat]
    hw = tuple(p.highway)
    fits = sorted((tab.fit(hw, c) for c in p.hand), reverse=True)
    depot = [tab.fit(hw, c) for c in state.depot]
    probe = state.copy()
    probe.current = seat
    row = tuple(state.landmark_row)
    mine = {lm for lm, _ in claimable_pairs(state.cards, hw, tuple(p.landmarks), row)}
    theirs: set[int] = set()
    for i, q in enumerate(state.players):
        if i != seat:
            theirs |= {lm for lm, _ in claimable_pairs(state.cards, tuple(q.highway),
                                                        tuple(q.landmarks), row)}
    return [float(len(affordable_cards(probe))), float(sum(f > 0 for f in fits)),
            fits[1] if len(fits) > 1 else 0.0, max(depot, default=0.0),
            sum(f for f in depot if f > 0), float(len(mine)), float(len(mine & theirs))]


def card_row(state: GameState, seat: int) -> np.ndarray:
    """Which cards the seat holds and has built, which Landmarks it has claimed and which
    it could still claim (one column per card: what card-specific values the hand-written
    terms miss)."""
    cards = state.cards
    h, lm = len(cards.highway), len(cards.landmarks)
    row = np.zeros(2 * h + 2 * lm)
    p = state.players[seat]
    row[list(p.hand)] = 1.0
    row[[h + c for c in p.highway]] = 1.0
    row[[2 * h + m for m, _ in p.landmarks]] = 1.0
    row[[2 * h + lm + m for m in state.landmark_row]] = 1.0
    return row


def position_columns(data: Dataset, cards: CardSet, part: str = "position") -> np.ndarray:
    """:func:`position_row` (``part="position"``) or :func:`card_row` (``"cards"``) of
    every row, from the positions saved with ``data``."""
    if not data.positions:
        raise ValueError("the data has no saved positions: generate it with "
                         "`bigsur train --save-data`")
    row_of = {"position": position_row, "cards": card_row}[part]
    out = None
    for group in data.state_groups():
        state = data.position(data.state_id[group[0]], cards)
        for seat, row in enumerate(group):
            values = row_of(state, seat)
            if out is None:
                out = np.zeros((data.rows, len(values)))
            out[row] = values
    return out


def opponent_columns(data: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the largest and the mean value of each feature over the other seats'
    rows of the same state (rows of a state share ``state_id``)."""
    most = np.zeros_like(data.x)
    mean = np.zeros_like(data.x)
    for group in data.state_groups():
        x = data.x[group]
        for k, row in enumerate(group):
            others = np.delete(x, k, axis=0)
            if len(others):
                most[row] = others.max(axis=0)
                mean[row] = others.mean(axis=0)
    return most, mean


def with_features(data: Dataset, name: str, columns: dict) -> Dataset:
    """``data`` with the inputs of feature set ``name`` (own features first, so that
    the report's phases still read ``turn_fraction``); ``columns``: the extra columns by
    name (``opp_max``, ``opp_mean``, ``position``, ``cards``)."""
    if name == "own":
        return data
    extra = [columns[part] for part in name.split("+")[1:]]
    return replace(data, x=np.hstack([data.x, *extra]))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.value_features", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", nargs="+", help="saved self-play data (bigsur train --save-data)")
    p.add_argument("--sets", default=",".join(FEATURE_SETS),
                   help=f"comma-separated feature sets of {', '.join(FEATURE_SETS)}")
    p.add_argument("--hidden", default="64,64")
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--init", help="fine-tune this model file instead of fresh fits (the "
                   "extra inputs start with zero weights: ValueModel.widened)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--quick", action="store_true",
                   help="no --data: 12 fresh rollout games, 2 epochs (proves the tool runs)")
    p.add_argument("--out", help="JSON file (default bench/results/value-features.json)")
    args = p.parse_args(argv)
    sets = args.sets.split(",")
    unknown = [s for s in sets if s not in FEATURE_SETS]
    if unknown:
        p.error(f"unknown feature set {unknown[0]!r}: choose from {', '.join(FEATURE_SETS)}")
    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
    except ValueError:
        p.error(f"--hidden {args.hidden!r}: layer sizes such as 64,64")
    if args.quick and not args.data:
        from solver.search.train import generate

        data = generate(games=12, seed=args.seed, workers=1, positions=True)
        sources, epochs = ["quick"], 2
    elif args.data:
        try:
            data = Dataset.combine([Dataset.load(f) for f in args.data])
        except (OSError, KeyError, ValueError) as err:
            p.error(f"--data: not saved self-play data ({err})")
        # the files and who played them (what the fits are comparable with)
        sources = [{"file": f, **Dataset.load_meta(f)} for f in args.data]
        epochs = args.epochs
    else:
        p.error("give --data FILE ... (or --quick)")
    init = None
    if args.init:
        from solver.search.value import ValueModel, ValueModelError

        try:
            init = ValueModel.load(args.init)
        except ValueModelError as err:
            p.error(f"--init: {err}")
    columns = {}
    if any("opp_" in name for name in sets):
        columns["opp_max"], columns["opp_mean"] = opponent_columns(data)
    for part in ("position", "cards"):
        if any(part in name.split("+") for name in sets):
            try:
                columns[part] = position_columns(data, load_card_set(), part)
            except ValueError as err:
                p.error(f"--sets {args.sets}: {err}")
    rows = []
    how = f"{args.init} fine-tuned" if init else f"fresh {hidden} fits"
    print(f"{data.rows:,} rows of {len(np.unique(data.game_id)):,} games; {how}, "
          f"seed {args.seed}, 15% of games held out")
    print(f"{'features':<24}{'inputs':>7}{'epochs':>7}{'score MAE':>11}{'margin MAE':>12}"
          f"{'Brier':>8}{'seconds':>9}")
    for name in sets:
        t0 = time.perf_counter()
        wide = with_features(data, name, columns)
        start = None
        if init is not None:
            extra = wide.x[:, len(init.mean):]
            start = init.widened(extra.mean(axis=0), extra.std(axis=0))
        model, report = fit(wide, seed=args.seed, hidden=hidden, epochs=epochs, lr=args.lr,
                            init=start)
        whole = report.rows[-1]
        rows.append({"features": name, "inputs": int(len(model.mean)),
                     "epochs": model.meta["epochs"], "score_mae": whole["score_mae_model"],
                     "margin_mae": whole["margin_mae_model"], "brier": whole["brier_model"],
                     "seconds": round(time.perf_counter() - t0, 1)})
        r = rows[-1]
        print(f"{name:<24}{r['inputs']:>7}{r['epochs']:>7}{r['score_mae']:>11.3f}"
              f"{r['margin_mae']:>12.3f}{r['brier']:>8.4f}{r['seconds']:>9.1f}")
    out = args.out or RESULTS / ("value-features-quick.json" if args.quick
                                 else "value-features.json")
    entry = {"data": sources, "sets": args.sets, "hidden": list(hidden), "seed": args.seed,
             "init": args.init, "lr": args.lr, "rows": rows,
             "finished": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine()}
    print(f"wrote {keep_run(out, entry, ('data', 'sets', 'hidden', 'seed', 'init', 'lr'))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
