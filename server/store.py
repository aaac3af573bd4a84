"""Games, analysis jobs and stored card sets in one database: SQLite (the embedded default,
one server process per file) or PostgreSQL (``BIGSUR_DB=postgresql://...``, several
server processes on one database).

A game is its setup (players, seed, card set, seats, token hashes, and for a game
continued from a position its starting position) plus its list of applied actions, and
is rebuilt by replay. Every applied action is committed before the
server answers (SQLite: ``synchronous=FULL``), so a crash loses nothing acknowledged.
Tokens are never stored, only their SHA-256, compared with :func:`hmac.compare_digest`.

One :class:`Store` holds every query; a backend (:class:`SQLiteBackend`,
:class:`PostgresBackend`) differs only in its connections, its SQL dialect (``?``
placeholders become ``%s``; the DDL of each migration is written per dialect) and how a
transaction serialises with other writers (SQLite: ``BEGIN IMMEDIATE`` under a lock;
PostgreSQL: row locks taken by the ``UPDATE``s themselves plus an advisory lock per
checked limit).

Writers on several processes: an action is appended only if the game still has the
action count the writer replayed (``UPDATE games ... WHERE n_actions = ?``; the loser
gets :class:`Conflict` and replays), action ids are unique per seat in the database, a
hosted game's review is looked up and, when there is none, stored in one transaction
under the jobs' lock (two requests at once start one review), and an analysis job runs
where its lease is (``owner``, ``lease_until``; renewed while it runs, taken over by
another process once it runs out).

Migrations are explicit and versioned (:data:`MIGRATIONS`; the version is the ``schema``
row of ``meta``). To add a column: a new :class:`Migration` (both dialects), the field in
:class:`GameRow` and its name in :data:`GAME_COLUMNS`.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import json
import math
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

T = TypeVar("T")


@dataclass(frozen=True)
class Migration:
    """One step of the schema: from ``version - 1`` to ``version``, per dialect."""

    version: int
    what: str
    sqlite: str
    postgres: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "games and their actions", sqlite="""
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    cards TEXT NOT NULL,         -- JSON: "default" or an inline card set
    seats TEXT NOT NULL,         -- JSON list: "human" or a bot spec per seat
    token_hashes TEXT NOT NULL,  -- JSON list: SHA-256 hex per human seat, null for AI
    status TEXT NOT NULL,        -- "human" (a human acts), "ai" (an AI acts), "over"
    n_actions INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,        -- as applied (builds carry their explicit payment)
    submitted TEXT NOT NULL,     -- as the client or bot sent it
    client_id TEXT,              -- the client's action id (idempotence), null for AI
    created REAL NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE UNIQUE INDEX IF NOT EXISTS actions_client ON actions(game_id, client_id)
    WHERE client_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_status ON games(status);
""", postgres="""
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    players INTEGER NOT NULL,
    seed BIGINT NOT NULL,
    cards TEXT NOT NULL,
    seats TEXT NOT NULL,
    token_hashes TEXT NOT NULL,
    status TEXT NOT NULL,
    n_actions INTEGER NOT NULL
);
CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    submitted TEXT NOT NULL,
    client_id TEXT,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE UNIQUE INDEX actions_client ON actions(game_id, client_id)
    WHERE client_id IS NOT NULL;
CREATE INDEX games_status ON games(status);
"""),
    Migration(2, "creators, fairness, analysis jobs, per-seat action ids, game counts",
              sqlite="""
ALTER TABLE games ADD COLUMN creator TEXT;      -- client key, for per-client limits
ALTER TABLE games ADD COLUMN salt TEXT;         -- hex; with the seed, revealed at the end
ALTER TABLE games ADD COLUMN commitment TEXT;   -- sha256("SEED:SALT"), published
ALTER TABLE games ADD COLUMN seed_chosen INTEGER;  -- 1: the creator chose the seed
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    status TEXT NOT NULL,        -- queued | running | done | failed | cancelled
    total INTEGER NOT NULL,
    done INTEGER NOT NULL,
    budget TEXT NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT,                  -- JSON list or null
    record TEXT NOT NULL,        -- the record reviewed (JSON)
    result TEXT,
    error TEXT
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status, client);
CREATE TABLE IF NOT EXISTS job_reviews (
    job_id TEXT NOT NULL,
    idx INTEGER NOT NULL,        -- position in the job's list of decisions
    review TEXT NOT NULL,
    PRIMARY KEY (job_id, idx)
);
CREATE TABLE IF NOT EXISTS game_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL);
DELETE FROM game_counts;
INSERT INTO game_counts SELECT status, count(*) FROM games GROUP BY status;
DROP INDEX IF EXISTS actions_client;
CREATE UNIQUE INDEX IF NOT EXISTS actions_seat_client ON actions(game_id, seat, client_id)
    WHERE client_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_creator ON games(creator, status);
CREATE INDEX IF NOT EXISTS games_updated ON games(status, updated);
CREATE TRIGGER IF NOT EXISTS games_count_insert AFTER INSERT ON games BEGIN
    INSERT INTO game_counts VALUES (NEW.status, 1)
        ON CONFLICT(status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER IF NOT EXISTS games_count_delete AFTER DELETE ON games BEGIN
    UPDATE game_counts SET n = n - 1 WHERE status = OLD.status;
END;
CREATE TRIGGER IF NOT EXISTS games_count_update AFTER UPDATE OF status ON games
    WHEN OLD.status != NEW.status BEGIN
    UPDATE game_counts SET n = n - 1 WHERE status = OLD.status;
    INSERT INTO game_counts VALUES (NEW.status, 1)
        ON CONFLICT(status) DO UPDATE SET n = n + 1;
END;
""", postgres="""
ALTER TABLE games ADD COLUMN creator TEXT;
ALTER TABLE games ADD COLUMN salt TEXT;
ALTER TABLE games ADD COLUMN commitment TEXT;
ALTER TABLE games ADD COLUMN seed_chosen INTEGER;
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    finished DOUBLE PRECISION,
    status TEXT NOT NULL,
    total INTEGER NOT NULL,
    done INTEGER NOT NULL,
    budget TEXT NOT NULL,
    seed BIGINT NOT NULL,
    seats TEXT,
    record TEXT NOT NULL,
    result TEXT,
    error TEXT
);
CREATE INDEX jobs_status ON jobs(status, client);
CREATE TABLE job_reviews (
    job_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    review TEXT NOT NULL,
    PRIMARY KEY (job_id, idx)
);
CREATE TABLE game_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL);
INSERT INTO game_counts SELECT status, count(*) FROM games GROUP BY status;
DROP INDEX actions_client;
CREATE UNIQUE INDEX actions_seat_client ON actions(game_id, seat, client_id)
    WHERE client_id IS NOT NULL;
