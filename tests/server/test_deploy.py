"""What an operator following docs/deploy.md meets: ``bigsur serve`` refusing a bad
setting or an unusable database in one line naming it (no traceback, exit status 2),
a database outage answered 503 over HTTP, and several processes on one database not
all searching the same AI turn because clients poll through each of them."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time

import pydantic
import pytest
import uvicorn
from session_testkit import BOTH_BACKENDS, auth, new_game

from server.app import main
from server.settings import Settings
from server.store import Store, StoreError, StoreUnavailable, redact


def serve(monkeypatch, capsys, env: dict[str, str], *argv: str) -> tuple[int, str]:
    """``python -m server`` with ``env``; (exit status, stderr). Every case here fails
    before uvicorn starts."""
    for name in ("BIGSUR_DB", "BIGSUR_DATABASE_URL", "BIGSUR_CARDS", "BIGSUR_WORKERS",
                 "BIGSUR_CLUSTER"):
        monkeypatch.setenv(name, "")  # (recorded: what serve sets is undone afterwards)
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(uvicorn.Server, "run", lambda *_a, **_k: pytest.fail(
        "bigsur serve started with a setting it should have refused"))
    code = main(["--port", "1", *argv])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("name, value, says", [
    ("BIGSUR_WORKERS", "-1", "BIGSUR_WORKERS: Input should be greater than or equal to 1"),
    ("BIGSUR_WORKERS", "four", "BIGSUR_WORKERS: Input should be a valid integer"),
    ("BIGSUR_JOB_LEASE_SECONDS", "0", "BIGSUR_JOB_LEASE_SECONDS: Input should be greater"),
    ("BIGSUR_POOL", "fork", "BIGSUR_POOL: Input should be 'process' or 'thread'"),
    ("BIGSUR_CLUSTER", "scheduler:8786", "BIGSUR_CLUSTER: must be tcp://HOST:PORT"),
    ("BIGSUR_DB", "", "BIGSUR_DB: empty"),
    ("BIGSUR_DEFAULT_AI", "alphazero", "BIGSUR_DEFAULT_AI: unknown bot 'alphazero'"),
    ("BIGSUR_DEFAULT_AI", "mcts:60s", "BIGSUR_DEFAULT_AI: 60s per move exceeds the limit"),
    ("BIGSUR_CARDS", "/nonexistent/cards.json", "/nonexistent/cards.json (BIGSUR_CARDS)"),
])
def test_a_bad_setting_stops_serve_with_one_line_naming_it(monkeypatch, capsys, tmp_path,
                                                           name, value, says):
    env = {"BIGSUR_DB": str(tmp_path / "games.db"), name: value}
    code, err = serve(monkeypatch, capsys, env)
    assert code == 2, err
    assert err.startswith("bigsur: error: ") and says in err, err
    assert "Traceback" not in err and "pydantic" not in err


@pytest.mark.parametrize("workers", ["0", "-2"])
def test_a_bad_workers_option_stops_serve_as_the_variable_does(monkeypatch, capsys,
                                                               tmp_path, workers):
    """--workers 0 was silently ignored (the core count ran instead)."""
    code, err = serve(monkeypatch, capsys, {"BIGSUR_DB": str(tmp_path / "games.db")},
                      "--workers", workers)
    assert code == 2, err
    assert err.startswith("bigsur: error: BIGSUR_WORKERS: Input should be greater than "
                          "or equal to 1"), err


def test_an_empty_database_setting_is_not_a_temporary_database():
    """sqlite3 opens "" as a private temporary database: every game would be lost at
    the next restart (an unset variable in a unit file: BIGSUR_DB=$DB)."""
    with pytest.raises(pydantic.ValidationError, match="BIGSUR_DB: empty"):
        Settings(db="")
    with pytest.raises(pydantic.ValidationError, match="BIGSUR_DATABASE_URL: empty"):
        Settings(database_url=" ")


def test_an_unusable_database_stops_serve_with_one_line(monkeypatch, capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, err = serve(monkeypatch, capsys, {"BIGSUR_DB": str(blocker / "games.db")})
    assert code == 2 and err.startswith("bigsur: error: BIGSUR_DB: cannot open"), err
    assert "Traceback" not in err
    started = time.monotonic()
    code, err = serve(monkeypatch, capsys,
                      {"BIGSUR_DB": "postgresql://bigsur:s3cret@127.0.0.1:1/bigsur"})
    assert code == 2 and "cannot connect to PostgreSQL" in err, err
    assert "Connection refused" in err and "s3cret" not in err and "Traceback" not in err
    assert time.monotonic() - started < 10  # said at once, not after the pool's 15 s


def test_the_refusal_names_the_variable_that_set_the_database(monkeypatch, capsys,
                                                              tmp_path):
    """A database set by BIGSUR_DATABASE_URL that refuses us (a wrong password, down)
    was said as "BIGSUR_DB: cannot connect...", a variable the operator never set."""
    code, err = serve(monkeypatch, capsys, {
        "BIGSUR_DATABASE_URL": "postgresql://bigsur:wrong@127.0.0.1:1/bigsur"})
    assert code == 2 and err.startswith("bigsur: error: BIGSUR_DATABASE_URL: cannot "
                                        "connect to PostgreSQL"), err
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, err = serve(monkeypatch, capsys,
                      {"BIGSUR_DATABASE_URL": f"sqlite:///{blocker}/games.db"})
    assert code == 2 and err.startswith("bigsur: error: BIGSUR_DATABASE_URL: cannot "
                                        "open"), err


def test_an_unreachable_dask_scheduler_stops_serve_with_one_line(monkeypatch, capsys,
                                                                 tmp_path):
    """It failed in uvicorn's start-up instead: a traceback and exit status 3."""
    from server.cluster import DaskWorkers
    from server.launch import free_port

    monkeypatch.setattr(DaskWorkers, "CONNECT_TIMEOUT", 1.0, raising=False)
    address = f"tcp://127.0.0.1:{free_port()}"
    code, err = serve(monkeypatch, capsys, {"BIGSUR_DB": str(tmp_path / "games.db"),
                                            "BIGSUR_CLUSTER": address})
    assert code == 2, err
    assert err.startswith(f"bigsur: error: BIGSUR_CLUSTER: no Dask scheduler answers at "
                          f"{address}") and err.count("\n") == 1, err


