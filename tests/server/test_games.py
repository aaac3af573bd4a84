"""Play sessions through TestClient: tokens, turns, idempotence, AI seats, records,
restarts (AI seats are real random/greedy bots; hints use the fake search)."""

from __future__ import annotations

import random
import time

from session_testkit import BOTH_BACKENDS, auth, new_game, play_out, wait_for_humans

from solver.rules.engine import new_game as engine_new_game
from solver.rules.engine import play
from solver.rules.position import state_to_json
from solver.rules.record import GameRecord
from solver.rules.scoring import final_scores
from solver.rules.views import view_of, view_to_json

pytestmark = BOTH_BACKENDS  # sessions exercise the store: run on SQLite and PostgreSQL

def test_create_returns_long_random_tokens_for_human_seats_only(client):
    r = client.post("/v1/games", json={"players": 3, "seats": ["human", "random", "human"],
                                        "seed": 4})
    assert r.status_code == 201, r.text
    body = r.json()
    assert [t["seat"] for t in body["tokens"]] == [0, 2]
    tokens = [t["token"] for t in body["tokens"]]
    assert len(set(tokens)) == 2 and all(len(t) >= 22 for t in tokens)  # >= 128 bits
    assert [s["kind"] for s in body["seats"]] == ["human", "ai", "human"]
    assert "reconstruction" in body["card_set"]


def test_seat_validation(client):
    cases = [({"players": 2, "seats": ["human"]}, "seats"),
             ({"players": 2, "seats": ["random", "random"]}, "seats"),
             ({"players": 2, "seats": ["human", "wizard"]}, "seats[1]"),
             ({"players": 2, "seats": ["human", "mcts:600s"]}, "seats[1]"),
             ({"players": 2, "seats": ["human", "mcts:999999999i"]}, "seats[1]"),
             ({"players": 5}, "players"),
             ({"players": 2, "cards": "nope"}, "cards")]
    for body, field in cases:
        r = client.post("/v1/games", json=body)
        assert r.status_code == 422, (body, r.text)
        assert r.json()["field"] == field, (body, r.json())


def test_tokens_are_checked(client):
    game_id, tokens = new_game(client, seats=["human", "random"], seed=3)
    other_id, other_tokens = new_game(client, seats=["human", "random"], seed=3)
    assert client.get(f"/v1/games/{game_id}").status_code == 401
    assert client.get(f"/v1/games/{game_id}", headers=auth("x" * 32)).status_code == 403
    r = client.get(f"/v1/games/{game_id}", headers=auth(other_tokens[0]))
    assert r.status_code == 403 and r.json()["field"] == "authorization"
    assert client.get("/v1/games/nope", headers=auth(tokens[0])).status_code == 404
    assert client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).status_code == 200


def test_a_seat_sees_its_view_and_legal_actions(client):
    game_id, tokens = new_game(client, seats=["human", "human"], seed=21)
    truth = engine_new_game(2, seed=21)
    for seat in (0, 1):
        data = client.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json()
        assert data["view"] == view_to_json(view_of(truth, seat))
        assert data["your_turn"] == (truth.current == seat)
        assert bool(data["legal_actions"]) == (truth.current == seat)


def test_turns_and_idempotence(client):
    game_id, tokens = new_game(client, seats=["human", "human"], seed=21)
    first = engine_new_game(2, seed=21).current
    me, other = tokens[first], tokens[1 - first]
    r = client.post(f"/v1/games/{game_id}/actions", headers=auth(other),
                    json={"action": "take deck"})
    assert r.status_code == 409 and r.json()["error"] == "not_your_turn"
    body = {"action": "take deck", "action_id": "c-1"}
    r1 = client.post(f"/v1/games/{game_id}/actions", headers=auth(me), json=body)
    r2 = client.post(f"/v1/games/{game_id}/actions", headers=auth(me), json=body)
    assert r1.status_code == r2.status_code == 200
    assert r1.json()["applied"] == {"index": 0, "action": "take deck", "duplicate": False}
    assert r2.json()["applied"] == {"index": 0, "action": "take deck", "duplicate": True}
    assert r2.json()["actions_applied"] == 1
    r3 = client.post(f"/v1/games/{game_id}/actions", headers=auth(me),
                     json={"action": "end", "action_id": "c-1"})
    assert r3.status_code == 409 and r3.json()["field"] == "action_id"
    r4 = client.post(f"/v1/games/{game_id}/actions", headers=auth(me),
                     json={"action": "build H01 L"})
    assert r4.status_code == 422 and r4.json()["error"] == "illegal_action"



