"""Helpers shared by the routers: budgets within the caps, the error responses, a
posted game record read, how long a request waits for the AI and how often a client
polls (``Retry-After``)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import Request, Response

from solver.rules.position import PositionError
from solver.rules.record import GameRecord, RecordError

from ..errors import ApiError, in_position
from ..scheduler import Priority
from ..schemas import Budget, ErrorBody
from ..store import token_hash

if TYPE_CHECKING:
    from ..scheduler import Scheduler

# What each error status means, as /openapi.json declares it (every body an ErrorBody)
WHY: dict[int, str] = {
    400: "the body is not valid JSON (error 'body')",
    401: "no seat token: send 'Authorization: Bearer TOKEN' (error 'auth')",
    403: "not a token of this game (error 'auth')",
    404: "no such resource (error 'not_found')",
    409: "a conflict with the resource's state (error named)",
    413: "the request body is too large (error 'limit')",
    422: "a field is malformed or the position/action is illegal (field named)",
    429: "this client has too many searches, jobs or games (error 'too_many'); see "
         "Retry-After",
    431: "the request's headers are too large (error 'limit', field 'headers')",
    503: "busy or unavailable (error 'busy' or 'unavailable'): no search worker free in "
         "time, a search past its deadline, a server-wide cap reached, or the database "
         "down; see Retry-After",
    507: "the server stores no more of these (error 'limit')",
}


def error_responses(*codes: int | tuple[int, str],
                    text_route: bool = False) -> dict[int | str, dict[str, Any]]:
    """The error responses a route declares: each status (with its usual meaning, or
    ``(status, meaning)``) answered with an :class:`ErrorBody`. Declaring 422 also
    replaces FastAPI's own ``HTTPValidationError``, which the server never sends.
    ``text_route``: the route answers text (a CSV), whose media type FastAPI would give
    its errors too; they are JSON (ErrorBody is in the components through the others)."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        status, text = code if isinstance(code, tuple) else (code, WHY[code])
        out[status] = {"description": text, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/ErrorBody"}}}} if text_route else \
            {"model": ErrorBody, "description": text}
    return out


# a route with a JSON body; one that searches in the pool; one of a hosted game
ERRORS = error_responses(400, 413, 422, 503)
SEARCH_ERRORS = error_responses(400, 413, 422, 429, 503)
SEAT_ERRORS = error_responses(401, 403, (404, "no such game (error 'not_found')"), 422, 503)
# answered by every route (server.app.Guard, before any route): declared once, for all,
# in the JSON form a text route's errors take too
EVERY_ROUTE_ERRORS = error_responses(431, text_route=True)

# How often a client polls: a game whose AI is thinking (its move is usually a second
# away, and a long-poll, GET ?wait=, answers as soon as it is played) ...
GAME_POLL_SECONDS = 1
# ... and a review job: one decision's search, at most this (its progress shows each one)
JOB_POLL_MOST = 10


def polled(status: int) -> dict[int | str, dict[str, Any]]:
    """The ``Retry-After`` a route's ``status`` carries when the client is told to poll,
    as /openapi.json declares it (see :func:`poll_hint`)."""
    return {status: {"headers": {"Retry-After": {
        "description": "present while the client is to poll (an AI thinking, a job queued "
                       "or running): seconds until it is worth asking again",
        "schema": {"type": "integer", "minimum": 1}}}}}


def poll_hint(response: Response, seconds: int | None) -> None:
    """Tell the client to poll again in ``seconds`` (None: nothing to poll for)."""
    if seconds is not None:
        response.headers["Retry-After"] = str(max(1, seconds))


def game_poll(view: dict[str, Any]) -> int | None:
    """When a seat's view is worth asking for again: while its AI seats play."""
    return GAME_POLL_SECONDS if view["ai_thinking"] else None


def job_poll(job: dict[str, Any], scheduler: Scheduler) -> int | None:
    """When a review job is worth asking for again, while it is queued or running: after
    one reviewed decision (the pool's mean time of one, not less than the job's ``ms``
    budget), and for a queued job after the searches ahead of it in the pool too; 1 to
    :data:`JOB_POLL_MOST` seconds."""
    if job["status"] not in ("queued", "running"):
        return None
    seconds = max(scheduler.mean_seconds[Priority.BATCH],
                  (job["budget"].get("ms") or 0) / 1000)
    if job["status"] == "queued":
        seconds += scheduler.retry_after(Priority.BATCH)
    return max(1, min(JOB_POLL_MOST, math.ceil(seconds)))


def ai_wait(wait: float | None, settings) -> float:
    """The seconds a request waits for the AI seats: ``wait`` (of its body or query; its
    type refuses a negative or unbounded one), cut to BIGSUR_AI_WAIT_SECONDS, the
    server's own bound, which a client cannot know: the page's long-poll of 25 s was a
    422 on a server set to wait less, and the page polled once a second from then on.
    By default that setting."""
    if wait is None:
        return settings.ai_wait_seconds
    return min(wait, settings.ai_wait_seconds)

async def posted_record(raw: dict[str, Any], cards) -> GameRecord:
    """A record sent in a request, every action checked by the rules (RecordError naming
    the field: 422); its card set by name or inline (an unknown set name is the
    record's error); its seed one a game takes (0 to MAX_SEED);
    its seats' names plain text. Read and replayed in a thread: an inline set of a few
    hundred kilobytes takes half a second, which would hold every other request."""
    try:
        named = await cards.for_position(raw.get("cards"))
    except PositionError as err:
        raise RecordError(str(err)) from None
    return await asyncio.to_thread(_checked_record, raw, named)


def _checked_record(raw: dict[str, Any], named) -> GameRecord:
    # (its names plain text, its seed one a game takes: GameRecord checks both)
    record = GameRecord.from_json(raw, named)
    try:
        record.replay()  # (a few milliseconds for a whole game)
    except PositionError as err:  # only its start position is read as a position
        raise in_position(err, "start") from None
    return record


def budget_dict(budget: Budget | None, default_ms: int, settings) -> dict[str, int]:
    """The budget as the workers take it, within BIGSUR_MAX_BUDGET_MS and
    BIGSUR_MAX_ITERATIONS (422 naming the limit beyond)."""
    if budget is None or (budget.ms is None and budget.iterations is None):
        return {"ms": min(default_ms, settings.max_budget_ms)}
    if budget.ms is not None:
        if budget.ms > settings.max_budget_ms:
            raise ApiError(422, "budget.ms", f"{budget.ms} ms exceeds the limit of "
                           f"{settings.max_budget_ms} ms (BIGSUR_MAX_BUDGET_MS)", "limit")
        return {"ms": budget.ms}
    if budget.iterations > settings.max_iterations:
        raise ApiError(422, "budget.iterations", f"{budget.iterations} exceeds the limit of "
                       f"{settings.max_iterations} iterations (BIGSUR_MAX_ITERATIONS)", "limit")
    return {"iterations": budget.iterations}


T = TypeVar("T")


def client_key(request: Request, token: str | None = None) -> str:
    """Who a search is charged to (per-client limits): the seat token when there is one,
    else the peer address (behind a proxy: run uvicorn with --proxy-headers)."""
    if token:
        return "token:" + token_hash(token)[:16]
    return "ip:" + (request.client.host if request.client else "unknown")


async def unless_disconnected(request: Request, work: Awaitable[T]) -> T:
    """Await ``work``, cancelling it if the client closes the connection first (the
    search worker is then stopped, see server.workers)."""
    task = asyncio.ensure_future(work)

    async def gone() -> None:
        while True:
            message = await request.receive()
            if message["type"] == "http.disconnect":
                return

    watcher = asyncio.ensure_future(gone())
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        watcher.cancel()
        raise
    if task.done():
        watcher.cancel()
        return task.result()
    task.cancel()
    try:
        await task
    except (asyncio.CancelledError, Exception):  # noqa: BLE001 - nobody is listening
        pass
    raise ApiError(499, None, "the client closed the connection", "cancelled")
