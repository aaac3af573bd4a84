"""POST /v1/analyze, GET and DELETE /v1/analyze/{job_id}: post-game review as a job;
GET /v1/analyze/{job_id}/positions/{n}: the positions of the reviewed record."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from ..deps import CardsDep, JobsDep, SearchDep, SettingsDep
from ..errors import JsonRoute
from ..schemas import ActionCount, AnalyzeRequest, JobResponse
from .common import (
    SEARCH_ERRORS,
    budget_dict,
    client_key,
    error_responses,
    job_poll,
    poll_hint,
    polled,
    posted_record,
)

JOB_ERRORS = error_responses((404, "no such job, or expired (error 'not_found')"), 422, 503)

router = APIRouter(prefix="/v1/analyze", tags=["analysis"], route_class=JsonRoute)


@router.post("", status_code=202, response_model=JobResponse,
             responses={**SEARCH_ERRORS, **polled(202)},
             summary="Review a game record (starts a job)")
async def analyze(req: AnalyzeRequest, request: Request, response: Response,
                  settings: SettingsDep, cards: CardsDep, jobs: JobsDep,
                  search: SearchDep) -> dict[str, Any]:
    """Checks the record (every action replayed by the rules) and starts the review;
    poll ``GET /v1/analyze/{job_id}`` for progress and the result (docs/api.md explains
    values, losses, labels and accuracy), as often as Retry-After says."""
    budget = budget_dict(req.budget, settings.analysis_budget_ms, settings)
    record = await posted_record(req.record, cards)
    job = await jobs.submit(record, budget, req.seed, req.seats, client_key(request), search)
    poll_hint(response, job_poll(job, search.scheduler))
    return job


@router.get("/{job_id}", response_model=JobResponse, responses={**JOB_ERRORS, **polled(200)},
            summary="Progress and result of a review")
async def job_status(job_id: str, response: Response, jobs: JobsDep,
                     search: SearchDep) -> dict[str, Any]:
    """The job's status and progress, its result once done; while it is queued or
    running the answer carries Retry-After (seconds until it is worth asking again)."""
    job = await jobs.get(job_id)
    poll_hint(response, job_poll(job, search.scheduler))
    return job


@router.get("/{job_id}/positions/{n}", responses=JOB_ERRORS,
            summary="A position of the reviewed record")
async def job_position(job_id: str, n: ActionCount, cards: CardsDep,
                       jobs: JobsDep) -> dict[str, Any]:
    """The full position (bigsur-position/1) after the first ``n`` actions of the job's
    record, so that a review of an uploaded record steps through it without sending the
    record again (the record holds every card already). 404 once the job is gone."""
    return await jobs.position(job_id, n, cards)


@router.delete("/{job_id}", response_model=JobResponse, responses=JOB_ERRORS,
               summary="Cancel a review")
async def cancel_job(job_id: str, jobs: JobsDep) -> dict[str, Any]:
    """Stops a queued or running job (the search of its current decision is stopped at
    once); status ``cancelled``. A finished job is returned unchanged."""
    return await jobs.cancel(job_id)
