"""Tournaments between bots: paired deals, seats rotated, on any ``concurrent.futures``
Executor, with win rates, score margins and Elo ratings, each with a 95% interval.

    summary = run_tournament(["mcts:200i", "greedy"], players=2, games=100, seed=0)
    print(summary.table())

Design:

- **Lineup.** ``bots`` lists one spec per seat, or fewer: the list is then repeated to
  fill the seats (``a,b`` at 4 players is ``a,b,a,b``). Repeats name the same bot:
  ``mcts:1s,greedy,greedy,greedy`` is one MCTS against three GreedyBots.
- **Paired deals.** Deal ``k`` is ``new_game(players, seed + k)``. It is played once per
  distinct rotation of the lineup (seat ``s`` gets ``lineup[(s + r) % players]``), so
  every bot sits in every seat of every deal and the luck of the deal cancels.
- **Seeds.** A bot's seed for each decision is a hash of (deal seed, seat, turn,
  decision index within the turn): with iteration budgets a run is reproducible, on
  any executor and any number of workers. One bot object per seat lives for the game.
- **Checked.** Actions go through :func:`solver.rules.engine.play`: a bot returns an
  Action or its text (``"take deck"``; the record holds the action read). A bot that
  raises or returns an illegal action (or no action: ``None``, a number, unreadable
  text) loses nothing but that game, which is reported as that bot's error (bot, game,
  action, reason) and left out of the statistics.
- **Statistics** (:func:`summarize`). Win share of a game: 1 to the winner, ties shared
  (a 2-way tie is 0.5 each); a bot's *win rate* is its mean share per seat it held
  (parity is 1/players). *Margin* of a seat: its score minus the best other score.
  *Elo*: Bradley-Terry (logistic) fit to the pairwise results of every pair of seats
  held by different bots (higher score wins, equal scores draw), with one virtual draw
  per pair of bots as a prior so that a bot that always wins stays finite; anchor:
  ``random`` = 0 when it plays, else the first bot = 0. Intervals (95%): the margin's is
  a percentile bootstrap over deals (deals resampled whole, so pairing is kept); the win
  rate's and Elo's are the wider envelope of that bootstrap and an analytic interval
  (Wilson score over seats; Laplace, i.e. the fit's inverse Hessian), because the
  bootstrap alone collapses to a point when one bot wins every game. A bot without a
  counted game (each of its games failed) has no statistic: its win rate, margin and Elo
  are ``null`` in ``summary.json`` (nan in :class:`BotStats`), "no games counted" and "—"
  in the table.
- **Executors.** Local processes by default; ``--cluster ADDRESS`` uses Dask distributed
  (``pip install 'bigsur-solver[cluster]'``; every worker needs this package installed).
  Each task is one game; bots are built inside the worker from their specs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..rules.actions import Action, ActionError, parse_action
from ..rules.cards import CardSet, load_card_set
from ..rules.engine import new_game, play
from ..rules.position import cards_to_json, resolve_cards
from ..rules.record import MAX_SEED, GameRecord
from ..rules.scoring import final_scores
from ..rules.state import Phase
from ..rules.userfiles import OutputError
from ..rules.views import view_of
from ..rules.wording import got
from .bots import BOT_FACTORIES, BotSpecError, make_bot
from .specs import MAX_WORKERS, SpecError, workers_problem

Z95 = 1.959963984540054
ELO_PER_NAT = 400 / math.log(10)  # Elo points per unit of logistic strength
MAX_ACTIONS = 5000  # a game longer than this means a bot never ends its turn


class TournamentError(ValueError):
    """A tournament that cannot be run as asked (bots, players, games, cluster)."""


# ------------------------------------------------------------------ one game

def bot_seed(deal_seed: int, seat: int, turn: int, decision: int) -> int:
    """The seed a bot gets for one decision: a 63-bit hash of where it is in the game."""
    key = f"{deal_seed}:{seat}:{turn}:{decision}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") >> 1


@dataclass(frozen=True)
class GameTask:
    """One game of a tournament: everything a worker needs (plain, picklable data)."""

    deal: int  # index of the deal in the tournament
    seed: int  # deal seed: new_game(players, seed)
    rotation: int  # which rotation of the lineup sits at the table
    lineup: tuple[str, ...]  # bot spec of each seat
    cards: str | dict  # the card set as positions name it ("default" or inline)
    code: bool = False  # "module:Class" specs allowed (the command line's own tournaments)

    @property
    def game_id(self) -> str:
        return f"deal {self.deal} (seed {self.seed}) rotation {self.rotation}"

    @property
    def file_name(self) -> str:
        return f"game-d{self.deal:05d}-r{self.rotation}.json"


@dataclass
class GameResult:
    """What a worker sends back: scores, the record, and any bot error."""

    deal: int
    seed: int
    rotation: int
    lineup: tuple[str, ...]
    scores: list[int] | None  # final total per seat; None when the game failed
    winners: list[int] | None
    record: dict  # GameRecord JSON (the partial game when it failed)
    error: dict | None = None  # {"kind", "bot", "seat", "game", "action", "message"}
    think_seconds: list[float] = field(default_factory=list)  # per seat, all decisions
    turns: list[int] = field(default_factory=list)  # per seat, turns in which it acted


_CARD_CACHE: dict[str, CardSet] = {}


def _cards_in_worker(raw: str | dict) -> CardSet:
    """The task's card set, parsed once per worker process."""
    key = raw if isinstance(raw, str) else json.dumps(raw, sort_keys=True)
    if key not in _CARD_CACHE:
        _CARD_CACHE[key] = resolve_cards(raw, require_full=False)  # the caller's own set
    return _CARD_CACHE[key]


