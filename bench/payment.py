"""Payment benchmark: CP-SAT against the fast exact path on random build-step positions.

    python -m bench.payment [--quick] [--seed S] [--out bench/results/payment.json]

For each number of builds (1, 2, 3) and hand size (3 to 15), random positions (see
:func:`random_position`: Highway with 1-Mile cards, used Persistents, discard piles,
Recycling used or not, payment Landmarks with uses left) are paid by both paths. Printed
and written: per-call p50/p95 of CP-SAT (model build and solve apart, and their sum) and
of the fast path (the full plan cold: its count cache cleared before the call; the plan
warm: the same request again, as in a search where positions repeat; the optimal cost
alone, :func:`joint_cost`, warm), the CP-SAT / fast ratios at the median, and the
agreement count: both infeasible, or both feasible with the same objective on the three
levels, each plan replayed through ``engine.play``. Times are per thread CPU time in the
table (the machine may be shared) and both CPU and wall-clock in the JSON.
Full run: 21,063 positions; ``--quick``: 546.
Goals (issue 3): CP-SAT p95 <= 10 ms; the fast path >= 100x faster at the median.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.common import write_json
from solver.payment_ilp import cheapest_joint
from solver.rules.cards import CardSet, load_card_set
from solver.rules.engine import play
from solver.rules.payment import (
    PaymentInfeasible,
    _plan_shapes,
    _solve_counts,
    joint_cost,
    joint_payment,
    plan_shapes,
    solve_counts,
)
from solver.rules.state import GameState, Phase, PlayerState

RESULTS = Path(__file__).parent / "results" / "payment.json"
BUILDS = (1, 2, 3)
HAND_SIZES = (3, 5, 7, 9, 11, 13, 15)
PER_CELL = {False: 1003, True: 26}  # positions per (builds, hand size): 21 cells
GOAL_CPSAT_P95_MS = 10.0
GOAL_RATIO = 100.0
PAYMENT_ABILITIES = ("persistent_extra_use", "borrow_highway", "borrow_discard")


def random_position(rng: random.Random, cards: CardSet, hand_size: int, builds: int,
                    players: int | None = None) -> tuple[GameState, list[tuple[int, str]]]:
    """A random position at the build step of seat 0 and ``builds`` cards of its hand of
    ``hand_size`` to build, in order. Not a reachable game position (no turn arithmetic):
    what matters for paying is there, drawn so that every rule comes up often."""
    players = players or rng.choice((2, 3, 4))
    deck = cards.deck_for(players)
    rng.shuffle(deck)

    def take(n: int, prefer_ones: float = 0.0) -> list[int]:
        out = []
        for _ in range(n):
            ones = [c for c in deck if cards.persistent[c] >= 0] \
                if rng.random() < prefer_ones else []
            c = rng.choice(ones or deck)
            deck.remove(c)
            out.append(c)
        return out

    hand = take(hand_size)
    seats = []
    for seat in range(players):
        highway = take(rng.randint(0, 5), prefer_ones=0.6)
        discard = take(rng.choice((0, 1, 1, 2, 4)))
        seats.append(PlayerState(hand=hand if seat == 0 else take(2), highway=highway,
                                 discard=discard))
    me = seats[0]
    lms = [i for i, lm in enumerate(cards.landmarks) if lm.ability.kind in PAYMENT_ABILITIES]
    if lms and me.highway and rng.random() < 0.45:
        for lm in rng.sample(lms, min(len(lms), rng.randint(1, 2), len(me.highway))):
            me.landmarks.append((lm, me.highway[len(me.landmarks)]))
    persistent_uses = {c: 1 for c in me.highway
                       if cards.persistent[c] >= 0 and rng.random() < 0.25}
    resource_uses = {kind: 1 for kind in PAYMENT_ABILITIES if rng.random() < 0.15}
    state = GameState(cards, seats, deck=deck, depot=[], landmark_deck=[], landmark_row=[],
                      current=0, phase=Phase.BUILD, picks=2,
                      recycle_used=rng.random() < 0.2, persistent_uses=persistent_uses,
                      resource_uses=resource_uses)
    chosen = rng.sample(hand, min(builds, len(hand)))
    return state, [(c, rng.choice("LR")) for c in chosen]


def _replay(state: GameState, plan) -> None:
    for action in plan.actions(state.cards):
        state = play(state, action)
    top = state.player.discard[-1] if state.player.discard else None
    if top != plan.top:
        raise AssertionError(f"plan claims top {plan.top}, replay gives {top}")


def _timed(fn, *args):
    """(result, or the PaymentInfeasible error, wall ms, thread CPU ms)."""
    w0, c0 = time.perf_counter(), time.thread_time()
    try:
        out = fn(*args)
    except PaymentInfeasible as err:
        out = err
    return out, (time.perf_counter() - w0) * 1e3, (time.thread_time() - c0) * 1e3


def compare(state: GameState, builds) -> dict:
    """Both paths on one request: timings (wall and thread CPU), feasibility, objectives,
    agreement. The fast path is timed cold (count caches cleared), warm (the same request
    again) and for the cost alone (:func:`joint_cost`, warm)."""
    for cache in (_solve_counts, solve_counts, _plan_shapes, plan_shapes):
        cache.cache_clear()
    fast, cold_w, cold_c = _timed(joint_payment, state, builds)
    _again, warm_w, warm_c = _timed(joint_payment, state, builds)
    _cost, cost_w, cost_c = _timed(joint_cost, state, builds)
    exact, _w, _c = _timed(cheapest_joint, state, builds)
    s = exact.stats
    out = {"cold": (cold_w, cold_c), "warm": (warm_w, warm_c), "cost": (cost_w, cost_c),
           "build": (s["build_ms"], s["build_cpu_ms"]),
           "solve": (s["solve_ms"], s["solve_cpu_ms"]),
           "cpsat": (s["build_ms"] + s["solve_ms"], s["build_cpu_ms"] + s["solve_cpu_ms"]),
           "feasible": not isinstance(exact, PaymentInfeasible)}
    fast = None if isinstance(fast, PaymentInfeasible) else fast
    exact = None if isinstance(exact, PaymentInfeasible) else exact
    if (fast is None) != (exact is None):
        out["agree"] = out["agree_12"] = False
        return out
    if fast is None:
        out["agree"] = out["agree_12"] = True
        return out
    _replay(state, fast)
    _replay(state, exact)
    out["agree"] = fast.objective == exact.objective
    out["agree_12"] = fast.objective[:2] == exact.objective[:2]
    return out


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


KEYS = ("build", "solve", "cpsat", "cold", "warm", "cost")


def _stats(samples: dict, out: dict) -> None:
    for key in KEYS:
        for clock, pos in (("cpu", 1), ("wall", 0)):
            values = [v[pos] for v in samples[key]]
            out[f"{key}_{clock}_p50_ms"] = round(_pct(values, 0.5), 4)
            out[f"{key}_{clock}_p95_ms"] = round(_pct(values, 0.95), 4)
    for clock in ("cpu", "wall"):
        cp = out[f"cpsat_{clock}_p50_ms"]
        for key in ("cold", "warm", "cost"):
            out[f"ratio_{key}_{clock}_p50"] = round(cp / out[f"{key}_{clock}_p50_ms"], 1)


def run(quick: bool, seed: int) -> dict:
    cards = load_card_set()
    per_cell = PER_CELL[quick]
    rng = random.Random(seed)
    rows = []
    every: dict = {key: [] for key in KEYS}
    totals = {"positions": 0, "feasible": 0, "agree": 0, "agree_12": 0}
    for k in BUILDS:
        for hand_size in HAND_SIZES:
            cell: dict = {key: [] for key in KEYS}
            counts = {"positions": per_cell, "feasible": 0, "agree": 0, "agree_12": 0}
            for _ in range(per_cell):
                state, builds = random_position(rng, cards, hand_size, k)
                got = compare(state, builds)
                for key in ("feasible", "agree", "agree_12"):
                    counts[key] += got[key]
                for key in KEYS:
                    if key in got:
                        cell[key].append(got[key])
            row = {"builds": k, "hand": hand_size, **counts}
            _stats(cell, row)
            rows.append(row)
            for key in KEYS:
                every[key] += cell[key]
            for key in totals:
                totals[key] += counts[key]
    summary = dict(totals)
    _stats(every, summary)
    summary["goal_cpsat_p95_ms"] = GOAL_CPSAT_P95_MS
    summary["goal_ratio"] = GOAL_RATIO
    return {"rows": rows, "summary": summary}


def _table(result: dict, clock: str = "cpu") -> str:
    head = (f"{'builds':>6} {'hand':>4} {'n':>5} {'feas':>4} {'agree':>5} | CP-SAT ms p50/p95: "
            f"{'build':>11} {'solve':>11} {'total':>11} | fast us p50/p95: {'plan cold':>11} "
            f"{'plan warm':>11} {'cost':>9} | x cold x warm x cost")
    lines = [head, "-" * len(head)]

    def ms(row, key):
        return f"{row[f'{key}_{clock}_p50_ms']:.2f}/{row[f'{key}_{clock}_p95_ms']:.2f}"

    def us(row, key):
        return (f"{row[f'{key}_{clock}_p50_ms'] * 1e3:.0f}/"
                f"{row[f'{key}_{clock}_p95_ms'] * 1e3:.0f}")

    for row in result["rows"] + [dict(result["summary"], builds="all", hand="all")]:
        lines.append(
            f"{row['builds']!s:>6} {row['hand']!s:>4} {row['positions']:>5} "
            f"{row['feasible']:>4} {row['agree']:>5} | {'':>19}{ms(row, 'build'):>11} "
            f"{ms(row, 'solve'):>11} {ms(row, 'cpsat'):>11} | {'':>16}{us(row, 'cold'):>11} "
            f"{us(row, 'warm'):>11} {us(row, 'cost'):>9} | "
            f"{row[f'ratio_cold_{clock}_p50']:>6} {row[f'ratio_warm_{clock}_p50']:>6} "
            f"{row[f'ratio_cost_{clock}_p50']:>6}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.payment", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="546 positions, not 21,063")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    started = time.time()
    result = run(args.quick, args.seed)
    s = result["summary"]
    result["meta"] = {
        "quick": args.quick, "seed": args.seed, "seconds": round(time.time() - started, 1),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(), "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    print("thread CPU time (the machine may be shared; wall-clock figures are in the JSON)")
    print(_table(result))
    for clock in ("cpu", "wall"):
        print(f"\n{clock}: agreement {s['agree']}/{s['positions']} (levels 1-2: "
              f"{s['agree_12']}); CP-SAT p50 {s[f'cpsat_{clock}_p50_ms']:.2f} ms, p95 "
              f"{s[f'cpsat_{clock}_p95_ms']:.2f} ms (goal <= {GOAL_CPSAT_P95_MS}); fast p50: "
              f"plan cold {s[f'cold_{clock}_p50_ms'] * 1e3:.0f} us, warm "
              f"{s[f'warm_{clock}_p50_ms'] * 1e3:.0f} us, cost "
              f"{s[f'cost_{clock}_p50_ms'] * 1e3:.0f} us; CP-SAT/fast at p50: "
              f"{s[f'ratio_cold_{clock}_p50']}x / "
              f"{s[f'ratio_warm_{clock}_p50']}x / {s[f'ratio_cost_{clock}_p50']}x "
              f"(goal >= {GOAL_RATIO:.0f}x)")
    print(f"wrote {write_json(args.out, result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
