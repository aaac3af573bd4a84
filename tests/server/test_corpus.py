"""A corpus of malformed or illegal positions, records, budgets and actions: each must be
answered with a 4xx whose body names the problem (never a 5xx, never a silent 200)."""

from __future__ import annotations

import copy
import os
import random

import pytest
from session_testkit import auth

from solver.cli import play_random_game
from solver.rules.engine import new_game, play
from solver.rules.position import state_to_json
from solver.rules.views import view_of, view_to_json

BASE = state_to_json(play(new_game(2, seed=3), "take deck"))
BUILD = state_to_json(play(play(new_game(2, seed=3), "take deck"), "take deck"))
_view_state = play(new_game(2, seed=3), "take deck")
VIEW = view_to_json(view_of(_view_state, _view_state.current))
OVER = state_to_json(play_random_game(2, seed=5).replay())
FOUR_ONLY = next(c for c in new_game(4, seed=1).cards.highway if 2 not in c.players).id
LANDMARK = BASE["landmark_row"][0]


def edit(raw: dict, fn) -> dict:
    out = copy.deepcopy(raw)
    fn(out)
    return out


def seat(i: int):
    return lambda p: p["seats"][i]


POSITIONS: list[tuple[str, object, str]] = [
    ("not an object", ["format"], "position"),
    ("no format", edit(BASE, lambda p: p.pop("format")), "format"),
    ("wrong format", edit(BASE, lambda p: p.update(format="chess/1")), "format"),
    ("unknown card in a hand", edit(BASE, lambda p: p["seats"][0]["hand"].__setitem__(0, "H999")),
     "unknown Highway card 'H999'"),
    ("duplicated card", edit(BASE, lambda p: p["seats"][0]["hand"].append(p["deck"][0])),
     "also in"),
    ("card missing", edit(BASE, lambda p: p["deck"].pop()), "nowhere"),
    ("hand too large for the turn",
     edit(BASE, lambda p: p["seats"][1]["hand"].append(p["deck"].pop())), "deck + Depot"),
    ("one seat", edit(BASE, lambda p: p.update(seats=p["seats"][:1])), "seats"),
    ("five seats", edit(BASE, lambda p: p.update(seats=p["seats"] * 3)), "seats"),
    ("current out of range", edit(BASE, lambda p: p.update(current=7)), "current"),
    ("current not the one to act", edit(BASE, lambda p: p.update(current=1 - p["current"])),
     "current"),
    ("unknown phase", edit(BASE, lambda p: p.update(phase="lunch")), "phase"),
    ("too many picks", edit(BASE, lambda p: p.update(picks=3)), "picks"),
    ("build step with one pick", edit(BUILD, lambda p: p.update(picks=1)), "picks"),
    ("wrong turn count", edit(BASE, lambda p: p["seats"][0].update(turns=3)), "turns"),
    ("negative turn", edit(BASE, lambda p: p.update(turn=-1)), "turn"),
    ("unknown Landmark", edit(BASE, lambda p: p["landmark_row"].__setitem__(0, "L99")),
     "unknown Landmark 'L99'"),
    ("duplicated Landmark", edit(BASE, lambda p: p["landmark_deck"].append(LANDMARK)),
     "also in"),
    ("Landmark over a card not built", edit(BASE, lambda p: p["seats"][0].update(
        landmarks=[{"landmark": p["landmark_row"].pop(0), "card": p["seats"][0]["hand"][0]}])),
     "not in this Highway"),
    ("known card not in hand", edit(BASE, lambda p: p["seats"][0].update(
        known_hand=[p["depot"][0]])), "known_hand"),
    ("persistent use of a card not built", edit(BASE, lambda p: p["per_turn"].update(
        persistent_used={p["depot"][0]: 1})), "per_turn.persistent_used"),
    ("unknown resource", edit(BASE, lambda p: p["per_turn"].update(
        resources_used={"magic": 1})), "unknown resource"),
    ("recycle flag not a boolean", edit(BASE, lambda p: p["per_turn"].update(
        recycle_used="yes")), "recycle_used"),
    ("unknown card set name", edit(BASE, lambda p: p.update(cards="printed-2031")), "cards"),
    ("broken inline card set", edit(BASE, lambda p: p.update(
        cards={"format": "bigsur-cards/1", "name": "x", "highway": [{"id": "A"}],
               "landmarks": []})), "cards"),
    ("default set, other fingerprint", edit(BASE, lambda p: p.update(
        cards={"name": "default", "fingerprint": "0000"})), "fingerprint"),
    ("deck not a list", edit(BASE, lambda p: p.update(deck=12)), "deck"),
    ("hand a number", edit(BASE, lambda p: p["seats"][0].update(hand=5)), "seats[0].hand"),
    ("seat not an object", edit(BASE, lambda p: p["seats"].__setitem__(0, "me")), "seats[0]"),
    ("card of the 4-player deck only", edit(BASE, lambda p: p["deck"].append(FOUR_ONLY)),
     "not used with 2 players"),
    ("depot too small", edit(BASE, lambda p: p["deck"].extend([p["depot"].pop(),
                                                                 p["depot"].pop()])), "depot"),
    ("view_of out of range", edit(VIEW, lambda p: p.update(view_of=3)), "view_of"),
    ("negative hand count", edit(VIEW, lambda p: p["seats"][1 - p["view_of"]]["hand"].update(
        count=-1)), "hand.count"),
    ("unknown discard Material", edit(VIEW, lambda p: p["seats"][1 - p["view_of"]].update(
        discard={"materials": ["gold"], "known": []})), "discard.materials"),
    ("Landmarks a number in a view", edit(VIEW, lambda p: p["seats"][1 - p["view_of"]].update(
        landmarks=3)), "landmarks: must be a list"),
    ("view without deck", edit(VIEW, lambda p: p.pop("deck")), "deck"),
    ("view: more hidden cards than its turns took", edit(VIEW, lambda p: p["seats"][
        1 - p["view_of"]]["hand"].update(count=60)), "hand.count: must be"),
    ("view: persistent uses not a number", edit(VIEW, lambda p: p["per_turn"].update(
        persistent_used={p["seats"][p["view_of"]]["hand"][0]: "many"})),
     "per_turn.persistent_used"),
    ("view of a seat not to act", view_to_json(view_of(_view_state, 1 - _view_state.current)),
     "view_of"),
    ("finished game", OVER, "over"),
]


