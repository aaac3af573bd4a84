"""The store (server/store.py) on both backends: migrations, games and their actions,
concurrent writers, analysis jobs and their leases, stored card sets. The PostgreSQL
runs use a throwaway cluster (see conftest.py)."""

from __future__ import annotations

import random
import threading
import time

import pytest
from session_testkit import BOTH_BACKENDS

from server.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Conflict,
    LimitReached,
    Store,
    StoreError,
    redact,
)

pytestmark = BOTH_BACKENDS

SEATS = ["human", "random"]


@pytest.fixture
def store(db_target):
    s = Store(db_target)
    yield s
    s.close()


def test_a_new_database_gets_every_migration_and_a_second_open_none(db_target):
    store = Store(db_target)
    assert store.schema_version() == SCHEMA_VERSION == MIGRATIONS[-1].version
    assert [m.version for m in MIGRATIONS] == list(range(1, SCHEMA_VERSION + 1))
    assert store.migrate() == []
    store.close()
    again = Store(db_target)
    assert again.schema_version() == SCHEMA_VERSION
    again.close()


def test_a_newer_schema_is_refused_naming_both_versions(db_target):
    store = Store(db_target)
    store.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION + 1),))
    store.close()
    with pytest.raises(StoreError, match=f"schema {SCHEMA_VERSION + 1}, newer than this "
                       f"server's {SCHEMA_VERSION}"):
        Store(db_target)


def test_each_migration_step_brings_an_older_database_up(db_target):
    """Build the database of every older version by its own steps, add a game, and let
    the store migrate it: the game survives and the counts are right."""
    for old in range(1, SCHEMA_VERSION):
        store = Store(db_target)
        store.backend.close()
        backend = type(store.backend)(*([db_target] if store.dialect == "sqlite"
                                        else [db_target, 2]))
        with backend.transaction() as tx:  # start again from nothing
            for table in ("meta", "job_reviews", "jobs", "game_counts", "actions",
                          "undone_actions", "cardsets", "games"):
                tx.execute(f"DROP TABLE IF EXISTS {table}" +
                           (" CASCADE" if store.dialect == "postgres" else ""))
            if store.dialect == "postgres":
                tx.execute("DROP FUNCTION IF EXISTS bigsur_count_games")
            tx.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            for step in MIGRATIONS[:old]:
                backend.run_script(tx, getattr(step, store.dialect))
            tx.execute("INSERT INTO meta VALUES ('schema', ?)", (str(old),))
            tx.execute("INSERT INTO games (id, created, updated, players, seed, cards, seats, "
                       "token_hashes, status, n_actions) VALUES "
                       "('old', 0, 0, 2, 7, '\"default\"', '[\"human\", \"random\"]', "
                       "'[null, null]', 'ai', 0)")
        backend.close()
        upgraded = Store(db_target)
        assert upgraded.schema_version() == SCHEMA_VERSION, old
        row = upgraded.game("old")
        assert (row.seed, row.status, row.creator, row.seed_chosen) == (7, "ai", None, False)
        assert upgraded.counts() == {"ai": 1}
        upgraded.close()


def test_games_actions_and_counts(store):
    store.create_game("g", 2, 2**63 - 1, "default", SEATS, ["h", None], "human",
                      creator="c", salt="ab", commitment="cd", seed_chosen=True)
    row = store.game("g")
    assert (row.seed, row.seats, row.token_hashes, row.creator, row.seed_chosen) == \
        (2**63 - 1, SEATS, ["h", None], "c", True)
    assert store.game("nope") is None and row.start is None
    start = {"format": "bigsur-position/1", "turn": 3}
    store.create_game("from-position", 2, 1, "default", SEATS, ["h", None], "human",
                      start=start)
    assert store.game("from-position").start == start
    assert store.delete_game("from-position")
    updated = store.append_action("g", 0, 0, "take deck", "take deck", "id-1", "ai")
    assert store.game("g").updated == updated and store.game("g").n_actions == 1
    with pytest.raises(Conflict):  # index 0 is taken
        store.append_action("g", 0, 0, "take deck", "take deck", None, "ai")
    with pytest.raises(Conflict):  # seat 0 used id-1 already
        store.append_action("g", 1, 0, "take deck", "take deck", "id-1", "ai")
    store.append_action("g", 1, 1, "take deck", "take deck", "id-1", "human")  # other seat
    assert [(a.idx, a.seat, a.client_id) for a in store.actions("g")] == \
        [(0, 0, "id-1"), (1, 1, "id-1")]
    assert [a.idx for a in store.actions("g", 1)] == [1]
    assert store.client_action("g", 1, "id-1").idx == 1
    assert store.counts() == {"human": 1}
    assert store.drop_last_action("g", 2, "human") and store.game("g").n_actions == 1
    assert not store.drop_last_action("g", 2, "human")  # moved on meanwhile
    assert store.delete_game("g") and store.game("g") is None and store.counts() == {}


