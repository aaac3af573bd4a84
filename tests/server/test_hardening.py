"""Attacks of issue 12 (service hardening), each of which succeeded on the old code."""

from __future__ import annotations

import pytest

BYPASSES = ["mcts:1000S", "mcts:1e3s", " mcts:1s", "mcts:1_000i", "mcts:+1s", "mcts:86399.9S",
            "mcts:1_000_000_000i", "MCTS:1s", "mcts:1s ", "os.path:join", "os-mcts:1s"]


@pytest.mark.parametrize("spec", BYPASSES)
def test_seat_specs_outside_the_grammar_are_422_naming_the_seat(client, spec):
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", spec]})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "seats[1]"
    assert r.json()["error"] == "bot_spec"


@pytest.mark.parametrize("spec", ["mcts:86399.9s", "mcts:10.5s", "mcts:100001i"])
def test_seat_budgets_beyond_the_caps_are_refused(client, spec):
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", spec]})
    assert r.status_code == 422, r.text
    assert (r.json()["field"], r.json()["error"]) == ("seats[1]", "limit")


# ------------------------------------------------------------------ the search pool

import threading  # noqa: E402
import time  # noqa: E402

from session_testkit import BOTH_BACKENDS, auth, poll_job  # noqa: E402

from solver.cli import play_random_game  # noqa: E402
from solver.rules.engine import new_game as engine_new_game  # noqa: E402
from solver.rules.position import state_to_json  # noqa: E402


def hint_body(budget=None) -> dict:
    return {"position": state_to_json(engine_new_game(2, seed=3)),
            "budget": budget or {"ms": 100}}


def short_record(n: int = 6, seed: int = 13) -> dict:
    record = play_random_game(2, seed=seed)
    record.actions = record.actions[:n]
    return record.to_json()


def metric(client, name: str) -> float:
    for line in client.get("/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


def test_a_busy_pool_queues_hints_instead_of_refusing_them(make_client, fake_search):
    client = make_client(workers=1)  # old code: the second hint was a 503 at once
    fake_search.gate = threading.Event()
    answers: list = []
    threads = [threading.Thread(target=lambda: answers.append(
        client.post("/v1/hint", json=hint_body()))) for _ in range(2)]
    for t in threads:
        t.start()
    assert fake_search.started.acquire(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and metric(client, "bigsur_search_waiting") < 1:
        time.sleep(0.02)
    assert metric(client, "bigsur_search_waiting") == 1
    fake_search.gate.set()
    for t in threads:
        t.join(20)
    assert [r.status_code for r in answers] == [200, 200]


def test_analysis_jobs_leave_a_worker_to_hints(make_client, fake_search):
    client = make_client(workers=2, max_jobs=4, max_jobs_per_client=4)
    fake_search.gate = threading.Event()
    jobs = [client.post("/v1/analyze", json={"record": short_record(seed=13 + k)})
            for k in range(3)]
    assert all(r.status_code == 202 for r in jobs), [r.text for r in jobs]
    assert fake_search.started.acquire(timeout=10)  # one review runs ...
    time.sleep(0.2)
    assert metric(client, "bigsur_search_busy") == 1  # ... and only one
    got: list = []
    t = threading.Thread(target=lambda: got.append(client.post("/v1/hint", json=hint_body())))
    t.start()
    assert fake_search.started.acquire(timeout=5), "the hint did not get the other worker"
    fake_search.gate.set()
    t.join(20)
    assert got[0].status_code == 200
    for r in jobs:
        assert poll_job(client, r.json()["job_id"])["status"] == "done"


@BOTH_BACKENDS
def test_a_job_can_be_cancelled_and_stays_cancelled(make_client, fake_search):
    client = make_client(workers=1)
    fake_search.gate = threading.Event()
    job = client.post("/v1/analyze", json={"record": short_record()}).json()
    assert fake_search.started.acquire(timeout=10)
    r = client.delete(f"/v1/analyze/{job['job_id']}")
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
    fake_search.gate.set()
    time.sleep(0.3)
    assert client.get(f"/v1/analyze/{job['job_id']}").json()["status"] == "cancelled"
    assert client.delete("/v1/analyze/nope").status_code == 404


@BOTH_BACKENDS
def test_a_job_cancelled_through_another_server_stops_where_it_runs(make_client,
                                                                    fake_search):
    """Two apps on one database (as two server processes): a DELETE through the one
    that does not run the job stops its search in the other at the next lease renewal."""
    running = make_client(workers=1, job_lease_seconds=0.6)
    other = make_client(workers=1, job_lease_seconds=0.6)
    fake_search.gate = threading.Event()
    job_id = running.post("/v1/analyze", json={"record": short_record()}).json()["job_id"]
    assert fake_search.started.acquire(timeout=10)
    r = other.delete(f"/v1/analyze/{job_id}")
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
    tasks = running.app.state.jobs.tasks
    deadline = time.monotonic() + 10
    while job_id in tasks:
        assert time.monotonic() < deadline, "the job went on where it ran"
        time.sleep(0.05)
    fake_search.gate.set()
    assert running.get(f"/v1/analyze/{job_id}").json()["status"] == "cancelled"


@BOTH_BACKENDS
def test_jobs_survive_a_restart_and_are_purged_after_their_ttl(make_client, fake_search):
    client = make_client(workers=1)
    fake_search.gate = threading.Event()
    job_id = client.post("/v1/analyze", json={"record": short_record()}).json()["job_id"]
    assert fake_search.started.acquire(timeout=10)
    client.__exit__(None, None, None)  # shutdown while the job runs
    fake_search.gate.set()
    fake_search.gate = None
    again = make_client(workers=1, job_ttl_seconds=0.5)
    done = poll_job(again, job_id)
    assert done["status"] == "done" and done["progress"]["done"] == done["progress"]["total"]
    time.sleep(0.7)
    assert again.get(f"/v1/analyze/{job_id}").status_code == 404


@BOTH_BACKENDS
def test_queued_jobs_are_limited_per_client(make_client, fake_search):
    client = make_client(workers=1, max_jobs=10, max_jobs_per_client=1)
    fake_search.gate = threading.Event()
    assert client.post("/v1/analyze", json={"record": short_record()}).status_code == 202
    r = client.post("/v1/analyze", json={"record": short_record()})
    assert r.status_code == 429 and "Retry-After" in r.headers, r.text
    fake_search.gate.set()


@pytest.mark.parametrize("names", [True, 5, "ab", [1, 2], ["a"], [None, "b"]])
def test_bad_record_names_are_refused_at_submit(client, names):
    record = short_record()
    record["names"] = names  # old code: 202, then a traceback in summarise
    r = client.post("/v1/analyze", json={"record": record})
    assert r.status_code == 422, r.text
    assert r.json()["field"].startswith("names"), r.text  # as the record's other fields


# ------------------------------------------------------------------ action ids per seat

def hot_seat(client) -> tuple[str, str, str, int]:
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "human"]})
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in r.json()["tokens"]}
    first = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["to_act"]
    return game_id, tokens[first], tokens[1 - first], first


