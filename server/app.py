"""The app factory, its settings and ``bigsur serve``.

    uvicorn server.app:create_app --factory        # or: bigsur serve --port 8000

Settings come from the environment with the prefix ``BIGSUR_`` (docs/api.md lists them).
The factory wires one of each service into ``app.state`` (settings, card sets, the
search pool, the session store, play sessions, analysis jobs, metrics); the routers
reach them through the typed dependencies of :mod:`server.deps`.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import logging
import os
import re
import signal
import socket
import sys
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.routing import compile_path

from solver.rules.cards import CardSetError

from . import cardsets, errors
from .cardsets import CardRegistry
from .cluster import ClusterError, DaskWorkers
from .jobs import JobService
from .pool import SearchService
from .routes import analysis, cards, games, health, hints, score
from .routes.common import EVERY_ROUTE_ERRORS
from .sessions import GAME_STATUSES, GameService
from .settings import Settings, unknown_variables
from .store import SCHEMA_VERSION, Store, StoreError, hold_sqlite_file

log = logging.getLogger("bigsur.server")
STATIC = Path(__file__).parent / "static"


class Metrics:
    """Request counts and latencies by route and status (Prometheus text format). A
    method outside HTTP's own is counted as "other": a label per made-up method would
    let any client grow the metrics without limit."""

    METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS",
                         "TRACE", "CONNECT"})

    def __init__(self):
        self.requests: dict[tuple[str, str, int], int] = defaultdict(int)
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        method = method if method in self.METHODS else "other"
        self.requests[(method, route, status)] += 1
        self.seconds[(method, route)] += seconds

    def render(self, app: FastAPI, games: dict[str, int] | None,
               jobs_active: int | None) -> str:
        """The metrics text; ``games`` (per status) and ``jobs_active`` are the store's
        counts, read by the caller (off the event loop), or None while the database does
        not answer: then ``bigsur_database_up`` is 0 and their series are left out (not
        known), the process's own are still given. Every game status has its series,
        0 included: a series that disappears at 0 breaks a rate or an alert on it."""
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
            "# TYPE bigsur_search_busy gauge", f"bigsur_search_busy {search.scheduler.busy}",
            "# TYPE bigsur_search_waiting gauge",
            f"bigsur_search_waiting {search.scheduler.waiting}",
            "# TYPE bigsur_search_deadline_total counter",
            f"bigsur_search_deadline_total {search.deadlines}",
            "# TYPE bigsur_search_cancelled_total counter",
            f"bigsur_search_cancelled_total {search.cancelled}",
            "# TYPE bigsur_search_rejected_total counter",
            f"bigsur_search_rejected_total {search.rejected}",
            "# TYPE bigsur_search_tasks_total counter",
            f"bigsur_search_tasks_total {search.completed}",
            "# TYPE bigsur_search_seconds_total counter",
            f"bigsur_search_seconds_total {search.seconds:.6f}",
            "# TYPE bigsur_ai_errors_total counter", f"bigsur_ai_errors_total {s.games.ai_errors}",
            "# TYPE bigsur_database_up gauge", f"bigsur_database_up {int(games is not None)}"]
        guard = sys.modules.get("server.netguard")
        if guard is not None:  # bigsur serve: the connection guard's counters
            g = guard.GuardedH11Protocol
            lines += [
                "# TYPE bigsur_connections_refused_total counter",
                f"bigsur_connections_refused_total {g.refused}",
                "# TYPE bigsur_connections_evicted_total counter",
                f"bigsur_connections_evicted_total {g.evicted}",
                "# TYPE bigsur_requests_timed_out_total counter",
                f"bigsur_requests_timed_out_total {g.timed_out}"]
        if jobs_active is not None:
            lines += ["# TYPE bigsur_jobs_active gauge", f"bigsur_jobs_active {jobs_active}"]
        if games is not None:
            lines.append("# TYPE bigsur_games gauge")
            for status in sorted(set(GAME_STATUSES) | set(games)):
                lines.append(f'bigsur_games{{status="{status}"}} {games.get(status, 0)}')
        return "\n".join(lines) + "\n"


class Guard:
    """ASGI middleware: caps the headers (431, :data:`~server.errors.MAX_HEADER_BYTES`,
    names and values counted as received) and the request body (413 naming the limit;
    bodies without a Content-Length are counted as they arrive) and records metrics per
    route."""

    def __init__(self, app, max_bytes: int, metrics: Metrics,
                 routes: list[tuple[re.Pattern, set[str]]] | None = None):
        self.app = app
        self.max_bytes = max_bytes
        self.metrics = metrics
        self.routes = routes or []

    def allowed(self, path: str) -> set[str]:
        """The methods of the API routes at ``path`` (empty: not an API path)."""
        methods: set[str] = set()
        for regex, route_methods in self.routes:
            if regex.match(path):
                methods |= route_methods
        if "GET" in methods:
            methods.add("HEAD")
        return methods

    async def _methods(self, scope, receive, send, allowed: set[str]) -> int:
        """OPTIONS (204 with Allow) or a method the path does not have (405, our shape)."""
        allow = ", ".join(sorted(allowed | {"OPTIONS"}))
        if scope["method"] == "OPTIONS":
            response = Response(status_code=204, headers={"Allow": allow})
            await response(scope, receive, send)
            return 204
        err = errors.ApiError(405, "method", f"{scope['method']} is not allowed here; "
                              f"allowed: {allow}", "method_not_allowed", {"Allow": allow})
        status, payload, headers = errors.describe(err)
        await JSONResponse(payload, status_code=status, headers=headers)(scope, receive, send)
        return 405

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

        raw_headers = scope.get("headers") or []
        headers = dict(raw_headers)
        length = headers.get(b"content-length")
        try:
            header_bytes = sum(len(name) + len(value) for name, value in raw_headers)
            if header_bytes > errors.MAX_HEADER_BYTES:
                status_box[0] = 431
                status, payload, _ = errors.describe(errors.headers_too_large(header_bytes))
                return await JSONResponse(payload, status_code=status)(scope, receive, send)
            allowed = self.allowed(scope["path"])
            if not allowed and (scope["path"] + "/").startswith("/v1/"):
                # no API route has it: a JSON 404, never the page's static files (a
                # '/v1/games/..%2F..' is decoded and normalised to '/' by them)
                status_box[0] = 404
                status, payload, _ = errors.describe(errors.no_route(scope["path"]))
                return await JSONResponse(payload, status_code=status)(scope, receive, send)
            if scope["method"] == "OPTIONS" or (allowed and scope["method"] not in allowed):
                status_box[0] = await self._methods(scope, receive, send,
                                                    allowed or {"GET", "HEAD"})
                return None
            if scope["method"] == "HEAD" and allowed:  # API routes answer GET only
                scope = dict(scope, method="GET")

                async def head_send(message):
                    if message["type"] == "http.response.body":
                        message = {**message, "body": b""}
                    await send_wrapper(message)

                return await self.app(scope, receive, head_send)
            if length is not None and b"transfer-encoding" in headers:
                status_box[0] = 400
                body = errors.ApiError(400, "headers", "a request may not have both "
                                       "Content-Length and Transfer-Encoding", "request")
                status, payload, _ = errors.describe(body)
                return await JSONResponse(payload, status_code=status)(scope, receive, send)
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


_API_ROUTES: list[tuple[re.Pattern, set[str]]] = []  # the code's, once read (api_routes)


def api_routes(app: FastAPI) -> list[tuple[re.Pattern, set[str]]]:
    """(path regex, methods) of every API route, read from the OpenAPI paths: routers
    included in routers (the review and undo routes, the stored card sets) count too,
    whichever way the FastAPI version nests them in ``app.routes``. The routes are the
    code's (every app :func:`create_app` builds includes the same routers), so the first
    app's are kept for the next: making the OpenAPI schema was nine tenths of the time
    to build an app (0.13 of 0.15 s; the test suite builds hundreds)."""
    if not _API_ROUTES:  # (made whole, then kept: a failure part way keeps nothing)
        table = [(compile_path(path)[0], {method.upper() for method in operations})
                 for path, operations in app.openapi()["paths"].items()]
        _API_ROUTES.extend(table)
    return _API_ROUTES


async def _housekeeping(app: FastAPI) -> None:
    """Every so often: delete abandoned games, finished games past
    BIGSUR_KEEP_FINISHED_DAYS and expired analysis jobs."""
    settings = app.state.settings
    interval = max(0.5, min(60.0, settings.game_idle_seconds / 10,
                            settings.job_ttl_seconds / 10,
                            (settings.keep_finished_days or 1) * 86400 / 10))
    while True:
        try:
            expired = await app.state.games.expire()
            if expired:
                log.info("deleted %d abandoned game(s)", expired)
            finished = await app.state.games.delete_finished()
            if finished:
                log.info("deleted %d finished game(s) older than %g day(s) "
                         "(BIGSUR_KEEP_FINISHED_DAYS)", finished, settings.keep_finished_days)
            await app.state.jobs.prune()
        except Exception:  # noqa: BLE001 - housekeeping must not stop
            log.exception("housekeeping failed")
        await asyncio.sleep(interval)


def _tell_games_of_a_stop(games: GameService) -> None:
    """On SIGTERM, the game service hears of the stop before uvicorn's shutdown begins:
    a SIGTERM to the process group ends the search workers at once, and the AI turns
    they were searching are then ended by the stop, one INFO line each, not failed
    (an ERROR with a traceback). uvicorn's own handler still runs, and is back in place
    after (uvicorn restores the handlers it found when it stops)."""
    if threading.current_thread() is not threading.main_thread():
        return  # (signals are the main thread's: a test client's app runs in another)
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame) -> None:
        games.stop_asked()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, on_term)


def create_app(settings: Settings | None = None,
               search: SearchService | None = None) -> FastAPI:
    """The ASGI app. ``settings`` default: from the environment. ``search`` replaces
    the pool (tests)."""
    if settings is None:  # (bigsur serve, uvicorn --factory): say what it ignores
        settings = Settings()
        for line in unknown_variables(os.environ):
            log.warning("%s", line)
    registry = CardRegistry(settings.cards)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.store = Store(settings.database, settings.db_pool_size,
                                settings.db_wait_seconds, settings.db_timeout_seconds,
                                settings.database_setting)
        app.state.games = GameService(app.state.store, settings, registry)
        app.state.jobs = JobService(settings, app.state.store)
        app.state.search = search or SearchService.from_settings(settings)
        _tell_games_of_a_stop(app.state.games)
        if settings.warm:
            await app.state.search.warm()
        log.info("database %s (schema %d); %d search worker(s)%s; card sets: %s",
                 app.state.store.backend.describe(), SCHEMA_VERSION, app.state.search.workers,
                 f" on the Dask cluster {settings.cluster}" if settings.cluster else "",
                 ", ".join(sorted(registry.sets)))
        resumed = await app.state.games.resume(app.state.search)
        if resumed:
            log.info("resumed the AI of %d game(s)", resumed)
        resumed = await app.state.jobs.resume(app.state.search, registry)
        if resumed:
            log.info("resumed %d analysis job(s)", resumed)
        housekeeping = asyncio.get_running_loop().create_task(_housekeeping(app))
        try:
            yield
        finally:
            housekeeping.cancel()
            await app.state.jobs.close()
            await app.state.games.close()
            if search is None:
                app.state.search.close()
            app.state.store.close()
            app.state.store = None  # (card-set lookups then open a store of their own)

    app = FastAPI(
        title="Big Sur hint and analysis service",
        version="1",
        description="Hints for any position, reviews of finished games and games against "
                    "the AI. Errors: `{error, field, reason, message}`. See docs/api.md.",
        lifespan=lifespan, responses=EVERY_ROUTE_ERRORS)
    app.state.settings = settings
    app.state.cards = registry
    app.state.metrics = Metrics()
    errors.install(app)
    for router in (hints.router, analysis.router, games.router, cards.router, score.router,
                   health.router):
        app.include_router(router)
    cardsets.attach(app, registry, settings)  # stored card sets (server/cardsets.py)
    app.mount("/", StaticFiles(directory=STATIC, html=True), name="static")
    app.add_middleware(Guard, max_bytes=settings.max_body_bytes, metrics=app.state.metrics,
                       routes=api_routes(app))
    return app


# ------------------------------------------------------------------ bigsur serve

def setting_errors(err: ValidationError) -> list[str]:
    """One line per refused setting, naming its ``BIGSUR_*`` variable."""
    lines = []
    for e in err.errors():
        reason = e["msg"].removeprefix("Value error, ")
        if e["loc"]:
            lines.append(f"BIGSUR_{str(e['loc'][0]).upper()}: {reason} (got {e['input']!r})")
        else:  # a check of several settings: its message names them
            lines.append(reason)
    return lines


def log_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's logging configuration plus the server's own logger, ``bigsur`` (jobs
    taken over or paused, the AI of games resumed, abandoned games deleted, database
    outages): on uvicorn's stream, in uvicorn's format with the logger's name
    (``INFO:     bigsur.server: resumed the AI of 2 game(s)``), at ``level``
    (``--log-level``, as uvicorn's own)."""
    from uvicorn.config import LOG_LEVELS, LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["bigsur"] = {"()": "uvicorn.logging.DefaultFormatter",
                                      "fmt": "%(levelprefix)s %(name)s: %(message)s",
                                      "use_colors": None}
    config["handlers"]["bigsur"] = {"formatter": "bigsur", "class": "logging.StreamHandler",
                                    "stream": "ext://sys.stderr"}
    config["loggers"]["bigsur"] = {"handlers": ["bigsur"], "level": LOG_LEVELS[level],
                                   "propagate": False}
    # psycopg_pool's warnings in the same format (they went out bare, through logging's
    # last resort); its INFO lines are two per database call
    config["loggers"]["psycopg.pool"] = {"handlers": ["bigsur"], "propagate": False,
                                         "level": max(logging.WARNING, LOG_LEVELS[level])}
    return config


