"""Every route that takes a posted position (``POST /v1/games``, ``/v1/hint``,
``/v1/score``, ``/v1/payment``, each ``{"position": P, ...}``) names a refusal of it by
its field inside the request body, ``position.<field>``, alike: a client (the position
editor) reads one field for the same mistake whichever route it asked. The whole
position (not an object, malformed) is ``position``."""

from __future__ import annotations

import copy
import random

import pytest
from rules_testkit import random_mid_game

from solver.rules.engine import legal_actions, new_game, play
from solver.rules.position import state_to_json
from solver.rules.state import Phase
from solver.rules.views import view_of, view_to_json

ROUTES = {  # route -> what else its body needs
    "/v1/games": {},
    "/v1/hint": {"budget": {"iterations": 5}},
    "/v1/score": {},
    "/v1/payment": {"builds": ["H01"]},
}


def answers(client, position, routes=ROUTES) -> dict[str, tuple[int, str, str]]:
    """Each route's (status, field, error kind) for ``{"position": position}``."""
    out = {}
    for route in routes:
        r = client.post(route, json={"position": position, **ROUTES[route]})
        out[route] = (r.status_code, r.json().get("field"), r.json().get("error"))
    return out


def _state():
    return state_to_json(random_mid_game(seed=8))


def _view():
    state = random_mid_game(seed=8)
    return view_to_json(view_of(state, state.current))


def _edited(make, edit):
    def build():
        position = copy.deepcopy(make())
        edit(position)
        return position
    return build


def _twice(view):  # one card in two places: a view no full state matches
    view["depot"][0] = view["seats"][view["view_of"]]["highway"][0]


BAD = [  # (a bad position, the field every route names, the kind)
    (lambda: 5, "position", "validation"),
    (lambda: {"format": "bigsur-nothing/1"}, "position.format", "position"),
    (lambda: {"format": "bigsur-view/1"}, "position.seats", "position"),
    (_edited(_state, lambda p: p.update(landmark_row=["L99"])), "position.landmark_row[0]",
     "position"),
    (_edited(_view, lambda p: p.update(landmark_row=["L99"])), "position.landmark_row[0]",
     "position"),
    (_edited(_state, lambda p: p.update(cards="no-such-set")), "position.cards", "position"),
    (_edited(_state, lambda p: p.update(cards={"highway": []})), "position.cards",
     "position"),
    (_edited(_view, _twice), "position.depot", "position"),
]


@pytest.mark.parametrize("make,field,kind", BAD, ids=[
    "not-an-object", "format", "view-without-seats", "state-landmark", "view-landmark",
    "unknown-set-name", "bad-inline-set", "impossible-view"])
def test_a_bad_position_is_named_alike_by_every_route_that_takes_one(client, make, field,
                                                                     kind):
    got = answers(client, make())
    assert got == {route: (422, field, kind) for route in ROUTES}, got


def test_a_view_of_a_seat_not_to_act_is_position_view_of(client):
    state = random_mid_game(seed=8)
    other = view_to_json(view_of(state, (state.current + 1) % 3))
    got = answers(client, other)
    assert got.pop("/v1/score")[0] == 200  # a view's Highways are public: any seat's
    assert {field for _status, field, _kind in got.values()} == {"position.view_of"}, got
    assert all(status == 422 for status, *_ in got.values()), got


def test_a_finished_game_is_position_phase(client):
    rng = random.Random(2)
    state = new_game(2, seed=2)
    while state.phase != Phase.OVER:
        state = play(state, rng.choice(legal_actions(state)))
    got = answers(client, state_to_json(state))
    assert got.pop("/v1/score")[0] == 200  # the final scores
    assert got == {"/v1/games": (422, "position.phase", "game_over"),
                   "/v1/hint": (422, "position.phase", "game_over"),
                   "/v1/payment": (422, "position.phase", "position")}, got


def test_a_payment_outside_the_build_step_is_position_phase(client):
    got = answers(client, _state(), ["/v1/payment"])
    assert got == {"/v1/payment": (422, "position.phase", "position")}, got
