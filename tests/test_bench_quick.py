"""Every benchmark runs end to end in its --quick form and writes well-formed JSON.

The figures are not asserted (speed is measured, never tested); these tests prove the
benchmarks themselves work, so the long runs can be trusted to finish.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHES = ["engine", "payment", "strength", "search_diagnostics", "server", "vs_openspiel",
           "value_features",
           "server --scale-out"]


@pytest.mark.slow
@pytest.mark.parametrize("name", BENCHES)
def test_quick_benchmark_runs_and_writes_json(name, tmp_path):
    module, *extra = name.split()
    out = tmp_path / f"{module}.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", f"bench.{module}", "--quick", *extra,
                           "--out", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data, f"bench.{name} wrote an empty result"
    assert proc.stdout.strip(), f"bench.{name} printed no table"
    # every part says which learned evaluation and which code its figures came from
    from bench.common import code_version
    assert all("value_model" in part and part["commit"] == code_version()
               for part in data.get("parts", {}).values())


def _variants(cwd, *args: str) -> subprocess.CompletedProcess:
    """``python -m bench.variants ARGS`` in ``cwd``, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bench.variants", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_variant_benchmark_plays_the_variant_and_keeps_one_entry_per_variant(tmp_path):
    """bench.variants plays today's search with an override against itself and records
    the override; running the same variant again replaces its entry; ``--base-budget``
    (a ladder step) is an entry of its own, its opponent searching for that time."""
    out = tmp_path / "variants.json"
    for extra in ([], [], ["--base-budget", "0.01"]):
        proc = _variants(tmp_path, "c_uct=0.3", "--budget", "0.02", "--games", "2",
                         "--workers", "1", "--out", str(out), *extra)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
        assert "sign test p =" in proc.stdout
    runs = json.loads(out.read_text())["runs"]
    assert [(r["params"], r["base_budget_seconds"]) for r in runs] == [
        ({"c_uct": 0.3}, None), ({"c_uct": 0.3}, 0.01)]
    assert runs[0]["games"] == 2 and 0.0 <= runs[0]["win_rate"] <= 1.0
    from bench.common import code_version
    assert runs[0]["commit"] == code_version()
    assert "mcts:0.01s" in runs[1]["seconds_per_turn"]
    assert runs[1]["sign_test"]["wins"] + runs[1]["sign_test"]["losses"] + \
        runs[1]["sign_test"]["ties"] == 1


@pytest.mark.slow
def test_variant_benchmark_plays_a_table_of_more_players(tmp_path):
    """``--players 3`` seats variant, today, variant and every seating of a deal, and
    records the players (a 2-player entry of the same variant is kept beside it)."""
    out = tmp_path / "variants.json"
    for players in ("3", "2"):
        proc = _variants(tmp_path, "c_uct=0.3", "--budget", "0.02", "--games", "3",
                         "--workers", "1", "--players", players, "--out", str(out))
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    three, two = json.loads(out.read_text())["runs"]
    assert three["players"] == 3 and "players" not in two
    assert three["games_played"] == 3 and 0 <= three["today"]["win_rate"] <= 1
    assert three["sign_test"]["deals"] == 1  # 3 games: one deal, each of its 3 seatings


def test_kept_runs_of_another_commit_stay_next_to_the_new_one(tmp_path):
    """A result file keeps one entry per setting and code version: re-running a setting
    on the same commit replaces its entry, on another commit adds one."""
    from bench.common import keep_run

    out = tmp_path / "runs.json"
    key = ("params", "commit")
    for win_rate, commit in ((0.5, "aaaaaaa"), (0.6, "aaaaaaa"), (0.7, "bbbbbbb")):
        keep_run(out, {"params": {"c_uct": 0.3}, "commit": commit, "win_rate": win_rate}, key)
    keep_run(out, {"params": {"c_uct": 0.4}, "commit": "bbbbbbb", "win_rate": 0.4}, key)
    runs = json.loads(out.read_text())["runs"]
    assert [(r["commit"], r["win_rate"]) for r in runs] == [
        ("aaaaaaa", 0.6), ("bbbbbbb", 0.7), ("bbbbbbb", 0.4)]


