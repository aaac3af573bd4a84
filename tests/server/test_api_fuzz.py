"""A seeded mutation fuzzer of every POST/DELETE route of the HTTP API, and hand-made
attacks (concurrent duplicates, foreign tokens, huge records, odd path parameters).

Each route has a valid request body; every case takes it and mutates it at a random
place (a key, a list item, a leaf deep inside a position, a record or a card set): the
field dropped, a wrong type, null, an empty string, a huge or negative number, NaN and
Infinity (Python's JSON reader takes them), a very long string, odd unicode (a lone
surrogate, NUL, right-to-left marks), an unknown or duplicated card id, a list where an
object belongs and the reverse, deeply nested JSON, an extra field. The rule checked
for every answer (docs/api.md, "Errors"): no 5xx, no hang, a JSON body, every 4xx in the
documented shape ``{error, field, reason, message}``; for game routes, a refused request
leaves the game as it was (its seats' views, log and, once over, its record). Undo is
fuzzed from a game whose person has just built, so that its accepted path runs too (it
ignores its body: each accepted undo is followed by the next build).

Reproducible: ``BIGSUR_FUZZ_SEED`` (default fixed) and ``BIGSUR_FUZZ_CASES`` (cases per
route, default 20; e.g. ``BIGSUR_FUZZ_CASES=400`` for a longer run). A failure prints
the route, the case number and the mutation, so the case can be replayed.
"""

from __future__ import annotations

import copy
import json
import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from rules_testkit import random_mid_game
from session_testkit import BOTH_BACKENDS, auth, create_game, poll_job

from solver.cli import play_random_game
from solver.rules.engine import new_game, play
from solver.rules.position import state_from_json, state_to_json
from solver.rules.views import view_of, view_to_json

SEED = int(os.environ.get("BIGSUR_FUZZ_SEED", "20250611"))
CASES = int(os.environ.get("BIGSUR_FUZZ_CASES", "20"))
REQUEST_SECONDS = 20.0  # one request taking longer than this is a hang
SHAPE = {"error", "field", "reason", "message"}
KINDS = {"validation", "body", "position", "notation", "illegal_action", "payment", "record",
         "cards", "bot_spec", "setup", "analysis", "budget", "game_over", "not_to_act",
         "limit", "auth", "not_found", "method_not_allowed", "not_your_turn", "not_over",
         "out_of_range", "conflict", "busy", "too_many", "deadline", "timeout"}
SETTINGS = dict(max_jobs=10_000, max_jobs_per_client=10_000, max_games=10_000,
                max_games_per_client=10_000, ai_wait_seconds=10.0, client_queued=1000,
                queue_size=1000)


# ------------------------------------------------------------------ the mutator

DROP = object()  # "remove this key / item"


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def deep_object(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value


# name -> f(old value, rng) -> new value (or DROP)
MUTATIONS: dict[str, Callable[[Any, random.Random], Any]] = {
    "drop": lambda v, r: DROP,
    "null": lambda v, r: None,
    "empty_string": lambda v, r: "",
    "true": lambda v, r: True,
    "zero": lambda v, r: 0,
    "negative": lambda v, r: r.choice([-1, -(2**31), -(10**20)]),
    "huge": lambda v, r: r.choice([2**63, 2**70, 10**40, 1e308, 10**4000]),
    "float": lambda v, r: r.choice([1.5, 0.1, -0.0, 1e-300]),
    "nan": lambda v, r: r.choice([float("nan"), float("inf"), float("-inf")]),
    "numeric_string": lambda v, r: r.choice(["1", "0", "-1", "1e9", " 2"]),
    "long_string": lambda v, r: r.choice(["x" * 5000, "H01 " * 3000, "é" * 20000]),
    "unicode": lambda v, r: r.choice(["\ud800", "H0\u0000", "\u202eH12", "H１２", "🂡",
                                      "take\u00a0deck", "Ｈ12", "h12"]),
    "unknown_card": lambda v, r: r.choice(["H99", "L99", "H00", "X12", "H-1", "L0"]),
    "duplicate": lambda v, r: (v + v[:1]) if isinstance(v, list) and v
    else [v, v] if not isinstance(v, dict) else {**v, **v},
    "list_for_object": lambda v, r: [v],
    "object_for_value": lambda v, r: {"value": v},
    "empty_list": lambda v, r: [],
    "empty_object": lambda v, r: {},
    "deep_list": lambda v, r: nested(r.choice([64, 300, 900])),
    "deep_object": lambda v, r: deep_object(r.choice([64, 300, 900])),
    "extra_field": lambda v, r: {**v, "zz_extra": 1} if isinstance(v, dict) else v,
    "type_swap": lambda v, r: str(v) if not isinstance(v, str)
    else (int(v) if v.isdigit() else len(v)),
    "big_list": lambda v, r: [v] * r.choice([500, 5000]),
}
ROOT_BODIES = [None, [], "x", 1, True, [{}], {"": None}]


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, prefix + (i,))
    return out


