"""An operator's leftovers (docs/deploy.md): misspelt settings said at start-up, finished
games deleted after BIGSUR_KEEP_FINISHED_DAYS, a Dask outage logged one line per failed
AI turn, /healthz back promptly after a PostgreSQL outage, a BIGSUR_DB in a folder that
does not exist refused."""

from __future__ import annotations

import gc
import logging
import re
import threading
import time
from pathlib import Path

import pytest
from session_testkit import BOTH_BACKENDS, auth, new_game, serve_refused

from server.cluster import ClusterUnavailable
from server.launch import ServerProcess
from server.settings import OTHER_VARIABLES, Settings, unknown_variables
from server.store import Store, StoreUnavailable

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ unknown variables

def test_serve_warns_of_each_bigsur_variable_that_is_not_a_setting(tmp_path):
    """BIGSUR_MAX_BUDGET=5000 (for BIGSUR_MAX_BUDGET_MS) or BIGSUR_WORKER=2 started the
    server on the defaults without a word. Each is one warning naming the closest
    setting; the variables read elsewhere (tests, the search's model) are not named."""
    log = tmp_path / "server.log"
    env = {"BIGSUR_WARM": "false", "BIGSUR_WORKERS": "1", "BIGSUR_MAX_BUDGET": "5000",
           "BIGSUR_WORKER": "2", "BIGSUR_NOTHING_LIKE_IT": "x", "BIGSUR_FULL": "0",
           "BIGSUR_REQUIRE_POSTGRES": "0", "bigsur_queue_size": "10"}
    with ServerProcess(tmp_path / "games.db", env=env, log=log, log_level="info"):
        pass
    warnings = [line for line in log.read_text().splitlines()
                if line.startswith("WARNING:") and "is not a setting" in line]
    assert sorted(w.split("bigsur.server: ", 1)[1] for w in warnings) == [
        "BIGSUR_MAX_BUDGET is not a setting (did you mean BIGSUR_MAX_BUDGET_MS?); ignored",
        "BIGSUR_NOTHING_LIKE_IT is not a setting; ignored",
        "BIGSUR_WORKER is not a setting (did you mean BIGSUR_WORKERS?); ignored"], warnings


def test_serve_options_given_as_variables_are_pointed_at_the_option():
    assert unknown_variables({"BIGSUR_PORT": "80"}) == [
        "BIGSUR_PORT is not a setting (bigsur serve takes --port); ignored"]


