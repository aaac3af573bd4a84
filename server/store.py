"""Play sessions in SQLite (WAL): a game is its setup (players, seed, card set, seats,
token hashes) plus its list of applied actions, and is rebuilt by replay.

Every applied action is committed (``synchronous=FULL``) before the server answers, so
a crash loses nothing that was acknowledged. Tokens are never stored, only their
SHA-256; the server compares hashes with :func:`hmac.compare_digest`.

Only SQLite is supported; ``BIGSUR_DATABASE_URL`` accepts ``sqlite:///PATH`` so that a
server database can be added later behind the same methods.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
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
    n_actions INTEGER NOT NULL,
    creator TEXT,                -- who created it (client key), for per-client limits
    salt TEXT,                   -- hex; with the seed, revealed once the game is over
    commitment TEXT,             -- sha256("SEED:SALT"), published at creation
    seed_chosen INTEGER          -- 1 when the creator chose the seed (one human seat)
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
CREATE INDEX IF NOT EXISTS games_status ON games(status);
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
"""
# Run after SCHEMA (and after the migration of an older file): per-seat action ids, the
# per-client index, and counts of games by status kept by triggers (O(1) to read).
SCHEMA_2 = """
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
"""
MIGRATE_1_TO_2 = """
ALTER TABLE games ADD COLUMN creator TEXT;
ALTER TABLE games ADD COLUMN salt TEXT;
ALTER TABLE games ADD COLUMN commitment TEXT;
ALTER TABLE games ADD COLUMN seed_chosen INTEGER;
DELETE FROM game_counts;
INSERT INTO game_counts SELECT status, count(*) FROM games GROUP BY status;
"""


class StoreError(ValueError):
    """A database setting that cannot be used (names the setting and why)."""


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


@dataclass
class ActionRow:
    idx: int
    seat: int
    action: str
    submitted: str
    client_id: str | None


