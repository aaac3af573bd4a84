"""`bigsur serve`'s start and stop as an operator meets them (docs/deploy.md): a port
already taken and a SQLite file another server has are refused before the start-up
touches any game or job, and a SIGTERM ends the process as a normal exit."""

from __future__ import annotations

import socket
import tempfile
import urllib.request
from pathlib import Path

import httpx
from session_testkit import seed_where, serve_refused

from server.launch import ServerProcess, free_port

ENV = {"BIGSUR_WARM": "false", "BIGSUR_WORKERS": "1"}


def healthy(url: str) -> bool:
    with urllib.request.urlopen(url + "/healthz", timeout=10) as answer:
        return answer.status == 200


def test_a_second_server_on_one_sqlite_file_is_refused_and_the_first_goes_on(tmp_path):
    """Two servers on one SQLite file both started: each took the other's games and jobs
    for abandoned at start-up and played the AI's turns beside it."""
    db = tmp_path / "games.db"
    with ServerProcess(db, env=ENV) as first:
        code, err = serve_refused("--db", str(db))
        assert code == 2, err
        assert err == (f"bigsur: error: BIGSUR_DB: another bigsur serve is using "
                       f"{str(db)!r} (one server a SQLite file; several processes share "
                       "a PostgreSQL database: docs/deploy.md)\n")
        assert healthy(first.url)
    with ServerProcess(db, env=ENV) as again:  # the lock goes with the process
        assert healthy(again.url)


def test_a_port_already_taken_is_refused_before_the_start_up(tmp_path):
    """It exited 3 after the whole start-up, which on a shared database took over the
    running server's jobs first."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = serve_refused("--db", str(tmp_path / "games.db"), "--port", str(port))
    assert code == 2, err
    assert err.startswith(f"bigsur: error: --host 127.0.0.1 --port {port}: cannot listen ("), err
    assert err.count("\n") == 1, err


def test_a_sigterm_is_a_normal_exit_that_leaves_no_temporary_folder(tmp_path):
    """uvicorn ends a SIGTERM's graceful shutdown by raising the signal again: the
    process died of it, without its exit handlers, and multiprocessing's pymp-* folder
    of the search processes stayed in /tmp at every stop."""
    # a short folder (the suite's, not tmp_path): the search processes' forkserver makes
    # a socket in it, and a socket's path has at most 107 characters
    scratch = Path(tempfile.mkdtemp(prefix="sig"))
    server = ServerProcess(tmp_path / "games.db",  # (warm: its search processes started)
                           env={"BIGSUR_WORKERS": "1", "TMPDIR": str(scratch)})
    server.start()
    try:
        assert any(scratch.iterdir())  # the search processes' folder, while it runs
        assert server.stop() == 0
    finally:
        server.kill()
    assert list(scratch.iterdir()) == []
    scratch.rmdir()


def test_the_start_up_log_names_the_database_and_the_search_workers(tmp_path):
    """No line said which database (a wrong BIGSUR_DB in a folder that exists is a new
    empty one), its schema, or how many search processes the server runs."""
    from server.store import SCHEMA_VERSION

    log = tmp_path / "server.log"
    db = tmp_path / "games.db"
    with ServerProcess(db, env={**ENV, "BIGSUR_WORKERS": "2"}, log=log, log_level="info"):
        pass
    text = log.read_text()
    assert (f"bigsur.server: database {str(db)!r} (schema {SCHEMA_VERSION}); 2 search "
            "worker(s); card sets: default") in text, text


def test_the_port_is_held_from_the_check_on_so_a_second_start_meanwhile_is_refused():
    """The check bound the port without listening: a second server started while the
    first was still starting (warm-up, games resumed) bound it too (SO_REUSEADDR),
    passed the check and took over a shared database's games before failing."""
    from server.app import listen_on

    port = free_port()
    first = listen_on("127.0.0.1", port)
    try:
        try:
            second = listen_on("127.0.0.1", port)
        except OSError:
            second = None
        for sock in second or []:
            sock.close()
        assert second is None
    finally:
        for sock in first:
            sock.close()
    again = listen_on("127.0.0.1", port)  # free once the first is closed
    for sock in again:
        sock.close()


