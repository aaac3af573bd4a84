"""Continuing a position as a game against the AI (``POST /v1/games`` with ``position``):
a view of the seat to act, whose hidden cards the server draws with the seed (the
human plays the view's seat, the AI the others), or a full position. The game plays to
the end through the API, survives a restart (it replays from its stored start), and
its record (with ``start``, no seed) replays and is reviewed. Refusals are 422 naming
the field and create no game."""

from __future__ import annotations

import copy
import json
import random

import pytest
from rules_testkit import random_mid_game
from session_testkit import auth, play_out, poll_job, wait_for_humans

from solver.cli import main as cli_main
from solver.rules.engine import legal_actions, new_game, play
from solver.rules.position import state_to_json
from solver.rules.record import GameRecord
from solver.rules.scoring import final_scores
from solver.rules.state import Phase
from solver.rules.views import view_of, view_to_json


def continue_from(client, position, **body):
    r = client.post("/v1/games", json={"position": position, **body})
    assert r.status_code == 201, r.text
    data = r.json()
    return data, {t["seat"]: t["token"] for t in data["tokens"]}


def games_held(client) -> int:
    return sum(client.get("/healthz").json()["games"].values())


def test_a_3_player_mid_game_view_plays_to_the_end_and_its_record_replays_and_reviews(
        client, tmp_path, capsys):
    state = random_mid_game()
    me = state.current
    view = view_to_json(view_of(state, me))
    data, tokens = continue_from(client, view, seed=11)
    assert list(tokens) == [me]
    assert [s["kind"] for s in data["seats"]] == ["human" if i == me else "ai"
                                                  for i in range(3)]
    assert data["fairness"] is None  # no seeded deal to commit to
    game_id, token = data["game_id"], tokens[me]
    first = wait_for_humans(client, game_id, token)
    assert first["view"] == view  # the human sees exactly the position sent
    assert first["your_turn"] and first["legal_actions"]

    final = play_out(client, game_id, tokens, random.Random(3))
    assert final["over"]
    ai_moves = [e for e in final["log"] if e["seat"] != me]
    assert ai_moves, "the AI never moved"

    r = client.get(f"/v1/games/{game_id}/record", headers=auth(token))
    assert r.status_code == 200, r.text
    raw = r.json()
    assert "seed" not in raw and raw["start"]["format"] == "bigsur-position/1"
    assert "fairness" not in raw.get("meta", {})
    record = GameRecord.from_json(raw)
    start = record.initial_state()
    assert view_to_json(view_of(start, me)) == view  # the start is consistent with the view
    replayed = record.replay()
    assert replayed.phase == Phase.OVER
    assert raw["meta"]["result"] == final["result"] == final_scores(replayed).to_json()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(raw))
    assert cli_main(["verify", str(path)]) != 0  # nothing to verify, and it says why
    assert "no seeded deal to commit to" in capsys.readouterr().err
    # the review's past positions start from the start position
    r = client.get(f"/v1/games/{game_id}/positions/0", headers=auth(token))
    assert r.status_code == 200 and r.json() == raw["start"]

    r = client.post(f"/v1/games/{game_id}/analysis", headers=auth(token),
                    json={"budget": {"iterations": 5}})
    assert r.status_code == 202, r.text
    job = poll_job(client, r.json()["job_id"])
    assert job["status"] == "done", job
    decisions = job["result"]["decisions"]
    assert len(decisions) == len(raw["actions"])
    assert decisions[0]["seat"] == me


def test_the_same_view_and_seed_draw_the_same_hidden_cards(client):
    state = random_mid_game(seed=21)
    view = view_to_json(view_of(state, state.current))
    starts = []
    for seed in (5, 5, 6):
        data, _ = continue_from(client, view, seed=seed)
        starts.append(client.app.state.games.live[data["game_id"]].row.start)
    assert starts[0] == starts[1]
    assert starts[0] != starts[2]  # another seed, another draw of the hidden cards


def test_a_game_from_a_position_survives_a_restart(make_client, tmp_path):
    db = str(tmp_path / "restart.db")
    client = make_client(db=db)
    state = random_mid_game(seed=4)
    me = state.current
    view = view_to_json(view_of(state, me))
    data, tokens = continue_from(client, view)
    game_id = data["game_id"]
    legal = wait_for_humans(client, game_id, tokens[me])["legal_actions"]
    r = client.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[me]),
                    json={"action": legal[0], "action_id": "one"})
    assert r.status_code == 200, r.text
    before = wait_for_humans(client, game_id, tokens[me])
    again = make_client(db=db)  # a second server on the same file: replays from the store
    after = wait_for_humans(again, game_id, tokens[me])
    assert after["view"] == before["view"] and after["log"] == before["log"]


def test_a_full_position_is_accepted_with_the_seat_to_act_human(client):
    state = random_mid_game(seed=30)
    data, tokens = continue_from(client, state_to_json(state))
    assert list(tokens) == [state.current]
    seen = wait_for_humans(client, data["game_id"], tokens[state.current])
    assert seen["view"] == view_to_json(view_of(state, state.current))


