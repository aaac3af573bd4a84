"""The HTTP layer through TestClient, with the fake search: contract, limits, errors."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from session_testkit import BOTH_BACKENDS, poll_job

import server
from solver.cli import play_random_game
from solver.rules.engine import new_game, play
from solver.rules.position import state_to_json
from solver.rules.state import Phase
from solver.rules.views import view_of, view_to_json


def state_json(seed: int = 3, actions: tuple[str, ...] = ()) -> dict:
    state = new_game(2, seed=seed)
    for a in actions:
        state = play(state, a)
    return state_to_json(state)


def test_health_metrics_static_and_openapi(client):
    h = client.get("/healthz").json()
    assert h["status"] == "ok" and h["workers"] == 2 and h["busy"] == 0
    page = client.get("/")  # served from server/static
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.text == (Path(server.__file__).parent / "static" / "index.html").read_text()
    spec = client.get("/openapi.json").json()
    for path in ("/v1/hint", "/v1/analyze", "/v1/analyze/{job_id}", "/v1/score", "/v1/payment",
                 "/v1/cards", "/v1/cards/{name}", "/v1/games", "/v1/games/{game_id}",
                 "/v1/games/{game_id}/actions", "/v1/games/{game_id}/record",
                 "/v1/games/{game_id}/hint", "/healthz", "/metrics"):
        assert path in spec["paths"], path
    client.get("/v1/cards")
    text = client.get("/metrics").text
    assert 'bigsur_requests_total{method="GET",route="/v1/cards",status="200"} 1' in text
    assert "bigsur_search_workers 2" in text


def test_cards_are_listed_and_labelled_as_reconstruction(make_client, custom_file):
    client = make_client(cards=custom_file)
    sets = {s["name"]: s for s in client.get("/v1/cards").json()}
    assert set(sets) == {"default", "custom"}
    assert sets["default"]["reconstruction"] is True
    assert "reconstruction" in sets["default"]["label"]
    assert sets["default"]["highway"] == 69 and sets["default"]["landmarks"] == 20
    full = client.get("/v1/cards/default").json()
    assert len(full["highway"]) == 69 and full["reconstruction"] is True
    r = client.get("/v1/cards/nope")
    assert r.status_code == 404 and "nope" in r.json()["reason"]


def test_hint_on_a_full_state_searches_only_the_acting_seats_view(client, fake_search):
    raw = state_json(seed=4, actions=("take deck",))
    r = client.post("/v1/hint", json={"position": raw, "budget": {"iterations": 50},
                                      "seed": 9})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["position_kind"] == "state" and body["seed"] == 9
    assert body["budget"] == {"iterations": 50}
    assert body["seat"] == raw["current"]
    assert "reconstruction" in body["card_set"]
    view, budget, seed = fake_search.calls[-1]
    truth = new_game(2, seed=4)
    truth = play(truth, "take deck")
    assert view_to_json(view) == view_to_json(view_of(truth, truth.current))
    assert (budget, seed) == ({"iterations": 50}, 9)
    wins = [m["win_probability"] for m in body["moves"]]
    assert wins == sorted(wins, reverse=True) and len(wins) == len(body["moves"]) > 1


def test_hint_on_a_view(client):
    state = new_game(3, seed=2)
    raw = view_to_json(view_of(state, state.current))
    r = client.post("/v1/hint", json={"position": raw})
    assert r.status_code == 200, r.text
    assert r.json()["position_kind"] == "view"
    assert r.json()["budget"] == {"ms": 1000}  # the default


def test_hint_refuses_a_view_of_a_seat_not_to_act(client):
    state = new_game(2, seed=2)
    other = 1 - state.current
    r = client.post("/v1/hint", json={"position": view_to_json(view_of(state, other))})
    assert r.status_code == 422
    assert r.json()["field"] == "position.view_of" and str(state.current) in r.json()["reason"]


def test_hint_refuses_a_finished_game(client):
    record = play_random_game(2, seed=5)
    raw = state_to_json(record.replay())
    r = client.post("/v1/hint", json={"position": raw})
    assert r.status_code == 422 and "over" in r.json()["reason"]


def test_budget_caps_name_the_limit(make_client):
    client = make_client(max_budget_ms=500, max_iterations=1000)
    raw = state_json()
    cases = [({"ms": 501}, "budget.ms", "BIGSUR_MAX_BUDGET_MS"),
             ({"iterations": 1001}, "budget.iterations", "BIGSUR_MAX_ITERATIONS"),
             ({"ms": -5}, "budget.ms", "greater than or equal to 1"),
             ({"ms": 10, "iterations": 10}, "budget", "at most one")]  # {}: the default
    for budget, field, words in cases:
        r = client.post("/v1/hint", json={"position": raw, "budget": budget})
        assert r.status_code == 422, (budget, r.text)
        assert r.json()["field"] == field and words in r.json()["message"], r.json()


def test_body_size_is_capped(make_client):
    client = make_client(max_body_bytes=2048)
    big = {"position": {"format": "bigsur-position/1", "pad": "x" * 5000}}
    r = client.post("/v1/hint", json=big)
    assert r.status_code == 413 and "BIGSUR_MAX_BODY_BYTES" in r.json()["reason"]

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(10):
            yield b" " * 500

    r = client.post("/v1/hint", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["field"] == "body"
    r = client.post("/v1/score", content=json.dumps({"position": state_json()}).encode()[:0])
    assert r.status_code == 422  # empty body: validation, not a crash


def test_saturated_pool_answers_503_at_once(make_client, fake_search):
    client = make_client(workers=1, retry_after=2, queue_wait_seconds=0)
    fake_search.gate = threading.Event()
    raw = state_json()
    first: list = []
    t = threading.Thread(target=lambda: first.append(
        client.post("/v1/hint", json={"position": raw, "budget": {"ms": 10}})))
    t.start()
    assert fake_search.started.acquire(timeout=10)
    r = client.post("/v1/hint", json={"position": raw, "budget": {"ms": 10}})
    assert r.status_code == 503 and r.headers["Retry-After"] == "2"
    assert r.json()["error"] == "busy"
    fake_search.gate.set()
    t.join(10)
    assert first[0].status_code == 200
    r = client.post("/v1/hint", json={"position": raw, "budget": {"ms": 10}})
    assert r.status_code == 200
    assert "bigsur_search_rejected_total 1" in client.get("/metrics").text


def test_score_of_a_state_and_of_a_view_agree(client):
    record = play_random_game(2, seed=8)
    state = record.replay()
    a = client.post("/v1/score", json={"position": state_to_json(state)})
    b = client.post("/v1/score", json={"position": view_to_json(view_of(state, 1))})
    assert a.status_code == b.status_code == 200
    assert a.json()["scores"] == b.json()["scores"]
    assert a.json()["game_over"] is True
    totals = [s["total"] for s in a.json()["scores"]]
    assert a.json()["winners"] == [i for i, t in enumerate(totals) if t == max(totals)]


def test_payment_for_builds(client):
    from solver.rules.actions import Build
    from solver.rules.engine import legal_actions

    for seed in range(40):  # find a build-step position with an affordable card
        state = play(play(new_game(2, seed=seed), "take deck"), "take deck")
        builds = [a for a in legal_actions(state) if isinstance(a, Build)]
        if builds:
            break
    assert state.phase == Phase.BUILD and builds
    r = client.post("/v1/payment", json={"position": state_to_json(state),
                                         "builds": [builds[0].card + ":L"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["feasible"] is True and body["builds"][0]["card"] == builds[0].card
    assert body["solver"] == "cp-sat"
    after = play(state, body["builds"][0]["action"])  # the plan pays, by the rules
    assert len(after.player.hand) == len(state.player.hand) - 1 - body["cards_spent"]
    hand = [state.cards.highway[c].id for c in state.player.hand]
    r = client.post("/v1/payment", json={"position": state_to_json(state), "builds": hand})
    assert r.status_code == 200 and r.json()["feasible"] is False and r.json()["reason"]
    r = client.post("/v1/payment", json={"position": state_json(), "builds": ["H01"]})
    assert r.status_code == 422 and r.json()["field"] == "position.phase"
    r = client.post("/v1/payment", json={"position": state_to_json(state),
                                         "builds": [hand[0] + ":up"]})
    assert r.status_code == 422 and r.json()["field"] == "builds[0]"


@BOTH_BACKENDS
def test_analysis_job_reports_progress_and_result(client):
    record = play_random_game(2, seed=11)
    record.actions = record.actions[:12]
    r = client.post("/v1/analyze", json={"record": record.to_json(),
                                         "budget": {"iterations": 20}, "seed": 3})
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["status"] in ("queued", "running", "done")
    assert job["progress"]["total"] == 12
    done = poll_job(client, job["job_id"])
    assert done["status"] == "done", done
    result = done["result"]
    assert [d["index"] for d in result["decisions"]] == list(range(12))
    for d in result["decisions"]:
        assert d["played"] == record.actions[d["index"]]
        if d["how"] == "forced":
            assert d["legal"] == 1 and d["label"] is None
            continue
        assert d["how"] == "ranked"  # the fake ranks every legal action
        assert d["loss_win_pct"] == round(100 * (d["value_best"]["win_probability"]
                                                 - d["value_played"]["win_probability"]), 2)
    assert {p["seat"] for p in result["players"]} == {0, 1}
    assert result["thresholds"]["win_pct"] == [5.0, 10.0, 15.0]


def test_analysis_errors(client):
    record = play_random_game(2, seed=12)
    raw = record.to_json()
    raw["actions"] = raw["actions"][:5] + ["take H99"]
    r = client.post("/v1/analyze", json={"record": raw})
    assert r.status_code == 422 and "actions[5]" in r.json()["message"]
    r = client.post("/v1/analyze", json={"record": record.to_json(), "seats": [3]})
    assert r.status_code == 422 and r.json()["field"] == "seats"
    r = client.get("/v1/analyze/unknown-job")
    assert r.status_code == 404 and r.json()["field"] == "job_id"


@BOTH_BACKENDS
def test_too_many_jobs_answer_503(make_client, fake_search):
    client = make_client(max_jobs=1, workers=1)
    fake_search.gate = threading.Event()
    record = play_random_game(2, seed=13)
    record.actions = record.actions[:6]
    r1 = client.post("/v1/analyze", json={"record": record.to_json()})
    assert r1.status_code == 202
    r2 = client.post("/v1/analyze", json={"record": record.to_json()})
    assert r2.status_code == 503 and "Retry-After" in r2.headers
    fake_search.gate.set()
    assert poll_job(client, r1.json()["job_id"])["status"] == "done"


def test_settings_and_the_serve_command(tmp_path, monkeypatch):
    import argparse

    import pydantic

    from server.app import add_cli
    from server.settings import Settings

    with pytest.raises(pydantic.ValidationError, match="BIGSUR_DATABASE_URL: a 'mysql' URL"):
        Settings(database_url="mysql://db.example/bigsur")
    with pytest.raises(pydantic.ValidationError, match="BIGSUR_CLUSTER"):
        Settings(cluster="scheduler:8786")
    assert Settings(db="postgresql://db.example/bigsur").database == \
        "postgresql://db.example/bigsur"
    monkeypatch.setenv("BIGSUR_DATABASE_URL", f"sqlite:///{tmp_path}/url.db")
    monkeypatch.setenv("BIGSUR_WORKERS", "3")
    monkeypatch.setenv("BIGSUR_MAX_BUDGET_MS", "250")
    s = Settings()
    assert (s.workers, s.max_budget_ms) == (3, 250)
    assert s.database == f"{tmp_path}/url.db"
    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--port", "9", "--db", "x.db"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 9, "x.db") and callable(args.func)


def test_made_up_methods_share_one_metrics_label(client):
    """Every method outside HTTP's own counts as "other": a label per made-up method let
    a client grow /metrics (and the server's memory) by two lines a request."""
    before = client.get("/metrics").text.count("\n")
    for i in range(30):
        assert client.request(f"BREW{i}", "/v1/cards").status_code == 405
    text = client.get("/metrics").text
    other = [line for line in text.splitlines() if 'method="other"' in line]
    assert other and sum(float(line.split()[-1]) for line in other
                         if line.startswith("bigsur_requests_total")) == 30
    assert "BREW" not in text
    assert text.count("\n") - before <= 4  # the GET /metrics itself and "other"'s lines
