"""Analysis jobs: a POST returns a job id at once; the review runs decision by decision
in the search pool (one slot at a time, so hints keep the other slots) and
``GET /v1/analyze/{id}`` reports progress and, at the end, the result.

Jobs live in memory: a restart forgets them (the client posts the record again). At most
``BIGSUR_MAX_JOBS`` run or wait at once (503 beyond); finished jobs are kept for
``BIGSUR_JOB_TTL_SECONDS``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass, field
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

from .errors import ApiError, Saturated, describe

if TYPE_CHECKING:
    from .app import Settings
    from .pool import SearchService

log = logging.getLogger("bigsur.server")


@dataclass
class Job:
    id: str
    total: int
    budget: dict[str, Any]
    seed: int
    status: str = "queued"  # queued | running | done | failed
    done: int = 0
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    created: float = field(default_factory=time.time)
    finished: float | None = None
    task: asyncio.Task | None = None

    def to_json(self) -> dict[str, Any]:
        return {"job_id": self.id, "status": self.status,
                "progress": {"done": self.done, "total": self.total},
                "budget": self.budget, "seed": self.seed,
                "result": self.result, "error": self.error}


class JobService:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.jobs: dict[str, Job] = {}

    def active(self) -> int:
        return sum(1 for j in self.jobs.values() if j.status in ("queued", "running"))

    def prune(self) -> None:
        now = time.time()
        for job_id in [j.id for j in self.jobs.values() if j.finished is not None
                       and now - j.finished > self.settings.job_ttl_seconds]:
            del self.jobs[job_id]

    def submit(self, record: GameRecord, budget: dict[str, Any], seed: int,
               seats: list[int] | None, search: SearchService) -> Job:
        self.prune()
        if self.active() >= self.settings.max_jobs:
            search.rejected += 1
            raise Saturated("the analysis", search.retry_after * 10)
        points = decision_points(record, seats, self.settings.analysis_max_decisions)
        job = Job(secrets.token_urlsafe(12), len(points), budget, seed)
        self.jobs[job.id] = job
        job.task = asyncio.get_running_loop().create_task(
            self._run(job, record, points, search))
        return job

    def get(self, job_id: str) -> Job:
        self.prune()
        job = self.jobs.get(job_id)
        if job is None:
            raise ApiError(404, "job_id", f"no analysis job {job_id!r} (jobs are kept "
                           f"{self.settings.job_ttl_seconds:g} s after they finish, and "
                           "not across restarts)", "not_found")
        return job

    async def _review(self, point: DecisionPoint, job: Job,
                      search: SearchService) -> DecisionReview:
        if point.legal <= 1:
            return forced_review(point)
        after = point.after_view
        raw = await search.review(view_to_json(point.view), point.action.notation(),
                                  view_to_json(after) if after is not None else None,
                                  point.terminal, job.budget,
                                  decision_seed(job.seed, point.index))
        review = DecisionReview.from_json(raw)
        review.index = point.index
        review.legal = point.legal
        return review

    async def _run(self, job: Job, record: GameRecord, points: list[DecisionPoint],
                   search: SearchService) -> None:
        job.status = "running"
        try:
            reviews = []
            for point in points:
                reviews.append(await self._review(point, job, search))
                job.done += 1
            final = record.replay() if record.actions else None
            job.result = summarise(record, reviews, job.budget, job.seed, final).to_json()
            job.status = "done"
        except asyncio.CancelledError:
            job.status = "failed"
            job.error = {"error": "cancelled", "field": None, "reason": "server shut down",
                         "message": "server shut down"}
            raise
        except Exception as err:  # noqa: BLE001 - reported in the job, logged if a bug
            status, body, _ = describe(err)
            if status >= 500:
                log.exception("analysis job %s failed", job.id)
            job.status = "failed"
            job.error = body
        finally:
            job.finished = time.time()

    async def close(self) -> None:
        for job in self.jobs.values():
            if job.task is not None and not job.task.done():
                job.task.cancel()
        for job in self.jobs.values():
            if job.task is not None:
                try:
                    await job.task
                except BaseException:  # noqa: BLE001
                    pass
