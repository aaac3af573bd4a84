"""Analysis jobs: a POST returns a job id at once; the review runs decision by decision in
the search pool (batch priority: hints and AI turns go first, and analysis uses at most
``BIGSUR_BATCH_WORKERS`` workers) and ``GET /v1/analyze/{id}`` reports progress and, at
the end, the result.

Jobs live in the database (the ``jobs`` and ``job_reviews`` tables of
:mod:`server.store`): every reviewed decision is committed as it completes, so a restart
resumes a job where it was. A job runs in the server process that holds its lease
(``BIGSUR_JOB_LEASE_SECONDS``, renewed every third of it while the job runs); when that
process dies, another one sharing the database takes the job over once the lease has run
out (SQLite has one server process: it takes every job over at start-up). Only the leases
of jobs whose task is alive here are renewed: a task that ended without finishing its job
(the database, or the search cluster, went away under it) leaves the job active, and this
process resumes it at the next renewal once the database answers (another process may
take it over first, once its lease runs out). A job cancelled through another process
stops here at the next renewal. At most
``BIGSUR_MAX_JOBS`` are queued or running at once (503 beyond), at most
``BIGSUR_MAX_JOBS_PER_CLIENT`` per client (429 beyond); finished jobs are deleted
``BIGSUR_JOB_TTL_SECONDS`` after they end. ``DELETE /v1/analyze/{id}`` cancels a job
(stopping the worker reviewing its current decision).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time
from typing import TYPE_CHECKING, Any

from solver.analysis import (
    DecisionPoint,
    DecisionReview,
    decision_points,
    decision_seed,
    forced_review,
    summarise,
)
from solver.rules.record import GameRecord
from solver.rules.views import view_to_json

from .cluster import ClusterUnavailable
from .errors import ApiError, describe
from .scheduler import cancel_and_wait
from .sessions import plausible_id, position_after
from .store import LimitReached, StoreUnavailable

if TYPE_CHECKING:
    from .pool import SearchService
    from .settings import Settings
    from .store import Store

log = logging.getLogger("bigsur.server")
# a decision whose search failed for these (a loaded machine, a worker replaced) is
# searched once more before its job fails: one slow decision lost a 73-decision review
RETRIED = frozenset({"deadline", "busy"})
ACTIVE = ("queued", "running")
# what ends a job's task without ending the job: it is resumed once they are over
OUTAGES = (StoreUnavailable, ClusterUnavailable)


class JobService:
    def __init__(self, settings: Settings, store: Store):
        self.settings = settings
        self.store = store
        self.tasks: dict[str, asyncio.Task] = {}
        self._cancelled: set[str] = set()
        self.lease = settings.job_lease_seconds
        # who holds a lease: readable in the database, unique per start
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._keeper: asyncio.Task | None = None

    async def active(self) -> int:
        return await self.store.in_thread(self.store.active_jobs)

    async def prune(self) -> int:
        return await self.store.in_thread(self.store.purge_jobs,
                                          time.time() - self.settings.job_ttl_seconds)

    async def submit(self, record: GameRecord, budget: dict[str, Any], seed: int,
                     seats: list[int] | None, client: str, search: SearchService,
                     game_id: str | None = None, reuse: bool = False) -> dict[str, Any]:
        """Check the record and queue its review (409-free: a new id every time).
        ``game_id``: the hosted game it reviews, found again by :meth:`of_game` from any
        process sharing the database, after a restart too; with ``reuse``, the game's
        review of the same budget, seed and seats, unless failed or cancelled, is
        returned instead of a new one (looked up as the job is stored, in one
        transaction: two requests at once, on any processes, start one review)."""
        await self.prune()
        points = decision_points(record, seats, self.settings.analysis_max_decisions)
        searched = sum(1 for p in points if p.legal > 1)
        if budget.get("ms") is not None and \
                searched * budget["ms"] / 1000 > self.settings.max_job_seconds:
            raise ApiError(422, "budget.ms", f"{searched} decisions to search x {budget['ms']} "
                           f"ms = {searched * budget['ms'] / 1000:g} s exceeds the limit of "
                           f"{self.settings.max_job_seconds:g} s per job "
                           "(BIGSUR_MAX_JOB_SECONDS); use a smaller budget or review fewer "
                           "seats", "limit")
        job_id = secrets.token_urlsafe(12)
        try:
            stored = await self.store.in_thread(
                self.store.create_job, job_id, client, len(points), budget, seed, seats,
                record.to_json(), self.settings.max_jobs, self.settings.max_jobs_per_client,
                self.owner, self.lease, game_id, reuse)
        except LimitReached as err:
            after = str(max(self.settings.retry_after, search.scheduler.retry_after(1) * 10))
            if err.what == "client":
                raise ApiError(429, None, f"this client already has {err.limit} analysis "
                               "jobs queued or running (BIGSUR_MAX_JOBS_PER_CLIENT); wait for "
                               "one to finish or cancel it", "too_many",
                               {"Retry-After": after}) from None
            raise ApiError(503, None, f"{err.limit} analysis jobs are queued or running "
                           "(BIGSUR_MAX_JOBS); retry later", "busy",
                           {"Retry-After": after}) from None
        if stored != job_id:  # the game's review already stored: it runs where it is
            return await self.get(stored)
        self._start(job_id, record, points, budget, seed, client, search)
        return await self.get(job_id)

    async def of_game(self, game_id: str) -> list[str]:
        """The stored review jobs of a hosted game, oldest first."""
        return await self.store.in_thread(self.store.jobs_of_game, game_id)

    def _start(self, job_id: str, record: GameRecord, points: list[DecisionPoint],
               budget: dict[str, Any], seed: int, client: str, search: SearchService) -> None:
        """Run the job here (once: a job whose task is alive is not started again)."""
        if job_id in self.tasks:
            return
        task = asyncio.get_running_loop().create_task(
            self._run(job_id, record, points, budget, seed, client, search))
        self.tasks[job_id] = task
        task.add_done_callback(
            lambda t: self.tasks.pop(job_id) if self.tasks.get(job_id) is t else None)

    async def stored(self, job_id: str) -> dict[str, Any] | None:
        """The job as stored (its client, seats and owner too), or None."""
        return await self.store.in_thread(self.store.job, job_id) if plausible_id(job_id) \
            else None

    async def get(self, job_id: str) -> dict[str, Any]:
        await self.prune()
        job = await self.stored(job_id)
        if job is None:
            raise ApiError(404, "job_id", f"no analysis job {job_id!r} (finished jobs are "
                           f"kept {self.settings.job_ttl_seconds:g} s)", "not_found")
        for private in ("client", "finished", "seats", "owner"):
            job.pop(private, None)
        return job

    async def cancel(self, job_id: str) -> dict[str, Any]:
        """Cancel a queued or running job (its current search is stopped); a finished
        job is returned as it is."""
        await self.get(job_id)
        self._cancelled.add(job_id)
        reason = "cancelled by DELETE /v1/analyze/{id}"
        await self.store.in_thread(self.store.cancel_job, job_id, {
            "error": "cancelled", "field": None, "reason": reason, "message": reason})
        await cancel_and_wait(self.tasks.get(job_id))
        return await self.get(job_id)

    async def _record(self, job_id: str, cards) -> GameRecord:
        raw = await self.store.in_thread(self.store.job_record, job_id)
        return GameRecord.from_json(raw, await cards.for_position(raw.get("cards")))

    async def position(self, job_id: str, n: int, cards) -> dict[str, Any]:
        """The full position after the first ``n`` actions of the job's record (for
        stepping through its review; the record already holds every card)."""
        await self.get(job_id)  # 404 when unknown or expired
        return position_after(await self._record(job_id, cards), n)

    async def resume(self, search: SearchService, cards) -> int:
        """At start-up: take over the jobs nobody runs (SQLite: every active job, as this
        is the only process), then keep the leases (see :meth:`keep_leases`)."""
        await self.prune()
        started = await self.take_over(search, cards, everything=self.store.exclusive)
        self._keeper = asyncio.get_running_loop().create_task(self.keep_leases(search, cards))
        return started

    async def take_over(self, search: SearchService, cards, everything: bool = False) -> int:
        """Claim and start the active jobs without a live lease, and ours whose task
        ended here without finishing them (``everything``: all active jobs)."""
        started = 0
        for job_id in await self.store.in_thread(self.store.claimable_jobs, self.owner,
                                              everything):
            if job_id in self.tasks or not await self.store.in_thread(
                    self.store.claim_job, job_id, self.owner, self.lease, everything):
                continue  # another process was first
            job = await self.stored(job_id)
            if job is None or job_id in self.tasks:  # (started here while we asked)
                continue
            try:
                record = await self._record(job_id, cards)
                points = decision_points(record, job["seats"],
                                         self.settings.analysis_max_decisions)
            except OUTAGES:
                raise  # the job is not at fault: resumed at a later round
            except Exception as err:  # noqa: BLE001 - one bad job must not stop the server
                _status, body, _ = describe(err)
                await self.store.in_thread(self.store.finish_job, job_id, "failed", None, body,
                                        self.owner)
                continue
            if job_id in self.tasks:  # (started here while we read it)
                continue
            log.info("analysis job %s: %s", job_id, "resumed" if job["owner"] == self.owner
                     else f"taken over (was {job['owner']})")
            self._start(job_id, record, points, job["budget"], job["seed"], job["client"],
                        search)
            started += 1
        return started

    async def keep_leases(self, search: SearchService, cards) -> None:
        """Every third of the lease: renew the leases of the jobs running here, stop those
        we no longer hold (cancelled or taken over elsewhere), and start those whose lease
        ran out or whose task here ended without finishing them (an outage)."""
        while True:
            await asyncio.sleep(self.lease / 3)
            try:
                running = list(self.tasks)
                held = await self.store.in_thread(self.store.renew_leases, self.owner,
                                                  self.lease, running)
                for job_id in running:
                    task = self.tasks.get(job_id)
                    if task is not None and job_id not in held:
                        task.cancel()
                await self.take_over(search, cards)
            except OUTAGES as err:  # expected: the next round tries again
                log.warning("analysis job leases: not renewed (%s)", err)
            except Exception:  # noqa: BLE001 - the database may be back at the next round
                log.exception("analysis job leases: renewal failed")

    async def _review(self, point: DecisionPoint, budget: dict[str, Any], seed: int,
                      client: str, search: SearchService) -> DecisionReview:
        if point.legal <= 1:
            return forced_review(point)
        after = point.after_view
        args = (view_to_json(point.view), point.action.notation(),
                view_to_json(after) if after is not None else None, point.terminal, budget,
                decision_seed(seed, point.index), client)
        try:
            raw = await search.review(*args)
        except ApiError as err:  # one decision past its deadline, or its worker died
            if err.kind not in RETRIED:
                raise
            log.warning("analysis decision %d searched again: %s", point.index, err.reason)
            if err.kind == "busy":  # (a full queue, or a worker being replaced: not at once)
                await asyncio.sleep(float((err.headers or {}).get("Retry-After", 1)))
            raw = await search.review(*args)  # (same seed: the same answer when in time)
        return point.placed(DecisionReview.from_json(raw))

    async def _run(self, job_id: str, record: GameRecord, points: list[DecisionPoint],
                   budget: dict[str, Any], seed: int, client: str,
                   search: SearchService) -> None:
        try:
            saved = await self.store.in_thread(self.store.job_reviews, job_id)
            reviews = []
            for k, point in enumerate(points):
                if k in saved:
                    reviews.append(DecisionReview.from_json(saved[k]))
                    continue
                review = await self._review(point, budget, seed, client, search)
                reviews.append(review)
                if not await self.store.in_thread(self.store.save_review, job_id, k,
                                               review.to_json(), k + 1, self.owner):
                    return  # cancelled, or taken over by another process: not ours now
            final = record.replay() if record.actions else None
            result = summarise(record, reviews, budget, seed, final).to_json()
            await self.store.in_thread(self.store.finish_job, job_id, "done", result, None,
                                    self.owner)
        except asyncio.CancelledError:
            # DELETE: already marked cancelled; shutdown: stays active, resumed at start
            raise
        except OUTAGES as err:
            # not the job's fault: it stays active (its lease no longer renewed) and is
            # resumed at its first decision not stored once the database (or the search
            # cluster) is back
            log.warning("analysis job %s paused: %s", job_id, err)
        except Exception as err:  # noqa: BLE001 - reported in the job, logged if a bug
            status, body, _ = describe(err)
            if status >= 500:
                log.exception("analysis job %s failed", job_id)
            try:
                await self.store.in_thread(self.store.finish_job, job_id, "failed", None,
                                           body, self.owner)
            except OUTAGES as outage:  # recorded when resumed (and failing again)
                log.warning("analysis job %s: its failure not recorded: %s", job_id, outage)

    async def close(self) -> None:
        """Stop the jobs running here and give up their leases (another process sharing
        the database resumes them at once; SQLite: the next start)."""
        await cancel_and_wait(self._keeper)
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except BaseException:  # noqa: BLE001
                pass
        try:
            await self.store.in_thread(self.store.release_jobs, self.owner)
        except Exception:  # noqa: BLE001 - the leases then simply run out
            log.exception("analysis job leases: release failed")