def mutate(body: Any, rng: random.Random) -> tuple[Any, str]:
    """A mutated deep copy of ``body`` and a description of the mutation."""
    if rng.random() < 0.04:
        root = rng.choice(ROOT_BODIES)
        return root, f"body := {root!r}"
    body = copy.deepcopy(body)
    if isinstance(body, dict) and rng.random() < 0.06:
        body["zz_extra"] = rng.choice([1, None, "x", {}])
        return body, "extra top-level field"
    path = rng.choice(paths(body)[1:] or [()])
    name = rng.choice(list(MUTATIONS))
    parent, key = None, None
    value = body
    for k in path:
        parent, key, value = value, k, value[k]
    new = MUTATIONS[name](value, rng)
    where = "".join(f"[{k!r}]" for k in path) or "body"
    if parent is None:
        return ({} if new is DROP else new), f"{name} at body"
    if new is DROP:
        del parent[key]
    else:
        parent[key] = new
    return body, f"{name} at {where}"


def encode(body: Any) -> bytes:
    try:
        return json.dumps(body, allow_nan=True).encode()
    except ValueError:  # an int too long for str(): send it as digits ourselves
        return json.dumps(body, allow_nan=True, default=str).encode()


# ------------------------------------------------------------------ requests and checks

@dataclass
class Outcome:
    status: int
    body: Any
    text: str
    seconds: float


def send(client, method: str, url: str, content: bytes | None = None,
         headers: dict[str, str] | None = None) -> Outcome:
    """One request, failing (instead of hanging the suite) after REQUEST_SECONDS."""
    box: dict[str, Any] = {}
    hdrs = {"Content-Type": "application/json", **(headers or {})}

    def run():
        try:
            box["r"] = client.request(method, url, content=content, headers=hdrs)
        except BaseException as err:  # noqa: BLE001 - reported below
            box["err"] = err

    started = time.monotonic()
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(REQUEST_SECONDS)
    seconds = time.monotonic() - started
    if t.is_alive():
        raise AssertionError(f"{method} {url}: no answer within {REQUEST_SECONDS} s (a hang)")
    if "err" in box:
        raise AssertionError(f"{method} {url}: the app raised {box['err']!r}") from box["err"]
    r = box["r"]
    try:
        data = r.json()
    except ValueError:
        data = None
    return Outcome(r.status_code, data, r.text[:600], seconds)


def problems(out: Outcome, raw_ok: bool = False) -> list[str]:
    """What is wrong with an answer by the rule of docs/api.md (empty: nothing)."""
    found = []
    if out.status >= 500:
        found.append(f"status {out.status}")
    if out.status == 204 or raw_ok and out.status < 300:
        return found
    if out.body is None:
        found.append("not a JSON body")
        return found
    if out.status >= 400:
        if not isinstance(out.body, dict) or not SHAPE <= set(out.body):
            found.append("error body without {error, field, reason, message}")
        else:
            b = out.body
            if b["error"] not in KINDS:
                found.append(f"undocumented error kind {b['error']!r}")
            if not isinstance(b["reason"], str) or not b["reason"]:
                found.append("empty reason")
            if b["field"] is not None and not isinstance(b["field"], str):
                found.append("field not a string")
    return found


# ------------------------------------------------------------------ games and snapshots

def wait_quiet(client, game_id: str, token: str, timeout: float = 20) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        data = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        if not data.get("ai_thinking") or time.monotonic() > deadline:
            return data
        time.sleep(0.02)


def snapshot(client, game_id: str, tokens: dict[int, str]) -> Any:
    """What a refused request must not change: every seat's view, log and counters, and
    the record once the game is over."""
    shot = {}
    for seat, token in sorted(tokens.items()):
        r = client.get(f"/v1/games/{game_id}", headers=auth(token))
        if r.status_code == 404:
            return "deleted"
        data = r.json()
        shot[seat] = {k: data[k] for k in ("actions_applied", "log", "view", "to_act", "over",
                                           "legal_actions")}
    token = next(iter(tokens.values()))
    r = client.get(f"/v1/games/{game_id}/record", headers=auth(token))
    shot["record"] = r.json() if r.status_code == 200 else r.status_code
    return shot


