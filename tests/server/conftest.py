"""Fixtures of the server tests: apps on a temporary database (SQLite, or a throwaway
PostgreSQL where a test module is parametrized over ``db_target``), a deterministic fake
search for the HTTP-layer tests, card-set files, and a random player.

PostgreSQL: one cluster per test session (:class:`server.launch.ThrowawayPostgres`), a
fresh database per test. Without PostgreSQL's binaries those tests are skipped, except
with ``BIGSUR_REQUIRE_POSTGRES=1`` (CI), where they fail.

The fake replaces ``solver.search.api.analyse`` only through the search dependency
(``app.dependency_overrides[get_search]``) and only in tests of the HTTP layer; the
tests of real search results live in ``test_real_search.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.deps import get_search
from server.launch import ThrowawayPostgres
from server.pool import SearchService
from server.settings import Settings
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

    def __call__(self, position, budget, seed=None, moves=None) -> dict[str, Any]:
        """As ``analyse``: ``moves`` (whole decisions) ranks only those."""
        assert isinstance(position, PlayerView), "search must only ever get a view"
        self.calls.append((position, budget, seed))
        self.started.release()
        if self.gate is not None:
            assert self.gate.wait(30), "the test never opened the gate"
        firsts = None if moves is None else {m[0] for m in moves}
        moves = []
        for action in legal_from_view(position):
            if firsts is not None and action not in firsts:
                continue
            text = action.notation()
            h = hashlib.blake2b(f"{text}:{seed}".encode(), digest_size=8).digest()
            p = int.from_bytes(h, "big") / 2**64
            moves.append({"actions": [text], "label": text, "visits": 1 + int(p * 100),
                          "win_probability": round(p, 4),
                          "expected_margin": round(20 * p - 10, 3), "payment": None,
                          "line": []})
        moves.sort(key=lambda m: -m["win_probability"])
        return {"seat": position.seat, "moves": moves, "stats": {"iterations": 1}}


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[ThrowawayPostgres]:
    """A PostgreSQL cluster for the whole session, stopped (and deleted) at its end."""
    cluster = ThrowawayPostgres()
    try:
        cluster.start()
    except Exception as err:  # noqa: BLE001 - no binaries, or it would not start
        if os.environ.get("BIGSUR_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"BIGSUR_REQUIRE_POSTGRES=1 but PostgreSQL did not start: {err}",
                        pytrace=False)
        pytest.skip(f"no PostgreSQL on this machine ({err})")
    yield cluster
    cluster.stop()


@pytest.fixture
def db_target(request, tmp_path) -> str:
    """The database of :func:`make_client`: a SQLite file, or, where a test is marked
    ``session_testkit.BOTH_BACKENDS`` and runs as "postgres", a fresh PostgreSQL database."""
    if getattr(request, "param", "sqlite") == "postgres":
        return request.getfixturevalue("postgres_cluster").create_database()
    return str(tmp_path / "games.db")


def make_settings(db_target: str, **overrides) -> Settings:
    values = dict(db=db_target, workers=2, pool="thread", warm=False,
                  ai_wait_seconds=20.0, default_ai="random",
                  chosen_seeds="any")  # the older tests deal known hands to 2+ humans
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def fake_search() -> FakeSearch:
    return FakeSearch()


@pytest.fixture
def make_client(db_target, fake_search):
    """``make_client(**settings)`` -> a started TestClient whose search is the fake."""
    opened: list[TestClient] = []

    def factory(fake: bool = True, **overrides) -> TestClient:
        settings = make_settings(db_target, **overrides)
        service = None
        if fake:  # the whole app (routes, metrics, AI resume) uses the fake's pool
            service = SearchService.from_settings(settings, search_fn=fake_search)
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
def custom_file(tmp_path_factory, custom) -> str:
    """A BIGSUR_CARDS file: the default cards named "custom" (tests/conftest.py). The
    server takes only full sets, as ``--cards FILE`` does."""
    path = tmp_path_factory.mktemp("cards") / "custom.json"
    path.write_text(json.dumps(custom.to_json()))
    return str(path)


@pytest.fixture(scope="session")
def small_file(tmp_path_factory, small) -> str:
    """The small playable set (tests/conftest.py) as a file: a partial set, which the
    server refuses."""
    path = tmp_path_factory.mktemp("cards") / "small.json"
    path.write_text(json.dumps(small.to_json()))
    return str(path)


@pytest.fixture
def rng() -> Iterator[random.Random]:
    yield random.Random(12345)
