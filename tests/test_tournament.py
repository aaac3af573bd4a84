"""Tournaments: paired deals with rotated seats, reproducibility on any executor, the
statistics on synthetic results with independently known answers, clean reports of a
bot's illegal actions, and a run on a local Dask cluster."""

from __future__ import annotations

import json
import math
import random
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from solver.rules.actions import End
from solver.rules.record import GameRecord
from solver.rules.scoring import final_scores
from solver.search import bots as bots_module
from solver.search.bots import legal_from_view
from solver.search.tournament import (
    ELO_PER_NAT,
    GameResult,
    TournamentError,
    add_cli,
    bot_seed,
    cluster_executor,
    fit_bradley_terry,
    lineup_for,
    margins,
    rotations,
    run_tournament,
    schedule,
    sign_test,
    summarize,
    wilson,
    win_shares,
)

# ------------------------------------------------------------------ test-only bots


class FirstBot:
    """Always the first legal action: deterministic and different from random."""

    name = "first"

    def act(self, view, seed):
        return legal_from_view(view)[0]


class IllegalBot:
    """Plays randomly, then on its second turn tries to end the turn before taking."""

    name = "illegal"

    def act(self, view, seed):
        if view.me.turns >= 1:
            return End()
        return random.Random(seed).choice(legal_from_view(view))


class CrashBot:
    name = "crash"

    def act(self, view, seed):
        raise RuntimeError("out of ideas")


class TextBot:
    """Plays randomly, returning the action's text (play reads text too)."""

    name = "text"

    def act(self, view, seed):
        return random.Random(seed).choice(legal_from_view(view)).notation()


class ReturnsBot:
    """Returns a fixed non-action: None, a number, or text no action reads as."""

    returns: object = None
    name = "returns"

    def act(self, view, seed):
        return self.returns


@pytest.fixture
def test_bots(monkeypatch):
    for name, cls in (("first", FirstBot), ("illegal", IllegalBot), ("crash", CrashBot),
                      ("text", TextBot), ("returns", ReturnsBot)):
        monkeypatch.setitem(bots_module.BOT_FACTORIES, name, lambda arg, cls=cls: cls())


def threads():
    """Test-only bots live in this process, so they run on threads."""
    return ThreadPoolExecutor(max_workers=2)


def play(bots, small, players=2, games=4, seed=5, executor=None, **kw):
    with executor or threads() as ex:
        return run_tournament(bots, players, games, seed, small, executor=ex, progress=False,
                              bootstrap=200, **kw)


# ------------------------------------------------------------------ schedule


def test_lineup_and_rotations_put_every_bot_in_every_seat():
    assert lineup_for(["a", "b"], 4) == ("a", "b", "a", "b")
    assert lineup_for(["m", "g", "g", "g"], 4) == ("m", "g", "g", "g")
    with pytest.raises(TournamentError, match="3 specs for 2 seats"):
        lineup_for(["a", "b", "c"], 2)
    for lineup, expected in ((("a", "b"), 2), (("m", "g", "g", "g"), 4),
                             (("a", "b", "a", "b"), 2), (("x", "y", "z"), 3), (("r", "r"), 1)):
        rots = rotations(lineup)
        assert len(rots) == expected
        for bot in set(lineup):
            seats = {s for _r, seating in rots for s, b in enumerate(seating) if b == bot}
            assert seats == set(range(len(lineup))), (lineup, bot)


def test_schedule_uses_whole_deals_one_seed_per_deal(small):
    tasks = schedule(["random", "random"], 3, 7, seed=10, cards=small)
    assert len(tasks) == 7  # identical specs: one seating per deal
    tasks = schedule(["random"], 2, 3, seed=10, cards=small)
    assert [t.seed for t in tasks] == [10, 11, 12]
    with pytest.raises(TournamentError, match="games"):
        schedule(["random"], 2, 0, cards=small)
    with pytest.raises(TournamentError, match="players"):
        schedule(["random"], 5, 2, cards=small)
    with pytest.raises(TournamentError, match="unknown bot 'nope'"):
        schedule(["random", "nope"], 2, 2, cards=small)