def test_every_bigsur_variable_the_code_reads_is_a_setting_or_known():
    """A variable read outside Settings (the tests', the benchmarks', the search's) must
    be listed in OTHER_VARIABLES, or bigsur serve would call it unknown."""
    settings = {f"BIGSUR_{name.upper()}" for name in Settings.model_fields}
    lists = {Path(__file__).resolve(), ROOT / "server" / "settings.py"}  # (misspellings)
    named = set()
    for folder in ("solver", "server", "bench", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if path not in lists:
                named |= set(re.findall(r"BIGSUR_[A-Z0-9_]*[A-Z0-9]\b", path.read_text()))
    assert named - settings <= set(OTHER_VARIABLES), sorted(named - settings
                                                            - set(OTHER_VARIABLES))
    assert not unknown_variables({name: "1" for name in named})


def wait_for(predicate, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


# ------------------------------------------------------------------ finished games

DAY = 86400


def stored_game(store: Store, game_id: str, status: str, days_ago: float) -> None:
    """A game with one action, last changed ``days_ago``."""
    store.create_game(game_id, 2, 1, "default", ["human", "human"], ["a", "b"], "human")
    store.append_action(game_id, 0, 0, "take deck", "take deck", None, status)
    store.execute("UPDATE games SET updated=? WHERE id=?",
                  (time.time() - days_ago * DAY, game_id))


@BOTH_BACKENDS
def test_finished_games_older_than_the_setting_are_deleted_by_the_sweep(make_client,
                                                                        db_target):
    """Finished games were kept for ever. With BIGSUR_KEEP_FINISHED_DAYS, the sweep
    that deletes abandoned games deletes those finished longer ago, with their actions;
    a game in progress is never deleted by it, however old."""
    store = Store(db_target)
    stored_game(store, "old-finished", "over", days_ago=3)
    stored_game(store, "new-finished", "over", days_ago=1)
    stored_game(store, "old-in-progress", "human", days_ago=30)
    store.close()
    client = make_client(keep_finished_days=2, game_idle_seconds=365 * DAY)
    store = client.app.state.store
    wait_for(lambda: store.game("old-finished") is None, "the old finished game was kept")
    assert store.actions("old-finished") == []
    assert store.game("new-finished") is not None
    assert store.game("old-in-progress") is not None
    assert len(store.actions("old-in-progress")) == 1


def test_finished_games_are_kept_for_ever_by_default(make_client, db_target):
    store = Store(db_target)
    stored_game(store, "finished", "over", days_ago=3000)
    stored_game(store, "abandoned", "human", days_ago=30)  # (deleted by the same sweep)
    store.close()
    client = make_client()
    store = client.app.state.store
    wait_for(lambda: store.game("abandoned") is None, "the sweep did not run")
    assert store.game("finished") is not None


@pytest.mark.parametrize("value", ["-1", "0", "soon", "nan", "inf"])
def test_a_bad_keep_finished_days_stops_serve_naming_it(tmp_path, value):
    code, err = serve_refused(env={"BIGSUR_DB": str(tmp_path / "games.db"),
                               "BIGSUR_KEEP_FINISHED_DAYS": value})
    assert code == 2, err
    assert err.startswith("bigsur: error: BIGSUR_KEEP_FINISHED_DAYS: "), err
    assert len(err.splitlines()) == 1 and not (tmp_path / "games.db").exists(), err


# ------------------------------------------------------------------ a Dask outage

@pytest.mark.parametrize("failure, expected", [
    (ClusterUnavailable("BIGSUR_CLUSTER: the Dask scheduler at tcp://10.0.0.20:8786 is not "
                        "connected (reconnecting)"), True),
    (RuntimeError("a bug"), False)])
def test_an_ai_turn_failing_in_an_outage_is_one_log_line(make_client, caplog, failure,
                                                          expected):
    """While the Dask scheduler was down each failed AI turn logged a traceback at ERROR;
    an outage (as the database's 503s) is one WARNING line with its reason. A bug keeps
    its traceback."""
    client = make_client()
    runner = client.app.state.search.runner

    async def down(*_args, **_kwargs):
        raise failure

    runner.run = down
    with caplog.at_level(logging.INFO, logger="bigsur.server"):
        game_id, tokens = new_game(client, seats=["greedy", "human"])
        wait_for(lambda: client.app.state.games.ai_errors == 1, "the AI did not fail")
        r = client.get(f"/v1/games/{game_id}", headers=auth(tokens[1]))  # (asks again)
        assert r.status_code == 200 and r.json()["ai_thinking"], r.text
        wait_for(lambda: client.app.state.games.ai_errors == 2, "the AI was not restarted")
        wait_for(lambda: client.app.state.games.ai_tasks[game_id].done(),
                 "the AI task did not end")
        # the failed task dropped with its game: no second word of the failure
        assert client.delete(f"/v1/games/{game_id}", headers=auth(tokens[1])).status_code \
            == 204
        gc.collect()
    assert not [r.getMessage() for r in caplog.records if r.name == "asyncio"]
    mine = [r for r in caplog.records  # (the game service's: not the start-up's line)
            if r.name == "bigsur.server" and r.module == "sessions"]
    assert len(mine) == 2, [r.getMessage() for r in mine]
    for record in mine:
        assert game_id in record.getMessage()
        if expected:
            assert record.levelname == "WARNING" and record.exc_info is None
            assert str(failure) in record.getMessage() and "\n" not in record.getMessage()
        else:
            assert record.levelname == "ERROR" and record.exc_info[1] is failure


# ------------------------------------------------------------------ after an outage

def test_after_an_outage_no_retry_of_the_pool_waits_longer_than_a_probe(postgres_cluster,
                                                                       monkeypatch):
    """/healthz answered 2.7 s after the database came back where deploy.md said 1.0 s:
    the probe asked through the pool, whose own retries of a lost connection wait 1, 2,
    4 s between attempts, so the database was refused until the pool's next attempt
    (0.8 to 4.0 s in three runs). The pool now retries at once and gives up, and each
    probe is an attempt. (How many probes the reconnection takes is the machine's: a
    count asserted here failed on a loaded machine.)"""
    store = Store(postgres_cluster.create_database(), 2, wait=1.0, timeout=1.0)
    backend = store.backend
    back = threading.Event()
    probes: list[bool] = []  # the probe's requests to the pool: was the database back?
    delays: list[float] = []  # the pool's own retries: how long each was put off
    connection, schedule = backend.pool.connection, backend.pool.schedule_task
    monkeypatch.setattr(backend.pool, "connection", lambda timeout=None: (
        threading.current_thread().name == "bigsur-db-probe" and probes.append(
            back.is_set())) or connection(timeout))
    monkeypatch.setattr(backend.pool, "schedule_task", lambda task, delay: (
        delays.append(delay), schedule(task, delay))[1])

    def answers() -> bool:
        try:
            return store.counts() == {}
        except StoreUnavailable:
            return False

    try:
        assert answers()
        postgres_cluster.pause()
        try:
            assert not answers()
            wait_for(lambda: len(probes) >= 4, "the probe did not ask", timeout=60)
        finally:
            postgres_cluster.resume()
            back.set()
        wait_for(answers, "the store did not answer again", timeout=60)
    finally:
        store.close()
    # how soon is the pool's to say: no retry of its own is put off longer than a probe
    # (1, 2, 4 s before); how many probes a reconnection takes is the machine's speed
    assert max(delays, default=0.0) <= backend.PROBE_INTERVAL, delays


def test_the_pools_warnings_of_an_outage_are_limited_in_the_servers_format():
    """With a connection attempt a second while PostgreSQL is down, psycopg_pool's
    warnings (bare, through logging's last resort) would be three lines a second: each
    is said once per 10 s, in the server's format; its other warnings pass."""
    from server.app import install_pool_log_limits, log_config

    config = log_config("info")["loggers"]["psycopg.pool"]
    assert config["handlers"] == ["bigsur"] and config["level"] == logging.WARNING
    logger = logging.getLogger("psycopg.pool")
    f = install_pool_log_limits(60)
    try:
        def record(msg: str, *args) -> logging.LogRecord:
            return logger.makeRecord("psycopg.pool", logging.WARNING, __file__, 1, msg, args,
                                     None)

        refused = [record("error connecting in %r: %s", "bigsur", "connection refused")
                   for _ in range(30)]
        gave_up = [record("reconnection attempt in pool %r failed after %s sec", "bigsur",
                          0.0) for _ in range(30)]
        assert sum(map(f.filter, refused)) == 1 and sum(map(f.filter, gave_up)) == 1
        assert all(f.filter(record("discarding broken connection: %s", i)) for i in range(5))
    finally:
        logger.removeFilter(f)


# ------------------------------------------------------------------ BIGSUR_DB's folder

@pytest.mark.parametrize("variable", ["BIGSUR_DB", "BIGSUR_DATABASE_URL"])
def test_a_database_in_a_folder_that_does_not_exist_stops_serve(tmp_path, variable):
    """A typo in BIGSUR_DB's folder created that folder and a new empty database there,
    the server starting without a word on no games. One line names the variable and the
    folder (exit 2); nothing is created."""
    (tmp_path / "bigsur").mkdir()
    db = tmp_path / "bigsru" / "games.db"
    value = f"sqlite:///{db}" if variable == "BIGSUR_DATABASE_URL" else str(db)
    code, err = serve_refused(env={variable: value})
    assert code == 2, err
    assert err == (f"bigsur: error: {variable}: the folder {str(db.parent)!r} of "
                   f"{str(db)!r} does not exist; create it, or correct the path\n"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bigsur"]


def test_a_database_in_a_folder_that_exists_is_created(tmp_path):
    log = tmp_path / "server.log"
    with ServerProcess(tmp_path / "games.db", env={"BIGSUR_WARM": "false",
                                                   "BIGSUR_WORKERS": "1"}, log=log):
        pass
    assert (tmp_path / "games.db").is_file()
