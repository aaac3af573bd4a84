"""What an operator meets running the service (docs/deploy.md): database outages in the
middle of work, the logs, the database URL's secrets, full disks, a restarted Dask
scheduler, a regular install."""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from session_testkit import auth, new_game, poll_job

from server.cluster import DaskWorkers
from server.errors import describe
from server.launch import ServerProcess, free_port
from server.netguard import RateLimitFilter, install_log_limits
from server.store import Store, StoreError, StoreUnavailable, StoreUnreachable
from solver.cli import play_random_game
from solver.rules.engine import new_game as new_game_state
from solver.rules.engine import play
from solver.rules.position import state_to_json


def outage(*_args, **_kwargs):
    raise StoreUnavailable("PostgreSQL at postgresql://bigsur@db/bigsur did not answer")


def test_a_job_whose_task_met_a_database_outage_is_resumed_once_it_is_back(make_client,
                                                                           monkeypatch):
    """The database goes away mid-review: saving a decision fails, and recording the
    job's failure fails too. The job stayed 'running' for ever (its task dead, its lease
    renewed by the keeper, so no process took it over, and it counted against
    BIGSUR_MAX_JOBS); it is resumed where it was once the database answers."""
    client = make_client(job_lease_seconds=0.3)
    store = client.app.state.store
    save_review, finish_job = store.save_review, store.finish_job
    down = threading.Event()

    def flaky_save(job_id, idx, *args, **kwargs):
        if idx == 3 and not down.is_set():
            down.set()  # the outage begins here...
            raise StoreUnavailable("PostgreSQL at postgresql://bigsur@db/bigsur did not "
                                   "answer (OperationalError: server closed the connection)")
        return save_review(job_id, idx, *args, **kwargs)

    def flaky_finish(job_id, status, *args, **kwargs):
        if status == "failed":  # ...and goes on: nor can a failure be recorded
            outage()
        return finish_job(job_id, status, *args, **kwargs)

    monkeypatch.setattr(store, "save_review", flaky_save)
    monkeypatch.setattr(store, "finish_job", flaky_finish)
    record = play_random_game(2, seed=13)
    record.actions = record.actions[:12]
    r = client.post("/v1/analyze", json={"record": record.to_json(), "budget": {"ms": 10}})
    assert r.status_code == 202, r.text
    done = poll_job(client, r.json()["job_id"], timeout=20)
    assert down.is_set()
    assert done["status"] == "done", done
    assert done["progress"]["done"] == done["progress"]["total"]
    assert client.get("/healthz").json()["jobs"] == 0  # no longer counted as active


# ------------------------------------------------------------------ logs

def log_record(name: str, msg: str, *args) -> logging.LogRecord:
    return logging.LogRecord(name, logging.INFO, __file__, 1, msg, args or None, None)


def test_the_log_limit_drops_floods_only_never_the_access_lines_of_requests():
    """The filter keyed on (logger, the first 40 characters of the format string):
    uvicorn's access line is one format string for every request, so the whole server
    logged about one request per 10 s; "Exception in ASGI application" was cut too."""
    f = RateLimitFilter(interval=60)
    access = [log_record("uvicorn.access", '%s - "%s %s HTTP/%s" %d', "10.0.0.1:5000", "GET",
                         f"/v1/games/g{i}", "1.1", 200) for i in range(50)]
    assert all(f.filter(r) for r in access)
    crashes = [log_record("uvicorn.error", "Exception in ASGI application\n")
               for _ in range(5)]
    assert all(f.filter(r) for r in crashes)
    assert all(f.filter(log_record("bigsur.server", "analysis job %s paused", i))
               for i in range(5))
    accepts = [log_record("asyncio", "socket.accept() out of system resource\nsocket: "
                          f"<socket fd={i}>") for i in range(1000)]
    assert sum(f.filter(r) for r in accepts) == 1
    invalid = [log_record("uvicorn.error", "Invalid HTTP request received.")
               for _ in range(100)]
    assert sum(f.filter(r) for r in invalid) == 1


def test_serve_limits_the_floods_on_their_loggers_not_the_access_log():
    logger = logging.getLogger("uvicorn.access")
    before = {name: list(logging.getLogger(name).filters)
              for name in ("asyncio", "uvicorn.error", "uvicorn.access")}
    try:
        f = install_log_limits(60)
        assert f not in logger.filters
        assert f in logging.getLogger("asyncio").filters
        assert f in logging.getLogger("uvicorn.error").filters
    finally:
        for name, filters in before.items():
            logging.getLogger(name).filters[:] = filters


