"""Attack corpus: card sets, positions, views and records that must be refused, each with
a message naming the field (one root cause per bad card; the CLI prints one line)."""

from __future__ import annotations

import copy
import json
import random
import re

import pytest
from rules_testkit import card_set, hw, lm, make_state

from solver.cli import main
from solver.rules.cards import CardSetError, load_card_set, parse_card_set
from solver.rules.engine import apply, legal_actions, new_game
from solver.rules.position import PositionError, state_from_json, state_to_json
from solver.rules.record import GameRecord, RecordError
from solver.rules.state import Phase
from solver.rules.views import view_from_json, view_of, view_to_json

DEFAULT = load_card_set()


def default_raw() -> dict:
    return copy.deepcopy(DEFAULT.to_json())


def card_errors(raw) -> list[str]:
    with pytest.raises(CardSetError) as info:
        parse_card_set(raw, "attack")
    return info.value.errors


# ------------------------------------------------------------------ card sets

@pytest.mark.parametrize("change, expected", [
    (lambda r: r.update(extras=1), "extras: unknown field"),
    (lambda r: r.update(version=2), "version: must be a non-empty string, got 2"),
    (lambda r: r.update(description=["x"]), "description: must be a string"),
    (lambda r: r["highway"][3].update(text=42), ".text: must be a string, got 42"),
    (lambda r: r["landmarks"][0].update(text=None), ".text: must be a string (missing)"),
    (lambda r: r["highway"][0].update(miles="one"), ".miles: must be an integer 1 to 4"),
    (lambda r: r["highway"][0].update(material="gold"), ".material: must be one of"),
    (lambda r: r["highway"][5].update(id=r["highway"][4]["id"]), "duplicate id"),
    (lambda r: r["landmarks"][2].update(ability={"kind": "fly"}), ".ability: unknown kind"),
])
def test_one_bad_field_is_one_error_naming_it(change, expected):
    raw = default_raw()
    change(raw)
    errors = card_errors(raw)
    assert len(errors) == 1, errors  # no knock-on problems (counts, turns, other fields)
    assert expected in errors[0]


def test_two_bad_cards_are_two_errors_one_each():
    raw = default_raw()
    raw["highway"][0].update(miles=9, scenery="sea")  # the miles come first
    raw["highway"][1].update(players=[5])
    errors = card_errors(raw)
    assert len(errors) == 2 and ".miles:" in errors[0] and ".players:" in errors[1]


@pytest.mark.parametrize("change, expected", [
    (lambda r: r["highway"][1].update(miles=None), "'H02'.miles: must be an integer 1 to 4"),
    (lambda r: r["highway"][1].pop("miles"), "'H02'.miles: must be an integer 1 to 4"),
    (lambda r: r["highway"][2].update(material=""), ".material: must be one of stone, water, "
     "timber, engineering, steel (missing)"),
    (lambda r: r["highway"][2].update(scenery=[]), ".scenery: must be a list of two of"),
    (lambda r: r["landmarks"][0].update(ability={"kind": "scenery_points", "scenery": "ocean",
                                                 "points": None}),
     ".ability: scenery_points.points must be a positive integer (missing)"),
    (lambda r: r["landmarks"][0].update(ability=None), ".ability: must be an object with a "
     "'kind' (missing)"),
    (lambda r: r["highway"][2].update(material="gold"), "steel, got 'gold'"),  # a value: named
])
def test_a_missing_value_is_said_missing_not_got_none(change, expected):
    """A field left blank (the editor sends null, '' or an empty list) reads 'missing',
    not Python's "got None" / "got ''" (the message keeps its card and field)."""
    raw = default_raw()
    change(raw)
    errors = card_errors(raw)
    assert len(errors) == 1 and expected in errors[0], errors
    assert "got None" not in errors[0] and "got ''" not in errors[0] and "got []" not in errors[0]
    if "gold" not in expected:
        assert errors[0].endswith(" (missing)"), errors


