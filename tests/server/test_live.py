"""Against a real uvicorn process on a loopback port (started and stopped by the test):
a round trip with the process pool, and crash safety under kill -9.

Crash safety: games are played by a client thread while the server is killed (SIGKILL to
the server and its workers) at a random moment, several times. After each restart every
acknowledged action must still be in its game at the acknowledged index, the action in
flight at the kill is retried with its action id (applied once: fresh or a duplicate),
and every game goes on to its end. CI: 3 kills; BIGSUR_FULL=1: 20.
"""

from __future__ import annotations

import os
import random
import threading
import time

import httpx
import pytest

from server.launch import ServerProcess
from solver.cli import play_random_game
from solver.rules.actions import Build
from solver.rules.engine import legal_actions, new_game, play
from solver.rules.position import resolve_cards, state_to_json
from solver.rules.record import GameRecord

FULL = os.environ.get("BIGSUR_FULL") == "1"
KILLS = 20 if FULL else 3


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_for_humans(http: httpx.Client, game_id: str, token: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        data = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        if not data["ai_thinking"] or time.monotonic() > deadline:
            return data
        time.sleep(0.05)


def seed_with_build() -> int:
    return next(k for k in range(100) if any(isinstance(a, Build) for a in legal_actions(
        play(play(new_game(2, seed=k), "take deck"), "take deck"))))


def test_round_trip_on_a_real_server(tmp_path):
    env = {"BIGSUR_WORKERS": "1", "BIGSUR_DEFAULT_AI": "greedy"}
    with ServerProcess(tmp_path / "live.db", env, log=tmp_path / "server.log") as srv:
        http = httpx.Client(base_url=srv.url, timeout=60)
        assert http.get("/healthz").json()["workers"] == 1
        r = http.post("/v1/games", json={"players": 2, "seed": 17})
        assert r.status_code == 201, r.text
        game_id, token = r.json()["game_id"], r.json()["tokens"][0]["token"]
        data = wait_for_humans(http, game_id, token)
        assert data["your_turn"]
        hints = [http.post(f"/v1/games/{game_id}/hint", headers=auth(token),
                           json={"budget": {"iterations": 150}, "seed": 4}) for _ in range(2)]
        assert hints[0].status_code == 200, hints[0].text
        assert hints[0].json()["moves"] == hints[1].json()["moves"]  # seed + iterations
        assert "stats" in hints[0].json()
        r = http.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                      json={"action": hints[0].json()["moves"][0]["actions"][0]})
        assert r.status_code == 200, r.text
        assert "bigsur_requests_total" in http.get("/metrics").text
        # analysis and payment in the process pool too
        record = play_random_game(2, seed=3)
        record.actions = record.actions[:5]
        job = http.post("/v1/analyze", json={"record": record.to_json(),
                                             "budget": {"iterations": 20}}).json()
        deadline = time.monotonic() + 60
        while job["status"] not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.1)
            job = http.get(f"/v1/analyze/{job['job_id']}").json()
        assert job["status"] == "done", job
        assert len(job["result"]["decisions"]) == 5
        state = play(play(new_game(2, seed=seed_with_build()), "take deck"), "take deck")
        card = next(a.card for a in legal_actions(state) if isinstance(a, Build))
        r = http.post("/v1/payment", json={"position": state_to_json(state), "builds": [card]})
        assert r.status_code == 200 and r.json()["feasible"], r.text
        http.close()
    assert srv.proc is None


