"""Admission to the search pool: a bounded queue with priorities, per-client limits and
wait deadlines.

A search first takes a *slot* (one per search worker), then runs. Who gets a freed slot:

1. interactive work (hints, payments, AI turns) before batch work (analysis decisions);
2. batch work never holds more than ``batch_slots`` slots, so analysis jobs cannot
   starve hints however many there are;
3. within a priority, the client with the fewest searches running, then first come;
   a client never runs more than ``client_running`` searches at once.

A request that finds the queue full (``max_queue`` hints and payments waiting: AI turns
and analysis decisions, bounded by the games and jobs that exist, do not count) is
refused at once with 503, one that finds its client's share of it full
(``client_queued``) with 429; one that waits longer than its wait deadline gets 503
then. Each carries a ``Retry-After`` estimated from the mean service time and the work
ahead (never less than ``min_retry_after``). Cancelling the waiting coroutine
(the client went away) removes it from the queue.

Used only from the event loop thread.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from dataclasses import dataclass, field
from enum import IntEnum

from .errors import ApiError


class Priority(IntEnum):
    INTERACTIVE = 0
    BATCH = 1


@dataclass(eq=False)
class Ticket:
    """One admitted or waiting search."""

    priority: Priority
    client: str
    seq: int
    limit: int | None = None  # this client's running limit, if lower than the default
    bounded: bool = True  # waits with a deadline (hints, payments): counts in the queue
    future: asyncio.Future | None = None
    started: float = field(default_factory=time.monotonic)


class Scheduler:
    def __init__(self, slots: int, batch_slots: int | None = None, max_queue: int = 64,
                 client_running: int | None = None, client_queued: int = 16,
                 min_retry_after: int = 1):
        self._batch_setting = batch_slots
        self._client_setting = client_running
        self.resize(slots)
        self.max_queue = max_queue
        self.client_queued = client_queued
        self.running: set[Ticket] = set()
        self.waiters: list[Ticket] = []
        self._seq = itertools.count()
        self.rejected = 0
        self.min_retry_after = min_retry_after
        self.mean_seconds = {Priority.INTERACTIVE: 0.5, Priority.BATCH: 1.0}

    def resize(self, slots: int) -> None:
        """Set the number of slots (and the batch and per-client shares derived from
        it): a cluster's size is known once connected."""
        if slots < 1:
            raise ValueError(f"slots must be at least 1, got {slots}")
        self.slots = slots
        batch = self._batch_setting
        self.batch_slots = max(1, min(slots, batch if batch is not None
                                      else max(1, slots // 2)))
        self.client_running = self._client_setting or slots
        if hasattr(self, "waiters"):
            self._dispatch()

    # counts ---------------------------------------------------------------
    @property
    def busy(self) -> int:
        return len(self.running)

    @property
    def waiting(self) -> int:
        return len(self.waiters)

    def _running_of(self, client: str) -> int:
        return sum(1 for t in self.running if t.client == client)

    def _batch_running(self) -> int:
        return sum(1 for t in self.running if t.priority == Priority.BATCH)

    def _eligible(self, t: Ticket) -> bool:
        if len(self.running) >= self.slots:
            return False
        if t.priority == Priority.BATCH and self._batch_running() >= self.batch_slots:
            return False
        limit = self.client_running if t.limit is None else min(t.limit, self.client_running)
        return self._running_of(t.client) < limit

    def _next(self) -> Ticket | None:
        best = None
        for t in self.waiters:
            if not self._eligible(t):
                continue
            key = (t.priority, self._running_of(t.client), t.seq)
            if best is None or key < best[0]:
                best = (key, t)
        return best[1] if best else None

    def retry_after(self, priority: Priority = Priority.INTERACTIVE) -> int:
        """Seconds until a new request of ``priority`` could likely start: the work of
        the searches running and of those waiting ahead of it, over the slots."""
        ahead = sum(1 for t in self.waiters if t.priority <= priority)
        work = (len(self.running) + ahead) * self.mean_seconds[priority]
        return max(self.min_retry_after, math.ceil(work / self.slots))

    def _refuse(self, what: str, why: str, priority: Priority, status: int = 503) -> ApiError:
        self.rejected += 1
        after = self.retry_after(priority)
        return ApiError(status, None, f"{why}; retry {what} in about {after} s",
                        "busy" if status == 503 else "too_many", {"Retry-After": str(after)})

    # acquiring and releasing ------------------------------------------------
    async def acquire(self, priority: Priority, client: str, wait: float | None,
                      what: str = "the request", limit: int | None = None) -> Ticket:
        """A slot for one search; ``wait``: seconds it may wait in the queue (None:
        as long as it takes, for work bounded by the games and jobs that exist);
        ``limit``: at most this many of ``client``'s searches run at once."""
        t = Ticket(priority, client, next(self._seq), limit, wait is not None)
        t.future = asyncio.get_running_loop().create_future()
        self.waiters.append(t)
        self._dispatch()
        if t.future.done():
            return t  # a slot at once
        refusal, status = None, 503
        if wait is not None:
            if sum(1 for w in self.waiters if w.bounded) > self.max_queue:
                refusal = f"the search queue is full ({self.max_queue} waiting, " \
                          "BIGSUR_QUEUE_SIZE)"
            elif sum(1 for w in self.waiters if w.client == client) > self.client_queued:
                refusal = f"this client already has {self.client_queued} searches " \
                          "waiting (BIGSUR_CLIENT_QUEUED)"
                status = 429
            elif wait <= 0:
                refusal = "all search workers are busy"
        if refusal is not None:
            self._drop(t)
            raise self._refuse(what, refusal, priority, status)
        try:
            await asyncio.wait_for(asyncio.shield(t.future), wait)
        except TimeoutError:
            if t.future.done() and not t.future.cancelled():  # granted at the last moment
                return t
            self._drop(t)
            raise self._refuse(what, f"all search workers stayed busy for {wait:g} s "
                               "(BIGSUR_QUEUE_WAIT_SECONDS)", priority) from None
        except asyncio.CancelledError:
            if t.future.done() and not t.future.cancelled():
                self.release(t)  # granted, then the caller went away
            else:
                self._drop(t)
            raise
        return t

    def _drop(self, t: Ticket) -> None:
        try:
            self.waiters.remove(t)
        except ValueError:
            pass
        if t.future is not None and not t.future.done():
            t.future.cancel()

    def release(self, t: Ticket) -> None:
        """Give the slot back and hand free slots to the best eligible waiters."""
        if t in self.running:
            self.running.discard(t)
            seconds = time.monotonic() - t.started
            old = self.mean_seconds[t.priority]
            self.mean_seconds[t.priority] = 0.8 * old + 0.2 * seconds
        self._dispatch()

    def _dispatch(self) -> None:
        while True:
            nxt = self._next()
            if nxt is None:
                return
            self.waiters.remove(nxt)
            nxt.started = time.monotonic()
            self.running.add(nxt)
            nxt.future.set_result(None)


async def cancel_and_wait(task: asyncio.Task | None) -> None:
    """Cancel ``task`` (if still running) and wait until it has stopped, whatever it
    raises: the search behind it is stopped by the task's own cancellation handling."""
    if task is None or task.done():
        return
    task.cancel()
    try:
        await task
    except BaseException:  # noqa: BLE001 - cancellation or the task's own failure
        pass
