"""Exact seeds end to end, and the review of a hosted game by its id.

A game with a seed above 2**53 (JavaScript numbers round there) is created with the seed
sent as a decimal string, played out, its record downloaded as text (the digits are
exact), loaded back (also with the seed as a string, as a page may write it), replayed,
reviewed by ``bigsur analyze`` and by ``POST /v1/games/{id}/analysis`` (no record sent).
"""

from __future__ import annotations

import json
import random
import threading

from session_testkit import BOTH_BACKENDS, auth, new_game, play_out, poll_job

from solver.rules.record import GameRecord

BIG = 2**62 + 123456789  # not a multiple of anything a float keeps: 2**62 + odd


def test_big_seed_round_trip_and_review_by_game_id(make_client, custom_file, tmp_path):
    client = make_client(cards=custom_file)
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "greedy"],
                                       "seed": str(BIG), "cards": "custom"})
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in r.json()["tokens"]}
    token = tokens[0]

    # before the end: no review
    r = client.post(f"/v1/games/{game_id}/analysis", json={}, headers=auth(token))
    assert r.status_code == 409, r.text
    assert client.post(f"/v1/games/{game_id}/analysis", json={}).status_code == 401

    play_out(client, game_id, tokens, random.Random(3))
    text = client.get(f"/v1/games/{game_id}/record", headers=auth(token)).text
    assert f'"seed":{BIG}' in text.replace(" ", "")  # the exact digits
    raw = json.loads(text)
    record = GameRecord.from_json(raw, _custom(client))
    assert record.seed == BIG
    final = record.replay()
    # the seed as a decimal string reads the same (what a JavaScript client may write)
    as_string = GameRecord.from_json({**raw, "seed": str(BIG)}, _custom(client))
    assert as_string.seed == BIG and as_string.replay() == final
    # the rounded seed (what a JavaScript number holds) deals another game
    assert float(BIG) != BIG

    r = client.post(f"/v1/games/{game_id}/analysis",
                    json={"budget": {"iterations": 5}, "seed": 0}, headers=auth(token))
    assert r.status_code == 202, r.text
    job = r.json()
    again = client.post(f"/v1/games/{game_id}/analysis",
                        json={"budget": {"iterations": 5}, "seed": 0}, headers=auth(token))
    assert again.json()["job_id"] == job["job_id"]  # the same review, not a second one
    done = poll_job(client, job["job_id"])
    assert done["status"] == "done", done
    assert len(done["result"]["decisions"]) == len(raw["actions"])
    latest = client.get(f"/v1/games/{game_id}/analysis", headers=auth(token))
    assert latest.status_code == 200 and latest.json()["job_id"] == job["job_id"]
    assert client.get(f"/v1/games/{game_id}/analysis",
                      headers=auth("nope")).status_code == 403


def test_bigsur_analyze_reads_a_record_with_a_string_seed(make_client, tmp_path, capsys):
    # the shipped (full) card set: the CLI reads records as strictly as any input
    client = make_client()
    game_id, tokens = new_game(client, seats=["human", "greedy"], seed=BIG)
    play_out(client, game_id, tokens, random.Random(4))
    raw = client.get(f"/v1/games/{game_id}/record", headers=auth(tokens[0])).json()
    assert raw["seed"] == BIG
    path = tmp_path / "game.json"
    path.write_text(json.dumps({**raw, "seed": str(BIG)}))
    from solver.cli import main

    out = tmp_path / "review.json"
    rc = main(["analyze", str(path), "--iterations", "3",
               "--no-progress", "--json", str(out)])
    assert rc == 0, capsys.readouterr().err
    assert len(json.loads(out.read_text())["decisions"]) == len(raw["actions"])


def _custom(client):
    return client.app.state.cards.sets["custom"]



