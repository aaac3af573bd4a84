"""The routes as a generated client sees them: /openapi.json declares what the server
answers (security, statuses, shapes), and a few routes' answers (the payment's default
side, a 204 without a body, players from the seats, a game's latest review)."""

from __future__ import annotations

import itertools
import random
import threading

from session_testkit import auth, new_game, play_out, poll_job

from solver.rules.engine import legal_actions, play
from solver.rules.engine import new_game as new_game_state
from solver.rules.position import state_to_json
from solver.rules.state import Phase

SEAT_PATH = "/v1/games/{game_id}"  # every route under it takes a seat token


def operations(schema: dict):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_route_taking_a_seat_token_declares_its_security(client):
    """A generated client sends the token only to operations that declare the bearer
    scheme: every route of a game (its path has {game_id}) must, the public ones none."""
    schema = client.get("/openapi.json").json()
    schemes = schema["components"]["securitySchemes"]
    assert [s["scheme"].lower() for s in schemes.values()] == ["bearer"]
    seat_routes = [(p, m, op) for p, m, op in operations(schema) if p.startswith(SEAT_PATH)]
    assert {(p, m) for p, m, _ in seat_routes} >= {
        (SEAT_PATH + "/undo", "post"), (SEAT_PATH + "/analysis", "post"),
        (SEAT_PATH + "/analysis", "get")}
    for path, method, operation in seat_routes:
        assert operation.get("security") == [{name: []} for name in schemes], (method, path)
    for path, method, operation in operations(schema):
        if not path.startswith(SEAT_PATH):
            assert "security" not in operation, (method, path)


def test_undo_and_review_refuse_a_missing_or_wrong_token_as_before(client):
    game_id, tokens = new_game(client, seats=["human", "random"])
    for method, path in (("post", "undo"), ("post", "analysis"), ("get", "analysis")):
        url = f"/v1/games/{game_id}/{path}"
        for headers in ({}, {"Authorization": "Basic abc"}, {"Authorization": "Bearer "}):
            r = client.request(method, url, headers=headers)
            assert r.status_code == 401, (method, path, headers, r.text)
            assert r.json()["error"] == "auth" and r.json()["field"] == "authorization"
            assert r.headers["www-authenticate"] == "Bearer"
        r = client.request(method, url, headers=auth("not-a-token"))
        assert r.status_code == 403 and r.json()["error"] == "auth", r.text
        r = client.request(method, url, headers={"authorization": f"bearer {tokens[0]}"})
        assert r.status_code not in (401, 403), r.text


def declared(schema: dict, path: str, method: str, status: int) -> dict | None:
    """The schema /openapi.json declares for ``status`` of an operation (its $ref
    resolved), None when the status is not declared."""
    response = schema["paths"][path][method]["responses"].get(str(status))
    if response is None:
        return None
    ref = response["content"]["application/json"]["schema"]["$ref"]
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]]


def test_a_real_429_of_post_games_is_declared_with_the_error_body(make_client):
    client = make_client(max_games_per_client=1)
    new_game(client, seats=["human", "random"])
    r = client.post("/v1/games", json={"seats": ["human", "random"]})
    assert r.status_code == 429, r.text
    schema = client.get("/openapi.json").json()
    body = declared(schema, "/v1/games", "post", 429)
    assert body is not None and body["title"] == "ErrorBody"
    assert set(body["required"]) <= set(r.json()) <= set(body["properties"])


def test_every_declared_error_is_the_error_body_and_bad_json_is_declared(client):
    """No route declares FastAPI's HTTPValidationError (the server sends ErrorBody); a
    route with a JSON body declares 400; ErrorBody declares a validation's errors."""
    schema = client.get("/openapi.json").json()
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    for path, method, operation in operations(schema):
        for status in operation["responses"]:
            if int(status) >= 400:
                assert declared(schema, path, method, int(status))["title"] == "ErrorBody"
        if "application/json" in operation.get("requestBody", {}).get("content", {}):
            assert "400" in operation["responses"], (method, path)
        if method in ("get", "delete"):  # no body: neither 400 nor 413
            assert not {"400", "413"} & set(operation["responses"]), (method, path)
    r = client.post("/v1/games", json={"players": "x", "seats": 5, "nope": 1})
    assert r.status_code == 422
    error = schema["components"]["schemas"]["ErrorBody"]["properties"]
    assert {"errors", "errors_left_out"} <= set(error) and "errors" in r.json()


def test_declared_statuses_are_those_a_route_can_answer(client):
    schema = client.get("/openapi.json").json()
    game = schema["paths"]["/v1/games/{game_id}"]["get"]["responses"]
    assert "413" not in game and "409" not in game  # a GET has no body, no conflict
    assert declared(schema, "/v1/cardsets/{name}", "get", 404) is not None
    for status in (429, 503):
        assert declared(schema, "/v1/games", "post", status) is not None
        assert declared(schema, "/v1/games/{game_id}/actions", "post", status) is not None
    assert client.get("/v1/cardsets/no-such-set").status_code == 404


