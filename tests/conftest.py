"""Fixtures shared by the rules tests; the helpers live in ``rules_testkit``."""

from __future__ import annotations

import pytest
from rules_testkit import card_set, small_specs

from solver.rules.cards import CardSet


@pytest.fixture(scope="session")
def small() -> CardSet:
    """The small playable set of :func:`small_specs`."""
    highway, landmarks = small_specs()
    return card_set(highway, landmarks, name="small")


@pytest.fixture(scope="session")
def custom() -> CardSet:
    """The default cards under another name: a full set that positions and records
    write inline (and read back: it passes the checks of a ``--cards`` file)."""
    from solver.rules.cards import load_card_set, parse_card_set

    raw = load_card_set().to_json() | {"name": "custom"}
    return parse_card_set(raw, "custom")