def test_an_action_id_of_the_wrong_length_is_named_in_characters(client):
    """Old code: 'Value should have at most 100 items after validation, not 101' (the
    lengths were checked on the optional, not on the string)."""
    from server.schemas import ActionRequest

    limits = ActionRequest.model_json_schema()["properties"]["action_id"]["anyOf"][0]
    game_id, tokens = new_game(client, seats=["human", "human"], seed=21)
    for action_id, words in (("a" * (limits["maxLength"] + 1),
                              f"at most {limits['maxLength']} characters"),
                             ("", f"at least {limits['minLength']} character")):
        r = client.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[0]),
                        json={"action": "take deck", "action_id": action_id})
        assert r.status_code == 422 and r.json()["field"] == "action_id", r.text
        assert words in r.json()["reason"] and "items" not in r.json()["reason"], r.text

def test_full_game_against_ai_and_its_record(client, rng):
    game_id, tokens = new_game(client, seats=["human", "greedy"], seed=8)
    r = client.get(f"/v1/games/{game_id}/record", headers=auth(tokens[0]))
    assert r.status_code == 409
    final = play_out(client, game_id, tokens, rng)
    assert final["over"] and final["result"]["winners"]
    rec = client.get(f"/v1/games/{game_id}/record", headers=auth(tokens[0])).json()
    record = GameRecord.from_json(rec)
    state = record.replay()
    assert [s.total for s in final_scores(state).scores] == \
        [s["total"] for s in final["result"]["scores"]]
    assert rec["names"] == ["human", "greedy"] and rec["seed"] == 8
    assert len(record.actions) == final["actions_applied"]
    # the log shows my own actions in full and the AI's builds without payment
    for entry in final["log"]:
        full = record.actions[entry["index"]]
        if entry["seat"] == 0:
            assert entry["action"] == full
        else:
            assert entry["action"] == full.split(" pay ")[0]


def test_every_build_in_the_log_says_what_all_seats_saw_it_pay(client, rng):
    """Another seat's build is logged without its payment, yet every seat sees how many
    hand cards it discarded (the pile grows by their backs) and which of them it knew
    (taken face up). Each build says so (``cards_spent``, ``known_spent``), so the page
    can follow a seat's hand and discard at each of its builds, not at its turn's end."""
    game_id, tokens = new_game(client, seats=["human", "greedy"], seed=8)
    final = play_out(client, game_id, tokens, rng)
    record = GameRecord.from_json(
        client.get(f"/v1/games/{game_id}/record", headers=auth(tokens[0])).json())
    ids = [c.id for c in record.cards.highway]
    builds = {}
    for i, (before, action) in enumerate(record.states()):
        if action is not None and action.notation().startswith("build "):
            then, now = before.players[before.current], play(before, action).players[
                before.current]
            known = sorted(ids[c] for c in then.known_hand - now.known_hand
                           if ids[c] != action.card)
            builds[i] = (len(now.discard) - len(then.discard), known)
    logged = {e["index"]: (e["cards_spent"], sorted(e["known_spent"]))
              for e in final["log"] if e["action"].startswith("build ")}
    assert logged == builds
    assert {e["seat"] for e in final["log"] if e["index"] in builds} == {0, 1}
    assert any(spent for spent, _ in builds.values())  # (or the test proves little)
    assert any(known for _, known in builds.values())
    assert all(e["cards_spent"] is None for e in final["log"] if e["index"] not in builds)