def test_the_servers_own_messages_reach_the_log_with_their_level_and_logger(tmp_path):
    """bigsur.server had no handler: its INFO lines (games deleted, jobs taken over, the
    AI resumed) were never shown, its warnings printed bare by logging's last resort."""
    db = tmp_path / "games.db"
    store = Store(db)
    store.create_game("abandoned", 2, 1, "default", ["human", "human"], ["a", "b"], "human")
    store.close()
    log = tmp_path / "server.log"
    server = ServerProcess(db, env={"BIGSUR_WARM": "false", "BIGSUR_WORKERS": "1",
                                    "BIGSUR_GAME_IDLE_SECONDS": "0.001"},
                           log=log, log_level="info")
    with server:
        deadline = time.monotonic() + 20
        while "abandoned" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
    lines = log.read_text().splitlines()
    assert any(line.startswith("INFO:") and "bigsur.server: deleted 1 abandoned game(s)"
               in line for line in lines), lines


# ------------------------------------------------------------------ outages

def test_card_set_routes_are_503_while_the_database_is_down(client, monkeypatch):
    """The card-set routes answered a plain-text 500 while PostgreSQL was down: their
    store, opened per call then, raised a StoreError when it could not connect."""
    store = client.app.state.store
    monkeypatch.setattr(store, "cardsets_latest", outage)
    monkeypatch.setattr(store, "cardset_versions", outage)
    for method, path, body in [
            ("GET", "/v1/cardsets", None), ("GET", "/v1/cardsets/nosuchset", None),
            ("GET", "/v1/cards/nosuchset", None),
            ("POST", "/v1/score", {"position": {"cards": "nosuchset"}})]:
        r = client.request(method, path, json=body)
        assert r.status_code == 503, (path, r.status_code, r.text)
        assert r.json()["error"] == "unavailable" and r.headers["Retry-After"], r.text
    assert client.get("/v1/cards/default").status_code == 200  # no database needed


def test_metrics_answer_during_an_outage_and_give_every_game_status(client, monkeypatch):
    """/metrics answered 503 while the database was down, when an operator looks at it
    most, and a game status with no game had no series (a rate or an alert on it broke
    at 0). Every status has its series, 0 included; during an outage the process's own
    metrics are given with bigsur_database_up 0 and no stored counts (unknown, not 0)."""
    def series(text: str) -> dict[str, str]:
        return dict(line.rsplit(" ", 1) for line in text.splitlines()
                    if line and not line.startswith("#"))

    up = client.get("/metrics")
    assert up.status_code == 200, up.text
    now = series(up.text)
    assert now["bigsur_database_up"] == "1"
    for status in ("human", "ai", "over"):  # no game yet: each at 0
        assert now[f'bigsur_games{{status="{status}"}}'] == "0", up.text
    store = client.app.state.store
    monkeypatch.setattr(store, "counts", outage)
    monkeypatch.setattr(store, "active_jobs", outage)
    down = client.get("/metrics")
    assert down.status_code == 200, down.text
    during = series(down.text)
    assert during["bigsur_database_up"] == "0" and "bigsur_search_workers" in during
    assert not [k for k in during if k.startswith(("bigsur_games", "bigsur_jobs_active"))]
    assert client.get("/healthz").status_code == 503  # the health check still says it


def test_a_database_refusing_a_new_store_is_an_outage_not_a_500():
    """A store opened while the database refuses connections (the card sets' store,
    opened per call when no app runs): a StoreError, which errors.describe made a 500;
    it is an outage (503 unavailable), and still one line at start-up (a StoreError)."""
    with pytest.raises(StoreError) as err:
        Store("postgresql://bigsur:s3cret@127.0.0.1:1/bigsur", wait=1.0)
    status, body, headers = describe(err.value)
    assert status == 503 and body["error"] == "unavailable" and headers["Retry-After"]
    assert "s3cret" not in str(err.value) and "127.0.0.1" not in body["reason"]


def cluster_pids(cluster) -> list[int]:
    """The postmaster of a ThrowawayPostgres and its children (its backends too)."""
    postmaster = int((cluster.root / "data" / "postmaster.pid").read_text().split()[0])
    children = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                and _parent(p) == postmaster]
    return [postmaster, *children]


