"""Waiting for the AI as a client chooses: ``wait`` in the body of POST /v1/games and of
an action (0: answered as soon as it is stored), a long-poll GET /v1/games/{id}?wait=S
(&since=N), and Retry-After wherever a client is told to poll (an AI thinking, a review
job queued or running).

The AI's turns wait on a gate (:func:`ai_blocked`): what comes back is checked while
they are blocked, and again once they are let through. A client waits for the AI up to
60 s here, the gate at most 30 s: a request that waited for the AI although told not to
shows the AI's move.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from session_testkit import (
    BOTH_BACKENDS,
    auth,
    new_game,
    play_out,
    poll_job,
    seed_where,
    to_build_step,
    wait_for_humans,
)

from solver.cli import play_random_game

GATE_SECONDS = 30  # the longest an AI turn waits for its gate (a failing test's bound)
AI_WAIT = 60.0  # BIGSUR_AI_WAIT_SECONDS of these tests: past the gate


@contextmanager
def ai_blocked(client) -> Iterator[tuple[threading.Event, threading.Event]]:
    """(gate, started): the client's AI turns wait for ``gate``; ``started`` is set once
    one waits. The gate is opened on leaving."""
    search = client.app.state.search
    real_turn = search.bot_turn
    gate, started = threading.Event(), threading.Event()

    async def blocked_turn(*args, **kwargs):
        started.set()
        await asyncio.to_thread(gate.wait, GATE_SECONDS)
        return await real_turn(*args, **kwargs)

    search.bot_turn = blocked_turn
    try:
        yield gate, started
    finally:
        gate.set()


@contextmanager
def in_thread(call) -> Iterator[list]:
    """Run ``call()`` in a thread; the list holds its answer once the thread is joined
    on leaving (after at most GATE_SECONDS: a request still waiting then, short of the
    60 s it may wait, missed what it waited for)."""
    out: list = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    try:
        yield out
    finally:
        thread.join(GATE_SECONDS)
    assert out, "the request still waits"


def waiting_spy(client) -> threading.Event:
    """An event set once a GET is in the long-poll's wait (GameService.wait_change)."""
    games = client.app.state.games
    real = games.wait_change
    entered = threading.Event()

    async def spy(*args, **kwargs):
        entered.set()
        return await real(*args, **kwargs)

    games.wait_change = spy
    return entered


def human_game(client) -> tuple[str, str]:
    """A game of a human (seat 0, to act) against the random AI: (id, token)."""
    r = client.post("/v1/games", json={"seats": ["human", "random"], "seed": seed_where(0)})
    assert r.status_code == 201, r.text
    return r.json()["game_id"], r.json()["tokens"][0]["token"]


def end_turn(client, game_id: str, token: str, **body):
    return client.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                       json={"action": "end", **body})


def ai_moves(view: dict) -> list[str]:
    return [e["action"] for e in view["log"] if e["seat"] == 1]


# 1. wait in the body ------------------------------------------------------------------
def test_an_action_with_wait_0_is_answered_while_the_ai_thinks(make_client):
    client = make_client(ai_wait_seconds=AI_WAIT)
    game_id, token = human_game(client)
    before = to_build_step(client, game_id, token)
    with ai_blocked(client) as (gate, started):
        r = end_turn(client, game_id, token, wait=0)
        assert r.status_code == 200, r.text
        answer = r.json()
        assert answer["ai_thinking"] and not answer["your_turn"]
        assert answer["actions_applied"] == before["actions_applied"] + 1
        assert answer["applied"]["action"] == "end" and not ai_moves(answer)
        assert started.wait(GATE_SECONDS)  # the AI's turn runs on without the request
        gate.set()
    after = wait_for_humans(client, game_id, token)
    assert not after["ai_thinking"] and after["your_turn"] and ai_moves(after), after


def test_a_game_created_with_wait_0_is_answered_while_its_ai_thinks(make_client):
    client = make_client(ai_wait_seconds=AI_WAIT)
    with ai_blocked(client) as (gate, _started):
        r = client.post("/v1/games", json={"seats": ["human", "random"],
                                           "seed": seed_where(1), "wait": 0})
        assert r.status_code == 201, r.text
        assert r.json()["ai_thinking"]
        token = r.json()["tokens"][0]["token"]
        view = client.get(f"/v1/games/{r.json()['game_id']}", headers=auth(token)).json()
        assert view["ai_thinking"] and view["actions_applied"] == 0
        gate.set()
    later = wait_for_humans(client, r.json()["game_id"], token)
    assert not later["ai_thinking"] and later["your_turn"] and ai_moves(later)


