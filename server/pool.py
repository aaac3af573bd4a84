"""Search off the event loop: stoppable workers (:mod:`server.workers`), or a Dask
cluster (:mod:`server.cluster`), behind a fair scheduler (:mod:`server.scheduler`).

Hints and payments wait in a bounded queue for at most ``BIGSUR_QUEUE_WAIT_SECONDS``
(then 503 with Retry-After). AI turns (interactive) and analysis decisions (batch, on at
most ``BIGSUR_BATCH_WORKERS`` workers) wait as long as it takes: their number is bounded
by the games and jobs that exist. The worker functions here are plain module functions taking
and returning JSON-like data, so they pickle; every named user error raised in a worker
comes back as :class:`~server.errors.WorkerError` (named errors with custom constructors do
not survive pickling, and an unpicklable exception would break the pool).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import traceback
from collections.abc import Callable
from typing import Any

from solver.rules.actions import parse_action
from solver.rules.cards import CardSet
from solver.rules.position import PositionError, resolve_cards, state_from_json
from solver.rules.state import GameState, Phase
from solver.rules.views import PlayerView, view_from_json
from solver.rules.wording import got, got_type
from solver.search.determinize import InconsistentViewError

from .cluster import DaskWorkers
from .errors import ApiError, WorkerError, describe, in_position
from .scheduler import Priority, Scheduler
from .workers import DeadlineExceeded, ProcessWorkers, ThreadWorkers, WorkerDied

STATE_FORMAT = "bigsur-position/1"
VIEW_FORMAT = "bigsur-view/1"


# ------------------------------------------------------------------ positions

_CARD_CACHE: dict[str, CardSet] = {}


def cards_of(raw: Any) -> CardSet:
    """The card set a position names ("default" or inline), parsed once per process."""
    key = raw if isinstance(raw, str) or raw is None else json.dumps(raw, sort_keys=True)
    cards = _CARD_CACHE.get(key)  # (read once: another thread may clear the cache)
    if cards is None:
        if len(_CARD_CACHE) > 32:
            _CARD_CACHE.clear()
        # checked as a --cards file, whoever sent it (the registry's own sets are full)
        cards = _CARD_CACHE[key] = resolve_cards(raw)
    return cards


async def read_position(raw: Any, card_sets) -> GameState | PlayerView:
    """:func:`parse_position` of a posted position, its set named (``card_sets``: the
    server's :class:`~server.cardsets.CardSets`) or inline. A refusal names its field
    inside the request body (:func:`~server.errors.in_position`: ``position.cards`` for a
    set the server does not know). An inline set is parsed off the event loop: a body of
    a few hundred kilobytes of cards takes half a second, which would hold every other
    request meanwhile."""
    try:
        named = await card_sets.for_position(raw.get("cards") if isinstance(raw, dict)
                                             else None)
        if isinstance(raw, dict) and isinstance(raw.get("cards"), dict):
            return await asyncio.to_thread(parse_position, raw, named)
        return parse_position(raw, named)
    except (PositionError, InconsistentViewError) as err:
        raise in_position(err) from None


def parse_position(raw: Any, cards: CardSet | None = None) -> GameState | PlayerView:
    """A full state (``bigsur-position/1``) or one seat's view (``bigsur-view/1``), checked
    by the engine. Malformed shapes the engine's readers do not anticipate (a number where
    a list belongs...) become a PositionError too, never a 500."""
    if not isinstance(raw, dict):
        raise PositionError("position", f"must be an object{got_type(raw)}")
    fmt = raw.get("format")
    try:
        if cards is None:
            cards = cards_of(raw.get("cards"))
        if fmt == STATE_FORMAT:
            return state_from_json(raw, cards)
        if fmt == VIEW_FORMAT:
            view = view_from_json(raw, cards)
            _check_view(view)
            return view
    except (TypeError, AttributeError, KeyError, IndexError) as err:
        raise PositionError("position", f"malformed ({type(err).__name__}: {err})") from None
    raise PositionError("format", f"must be {STATE_FORMAT!r} (a full state) or "
                        f"{VIEW_FORMAT!r} (one seat's view){got(fmt)}")


def _check_view(view: PlayerView) -> None:
    """The check view_from_json leaves to the determinizer but every reader needs up
    front: a view no full state matches is refused here, for scores as for hints."""
    from solver.search.determinize import Determinizer

    Determinizer(view)  # InconsistentViewError naming what no deal can match


def position_kind(position: GameState | PlayerView) -> str:
    return "state" if isinstance(position, GameState) else "view"


# ------------------------------------------------------------------ worker functions

def _as_worker_error(err: Exception) -> Exception:
    """Named user errors -> WorkerError (picklable); anything else -> RuntimeError text."""
    if isinstance(err, WorkerError):
        return err
    status, body, _headers = describe(err)
    if status < 500:
        return WorkerError(body["error"], body["field"], body["reason"])
    return RuntimeError(f"{type(err).__name__}: {err}\n{traceback.format_exc()}")


def _search_budget(budget: dict):
    from solver.search.api import Budget

    if budget.get("iterations") is not None:
        return Budget(iterations=int(budget["iterations"]))
    return Budget(seconds=float(budget["ms"]) / 1000.0)


def _default_analyse():
    from solver.search.api import analyse

    return analyse


def hint_task(position: dict, budget: dict, seed: int | None,
              search_fn: Callable | None = None) -> dict:
    """Worker: the ranked moves of the player to act (SearchResult JSON)."""
    try:
        parsed = parse_position(position)
        search = search_fn or _default_analyse()
        started = time.perf_counter()
        if search_fn is None:
            result = search(parsed, _search_budget(budget), seed=seed)
        else:
            result = search(parsed, budget, seed=seed)
        out = result if isinstance(result, dict) else result.to_json()
        out = dict(out)
        out["elapsed_ms"] = round((time.perf_counter() - started) * 1000, 1)
        return out
    except Exception as err:  # noqa: BLE001 - converted so that it pickles
        raise _as_worker_error(err) from None


MAX_TURN_ACTIONS = 200  # a bot that never ends its turn is stopped here


def bot_turn_task(spec: str, state: dict, game_seed: int, n_actions: int) -> dict:
    """Worker: the whole turn of the AI seat to act, one ``bot.act`` per decision (one
    bot object per turn, so a bot that plans its build step once keeps its plan).

    The full state stays in the worker to apply each action; the bot sees only its view.
    Decision ``k`` of the game gets seed ``bot_seed(game_seed, seat, turn, k)``. A bot
    action the rules refuse is replaced by a seeded random legal action and reported.
    Returns ``{"actions": [...], "errors": [...]}``."""
    try:
        import random

        from solver.rules.engine import legal_actions, play
        from solver.rules.views import view_of
        from solver.search.bots import make_bot
        from solver.search.tournament import bot_seed

        current = parse_position(state)
        seat = current.current
        bot = make_bot(spec)
        actions: list[str] = []
        errors: list[str] = []
        while current.phase != Phase.OVER and current.current == seat:
            seed = bot_seed(game_seed, seat, current.turn, n_actions + len(actions))
            try:
                action = bot.act(view_of(current, seat), seed)
                after = play(current, action)
            except ValueError as err:
                errors.append(f"{spec} at action {n_actions + len(actions)}: {err}")
                action = random.Random(seed).choice(legal_actions(current))
                after = play(current, action)
            if len(actions) >= MAX_TURN_ACTIONS and current.phase == Phase.BUILD:
                errors.append(f"{spec}: turn longer than {MAX_TURN_ACTIONS} actions; ended")
                action = parse_action("end")
                after = play(current, action)
            actions.append(action.notation())
            current = after
        return {"actions": actions, "errors": errors}
    except Exception as err:  # noqa: BLE001
        raise _as_worker_error(err) from None


def review_task(view: dict, played: str, after_view: dict | None, terminal: dict | None,
                budget: dict, seed: int, search_fn: Callable | None = None) -> dict:
    """Worker: one decision of a post-game review (see solver.analysis.review_decision)."""
    try:
        from solver.analysis import review_decision

        search = search_fn or _default_analyse()
        b = budget if search_fn is not None else _search_budget(budget)
        return review_decision(parse_position(view), played,
                               parse_position(after_view) if after_view else None,
                               terminal, b, seed, search=search).to_json()
    except Exception as err:  # noqa: BLE001
        raise _as_worker_error(err) from None


def payment_task(position: dict, builds: list[list[str]], viewer: int | None = None) -> dict:
    """Worker: the cheapest joint payment of ``builds`` ([card, side] pairs) by CP-SAT;
    ``{"feasible": false, "reason", "short"}`` when they cannot all be paid. ``viewer``:
    ``position`` is a sample behind that seat's view (see ``explain_payments``)."""
    try:
        from solver.payment_ilp import cheapest_joint
        from solver.rules.payment import PaymentInfeasible

        state = parse_position(position)
        try:
            plan = cheapest_joint(state, [(card, side) for card, side in builds])
        except PaymentInfeasible as err:
            return {"feasible": False, "reason": str(err), "short": list(err.short)}
        return {"feasible": True, **plan.to_json(state, viewer)}
    except Exception as err:  # noqa: BLE001
        raise _as_worker_error(err) from None


