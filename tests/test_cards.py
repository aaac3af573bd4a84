"""Card sets: the validator (every kind of bad data, named by card and field), the
shipped reconstruction, and the ``bigsur cards`` commands with a user's own set."""

from __future__ import annotations

import copy
import json

import pytest
from rules_testkit import ALL, fillers, hw, lm, raw_set

from solver.cli import main
from solver.rules.cards import (
    CardSetError,
    UnknownCardError,
    load_card_set,
    parse_card_set,
    read_card_set,
)
from solver.rules.engine import SetupError, new_game, turns_per_player

# ------------------------------------------------------------------ helpers


def full_raw(n2: int = 49, n3: int = 59, n4: int = 69, landmarks: int = 20) -> dict:
    """A complete set in the schema: ``n4`` cards, the first ``n2`` marked for 2 players,
    the first ``n3`` for 3, all for 4 (unless the test changes the marks)."""
    highway = []
    for i in range(n4):
        players = [p for p, n in ((2, n2), (3, n3), (4, n4)) if i < n]
        highway.append(hw(f"H{i:02d}", 1 + i % 4, players=players,
                          bonus={"kind": "distinct_scenery", "points": 1} if i % 4 == 1 else None))
    return raw_set(highway, [lm(f"L{i:02d}") for i in range(landmarks)], name="full")


def errors_of(raw: dict, require_full: bool = False) -> list[str]:
    with pytest.raises(CardSetError) as info:
        parse_card_set(raw, "t", require_full=require_full)
    return info.value.errors


def one_error(raw: dict, require_full: bool = False) -> str:
    errors = errors_of(raw, require_full)
    assert len(errors) == 1, errors
    return errors[0]


def base() -> dict:
    return raw_set([hw("A", 1, per="water"), hw("B", 2), hw("C", 3), hw("D", 4)],
                   [lm("LA")])


# ------------------------------------------------------------------ validator


def test_valid_small_set_parses_to_index_tables():
    cards = parse_card_set(base(), require_full=False)
    a, b = cards.card("A"), cards.card("B")
    assert cards.miles[a] == 1 and cards.persistent[a] == 1  # water
    assert cards.persistent[b] == -1 and cards.highway[b].bonus.kind == "mile_cards"
    assert cards.landmark("LA") == 0
    assert cards.deck_for(2) == [0, 1, 2, 3]


def test_duplicate_id_is_named():
    raw = base()
    raw["highway"][2]["id"] = "A"
    msg = one_error(raw)
    assert "'A'" in msg and ".id" in msg and "duplicate" in msg


def test_duplicate_id_across_highway_and_landmarks():
    raw = base()
    raw["landmarks"][0]["id"] = "B"
    msg = one_error(raw)
    assert "landmark 'B'.id" in msg and "duplicate" in msg


@pytest.mark.parametrize("bad_id", ["", "a b", "x:y", "p+q", "r=s", "c,d", 7, "deck", "rec"])
def test_bad_id_characters(bad_id):
    raw = base()
    raw["highway"][2]["id"] = bad_id
    assert ".id" in one_error(raw)


@pytest.mark.parametrize("miles", [0, 5, -1, "3", 2.5, True])
def test_miles_out_of_range(miles):
    raw = base()
    raw["highway"][2]["miles"] = miles
    msg = one_error(raw)
    assert msg.startswith("highway card 'C'.miles") and "1 to 4" in msg


def test_one_mile_card_without_persistent():
    raw = base()
    del raw["highway"][0]["persistent"]
    msg = one_error(raw)
    assert msg.startswith("highway card 'A'.persistent") and "1-Mile" in msg


def test_persistent_only_on_one_mile_cards():
    raw = base()
    raw["highway"][2]["persistent"] = "stone"
    assert one_error(raw).startswith("highway card 'C'.persistent")


def test_two_mile_card_without_bonus():
    raw = base()
    del raw["highway"][1]["bonus"]
    msg = one_error(raw)
    assert msg.startswith("highway card 'B'.bonus") and "scoring condition" in msg


def test_bonus_only_on_two_mile_cards():
    raw = base()
    raw["highway"][3]["bonus"] = {"kind": "distinct_scenery", "points": 1}
    assert one_error(raw).startswith("highway card 'D'.bonus")


def test_unknown_bonus_kind():
    raw = base()
    raw["highway"][1]["bonus"] = {"kind": "moon_phase", "points": 1}
    msg = one_error(raw)
    assert msg.startswith("highway card 'B'.bonus") and "moon_phase" in msg
    assert "distinct_scenery" in msg  # the known kinds are listed


