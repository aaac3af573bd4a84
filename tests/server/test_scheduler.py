"""The search pool's scheduler (server/scheduler.py): priorities, a share for batch work,
per-client limits and fairness, a bounded queue with wait deadlines, cancellation."""

from __future__ import annotations

import asyncio

import pytest

from server.errors import ApiError
from server.scheduler import Priority, Scheduler

INTER, B = Priority.INTERACTIVE, Priority.BATCH


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def run(coro):
    return asyncio.run(coro)


def test_interactive_work_overtakes_waiting_batch_work():
    async def main():
        s = Scheduler(1, batch_slots=1)
        first = await s.acquire(B, "job", None)
        batch = asyncio.ensure_future(s.acquire(B, "job2", None))
        hint = asyncio.ensure_future(s.acquire(INTER, "ip:a", 5))
        await settle()
        s.release(first)
        await settle()
        assert hint.done() and not batch.done()
        s.release(hint.result())
        await settle()
        assert batch.done()
    run(main())


def test_batch_work_never_takes_every_worker():
    async def main():
        s = Scheduler(2)  # batch share: 1 of 2
        a = await s.acquire(B, "job1", None)
        b = asyncio.ensure_future(s.acquire(B, "job2", None))
        await settle()
        assert not b.done() and s.busy == 1
        hint = await asyncio.wait_for(s.acquire(INTER, "ip:a", 1), 0.5)  # at once
        assert s.busy == 2
        s.release(a)
        await settle()
        assert b.done()
        s.release(hint)
        s.release(b.result())
    run(main())


def test_a_full_queue_is_refused_at_once_with_retry_after():
    async def main():
        s = Scheduler(1, max_queue=1, min_retry_after=1)
        held = await s.acquire(INTER, "a", 5)
        waiting = asyncio.ensure_future(s.acquire(INTER, "b", 5))
        await settle()
        with pytest.raises(ApiError) as info:
            await asyncio.wait_for(s.acquire(INTER, "c", 5), 0.5)
        assert info.value.status == 503 and int(info.value.headers["Retry-After"]) >= 1
        s.release(held)
        s.release(await waiting)
    run(main())


def test_a_request_that_cannot_start_in_time_gets_503():
    async def main():
        s = Scheduler(1)
        held = await s.acquire(INTER, "a", 5)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises(ApiError) as info:
            await s.acquire(INTER, "b", 0.2)
        assert info.value.status == 503 and 0.15 < loop.time() - t0 < 2
        assert s.waiting == 0
        s.release(held)
    run(main())


def test_per_client_limits_and_fairness():
    async def main():
        s = Scheduler(2, client_running=1, client_queued=1)
        a1 = await s.acquire(INTER, "a", 5)
        a2 = asyncio.ensure_future(s.acquire(INTER, "a", 5))  # waits: a runs one already
        await settle()
        assert not a2.done() and s.busy == 1
        with pytest.raises(ApiError) as info:  # a's share of the queue is full
            await s.acquire(INTER, "a", 5)
        assert info.value.status == 429 and "Retry-After" in info.value.headers
        b1 = await asyncio.wait_for(s.acquire(INTER, "b", 5), 0.5)  # b is not held up by a
        s.release(a1)
        await settle()
        assert a2.done()
        s.release(b1)
        s.release(a2.result())
    run(main())


def test_a_waiter_that_goes_away_leaves_the_queue():
    async def main():
        s = Scheduler(1)
        held = await s.acquire(INTER, "a", 5)
        w = asyncio.ensure_future(s.acquire(INTER, "b", 5))
        await settle()
        assert s.waiting == 1
        w.cancel()
        await settle()
        assert s.waiting == 0
        s.release(held)
        assert s.busy == 0
    run(main())


def test_a_lower_limit_for_one_kind_of_work():
    """AI turns of one creator's games run one at a time (limit=1), the rest of the pool
    stays free for others."""
    async def main():
        s = Scheduler(3)
        first = await s.acquire(INTER, "creator:x", None, limit=1)
        second = asyncio.ensure_future(s.acquire(INTER, "creator:x", None, limit=1))
        await settle()
        assert not second.done() and s.busy == 1
        hint = await asyncio.wait_for(s.acquire(INTER, "ip:y", 1), 0.5)
        s.release(first)
        await settle()
        assert second.done()
        s.release(hint)
        s.release(second.result())
    run(main())


def test_waiting_ai_turns_and_reviews_do_not_fill_the_hint_queue():
    async def main():
        s = Scheduler(1, max_queue=2)
        held = await s.acquire(INTER, "a", 5)
        background = [asyncio.ensure_future(s.acquire(B if k % 2 else INTER, f"g{k}", None))
                      for k in range(6)]
        await settle()
        hint = asyncio.ensure_future(s.acquire(INTER, "ip:h", 5))
        await settle()
        assert not hint.done()  # queued behind them, not refused as "queue full"
        for task in background:
            task.cancel()
        await settle()
        s.release(held)
        await settle()
        assert hint.done() and hint.exception() is None
        s.release(hint.result())
    run(main())
