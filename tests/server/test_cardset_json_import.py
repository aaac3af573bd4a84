"""A card set's JSON written as CSV by the server (POST /v1/cardsets/export.csv, the
card-set editor's "Download CSV"): the one CSV writer (solver.rules.cardset_csv), whose
text the CSV import reads back into the same cards; a card with a problem is refused
naming the card and the field, as the check names it."""

from __future__ import annotations

import copy

from solver.rules.cards import load_card_set, parse_card_set
from solver.rules.cardset_csv import card_set_to_csv, csv_to_card_set_json


def mine() -> dict:
    raw = copy.deepcopy(load_card_set().to_json())
    raw.update(name="my-cards", reconstruction=False, description="typed from my box")
    raw["highway"][2]["text"] = 'a note, with "quotes"'
    return raw


def test_a_set_as_csv_reads_back_as_the_same_cards(client):
    raw = mine()
    r = client.post("/v1/cardsets/export.csv", json=raw)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/csv")
    assert 'filename="my-cards.csv"' in r.headers["content-disposition"]
    assert r.text == card_set_to_csv(parse_card_set(raw).to_json())  # the one writer
    back, errors = csv_to_card_set_json(r.text, "my-cards", description="typed from my box")
    assert errors == []
    again = parse_card_set(back)
    assert again.cards_fingerprint == parse_card_set(raw).cards_fingerprint
    # a set that is not full yet is written too (the editor's work in progress)
    part = {**raw, "highway": raw["highway"][:5], "landmarks": raw["landmarks"][:2]}
    r = client.post("/v1/cardsets/export.csv", json=part)
    assert r.status_code == 200 and len(r.text.strip().splitlines()) == 1 + 5 + 2, r.text


def test_a_card_with_a_problem_is_named_not_written(client):
    raw = mine()
    raw["highway"][6]["miles"] = None
    del raw["landmarks"][1]["scenery"]
    r = client.post("/v1/cardsets/export.csv", json=raw)
    assert r.status_code == 422, r.text
    named = {(e["card"], e["field"]) for e in r.json()["errors"]}
    assert named == {(raw["highway"][6]["id"], "miles"), (raw["landmarks"][1]["id"], "scenery")}
    for body in ([1, 2], "text"):
        r = client.post("/v1/cardsets/export.csv", json=body)
        assert r.status_code == 422 and r.json()["field"] == "body", r.text
    r = client.post("/v1/cardsets/export.csv", content=b"{not json",
                    headers={"Content-Type": "application/json"})
    assert r.status_code in (400, 422) and r.json()["field"], r.text
    # a name that is no safe file name: the file is named cards.csv
    r = client.post("/v1/cardsets/export.csv", json={**mine(), "name": 'my "best" cards'})
    assert r.status_code == 200 and 'filename="cards.csv"' in r.headers["content-disposition"]