@pytest.mark.parametrize("bonus, words", [
    ({"kind": "distinct_scenery"}, "needs parameter 'points'"),
    ({"kind": "distinct_scenery", "points": 0}, "positive integer"),
    ({"kind": "distinct_scenery", "points": 1, "colour": "red"}, "unknown parameter"),
    ({"kind": "scenery_points", "scenery": "desert", "points": 1}, "scenery"),
    ({"kind": "mile_cards", "miles": 7, "points": 1}, "1 to 4"),
    ({"kind": "material_cards", "material": "gold", "points": 1}, "material"),
    ({"kind": "mile_bonus", "miles": 1}, "cannot be printed on a bonus"),
    ("distinct_scenery", "must be an object"),
    ({"kind": ["distinct_scenery"], "points": 1}, "kind"),
])
def test_bad_bonus_parameters(bonus, words):
    raw = base()
    raw["highway"][1]["bonus"] = bonus
    msg = one_error(raw)
    assert msg.startswith("highway card 'B'.bonus") and words in msg


def test_unknown_landmark_ability():
    raw = base()
    raw["landmarks"][0]["ability"] = {"kind": "teleport"}
    msg = one_error(raw)
    assert msg.startswith("landmark 'LA'.ability") and "teleport" in msg


def test_bonus_kind_not_allowed_on_landmark():
    raw = base()
    raw["landmarks"][0]["ability"] = {"kind": "highway_end", "points": 2}
    msg = one_error(raw)
    assert msg.startswith("landmark 'LA'.ability") and "cannot be printed on a landmark" in msg


@pytest.mark.parametrize("field, value", [
    ("scenery", ["ocean"]), ("scenery", ["ocean", "desert"]), ("scenery", "ocean forest"),
    ("scenery", ["ocean", "forest", "field"]),
    ("cost", ["stone"]), ("cost", ["stone", "gold"]), ("cost", ["stone"] * 4),
    ("material", "gold"), ("material", None), ("players", []), ("players", [1]),
    ("players", [5]), ("players", "2"), ("flavour", "x"),
])
def test_bad_highway_fields(field, value):
    raw = base()
    raw["highway"][2][field] = value
    msg = one_error(raw)
    assert msg.startswith(f"highway card 'C'.{field}"), msg


@pytest.mark.parametrize("field, value", [
    ("scenery", "desert"), ("scenery", None), ("name", ""), ("name", 3), ("extra", 1)])
def test_bad_landmark_fields(field, value):
    raw = base()
    raw["landmarks"][0][field] = value
    assert one_error(raw).startswith(f"landmark 'LA'.{field}")


def test_bad_persistent_material():
    raw = base()
    raw["highway"][0]["persistent"] = "gold"
    assert one_error(raw).startswith("highway card 'A'.persistent")


def test_every_problem_is_listed_at_once():
    raw = base()
    raw["highway"][3]["miles"] = 9
    raw["highway"][2]["material"] = "gold"
    raw["landmarks"][0]["scenery"] = "moon"
    errors = errors_of(raw)
    assert len(errors) == 3
    assert any("'D'.miles" in e for e in errors) and any("'C'.material" in e for e in errors)
    assert any("'LA'.scenery" in e for e in errors)


def test_every_problem_of_a_card_is_listed_at_once_in_field_order():
    """Only a card's first problem was reported: a card with its material, persistent and
    players all blank said 'material', then 'persistent' once that was fixed, then
    'players'. Each is listed, in the fields' order; bad miles are still said alone
    (persistent and bonus depend on them)."""
    raw = base()
    for field in ("players", "material", "persistent"):
        del raw["highway"][0][field]
    raw["highway"][1].update(miles=9, bonus=None, scenery=["moon"])
    raw["landmarks"][0].update(name="", ability={"kind": "fly"})
    errors = errors_of(raw)
    assert [e.split(":")[0] for e in errors] == [
        "highway card 'A'.material", "highway card 'A'.persistent", "highway card 'A'.players",
        "highway card 'B'.miles",
        "landmark 'LA'.name", "landmark 'LA'.ability"], errors


def test_a_card_repeating_an_id_is_named_by_that_problem_alone():
    """Its other problems would name the id, so the earlier card of that id (the page
    puts a problem on the card its id names)."""
    raw = base()
    raw["highway"][2].update(id="A", material="gold")
    raw["landmarks"].append({**lm("LA"), "scenery": "moon"})
    assert errors_of(raw) == ["highway card 'A'.id: duplicate id 'A'",
                              "landmark 'LA'.id: duplicate id 'LA'"]