CREATE INDEX games_creator ON games(creator, status);
CREATE INDEX games_updated ON games(status, updated);
CREATE FUNCTION bigsur_count_games() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.status = NEW.status THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE game_counts SET n = n - 1 WHERE status = OLD.status;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO game_counts VALUES (NEW.status, 1)
            ON CONFLICT (status) DO UPDATE SET n = game_counts.n + 1;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER games_count AFTER INSERT OR DELETE OR UPDATE OF status ON games
    FOR EACH ROW EXECUTE FUNCTION bigsur_count_games();
"""),
    Migration(3, "a game's starting position (a game continued from a position)",
              sqlite="""
ALTER TABLE games ADD COLUMN start TEXT;  -- JSON bigsur-position/1; null: new_game's deal
""", postgres="""
ALTER TABLE games ADD COLUMN start TEXT;
"""),
    Migration(4, "analysis-job leases (several server processes); stored card sets",
              sqlite="""
ALTER TABLE jobs ADD COLUMN owner TEXT;        -- the server process running the job
ALTER TABLE jobs ADD COLUMN lease_until REAL;  -- another process may take it over after
CREATE INDEX IF NOT EXISTS jobs_lease ON jobs(status, lease_until);
CREATE TABLE IF NOT EXISTS cardsets (
    key TEXT NOT NULL,           -- the name in lower case (names differ in more than case)
    name TEXT NOT NULL,
    version INTEGER NOT NULL,    -- 1, 2, ... assigned by the server
    fingerprint TEXT NOT NULL,
    created REAL NOT NULL,
    body TEXT NOT NULL,          -- the card set's JSON (bigsur-cards/1)
    PRIMARY KEY (key, version)
);
""", postgres="""
ALTER TABLE jobs ADD COLUMN owner TEXT;
ALTER TABLE jobs ADD COLUMN lease_until DOUBLE PRECISION;
CREATE INDEX jobs_lease ON jobs(status, lease_until);
CREATE TABLE cardsets (
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (key, version)
);
"""),
    Migration(5, "the hosted game a review job is of (every process finds it)",
              sqlite="""
ALTER TABLE jobs ADD COLUMN game_id TEXT;  -- POST /v1/games/{id}/analysis; null: a record
CREATE INDEX IF NOT EXISTS jobs_game ON jobs(game_id, created);
""", postgres="""
ALTER TABLE jobs ADD COLUMN game_id TEXT;
CREATE INDEX jobs_game ON jobs(game_id, created);
"""),
    Migration(6, "the action ids of undone actions (a late retry is refused, not re-applied)",
              sqlite="""
CREATE TABLE IF NOT EXISTS undone_actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    client_id TEXT NOT NULL,     -- the action id the seat used for it
    action TEXT NOT NULL,        -- the action undone, as submitted
    created REAL NOT NULL,       -- when it was undone
    PRIMARY KEY (game_id, seat, client_id)
);
""", postgres="""
CREATE TABLE IF NOT EXISTS undone_actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    client_id TEXT NOT NULL,
    action TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seat, client_id)
);
"""),
)
SCHEMA_VERSION = MIGRATIONS[-1].version
GAME_COLUMNS = ("id", "players", "seed", "cards", "seats", "token_hashes", "status",
                "n_actions", "created", "updated", "creator", "salt", "commitment",
                "seed_chosen", "start")
JSON_GAME_COLUMNS = frozenset({"cards", "seats", "token_hashes", "start"})  # null stays None
ACTIVE_JOB = "status IN ('queued', 'running')"


class StoreError(ValueError):
    """A database setting that cannot be used (names the setting and why)."""


class StoreUnavailable(Exception):
    """The database did not answer in time (PostgreSQL down or out of connections,
    SQLite locked by another process): the request may be retried (503). ``public``:
    what a client is told (the details stay in the log)."""

    public = "the database is unavailable; retry shortly"


class StoreFull(StoreUnavailable):
    """The database cannot take a write for want of space (a full disk; SQLite's
    ``database or disk is full``, PostgreSQL's ``disk_full``): 503 until it can."""

    public = "the database is full; retry later"


class StoreUnreachable(StoreError, StoreUnavailable):
    """The database did not let us connect (down, refusing, a wrong password): at
    start-up a setting that cannot be used (one line, exit 2); later, as any outage, a
    503 ``unavailable`` (a store opened for one call, as the card sets' is)."""


class LimitReached(Exception):
    """A count limit checked inside a transaction: ``what`` is games / jobs / client."""

    def __init__(self, what: str, limit: int):
        self.what = what
        self.limit = limit
        super().__init__(f"{what}: limit {limit}")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, hashes: list[str | None]) -> int | None:
    """The seat whose token this is, comparing every hash in constant time."""
    given = token_hash(token)
    seat = None
    for i, h in enumerate(hashes):
        if h is not None and hmac.compare_digest(given, h):
            seat = i
    return seat


@dataclass
class GameRow:
    id: str
    players: int
    seed: int
    cards: Any
    seats: list[str]
    token_hashes: list[str | None]
    status: str
    n_actions: int
    created: float
    updated: float
    creator: str | None = None
    salt: str | None = None
    commitment: str | None = None
    seed_chosen: bool = False
    start: dict[str, Any] | None = None  # the starting position (bigsur-position/1)


@dataclass
class ActionRow:
    idx: int
    seat: int
    action: str
    submitted: str
    client_id: str | None


class Conflict(Exception):
    """A write that lost to a concurrent one: the action index or action id is taken, the
    game changed meanwhile, or (PostgreSQL) a serialisation failure. Replay and retry."""


# ------------------------------------------------------------------ backends