def test_action_ids_are_per_seat_and_a_conflict_never_quotes_another_seat(client):
    game_id, me, other, _first = hot_seat(client)
    url = f"/v1/games/{game_id}/actions"
    for _ in range(2):  # the first player's whole turn: two takes, then end
        data = client.get(f"/v1/games/{game_id}", headers=auth(me)).json()
        if not data["your_turn"]:
            break
        action = next(a for a in data["legal_actions"] if a.startswith("take")) \
            if any(a.startswith("take") for a in data["legal_actions"]) else "end"
        r = client.post(url, headers=auth(me), json={"action": action,
                                                     "action_id": f"m{data['actions_applied']}"})
        assert r.status_code == 200, r.text
    # the other seat, out of turn, with an id the first seat used: not-your-turn, no quote
    r = client.post(url, headers=auth(other), json={"action": "take deck", "action_id": "m0"})
    assert r.status_code == 409 and r.json()["error"] == "not_your_turn", r.text
    assert "take" not in r.json()["message"].replace("take deck", "")
    # play the first seat's turn to its end, then the other seat may reuse "m0"
    while True:
        data = client.get(f"/v1/games/{game_id}", headers=auth(me)).json()
        if not data["your_turn"]:
            break
        action = "end" if "end" in data["legal_actions"] else data["legal_actions"][0]
        assert client.post(url, headers=auth(me), json={"action": action}).status_code == 200
    r = client.post(url, headers=auth(other), json={"action": "take deck", "action_id": "m0"})
    assert r.status_code == 200 and r.json()["applied"]["duplicate"] is False, r.text
    r = client.post(url, headers=auth(other), json={"action": "end", "action_id": "m0"})
    assert r.status_code == 409 and r.json()["field"] == "action_id"
    assert "seat" not in r.json()["reason"].replace("your seat", "")


# ------------------------------------------------------------------ provably fair deals

import json  # noqa: E402
import random  # noqa: E402

from session_testkit import play_out  # noqa: E402

from solver.cli import main as cli_main  # noqa: E402


def test_with_two_humans_nobody_chooses_the_seed(make_client):
    client = make_client(chosen_seeds="single-human")  # the default
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "human"], "seed": 5})
    assert r.status_code == 422 and r.json()["field"] == "seed", r.text
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "random"], "seed": 5})
    assert r.status_code == 201 and r.json()["fairness"]["seed_chosen_by_creator"] is True


