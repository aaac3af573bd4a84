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

SCHEMA_VERSION = 1
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
"""


class StoreError(ValueError):
    """A database setting that cannot be used (names the setting and why)."""


def db_path(db: str, database_url: str | None) -> str:
    """The SQLite path from ``BIGSUR_DATABASE_URL`` (``sqlite:///PATH``) or ``BIGSUR_DB``."""
    if not database_url:
        return db
    if database_url.startswith("sqlite:///"):
        return database_url[len("sqlite:///"):] or db
    scheme = database_url.split(":", 1)[0]
    raise StoreError(f"BIGSUR_DATABASE_URL: only sqlite:///PATH is supported for now, "
                     f"got a {scheme!r} URL")


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
            elif int(row[0]) != SCHEMA_VERSION:
                raise StoreError(f"BIGSUR_DB: {self.path!r} has schema {row[0]}, this server "
                                 f"reads schema {SCHEMA_VERSION}")

    def close(self) -> None:
        with self.lock:
            self.db.close()

    # games ----------------------------------------------------------------
    def create_game(self, game_id: str, players: int, seed: int, cards: Any,
                    seats: list[str], token_hashes: list[str | None], status: str) -> None:
        now = time.time()
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute(
                    "INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,0)",
                    (game_id, now, now, players, seed, json.dumps(cards), json.dumps(seats),
                     json.dumps(token_hashes), status))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def game(self, game_id: str) -> GameRow | None:
        with self.lock:
            row = self.db.execute(
                "SELECT id, players, seed, cards, seats, token_hashes, status, n_actions, "
                "created, updated FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            return None
        return GameRow(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]),
                       json.loads(row[5]), row[6], row[7], row[8], row[9])

    def actions(self, game_id: str) -> list[ActionRow]:
        with self.lock:
            rows = self.db.execute(
                "SELECT idx, seat, action, submitted, client_id FROM actions "
                "WHERE game_id=? ORDER BY idx", (game_id,)).fetchall()
        return [ActionRow(*r) for r in rows]

    def client_action(self, game_id: str, client_id: str) -> ActionRow | None:
        with self.lock:
            row = self.db.execute(
                "SELECT idx, seat, action, submitted, client_id FROM actions "
                "WHERE game_id=? AND client_id=?", (game_id, client_id)).fetchone()
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
        with self.lock:
            return dict(self.db.execute("SELECT status, count(*) FROM games GROUP BY status"))
