"""Leak scan: play whole games through the API and check that no response to a seat
names a Highway card that seat has never been able to see (another hand's deck draws,
the deck, discard fronts it did not see).

A seat may see, at any time: its hand, its discard pile, every Highway, the Depot, the
cards known to be in other hands (taken from the Depot) and the discard fronts known to
all. Allowed ids = the union of that over every state up to the response. The game
record (after the end, by design the whole game) is not scanned. In hints, the
principal ``line`` may name cards of a sampled determinization (guesses of the search,
which receives only the view: checked by the fake-search tests); the moves themselves
are scanned.
"""

from __future__ import annotations

import json
import os
import random
import re

import pytest
from session_testkit import auth, new_game, play_out

from solver.rules.position import resolve_cards
from solver.rules.record import GameRecord
from solver.rules.state import GameState

FULL = os.environ.get("BIGSUR_FULL") == "1"


def visible(state: GameState, seat: int) -> set[int]:
    out = set(state.depot)
    for i, p in enumerate(state.players):
        out.update(p.highway)
        if i == seat:
            out.update(p.hand)
            out.update(p.discard)
        else:
            out.update(p.known_hand)
            out.update(p.known_discard)
    return out


def card_ids(obj, ids: set[str]) -> set[str]:
    text = json.dumps(obj)
    return {m for m in re.findall(r"[A-Za-z]+\d+", text) if m in ids}


def scan_game(client, game_id, tokens, players, rng, hint_every: int = 0):
    captured: list[tuple[int, int, dict]] = []
    count = [0]

    def on_response(seat, body):
        captured.append((seat, body["actions_applied"], body))
        count[0] += 1
        if hint_every and body.get("your_turn") and count[0] % hint_every == 0:
            r = client.post(f"/v1/games/{game_id}/hint", headers=auth(tokens[seat]),
                            json={"budget": {"iterations": 30}, "seed": count[0]})
            assert r.status_code == 200, r.text
            hint = r.json()
            for m in hint["moves"]:
                m["line"] = []  # sampled guesses, see the module doc
            captured.append((seat, body["actions_applied"], hint))

    final = play_out(client, game_id, tokens, rng, on_response=on_response)
    for seat, token in tokens.items():  # the final view of every human seat too
        captured.append((seat, final["actions_applied"],
                         client.get(f"/v1/games/{game_id}", headers=auth(token)).json()))
    raw = client.get(f"/v1/games/{game_id}/record", headers=auth(tokens[min(tokens)])).json()
    record = GameRecord.from_json(raw, resolve_cards(raw["cards"]))  # strictly, as input
    states = [s for s, _a in record.states()]
    ids = {c.id for c in record.cards.highway}
    allowed: dict[int, list[set[str]]] = {}
    for seat in range(players):
        seen: set[int] = set()
        per_step = []
        for state in states:
            seen |= visible(state, seat)
            per_step.append({record.cards.highway[c].id for c in seen})
        allowed[seat] = per_step
    hidden_somewhere = 0
    for seat, n, body in captured:
        named = card_ids(body, ids)
        leaked = named - allowed[seat][n]
        assert not leaked, f"seat {seat} after {n} actions was sent {sorted(leaked)}"
        hidden_somewhere += len(ids - allowed[seat][n]) > 0
    assert hidden_somewhere > 0  # the scan had hidden cards to find
    return len(captured)


GAMES = [
    ("default", 2, ["human", "greedy"], 1),
    ("custom", 3, ["human", "human", "random"], 2),
    ("custom", 4, ["human", "random", "human", "greedy"], 3),
    ("default", 4, ["human", "human", "human", "human"], 4),
]
if FULL:
    GAMES += [("default", n, ["human"] * n, 100 + n) for n in (2, 3, 4)]
    GAMES += [("default", 3, ["human", "greedy", "human"], 200 + k) for k in range(5)]


@pytest.mark.parametrize("cards,players,seats,seed", GAMES)
def test_no_response_names_a_hidden_card(make_client, custom_file, cards, players, seats, seed):
    client = make_client(cards=custom_file)
    game_id, tokens = new_game(client, players, seats, seed, cards)
    n = scan_game(client, game_id, tokens, players, random.Random(seed))
    assert n > 10


def test_no_session_hint_names_a_hidden_card(make_client, custom_file):
    """Real search (small iteration budget): the moves of the hints are scanned too."""
    client = make_client(fake=False, cards=custom_file)
    game_id, tokens = new_game(client, 2, ["human", "human"], 7, "custom")
    scan_game(client, game_id, tokens, 2, random.Random(7), hint_every=3)
