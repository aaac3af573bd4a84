"""Why the search plays as it does (issue 10): prints a table per part and writes
``bench/results/diagnostics.json``.

    python -m bench.search_diagnostics                 # all parts (about 45 minutes)
    python -m bench.search_diagnostics --part coverage --positions 60
    python -m bench.search_diagnostics --quick         # seconds: proves it works (CI)

Parts:

==========  ==========================================================================
coverage    Build-step positions from greedy self-play. Every legal build step (all
            payable build sequences, orders and sides, every claim; ``all_build_steps``)
            is rated by a long paired search: every step is played on the same
            determinizations with the same rollout seeds, rolled out to the end of the
            round and evaluated. Reported: how often the best-rated step is among the
            candidates of the first search (the heuristic's 8 macros), among today's
            root candidates (macros + widening), and the loss when it is not.
evaluation  Held-out self-play games (seeds never used in training): mean absolute
            error of the predicted final score and margin, and the Brier score of the
            win probability, for the hand-written and the learned evaluation, by phase.
time        Where the iterations of a 1-worker search go at the speed benchmark's
            mid-game position: determinization, tree, payment, rollouts, evaluation.
luck        How much of the evaluation's error is the luck of the game: positions at
            turn starts of self-play with the model's own data policy (``mcts:60i``),
            each replayed to the end several times from the seat's view (hidden cards
            redealt, the same policy for every seat). The spread of the replays' final
            margins is error no evaluation with the seat's information can remove;
            the learned and the hand-written evaluations' error over the same replays
            is set against it, by phase.
latency     How long a hint takes against its time budget, cold (as in a fresh server
            worker), at positions where a hand was hoarded: turn starts from turn 12
            of noisy greedy games whose player to act can pay for at least
            ``min_sequences`` build sequences (people may keep such hands; searching
            players do not),
            and players' last build steps with more sequences than the root's exact
            step tries (``ROOT_EXACT_LIMIT``, 20,000). Every cache of the process is
            emptied before each hint. Reported per budget and kind: median, 90th
            percentile and largest seconds, and how many ran past the server's
            deadline (budget + its default grace, 2 s); at the last build steps also
            the final score the hint's move reaches, against the best known: the best
            of ``reference_sequences`` sequences tried best scoring first (the order
            the root's own try uses, with ten times its sequences) or of any hint's
            move. The best known is a lower bound on the best there is, so the points
            short are a lower bound too.
takes       What the first take of a turn gets of the ladder's budgets: at the hints
            part's first-take positions (``bench.strength``'s mid-game positions, the
            same seed), a cold search for the first take's share of each budget a turn
            (``first_take_share``), against a 16 s search of the whole position (the
            hints part's slow search). Reported per budget, and by the hand's size:
            iterations, how many searches end before the root's race could drop a
            candidate (``race_start`` x ``race_min_rounds`` iterations: "starved", their
            move mostly the root's order), and agreement with the 16 s move.
claims      Build steps where the search passes up a claim it could make: build steps
            of noisy greedy 2-player games (from turn ``from_turn``) where the
            search's move (``iterations`` a decision) ends the turn without a claim
            while it ranked the same builds followed by a claim. From each, both
            moves are played out ``replays`` times to the end of the game, on
            determinizations drawn from the seat's view (hidden cards redealt; the two
            moves share each deal and seeds), every seat played by ``policy``.
            Reported: the search's own gap between the two moves, and the played-out
            gap (final margin and win share of the seat, claim minus pass) per
            position and over all.
==========  ==========================================================================
"""

from __future__ import annotations

import argparse
import cProfile
import math
import pstats
import random
import statistics
import sys
import time

from bench.common import empty_caches, run_parts
from solver.rules.cards import load_card_set
from solver.rules.engine import apply_inplace, outcome
from solver.rules.state import Phase
from solver.rules.views import view_of
from solver.search.buildsteps import all_build_steps
from solver.search.determinize import Determinizer
from solver.search.ismcts import DEFAULT_PARAMS, ROOT_EXACT_LIMIT, Searcher, root_moves
from solver.search.policies import build_macros, play_turn
from solver.search.value import HeuristicEvaluator, default_evaluator, win_shares

PARTS = ("coverage", "evaluation", "time", "luck", "latency", "takes", "claims")
FULL = {"coverage": {"positions": 40, "rounds": 48},
        "evaluation": {"games": 600},
        "time": {"iterations": 1500},
        "luck": {"positions": 150, "replays": 8, "policy": "mcts:60i"},
        "latency": {"positions": 30, "budgets": [0.2, 1.0], "min_sequences": 300,
                    "last_positions": 12, "last_min_sequences": None,
                    "reference_sequences": 50_000},
        "takes": {"positions": 100, "budgets": [0.1, 0.4, 1.6], "reference": 16.0},
        "claims": {"positions": 10, "iterations": 1000, "from_turn": 4, "replays": 40,
                   "policy": "mcts:100i", "max_searches": 120}}
