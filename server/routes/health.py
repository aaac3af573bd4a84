"""GET /healthz and GET /metrics (Prometheus text format)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from ..schemas import Health

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Health, summary="Liveness and load")
async def healthz(request: Request) -> dict[str, Any]:
    state = request.app.state
    games = await state.store.in_thread(state.store.counts)
    return {"status": "ok", "workers": state.search.workers, "busy": state.search.scheduler.busy,
            "games": games, "jobs": await state.jobs.active()}


@router.get("/metrics", response_class=PlainTextResponse, summary="Prometheus metrics")
async def metrics(request: Request) -> str:
    state = request.app.state
    games = await state.store.in_thread(state.store.counts)
    return state.metrics.render(request.app, games, await state.jobs.active())