def test_variant_benchmark_names_a_bad_budget_before_any_game():
    from bench.variants import main

    with pytest.raises(SystemExit, match="--base-budget: .*'-1s'"):
        main(["c_uct=0.3", "--budget", "0.02", "--base-budget", "-1", "--games", "2"])
    with pytest.raises(SystemExit, match="goes with --budget, not --iterations"):
        main(["c_uct=0.3", "--iterations", "5", "--base-budget", "0.1", "--games", "2"])


def test_variant_benchmark_names_a_bad_card_set_before_any_game(tmp_path):
    proc = _variants(tmp_path, "c_uct=0.3", "--cards", str(tmp_path / "absent.json"))
    assert proc.returncode != 0 and "--cards" in proc.stderr and "file not found" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_variant_benchmark_names_an_unknown_field():
    from bench.variants import parse_overrides

    with pytest.raises(SystemExit, match="'c_utc=0.3' is not NAME=VALUE"):
        parse_overrides(["c_utc=0.3"])
    assert parse_overrides(["root=uct", "race_z=2.5"]) == {"root": "uct", "race_z": 2.5}


@pytest.mark.slow
def test_hint_agreement_compares_with_the_saved_slow_tops(tmp_path):
    """bench.hint_agreement searches the saved hint positions and counts agreement with
    their slow tops, per phase; a second run of the same setting replaces its entry; a
    run's kept tops can be the reference of another (the same search agrees fully)."""
    out, tops = tmp_path / "agreement.json", tmp_path / "tops.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    base = [sys.executable, "-m", "bench.hint_agreement", "race_z=3.0", "--iterations", "40",
            "--positions", "3", "--workers", "1", "--out", str(out)]
    for extra in (["--keep-tops", str(tops)], [], ["--against", str(tops)], ["--again"]):
        proc = subprocess.run(base + extra, cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    runs = json.loads(out.read_text())["runs"]
    assert len(runs) == 3 and all(r["params"] == {"race_z": 3.0} for r in runs)
    again = [r for r in runs if r["again"]]
    assert [r["budget"] for r in again] == [{"iterations": 40}]  # --iterations is kept
    saved, own = sorted((r for r in runs if not r["again"]),
                        key=lambda r: r["against"] is not None)
    counts = saved["agreement"]
    assert counts["all"]["of"] == 3
    assert sum(v["of"] for k, v in counts.items() if k != "all") == 3
    assert 0 <= counts["all"]["agree"] <= counts["all"]["first"] <= 3
    assert own["agreement"]["all"] == {"agree": 3, "first": 3, "of": 3}
    assert sum(v["of"] for v in saved["by_place"].values()) == 3
    assert set(saved["by_place"]) <= {"earlier", "last"}
    assert len(json.loads(tops.read_text())) == 3


@pytest.mark.parametrize("players, turns, places", [
    (2, (0, 1, 2, 3), ("earlier", "last", "earlier", "last")),
    (3, (0, 1, 2, 5), ("earlier", "earlier", "last", "last")),
    (4, (2, 3, 4, 7), ("earlier", "last", "earlier", "last"))])
def test_round_place_marks_the_turn_that_ends_a_round(players, turns, places):
    """A round ends once every seat has had a turn (turn counts completed turns): the
    last of each n turns is the one a search held to the round sees no reply after."""
    from bench.hint_agreement import round_place
    from solver.rules.engine import new_game

    state = new_game(players, 3)
    found = []
    for turn in turns:
        state.turn = turn
        found.append(round_place(state))
    assert tuple(found) == places


def test_hint_agreement_names_unreadable_or_incomplete_kept_tops(tmp_path):
    """--against is checked before any search: a missing file or one without the
    positions' tops is a one-line error naming the option and the file."""
    from bench.hint_agreement import main

    with pytest.raises(SystemExit, match="--against .*nothing.json: cannot read"):
        main(["--against", str(tmp_path / "nothing.json"), "--positions", "2"])
    partial = tmp_path / "partial.json"
    partial.write_text("{}")
    with pytest.raises(SystemExit, match=r"no top for positions \[0, 1\]"):
        main(["--against", str(partial), "--positions", "2"])


def _variants_with(tmp_path, model: str, margin: float) -> Path:
    path = tmp_path / "variants.json"
    path.write_text(json.dumps({"runs": [
        {"params": {"value": model}, "budget_seconds": 1.0, "games": 200, "seed": 13,
         "win_rate": 0.5 + margin / 100, "win_ci": [0.4, 0.6], "margin": margin,
         "margin_ci": [margin - 4, margin + 4], "seconds_per_turn": {}, "finished": "x"}]}))
    return path


def test_ship_model_copies_the_model_and_keeps_the_previous_record(tmp_path):
    from bench.ship_model import ship
    from solver.rules.cards import load_card_set
    from solver.search.value import ValueModel

    model = tmp_path / "gen9.npz"
    nine = ValueModel.random(0, fingerprint=load_card_set().fingerprint)
    nine.meta["generation"] = 9
    nine.save(model)
    report = tmp_path / "gen9.json"
    report.write_text(json.dumps({"by_phase": [{"phase": "all", "margin_mae_model": 11.0}]}))
    record = tmp_path / "value-model.json"
    record.write_text(json.dumps({"generation": 8, "history": [{"generation": 7}]}))
    dest = tmp_path / "shipped.npz"
    kw = {"record": record, "dest": dest}
    with pytest.raises(SystemExit, match="no head-to-head"):
        ship(str(model), str(report), variants=tmp_path / "none.json", **kw)
    lost = _variants_with(tmp_path, str(model), -2.0)
    with pytest.raises(SystemExit, match="lost its head-to-head"):
        ship(str(model), str(report), variants=lost, **kw)
    assert not dest.exists()
    won = _variants_with(tmp_path, str(model), 3.0)
    entry = ship(str(model), str(report), variants=won, **kw)
    assert ValueModel.load(dest).meta["generation"] == 9
    saved = json.loads(record.read_text())
    assert saved == entry and saved["head_to_head"]["margin"] == 3.0
    assert [h["generation"] for h in saved["history"]] == [8, 7]
    # a generation measured but not shipped goes on record and leaves the shipped model
    level = tmp_path / "gen10.npz"
    ten = ValueModel.random(1, fingerprint=load_card_set().fingerprint)
    ten.meta["generation"] = 10
    ten.save(level)
    ship(str(level), str(report), variants=_variants_with(tmp_path, str(level), -0.5),
         record_only=True, **kw)
    assert ValueModel.load(dest).meta["generation"] == 9
    saved = json.loads(record.read_text())
    assert saved["generation"] == 9 and [g["generation"] for g in saved["not_shipped"]] == [10]


def test_ship_model_refuses_another_card_set(tmp_path):
    from bench.ship_model import ship
    from solver.search.value import ValueModel

    model = tmp_path / "other.npz"
    ValueModel.random(0, fingerprint="0" * 16).save(model)
    with pytest.raises(SystemExit, match="another card set"):
        ship(str(model), str(tmp_path / "r.json"), dest=tmp_path / "d.npz",
             record=tmp_path / "v.json")


def test_figures_record_the_value_model_in_use(tmp_path, monkeypatch):
    from bench.common import value_model
    from solver.rules.cards import load_card_set
    from solver.search import value as value_mod
    from solver.search.value import ValueModel

    cards = load_card_set()
    model = ValueModel.random(0, fingerprint=cards.fingerprint)
    model.meta.update(generation=5, games=10, policy="mcts:60i")
    model.save(tmp_path / "g5.npz")
    monkeypatch.setenv("BIGSUR_VALUE_MODEL", str(tmp_path / "g5.npz"))
    value_mod._shipped.cache_clear()
    try:
        assert value_model(cards) == {"generation": 5, "games": 10, "policy": "mcts:60i",
                                      "file": str(tmp_path / "g5.npz"),
                                      "trained_on_these_cards": True}
        other = ValueModel.random(0, fingerprint="0" * 16)
        other.save(tmp_path / "other.npz")
        monkeypatch.setenv("BIGSUR_VALUE_MODEL", str(tmp_path / "other.npz"))
        # the shipped model, trained on these cards, comes before another set's
        assert value_model(cards)["file"] == "shipped"
        assert value_model(cards)["trained_on_these_cards"]
        monkeypatch.setattr(value_mod, "SHIPPED_MODEL", tmp_path / "absent.npz")
        assert value_model(cards)["file"] == str(tmp_path / "other.npz")
        assert not value_model(cards)["trained_on_these_cards"]  # used as is
    finally:
        value_mod._shipped.cache_clear()


def test_reshuffled_card_sets_keep_the_stated_facts_and_the_totals():
    """bench.cardsets deals the set's attributes out anew: the same seed gives the same
    set, another seed another; decks, Mile values, Persistent Materials on 1-Mile cards,
    conditions on 2-Mile cards and every total stay; most cards change."""
    from collections import Counter

    from bench.cardsets import reshuffled
    from solver.rules.cards import load_card_set

    cards = load_card_set()
    one, again, two = reshuffled(cards, 1), reshuffled(cards, 1), reshuffled(cards, 2)
    assert one.fingerprint == again.fingerprint != two.fingerprint != cards.fingerprint
    assert one.reconstruction and "shuffled-1" in one.name
    for players in (2, 3, 4):
        assert len(one.deck_for(players)) == len(cards.deck_for(players))

    def totals(cs):
        hw = cs.highway
        return (Counter(c.miles for c in hw), Counter(s for c in hw for s in c.scenery),
                Counter(m for c in hw for m in c.cost), Counter(len(c.cost) for c in hw),
                Counter(c.material for c in hw), Counter(c.persistent for c in hw),
                Counter(lm.scenery for lm in cs.landmarks))

    assert totals(one) == totals(cards)
    assert all((c.miles == 1) == (c.persistent is not None) for c in one.highway)
    assert all((c.miles == 2) == (c.bonus is not None) for c in one.highway)
    moved = sum(a.scenery != b.scenery or a.cost != b.cost
                for a, b in zip(one.highway, cards.highway, strict=True))
    assert moved > len(cards.highway) // 2
    redrawn = reshuffled(cards, 1, redraw=True)
    assert "redrawn-1" in redrawn.name and redrawn.fingerprint != one.fingerprint
    assert totals(redrawn)[0] == totals(cards)[0]  # Mile values stay; the rest may move
    assert totals(redrawn)[1:3] != totals(cards)[1:3]
    assert [len(c.deck_for(n)) for c in (redrawn, cards) for n in (2, 3, 4)] == \
        [len(cards.deck_for(n)) for n in (2, 3, 4)] * 2


def test_variant_benchmark_plays_on_another_card_set_and_records_it(tmp_path):
    """``--cards`` plays the variant on that set and the entry records the set; the same
    variant on the default set stays a separate entry."""
    from bench.cardsets import reshuffled
    from solver.rules.cards import load_card_set

    other = reshuffled(load_card_set(), 3)
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other.to_json()))
    out = tmp_path / "variants.json"
    for extra in (["--cards", str(path)], []):
        proc = _variants(tmp_path, "c_uct=0.3", "--iterations", "5", "--games", "2",
                         "--workers", "1", "--out", str(out), *extra)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    runs = json.loads(out.read_text())["runs"]
    assert [r.get("cards", {}).get("fingerprint") for r in runs] == [other.fingerprint, None]