QUICK = {"coverage": {"positions": 2, "rounds": 4},
         "evaluation": {"games": 12},
         "time": {"iterations": 40},
         "luck": {"positions": 3, "replays": 3, "policy": "rollout"},
         "latency": {"positions": 2, "budgets": [0.05], "min_sequences": 20,
                     "last_positions": 1, "last_min_sequences": 30,
                     "reference_sequences": 100},
         "takes": {"positions": 8, "budgets": [0.05], "reference": 0.2},
         "claims": {"positions": 1, "iterations": 60, "from_turn": 4, "replays": 2,
                    "policy": "greedy", "max_searches": 40}}


# ------------------------------------------------------------------ coverage

def build_positions(n: int, seed: int, cards, players: int = 2) -> list:
    """``n`` build-step positions from noisy greedy self-play, one per game, at a turn
    of the middle of the game (not the last build step, which is solved exactly)."""
    from solver.rules.engine import new_game
    from solver.search.policies import greedy_take, tables

    out = []
    for i in range(n):
        rng = random.Random(seed * 7919 + i)
        state = new_game(players, seed * 1_000_003 + i, cards)
        total = tables(cards).total_turns(state) * players
        stop = rng.randrange(total // 4, 3 * total // 4)
        while state.turn < stop:
            play_turn(state, rng, noise=0.3)
        while state.phase == Phase.TAKE:
            apply_inplace(state, greedy_take(state, None, rng=rng, noise=0.3))
        out.append(state)
    return out


def rate_steps(state, steps: list[tuple], rounds: int, seed: int, evaluator) -> list[float]:
    """Mean reward (win share 0.75 + squashed margin 0.25, as the search's) of every
    step over ``rounds`` shared determinizations and rollout seeds."""
    import math

    seat = state.current
    det = Determinizer(view_of(state, seat))
    params = DEFAULT_PARAMS
    totals = [0.0] * len(steps)
    for r in range(rounds):
        base = det.sample(random.Random(seed * 1_000_003 + r))
        for k, step in enumerate(steps):
            s = base.copy()
            rng = random.Random(seed + 31 * r)
            for action in step:
                apply_inplace(s, action)
            cutoff = s.turn + (-s.turn % s.num_players)
            while s.phase != Phase.OVER and s.turn < max(cutoff, s.turn):
                play_turn(s, rng, noise=params.rollout_noise)
                if s.turn >= cutoff:
                    break
            if s.phase == Phase.OVER:
                scores = [float(x.total) for x in outcome(s).scores]
                wins = win_shares(scores, 0.01)
            else:
                scores = evaluator.scores(s)
                wins = win_shares(scores, evaluator.sigma(s))
            margin = scores[seat] - max(x for i, x in enumerate(scores) if i != seat)
            totals[k] += 0.75 * wins[seat] + 0.25 * (0.5 + 0.5 * math.tanh(margin / 15.0))
    return [t / rounds for t in totals]


def part_coverage(cfg, args, cards) -> dict:
    evaluator = default_evaluator(cards)
    rows = []
    for i, state in enumerate(build_positions(cfg["positions"], args.seed, cards)):
        steps = all_build_steps(state, 3_000)
        if len(steps) < 2:
            continue
        t0 = time.perf_counter()
        values = rate_steps(state, steps, cfg["rounds"], args.seed + i, evaluator)
        best = max(range(len(steps)), key=values.__getitem__)
        old = {seq for _v, seq in build_macros(state, 8, 3)}
        sample = Determinizer(view_of(state, state.current)).sample(random.Random(0))
        new = set(root_moves(sample, DEFAULT_PARAMS, view_of(state, state.current)
                             .unseen_cards(), evaluator))
        rated = dict(zip(steps, values, strict=True))

        def loss(cands, rated=rated, top=values[best]):
            inside = [rated[c] for c in cands if c in rated]
            return top - max(inside) if inside else None

        rows.append({"position": i, "turn": state.turn, "steps": len(steps),
                     "best": " ; ".join(a.notation() for a in steps[best]),
                     "in_first_version": steps[best] in old,
                     "in_root_candidates": steps[best] in new,
                     "loss_first_version": loss(old), "loss_root_candidates": loss(new),
                     "seconds": round(time.perf_counter() - t0, 2)})
        print(f"position {i}: {len(steps)} steps, best in first version "
              f"{rows[-1]['in_first_version']}, in root candidates "
              f"{rows[-1]['in_root_candidates']}", flush=True)
    n = len(rows)

    def share(key):
        return sum(r[key] for r in rows) / n if n else None

    def mean_loss(key):
        xs = [r[key] for r in rows if r[key] is not None]
        return statistics.mean(xs) if xs else None

    out = {"positions": n, "rounds": cfg["rounds"], "evaluator": evaluator.name,
           "coverage_first_version": share("in_first_version"),
           "coverage_root_candidates": share("in_root_candidates"),
           "mean_loss_first_version": mean_loss("loss_first_version"),
           "mean_loss_root_candidates": mean_loss("loss_root_candidates"),
           "mean_steps": statistics.mean(r["steps"] for r in rows) if rows else None,
           "rows": rows}
    print(f"best step among the first version's candidates: "
          f"{_pct(out['coverage_first_version'])}; among today's root candidates: "
          f"{_pct(out['coverage_root_candidates'])} ({n} positions)")
    return out


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


# ------------------------------------------------------------------ evaluation

def part_evaluation(cfg, args, cards) -> dict:
    from solver.search.train import evaluate, generate
    from solver.search.value import ValueModel

    model = default_evaluator(cards)
    if not isinstance(model, ValueModel):
        print("no learned model for this card set: nothing to compare")
        return {"skipped": "no learned model for this card set"}
    out = {}
    for players in (2, 3, 4):
        data = generate(cards, (players,), cfg["games"], seed=args.seed + 900_001 + players,
                        workers=args.workers or 2, chunk=max(1, cfg["games"] // 8))
        report = evaluate(model, data, HeuristicEvaluator())
        print(f"-- {players} players, {cfg['games']} held-out games, {data.rows} rows")
        print(report.table())
        out[f"{players}p"] = report.to_json()
    return out


# ------------------------------------------------------------------ time

CATEGORIES = {  # (file fragment, function) whose cumulative time is the category
    "determinization": [("determinize.py", "sample")],
    "evaluation": [("policies.py", "estimate_scores"), ("value.py", "scores")],
    "rollouts": [("policies.py", "play_turn")],
    "candidates": [("ismcts.py", "_moves")],
    "own build steps": [("ismcts.py", "own_build_step")],
}


def part_time(cfg, args, cards) -> dict:
    import json

    saved = json.loads((__import__("pathlib").Path(__file__).parent / "results" /
                        "strength.json").read_text())
    from solver.rules.position import state_from_json

    state = state_from_json(saved["parts"]["speed"]["position"])
    searcher = Searcher(view_of(state, state.current), args.seed)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    searcher.run(cfg["iterations"])
    prof.disable()
    wall = time.perf_counter() - t0
    stats = pstats.Stats(prof).stats
    total = sum(v[2] for v in stats.values())  # tottime
    cum = {}
    for name, targets in CATEGORIES.items():
        cum[name] = sum(v[3] for (f, _l, fn), v in stats.items()
                        if any(f.endswith(a) and fn == b for a, b in targets))
    payment = sum(v[2] for (f, _l, _fn), v in stats.items() if "rules/payment" in f)
    rows = {"payment (all calls)": payment / total}
    rollout_only = cum["rollouts"]
    rows["rollouts (greedy play)"] = rollout_only / total
    rows["evaluation at cut-offs"] = cum["evaluation"] / total
    rows["determinization"] = cum["determinization"] / total
    rows["candidate moves"] = cum["candidates"] / total
    # the seat's own build steps by the value are met in the tree (inside the candidate
    # moves above) and in rollouts (beside the greedy play)
    rows["own build steps by the value"] = cum["own build steps"] / total
    rows["tree and the rest"] = max(0.0, 1 - sum(rows[k] for k in (
        "rollouts (greedy play)", "evaluation at cut-offs", "determinization",
        "candidate moves")) - _outside(stats, "_rollout", "own_build_step") / total)
    print(f"{cfg['iterations']} iterations in {wall:.2f} s (profiled)")
    for k, v in rows.items():
        print(f"  {k:28} {100 * v:5.1f}%")
    print("  (payment is spent inside rollouts and candidates, own build steps inside the "
          "candidates and rollouts: they overlap them)")
    return {"iterations": cfg["iterations"], "profiled_seconds": round(wall, 3),
            "shares": rows}


def _outside(stats, caller: str, callee: str) -> float:
    """Cumulative time of ``callee`` called straight from ``caller`` (pstats' callers)."""
    return sum(v[4][k][3] for (_f, _l, fn), v in stats.items() if fn == callee
               for k in v[4] if k[2] == caller)


# ------------------------------------------------------------------ luck

def luck_positions(n: int, seed: int, cards, policy: str, players: int = 2) -> list:
    """``n`` (state, seat) pairs: self-play with ``policy`` stopped at a turn start drawn
    uniformly over the game (one position per game), and a seat drawn uniformly."""
    from solver.rules.engine import new_game
    from solver.search.policies import tables
    from solver.search.train import policy_bots, policy_turn

    out = []
    for i in range(n):
        rng = random.Random(seed * 104_729 + i)
        state = new_game(players, seed * 1_000_003 + 77 + i, cards)
        stop = rng.randrange(tables(cards).total_turns(state) * players)
        bots = policy_bots(policy, players)
        while state.turn < stop:
            policy_turn(state, bots, rng)
        out.append((state, rng.randrange(players)))
    return out


def replay_position(job: tuple) -> list[dict]:
    """Replays of one position from its seat's view: each redeals the hidden cards,
    records what the evaluations predict for that deal and plays it out with the
    policy. Returns per replay the final scores and both evaluations' predicted ones."""
    state, seat, replays, policy, seed = job
    from solver.search.train import policy_bots, policy_turn

    evaluators = {"model": default_evaluator(state.cards), "heuristic": HeuristicEvaluator()}
    sampler = Determinizer(view_of(state, seat))
    rng = random.Random(seed)
    out = []
    for _ in range(replays):
        deal = sampler.sample(rng)
        predicted = {name: ev.scores(deal) for name, ev in evaluators.items()}
        bots = policy_bots(policy, deal.num_players)
        while deal.phase != Phase.OVER:
            policy_turn(deal, bots, rng)
        out.append({"final": [float(s.total) for s in outcome(deal).scores],
                    "predicted": predicted})
    return out


def _margin(scores: list[float], seat: int) -> float:
    return scores[seat] - max(x for i, x in enumerate(scores) if i != seat)


def luck_table(positions: list, replays: list[list[dict]]) -> list[dict]:
    """Per phase (turn fraction in thirds, and all): the luck (root mean within-position
    variance of the replays' outcomes) and each evaluation's root mean squared error
    over the replays, for the seat's final margin and final score."""
    from solver.search.policies import tables
    from solver.search.train import game_phase

    rows = {}
    for (state, seat), reps in zip(positions, replays, strict=True):
        phase = game_phase(
            state.turn / (tables(state.cards).total_turns(state) * state.num_players))
        for key in (phase, "all"):
            acc = rows.setdefault(key, {"positions": 0, "sums": {}})
            acc["positions"] += 1
            for what, of in (("margin", _margin), ("score", lambda s, i: s[i])):
                ys = [of(r["final"], seat) for r in reps]
                sums = acc["sums"]
                sums[f"luck_{what}"] = sums.get(f"luck_{what}", 0.0) + statistics.variance(ys)
                for name in reps[0]["predicted"]:
                    sq = statistics.fmean((y - of(r["predicted"][name], seat)) ** 2
                                          for y, r in zip(ys, reps, strict=True))
                    k = f"{name}_{what}"
                    sums[k] = sums.get(k, 0.0) + sq
    out = []
    for phase in ("early", "middle", "late", "all"):
        if phase not in rows:
            continue
        acc = rows[phase]
        n = acc["positions"]
        row = {"phase": phase, "positions": n}
        for k, total in acc["sums"].items():
            row[f"{k}_rms"] = math.sqrt(total / n)
        for what in ("margin", "score"):
            row[f"luck_share_model_{what}"] = (acc["sums"][f"luck_{what}"]
                                               / acc["sums"][f"model_{what}"])
        out.append(row)
    return out


def part_luck(cfg, args, cards) -> dict:
    from concurrent.futures import ProcessPoolExecutor

    from solver.search.tournament import Progress

    positions = luck_positions(cfg["positions"], args.seed, cards, cfg["policy"])
    jobs = [(state, seat, cfg["replays"], cfg["policy"], args.seed * 7_919 + i)
            for i, (state, seat) in enumerate(positions)]
    progress = Progress(len(jobs), "positions replayed")
    with ProcessPoolExecutor(max_workers=args.workers or 2) as pool:
        replays = []
        for reps in pool.map(replay_position, jobs):
            replays.append(reps)
            progress.update()
    progress.close()
    rows = luck_table(positions, replays)
    print(f"{'phase':8}{'positions':>10}  {'margin: luck':>12}  {'learned':>8}  "
          f"{'heuristic':>9}  {'luck share':>10}  {'score: luck':>11}  {'learned':>8}")
    for r in rows:
        print(f"{r['phase']:8}{r['positions']:>10}  {r['luck_margin_rms']:>12.2f}  "
              f"{r['model_margin_rms']:>8.2f}  {r['heuristic_margin_rms']:>9.2f}  "
              f"{100 * r['luck_share_model_margin']:>9.0f}%  {r['luck_score_rms']:>11.2f}  "
              f"{r['model_score_rms']:>8.2f}")
    print("(root mean squares in points; luck share: the part of the learned evaluation's "
          "squared error that the replays' own spread accounts for)")
    return {"by_phase": rows}


# ------------------------------------------------------------------ latency

def _deadline_grace() -> float:
    """Seconds past its budget the server waits for a search, by default
    (``BIGSUR_DEADLINE_GRACE_MS``)."""
    from server.settings import Settings

    return Settings.model_fields["deadline_grace_ms"].default / 1000


def hoarded_positions(n: int, seed: int, cards, min_sequences: int) -> list:
    """``n`` turn starts (turn 12 on) of noisy greedy 2-player games whose player to act
    can pay for at least ``min_sequences`` build sequences, at most one per game."""
    from solver.rules.engine import new_game
    from solver.search.buildsteps import payable_sequences

    out = []
    game = 0
    while len(out) < n:
        if game >= 50 * n:
            raise SystemExit(f"latency: only {len(out)} of {n} positions with "
                             f"{min_sequences} build sequences in {game} games")
        rng = random.Random(seed * 7919 + game)
        state = new_game(2, seed * 1_000_003 + game, cards)
        game += 1
        while state.phase != Phase.OVER:
            if state.turn >= 12 and sum(1 for _ in payable_sequences(
                    state, min_sequences)) >= min_sequences:
                out.append(state.copy())
                break
            play_turn(state, rng, noise=0.3)
    return out


def hoarded_last_steps(n: int, seed: int, cards, min_sequences: int) -> list:
    """``n`` last build steps of noisy greedy 2-player games whose player can pay for at
    least ``min_sequences`` build sequences, at most one per game."""
    from solver.rules.engine import new_game
    from solver.search.buildsteps import is_last_build_step, payable_sequences
    from solver.search.policies import build_step_inplace, greedy_take

    out = []
    game = 0
    while len(out) < n:
        if game >= 100 * n:
            raise SystemExit(f"latency: only {len(out)} of {n} last build steps with "
                             f"{min_sequences} build sequences in {game} games")
        rng = random.Random(seed * 7919 + 500_009 + game)
        state = new_game(2, seed * 1_000_003 + 500_009 + game, cards)
        game += 1
        while state.phase != Phase.OVER:
            while state.phase == Phase.TAKE:
                apply_inplace(state, greedy_take(state, None, rng=rng, noise=0.3))
            if is_last_build_step(state) and len(state.player.hand) >= 8 and sum(
                    1 for _ in payable_sequences(state, min_sequences)) >= min_sequences:
                out.append(state.copy())
                break
            build_step_inplace(state, rng=rng, noise=0.15, exact=False)
    return out


def _final_score(state, move) -> int:
    """The final score of the player to act once ``move`` (its last build step) is made."""
    from solver.search.ismcts import concrete_move
    from solver.search.policies import highway_score

    after = state.copy()
    for action in concrete_move(state, move):
        apply_inplace(after, action)
    p = after.players[state.current]
    return highway_score(state.cards, tuple(p.highway), tuple(p.landmarks))


def _timed_hints(positions: list, budgets, seed: int, grace: float, label: str
                 ) -> tuple[list[dict], list[list]]:
    """Cold hints at every position and budget: the rows of seconds, and each hint's
    move per budget."""
    from solver.search.api import search

    rows, moves = [], []
    for budget in budgets:
        took, chosen = [], []
        for k, state in enumerate(positions):
            empty_caches()  # (finding the positions enumerated their build sequences)
            start = time.perf_counter()
            out = search(view_of(state, state.current), None, budget, seed + k)
            took.append(time.perf_counter() - start)
            chosen.append(out.moves[0].move)
        took.sort()
        row = {"budget": budget, "positions": len(took),
               "median": round(statistics.median(took), 3),
               "p90": round(took[min(len(took) - 1, int(0.9 * len(took)))], 3),
               "max": round(took[-1], 3),
               "past_deadline": sum(t > budget + grace for t in took)}
        rows.append(row)
        moves.append(chosen)
        print(f"  {label}, {budget:g} s budget: median {row['median']:.2f} s, 90th "
              f"percentile {row['p90']:.2f} s, largest {row['max']:.2f} s; past budget + "
              f"{grace:g} s: {row['past_deadline']} of {len(took)}")
    return rows, moves


def part_latency(cfg, args, cards) -> dict:
    from solver.search import buildsteps

    grace = _deadline_grace()
    positions = hoarded_positions(cfg["positions"], args.seed, cards, cfg["min_sequences"])
    rows, _moves = _timed_hints(positions, cfg["budgets"], args.seed, grace, "turn starts")
    out = {"positions": len(positions), "by_budget": rows,
           "hands": sorted(len(s.players[s.current].hand) for s in positions)}
    last = hoarded_last_steps(cfg["last_positions"], args.seed, cards,
                              ROOT_EXACT_LIMIT + 1 if cfg["last_min_sequences"] is None
                              else cfg["last_min_sequences"])
    last_rows, last_moves = _timed_hints(last, cfg["budgets"], args.seed, grace,
                                         "last build steps")
    scores = [[_final_score(state, moves[k]) for k, state in enumerate(last)]
              for moves in last_moves]
    # (a reference where the code has one: the part also runs on older code)
    found = getattr(buildsteps, "best_found_last_step", None)
    best = [max([row[k] for row in scores]
                + ([found(state, cfg["reference_sequences"])[1]] if found else []))
            for k, state in enumerate(last)]
    for row, got in zip(last_rows, scores, strict=True):
        short = [b - g for b, g in zip(best, got, strict=True)]
        row.update(final_scores=got, points_short_mean=round(statistics.fmean(short), 2),
                   points_short_max=max(short))
        print(f"  last build steps, {row['budget']:g} s budget: the hint's move "
              f"{row['points_short_mean']:.2f} points short of the best known on average, "
              f"{row['points_short_max']} at most")
    out["last_steps"] = {"positions": len(last), "by_budget": last_rows, "best_known": best,
                         "hands": sorted(len(s.player.hand) for s in last)}
    return out


# ------------------------------------------------------------------ takes

def _hand_band(size: int) -> str:
    return "up to 3" if size <= 3 else "4 or 5" if size <= 5 else "6 or more"


def _band_row(band: str, found: list[dict]) -> dict:
    return {"hand": band, "positions": len(found),
            "median_iterations": statistics.median([f["iterations"] for f in found] or [0]),
            "starved": sum(f["starved"] for f in found)}


def part_takes(cfg, args, cards) -> dict:
    from bench.strength import _analyse, mid_game_positions

    params = DEFAULT_PARAMS
    race = params.race_start * params.race_min_rounds
    positions = [s for s in mid_game_positions(cfg["positions"], args.seed, cards)
                 if s.phase == Phase.TAKE and s.picks == 0]
    slow = []
    for k, state in enumerate(positions):
        empty_caches()
        slow.append(" ; ".join(_analyse(state, cfg["reference"], args.seed + k).best.actions))
    rows = []
    for budget in cfg["budgets"]:
        seconds = params.first_take_share * budget
        found = []
        for k, state in enumerate(positions):
            empty_caches()  # cold, as at a game's first search of a process
            searcher = Searcher(view_of(state, state.current), args.seed + k, params)
            searcher.run(seconds=seconds)
            move = " ; ".join(a.notation() for a in searcher.best())
            first = " ; ".join(a.notation() for a in searcher.root_order[0])
            found.append({"hand": len(state.player.hand), "iterations": searcher.iterations,
                          "move": move, "first_in_order": first,
                          "starved": searcher.iterations < race, "agree": move == slow[k],
                          "first_in_order_agrees": first == slow[k]})
        row = {"budget": budget, "seconds": round(seconds, 3), "positions": len(found),
               "median_iterations": statistics.median(f["iterations"] for f in found),
               "starved": sum(f["starved"] for f in found),
               "starved_playing_first_in_order": sum(
                   f["starved"] and f["move"] == f["first_in_order"] for f in found),
               "agree": sum(f["agree"] for f in found),
               "agree_starved": sum(f["agree"] for f in found if f["starved"]),
               "first_in_order_agrees_starved": sum(
                   f["first_in_order_agrees"] for f in found if f["starved"]),
               "by_hand": [_band_row(band, [f for f in found
                                            if _hand_band(f["hand"]) == band])
                           for band in ("up to 3", "4 or 5", "6 or more")],
               "rows": found}
        rows.append(row)
        print(f"  {budget:g} s a turn ({seconds:.2f} s for the first take): median "
              f"{row['median_iterations']:g} iterations; {row['starved']} of {len(found)} "
              f"under {race} ({row['starved_playing_first_in_order']} of them play the "
              f"root's first candidate); agrees with {cfg['reference']:g} s at "
              f"{row['agree']} ({row['agree_starved']} of the starved, whose root's first "
              f"candidate would at {row['first_in_order_agrees_starved']})")
    return {"positions": len(positions), "race_iterations": race, "reference_moves": slow,
            "first_take_share": params.first_take_share, "reference_seconds": cfg["reference"],
            "by_budget": rows}


# ------------------------------------------------------------------ claims

def passed_claims(n: int, seed: int, cards, iterations: int, from_turn: int,
                  max_searches: int) -> list[tuple]:
    """Up to ``n`` (state, passed move, claiming move, search's values of both) at build
    steps of noisy greedy 2-player games where the search's move ends the turn without
    the claim it ranked after the same builds; at most one per game, at most
    ``max_searches`` searches."""
    from solver.rules.engine import new_game, play
    from solver.search.api import Budget, analyse
    from solver.search.bots import make_bot

    greedy = make_bot("greedy")
    found, searches, game = [], 0, 0
    while len(found) < n and searches < max_searches:
        rng = random.Random(seed * 7919 + game)
        state = new_game(2, seed * 1_000_003 + game, cards)
        game += 1
        while state.phase != Phase.OVER and searches < max_searches:
            if state.phase == Phase.BUILD and state.turn >= from_turn and \
                    any(a.notation().startswith("claim") for a in _step_claims(state)):
                searches += 1
                moves = analyse(state, Budget(iterations=iterations), seed + game).moves
                best = moves[0].actions
                claims = [m for m in moves[1:] if m.actions[-1].startswith("claim ")
                          and m.actions[:-1] == best[:-1]]
                if best[-1] == "end" and claims:
                    found.append((state.copy(), best, claims[0].actions,
                                  (moves[0].expected_margin, claims[0].expected_margin)))
                    break
            state = play(state, greedy.act(view_of(state, state.current),
                                           rng.randrange(2**31)))
    return found


def _step_claims(state) -> list:
    """The claims the seat to act could make after some build of this step: any claim
    legal now or after building one hand card it can pay for (cheap to tell)."""
    from solver.rules.engine import legal_actions, play

    legal = legal_actions(state)
    out = [a for a in legal if a.notation().startswith("claim")]
    for a in legal:
        if not out and a.notation().startswith("build"):
            out = [b for b in legal_actions(play(state, a))
                   if b.notation().startswith("claim")]
    return out


def _played_out(job: tuple) -> list[tuple[float, float]]:
    """Both moves of a passed claim played out from one determinization (runs in a
    worker): (margin, win share) of the seat for the pass, then for the claim."""
    from solver.rules.engine import play
    from solver.rules.scoring import final_scores
    from solver.search.bots import make_bot
    from solver.search.determinize import determinize
    from solver.search.tournament import bot_seed, win_shares

    state, lines, policy, k = job
    seat = state.current
    deal = determinize(view_of(state, seat), k)
    out = []
    for line in lines:
        s = deal
        for a in line:
            s = play(s, a)
        bots = [make_bot(policy) for _ in s.players]
        decision, turn = 0, -1
        while s.phase != Phase.OVER:
            if s.turn != turn:
                decision, turn = 0, s.turn
            s = play(s, bots[s.current].act(view_of(s, s.current),
                                             bot_seed(k, s.current, s.turn, decision)))
            decision += 1
        scores = [x.total for x in final_scores(s).scores]
        out.append((_margin(scores, seat), win_shares(scores)[seat]))
    return out


def part_claims(cfg, args, cards) -> dict:
    from concurrent.futures import ProcessPoolExecutor

    found = passed_claims(cfg["positions"], args.seed, cards, cfg["iterations"],
                          cfg["from_turn"], cfg["max_searches"])
    rows, margins, wins = [], [], []
    with ProcessPoolExecutor(args.workers or 2) as pool:
        for state, passed, claim, (v_pass, v_claim) in found:
            jobs = [(state, (passed, claim), cfg["policy"], k) for k in range(cfg["replays"])]
            pairs = list(pool.map(_played_out, jobs))
            dm = [c[0] - p[0] for p, c in pairs]
            dw = [c[1] - p[1] for p, c in pairs]
            margins += dm
            wins += dw
            row = {"turn": state.turn, "passed": passed, "claim": claim,
                   "search_gap": round(v_claim - v_pass, 2),
                   "played_margin_gap": round(statistics.fmean(dm), 2),
                   "played_margin_se": round(_se(dm), 2),
                   "played_win_gap": round(statistics.fmean(dw), 3)}
            rows.append(row)
            print(f"  turn {state.turn}: search {row['search_gap']:+.2f} pts for the claim, "
                  f"played out {row['played_margin_gap']:+.2f} +- {row['played_margin_se']:.2f}"
                  f" pts, {100 * row['played_win_gap']:+.1f} win-% ({' ; '.join(claim)})")
    out = {"positions": len(found), "rows": rows}
    if margins:
        out.update(played_margin_gap=round(statistics.fmean(margins), 2),
                   played_margin_se=round(_se(margins), 2),
                   played_win_gap=round(statistics.fmean(wins), 3),
                   played_win_se=round(_se(wins), 3),
                   claim_better=sum(r["played_margin_gap"] > 0 for r in rows))
        print(f"  over {len(found)} positions: the claim played out "
              f"{out['played_margin_gap']:+.2f} +- {out['played_margin_se']:.2f} pts, "
              f"{100 * out['played_win_gap']:+.1f} +- {100 * out['played_win_se']:.1f} win-%")
    return out


def _se(xs: list[float]) -> float:
    return statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0


RUNNERS = {"coverage": part_coverage, "evaluation": part_evaluation, "time": part_time,
           "luck": part_luck, "latency": part_latency, "takes": part_takes,
           "claims": part_claims}


def summary_table(saved: dict) -> str:
    lines = [f"{'part':11} result"]
    parts = saved.get("parts", {})
    if "coverage" in parts:
        c = parts["coverage"]
        lines.append(f"{'coverage':11} best build step among first version's candidates "
                     f"{_pct(c['coverage_first_version'])}, among root candidates "
                     f"{_pct(c['coverage_root_candidates'])} ({c['positions']} positions)")
    if "evaluation" in parts and "2p" in parts["evaluation"]:
        row = next(r for r in parts["evaluation"]["2p"]["by_phase"] if r["phase"] == "all")
        lines.append(f"{'evaluation':11} 2p margin MAE heuristic "
                     f"{row['margin_mae_heuristic']:.2f} vs learned "
                     f"{row['margin_mae_model']:.2f}; Brier {row['brier_heuristic']:.3f} vs "
                     f"{row['brier_model']:.3f}")
    if "time" in parts:
        t = parts["time"]["shares"]
        lines.append(f"{'time':11} " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in t.items()))
    if "luck" in parts:
        row = next(r for r in parts["luck"]["by_phase"] if r["phase"] == "all")
        lines.append(f"{'luck':11} 2p final margin: luck {row['luck_margin_rms']:.1f} points "
                     f"(rms), learned evaluation's error {row['model_margin_rms']:.1f}: luck "
                     f"is {100 * row['luck_share_model_margin']:.0f}% of its squared error")
    if "latency" in parts:
        lines.append(f"{'latency':11} cold hints at hoarded hands: " + "; ".join(
            f"{r['budget']:g} s budget: median {r['median']:.2f} s, largest {r['max']:.2f} s, "
            f"{r['past_deadline']} of {r['positions']} past the deadline"
            for r in parts["latency"]["by_budget"]))
        if "last_steps" in parts["latency"]:
            lines.append(f"{'':11} at hoarded last build steps: " + "; ".join(
                f"{r['budget']:g} s budget: median {r['median']:.2f} s, largest "
                f"{r['max']:.2f} s, {r['past_deadline']} of {r['positions']} past the "
                f"deadline, {r['points_short_mean']:.2f} points short of the best known"
                for r in parts["latency"]["last_steps"]["by_budget"]))
    if "takes" in parts:
        t = parts["takes"]
        lines.append(f"{'takes':11} first takes ({t['positions']} positions) starved of "
                     f"the race's {t['race_iterations']} iterations: " + "; ".join(
                         f"{r['budget']:g} s a turn {r['starved']}, agreeing with "
                         f"{t['reference_seconds']:g} s at {r['agree']}"
                         for r in t["by_budget"]))
    if "claims" in parts and parts["claims"].get("positions"):
        c = parts["claims"]
        lines.append(f"{'claims':11} passed-up claims ({c['positions']} positions) played out:"
                     f" the claim {c['played_margin_gap']:+.2f} +- {c['played_margin_se']:.2f}"
                     f" pts, {100 * c['played_win_gap']:+.1f} win-%, better at "
                     f"{c['claim_better']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.search_diagnostics",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--part", action="append", choices=PARTS)
    p.add_argument("--positions", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--out")
    args = p.parse_args(argv)
    cfg = {k: dict(v) for k, v in (QUICK if args.quick else FULL).items()}
    if args.positions:
        cfg["coverage"]["positions"] = args.positions
    cards = load_card_set()
    return run_parts("diagnostics", args, cfg, RUNNERS, cards, summary_table)


if __name__ == "__main__":
    sys.exit(main())
