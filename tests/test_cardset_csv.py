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
