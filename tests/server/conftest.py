"""Fixtures of the server tests: apps on a temporary database, a deterministic fake
search for the HTTP-layer tests, the small card set as a file, and a random player.

The fake replaces ``solver.search.api.analyse`` only through the search dependency
(``app.dependency_overrides[get_search]``) and only in tests of the HTTP layer; the
tests of real search results live in ``test_real_search.py``.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import Settings, create_app
from server.deps import get_search
from server.pool import SearchService
from solver.rules.views import PlayerView
from solver.search.bots import legal_from_view


class FakeSearch:
    """A deterministic stand-in for ``analyse``: every legal action of the viewer, valued
    by a hash of (action, seed). Records what it was given; ``gate`` (an Event) makes it
    wait, to fill the pool."""

    def __init__(self):
        self.calls: list[tuple[Any, Any, Any]] = []
        self.gate: threading.Event | None = None
        self.started = threading.Semaphore(0)

    def __call__(self, position, budget, seed=None) -> dict[str, Any]:
        assert isinstance(position, PlayerView), "search must only ever get a view"
        self.calls.append((position, budget, seed))
        self.started.release()
        if self.gate is not None:
            assert self.gate.wait(30), "the test never opened the gate"
        moves = []
        for action in legal_from_view(position):
            text = action.notation()
            h = hashlib.blake2b(f"{text}:{seed}".encode(), digest_size=8).digest()
            p = int.from_bytes(h, "big") / 2**64
            moves.append({"actions": [text], "label": text, "visits": 1 + int(p * 100),
                          "win_probability": round(p, 4),
                          "expected_margin": round(20 * p - 10, 3), "payment": None,
                          "line": []})
        moves.sort(key=lambda m: -m["win_probability"])
        return {"seat": position.seat, "moves": moves, "stats": {"iterations": 1}}


def make_settings(tmp_path: Path, **overrides) -> Settings:
    values = dict(db=str(tmp_path / "games.db"), workers=2, pool="thread", warm=False,
                  ai_wait_seconds=20.0, default_ai="random")
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def fake_search() -> FakeSearch:
    return FakeSearch()


@pytest.fixture
def make_client(tmp_path, fake_search):
    """``make_client(**settings)`` -> a started TestClient whose search is the fake."""
    opened: list[TestClient] = []

    def factory(fake: bool = True, **overrides) -> TestClient:
        settings = make_settings(tmp_path, **overrides)
        service = None
        if fake:  # the whole app (routes, metrics, AI resume) uses the fake's pool
            service = SearchService(settings.workers, "thread", settings.retry_after,
                                    search_fn=fake_search)
        app = create_app(settings, search=service)
        if fake:
            app.dependency_overrides[get_search] = lambda: service
        client = TestClient(app)
        client.__enter__()
        opened.append(client)
        return client

    yield factory
    for client in opened:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client) -> TestClient:
    return make_client()


@pytest.fixture(scope="session")
def small_file(tmp_path_factory, small) -> str:
    """The small playable set (tests/conftest.py) as a card-set file (short games)."""
    path = tmp_path_factory.mktemp("cards") / "small.json"
    path.write_text(json.dumps(small.to_json()))
    return str(path)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client, players: int = 2, seats: list[str] | None = None, seed: int = 1,
             cards: str = "default") -> tuple[str, dict[int, str]]:
    body: dict[str, Any] = {"players": players, "seed": seed, "cards": cards}
    if seats is not None:
        body["seats"] = seats
    r = client.post("/v1/games", json=body)
    assert r.status_code == 201, r.text
    data = r.json()
    return data["game_id"], {t["seat"]: t["token"] for t in data["tokens"]}


def wait_for_humans(client, game_id: str, token: str, timeout: float = 60) -> dict:
    """GET until no AI is thinking (the AI may still be playing after a restart)."""
    deadline = time.monotonic() + timeout
    while True:
        r = client.get(f"/v1/games/{game_id}", headers=auth(token))
        assert r.status_code == 200, r.text
        data = r.json()
        if not data["ai_thinking"] or time.monotonic() > deadline:
            return data
        time.sleep(0.05)


def play_out(client, game_id: str, tokens: dict[int, str], rng: random.Random,
             on_response=None, max_actions: int = 2000) -> dict:
    """Play every human seat with random legal actions until the game is over; each
    response goes to ``on_response(seat, response_json)``. Returns the final view."""
    any_token = next(iter(tokens.values()))
    for _ in range(max_actions):
        state = wait_for_humans(client, game_id, any_token)
        if state["over"]:
            return state
        seat = state["to_act"]
        mine = client.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json()
        if on_response:
            on_response(seat, mine)
        action = rng.choice(mine["legal_actions"])
        r = client.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[seat]),
                        json={"action": action, "action_id": f"a{mine['actions_applied']}"})
        assert r.status_code == 200, r.text
        if on_response:
            on_response(seat, r.json())
    raise AssertionError("the game did not end")


def poll_job(client, job_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = client.get(f"/v1/analyze/{job_id}")
        assert r.status_code == 200, r.text
        if r.json()["status"] in ("done", "failed"):
            return r.json()
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


@pytest.fixture
def rng() -> Iterator[random.Random]:
    yield random.Random(12345)