def refused(client, body: dict, field: str, status: int = 422) -> dict:
    n = games_held(client)
    r = client.post("/v1/games", json=body)
    assert r.status_code == status, r.text
    assert r.json()["field"] == field, r.json()
    assert games_held(client) == n  # nothing stored
    return r.json()


def test_a_view_of_a_seat_not_to_act_is_refused_naming_view_of(client):
    state = random_mid_game(seed=8)
    other = (state.current + 1) % 3
    err = refused(client, {"position": view_to_json(view_of(state, other))},
                  "position.view_of")
    assert err["error"] == "not_to_act" and f"seat {state.current} is to act" in err["reason"]


def test_an_impossible_view_is_refused_naming_the_field(client):
    state = random_mid_game(seed=8)
    view = view_to_json(view_of(state, state.current))
    me = view["view_of"]
    twice = copy.deepcopy(view)
    twice["depot"][0] = twice["seats"][me]["highway"][0]  # one card in two places
    err = refused(client, {"position": twice}, "position.depot")
    assert twice["depot"][0] in err["reason"]
    crowded = copy.deepcopy(view)
    other = next(i for i in range(3) if i != me)
    crowded["seats"][other]["hand"]["count"] += 40  # more cards than its turns took
    err = refused(client, {"position": crowded}, f"position.seats[{other}].hand.count")
    assert err["reason"].endswith(f"got {crowded['seats'][other]['hand']['count']}")


def test_a_view_the_rules_forbid_is_refused_alike_for_scores_hints_and_games(client):
    """/v1/score and /v1/hint answered a view /v1/games refused (view_from_json skipped the
    Landmark and per-turn checks of a full position): each is 422 at the same field, named
    inside the body's position."""
    state = random_mid_game(seed=8)
    view = view_to_json(view_of(state, state.current))
    assert view["landmark_deck"]["count"] and view["landmark_row"]
    no_row = copy.deepcopy(view)  # the Landmark row empty while the Landmark deck has any
    no_row["landmark_deck"]["count"] += len(no_row["landmark_row"])
    no_row["landmark_row"] = []
    borrowing = copy.deepcopy(view)  # a use of another pile's top no Landmark grants
    borrowing["per_turn"]["resources_used"] = {"borrow_discard": 1}
    for bad, field in ((no_row, "landmark_row"),
                       (borrowing, "per_turn.resources_used.borrow_discard")):
        reasons = {refused(client, {"position": bad}, f"position.{field}")["reason"]}
        for route, body in (("/v1/score", {}), ("/v1/hint", {"budget": {"iterations": 5}})):
            r = client.post(route, json={"position": bad, **body})
            assert r.status_code == 422, (route, r.text)
            assert r.json()["field"] == f"position.{field}", (route, r.text)
            reasons.add(r.json()["reason"])
        assert len(reasons) == 1, reasons


@pytest.mark.parametrize("position,field", [
    (5, "position"),
    ({"format": "bigsur-view/1"}, "position.seats"),
    ({"format": "bigsur-nothing/1"}, "position.format"),
])
def test_malformed_positions_are_422_naming_the_field(client, position, field):
    refused(client, {"position": position}, field)


def test_a_finished_game_is_refused(client):
    rng = random.Random(2)
    state = new_game(2, seed=2)
    while state.phase != Phase.OVER:
        state = play(state, rng.choice(legal_actions(state)))
    err = refused(client, {"position": state_to_json(state)}, "position.phase")
    assert err["error"] == "game_over"


def test_seats_players_and_cards_must_fit_the_view(client):
    state = random_mid_game(seed=8)
    me = state.current
    view = view_to_json(view_of(state, me))
    two_humans = ["human"] * 3
    refused(client, {"position": view, "seats": two_humans},
            f"seats[{next(i for i in range(3) if i != me)}]")
    ai_me = ["random"] * 3
    refused(client, {"position": view, "seats": ai_me}, "seats")  # no human seat
    refused(client, {"position": view, "players": 2}, "players")
    refused(client, {"position": view, "cards": "default"}, "cards")
    refused(client, {"position": view, "seats": ["human", "mcts:1e3s", "random"]},
            "seats[1]")


def test_a_full_position_for_several_humans_is_refused_unless_chosen_deals_are_allowed(
        make_client):
    client = make_client(chosen_seeds="single-human")
    state = random_mid_game(seed=8)
    refused(client, {"position": state_to_json(state), "seats": ["human", "human", "random"]},
            "seats")


def test_the_seed_of_a_game_from_a_full_position_seeds_its_ai(client):
    """A full position hides nothing, so the seed draws no cards there: it seeds the AI
    seats' decisions (docs/api.md), the same seed replaying the same AI moves."""
    state = new_game(2, seed=3)
    seats = ["human", "human"]
    seats[state.current] = "random"  # the AI moves first, at creation

    def ai_moves(seed):
        data, tokens = continue_from(client, state_to_json(state), seed=seed, seats=seats)
        game = client.get(f"/v1/games/{data['game_id']}", headers=auth(next(iter(
            tokens.values())))).json()
        return [entry["action"] for entry in game["log"]]

    assert ai_moves(1) == ai_moves(1)
    assert len({tuple(ai_moves(seed)) for seed in (1, 2, 3, 4)}) > 1