def test_every_game_commits_to_its_deal_and_reveals_it_at_the_end(make_client, tmp_path,
                                                                    capsys):
    # the shipped (full) card set: `bigsur verify` reads records as strictly as any input
    client = make_client(chosen_seeds="single-human")
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "human"]})
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in r.json()["tokens"]}
    fair = r.json()["fairness"]
    assert len(fair["commitment"]) == 64 and fair["seed"] is None and fair["salt"] is None
    assert fair["seed_chosen_by_creator"] is False
    seen = []
    play_out(client, game_id, tokens, random.Random(3), on_response=lambda s, d: seen.append(d))
    assert all(d["fairness"]["seed"] is None for d in seen if not d["over"])
    record = client.get(f"/v1/games/{game_id}/record", headers=auth(tokens[0])).json()
    revealed = record["meta"]["fairness"]
    assert revealed["commitment"] == fair["commitment"] and revealed["seed"] == record["seed"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert cli_main(["verify", str(path)]) == 0
    assert "OK" in capsys.readouterr().out
    for key, value in (("seed", record["seed"] + 1), ("salt", "0" * 32)):
        bad = json.loads(json.dumps(record))
        bad["meta"]["fairness"][key] = value
        path.write_text(json.dumps(bad))
        assert cli_main(["verify", str(path)]) == 1
        assert "FAILED" in capsys.readouterr().out


def test_commitments_differ_between_games_with_one_seed(client):
    a = client.post("/v1/games", json={"players": 2, "seats": ["human", "random"], "seed": 9})
    b = client.post("/v1/games", json={"players": 2, "seats": ["human", "random"], "seed": 9})
    assert a.json()["fairness"]["commitment"] != b.json()["fairness"]["commitment"]


# ------------------------------------------------------------------ game limits, lifecycle

def create(client, seats=("human", "random")):
    return client.post("/v1/games", json={"players": len(seats), "seats": list(seats)})


def test_games_in_progress_are_limited_per_client_and_overall(make_client):
    client = make_client(max_games_per_client=2, max_games=3)
    assert [create(client).status_code for _ in range(2)] == [201, 201]
    r = create(client)
    assert r.status_code == 429 and r.json()["error"] == "too_many", r.text
    assert r.headers.get("Retry-After") == "60", r.headers  # as docs/api.md says of a 429
    other = make_client(max_games_per_client=5, max_games=2)  # the same database: 2 exist
    r = create(other)
    assert r.status_code == 503 and "Retry-After" in r.headers, r.text


def test_the_creator_deletes_a_game_and_counts_follow(client):
    r = client.post("/v1/games", json={"players": 3, "seats": ["human", "random", "human"]})
    game_id = r.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in r.json()["tokens"]}
    before = sum(client.get("/healthz").json()["games"].values())
    r = client.delete(f"/v1/games/{game_id}", headers=auth(tokens[2]))
    assert r.status_code == 403 and r.json()["field"] == "authorization"
    assert client.delete(f"/v1/games/{game_id}").status_code == 401
    assert client.delete(f"/v1/games/{game_id}", headers=auth(tokens[0])).status_code == 204
    assert client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).status_code == 404
    assert sum(client.get("/healthz").json()["games"].values()) == before - 1


def test_abandoned_games_expire(make_client):
    client = make_client(game_idle_seconds=0.3)
    r = create(client)
    game_id, token = r.json()["game_id"], r.json()["tokens"][0]["token"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if client.get(f"/v1/games/{game_id}", headers=auth(token)).status_code == 404:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the abandoned game was never deleted")


# ------------------------------------------------------------------ one error shape

from solver.rules.cards import load_card_set  # noqa: E402
from solver.rules.views import view_of, view_to_json  # noqa: E402

SHAPE = {"error", "field", "reason", "message"}


def raw_post(client, url: str, body: bytes):
    return client.post(url, content=body, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("body", [b'{"position": "\xff"}', b"[" * 5000 + b"]" * 5000,
                                  b'{"position": {}, "seed": ' + b"9" * 5000 + b"}",
                                  b'{"position": ', b""])
def test_unreadable_bodies_get_the_documented_shape(client, body):
    r = raw_post(client, "/v1/hint", body)
    assert r.status_code in (400, 422), r.text
    assert SHAPE <= set(r.json()) and r.json()["field"] == "body", r.text


@pytest.mark.parametrize("body", [b"\xff\xfe", b"{", b'{"position": ', b"{'a': 1}",
                                  b'{"position": "\xff"}', b"[" * 5000])
def test_bytes_that_are_not_json_are_a_400_body_as_documented(client, body):
    # bad UTF-8 and bad syntax were a 422 "validation: JSON decode error"
    for url in ("/v1/hint", "/v1/games", "/v1/replay"):
        r = raw_post(client, url, body)
        assert r.status_code == 400 and r.json()["error"] == "body", (url, r.text)
        assert r.json()["reason"].startswith("the body is not valid JSON ("), r.text


def test_a_key_repeated_in_one_object_is_a_400_body_naming_it_on_every_route(client):
    """JSON leaves a repeated key's meaning open; the decoder took the last silently:
    {"players": 2, "players": 3} made a 3-player game. Every route reading a JSON body
    refuses it, at any depth, naming the key; the same body once is read as before."""
    stored = {**load_card_set().to_json(), "name": "mine", "reconstruction": True}
    stored["highway"][0]["text"] = "my own note"  # not the shipped set's cards exactly
    assert client.post("/v1/cardsets", json=stored).status_code == 201, "set stored"
    routes = [path.replace("{game_id}", "nogame") for path, operations in
              client.app.openapi()["paths"].items()
              if "requestBody" in operations.get("post", {})]
    routes += ["/v1/cardsets", "/v1/cardsets/check", "/v1/cardsets/mine/versions",
               "/v1/cardsets/export.csv"]
    for body, key in ((b'{"players": 2, "players": 3}', "players"),
                      (b'{"position": {"a": 1, "deck": [], "deck": []}}', "deck")):
        for url in routes:
            r = raw_post(client, url, body)
            assert r.status_code == 400, (url, r.text)
            assert r.json()["error"] == "body" and r.json()["field"] == "body", r.text
            assert f"the key '{key}' appears twice" in r.json()["reason"], r.text
    r = raw_post(client, "/v1/games", b'{"players": 3, "seats": ["human", "random", '
                                      b'"random"]}')
    assert r.status_code == 201 and len(r.json()["tokens"]) == 1, r.text


def test_404_405_and_options_get_the_documented_shape(client):
    r = client.get("/v1/nope")
    assert r.status_code == 404 and SHAPE <= set(r.json())
    r = client.get("/v1/hint")  # old code: a 404 from the static files
    assert r.status_code == 405 and SHAPE <= set(r.json()) and "POST" in r.headers["Allow"]
    r = client.options("/v1/hint")  # old code: 405 with Allow: GET, HEAD
    assert r.status_code == 204 and "POST" in r.headers["Allow"]
    r = client.put("/v1/games/x")
    assert r.status_code == 405 and set(r.headers["Allow"].split(", ")) >= {"GET", "DELETE"}
    r = client.head("/healthz")  # old code: 404 (HEAD fell through to the static files)
    assert r.status_code == 200 and r.content == b""
    r = client.post("/index.html")
    assert r.status_code == 405 and SHAPE <= set(r.json())


@pytest.mark.parametrize("budget", [{"ms": "100"}, {"ms": True}, {"iterations": "5"},
                                    {"iterations": 1.5}, {"ms": 100, "iterations": 5}])
def test_budgets_are_strictly_typed(client, budget):
    r = client.post("/v1/hint", json={**hint_body(), "budget": budget})
    assert r.status_code == 422, r.text
    assert r.json()["field"].startswith("budget"), r.text


def test_an_empty_budget_is_the_default_as_the_schema_says(client):
    r = client.post("/v1/hint", json={**hint_body(), "budget": {}})
    assert r.status_code == 200, r.text
    assert r.json()["budget"] == {"ms": 1000}


def test_an_impossible_view_is_refused_by_score_too(client):
    view = view_to_json(view_of(engine_new_game(2, seed=3), 0))
    view["seats"][1]["hand"]["count"] = 150
    for url in ("/v1/score", "/v1/hint"):
        r = client.post(url, json={"position": view})
        assert r.status_code == 422, (url, r.text)
        assert r.json()["error"] == "position" and SHAPE <= set(r.json())


@pytest.mark.parametrize("url,body,field", [
    ("/v1/hint", {"seed": True}, "seed"), ("/v1/hint", {"seed": "+5"}, "seed"),
    ("/v1/games", {"players": True}, "players"), ("/v1/games", {"players": "2"}, "players"),
    ("/v1/analyze", {"record": {}, "seed": True}, "seed"),
    ("/v1/analyze", {"record": {}, "seats": [True]}, "seats[0]")])
def test_other_integers_are_strict_too(client, url, body, field):
    if url == "/v1/hint":
        body = {**hint_body(), **body}
    r = client.post(url, json=body)
    assert r.status_code == 422 and r.json()["field"] == field, r.text


def test_repeated_log_messages_are_rate_limited():
    import logging

    from server.netguard import RateLimitFilter

    f = RateLimitFilter(interval=60)
    records = [logging.LogRecord("asyncio", logging.ERROR, __file__, 1,
                                 "socket.accept() out of system resource", None, None)
               for _ in range(1000)]
    assert sum(f.filter(r) for r in records) == 1
    other = logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "something else", None,
                              None)
    assert f.filter(other)


# ------------------------------------------------------------------ old databases

import sqlite3  # noqa: E402

V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL,
    players INTEGER NOT NULL, seed INTEGER NOT NULL, cards TEXT NOT NULL,
    seats TEXT NOT NULL, token_hashes TEXT NOT NULL, status TEXT NOT NULL,
    n_actions INTEGER NOT NULL);
