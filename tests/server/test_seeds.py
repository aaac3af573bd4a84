"""Seeds have one rule on every route (docs/api.md "Seeds"): an integer 0 to MAX_SEED, or
its decimal digits as a string; a search asked without one uses seed 0 and says so, so
that sending the answer's seed back with the same iteration budget gives the same answer.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from session_testkit import (
    BOTH_BACKENDS,
    auth,
    create_game,
    play_out,
    poll_job,
    seed_where,
    wait_for_humans,
)

from solver.cli import play_random_game
from solver.rules.engine import new_game as engine_new_game
from solver.rules.engine import play
from solver.rules.position import state_to_json
from solver.rules.record import MAX_SEED

POSITION = state_to_json(play(engine_new_game(2, seed=6), "take deck"))
BUDGET = {"iterations": 40}


def finished_game(client) -> tuple[str, str]:
    """A hosted game (a human seat against a random AI) played to its end: (id, token)."""
    game_id, tokens = create_game(client, {"players": 2, "seats": ["human", "random"],
                                           "seed": 4})
    assert play_out(client, game_id, tokens, random.Random(4))["over"]
    return game_id, tokens[0]


def hint_routes(client) -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    """(url, body without a seed, headers) of both hint routes, each with the seat to act."""
    game_id, tokens = create_game(client, {"players": 2, "seats": ["human", "random"],
                                           "seed": seed_where(0)})
    assert wait_for_humans(client, game_id, tokens[0])["to_act"] == 0
    return [("/v1/hint", {"position": POSITION, "budget": BUDGET}, {}),
            (f"/v1/games/{game_id}/hint", {"budget": BUDGET}, auth(tokens[0]))]


def test_a_hint_without_a_seed_answers_the_seed_that_reproduces_it(client, fake_search):
    for url, body, headers in hint_routes(client):
        first = client.post(url, json=body, headers=headers)
        assert first.status_code == 200, first.text
        seed = first.json()["seed"]
        assert isinstance(seed, int) and not isinstance(seed, bool), (url, first.json())
        again = client.post(url, json={**body, "seed": seed}, headers=headers)
        assert again.status_code == 200, again.text
        assert again.json()["seed"] == seed
        assert again.json()["moves"] == first.json()["moves"], url
        assert fake_search.calls[-1][2] == fake_search.calls[-2][2] == seed
        null = client.post(url, json={**body, "seed": None}, headers=headers)  # as before
        assert null.status_code == 200 and null.json()["seed"] == seed, null.text


def test_the_real_search_reproduces_a_seedless_hint_from_its_answer(make_client):
    client = make_client(fake=False)
    body = {"position": POSITION, "budget": {"iterations": 60}}
    first = client.post("/v1/hint", json=body).json()
    assert isinstance(first["seed"], int), first
    again = client.post("/v1/hint", json={**body, "seed": first["seed"]}).json()
    assert [m["actions"] for m in again["moves"]] == [m["actions"] for m in first["moves"]]
    assert [m["visits"] for m in again["moves"]] == [m["visits"] for m in first["moves"]]


def seed_routes(client) -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    """(url, body without a seed, headers) of every route taking a seed."""
    record = play_random_game(2, seed=9).to_json()
    record["actions"] = record["actions"][:4]
    game_id, token = finished_game(client)
    return [*hint_routes(client),
            ("/v1/analyze", {"record": record, "budget": BUDGET}, {}),
            (f"/v1/games/{game_id}/analysis", {"budget": BUDGET}, auth(token)),
            ("/v1/games", {"players": 2, "seats": ["human", "random"]}, {})]


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, str(MAX_SEED + 1), "1" * 40])
def test_a_seed_out_of_range_is_refused_naming_the_bound_on_every_route(client, seed):
    for url, body, headers in seed_routes(client):
        r = client.post(url, json={**body, "seed": seed}, headers=headers)
        assert r.status_code == 422, (url, r.text)
        assert r.json()["field"] == "seed", (url, r.json())
        assert str(MAX_SEED) in r.json()["reason"], (url, r.json()["reason"])


@BOTH_BACKENDS
def test_every_route_takes_every_seed_up_to_the_bound_as_a_number_or_digits(make_client):
    """The reviews took at most 2**40 and the hints no decimal string: one rule now (the
    largest seed is stored with a review job and a game on either database)."""
    client = make_client()
    for seed in (2**40 + 1, MAX_SEED, str(MAX_SEED)):
        for url, body, headers in seed_routes(client):
            r = client.post(url, json={**body, "seed": seed}, headers=headers)
            assert r.status_code in (200, 201, 202), (url, seed, r.text)
            if "seed" in r.json():  # (a new game reveals its seed only at the end)
                assert r.json()["seed"] == int(seed), (url, r.json())
            if "job_id" in r.json():
                assert poll_job(client, r.json()["job_id"])["status"] == "done", url