def near_the_end(seed: int, left: int = 4):
    """A full position a few random actions before a 2-player game's end, seat to act."""
    record = play_random_game(2, seed=seed)
    state = new_game(2, seed=seed)
    for a in record.actions[:-left]:
        state = play(state, a)
    return state


def finished_game(client, seed: int = 21) -> tuple[str, dict[int, str]]:
    """A hosted game played to its end (from a position near the end, human vs random)."""
    for k in range(20):
        state = near_the_end(seed + k)
        game_id, tokens = create_game(client, {"position": state_to_json(state)})
        token = next(iter(tokens.values()))
        rng = random.Random(seed + k)
        for _ in range(200):
            data = wait_quiet(client, game_id, token)
            if data["over"]:
                return game_id, tokens
            if not data["your_turn"]:
                break
            r = client.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                            json={"action": rng.choice(data["legal_actions"])})
            assert r.status_code == 200, r.text
    raise AssertionError("no game reached its end")


# ------------------------------------------------------------------ the routes

@dataclass
class Route:
    """A route to fuzz: ``setup(client)`` -> context; ``url(ctx)``, ``body(ctx)`` the valid
    request; ``game(ctx)`` -> (game_id, tokens) for game routes (checked unchanged after
    a refusal); ``after_ok(client, ctx)`` refreshes the context once a mutated request was
    accepted (an action played, a game deleted)."""

    name: str
    method: str
    url: Callable[[Any], str]
    body: Callable[[Any], Any]
    setup: Callable[[Any], Any] = lambda client: None
    headers: Callable[[Any], dict[str, str]] = lambda ctx: {}
    game: Callable[[Any], tuple[str, dict[int, str]]] | None = None
    after_ok: Callable[[Any, Any], None] | None = None
    raw_ok: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    accepted_some: bool = False  # some mutated requests must be accepted (the success path)


def mid_state():
    return random_mid_game(players=3, seed=8, actions=25)


def build_state():
    from server.schemas import EXAMPLES
    return EXAMPLES["build_state"], EXAMPLES["build_card"]


def view_to_act(state) -> dict:
    return view_to_json(view_of(state, state.current))


class GameCtx:
    """A game in progress for the session routes (a fresh one when the last is over)."""

    def __init__(self, client, seats=("human", "random")):
        self.client = client
        self.seats = list(seats)
        self.k = 0
        self.new()

    def new(self):
        self.game_id, self.tokens = create_game(self.client, {"players": len(self.seats),
                                                             "seats": self.seats})
        self.refresh()

    def refresh(self):
        token = next(iter(self.tokens.values()))
        data = wait_quiet(self.client, self.game_id, token)
        if data["over"]:
            return self.new()
        self.to_act = data["to_act"]
        mine = self.client.get(f"/v1/games/{self.game_id}",
                               headers=auth(self.tokens[self.to_act])).json()
        self.legal = mine["legal_actions"]

    def token(self):
        return self.tokens[self.to_act]

    def action_body(self):
        self.k += 1
        builds = [a for a in self.legal if a.startswith("build")]
        return {"action": (builds or self.legal)[0], "action_id": f"fz-{self.k}"}


class BuiltCtx(GameCtx):
    """A game against the AI whose person has just built in their build step, so that an
    undo can succeed; each refresh (after an accepted undo) plays on to the next build."""

    def __init__(self, client, seats=("human", "random")):
        super().__init__(client, seats)
        self.refresh()

    def new(self):  # a game to play on from (refresh builds)
        self.game_id, self.tokens = create_game(self.client, {"players": len(self.seats),
                                                             "seats": self.seats})
        GameCtx.refresh(self)

    def refresh(self):
        while True:
            GameCtx.refresh(self)  # a new game (BuiltCtx.new) when it was over
            builds = [a for a in self.legal if a.startswith("build ")]
            r = self.client.post(f"/v1/games/{self.game_id}/actions",
                                 headers=auth(self.token()),
                                 json={"action": (builds or self.legal)[0]})
            assert r.status_code == 200, r.text
            if builds:
                return


def refresh_game(client, ctx):
    r = client.get(f"/v1/games/{ctx.game_id}", headers=auth(next(iter(ctx.tokens.values()))))
    if r.status_code == 404:
        ctx.new()
    else:
        ctx.refresh()