CREATE TABLE actions (game_id TEXT NOT NULL REFERENCES games(id), idx INTEGER NOT NULL,
    seat INTEGER NOT NULL, action TEXT NOT NULL, submitted TEXT NOT NULL, client_id TEXT,
    created REAL NOT NULL, PRIMARY KEY (game_id, idx));
CREATE UNIQUE INDEX actions_client ON actions(game_id, client_id)
    WHERE client_id IS NOT NULL;
CREATE INDEX games_status ON games(status);
INSERT INTO meta VALUES ('schema', '1');
"""


def test_a_schema_1_database_is_migrated_and_a_stale_ai_spec_plays_as_greedy(make_client,
                                                                            tmp_path):
    """An older server accepted `mcts:60S`; after the upgrade and a restart the stored
    game must not search for a minute per move (issue 12, finding 1)."""
    from server.store import token_hash

    seed = next(k for k in range(200) if engine_new_game(2, seed=k).current == 1)
    db = sqlite3.connect(tmp_path / "games.db")
    db.executescript(V1_SCHEMA)
    db.execute("INSERT INTO games VALUES ('old', 0, 0, 2, ?, '\"default\"', ?, ?, 'ai', 0)",
               (seed, json.dumps(["human", "mcts:60S"]),
                json.dumps([token_hash("t" * 32), None])))
    db.commit()
    db.close()
    client = make_client()  # the same file (tmp_path/games.db)
    assert client.get("/healthz").json()["games"] == {"ai": 1} or \
        client.get("/healthz").json()["games"] == {"human": 1}
    started = time.monotonic()
    data = client.get("/v1/games/old", headers=auth("t" * 32)).json()
    while data["ai_thinking"] and time.monotonic() - started < 20:
        time.sleep(0.05)
        data = client.get("/v1/games/old", headers=auth("t" * 32)).json()
    assert not data["ai_thinking"] and data["your_turn"], data
    assert time.monotonic() - started < 20
    assert data["fairness"] is None  # a game from before commitments


def test_game_counts_kept_by_triggers_match_a_full_count(tmp_path):
    from server.store import Store

    store = Store(tmp_path / "counts.db")
    rng = random.Random(5)
    ids = []
    for k in range(60):
        store.create_game(f"g{k}", 2, k, "default", ["human", "random"], ["h", None],
                          rng.choice(["human", "ai"]))
        ids.append(f"g{k}")
    for game_id in ids[:40]:
        store.append_action(game_id, 0, 0, "take deck", "take deck", None,
                            rng.choice(["human", "ai", "over"]))
    for game_id in ids[::7]:
        assert store.delete_game(game_id)
    full = dict(store.query("SELECT status, count(*) FROM games GROUP BY status"))
    assert store.counts() == full
    plan = " ".join(str(r) for r in store.query(
        "EXPLAIN QUERY PLAN SELECT status, n FROM game_counts WHERE n > 0"))
    assert "games" not in plan.replace("game_counts", "")  # never a scan of the games
    store.close()


def test_a_job_longer_than_the_job_limit_is_refused_at_submit(make_client):
    """Issue 12: 95 decisions at 10 s each held a worker for about 1,900 s."""
    client = make_client(max_job_seconds=60)
    record = play_random_game(2, seed=13).to_json()
    r = client.post("/v1/analyze", json={"record": record, "budget": {"ms": 10_000}})
    assert r.status_code == 422 and r.json()["field"] == "budget.ms", r.text
    assert "BIGSUR_MAX_JOB_SECONDS" in r.json()["reason"]
    r = client.post("/v1/analyze", json={"record": short_record(), "budget": {"ms": 100}})
    assert r.status_code == 202, r.text


# ------------------------------------------------------------------ a robustness QA pass

def default_set_json(client) -> dict:
    cards = client.get("/v1/cards/default").json()
    return {k: v for k, v in cards.items() if k not in ("label", "fingerprint")}


def test_a_card_set_as_the_server_gives_it_is_taken_back_as_it_came(client):
    """GET /v1/cards/NAME adds 'label' and 'fingerprint'; sent back inline they were
    'unknown field's."""
    cards = client.get("/v1/cards/default").json()
    r = client.post("/v1/cardsets/check", json=cards)
    assert r.status_code == 200 and r.json()["ok"], r.text
    r = client.post("/v1/cardsets/check", json={**cards, "description": "edited"})
    assert not r.json()["ok"] and r.json()["errors"][0]["field"] == "fingerprint", r.text


@pytest.mark.parametrize("value", [-1, 1.5, True])
def test_card_lists_that_are_not_lists_are_named_not_a_500(client, value):
    """Old code: check_caps iterated ``raw.get("highway") or []``, a TypeError (500)."""
    cards = default_set_json(client)
    r = client.post("/v1/cardsets/check", json={**cards, "highway": value})
    assert r.status_code == 200 and not r.json()["ok"], r.text
    assert r.json()["errors"][0]["field"] == "highway"
    r = client.post("/v1/cardsets", json={**cards, "name": "mine", "landmarks": value})
    assert r.status_code == 422 and r.json()["field"] == "landmarks", r.text


def test_an_empty_card_id_is_reported_as_that_card(client):
    cards = default_set_json(client)
    cards["highway"][3]["id"] = ""
    first = client.post("/v1/cardsets/check", json=cards).json()["errors"][0]
    assert (first["card"], first["field"]) == ("", "id"), first  # old code: "None[None]"


def test_included_routes_answer_405_options_and_head(client):
    """Old code: the method guard knew only the top routers' own routes, so the stored
    card sets, undo and the review of a game fell through to the static files (404 to
    HEAD and GET, an Allow without POST)."""
    r = client.options("/v1/cardsets")
    assert r.status_code == 204 and "POST" in r.headers["Allow"]
    r = client.put("/v1/cardsets")
    assert r.status_code == 405 and SHAPE <= set(r.json()) and "POST" in r.headers["Allow"]
    r = client.get("/v1/games/x/undo")
    assert r.status_code == 405 and r.headers["Allow"] == "OPTIONS, POST", r.text
    r = client.head("/v1/cardsets")
    assert r.status_code == 200 and r.content == b""
    r = client.put("/v1/games/x/analysis")
    assert r.status_code == 405 and {"GET", "POST"} <= set(r.headers["Allow"].split(", "))


@pytest.mark.parametrize("body,field", [({"seed": "+5"}, "seed"), ({"seed": True}, "seed"),
                                        ({"seed": 1.0}, "seed"), ({"seats": [True]}, "seats[0]"),
                                        ({"again": "yes"}, "again")])
def test_the_review_of_a_hosted_game_is_strictly_typed(client, body, field):
    """As POST /v1/analyze: old code took "5" and true as seed 5 and seat 1."""
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "random"]})
    game_id, token = r.json()["game_id"], r.json()["tokens"][0]["token"]
    r = client.post(f"/v1/games/{game_id}/analysis", headers=auth(token), json=body)
    assert r.status_code == 422 and r.json()["field"] == field, r.text


def test_the_session_hint_and_review_bodies_are_optional(client):
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "random"], "seed": 3})
    game_id, token = r.json()["game_id"], r.json()["tokens"][0]["token"]
    client.get(f"/v1/games/{game_id}", headers=auth(token))
    r = client.post(f"/v1/games/{game_id}/hint", headers=auth(token))
    assert r.status_code in (200, 409), r.text  # old code: 422 "body: Field required"
    r = client.post(f"/v1/games/{game_id}/analysis", headers=auth(token))
    assert r.status_code == 409 and r.json()["error"] == "not_over", r.text


def test_validation_problems_are_worded_as_the_api_says_them(client):
    """pydantic's words were the answer: a body left out of POST /v1/games, whose fields
    all have defaults, was "body: Field required"; JSON that is not an object "Input
    should be a valid dictionary or object to extract fields from"; no builds "List
    should have at least 1 item after validation, not 0"."""
    r = client.post("/v1/games")  # no body: every default
    assert r.status_code == 201 and r.json()["players"] == 2, r.text
    r = raw_post(client, "/v1/games", b"")
    assert r.status_code == 201, r.text
    r = client.post("/v1/hint")  # a route that needs a body
    assert r.status_code == 422 and r.json()["field"] == "body", r.text
    assert r.json()["reason"] == "the request needs a JSON object body", r.text
    for url, body, field in (("/v1/hint", b"[]", "body"), ("/v1/games", b'"x"', "body"),
                             ("/v1/hint", b'{"position": [1]}', "position"),
                             ("/v1/hint", b'{"position": {}, "budget": []}', "budget")):
        r = raw_post(client, url, body)
        assert r.status_code == 422 and r.json()["field"] == field, (url, body, r.text)
        assert r.json()["reason"] == "must be a JSON object", (url, body, r.text)
    r = client.post("/v1/payment", json={"position": hint_body()["position"], "builds": []})
    assert r.status_code == 422 and r.json()["field"] == "builds", r.text
    assert r.json()["reason"] == "must name at least one card", r.text


