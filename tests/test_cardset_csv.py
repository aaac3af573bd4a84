"""Card sets as CSV (solver/rules/cardset_csv.py) and `bigsur cards new` / `import`."""

from __future__ import annotations

import json

from solver.cli import main
from solver.rules.cards import load_card_set, parse_card_set
from solver.rules.cardset_csv import (
    card_set_to_csv,
    csv_to_card_set_json,
    effect_from_text,
    effect_to_text,
    template_csv,
)


def test_round_trip_of_the_shipped_set():
    default = load_card_set().to_json()
    raw, errors = csv_to_card_set_json(card_set_to_csv(default), "default",
                                       description=default["description"], reconstruction=True)
    assert errors == []
    assert parse_card_set(raw).fingerprint == load_card_set().fingerprint


def test_effects_as_text():
    effect = {"kind": "landmark_collection", "points": 2, "sceneries": ["ocean", "forest"]}
    assert effect_to_text(effect) == "landmark_collection points=2 sceneries=ocean|forest"
    assert effect_from_text(effect_to_text(effect)) == effect
    one = effect_from_text("landmark_collection points=1 sceneries=ocean")
    assert one["sceneries"] == ["ocean"]


def test_conversion_errors_name_row_card_and_column():
    text = card_set_to_csv(load_card_set().to_json())
    lines = text.splitlines()
    lines[2] = lines[2].replace("highway,H02,1,", "highway,H02,one,")
    lines[5] = "motorway" + lines[5][len("highway"):]
    lines.append("landmark,L99,,ocean,,,,,,Nowhere,scenery_points scenery=ocean points,")
    _raw, errors = csv_to_card_set_json("\n".join(lines), "x")
    assert errors[0] == "row 3 (H02).miles: must be a whole number 1 to 4, got 'one'"
    assert errors[1].startswith("row 6 (H05).kind:")
    assert errors[2].startswith("row 91 (L99).ability: expected param=value")
    assert csv_to_card_set_json("colour,id\n", "x")[1][0].startswith("csv: unknown column")


def test_cli_new_then_import(tmp_path, capsys):
    csv_path = tmp_path / "box.csv"
    assert main(["cards", "new", str(csv_path), "--name", "box"]) == 0
    text = csv_path.read_text().replace("highway,H10,", "highway,H10,", 1)
    bad = text.replace(",ocean ocean,", ",ocean sea,", 1)
    csv_path.write_text(bad)
    assert main(["cards", "import", str(csv_path), "--name", "box"]) == 1
    err = capsys.readouterr().err
    assert ".scenery: must be a list of two of" in err and "highway card 'H04'" in err
    csv_path.write_text(text)
    assert main(["cards", "import", str(csv_path), "--name", "box"]) == 0
    written = json.loads(csv_path.with_suffix(".json").read_text())
    assert written["name"] == "box" and len(written["highway"]) == 69
    assert main(["cards", "validate", str(csv_path.with_suffix(".json"))]) == 0


def test_every_problem_of_a_csv_is_listed_at_once(tmp_path, capsys):
    """A CSV with rows that could not be read listed only those ('row 4 (H03).miles'); a
    card whose row was read but whose value the set's checks refuse (H05, 9 miles) came
    up only once the others were fixed. Both are listed, by `bigsur cards import` and by
    the server (POST /v1/cardsets, text/csv), a card named by its row once."""
    import csv
    import io

    from fastapi.testclient import TestClient

    from server.app import Settings, create_app

    rows = list(csv.reader(io.StringIO(template_csv())))
    miles = rows[0].index("miles")
    rows[3][miles], rows[5][miles] = "x", "9"  # H03 (row 4) unreadable; H05 (row 6) out of range
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    (tmp_path / "broken.csv").write_text(buf.getvalue())
    assert main(["cards", "import", str(tmp_path / "broken.csv"), "--name", "broken",
                 "--out", str(tmp_path / "b.json")]) == 1
    err = capsys.readouterr().err
    assert "2 problem(s)" in err, err
    assert "row 4 (H03).miles: must be a whole number 1 to 4, got 'x'" in err, err
    assert "highway card 'H05'.miles: must be an integer 1 to 4, got 9" in err, err
    with TestClient(create_app(Settings(db=str(tmp_path / "g.db"), warm=False))) as client:
        r = client.post("/v1/cardsets?name=broken", content=buf.getvalue(),
                        headers={"Content-Type": "text/csv"})
    assert r.status_code == 422, r.text
    said = json.dumps(r.json())
    assert "H03" in said and "H05" in said, said