def test_undo_takes_back_a_build_of_the_turn(make_client, custom_file):
    client = make_client(cards=custom_file)
    game_id, tokens = new_game(client, seats=["human", "greedy"], seed=21, cards="custom")
    h = auth(tokens[0])
    rng = random.Random(5)
    for _ in range(400):  # play until the human has just built in its build step
        view = client.get(f"/v1/games/{game_id}", headers=h).json()
        assert not view["over"], "no build happened"
        if view["log"] and view["log"][-1]["seat"] == 0 and \
                view["log"][-1]["action"].startswith("build ") and view["your_turn"]:
            break
        legal = view["legal_actions"]
        builds = [a for a in legal if a.startswith("build ")]
        if view["view"]["phase"] == "build" and not builds and view["log"] and \
                view["log"][-1]["seat"] == 0 and view["log"][-1]["action"].startswith("take"):
            # nothing to build: a take is never undone
            r = client.post(f"/v1/games/{game_id}/undo", headers=h)
            assert r.status_code == 409 and "take is never undone" in r.json()["message"]
        action = builds[0] if builds else rng.choice(legal)
        r = client.post(f"/v1/games/{game_id}/actions", headers=h,
                        json={"action": action, "action_id": f"u{view['actions_applied']}"})
        assert r.status_code == 200, r.text
    before = client.get(f"/v1/games/{game_id}", headers=h).json()
    built = before["log"][-1]["action"].split()[1]
    r = client.post(f"/v1/games/{game_id}/undo", headers=h)
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["actions_applied"] == before["actions_applied"] - 1
    me = after["view"]["seats"][0]
    assert built in me["hand"] and built not in me["highway"]
    assert after["view"]["phase"] == "build" and after["your_turn"]
    # the stored game replays the same (a restart would see the undone game)
    again = client.get(f"/v1/games/{game_id}", headers=h).json()
    assert again["actions_applied"] == after["actions_applied"]
    assert client.post(f"/v1/games/{game_id}/undo", headers=auth("x")).status_code == 403


@BOTH_BACKENDS
def test_a_games_review_is_found_by_every_process_of_the_database(make_client):
    """The link from a game to its review jobs was kept in the process's memory: with
    several server processes the review asked through another was "no review ... on this
    server yet" (404) and started again, and after a restart the page's reload started
    the review again. It is stored with the job."""
    first = make_client()
    game_id, tokens = new_game(first, seats=["human", "greedy"], seed=5)
    play_out(first, game_id, tokens, random.Random(5))
    body = {"budget": {"iterations": 3}, "seed": 0}
    r = first.post(f"/v1/games/{game_id}/analysis", json=body, headers=auth(tokens[0]))
    assert r.status_code == 202, r.text
    job_id = r.json()["job_id"]
    assert poll_job(first, job_id)["status"] == "done"
    other = make_client()  # another process on the same database (or the next start)
    latest = other.get(f"/v1/games/{game_id}/analysis", headers=auth(tokens[0]))
    assert latest.status_code == 200, latest.text
    assert latest.json()["job_id"] == job_id
    again = other.post(f"/v1/games/{game_id}/analysis", json=body, headers=auth(tokens[0]))
    assert again.json()["job_id"] == job_id  # the same review, not a second one
    fresh = other.post(f"/v1/games/{game_id}/analysis", json={**body, "again": True},
                       headers=auth(tokens[0]))
    assert fresh.status_code == 202 and fresh.json()["job_id"] != job_id
    assert first.get(f"/v1/games/{game_id}/analysis",
                     headers=auth(tokens[0])).json()["job_id"] == fresh.json()["job_id"]


@BOTH_BACKENDS
def test_two_review_requests_at_once_on_two_processes_start_one_review(make_client,
                                                                        fake_search,
                                                                        monkeypatch):
    """Each process looked up the game's review, found none and stored its own: the
    look-up and the insert were not one transaction, so the game was reviewed twice. The
    second process's request runs whole while the first's is about to store its job:
    one job, and both answers name it. A cancelled review is not reused: the next
    request starts a new one."""
    first, second = make_client(), make_client()  # two processes on one database
    game_id, tokens = new_game(first, seats=["human", "greedy"], seed=5)
    play_out(first, game_id, tokens, random.Random(5))
    url, headers = f"/v1/games/{game_id}/analysis", auth(tokens[0])
    body = {"budget": {"iterations": 3}, "seed": 0}
    store = first.app.state.store
    create_job = store.create_job
    answered_meanwhile = []

    def second_request_first(*args, **kwargs):
        answered_meanwhile.append(second.post(url, json=body, headers=headers))
        return create_job(*args, **kwargs)

    fake_search.gate = threading.Event()  # (the review stays running until cancelled)
    try:
        monkeypatch.setattr(store, "create_job", second_request_first)
        r = first.post(url, json=body, headers=headers)
        monkeypatch.undo()
        assert r.status_code == 202, r.text
        [meanwhile] = answered_meanwhile
        assert meanwhile.status_code == 202, meanwhile.text
        assert store.jobs_of_game(game_id) == [r.json()["job_id"]]
        assert meanwhile.json()["job_id"] == r.json()["job_id"]

        cancelled = second.delete(f"/v1/analyze/{r.json()['job_id']}").json()
        assert cancelled["status"] == "cancelled", cancelled
        fresh = first.post(url, json=body, headers=headers)
        assert fresh.status_code == 202, fresh.text
        assert fresh.json()["job_id"] != cancelled["job_id"]
        assert second.post(url, json=body, headers=headers).json()["job_id"] == \
            fresh.json()["job_id"]
    finally:
        fake_search.gate.set()
        fake_search.gate = None
    assert poll_job(first, fresh.json()["job_id"])["status"] == "done"