@pytest.mark.parametrize("url", ["/v1/score", "/v1/hint", "/v1/games", "/v1/analyze"])
def test_an_unknown_card_set_name_is_named(client, url):
    """Old code: 'must be "default" or a card set object', as if names were refused."""
    if url == "/v1/analyze":
        body = {"record": {**short_record(), "cards": "nope"}}
    else:
        body = {"position": {**hint_body()["position"], "cards": "nope"}}
    r = client.post(url, json=body)
    field = "cards" if url == "/v1/analyze" else "position.cards"
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    assert "no card set named 'nope' (known: default" in r.json()["reason"]
    assert r.json()["error"] == ("record" if url == "/v1/analyze" else "position")


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "text/plain", None])
def test_a_json_body_without_the_json_content_type_says_so(client, content_type):
    """Old code: `curl -d '{...}'` (a form) got "Input should be a valid dictionary"
    about a body that is one."""
    headers = {"Content-Type": content_type} if content_type else {}
    r = client.post("/v1/score", content=json.dumps(hint_body()).encode(), headers=headers)
    assert r.status_code == 422 and r.json()["field"] == "body", r.text
    assert "Content-Type: application/json" in r.json()["reason"], r.text
    assert SHAPE <= set(r.json())
    r = raw_post(client, "/v1/score", b"[1]")  # JSON, just not an object: as before
    assert "Content-Type" not in r.json()["reason"], r.text