def play_game(task: GameTask) -> GameResult:
    """Play one game of ``task`` (runs in a worker). Never raises for a bot's fault: a bot
    that crashes or plays an illegal action ends the game with ``error`` set."""
    cards = _cards_in_worker(task.cards)
    players = len(task.lineup)
    record = GameRecord.start(players, task.seed, cards, names=list(task.lineup))
    record.meta = {"deal": task.deal, "rotation": task.rotation, "deal_seed": task.seed}
    state = new_game(players, task.seed, cards)
    bots = [seat_bot(spec, task.code) for spec in task.lineup]  # one object per seat
    think = [0.0] * players
    turns = [0] * players
    decision, turn = 0, -1
    error = None

    def fail(kind: str, seat: int, action: Any, message: str) -> dict:
        shown = action.notation() if isinstance(action, Action) else (
            action if action is None or isinstance(action, str) else repr(action))
        return {"kind": kind, "bot": task.lineup[seat], "seat": seat, "game": task.game_id,
                "action": shown, "message": message}

    while state.phase != Phase.OVER:
        seat = state.current
        if state.turn != turn:
            decision, turn = 0, state.turn
            turns[seat] += 1
        if len(record.actions) >= MAX_ACTIONS:
            error = fail("stalled", seat, None, f"more than {MAX_ACTIONS} actions")
            break
        seed = bot_seed(task.seed, seat, state.turn, decision)
        start = time.perf_counter()
        try:
            action = bots[seat].act(view_of(state, seat), seed)
        except Exception as err:  # a bot's crash is its own error, not the tournament's
            error = fail("crash", seat, None, f"{type(err).__name__}: {err}")
            break
        finally:
            think[seat] += time.perf_counter() - start
        try:
            if isinstance(action, str):  # play takes the text too; record what it read
                action = parse_action(action)
            state = play(state, action)
        except ActionError as err:
            error = fail("illegal", seat, action, str(err))
            break
        except Exception as err:  # e.g. an object that is no Action at all
            error = fail("illegal", seat, action, f"{type(err).__name__}: {err}")
            break
        record.actions.append(action.notation())
        decision += 1

    scores = winners = None
    if error is None:
        outcome = final_scores(state)
        scores = [s.total for s in outcome.scores]
        winners = list(outcome.winners)
        record.meta["result"] = outcome.to_json()
    else:
        record.meta["error"] = error
    return GameResult(task.deal, task.seed, task.rotation, task.lineup, scores, winners,
                      record.to_json(), error, think, turns)