class Tx:
    """One open transaction: :meth:`execute` (``?`` placeholders), :meth:`serialize`."""

    def __init__(self, run, serialize):
        self._run = run
        self._serialize = serialize

    def execute(self, sql: str, args: tuple | list = ()):
        """Run one statement; the cursor has ``fetchone``, ``fetchall``, ``rowcount``."""
        return self._run(sql, tuple(args))

    def serialize(self, name: str) -> None:
        """Make transactions that check the same ``name`` (a count limit) run one at a
        time until this one ends."""
        self._serialize(name)


class SQLiteBackend:
    """One connection (WAL, ``synchronous=FULL``) serialised by a lock; a write
    transaction is ``BEGIN IMMEDIATE``, which already runs writers one at a time."""

    dialect = "sqlite"
    exclusive = True  # one server process per file: a restart may take over every job

    def __init__(self, path: str, wait: float = 2.0, setting: str = "BIGSUR_DB"):
        """``wait``: how long a call waits for another process's write lock (the server
        makes its calls in worker threads: the wait holds up the request, and the
        process's other store calls queue behind the connection's lock); ``setting``:
        the variable that named the database, for messages."""
        self.path = path
        self.setting = setting
        self.lock = threading.Lock()
        folder = Path(path).parent
        if path != ":memory:" and not folder.exists():  # (a typo: a new empty database)
            raise StoreError(f"{setting}: the folder {str(folder)!r} of {path!r} does not "
                             "exist; create it, or correct the path")
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                      timeout=wait)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
        except (sqlite3.DatabaseError, OSError) as err:
            raise StoreError(f"{setting}: cannot open {path!r} as a session database "
                             f"({err})") from None

    def describe(self) -> str:
        return repr(self.path)

    def refuse_if_down(self) -> None:
        """(PostgreSQL refuses calls at once during a known outage; a file never.)"""

    def lost(self) -> None:
        """(A call the file did not answer in time changes nothing for the next.)"""

    def unbounded(self, tx: Tx) -> None:
        """(No statement timeout to lift.)"""

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield Tx(self.db.execute, lambda _name: None)
                self.db.execute("COMMIT")
            except sqlite3.IntegrityError as err:
                self.db.execute("ROLLBACK")
                raise Conflict(str(err)) from None
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise

    @contextmanager
    def session(self) -> Iterator[None]:
        """Busy (another process holds the write lock past the timeout): unavailable;
        no room left (a full disk): :class:`StoreFull`."""
        try:
            yield
        except sqlite3.OperationalError as err:
            if "full" in str(err):  # "database or disk is full"
                raise StoreFull(f"the SQLite database {self.path!r} is full ({err})") \
                    from None
            if "locked" not in str(err) and "busy" not in str(err):
                raise
            raise StoreUnavailable(f"the SQLite database is locked ({err})") from None

    def query(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def run_script(self, tx: Tx, script: str) -> None:
        """Every statement of ``script`` inside ``tx`` (``executescript`` would commit)."""
        statement = ""
        for line in script.splitlines(keepends=True):
            statement += line
            if sqlite3.complete_statement(statement):
                tx.execute(statement)
                statement = ""

    def close(self) -> None:
        with self.lock:
            self.db.close()


_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&#]*)", re.I)


def _userinfo_end(rest: str) -> int:
    """Where the user-and-password part of a URL's text after ``://`` ends: its last
    ``@`` before the host (a password may hold an unencoded ``/``, ``@``, ``:`` or
    ``?``), not one in a query parameter's value (``?user=me@server``); -1 if none."""
    at = len(rest)
    while (at := rest.rfind("@", 0, at)) >= 0:
        query = rest.rfind("?", 0, at)
        if query < 0 or "=" not in rest[max(query, rest.rfind("&", 0, at)) + 1:at]:
            return at
    return -1


def url_secrets(url: str) -> list[str]:
    """The password of a database URL (in its user part or a ``password=`` parameter),
    decoded too, and the pieces a parser may quote apart (``a@b`` read as user ``a``,
    host ``b``...), longest first."""
    found = [m[2] for m in _QUERY_PASSWORD.finditer(url)]
    rest = url.split("://", 1)[-1]
    at = _userinfo_end(rest)
    if at >= 0 and ":" in rest[:at]:
        found.append(rest[:at].partition(":")[2])
    found += [unquote(f) for f in found]
    pieces = {p for f in found for p in re.split(r"[@/:?#&]", f) if len(p) >= 3}
    return sorted({f for f in found if f} | pieces, key=len, reverse=True)


def redact(url: str) -> str:
    """A database URL without its password (for messages and logs): ``user:***@host``,
    ``?password=***``."""
    scheme, sep, rest = _QUERY_PASSWORD.sub(r"\1***", url).partition("://")
    if not sep:
        scheme, rest = "", scheme
    at = _userinfo_end(rest)
    if at >= 0 and ":" in rest[:at]:
        rest = rest[:at].partition(":")[0] + ":***" + rest[at:]
    return scheme + sep + rest


def scrub(text: str, url: str) -> str:
    """``text`` (an error of the database's driver, which may quote the URL or pieces of
    it) with every form of ``url``'s password replaced by ``***``."""
    text = text.replace(url, redact(url))
    for secret in url_secrets(url):
        text = text.replace(secret, "***")
    return text


class PostgresBackend:
    """A psycopg connection pool; a transaction is one pooled connection. Writers of one
    game serialise on its row (``UPDATE ... WHERE n_actions = ?``: the second waits for
    the first, then finds the count changed); a checked limit takes an advisory lock."""

    dialect = "postgres"
    exclusive = False  # other processes share the database: jobs are taken over by lease
    # Once a call found the database down, every call is refused at once, without
    # asking, until a background thread finds it answering again (it asks every
    # PROBE_INTERVAL, waiting at most PROBE_WAIT): each call waiting out the pool's wait
    # made an outage cost every request that wait (when the calls still ran on the event
    # loop, three health checks once took 10, 20 and 50 s; a probe made by a request,
    # 1 s in every 5 s of an outage).
    PROBE_INTERVAL = 0.5
    PROBE_WAIT = 0.5
    # The pool tries a lost connection again at once, then gives up until it is asked
    # again (a request, the probe): each probe is then one connection attempt, at once,
    # and the first probe after the database is back brings it back. The pool's own
    # retries, with doubling delays (1, 2, 4 s...), left the database refused up to 4 s
    # after it answered (with psycopg_pool's 300 s of them, 32 s after a 200 s outage).
    RECONNECT_GIVE_UP = 0.0

    def __init__(self, url: str, pool_size: int = 10, wait: float = 2.0,
                 timeout: float = 3.0, setting: str = "BIGSUR_DB"):
        """``wait``: for a pooled connection, and for a new one to be made (libpq's
        ``connect_timeout``, whole seconds, at least 2); ``setting``: the variable that
        named the database, for messages; ``timeout``: each statement's
        ``statement_timeout`` (the database cancels it; a migration has none)."""
        try:
            import psycopg
            from psycopg_pool import ConnectionPool, PoolTimeout
        except ImportError:
            raise StoreError(f"{setting}: a postgresql:// database needs psycopg and "
                             "psycopg_pool (pip install 'psycopg[binary]' psycopg_pool)"
                             ) from None
        self.url = url
        self.setting = setting
        self.connect_timeout = max(2, math.ceil(wait))  # (libpq's least)
        try:  # one connection first: a refusal is said at once, with its reason
            psycopg.connect(url, connect_timeout=self.connect_timeout).close()
        except psycopg.Error as err:  # (a malformed URL is quoted whole in some messages)
            reason = scrub(" ".join(str(err).split()) or type(err).__name__, url)
            refused = StoreUnreachable if isinstance(err, psycopg.OperationalError) \
                else StoreError  # (not a malformed URL: that is no outage)
            raise refused(f"{setting}: cannot connect to PostgreSQL at {redact(url)} "
                          f"({reason})") from None
        self._errors = psycopg.errors
        self._unavailable = (psycopg.OperationalError, PoolTimeout)
        self._down_since: float | None = None  # (time.monotonic) while known down
        self._probe: threading.Thread | None = None
        self._probe_lock = threading.Lock()  # calls come from several threads
        self._closing = threading.Event()
        statement_ms = max(1, round(timeout * 1000))

        def configure(conn) -> None:
            conn.execute(f"SET statement_timeout = {statement_ms}")

        self.pool = ConnectionPool(url, min_size=1, max_size=pool_size, open=False,
                                   kwargs={"autocommit": True,
                                           "connect_timeout": self.connect_timeout},
                                   configure=configure, timeout=wait,
                                   reconnect_timeout=self.RECONNECT_GIVE_UP,
                                   check=ConnectionPool.check_connection,
                                   name="bigsur")
        try:
            self.pool.open(wait=True, timeout=15)
        except Exception as err:  # noqa: BLE001 - PoolTimeout, OperationalError: say where
            self.pool.close()
            raise StoreUnreachable(f"{setting}: cannot connect to PostgreSQL at "
                                   f"{redact(url)} ({type(err).__name__}: "
                                   f"{scrub(str(err), url)})") from None

    def describe(self) -> str:
        return redact(self.url)

    @staticmethod
    def _run(conn, sql: str, args: tuple):
        """``?`` placeholders as psycopg's ``%s``; a statement without arguments is sent
        as it is (several statements may go in one call then)."""
        if not args:
            return conn.execute(sql)
        return conn.execute(sql.replace("%", "%%").replace("?", "%s"), args)

    def _connection(self):
        """A pooled connection, waited for at most the pool's ``wait``."""
        return self.pool.connection()

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        errors = self._errors
        with self._connection() as conn:
            try:
                with conn.transaction():
                    yield Tx(lambda sql, args=(): self._run(conn, sql, args),
                             lambda name: conn.execute(
                                 "SELECT pg_advisory_xact_lock(hashtext(%s))", (name,)))
            except (errors.IntegrityError, errors.SerializationFailure,
                    errors.DeadlockDetected) as err:
                raise Conflict(str(err).splitlines()[0]) from None

    def refuse_if_down(self) -> None:
        """:class:`StoreUnavailable` at once, without asking, while the database is known
        down (until the probe finds it answering again)."""
        down = self._down_since
        if down is not None:
            raise StoreUnavailable(
                f"PostgreSQL at {redact(self.url)} has not answered for "
                f"{time.monotonic() - down:.0f} s; asked again every "
                f"{self.PROBE_INTERVAL + self.PROBE_WAIT:g} s")

    def lost(self) -> None:
        """A call the database did not answer in time (frozen, or cut off: nothing at
        all comes back): the database is down until the probe hears from it."""
        self._went_down()

    def unbounded(self, tx: Tx) -> None:
        """No statement timeout for the rest of ``tx`` (a migration: an index on many
        rows, waiting for another process's migration)."""
        tx.execute("SET LOCAL statement_timeout = 0")

    @contextmanager
    def session(self) -> Iterator[None]:
        """No connection within the pool's wait, or one lost: unavailable; and at once,
        without asking, until the probe finds the database answering again."""
        self.refuse_if_down()
        try:
            yield
        except self._errors.DiskFull as err:  # answering, but out of space
            raise StoreFull(f"PostgreSQL at {redact(self.url)} is full "
                            f"({scrub(str(err).splitlines()[0], self.url)})") from None
        except self._errors.QueryCanceled as err:  # statement_timeout: slow, not down
            raise StoreUnavailable(f"PostgreSQL at {redact(self.url)} did not answer in "
                                   f"time ({scrub(str(err).splitlines()[0], self.url)})"
                                   ) from None
        except self._unavailable as err:
            self._went_down()
            first = str(err).splitlines()[0] if str(err) else ""
            raise StoreUnavailable(f"PostgreSQL at {redact(self.url)} did not answer "
                                   f"({type(err).__name__}: {scrub(first, self.url)})"
                                   ) from None

    def _went_down(self) -> None:
        """Refuse every call from now on, and ask in the background until it answers."""
        with self._probe_lock:
            if self._down_since is None:
                self._down_since = time.monotonic()
            if self._probe is None or not self._probe.is_alive():
                self._probe = threading.Thread(target=self._ask_until_back, daemon=True,
                                               name="bigsur-db-probe")
                self._probe.start()

    def _ask_until_back(self) -> None:
        """The probe's thread: a connection every PROBE_INTERVAL, until one answers (the
        calls are then let through again) or the store closes."""
        while not self._closing.wait(self.PROBE_INTERVAL):
            try:
                with self.pool.connection(self.PROBE_WAIT) as conn:
                    conn.execute("SELECT 1")
            except Exception:  # noqa: BLE001 - still down, whatever the reason
                continue
            self._down_since = None
            return

    def query(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._connection() as conn:
            return self._run(conn, sql, args).fetchall()

    def run_script(self, tx: Tx, script: str) -> None:
        tx.execute(script)  # without parameters, several statements go in one call

    def close(self) -> None:
        self._closing.set()
        if self._probe is not None:  # (asking a frozen database: it is left behind)
            self._probe.join(self.PROBE_WAIT + self.connect_timeout)
        self.pool.close()


def open_backend(target: str, pool_size: int = 10, wait: float = 2.0,
                 timeout: float = 3.0,
                 setting: str = "BIGSUR_DB") -> SQLiteBackend | PostgresBackend:
    """The backend of a ``postgresql://`` URL or a SQLite file path (named by the
    variable ``setting`` in messages)."""
    if target.startswith(("postgresql://", "postgres://")):
        return PostgresBackend(target, pool_size, wait, timeout, setting)
    return SQLiteBackend(str(target), wait, setting)


_HELD_FILES: list[int] = []  # (descriptors kept open, and their locks held, till exit)


def hold_sqlite_file(path: str, setting: str = "BIGSUR_DB") -> None:
    """Make this process the one server of the SQLite file ``path`` until it ends, or
    StoreError naming ``setting``: two servers on one file each take the other's games
    and jobs for abandoned at start-up and play the AI's turns beside it. An advisory
    lock (``flock``) on the file itself, apart from SQLite's own (``fcntl``) locks; the
    descriptor is never closed, since closing any descriptor of a file drops every
    ``fcntl`` lock the process holds on it, SQLite's among them. Taken before the store
    opens the file, so that a refused server has not migrated it under the other."""
    import fcntl
    import os

    if path == ":memory:":
        return
    try:  # (an empty file is an empty SQLite database: the store makes its tables)
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        return  # no such folder, not a folder, not ours: the store says which, named
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)  # (before any SQLite connection of this process: nothing to drop)
        raise StoreError(f"{setting}: another bigsur serve is using {path!r} (one server "
                         "a SQLite file; several processes share a PostgreSQL database: "
                         "docs/deploy.md)") from None
    _HELD_FILES.append(fd)


# ------------------------------------------------------------------ the store

class Store:
    """Every query of the server, the same on both backends."""

    def __init__(self, target: str | Path, pool_size: int = 10, wait: float = 2.0,
                 timeout: float = 3.0, setting: str = "BIGSUR_DB"):
        """``wait``: seconds a request waits for the database before
        :class:`StoreUnavailable` (``BIGSUR_DB_WAIT_SECONDS``): for a PostgreSQL
        connection (a pooled one, or a new one being made), or for a SQLite write lock
        another process holds. ``timeout`` (``BIGSUR_DB_TIMEOUT_SECONDS``): for the
        database's answer (PostgreSQL's ``statement_timeout``). The server makes its calls
        through :meth:`in_thread`, so a wait holds up the request that made the call, not
        the process's other requests, and never longer than ``wait + timeout``.
        ``setting``: the variable that named the database (``BIGSUR_DATABASE_URL`` or
        ``BIGSUR_DB``), in the messages of a database that cannot be used."""
        self.backend = open_backend(str(target), pool_size, wait, timeout, setting)
        self.answer_within = wait + timeout
        self._late: set = set()  # calls the database never answered in time (threads)
        self.writes_failing: StoreFull | None = None  # the last write's, if it found no room
        self.dialect = self.backend.dialect
        self.exclusive = self.backend.exclusive
        # as many threads as connections (SQLite: its one), so that no call waits for a
        # connection another call holds (the pool would call that wait an outage)
        self._threads = ThreadPoolExecutor(
            max_workers=1 if self.dialect == "sqlite" else pool_size,
            thread_name_prefix="bigsur-store")
        try:
            self.migrate()
        except sqlite3.DatabaseError as err:
            self.backend.close()
            raise StoreError(f"{setting}: cannot open {self.backend.describe()} as a "
                             f"session database ({err})") from None
        except BaseException:
            self.backend.close()
            raise

    def close(self) -> None:
        late = bool(self._late)  # a call still waiting for a frozen database: not waited
        self._threads.shutdown(wait=not late, cancel_futures=late)
        if not late or self.dialect != "sqlite":  # (its one connection is the late call's)
            self.backend.close()

    async def in_thread(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``await store.in_thread(store.game, game_id)``: one of this store's calls made
        in the store's threads, so that a call waiting for the database (a reconnection,
        another process's lock) holds up only the request that made it, never the event
        loop and with it every other request of the process. A call the database has not
        answered within ``wait + timeout`` (a database frozen, or cut off: nothing comes
        back, not even an error) is :class:`StoreUnavailable`, and so is every call from
        then on, at once, until the database answers again (PostgreSQL's probe); its
        thread is left waiting."""
        self.backend.refuse_if_down()
        future = self._threads.submit(functools.partial(call, *args, **kwargs))
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.answer_within)
        except TimeoutError:
            self._late.add(future)
            future.add_done_callback(self._late.discard)
            self.backend.lost()
            raise StoreUnavailable(f"the database at {self.backend.describe()} did not "
                                   f"answer within {self.answer_within:g} s "
                                   "(BIGSUR_DB_WAIT_SECONDS + BIGSUR_DB_TIMEOUT_SECONDS)"
                                   ) from None

    def query(self, sql: str, args: tuple | list = ()) -> list[tuple]:
        """Rows of one read (``?`` placeholders, either backend)."""
        with self.backend.session():
            return self.backend.query(sql, tuple(args))

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """One transaction (:class:`Conflict` when it lost to a concurrent writer,
        :class:`StoreUnavailable` when the database did not answer, :class:`StoreFull`
        when it had no room: remembered in :attr:`writes_failing` until a write
        commits)."""
        try:
            with self.backend.session(), self.backend.transaction() as tx:
                yield tx
        except StoreFull as err:
            self.writes_failing = err
            raise
        self.writes_failing = None

    def check_writes(self) -> None:
        """:class:`StoreFull` while writes fail for want of room: the last one did, and a
        test write of a page's worth (inserted and deleted) fails too; else nothing (the
        health check: reads may go on answering while every write fails)."""
        if self.writes_failing is None:
            return
        with self.transaction() as tx:
            tx.execute("INSERT INTO meta (key, value) VALUES ('write-check', ?)",
                       ("x" * 8192,))
            tx.execute("DELETE FROM meta WHERE key='write-check'")

    def execute(self, sql: str, args: tuple | list = ()) -> int:
        """One statement in its own transaction; the number of rows it changed."""
        with self.transaction() as tx:
            return tx.execute(sql, args).rowcount

    # schema -----------------------------------------------------------------
    def schema_version(self) -> int:
        rows = self.query("SELECT value FROM meta WHERE key='schema'")
        return int(rows[0][0]) if rows else 0

    def migrate(self) -> list[int]:
        """Bring the database to :data:`SCHEMA_VERSION` (each step in one transaction;
        concurrent starts wait for one another); refuse a newer one. Returns the steps
        run."""
        ran = []
        with self.transaction() as tx:
            self.backend.unbounded(tx)
            tx.serialize("bigsur-schema")
            tx.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, "
                       "value TEXT NOT NULL)")
            row = tx.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            current = int(row[0]) if row else 0
            if current > SCHEMA_VERSION:
                raise StoreError(f"{self.backend.setting}: {self.backend.describe()} has "
                                 f"schema {current}, newer than this server's "
                                 f"{SCHEMA_VERSION}; "
                                 "run a newer server (a database is never migrated down)")
            for step in MIGRATIONS[current:]:
                self.backend.run_script(tx, getattr(step, self.dialect))
                ran.append(step.version)
            if ran:
                tx.execute("DELETE FROM meta WHERE key='schema'")
                tx.execute("INSERT INTO meta (key, value) VALUES ('schema', ?)",
                           (str(SCHEMA_VERSION),))
        return ran

    # games ----------------------------------------------------------------
    def create_game(self, game_id: str, players: int, seed: int, cards: Any,
                    seats: list[str], token_hashes: list[str | None], status: str,
                    creator: str | None = None, salt: str | None = None,
                    commitment: str | None = None, seed_chosen: bool = False,
                    max_active: int | None = None,
                    max_per_creator: int | None = None,
                    start: dict[str, Any] | None = None) -> None:
        """Insert a game; with limits, refuse (:class:`LimitReached`) inside the same
        transaction when the active games (not over), all or the creator's, are at it.
        ``start``: the position a game continued from a position starts from."""
        now = time.time()
        row = {"id": game_id, "created": now, "updated": now, "players": players,
               "seed": seed, "cards": json.dumps(cards), "seats": json.dumps(seats),
               "token_hashes": json.dumps(token_hashes), "status": status, "n_actions": 0,
               "creator": creator, "salt": salt, "commitment": commitment,
               "seed_chosen": int(seed_chosen),
               "start": json.dumps(start) if start is not None else None}
        with self.transaction() as tx:
            if max_active is not None or max_per_creator is not None:
                tx.serialize("bigsur-games")
            if max_active is not None:
                n = tx.execute("SELECT coalesce(sum(n), 0) FROM game_counts "
                               "WHERE status != 'over'").fetchone()[0]
                if n >= max_active:
                    raise LimitReached("games", max_active)
            if max_per_creator is not None and creator is not None:
                n = tx.execute("SELECT count(*) FROM games WHERE creator=? AND "
                               "status != 'over'", (creator,)).fetchone()[0]
                if n >= max_per_creator:
                    raise LimitReached("client", max_per_creator)
            tx.execute(f"INSERT INTO games ({', '.join(row)}) VALUES "
                       f"({', '.join('?' * len(row))})", list(row.values()))

    def game(self, game_id: str) -> GameRow | None:
        rows = self.query(f"SELECT {', '.join(GAME_COLUMNS)} FROM games WHERE id=?",
                          (game_id,))
        if not rows:
            return None
        values = {k: json.loads(v) if k in JSON_GAME_COLUMNS and v is not None else v
                  for k, v in zip(GAME_COLUMNS, rows[0], strict=True)}
        values["seed_chosen"] = bool(values["seed_chosen"])
        return GameRow(**values)

    def delete_game(self, game_id: str) -> bool:
        with self.transaction() as tx:
            tx.execute("DELETE FROM actions WHERE game_id=?", (game_id,))
            tx.execute("DELETE FROM undone_actions WHERE game_id=?", (game_id,))
            return tx.execute("DELETE FROM games WHERE id=?", (game_id,)).rowcount == 1

    def drop_last_action(self, game_id: str, n: int, status: str) -> bool:
        """Delete action ``n - 1``, the game's last (undo within a build step), and set
        the game's status, in one transaction guarded by the action count: False (and
        nothing changed) when the game has moved on. Its action id, if it had one, stays
        used (:meth:`undone_action`): a reader sees the action or the undone id."""
        now = time.time()
        with self.transaction() as tx:
            changed = tx.execute(
                "UPDATE games SET n_actions=?, status=?, updated=? WHERE id=? AND "
                "n_actions=?", (n - 1, status, now, game_id, n)).rowcount
            if changed == 1:
                tx.execute("INSERT INTO undone_actions (game_id, seat, client_id, action, "
                           "created) SELECT game_id, seat, client_id, submitted, ? FROM "
                           "actions WHERE game_id=? AND idx=? AND client_id IS NOT NULL "
                           "ON CONFLICT (game_id, seat, client_id) DO NOTHING",
                           (now, game_id, n - 1))
                tx.execute("DELETE FROM actions WHERE game_id=? AND idx=?", (game_id, n - 1))
        return changed == 1

    def idle_games(self, before: float, limit: int = 500) -> list[str]:
        """Games not over whose last change is older than ``before`` (abandoned)."""
        return [r[0] for r in self.query(
            "SELECT id FROM games WHERE status != 'over' AND updated < ? LIMIT ?",
            (before, limit))]

    def finished_games(self, before: float, limit: int = 500) -> list[str]:
        """Games over whose last move is older than ``before``."""
        return [r[0] for r in self.query(
            "SELECT id FROM games WHERE status = 'over' AND updated < ? LIMIT ?",
            (before, limit))]

    def actions(self, game_id: str, start: int = 0) -> list[ActionRow]:
        """The game's actions from index ``start`` on, in order."""
        return [ActionRow(*r) for r in self.query(
            "SELECT idx, seat, action, submitted, client_id FROM actions "
            "WHERE game_id=? AND idx >= ? ORDER BY idx", (game_id, start))]

    def client_action(self, game_id: str, seat: int, client_id: str) -> ActionRow | None:
        """The action a seat submitted with this id (ids are scoped per seat)."""
        rows = self.query("SELECT idx, seat, action, submitted, client_id FROM actions "
                          "WHERE game_id=? AND seat=? AND client_id=?",
                          (game_id, seat, client_id))
        return ActionRow(*rows[0]) if rows else None

    def undone_action(self, game_id: str, seat: int, client_id: str) -> str | None:
        """The action (as submitted) a seat used this id for and then undid, if it did."""
        rows = self.query("SELECT action FROM undone_actions WHERE game_id=? AND seat=? "
                          "AND client_id=?", (game_id, seat, client_id))
        return rows[0][0] if rows else None

    def append_action(self, game_id: str, idx: int, seat: int, action: str, submitted: str,
                      client_id: str | None, status: str) -> float:
        """Insert action ``idx`` and the game's new status in one committed transaction;
        :class:`Conflict` if the game no longer has ``idx`` actions (another writer was
        first) or the seat's action id is taken. Returns the game's new ``updated``."""
        now = time.time()
        with self.transaction() as tx:
            changed = tx.execute(
                "UPDATE games SET n_actions=?, status=?, updated=? WHERE id=? AND "
                "n_actions=?", (idx + 1, status, now, game_id, idx)).rowcount
            if changed != 1:
                raise Conflict(f"game {game_id}: action {idx} is not next")
            tx.execute("INSERT INTO actions (game_id, idx, seat, action, submitted, "
                       "client_id, created) VALUES (?,?,?,?,?,?,?)",
                       (game_id, idx, seat, action, submitted, client_id, now))
        return now

    def games_with_status(self, status: str) -> list[str]:
        return [r[0] for r in self.query(
            "SELECT id FROM games WHERE status=? ORDER BY updated", (status,))]

    def counts(self) -> dict[str, int]:
        """Games by status, kept by triggers (one row per status: O(1))."""
        return dict(self.query("SELECT status, n FROM game_counts WHERE n > 0"))

    # analysis jobs --------------------------------------------------------
    def create_job(self, job_id: str, client: str, total: int, budget: dict, seed: int,
                   seats: list[int] | None, record: dict, max_active: int,
                   max_per_client: int, owner: str | None = None,
                   lease_seconds: float = 30.0, game_id: str | None = None,
                   reuse: bool = False) -> str:
        """Insert a queued job leased to ``owner``, refusing (:class:`LimitReached`) in
        the same transaction when the active jobs, all or the client's, are at their
        limits; returns the id of the job. ``game_id``: the hosted game it reviews
        (:meth:`jobs_of_game`); with ``reuse``, the newest review of that game with the
        same budget, seed and seats that is neither failed nor cancelled is returned
        instead, looked up in the same transaction: every writer of jobs waits on one
        lock (``bigsur-jobs``), so two requests, on any processes, start one review."""
        now = time.time()
        with self.transaction() as tx:
            tx.serialize("bigsur-jobs")
            if reuse and game_id is not None:
                for other, other_budget, other_seed, other_seats in tx.execute(
                        "SELECT id, budget, seed, seats FROM jobs WHERE game_id=? AND "
                        "status NOT IN ('failed', 'cancelled') ORDER BY created DESC, "
                        "id DESC", (game_id,)).fetchall():
                    other_seats = json.loads(other_seats) if other_seats else None
                    if (json.loads(other_budget), other_seed, other_seats) == \
                            (budget, seed, seats):
                        return other
            n = tx.execute(f"SELECT count(*) FROM jobs WHERE {ACTIVE_JOB}").fetchone()[0]
            if n >= max_active:
                raise LimitReached("jobs", max_active)
            n = tx.execute(f"SELECT count(*) FROM jobs WHERE {ACTIVE_JOB} AND client=?",
                           (client,)).fetchone()[0]
            if n >= max_per_client:
                raise LimitReached("client", max_per_client)
            tx.execute(
                "INSERT INTO jobs (id, client, created, status, total, done, budget, seed, "
                "seats, record, owner, lease_until, game_id) "
                "VALUES (?,?,?,'queued',?,0,?,?,?,?,?,?,?)",
                (job_id, client, now, total, json.dumps(budget), seed, json.dumps(seats),
                 json.dumps(record), owner, now + lease_seconds if owner else None, game_id))
        return job_id

    def jobs_of_game(self, game_id: str) -> list[str]:
        """The review jobs of a hosted game still stored, oldest first."""
        return [r[0] for r in self.query("SELECT id FROM jobs WHERE game_id=? "
                                         "ORDER BY created, id", (game_id,))]

    def job(self, job_id: str) -> dict[str, Any] | None:
        rows = self.query(
            "SELECT id, client, status, total, done, budget, seed, seats, result, error, "
            "finished, owner FROM jobs WHERE id=?", (job_id,))
        if not rows:
            return None
        row = rows[0]
        return {"job_id": row[0], "client": row[1], "status": row[2],
                "progress": {"done": row[4], "total": row[3]}, "budget": json.loads(row[5]),
                "seed": row[6], "seats": json.loads(row[7]) if row[7] else None,
                "result": json.loads(row[8]) if row[8] else None,
                "error": json.loads(row[9]) if row[9] else None, "finished": row[10],
                "owner": row[11]}

    def job_record(self, job_id: str) -> dict[str, Any]:
        return json.loads(self.query("SELECT record FROM jobs WHERE id=?", (job_id,))[0][0])

    def jobs_with_status(self, *statuses: str) -> list[str]:
        marks = ",".join("?" * len(statuses))
        return [r[0] for r in self.query(f"SELECT id FROM jobs WHERE status IN ({marks}) "
                                         "ORDER BY created", statuses)]

    def active_jobs(self) -> int:
        return self.query(f"SELECT count(*) FROM jobs WHERE {ACTIVE_JOB}")[0][0]

    def claim_job(self, job_id: str, owner: str, lease_seconds: float,
                  take_over: bool = False) -> bool:
        """Lease an active job to ``owner`` if nobody holds it (no owner, or a lease run
        out); ``take_over``: whoever holds it (a restart of the only process)."""
        now = time.time()
        held = "" if take_over else " AND (owner IS NULL OR owner=? OR lease_until < ?)"
        args = (owner, now + lease_seconds, job_id) + (() if take_over else (owner, now))
        return self.execute(f"UPDATE jobs SET owner=?, lease_until=? WHERE id=? AND "
                           f"{ACTIVE_JOB}{held}", args) == 1

    def claimable_jobs(self, owner: str, take_over: bool = False) -> list[str]:
        """Active jobs without a live lease, and ``owner``'s own (the caller skips those
        it runs), oldest first; ``take_over``: every active job not already ``owner``'s."""
        if take_over:
            return [r[0] for r in self.query(
                f"SELECT id FROM jobs WHERE {ACTIVE_JOB} AND (owner IS NULL OR owner != ?) "
                "ORDER BY created", (owner,))]
        return [r[0] for r in self.query(
            f"SELECT id FROM jobs WHERE {ACTIVE_JOB} AND (owner IS NULL OR owner=? OR "
            "lease_until < ?) ORDER BY created", (owner, time.time()))]

    def renew_leases(self, owner: str, lease_seconds: float,
                     job_ids: list[str]) -> set[str]:
        """Extend ``owner``'s leases of ``job_ids`` (the jobs it runs: a job whose task
        ended without finishing it keeps its lease no longer); those it still holds (a
        job cancelled or taken over elsewhere is not among them)."""
        if not job_ids:
            return set()
        marks = ",".join("?" * len(job_ids))
        with self.transaction() as tx:
            tx.execute(f"UPDATE jobs SET lease_until=? WHERE owner=? AND {ACTIVE_JOB} AND "
                       f"id IN ({marks})", (time.time() + lease_seconds, owner, *job_ids))
            return {r[0] for r in tx.execute(
                f"SELECT id FROM jobs WHERE owner=? AND {ACTIVE_JOB} AND id IN ({marks})",
                (owner, *job_ids)).fetchall()}

    def release_jobs(self, owner: str) -> int:
        """Give up ``owner``'s leases (a clean shutdown: another process may resume)."""
        return self.execute("UPDATE jobs SET owner=NULL, lease_until=NULL WHERE owner=? AND "
                           f"{ACTIVE_JOB}", (owner,))

    def job_reviews(self, job_id: str) -> dict[int, dict]:
        return {i: json.loads(r) for i, r in self.query(
            "SELECT idx, review FROM job_reviews WHERE job_id=?", (job_id,))}

    def save_review(self, job_id: str, idx: int, review: dict, done: int,
                    owner: str | None = None) -> bool:
        """Store one reviewed decision of an active job (held by ``owner`` if given);
        False, and nothing stored, when the job ended or is held by another process."""
        guard, args = ("", ()) if owner is None else (" AND owner=?", (owner,))
        with self.transaction() as tx:
            if tx.execute(f"UPDATE jobs SET done=?, status='running' WHERE id=? AND "
                          f"{ACTIVE_JOB}{guard}", (done, job_id) + args).rowcount != 1:
                return False
            tx.execute("INSERT INTO job_reviews (job_id, idx, review) VALUES (?,?,?) "
                       "ON CONFLICT (job_id, idx) DO UPDATE SET review = excluded.review",
                       (job_id, idx, json.dumps(review)))
        return True

    def finish_job(self, job_id: str, status: str, result: dict | None,
                   error: dict | None, owner: str | None = None) -> bool:
        """Record the end of an active job (not of one cancelled meanwhile, nor, when
        ``owner`` is given, of one another process holds)."""
        guard, args = ("", ()) if owner is None else (" AND owner=?", (owner,))
        with self.transaction() as tx:
            n = tx.execute(
                f"UPDATE jobs SET status=?, result=?, error=?, finished=? WHERE id=? AND "
                f"{ACTIVE_JOB}{guard}",
                (status, json.dumps(result) if result is not None else None,
                 json.dumps(error) if error is not None else None, time.time(),
                 job_id) + args).rowcount
            if n == 1:
                tx.execute("DELETE FROM job_reviews WHERE job_id=?", (job_id,))
        return n == 1

    def cancel_job(self, job_id: str, error: dict) -> bool:
        return self.finish_job(job_id, "cancelled", None, error)

    def purge_jobs(self, before: float) -> int:
        """Delete jobs that finished before ``before``."""
        with self.transaction() as tx:
            ids = [r[0] for r in tx.execute(
                "SELECT id FROM jobs WHERE finished IS NOT NULL AND finished < ?",
                (before,)).fetchall()]
            for job_id in ids:
                tx.execute("DELETE FROM job_reviews WHERE job_id=?", (job_id,))
                tx.execute("DELETE FROM jobs WHERE id=?", (job_id,))
        return len(ids)

    # stored card sets -----------------------------------------------------
    def cardsets_latest(self) -> list[tuple]:
        """(name, version, fingerprint, created, body) of every set's latest version."""
        return self.query(
            "SELECT name, version, fingerprint, created, body FROM cardsets c WHERE "
            "version = (SELECT MAX(version) FROM cardsets d WHERE d.key = c.key) "
            "ORDER BY key")

    def cardset_versions(self, key: str, version: int | None = None) -> list[tuple]:
        """The versions of one set (oldest first), or the one ``version``."""
        if version is None:
            return self.query("SELECT name, version, fingerprint, created, body FROM "
                              "cardsets WHERE key=? ORDER BY version", (key,))
        return self.query("SELECT name, version, fingerprint, created, body FROM cardsets "
                          "WHERE key=? AND version=?", (key, version))

    def add_cardset(self, key: str, name: str, version: int, fingerprint: str, body: str,
                    max_stored: int) -> None:
        """Store a version; :class:`LimitReached` at ``max_stored`` versions in all,
        :class:`Conflict` if this version was stored meanwhile."""
        with self.transaction() as tx:
            tx.serialize("bigsur-cardsets")
            if tx.execute("SELECT count(*) FROM cardsets").fetchone()[0] >= max_stored:
                raise LimitReached("cardsets", max_stored)
            tx.execute("INSERT INTO cardsets (key, name, version, fingerprint, created, "
                       "body) VALUES (?,?,?,?,?,?)",
                       (key, name, version, fingerprint, time.time(), body))
