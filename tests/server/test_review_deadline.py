"""A reviewed decision's deadline covers every search it may make: the position, the
move played alone, and a labelled loss measured again (solver.analysis); the deadline of
two budgets and one grace failed whole end-of-game reviews on a loaded machine ("the
review did not finish within its deadline of 2.2 s" at decision 49 of 73)."""

from __future__ import annotations

import asyncio
import threading
import time

from server.pool import SearchService
from solver.analysis import REVIEW_SEARCHES
from solver.rules.engine import legal_actions, new_game
from solver.rules.views import view_of, view_to_json

BUDGET_MS = 100
GRACE_S = 0.5


class SlowSearch:
    """Each search takes its budget and most of the grace (a slow set-up, as on a loaded
    machine or at a hoarded last step); the move played is left out of the first search
    and rated far below the best, so the decision is labelled and measured again."""

    def __init__(self, played: str):
        self.played = played
        self.calls = 0

    def __call__(self, view, budget, seed=None, moves=None):
        self.calls += 1
        time.sleep(BUDGET_MS / 1000 + 0.8 * GRACE_S)
        texts = [a.notation() for a in legal_actions(view)]
        if moves is None:
            texts = [t for t in texts if t != self.played]
        else:
            texts = [m[0].notation() for m in moves]
        out = [{"actions": [t], "label": t, "visits": 50, "payment": None, "line": [],
                "win_probability": 0.1 if t == self.played else 0.9,
                "expected_margin": -10.0 if t == self.played else 10.0} for t in texts]
        out.sort(key=lambda m: -m["win_probability"])
        return {"seat": view.seat, "moves": out, "stats": {"iterations": 50}}


def test_a_decision_searched_three_times_finishes_within_its_deadline():
    state = new_game(2, seed=3)
    view = view_of(state, state.current)
    played = legal_actions(state)[0].notation()
    search = SlowSearch(played)
    service = SearchService(1, "thread", 1, search, max_budget_ms=1000, grace=GRACE_S)
    try:
        review = asyncio.run(service.review(view_to_json(view), played, None, None,
                                            {"ms": BUDGET_MS}, 0))
    finally:
        service.close()
    assert search.calls == REVIEW_SEARCHES  # the position, the move played, again
    assert review["label"] is not None and review["measured_again"], review


def test_a_decision_past_its_deadline_is_searched_again_not_the_whole_job_failed(
        db_target):
    """One decision's search stalls past its deadline (a loaded machine): the job
    searches that decision once more and finishes, where it failed the whole review."""
    from conftest import FakeSearch, make_settings
    from fastapi.testclient import TestClient
    from session_testkit import poll_job

    from server.app import create_app
    from server.deps import get_search
    from solver.cli import play_random_game

    class FirstSearchStalls:
        def __init__(self):
            self.fake, self.calls, self.release = FakeSearch(), 0, threading.Event()

        def __call__(self, *args, **kwargs):
            self.calls += 1
            if self.calls == 1:
                self.release.wait(20)  # far past the deadline: answered 503 'deadline'
            return self.fake(*args, **kwargs)

    search_fn = FirstSearchStalls()
    settings = make_settings(db_target, deadline_grace_ms=100, batch_workers=2)  # (a thread
    # past its deadline keeps its slot until it ends: the process pool kills it)
    service = SearchService.from_settings(settings, search_fn=search_fn)
    app = create_app(settings, search=service)
    app.dependency_overrides[get_search] = lambda: service
    record = play_random_game(2, seed=13)
    record.actions = record.actions[:6]
    with TestClient(app) as client:
        try:
            job = client.post("/v1/analyze", json={"record": record.to_json(),
                                                   "budget": {"ms": 50}}).json()
            done = poll_job(client, job["job_id"], timeout=60)
        finally:
            search_fn.release.set()  # (the stalled thread ends before the app stops)
    assert done["status"] == "done", done
    assert search_fn.calls >= 2  # the stalled decision was searched again


def test_a_decision_refused_as_busy_is_searched_again_after_its_retry_after(db_target):
    """A busy pool's 503 (a full queue, a worker being replaced) is retried after the
    Retry-After it gives, not at once, where it would meet the same full pool."""
    from conftest import FakeSearch, make_settings
    from fastapi.testclient import TestClient
    from session_testkit import poll_job

    from server.app import create_app
    from server.deps import get_search
    from server.errors import ApiError
    from solver.cli import play_random_game

    service = SearchService.from_settings(make_settings(db_target), search_fn=FakeSearch())
    calls: list[float] = []
    real_review = service.review

    async def busy_once(*args, **kwargs):
        calls.append(time.monotonic())
        if len(calls) == 1:
            raise ApiError(503, None, "a search worker died; it was replaced, retry", "busy",
                           {"Retry-After": "0.3"})
        return await real_review(*args, **kwargs)

    service.review = busy_once
    app = create_app(make_settings(db_target), search=service)
    app.dependency_overrides[get_search] = lambda: service
    record = play_random_game(2, seed=13)
    record.actions = record.actions[:6]
    with TestClient(app) as client:
        job = client.post("/v1/analyze", json={"record": record.to_json(),
                                               "budget": {"ms": 50}}).json()
        done = poll_job(client, job["job_id"], timeout=60)
    assert done["status"] == "done", done
    assert calls[1] - calls[0] >= 0.3  # (sleep waits at least that long)
