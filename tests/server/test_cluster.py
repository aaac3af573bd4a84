"""Searches on a Dask cluster (``BIGSUR_CLUSTER``, server/cluster.py): a local Dask
cluster started by the test (a scheduler on a loopback TCP port, its worker's threads in
this process) runs the server's hints, AI turns
and analysis decisions, within the server's deadlines; a search past its deadline is a
503 at the deadline, and its slot stays taken until it ends on the cluster."""

from __future__ import annotations

import time

import pytest
from session_testkit import auth, poll_job

from solver.cli import play_random_game
from solver.rules.engine import new_game, play
from solver.rules.position import state_to_json


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    local = LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                         protocol="tcp://", host="127.0.0.1", dashboard_address=None)
    yield local
    local.close()


def ran_on(cluster, name: str) -> bool:
    """Whether the cluster's scheduler has run tasks of the function ``name``."""
    prefix = cluster.scheduler.task_prefixes.get(name)
    return prefix is not None and sum(prefix.state_counts.values()) > 0


def test_hints_ai_turns_and_analysis_search_on_the_cluster(make_client, cluster):
    client = make_client(fake=False, cluster=cluster.scheduler_address, warm=True,
                         default_ai="greedy", max_budget_ms=5000, deadline_grace_ms=5000)
    assert client.get("/healthz").json()["workers"] == 2  # the cluster's threads
    position = state_to_json(play(new_game(2, seed=6), "take deck"))
    r = client.post("/v1/hint", json={"position": position, "budget": {"iterations": 80},
                                      "seed": 5})
    assert r.status_code == 200, r.text  # within its deadline (else a 503 "deadline")
    assert r.json()["stats"]["iterations"] == 80 and r.json()["moves"]
    assert ran_on(cluster, "hint_task")
    # a game against greedy: its turns are searched on the cluster too
    r = client.post("/v1/games", json={"players": 2, "seats": ["human", "greedy"],
                                       "seed": 3})
    assert r.status_code == 201, r.text
    game_id, token = r.json()["game_id"], r.json()["tokens"][0]["token"]
    data = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    r = client.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                    json={"action": data["legal_actions"][0]})
    assert r.status_code == 200, r.text
    assert ran_on(cluster, "bot_turn_task")
    # an analysis job: every decision reviewed on the cluster
    record = play_random_game(2, seed=3)
    record.actions = record.actions[:5]
    job = client.post("/v1/analyze", json={"record": record.to_json(),
                                           "budget": {"iterations": 20}})
    assert job.status_code == 202, job.text
    done = poll_job(client, job.json()["job_id"])
    assert done["status"] == "done" and len(done["result"]["decisions"]) == 5
    assert ran_on(cluster, "review_task")


def test_a_search_past_its_deadline_is_a_503_and_holds_its_slot_until_it_ends(
        make_client, cluster):
    client = make_client(fake=False, cluster=cluster.scheduler_address, cluster_slots=1,
                         warm=True, max_budget_ms=50, deadline_grace_ms=0,
                         queue_wait_seconds=0)
    assert client.get("/healthz").json()["workers"] == 1  # BIGSUR_CLUSTER_SLOTS
    position = state_to_json(play(new_game(2, seed=6), "take deck"))
    r = client.post("/v1/hint", json={"position": position, "budget": {"iterations": 3000},
                                      "seed": 1})
    assert r.status_code == 503 and r.json()["reason"].startswith("the hint did not finish "
                                                                  "within its deadline"), r.text
    # answered at the deadline, not when the search ends: it still runs on the cluster,
    # its slot is taken and a second hint is refused
    assert "bigsur_search_busy 1" in client.get("/metrics").text
    r = client.post("/v1/hint", json={"position": position, "budget": {"iterations": 10}})
    assert r.status_code == 503 and "busy" in r.json()["reason"], r.text
    assert "Retry-After" in r.headers
    deadline = time.monotonic() + 120
    while 'bigsur_search_busy 1' in client.get("/metrics").text:
        assert time.monotonic() < deadline, "the abandoned search never released its slot"
        time.sleep(0.1)
    r = client.post("/v1/hint", json={"position": position, "budget": {"iterations": 10}})
    assert r.status_code == 200 or r.json()["error"] == "deadline", r.text  # admitted