def test_a_host_name_listens_on_each_of_its_addresses():
    """As uvicorn's own start (asyncio's create_server) does: localhost is 127.0.0.1
    and, where the machine has it, ::1."""
    from server.app import listen_on

    expected = {info[4][0] for info in socket.getaddrinfo(
        "localhost", 0, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)}
    sockets = listen_on("localhost", free_port())
    try:
        assert {sock.getsockname()[0] for sock in sockets} == expected
    finally:
        for sock in sockets:
            sock.close()


def test_a_sigterm_tells_the_games_of_the_stop_before_the_previous_handler_runs():
    """A SIGTERM to the server's process group ends its search workers at once, before
    uvicorn's shutdown: the AI turns they searched were logged as failures (ERROR and a
    traceback) unless the game service heard of the stop first."""
    import os
    import signal

    from server.app import _tell_games_of_a_stop

    heard: list[str] = []

    class Games:
        def stop_asked(self) -> None:
            heard.append("games")

    original = signal.signal(signal.SIGTERM, lambda signum, frame: heard.append("uvicorn"))
    try:
        _tell_games_of_a_stop(Games())
        os.kill(os.getpid(), signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, original)
    assert heard == ["games", "uvicorn"]


def test_a_server_refused_for_a_sqlite_file_in_use_leaves_it_unmigrated(tmp_path):
    """The lock was taken after the store had opened (and migrated) the file: a newer
    server started beside a running older one upgraded the schema under it first."""
    import sqlite3
    import subprocess
    import sys

    from test_store_migration import write_v2_file

    db = tmp_path / "old.db"
    write_v2_file(db, seed_where())
    holder = subprocess.Popen(  # the running server's lock (bigsur serve's flock)
        [sys.executable, "-c", "import fcntl, os, sys, time; "
         "fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); "
         "print('held', flush=True); time.sleep(120)", str(db)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        code, err = serve_refused("--db", str(db))
    finally:
        holder.kill()
        holder.wait()
    assert code == 2 and "another bigsur serve is using" in err, err
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("2",)


def test_a_tmpdir_too_long_for_a_socket_path_still_serves(tmp_path):
    """A TMPDIR over 75 characters made the path of the search processes' forkserver
    socket too long ("AF_UNIX path too long"): bigsur serve stopped at start-up, exit 3
    and a traceback. Their folder is in /tmp then, said in one warning, and removed at
    the stop."""
    import re

    from server.app import MAX_TMPDIR
    from solver.rules.engine import new_game
    from solver.rules.position import state_to_json

    deep = tmp_path / ("d" * 80)
    deep.mkdir()
    log = tmp_path / "server.log"
    server = ServerProcess(tmp_path / "games.db",  # (warm: its search processes started)
                           env={"BIGSUR_WORKERS": "1", "TMPDIR": str(deep)}, log=log)
    server.start()
    try:
        hint = httpx.post(server.url + "/v1/hint", timeout=60, json={
            "position": state_to_json(new_game(2, seed=3)), "budget": {"iterations": 20}})
        assert hint.status_code == 200, hint.text
        said = re.findall(r"TMPDIR is too long for the search processes' socket "
                          rf"\({len(str(deep))} characters, at most {MAX_TMPDIR}\): "
                          r"their folder is (\S+)", log.read_text())
        assert len(said) == 1 and Path(said[0]).is_dir(), log.read_text()
        assert server.stop() == 0
    finally:
        server.kill()
    assert not Path(said[0]).exists() and list(deep.iterdir()) == []


def test_a_tmpdir_too_long_with_no_system_folder_to_use_is_one_line(tmp_path, monkeypatch,
                                                                     capsys):
    """Where no system folder can hold the socket, the start stops before anything is
    opened, with one line naming TMPDIR, its length and what to do."""
    from server import app

    deep = str(tmp_path / ("d" * 80))
    monkeypatch.setattr(tempfile, "tempdir", deep)
    monkeypatch.setattr(app, "SYSTEM_TEMP_FOLDERS", (str(tmp_path / "none"),))
    monkeypatch.setenv("BIGSUR_DB", str(tmp_path / "games.db"))
    assert app.main(["--port", str(free_port()), "--db", str(tmp_path / "games.db")]) == 2
    err = capsys.readouterr().err
    assert err == (f"bigsur: error: TMPDIR: {deep!r} ({len(deep)} characters) is too long "
                   f"for the search processes' socket (at most {app.MAX_TMPDIR} characters), "
                   f"and none of {tmp_path / 'none'} is writable: set TMPDIR to a shorter "
                   "folder\n")
    assert not (tmp_path / "games.db").exists()