def test_a_missing_position_field_is_said_missing():
    raw = state_to_json(build_step(lambda s: True))
    raw["turn"] = None
    refused(raw, "turn", "must be an integer 0 to")
    with pytest.raises(PositionError) as info:
        state_from_json(raw)
    assert info.value.reason.endswith("(missing)"), info.value.reason
    raw = state_to_json(build_step(lambda s: True))
    raw["seats"][0]["hand"] = None
    with pytest.raises(PositionError) as info:
        state_from_json(raw)
    assert (info.value.field, info.value.reason) == ("seats[0].hand",
                                                     "must be a list of card ids (missing)")


def test_a_set_with_unequal_turns_is_refused_inline_and_from_a_file(tmp_path):
    raw = default_raw()
    raw["highway"][0]["players"] = [3, 4]  # the 2-player deck loses a card
    errors = card_errors(raw)
    assert any("same number of turns" in e for e in errors)
    position = state_to_json(new_game(2, seed=1))
    position["cards"] = raw
    with pytest.raises(PositionError) as info:
        state_from_json(position)
    assert info.value.field == "cards"


def test_the_card_examples_of_the_format_page_are_the_shipped_cards():
    """docs/format.md shows cards of the shipped set (JSON lines and CSV rows, as the
    set's file and the CSV writer have them): its H01 and H30 were not (other Sceneries,
    costs, backs, H30 another bonus), nor was a Persistent Material of a card taken by
    per:/bh: a 1-Mile card's."""
    import csv
    from importlib import resources
    from pathlib import Path

    from solver.rules.cardset_csv import card_set_to_csv

    doc = (Path(__file__).resolve().parents[1] / "docs" / "format.md").read_text("utf-8")
    raw = json.loads(resources.files("solver.rules").joinpath("data/default.json")
                     .read_text("utf-8"))
    shipped = {c["id"]: c for c in raw["highway"] + raw["landmarks"]}
    shown: dict[str, int] = {"json": 0, "csv": 0}
    for lang, body in re.findall(r"```(json|csv)\n(.*?)```", doc, re.S):
        for line in body.splitlines():
            if lang == "json" and line.startswith('{"id": '):
                card = json.loads(line)
                assert card == shipped[card["id"]], card["id"]
            elif lang == "csv" and not line.startswith("kind,"):
                row = next(csv.reader([line]))
                kind = {"highway": "highway", "landmark": "landmarks"}[row[0]]
                written = card_set_to_csv({kind: [shipped[row[1]]]}).splitlines()[1]
                assert line == written, row[1]
            else:
                continue
            shown[lang] += 1
    assert min(shown.values()) >= 3, shown
    taken = re.findall(r"`(?:per|bh:\d+):(\w+)`", doc)
    assert taken and all(shipped[c]["miles"] == 1 for c in taken), taken


# ------------------------------------------------------------------ positions

def build_step(pred, players: int = 2):
    """The first build-step state of random default games that satisfies ``pred``."""
    for seed in range(500):
        rng = random.Random(seed)
        state = new_game(players, seed)
        while not state.is_over:
            if state.phase == Phase.BUILD and pred(state):
                return state
            state = apply(state, rng.choice(legal_actions(state)))
    raise AssertionError("no such position")


def refused(raw, field: str, words: str = "", cards=None) -> None:
    with pytest.raises(PositionError) as info:
        state_from_json(raw, cards)
    assert info.value.field == field, str(info.value)
    assert words in info.value.reason, str(info.value)


def test_unknown_fields_are_refused_in_positions():
    raw = state_to_json(build_step(lambda s: True))
    for where, field in ((raw, "colour"), (raw["seats"][1], "seats[1].colour"),
                         (raw["per_turn"], "per_turn.colour")):
        bad = copy.deepcopy(raw)
        target = bad if where is raw else (bad["seats"][1] if field.startswith("seats")
                                           else bad["per_turn"])
        target["colour"] = "red"
        refused(bad, field, "unknown field")


