"""Searches on a Dask distributed cluster (``BIGSUR_CLUSTER=tcp://SCHEDULER:8786``): the
same runner interface as the local workers of :mod:`server.workers`, so hints, AI turns
and analysis decisions keep the scheduler's queue, priorities, per-client shares,
deadlines and 503s (:mod:`server.scheduler`, :mod:`server.pool`).

The task functions of :mod:`server.pool` travel to the workers by reference: every Dask
worker needs this package installed (``pip install bigsur-solver[cluster]``).

A Dask task cannot be interrupted once it runs. At a deadline, or when its request is
cancelled, the server answers at once (503 ``deadline``, or nothing) as with local
workers; the search then ends on its worker when its budget does (a time budget, or the
iteration cap ``BIGSUR_MAX_ITERATIONS``), and its slot stays taken until then, so this
server never has more searches on the cluster than its slots.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .workers import DeadlineExceeded, WorkerDied


class ClusterError(RuntimeError):
    """The cluster cannot be used (names BIGSUR_CLUSTER and why)."""


class DaskWorkers:
    """Tasks on the Dask cluster at ``address``; ``slots``: how many may run at once
    (None: the cluster's worker threads when :meth:`start` connects)."""

    kind = "dask"

    def __init__(self, address: str, slots: int | None = None, connect_timeout: float = 15):
        self.address = address
        self.n = slots or 1
        self.fixed = slots is not None
        self.connect_timeout = connect_timeout
        self.client = None
        self._connecting = threading.Lock()
        self._calls = ThreadPoolExecutor(4, thread_name_prefix="bigsur-dask")
        self._lingering: set = set()  # futures abandoned while running (kept referenced)
        self.killed = 0
        self.died = 0

    def pids(self) -> list[int]:
        return []  # the workers are the cluster's, not ours

    def _connect(self):
        with self._connecting:
            if self.client is None:
                try:
                    from distributed import Client
                except ImportError:
                    raise ClusterError("BIGSUR_CLUSTER needs Dask distributed: pip install "
                                       "'bigsur-solver[cluster]'") from None
                try:
                    self.client = Client(self.address, timeout=f"{self.connect_timeout}s",
                                         set_as_default=False)
                except OSError as err:
                    raise ClusterError(f"BIGSUR_CLUSTER: no Dask scheduler answers at "
                                       f"{self.address} ({err})") from None
                if not self.fixed:
                    workers = self.client.scheduler_info()["workers"].values()
                    self.n = max(1, sum(w.get("nthreads", 1) for w in workers))
            return self.client

    async def start(self) -> None:
        """Connect (and count the cluster's threads when no slot count was given)."""
        await asyncio.get_running_loop().run_in_executor(self._calls, self._connect)

    async def run(self, fn: Callable, args: tuple, deadline: float | None,
                  linger: Callable[[Any], None] | None = None) -> Any:
        loop = asyncio.get_running_loop()
        client = self.client or await loop.run_in_executor(self._calls, self._connect)
        future = client.submit(fn, *args, pure=False)
        finished = loop.create_future()

        def done(_f) -> None:
            try:
                loop.call_soon_threadsafe(
                    lambda: finished.done() or finished.set_result(None))
            except RuntimeError:  # the loop is closed
                pass

        future.add_done_callback(done)
        try:
            await asyncio.wait_for(asyncio.shield(finished), deadline)
        except TimeoutError:
            self.killed += 1
            self._abandon(future, linger)
            raise DeadlineExceeded(deadline) from None
        except asyncio.CancelledError:
            self.killed += 1
            self._abandon(future, linger)
            raise
        if future.status == "cancelled":
            self.died += 1
            raise WorkerDied()
        # the result (or the task's exception) comes from the worker: off the loop
        return await loop.run_in_executor(self._calls, future.result)

    def _abandon(self, future, linger: Callable[[Any], None] | None) -> None:
        """Leave a running task to end on its own; its slot is freed when it does."""
        if future.done():
            return
        self._lingering.add(future)
        future.add_done_callback(self._lingering.discard)
        if linger is not None:
            linger(future)

    def close(self) -> None:
        """Disconnect (tasks still running on the cluster finish there)."""
        if self.client is not None:
            try:
                self.client.close(timeout=5)
            except Exception:  # noqa: BLE001 - the scheduler may be gone already
                pass
            self.client = None
        self._lingering.clear()
        self._calls.shutdown(wait=False, cancel_futures=True)
