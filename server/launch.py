"""Run the server as a child process on a free loopback port, and a throwaway PostgreSQL
cluster for it (tests and benchmarks).

    with ServerProcess(db="games.db", env={"BIGSUR_WORKERS": "2"}) as srv:
        httpx.get(srv.url + "/healthz")

The child is the leader of its own process group, so :meth:`ServerProcess.kill` (SIGKILL
to the group: the server and its search workers at once, as a crash would) leaves no
orphan behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    def __init__(self, db: str | Path, env: dict[str, str] | None = None,
                 port: int | None = None, log: str | Path | None = None,
                 log_level: str = "warning"):
        self.db = str(db)
        self.env = dict(env or {})
        self.port = port or free_port()
        self.log = log
        self.log_level = log_level
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> ServerProcess:
        env = {**os.environ, **self.env}
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", str(self.port), "--db", self.db,
             "--log-level", self.log_level],
            env=env, stdout=out, stderr=out, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode} at start-up"
                                   + (f" (log: {self.log})" if self.log else ""))
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"server did not answer /healthz within {timeout} s")

    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        """SIGKILL the server and its workers (its whole process group)."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(30)
        self.proc = None

    def stop(self, timeout: float = 30) -> int | None:
        """SIGTERM (graceful shutdown); SIGKILL if it takes longer than ``timeout``."""
        if self.proc is None:
            return None
        proc = self.proc
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()  # the workers too, whatever the server did
        return code

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# ------------------------------------------------------------------ PostgreSQL

def postgres_bindir() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``: on PATH, else Debian's
    ``/usr/lib/postgresql/VERSION/bin`` (newest first); None without PostgreSQL."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent  # a symlink on PATH: the real bin directory
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                        key=lambda p: int(p.parent.parent.name)
                        if p.parent.parent.name.isdigit() else 0, reverse=True)
    return candidates[0].parent if candidates else None


class ThrowawayPostgres:
    """A PostgreSQL cluster in a temporary directory, on a free loopback port (its unix
    socket in the same directory), for tests and benchmarks; :meth:`stop` deletes it.

    ``initdb`` refuses to run as root: as root the cluster runs as ``postgres`` (Debian's
    package creates that user) or else ``nobody``. Durability is off (``fsync=off``):
    the tests kill servers, never the database, and a throwaway cluster need not survive
    a power cut. Never use these settings for real games."""

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.root: Path | None = None
        self.bindir: Path | None = None
        self._dbs = 0

    @staticmethod
    def _user() -> str | None:
        """Whom to run PostgreSQL as when we are root (None: ourselves)."""
        if os.geteuid() != 0:
            return None
        import pwd

        for name in ("postgres", "nobody"):
            try:
                pwd.getpwnam(name)
                return name
            except KeyError:
                continue
        raise RuntimeError("running as root, and neither a 'postgres' nor a 'nobody' user "
                           "exists to run PostgreSQL as (initdb refuses root)")

    def _run(self, *args: str, timeout: float = 120) -> None:
        user = self._user()
        prefix = ["runuser", "-u", user, "--"] if user else []
        done = subprocess.run(prefix + list(args), capture_output=True, text=True,
                              timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed ({done.returncode}): "
                               f"{done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> ThrowawayPostgres:
        self.bindir = postgres_bindir()
        if self.bindir is None:
            raise RuntimeError("PostgreSQL's initdb was found neither on PATH nor in "
                               "/usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)")
        self.root = Path(tempfile.mkdtemp(prefix="bigsur-pg-"))
        user = self._user()
        if user is not None:
            import pwd

            entry = pwd.getpwnam(user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        data = self.root / "data"
        try:
            self._run(str(self.bindir / "initdb"), "-D", str(data), "-U", "bigsur",
                      "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions")
            self.resume()
        except BaseException:
            log = self.root / "postgres.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            self.stop()
            if tail:
                raise RuntimeError(f"PostgreSQL did not start; its log ends:\n{tail}") \
                    from None
            raise
        return self

    def resume(self) -> None:
        """Start the cluster's server (again, after :meth:`pause`)."""
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=200")
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), "-o", options,
                  "-l", str(self.root / "postgres.log"), "-w", "-t", "60", "start")

    def pause(self) -> None:
        """Stop the server at once, its data kept: a database outage, for tests."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), "-m",
                  "immediate", "-w", "stop", timeout=60)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://bigsur@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "t") -> str:
        """A new empty database; its URL."""
        import psycopg

        self._dbs += 1
        name = f"{prefix}_{os.getpid()}_{self._dbs}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the cluster (immediately) and delete its directory."""
        if self.root is None:
            return
        data = self.root / "data"
        if self.bindir is not None and (data / "postmaster.pid").exists():
            try:
                self.pause()
            except RuntimeError:
                pass
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None

    def __enter__(self) -> ThrowawayPostgres:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
