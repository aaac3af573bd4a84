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