def test_schedule_deals_seeds_the_service_takes(small):
    """Deal k uses seed S+k, so S and the last deal's seed are 0 to 2**63 - 1 (a record
    beyond is refused by the service's review), as selfplay's games."""
    from solver.rules.record import MAX_SEED

    tasks = schedule(["random", "greedy"], 2, 4, seed=MAX_SEED - 1, cards=small)
    assert max(t.seed for t in tasks) == MAX_SEED
    with pytest.raises(TournamentError, match=f"the last deal's seed would be {MAX_SEED + 1} "
                       r"\(2 deals\), more than"):
        schedule(["random", "greedy"], 2, 4, seed=MAX_SEED, cards=small)
    for seed in (-1, MAX_SEED + 1, True, 1.0, "3"):
        with pytest.raises(TournamentError, match=f"^seed: must be an integer 0 to {MAX_SEED}"):
            schedule(["random"], 2, 2, seed=seed, cards=small)


def test_paired_deals_rotate_seats_and_records_replay(small, test_bots, tmp_path):
    summary = play(["first", "random"], small, games=6, out=tmp_path)  # 3 deals x 2 seatings
    assert summary.games == 6 and summary.deals == 3 and not summary.failed
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "records").iterdir())]
    assert len(records) == 6
    by_deal: dict[int, list[dict]] = {}
    for raw in records:
        by_deal.setdefault(raw["meta"]["deal"], []).append(raw)
    for deal, games in by_deal.items():
        assert {g["seed"] for g in games} == {5 + deal}
        assert sorted(tuple(g["names"]) for g in games) == [("first", "random"),
                                                           ("random", "first")]
        for raw in games:  # every record replays (checked) to the scores it claims
            state = GameRecord.from_json(raw, small).replay()
            assert state.is_over
            totals = [s.total for s in final_scores(state).scores]
            assert totals == [s["total"] for s in raw["meta"]["result"]["scores"]]
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["games"] == 6 and {b["bot"] for b in saved["bots"]} == {"first", "random"}


def test_bot_seed_depends_on_every_part():
    base = bot_seed(1, 0, 0, 0)
    assert base == bot_seed(1, 0, 0, 0)
    others = {bot_seed(2, 0, 0, 0), bot_seed(1, 1, 0, 0), bot_seed(1, 0, 1, 0),
              bot_seed(1, 0, 0, 1)}
    assert base not in others and len(others) == 4
    assert 0 <= base < 2**63


def _games(summary_dir):
    return {p.name: json.loads(p.read_text()) for p in (summary_dir / "records").iterdir()}


def test_results_reproducible_across_executors_and_worker_counts(small, tmp_path):
    a = play(["random"], small, players=3, games=5, seed=3, out=tmp_path / "a")
    b = play(["random"], small, players=3, games=5, seed=3, out=tmp_path / "b",
             executor=ProcessPoolExecutor(max_workers=2))
    play(["random"], small, players=3, games=5, seed=4, out=tmp_path / "c")
    ga, gb, gc = _games(tmp_path / "a"), _games(tmp_path / "b"), _games(tmp_path / "c")
    assert ga == gb
    assert [g["actions"] for g in ga.values()] != [g["actions"] for g in gc.values()]
    assert a.stats("random").win_rate == b.stats("random").win_rate


# ------------------------------------------------------------------ statistics


def test_win_shares_and_margins():
    assert win_shares([10, 7]) == [1.0, 0.0]
    assert win_shares([9, 9, 3]) == [0.5, 0.5, 0.0]
    assert win_shares([4, 4, 4, 4]) == [0.25] * 4
    assert margins([10, 7, 12]) == [-2.0, -5.0, 2.0]
    assert margins([5, 5]) == [0.0, 0.0]


def test_wilson_matches_the_closed_form():
    # p = 1/2, n = 100: centre 1/2, half-width z*sqrt(1/400 + z^2/40000) / (1 + z^2/100)
    z = 1.959963984540054
    half = z * math.sqrt(0.25 / 100 + z * z / 40000) / (1 + z * z / 100)
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.5 - half) and hi == pytest.approx(0.5 + half)
    assert lo == pytest.approx(0.4038, abs=1e-4)
    lo, hi = wilson(20, 20)  # all wins: upper bound 1, lower bound n / (n + z^2)
    assert hi == 1.0 and lo == pytest.approx(20 / (20 + z * z))