# ------------------------------------------------------------------ posted records


@pytest.mark.parametrize("edit, field", [
    ({"card_set": "x"}, "card_set"), ({"meta": [1, 2]}, "meta"), ({"seed": -1}, "seed"),
    ({"seed": 10**30}, "seed"), ({"seed": 2**63}, "seed")])
def test_a_posted_record_is_type_checked_and_its_seed_bounded_as_a_games(client, edit, field):
    # all were accepted (200 / 202); a game's seed is 0 to 2**63-1
    from solver.rules.record import GameRecord
    record = {**GameRecord.start(2, 5).to_json(), **edit}
    for url, body in (("/v1/replay", {"record": record, "n": 0}),
                      ("/v1/analyze", {"record": record})):
        r = client.post(url, json=body)
        assert r.status_code == 422 and r.json()["field"] == field, (url, r.text)


@pytest.mark.parametrize("seats, reason", [([], "at least one seat"), ([0, 0], "twice")])
def test_a_review_of_no_seat_or_a_seat_twice_is_refused(client, seats, reason):
    # [] made a job of 0 decisions; [0, 0] was taken
    from solver.rules.record import GameRecord
    record = GameRecord.start(2, 5).to_json()
    r = client.post("/v1/analyze", json={"record": record, "seats": seats})
    assert r.status_code == 422 and r.json()["field"] == "seats", r.text
    assert reason in r.json()["reason"], r.text
    assert client.post("/v1/analyze", json={"record": record, "seats": [1]}).status_code == 202


# ------------------------------------------------------------------ echoed input is capped

from server.errors import ECHO_LIMIT, MAX_ERRORS, REASON_LIMIT, clip_echo  # noqa: E402

LONG = 20_000


def long_id_requests(client) -> list:
    """Every kind of route that names a path id it does not know."""
    ident = "x" * LONG
    return [client.get(f"/v1/games/{ident}"), client.post(f"/v1/games/{ident}/actions",
                                                           json={"action": "take deck"}),
            client.get(f"/v1/analyze/{ident}"), client.get(f"/v1/cards/{ident}"),
            client.delete(f"/v1/analyze/{ident}")]


def assert_capped(r, field: str) -> None:
    """The body names the field and says how long the input was, without repeating it."""
    body = r.json()
    assert 400 <= r.status_code < 500 and SHAPE <= set(body), r.text[:500]
    assert body["field"].startswith(field), body["field"][:500]
    assert f"({LONG} characters)" in body["message"], body["message"][:500]
    assert len(r.content) < 4 * ECHO_LIMIT + 600, len(r.content)


def test_an_unknown_id_of_20000_characters_is_not_sent_back_in_full(client):
    """Old code: a 20,000-character game id came back twice (reason and message), a
    40 KB answer."""
    for r in long_id_requests(client):
        assert r.status_code == 404, r.text[:300]
        assert_capped(r, r.json()["field"])  # game_id, job_id or name
        assert r.json()["field"] in ("game_id", "job_id", "name")