@pytest.mark.parametrize("raw, field", [
    ([], "top level"), ({"format": "x", "name": "n", "highway": [], "landmarks": []}, "format"),
    ({"format": "bigsur-cards/1", "highway": [], "landmarks": []}, "name"),
    ({"format": "bigsur-cards/1", "name": "n", "highway": {}, "landmarks": []}, "highway"),
    ({"format": "bigsur-cards/1", "name": "n", "highway": [], "landmarks": 3}, "landmarks"),
    ({"format": "bigsur-cards/1", "name": "n", "highway": [3], "landmarks": []}, "highway[0]"),
    ({"format": "bigsur-cards/1", "name": "n", "reconstruction": "yes", "highway": [],
      "landmarks": []}, "reconstruction"),
])
def test_bad_top_level(raw, field):
    with pytest.raises(CardSetError) as info:
        parse_card_set(raw, require_full=False)
    assert any(e.startswith(field) for e in info.value.errors), info.value.errors


def test_a_set_stating_its_own_label_and_fingerprint_reads_as_the_same_set():
    """The server's GET /v1/cards/NAME adds both; sent back as they came, they were
    refused as unknown fields."""
    cards = load_card_set()
    saved = {**cards.to_json(), "label": cards.label, "fingerprint": cards.fingerprint}
    assert parse_card_set(saved).fingerprint == cards.fingerprint


def test_a_stated_fingerprint_that_an_edit_changed_is_named():
    cards = load_card_set()
    saved = {**cards.to_json(), "label": cards.label, "fingerprint": cards.fingerprint,
             "description": "edited after it was saved"}
    errors = errors_of(saved, require_full=True)
    assert len(errors) == 1 and errors[0].startswith("fingerprint: "), errors
    assert cards.fingerprint in errors[0] and "drops them" in errors[0]


def test_a_stated_label_that_a_rename_changed_is_named():
    cards = load_card_set()
    saved = {**cards.to_json(), "label": cards.label, "name": "mine"}
    errors = errors_of(saved, require_full=True)
    assert len(errors) == 1 and errors[0].startswith("label: "), errors
    assert "'mine v1 (reconstruction" in errors[0]


def test_full_set_arithmetic_accepts_49_59_69():
    cards = parse_card_set(full_raw(), "full")
    assert [len(cards.deck_for(p)) for p in (2, 3, 4)] == [49, 59, 69]


@pytest.mark.parametrize("n4, nl, field", [(68, 20, "highway"), (70, 20, "highway"),
                                           (69, 19, "landmarks"), (69, 21, "landmarks")])
def test_wrong_totals(n4, nl, field):
    raw = full_raw(n2=min(49, n4), n3=min(59, n4), n4=n4, landmarks=nl)
    errors = errors_of(raw, require_full=True)
    assert any(e.startswith(f"{field}: a full set has") for e in errors), errors


@pytest.mark.parametrize("n2, n3, bad", [(48, 59, 2), (50, 59, 2), (49, 58, 3), (49, 60, 3),
                                         (9, 59, 2)])
def test_deck_breaking_equal_turns(n2, n3, bad):
    msg = one_error(full_raw(n2=n2, n3=n3), require_full=True)
    assert msg.startswith("players:") and f"{bad}-player deck" in msg
    assert "same number of turns" in msg


@pytest.mark.parametrize("n2", [45, 49, 53, 57, 61, 65])
def test_every_allowed_two_player_deck_size(n2):
    assert parse_card_set(full_raw(n2=n2), require_full=True)


@pytest.mark.parametrize("n3", [47, 53, 59, 65])
def test_every_allowed_three_player_deck_size(n3):
    assert parse_card_set(full_raw(n3=n3), require_full=True)


def test_four_players_must_use_every_card():
    raw = full_raw()
    raw["highway"][5]["players"] = [2, 3]
    errors = errors_of(raw, require_full=True)
    assert "players: 4 players use every card; 1 card(s) lack 4" in errors


def test_unknown_ids_raise_named_errors():
    cards = parse_card_set(base(), require_full=False)
    with pytest.raises(UnknownCardError, match="'Z9'"):
        cards.card("Z9")
    with pytest.raises(UnknownCardError, match="Landmark 'Q'"):
        cards.landmark("Q")