def test_reshuffled_sets_are_the_ones_the_results_name():
    """The card sets recorded in bench/results/variants.json come back, fingerprint and
    all, from ``python -m bench.cardsets`` with the seeds the docs give."""
    from bench.cardsets import reshuffled
    from solver.rules.cards import load_card_set

    cards = load_card_set()
    recorded = {r["cards"]["name"]: r["cards"]["fingerprint"]
                for r in json.loads((ROOT / "bench/results/variants.json").read_text())["runs"]
                if r.get("cards") and r["cards"]["name"].startswith(f"{cards.name}-")}
    assert recorded  # the transfer runs are kept
    for name, fingerprint in recorded.items():
        how, seed = name.rsplit("-", 2)[1:]
        assert reshuffled(cards, int(seed), redraw=how == "redrawn").fingerprint == fingerprint


def test_hints_part_searches_positions_of_the_players_asked_for():
    """``--hint-players 3`` takes its hint positions from 3-player games, and records it."""
    from bench.strength import configure, parse_args, part_hints
    from solver.rules.cards import load_card_set

    args = parse_args(["--quick", "--part", "hints", "--hint-players", "3", "--positions",
                       "2", "--hint-budgets", "0.02,0.05", "--workers", "1"])
    cfg = configure(args)
    result = part_hints(cfg["hints"], args, load_card_set())
    assert result["players"] == 3 and result["positions"] == 2
    assert [row["players"] for row in result["rows"]] == [3, 3]
    assert configure(parse_args(["--quick"]))["hints"]["players"] == 2


