"""Helpers of the server tests: seat tokens, games played through the API, analysis jobs.

A module of its own (imported as ``from session_testkit import ...``) rather than
conftest.py: pytest imports every conftest.py under the same bare name.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

# A module (``pytestmark = BOTH_BACKENDS``) or a test marked with it runs on SQLite and on
# a throwaway PostgreSQL: ``make_client`` and ``db_target`` then give each backend's database.
BOTH_BACKENDS = pytest.mark.parametrize("db_target", ["sqlite", "postgres"], indirect=True)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client, players: int = 2, seats: list[str] | None = None, seed: int = 1,
             cards: str = "default") -> tuple[str, dict[int, str]]:
    body: dict[str, Any] = {"players": players, "seed": seed, "cards": cards}
    if seats is not None:
        body["seats"] = seats
    return create_game(client, body)


def create_game(client, body: dict) -> tuple[str, dict[int, str]]:
    """POST /v1/games with ``body`` (201 expected) -> (game id, token of each seat)."""
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


def serve_refused(*options: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``python -m server`` (bigsur serve) with ``options`` (a free ``--port`` unless
    they give one) and ``env`` added, in a process of its own, expected to stop before
    it serves: (exit status, stderr). One that starts fails the test."""
    from server.launch import free_port

    root = Path(__file__).resolve().parents[2]
    port = [] if "--port" in options else ["--port", str(free_port())]
    proc = subprocess.Popen([sys.executable, "-m", "server", *port, *options],
                            env={**os.environ, "PYTHONPATH": str(root), "BIGSUR_WARM": "false",
                                 "BIGSUR_WORKERS": "1", **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=root)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # (it started: the server and its workers)
        proc.communicate()
        pytest.fail(f"bigsur serve started with {options} and {env}")
    return proc.returncode, err


def seed_where(first: int = 0, players: int = 2) -> int:
    """A seed whose deal has seat ``first`` to act first."""
    from solver.rules.engine import new_game as engine_new_game

    return next(s for s in range(200) if engine_new_game(players, seed=s).current == first)


def to_build_step(client, game_id: str, token: str) -> dict:
    """Take from the deck until the token's seat is in its build step; its view then."""
    while True:
        view = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        assert view["your_turn"], view
        if "end" in view["legal_actions"]:
            return view
        r = client.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                        json={"action": "take deck"})
        assert r.status_code == 200, r.text