class Store:
    """The one connection to the session database (serialised by a lock)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None,
                                      check_same_thread=False, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as err:
            raise StoreError(f"BIGSUR_DB: cannot open {self.path!r} as a session "
                             f"database ({err})") from None
        self.lock = threading.Lock()
        with self.lock:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) == 1:
                self.db.executescript("BEGIN;" + MIGRATE_1_TO_2 +
                                      "UPDATE meta SET value='2' WHERE key='schema'; COMMIT;")
            elif int(row[0]) != SCHEMA_VERSION:
                raise StoreError(f"BIGSUR_DB: {self.path!r} has schema {row[0]}, this server "
                                 f"reads schema {SCHEMA_VERSION}")
            self.db.executescript(SCHEMA_2)

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # games ----------------------------------------------------------------
    def create_game(self, game_id: str, players: int, seed: int, cards: Any,
                    seats: list[str], token_hashes: list[str | None], status: str,
                    creator: str | None = None, salt: str | None = None,
                    commitment: str | None = None, seed_chosen: bool = False,
                    max_active: int | None = None,
                    max_per_creator: int | None = None) -> None:
        """Insert a game; with limits, refuse (:class:`LimitReached`) inside the same
        transaction when the active games (not over), all or the creator's, are at it."""
        now = time.time()
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                if max_active is not None:
                    n = self.db.execute("SELECT coalesce(sum(n), 0) FROM game_counts "
                                        "WHERE status != 'over'").fetchone()[0]
                    if n >= max_active:
                        raise LimitReached("games", max_active)
                if max_per_creator is not None and creator is not None:
                    n = self.db.execute("SELECT count(*) FROM games WHERE creator=? AND "
                                        "status != 'over'", (creator,)).fetchone()[0]
                    if n >= max_per_creator:
                        raise LimitReached("client", max_per_creator)
                self.db.execute(
                    "INSERT INTO games (id, created, updated, players, seed, cards, seats, "
                    "token_hashes, status, n_actions, creator, salt, commitment, seed_chosen) "
                    "VALUES (?,?,?,?,?,?,?,?,?,0,?,?,?,?)",
                    (game_id, now, now, players, seed, json.dumps(cards), json.dumps(seats),
                     json.dumps(token_hashes), status, creator, salt, commitment,
                     int(seed_chosen)))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def game(self, game_id: str) -> GameRow | None:
        with self.lock:
            row = self.db.execute(
                "SELECT id, players, seed, cards, seats, token_hashes, status, n_actions, "
                "created, updated, creator, salt, commitment, seed_chosen FROM games WHERE id=?",
                (game_id,)).fetchone()
        if row is None:
            return None
        return GameRow(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]),
                       json.loads(row[5]), row[6], row[7], row[8], row[9], row[10], row[11],
                       row[12], bool(row[13]))

    def delete_game(self, game_id: str) -> bool:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute("DELETE FROM actions WHERE game_id=?", (game_id,))
                n = self.db.execute("DELETE FROM games WHERE id=?", (game_id,)).rowcount
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        return n == 1

    def drop_last_action(self, game_id: str, n: int, status: str) -> bool:
        """Delete action ``n - 1``, the game's last (undo within a build step), and set
        the game's status, in one transaction guarded by the action count: False (and
        nothing changed) when the game has moved on."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                cur = self.db.execute(
                    "UPDATE games SET n_actions=?, status=?, updated=? WHERE id=? AND "
                    "n_actions=?", (n - 1, status, time.time(), game_id, n))
                if cur.rowcount == 1:
                    self.db.execute("DELETE FROM actions WHERE game_id=? AND idx=?",
                                    (game_id, n - 1))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        return cur.rowcount == 1

    def idle_games(self, before: float, limit: int = 500) -> list[str]:
        """Games not over whose last change is older than ``before`` (abandoned)."""
        with self.lock:
            return [r[0] for r in self.db.execute(
                "SELECT id FROM games WHERE status != 'over' AND updated < ? LIMIT ?",
                (before, limit))]

    def actions(self, game_id: str) -> list[ActionRow]:
        with self.lock:
            rows = self.db.execute(
                "SELECT idx, seat, action, submitted, client_id FROM actions "
                "WHERE game_id=? ORDER BY idx", (game_id,)).fetchall()
        return [ActionRow(*r) for r in rows]

    def client_action(self, game_id: str, seat: int, client_id: str) -> ActionRow | None:
        """The action a seat submitted with this id (ids are scoped per seat)."""
        with self.lock:
            row = self.db.execute(
                "SELECT idx, seat, action, submitted, client_id FROM actions "
                "WHERE game_id=? AND seat=? AND client_id=?",
                (game_id, seat, client_id)).fetchone()
        return ActionRow(*row) if row else None

    def append_action(self, game_id: str, idx: int, seat: int, action: str, submitted: str,
                      client_id: str | None, status: str) -> None:
        """Insert action ``idx`` and the game's new status in one committed transaction;
        fails (sqlite3.IntegrityError) if ``idx`` is taken or the client id reused."""
        now = time.time()
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                cur = self.db.execute(
                    "UPDATE games SET n_actions=?, status=?, updated=? "
                    "WHERE id=? AND n_actions=?", (idx + 1, status, now, game_id, idx))
                if cur.rowcount != 1:
                    raise sqlite3.IntegrityError(f"game {game_id}: action {idx} is not next")
                self.db.execute("INSERT INTO actions VALUES (?,?,?,?,?,?,?)",
                                (game_id, idx, seat, action, submitted, client_id, now))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def games_with_status(self, status: str) -> list[str]:
        with self.lock:
            return [r[0] for r in self.db.execute(
                "SELECT id FROM games WHERE status=? ORDER BY updated", (status,))]

    def counts(self) -> dict[str, int]:
        """Games by status, kept by triggers (one row per status: O(1))."""
        with self.lock:
            return dict(self.db.execute("SELECT status, n FROM game_counts WHERE n > 0"))

    # analysis jobs --------------------------------------------------------
    def _tx(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        with self.lock:
            return self.db.execute(sql, args)

    def create_job(self, job_id: str, client: str, total: int, budget: dict, seed: int,
                   seats: list[int] | None, record: dict, max_active: int,
                   max_per_client: int) -> None:
        """Insert a queued job, refusing (:class:`LimitReached`) in the same transaction
        when the active jobs, all or the client's, are at their limits."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                n = self.db.execute("SELECT count(*) FROM jobs WHERE status IN "
                                    "('queued', 'running')").fetchone()[0]
                if n >= max_active:
                    raise LimitReached("jobs", max_active)
                n = self.db.execute("SELECT count(*) FROM jobs WHERE status IN "
                                    "('queued', 'running') AND client=?", (client,)).fetchone()[0]
                if n >= max_per_client:
                    raise LimitReached("client", max_per_client)
                self.db.execute(
                    "INSERT INTO jobs (id, client, created, status, total, done, budget, seed, "
                    "seats, record) VALUES (?,?,?,'queued',?,0,?,?,?,?)",
                    (job_id, client, time.time(), total, json.dumps(budget), seed,
                     json.dumps(seats), json.dumps(record)))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def job(self, job_id: str) -> dict[str, Any] | None:
        with self.lock:
            row = self.db.execute(
                "SELECT id, client, status, total, done, budget, seed, seats, result, error, "
                "finished FROM jobs WHERE id=?", (job_id,)).fetchone()
        if row is None:
            return None
        return {"job_id": row[0], "client": row[1], "status": row[2],
                "progress": {"done": row[4], "total": row[3]}, "budget": json.loads(row[5]),
                "seed": row[6], "seats": json.loads(row[7]) if row[7] else None,
                "result": json.loads(row[8]) if row[8] else None,
                "error": json.loads(row[9]) if row[9] else None, "finished": row[10]}

    def job_record(self, job_id: str) -> dict[str, Any]:
        return json.loads(self._tx("SELECT record FROM jobs WHERE id=?",
                                   (job_id,)).fetchone()[0])

    def jobs_with_status(self, *statuses: str) -> list[str]:
        marks = ",".join("?" * len(statuses))
        return [r[0] for r in self._tx(f"SELECT id FROM jobs WHERE status IN ({marks}) "
                                       "ORDER BY created", statuses).fetchall()]

    def active_jobs(self) -> int:
        return self._tx("SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')"
                        ).fetchone()[0]

    def job_reviews(self, job_id: str) -> dict[int, dict]:
        return {i: json.loads(r) for i, r in self._tx(
            "SELECT idx, review FROM job_reviews WHERE job_id=?", (job_id,)).fetchall()}

    def save_review(self, job_id: str, idx: int, review: dict, done: int) -> None:
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute("INSERT OR REPLACE INTO job_reviews VALUES (?,?,?)",
                                (job_id, idx, json.dumps(review)))
                self.db.execute("UPDATE jobs SET done=?, status='running' WHERE id=? AND "
                                "status IN ('queued', 'running')", (done, job_id))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def set_job_status(self, job_id: str, status: str, only_if_active: bool = True) -> bool:
        cond = " AND status IN ('queued', 'running')" if only_if_active else ""
        return self._tx(f"UPDATE jobs SET status=? WHERE id=?{cond}",
                        (status, job_id)).rowcount == 1

    def finish_job(self, job_id: str, status: str, result: dict | None,
                   error: dict | None) -> bool:
        """Record the end of an active job (not of one cancelled meanwhile)."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                n = self.db.execute(
                    "UPDATE jobs SET status=?, result=?, error=?, finished=? WHERE id=? AND "
                    "status IN ('queued', 'running')",
                    (status, json.dumps(result) if result is not None else None,
                     json.dumps(error) if error is not None else None, time.time(),
                     job_id)).rowcount
                self.db.execute("DELETE FROM job_reviews WHERE job_id=?", (job_id,))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        return n == 1

    def cancel_job(self, job_id: str, error: dict) -> bool:
        return self.finish_job(job_id, "cancelled", None, error)

    def purge_jobs(self, before: float) -> int:
        """Delete jobs that finished before ``before``."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                ids = [r[0] for r in self.db.execute(
                    "SELECT id FROM jobs WHERE finished IS NOT NULL AND finished < ?",
                    (before,))]
                for job_id in ids:
                    self.db.execute("DELETE FROM job_reviews WHERE job_id=?", (job_id,))
                    self.db.execute("DELETE FROM jobs WHERE id=?", (job_id,))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        return len(ids)