def test_hints_of_another_table_go_to_a_file_of_their_own(tmp_path, monkeypatch):
    """``--hint-players 3`` without ``--out`` leaves the 2-player goal's part alone."""
    import bench.strength as strength

    monkeypatch.setattr(strength, "RESULTS", tmp_path)
    strength.main(["--quick", "--part", "hints", "--hint-players", "3", "--positions", "1",
                   "--hint-budgets", "0.02,0.05", "--workers", "1"])
    saved = json.loads((tmp_path / "hints-3p-quick.json").read_text())
    assert saved["parts"]["hints"]["players"] == 3


@pytest.mark.parametrize("part", ["vs-greedy", "ladder"])
def test_strength_stops_when_every_game_failed_rather_than_write_nan(part, tmp_path,
                                                                    monkeypatch, capsys):
    """A part whose every game failed wrote ``"win_rate": NaN`` (not JSON) and a goal
    "not reached"; it stops with the first game's error and writes no figure."""
    import bench.strength as strength
    from solver.search.tournament import Summary

    error = {"kind": "crash", "bot": "mcts:0.02s", "seat": 0, "game": "deal 0 rotation 0",
             "action": None, "message": "out of ideas"}
    monkeypatch.setattr(strength, "run_tournament", lambda *a, **kw: Summary(
        [], 2, 0, 1, [error], "greedy"))
    out = tmp_path / "strength.json"
    with pytest.raises(SystemExit) as stop:
        strength.main(["--quick", "--part", part, "--out", str(out)])
    message = str(stop.value)
    assert "every game failed" in message and "crash of bot mcts:0.02s" in message, message
    assert "out of ideas" in message
    assert "ERROR crash" in capsys.readouterr().out  # the table with the failures
    assert not out.exists()