def test_new_game_rejects_a_deck_without_equal_turns():
    cards = parse_card_set(raw_set(fillers(12), [lm("L")]), require_full=False)
    with pytest.raises(SetupError, match="same number of turns"):
        new_game(2, seed=1, cards=cards)


@pytest.mark.parametrize("players", [1, 5, "2", True])
def test_new_game_rejects_player_counts(players, small):
    with pytest.raises(SetupError, match="players"):
        new_game(players, seed=1, cards=small)


def test_to_json_round_trip_and_fingerprint():
    cards = parse_card_set(base(), require_full=False)
    again = parse_card_set(cards.to_json(), require_full=False)
    assert again.to_json() == cards.to_json()
    assert again.fingerprint == cards.fingerprint
    changed = base()
    changed["highway"][2]["miles"] = 4
    assert parse_card_set(changed, require_full=False).fingerprint != cards.fingerprint


# ------------------------------------------------------------------ the shipped set


def test_default_set_is_a_complete_labelled_reconstruction():
    cards = load_card_set()
    assert (len(cards.highway), len(cards.landmarks)) == (69, 20)
    assert cards.reconstruction is True
    assert "reconstruction" in cards.label
    assert [len(cards.deck_for(p)) for p in (2, 3, 4)] == [49, 59, 69]
    assert load_card_set("default") is cards


def test_default_set_satisfies_the_stated_facts():
    cards = load_card_set()
    for c in cards.highway:
        assert 1 <= c.miles <= 4 and 2 <= len(c.cost) <= 3
        assert (c.persistent is not None) == (c.miles == 1), c.id
        assert (c.bonus is not None) == (c.miles == 2), c.id
        assert 4 in c.players
    bonus_kinds = {c.bonus.kind for c in cards.highway if c.bonus}
    assert "distinct_scenery" in bonus_kinds and len(bonus_kinds) >= 6
    ability_kinds = {lm.ability.kind for lm in cards.landmarks}
    assert {"persistent_extra_use", "borrow_highway", "borrow_discard", "mile_bonus",
            "scenery_points", "landmark_collection"} <= ability_kinds
    # every Material and Scenery is used, roughly balanced
    for table in (cards.material, [s for pair in cards.scenery for s in pair]):
        counts = [list(table).count(i) for i in range(5)]
        assert min(counts) > 0 and max(counts) <= 3 * min(counts), counts
    assert len({lm.name for lm in cards.landmarks}) == 20


@pytest.mark.parametrize("players, turns", [(2, 10), (3, 8), (4, 7)])
def test_default_set_turns_per_player(players, turns):
    assert turns_per_player(new_game(players, seed=0)) == turns