def _parent(proc: Path) -> int | None:
    try:
        stat = (proc / "stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2:].split()[1])


@contextmanager
def frozen(cluster, safety: float = 30):
    """Every process of the cluster stopped (SIGSTOP): a database that answers nothing,
    not even an error; thawed at the end, or after ``safety`` seconds whatever happens."""
    pids = cluster_pids(cluster)

    def thaw() -> None:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    timer = threading.Timer(safety, thaw)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        thaw()


@pytest.mark.parametrize("db_target", ["postgres"], indirect=True)
def test_a_frozen_database_is_a_503_within_the_bound_not_a_hang(make_client, db_target,
                                                                postgres_cluster):
    """PostgreSQL stopped with SIGSTOP: /healthz and a game's GET waited for the whole
    freeze (20 s), a connection being made too. A call not answered within
    BIGSUR_DB_WAIT_SECONDS + BIGSUR_DB_TIMEOUT_SECONDS is a 503, the next ones at once;
    the server answers again by itself once the database does."""
    client = make_client(db_wait_seconds=1.0, db_timeout_seconds=1.0)
    game_id, tokens = new_game(client, seats=["human", "human"])
    with frozen(postgres_cluster):
        for path in ("/healthz", f"/v1/games/{game_id}"):
            r = client.get(path, headers=auth(tokens[0]))
            assert r.status_code == 503, (path, r.text)
            assert r.json()["error"] == "unavailable" and r.headers["Retry-After"]
        with pytest.raises(StoreUnreachable):  # a new connection: libpq's connect_timeout
            Store(db_target, 1, wait=1.0, timeout=1.0)
    deadline = time.monotonic() + 30
    while client.get("/healthz").status_code != 200:
        assert time.monotonic() < deadline, "the server did not recover"
        time.sleep(0.1)
    assert client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).status_code == 200


@pytest.mark.parametrize("db_target", ["postgres"], indirect=True)
def test_a_card_set_request_first_to_meet_a_frozen_database_is_a_503(make_client, db_target,
                                                                     postgres_cluster):
    """The card-set routes call the database through the app's store threads, as the
    games do: the first request to meet a frozen database is a 503 within the bound (it
    waited for the whole freeze in a thread of its own)."""
    client = make_client(db_wait_seconds=1.0, db_timeout_seconds=1.0)
    with frozen(postgres_cluster, safety=15):  # (waited out, the lookup found nothing: 404)
        r = client.get("/v1/cardsets/nosuch")
    assert r.status_code == 503 and r.json()["error"] == "unavailable", r.text
    deadline = time.monotonic() + 30
    while client.get("/v1/cardsets/nosuch").status_code != 404:
        assert time.monotonic() < deadline, "the card-set routes did not recover"
        time.sleep(0.1)


# ------------------------------------------------------------------ the Dask cluster

@pytest.fixture
def local_clusters():
    """``start(port)`` -> a local Dask cluster on that scheduler port (its worker's
    threads in this process); every one is closed after the test's clients."""
    from distributed import LocalCluster

    started = []

    def start(port: int):
        started.append(LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                    protocol="tcp://", host="127.0.0.1",
                                    scheduler_port=port, dashboard_address=None))
        return started[-1]

    yield start
    for cluster in started:
        cluster.close()


def test_a_restarted_dask_scheduler_is_connected_again(local_clusters, make_client,
                                                       monkeypatch):
    """The scheduler restarted: the client gave up reconnecting and closed, and every
    hint was a 500 (ClosedClientError) for good, AI turns stopped, /healthz said ok.
    Meanwhile searches and /healthz are 503 unavailable; a new client connects."""
    monkeypatch.setattr(DaskWorkers, "CONNECT_TIMEOUT", 2.0, raising=False)  # (it gives up)
    port = free_port()
    cluster = local_clusters(port)
    client = make_client(fake=False, cluster=cluster.scheduler_address, warm=True,
                         max_budget_ms=5000, deadline_grace_ms=5000)
    hint = {"position": state_to_json(play(new_game_state(2, seed=6), "take deck")),
            "budget": {"iterations": 20}, "seed": 5}
    assert client.get("/healthz").json()["cluster"] == "connected"
    assert client.post("/v1/hint", json=hint).status_code == 200
    lost = client.app.state.search.runner.client
    cluster.close()
    deadline = time.monotonic() + 30
    while lost.status != "closed":  # it tries for its connect timeout, then closes
        assert time.monotonic() < deadline, lost.status
        time.sleep(0.1)
    for method, path, body in [("POST", "/v1/hint", hint), ("GET", "/healthz", None)]:
        r = client.request(method, path, json=body)
        assert r.status_code == 503, (path, r.text)
        assert r.json()["error"] == "unavailable" and r.headers["Retry-After"]
    local_clusters(port)  # the scheduler is back
    deadline = time.monotonic() + 60
    while (r := client.get("/healthz")).status_code != 200:
        assert time.monotonic() < deadline, r.text
        time.sleep(0.2)
    assert r.json()["cluster"] == "connected"
    r = client.post("/v1/hint", json=hint)
    assert r.status_code == 200, r.text