def test_a_row_of_fewer_or_more_cells_than_the_header_is_refused_naming_it(tmp_path, capsys):
    """A row cut short (H07 to 5 of 12 cells) was padded with empty cells: the row was never
    named, and the checks said its blank fields one fix at a time ('material', then
    'persistent', then 'players'). A row of fewer cells than the header is refused as one
    of more cells is, naming the row, its card and both counts; the rows left out are not
    counted against the set (no 'a full set has 69 cards')."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO(template_csv())))
    at = {r[1]: n for n, r in enumerate(rows)}
    rows[at["H07"]] = rows[at["H07"]][:5]
    rows[at["L03"]] = rows[at["L03"]] + ["extra"]
    rows.append(["highway"])  # no id cell at all
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    raw, errors = csv_to_card_set_json(buf.getvalue(), "short")
    assert errors == [f"row {at['H07'] + 1} (H07): 5 cells but the header names 12 columns",
                      f"row {at['L03'] + 1} (L03): 13 cells but the header names 12 columns",
                      f"row {len(rows)} (no id): 1 cell but the header names 12 columns"]
    assert "H07" not in {c["id"] for c in raw["highway"]}
    (tmp_path / "short.csv").write_text(buf.getvalue())
    assert main(["cards", "import", str(tmp_path / "short.csv"), "--name", "short",
                 "--out", str(tmp_path / "s.json")]) == 1
    err = capsys.readouterr().err
    assert "3 problem(s)" in err and "(H07): 5 cells but the header names 12" in err, err
    assert "a full set has" not in err and "material" not in err, err


def test_load_card_set_reads_a_csv_file_and_a_dict(tmp_path):
    """load_card_set took only a JSON path or a name: 'x.csv' was 'not valid JSON' and a
    dict a TypeError from inside pathlib. A .csv path (any case) is read by the CSV reader
    (named after the file), a dict by parse_card_set; anything else is named."""
    import pytest

    from solver.rules import CardSetError, parse_card_set

    default = load_card_set()
    raw = default.to_json()
    raw["name"] = "mine"
    for name in ("mine.csv", "MINE.CSV"):
        path = tmp_path / name
        path.write_text("\ufeff" + card_set_to_csv(raw), encoding="utf-8")  # a BOM too
        for spec in (path, str(path)):
            cards = load_card_set(spec)
            assert cards.name == path.stem
            assert cards.cards_fingerprint == default.cards_fingerprint
    assert load_card_set(raw) == parse_card_set(raw) != default
    assert load_card_set(default.to_json()) == default
    bad = tmp_path / "bad.csv"
    bad.write_text(card_set_to_csv(raw).replace("highway,H02,1,", "highway,H02,one,"))
    with pytest.raises(CardSetError, match="row 3 \\(H02\\).miles") as info:
        load_card_set(bad)
    assert info.value.source == str(bad)
    with pytest.raises(CardSetError, match="file not found") as info:
        load_card_set(tmp_path / "absent.csv")
    with pytest.raises(CardSetError, match="highway: a full set has 69 cards"):
        load_card_set({**raw, "highway": raw["highway"][:10]})
    with pytest.raises(TypeError, match="expected None, 'default', a path to a JSON or CSV "
                       "card set or a dict of the JSON schema, got int"):
        load_card_set(3)


def test_the_rules_package_exports_the_card_set_names_its_cards_index():
    import solver.rules as rules
    from solver.rules.constants import MATERIALS, SCENERIES
    from solver.rules.position import check_state

    assert (rules.MATERIALS, rules.SCENERIES) == (MATERIALS, SCENERIES)
    assert rules.parse_card_set is parse_card_set and rules.check_state is check_state
    assert {"MATERIALS", "SCENERIES", "parse_card_set", "check_state"} <= set(rules.__all__)