def stored_set(client) -> dict:
    cards = client.get("/v1/cards/default").json()
    body = {k: v for k, v in cards.items() if k not in ("label", "fingerprint")}
    r = client.post("/v1/cardsets", json={**body, "name": "fuzzset"})
    assert r.status_code in (201, 409), r.text
    return {**body, "name": "fuzzset", "description": "a second version"}


def routes() -> list[Route]:
    state = mid_state()
    build, build_card = build_state()
    record = play_random_game(2, seed=13).to_json()
    record["actions"] = record["actions"][:8]
    counter = iter(range(10**9))
    return [
        Route("hint(state)", "POST", lambda c: "/v1/hint",
              lambda c: {"position": state_to_json(state), "budget": {"iterations": 10},
                         "seed": 1}),
        Route("hint(view)", "POST", lambda c: "/v1/hint",
              lambda c: {"position": view_to_act(state), "budget": {"ms": 50}}),
        Route("score", "POST", lambda c: "/v1/score",
              lambda c: {"position": view_to_act(state)}),
        Route("payment", "POST", lambda c: "/v1/payment",
              lambda c: {"position": build, "builds": [build_card + ":L"]}),
        Route("payment(view)", "POST", lambda c: "/v1/payment",
              lambda c: {"position": view_to_json(view_of(state_from_json(build),
                                                          build["current"])),
                         "builds": [build_card]}),
        Route("analyze", "POST", lambda c: "/v1/analyze",
              lambda c: {"record": record, "budget": {"iterations": 5}, "seed": 3,
                         "seats": [0, 1]}),
        Route("create game", "POST", lambda c: "/v1/games",
              lambda c: {"players": 3, "seats": ["human", "random", "greedy"], "seed": 5,
                         "cards": "default"}),
        Route("create game(view)", "POST", lambda c: "/v1/games",
              lambda c: {"position": view_to_act(state), "seed": 5}),
        Route("create game(state)", "POST", lambda c: "/v1/games",
              lambda c: {"position": state_to_json(state),
                         "seats": ["random" if i != state.current else "human"
                                   for i in range(3)]}),
        Route("action", "POST", lambda c: f"/v1/games/{c.game_id}/actions",
              lambda c: c.action_body(), setup=lambda cl: GameCtx(cl),
              headers=lambda c: auth(c.token()), game=lambda c: (c.game_id, c.tokens),
              after_ok=refresh_game),
        Route("action(hot seat)", "POST", lambda c: f"/v1/games/{c.game_id}/actions",
              lambda c: c.action_body(), setup=lambda cl: GameCtx(cl, ("human", "human")),
              headers=lambda c: auth(c.token()), game=lambda c: (c.game_id, c.tokens),
              after_ok=refresh_game),
        Route("session hint", "POST", lambda c: f"/v1/games/{c.game_id}/hint",
              lambda c: {"budget": {"iterations": 10}, "seed": 2},
              setup=lambda cl: GameCtx(cl), headers=lambda c: auth(c.token()),
              game=lambda c: (c.game_id, c.tokens), after_ok=refresh_game),
        Route("undo", "POST", lambda c: f"/v1/games/{c.game_id}/undo", lambda c: {},
              setup=lambda cl: BuiltCtx(cl), headers=lambda c: auth(c.token()),
              game=lambda c: (c.game_id, c.tokens), after_ok=refresh_game,
              accepted_some=True),
        Route("game analysis", "POST", lambda c: f"/v1/games/{c['game_id']}/analysis",
              lambda c: {"budget": {"iterations": 5}, "seed": 1, "seats": [0],
                         "again": False},
              setup=lambda cl: dict(zip(("game_id", "tokens"), finished_game(cl),
                                             strict=True)),
              headers=lambda c: auth(next(iter(c["tokens"].values()))),
              game=lambda c: (c["game_id"], c["tokens"])),
        Route("cardset upload", "POST", lambda c: "/v1/cardsets",
              lambda c: {**c, "name": f"fz{next(counter)}"}, setup=lambda cl: {
                  k: v for k, v in cl.get("/v1/cards/default").json().items()
                  if k not in ("label", "fingerprint")}),
        Route("cardset check", "POST", lambda c: "/v1/cardsets/check", lambda c: c,
              setup=lambda cl: {k: v for k, v in cl.get("/v1/cards/default").json().items()
                                if k not in ("label", "fingerprint")}),
        Route("cardset version", "POST", lambda c: "/v1/cardsets/fuzzset/versions",
              lambda c: c, setup=stored_set),
    ]