def test_per_turn_usage_only_where_a_card_or_landmark_allows_it():
    state = build_step(lambda s: any(DEFAULT.miles[c] == 1 for c in s.player.highway)
                       and any(DEFAULT.miles[c] > 1 for c in s.player.highway)
                       and not s.player.landmarks)
    one = next(DEFAULT.highway[c].id for c in state.player.highway if DEFAULT.miles[c] == 1)
    big = next(DEFAULT.highway[c].id for c in state.player.highway if DEFAULT.miles[c] > 1)
    raw = state_to_json(state)
    bad = copy.deepcopy(raw)
    bad["per_turn"]["persistent_used"] = {big: 1}
    refused(bad, f"per_turn.persistent_used.{big}", "only 1-Mile cards")
    bad = copy.deepcopy(raw)
    bad["per_turn"]["persistent_used"] = {one: 5}
    refused(bad, f"per_turn.persistent_used.{one}", "5 uses this turn")
    bad = copy.deepcopy(raw)
    bad["per_turn"]["resources_used"] = {"borrow_discard": 3}
    refused(bad, "per_turn.resources_used.borrow_discard", "no Landmark")
    ok = copy.deepcopy(raw)
    ok["per_turn"]["persistent_used"] = {one: 1}
    assert state_from_json(ok).persistent_uses == {DEFAULT.card(one): 1}


def claims_set():
    return card_set([hw("A", 3, "ocean ocean"), hw("B", 3, "ocean field"),
                     hw("C", 3, "ocean mountain"), hw("G", 3, "mountain mountain")]
                    + [hw(f"X{i}") for i in range(13)],
                    [lm("O1", "ocean"), lm("M1", "mountain")] + [lm(f"Z{i}") for i in range(8)])


@pytest.mark.parametrize("highway, hand, landmarks, turns", [
    ("A B", "", [("O1", "B")], 0),  # a claim before any turn
    ("A B C G", "", [("O1", "A"), ("M1", "G")], 1),  # two claims in one turn
])
def test_more_landmarks_than_turns_is_refused(highway, hand, landmarks, turns):
    cards = claims_set()  # 17 cards: 2 turns each for 2 players
    held = 2 + 2 * turns
    other = [f"X{i}" for i in range(held)]
    rest = [c.id for c in cards.highway if c.id not in highway.split() + other]
    placed = [a for a, _ in landmarks]
    free = [x.id for x in cards.landmarks if x.id not in placed]
    state = make_state(cards, [{"highway": highway, "hand": hand, "turns": turns,
                                "landmarks": landmarks},
                               {"hand": " ".join(other), "turns": turns}],
                       deck=" ".join(rest[:-5]), depot=" ".join(rest[-5:]), phase=Phase.TAKE,
                       landmark_row=" ".join(free[:5]), landmark_deck=" ".join(free[5:]),
                       turn=2 * turns, current=0)
    refused(state_to_json(state), "seats[0].landmarks", "at most one claim per turn", cards)


# ------------------------------------------------------------------ views and records

def test_unknown_fields_are_refused_in_views_and_records():
    state = build_step(lambda s: True)
    raw = view_to_json(view_of(state, state.current))
    assert view_from_json(raw) == view_of(state, state.current)
    other = next(i for i in range(len(raw["seats"])) if i != raw["view_of"])
    for mutate, field in ((lambda r: r.update(extra=1), "extra"),
                          (lambda r: r["seats"][other].update(extra=1), f"seats[{other}].extra"),
                          (lambda r: r["seats"][other]["hand"].update(extra=1),
                           f"seats[{other}].hand.extra"),
                          (lambda r: r["deck"].update(order=[]), "deck.order")):
        bad = copy.deepcopy(raw)
        mutate(bad)
        with pytest.raises(PositionError) as info:
            view_from_json(bad)
        assert info.value.field == field
    record = GameRecord.start(2, 3).to_json() | {"winner": 0}
    with pytest.raises(RecordError, match="winner: unknown field"):
        GameRecord.from_json(record)