def warm_task() -> int:
    """Worker: import what search needs, so the first real request is not slow."""
    from solver.rules.cards import load_card_set

    load_card_set()
    try:
        import solver.search.api  # noqa: F401
    except ImportError:
        pass
    return os.getpid()


# ------------------------------------------------------------------ the service

class SearchService:
    """Runs search work on ``workers`` stoppable workers (processes by default, threads
    for tests or tiny deployments), or on a Dask cluster (``cluster``: its address;
    ``cluster_slots`` searches at once, else its thread count, see
    :mod:`server.cluster`), behind the :class:`~server.scheduler.Scheduler`.
    ``search_fn`` replaces ``solver.search.api.analyse`` (tests of the HTTP layer only;
    with processes it must be a picklable module function).

    Every task has a wall-clock deadline whatever its budget: a time budget plus
    ``grace``; an iteration budget (or a payment, or a greedy AI turn) the time cap
    ``max_budget_ms`` plus ``grace``. A task past it is stopped (503 ``deadline``)."""

    def __init__(self, workers: int, pool: str = "process", retry_after: int = 1,
                 search_fn: Callable | None = None, *, queue_wait: float = 2.0,
                 queue_size: int = 64, batch_slots: int | None = None,
                 client_running: int | None = None, client_queued: int = 8,
                 max_budget_ms: int = 10_000, grace: float = 2.0,
                 cluster: str | None = None, cluster_slots: int | None = None):
        if cluster is not None:
            self.runner = DaskWorkers(cluster, cluster_slots)
            workers = cluster_slots or workers  # until the cluster is counted (warm)
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.pool = pool
        self.retry_after = retry_after
        self.search_fn = search_fn
        self.queue_wait = queue_wait
        self.max_budget_ms = max_budget_ms
        self.grace = grace
        self.scheduler = Scheduler(workers, batch_slots, queue_size, client_running,
                                   client_queued, min_retry_after=retry_after)
        if cluster is None:
            self.runner = ThreadWorkers(workers) if pool == "thread" \
                else ProcessWorkers(workers)
        self.completed = 0
        self.failed = 0
        self.deadlines = 0
        self.cancelled = 0
        self.seconds = 0.0

    @classmethod
    def from_settings(cls, settings, search_fn: Callable | None = None) -> SearchService:
        return cls(settings.workers, settings.pool, settings.retry_after, search_fn,
                   queue_wait=settings.queue_wait_seconds, queue_size=settings.queue_size,
                   batch_slots=settings.batch_workers, client_running=settings.client_running,
                   client_queued=settings.client_queued, max_budget_ms=settings.max_budget_ms,
                   grace=settings.deadline_grace_ms / 1000, cluster=settings.cluster,
                   cluster_slots=settings.cluster_slots)

    @property
    def rejected(self) -> int:
        return self.scheduler.rejected

    async def warm(self) -> None:
        """Start every worker now (imports, card set) rather than on the first request."""
        await self.runner.start()
        if self.runner.kind == "dask" and self.runner.n != self.workers:
            self.workers = self.runner.n  # the cluster's threads (BIGSUR_CLUSTER_SLOTS unset)
            self.scheduler.resize(self.workers)
        if self.runner.kind == "process":
            await asyncio.gather(*(self._run(warm_task, (), Priority.INTERACTIVE, "warm",
                                             None, 60, "warm-up")
                                   for _ in range(self.workers)))

    def close(self) -> None:
        """Stop every worker; searches in progress end (their requests get 503)."""
        self.runner.close()

    def deadline(self, budget: dict | None, factor: float = 1.0, searches: int = 1) -> float:
        """Wall-clock seconds a task of ``searches`` searches of ``factor`` budgets in all
        may run: each search has its set-up (the grace) beside its budget."""
        ms = budget["ms"] if budget and budget.get("ms") is not None else self.max_budget_ms
        return factor * ms / 1000 + searches * self.grace

    # running ------------------------------------------------------------
    async def _run(self, fn: Callable, args: tuple, priority: Priority, client: str,
                   wait: float | None, deadline: float, what: str,
                   limit: int | None = None) -> Any:
        """Take a slot (see the scheduler), run, give the slot back. Cancelling the
        caller (client gone, job cancelled, game deleted) stops the worker."""
        ticket = await self.scheduler.acquire(priority, client, wait, what, limit)
        loop = asyncio.get_running_loop()
        lingering = False

        def linger(cf) -> None:  # thread workers: the slot is freed when the thread ends
            nonlocal lingering
            lingering = True
            def done(_f) -> None:
                try:
                    loop.call_soon_threadsafe(self.scheduler.release, ticket)
                except RuntimeError:  # the loop is closed: nothing left to release
                    pass

            cf.add_done_callback(done)

        started = time.perf_counter()
        try:
            return await self.runner.run(fn, args, deadline, linger)
        except DeadlineExceeded:
            self.deadlines += 1
            raise ApiError(503, "budget", f"{what} did not finish within its deadline of "
                           f"{deadline:g} s (its budget and BIGSUR_DEADLINE_GRACE_MS a search; "
                           "iteration budgets: BIGSUR_MAX_BUDGET_MS); its answer is no longer "
                           "awaited (a process worker is stopped, a thread or cluster task runs "
                           "out its budget); ask for a smaller budget", "deadline",
                           {"Retry-After": str(self.scheduler.retry_after(priority))}) from None
        except WorkerDied:
            self.failed += 1
            raise ApiError(503, None, "a search worker died; it was replaced, retry", "busy",
                           {"Retry-After": str(self.scheduler.retry_after(priority))}) from None
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.completed += 1
            self.seconds += time.perf_counter() - started
            if not lingering:
                self.scheduler.release(ticket)

    async def hint(self, position: dict, budget: dict, seed: int | None,
                   client: str = "anonymous") -> dict:
        """Ranked moves for the position's player to act (interactive priority)."""
        return await self._run(hint_task, (position, budget, seed, self.search_fn),
                               Priority.INTERACTIVE, client, self.queue_wait,
                               self.deadline(budget), "the hint")

    async def payment(self, position: dict, builds: list[list[str]],
                      client: str = "anonymous", viewer: int | None = None) -> dict:
        """The cheapest joint payment (interactive priority)."""
        return await self._run(payment_task, (position, builds, viewer), Priority.INTERACTIVE,
                               client, self.queue_wait, self.deadline(None), "the payment")

    async def bot_turn(self, spec: str, state: dict, game_seed: int, n_actions: int,
                       client: str = "ai") -> dict:
        """An AI seat's whole turn (see :func:`bot_turn_task`); interactive priority,
        waits for a slot as long as it takes. ``client`` is the games' creator: the AI
        turns of one creator's games run one at a time, so that a client with many
        games against a slow AI cannot hold every worker."""
        budget = None
        try:
            from solver.search.specs import parse_bot_spec

            b = parse_bot_spec(spec).budget
            if b is not None and b.seconds is not None:
                budget = {"ms": b.seconds * 1000}
        except ValueError:
            pass
        return await self._run(bot_turn_task, (spec, state, game_seed, n_actions),
                               Priority.INTERACTIVE, client, None, self.deadline(budget),
                               "the AI turn", limit=1)

    async def review(self, view: dict, played: str, after_view: dict | None,
                     terminal: dict | None, budget: dict, seed: int,
                     client: str = "analysis") -> dict:
        """One reviewed decision of an analysis job (batch priority; up to three searches
        of six budgets in all, solver.analysis.REVIEW_SEARCHES and REVIEW_BUDGETS: the
        position, the move played, a labelled loss again with a larger budget)."""
        from solver.analysis import REVIEW_BUDGETS, REVIEW_SEARCHES

        return await self._run(review_task, (view, played, after_view, terminal, budget,
                                             seed, self.search_fn),
                               Priority.BATCH, client, None,
                               self.deadline(budget, REVIEW_BUDGETS, REVIEW_SEARCHES),
                               "the review")