ROUTES = {r.name: r for r in routes()}


@pytest.fixture
def fuzz_client(make_client):
    return make_client(**SETTINGS)


def run_route(client, route: Route, cases: int, seed: int) -> list[str]:
    rng = random.Random(f"{seed}:{route.name}")
    ctx = route.setup(client)
    failures, jobs, accepted = [], [], 0
    for case in range(cases):
        valid = route.body(ctx)
        body, what = mutate(valid, rng)
        game = route.game(ctx) if route.game else None
        before = snapshot(client, *game) if game else None
        url = route.url(ctx)
        try:
            out = send(client, route.method, url, encode(body), route.headers(ctx))
        except AssertionError as err:  # a hang, or an exception out of the app
            failures.append(f"{route.name} case {case} ({what}): {err}")
            break
        found = problems(out, route.raw_ok)
        if game and 400 <= out.status < 500:
            after = snapshot(client, *game)
            if after != before:
                found.append("the game changed after a refused request")
        if found:
            failures.append(f"{route.name} case {case} ({what}): {'; '.join(found)} -> "
                            f"{out.status} {out.text[:300]}")
        if out.status == 202 and isinstance(out.body, dict) and "job_id" in out.body:
            jobs.append((case, what, out.body["job_id"]))
        accepted += out.status < 300
        if out.status < 300 and route.after_ok is not None:
            route.after_ok(client, ctx)
    if route.accepted_some and not accepted:
        failures.append(f"{route.name}: none of {cases} requests was accepted (the success "
                        "path went untested)")
    for case, what, job_id in jobs:  # an accepted record must be reviewable
        job = poll_job(client, job_id)
        if job["status"] != "done":
            failures.append(f"{route.name} case {case} ({what}): accepted, then the job "
                            f"{job['status']}: {job['error']}")
    return failures


@BOTH_BACKENDS
@pytest.mark.parametrize("name", list(ROUTES))
def test_mutated_requests_get_a_documented_4xx_and_change_nothing(fuzz_client, name):
    failures = run_route(fuzz_client, ROUTES[name], CASES, SEED)
    assert not failures, "\n".join(failures[:20])


# ------------------------------------------------------------------ regressions the fuzzer found

@BOTH_BACKENDS
@pytest.mark.parametrize("body,field", [
    ({"action_id": "a\x00b"}, "action_id"),  # PostgreSQL: 500 DataError (client_action)
    ({"action": "take deck\x00"}, "action"),
    ({"action_id": "\ud800"}, "action_id"),  # both backends: 500 UnicodeEncodeError
    ({"action_id": "a\udfff"}, "action_id"),
    ({"action": "take deck\ud800"}, "action")])
def test_a_nul_in_an_action_or_its_id_is_422_naming_it_and_changes_nothing(make_client, body,
                                                                           field):
    """Found by the fuzzer: a NUL (PostgreSQL) or a lone surrogate (both backends; the
    ``str`` check lost its refusal of surrogates once a validator was added) in the
    action id reached the database: 500."""
    client = make_client(**SETTINGS)
    ctx = GameCtx(client)
    before = snapshot(client, ctx.game_id, ctx.tokens)
    out = send(client, "POST", f"/v1/games/{ctx.game_id}/actions",
               encode({"action": ctx.legal[0], **body}), auth(ctx.token()))
    assert out.status == 422 and out.body["field"] == field, out.text
    reason = out.body["reason"].lower()
    assert any(w in reason for w in ("nul", "surrogate", "unicode")) and not problems(out)
    assert snapshot(client, ctx.game_id, ctx.tokens) == before



KEY_BODIES = {  # a key of the client's that is refused, so the error's field names it
    "/v1/hint": lambda position, record: {"position": {**position, "KEY": 1}},
    "/v1/score": lambda position, record: {"position": {
        **position, "per_turn": {"resources_used": {"KEY": 1}}}},
    "/v1/payment": lambda position, record: {"position": {
        **position, "seats": [{**position["seats"][0], "KEY": 1}, *position["seats"][1:]]},
        "builds": ["H01"]},
    "/v1/games": lambda position, record: {"position": {
        **position, "per_turn": {"persistent_used": {"KEY": 1}}}},
    "/v1/replay": lambda position, record: {"record": {**record, "KEY": 1}, "n": 0},
    "/v1/analyze": lambda position, record: {"record": {**record, "KEY": 1}},
}


