"""Game sessions as an API client meets them: seeds a JavaScript client can read,
retries of an action while the AI thinks, action ids compared by the move they name,
ids of undone actions, and the log of an AI turn stopped by the server's shutdown."""

from __future__ import annotations

import asyncio
import threading

from session_testkit import BOTH_BACKENDS, auth, new_game, seed_where, to_build_step


def test_seeds_the_server_draws_survive_javascript_numbers(make_client):
    """JSON.parse in a browser reads numbers as doubles: an integer above 2**53 comes
    back rounded, and the page's check of sha256("SEED:SALT") fails."""
    client = make_client(max_games_per_client=40)
    store = client.app.state.store
    seeds = []
    for _ in range(30):
        r = client.post("/v1/games", json={"players": 2, "seats": ["human", "human"]})
        assert r.status_code == 201, r.text
        seeds.append(store.game(r.json()["game_id"]).seed)
    assert all(0 <= s < 2**53 for s in seeds), seeds
    assert len(set(seeds)) == len(seeds)
    chosen = 2**62 + 1  # a seed the client chooses keeps its full range
    game_id, _tokens = new_game(client, seats=["human", "human"], seed=chosen)
    assert store.game(game_id).seed == chosen


def act(client, game_id: str, token: str, action: str, action_id: str | None = None):
    body = {"action": action} if action_id is None else {"action": action,
                                                         "action_id": action_id}
    return client.post(f"/v1/games/{game_id}/actions", headers=auth(token), json=body)


def test_a_retried_action_is_answered_while_the_ai_still_thinks(make_client):
    """Ending the turn (id E1) starts the AI's turn, whose search holds the game; the
    client's retry of E1 was kept waiting for the whole search (the game's lock)."""
    client = make_client(ai_wait_seconds=0.1)
    search = client.app.state.search
    real_turn = search.bot_turn
    gate = threading.Event()
    searched: list[str] = []

    async def blocked_turn(*args, **kwargs):
        await asyncio.to_thread(gate.wait, 10)
        searched.append("turn")
        return await real_turn(*args, **kwargs)

    search.bot_turn = blocked_turn
    try:
        game_id, tokens = new_game(client, seats=["human", "random"], seed=seed_where())
        to_build_step(client, game_id, tokens[0])
        first = act(client, game_id, tokens[0], "end", "E1")
        assert first.status_code == 200, first.text
        assert first.json()["ai_thinking"] and not first.json()["applied"]["duplicate"]
        retry = act(client, game_id, tokens[0], "end", "E1")
        answered_before_search = not searched
    finally:
        gate.set()
    assert retry.status_code == 200, retry.text
    assert answered_before_search, "the retry waited for the AI's search"
    assert retry.json()["applied"] == {**first.json()["applied"], "duplicate": True}
    assert retry.json()["ai_thinking"]


def test_an_action_id_names_a_move_not_its_spelling(client):
    """The same move in other spacing or case (or in the applied form the server
    answered) is a duplicate; another move with the id is a conflict."""
    game_id, tokens = new_game(client, seats=["human", "human"], seed=seed_where())
    me = tokens[0]
    first = act(client, game_id, me, "take  deck", "t1")
    assert first.status_code == 200 and not first.json()["applied"]["duplicate"], first.text
    for same in ("take deck", "TAKE DECK", " Take\tDeck "):
        r = act(client, game_id, me, same, "t1")
        assert r.status_code == 200, (same, r.text)
        assert r.json()["applied"] == {**first.json()["applied"], "duplicate": True}
        assert r.json()["actions_applied"] == 1
    data = client.get(f"/v1/games/{game_id}", headers=auth(me)).json()
    other = next(a for a in data["legal_actions"] if a != "take deck")
    r = act(client, game_id, me, other, "t1")
    assert r.status_code == 409, r.text
    assert r.json()["error"] == "conflict" and r.json()["field"] == "action_id"
    assert "take  deck" in r.json()["reason"]
    r = act(client, game_id, me, "take the deck", "t1")  # no action at all: said so
    assert r.status_code == 422 and r.json()["field"] == "action", r.text
    assert client.get(f"/v1/games/{game_id}", headers=auth(me)).json()["actions_applied"] == 1


def test_a_build_retried_with_its_applied_payment_is_the_same_move(client):
    game_id, tokens = new_game(client, seats=["human", "random"], seed=seed_where())
    data = to_build_step(client, game_id, tokens[0])
    assert data["payments"], "the seed gives no buildable card: choose another"
    card = sorted(data["payments"])[0]
    first = act(client, game_id, tokens[0], f"build {card} L", "b1")
    assert first.status_code == 200, first.text
    applied = first.json()["applied"]["action"]
    assert " pay " in applied
    r = act(client, game_id, tokens[0], applied, "b1")
    assert r.status_code == 200 and r.json()["applied"]["duplicate"], r.text


