"""GET /healthz and GET /metrics (Prometheus text format)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from ..errors import JsonRoute
from ..schemas import Health
from ..store import StoreUnavailable
from .common import error_responses

router = APIRouter(tags=["health"], route_class=JsonRoute)


@router.get("/healthz", response_model=Health, summary="Liveness and load",
            responses=error_responses((503, "the database or the Dask cluster does not "
                                            "answer, or the database has no room for a "
                                            "write (error 'unavailable')")))
async def healthz(request: Request) -> dict[str, Any]:
    """200 ``ok`` with the load; 503 ``unavailable`` while the database, or the Dask
    cluster of ``BIGSUR_CLUSTER``, does not answer, or the database has no room for a
    write (a full disk: reads still answer)."""
    state = request.app.state
    runner = state.search.runner
    cluster = runner.check() if runner.kind == "dask" else None  # (503 when lost)
    games = await state.store.in_thread(state.store.counts)
    if state.store.writes_failing is not None:  # (503 while a test write fails too)
        await state.store.in_thread(state.store.check_writes)
    health = {"status": "ok", "workers": state.search.workers,
              "busy": state.search.scheduler.busy, "games": games,
              "jobs": await state.jobs.active()}
    if cluster is not None:
        health["cluster"] = cluster
    return health


@router.get("/metrics", response_class=PlainTextResponse, summary="Prometheus metrics")
async def metrics(request: Request) -> str:
    """The process's metrics; during a database outage too (``bigsur_database_up 0``,
    without the stored counts): an outage is when they are looked at."""
    state = request.app.state
    try:
        games = await state.store.in_thread(state.store.counts)
        jobs = await state.jobs.active()
    except StoreUnavailable:
        games = jobs = None
    return state.metrics.render(request.app, games, jobs)