@pytest.mark.parametrize("key", [r"\ud800", r"a\udfffb", r"\u0000", r"\u202e",
                                 r"\ud83c\udca1"])  # as JSON writes them
@pytest.mark.parametrize("url", list(KEY_BODIES))
def test_an_odd_unicode_key_is_named_in_a_documented_4xx(client, url, key):
    """Found by a hostile-client pass: a lone surrogate in a key of a position or a
    record ('{"\\ud800": 1}') became the error's field, which UTF-8 cannot encode: a
    plain-text 500 instead of the 422 naming it (the mutator changes values, not keys)."""
    position = state_to_json(new_game(2, seed=3))
    record = play_random_game(2, seed=5).to_json()
    body = json.dumps(KEY_BODIES[url](position, record)).replace('"KEY"', f'"{key}"')
    out = send(client, "POST", url, body.encode())
    assert 400 <= out.status < 500 and not problems(out), (url, key, out.status, out.text)
    assert out.body["field"], out.text


# ------------------------------------------------------------------ odd path parameters

ODD_IDS = ["%00", "a%00b", "x" * 5000, "%ff", "%F0%9F%82%A1", "%E2%80%AE", "%20", "%27%3B--",
           "-1", "%2e%2e", "a%5Cb", "%25", "é" * 300, "0" * 99, "%ED%A0%80"]
PATH_ROUTES = [("GET", "/v1/games/{}"), ("DELETE", "/v1/games/{}"),
               ("POST", "/v1/games/{}/actions"), ("POST", "/v1/games/{}/hint"),
               ("GET", "/v1/games/{}/record"), ("GET", "/v1/games/{}/positions/0"),
               ("POST", "/v1/games/{}/analysis"), ("GET", "/v1/games/{}/analysis"),
               ("POST", "/v1/games/{}/undo"), ("GET", "/v1/analyze/{}"),
               ("DELETE", "/v1/analyze/{}"), ("GET", "/v1/analyze/{}/positions/0"),
               ("GET", "/v1/cards/{}"), ("GET", "/v1/cardsets/{}"),
               ("GET", "/v1/cardsets/{}/versions"), ("GET", "/v1/cardsets/{}/versions/1"),
               ("POST", "/v1/cardsets/{}/versions")]


@BOTH_BACKENDS
def test_odd_path_parameters_are_a_documented_404(make_client):
    """Old code on PostgreSQL: a NUL in a game id, job id or card-set name (``a%00b``)
    reached the database, which refuses NUL in text: 500 DataError instead of a 404."""
    client = make_client(**SETTINGS)
    game_id, tokens = create_game(client, {"players": 2, "seats": ["human", "random"]})
    body = {"/actions": {"action": "end"}, "/versions": {"name": "x"}}
    failures = []
    for method, template in PATH_ROUTES:
        content = next((encode(b) for k, b in body.items() if template.endswith(k)), b"{}")
        for odd in ODD_IDS:
            url = template.format(odd)
            out = send(client, method, url, content if method == "POST" else None,
                       auth(tokens[0]))
            found = problems(out)
            if out.status not in (404, 422):
                found.append(f"status {out.status}, expected 404")
            if found:
                failures.append(f"{method} {url[:80]}: {'; '.join(found)} -> {out.text[:200]}")
    assert not failures, "\n".join(failures[:30])
    assert snapshot(client, game_id, tokens)[0]["actions_applied"] >= 0  # still there


def test_a_dot_dot_path_never_leaves_the_static_files(client):
    """Nothing outside server/static is served, whatever a path's ``..%2F`` decode to."""
    for path in ["/v1/games/..%2F..%2Fapp.py", "/v1/games/..%2F..%2F..%2Fserver%2Fapp.py",
                 "/v1/games/..%2F..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd", "/%2e%2e/app.py",
                 "/v1/analyze/..%2F..%2F..%2Fpyproject.toml"]:
        r = client.get(path)
        assert r.status_code == 404 and SHAPE <= set(r.json()), (path, r.text[:200])


