"""Attack corpus: card sets, positions, views and records that must be refused, each with
a message naming the field (one root cause per bad card; the CLI prints one line)."""

from __future__ import annotations

import copy
import json
import random

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
    (lambda r: r["landmarks"][0].update(text=None), ".text: must be a string, got None"),
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
    assert err.count("\n") == 1 and err.startswith("bigsur: error: cards: ")