@pytest.mark.parametrize("where", ["format", "key", "per_turn"])
def test_a_long_value_or_key_in_a_position_is_cut_where_it_is_named(client, where):
    position = hint_body()["position"]
    long = "Q" * LONG
    if where == "format":
        position["format"], field = long, "format"
    elif where == "key":
        position[long], field = 1, "Q" * ECHO_LIMIT
    else:
        position["per_turn"], field = {"persistent_used": {long: 1}}, "per_turn.persistent_used."
    # each route names the field inside the body's position, cut once (the length is the
    # key's)
    for url in ("/v1/hint", "/v1/score", "/v1/payment", "/v1/games"):
        body = {"position": position, **({"builds": ["H01"]} if url == "/v1/payment" else {})}
        assert_capped(client.post(url, json=body), "position." + field)


def test_a_request_with_20000_unknown_fields_lists_some_and_counts_the_rest(client):
    """Old code: one entry per unknown field, a 1.7 MB answer to a 200 KB body."""
    r = client.post("/v1/games", json={"players": 2, **{f"k{i}": 1 for i in range(LONG)}})
    body = r.json()
    assert r.status_code == 422 and body["field"] == "k0", r.text[:300]
    assert len(body["errors"]) == MAX_ERRORS
    assert body["errors_left_out"] == LONG - MAX_ERRORS
    r = client.post("/v1/games", json={"players": 2, "k": 1})
    assert len(r.json()["errors"]) == 1 and "errors_left_out" not in r.json()


def test_a_long_key_or_number_in_a_request_is_cut_in_the_validation_error(client):
    r = client.post("/v1/games", json={"players": 2, "K" * LONG: 1})
    assert_capped(r, "K" * ECHO_LIMIT)
    assert r.json()["errors"][0]["field"] == r.json()["field"]
    r = client.post("/v1/analyze", json={"record": short_record(),
                                         "seats": [10**(LONG // 5), 10**(LONG // 5)]})
    assert r.status_code == 422 and r.json()["field"] == "seats", r.text[:300]
    assert f"({LONG // 5 + 1} characters) is listed twice" in r.json()["reason"]


def test_a_long_list_in_a_position_cuts_the_reason_saying_its_length(client):
    position = {**hint_body()["position"], "current": [1] * LONG}
    r = client.post("/v1/score", json={"position": position})
    body = r.json()
    assert r.status_code == 422 and body["field"] == "position.current", r.text[:300]
    assert body["reason"].startswith("must be an integer 0 to 1, got [1, 1")
    assert len(body["reason"]) < REASON_LIMIT + 40
    assert body["reason"].endswith("characters)")


@pytest.mark.parametrize("text", [
    "no game " + repr("x" * LONG), "got " + repr("it's " * LONG), "seat " + "9" * LONG,
    "got " + repr(["a" * 300] * 100), " '\\'" * LONG, "a'" * LONG, "'\"" * LONG])
def test_clipping_is_short_and_idempotent(text):
    """A body made again from a clipped one (a position's error inside a request's) is
    not cut twice: the length said stays the input's."""
    once = clip_echo(text)
    assert len(once) < REASON_LIMIT + 40 and clip_echo(once) == once
    assert "characters)" in once


def test_short_reasons_are_left_as_they_are():
    for text in ["no game 'abc'", "the seat's turn, got 'H99'", "x" * (ECHO_LIMIT + 10),
                 f"got {'y' * ECHO_LIMIT!r} (known: 'a', \"b\")"]:
        assert clip_echo(text) == text


# ------------------------------------------------------------------ a view no deal matches

@pytest.mark.parametrize("players, seat", [(2, 0), (3, 2)])
def test_impossible_hidden_discards_are_named_under_the_seat(client, players, seat):
    """Old code: the determinizer said 'seats[*].discard.materials', which no field
    pattern reads, so every route reported it under 'position'."""
    from test_position_views import view_with_one_material_pile

    view, material = view_with_one_material_pile(players, seat)
    for url, body in (("/v1/hint", {"position": view}), ("/v1/score", {"position": view}),
                      ("/v1/games", {"position": view, "seed": 1})):
        r = client.post(url, json=body)
        assert r.status_code == 422 and r.json()["error"] == "position", (url, r.text)
        assert r.json()["field"] == f"position.seats[{seat}].discard.materials", (url, r.text)
        assert f"hidden {material} discard(s)" in r.json()["reason"], r.text


def test_a_budget_of_both_kinds_says_why_without_pydantics_prefix(client):
    """Old code: 'budget: Value error, give at most one of 'ms' and 'iterations''."""
    r = client.post("/v1/hint", json={**hint_body(), "budget": {"ms": 5, "iterations": 5}})
    assert r.status_code == 422 and r.json()["field"] == "budget", r.text
    assert r.json()["reason"].startswith("give at most one of"), r.text
    assert r.json()["errors"][0]["reason"] == r.json()["reason"]


@pytest.mark.parametrize("seed, words", [("-1", "decimal digits"), (" 7", "decimal digits"),
                                         ("١٢", "decimal digits"), ("7" * 5000, "digits"),
                                         ("9" * 20, "0 to 9223372036854775807")])
def test_a_seed_string_that_is_not_one_says_what_a_seed_string_is(client, seed, words):
    """Old code: 'seed: Input should be a valid integer' for a string of 20 digits, a sign
    or a space, whereas the seed may be a string of decimal digits."""
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "random"],
                                       "seed": seed})
    assert r.status_code == 422 and r.json()["field"] == "seed", r.text
    assert words in r.json()["reason"] and "valid integer" not in r.json()["reason"], r.text
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "random"],
                                       "seed": "0" + "9" * 18})
    assert r.status_code == 201, r.text


