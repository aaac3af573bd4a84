"""Searches on a Dask distributed cluster (``BIGSUR_CLUSTER=tcp://SCHEDULER:8786``): the
same runner interface as the local workers of :mod:`server.workers`, so hints, AI turns
and analysis decisions keep the scheduler's queue, priorities, per-client shares,
deadlines and 503s (:mod:`server.scheduler`, :mod:`server.pool`).

The task functions of :mod:`server.pool` travel to the workers by reference: every Dask
worker needs this package installed (``pip install bigsur-solver[cluster]``).

When the scheduler goes away (a restart), the client tries to reconnect for the connect
timeout, then closes; meanwhile every search is refused at once (503 ``unavailable``,
:class:`ClusterUnavailable`) and ``/healthz`` says so, while a new client connects in the
background, again at each search or health check until the scheduler answers.

A Dask task cannot be interrupted once it runs. At a deadline, or when its request is
cancelled, the server answers at once (503 ``deadline``, or nothing) as with local
workers; the search then ends on its worker when its budget does (a time budget, or the
iteration cap ``BIGSUR_MAX_ITERATIONS``), and its slot stays taken until then, so this
server never has more searches on the cluster than its slots.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from .workers import DeadlineExceeded, WorkerDied

log = logging.getLogger("bigsur.server")


class ClusterError(RuntimeError):
    """The cluster cannot be used (names BIGSUR_CLUSTER and why)."""


class ClusterUnavailable(ClusterError):
    """No Dask scheduler answers at BIGSUR_CLUSTER now (it stopped, restarts, is not up
    yet): searches are 503 ``unavailable`` until a client connects again."""


class DaskWorkers:
    """Tasks on the Dask cluster at ``address``; ``slots``: how many may run at once
    (None: the cluster's worker threads when :meth:`start` connects)."""

    kind = "dask"
    CONNECT_TIMEOUT = 15.0  # seconds a (re)connection tries before it gives up

    def __init__(self, address: str, slots: int | None = None,
                 connect_timeout: float | None = None):
        self.address = address
        self.n = slots or 1
        self.fixed = slots is not None
        self.connect_timeout = connect_timeout or self.CONNECT_TIMEOUT
        self.client = None
        self._connecting = threading.Lock()
        self._calls = ThreadPoolExecutor(4, thread_name_prefix="bigsur-dask")
        self._reconnect: Future | None = None
        self._closed = False
        self._lingering: set = set()  # futures abandoned while running (kept referenced)
        self.killed = 0
        self.died = 0

    def pids(self) -> list[int]:
        return []  # the workers are the cluster's, not ours

    @staticmethod
    def _running(client) -> bool:
        """Whether ``client`` is connected (not closed, nor reconnecting by itself)."""
        return client is not None and client.status == "running"

    def _connect(self):
        """The connected client: this one, or a new one in place of a closed one."""
        with self._connecting:
            client = self.client
            if client is not None and client.status not in ("closing", "closed"):
                return client
            try:
                from distributed import Client
            except ImportError:
                raise ClusterError("BIGSUR_CLUSTER needs Dask distributed: pip install "
                                   "'bigsur-solver[cluster]'") from None
            if self._closed:
                raise ClusterUnavailable("BIGSUR_CLUSTER: the server is stopping")
            first = client is None
            if client is not None:  # closed after losing its scheduler: replaced
                self._close_client(client)
            try:
                client = Client(self.address, timeout=f"{self.connect_timeout}s",
                                set_as_default=False)
            except OSError as err:
                raise ClusterUnavailable(f"BIGSUR_CLUSTER: no Dask scheduler answers at "
                                         f"{self.address} ({err})") from None
            if self._closed:  # (closed while it connected)
                self._close_client(client)
                raise ClusterUnavailable("BIGSUR_CLUSTER: the server is stopping")
            if first and not self.fixed:
                workers = client.scheduler_info()["workers"].values()
                self.n = max(1, sum(w.get("nthreads", 1) for w in workers))
            if not first:
                log.info("connected to the Dask scheduler at %s again", self.address)
            self.client = client
            return client

    def _reconnect_soon(self) -> None:
        """Connect a new client in the background (one attempt at a time)."""
        if self._closed or (self._reconnect is not None and not self._reconnect.done()):
            return

        def attempt() -> None:
            try:
                self._connect()
            except ClusterError as err:
                log.warning("%s", err)

        try:
            self._reconnect = self._calls.submit(attempt)
        except RuntimeError:  # shut down meanwhile
            pass

    def _unavailable(self) -> ClusterUnavailable:
        client = self.client
        if client is None or client.status in ("closing", "closed"):
            self._reconnect_soon()  # (a client reconnecting by itself is let be)
        return ClusterUnavailable(f"BIGSUR_CLUSTER: the Dask scheduler at {self.address} "
                                  "is not connected (reconnecting)")

    def check(self) -> str:
        """``"connected"``, else :class:`ClusterUnavailable` (and a reconnection
        under way): what ``/healthz`` reports."""
        if not self._running(self.client):
            raise self._unavailable()
        return "connected"

    def close_after_connecting(self) -> None:
        """Connect and disconnect: whether a scheduler answers at the address
        (:class:`ClusterError` naming BIGSUR_CLUSTER and why, if not; ``bigsur serve``
        checks so before it starts)."""
        try:
            self._connect()
        finally:
            self.close()

    async def start(self) -> None:
        """Connect (and count the cluster's threads when no slot count was given)."""
        await asyncio.get_running_loop().run_in_executor(self._calls, self._connect)

    async def run(self, fn: Callable, args: tuple, deadline: float | None,
                  linger: Callable[[Any], None] | None = None) -> Any:
        loop = asyncio.get_running_loop()
        client = self.client
        if client is None:  # never connected (no warm-up): the first search connects
            client = await loop.run_in_executor(self._calls, self._connect)
        if not self._running(client):  # lost its scheduler: 503 at once, reconnecting
            raise self._unavailable()
        try:
            future = client.submit(fn, *args, pure=False)
        except Exception:  # ClosedClientError: closed since we looked
            if self._running(client):
                raise
            raise self._unavailable() from None
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

    @staticmethod
    def _close_client(client) -> None:
        try:
            client.close(timeout=5)
        except Exception:  # noqa: BLE001 - the scheduler may be gone already
            pass

    def close(self) -> None:
        """Disconnect (tasks still running on the cluster finish there)."""
        self._closed = True
        client, self.client = self.client, None
        if client is not None:
            self._close_client(client)
        self._lingering.clear()
        self._calls.shutdown(wait=False, cancel_futures=True)