# psycopg_pool's warning at each connection attempt while PostgreSQL is down (one a
# second: the store's probe), kept to one every 10 s by the log limit
POOL_FLOODS = (("psycopg.pool", "error connecting"), ("psycopg.pool", "reconnection attempt"))


def install_pool_log_limits(interval: float = 10.0) -> logging.Filter:
    """Each of :data:`POOL_FLOODS` once per ``interval`` (the reason of an outage, a
    refused password say, still said), then how many were dropped (bigsur serve)."""
    from .netguard import RateLimitFilter  # (imported by bigsur serve alone: /metrics)

    f = RateLimitFilter(interval, POOL_FLOODS)
    logging.getLogger("psycopg.pool").addFilter(f)
    return f


# A Unix socket's path, at most (sun_path, with its closing NUL), and what multiprocessing
# adds below the temporary folder for the forkserver's: /pymp-XXXXXXXX/listener-XXXXXXXX
SUN_PATH_MAX = 108 if sys.platform.startswith("linux") else 104
FORKSERVER_SOCKET_TAIL = len("/pymp-XXXXXXXX/listener-XXXXXXXX")
MAX_TMPDIR = SUN_PATH_MAX - 1 - FORKSERVER_SOCKET_TAIL  # characters (75 on Linux)
SYSTEM_TEMP_FOLDERS = ("/tmp", "/var/tmp", "/usr/tmp")


