"""Schema 3 of the session database: the nullable ``games.start`` column (the position a
game continued from a position starts from), and the in-place upgrade of a schema-2 file."""

from __future__ import annotations

import json
import sqlite3
import time

from session_testkit import auth, seed_where

from server.store import SCHEMA_VERSION, Store, token_hash
from solver.rules.engine import legal_actions, new_game, play
from solver.rules.position import state_to_json

# The games, actions and jobs tables exactly as schema 2 wrote them (frozen on purpose).
V2_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL,
    players INTEGER NOT NULL, seed INTEGER NOT NULL, cards TEXT NOT NULL,
    seats TEXT NOT NULL, token_hashes TEXT NOT NULL, status TEXT NOT NULL,
    n_actions INTEGER NOT NULL, creator TEXT, salt TEXT, commitment TEXT,
    seed_chosen INTEGER);
CREATE TABLE actions (game_id TEXT NOT NULL REFERENCES games(id), idx INTEGER NOT NULL,
    seat INTEGER NOT NULL, action TEXT NOT NULL, submitted TEXT NOT NULL, client_id TEXT,
    created REAL NOT NULL, PRIMARY KEY (game_id, idx));
CREATE INDEX games_status ON games(status);
CREATE TABLE game_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL);
CREATE TABLE jobs (id TEXT PRIMARY KEY, client TEXT NOT NULL, created REAL NOT NULL,
    finished REAL, status TEXT NOT NULL, total INTEGER NOT NULL, done INTEGER NOT NULL,
    budget TEXT NOT NULL, seed INTEGER NOT NULL, seats TEXT, record TEXT NOT NULL,
    result TEXT, error TEXT);
CREATE TABLE job_reviews (job_id TEXT NOT NULL, idx INTEGER NOT NULL, review TEXT NOT NULL,
    PRIMARY KEY (job_id, idx));
INSERT INTO meta VALUES ('schema', '2');
"""


def write_v2_file(path, seed: int) -> str:
    """A schema-2 file holding one game (seat 0 human) with its first action applied;
    returns that action."""
    state = new_game(2, seed=seed)
    assert state.current == 0
    first = legal_actions(state)[0].notation()
    db = sqlite3.connect(path)
    db.executescript(V2_SCHEMA)
    now = time.time()  # recent: an idle game would be expired at start-up
    db.execute("INSERT INTO games VALUES ('old', ?, ?, 2, ?, '\"default\"', ?, ?, ?, 1, "
               "'me', NULL, NULL, 0)",
               (now, now, seed, json.dumps(["human", "human"]),
                json.dumps([token_hash("a" * 32), token_hash("b" * 32)]),
                "human"))
    db.execute("INSERT INTO actions VALUES ('old', 0, 0, ?, ?, NULL, ?)", (first, first, now))
    db.execute("INSERT INTO game_counts VALUES ('human', 1)")
    db.commit()
    db.close()
    return first


def test_a_schema_2_file_is_upgraded_in_place_and_keeps_its_games(tmp_path):
    path = tmp_path / "v2.db"
    first = write_v2_file(path, seed_where())
    store = Store(path)
    assert SCHEMA_VERSION >= 3
    assert store.schema_version() == SCHEMA_VERSION
    columns = {r[1]: r for r in store.query("PRAGMA table_info(games)")}
    assert "start" in columns and columns["start"][3] == 0  # nullable
    row = store.game("old")
    assert row is not None and row.start is None and row.n_actions == 1
    assert [a.action for a in store.actions("old")] == [first]
    store.close()
    Store(path).close()  # opening an upgraded file again is a no-op


def test_the_old_game_still_loads_and_plays_through_the_server(make_client, tmp_path):
    seed = seed_where()
    write_v2_file(tmp_path / "games.db", seed)  # the file make_client's server opens
    client = make_client()
    r = client.get("/v1/games/old", headers=auth("b" * 32))
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["actions_applied"] == 1
    mover = "a" * 32 if data["to_act"] == 0 else "b" * 32
    legal = client.get("/v1/games/old", headers=auth(mover)).json()["legal_actions"]
    r = client.post("/v1/games/old/actions", headers=auth(mover),
                    json={"action": legal[0], "action_id": "x1"})
    assert r.status_code == 200, r.text
    assert r.json()["actions_applied"] == 2


def test_a_start_position_round_trips_and_a_game_without_one_reads_null(tmp_path):
    store = Store(tmp_path / "new.db")
    state = new_game(3, seed=4)
    start = state_to_json(play(state, legal_actions(state)[0]))
    store.create_game("from-position", 3, 0, "default", ["human", "greedy", "greedy"],
                      ["h", None, None], "human", start=start)
    store.create_game("dealt", 2, 9, "default", ["human", "greedy"], ["h", None], "human")
    assert store.game("from-position").start == start
    assert store.game("dealt").start is None
    store.close()


def test_a_newer_schema_is_refused_naming_the_setting(tmp_path):
    path = tmp_path / "future.db"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value='99' WHERE key='schema'")
    db.commit()
    db.close()
    try:
        Store(path)
    except ValueError as err:
        assert "BIGSUR_DB" in str(err) and "schema 99" in str(err)
    else:
        raise AssertionError("a schema-99 file was opened")