def test_by_default_an_action_and_a_creation_still_wait_for_the_ai(make_client):
    client = make_client(ai_wait_seconds=AI_WAIT)
    game_id, token = human_game(client)
    to_build_step(client, game_id, token)
    with ai_blocked(client) as (gate, started):
        with in_thread(lambda: end_turn(client, game_id, token)) as answers:
            assert started.wait(GATE_SECONDS)
            assert not answers  # (the request started the AI's turn: it waits on it)
            gate.set()
    assert answers[0].status_code == 200, answers[0].text
    assert not answers[0].json()["ai_thinking"] and ai_moves(answers[0].json())

    with ai_blocked(client) as (gate, started):
        with in_thread(lambda: client.post("/v1/games", json={
                "seats": ["human", "random"], "seed": seed_where(1)})) as created:
            assert started.wait(GATE_SECONDS)
            assert not created
            gate.set()
    assert created[0].status_code == 201 and not created[0].json()["ai_thinking"]


def test_a_wait_out_of_range_is_refused_naming_wait(make_client):
    client = make_client(ai_wait_seconds=5)
    game_id, token = human_game(client)
    games_before = client.get("/healthz").json()["games"]
    json_type = {"Content-Type": "application/json"}
    for wait in ("-1", "true", '"1"', "1e400", "NaN"):
        r = client.post("/v1/games", headers=json_type,
                        content=f'{{"seats": ["human", "random"], "wait": {wait}}}')
        assert r.status_code == 422 and r.json()["field"] == "wait", (wait, r.text)
        r = client.post(f"/v1/games/{game_id}/actions", headers={**auth(token), **json_type},
                        content=f'{{"action": "take deck", "wait": {wait}}}')
        assert r.status_code == 422 and r.json()["field"] == "wait", (wait, r.text)
    assert client.get("/healthz").json()["games"] == games_before  # nothing created
    view = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    assert view["actions_applied"] == 0  # nor applied


# 2. long-poll -------------------------------------------------------------------------
def test_a_long_poll_answers_once_the_ai_moved(make_client):
    client = make_client(ai_wait_seconds=AI_WAIT)
    game_id, token = human_game(client)
    to_build_step(client, game_id, token)
    entered = waiting_spy(client)
    with ai_blocked(client) as (gate, started):
        seen = end_turn(client, game_id, token, wait=0).json()["actions_applied"]
        assert started.wait(GATE_SECONDS)
        url = f"/v1/games/{game_id}?wait={AI_WAIT:g}&since={seen}"
        with in_thread(lambda: client.get(url, headers=auth(token))) as answers:
            assert entered.wait(GATE_SECONDS)
            assert not answers  # waiting, while the AI is blocked
            gate.set()
    view = answers[0].json()
    assert answers[0].status_code == 200, answers[0].text
    assert view["actions_applied"] > seen and ai_moves(view)


def test_a_long_poll_without_since_waits_until_the_ai_is_done(make_client):
    client = make_client(ai_wait_seconds=AI_WAIT)
    game_id, token = human_game(client)
    to_build_step(client, game_id, token)
    entered = waiting_spy(client)
    with ai_blocked(client) as (gate, started):
        end_turn(client, game_id, token, wait=0)
        assert started.wait(GATE_SECONDS)
        url = f"/v1/games/{game_id}?wait={AI_WAIT:g}"
        with in_thread(lambda: client.get(url, headers=auth(token))) as answers:
            assert entered.wait(GATE_SECONDS)
            assert not answers
            gate.set()
    view = answers[0].json()
    assert not view["ai_thinking"] and view["your_turn"] and ai_moves(view), view


def test_a_long_poll_behind_the_game_or_with_nothing_to_wait_for_answers_at_once(
        make_client):
    """While the AI is blocked: ``since`` behind the game, and wait=0, answer with the
    AI still thinking; a human to act (no AI thinking) answers a wait without since."""
    client = make_client(ai_wait_seconds=AI_WAIT)
    game_id, token = human_game(client)
    mine = client.get(f"/v1/games/{game_id}?wait={AI_WAIT:g}", headers=auth(token))
    assert mine.status_code == 200 and mine.json()["your_turn"]
    to_build_step(client, game_id, token)
    with ai_blocked(client) as (_gate, started):
        seen = end_turn(client, game_id, token, wait=0).json()["actions_applied"]
        assert started.wait(GATE_SECONDS)
        for query in (f"wait={AI_WAIT:g}&since={seen - 1}", f"wait=0&since={seen}",
                      f"wait={AI_WAIT:g}&since={seen + 5}"):
            r = client.get(f"/v1/games/{game_id}?{query}", headers=auth(token))
            assert r.status_code == 200, r.text
            assert r.json()["ai_thinking"] and r.json()["actions_applied"] == seen, query