@pytest.mark.parametrize("name,position,words", POSITIONS, ids=[p[0] for p in POSITIONS])
def test_bad_positions(client, name, position, words):
    r = client.post("/v1/hint", json={"position": position, "budget": {"iterations": 5}})
    assert 400 <= r.status_code < 500, (name, r.status_code, r.text)
    body = r.json()
    assert words.lower() in body["message"].lower(), (name, body)
    assert body["reason"] and body["error"]


def _game(client, phase: str):
    """A hot-seat game; "build": after two takes. Returns (game id, token to act, view)."""
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "human"], "seed": 3})
    game_id = r.json()["game_id"]
    tokens = {t["seat"]: t["token"] for t in r.json()["tokens"]}
    state = new_game(2, seed=3)
    token = tokens[state.current]
    if phase == "build":
        for _ in range(2):
            client.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                        json={"action": "take deck"})
    view = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    return game_id, token, tokens[1 - state.current], view


ACTIONS: list[tuple[str, str, object, str]] = [
    # (phase, name, action body or callable(view) -> body, words)
    ("take", "empty action", {"action": ""}, "action"),
    ("take", "unknown verb", {"action": "jump H01"}, "cannot read action"),
    ("take", "unknown card", {"action": "take H999"}, "unknown Highway card 'H999'"),
    ("take", "card not in the Depot",
     lambda v: {"action": f"take {v['view']['seats'][v['seat']]['hand'][0]}"}, "not in the Depot"),
    ("take", "bad side", {"action": "build H01 X"}, "side must be L or R"),
    ("take", "build before taking", lambda v: {"action": f"build {v['view']['depot'][0]} L"},
     "first take"),
    ("take", "too many words", {"action": "take H02 H03"}, "cannot read action"),
    ("take", "claim before taking", {"action": f"claim {LANDMARK} H01"}, "first take"),
    ("take", "end before taking", {"action": "end"}, "first take"),
    ("build", "third take", {"action": "take deck"}, "already taken"),
    ("build", "build a card not in hand",
     lambda v: {"action": f"build {v['view']['depot'][0]} L"}, "not in your hand"),
    ("build", "claim above a card not built",
     lambda v: {"action": f"claim {v['view']['landmark_row'][0]} "
                          f"{v['view']['seats'][v['seat']]['hand'][0]}"}, "not in your Highway"),
    ("build", "claim a Landmark not in the row",
     lambda v: {"action": f"claim L99 {v['view']['seats'][v['seat']]['hand'][0]}"}, "L99"),
    ("build", "pay with an unknown card",
     lambda v: {"action": f"build {v['view']['seats'][v['seat']]['hand'][0]} L pay H999"},
     "H999"),
    ("build", "pay keyword without steps",
     lambda v: {"action": f"build {v['view']['seats'][v['seat']]['hand'][0]} L pay"}, "pay"),
    ("build", "substitution of two cards",
     lambda v: {"action": f"build {v['view']['seats'][v['seat']]['hand'][0]} L pay "
                          "sub:H01+H02=steel"}, "exactly 3"),
    ("build", "substitution for no Material",
     lambda v: {"action": f"build {v['view']['seats'][v['seat']]['hand'][0]} L pay "
                          "sub:H01+H02+H03=gold"}, "=MATERIAL"),
    ("build", "borrow from a seat that is a word",
     lambda v: {"action": f"build {v['view']['seats'][v['seat']]['hand'][0]} L pay bd:x"},
     "seat must be a number"),
    ("take", "action id too long", {"action": "take deck", "action_id": "x" * 101},
     "action_id"),
    ("take", "action too long", {"action": "take " + "H" * 2000}, "action"),
    ("take", "action a number", {"action": 5}, "action"),
    ("take", "unknown field", {"action": "take deck", "colour": "red"}, "colour"),
    ("take", "no action", {}, "action"),
]