def test_bradley_terry_recovers_known_strengths():
    # two bots, 60 of 100: the maximum-likelihood Elo gap is 400 log10(60/40)
    wins = np.array([[0, 60], [40, 0]], float)
    games = np.array([[0, 100], [100, 0]], float)
    r, se = fit_bradley_terry(wins, games, anchor=1, prior=0)
    assert r[0] * ELO_PER_NAT == pytest.approx(400 * math.log10(1.5), abs=1e-6)
    # standard error of a logit: 1 / sqrt(n p (1 - p))
    assert se[0] == pytest.approx(1 / math.sqrt(100 * 0.6 * 0.4))
    # three bots with exact expected results from strengths 0, 1, -0.5
    true = np.array([0.0, 1.0, -0.5])
    p = 1 / (1 + np.exp(true[None, :] - true[:, None]))
    games = np.full((3, 3), 1000.0) - np.diag([1000.0] * 3)
    r, _ = fit_bradley_terry(games * p, games, anchor=0, prior=0)
    assert r == pytest.approx(true, abs=1e-8)


def _result(deal, rotation, lineup, scores, error=None):
    return GameResult(deal, 100 + deal, rotation, tuple(lineup), list(scores),
                      [i for i, s in enumerate(scores) if s == max(scores)], {}, error,
                      [0.0] * len(lineup), [3] * len(lineup))


def test_a_bot_that_always_wins_is_rated_clearly_above():
    results = []
    for d in range(20):
        results.append(_result(d, 0, ["strong", "weak"], [20 + d % 3, 10]))
        results.append(_result(d, 1, ["weak", "strong"], [12, 19]))
    s = summarize(results, bootstrap=300, seed=1)
    strong, weak = s.stats("strong"), s.stats("weak")
    assert s.anchor == "strong" and strong.elo == 0.0  # first bot is the anchor
    assert strong.win_rate == 1.0 and weak.win_rate == 0.0
    assert strong.win_ci[0] > 0.5 > weak.win_ci[1]
    assert strong.win_ci[0] < 1.0  # the Wilson envelope keeps the interval honest
    assert weak.elo_ci[1] < 0 and weak.elo_ci[0] < weak.elo_ci[1]
    margins_strong = [20 + d % 3 - 10 for d in range(20)] + [7] * 20
    assert strong.margin == pytest.approx(np.mean(margins_strong))
    assert weak.margin == pytest.approx(-strong.margin)
    assert strong.margin_ci[0] <= strong.margin <= strong.margin_ci[1]


def test_even_results_with_ties_and_random_anchor():
    results = []
    for d in range(30):  # each deal: one win each, and every third deal a tie
        scores = [10, 10] if d % 3 == 0 else [12, 8]
        results.append(_result(d, 0, ["random", "x"], scores))
        results.append(_result(d, 1, ["x", "random"], scores))
    s = summarize(results, bootstrap=300, seed=2)
    assert s.anchor == "random"
    x = s.stats("x")
    assert x.win_rate == pytest.approx(0.5) and s.stats("random").win_rate == pytest.approx(0.5)
    assert x.elo == pytest.approx(0.0, abs=1e-6) and x.elo_ci[0] < 0 < x.elo_ci[1]
    assert x.margin == pytest.approx(0.0)
    assert s.games == 60 and s.deals == 30


def test_four_player_win_share_counts_seats():
    # one "m" against three "g": m wins 2 of 4 seatings per deal, one seating a 2-way tie
    results = []
    lineups = [["m", "g", "g", "g"], ["g", "m", "g", "g"], ["g", "g", "m", "g"],
               ["g", "g", "g", "m"]]
    for d in range(10):
        for r, lineup in enumerate(lineups):
            m = lineup.index("m")
            scores = [5, 6, 7, 8]
            if r < 2:
                scores[m] = 20
            elif r == 2:
                scores[m] = 8  # tied with the 8
            else:
                scores[m] = 1
            results.append(_result(d, r, lineup, scores))
    s = summarize(results, bootstrap=100, seed=3)
    m, g = s.stats("m"), s.stats("g")
    assert m.seats == 40 and g.seats == 120
    assert m.win_rate == pytest.approx((2 + 0.5) / 4)
    assert g.win_rate == pytest.approx((4 - 2.5) / 12)  # the rest, over three seats a game
    assert m.win_rate * 1 + g.win_rate * 3 == pytest.approx(1.0)


# ------------------------------------------------------------------ bots at fault


