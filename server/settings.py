"""The server's settings: one :class:`Settings` object read from ``BIGSUR_*`` environment
variables (docs/api.md and docs/deploy.md list them).

Imports nothing from the other server modules, so that every one of them (app, deps,
jobs, sessions, store) can import it without a cycle.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from solver.search.specs import SpecError, check_caps, parse_bot_spec

SERVER_BOTS = frozenset({"random", "greedy", "mcts"})  # never module:Class, never plugins
PREFIX = "BIGSUR_"
# BIGSUR_* variables read outside Settings: not misspelt settings (and who reads them)
OTHER_VARIABLES: dict[str, str] = {
    "BIGSUR_VALUE_MODEL": "the search's value model file (solver/search/value.py)",
    "BIGSUR_BENCH_VARIANT": "the benchmarks' search variant (bench/variants.py)",
    "BIGSUR_FULL": "the tests' and benchmarks' full runs",
    "BIGSUR_FUZZ_SEED": "the API fuzz test's seed",
    "BIGSUR_FUZZ_CASES": "the API fuzz test's cases per route",
    "BIGSUR_CHROMIUM": "the web page tests' browser",
    "BIGSUR_REQUIRE_POSTGRES": "the tests: fail rather than skip without PostgreSQL",
}
# what bigsur serve takes as an option, not from the environment
SERVE_OPTIONS = {"BIGSUR_HOST": "--host", "BIGSUR_PORT": "--port",
                 "BIGSUR_LOG_LEVEL": "--log-level",
                 "BIGSUR_FORWARDED_ALLOW_IPS": "--forwarded-allow-ips"}


class Settings(BaseSettings):
    """Server settings; each field is read from ``BIGSUR_<NAME>`` (e.g. ``BIGSUR_DB``)."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore")

    db: str = Field("bigsur.db", description="the database of games and jobs: a SQLite "
                    "file (the embedded default, one server process) or a postgresql:// URL "
                    "(several server processes on one database)")
    database_url: str | None = Field(None, description="the same as BIGSUR_DB as a URL "
                                     "(sqlite:///PATH or postgresql://...); wins over it")
    db_pool_size: int = Field(10, ge=1, le=1000, description="PostgreSQL: connections one "
                              "server process opens at most")
    db_wait_seconds: float = Field(2.0, gt=0, le=60, description="how long a request "
                                   "waits for the database before 503 unavailable: for a "
                                   "PostgreSQL connection (a process makes its calls in as "
                                   "many threads as it has connections, so only ever for a "
                                   "reconnection; in an outage, how long the first call "
                                   "waits) or for a SQLite file's write lock held by another "
                                   "process; the other requests go on meanwhile")
    db_timeout_seconds: float = Field(3.0, gt=0, le=600, description="how long the "
                                      "database may take to answer a call: PostgreSQL's "
                                      "statement_timeout of the server's connections; and "
                                      "a call not answered within BIGSUR_DB_WAIT_SECONDS "
                                      "plus this (a database frozen or cut off answers "
                                      "nothing) is 503 unavailable, the calls after it at "
                                      "once until the database answers again")
    job_lease_seconds: float = Field(30.0, gt=0, le=3600, description="an analysis job is "
                                     "claimed by one server process for this long, renewed "
                                     "while it runs; another process resumes it after a "
                                     "crash once the lease has run out")
    cluster: str | None = Field(None, description="tcp://HOST:PORT of a Dask scheduler: "
                                "hints, AI turns and analysis search on its workers instead "
                                "of local processes")
    cluster_slots: int | None = Field(None, ge=1, le=10_000, description="searches this "
                                      "server runs on the cluster at once (default: the "
                                      "cluster's worker threads at start-up; without "
                                      "warm-up, BIGSUR_WORKERS)")
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
    max_job_seconds: float = Field(1800, gt=0, description="an analysis job's searching "
                                   "time (decisions x ms budget) at most (422 beyond)")
    max_jobs_per_client: int = Field(2, ge=1, description="analysis jobs one client (IP) "
                                                          "may have running or waiting")
    job_ttl_seconds: float = Field(3600, gt=0, description="finished jobs kept this long")
    max_body_bytes: int = Field(1_000_000, ge=1024, description="request body cap (413)")
    cards: str | None = Field(None, description="an extra card-set file, served by name")
    default_ai: str = Field("greedy", description="AI of the seats a new game leaves "
                                                   "unspecified")
    ai_wait_seconds: float = Field(30.0, ge=0, description="how long an action waits for "
                                                            "the AI seats to play")
    max_live_games: int = Field(1000, ge=1, description="games kept replayed in memory "
                                                         "(the rest are replayed on use)")
    chosen_seeds: Literal["single-human", "any"] = Field(
        "single-human", description="who may choose a game's seed: only a game with one "
        "human seat (default), or any game (local hot-seat and tests; never on a public "
        "server: the chooser knows every card)")
    max_games: int = Field(10_000, ge=1, description="games in progress at once (503 beyond)")
    max_games_per_client: int = Field(20, ge=1, description="games in progress one client "
                                      "(IP) may have created (429 beyond)")
    game_idle_seconds: float = Field(7 * 86400, gt=0, description="a game in progress "
                                     "untouched this long is deleted (abandoned)")
    keep_finished_days: float | None = Field(None, gt=0, allow_inf_nan=False,
                                             description="a finished game is deleted, "
                                             "with its actions, this many days after its "
                                             "last move (default: kept for ever)")
    retry_after: int = Field(1, ge=1, description="the least Retry-After of a 503 (seconds; "
                                                  "the server estimates it from the queue)")
    queue_wait_seconds: float = Field(2.0, ge=0, le=600, description="how long a hint or "
                                      "payment may wait for a worker before a 503")
    queue_size: int = Field(64, ge=1, description="hints and payments waiting at once "
                                                  "(503 beyond)")
    batch_workers: int | None = Field(None, ge=1, description="workers analysis jobs may "
                                      "use at once (default: half, at least 1)")
    client_running: int | None = Field(None, ge=1, description="searches one client (seat "
                                       "token, else IP) runs at once (default: workers)")
    client_queued: int = Field(8, ge=1, description="searches one client may have waiting "
                                                    "(429 beyond)")
    deadline_grace_ms: int = Field(2000, ge=0, description="a search is stopped this long "
                                   "after its time budget (iteration budgets: after "
                                   "BIGSUR_MAX_BUDGET_MS)")
    warm: bool = Field(True, description="start the search workers at start-up")
    request_timeout_seconds: float = Field(10.0, gt=0, description="a request (headers and "
                                           "body) must arrive within this (408 after)")
    keep_alive_seconds: int = Field(5, ge=1, description="idle keep-alive connections are "
                                                         "closed after this")
    max_connections: int = Field(1000, ge=1, description="open connections at once (more "
                                                         "are closed at once)")
    max_connections_per_client: int = Field(100, ge=1, description="open connections from "
                                            "one address")
    graceful_shutdown_seconds: int = Field(5, ge=0, description="on SIGTERM, how long "
                                           "requests in flight may finish before their "
                                           "searches are stopped")

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        self.database  # noqa: B018 - a clear error for an unknown URL scheme, at start-up
        try:  # the AI of every seat a new game leaves unspecified: refused at start-up
            check_caps(parse_bot_spec(self.default_ai, "BIGSUR_DEFAULT_AI", known=SERVER_BOTS),
                       self.max_budget_ms / 1000, self.max_iterations, "BIGSUR_DEFAULT_AI")
        except SpecError as err:
            limit = " (BIGSUR_MAX_BUDGET_MS / BIGSUR_MAX_ITERATIONS)" \
                if err.kind == "limit" else ""
            raise ValueError(f"{err}{limit}") from None
        if self.cluster is not None and not self.cluster.startswith(("tcp://", "tls://")):
            raise ValueError(f"BIGSUR_CLUSTER: must be tcp://HOST:PORT or tls://HOST:PORT of "
                             f"a Dask scheduler, got {self.cluster!r}")
        return self

    @property
    def database_setting(self) -> str:
        """The variable that names the database (for messages)."""
        return "BIGSUR_DATABASE_URL" if self.database_url else "BIGSUR_DB"

    @property
    def database(self) -> str:
        """Where games and jobs live: a ``postgresql://`` URL or a SQLite file path
        (``BIGSUR_DATABASE_URL`` wins over ``BIGSUR_DB``)."""
        target = self.database_url or self.db
        if not target.strip():  # sqlite3 would open a private temporary database
            setting = "BIGSUR_DATABASE_URL" if self.database_url is not None else "BIGSUR_DB"
            raise ValueError(f"{setting}: empty; give a SQLite file path or a "
                             "postgresql:// URL")
        if target.startswith(("postgresql://", "postgres://")):
            return target
        if target.startswith("sqlite:///"):
            return target[len("sqlite:///"):] or "bigsur.db"
        if "://" in target:
            scheme = target.split("://", 1)[0]
            raise ValueError(f"{self.database_setting}: a {scheme!r} URL is not supported; "
                             "use a SQLite file path, sqlite:///PATH or postgresql://...")
        return target


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """One message per ``BIGSUR_*`` variable of ``environ`` that is neither a setting
    nor one of :data:`OTHER_VARIABLES` (a misspelling, a setting of another version),
    naming the closest setting when one is close: ``BIGSUR_MAX_BUDGET is not a setting
    (did you mean BIGSUR_MAX_BUDGET_MS?); ignored``. Names are compared in upper case, as
    the settings are read (``bigsur_workers`` is ``BIGSUR_WORKERS``).

    ``bigsur serve`` warns, it does not refuse: the prefix is shared with variables other
    than the server's (the search's ``BIGSUR_VALUE_MODEL``, the tests' and benchmarks'),
    an environment file may serve several versions of the server, and a server under
    ``Restart=always`` refusing a variable a newer version dropped would stay down,
    restarting, where it can run on the other settings (each value is still checked)."""
    settings = {PREFIX + name.upper() for name in Settings.model_fields}
    known = settings | set(OTHER_VARIABLES)
    lines = []
    for name in sorted(environ):
        upper = name.upper()
        if not upper.startswith(PREFIX) or upper in known:
            continue
        if upper in SERVE_OPTIONS:
            hint = f" (bigsur serve takes {SERVE_OPTIONS[upper]})"
        else:  # (the common prefix left out: it would make every name look close)
            close = difflib.get_close_matches(upper[len(PREFIX):],
                                              [k[len(PREFIX):] for k in sorted(known)], n=1)
            hint = f" (did you mean {PREFIX}{close[0]}?)" if close else ""
        lines.append(f"{name} is not a setting{hint}; ignored")
    return lines