# ------------------------------------------------------------------ the CLI: one line

def test_the_cli_reports_a_bad_card_set_in_one_line(tmp_path, capsys):
    raw = default_raw()
    raw["highway"][2]["miles"] = "far"
    raw["highway"][7]["text"] = 42
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    position = tmp_path / "pos.json"
    position.write_text(json.dumps(state_to_json(new_game(2, seed=1))))
    assert main(["score", str(position), "--cards", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".miles:" in err and "1 more problem" in err
    raw = default_raw()
    raw["highway"][0]["players"] = [3, 4]
    inline = state_to_json(new_game(2, seed=1))
    inline["cards"] = raw
    position.write_text(json.dumps(inline))
    assert main(["score", str(position)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"bigsur: error: {position}: cards: ")


def _one_line_error(capsys, words: str) -> None:
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    assert words in captured.err, captured.err


@pytest.mark.parametrize("argv", [
    ["score", "{file}"], ["replay", "{file}"], ["verify", "{file}"],
    ["score", "{pos}", "--cards", "{file}"], ["cards", "show", "{file}"],
    ["hint", "{file}"], ["pay", "{file}", "--build", "H11:left"],
])
@pytest.mark.parametrize("kind, words", [
    ("binary", "not UTF-8 text"), ("directory", "directory"),
])
def test_unreadable_files_are_one_line_errors(argv, kind, words, tmp_path, capsys):
    """A binary file or a directory where a JSON file belongs: one line naming it, exit 2
    (a UnicodeDecodeError or IsADirectoryError traceback before)."""
    bad = tmp_path / "bad.json"
    if kind == "binary":
        bad.write_bytes(b"\xff\xfe\x00{")
    else:
        bad.mkdir()
    position = tmp_path / "pos.json"
    position.write_text(json.dumps(state_to_json(new_game(2, seed=1))))
    assert main([a.format(file=bad, pos=position) for a in argv]) == 2
    _one_line_error(capsys, str(bad))
    with pytest.raises(CardSetError, match=words):
        load_card_set(bad)
    with pytest.raises(RecordError, match=words.split()[0]):
        GameRecord.load(bad)


def test_cards_validate_names_an_unreadable_file(tmp_path, capsys):
    assert main(["cards", "validate", str(tmp_path)]) == 2  # an error of the command
    out = capsys.readouterr()
    assert "cannot read the file" in out.err and "Traceback" not in out.err


def test_selfplay_refuses_a_bad_out_or_game_count(tmp_path, capsys):
    taken = tmp_path / "file"
    taken.write_text("")
    assert main(["selfplay", "--out", str(taken)]) == 2
    _one_line_error(capsys, f"--out {taken}: is a file, not a directory")
    assert main(["selfplay", "--games", "-1", "--out", str(tmp_path / "r")]) == 2
    _one_line_error(capsys, "--games: must be at least 1, got -1")


def test_cards_new_and_import_report_an_unwritable_output(tmp_path, capsys):
    assert main(["cards", "new", str(tmp_path / "no" / "dir" / "t.csv"), "--name", "t"]) == 2
    _one_line_error(capsys, "No such file or directory")
    template = tmp_path / "t.csv"
    assert main(["cards", "new", str(template), "--name", "t"]) == 0
    capsys.readouterr()
    assert main(["cards", "import", str(template), "--out", str(tmp_path)]) == 2
    _one_line_error(capsys, f"--out {tmp_path}")


def test_view_of_refuses_a_seat_not_in_the_game():
    state = new_game(2, seed=1)
    for seat in (-1, 2):  # -1 gave the last seat's view, labelled seat -1
        with pytest.raises(PositionError, match=f"seat: must be a seat 0 to 1, got {seat}"):
            view_of(state, seat)


@pytest.mark.parametrize("seat", [-1, "0", 9, True])
def test_claimable_refuses_a_seat_not_in_the_game_as_view_of_does(seat):
    """claimable(state, -1) answered for the last seat, "0" was a TypeError and 9 an
    IndexError from inside; of a state or a view it is refused in view_of's words."""
    from solver.rules.engine import claimable

    state = new_game(2, seed=1)
    with pytest.raises(PositionError) as said:
        view_of(state, seat)
    for position in (state, view_of(state, 0)):
        with pytest.raises(PositionError) as err:
            claimable(position, seat)
        assert str(err.value) == str(said.value) == f"seat: must be a seat 0 to 1, got {seat!r}"
    for seat_in_game in (0, 1):  # a seat of the game answers, of a state as of a view
        assert claimable(state, seat_in_game) == claimable(view_of(state, 0), seat_in_game)


@pytest.mark.parametrize("argv, words", [
    (["--players", "abc"], "--players: each count must be 2, 3 or 4, got 'abc'"),
    (["--players", "2.5"], "--players: each count must be 2, 3 or 4, got '2.5'"),
    (["--games", "1"], "--games: at least 2 (whole games are held out"),
    (["--hidden", "64,x"], "--hidden: layer sizes such as 64,64, got '64,x'"),
    (["--out", "{tmp}"], "--out {tmp}: is a directory"),
    (["--out", "{tmp}/no/model.npz"], "--out {tmp}/no/model.npz: no such directory"),
    (["--save-data", "{tmp}/no/data.npz"], "--save-data {tmp}/no/data.npz: no such directory"),
])
def test_train_refuses_bad_arguments_before_any_game(argv, words, tmp_path, capsys,
                                                     monkeypatch):
    """Each was a traceback (a ValueError, a fit of no games) or, for an output that
    cannot be written, one only after the self-play and the fit had run."""
    def no_games(*_args, **_kwargs):
        raise AssertionError("self-play started before the arguments were checked")

    monkeypatch.setattr("solver.search.train.generate", no_games)
    argv = [a.format(tmp=tmp_path) for a in argv]
    out = [] if "--out" in argv else ["--out", str(tmp_path / "m.npz")]
    assert main(["train", "--games", "40", *out, *argv]) == 2
    _one_line_error(capsys, words.format(tmp=tmp_path))


def test_a_fit_of_one_game_says_why_it_cannot_hold_one_out():
    from solver.search.train import fit, generate

    data = generate(DEFAULT, (2,), games=1, seed=3, workers=1)
    with pytest.raises(ValueError, match="at least 2 are needed"):
        fit(data, epochs=1)


def test_tournament_refuses_empty_specs_odd_classes_and_an_out_that_is_a_file(
        tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "oddbots.py").write_text(
        "NOT_A_CLASS = 3\n\nclass NeedsArgs:\n    def __init__(self, depth):\n"
        "        self.depth = depth\n")
    taken = tmp_path / "taken"
    taken.write_text("")
    cases = [
        (["--bots", "greedy,,random"], "--bots 'greedy,,random': an empty bot spec"),
        (["--bots", "oddbots:NOT_A_CLASS,random"], "NOT_A_CLASS is a int, not a class"),
        (["--bots", "oddbots:NeedsArgs,random"], "NeedsArgs() cannot be made without"),
        (["--bots", "random", "--out", str(taken)], f"--out {taken}: cannot make the folder"),
    ]
    for argv, words in cases:
        assert main(["tournament", "--games", "2", "--workers", "1", "--quiet", *argv]) == 2
        _one_line_error(capsys, words)


def test_tournament_help_shows_each_default_once(capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "95% intervals" in text and "%%" not in text
    assert "(default: None)" not in text and "(default: all cores)" in text


def test_hint_refuses_a_top_below_one(tmp_path, capsys):
    position = tmp_path / "pos.json"
    position.write_text(json.dumps(state_to_json(new_game(2, seed=1))))
    for top in ("0", "-1"):  # both showed every move
        assert main(["hint", str(position), "--top", top, "--iterations", "5"]) == 2
        _one_line_error(capsys, f"--top: at least 1, got {top}")