def test_illegal_action_is_reported_as_that_bots_error(small, test_bots):
    s = play(["illegal", "random"], small, games=4)
    assert len(s.failed) == 4 and s.games == 0
    for e in s.failed:
        assert e["kind"] == "illegal" and e["bot"] == "illegal" and e["action"] == "end"
        assert e["game"].startswith("deal ") and "rotation" in e["game"]
        assert "take" in e["message"]  # the engine's reason
    table = s.table()
    assert "ERROR illegal: bot illegal" in table and "action end" in table


def test_crashing_bot_is_reported_and_other_games_count(small, test_bots):
    s = play(["crash", "first", "random"], small, players=3, games=3)
    assert len(s.failed) == 3
    assert {e["bot"] for e in s.failed} == {"crash"} and all(e["kind"] == "crash"
                                                             for e in s.failed)
    assert "out of ideas" in s.failed[0]["message"]
    s = play(["first", "random"], small, games=2)
    assert not s.failed and s.games == 2


def test_a_bot_returning_action_text_plays_and_its_record_replays(small, test_bots,
                                                                  tmp_path):
    summary = play(["text", "random"], small, games=2, out=tmp_path)
    assert summary.games == 2 and not summary.failed
    for path in sorted((tmp_path / "records").iterdir()):
        assert GameRecord.from_json(json.loads(path.read_text()), small).replay().is_over


@pytest.mark.parametrize("returns, shown, words", [
    (None, None, "not an action: None"),
    (3, "3", "not an action: 3 (int)"),
    ("take nothing", "take nothing", "nothing"),
    ("build", "build", "build"),
])
def test_a_bot_returning_no_action_loses_only_that_game(small, test_bots, monkeypatch,
                                                        returns, shown, words):
    monkeypatch.setattr(ReturnsBot, "returns", returns)
    s = play(["returns", "random"], small, games=2)
    assert len(s.failed) == 2 and s.games == 0
    for e in s.failed:
        assert e["kind"] == "illegal" and e["bot"] == "returns" and e["action"] == shown
        assert words in e["message"]