def test_a_long_poll_is_bounded_by_its_wait(make_client):
    """The time runs out while the AI is blocked: the unchanged view."""
    client = make_client(ai_wait_seconds=AI_WAIT)
    game_id, token = human_game(client)
    to_build_step(client, game_id, token)
    with ai_blocked(client) as (_gate, started):
        seen = end_turn(client, game_id, token, wait=0).json()["actions_applied"]
        assert started.wait(GATE_SECONDS)
        r = client.get(f"/v1/games/{game_id}?wait=0.2&since={seen}", headers=auth(token))
        assert r.status_code == 200 and r.json()["actions_applied"] == seen
        assert r.json()["ai_thinking"]


def test_a_long_poll_of_a_game_deleted_meanwhile_answers_404(make_client):
    client = make_client(ai_wait_seconds=AI_WAIT)
    game_id, token = human_game(client)
    entered = waiting_spy(client)
    url = f"/v1/games/{game_id}?wait={AI_WAIT:g}&since=0"  # (the human is to act)
    with in_thread(lambda: client.get(url, headers=auth(token))) as answers:
        assert entered.wait(GATE_SECONDS)
        assert client.delete(f"/v1/games/{game_id}", headers=auth(token)).status_code == 204
    assert answers[0].status_code == 404 and answers[0].json()["field"] == "game_id"


@BOTH_BACKENDS
def test_a_long_poll_sees_a_move_another_server_process_applied(make_client):
    """Two apps on one database: the AI plays in the first; a long-poll through the
    second, which no action applied there wakes, reads the store again meanwhile."""
    playing = make_client(ai_wait_seconds=AI_WAIT)
    other = make_client(ai_wait_seconds=AI_WAIT)
    other.app.state.store.exclusive = False  # SQLite: as if shared (PostgreSQL: it is)
    game_id, token = human_game(playing)
    to_build_step(playing, game_id, token)
    entered = waiting_spy(other)
    with ai_blocked(playing) as (gate, started):
        seen = end_turn(playing, game_id, token, wait=0).json()["actions_applied"]
        assert started.wait(GATE_SECONDS)
        url = f"/v1/games/{game_id}?wait={AI_WAIT:g}&since={seen}"
        with in_thread(lambda: other.get(url, headers=auth(token))) as answers:
            assert entered.wait(GATE_SECONDS)
            assert not answers
            gate.set()
    view = answers[0].json()
    assert view["actions_applied"] > seen and ai_moves(view), view
    assert game_id not in other.app.state.games.ai_tasks  # it only read the game


def test_long_poll_parameters_out_of_range_are_refused_naming_them(make_client):
    client = make_client(ai_wait_seconds=5)
    game_id, token = human_game(client)
    for query, field in (("wait=-1", "wait"), ("wait=soon", "wait"),
                         ("wait=nan", "wait"), ("wait=inf", "wait"), ("since=-1", "since"),
                         ("wait=1&since=x", "since"), ("since=1.5", "since")):
        r = client.get(f"/v1/games/{game_id}?{query}", headers=auth(token))
        assert r.status_code == 422 and r.json()["field"] == field, (query, r.text)


def test_a_wait_longer_than_the_servers_is_cut_to_it(make_client):
    """A client cannot know BIGSUR_AI_WAIT_SECONDS: a wait beyond it was a 422, and the
    page, whose long-poll asks 25 s, fell back to polling once a second on a server set
    lower. It waits the server's bound instead (the AI held past it: still thinking)."""
    client = make_client(ai_wait_seconds=0.2)
    game_id, token = human_game(client)
    view = to_build_step(client, game_id, token)
    with ai_blocked(client) as (_gate, started):
        r = client.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                        json={"action": "end", "wait": 1000})
        assert r.status_code == 200 and r.json()["ai_thinking"], r.text
        assert started.is_set()
        r = client.get(f"/v1/games/{game_id}?wait=1000", headers=auth(token))
        assert r.status_code == 200 and r.json()["ai_thinking"], r.text
        assert r.json()["actions_applied"] == view["actions_applied"] + 1


