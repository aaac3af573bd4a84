"""``GET /v1/analyze/{job_id}/positions/{n}``: the positions of a reviewed record, so
that the page steps through the review of an uploaded record without re-sending it."""

from __future__ import annotations

from session_testkit import poll_job

from solver.cli import play_random_game
from solver.rules.position import state_to_json
from solver.rules.record import GameRecord


def submit(client, raw: dict) -> str:
    r = client.post("/v1/analyze", json={"record": raw, "budget": {"iterations": 3}})
    assert r.status_code == 202, r.text
    return r.json()["job_id"]


def test_every_position_of_an_uploaded_record_replays_from_its_seed(client):
    record = play_random_game(2, seed=13)
    job_id = submit(client, record.to_json())
    for n in (0, 1, len(record.actions) // 2, len(record.actions)):
        r = client.get(f"/v1/analyze/{job_id}/positions/{n}")
        assert r.status_code == 200, r.text
        expected = GameRecord(record.cards, 2, seed=13, actions=record.actions[:n]).replay()
        assert r.json() == state_to_json(expected)
    assert poll_job(client, job_id)["status"] == "done"
    # still there once the review is done (the page steps through it then)
    assert client.get(f"/v1/analyze/{job_id}/positions/0").status_code == 200


def test_a_record_with_a_start_position_steps_from_its_start(client):
    dealt = play_random_game(3, seed=5)
    start = GameRecord(dealt.cards, 3, seed=5, actions=dealt.actions[:20]).replay()
    record = GameRecord(dealt.cards, 3, start_position=state_to_json(start),
                        actions=dealt.actions[20:])
    job_id = submit(client, record.to_json())
    r = client.get(f"/v1/analyze/{job_id}/positions/0")
    assert r.status_code == 200 and r.json() == state_to_json(start)


def test_out_of_range_and_unknown_jobs_are_named(client):
    record = play_random_game(2, seed=13)
    job_id = submit(client, record.to_json())
    r = client.get(f"/v1/analyze/{job_id}/positions/{len(record.actions) + 1}")
    assert r.status_code == 422 and r.json()["field"] == "n", r.text
    r = client.get(f"/v1/analyze/{job_id}/positions/-1")
    assert r.status_code == 422 and r.json()["field"] == "n", r.text
    r = client.get("/v1/analyze/nope/positions/0")
    assert r.status_code == 404 and r.json()["field"] == "job_id", r.text