def test_an_api_path_no_route_has_is_a_json_404_never_the_page(client):
    """Old code: ``/v1/games/..%2F..`` was decoded to ``/v1/games/../..``, which no API
    route has, and the static files normalised it to ``/``: 200 with the page's HTML (or
    a redirect to it). Every path under /v1 that no route has is a 404 in the API's shape."""
    for path in ["/v1/games/..%2F..", "/v1/analyze/..%2F..", "/v1/games/a/b/c", "/v1",
                 "/v1/", "/v1/index.html", "/v1/games/..%2F..%2Findex.html"]:
        r = client.get(path, follow_redirects=False)
        assert r.status_code == 404, (path, r.status_code, r.text[:200])
        assert SHAPE <= set(r.json()) and r.json()["field"] == "path", (path, r.text[:200])
    assert client.get("/").status_code == 200  # the page itself is still served
    assert client.get("/v1/cards").status_code == 200


# ------------------------------------------------------------------ by hand

def test_a_record_with_thousands_of_actions_is_refused_at_its_first_bad_action(client):
    """Old code: 422 with field "record" and the index only inside the reason; docs/api.md
    says the error names ``actions[i]``. Refused at once, whatever the length."""
    record = play_random_game(2, seed=13).to_json()
    n = len(record["actions"])
    for tail in (["end"] * 5000, ["take H01"] * 20000):
        started = time.monotonic()
        out = send(client, "POST", "/v1/analyze",
                   encode({"record": {**record, "actions": record["actions"] + tail}}))
        assert out.status == 422 and not problems(out), out.text
        assert out.body["field"] == f"actions[{n}]", out.text
        assert "the game is over" in out.body["reason"]
        assert time.monotonic() - started < 5
    out = send(client, "POST", "/v1/analyze",
               encode({"record": {**record, "actions": ["take deck"] * 90_000}}))
    assert out.status == 413 and out.body["field"] == "body", out.text  # BIGSUR_MAX_BODY_BYTES
    raw = {**record, "actions": record["actions"][:5] + ["take H99"]}
    out = send(client, "POST", "/v1/analyze", encode({"record": raw}))
    assert out.status == 422 and out.body["field"] == "actions[5]", out.text


@BOTH_BACKENDS
def test_the_same_action_posted_twice_at_once_with_one_id_is_applied_once(make_client):
    client = make_client(**SETTINGS)
    ctx = GameCtx(client, ("human", "human"))
    before = snapshot(client, ctx.game_id, ctx.tokens)[ctx.to_act]["actions_applied"]
    url = f"/v1/games/{ctx.game_id}/actions"
    outs: list[Outcome] = []
    barrier = threading.Barrier(4)

    def post(body):
        barrier.wait()
        outs.append(send(client, "POST", url, encode(body), auth(ctx.token())))

    action = ctx.legal[0]
    threads = [threading.Thread(target=post, args=({"action": action, "action_id": "twice"},))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [o.status for o in outs] == [200] * 4, [o.text for o in outs]
    assert sorted(o.body["applied"]["duplicate"] for o in outs) == [False, True, True, True]
    assert len({o.body["applied"]["index"] for o in outs}) == 1
    after = snapshot(client, ctx.game_id, ctx.tokens)[ctx.to_act]
    assert after["actions_applied"] == before + 1
    # the same id for another action at once: one is applied, the others are 409 conflict
    ctx.refresh()
    others = [a for a in ctx.legal if a != ctx.legal[0]][:1] or ctx.legal[:1]
    outs.clear()
    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=post, args=({"action": a, "action_id": "again"},))
               for a in (ctx.legal[0], others[0])]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    statuses = sorted(o.status for o in outs)
    assert statuses in ([200, 200], [200, 409]), [o.text for o in outs]
    if statuses == [200, 409]:
        bad = next(o for o in outs if o.status == 409)
        assert bad.body["field"] == "action_id" and not problems(bad), bad.text
    assert snapshot(client, ctx.game_id, ctx.tokens)[ctx.to_act]["actions_applied"] == \
        before + 2 - (statuses == [200, 200] and others[0] == ctx.legal[0])


