"""Bad input and odd use of the ``bigsur`` commands (not play/serve): one line naming what
is wrong and exit status 2 (or 1), never a traceback; Ctrl-C ends quietly and soon."""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from solver.cli import main, play_random_game
from solver.rules.engine import new_game
from solver.rules.position import state_to_json


def error_line(capsys) -> str:
    """The one error line a command printed on stderr."""
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bigsur: error: "), err
    return lines[0]


@pytest.fixture
def record_file(tmp_path):
    path = tmp_path / "game.json"
    play_random_game(2, seed=1).save(path)
    return path


@pytest.fixture
def position_file(tmp_path):
    path = tmp_path / "position.json"
    path.write_text(json.dumps(state_to_json(new_game(2, seed=3))), encoding="utf-8")
    return path


# ------------------------------------------------------------------ files


@pytest.mark.parametrize("argv", [
    ["score", "{f}"], ["replay", "{f}"], ["verify", "{f}"], ["cards", "show", "{f}"],
    ["score", "{p}", "--cards", "{f}"], ["analyze", "{f}", "--no-progress"],
])
def test_a_deeply_nested_json_file_is_one_line_naming_the_file(argv, tmp_path, position_file,
                                                              capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    argv = [a.format(f=deep, p=position_file) for a in argv]
    assert main(argv) == 2
    line = error_line(capsys)
    assert "deep.json" in line and "nested too deeply" in line


@pytest.mark.parametrize("argv", [
    ["replay", "{f}"], ["replay", "{f}", "--at", "0"], ["verify", "{f}"],
    ["analyze", "{f}", "--no-progress"],
])
def test_a_file_of_the_wrong_format_is_named_as_a_json_error_names_it(argv, tmp_path,
                                                                     position_file, capsys):
    # 'bigsur replay bad.json' said "format: must be 'bigsur-record/1' (missing)" and
    # 'bigsur analyze pos.json' "format: must be 'bigsur-record/1', got 'bigsur-position/1'",
    # while 'bad.txt: not valid JSON' names the file
    fair = {"commitment": hashlib.sha256(b"1:s").hexdigest(), "seed": 1, "salt": "s"}
    bad = tmp_path / "bad.json"  # a fair deal (for verify), no format
    bad.write_text(json.dumps({"seed": 1, "meta": {"fairness": fair}}), encoding="utf-8")
    for path, wanted in ((bad, "format: must be "),
                         (position_file, "got 'bigsur-position/1'")):
        assert main([a.format(f=path) for a in argv]) == 2
        line = error_line(capsys)
        assert line.startswith(f"bigsur: error: {path}: format: must be "), line
        assert wanted in line, line


@pytest.mark.parametrize("argv", [
    ["score", "{f}"], ["hint", "{f}", "--iterations", "10", "--json"],
    ["pay", "{f}", "--build", "H1:L"],
])
def test_a_position_file_with_a_bad_field_is_named_as_a_record_file_is(argv, tmp_path,
                                                                      position_file, capsys):
    # 'bigsur score bad.json' said "current: must be ..." where 'bigsur replay bad.json'
    # says 'bad.json: format: ...' (cli.load_record)
    good = json.loads(position_file.read_text(encoding="utf-8"))
    bad = tmp_path / "bad.json"
    for change, field in (({"format": "bogus"}, "format"), ({"current": 9}, "current"),
                          ({"cards": 5}, "cards")):
        bad.write_text(json.dumps({**good, **change}), encoding="utf-8")
        assert main([a.format(f=bad) for a in argv]) == 2
        line = error_line(capsys)
        assert line.startswith(f"bigsur: error: {bad}: {field}: must be "), line


def _own_card_set(tmp_path):
    """A card set of another fingerprint than the shipped one ("mine": a Landmark renamed),
    written to mine.json, and the shipped set written to default.json."""
    import copy

    from solver.rules.cards import load_card_set, parse_card_set

    raw = copy.deepcopy(load_card_set().to_json())
    raw.update(name="mine")
    raw["landmarks"][0]["name"] += " as printed"
    (tmp_path / "mine.json").write_text(json.dumps(raw), encoding="utf-8")
    (tmp_path / "default.json").write_text(json.dumps(load_card_set().to_json()),
                                           encoding="utf-8")
    return parse_card_set(raw), load_card_set()


@pytest.mark.parametrize("argv", [
    ["score", "{p}"], ["hint", "{p}", "--iterations", "5", "--json"],
    ["pay", "{p}", "--build", "H1:L"],
])
def test_a_position_with_its_own_cards_refuses_other_cards_given(argv, tmp_path, capsys):
    """`bigsur hint pos.json --cards default.json` where the position carries its own set
    searched it on the other cards, which changed its legal moves unsaid ('Build H02'
    gone); `bigsur replay` refused the same mismatch. A set named only by its name takes
    --cards."""
    mine, default = _own_card_set(tmp_path)
    position = tmp_path / "pos.json"
    raw = state_to_json(new_game(2, seed=3, cards=mine))
    assert isinstance(raw["cards"], dict)  # the set inline
    position.write_text(json.dumps(raw), encoding="utf-8")
    command = [a.format(p=position) for a in argv]
    assert main([*command, "--cards", str(tmp_path / "default.json")]) == 2
    assert error_line(capsys) == (
        f"bigsur: error: {position}: cards: the position was made with 'mine' fingerprint "
        f"{mine.fingerprint}, but the cards given (--cards {tmp_path / 'default.json'}) are "
        f"'default' fingerprint {default.fingerprint}: leave out --cards to use the "
        "position's own")
    if argv[0] == "pay":
        return  # (its build is a made-up one: pay's own words for it are not this test's)
    assert main([*command, "--cards", str(tmp_path / "mine.json")]) == 0  # the same set
    capsys.readouterr()
    for named in ({**mine.identity(), "fingerprint": default.fingerprint}, "mine"):
        position.write_text(json.dumps({**raw, "cards": named}), encoding="utf-8")
        wanted = 2 if isinstance(named, dict) else 0  # a fingerprint is compared, a name not
        assert main([*command, "--cards", str(tmp_path / "mine.json")]) == wanted, named
        capsys.readouterr()


@pytest.mark.parametrize("argv", [
    ["score", "{p}"], ["hint", "{p}", "--iterations", "5"], ["pay", "{p}", "--build", "H1:L"],
])
def test_a_position_naming_a_stored_set_says_to_give_its_file(argv, tmp_path, capsys):
    """The position editor's file of a set stored on the server names it ("cards":
    "qa-cards"); `bigsur hint` said 'cards: must be "default" or a card set object',
    naming neither the set nor --cards FILE, with which it works."""
    mine, _ = _own_card_set(tmp_path)
    position = tmp_path / "pos.json"
    raw = {**state_to_json(new_game(2, seed=3, cards=mine)), "cards": "mine"}
    position.write_text(json.dumps(raw), encoding="utf-8")
    assert main([a.format(p=position) for a in argv]) == 2
    assert error_line(capsys) == (
        f"bigsur: error: {position}: cards: the position's cards are the set named 'mine', "
        "which this tool does not have: give its file with --cards FILE")
    if argv[0] != "pay":
        assert main([*(a.format(p=position) for a in argv), "--cards",
                     str(tmp_path / "mine.json")]) == 0


def test_cards_validate_of_a_deeply_nested_file_lists_the_problem(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("{\"a\":" * 50_000 + "1" + "}" * 50_000, encoding="utf-8")
    assert main(["cards", "validate", str(deep)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "nested too deeply" in err


@pytest.mark.parametrize("command", ["replay", "verify", "analyze"])
def test_a_record_seed_of_thousands_of_digits_is_one_line(command, record_file, capsys):
    raw = json.loads(record_file.read_text())
    raw["seed"] = "9" * 5000
    commitment = hashlib.sha256(f"{raw['seed']}:ab".encode()).hexdigest()
    raw["meta"] = {"fairness": {"commitment": commitment, "seed": raw["seed"], "salt": "ab"}}
    record_file.write_text(json.dumps(raw))
    argv = [command, str(record_file)] + (["--no-progress"] if command == "analyze" else [])
    assert main(argv) == 2
    assert error_line(capsys).startswith(f"bigsur: error: {record_file}: seed: must be an "
                                         "integer")


@pytest.mark.parametrize("argv", [
    ["score", "{f}"], ["replay", "{f}"], ["verify", "{f}"], ["cards", "show", "{f}"],
    ["score", "{p}", "--cards", "{f}"],
])
def test_a_json_number_of_thousands_of_digits_is_one_line_naming_the_file(argv, tmp_path,
                                                                         position_file, capsys):
    big = tmp_path / "big.json"
    big.write_text('{"format": "bigsur-record/1", "seed": ' + "9" * 5000 + "}",
                   encoding="utf-8")
    assert main([a.format(f=big, p=position_file) for a in argv]) == 2
    line = error_line(capsys)
    assert "big.json: not valid JSON (" in line and "digits" in line


@pytest.mark.parametrize("argv, option, started", [
    (["analyze", "game.json", "--no-progress", "--html", "old.html"], "--html", "review"),
    (["analyze", "game.json", "--no-progress", "--png", "old.png"], "--png", "review"),
    (["analyze", "game.json", "--no-progress", "--json", "old.json"], "--json", "review"),
    (["train", "--games", "2", "--out", "old.npz"], "--out", "self-play"),
    (["train", "--games", "2", "--out", "m.npz", "--save-data", "old.npz"], "--save-data",
     "self-play"),
    (["train", "--games", "2", "--out", "m.npz", "--report", "old.json"], "--report",
     "self-play"),
    (["play", "--ai", "random", "--save", "old.json"], "--save", "game"),
    (["selfplay", "--seed", "4", "--games", "3", "--out", "."], "", "games"),
])
def test_a_command_writing_files_refuses_an_existing_one_unless_force(
        argv, option, started, tmp_path, no_selfplay, monkeypatch, capsys):
    """`bigsur analyze` (and train, selfplay, play --save) wrote over their outputs without a
    word: a user running it again lost the earlier report. Every command that writes files
    does as replay --out and cards import: an existing file is refused before the work,
    in one line, unless --force."""
    import solver.cli as cli
    import solver.report as report
    import solver.terminal as terminal

    monkeypatch.chdir(tmp_path)
    play_random_game(2, seed=1).save("game.json")
    forbid(monkeypatch, report, "analyse_record", "the review")
    forbid(monkeypatch, terminal, "play_game", "the game")
    forbid(monkeypatch, cli, "_random_game", "the games")
    old = argv[argv.index(option) + 1] if option else "game-5.json"  # selfplay's second
    (tmp_path / old).write_text("the earlier run's")
    assert main(argv) == 2
    assert error_line(capsys) == (f"bigsur: error: {option + ' ' if option else ''}{old} "
                                  "exists (use --force to overwrite)")
    assert (tmp_path / old).read_text() == "the earlier run's"
    assert sorted(os.listdir(tmp_path)) == sorted(["game.json", old])  # nothing else
    with pytest.raises(AssertionError, match=f"the {started} was started"):
        main([*argv, "--force"])  # past the check, the work starts


def test_a_tournament_refuses_to_write_over_an_earlier_runs_summary_unless_force(
        tmp_path, no_games, capsys):
    """`bigsur tournament --out DIR` wrote over an earlier run's summary.json and records
    without a word, as the other commands did before they refused (with --force)."""
    (tmp_path / "summary.json").write_text("the earlier run's")
    argv = ["tournament", "--bots", "random", "--games", "2", "--quiet", "--out",
            str(tmp_path)]
    assert main(argv) == 2
    assert error_line(capsys) == (f"bigsur: error: --out {tmp_path / 'summary.json'} exists "
                                  "(use --force to overwrite)")
    assert (tmp_path / "summary.json").read_text() == "the earlier run's"
    with pytest.raises(AssertionError, match="the tournament was started"):
        main([*argv, "--force"])  # past the check, the games start


def test_a_tournament_bot_of_more_iterations_than_a_search_may_run_is_refused(
        tmp_path, no_games, capsys):
    argv = ["tournament", "--bots", "mcts:1000001i,random", "--games", "2", "--quiet",
            "--out", str(tmp_path / "t")]
    assert main(argv) == 2
    assert error_line(capsys) == ("bigsur: error: --bots: 1000001 iterations exceeds the "
                                  "limit of 1000000")


# ------------------------------------------------------------------ selfplay


@pytest.mark.parametrize("players", ["1", "5", "-2"])
def test_selfplay_players_out_of_range_names_the_option_and_writes_nothing(players, tmp_path,
                                                                          capsys):
    out = tmp_path / "records"
    assert main(["selfplay", "--players", players, "--out", str(out)]) == 2
    assert error_line(capsys) == (f"bigsur: error: --players: must be 2, 3 or 4, got "
                                  f"{players}")
    assert not out.exists()


@pytest.mark.parametrize("argv, option, most", [
    (["selfplay"], "--games", 100_000),
    (["train", "--out", "m.npz"], "--games", 1_000_000),
    (["train", "--out", "m.npz"], "--epochs", 10_000),
    (["train", "--out", "m.npz"], "--batch", 1_000_000),
    (["analyze", "game.json", "--no-progress"], "--iterations", 1_000_000),
])
@pytest.mark.parametrize("value, words", [
    ("10" + "0" * 11, "must be at most {most}, got 1000000000000"),
    ("9" * 50, "must be at most {most}, got a number of 50 digits"),
    ("0", "must be at least 1, got 0"), ("-3", "must be at least 1, got -3"),
    ("ten", "must be an integer 1 to {most}, got 'ten'"),
    ("9" * 5000, "must be an integer 1 to {most}, got a text of 5000 characters"),
])
def test_a_count_beyond_its_cap_or_below_1_is_one_line_naming_the_option_and_bound(
        argv, option, most, value, words, tmp_path, no_selfplay, monkeypatch, capsys):
    """`selfplay --games 10**12` and `analyze --iterations 10**9` started runs that could not
    end, 0 and negative counts were not all refused: every count is 1 to a cap, said as
    one line naming the option and the range (count_arg), before any work."""
    import solver.cli as cli
    import solver.report as report

    forbid(monkeypatch, report, "analyse_record", "the review")
    forbid(monkeypatch, cli, "_random_game", "selfplay's games")
    monkeypatch.chdir(tmp_path)
    assert main([*argv, option, value]) == 2
    assert error_line(capsys) == f"bigsur: error: {option}: {words.format(most=most)}"
    assert os.listdir(tmp_path) == []  # no records/ folder, no model


def test_selfplay_out_naming_a_file_says_so(tmp_path, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("x")
    assert main(["selfplay", "--out", str(target)]) == 2
    assert error_line(capsys) == f"bigsur: error: --out {target}: is a file, not a directory"


# ------------------------------------------------------------------ tournament


def forbid(monkeypatch, module, name: str, what: str) -> None:
    """Calling ``module.name`` fails the test at once: ``what`` was started."""
    def started(*args, **kwargs):
        raise AssertionError(f"{what} was started")

    monkeypatch.setattr(module, name, started)


@pytest.fixture
def no_games(monkeypatch):
    """A tournament that would start playing fails the test at once."""
    import solver.search.tournament as tournament

    forbid(monkeypatch, tournament, "run_games", "the tournament")


@pytest.mark.parametrize("option, value, message", [
    ("--workers", "0", "--workers: must be an integer 1 to 64, got 0"),
    ("--workers", "-1", "--workers: must be an integer 1 to 64, got -1"),
    ("--workers", "100000", "--workers: must be an integer 1 to 64, got 100000"),
    ("--seed", "-3", "--seed: must be 0 or more, got -3"),
    ("--games", "999999999999", "--games: must be at most 100000, got 999999999999"),
    ("--games", "0", "--games: must be at least 1, got 0"),
    ("--players", "5", "--players: must be 2, 3 or 4, got 5"),  # was "players: ..."
    ("--players", "1", "--players: must be 2, 3 or 4, got 1"),
])
def test_tournament_refuses_an_out_of_range_number_before_playing(option, value, message,
                                                                 tmp_path, no_games, capsys):
    argv = ["tournament", "--bots", "random", "--games", "2", "--quiet",
            "--out", str(tmp_path / "t"), option, value]
    assert main(argv) == 2
    assert error_line(capsys) == f"bigsur: error: {message}"


@pytest.mark.parametrize("argv, message", [
    (["tournament", "--bots", "mcts:,random"],
     "bots: 'mcts:': budget must be <iterations>i or <seconds>s (e.g. 500i, 1.5s) (missing)"),
    (["tournament", "--bots", "random:5i,greedy"],
     "bots: bot 'random' takes no argument, got 'random:5i'"),
    (["play", "--ai", "random", "--hint-budget", ""],
     "--hint-budget: budget must be <iterations>i or <seconds>s (e.g. 500i, 1.5s) (missing)"),
])
def test_a_bad_bot_spec_or_budget_says_what_was_given_in_the_shared_words(argv, message,
                                                                          tmp_path, no_games,
                                                                          capsys):
    # "..., got ''" for none at all, and "got random:5i" unquoted (rules.wording.got)
    if argv[0] == "tournament":
        argv = [*argv, "--games", "2", "--quiet", "--out", str(tmp_path / "t")]
    assert main(argv) == 2
    assert error_line(capsys) == f"bigsur: error: {message}"


def test_tournament_bad_cards_is_one_line(tmp_path, no_games, capsys):
    cards = tmp_path / "cards.json"
    cards.write_text('{"format": "bigsur-cards/1"}')
    argv = ["tournament", "--bots", "random", "--games", "2", "--quiet",
            "--out", str(tmp_path / "t"), "--cards", str(cards)]
    assert main(argv) == 2
    assert error_line(capsys).startswith(f"bigsur: error: card set {cards}: ")


# ------------------------------------------------------------------ train


@pytest.fixture
def no_selfplay(monkeypatch):
    """A training run that would start its self-play fails the test at once."""
    import solver.search.train as train

    forbid(monkeypatch, train, "generate", "the self-play")


@pytest.mark.parametrize("option, value, message", [
    ("--epochs", "0", "--epochs: must be at least 1, got 0"),
    ("--epochs", "-1", "--epochs: must be at least 1, got -1"),
    ("--epochs", "1000000000", "--epochs: must be at most 10000, got 1000000000"),
    ("--batch", "0", "--batch: must be at least 1, got 0"),
    ("--lr", "0", "--lr: must be a positive number, got 0.0"),
    ("--lr", "-1", "--lr: must be a positive number, got -1.0"),
    ("--lr", "nan", "--lr: must be a positive number, got nan"),
    ("--lr", "inf", "--lr: must be a positive number, got inf"),
    ("--seed", "-1", "--seed: must be 0 or more, got -1"),
    ("--workers", "0", "--workers: must be an integer 1 to 64, got 0"),
    ("--workers", "-1", "--workers: must be an integer 1 to 64, got -1"),
    ("--workers", "100000", "--workers: must be an integer 1 to 64, got 100000"),
    ("--games", "999999999999", "--games: must be at most 1000000, got 999999999999"),
    ("--hidden", "99999999", "--hidden: layer sizes such as 64,64, got '99999999' "
                             "(each 1 to 4096)"),
    ("--policy", "mcts:1000001i", "--policy: 1000001 iterations exceeds the limit of 1000000"),
])
def test_train_refuses_an_out_of_range_number_before_the_self_play(option, value, message,
                                                                  tmp_path, no_selfplay,
                                                                  capsys):
    argv = ["train", "--games", "2", "--out", str(tmp_path / "m.npz"), option, value]
    assert main(argv) == 2
    assert error_line(capsys) == f"bigsur: error: {message}"


def test_train_cluster_unreachable_is_one_line(tmp_path, no_selfplay, monkeypatch, capsys):
    import solver.search.tournament as tournament

    def unreachable(address, timeout=10.0):
        raise tournament.TournamentError(f"--cluster: cannot reach a Dask scheduler at "
                                         f"{address!r}: timed out")

    monkeypatch.setattr(tournament, "cluster_executor", unreachable)
    argv = ["train", "--games", "2", "--out", str(tmp_path / "m.npz"),
            "--cluster", "tcp://127.0.0.1:1"]
    assert main(argv) == 2
    assert error_line(capsys) == ("bigsur: error: --cluster: cannot reach a Dask scheduler at "
                                  "'tcp://127.0.0.1:1': timed out")


def test_train_cluster_plays_on_the_clusters_executor_and_closes_its_client(
        tmp_path, monkeypatch, capsys):
    from concurrent.futures import Executor

    import solver.search.tournament as tournament
    import solver.search.train as train

    class Client:
        closed = False

        def close(self):
            Client.closed = True

    executor = object.__new__(Executor)
    monkeypatch.setattr(tournament, "cluster_executor", lambda address: (Client(), executor))
    seen = {}

    def generate(*args, **kwargs):
        seen["executor"] = args[6] if len(args) > 6 else kwargs.get("executor")
        raise KeyboardInterrupt  # stop here: what was passed is the point

    monkeypatch.setattr(train, "generate", generate)
    argv = ["train", "--games", "2", "--out", str(tmp_path / "m.npz"), "--cluster", "tcp://x:1"]
    assert main(argv) == 130
    assert seen["executor"] is executor and Client.closed


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child before it starts: SIGINT handled by default, as a shell starts a
    command in the foreground. A run started in the background (``nohup ... &``) ignores
    SIGINT, the child inherited it and played all its games (its SigIgn was 0x1007)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_train_ctrl_c_during_the_self_play_ends_soon_and_quietly(tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group) used to wait for every game left.
    Sent as a progress line comes out, when a worker has just finished a chunk: a worker
    waiting for its next one printed a traceback (3 runs in 10) until workers left
    Ctrl-C to the parent."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "train", "--games", "1000", "--workers", "2",
         "--players", "2", "--out", str(tmp_path / "m.npz")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_ctrl_c_as_in_a_terminal)
    try:
        before = []  # up to the first progress line: started, and playing
        while not (before and before[-1].startswith("self-play ")):
            before.append(proc.stderr.readline())
            assert before[-1] and len(before) < 5, before
        signals = [line.strip() for line in open(f"/proc/{proc.pid}/status")
                   if line.startswith(("SigBlk", "SigIgn", "SigCgt"))]
        os.killpg(proc.pid, signal.SIGINT)
        start = time.monotonic()
        _out, err = proc.communicate(timeout=60)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, f"signals at start: {signals}\n{err}"
    assert "Traceback" not in err and err.rstrip().endswith("bigsur: interrupted")
    # the games left would take many minutes; a loaded machine (CI) took 9.5 s once
    assert took < 30, f"{took:.1f} s after Ctrl-C"
    assert not (tmp_path / "m.npz").exists()


def test_train_an_out_that_cannot_be_written_is_one_line(tmp_path, capsys):
    # /proc's folder exists, so the check before the games passes; the write fails
    argv = ["train", "--games", "2", "--epochs", "1", "--workers", "1",
            "--out", "/proc/bigsur-model.npz"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("bigsur: error: --out /proc/bigsur-model.npz: ")
    assert not any("Traceback" in line for line in err)


# ------------------------------------------------------------------ analyze


@pytest.mark.parametrize("option", ["--png", "--html", "--json"])
def test_analyze_an_output_that_cannot_be_written_names_the_option(option, record_file, capsys,
                                                                   monkeypatch):
    # /proc's folder exists, but takes no file: found before the review
    import solver.report

    forbid(monkeypatch, solver.report, "analyse_record", "the review")
    path = f"/proc/bigsur-review.{option[2:]}"
    argv = ["analyze", str(record_file), "--iterations", "1", "--no-progress", option, path]
    assert main(argv) == 2
    assert error_line(capsys).startswith(f"bigsur: error: {option} {path}: cannot make a "
                                         "file in /proc (")


@pytest.mark.parametrize("option, name, words", [
    ("--png", "out.svg", "must end in .png (it is written as PNG)"),
    ("--html", "out.txt", "must end in .html or .htm (it is written as HTML)"),
    ("--json", "out", "must end in .json (it is written as JSON)"),
])
def test_analyze_refuses_an_output_named_for_another_format_before_the_review(
        option, name, words, record_file, tmp_path, monkeypatch, capsys):
    # '--png out.svg' wrote PNG data under an .svg name
    if option == "--png":  # the suffix in any case, and .htm too
        assert main(["analyze", str(record_file), "--iterations", "1", "--no-progress",
                     "--png", str(tmp_path / "G.PNG"), "--html", str(tmp_path / "r.htm")]) == 0
        assert (tmp_path / "G.PNG").exists() and (tmp_path / "r.htm").exists()
        capsys.readouterr()

    def no_review(*_args, **_kwargs):
        raise AssertionError("the review ran before the output's name was checked")

    monkeypatch.setattr("solver.report.analyse_record", no_review)
    out = tmp_path / name
    argv = ["analyze", str(record_file), "--iterations", "1", "--no-progress", option, str(out)]
    assert main(argv) == 2
    assert error_line(capsys) == f"bigsur: error: {option} {out}: {words}"
    assert not out.exists()


# ------------------------------------------------------------------ hint


@pytest.mark.parametrize("argv", [["hint", "{v}", "--iterations", "5"],
                                  ["pay", "{v}", "--build", "H01:L"], ["score", "{v}"]])
def test_a_view_no_state_matches_is_one_line_naming_the_file(argv, tmp_path, capsys):
    """The format errors of hint and pay named the file, their consistency check of a view
    did not ('bigsur: error: deck.count: ...'): it names the file too, as the service
    refuses such a view up front for a score as for a hint."""
    from test_position_views import view_with_one_material_pile

    raw, material = view_with_one_material_pile(2, 1)  # more hidden discards of it than
    view = tmp_path / "view.json"  # unseen cards: a view the reader takes, no deal matches
    view.write_text(json.dumps(raw), encoding="utf-8")
    assert main([a.format(v=view) for a in argv]) == 2
    assert error_line(capsys).startswith(f"bigsur: error: {view}: seats[1].discard.materials: ")


class Terminal(io.StringIO):
    """A stream that says it is a terminal (as stderr is when a person runs a command)."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("option, value, message", [
    ("--iterations", "0", "--iterations: must be at least 1, got 0"),
    ("--iterations", "-5", "--iterations: must be at least 1, got -5"),
    ("--iterations", "1000001", "--iterations: must be at most 1000000, got 1000001"),
    ("--seconds", "0", "--seconds: must be positive and less than a day (86400), got 0.0"),
    ("--seconds", "nan", "--seconds: must be positive and less than a day (86400), got nan"),
    ("--seconds", "86400", "--seconds: must be positive and less than a day (86400), got "
                           "86400.0"),
    ("--workers", "0", "--workers: must be an integer 1 to 64, got 0"),
])
def test_hint_a_bad_budget_names_the_option_typed(option, value, message, position_file,
                                                  monkeypatch, capsys):
    # it named the API's fields: budget.iterations, budget.seconds, workers
    import solver.search.api as api

    forbid(monkeypatch, api, "analyse", "the search")
    assert main(["hint", str(position_file), option, value]) == 2
    assert error_line(capsys) == f"bigsur: error: {message}"


def test_hint_shows_the_search_time_on_a_terminal_only(position_file, monkeypatch, capsys):
    import solver.search.api as api

    monkeypatch.setattr(api, "TICK", 0.02)
    argv = ["hint", str(position_file), "--seconds", "0.2"]
    assert main(argv) == 0  # stderr captured: not a terminal, no progress line
    assert capsys.readouterr().err == ""
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(argv) == 0
    shown = terminal.getvalue()
    assert shown.startswith("\rsearching... ") and "s of 0.2 s" in shown, shown
    assert shown.endswith("\r") and shown.split("\r")[-2].strip() == ""  # then erased
    assert "visits" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stderr", terminal := Terminal())
    assert main([*argv, "--json"]) == 0  # a script's JSON: no progress line
    assert terminal.getvalue() == ""


# ------------------------------------------------------------------ cards new / import


def test_cards_import_refuses_to_write_over_the_csv_it_reads(tmp_path, capsys):
    csv_path = tmp_path / "mine.csv"
    assert main(["cards", "new", str(csv_path), "--name", "mine"]) == 0
    before = csv_path.read_text()
    capsys.readouterr()
    assert main(["cards", "import", str(csv_path), "--out", str(csv_path)]) == 2
    assert error_line(capsys) == (f"bigsur: error: --out {csv_path}: is the CSV being "
                                  "imported (name another file)")
    assert csv_path.read_text() == before


def test_cards_import_refuses_to_write_over_an_existing_json_without_force(tmp_path, capsys):
    # it replaced the file silently; `cards new` refused the same without --force
    csv_path = tmp_path / "mine.csv"
    assert main(["cards", "new", str(csv_path), "--name", "mine"]) == 0
    out = tmp_path / "mine.json"
    out.write_text("{}")
    capsys.readouterr()
    assert main(["cards", "import", str(csv_path), "--name", "mine"]) == 2
    # the default output named as the file it is, not as an --out nobody typed
    assert error_line(capsys) == (f"bigsur: error: {out} (the default output, the CSV's name "
                                  "with .json) exists (use --force to overwrite it, or --out "
                                  "to write another file)")
    assert out.read_text() == "{}"
    assert main(["cards", "import", str(csv_path), "--name", "mine", "--out", str(out)]) == 2
    assert error_line(capsys) == (f"bigsur: error: --out {out} exists (use --force to "
                                  "overwrite)")
    assert main(["cards", "import", str(csv_path), "--name", "mine", "--force"]) == 0
    assert json.loads(out.read_text())["name"] == "mine"
    assert main(["cards", "new", str(csv_path), "--name", "mine"]) == 2  # the same words
    assert error_line(capsys) == (f"bigsur: error: {csv_path} exists (use --force to "
                                  "overwrite)")


def test_cards_import_of_a_csv_named_json_names_the_default_output_it_would_replace(
        tmp_path, capsys):
    # "--out mine.json: is the CSV being imported" when no --out was given
    csv_path = tmp_path / "mine.csv"
    assert main(["cards", "new", str(csv_path), "--name", "mine"]) == 0
    as_json = csv_path.rename(tmp_path / "mine.json")
    capsys.readouterr()
    assert main(["cards", "import", str(as_json), "--name", "mine"]) == 2
    assert error_line(capsys) == (f"bigsur: error: {as_json} (the default output, the CSV's "
                                  "name with .json): is the CSV being imported (name another "
                                  "file with --out)")


@pytest.mark.parametrize("make, reason", [
    (lambda p: None, "file not found"),
    (lambda p: p.mkdir(), "cannot read the file (Is a directory)"),
])
def test_cards_import_of_a_missing_or_directory_path_says_so_once(make, reason, tmp_path,
                                                                   capsys):
    path = tmp_path / "cards.csv"
    make(path)
    assert main(["cards", "import", str(path)]) == 2
    assert error_line(capsys) == f"bigsur: error: {path}: {reason}"


# ------------------------------------------------------------------ shared words


@pytest.mark.parametrize("module, argv, start, value", [
    ("solver.cli", ["selfplay", "--games", "0"], "--games: must be at least 1", 0),
    ("solver.cli", ["selfplay", "--players", "5"], "--players: must be 2, 3 or 4", 5),
    ("solver.terminal", ["play", "--players", "5"], "--players: must be 2 to 4", 5),
    ("solver.cli", ["tournament", "--bots", "random", "--games", "0"],
     "--games: must be at least 1", 0),
    ("solver.search.train_cli", ["train", "--games", "1"],
     "--games: at least 2 (whole games are held out to test the fit)", 1),
    ("solver.cli", ["train", "--games", "2000000"], "--games: must be at most 1000000",
     2000000),
    ("solver.cli", ["train", "--epochs", "0"], "--epochs: must be at least 1", 0),
    ("solver.cli", ["train", "--batch", "0"], "--batch: must be at least 1", 0),
    ("solver.cli", ["analyze", "x.json", "--iterations", "0"], "--iterations: must be at least 1",
     0),
])
def test_a_whole_number_option_out_of_range_ends_in_the_shared_words(
        module, argv, start, value, tmp_path, no_games, no_selfplay, monkeypatch, capsys):
    # these checks wrote ", got {value}" by hand beside rules.wording.got (" (missing)" for
    # no value at all), which the budget, bot-spec, --workers and --iterations checks use
    monkeypatch.setattr(f"{module}.got", lambda given: f" <got {given!r}>")
    out = tmp_path / ("m.npz" if argv[0] == "train" else "t")
    extra = {"selfplay": ["--out", str(out)], "play": [], "analyze": [],
             "tournament": ["--quiet", "--out", str(out)], "train": ["--out", str(out)]}
    assert main([*argv, *extra[argv[0]]]) == 2
    assert error_line(capsys) == f"bigsur: error: {start} <got {value!r}>"


# ------------------------------------------------------------------ help


def test_selfplay_help_says_what_each_option_is_and_its_default(capsys):
    with pytest.raises(SystemExit):
        main(["selfplay", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("--players PLAYERS seats in each game: 2, 3 or 4 (default 2)",
                  "--games GAMES games, one record each, 1 to 100000 (default 1)",
                  "--seed SEED game k uses seed S+k (default 0)",
                  "--out OUT directory for the records (default records)",
                  "--cards CARDS card-set file (default: the shipped reconstruction)"):
        assert words in text, words


def _subcommands(parser):
    """(name, parser) of every subcommand under ``parser``, nested ones too."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                for inner, deeper in _subcommands(sub):
                    yield f"{name} {inner}", deeper


def test_every_argument_of_every_command_says_what_it_is():
    """`bigsur replay --help` listed `record` with nothing beside it (and so did cards
    validate/show/import, verify, train and serve for some of theirs)."""
    from solver.cli import EXTENSIONS, build_parser

    bare = []
    for command in [None, *EXTENSIONS]:  # an extension's own arguments load with it only
        for name, sub in _subcommands(build_parser(command)):
            if name.split()[0] in EXTENSIONS and name.split()[0] != command:
                continue
            bare += [f"{name}: {a.option_strings[0] if a.option_strings else a.dest}"
                     for a in sub._actions
                     if not a.help and not isinstance(a, argparse._SubParsersAction)]
    assert not bare


def test_an_argparse_error_of_every_command_is_its_line_and_where_to_read_more(capsys):
    """argparse's own errors (an unknown option, a missing argument) printed the whole
    usage block before the message: every command, nested ones too, says the error in
    one line and then where its help is."""
    from solver.cli import EXTENSIONS, build_parser

    names = {"": None}
    for command in EXTENSIONS:
        names |= {name: command for name, _sub in _subcommands(build_parser(command))
                  if name.split()[0] not in EXTENSIONS or name.split()[0] == command}
    assert {"cards import", "replay", "hint", "analyze", "serve"} <= set(names)
    for name in names:
        with pytest.raises(SystemExit) as exit_:
            main([*name.split(), "--no-such-option"])
        assert exit_.value.code == 2, name
        prog = f"bigsur {name}".strip()
        err = capsys.readouterr().err
        first, second = err.splitlines()  # two lines, no usage block
        assert first.startswith(f"{prog}: error: ") and "usage:" not in err, err
        assert second == f"try '{prog} --help'", err


@pytest.mark.parametrize("command, words", [
    ("analyze", "--budget-ms BUDGET_MS search time per decision, in milliseconds"),
    ("analyze", "--iterations ITERATIONS search iterations per decision"),
    ("hint", "--seconds SECONDS search time per worker, in seconds"),
    ("hint", "--iterations ITERATIONS search iterations, 1 to 1000000 (default 1000)"),
    ("play", "--hint-budget HINT_BUDGET search budget of 'hint': seconds (1s, 0.5s) or "
             "iterations (500i)"),
])
def test_each_search_budget_option_says_its_unit(command, words, capsys):
    """The commands set their search budget differently (analyze --budget-ms, hint
    --seconds, play --hint-budget 1s); each help says in what unit (hint's --seconds
    said "time budget per worker", analyze's --budget-ms "search time per decision")."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert words in " ".join(capsys.readouterr().out.split())


def test_the_command_list_names_every_cards_subcommand(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "cards validate, show, make (new) or import a card set" in text


# ------------------------------------------------------------------ empty paths


@pytest.mark.parametrize("argv", [
    ["score", ""], ["replay", ""], ["verify", ""], ["analyze", "", "--no-progress"],
    ["cards", "show", ""], ["score", "{p}", "--cards", ""], ["replay", "{r}", "--cards", ""],
    ["selfplay", "--out", "{tmp}", "--cards", ""],
])
def test_an_empty_file_name_is_refused_not_read_as_the_folder_or_the_default(
        argv, tmp_path, position_file, record_file, capsys):
    argv = [a.format(p=position_file, r=record_file, tmp=tmp_path / "out") for a in argv]
    assert main(argv) == 2
    assert error_line(capsys).endswith('"": the file name is empty')


def test_cards_validate_of_an_empty_file_name_is_refused(capsys):
    assert main(["cards", "validate", ""]) == 2
    assert error_line(capsys).endswith('"": the file name is empty')


def test_cards_validate_of_a_missing_or_unreadable_file_is_one_error_line(tmp_path, capsys):
    # it printed 'card set nofile.json: 1 problem(s):' and '  file not found' (exit 1):
    # the file is no set with problems, the command's argument is wrong (exit 2, one line)
    missing = tmp_path / "nofile.json"
    assert main(["cards", "validate", str(missing)]) == 2
    assert error_line(capsys) == f"bigsur: error: card set {missing}: file not found"
    assert main(["cards", "validate", str(tmp_path)]) == 2  # a directory
    assert "cannot read the file" in error_line(capsys)
    bad = tmp_path / "bad.json"  # a file that reads keeps its problem list (exit 1)
    bad.write_text('{"highway": 1}', encoding="utf-8")
    assert main(["cards", "validate", str(bad)]) == 1
    assert capsys.readouterr().err.startswith(f"card set {bad}: ")


def test_cards_validate_and_show_read_a_csv_set_as_every_cards_option_does(tmp_path, capsys):
    """A card set named by a .csv path is read as CSV (load_card_set), as --cards reads
    it; validate and show read it as JSON ("csv: not valid JSON")."""
    from solver.rules.cards import load_card_set
    from solver.rules.cardset_csv import card_set_to_csv

    good = tmp_path / "club.csv"
    good.write_text(card_set_to_csv(load_card_set().to_json()), encoding="utf-8")
    assert main(["cards", "validate", str(good)]) == 0
    assert capsys.readouterr().out.startswith("OK: club v1: ")
    assert main(["cards", "show", str(good)]) == 0
    assert capsys.readouterr().out.startswith("Card set: club v1")
    bad = tmp_path / "bad.csv"  # one cell wrong: the problem names its row
    bad.write_text(good.read_text(encoding="utf-8").replace(
        "highway,H01,1,", "highway,H01,x,", 1), encoding="utf-8")
    assert main(["cards", "validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "H01" in err and "miles" in err and "row 2" in err, err


def test_tournament_and_train_refuse_an_empty_cards_file_name(tmp_path, no_games, no_selfplay,
                                                             capsys):
    assert main(["tournament", "--bots", "random", "--games", "2", "--quiet",
                 "--out", str(tmp_path / "t"), "--cards", ""]) == 2
    assert error_line(capsys).endswith('"": the file name is empty')
    assert main(["train", "--games", "2", "--out", str(tmp_path / "m.npz"), "--cards", ""]) == 2
    assert error_line(capsys).endswith('"": the file name is empty')


@pytest.mark.parametrize("source, spec, words", [
    ("def (\n", "brokenbots:Bot", "cannot import module 'brokenbots' (SyntaxError: "),
    ("raise RuntimeError('no GPU')\n", "brokenbots:Bot",
     "cannot import module 'brokenbots' (RuntimeError: no GPU)"),
    ("class Bot:\n    def __init__(self):\n        raise ValueError('nope')\n"
     "    def act(self, view, seed):\n        return None\n", "brokenbots:Bot",
     "Bot() failed: ValueError: nope"),
])
def test_tournament_a_bot_module_or_class_that_fails_is_one_line(source, spec, words, tmp_path,
                                                                 monkeypatch, no_games, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "brokenbots", raising=False)
    (tmp_path / "brokenbots.py").write_text(source)
    argv = ["tournament", "--bots", f"{spec},random", "--games", "2", "--quiet",
            "--out", str(tmp_path / "t")]
    assert main(argv) == 2
    line = error_line(capsys)
    assert line.startswith(f"bigsur: error: bots: bot '{spec}': ") and words in line, line


@pytest.mark.parametrize("ms", ["86400000", "999999999"])
def test_analyze_a_budget_of_a_day_or_more_names_the_option(ms, record_file, capsys):
    assert main(["analyze", str(record_file), "--budget-ms", ms, "--no-progress"]) == 2
    assert error_line(capsys) == (f"bigsur: error: --budget-ms: must be positive and less "
                                  f"than a day (86400000), got {ms}")


@pytest.mark.parametrize("option", ["--html", "--png", "--json"])
def test_analyze_refuses_to_write_over_the_record_it_reviews(option, record_file, capsys):
    before = record_file.read_text()
    argv = ["analyze", str(record_file), "--iterations", "1", "--no-progress",
            option, str(record_file)]
    assert main(argv) == 2
    assert error_line(capsys) == (f"bigsur: error: {option} {record_file}: is the record "
                                  "being reviewed (name another file)")
    assert record_file.read_text() == before


@pytest.mark.parametrize("argv, message", [
    (["--data", "{d}", "--out", "{d}"], "--out {d}: is also a --data file (name another file)"),
    (["--games", "2", "--save-data", "{m}", "--out", "{m}"],
     "--save-data {m}: is also --out (name another file)"),
    (["--games", "2", "--report", "{m}", "--out", "{m}"],
     "--report {m}: is also --out (name another file)"),
])
def test_train_refuses_two_uses_of_one_file(argv, message, tmp_path, no_selfplay, capsys):
    paths = {"d": str(tmp_path / "data.npz"), "m": str(tmp_path / "m.npz")}
    assert main(["train", *(a.format(**paths) for a in argv)]) == 2
    assert error_line(capsys) == f"bigsur: error: {message.format(**paths)}"


def test_a_warning_is_one_line_of_the_command_line(tmp_path):
    """A hint on a card set no value model was trained on printed Python's warning form:
    '/.../solver/search/ismcts.py:439: UserWarning: no value model ...' and the source
    line 'ev = default_evaluator(cards)'. It is one 'bigsur: warning: ...' line."""
    import copy

    from solver.rules.cards import load_card_set

    raw = copy.deepcopy(load_card_set().to_json())
    raw.update(name="mine")
    raw["landmarks"][0]["name"] += " as printed"
    (tmp_path / "mine.json").write_text(json.dumps(raw))
    (tmp_path / "pos.json").write_text(json.dumps(state_to_json(new_game(2, seed=1))))
    out = subprocess.run([sys.executable, "-m", "solver.cli", "hint", "pos.json", "--cards",
                          "mine.json", "--iterations", "5"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "bigsur: warning: no value model was trained on card set 'mine'"), out.stderr


@pytest.mark.parametrize("argv", [["selfplay", "--seed", "-3"],
                                  ["play", "--ai", "random", "--seed", "-1"]])
def test_a_negative_seed_is_refused_as_by_tournament(argv, tmp_path, capsys, monkeypatch):
    """`tournament --seed -1` was refused ('must be 0 or more'), `selfplay --seed -3` and
    `play --seed -1` dealt a game: every command's seed is 0 or more."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"bigsur: error: --seed: must be 0 or more, got {argv[-1]}", err
    assert not (tmp_path / "records").exists()


@pytest.mark.parametrize("argv", [["selfplay", "--seed", "{s}"],
                                  ["play", "--ai", "random", "--seed", "{s}"]])
def test_a_seed_the_service_refuses_is_refused(argv, tmp_path, capsys, monkeypatch):
    """`play --seed 9223372036854775808` dealt a game whose record the service's review
    refuses (its seeds are 0 to 2**63 - 1): refused in one line, as a negative seed."""
    from solver.cli import seed_arg
    from solver.rules.record import MAX_SEED

    monkeypatch.chdir(tmp_path)
    for seed in (MAX_SEED + 1, 10**4000):
        assert main([a.format(s=seed) for a in argv]) == 2
        line = error_line(capsys)
        assert line.startswith(f"bigsur: error: --seed: must be at most {MAX_SEED} "), line
        assert len(line) < 200, line
    assert main([a.format(s="ten") for a in argv]) == 2
    assert error_line(capsys) == ("bigsur: error: --seed: must be an integer 0 to "
                                  f"{MAX_SEED}, got 'ten'")
    assert not (tmp_path / "records").exists()
    assert seed_arg(str(MAX_SEED)) == MAX_SEED and seed_arg("0") == 0


@pytest.mark.parametrize("argv", [
    ["tournament", "--bots", "random", "--quiet", "--out", "t", "--seed", "{s}"],
    ["train", "--out", "m.npz", "--seed", "{s}"],
    ["analyze", "record.json", "--seed", "{s}"],
    ["hint", "position.json", "--seed", "{s}"],
])
def test_every_commands_seed_is_read_by_the_one_seed_type(argv, tmp_path, capsys, no_games,
                                                          no_selfplay, monkeypatch):
    """tournament, train, analyze and hint read --seed as play and selfplay do (cli.seed_arg,
    0 to 2**63 - 1): hint took a 23-digit seed, tournament one past the largest, and a
    seed that is no integer was argparse's usage text, not one line."""
    from solver.cli import UserError, seed_arg
    from solver.rules.record import MAX_SEED

    monkeypatch.chdir(tmp_path)  # (the record and position files are never read)
    for seed in (-1, MAX_SEED + 1, 10**22, "ten"):
        assert main([a.format(s=seed) for a in argv]) == 2
        with pytest.raises(UserError) as info:
            seed_arg(str(seed))
        assert error_line(capsys) == f"bigsur: error: {info.value}"
    assert not any(tmp_path.iterdir())


def test_tournament_refuses_deals_whose_seeds_pass_the_largest(tmp_path, capsys, no_games):
    """Deal k uses seed S+k, as selfplay's game k: the last deal's seed is checked too."""
    from solver.rules.record import MAX_SEED

    argv = ["tournament", "--bots", "random,greedy", "--quiet", "--out", str(tmp_path / "t"),
            "--games", "4"]  # 2 deals of 2 rotated games
    assert main([*argv, "--seed", str(MAX_SEED)]) == 2
    assert error_line(capsys) == (
        f"bigsur: error: seed {MAX_SEED} with 4 games: the last deal's seed would be "
        f"{MAX_SEED + 1} (2 deals), more than {MAX_SEED} (2**63 - 1, the largest seed the "
        "service takes)")
    with pytest.raises(AssertionError, match="the tournament was started"):
        main([*argv, "--seed", str(MAX_SEED - 1)])  # its last deal's seed is the largest


def test_selfplay_refuses_games_whose_seeds_pass_the_largest(tmp_path, capsys):
    from solver.rules.record import MAX_SEED

    out = tmp_path / "records"
    assert main(["selfplay", "--seed", str(MAX_SEED), "--games", "2", "--out", str(out)]) == 2
    assert "the last game's seed would be" in error_line(capsys)
    assert not out.exists()
    assert main(["selfplay", "--seed", str(MAX_SEED - 1), "--games", "2",
                 "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [f"game-{MAX_SEED - 1}.json",
                                                    f"game-{MAX_SEED}.json"]


def test_score_takes_a_view_as_the_service_does(tmp_path, capsys):
    """`bigsur score view.json` said "format: must be 'bigsur-position/1'", though the
    library and POST /v1/score score a view (Highways and Landmarks are public): it
    scores the view as the full state it came from."""
    from solver.rules.views import view_of, view_to_json

    state = play_random_game(3, seed=2).replay()
    (tmp_path / "view.json").write_text(json.dumps(view_to_json(view_of(state, 1))))
    (tmp_path / "pos.json").write_text(json.dumps(state_to_json(state)))
    assert main(["score", str(tmp_path / "view.json")]) == 0
    of_view = json.loads(capsys.readouterr().out)
    assert main(["score", str(tmp_path / "pos.json")]) == 0
    assert of_view == json.loads(capsys.readouterr().out)
    assert of_view["game_over"] is True and len(of_view["scores"]) == 3
    (tmp_path / "rec.json").write_text(json.dumps({"format": "bigsur-record/1"}))
    assert main(["score", str(tmp_path / "rec.json")]) == 2
    assert "format: must be 'bigsur-position/1' (a full position) or 'bigsur-view/1'" in \
        capsys.readouterr().err