def test_game_counts_kept_by_triggers_match_a_full_count(store):
    rng = random.Random(5)
    ids = [f"g{k}" for k in range(60)]
    for k, game_id in enumerate(ids):
        store.create_game(game_id, 2, k, "default", SEATS, ["h", None],
                          rng.choice(["human", "ai"]))
    for game_id in ids[:40]:
        store.append_action(game_id, 0, 0, "take deck", "take deck", None,
                            rng.choice(["human", "ai", "over"]))
    for game_id in ids[::7]:
        assert store.delete_game(game_id)
    full = dict(store.query("SELECT status, count(*) FROM games GROUP BY status"))
    assert store.counts() == full


def test_limits_hold_under_concurrent_creators(db_target):
    """Eight threads, each with its own store (its own connections, as separate server
    processes have), create games against a limit of 10: exactly 10 exist."""
    refused = []

    def create(k: int) -> None:
        s = Store(db_target, 2)
        try:
            for j in range(5):
                try:
                    s.create_game(f"g{k}-{j}", 2, j, "default", SEATS, ["h", None], "human",
                                  creator=f"c{k}", max_active=10, max_per_creator=5)
                except LimitReached as err:
                    refused.append(err.what)
        finally:
            s.close()

    Store(db_target).close()  # migrate once
    threads = [threading.Thread(target=create, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check = Store(db_target)
    assert check.counts() == {"human": 10} and len(refused) == 30
    assert set(refused) == {"games"}
    check.close()


def test_concurrent_appends_to_one_game_keep_one_order(db_target):
    """Four writers with their own connections append to one game, each replaying
    after a Conflict: every index is taken once, the actions are in order, none lost."""
    Store(db_target).close()
    setup = Store(db_target)
    setup.create_game("g", 2, 1, "default", SEATS, ["h", None], "human")
    setup.close()
    won: list[tuple[int, str]] = []
    lock = threading.Lock()

    def writer(name: str) -> None:
        s = Store(db_target, 2)
        try:
            mine = 0
            while mine < 25:
                n = s.game("g").n_actions
                try:
                    s.append_action("g", n, 0, f"{name}-{mine}", "x", f"{name}-{mine}",
                                    "human")
                except Conflict:
                    continue
                with lock:
                    won.append((n, f"{name}-{mine}"))
                mine += 1
        finally:
            s.close()

    threads = [threading.Thread(target=writer, args=(f"w{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check = Store(db_target)
    stored = [(a.idx, a.action) for a in check.actions("g")]
    assert sorted(won) == stored and [i for i, _ in stored] == list(range(100))
    for k in range(4):  # each writer's own actions in its order
        own = [a for _i, a in stored if a.startswith(f"w{k}-")]
        assert own == [f"w{k}-{j}" for j in range(25)]
    assert check.game("g").n_actions == 100
    check.close()


def job(store: Store, job_id: str, owner: str | None, lease: float = 30.0, **limits):
    store.create_job(job_id, "client", 3, {"ms": 10}, 5, None, {"record": 1},
                     limits.get("max_active", 10), limits.get("max_per_client", 10),
                     owner, lease)


def test_job_life_and_limits(store):
    job(store, "j1", "a")
    with pytest.raises(LimitReached) as err:
        job(store, "j2", "a", max_per_client=1)
    assert err.value.what == "client"
    assert store.job("j1")["status"] == "queued" and store.active_jobs() == 1
    assert store.job_record("j1") == {"record": 1}
    assert store.save_review("j1", 0, {"r": 0}, 1, "a")
    assert store.save_review("j1", 0, {"r": "again"}, 1, "a")  # a retried decision
    assert not store.save_review("j1", 1, {"r": 1}, 2, "b")  # not b's job
    assert store.job_reviews("j1") == {0: {"r": "again"}}
    assert store.job("j1")["status"] == "running"
    assert not store.finish_job("j1", "done", {"x": 1}, None, "b")
    assert store.finish_job("j1", "done", {"x": 1}, None, "a")
    assert store.job("j1")["result"] == {"x": 1} and store.job_reviews("j1") == {}
    assert not store.cancel_job("j1", {"error": "cancelled"})  # finished already
    assert store.purge_jobs(time.time() + 1) == 1 and store.job("j1") is None


def test_job_leases(store):
    job(store, "held", "a", lease=30)
    job(store, "lapsed", "a", lease=0.01)
    job(store, "free", None)
    time.sleep(0.05)
    assert store.claimable_jobs("b") == ["lapsed", "free"]
    assert not store.claim_job("held", "b", 30)  # a holds it
    assert store.claim_job("lapsed", "b", 30) and store.claim_job("free", "b", 30)
    assert not store.claim_job("lapsed", "c", 30)  # b was first
    assert store.renew_leases("a", 30, ["held"]) == {"held"}
    assert store.renew_leases("b", 30, ["lapsed", "free"]) == {"lapsed", "free"}
    assert store.claimable_jobs("c") == []
    assert store.claimable_jobs("b") == ["lapsed", "free"]  # its own (it skips its running)
    assert store.claimable_jobs("c", take_over=True) == ["held", "lapsed", "free"]
    assert store.claim_job("held", "c", 30, take_over=True)  # a restart of the only process
    assert store.renew_leases("a", 30, ["held"]) == set()
    store.cancel_job("free", {"error": "cancelled"})
    assert store.renew_leases("b", 30, ["lapsed", "free"]) == {"lapsed"}  # cancelled elsewhere
    # only the jobs b still runs are renewed: one whose task ended (an outage) runs out
    assert store.claim_job("lapsed", "b", 0.01)
    time.sleep(0.05)
    assert store.renew_leases("b", 30, []) == set()
    assert store.claimable_jobs("d") == ["lapsed"]
    assert store.claim_job("lapsed", "b", 30)
    assert store.release_jobs("b") == 1 and store.claimable_jobs("d") == ["lapsed"]


def test_exactly_one_of_many_claimers_gets_a_job(db_target):
    setup = Store(db_target)
    for k in range(20):
        job(setup, f"j{k}", None, max_active=100, max_per_client=100)
    setup.close()
    got: dict[str, list[str]] = {}
    lock = threading.Lock()

    def claimer(owner: str) -> None:
        s = Store(db_target, 2)
        try:
            for job_id in s.claimable_jobs(owner):
                if s.claim_job(job_id, owner, 30):
                    with lock:
                        got.setdefault(job_id, []).append(owner)
        finally:
            s.close()

    threads = [threading.Thread(target=claimer, args=(f"p{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == sorted(f"j{k}" for k in range(20))
    assert all(len(owners) == 1 for owners in got.values()), got


def test_cardsets(store):
    store.add_cardset("mine", "Mine", 1, "fp1", '{"a": 1}', max_stored=2)
    store.add_cardset("mine", "Mine", 2, "fp2", '{"a": 2}', max_stored=2)
    with pytest.raises(Conflict):
        store.add_cardset("mine", "Mine", 2, "fp2", "{}", max_stored=5)
    with pytest.raises(LimitReached):
        store.add_cardset("other", "Other", 1, "fp", "{}", max_stored=2)
    assert [r[1] for r in store.cardset_versions("mine")] == [1, 2]
    assert [r[:3] for r in store.cardsets_latest()] == [("Mine", 2, "fp2")]
    assert store.cardset_versions("mine", 1)[0][4] == '{"a": 1}'


def test_a_bad_target_is_a_clear_error(db_target, tmp_path):
    if db_target.startswith("postgresql://"):
        url = db_target.rsplit(":", 1)[0].replace("bigsur@", "bigsur:s3cret@") + ":1/none"
        with pytest.raises(StoreError, match=r"cannot connect to PostgreSQL at "
                           r"postgresql://bigsur:\*\*\*@127.0.0.1:1/none") as err:
            Store(url)
        assert "s3cret" not in str(err.value)
    else:
        junk = tmp_path / "junk.db"
        junk.write_bytes(b"not a database" * 100)
        with pytest.raises(StoreError, match="cannot open"):
            Store(str(junk))
    assert redact("postgresql://u:p@h/d") == "postgresql://u:***@h/d"