def test_default_set_json_is_valid_through_the_file_reader(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(json.dumps(load_card_set().to_json()))
    assert read_card_set(path).fingerprint == load_card_set().fingerprint


# ------------------------------------------------------------------ CLI


def test_cli_validate_default_ok(capsys):
    assert main(["cards", "validate"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK:") and "reconstruction" in out and "69 Highway" in out


def test_cli_validate_good_file(tmp_path, capsys):
    path = tmp_path / "mine.json"
    raw = full_raw()
    raw["name"] = "printed"
    path.write_text(json.dumps(raw))
    assert main(["cards", "validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "printed" in out and "reconstruction" not in out
    assert "2 players: 49 cards" in out


def test_cli_validate_bad_file_lists_every_problem(tmp_path, capsys):
    raw = full_raw()
    raw["highway"][0]["miles"] = 9
    del raw["highway"][1]["bonus"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    assert main(["cards", "validate", str(path)]) != 0
    err = capsys.readouterr().err
    assert "highway card 'H00'.miles" in err and "highway card 'H01'.bonus" in err


@pytest.mark.parametrize("content, words", [(None, "file not found"), ("{nope", "not valid JSON")])
def test_cli_validate_unreadable_file(tmp_path, capsys, content, words):
    path = tmp_path / "x.json"
    if content is not None:
        path.write_text(content)
    assert main(["cards", "validate", str(path)]) != 0
    assert words in capsys.readouterr().err


def test_cli_show_labels_the_reconstruction(capsys):
    assert main(["cards", "show"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("Card set:") and "reconstruction" in first
    cards = load_card_set()
    assert all(c.id in out for c in cards.highway) and all(x.name in out for x in cards.landmarks)


def test_cli_show_json_and_user_file(tmp_path, capsys):
    raw = full_raw()
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(raw))
    assert main(["cards", "show", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in shown["highway"]] == [c["id"] for c in raw["highway"]]
    assert main(["cards", "show", str(path)]) == 0
    assert "reconstruction" not in capsys.readouterr().out.splitlines()[0]


def test_cards_option_loads_a_user_set_everywhere(tmp_path, capsys):
    """``--cards FILE``: the engine deals from the user's set (selfplay records it)."""
    raw = full_raw()
    raw["name"] = "owner-set"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(raw))
    assert load_card_set(str(path)).name == "owner-set"
    out = tmp_path / "rec"
    assert main(["selfplay", "--players", "2", "--games", "1", "--seed", "3",
                 "--out", str(out), "--cards", str(path)]) == 0
    record = json.loads(next(out.iterdir()).read_text())
    assert record["card_set"]["name"] == "owner-set"
    assert main(["replay", str(next(out.iterdir()))]) == 0
    assert "owner-set" in capsys.readouterr().out


def test_cards_option_rejects_a_bad_user_set(tmp_path, capsys):
    raw = full_raw()
    raw["highway"][3]["cost"] = []
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    assert main(["selfplay", "--games", "1", "--out", str(tmp_path / "o"),
                 "--cards", str(path)]) == 2
    assert "highway card 'H03'.cost" in capsys.readouterr().err


def test_deck_for_filters_by_player_marks():
    raw = raw_set([hw("A", players=[4]), hw("B", players=[3, 4]), hw("C", players=ALL)])
    cards = parse_card_set(raw, require_full=False)
    assert [cards.highway[c].id for c in cards.deck_for(2)] == ["C"]
    assert [cards.highway[c].id for c in cards.deck_for(3)] == ["B", "C"]
    assert [cards.highway[c].id for c in cards.deck_for(4)] == ["A", "B", "C"]


def test_parse_does_not_mutate_input():
    raw = full_raw()
    before = copy.deepcopy(raw)
    parse_card_set(raw, require_full=True)
    assert raw == before


# ------------------------------------------------------------------ a set is a value


def test_sets_of_equal_content_are_equal_however_made(tmp_path):
    """Two loads of one file, a parse of its JSON, a pickle and a copy are one value:
    equal, equal hashes, one dict key; the views and states made with them are equal."""
    import pickle

    from solver.rules.engine import play
    from solver.rules.views import view_from_json, view_of, view_to_json

    raw = load_card_set().to_json()
    raw["name"] = "mine"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(raw))
    first, second = load_card_set(str(path)), load_card_set(path)
    made = [second, parse_card_set(json.loads(path.read_text())), copy.copy(first),
            copy.deepcopy(first), pickle.loads(pickle.dumps(first))]
    for other in made:
        assert other == first and hash(other) == hash(first) and {first: 1}[other] == 1
    assert first != load_card_set() and first.cards_fingerprint == load_card_set(
        ).cards_fingerprint  # the name is part of the value
    raw["description"] = "another"
    assert parse_card_set(raw) != first
    states = [new_game(2, seed=8, cards=c) for c in (first, second)]
    states = [play(play(s, "take deck"), "take deck") for s in states]
    views = [view_of(s, 0) for s in states]
    assert views[0] == views[1] and view_from_json(view_to_json(views[0])) == views[0]
    assert view_from_json(view_to_json(views[0])).cards == first


@pytest.mark.parametrize("players", [5, 1, 0, -3, True, 2.0, "2", None])
def test_turns_per_player_names_a_player_count_the_rules_do_not_have(players):
    """load_card_set().turns_per_player(5) was -2: the rules have 2 to 4 players."""
    with pytest.raises(ValueError, match=rf"^players: must be 2 to 4, got {players!r}$"):
        load_card_set().turns_per_player(players)


def test_turns_per_player_names_a_count_the_set_cannot_deal():
    np = pytest.importorskip("numpy")
    highway = [hw(f"H{i:02d}", 1 + i % 4, players=[2, 3, 4] if i < 8 else [4],
                  bonus={"kind": "distinct_scenery", "points": 1} if i % 4 == 1 else None)
               for i in range(30)]
    cards = parse_card_set(raw_set(highway, [lm("L00")]), require_full=False)
    assert cards.turns_per_player(np.int64(4)) == cards.turns_per_player(4) >= 0
    with pytest.raises(ValueError, match="has 8 cards for 3 players, fewer than the 11"):
        cards.turns_per_player(3)
