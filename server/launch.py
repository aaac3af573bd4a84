"""Run the server as a child process on a free loopback port (tests and benchmarks).

    with ServerProcess(db="games.db", env={"BIGSUR_WORKERS": "2"}) as srv:
        httpx.get(srv.url + "/healthz")

The child is the leader of its own process group, so :meth:`ServerProcess.kill` (SIGKILL
to the group: the server and its search workers at once, as a crash would) leaves no
orphan behind.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    def __init__(self, db: str | Path, env: dict[str, str] | None = None,
                 port: int | None = None, log: str | Path | None = None):
        self.db = str(db)
        self.env = dict(env or {})
        self.port = port or free_port()
        self.log = log
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
             "--log-level", "warning"],
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