def seat_bot(spec: str, code: bool = False):
    """The bot of a spec: :func:`~solver.search.bots.make_bot`'s grammar, and with
    ``code`` also OpenSpiel's searchers (``os-ismcts:200i``, ``os-mcts:0.5s``, when it is
    installed) and ``module:Class``: ``Class()`` of the importable ``module`` (the current
    directory first), any object with ``name`` and ``act(view, seed) -> Action``. Only the
    command line allows ``code``: a spec that names code runs it, so a server never
    accepts one."""
    kind, _, name = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if code and kind in ("os-ismcts", "os-mcts") and kind not in BOT_FACTORIES:
        try:  # OpenSpiel's searchers behind our bot interface (solver.openspiel)
            from ..openspiel import register_bots
        except ImportError as err:
            raise BotSpecError(f"bot {spec!r} needs OpenSpiel: pip install "
                               f"'bigsur-solver[openspiel]' ({err})") from None
        register_bots()
    if not (code and kind not in BOT_FACTORIES and name.isidentifier()
            and all(part.isidentifier() for part in kind.split("."))):
        return make_bot(spec)
    import importlib

    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(kind)
    except ImportError as err:
        raise BotSpecError(f"bot {spec!r}: cannot import module {kind!r} ({err})") from None
    except Exception as err:  # the module's own code failed (a SyntaxError, a raise...)
        raise BotSpecError(f"bot {spec!r}: cannot import module {kind!r} "
                           f"({type(err).__name__}: {err})") from None
    cls = getattr(module, name, None)
    if cls is None:
        raise BotSpecError(f"bot {spec!r}: module {kind!r} has no {name!r}")
    if not callable(cls):
        raise BotSpecError(f"bot {spec!r}: {name} is a {type(cls).__name__}, not a class")
    try:
        bot = cls()
    except TypeError as err:  # a class whose constructor needs arguments
        raise BotSpecError(f"bot {spec!r}: {name}() cannot be made without arguments "
                           f"({err})") from None
    except Exception as err:  # the class's constructor failed
        raise BotSpecError(f"bot {spec!r}: {name}() failed: {type(err).__name__}: "
                           f"{err}") from None
    if not callable(getattr(bot, "act", None)):
        raise BotSpecError(f"bot {spec!r}: {name} has no act(view, seed) method")
    if not isinstance(getattr(bot, "name", None), str):
        bot.name = spec
    return bot


# ------------------------------------------------------------------ schedule

def lineup_for(bots: Sequence[str], players: int) -> tuple[str, ...]:
    """The spec of each seat: ``bots`` itself, or repeated to fill the seats."""
    if not bots:
        raise TournamentError("bots: name at least one bot spec")
    if len(bots) > players:
        raise TournamentError(f"bots: {len(bots)} specs for {players} seats; give at most "
                              "one spec per seat")
    return tuple(bots[i % len(bots)] for i in range(players))


def rotations(lineup: Sequence[str]) -> list[tuple[int, tuple[str, ...]]]:
    """The distinct rotations of ``lineup`` as (rotation, seats): every bot sits in every
    seat once per deal (``a,b,a,b`` needs only 2 of its 4 rotations)."""
    n = len(lineup)
    seen: set[tuple[str, ...]] = set()
    out = []
    for r in range(n):
        seats = tuple(lineup[(s + r) % n] for s in range(n))
        if seats not in seen:
            seen.add(seats)
            out.append((r, seats))
    return out


def schedule(bots: Sequence[str], players: int, games: int, seed: int = 0,
             cards: CardSet | None = None, code: bool = False) -> list[GameTask]:
    """The games of a tournament: whole deals (``games`` rounded up), each rotated.
    ``code``: allow ``module:Class`` bot specs (see :func:`seat_bot`)."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise TournamentError(f"games: must be a positive integer, got {games!r}")
    if isinstance(players, bool) or players not in (2, 3, 4):
        raise TournamentError(f"players: must be 2, 3 or 4, got {players!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise TournamentError(f"seed: must be an integer 0 to {MAX_SEED}, got {seed!r}")
    lineup = lineup_for(list(bots), players)
    for spec in set(lineup):
        try:
            seat_bot(spec, code)
        except BotSpecError as err:
            raise TournamentError(f"bots: {err}") from None
    cards = cards or load_card_set()
    raw_cards = cards_to_json(cards)
    rots = rotations(lineup)
    deals = -(-games // len(rots))
    if seed + deals - 1 > MAX_SEED:  # a deal's record must be one the service reviews
        raise TournamentError(f"seed {seed} with {games} games: the last deal's seed would "
                              f"be {seed + deals - 1} ({deals} deals), more than {MAX_SEED} "
                              "(2**63 - 1, the largest seed the service takes)")
    return [GameTask(d, seed + d, r, seats, raw_cards, code)
            for d in range(deals) for r, seats in rots]


# ------------------------------------------------------------------ statistics

def win_shares(scores: Sequence[float]) -> list[float]:
    """Each seat's share of the win: 1 to a sole winner, 1/k to each of k tied winners."""
    best = max(scores)
    k = sum(1 for s in scores if s == best)
    return [1.0 / k if s == best else 0.0 for s in scores]