class TempFolderTooLong(ValueError):
    """TMPDIR too long for the search processes' socket and no system folder to use."""


def short_socket_folder() -> str | None:
    """Where multiprocessing puts this process's folder (the forkserver of the search
    processes binds its socket in it), moved out of a TMPDIR too long for a socket's path
    into the first writable one of :data:`SYSTEM_TEMP_FOLDERS`; the folder made, or None
    when TMPDIR is short enough. The multiprocessing of newer Pythons makes this choice itself
    (CPython gh-132124, 3.13 and 3.14); on older ones the forkserver failed to bind ("AF_UNIX
    path too long") and the start-up stopped with a traceback. Only multiprocessing's
    folder moves (set once, in the process's entry point, before any worker starts):
    ``tempfile.tempdir`` is set for the one call that makes it and put back.
    TempFolderTooLong (naming TMPDIR) when no fallback is writable."""
    import multiprocessing.util

    base = tempfile.gettempdir()
    if len(base) <= MAX_TMPDIR:
        return None
    usable = [folder for folder in SYSTEM_TEMP_FOLDERS
              if os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)]
    if not usable:
        raise TempFolderTooLong(
            f"TMPDIR: {base!r} ({len(base)} characters) is too long for the search "
            f"processes' socket (at most {MAX_TMPDIR} characters), and none of "
            f"{', '.join(SYSTEM_TEMP_FOLDERS)} is writable: set TMPDIR to a "
            "shorter folder")
    saved = tempfile.tempdir
    tempfile.tempdir = usable[0]
    try:
        return multiprocessing.util.get_temp_dir()  # made once, removed at exit
    finally:
        tempfile.tempdir = saved


