"""Reviewing a hosted game by its id: the page never re-sends a record.

``POST /v1/games/{id}/analysis`` starts (or returns) the review job of a finished game
built on the server from the stored game (its exact seed and actions), so a 62-bit seed
never passes through a JavaScript number; ``GET /v1/games/{id}/analysis`` returns the
latest job of that game not cancelled or failed, else the latest (a reload picks the
running review up again). Which game a job
reviews is stored with the job, so every process sharing the database finds it, after a
restart too. The job is the
same as ``POST /v1/analyze`` (poll ``GET /v1/analyze/{job_id}``).

Included by ``server.routes.games`` (``router.include_router``), so the app factory is
unchanged.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from ..deps import GamesDep, JobsDep, SearchDep, SettingsDep, TokenDep
from ..errors import ApiError, JsonRoute
from ..schemas import REVIEW_SEED, Budget, JobResponse, ReviewSeats, Seed
from ..sessions import game_record
from .common import (
    SEARCH_ERRORS,
    SEAT_ERRORS,
    budget_dict,
    client_key,
    error_responses,
    job_poll,
    poll_hint,
    polled,
)

# paths under /v1/games (the including router)
router = APIRouter(tags=["games"], route_class=JsonRoute)


class GameAnalysisRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"budget": {"iterations": 50}, "seed": 0}]})

    budget: Budget | None = Field(None, description="per decision; default: "
                                                     "BIGSUR_ANALYSIS_BUDGET_MS")
    seed: Seed = Field(0, description=REVIEW_SEED)
    seats: ReviewSeats | None = Field(None, description="review only these seats' decisions")
    again: bool = Field(False, strict=True, description="start a new job even if one with "
                                                        "the same budget exists")


@router.post("/{game_id}/analysis", status_code=202, response_model=JobResponse,
             responses={**SEAT_ERRORS, **SEARCH_ERRORS, **polled(202), **error_responses(
                 (409, "the game is not over yet (error 'not_over')"))},
             summary="Review a finished hosted game (starts or returns its job)")
async def analyse_game(game_id: str, request: Request, response: Response, token: TokenDep,
                       settings: SettingsDep, games: GamesDep, jobs: JobsDep, search: SearchDep,
                       req: GameAnalysisRequest | None = None) -> dict[str, Any]:
    """The review of this game (any seat's token, once it is over). A job for the same
    budget, seed and seats that is running or done is returned rather than started
    again (unless ``again``), also to requests at once through several processes.
    Every field is optional, the body too. Retry-After while it is queued or running,
    as the job's own route."""
    req = req or GameAnalysisRequest()
    live = await games.get(game_id)
    games.seat_of(live, token)
    if not live.over:
        raise ApiError(409, "game_id", "the review is available once the game is over",
                       "not_over")
    budget = budget_dict(req.budget, settings.analysis_budget_ms, settings)
    return _polled(response, await jobs.submit(game_record(live), budget, req.seed, req.seats,
                                               client_key(request), search, game_id,
                                               reuse=not req.again), search)


@router.get("/{game_id}/analysis", response_model=JobResponse,
            responses={**SEAT_ERRORS, **polled(200), **error_responses(
                (404, "no such game, or no review of it yet (error 'not_found')"))},
            summary="The latest review job of a hosted game")
async def game_analysis(game_id: str, response: Response, token: TokenDep, games: GamesDep,
                        jobs: JobsDep, search: SearchDep) -> dict[str, Any]:
    """The newest review of this game that is not cancelled or failed (queued, running
    or done), else the newest one; any seat's token."""
    live = await games.get(game_id)
    games.seat_of(live, token)
    newest = None
    for job_id in reversed(await jobs.of_game(game_id)):
        job = await jobs.stored(job_id)
        if job is None:
            continue
        if job["status"] not in ("failed", "cancelled"):
            return _polled(response, await jobs.get(job_id), search)
        newest = newest or job_id
    if newest is not None:
        return await jobs.get(newest)
    raise ApiError(404, "game_id", f"no review of game {game_id!r} on this server yet "
                   "(POST to start one)", "not_found")


def _polled(response: Response, job: dict[str, Any], search) -> dict[str, Any]:
    """The job, with the Retry-After of one still queued or running."""
    poll_hint(response, job_poll(job, search.scheduler))
    return job