def margins(scores: Sequence[float]) -> list[float]:
    """Each seat's score minus the best score of the other seats."""
    out = []
    for i, s in enumerate(scores):
        out.append(float(s - max(x for j, x in enumerate(scores) if j != i)))
    return out


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (successes may be fractional: tie shares)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def fit_bradley_terry(wins: np.ndarray, games: np.ndarray, anchor: int = 0,
                      prior: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Logistic strengths (natural units) maximising the Bradley-Terry likelihood.

    ``wins[i, j]``: points of i against j (a draw is 0.5 each); ``games[i, j]``: games
    between them (symmetric). ``prior`` virtual draws are added to every pair that met.
    Returns (strengths with ``strengths[anchor] == 0``, their standard errors from the
    inverse Hessian; the anchor's is 0). Bots that never met the anchor's component
    are left at 0 with an infinite error.
    """
    k = len(wins)
    met = games > 0
    w = wins + prior / 2 * met
    n = games + prior * met
    r = np.zeros(k)
    free = [i for i in range(k) if i != anchor]
    if not free:
        return r, np.zeros(k)
    for _ in range(100):
        p = 1 / (1 + np.exp(r[None, :] - r[:, None]))  # p[i, j] = P(i beats j)
        grad = (w - n * p).sum(axis=1)
        v = n * p * (1 - p)
        hess = np.diag(v.sum(axis=1)) - v  # minus the Hessian of the log-likelihood
        h = hess[np.ix_(free, free)]
        try:
            step = np.linalg.solve(h, grad[free])
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(h, grad[free], rcond=None)[0]
        step = np.clip(step, -3.0, 3.0)  # damped Newton: the fit is concave, so this converges
        r[free] += step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1 / (1 + np.exp(r[None, :] - r[:, None]))
    v = n * p * (1 - p)
    hess = (np.diag(v.sum(axis=1)) - v)[np.ix_(free, free)]
    se = np.zeros(k)
    try:
        cov = np.linalg.inv(hess)
        se[free] = np.sqrt(np.maximum(np.diag(cov), 0.0))
    except np.linalg.LinAlgError:
        se[free] = math.inf
    return r, se


@dataclass
class BotStats:
    bot: str
    seats: int  # seats held over all counted games
    win_rate: float
    win_ci: tuple[float, float]
    margin: float
    margin_ci: tuple[float, float]
    elo: float  # nan (None in to_json) for a bot without a counted game
    elo_ci: tuple[float, float]
    seconds_per_turn: float  # mean thinking time per turn (wall clock, not reproducible)


@dataclass
class Summary:
    """The result of a tournament: per-bot statistics, errors, and how it was run."""

    bots: list[BotStats]
    players: int
    games: int  # games counted in the statistics
    deals: int
    failed: list[dict]  # bot errors: {"kind", "bot", "seat", "game", "action", "message"}
    anchor: str
    config: dict = field(default_factory=dict)
    wall_seconds: float = 0.0
    results: list[GameResult] = field(default_factory=list, repr=False)  # not in to_json

    def stats(self, bot: str) -> BotStats:
        return next(b for b in self.bots if b.bot == bot)

    def to_json(self) -> dict:
        return {
            "players": self.players, "games": self.games, "deals": self.deals,
            "parity": 1 / self.players, "anchor": self.anchor,
            "methods": {
                "win_rate": "mean win share per seat held (ties shared); 95% interval: wider "
                            "envelope of Wilson score (over seats) and bootstrap over deals",
                "margin": "score minus best other score; 95% interval: percentile bootstrap "
                          "over deals",
                "elo": "Bradley-Terry fit to pairwise seat results, one virtual draw per "
                       "pair; 95% interval: wider envelope of bootstrap over deals and "
                       f"Laplace; anchor {self.anchor} = 0",
            },
            "bots": [_finite(asdict(b)) for b in self.bots],
            "failed": self.failed, "config": self.config,
            "wall_seconds": round(self.wall_seconds, 3),
        }

    def table(self) -> str:
        head = (f"{'bot':18} {'seats':>6}  {'win rate [95% CI]':24} "
                f"{'margin [95% CI]':24} {'Elo [95% CI]':22} {'s/turn':>7}")
        lines = [head, "-" * len(head)]
        for b in self.bots:
            win = (f"{100 * b.win_rate:5.1f}% [{100 * b.win_ci[0]:5.1f}, "
                   f"{100 * b.win_ci[1]:5.1f}]")
            mar = f"{b.margin:+6.2f} [{b.margin_ci[0]:+6.2f}, {b.margin_ci[1]:+6.2f}]"
            elo = f"{b.elo:+5.0f} [{b.elo_ci[0]:+5.0f}, {b.elo_ci[1]:+5.0f}]"
            if b.seats == 0:  # each of its games failed: no statistic (not nan%, +nan)
                win, mar, elo = "no games counted", "—", "—"
            lines.append(f"{b.bot:18} {b.seats:>6}  {win:24} {mar:24} {elo:22} "
                         f"{b.seconds_per_turn:7.3f}")
        lines.append(f"{self.games} games ({self.deals} deals, seats rotated), "
                     f"{self.players} players, parity {100 / self.players:.1f}%, "
                     f"Elo anchor {self.anchor} = 0, {self.wall_seconds:.1f} s")
        for e in self.failed:
            lines.append(f"ERROR {e['kind']}: bot {e['bot']} (seat {e['seat']}) in "
                         f"{e['game']}: action {e['action']}: {e['message']}")
        return "\n".join(lines)


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as None, so that the JSON is strict."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _percentile(samples: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    return (np.percentile(samples, 2.5, axis=axis), np.percentile(samples, 97.5, axis=axis))


def summarize(results: Iterable[GameResult], bootstrap: int = 1000, seed: int = 0,
              anchor: str | None = None) -> Summary:
    """Statistics of finished games (see the module doc); deterministic in ``seed``.
    Games with a bot error are listed in ``failed`` and left out of every statistic."""
    results = sorted(results, key=lambda g: (g.deal, g.rotation))
    ok = [g for g in results if g.error is None]
    failed = [g.error for g in results if g.error is not None]
    names: list[str] = []
    for g in results:
        for spec in g.lineup:
            if spec not in names:
                names.append(spec)
    if not names:
        raise TournamentError("no games to summarize")
    players = len(results[0].lineup)
    if anchor is None:
        anchor = "random" if "random" in names else names[0]
    a = names.index(anchor)
    k = len(names)
    deals = sorted({g.deal for g in results})
    d_index = {d: i for i, d in enumerate(deals)}
    nd = len(deals)
    # per-deal sums, so that a bootstrap resample is one matrix product
    share = np.zeros((nd, k))
    seats = np.zeros((nd, k))
    margin = np.zeros((nd, k))
    pw = np.zeros((nd, k, k))  # pairwise points of i against j
    pn = np.zeros((nd, k, k))  # pairwise comparisons
    think = np.zeros(k)
    turns = np.zeros(k)
    for g in results:
        for s, spec in enumerate(g.lineup):
            if s < len(g.think_seconds):
                think[names.index(spec)] += g.think_seconds[s]
                turns[names.index(spec)] += g.turns[s]
    for g in ok:
        d = d_index[g.deal]
        idx = [names.index(spec) for spec in g.lineup]
        for s, (sh, m) in enumerate(zip(win_shares(g.scores), margins(g.scores), strict=True)):
            share[d, idx[s]] += sh
            seats[d, idx[s]] += 1
            margin[d, idx[s]] += m
        for s in range(players):
            for t in range(players):
                if idx[s] != idx[t]:
                    pn[d, idx[s], idx[t]] += 1
                    pw[d, idx[s], idx[t]] += (1.0 if g.scores[s] > g.scores[t] else
                                              0.5 if g.scores[s] == g.scores[t] else 0.0)

    def rates(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        held = c @ seats
        with np.errstate(invalid="ignore", divide="ignore"):
            return (c @ share) / held, (c @ margin) / held

    ones = np.ones(nd)
    win, mar = rates(ones)
    strength, se = fit_bradley_terry(np.tensordot(ones, pw, 1), np.tensordot(ones, pn, 1), a)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(nd, np.full(nd, 1 / nd), size=bootstrap) if nd else np.zeros((0, 0))
    b_win = np.empty((bootstrap, k))
    b_mar = np.empty((bootstrap, k))
    b_elo = np.empty((bootstrap, k))
    for i, c in enumerate(counts):
        b_win[i], b_mar[i] = rates(c.astype(float))
        b_elo[i] = fit_bradley_terry(np.tensordot(c, pw, 1), np.tensordot(c, pn, 1), a)[0]
    stats = []
    for i, name in enumerate(names):
        held = float(seats[:, i].sum())
        if held == 0 or bootstrap == 0:
            wlo, whi = wilson(float(share[:, i].sum()), held)
            mlo = mhi = float("nan")
            elo_lo = elo_hi = float("nan")
        else:
            ok_b = ~np.isnan(b_win[:, i])
            wl, wh = _percentile(b_win[ok_b, i])
            ml, mh = _percentile(b_mar[ok_b, i])
            el, eh = _percentile(b_elo[:, i])
            ww = wilson(float(share[:, i].sum()), held)
            wlo, whi = min(float(wl), ww[0]), max(float(wh), ww[1])
            mlo, mhi = float(ml), float(mh)
            elo_lo = min(float(el), strength[i] - Z95 * se[i]) * ELO_PER_NAT
            elo_hi = max(float(eh), strength[i] + Z95 * se[i]) * ELO_PER_NAT
        stats.append(BotStats(
            name, int(held), float(win[i]) if held else float("nan"), (wlo, whi),
            float(mar[i]) if held else float("nan"), (mlo, mhi),
            # no counted game, no rating (the fit leaves such a bot at 0, the anchor's
            # value): None in summary.json, "—" in the table
            float(strength[i] * ELO_PER_NAT) if held else float("nan"), (elo_lo, elo_hi),
            float(think[i] / turns[i]) if turns[i] else 0.0))
    return Summary(stats, players, len(ok), nd, failed, anchor, results=results)


def sign_test(results: Iterable[GameResult], better: str, worse: str) -> dict:
    """Paired test over deals that ``better`` beats ``worse``: per deal, the bot with the
    larger mean win share per seat (over all its seats and seatings; with as many seats
    each, the larger total) wins the deal; equal deals are dropped, as are deals where one
    of them did not sit, and a bot that sat nowhere is an error (a misspelt spec).
    ``p_value``: one-sided exact binomial P(at least this many deal wins | both equal)."""
    if better == worse:
        raise TournamentError(f"sign test: compare two different bots, got {better!r} twice")
    side = {better: 0, worse: 1}
    totals: dict[int, list[list[int]]] = {}  # deal -> per side [twelfths won, seats]
    for g in results:
        if g.error is not None:
            continue
        t = totals.setdefault(g.deal, [[0, 0], [0, 0]])
        for spec, share in zip(g.lineup, win_shares(g.scores), strict=True):
            i = side.get(spec)
            if i is not None:  # (a share is 1/k of k <= 4 tied winners: whole twelfths)
                t[i][0] += round(12 * share)
                t[i][1] += 1
    for bot, i in side.items():
        if totals and not any(t[i][1] for t in totals.values()):
            raise TournamentError(f"sign test: {bot!r} sat at no table of these games")
    means = [(won_a * seats_b, won_b * seats_a)
             for (won_a, seats_a), (won_b, seats_b) in totals.values() if seats_a and seats_b]
    wins = sum(1 for a, b in means if a > b)
    losses = sum(1 for a, b in means if a < b)
    n = wins + losses
    p = sum(math.comb(n, i) for i in range(wins, n + 1)) / 2**n if n else 1.0
    return {"deals": len(means), "wins": wins, "losses": losses,
            "ties": len(means) - n, "p_value": p}


# ------------------------------------------------------------------ running

class Progress:
    """A one-line progress bar on stderr (redrawn with \\r on a terminal; elsewhere a
    line every 10%, so CI logs stay short)."""

    def __init__(self, total: int, label: str = "games", stream=None, enabled: bool = True):
        self.total, self.label, self.done = total, label, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.monotonic()
        self._next_line = 0.1

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        if not self.enabled:
            return
        frac = self.done / self.total if self.total else 1.0
        if not self.tty and frac < self._next_line and self.done < self.total:
            return
        self._next_line = math.floor(frac * 10 + 1) / 10
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        bar = "#" * int(24 * frac)
        text = (f"{self.label} {self.done}/{self.total} [{bar:24}] {100 * frac:5.1f}% "
                f"{_clock(elapsed)} elapsed, {_clock(eta)} left {note}")
        self.stream.write(("\r" + text.ljust(100)) if self.tty else text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}"


def run_games(tasks: Sequence[GameTask], executor: Executor,
              on_result: Callable[[GameResult], None] | None = None) -> list[GameResult]:
    """Run every task on ``executor``; results in task order. A task that fails for a
    reason other than its bots (a worker died, the package is missing on a cluster
    worker) cancels the rest and raises TournamentError naming the game."""
    futures: dict[Future, GameTask] = {executor.submit(play_game, t): t for t in tasks}
    out: dict[tuple[int, int], GameResult] = {}
    try:
        for fut in as_completed(futures):
            task = futures[fut]
            try:
                result = fut.result()
            except Exception as err:
                raise TournamentError(f"{task.game_id}: the worker failed: "
                                      f"{type(err).__name__}: {err}") from err
            out[(task.deal, task.rotation)] = result
            if on_result is not None:
                on_result(result)
    finally:
        for fut in futures:
            fut.cancel()
    return [out[(t.deal, t.rotation)] for t in tasks]


def run_tournament(bots: Sequence[str], players: int = 2, games: int = 100, seed: int = 0,
                   cards: CardSet | None = None, executor: Executor | None = None,
                   workers: int | None = None, out: str | Path | None = None,
                   progress: bool = True, bootstrap: int = 1000,
                   code: bool = False) -> Summary:
    """Play a tournament and summarize it (see the module doc).

    ``executor``: any ``concurrent.futures.Executor`` (left open); default a
    ``ProcessPoolExecutor(workers)`` made and closed here. ``out``: directory for
    ``summary.json`` and ``records/`` (one GameRecord JSON per game), written as games end.
    """
    start = time.monotonic()
    tasks = schedule(bots, players, games, seed, cards, code)
    records_dir = None
    if out is not None:
        records_dir = Path(out) / "records"
        try:
            records_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:  # a file where the folder should be, no permission...
            raise TournamentError(f"--out {out}: cannot make the folder {records_dir} "
                                  f"({err.strerror})") from None
    bar = Progress(len(tasks), enabled=progress)

    def done(result: GameResult) -> None:
        if records_dir is not None:
            path = records_dir / f"game-d{result.deal:05d}-r{result.rotation}.json"
            path.write_text(json.dumps(result.record, indent=1) + "\n", encoding="utf-8")
        bar.update(note="(error)" if result.error else "")

    own = executor is None
    if own:
        executor = ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1)
    try:
        results = run_games(tasks, executor, done)
    finally:
        bar.close()
        if own:
            executor.shutdown(wait=True, cancel_futures=True)
    summary = summarize(results, bootstrap=bootstrap, seed=seed)
    summary.wall_seconds = time.monotonic() - start
    summary.config = {"bots": list(bots), "lineup": list(tasks[0].lineup),
                      "players": players, "games_asked": games, "seed": seed,
                      "card_set": (cards or load_card_set()).identity(),
                      "workers": workers, "executor": type(executor).__name__}
    if out is not None:
        (Path(out) / "summary.json").write_text(json.dumps(summary.to_json(), indent=1) + "\n",
                                                encoding="utf-8")
    return summary


def cluster_executor(address: str, timeout: float = 10.0):
    """(client, executor) for a running Dask scheduler at ``address``; close the client
    when done."""
    try:
        from distributed import Client
    except ImportError:
        raise TournamentError("--cluster needs Dask distributed: "
                              "pip install 'bigsur-solver[cluster]'") from None
    try:
        client = Client(address, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as err:
        raise TournamentError(f"--cluster: cannot reach a Dask scheduler at {address!r}: "
                              f"{err}") from None
    return client, client.get_executor()


# ------------------------------------------------------------------ command line



def check_iterations(bots: Sequence[str]) -> None:
    """TournamentError for a built-in bot of more iterations a turn than a search of the
    command line may run (``mcts:5000000i`` would not end); the other problems of a
    spec are run_tournament's to name."""
    from ..cli import check_search_iterations

    for spec in bots:
        try:
            check_search_iterations(spec, "--bots", allow_import=True)
        except SpecError as err:
            if err.kind == "limit":
                raise TournamentError(str(err)) from None


def cmd_tournament(args) -> int:
    """``bigsur tournament``: exit 0, 1 when some bot failed a game, 2 on bad input."""
    from ..cli import check_output
    from ..rules.cards import CardSetError

    client = None
    try:
        if args.workers is not None and (problem := workers_problem("--workers",
                                                                    args.workers)):
            raise TournamentError(problem)
        if args.players not in (2, 3, 4):  # schedule() would say "players", not the option
            raise TournamentError(f"--players: must be 2, 3 or 4{got(args.players)}")
        cards = load_card_set(args.cards) if args.cards is not None else None
        bots = [s.strip() for s in args.bots.split(",")]
        if not all(bots):
            raise TournamentError(f"--bots {args.bots!r}: an empty bot spec (two commas, or "
                                  "one at an end)")
        check_iterations(bots)
        if Path(args.out).is_dir():  # (else run_tournament makes it)
            check_output("--out", Path(args.out) / "summary.json", args.force)
        executor = None
        if args.cluster:
            client, executor = cluster_executor(args.cluster)
        summary = run_tournament(bots, args.players, args.games, args.seed, cards,
                                 executor=executor, workers=args.workers, out=args.out,
                                 progress=not args.quiet, code=True)
    except (TournamentError, OutputError) as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    except CardSetError as err:  # one line; `bigsur cards validate FILE` lists them all
        print(f"bigsur: error: {err.summary()}", file=sys.stderr)
        return 2
    finally:
        if client is not None:
            client.close()
    if args.json:
        print(json.dumps(summary.to_json(), indent=1))
    else:
        print(summary.table())
        print(f"records and summary.json written to {args.out}")
    return 1 if summary.failed else 0


class _DefaultsShown(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default in its help, except where there is none to show (None: the
    help says what happens then)."""

    def _get_help_string(self, action):
        return action.help if action.default is None else super()._get_help_string(action)


def add_cli(sub) -> None:
    """Register ``bigsur tournament`` on an argparse subparsers object."""
    from ..cli import MAX_SELFPLAY_GAMES, count_arg, seed_arg  # (one type a number)

    p = sub.add_parser(
        "tournament", help="play bots against each other (paired deals, Elo, intervals)",
        description="Play bots against each other on paired deals (seats rotated) and "
                    "print win rates, score margins and Elo with 95% intervals.",
        formatter_class=_DefaultsShown)
    p.add_argument("--bots", required=True,
                   help="comma-separated bot specs, one per seat or repeated to fill them: "
                        "random, greedy, mcts:<seconds>s, mcts:<iterations>i, the "
                        "baselines mcts-heuristic:<budget> and flat:<budget> (docs/ai.md), "
                        "or module:Class (your own bot, docs/tutorial.md)")
    p.add_argument("--players", type=int, default=2, help="seats in each game: 2, 3 or 4")
    p.add_argument("--games", type=count_arg("--games", MAX_SELFPLAY_GAMES), default=100,
                   help=f"games (rounded up to whole deals), at most {MAX_SELFPLAY_GAMES}")
    p.add_argument("--workers", type=int, default=None,
                   help=f"local worker processes, 1 to {MAX_WORKERS} (default: all cores)")
    p.add_argument("--seed", type=seed_arg, default=0,
                   help="deal k uses seed S+k (S and the last deal's 0 to 2**63 - 1)")
    p.add_argument("--out", default="tournament-results",
                   help="directory for summary.json and records/")
    p.add_argument("--force", action="store_true",
                   help="write over an earlier run's summary.json and records in --out")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (needs [cluster])")
    p.add_argument("--cards", help="card-set file (default: the shipped reconstruction)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_tournament)