def test_the_db_option_wins_over_the_database_url_variable(monkeypatch, capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, err = serve(monkeypatch, capsys,
                      {"BIGSUR_DATABASE_URL": f"sqlite:///{tmp_path}/fine.db"},
                      "--db", str(blocker / "games.db"))
    assert code == 2 and str(blocker) in err, err  # the --db given, not the variable


@pytest.mark.parametrize("url, secret", [
    ("postgresql://127.0.0.1:1/bigsur?user=bigsur&password=s3cret-pw", "s3cret-pw"),
    ("postgresql://127.0.0.1:1/bigsur?password=s3cret-pw&user=bigsur", "s3cret-pw"),
    ("postgresql://bigsur:pw@s3cret-part@127.0.0.1:1/bigsur", "s3cret-part"),
    ("postgresql://bigsur:s3cret/part@127.0.0.1:1/bigsur", "s3cret"),
    ("postgresql://bigsur:s3cret?part@127.0.0.1:1/bigsur", "s3cret"),
])
def test_no_form_of_the_database_password_is_said_at_start_up(monkeypatch, capsys, url,
                                                               secret):
    """Only ``user:password@`` was redacted: a password given as a query parameter was
    printed whole, and one with an unencoded '@' or '/' in part (PostgreSQL's parser
    reads 'pw@s3cret-part@127.0.0.1' as the host 's3cret-part@127.0.0.1')."""
    code, err = serve(monkeypatch, capsys, {"BIGSUR_DB": url})
    assert code == 2 and "cannot connect to PostgreSQL" in err, err
    assert secret not in err and "127.0.0.1" in err, err
    assert secret not in redact(url) and "127.0.0.1" in redact(url)


def test_a_malformed_postgres_url_does_not_echo_its_password():
    with pytest.raises(StoreError) as err:
        Store("postgresql://bigsur:s3cret@[::1/bigsur")
    assert "s3cret" not in str(err.value) and "cannot connect to PostgreSQL" in str(err.value)


def test_a_database_outage_is_a_503_over_http(client, monkeypatch):
    """describe() maps StoreUnavailable to 503; the app must route it there too (it
    answered a plain-text 500 while PostgreSQL was down)."""
    def down(*_args, **_kwargs):
        raise StoreUnavailable("PostgreSQL at postgresql://bigsur@db/bigsur did not answer")

    monkeypatch.setattr(client.app.state.store, "counts", down)
    monkeypatch.setattr(client.app.state.store, "game", down)
    for path in ("/healthz", "/v1/games/some-game"):
        r = client.get(path, headers=auth("t"))
        assert r.status_code == 503, (path, r.status_code, r.text)
        assert r.json()["error"] == "unavailable" and r.headers["Retry-After"]
        assert "bigsur@" not in r.text


@BOTH_BACKENDS
def test_polling_another_process_does_not_search_the_same_ai_turn_again(make_client):
    """Two apps on one database (as two server processes behind a proxy): the AI turn
    runs where the game became the AI's turn; a GET through the other process does not
    start a second search of it, unless the turn has stalled (its process died)."""
    playing = make_client(ai_wait_seconds=0.1)
    other = make_client()
    other.app.state.store.exclusive = False  # SQLite: as if shared (PostgreSQL: it is)
    gate = threading.Event()
    search = playing.app.state.search
    real_turn = search.bot_turn

    async def slow_turn(*args, **kwargs):
        await asyncio.to_thread(gate.wait, 30)
        return await real_turn(*args, **kwargs)

    search.bot_turn = slow_turn
    try:
        r = playing.post("/v1/games", json={"players": 2, "seats": ["random", "human"],
                                            "seed": 1})  # seat 0 (the AI) starts
        assert r.status_code == 201, r.text
        game_id, token = r.json()["game_id"], r.json()["tokens"][0]["token"]
        view = other.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        assert view["ai_thinking"] and view["to_act"] == 0
        assert game_id not in other.app.state.games.ai_tasks  # not searched twice
        other.app.state.games.ai_turn_seconds = lambda: 0.0  # the turn has stalled
        other.get(f"/v1/games/{game_id}", headers=auth(token))
        assert game_id in other.app.state.games.ai_tasks  # taken over
        deadline = time.monotonic() + 30
        while other.get(f"/v1/games/{game_id}", headers=auth(token)).json()["ai_thinking"]:
            assert time.monotonic() < deadline, "the stalled AI turn was never played"
            time.sleep(0.05)
    finally:
        gate.set()
    deadline = time.monotonic() + 30
    while not playing.app.state.games.ai_tasks[game_id].done():  # drops its late copy
        assert time.monotonic() < deadline
        time.sleep(0.05)
    view = playing.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    assert view["your_turn"] and [e["seat"] for e in view["log"]] == \
        [0] * len(view["log"])  # the AI's one turn, stored once


def test_serve_passes_the_trusted_proxy_addresses_to_uvicorn(monkeypatch, tmp_path):
    """deploy.md: behind a proxy on another host, its address must be trusted for
    X-Forwarded-For, else every client counts as the proxy (one client's limits)."""
    import server.netguard as netguard
    from server.launch import free_port

    seen = []

    class FakeServer:
        def __init__(self, config):
            seen.append(config)

        def run(self, sockets=None):
            seen.append(sockets)

    monkeypatch.setattr(uvicorn, "Server", FakeServer)
    monkeypatch.setattr(uvicorn.Config, "load", lambda self: None)
    monkeypatch.setattr(netguard, "install_log_limits", lambda: None)
    monkeypatch.setattr(netguard.GuardedH11Protocol, "configure",
                        classmethod(lambda cls, *_args: cls))
    monkeypatch.setenv("BIGSUR_WARM", "false")
    assert main(["--db", str(tmp_path / "games.db"), "--port", str(free_port()),
                 "--forwarded-allow-ips", "10.0.0.5"]) == 0
    assert seen[0].forwarded_allow_ips == "10.0.0.5"

def test_a_sqlite_file_locked_by_another_writer_is_unavailable_after_the_wait(tmp_path):
    """Another process holding the file's write lock: a write waits ``wait`` (the server's
    BIGSUR_DB_WAIT_SECONDS), then StoreUnavailable (503); it waited 30 s on the event
    loop. Once the lock is let go, the write goes through."""
    path = str(tmp_path / "locked.db")
    store = Store(path, wait=0.3)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # the other writer's lock
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="locked"):
            store.purge_jobs(time.time())
        assert time.monotonic() - started < 3.0
        other.execute("COMMIT")
        assert store.purge_jobs(time.time()) == 0
    finally:
        other.close()
        store.close()