@pytest.mark.parametrize("phase,name,body,words", ACTIONS, ids=[a[1] for a in ACTIONS])
def test_bad_actions(client, phase, name, body, words):
    game_id, token, _other, view = _game(client, phase)
    if callable(body):
        body = body(view)
    r = client.post(f"/v1/games/{game_id}/actions", headers=auth(token), json=body)
    assert 400 <= r.status_code < 500, (name, r.status_code, r.text)
    assert words.lower() in r.json()["message"].lower(), (name, r.json())
    after = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    assert after["actions_applied"] == view["actions_applied"]  # nothing was applied


def test_seat_and_game_errors(client):
    game_id, token, other, _view = _game(client, "take")
    cases = [
        ({"headers": {}}, 401, "token"),
        ({"headers": auth("wrong" * 8)}, 403, "token"),
        ({"headers": auth(other)}, 409, "turn"),
    ]
    for kw, status, words in cases:
        r = client.post(f"/v1/games/{game_id}/actions", json={"action": "take deck"}, **kw)
        assert r.status_code == status and words in r.json()["message"], r.text
    r = client.post("/v1/games/nope/actions", headers=auth(token), json={"action": "end"})
    assert r.status_code == 404 and "nope" in r.json()["message"]


RECORD = play_random_game(2, seed=9).to_json()
OTHER: list[tuple[str, str, dict, str]] = [
    ("/v1/hint", "negative budget", {"position": BASE, "budget": {"ms": -1}}, "budget.ms"),
    ("/v1/hint", "zero iterations", {"position": BASE, "budget": {"iterations": 0}},
     "budget.iterations"),
    ("/v1/hint", "budget over the cap", {"position": BASE, "budget": {"ms": 10**7}},
     "BIGSUR_MAX_BUDGET_MS"),
    ("/v1/hint", "negative seed", {"position": BASE, "seed": -4}, "seed"),
    ("/v1/hint", "budget a string", {"position": BASE, "budget": "fast"}, "budget"),
    ("/v1/analyze", "record without format", {"record": {"players": 2}}, "format"),
    ("/v1/analyze", "seven players", {"record": {**RECORD, "players": 7}}, "players"),
    ("/v1/analyze", "seed and start", {"record": {**RECORD, "start": BASE}}, "seed/start"),
    ("/v1/analyze", "illegal action in a record",
     {"record": {**RECORD, "actions": ["end"]}}, "actions[0]"),
    ("/v1/analyze", "actions not strings", {"record": {**RECORD, "actions": [1, 2]}},
     "actions"),
    ("/v1/payment", "no builds", {"position": BUILD, "builds": []}, "builds"),
    ("/v1/payment", "unknown card", {"position": BUILD, "builds": ["H999"]}, "H999"),
    ("/v1/payment", "card not in hand", {"position": BUILD, "builds": [BUILD["depot"][0]]},
     "not in the hand"),
    ("/v1/payment", "a view in the take step", {"position": VIEW, "builds": ["H01"]},
     "build step"),
    ("/v1/payment", "a view of a seat not to act", {"position": view_to_json(view_of(
        _view_state, 1 - _view_state.current)), "builds": ["H01"]}, "view_of"),
    ("/v1/score", "no position", {}, "position"),
    ("/v1/games", "players 1", {"players": 1}, "players"),
    ("/v1/games", "seed too large", {"players": 2, "seed": 2**64}, "seed"),
]