class Player(threading.Thread):
    """Plays random legal actions on every active game until told to stop or the server
    goes away; records what was acknowledged and what was in flight."""

    def __init__(self, url: str, games: dict, acked: dict, rng: random.Random):
        super().__init__(daemon=True)
        self.http = httpx.Client(base_url=url, timeout=30)
        self.games = games  # game_id -> {"tokens": {seat: token}, "over": bool}
        self.acked = acked  # game_id -> {index: applied action}
        self.rng = rng
        self.in_flight: tuple[str, str, dict] | None = None
        self.stopped = threading.Event()
        self.actions = 0

    def run(self):
        try:
            while not self.stopped.is_set():
                live = [g for g, info in self.games.items() if not info["over"]]
                if not live:
                    return
                game_id = self.rng.choice(live)
                tokens = self.games[game_id]["tokens"]
                data = wait_for_humans(self.http, game_id, next(iter(tokens.values())))
                if data["over"]:
                    self.games[game_id]["over"] = True
                    continue
                token = tokens[data["to_act"]]
                mine = self.http.get(f"/v1/games/{game_id}", headers=auth(token)).json()
                body = {"action": self.rng.choice(mine["legal_actions"]),
                        "action_id": f"{game_id}-{mine['actions_applied']}"}
                self.in_flight = (game_id, token, body)
                r = self.http.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                                   json=body)
                assert r.status_code == 200, r.text
                applied = r.json()["applied"]
                self.acked[game_id][applied["index"]] = applied["action"]
                self.in_flight = None
                self.actions += 1
        except (httpx.HTTPError, OSError):
            return  # the server was killed
        finally:
            self.http.close()


def new_games(http: httpx.Client, games: dict, acked: dict, rng: random.Random, n: int):
    lineups = [["human", "random"], ["human", "human", "greedy"], ["human", "human"]]
    for _ in range(n):
        seats = rng.choice(lineups)
        r = http.post("/v1/games", json={"players": len(seats), "seats": seats,
                                         "cards": "custom"})
        assert r.status_code == 201, r.text
        game_id = r.json()["game_id"]
        games[game_id] = {"tokens": {t["seat"]: t["token"] for t in r.json()["tokens"]},
                          "over": False}
        acked[game_id] = {}


def check_acknowledged(http: httpx.Client, games: dict, acked: dict) -> None:
    for game_id, info in games.items():
        seat, token = next(iter(info["tokens"].items()))
        data = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        log = {e["index"]: e for e in data["log"]}
        for index, action in acked[game_id].items():
            assert index in log, f"game {game_id}: acknowledged action {index} lost"
            entry = log[index]
            expect = action if entry["seat"] == seat else action.split(" pay ")[0]
            assert entry["action"] == expect, (game_id, index, entry, action)


@pytest.mark.slow
def test_kill_9_loses_no_acknowledged_action(tmp_path, custom_file):
    rng = random.Random(2024)
    env = {"BIGSUR_WORKERS": "1", "BIGSUR_CARDS": custom_file}
    db = tmp_path / "crash.db"
    games: dict = {}
    acked: dict = {}
    srv = ServerProcess(db, env, log=tmp_path / "server.log")
    in_flight = None
    for kill in range(KILLS + 1):
        srv.start()
        http = httpx.Client(base_url=srv.url, timeout=60)
        check_acknowledged(http, games, acked)
        if in_flight is not None:
            game_id, token, body = in_flight
            r = http.post(f"/v1/games/{game_id}/actions", headers=auth(token), json=body)
            assert r.status_code == 200, r.text  # applied once: fresh, or a duplicate
            applied = r.json()["applied"]
            acked[game_id][applied["index"]] = applied["action"]
        if sum(not g["over"] for g in games.values()) < 3:
            new_games(http, games, acked, rng, 3)
        if kill == KILLS:
            break
        player = Player(srv.url, games, acked, random.Random(rng.random()))
        player.start()
        time.sleep(rng.uniform(0.3, 1.2))
        srv.kill()
        player.join(30)
        in_flight = player.in_flight
        http.close()
    # the last start: every game continues to its end, records hold every ack
    player = Player(srv.url, games, acked, random.Random(1))
    player.run()
    http = httpx.Client(base_url=srv.url, timeout=60)
    check_acknowledged(http, games, acked)
    for game_id, info in games.items():
        token = next(iter(info["tokens"].values()))
        rec = http.get(f"/v1/games/{game_id}/record", headers=auth(token))
        assert rec.status_code == 200, rec.text
        raw = rec.json()
        record = GameRecord.from_json(raw, resolve_cards(raw["cards"]))  # strictly, as input
        record.replay()  # every action legal
        for index, action in acked[game_id].items():
            assert record.actions[index] == action
    http.close()
    srv.stop()
    assert sum(len(a) for a in acked.values()) > 10 * KILLS