def test_a_write_waiting_for_the_database_holds_up_only_its_own_request(make_client,
                                                                        db_target):
    """Another process holds the SQLite file's write lock: a POSTed action waits for it
    (up to BIGSUR_DB_WAIT_SECONDS) while the process answers other requests. The store's
    calls ran on the event loop: GET /v1/cards waited behind the write until the write
    gave up (503), and the write never saw the lock let go."""
    client = make_client(db_wait_seconds=5.0)
    game_id, tokens = new_game(client, seats=["human", "human"])
    token = tokens[0]
    legal = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()["legal_actions"]
    other = sqlite3.connect(db_target, isolation_level=None)
    answers: list = []
    try:
        other.execute("BEGIN IMMEDIATE")  # the other writer's lock
        write = threading.Thread(target=lambda: answers.append(client.post(
            f"/v1/games/{game_id}/actions", headers=auth(token),
            json={"action": legal[0], "action_id": "held"})))
        write.start()
        time.sleep(0.5)  # the write is waiting for the lock now
        assert client.get("/v1/cards").status_code == 200
        assert write.is_alive() and not answers  # answered while the write still waits
        other.execute("COMMIT")
        write.join(10)
    finally:
        other.close()
    assert [r.status_code for r in answers] == [200], [r.text for r in answers]
    view = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    assert view["actions_applied"] == 1


