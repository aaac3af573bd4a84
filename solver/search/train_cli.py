"""``bigsur train``: self-play data, a value model, and its held-out report.

    bigsur train --games 24000 --out value.npz            # about 9 minutes on 2 cores
    bigsur train --games 400 --policy mcts:100i --out gen1.npz   # expert iteration
    bigsur train --data gen0-data.npz --out value.npz     # refit saved data
    bigsur train --data g1.npz g2.npz --policy mcts:60i --init value.npz --out gen2.npz  # both
    bigsur train --data gen1-data.npz --init value.npz --lr 5e-4 --out gen1.npz   # fine-tune
    bigsur train --games 400 --policy mcts:60i --calibrate value.npz --out cal.npz  # recalibrate
    bigsur train --games 3200 --policy mcts:60i --search own_take_value=greedy ...  # searcher knobs
    bigsur train --cards mine.json --games 1600 --policy mcts:60i --lr 5e-4 --epochs 40 \
        --init solver/search/models/value.npz --out mine.npz   # the shipped model, your cards

The model predicts, from one seat's features, the points that seat still scores
(:mod:`solver.search.value`); the report compares it, on held-out games, with the
hand-written evaluation and with the current model (the one the search uses on these cards:
``BIGSUR_VALUE_MODEL``'s or the shipped one, trained on them if either was, else used as
is from other cards): the model it would replace. Use the file with
``BIGSUR_VALUE_MODEL=FILE`` or ship it as ``solver/search/models/value.npz``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ..cli import check_output, check_search_iterations
from ..rules.userfiles import output_problem, write_output
from ..rules.wording import got
from .specs import MAX_WORKERS, workers_problem


def cmd_train(args) -> int:
    from ..rules.cards import load_card_set
    from .train import Dataset, fit, generate, self_play_executor
    from .value import model_in_use

    cards = load_card_set(args.cards)  # None: the shipped set; "" is refused
    counts = args.players.split(",")
    if any(n.strip() not in ("2", "3", "4") for n in counts):
        print(f"bigsur: error: --players: each count must be 2, 3 or 4, got {args.players!r}",
              file=sys.stderr)
        return 2
    players = tuple(int(n) for n in counts)
    if not args.data and args.games < 2:
        print(f"bigsur: error: --games: at least 2 (whole games are held out to test the "
              f"fit){got(args.games)}", file=sys.stderr)
        return 2
    problem = _number_problem(args)
    if problem:
        print(f"bigsur: error: {problem}", file=sys.stderr)
        return 2
    try:
        hidden = tuple(int(n) for n in args.hidden.split(","))
    except ValueError:
        hidden = ()
    if not hidden or min(hidden) < 1 or max(hidden) > MAX_HIDDEN:
        print(f"bigsur: error: --hidden: layer sizes such as 64,64, got {args.hidden!r} "
              f"(each 1 to {MAX_HIDDEN})", file=sys.stderr)
        return 2
    for option, path in (("--out", args.out), ("--save-data", args.save_data),
                         ("--report", args.report)):
        problem = path and output_problem(path)  # found before the games, not after them
        if path and not problem:  # one file for two things: the second would replace it
            if any(_same(path, f) for f in args.data or ()):
                problem = "is also a --data file (name another file)"
            elif option != "--out" and _same(path, args.out):
                problem = "is also --out (name another file)"
            elif option == "--report" and args.save_data and _same(path, args.save_data):
                problem = "is also --save-data (name another file)"
        if problem:
            print(f"bigsur: error: {option} {path}: {problem}", file=sys.stderr)
            return 2
        if path:  # an earlier model, data or report only with --force
            check_output(option, path, args.force)  # (OutputError: one line, from main)
    if args.policy != "rollout":
        from .bots import BotSpecError, make_bot

        try:
            make_bot(args.policy)
        except BotSpecError as err:
            print(f"bigsur: error: --policy: {err}", file=sys.stderr)
            return 2
        try:  # games searched with more iterations a turn could not end
            check_search_iterations(args.policy, "--policy")
        except ValueError as err:
            print(f"bigsur: error: {err}", file=sys.stderr)
            return 2
    search = None
    if args.search:
        from .ismcts import parse_param_overrides
        from .train import policy_bots

        try:
            search = parse_param_overrides(args.search)
            policy_bots(args.policy, 2, search)
        except ValueError as err:
            print(f"bigsur: error: --search: {err}", file=sys.stderr)
            return 2
    if not 0.0 <= args.td_lambda <= 1.0 or (args.td_lambda < 1.0 and not args.init):
        print("bigsur: error: --td-lambda: a value in [0, 1], below 1 only with --init (the "
              "model the targets bootstrap from)", file=sys.stderr)
        return 2
    try:
        init = _model_arg(args.init, "--init", cards, other_cards=True)
        calibrating = _model_arg(args.calibrate, "--calibrate", cards)
    except ValueError as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    current = model_in_use(cards)
    current_generation = int((current.meta if current else {}).get("generation") or 0)
    t0 = time.perf_counter()
    if args.data:
        try:
            data = Dataset.combine([Dataset.load(f) for f in args.data])
            sources = [Dataset.load_meta(f) for f in args.data]
        except (OSError, KeyError, ValueError) as err:
            print(f"bigsur: error: --data: cannot read saved self-play data: {err}",
                  file=sys.stderr)
            return 2
        print(f"read {data.rows:,} rows of {sum(m['games'] for m in sources):,} games from "
              f"{', '.join(args.data)}", file=sys.stderr)
    else:
        def progress(done: int, total: int) -> None:
            rate = done / max(time.perf_counter() - t0, 1e-9)
            print(f"\rself-play {done}/{total} games ({rate:.1f} games/s)", end="",
                  file=sys.stderr, flush=True)

        client = executor = None
        if args.cluster:
            from .tournament import TournamentError, cluster_executor

            try:
                client, executor = cluster_executor(args.cluster)
            except TournamentError as err:  # no Dask, or no scheduler at the address
                print(f"bigsur: error: {err}", file=sys.stderr)
                return 2
        else:  # ours, so that Ctrl-C cancels the games not started instead of playing them
            executor = self_play_executor(args.workers)
        try:
            data = generate(cards, players, args.games, args.seed, args.workers, args.policy,
                            executor, progress=progress, positions=bool(args.save_data),
                            search=search)
        finally:
            if client is not None:
                client.close()
            else:
                executor.shutdown(wait=True, cancel_futures=True)
        print(file=sys.stderr)
        sources = [{"games": args.games, "players": list(players), "policy": args.policy,
                    **({"search": search} if search else {}),
                    "seed": args.seed, "data_seconds": round(time.perf_counter() - t0, 1),
                    # the model the searching players evaluated with
                    "searcher_generation": None if args.policy == "rollout"
                    else current_generation}]
        if args.save_data:
            write_output("--save-data", args.save_data,
                         lambda: data.save(args.save_data, meta=sources[0]),
                         overwrite=args.force)
    t1 = time.perf_counter()
    try:
        if calibrating is not None:
            return _calibrate(args, calibrating, data, sources, t0)
        model, report = fit(
            data, args.seed, hidden=hidden, epochs=args.epochs, batch=args.batch, lr=args.lr,
            fingerprint=cards.fingerprint,
            progress=lambda e, a, b: print(f"epoch {e}: train MSE {a:.2f}, held-out MSE "
                                           f"{b:.2f}", file=sys.stderr, flush=True),
            current=current, init=init, td_lambda=args.td_lambda)
    except ValueError as err:  # too few games to hold some out
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    t2 = time.perf_counter()
    model.meta.update({"games": sum(m["games"] for m in sources),
                       "players": sources[0].get("players") if len(sources) == 1 else None,
                       "policy": args.policy, "seed": args.seed,
                       "data_seconds": _known_sum(m.get("data_seconds") for m in sources),
                       "fit_seconds": round(t2 - t1, 1), "td_lambda": args.td_lambda,
                       "card_set": cards.identity(),
                       "generation": _generation(args.policy, sources, current_generation)})
    if search:
        model.meta["search"] = search
    if args.data:
        model.meta["data"] = [{"file": Path(f).name, **m}
                              for f, m in zip(args.data, sources, strict=True)]
    write_output("--out", args.out, lambda: model.save(args.out), overwrite=args.force)
    print(report.table())
    print(f"\nsigma of final scores: {model.sigma0:.2f} + {model.sigma1:.2f} * sqrt(turns "
          f"left); data {t1 - t0:.0f} s, fit {t2 - t1:.0f} s; wrote {args.out}")
    if args.report:
        text = json.dumps({"meta": model.meta, **report.to_json()}, indent=1) + "\n"
        write_output("--report", args.report,
                     lambda: Path(args.report).write_text(text, encoding="utf-8"),
                     overwrite=args.force)
    return 0


MAX_GAMES = 1_000_000  # self-play games of one run (their chunks are submitted at once)
MAX_HIDDEN = 4096  # units of a hidden layer
MAX_EPOCHS = 10_000  # training passes over the data
MAX_BATCH = 1_000_000  # positions per training step


def _number_problem(args) -> str | None:
    """What is wrong with a number option, found before the self-play (else None)."""
    if problem := workers_problem("--workers", args.workers):
        return problem
    if not 0 < args.lr < float("inf"):  # also nan
        return f"--lr: must be a positive number, got {args.lr}"
    return None


def _same(a: str, b: str) -> bool:
    """Whether two paths name one file."""
    return Path(a).resolve() == Path(b).resolve()


def _model_arg(path: str | None, flag: str, cards, other_cards: bool = False):
    """The model file a flag names (None when not given); ValueError naming the flag when
    it is not a model, or was trained on another card set and ``other_cards`` is False.
    (A start model for ``--init`` may come from other cards: the model trained from it is
    these cards' own, and the shipped one fine-tuned on an owner's cards is where to start.)"""
    if not path:
        return None
    from .value import ValueModel, ValueModelError

    try:
        model = ValueModel.load(path)
    except ValueModelError as err:
        raise ValueError(f"{flag}: {err}") from None
    if model.fingerprint != cards.fingerprint:
        if not other_cards:
            raise ValueError(f"{flag}: {path} was trained on another card set (fingerprint "
                             f"{model.fingerprint[:12]}, these cards {cards.fingerprint[:12]})")
        print(f"{flag}: {path} was trained on another card set ({model.fingerprint[:12]}); "
              f"the model trained from it is for these cards ({cards.fingerprint[:12]})",
              file=sys.stderr)
    return model


def _calibrate(args, before, data, sources: list[dict], t0: float) -> int:
    """``--calibrate MODEL``: refit only MODEL's spread of final scores, on half of the
    games (by game, ``--seed``), so that its win probabilities are calibrated; its
    weights are kept. The report, on the other half, compares it before ("current") and
    after ("model"). The games must be ones MODEL was not trained on."""
    import numpy as np

    from .train import evaluate, fit_sigma, split_games
    from .value import HeuristicEvaluator, ValueModel

    fitted_on, held_out = split_games(data, 0.5, np.random.default_rng(args.seed))
    predicted = fitted_on.x[:, 0] + before.predict_rows(fitted_on.x)
    sigma0, sigma1 = fit_sigma(fitted_on, predicted)
    after = ValueModel(before.weights, before.biases, before.mean, before.std,
                       before.fingerprint, sigma0, sigma1, dict(before.meta))
    after.meta["calibrated"] = {
        "sigma_before": [before.sigma0, before.sigma1], "sigma_after": [sigma0, sigma1],
        "games": sum(m["games"] for m in sources), "policy": args.policy,
        "seed": args.seed, "rows_fitted": int(fitted_on.rows),
        "rows_held_out": int(held_out.rows)}
    report = evaluate(after, held_out, HeuristicEvaluator(), current=before)
    write_output("--out", args.out, lambda: after.save(args.out), overwrite=args.force)
    print(report.table())
    print(f"\nsigma of final scores: {before.sigma0:.2f} + {before.sigma1:.2f} * sqrt(turns "
          f"left) before ('current'), {sigma0:.2f} + {sigma1:.2f} after ('model'), fitted "
          f"on {fitted_on.rows:,} rows, reported on {held_out.rows:,} others, in "
          f"{time.perf_counter() - t0:.0f} s; wrote {args.out}")
    if args.report:
        text = json.dumps({"meta": after.meta, **report.to_json()}, indent=1) + "\n"
        write_output("--report", args.report,
                     lambda: Path(args.report).write_text(text, encoding="utf-8"),
                     overwrite=args.force)
    return 0


def _known_sum(values) -> float | None:
    """The sum, or None when any part is unknown."""
    values = list(values)
    return None if any(v is None for v in values) else round(sum(values), 1)


def _generation(policy: str, sources: list[dict], current_generation: int) -> int:
    """0 for rollout games; else one more than the newest model the searching players
    used (as the data records it, or the current model for data that does not say)."""
    if policy == "rollout":
        return 0
    used = [m.get("searcher_generation") for m in sources]
    return 1 + max(current_generation if g is None else int(g) for g in used)


def add_cli(sub) -> None:
    """Register ``bigsur train``."""
    from ..cli import count_arg, seed_arg  # (the one type of every --seed, every count)

    p = sub.add_parser("train", help="train the value model by self-play",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=count_arg("--games", MAX_GAMES), default=24_000,
                   help=f"self-play games, 2 to {MAX_GAMES} (default 24000)")
    p.add_argument("--players", default="2,2,3,4",
                   help="player counts, cycled over the games (default 2,2,3,4)")
    p.add_argument("--policy", default="rollout",
                   help="who plays the games: 'rollout' (the noisy greedy heuristic, fast) "
                        "or a bot spec such as mcts:100i (expert iteration); with --data, "
                        "who played them (recorded in the model)")
    p.add_argument("--out", required=True, help="model file to write (.npz)")
    p.add_argument("--seed", type=seed_arg, default=0,
                   help="seed of the self-play games and of the fit, 0 to 2**63 - 1 "
                        "(default 0)")
    p.add_argument("--workers", type=int, default=2,
                   help=f"self-play processes (1 to {MAX_WORKERS})")
    p.add_argument("--search", nargs="+", metavar="NAME=VALUE",
                   help="SearchParams overrides of the searching --policy (e.g. "
                        "own_take_value=greedy: a cheaper searcher for self-play data)")
    p.add_argument("--cluster", help="Dask scheduler address for the self-play games")
    p.add_argument("--epochs", type=count_arg("--epochs", MAX_EPOCHS), default=14,
                   help=f"training passes over the data, 1 to {MAX_EPOCHS} (default 14)")
    p.add_argument("--batch", type=count_arg("--batch", MAX_BATCH), default=1024,
                   help=f"positions per training step, 1 to {MAX_BATCH} (default 1024)")
    p.add_argument("--lr", type=float, default=2e-3, help="learning rate (default 0.002)")
    p.add_argument("--hidden", default="64,64", help="hidden layer sizes (default 64,64)")
    p.add_argument("--data", nargs="+", metavar="FILE",
                   help="fit saved self-play data (one or more --save-data files, fitted "
                        "as one set) instead of playing games")
    p.add_argument("--init", help="start from this model's weights (fine-tune it on the "
                                  "new games; its layer sizes are kept)")
    p.add_argument("--td-lambda", type=float, default=1.0,
                   help="train on TD(lambda) targets bootstrapped from --init instead of "
                        "final scores (default 1: final scores)")
    p.add_argument("--save-data", help="also save the self-play data to this .npz file, with every "
                   "turn start's position (for feature experiments: bench.value_features)")
    p.add_argument("--calibrate", metavar="MODEL",
                   help="refit only MODEL's win-probability spread on half of the games "
                        "(played, or --data: games MODEL never saw), keeping its weights; "
                        "report on the other half and write it to --out")
    p.add_argument("--report", help="write the held-out report as JSON")
    p.add_argument("--force", action="store_true",
                   help="overwrite an existing --out, --save-data or --report file")
    p.add_argument("--cards", help="card-set file (default: the shipped reconstruction)")
    p.set_defaults(func=cmd_train)