@pytest.mark.parametrize("name", [r"\ud800", r"a\udfff", r"\u0000", r"x\u001b[31m"])
def test_a_posted_records_seat_name_must_be_plain_text(client, name):
    """Old code: a lone surrogate in a name was taken (202), then every GET of the review,
    which shows the names, was a plain-text 500 (UTF-8 cannot encode it)."""
    record = short_record()
    record["names"] = ["NAME", "b"]
    for url, extra in (("/v1/analyze", ""), ("/v1/replay", ', "n": 0')):
        body = ('{"record": ' + json.dumps(record).replace('"NAME"', f'"{name}"')
                + extra + "}").encode()
        r = client.post(url, content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and r.json()["field"] == "names[0]", (url, r.text)
        assert "control character or a lone surrogate" in r.json()["reason"]
    record["names"] = ["Ana \u00e9 \U0001f0a1", "b"]
    assert client.post("/v1/analyze", json={"record": record}).status_code == 202



def test_errors_in_a_posted_records_start_name_fields_inside_start(client):
    """A record's start position is read as a position: its errors name the field inside
    ``start`` (``start.deck``), as a posted position's name it inside ``position``. Old
    code named ``position``, ``format``, ``deck``: fields the request does not have."""
    record = short_record(n=0)
    del record["seed"]  # a record has a seed or a start
    start = state_to_json(engine_new_game(2, seed=4))
    cut_deck = {**start, "deck": start["deck"][:5]}
    for route, extra in (("/v1/replay", {"n": 0}), ("/v1/analyze", {})):
        for bad, field in (("x", "start"), ({}, "start.format"), (cut_deck, "start.deck")):
            r = client.post(route, json={"record": {**record, "start": bad}, **extra})
            assert r.status_code == 422 and r.json()["field"] == field, (route, bad, r.text)
            assert r.json()["message"].startswith(field + ": "), r.text
        r = client.post(route, json={"record": {**record, "start": start}, **extra})
        assert r.status_code in (200, 202), (route, r.text)


import server.pool  # noqa: E402


def post_while_healthz_answers(client, route: str, body: dict, started: threading.Event,
                               healthz_answered: threading.Event) -> list:
    """POST ``body`` in a thread; once the server has ``started`` reading it, GET /healthz
    and set ``healthz_answered`` when it answers. The POST's answer, in a list."""
    answers: list = []
    poster = threading.Thread(target=lambda: answers.append(client.post(route, json=body)))
    poster.start()
    assert started.wait(10)
    assert client.get("/healthz").status_code == 200
    healthz_answered.set()
    poster.join(30)
    return answers


@pytest.mark.parametrize("route", ["/v1/score", "/v1/hint", "/v1/games"])
def test_an_inline_card_set_is_read_off_the_event_loop(client, monkeypatch, route):
    """Reading a position whose card set is inline takes up to half a second for a body of
    a few hundred kilobytes: it runs in a thread, so other requests are answered
    meanwhile (on the loop, /healthz waited for it). Here the reading waits until
    /healthz has answered, or gives up after 10 s and the test fails."""
    started, healthz_answered = threading.Event(), threading.Event()
    waited: list[bool] = []
    real = server.pool.parse_position

    def slow_parse(raw, cards=None):
        started.set()
        waited.append(healthz_answered.wait(10))
        return real(raw, cards)

    monkeypatch.setattr(server.pool, "parse_position", slow_parse)
    state = engine_new_game(2, seed=4)
    position = {**state_to_json(state), "cards": state.cards.to_json()}  # inline
    body = {"position": position}
    if route == "/v1/hint":
        body["budget"] = {"iterations": 5}
    answers = post_while_healthz_answers(client, route, body, started, healthz_answered)
    # (a hint's position is read again by the search's worker, in its own thread)
    assert waited and all(waited), "the position was read on the event loop: /healthz waited"
    assert answers and answers[0].status_code < 500, answers[0].text


from solver.rules.record import GameRecord  # noqa: E402


@pytest.mark.parametrize("route", ["/v1/replay", "/v1/analyze"])
def test_a_posted_record_is_read_off_the_event_loop(client, monkeypatch, route):
    """A posted record (its set maybe inline) is read and replayed in a thread, as a
    position is: /healthz answers while it is read."""
    record = short_record()
    record["cards"] = engine_new_game(2, seed=4).cards.to_json()  # inline
    started, healthz_answered = threading.Event(), threading.Event()
    waited: list[bool] = []
    real = GameRecord.from_json.__func__

    def slow_from_json(cls, raw, cards=None):
        started.set()
        waited.append(healthz_answered.wait(10))
        return real(cls, raw, cards)

    monkeypatch.setattr(GameRecord, "from_json", classmethod(slow_from_json))
    body = {"record": record}
    if route == "/v1/replay":
        body["n"] = 2
    answers = post_while_healthz_answers(client, route, body, started, healthz_answered)
    assert waited and all(waited), "the record was read on the event loop: /healthz waited"
    assert answers and answers[0].status_code < 500, answers[0].text