@pytest.mark.parametrize("db_target", ["postgres"], indirect=True)
def test_the_connection_wait_is_a_setting_short_by_default(make_client):
    """BIGSUR_DB_WAIT_SECONDS reaches the pool: the first call to meet an outage holds up
    its process that long (the calls are made one at a time, so the wait is only for a
    reconnection). The default is short: 10 s stalled every request of the process."""
    assert Settings().db_wait_seconds <= 2.0
    client = make_client(db_wait_seconds=0.7)
    assert client.app.state.store.backend.pool.timeout == 0.7



def test_a_postgres_outage_is_refused_at_once_after_the_first_wait_and_recovers(
        monkeypatch):
    """A real outage (the server stopped, its data kept): the first call waits for the
    pool and fails; the next ones are refused without asking the pool, while a thread
    asks in the background; once the database is back the store answers again by
    itself. Before, every call waited the pool's full ``wait`` on the event loop, then
    one call in every 5 s asked, waiting up to 1 s there."""
    from server.launch import ThrowawayPostgres
    from server.store import PostgresBackend

    cluster = ThrowawayPostgres()
    try:
        cluster.start()
    except Exception as err:  # noqa: BLE001 - as the postgres_cluster fixture
        if os.environ.get("BIGSUR_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL did not start: {err}", pytrace=False)
        pytest.skip(f"no PostgreSQL on this machine ({err})")
    store = Store(cluster.create_database(), wait=2.0)
    try:
        assert store.backend.pool.reconnect_timeout == PostgresBackend.RECONNECT_GIVE_UP
        asked = []  # the pool's connection() calls: (thread, timeout)
        pool_connection = store.backend.pool.connection
        monkeypatch.setattr(store.backend.pool, "connection",
                            lambda timeout=None: asked.append(
                                (threading.current_thread().name, timeout))
                            or pool_connection(timeout))
        here = threading.current_thread().name
        assert store.counts() == {} and asked == [(here, None)]
        cluster.pause()
        with pytest.raises(StoreUnavailable, match="did not answer"):
            store.counts()
        for _ in range(3):
            with pytest.raises(StoreUnavailable, match="has not answered for"):
                store.counts()
            with pytest.raises(StoreUnavailable, match="has not answered for"):
                store.game("g")
        time.sleep(2.5 * PostgresBackend.PROBE_INTERVAL)
        with pytest.raises(StoreUnavailable, match="has not answered for"):
            store.counts()
        mine = [t for name, t in asked if name == here]
        probes = [t for name, t in asked if name == "bigsur-db-probe"]
        assert mine == [None, None]  # the refusals asked nothing
        assert probes and set(probes) == {PostgresBackend.PROBE_WAIT}
        cluster.resume()
        deadline = time.monotonic() + 60
        while True:
            try:
                assert store.counts() == {}
                break
            except StoreUnavailable:
                assert time.monotonic() < deadline, "the store did not recover"
                time.sleep(0.2)
        assert [t for name, t in asked if name == here][-1] is None  # the pool's full wait
        assert not store.backend._probe.is_alive()  # the probe ended once it answered
    finally:
        store.close()
        cluster.stop()
