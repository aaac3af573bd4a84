"""Several real ``bigsur serve`` processes (uvicorn, process pools) on one throwaway
PostgreSQL: clients spread the actions of the same games over every process at once (six clients on
the same few games: they often race for one game's next action).

Checked, per game, from the database: no acknowledged action lost, none applied twice
(every stored action is one client request, with its action id), none out of order (the
stored actions are at the indices they were acknowledged with, each client's actions in
the order it sent them, and the sequence replays legally from the game's seed). Midway
one process is killed with SIGKILL (server and workers): the clients retry what was in
flight on another process with the same action id, and the analysis job that process
held is taken over by another once its lease runs out, and finishes.

CI: 2 and 3 processes, 100 actions each; BIGSUR_FULL=1: 1,000 actions each.
"""

from __future__ import annotations

import itertools
import os
import random
import threading
import time

import httpx
import pytest
from session_testkit import auth

from server.errors import describe
from server.launch import ServerProcess
from server.store import Store, StoreUnavailable
from solver.cli import play_random_game
from solver.rules.engine import new_game, play

FULL = os.environ.get("BIGSUR_FULL") == "1"
ACTIONS = 1000 if FULL else 100
CLIENTS = 6
GAMES = max(6, ACTIONS // 40)  # a random 2-player game ends after about 70 actions
LEASE = 2.0
DECISIONS = 16  # of the analysis job cut short by the kill


class Client(threading.Thread):
    """Plays random legal actions on random games, each request to a random live
    process; a request whose answer is lost (process killed) is sent again, with the same
    action id, to another process until it is answered."""

    def __init__(self, k: int, servers: list[ServerProcess], games: dict, target: int,
                 acked: list, lock: threading.Lock, over: set):
        super().__init__(daemon=True)
        self.k = k
        self.servers = servers
        self.games = games
        self.over = over  # games seen over (shared by the clients)
        self.target = target
        self.acked = acked  # (game_id, index, action, action_id, client, sequence)
        self.lock = lock
        self.rng = random.Random(k)
        self.ids = itertools.count()
        self.error: BaseException | None = None
        self.retries = 0

    def request(self, method: str, path: str, **kw) -> httpx.Response:
        """Send to a random live process; on a lost answer (or a 5xx), to another."""
        for _attempt in range(100):
            live = [s for s in self.servers if s.proc is not None]
            server = self.rng.choice(live)
            try:
                r = httpx.request(method, server.url + path, timeout=60, **kw)
            except httpx.HTTPError:
                self.retries += 1
                time.sleep(0.05)
                continue
            if r.status_code >= 500:
                self.retries += 1
                time.sleep(0.05)
                continue
            return r
        raise AssertionError(f"{method} {path}: no answer in 100 attempts")

    def run(self) -> None:
        try:
            while len(self.acked) < self.target:
                live = [g for g in self.games if g not in self.over]
                assert live, f"every game ended after {len(self.acked)} actions"
                game_id = self.rng.choice(live)
                tokens = self.games[game_id]
                data = self.request("GET", f"/v1/games/{game_id}", headers=auth(tokens[0]))
                data = data.json()
                if data["over"]:
                    self.over.add(game_id)
                    continue
                seat = data["to_act"]
                mine = self.request("GET", f"/v1/games/{game_id}",
                                    headers=auth(tokens[seat])).json()
                if not mine["legal_actions"]:
                    continue  # another client moved meanwhile
                action_id = f"c{self.k}-{next(self.ids)}"
                r = self.request("POST", f"/v1/games/{game_id}/actions",
                                 headers=auth(tokens[seat]),
                                 json={"action": self.rng.choice(mine["legal_actions"]),
                                       "action_id": action_id})
                if r.status_code in (409, 422):
                    continue  # another client was first: refused, nothing applied
                assert r.status_code == 200, r.text
                applied = r.json()["applied"]
                with self.lock:
                    self.acked.append((game_id, applied["index"], applied["action"],
                                       action_id, self.k, len(self.acked)))
        except BaseException as err:  # noqa: BLE001 - reported by the test
            self.error = err


def check_games(url: str, games: dict, seeds: dict, acked: list) -> int:
    """Every stored action is one acknowledged request, at its acknowledged index, and
    the games replay legally. Returns the number of stored actions."""
    store = Store(url, 2)
    try:
        by_id = {}
        for game_id, index, action, action_id, k, seq in acked:
            assert action_id not in by_id or by_id[action_id][:3] == (game_id, index, action), \
                f"{action_id} acknowledged twice differently"
            by_id[action_id] = (game_id, index, action, k, seq)
        stored_total = 0
        for game_id in games:
            rows = store.actions(game_id)
            assert [a.idx for a in rows] == list(range(len(rows)))
            assert store.game(game_id).n_actions == len(rows)
            stored_total += len(rows)
            state = new_game(2, seeds[game_id])
            for a in rows:
                state = play(state, a.action)  # legal, in this order
                assert a.client_id in by_id, f"{game_id}[{a.idx}]: applied, never acked"
                assert by_id[a.client_id][:3] == (game_id, a.idx, a.action), \
                    f"{game_id}[{a.idx}]: not where it was acknowledged"
        acked_here = list(by_id.values())
        assert stored_total == len(acked_here), "an acknowledged action was lost"
        for k in range(CLIENTS):  # each client's actions of a game in the order sent
            for game_id in games:
                mine = [(seq, index) for g, index, _a, kk, seq in acked_here
                        if g == game_id and kk == k]
                indices = [index for _seq, index in sorted(mine)]
                assert indices == sorted(indices), (game_id, k, indices)
        return stored_total
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.parametrize("processes", [2, 3])
def test_processes_on_one_postgres_lose_duplicate_and_reorder_nothing(
        processes, postgres_cluster, tmp_path):
    url = postgres_cluster.create_database("scale")
    env = {"BIGSUR_WORKERS": "1", "BIGSUR_WARM": "0", "BIGSUR_CHOSEN_SEEDS": "any",
           "BIGSUR_MAX_GAMES_PER_CLIENT": "100", "BIGSUR_JOB_LEASE_SECONDS": str(LEASE),
           "BIGSUR_DB_POOL_SIZE": "4", "BIGSUR_CLIENT_QUEUED": "64"}
    servers = [ServerProcess(url, env, log=tmp_path / f"server{k}.log")
               for k in range(processes)]
    try:
        for s in servers:
            s.start()
        victim = servers[0]
        seeds, games = {}, {}
        for g in range(GAMES):
            r = httpx.post(servers[g % processes].url + "/v1/games", timeout=60,
                           json={"players": 2, "seats": ["human", "human"], "seed": 100 + g})
            assert r.status_code == 201, r.text
            body = r.json()
            games[body["game_id"]] = {t["seat"]: t["token"] for t in body["tokens"]}
            seeds[body["game_id"]] = 100 + g
        # an analysis job on the process about to die, long enough to be cut short
        record = play_random_game(2, seed=3)
        record.actions = record.actions[:DECISIONS]
        job = httpx.post(victim.url + "/v1/analyze", timeout=60,
                         json={"record": record.to_json(), "budget": {"ms": 250}}).json()
        acked: list = []
        lock = threading.Lock()
        over: set = set()
        clients = [Client(k, servers, games, ACTIONS, acked, lock, over)
                   for k in range(CLIENTS)]
        burst = time.monotonic()
        for c in clients:
            c.start()
        while all(c.is_alive() for c in clients):
            progress = httpx.get(f"{victim.url}/v1/analyze/{job['job_id']}", timeout=60).json()
            if len(acked) >= 10 and progress["progress"]["done"] >= 1:
                break
            time.sleep(0.05)
        assert progress["status"] == "running", progress  # cut short by the kill
        victim_pid = victim.pid()
        victim.kill()  # SIGKILL: the server and its search workers, mid-burst
        killed_at = len(acked)
        for c in clients:
            c.join(600)
        burst = time.monotonic() - burst
        for c in clients:
            assert c.error is None, repr(c.error)
            assert not c.is_alive()
        assert killed_at < len(acked) and len(acked) >= ACTIONS
        stored = check_games(url, games, seeds, acked)
        assert stored == len({a[3] for a in acked}) >= ACTIONS
        print(f"\n{processes} processes: {stored} actions stored = acknowledged in "
              f"{burst:.1f} s ({stored / burst:.1f}/s), {killed_at} before the kill, "
              f"{sum(c.retries for c in clients)} requests resent after a lost answer")
        # the job held by the killed process finishes on another one
        survivor = servers[1]
        deadline = time.monotonic() + 120
        while True:
            status = httpx.get(f"{survivor.url}/v1/analyze/{job['job_id']}", timeout=60).json()
            if status["status"] not in ("queued", "running") or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert status["status"] == "done", status
        assert len(status["result"]["decisions"]) == DECISIONS
        store = Store(url, 2)
        owner = store.job(job["job_id"])["owner"]
        store.close()
        assert owner is not None and f":{victim_pid}:" not in owner, owner
    finally:
        for s in servers:
            s.stop()


def test_a_database_that_stops_answering_is_a_503_not_a_500(postgres_cluster):
    """Connections refused (as when PostgreSQL is down or full): the store raises
    StoreUnavailable within its wait, the API answers 503 with Retry-After, and the
    store recovers by itself once the database is back."""
    url = postgres_cluster.create_database("outage")
    store = Store(url, 2, wait=1.0)
    name = url.rsplit("/", 1)[1]
    admin = Store(postgres_cluster.url(), 1)
    try:
        store.create_game("g", 2, 1, "default", ["human", "human"], ["a", "b"], "human")
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                    "datname = ? AND pid != pg_backend_pid()", (name,))
        with pytest.raises(StoreUnavailable) as err:  # after its wait, not a hang
            store.game("g")
        status, body, headers = describe(err.value)
        assert status == 503 and body["error"] == "unavailable" and "Retry-After" in headers
        assert "bigsur@" not in body["reason"]  # no connection details to clients
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        deadline = time.monotonic() + 30
        while True:
            try:
                assert store.game("g").n_actions == 0
                break
            except StoreUnavailable:
                assert time.monotonic() < deadline, "the store never reconnected"
                time.sleep(0.2)
    finally:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        admin.close()
        store.close()