def test_a_seats_own_deck_takes_name_the_card_drawn_and_no_other_seats_do(make_client, rng):
    """A player who drew from the deck knows the card: its log says which (``drawn``),
    after a restart too (the game replayed from the store), while another seat's deck
    take stays a bare 'take deck'."""
    client = make_client()
    game_id, tokens = new_game(client, seats=["human", "random"], seed=12)
    final = play_out(client, game_id, tokens, rng)
    record = GameRecord.from_json(
        client.get(f"/v1/games/{game_id}/record", headers=auth(tokens[0])).json())
    ids = [c.id for c in record.cards.highway]
    drawn = {i: (before.current, ids[before.deck[-1]])
             for i, (before, action) in enumerate(record.states())
             if action is not None and action.notation() == "take deck"}
    logged = {e["index"]: e["drawn"] for e in final["log"] if e["action"] == "take deck"}
    assert logged == {i: card if seat == 0 else None for i, (seat, card) in drawn.items()}
    assert {seat for seat, _ in drawn.values()} == {0, 1}  # (or the test proves little)
    client.__exit__(None, None, None)
    again = make_client()  # the same database: the game is replayed on use
    assert again.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["log"] == \
        final["log"]


def test_ai_first_plays_before_create_returns(client):
    for seed in range(20):
        if engine_new_game(2, seed=seed).current == 1:
            break
    game_id, tokens = new_game(client, seats=["human", "random"], seed=seed)
    data = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
    assert data["your_turn"] and data["actions_applied"] >= 3
    assert all(e["seat"] == 1 for e in data["log"])


def test_session_hint_uses_only_the_seats_view(client, fake_search):
    game_id, tokens = new_game(client, seats=["human", "human"], seed=30)
    truth = engine_new_game(2, seed=30)
    seat = truth.current
    r = client.post(f"/v1/games/{game_id}/hint", headers=auth(tokens[1 - seat]), json={})
    assert r.status_code == 409
    r = client.post(f"/v1/games/{game_id}/hint", headers=auth(tokens[seat]),
                    json={"budget": {"iterations": 10}, "seed": 2})
    assert r.status_code == 200, r.text
    view, budget, seed = fake_search.calls[-1]
    assert view_to_json(view) == view_to_json(view_of(truth, seat))
    assert r.json()["position_kind"] == "view"


def test_restart_resumes_games(make_client):
    rng = random.Random(5)
    client = make_client()
    game_id, tokens = new_game(client, seats=["human", "random"], seed=41)
    for _ in range(5):
        data = wait_for_humans(client, game_id, tokens[0])
        r = client.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[0]),
                        json={"action": rng.choice(data["legal_actions"])})
        assert r.status_code == 200
    before = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
    client.__exit__(None, None, None)
    again = make_client()  # the same database
    after = again.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
    assert after["view"] == before["view"] and after["log"] == before["log"]
    final = play_out(again, game_id, tokens, rng)
    assert final["over"]


def test_startup_resumes_an_interrupted_ai(make_client, db_target):
    """A game stored with an AI to act (as a crash mid-AI-turn leaves it) is played on
    by the next start, before anyone asks."""
    from server.store import Store, token_hash

    db = db_target
    seed = next(s for s in range(50) if engine_new_game(2, seed=s).current == 1)
    store = Store(db)
    store.create_game("g1", 2, seed, "default", ["human", "random"],
                      [token_hash("t" * 32), None], "ai")
    store.close()
    client = make_client()
    deadline = time.monotonic() + 30
    while 'bigsur_games{status="ai"} 0' not in client.get("/metrics").text:
        assert time.monotonic() < deadline, "the AI was not resumed"
        time.sleep(0.02)
    data = client.get("/v1/games/g1", headers=auth("t" * 32)).json()
    assert data["your_turn"] and not data["ai_thinking"] and data["actions_applied"] >= 3


def test_games_beyond_the_memory_cap_are_replayed_on_use(make_client, rng):
    client = make_client(max_live_games=2)
    games = [new_game(client, seats=["human", "random"], seed=50 + k) for k in range(4)]
    views = {}
    for game_id, tokens in games:
        data = wait_for_humans(client, game_id, tokens[0])
        r = client.post(f"/v1/games/{game_id}/actions", headers=auth(tokens[0]),
                        json={"action": rng.choice(data["legal_actions"])})
        assert r.status_code == 200, r.text
        views[game_id] = wait_for_humans(client, game_id, tokens[0])
    service = client.app.state.games
    assert len(service.live) <= 2
    for game_id, tokens in games:  # evicted ones come back identical, from the store
        assert wait_for_humans(client, game_id, tokens[0]) == views[game_id]