def test_the_seed_of_a_game_is_json_schema_an_integer_or_its_digits(client):
    """Only JSON Schema keywords (no pydantic "ge"/"le"), and the string form the server
    takes (a JavaScript number rounds above 2**53)."""
    schema = client.get("/openapi.json").json()
    seed = schema["components"]["schemas"]["CreateGameRequest"]["properties"]["seed"]
    text = str(seed)
    assert "'ge'" not in text and "'le'" not in text
    kinds = {option.get("type") for option in seed["anyOf"]}
    assert kinds == {"integer", "string", "null"}
    r = client.post("/v1/games", json={"seats": ["human", "random"],
                                       "seed": "9007199254740993"})
    assert r.status_code == 201, r.text


def build_step_with_two_builds(client):
    """A full state at a build step whose seat's Highway is empty (nobody builds on the
    way), and two hand cards that can both be paid this turn: (state, card, card)."""
    state = new_game_state(2, seed=0)
    for _ in range(40):
        if state.phase == Phase.BUILD and not state.player.highway:
            raw = state_to_json(state)
            cards = sorted({a.card for a in legal_actions(state) if a.notation()
                            .startswith("build")})
            for first, second in itertools.permutations(cards, 2):
                r = client.post("/v1/payment", json={"position": raw,
                                                     "builds": [f"{first}:L", second + ":R"]})
                if r.json().get("feasible"):
                    return raw, first, second
            state = play(state, "end")
        else:
            state = play(state, "take deck")
    raise AssertionError("no build step with two payable builds")


def test_a_later_builds_default_side_is_judged_after_the_earlier_builds(client):
    """Default R, or L on an empty Highway: the Highway as it is when that build is made,
    so a second build after one on an empty Highway goes right."""
    raw, first, second = build_step_with_two_builds(client)
    r = client.post("/v1/payment", json={"position": raw, "builds": [first, second]})
    assert r.status_code == 200, r.text
    assert [b["side"] for b in r.json()["builds"]] == ["L", "R"]
    explicit = client.post("/v1/payment", json={"position": raw,
                                                "builds": [f"{first}:L", f"{second}:R"]})
    assert r.json() == explicit.json()


def test_deleting_a_game_answers_204_without_body_or_content_type(client):
    game_id, tokens = new_game(client, seats=["human", "random"])
    r = client.delete(f"/v1/games/{game_id}", headers=auth(tokens[0]))
    assert r.status_code == 204 and r.content == b""
    assert "content-type" not in r.headers and r.headers.get("content-length", "0") == "0"
    assert client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).status_code == 404
    schema = client.get("/openapi.json").json()
    assert "content" not in schema["paths"]["/v1/games/{game_id}"]["delete"]["responses"]["204"]


def test_players_default_to_the_number_of_seats(client):
    r = client.post("/v1/games", json={"seats": ["human", "random", "random"]})
    assert r.status_code == 201, r.text
    assert r.json()["players"] == 3 and len(r.json()["seats"]) == 3
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "random", "random"]})
    assert r.status_code == 422 and r.json()["field"] == "seats", r.text
    r = client.post("/v1/games", json={"seats": ["human"] + ["random"] * 4})
    assert r.status_code == 422 and r.json()["field"] == "seats", r.text
    r = client.post("/v1/games", json={})
    assert r.status_code == 201 and r.json()["players"] == 2, r.text


def test_a_games_review_is_its_newest_job_not_cancelled(make_client, fake_search):
    """A cancelled (or failed) job is returned only when the game has no other."""
    client = make_client()
    game_id, tokens = new_game(client, seats=["human", "random"])
    play_out(client, game_id, tokens, random.Random(5))
    url, headers = f"/v1/games/{game_id}/analysis", auth(tokens[0])
    body = {"budget": {"iterations": 1}}
    done = poll_job(client, client.post(url, json=body, headers=headers).json()["job_id"])
    assert done["status"] == "done", done
    cancelled_review(client, fake_search, url, headers, {**body, "again": True})
    r = client.get(url, headers=headers)
    assert r.status_code == 200 and r.json()["job_id"] == done["job_id"], r.text
    assert r.json()["status"] == "done"

    other, tokens = new_game(client, seats=["human", "random"], seed=2)
    play_out(client, other, tokens, random.Random(6))
    url, headers = f"/v1/games/{other}/analysis", auth(tokens[0])
    cancelled = cancelled_review(client, fake_search, url, headers, body)
    r = client.get(url, headers=headers)
    assert r.status_code == 200 and r.json()["job_id"] == cancelled["job_id"], r.text


def cancelled_review(client, fake_search, url, headers, body) -> dict:
    """A review started and cancelled while its search waits."""
    fake_search.gate = threading.Event()
    try:
        job = client.post(url, json=body, headers=headers).json()
        cancelled = client.delete(f"/v1/analyze/{job['job_id']}").json()
        assert cancelled["status"] == "cancelled", cancelled
    finally:
        fake_search.gate.set()
        fake_search.gate = None
    return cancelled