# ------------------------------------------------------------------ installing

def test_a_regular_install_carries_the_whole_page():
    """package-data "static/*" left out static/js/** (a wheel's page had no
    JavaScript): setuptools' own build_py lists the package data a wheel gets."""
    import warnings

    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    root = Path(__file__).resolve().parents[2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # [tool.setuptools] is "beta" to some versions
        dist = Distribution()
        apply_configuration(dist, str(root / "pyproject.toml"))
        build_py = dist.get_command_obj("build_py")
        build_py.ensure_finalized()
        build_py.manifest_files = {}  # (no MANIFEST.in: package-data alone)
        packaged = {Path(f).relative_to(root / "server").as_posix()
                    for f in build_py.find_data_files("server", str(root / "server"))}
    page = {p.relative_to(root / "server").as_posix()
            for p in (root / "server" / "static").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}
    assert "static/js/views/review-upload.js" in page
    assert page <= packaged, sorted(page - packaged)


def test_a_full_sqlite_disk_is_a_json_503_and_healthz_says_so(client):
    """sqlite3's 'database or disk is full' was a plain-text 500 while /healthz said ok
    (reads go on answering). The file is capped at its size (max_page_count), as a full
    disk does; once there is room again, both are back."""
    backend = client.app.state.store.backend
    with backend.lock:
        pages = backend.db.execute("PRAGMA page_count").fetchone()[0]
        backend.db.execute(f"PRAGMA max_page_count = {pages}")
    try:
        for _ in range(200):
            r = client.post("/v1/games", json={"players": 2, "seats": ["human", "human"]})
            if r.status_code != 201:
                break
        assert r.status_code == 503, r.text
        assert r.json()["error"] == "unavailable" and r.headers["Retry-After"]
        assert "the database is full" in r.json()["reason"]
        r = client.get("/healthz")
        assert r.status_code == 503 and "the database is full" in r.json()["reason"], r.text
    finally:
        with backend.lock:
            backend.db.execute("PRAGMA max_page_count = 1073741823")
    assert client.get("/healthz").status_code == 200
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "human"]})
    assert r.status_code == 201, r.text


def test_an_outage_503_is_one_log_line_not_a_traceback(client, monkeypatch, caplog):
    """Every 503 of an outage logged a full traceback at ERROR besides its warning."""
    monkeypatch.setattr(client.app.state.store, "counts", outage)
    with caplog.at_level(logging.INFO, logger="bigsur.server"):
        assert client.get("/healthz").status_code == 503
    mine = [r for r in caplog.records if r.name == "bigsur.server"]
    assert [r.levelname for r in mine] == ["WARNING"], [r.getMessage() for r in mine]
    assert mine[0].exc_info is None and "did not answer" in mine[0].getMessage()


# ------------------------------------------------------------------ docs/deploy.md

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_systemd_unit_of_deploy_md_runs_this_server():
    """The unit's command line is one `bigsur serve` takes, each variable it sets is a
    setting, and each BIGSUR_* variable deploy.md names is one."""
    import argparse

    from server.app import add_cli
    from server.settings import Settings

    text = (DOCS / "deploy.md").read_text()
    unit = re.search(r"```ini\n(# /etc/systemd/system/bigsur.service\n.*?)```", text, re.S)
    assert unit, "deploy.md has no systemd unit"
    lines = [line for line in unit[1].splitlines() if not line.startswith("#")]
    assert all("#" not in line for line in lines), "systemd has no comments after values"
    values = dict(line.split("=", 1) for line in lines if "=" in line)
    assert values["Restart"] in ("always", "on-failure")
    command = values["ExecStart"].split()
    assert command[0].endswith("/bigsur") and command[1] == "serve"
    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers())
    args = parser.parse_args(command[1:])
    assert args.host == "127.0.0.1" and args.port == 8000
    settings = {f"BIGSUR_{name.upper()}" for name in Settings.model_fields}
    for line in lines:
        if line.startswith("Environment="):
            assert line.split("=")[1] in settings, line
    named = set(re.findall(r"BIGSUR_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_]*\*)", text))
    assert named <= settings, sorted(named - settings)
