"""Search variants against today's search at equal time: the tool behind "try it, keep
what measures better". Prints the tournament table and adds the result to
``bench/results/variants.json`` (one entry per variant, budget and commit of the code, newest kept).

    python -m bench.variants c_uct=0.3 --budget 0.4 --games 200
    python -m bench.variants tree_turns=-1 --budget 0.25 --games 200 --seed 5
    python -m bench.variants root_step_order=value --iterations 300 --workers 1
    python -m bench.variants opp_builds=value --base opp_tree=takes --iterations 600
    python -m bench.variants rollout_builds=value --budget 1.6 --base-budget 0.4
    python -m bench.variants value=solver/search/models/value.npz --budget 1 \\
        --cards shuffled-1.json       # on another card set (``python -m bench.cardsets``)
    python -m bench.variants opp_tree=none --players 4 --games 200   # a 4-player table

``--players 3`` or ``4`` seats the variant and today's search alternately (variant,
today, variant[, today]), every seating of each deal played; the sign test compares
their mean win share per seat in each deal, and the table's win rates are per seat
(parity 1/3 or 1/4).

``--iterations N`` gives both sides N iterations a turn instead of a time: the result
does not depend on the machine's load (two matches can share the cores), but a variant
whose iterations cost more is favoured, so the table's seconds per turn say by how much.

Each ``name=value`` overrides one field of
:class:`~solver.search.ismcts.SearchParams` (values are read as JSON, else kept as
text). Games are paired deals with seats rotated (:mod:`solver.search.tournament`), so
200 games give a 95% interval of about +-7 points on the win rate.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time

from bench.common import RESULTS, code_version, keep_run, machine, played, value_model
from solver.rules.cards import CardSetError, load_card_set
from solver.search.bots import BotSpecError, MCTSBot
from solver.search.ismcts import DEFAULT_PARAMS, parse_param_overrides
from solver.search.tournament import run_tournament, sign_test

_ENV = "BIGSUR_BENCH_VARIANT"  # the variant, for the tournament's worker processes


class VariantBot(MCTSBot):
    """Today's MCTS bot with the overrides of ``BIGSUR_BENCH_VARIANT`` (JSON:
    ``{"budget": "0.4s", "params": {...}, "base": {...}}``); a ``module:Class`` bot for
    tournaments."""

    role = "params"
    budget_key = "budget"

    def __init__(self):
        spec = json.loads(os.environ[_ENV])
        super().__init__(MCTSBot.from_spec(spec[self.budget_key]).budget)
        overrides = {**spec.get("base", {}), **spec[self.role]}
        self.params = dataclasses.replace(DEFAULT_PARAMS, **overrides)
        shown = ",".join(f"{k}={v}" for k, v in spec[self.role].items())
        self.name = (f"{'variant' if self.role == 'params' else 'base'}({shown}):"
                     f"{spec[self.budget_key]}")


class BaseBot(VariantBot):
    """The opponent of :class:`VariantBot` when ``--base`` is given: today's search with
    the base overrides only, at ``--base-budget`` when given."""

    role = "base"
    budget_key = "base_budget"


def parse_overrides(pairs: list[str]) -> dict:
    """``["c_uct=0.3", "root=uct"]`` -> ``{"c_uct": 0.3, "root": "uct"}``
    (:func:`~solver.search.ismcts.parse_param_overrides`); a bad pair exits naming it."""
    try:
        return parse_param_overrides(pairs)
    except ValueError as err:
        raise SystemExit(f"bench.variants: {err}") from None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.variants", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("overrides", nargs="+", help="NAME=VALUE fields of SearchParams")
    p.add_argument("--budget", type=float, default=0.4, help="seconds per turn (0.4)")
    p.add_argument("--iterations", type=int, default=None,
                   help="iterations per turn instead of --budget (independent of load)")
    p.add_argument("--base", nargs="*", default=[], metavar="NAME=VALUE",
                   help="play against today's search with these overrides instead of today's "
                        "(the variant gets them too, under its own)")
    p.add_argument("--base-budget", type=float, default=None, metavar="S",
                   help="the opponent's seconds per turn (default: --budget): does the variant "
                        "with more time beat the search with less, a step of the budget ladder")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                   help="seats, the variant and today's search alternating (2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--cards", help="card-set file (default: the shipped reconstruction)")
    p.add_argument("--out", default=str(RESULTS / "variants.json"))
    args = p.parse_args(argv)
    try:
        cards = load_card_set(args.cards) if args.cards else load_card_set()
    except CardSetError as err:
        raise SystemExit(f"bench.variants: --cards: {err}") from None
    overrides = parse_overrides(args.overrides)
    base = parse_overrides(args.base) if args.base else None  # None: today's search
    budget = f"{args.iterations}i" if args.iterations else f"{args.budget:g}s"
    if args.base_budget is not None and args.iterations:
        raise SystemExit("bench.variants: --base-budget is seconds; it goes with --budget, "
                         "not --iterations")
    base_budget = budget if args.base_budget is None else f"{args.base_budget:g}s"
    for option, text in (("--budget/--iterations", budget), ("--base-budget", base_budget)):
        try:  # a bad budget fails here, not in a worker
            MCTSBot.from_spec(text)
        except BotSpecError as err:
            raise SystemExit(f"bench.variants: {option}: {err}") from None
    os.environ[_ENV] = json.dumps({"budget": budget, "base_budget": base_budget,
                                   "params": overrides, "base": base or {}})
    variant = "bench.variants:VariantBot"
    today = "bench.variants:BaseBot" if base else f"mcts:{base_budget}"
    start = time.time()
    summary = run_tournament([variant, today], args.players, args.games, args.seed, cards,
                             workers=args.workers, code=True)
    print(summary.table())
    played(summary, "bench.variants")
    s = summary.stats(variant)
    test = sign_test(summary.results, variant, today)
    print(f"the variant wins {test['wins']} deals, loses {test['losses']}, ties "
          f"{test['ties']}: one-sided sign test p = {test['p_value']:.3g}")
    entry = {"params": overrides, "base": base,
             "budget_seconds": None if args.iterations else args.budget,
             "budget_iterations": args.iterations, "base_budget_seconds": args.base_budget,
             "games": args.games,
             "seed": args.seed, "win_rate": s.win_rate, "win_ci": list(s.win_ci),
             "margin": s.margin, "margin_ci": list(s.margin_ci), "sign_test": test,
             "seconds_per_turn": {st.bot: st.seconds_per_turn for st in summary.bots},
             "wall_seconds": round(time.time() - start, 1),
             "finished": time.strftime("%Y-%m-%d %H:%M"), "machine": machine(),
             "value_model": value_model(cards),  # today's search's, the baseline
             "commit": code_version()}
    if args.cards:
        entry["cards"] = cards.identity()
    if args.players != 2:  # (2-player entries predate these fields)
        theirs = summary.stats(today)  # per seat, as the variant's: parity 1/players
        entry.update(players=args.players, games_played=summary.games,
                     today={"win_rate": theirs.win_rate, "win_ci": list(theirs.win_ci),
                            "margin": theirs.margin, "margin_ci": list(theirs.margin_ci)})
    key = ("params", "base", "budget_seconds", "budget_iterations", "base_budget_seconds",
           "commit", "cards", "players")
    print(f"wrote {keep_run(args.out, entry, key)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