def cmd_serve(args) -> int:
    import uvicorn

    from .netguard import GuardedH11Protocol, install_log_limits, raise_fd_limit

    if args.db:  # given on the command line: it wins over both variables
        os.environ["BIGSUR_DB"] = args.db
        os.environ.pop("BIGSUR_DATABASE_URL", None)
    if args.workers is not None:  # (0 too: refused as BIGSUR_WORKERS=0 is)
        os.environ["BIGSUR_WORKERS"] = str(args.workers)
    try:  # fail early, with the setting named, before uvicorn starts
        settings = Settings()
    except ValidationError as err:
        for line in setting_errors(err):
            print(f"bigsur: error: {line}", file=sys.stderr)
        return 2
    socket_folder = None
    if settings.pool == "process" and settings.cluster is None:
        try:  # the search processes' forkserver can bind its socket
            socket_folder = short_socket_folder()
        except TempFolderTooLong as err:
            print(f"bigsur: error: {err}", file=sys.stderr)
            return 2
    try:  # BIGSUR_CARDS is a full set under a free name
        CardRegistry(settings.cards)
    except CardSetError as err:
        print(f"bigsur: error: {err.summary()}", file=sys.stderr)
        return 2
    except ValueError as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    try:  # no other server has the database, and it answers (and is migrated)
        if not settings.database.startswith(("postgresql://", "postgres://")):
            hold_sqlite_file(settings.database, settings.database_setting)
        Store(settings.database, settings.db_pool_size, settings.db_wait_seconds,
              settings.db_timeout_seconds, settings.database_setting).close()
    except StoreError as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    try:  # the port is free (held from here: the start-up takes over games and jobs)
        listening = listen_on(args.host, args.port)
    except OSError as err:
        print(f"bigsur: error: --host {args.host} --port {args.port}: cannot listen "
              f"({err.strerror or err})", file=sys.stderr)
        return 2
    if settings.cluster is not None:  # the Dask scheduler answers, or one line says why
        try:
            DaskWorkers(settings.cluster, settings.cluster_slots).close_after_connecting()
        except ClusterError as err:
            print(f"bigsur: error: {err}", file=sys.stderr)
            return 2
    raise_fd_limit(settings.max_connections + 512)  # + overflow, workers, database
    protocol = GuardedH11Protocol.configure(settings.request_timeout_seconds,
                                            settings.max_connections,
                                            settings.max_connections_per_client)
    config = uvicorn.Config("server.app:create_app", factory=True, host=args.host,
                            port=args.port, log_level=args.log_level,
                            log_config=log_config(args.log_level), http=protocol,
                            timeout_keep_alive=settings.keep_alive_seconds,
                            timeout_graceful_shutdown=settings.graceful_shutdown_seconds,
                            h11_max_incomplete_event_size=errors.MAX_HEADER_BYTES,
                            forwarded_allow_ips=args.forwarded_allow_ips)
    server = uvicorn.Server(config)
    config.load()  # configures logging; the rate limit goes on top
    install_log_limits()
    install_pool_log_limits()
    if socket_folder is not None:
        log.warning("TMPDIR is too long for the search processes' socket (%d characters, "
                    "at most %d): their folder is %s", len(tempfile.gettempdir()),
                    MAX_TMPDIR, socket_folder)
    # uvicorn ends a SIGTERM's graceful shutdown by raising the signal again, which would
    # end the process without its exit handlers (multiprocessing's leave its pymp-*
    # folders in /tmp): a stop asked for and done is a normal exit
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    try:
        server.run(sockets=listening)
    finally:
        signal.signal(signal.SIGTERM, previous)
        for sock in listening:
            sock.close()
    return 0