@BOTH_BACKENDS
def test_the_id_of_an_undone_build_stays_used(make_client):
    """A late retry of an undone build (id b1) is refused, naming the undo, and not
    applied again; the same build with a new id is played."""
    client = make_client()
    game_id, tokens = new_game(client, seats=["human", "random"], seed=seed_where())
    me = tokens[0]
    data = to_build_step(client, game_id, me)
    assert data["payments"], "the seed gives no buildable card: choose another"
    build = f"build {sorted(data['payments'])[0]} L"
    r = act(client, game_id, me, build, "b1")
    assert r.status_code == 200, r.text
    n = r.json()["actions_applied"]
    r = client.post(f"/v1/games/{game_id}/undo", headers=auth(me))
    assert r.status_code == 200, r.text
    assert r.json()["actions_applied"] == n - 1
    for _ in range(2):
        r = act(client, game_id, me, build, "b1")
        assert r.status_code == 409, r.text
        assert r.json()["error"] == "conflict" and r.json()["field"] == "action_id"
        assert "undone" in r.json()["reason"], r.text
        data = client.get(f"/v1/games/{game_id}", headers=auth(me)).json()
        assert data["actions_applied"] == n - 1
    r = act(client, game_id, me, build, "b2")
    assert r.status_code == 200 and not r.json()["applied"]["duplicate"], r.text
    assert r.json()["actions_applied"] == n
    other = make_client()  # another process on the database (a restart: SQLite)
    r = act(other, game_id, me, build, "b1")
    assert r.status_code == 409 and "undone" in r.json()["reason"], r.text


def ai_first_game(client) -> str:
    """A game whose AI seat (seat 0) is to act; its id."""
    seed = seed_where()
    game_id, _tokens = new_game(client, seats=["random", "human"], seed=seed)
    return game_id


def ai_logs(caplog, game_id: str) -> list:
    return [r for r in caplog.records if r.name == "bigsur.server" and game_id in r.getMessage()]


def test_an_ai_turn_stopped_by_the_shutdown_is_one_info_line(make_client, caplog):
    client = make_client(ai_wait_seconds=0.1)

    async def endless_turn(*args, **kwargs):
        await asyncio.Event().wait()

    client.app.state.search.bot_turn = endless_turn
    caplog.set_level("INFO", logger="bigsur.server")
    game_id = ai_first_game(client)
    client.__exit__(None, None, None)  # the app's shutdown, the AI mid-turn
    records = ai_logs(caplog, game_id)
    assert [(r.levelname, r.exc_info) for r in records] == [("INFO", None)], records
    assert "stops with the server" in records[0].getMessage()


def fail_ai_turn_with_a_dead_worker(client, caplog, stopping: bool) -> list:
    """The AI's search worker dies mid-turn (as the signal stopping a service kills
    it), after the server was told it stops or not; the log records of the game."""
    from server.workers import WorkerDied

    gate = threading.Event()
    runner = client.app.state.search.runner

    async def dying(*_args, **_kwargs):
        await asyncio.to_thread(gate.wait, 10)
        raise WorkerDied()

    runner.run = dying
    caplog.set_level("INFO", logger="bigsur.server")
    games = client.app.state.games
    try:
        game_id = ai_first_game(client)
        if stopping:
            games.stop_asked()
    finally:
        gate.set()
    task = games.ai_tasks[game_id]
    for _ in range(1000):  # (a bound, not a timing: the task ends once the gate opens)
        if task.done():
            break
        threading.Event().wait(0.01)
    assert task.done()
    return ai_logs(caplog, game_id)


def test_a_search_worker_killed_by_the_servers_stop_is_one_info_line(make_client, caplog):
    records = fail_ai_turn_with_a_dead_worker(make_client(ai_wait_seconds=0.1), caplog,
                                              stopping=True)
    assert [(r.levelname, r.exc_info) for r in records] == [("INFO", None)], records
    assert "stops with the server" in records[0].getMessage()


def test_a_search_worker_dying_while_the_server_runs_stays_an_error(make_client, caplog):
    records = fail_ai_turn_with_a_dead_worker(make_client(ai_wait_seconds=0.1), caplog,
                                              stopping=False)
    assert [r.levelname for r in records] == ["ERROR"], records
    assert records[0].exc_info and "a search worker died" in str(records[0].exc_info[1])