def test_a_clear_lead_is_read_as_the_pages_hint_reads_it():
    """The hints part says how often a fast search's clear lead (the race's paired test,
    as the page's hint reads it) agrees with the slow search: against the listed move
    least told apart, a move that scored alike every round left out, and never while a
    candidate waits unsearched."""
    from bench.strength import _clear_lead
    from solver.search.api import RankedMove, SearchResult
    from solver.search.ismcts import PairedGap

    def result(*moves):
        return SearchResult(0, [RankedMove(["end"], "", visits, 0.5, 0.0, None, [],
                                           versus_top=gap) for visits, gap in moves])

    clear, unclear = PairedGap(96, 12.0, True), PairedGap(96, 1.5, False)
    same = PairedGap(6, 0.0, False, alike=True)
    assert _clear_lead(result((96, None), (96, None))) is None  # no race
    assert _clear_lead(result((96, None), (96, clear))) is True
    assert _clear_lead(result((96, None), (96, clear), (96, unclear))) is False
    assert _clear_lead(result((96, None), (6, same), (96, clear))) is True
    assert _clear_lead(result((96, None), (6, same))) is False
    assert _clear_lead(result((96, None), (96, clear), (0, None))) is False  # unsearched
    # only the listed moves count (the page lists four)
    assert _clear_lead(result((96, None), (96, clear), (96, clear), (96, clear),
                              (96, unclear))) is True