@BOTH_BACKENDS
def test_another_seats_or_games_token_changes_nothing(make_client):
    client = make_client(**SETTINGS)
    ctx = GameCtx(client, ("human", "human"))
    other_game, other_tokens = create_game(client, {"players": 2, "seats": ["human", "human"]})
    before = snapshot(client, ctx.game_id, ctx.tokens)
    url = f"/v1/games/{ctx.game_id}"
    idle = ctx.tokens[1 - ctx.to_act]
    cases = [("POST", "/actions", {"action": ctx.legal[0]}, idle, 409, "not_your_turn"),
             ("POST", "/actions", {"action": ctx.legal[0], "action_id": "x"}, idle, 409,
              "not_your_turn"),
             ("POST", "/hint", {}, idle, 409, "not_your_turn"),
             ("POST", "/undo", {}, idle, 409, "conflict"),
             ("DELETE", "", None, ctx.tokens[1], 403, "auth"),  # not the creator's
             ("POST", "/actions", {"action": ctx.legal[0]}, other_tokens[0], 403, "auth"),
             ("POST", "/hint", {}, other_tokens[0], 403, "auth"),
             ("DELETE", "", None, other_tokens[0], 403, "auth"),
             ("GET", "/record", None, other_tokens[0], 403, "auth"),
             ("POST", "/actions", {"action": ctx.legal[0]}, ctx.token() + "x", 403, "auth"),
             ("POST", "/actions", {"action": ctx.legal[0]}, "", 401, "auth")]
    for method, tail, body, token, status, kind in cases:
        out = send(client, method, url + tail, None if body is None else encode(body),
                   auth(token) if token else {})
        assert (out.status, out.body["error"]) == (status, kind), (method, tail, out.text)
        assert not problems(out), out.text
        assert snapshot(client, ctx.game_id, ctx.tokens) == before, (method, tail)
    assert snapshot(client, other_game, other_tokens)[0]["actions_applied"] == 0


def test_a_hint_for_a_finished_game_says_the_game_is_over(make_client):
    client = make_client(**SETTINGS)
    game_id, tokens = finished_game(client)
    before = snapshot(client, game_id, tokens)
    for body in (None, {}, {"budget": {"iterations": 5}}):
        out = send(client, "POST", f"/v1/games/{game_id}/hint",
                   None if body is None else encode(body), auth(tokens[min(tokens)]))
        assert out.status == 409 and not problems(out), out.text
        assert (out.body["error"], out.body["field"]) == ("game_over", "game_id"), out.text
    out = send(client, "POST", f"/v1/games/{game_id}/actions", encode({"action": "end"}),
               auth(tokens[min(tokens)]))
    assert out.status == 409 and out.body["error"] == "game_over", out.text
    assert snapshot(client, game_id, tokens) == before


# ------------------------------------------------------------------ CSV bodies and query strings

def mutate_text(text: str, rng: random.Random) -> tuple[str, str]:
    """A CSV text with one random edit: a cell, a line, a quote, bytes."""
    lines = text.splitlines()
    k = rng.randrange(len(lines))
    cells = lines[k].split(",")
    what = rng.choice(["cell", "drop_line", "dup_line", "quote", "truncate", "header_cell",
                       "long_cell", "many_columns"])
    if what in ("cell", "header_cell", "long_cell"):
        if what == "header_cell":
            k, cells = 0, lines[0].split(",")
        j = rng.randrange(len(cells))
        cells[j] = "x" * 100_000 if what == "long_cell" else rng.choice(
            ["", "-1", "1e999", "nan", "H99", "\x00", "\ud800".encode("utf-8", "surrogatepass")
             .decode("latin-1"), '"', "é", "999999999999999999999999"])
        lines[k] = ",".join(cells)
    elif what == "drop_line":
        del lines[k]
    elif what == "dup_line":
        lines.insert(k, lines[k])
    elif what == "quote":
        lines[k] = '"' + lines[k]
    elif what == "truncate":
        return text[: rng.randrange(len(text))], f"truncate at line {k}"
    else:
        lines[k] += "," * 5000
    return "\n".join(lines), f"{what} at line {k}"


@BOTH_BACKENDS
def test_mutated_csv_uploads_and_query_strings_get_a_documented_answer(make_client):
    client = make_client(**SETTINGS)
    template = client.get("/v1/cardsets/template.csv").text
    rng = random.Random(f"{SEED}:csv")
    failures = []
    for case in range(CASES):
        text, what = mutate_text(template, rng)
        name = rng.choice([f"csv{case}", "", "default", "x" * 50, "a%00b", "é", "check"])
        query = rng.choice(["", "&reconstruction=maybe", "&description=" + "d" * 3000,
                            "&reconstruction=true", "&description=%00"])
        for url in (f"/v1/cardsets?name={name}{query}", f"/v1/cardsets/convert?name={name}"
                                                        f"{query}"):
            out = send(client, "POST", url, text.encode("utf-8", "surrogatepass"),
                       {"Content-Type": "text/csv"})
            found = problems(out)
            if found:
                failures.append(f"case {case} ({what}, {url[:60]}): {'; '.join(found)} -> "
                                f"{out.status} {out.text[:200]}")
    assert not failures, "\n".join(failures[:20])
