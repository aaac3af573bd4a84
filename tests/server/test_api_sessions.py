"""Game sessions as an API client meets them: seeds a JavaScript client can read,
retries of an action while the AI thinks, action ids compared by the move they name,
ids of undone actions, and the log of an AI turn stopped by the server's shutdown."""

from __future__ import annotations

from session_testkit import new_game


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