def listen_on(host: str, port: int, backlog: int = 2048) -> list[socket.socket]:
    """The server's listening sockets, made before the start-up (OSError: the port is
    taken, or not ours to take) as asyncio's ``create_server`` makes them for uvicorn:
    one for each address ``host`` resolves to (``localhost``: 127.0.0.1 and ::1), an IPv6
    one for IPv6 only. Listening at once: a socket only bound would not keep a second
    server starting meanwhile from binding the port too (SO_REUSEADDR); connections wait
    in the backlog until the start-up is done."""
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _name, address in socket.getaddrinfo(
                host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(backlog)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def add_cli(sub) -> None:
    """Register ``bigsur serve`` on the CLI's subparsers."""
    p = sub.add_parser("serve", help="run the hint and analysis service (HTTP)",
                       description="Serve the HTTP API (docs/api.md); settings from BIGSUR_* "
                       "environment variables.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument("--db", help="SQLite file or postgresql:// URL of the games and jobs "
                   "(BIGSUR_DB; wins over BIGSUR_DATABASE_URL)")
    p.add_argument("--workers", type=int, help="search processes (BIGSUR_WORKERS)")
    p.add_argument("--forwarded-allow-ips", help="addresses whose X-Forwarded-For is "
                   "trusted: the reverse proxy's (uvicorn's option; default: "
                   "$FORWARDED_ALLOW_IPS, else 127.0.0.1,::1)")
    p.add_argument("--log-level", default="info", type=str.lower,
                   choices=("critical", "error", "warning", "info", "debug", "trace"),
                   help="log level of uvicorn and of the server's own messages (logger "
                   "bigsur.server): critical, error, warning, info, debug or trace "
                   "(default info)")
    p.set_defaults(func=cmd_serve)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server")
    add_cli(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", *(argv if argv is not None else
                                         __import__("sys").argv[1:])])
    return args.func(args)
