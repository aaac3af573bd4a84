"""The routes as a generated client sees them: /openapi.json declares what the server
answers (security, statuses, shapes), and a few routes' answers (the payment's default
side, a 204 without a body, players from the seats, a game's latest review)."""

from __future__ import annotations

from session_testkit import auth, new_game

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
