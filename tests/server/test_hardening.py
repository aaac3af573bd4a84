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
