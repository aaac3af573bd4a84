"""Search workers that can be stopped: one process per slot, each running one task at a
time, killed (and replaced) when its task is cancelled or overruns its deadline.

``concurrent.futures.ProcessPoolExecutor`` cannot stop a running task, so a search whose
client went away, or an iteration budget that takes far longer than the time caps,
held a worker to the end. Here every worker is a process of our own with a pipe; the
event loop waits for the answer in a small thread pool, and cancelling that wait kills
the process (SIGKILL) and starts a fresh one (forkserver: a fork of a process that has
already imported the search, so a few milliseconds).

Workers die with the server: each sets ``PR_SET_PDEATHSIG`` (Linux; its parent is the
forkserver, which exits when the server's end of its pipe closes) and runs a watchdog
thread that exits when the server process is gone or a zombie (any platform).

``ThreadWorkers`` (``BIGSUR_POOL=thread``: tests, tiny deployments) runs tasks in
threads; a thread cannot be killed, so a cancelled task keeps its slot until it ends.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

log = logging.getLogger("bigsur.server")
PR_SET_PDEATHSIG = 1
PRELOAD = ["server.pool", "solver.rules.engine", "solver.search.bots", "solver.analysis"]


class DeadlineExceeded(Exception):
    """A task ran past its wall-clock deadline and was stopped."""


class WorkerDied(Exception):
    """A worker process ended without answering (killed, out of memory)."""


# ------------------------------------------------------------------ in the worker

def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not: it is dead, only not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        return stat[stat.rindex(")") + 2] not in "ZX"
    except (OSError, ValueError, IndexError):
        return True


def die_with(server_pid: int, interval: float = 0.5) -> None:
    """Make this process end when the server does (parent-death signal + watchdog)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    parent = os.getppid()

    def watch() -> None:
        while True:
            if os.getppid() != parent or not _alive(server_pid):
                os._exit(1)
            time.sleep(interval)

    threading.Thread(target=watch, name="bigsur-watchdog", daemon=True).start()


def worker_main(conn, server_pid: int) -> None:
    """A worker's loop: receive ``(fn, args)``, send back ``("ok", value)`` or
    ``("err", exception)``; exit when the pipe closes."""
    die_with(server_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the server, which stops us
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        try:
            answer = ("ok", fn(*args))
        except BaseException as err:  # noqa: BLE001 - carried back to the server
            answer = ("err", err)
        try:
            conn.send(answer)
        except Exception as err:  # noqa: BLE001 - an unpicklable value or exception
            conn.send(("err", RuntimeError(f"{type(err).__name__}: {err}")))


# ------------------------------------------------------------------ in the server

class _Worker:
    def __init__(self, ctx, server_pid: int):
        parent, child = ctx.Pipe()
        self.conn = parent
        self.proc = ctx.Process(target=worker_main, args=(child, server_pid),
                                name="bigsur-search", daemon=True)
        self.proc.start()
        child.close()

    def kill(self, reading: Future | None = None) -> None:
        try:
            self.proc.kill()
        except (OSError, ValueError):
            pass
        if reading is not None and not reading.done():
            reading.add_done_callback(lambda _f: self._close())  # after the reader returns
        else:
            self._close()

    def _close(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass
        try:
            self.proc.join(5)
            self.proc.close()
        except (ValueError, AssertionError):
            pass


class ProcessWorkers:
    """``n`` worker processes; :meth:`run` gives a task to an idle one (the scheduler
    admits at most ``n`` tasks at once)."""

    kind = "process"

    def __init__(self, n: int):
        self.n = n
        self.server_pid = os.getpid()
        self._ctx = None
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._readers = ThreadPoolExecutor(n, thread_name_prefix="bigsur-recv")
        self.killed = 0
        self.died = 0

    def _spawn(self) -> _Worker:
        if self._ctx is None:
            self._ctx = multiprocessing.get_context("forkserver")
            self._ctx.set_forkserver_preload(PRELOAD)
        w = _Worker(self._ctx, self.server_pid)
        self._all.add(w)
        return w

    async def _take(self) -> _Worker:
        while self._idle:
            w = self._idle.pop()
            if w.proc.is_alive():
                return w
            self._discard(w)
        # a new process (after a kill, or without warm-up): off the event loop, since
        # the first one also starts the forkserver (imports: a second or two)
        spawning = asyncio.get_running_loop().run_in_executor(None, self._spawn)
        try:
            return await asyncio.shield(spawning)
        except asyncio.CancelledError:  # the caller went away: keep the new worker
            spawning.add_done_callback(
                lambda f: self._idle.append(f.result())
                if not f.cancelled() and f.exception() is None else None)
            raise

    def _discard(self, w: _Worker, reading: Future | None = None) -> None:
        self._all.discard(w)
        w.kill(reading)

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._all if w.proc.pid is not None]

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        fresh = await loop.run_in_executor(None, lambda: [self._spawn() for _ in
                                                          range(self.n - len(self._all))])
        self._idle.extend(fresh)

    async def run(self, fn: Callable, args: tuple, deadline: float | None,
                  linger: Callable[[Future], None] | None = None) -> Any:
        w = await self._take()
        reading: Future | None = None
        try:
            w.conn.send((fn, args))
            reading = self._readers.submit(w.conn.recv)
            status, value = await asyncio.wait_for(asyncio.wrap_future(reading), deadline)
        except TimeoutError:
            self.killed += 1
            self._discard(w, reading)
            raise DeadlineExceeded(deadline) from None
        except asyncio.CancelledError:
            self.killed += 1
            self._discard(w, reading)
            raise
        except (EOFError, OSError, BrokenPipeError):
            self.died += 1
            self._discard(w, reading)
            raise WorkerDied() from None
        except BaseException:
            self._discard(w, reading)
            raise
        self._idle.append(w)
        if status == "err":
            raise value
        return value

    def close(self) -> None:
        """Kill every worker (searches in progress are abandoned)."""
        for w in list(self._all):
            self._discard(w)
        self._idle.clear()
        self._readers.shutdown(wait=False, cancel_futures=True)


class ThreadWorkers:
    """Tasks in threads; a cancelled or overdue task is abandoned to finish on its own
    (``linger`` is told, so that its slot is released only when it really ends)."""

    kind = "thread"

    def __init__(self, n: int):
        self.n = n
        self._executor = ThreadPoolExecutor(n, thread_name_prefix="bigsur-search")
        self.killed = 0
        self.died = 0

    def pids(self) -> list[int]:
        return []

    async def start(self) -> None:
        return None

    async def run(self, fn: Callable, args: tuple, deadline: float | None,
                  linger: Callable[[Future], None] | None = None) -> Any:
        cf = self._executor.submit(fn, *args)
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(cf)), deadline)
        except TimeoutError:
            if linger is not None:
                linger(cf)
            raise DeadlineExceeded(deadline) from None
        except asyncio.CancelledError:
            if linger is not None and not cf.done():
                linger(cf)
            raise

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
