"""A record's positions: ``GET /v1/analyze/{job_id}/positions/{n}`` (of a reviewed
record, without sending it again) and ``POST /v1/replay`` (of any record, stateless: the
page's review of an uploaded record opens its decisions with it, job or no job)."""

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


def test_n_in_the_path_is_a_count_in_digits(client):
    """As the body's strict ``n`` of /v1/replay refuses 1.0: old code read the path's
    "1.0", "+1", "1_0" and " 1" as position 1 (200)."""
    record = play_random_game(2, seed=13)
    job_id = submit(client, record.to_json())
    one = client.get(f"/v1/analyze/{job_id}/positions/1")
    assert one.status_code == 200, one.text
    for text in ("1.0", "+1", "1_0", "%201", "1e0"):
        r = client.get(f"/v1/analyze/{job_id}/positions/{text}")
        assert r.status_code == 422 and r.json()["error"] == "validation", (text, r.text)
        assert r.json()["field"] == "n", r.text
        assert r.json()["reason"].startswith("must be a whole number of actions"), r.text


def test_replay_gives_every_position_of_a_record_without_a_job(client):
    """The same positions as the job's route, from the record alone: a kept review of an
    upload opens its decisions after the server dropped its job (a finished job is
    deleted BIGSUR_JOB_TTL_SECONDS after it ends; the job's route answers 404 then)."""
    record = play_random_game(2, seed=13)
    for n in (0, 1, len(record.actions) // 2, len(record.actions)):
        r = client.post("/v1/replay", json={"record": record.to_json(), "n": n})
        assert r.status_code == 200, r.text
        expected = GameRecord(record.cards, 2, seed=13, actions=record.actions[:n]).replay()
        assert r.json() == state_to_json(expected)


def test_replay_names_what_is_wrong(client):
    record = play_random_game(2, seed=13)
    raw = record.to_json()
    for n, field in ((len(record.actions) + 1, "n"), (-1, "n"), ("3", "n"), (True, "n")):
        r = client.post("/v1/replay", json={"record": raw, "n": n})
        assert r.status_code == 422 and r.json()["field"] == field, (n, r.text)
    bad = {**raw, "actions": raw["actions"][:3] + ["take H99"] + raw["actions"][4:]}
    r = client.post("/v1/replay", json={"record": bad, "n": 2})
    assert r.status_code == 422 and r.json()["field"] == "actions[3]", r.text
    r = client.post("/v1/replay", json={"record": {**raw, "cards": "no-such-set"}, "n": 0})
    assert r.status_code == 422 and "no-such-set" in r.json()["reason"], r.text
    r = client.post("/v1/replay", json={"record": raw})
    assert r.status_code == 422 and r.json()["field"] == "n", r.text
