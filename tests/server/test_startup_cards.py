"""The server's own card set (``BIGSUR_CARDS=FILE``) passes the checks of ``--cards FILE``
(a full set: 69 + 20 cards, equal turns) or the server refuses to start, with one line
naming the file and the problem; inline sets in positions are checked the same way."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from server.app import Settings, create_app
from server.pool import cards_of
from solver.rules.cards import CardSetError
from solver.rules.position import PositionError


def test_a_partial_set_is_refused_by_the_app_factory(tmp_path, small_file):
    with pytest.raises(CardSetError) as caught:
        create_app(Settings(db=str(tmp_path / "g.db"), warm=False, cards=small_file))
    line = caught.value.summary()
    assert "\n" not in line
    assert small_file in line and "BIGSUR_CARDS" in line
    assert "a full set has 69 cards" in line


def test_a_full_set_is_served_under_its_name(make_client, custom_file):
    client = make_client(cards=custom_file)
    assert {s["name"] for s in client.get("/v1/cards").json()} == {"default", "custom"}


def test_a_csv_set_is_served_under_its_file_name(make_client, tmp_path, custom):
    """BIGSUR_CARDS names a .csv as --cards does (load_card_set): it was read as JSON."""
    from solver.rules.cardset_csv import card_set_to_csv

    raw = custom.to_json()
    raw["landmarks"][0]["name"] += " (as printed)"  # a CSV is no reconstruction
    path = tmp_path / "club.csv"
    path.write_text(card_set_to_csv(raw), encoding="utf-8")
    client = make_client(cards=str(path))
    assert {s["name"] for s in client.get("/v1/cards").json()} == {"default", "club"}


def test_bigsur_serve_refuses_to_start_with_one_line(tmp_path, small_file):
    env = {**os.environ, "BIGSUR_CARDS": small_file, "BIGSUR_DB": str(tmp_path / "g.db"),
           "BIGSUR_WARM": "0"}
    out = subprocess.run([sys.executable, "-m", "solver.cli", "serve", "--port", "0"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert small_file in lines[0] and "a full set has 69 cards" in lines[0]


def test_an_inline_partial_set_in_a_position_is_refused(small):
    with pytest.raises(PositionError) as caught:
        cards_of(json.loads(json.dumps(small.to_json())))
    assert "a full set has 69 cards" in str(caught.value)


def test_the_reconstructions_cards_labelled_as_printed_are_refused_at_start(tmp_path):
    """BIGSUR_CARDS with the shipped cards under another name, ``reconstruction`` false:
    the server offered them as the printed list. It refuses to start, naming the file."""
    from solver.rules.cards import load_card_set

    path = tmp_path / "mine.json"
    path.write_text(json.dumps(load_card_set().to_json() | {"name": "mine",
                                                             "reconstruction": False}))
    with pytest.raises(CardSetError) as caught:
        create_app(Settings(db=str(tmp_path / "g.db"), warm=False, cards=str(path)))
    line = caught.value.summary()
    assert str(path) in line and "the cards of default v1 (reconstruction" in line, line


def test_a_card_set_parsed_is_returned_even_when_another_thread_clears_the_cache(
        monkeypatch, custom):
    """Positions are read in threads now (pool.read_position): another thread may clear
    the cache of parsed sets between this one storing its set and reading it back, which
    was a KeyError (a 422 'malformed' for a good position)."""
    import server.pool

    class ClearedAtOnce(dict):
        def __setitem__(self, key, value):  # another thread's clear() came right after
            pass

    monkeypatch.setattr(server.pool, "_CARD_CACHE", ClearedAtOnce())
    assert cards_of(custom.to_json()).fingerprint == custom.fingerprint
