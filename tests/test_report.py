"""``bigsur analyze``: the same review as the service, an HTML report and a PNG graph."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from solver.analysis import analyse_record, plural
from solver.cli import play_random_game
from solver.report import ReportError, add_cli, budget_from_args
from solver.rules.record import GameRecord
from solver.search.api import Budget

ITERATIONS = 8  # small: the test checks the plumbing, not the search's judgement


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "game.json"
    play_random_game(2, seed=21).save(path)
    return path


def parse(*argv):
    parser = argparse.ArgumentParser(prog="bigsur")
    add_cli(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["analyze", *map(str, argv)])


def test_report_files_match_the_analysis(record_file, tmp_path, capsys):
    html_path, png_path, json_path = tmp_path / "r.html", tmp_path / "g.png", tmp_path / "r.json"
    args = parse(record_file, "--html", html_path, "--png", png_path, "--json", json_path,
                 "--iterations", ITERATIONS, "--seed", 3)
    assert args.func(args) == 0
    out = capsys.readouterr()
    assert "analysing" in out.err  # the progress bar (on stderr)

    # the same review as solver.analysis (reproducible: iteration budget and seed)
    record = GameRecord.load(record_file)
    expected = analyse_record(record, Budget(iterations=ITERATIONS), seed=3).to_json()
    written = json.loads(json_path.read_text())
    assert written == json.loads(json.dumps(expected))
    for p in expected["players"]:
        acc = "-" if p["accuracy"] is None else f"{p['accuracy']:.1f}/100"
        assert f"Seat {p['seat']} (random): accuracy {acc}, " \
               f"{plural(p['inaccuracies'], 'inaccuracy', 'inaccuracies')}, " \
               f"{plural(p['mistakes'], 'mistake')}, {plural(p['blunders'], 'blunder')}" \
               in out.out

    # the PNG is a real image of the configured size (10 x 4 in at 100 dpi)
    data = png_path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1000, 400)

    # the HTML is self-contained: inline SVG graph, no outside resource
    page = html_path.read_text()
    assert "<svg" in page and "reconstruction" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<script" not in page
    labelled = [d for d in expected["decisions"] if d["label"]]
    assert f"Labelled moves ({len(labelled)})" in page
    for d in labelled:
        assert f"id='move-{d['index'] + 1}'" in page
    assert page.count("<tr id='move-") == len(labelled) + len(expected["decisions"])
    assert f"Every decision ({len(expected['decisions'])})" in page


def test_budget_options():
    assert budget_from_args(None, None) == Budget(seconds=0.1)  # the service's default
    assert budget_from_args(250, None) == Budget(seconds=0.25)
    assert budget_from_args(None, 40) == Budget(iterations=40)
    with pytest.raises(ReportError, match="--iterations"):
        budget_from_args(None, 0)
    with pytest.raises(ReportError, match="--budget-ms"):
        budget_from_args(-5, None)


def test_errors_name_the_problem(tmp_path, capsys):
    missing = parse(tmp_path / "nope.json", "--html", tmp_path / "r.html")
    assert missing.func(missing) == 2
    assert "nope.json" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    raw = play_random_game(2, seed=1).to_json()
    raw["actions"][3] = "build H99 L"
    bad.write_text(json.dumps(raw))
    args = parse(bad, "--png", tmp_path / "g.png", "--iterations", 5)
    assert args.func(args) == 2
    assert "actions[3]" in capsys.readouterr().err
    assert not (tmp_path / "g.png").exists()
    nothing = parse(bad)  # no output file asked: still checked before anything runs
    assert nothing.func(nothing) == 2
    assert "actions[3]" in capsys.readouterr().err


def test_without_output_files_the_review_is_printed(tmp_path, capsys):
    record = play_random_game(2, seed=2)
    record.actions = record.actions[:12]  # a short game start keeps this test quick
    path = tmp_path / "short.json"
    record.save(path)
    args = parse(path, "--iterations", 5)
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "played" in out and "accuracy" in out


@pytest.mark.parametrize("option, where, words", [
    ("--html", "missing/r.html", "--html {path}: no such directory"),
    ("--png", ".", "--png {path}: is a directory"),
    ("--json", "missing/r.json", "--json {path}: no such directory"),
    # a folder that takes no file, although it exists and os.access says root may write
    ("--png", "/proc/x.png", "--png {path}: cannot make a file in /proc ("),
])
def test_an_output_that_cannot_be_written_is_refused_before_the_review(
        record_file, tmp_path, capsys, monkeypatch, option, where, words):
    def no_review(*_args, **_kwargs):
        raise AssertionError("the review ran before the output path was checked")

    monkeypatch.setattr("solver.report.analyse_record", no_review)
    path = tmp_path / where
    args = parse(record_file, option, path, "--iterations", ITERATIONS, "--no-progress")
    assert args.func(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words.format(path=path) in err, err


def test_an_output_that_fails_after_the_review_does_not_lose_the_others(
        record_file, tmp_path, capsys, monkeypatch):
    import shutil

    import solver.report

    gone = tmp_path / "gone"
    gone.mkdir()
    review = solver.report.analyse_record

    def folder_removed_during_the_review(*args, **kwargs):
        shutil.rmtree(gone)
        return review(*args, **kwargs)

    monkeypatch.setattr(solver.report, "analyse_record", folder_removed_during_the_review)
    html_path, json_path, png_path = tmp_path / "ok.html", tmp_path / "ok.json", gone / "g.png"
    args = parse(record_file, "--html", html_path, "--json", json_path, "--png", png_path,
                 "--iterations", 1, "--no-progress")
    assert args.func(args) == 2
    out, err = capsys.readouterr()
    assert "<svg" in html_path.read_text()
    assert json.loads(json_path.read_text())["decisions"]
    assert f"report written to {html_path}" in out and f"review written to {json_path}" in out
    assert "accuracy" in out  # the summary of the review is printed all the same
    assert err.count("\n") == 1 and err.startswith(f"bigsur: error: --png {png_path}: "
                                                   "cannot write it ("), err


def test_the_printed_table_numbers_moves_as_the_report_and_the_summary_comes_once(
        tmp_path, capsys):
    record = play_random_game(2, seed=2)
    record.actions = record.actions[:12]
    path = tmp_path / "short.json"
    record.save(path)
    args = parse(path, "--iterations", 5, "--seed", 1, "--no-progress")
    assert args.func(args) == 0
    out = capsys.readouterr().out
    review = analyse_record(GameRecord.load(path), Budget(iterations=5), seed=1)
    rows = [ln.split()[0] for ln in out.splitlines() if re.match(r"\s+\d+\s", ln)]
    assert rows == [str(d.index + 1) for d in review.decisions if d.rated]  # as "#" in HTML
    assert out.count(": accuracy") == 2, out  # one line per seat, not the summary twice


def test_the_graph_ends_at_the_result_of_a_finished_game():
    from solver.analysis import DecisionReview, Value, summarise
    from solver.report import seat_name, win_graph

    record = play_random_game(2, seed=21)
    final = record.replay()
    # every decision valued at 100% for its player: the loser's line must still end at 0
    decisions = [DecisionReview(index=i, seat=st.current, turn=st.turn, phase="take",
                                played=a.notation(), legal=2, how="ranked",
                                value_before=Value(1.0, 0.0))
                 for i, (st, a) in enumerate(list(record.states())[:-1])]
    review = summarise(record, decisions, {"iterations": 1}, 0, final)
    scores = review.final_scores
    lines = {ln.get_label(): ln for ln in win_graph(review, record).axes[0].get_lines()}
    for seat in range(2):
        line = lines[seat_name(record, seat)]
        expected = 100.0 if scores[seat] > scores[1 - seat] else \
            50.0 if scores[0] == scores[1] else 0.0
        assert line.get_xdata()[-1] == len(record.actions) + 1
        assert line.get_ydata()[-1] == expected


def test_the_report_of_an_unfinished_game_says_so():
    from solver.analysis import summarise
    from solver.report import render_html

    record = play_random_game(2, seed=21)
    record.actions = record.actions[:10]
    review = summarise(record, [], {"iterations": 1}, 0, record.replay())
    page = render_html(review, record, "<svg></svg>", "part.json")
    assert "The game is not over" in page and "Winner" not in page


def test_a_closed_pipe_is_not_reported_as_a_file_error(tmp_path, monkeypatch, capsys):
    import io

    from solver.cli import main

    class ClosedPipe(io.StringIO):
        def write(self, _text):
            raise BrokenPipeError(32, "Broken pipe")

    record = play_random_game(2, seed=2)
    record.actions = record.actions[:4]
    path = tmp_path / "short.json"
    record.save(path)
    monkeypatch.setattr("sys.stdout", ClosedPipe())
    main(["analyze", str(path), "--iterations", "3", "--no-progress"])
    assert "None" not in capsys.readouterr().err  # was "bigsur: error: None: Broken pipe"


def test_the_report_of_a_record_from_a_position_names_no_seed():
    from solver.analysis import summarise
    from solver.report import render_html
    from solver.rules.position import state_to_json

    game = play_random_game(2, seed=21)
    state = list(game.states())[10][0]
    record = GameRecord(game.cards, 2, start_position=state_to_json(state),
                        actions=game.actions[10:])
    review = summarise(record, [], {"iterations": 1}, 0, record.replay())
    page = render_html(review, record, "<svg></svg>", "from-position.json")
    assert "seed\nNone" not in page and "seed None" not in page
    assert "from a set-up position" in page


def interrupted_review(tmp_path, monkeypatch) -> str:
    """A record of 4 actions whose review is stopped by Ctrl-C during its first search."""
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("solver.report.analyse_record", interrupted)
    record = play_random_game(2, seed=2)
    record.actions = record.actions[:4]
    path = tmp_path / "short.json"
    record.save(path)
    return str(path)


def test_ctrl_c_during_the_review_stops_it_without_a_traceback(tmp_path, monkeypatch,
                                                                 capsys):
    from solver.cli import main

    path = interrupted_review(tmp_path, monkeypatch)
    assert main(["analyze", path, "--iterations", "3", "--no-progress"]) == 130
    assert capsys.readouterr().err.strip() == "bigsur: interrupted"


def test_the_progress_bar_knows_its_total_before_the_first_decision(tmp_path, monkeypatch,
                                                                      capsys):
    from solver.cli import main

    path = interrupted_review(tmp_path, monkeypatch)
    assert main(["analyze", path, "--iterations", "3"]) == 130
    err = capsys.readouterr().err
    assert "0/4" in err and "0/?" not in err, err


# ------------------------------------------------------------------ what the review prints

def one_decision_review(**fields):
    """A record of its first 2 actions and a review of its first one, with ``fields``."""
    from solver.analysis import DecisionReview, Value, summarise

    record = play_random_game(2, seed=21)
    record.actions = record.actions[:2]
    first, _ = next(record.states())
    decision = dict(index=0, seat=first.current, turn=0, phase="take",
                    played=record.actions[0], legal=5, how="ranked", best=["take deck"],
                    value_before=Value(0.5, 0.0), value_best=Value(0.5, 0.0),
                    value_played=Value(0.5, 0.0), loss_win_pct=0.0, loss_points=0.0)
    decision.update(fields)
    review = summarise(record, [DecisionReview(**decision)], {"iterations": 1}, 0,
                       record.replay())
    return review, record


def report_page(review, record) -> str:
    from solver.report import render_html

    return render_html(review, record, "<svg></svg>", "game.json")


def test_counts_are_printed_in_the_right_number():
    # "1 inaccuracies" and "(1 rated decisions)"
    from solver.analysis import PlayerSummary, accuracy_line

    one = PlayerSummary(seat=0, name=None, decisions=1, forced=0, unrated=0, accuracy=90.0,
                        mean_loss_win_pct=6.0, mean_loss_points=1.0, inaccuracies=1,
                        mistakes=1, blunders=1)
    assert accuracy_line(one, "Seat 0") == ("Seat 0: accuracy 90.0/100, 1 inaccuracy, 1 mistake, "
                                            "1 blunder (1 rated decision)")
    two = PlayerSummary(seat=0, name=None, decisions=2, forced=0, unrated=0, accuracy=None,
                        mean_loss_win_pct=None, mean_loss_points=None, inaccuracies=0,
                        mistakes=2, blunders=2)
    assert accuracy_line(two, "Seat 0") == ("Seat 0: accuracy -, 0 inaccuracies, 2 mistakes, "
                                            "2 blunders (2 rated decisions)")
    review, record = one_decision_review()
    record.actions = record.actions[:1]
    page = report_page(review, record)
    assert "1 action." in page and "1 actions" not in page
    review.budget = {"iterations": 1}
    assert "1 iteration per decision" in report_page(review, record)


def test_a_zero_is_printed_without_a_minus_sign():
    from solver.analysis import Value, format_review

    review, record = one_decision_review(value_played=Value(0.5, -0.04),
                                         value_best=Value(0.5, -0.04), loss_win_pct=-0.0,
                                         loss_points=0.0)
    page = report_page(review, record)
    assert "-0.0" not in page and "&minus;0.0" not in page, page
    assert "50.0% / +0.0" in page
    assert "-0.0" not in format_review(review)


def test_the_how_words_of_the_label_column_are_explained():
    review, record = one_decision_review(how="continuation", best=["take deck"])
    page = report_page(review, record)
    assert "<span class='muted'>continuation</span>" in page
    legend = re.search(r"<p class='legend'>(.*?)</p>", page, re.S)
    assert legend, page[-1500:]
    for how in ("ranked", "continuation", "played", "terminal", "forced", "unrated"):
        assert f"<i>{how}</i>" in legend.group(1)


def test_no_better_move_is_shown_when_none_was_better():
    from solver.analysis import format_review

    review, record = one_decision_review()
    played = record.actions[0]
    review.decisions[0].best = [played]  # the move played was the best
    page = report_page(review, record)
    row = re.search(r"<tr id='move-1'>.*?</tr>", page, re.S).group(0)
    assert row.count(f"<code>{played}</code>") == 1 and "&mdash;" in row, row
    line = next(ln for ln in format_review(review).splitlines() if ln.startswith("   1 "))
    assert line.count(played) == 1 and "—" in line, line
    review.decisions[0].best = ["take deck"]  # another move, no better (no loss)
    assert "<code>take deck</code>" not in report_page(review, record)
    review.decisions[0].loss_win_pct = 6.0  # a better move: shown
    assert "<code>take deck</code>" in report_page(review, record)
    assert "take deck" in format_review(review)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_even_chance_line_is_one_in_the_number_of_players(players):
    # it was drawn at 50% whatever the number of players (the web page: 1 in N)
    from solver.analysis import summarise
    from solver.report import render_html, win_graph

    record = play_random_game(players, seed=21)
    record.actions = record.actions[:6]
    review = summarise(record, [], {"iterations": 1}, 0, record.replay())
    ax = win_graph(review, record).axes[0]
    even = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(even) == 1 and list(even[0].get_ydata()) == [100 / players] * 2
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"even chance (1 in {players}: {100 / players:.0f}%)" in legend, legend
    page = render_html(review, record, "<svg></svg>", "game.json")
    assert f"The dashed line is an even chance: 1 in {players}\n({100 / players:.0f}%)" in page


def test_the_graph_numbers_moves_in_whole_numbers():
    # a short record's axis read 0.0, 2.5, 5.0, ... 17.5 moves (0.25 ... for an empty one)
    from solver.analysis import DecisionReview, Value, summarise
    from solver.report import win_graph

    record = play_random_game(3, seed=21)
    actions = record.actions
    for length in (0, 2, 20):
        record.actions = actions[:length]
        decisions = [DecisionReview(index=i, seat=st.current, turn=st.turn, phase="take",
                                    played=a.notation(), legal=2, how="ranked",
                                    value_before=Value(0.4, 0.0))
                     for i, (st, a) in enumerate(list(record.states())[:-1])]
        review = summarise(record, decisions, {"iterations": 1}, 0, record.replay())
        ticks = win_graph(review, record).axes[0].get_xticks()
        assert len(ticks) >= 2 and all(t == int(t) for t in ticks), (length, ticks)


def test_the_values_say_what_they_are_and_in_which_unit():
    # "22.4% / -4.2" under "value played": -4.2 of what? (and a hyphen beside the &minus; losses)
    from solver.analysis import Value

    review, record = one_decision_review(value_played=Value(0.224, -4.2), loss_win_pct=6.0,
                                         loss_points=4.2)
    page = report_page(review, record)
    row = re.search(r"<tr id='move-1'>.*?</tr>", page, re.S).group(0)
    assert "<td>22.4% / &minus;4.2</td>" in row and "<td>50.0% / +0.0</td>" in row, row
    assert "<th>value played (win-% / pts)</th>" in page
    assert "<th>its value (win-% / pts)</th>" in page
    assert "the expected margin in points (pts: its final score minus the best other " \
           "player's" in " ".join(page.split())


def test_a_loss_and_the_accuracy_say_their_unit():
    # the loss column read "&minus;21.4 / &minus;5.0" (a drop of what?) and the accuracy
    # "90.0" (of what?); "loss%" in the printed table was no percentage of anything
    from solver.analysis import Value, format_review

    review, record = one_decision_review(value_played=Value(0.286, -5.0), loss_win_pct=21.4,
                                         loss_points=5.0, label="blunder")
    page = report_page(review, record)
    row = re.search(r"<tr id='move-1'>.*?</tr>", page, re.S).group(0)
    assert "<td>21.4 win-% / 5.0 pts</td>" in row, row
    assert "&minus;21.4" not in page and "<th>lost against the best move</th>" in page
    words = " ".join(page.split())
    assert "Accuracy is a score out of 100" in words
    accuracy = review.players[review.decisions[0].seat].accuracy
    assert f"<td>{accuracy:.1f}/100</td>" in page and "<th>accuracy (of 100)</th>" in page
    table = format_review(review).splitlines()
    assert table[0].split()[-5:] == ["win-%", "lost", "pts", "lost", "label"], table[0]
    assert table[1].split()[-3:] == ["21.4", "5.0", "blunder"], table[1]


def test_a_move_too_long_for_its_column_is_cut_with_an_ellipsis():
    """The table cut 'build H35 L pay rec sub:H40+H41+H42=steel' to 'build H35 L pay rec
    sub:H40+', read as a whole payment: a cut cell ends with an ellipsis, the columns
    stay aligned."""
    from solver.analysis import format_review

    long_move = "build H35 L pay rec sub:H40+H41+H42=steel"
    review, _ = one_decision_review(played="end", best=[long_move], loss_win_pct=3.0)
    table = format_review(review).splitlines()
    header, row = table[0], table[1]
    cell = row[header.index("better move"):header.index("win-% lost")].rstrip()
    assert cell.endswith("\u2026") and long_move.startswith(cell[:-1]), row
    assert len(cell) == 28 and row[header.index("better move") + 28] == " "
    short_cell = row[header.index("played"):header.index("better move")].rstrip()
    assert short_cell == "end"


def test_the_graph_tells_the_labels_apart_by_shape_not_only_colour():
    # a mistake's orange dot on seat 3's orange line looked like a point of the line
    from solver.analysis import LABELS, DecisionReview, Value, summarise
    from solver.report import win_graph

    record = play_random_game(4, seed=21)
    record.actions = record.actions[:12]
    decisions = [DecisionReview(index=i, seat=st.current, turn=st.turn, phase="take",
                                played=a.notation(), legal=2, how="ranked",
                                value_before=Value(0.3, 0.0), loss_win_pct=1.0,
                                loss_points=0.0, label=LABELS[i % 4] if i % 4 < 3 else None)
                 for i, (st, a) in enumerate(list(record.states())[:-1])]
    review = summarise(record, decisions, {"iterations": 1}, 0, record.replay())
    ax = win_graph(review, record).axes[0]

    def shape(collection):
        return collection.get_paths()[0].vertices.round(3).tolist()

    proxies = {c.get_label(): shape(c) for c in ax.collections if c.get_label() in LABELS}
    assert len(proxies) == 3 and len({str(v) for v in proxies.values()}) == 3
    marks = [c for c in ax.collections if len(c.get_offsets())]
    assert marks
    for mark in marks:  # each marker has its label's legend shape
        x = int(mark.get_offsets()[0][0])
        assert shape(mark) == proxies[decisions[x - 1].label]


def test_the_deal_seed_and_the_review_seed_are_told_apart():
    # "4 players, seed 5" then "(seed 0)" two lines on: two different seeds, one word
    review, record = one_decision_review()
    record.seed, review.seed = 5, 0
    page = " ".join(report_page(review, record).split())
    assert "deal seed 5," in page and "(review seed 0, <code>--seed</code>)" in page, page
    assert "(seed 0)" not in page