@pytest.mark.parametrize("path,name,body,words", OTHER, ids=[o[1] for o in OTHER])
def test_other_bad_requests(client, path, name, body, words):
    r = client.post(path, json=body)
    assert 400 <= r.status_code < 500, (name, r.status_code, r.text)
    assert words.lower() in r.json()["message"].lower(), (name, r.json())


def test_corpus_size():
    assert len(POSITIONS) + len(ACTIONS) + len(OTHER) + 4 >= 50
    assert len(POSITIONS) >= 25 and len(ACTIONS) >= 20


# ------------------------------------------------------------------ mutation fuzz

FUZZ = 1500 if os.environ.get("BIGSUR_FULL") == "1" else 120
JUNK = [f"H{i:02d}" for i in range(1, 70)] + ["L01", "L05", 3, None, [], {}, -1, "x", True]


def _paths(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, path + (i,))


def mutate(obj, rng: random.Random):
    """One to three random edits of a valid position: a value replaced by a card id or
    junk, an element appended, a key removed, a number shifted."""
    obj = copy.deepcopy(obj)
    paths = [p for p in _paths(obj) if p]
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths)
        parent = obj
        try:
            for k in path[:-1]:
                parent = parent[k]
            r, key = rng.random(), path[-1]
            if r < 0.5:
                parent[key] = rng.choice(JUNK)
            elif r < 0.7 and isinstance(parent, list):
                parent.append(rng.choice(JUNK))
            elif r < 0.85 and isinstance(parent, dict):
                parent.pop(key)
            elif type(parent[key]) is int:
                parent[key] += rng.choice([-1, 1, 5])
        except (KeyError, IndexError, TypeError):
            pass  # an earlier edit removed the path
    return obj


def test_mutated_positions_never_cause_a_server_error(make_client):
    """Real search (3 iterations): a mutated position is answered 200 (still a valid
    position) or 422 naming a field, never 5xx."""
    client = make_client(fake=False)
    rng = random.Random(77)
    bases = []
    for k in range(4):
        for state, _a in list(play_random_game(2 + k % 3, seed=k).states())[::9]:
            if state.phase.name != "OVER":
                bases += [state_to_json(state), view_to_json(view_of(state, state.current))]
    seen = {}
    for _ in range(FUZZ):
        position = mutate(rng.choice(bases), rng)
        for path, extra in (("/v1/hint", {"budget": {"iterations": 3}}), ("/v1/score", {})):
            r = client.post(path, json={"position": position, **extra})
            seen[r.status_code] = seen.get(r.status_code, 0) + 1
            assert r.status_code in (200, 422), (path, r.status_code, r.text, position)
            if r.status_code == 422:
                assert r.json()["field"] and r.json()["reason"]
    assert seen.get(422, 0) > FUZZ // 2


def test_the_service_and_the_command_line_take_the_same_seeds():
    """One largest seed (solver.rules.record.MAX_SEED): the service's schemas had their
    own copy, the command line's seed_arg reads the rules' one."""
    import server.schemas
    import solver.rules.record

    assert server.schemas.MAX_SEED is solver.rules.record.MAX_SEED