def test_a_seats_view_can_be_posted_for_a_hint(make_client, custom_file):
    """What the web page does: the view of GET /v1/games/{id}, as is, to /v1/hint."""
    client = make_client(cards=custom_file)
    game_id, tokens = new_game(client, seats=["human", "human"], seed=5, cards="custom")
    for token in tokens.values():
        data = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        if data["your_turn"]:
            assert data["view"]["cards"] == "custom"  # named, not sent inline
            r = client.post("/v1/hint", json={"position": data["view"]})
            assert r.status_code == 200, r.text
            assert sorted(m["actions"][0] for m in r.json()["moves"]) == \
                sorted(data["legal_actions"])


def test_build_step_offers_the_cheapest_payment_of_each_buildable_card(client):
    """The seat response lists, in its own build step, the payment the engine would use
    for each buildable hand card (and nothing to the other seat); building with it is
    legal."""
    game_id, tokens = new_game(client, seats=["human", "human"], seed=5)
    checked = 0
    for _turn in range(8):
        to_act = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["to_act"]
        mine, idle = auth(tokens[to_act]), auth(tokens[1 - to_act])
        assert client.get(f"/v1/games/{game_id}", headers=mine).json()["payments"] is None
        for _ in range(2):
            r = client.post(f"/v1/games/{game_id}/actions", headers=mine,
                            json={"action": "take deck"})
            assert r.status_code == 200, r.text
        data = client.get(f"/v1/games/{game_id}", headers=mine).json()
        assert client.get(f"/v1/games/{game_id}", headers=idle).json()["payments"] is None
        buildable = {a.split()[1] for a in data["legal_actions"] if a.startswith("build")}
        assert set(data["payments"]) == buildable
        if buildable:
            card = sorted(buildable)[0]
            offer = data["payments"][card]
            assert offer["cards_spent"] <= len(offer["steps"]) * 3
            r = client.post(f"/v1/games/{game_id}/actions", headers=mine,
                            json={"action": f"build {card} L pay {' '.join(offer['steps'])}"})
            assert r.status_code == 200, r.text
            checked += 1
        r = client.post(f"/v1/games/{game_id}/actions", headers=mine, json={"action": "end"})
        assert r.status_code == 200, r.text
    assert checked > 0


def test_past_positions_of_a_finished_game(client):
    game_id, tokens = new_game(client, seats=["human", "random"], seed=9)
    assert client.get(f"/v1/games/{game_id}/positions/0",
                      headers=auth(tokens[0])).status_code == 409
    final = play_out(client, game_id, tokens, random.Random(9))
    record = client.get(f"/v1/games/{game_id}/record", headers=auth(tokens[0])).json()
    n = len(record["actions"])
    rec = GameRecord.from_json(record)
    for k in (0, n // 2, n):
        r = client.get(f"/v1/games/{game_id}/positions/{k}", headers=auth(tokens[0]))
        assert r.status_code == 200, r.text
        expected = GameRecord(rec.cards, rec.players, seed=rec.seed,
                              actions=rec.actions[:k]).replay()
        assert r.json() == state_to_json(expected)
    assert final["over"]
    r = client.get(f"/v1/games/{game_id}/positions/{n + 1}", headers=auth(tokens[0]))
    assert r.status_code == 422 and r.json()["field"] == "n"
    assert client.get(f"/v1/games/{game_id}/positions/1").status_code == 401
    # n is a count in digits, as the body's strict n of /v1/replay (old code: 1.0 was 1)
    for text in ("1.0", "+1", "1_0", "%201", "-1"):
        r = client.get(f"/v1/games/{game_id}/positions/{text}", headers=auth(tokens[0]))
        assert r.status_code == 422 and r.json()["field"] == "n", (text, r.text)
        assert r.json()["reason"].startswith("must be a whole number of actions"), r.text