# 3. Retry-After ----------------------------------------------------------------------
def test_a_game_says_when_to_poll_while_its_ai_thinks(make_client):
    """Retry-After: 1 on every answer with ai_thinking true (a creation, an action, a
    GET), none on one without."""
    client = make_client(ai_wait_seconds=AI_WAIT)
    game_id, token = human_game(client)
    r = client.get(f"/v1/games/{game_id}", headers=auth(token))
    assert not r.json()["ai_thinking"] and "retry-after" not in r.headers
    created = client.post("/v1/games", json={"seats": ["human", "random"],
                                             "seed": seed_where(0)})
    assert not created.json()["ai_thinking"] and "retry-after" not in created.headers
    to_build_step(client, game_id, token)
    with ai_blocked(client) as (gate, started):
        answers = [client.post("/v1/games", json={"seats": ["human", "random"],
                                                  "seed": seed_where(1), "wait": 0}),
                   end_turn(client, game_id, token, wait=0),
                   client.get(f"/v1/games/{game_id}", headers=auth(token))]
        for r in answers:
            assert r.json()["ai_thinking"] and r.headers["retry-after"] == "1", r.text
        assert started.wait(GATE_SECONDS)
        gate.set()
    wait_for_humans(client, game_id, token)
    r = client.get(f"/v1/games/{game_id}", headers=auth(token))
    assert not r.json()["ai_thinking"] and "retry-after" not in r.headers
    r = client.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                    json={"action": r.json()["legal_actions"][0]})
    assert r.status_code == 200 and not r.json()["ai_thinking"], r.text
    assert "retry-after" not in r.headers


def test_a_review_job_says_when_to_poll_until_it_is_over(make_client, fake_search):
    client = make_client(workers=1)
    record = play_random_game(2, seed=13)
    record.actions = record.actions[:6]
    fake_search.gate = threading.Event()
    try:
        r = client.post("/v1/analyze", json={"record": record.to_json(),
                                             "budget": {"ms": 100}})
        assert r.status_code == 202, r.text
        assert int(r.headers["retry-after"]) >= 1
        assert fake_search.started.acquire(timeout=GATE_SECONDS)  # a decision searched
        job_id = r.json()["job_id"]
        polled = client.get(f"/v1/analyze/{job_id}")
        assert polled.json()["status"] in ("queued", "running"), polled.text
        assert int(polled.headers["retry-after"]) >= 1
    finally:
        fake_search.gate.set()
    assert poll_job(client, job_id)["status"] == "done"
    assert "retry-after" not in client.get(f"/v1/analyze/{job_id}").headers


def test_a_jobs_poll_interval_is_one_decision_after_the_work_ahead():
    """Running: one decision (the pool's mean, not under the ms budget), 1 to
    JOB_POLL_MOST s; queued: the searches ahead of it too; over: none."""
    from server.routes.common import JOB_POLL_MOST, job_poll
    from server.scheduler import Priority, Scheduler

    scheduler = Scheduler(slots=1)
    mean = scheduler.mean_seconds[Priority.BATCH]
    running = {"status": "running", "budget": {"iterations": 50}}
    assert job_poll(running, scheduler) == max(1, round(mean))
    assert job_poll({**running, "budget": {"ms": 4000}}, scheduler) == max(4, round(mean))
    assert job_poll({**running, "budget": {"ms": 10**6}}, scheduler) == JOB_POLL_MOST
    queued = job_poll({**running, "status": "queued"}, scheduler)
    assert queued == max(1, round(mean)) + scheduler.retry_after(Priority.BATCH)
    for over in ("done", "failed", "cancelled"):
        assert job_poll({**running, "status": over}, scheduler) is None


def test_a_hosted_games_review_says_when_to_poll_until_it_is_over(make_client, fake_search):
    """POST and GET /v1/games/{id}/analysis answer the same job as /v1/analyze, without
    its Retry-After while it was queued or running."""
    client = make_client(workers=1)
    game_id, tokens = new_game(client, seats=["human", "greedy"], seed=5)
    play_out(client, game_id, tokens, random.Random(5))
    fake_search.gate = threading.Event()
    try:
        r = client.post(f"/v1/games/{game_id}/analysis", json={"budget": {"ms": 100}},
                        headers=auth(tokens[0]))
        assert r.status_code == 202, r.text
        assert int(r.headers["retry-after"]) >= 1
        assert fake_search.started.acquire(timeout=GATE_SECONDS)
        latest = client.get(f"/v1/games/{game_id}/analysis", headers=auth(tokens[0]))
        assert latest.json()["status"] in ("queued", "running"), latest.text
        assert int(latest.headers["retry-after"]) >= 1
    finally:
        fake_search.gate.set()
    assert poll_job(client, r.json()["job_id"])["status"] == "done"
    done = client.get(f"/v1/games/{game_id}/analysis", headers=auth(tokens[0]))
    assert done.json()["status"] == "done" and "retry-after" not in done.headers
