"""The app factory, its settings and ``bigsur serve``.

    uvicorn server.app:create_app --factory        # or: bigsur serve --port 8000

Settings come from the environment with the prefix ``BIGSUR_`` (docs/api.md lists them).
The factory wires one of each service into ``app.state`` (settings, card sets, the
search pool, the session store, play sessions, analysis jobs, metrics); the routers
reach them through the typed dependencies of :mod:`server.deps`.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from collections import defaultdict
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from . import cardsets, errors
from .deps import CardRegistry
from .jobs import JobService
from .pool import SearchService
from .routes import analysis, cards, games, health, hints, score
from .sessions import GameService
from .store import Store, db_path

log = logging.getLogger("bigsur.server")
STATIC = Path(__file__).parent / "static"


class Settings(BaseSettings):
    """Server settings; each field is read from ``BIGSUR_<NAME>`` (e.g. ``BIGSUR_DB``)."""

    model_config = SettingsConfigDict(env_prefix="BIGSUR_", extra="ignore")

    db: str = Field("bigsur.db", description="SQLite file of the play sessions")
    database_url: str | None = Field(None, description="sqlite:///PATH (only SQLite now)")
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1, le=256,
                         description="search processes (default: the core count)")
    pool: Literal["process", "thread"] = Field("process", description="thread: tests only")
    max_budget_ms: int = Field(10_000, ge=1, description="cap on a search's time budget")
    max_iterations: int = Field(100_000, ge=1, description="cap on a search's iterations")
    default_budget_ms: int = Field(1000, ge=1, description="hint budget when none is given "
                                                           "(at most the cap)")
    analysis_budget_ms: int = Field(100, ge=1, description="per-decision review budget "
                                                            "when none is given")
    analysis_max_decisions: int = Field(1000, ge=1, description="largest record reviewed")
    max_jobs: int = Field(4, ge=1, description="analysis jobs running or waiting at once")
    job_ttl_seconds: float = Field(3600, gt=0, description="finished jobs kept this long")
    max_body_bytes: int = Field(1_000_000, ge=1024, description="request body cap (413)")
    cards: str | None = Field(None, description="an extra card-set file, served by name")
    default_ai: str = Field("greedy", description="AI of the seats a new game leaves "
                                                   "unspecified")
    ai_wait_seconds: float = Field(30.0, ge=0, description="how long an action waits for "
                                                            "the AI seats to play")
    max_live_games: int = Field(1000, ge=1, description="games kept replayed in memory "
                                                         "(the rest are replayed on use)")
    retry_after: int = Field(1, ge=1, description="Retry-After seconds of a 503")
    warm: bool = Field(True, description="start the search workers at start-up")

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        db_path(self.db, self.database_url)  # a clear error for a non-sqlite URL
        return self


class Metrics:
    """Request counts and latencies by route and status (Prometheus text format)."""

    def __init__(self):
        self.requests: dict[tuple[str, str, int], int] = defaultdict(int)
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests[(method, route, status)] += 1
        self.seconds[(method, route)] += seconds

    def render(self, app: FastAPI) -> str:
        s = app.state
        lines = ["# TYPE bigsur_requests_total counter"]
        for (method, route, status), n in sorted(self.requests.items()):
            lines.append(f'bigsur_requests_total{{method="{method}",route="{route}",'
                         f'status="{status}"}} {n}')
        lines.append("# TYPE bigsur_request_seconds_total counter")
        for (method, route), sec in sorted(self.seconds.items()):
            lines.append(f'bigsur_request_seconds_total{{method="{method}",route="{route}"}} '
                         f"{sec:.6f}")
        search = s.search
        lines += [
            "# TYPE bigsur_search_workers gauge", f"bigsur_search_workers {search.workers}",
            "# TYPE bigsur_search_busy gauge", f"bigsur_search_busy {search.slots.busy}",
            "# TYPE bigsur_search_waiting gauge", f"bigsur_search_waiting {search.slots.waiting}",
            "# TYPE bigsur_search_rejected_total counter",
            f"bigsur_search_rejected_total {search.rejected}",
            "# TYPE bigsur_search_tasks_total counter",
            f"bigsur_search_tasks_total {search.completed}",
            "# TYPE bigsur_search_seconds_total counter",
            f"bigsur_search_seconds_total {search.seconds:.6f}",
            "# TYPE bigsur_ai_errors_total counter", f"bigsur_ai_errors_total {s.games.ai_errors}",
            "# TYPE bigsur_jobs_active gauge", f"bigsur_jobs_active {s.jobs.active()}",
            "# TYPE bigsur_games gauge"]
        for status, n in sorted(s.store.counts().items()):
            lines.append(f'bigsur_games{{status="{status}"}} {n}')
        return "\n".join(lines) + "\n"


class Guard:
    """ASGI middleware: caps the request body (413 naming the limit; bodies without a
    Content-Length are counted as they arrive) and records metrics per route."""

    def __init__(self, app, max_bytes: int, metrics: Metrics):
        self.app = app
        self.max_bytes = max_bytes
        self.metrics = metrics

    async def _reject(self, scope, receive, send, size: str) -> None:
        body = errors.ApiError(413, "body", f"{size} exceeds the limit of {self.max_bytes} "
                               "bytes (BIGSUR_MAX_BODY_BYTES)", "limit")
        status, payload, _ = errors.describe(body)
        response = JSONResponse(payload, status_code=status)
        await response(scope, receive, send)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status_box = [500]

        async def send_wrapper(message):
            if message["type"] == "http.response.start":
                status_box[0] = message["status"]
            await send(message)

        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        try:
            if length is not None:
                try:
                    n = int(length)
                except ValueError:
                    n = -1
                if n > self.max_bytes:
                    status_box[0] = 413
                    return await self._reject(scope, receive, send, f"a body of {n} bytes")
                return await self.app(scope, receive, send_wrapper)
            if scope["method"] in ("GET", "HEAD", "OPTIONS", "DELETE"):
                return await self.app(scope, receive, send_wrapper)
            chunks, total = [], 0
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    break
                chunks.append(message.get("body", b""))
                total += len(chunks[-1])
                if total > self.max_bytes:
                    status_box[0] = 413
                    return await self._reject(scope, receive, send, "the body")
                if not message.get("more_body"):
                    break
            body = b"".join(chunks)
            sent = False

            async def replay():
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            return await self.app(scope, replay, send_wrapper)
        finally:
            route = scope.get("route")
            name = getattr(route, "path", None) or "unmatched"
            self.metrics.observe(scope["method"], name, status_box[0],
                                 time.perf_counter() - started)


def create_app(settings: Settings | None = None,
               search: SearchService | None = None) -> FastAPI:
    """The ASGI app. ``settings`` default: from the environment. ``search`` replaces
    the pool (tests)."""
    settings = settings or Settings()
    registry = CardRegistry(settings.cards)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.store = Store(db_path(settings.db, settings.database_url))
        app.state.games = GameService(app.state.store, settings, registry)
        app.state.jobs = JobService(settings)
        app.state.search = search or SearchService(settings.workers, settings.pool,
                                                   settings.retry_after)
        if settings.warm:
            await app.state.search.warm()
        resumed = await app.state.games.resume(app.state.search)
        if resumed:
            log.info("resumed the AI of %d game(s)", resumed)
        try:
            yield
        finally:
            await app.state.jobs.close()
            await app.state.games.close()
            if search is None:
                app.state.search.close()
            app.state.store.close()

    app = FastAPI(
        title="Big Sur hint and analysis service",
        version="1",
        description="Hints for any position, reviews of finished games and games against "
                    "the AI. Errors: `{error, field, reason, message}`. See docs/api.md.",
        lifespan=lifespan)
    app.state.settings = settings
    app.state.cards = registry
    app.state.metrics = Metrics()
    errors.install(app)
    for router in (hints.router, analysis.router, games.router, cards.router, score.router,
                   health.router):
        app.include_router(router)
    cardsets.attach(app, registry, settings)  # stored card sets (server/cardsets.py)
    app.mount("/", StaticFiles(directory=STATIC, html=True), name="static")
    app.add_middleware(Guard, max_bytes=settings.max_body_bytes, metrics=app.state.metrics)
    return app


# ------------------------------------------------------------------ bigsur serve

def cmd_serve(args) -> int:
    import uvicorn

    if args.db:
        os.environ["BIGSUR_DB"] = args.db
    if args.workers:
        os.environ["BIGSUR_WORKERS"] = str(args.workers)
    Settings()  # fail early, with the setting named, before uvicorn starts
    uvicorn.run("server.app:create_app", factory=True, host=args.host, port=args.port,
                log_level=args.log_level)
    return 0


def add_cli(sub) -> None:
    """Register ``bigsur serve`` on the CLI's subparsers."""
    p = sub.add_parser("serve", help="run the hint and analysis service (HTTP)",
                       description="Serve the HTTP API (docs/api.md); settings from BIGSUR_* "
                       "environment variables.")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", help="SQLite file of the play sessions (BIGSUR_DB)")
    p.add_argument("--workers", type=int, help="search processes (BIGSUR_WORKERS)")
    p.add_argument("--log-level", default="info")
    p.set_defaults(func=cmd_serve)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server")
    add_cli(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", *(argv if argv is not None else
                                         __import__("sys").argv[1:])])
    return args.func(args)