def test_cli_prints_table_and_writes_summary(tmp_path, capsys):
    import argparse

    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers())
    out = tmp_path / "out"
    args = parser.parse_args(["tournament", "--bots", "random", "--players", "2", "--games",
                              "3", "--workers", "1", "--out", str(out), "--quiet", "--json"])
    assert args.func(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["games"] == 3 and printed["bots"][0]["bot"] == "random"
    assert len(list((out / "records").iterdir())) == 3
    args = parser.parse_args(["tournament", "--bots", "random", "--games", "2", "--workers",
                              "1", "--out", str(out), "--quiet", "--force"])  # (2nd run)
    assert args.func(args) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split()[:3] == ["bot", "seats", "win"]
    assert "random" in table and "2 games" in table
    bad = parser.parse_args(["tournament", "--bots", "nope"])
    assert bad.func(bad) == 2
    assert "unknown bot 'nope'" in capsys.readouterr().err
    bad = parser.parse_args(["tournament", "--bots", "random", "--cards", str(tmp_path / "x")])
    assert bad.func(bad) == 2
    assert "file not found" in capsys.readouterr().err


# ------------------------------------------------------------------ Dask


def test_local_dask_cluster_gives_the_local_results(small, tmp_path):
    """A real scheduler and two worker processes on this machine (no network beyond
    127.0.0.1): the same games as with local processes."""
    from distributed import LocalCluster

    local = play(["random"], small, players=2, games=4, seed=9, out=tmp_path / "local",
                 executor=ProcessPoolExecutor(max_workers=2))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        client, executor = cluster_executor(cluster.scheduler_address)  # as --cluster does
        try:
            summary = run_tournament(["random"], 2, 4, 9, small, executor=executor,
                                     out=tmp_path / "dask", progress=False, bootstrap=200)
            assert len(client.scheduler_info()["workers"]) == 2
        finally:
            client.close()
    assert _games(tmp_path / "dask") == _games(tmp_path / "local")
    assert summary.stats("random").margin == local.stats("random").margin
    assert summary.config["executor"] == "ClientExecutor"


def test_unreachable_cluster_is_a_clear_error():
    import socket

    with socket.socket() as sock:  # a port on this machine that nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TournamentError, match="cannot reach a Dask scheduler"):
        cluster_executor(f"tcp://127.0.0.1:{port}", timeout=1)


def test_sign_test_over_deals():
    results = []
    for d in range(10):  # "a" wins 8 deals outright, loses 1, 1 deal split
        if d < 8:
            pair = ([9, 1], [1, 9])
        elif d == 8:
            pair = ([1, 9], [9, 1])
        else:
            pair = ([9, 1], [9, 1])
        results.append(_result(d, 0, ["a", "b"], pair[0]))
        results.append(_result(d, 1, ["b", "a"], pair[1]))
    t = sign_test(results, "a", "b")
    assert (t["deals"], t["wins"], t["losses"], t["ties"]) == (10, 8, 1, 1)
    assert t["p_value"] == pytest.approx((1 + 9) / 2**9)  # P(X >= 8), X ~ Bin(9, 1/2)
    assert sign_test(results, "b", "a")["p_value"] > 0.99


def test_table_says_no_games_counted_for_bots_whose_every_game_failed(small, test_bots,
                                                                      tmp_path, monkeypatch,
                                                                      capsys):
    # the rows read "nan% [  0.0, 100.0]  +nan [  +nan,   +nan]  +0 [ +nan,  +nan]"
    import solver.search.tournament as tournament
    from solver.cli import main

    s = play(["illegal", "random"], small, games=2)
    assert s.games == 0 and len(s.failed) == 2
    monkeypatch.setattr(tournament, "run_tournament", lambda *args, **kwargs: s)
    assert main(["tournament", "--bots", "illegal,random", "--games", "2", "--quiet",
                 "--out", str(tmp_path / "t")]) == 1  # a bot failed: exit 1, as before
    table = capsys.readouterr().out
    assert "nan" not in table
    rows = {line.split()[0]: line.split() for line in table.splitlines()[2:4]}
    for bot in ("illegal", "random"):  # every game had the illegal bot in it
        assert rows[bot][1:7] == ["0", "no", "games", "counted", "—", "—"], rows[bot]
    assert "ERROR illegal: bot illegal" in table


def test_summary_json_is_strict_when_a_bot_never_finished(small, test_bots):
    s = play(["illegal", "random"], small, games=2)
    text = json.dumps(s.to_json(), allow_nan=False)  # raises on NaN / Infinity
    bots = {b["bot"]: b for b in json.loads(text)["bots"]}
    assert bots["illegal"]["seats"] == 0 and bots["illegal"]["win_rate"] is None
    # no counted game, no rating: elo was 0.0, the anchor's value, as if rated even
    for bot in ("illegal", "random"):
        assert bots[bot]["elo"] is None and bots[bot]["elo_ci"] == [None, None], bots[bot]


def test_sign_test_compares_win_share_per_seat_when_seats_differ():
    """With seats a, b, a (3 players) "a" sits twice as often as "b": a deal is won by
    the larger share per seat, not the larger total."""
    lineups = (["a", "b", "a"], ["b", "a", "a"], ["a", "a", "b"])
    results = []
    for d in range(2):
        for r, lineup in enumerate(lineups):
            # deal 0: "b" wins every game (per seat: b 1, a 0); deal 1: "a" wins 2 of 3
            # games (a total 2, per seat 1/3; b total 1, per seat 1/3): a tie
            winner = lineup.index("b") if d == 0 or r == 0 else lineup.index("a")
            results.append(_result(d, r, lineup, [9 if s == winner else 1 for s in range(3)]))
    t = sign_test(results, "a", "b")
    assert (t["wins"], t["losses"], t["ties"]) == (0, 1, 1)


def test_sign_test_counts_shared_wins_exactly_and_names_a_bot_that_never_sat():
    """A deal of three-way ties in every seating of a, b, a is a tie (1/3 shares summed
    without rounding error); a bot absent from every game is named, not a p of 1."""
    lineups = (["a", "b", "a"], ["b", "a", "a"], ["a", "a", "b"])
    results = [_result(0, r, lineup, [5, 5, 5]) for r, lineup in enumerate(lineups)]
    t = sign_test(results, "a", "b")
    assert (t["deals"], t["wins"], t["losses"], t["ties"]) == (1, 0, 0, 1)
    with pytest.raises(TournamentError, match="'mcts:1.0s' sat at no table"):
        sign_test(results, "a", "mcts:1.0s")
