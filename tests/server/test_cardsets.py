"""Card sets uploaded to the server (server/cardsets.py): validation naming card and
field, size caps, names that cannot collide, versions, CSV, and use everywhere a set
name is taken (/v1/cards, new games, hints, scores)."""

from __future__ import annotations

import copy
import json
import threading
import time

import pytest
from session_testkit import BOTH_BACKENDS

from solver.rules.cards import load_card_set
from solver.rules.cardset_csv import card_set_to_csv
from solver.rules.engine import new_game
from solver.rules.views import view_of, view_to_json


def my_set(name="table-cards"):
    """An owner's set: the shipped cards with a Landmark named otherwise (the same cards
    as the reconstruction could not be stored as the printed list)."""
    raw = copy.deepcopy(load_card_set().to_json())
    raw.update(name=name, reconstruction=False, description="typed from my box")
    raw["highway"][0]["text"] = "my first card"
    raw["landmarks"][0]["name"] += " (as printed)"
    return raw


def test_the_reconstructions_cards_are_not_stored_as_the_printed_list(client):
    """A QA pass stored the shipped cards under another name with ``reconstruction``
    false: the set was offered for new games as the printed list. Such a set (texts,
    name and description aside) is refused naming the field, by JSON, CSV and as a new
    version, and so is a copy of a stored reconstruction; labelled, it is stored."""
    copied = copy.deepcopy(load_card_set().to_json())
    copied.update(name="copy", reconstruction=False, description="mine, honest")
    copied["highway"][3]["text"] = "a note of my own"
    r = client.post("/v1/cardsets", json=copied)
    assert r.status_code == 422 and r.json()["field"] == "reconstruction", r.text
    assert "the cards of default v1 (reconstruction" in r.json()["reason"], r.text
    csv = card_set_to_csv(load_card_set().to_json())
    r = client.post("/v1/cardsets?name=copy-csv&reconstruction=false", content=csv,
                    headers={"Content-Type": "text/csv"})
    assert r.status_code == 422 and r.json()["field"] == "reconstruction", r.text
    assert client.post("/v1/cardsets", json={**copied, "reconstruction": True}
                       ).status_code == 201
    # a copy of that stored reconstruction, and a new version of it said to be printed
    again = {**copied, "name": "copy-of-copy"}
    r = client.post("/v1/cardsets", json=again)
    assert r.status_code == 422 and "the cards of" in r.json()["reason"], r.text
    r = client.post("/v1/cardsets/copy/versions", json=copied)
    assert r.status_code == 422 and r.json()["field"] == "reconstruction", r.text
    assert [s["name"] for s in client.get("/v1/cardsets").json()] == ["copy"]
    # cards that differ are the owner's to label
    assert client.post("/v1/cardsets", json=my_set()).status_code == 201


def test_upload_list_get_and_use_everywhere(client):
    r = client.post("/v1/cardsets", json=my_set())
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["name"] == "table-cards" and body["version"] == 1
    assert len(body["fingerprint"]) == 16 and body["decks"] == {"2": 49, "3": 59, "4": 69}
    assert [s["name"] for s in client.get("/v1/cardsets").json()] == ["table-cards"]
    got = client.get("/v1/cardsets/Table-Cards").json()  # names differ in more than case
    assert got["highway"][0]["text"] == "my first card" and got["stored_version"] == 1
    # selectable wherever a set is chosen
    assert "table-cards" in [s["name"] for s in client.get("/v1/cards").json()]
    assert client.get("/v1/cards/table-cards").json()["fingerprint"] == body["fingerprint"]
    game = client.post("/v1/games", json={"players": 2, "seats": ["human", "random"],
                                          "seed": 3, "cards": "table-cards"})
    assert game.status_code in (200, 201), game.text
    view = view_to_json(view_of(new_game(2, seed=5), 0))
    view["cards"] = "table-cards"
    score = client.post("/v1/score", json={"position": view})
    assert score.status_code == 200 and score.json()["card_set"].startswith("table-cards v1")
    hint = client.post("/v1/hint", json={"position": view, "budget": {"iterations": 5}})
    assert hint.status_code in (200, 422), hint.text
    if hint.status_code == 422:  # the dealt view may not be seat 0's turn
        assert hint.json()["error"] == "not_to_act"
    else:
        assert hint.json()["card_set"].startswith("table-cards v1")


@BOTH_BACKENDS
def test_stored_sets_survive_a_restart(make_client):
    assert make_client().post("/v1/cardsets", json=my_set("kept")).status_code == 201
    again = make_client()  # a new app on the same database file
    assert "kept" in [s["name"] for s in again.get("/v1/cards").json()]


@BOTH_BACKENDS
def test_a_set_stored_through_one_server_is_usable_through_another(make_client):
    """Two apps on one database (as two server processes): a set uploaded through one,
    after the other started, serves new games, hints and scores through the other."""
    uploader, other = make_client(), make_client()
    assert uploader.post("/v1/cardsets", json=my_set("shared")).status_code == 201
    game = other.post("/v1/games", json={"players": 2, "seats": ["human", "random"],
                                         "seed": 3, "cards": "shared"})
    assert game.status_code == 201, game.text
    view = view_to_json(view_of(new_game(2, seed=5), 0))
    view["cards"] = "shared"
    score = other.post("/v1/score", json={"position": view})
    assert score.status_code == 200 and score.json()["card_set"].startswith("shared v1")
    assert other.get("/v1/cards/nothing-stored").status_code == 404


def test_every_route_naming_a_set_finds_one_another_process_stored(make_client):
    """Each route that takes a set's name asks the database for a set it has not seen,
    one app at a time (each app below starts before the upload)."""
    apps = [make_client() for _ in range(5)]
    assert make_client().post("/v1/cardsets", json=my_set("later")).status_code == 201
    view = view_to_json(view_of(new_game(2, seed=5), 0))
    view["cards"] = "later"
    record = {"format": "bigsur-record/1", "players": 2, "seed": 4, "cards": "later",
              "actions": []}
    calls = [("get", "/v1/cards/later", None),
             ("post", "/v1/hint", {"position": view, "budget": {"iterations": 5}}),
             ("post", "/v1/payment", {"position": view, "builds": ["H01"]}),
             ("post", "/v1/analyze", {"record": record, "budget": {"iterations": 5}}),
             ("post", "/v1/games", {"position": view, "seed": 5})]
    for app, (method, path, body) in zip(apps, calls, strict=True):
        r = getattr(app, method)(path, **({"json": body} if body else {}))
        assert "no card set named" not in r.text, (path, r.text)
        assert r.status_code < 500, (path, r.text)
        assert "later" in [s["name"] for s in app.get("/v1/cards").json()], path


def test_a_slow_lookup_of_a_stored_set_holds_up_only_its_own_request(make_client):
    """The database lookup of a set another process stored runs off the event loop:
    while it waits, the process answers other requests. It ran on the loop, and
    GET /v1/cards waited behind it."""
    client = make_client()  # started before the set is stored
    assert make_client().post("/v1/cardsets", json=my_set("slow")).status_code == 201
    registry = client.app.state.cards
    lookup, release = registry.load_stored, threading.Event()

    def held(name):
        release.wait(5)
        return lookup(name)

    registry.load_stored = held
    view = view_to_json(view_of(new_game(2, seed=5), 0))
    view["cards"] = "slow"
    answers: list = []
    scoring = threading.Thread(target=lambda: answers.append(
        client.post("/v1/score", json={"position": view})))
    scoring.start()
    try:
        time.sleep(0.3)  # the score is waiting for its lookup now
        assert client.get("/v1/cards").status_code == 200
        assert scoring.is_alive() and not answers  # answered while the lookup waits
    finally:
        release.set()
        scoring.join(10)
    assert [r.status_code for r in answers] == [200], [r.text for r in answers]


@pytest.mark.parametrize("name, status", [
    ("default", 409), ("DEFAULT", 409), ("check", 409), ("has space", 422), ("", 422),
    ("x" * 41, 422), ("a.b", 422)])
def test_names_that_cannot_be_used(client, name, status):
    r = client.post("/v1/cardsets", json=my_set(name))
    assert r.status_code == status, r.text
    assert r.json()["field"] == "name"


@pytest.mark.parametrize("name", ["default", "Default", "template", "check"])
def test_the_check_refuses_a_reserved_name_as_saving_does(client, name):
    """A reserved name was noted by the live check as merely taken ('saving adds a new
    version if it is yours', name_refused false), then saving refused it (409 reserved):
    the check now refuses it in saving's words."""
    check = client.post("/v1/cardsets/check", json=my_set(name)).json()
    assert check["name_refused"], check
    assert check["name"] == f"name: {name!r} is reserved; choose another name", check
    r = client.post("/v1/cardsets", json=my_set(name))
    assert r.status_code == 409 and r.json()["reason"] in check["name"], r.text


def test_a_taken_name_is_refused_and_a_version_added(client):
    assert client.post("/v1/cardsets", json=my_set("mine")).status_code == 201
    r = client.post("/v1/cardsets", json=my_set("MINE"))
    assert r.status_code == 409 and r.json()["field"] == "name"
    assert "/v1/cardsets/mine/versions" in r.json()["reason"]
    same = client.post("/v1/cardsets/mine/versions", json=my_set("mine"))
    assert same.status_code == 200 and same.json()["version"] == 1  # nothing changed
    changed = my_set("mine")
    changed["highway"][1]["text"] = "second edit"
    v2 = client.post("/v1/cardsets/mine/versions", json=changed)
    assert v2.status_code == 201 and v2.json()["version"] == 2
    assert v2.json()["fingerprint"] != same.json()["fingerprint"]
    assert [v["version"] for v in client.get("/v1/cardsets/mine/versions").json()] == [1, 2]
    assert client.get("/v1/cardsets/mine/versions/1").json()["version"] == "1"
    assert client.get("/v1/cardsets/mine").json()["highway"][1]["text"] == "second edit"
    wrong = client.post("/v1/cardsets/mine/versions", json=my_set("other"))
    assert wrong.status_code == 422 and wrong.json()["field"] == "name"
    assert client.post("/v1/cardsets/nope/versions", json=my_set("nope")).status_code == 404


def test_a_stored_set_fetched_can_be_posted_back(client):
    """GET /v1/cardsets/NAME adds ``stored_version`` and ``created``, about the stored
    copy: posted back (to the check, as a version, edited) they are not the set's unknown
    fields. Old code refused them, so a fetched set could not be saved again as it was."""
    assert client.post("/v1/cardsets", json=my_set("mine")).status_code == 201
    fetched = client.get("/v1/cardsets/mine").json()
    assert {"stored_version", "created"} <= set(fetched)
    r = client.post("/v1/cardsets/check", json=fetched)
    assert r.json()["ok"], r.text
    same = client.post("/v1/cardsets/mine/versions", json=fetched)
    assert same.status_code == 200 and same.json()["version"] == 1, same.text
    edited = {k: v for k, v in fetched.items() if k not in ("label", "fingerprint")}
    edited["description"] = "edited"  # an edit changes label and fingerprint: dropped
    r = client.post("/v1/cardsets/mine/versions", json=edited)
    assert r.status_code == 201 and r.json()["version"] == 2, r.text
    assert client.get("/v1/cardsets/mine").json()["description"] == "edited"
    r = client.post("/v1/cardsets/mine/versions", json={**edited, "stored": 1})
    assert r.status_code == 422 and r.json()["field"] == "stored", r.text


def test_the_shipped_set_name_collides_even_with_its_own_content(client):
    r = client.post("/v1/cardsets", json=load_card_set().to_json())
    assert r.status_code == 409 and r.json()["field"] == "name"


def test_the_bigsur_cards_set_says_why_it_cannot_be_saved_under_its_name(make_client,
                                                                        custom_file):
    """The BIGSUR_CARDS set ("custom") is read from its file at each start and not
    stored: an edit saved under its name was refused as a taken name, pointing to a new
    version, which answered 404 (no stored set). The live check and the upload now say
    why, and what to do; another name saves."""
    client = make_client(cards=custom_file)
    check = client.post("/v1/cardsets/check", json=my_set("Custom")).json()  # any case
    assert check["name_refused"] and "BIGSUR_CARDS" in check["name"], check
    r = client.post("/v1/cardsets", json=my_set("custom"))
    reason = r.json()["reason"]
    assert r.status_code == 409 and r.json()["field"] == "name", r.text
    assert "BIGSUR_CARDS" in reason and "another name" in reason and "versions" not in reason
    assert client.post("/v1/cardsets", json=my_set("custom-2")).status_code == 201
    assert not client.post("/v1/cardsets/check", json=my_set("custom-3")).json()["name"]


def test_validation_names_card_and_field_and_lists_every_problem(client):
    raw = my_set("broken")
    raw["highway"][4]["miles"] = 7
    raw["highway"][10]["scenery"] = ["ocean", "lava"]
    raw["landmarks"][2]["ability"] = {"kind": "teleport"}
    r = client.post("/v1/cardsets", json=raw)
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "H05.miles"
    found = {(e["card"], e["field"]) for e in body["errors"]}
    assert {("H05", "miles"), ("H11", "scenery"), ("L03", "ability")} <= found
    assert client.get("/v1/cardsets/broken").status_code == 404  # nothing stored


def test_counts_and_equal_turns_are_checked(client):
    raw = my_set("short")
    del raw["highway"][-1]
    body = client.post("/v1/cardsets", json=raw).json()
    texts = " ".join(e["text"] for e in body["errors"])
    assert "a full set has 69 cards, got 68" in texts
    assert "same number of turns" in texts


def test_size_caps(client):
    raw = my_set("huge")
    raw["highway"] = raw["highway"] * 5  # 345 cards, above the cap of 300
    r = client.post("/v1/cardsets", json=raw)
    assert r.status_code == 413 and r.json()["field"] == "highway"
    big = json.dumps(my_set("big")) + " " * 300_000  # above 256 kB, under the body cap
    r = client.post("/v1/cardsets", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["field"] == "body"
    r = client.post("/v1/cardsets", content=b"{not json",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["field"] == "body"
    r = client.post("/v1/cardsets", json=[1, 2])
    assert r.status_code == 422 and r.json()["field"] == "body"
    rows = "kind,id\n" + "highway,H01\n" * 3000  # was 422, unlike every other size cap
    for url in ("/v1/cardsets?name=rows", "/v1/cardsets/convert?name=rows"):
        r = client.post(url, content=rows, headers={"Content-Type": "text/csv"})
        assert r.status_code == 413 and r.json()["field"] == "csv", r.text
        assert r.json()["reason"] == "3000 rows, at most 500", r.text


def test_a_text_too_long_is_a_problem_of_its_card_not_a_size_cap(client):
    """A Landmark name of 301 characters made the live check answer 413 (its docs say
    always 200), and the editor showed 'landmarks[0].name: landmarks[0].name: 301
    characters...'; a text too long is a problem of the card, listed with the others,
    named by the card's id (by its place when the id is not one to show)."""
    raw = my_set("wordy")
    raw["landmarks"][0]["name"] = "x" * 301
    raw["highway"][3]["text"] = "y" * 301
    raw["highway"][5].update(id="i" * 33, text="z" * 301)
    raw["description"] = "d" * 2001
    r = client.post("/v1/cardsets/check", json=raw)
    assert r.status_code == 200 and not r.json()["ok"], r.text
    found = {(e["card"], e["field"]): e["message"] for e in r.json()["errors"]}
    assert found[("L01", "name")] == "301 characters, at most 300", found
    assert found[("H04", "text")] == "301 characters, at most 300", found
    assert found[("highway[5]", "text")] == "301 characters, at most 300", found
    assert found[(None, "description")] == "2001 characters, at most 2000", found
    r = client.post("/v1/cardsets", json=raw)
    assert r.status_code == 422 and r.json()["field"] == "description", r.text
    assert client.post("/v1/cardsets/check", json=my_set("wordy")).json()["ok"]


@pytest.mark.parametrize("body, why", [
    (b"[" * 2000, "nested too deeply"), (b'{"a":' + b"9" * 5000 + b"}", "digits"),
    (b'{"name": "\xff"}', "not UTF-8"), (b"{", "line 1 column 2")])
def test_a_body_that_is_not_json_is_a_400_naming_body_on_every_route(client, body, why):
    """As FastAPI reads the other routes' bodies (these routes read their own): it was a
    500 for [[[... and a number of 5,000 digits, a 422 for bad UTF-8 and bad syntax."""
    assert client.post("/v1/cardsets", json=my_set("mine")).status_code == 201
    for url in ("/v1/cardsets", "/v1/cardsets/check", "/v1/cardsets/mine/versions"):
        r = client.post(url, content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, (url, r.text)
        assert r.json()["error"] == "body" and r.json()["field"] == "body", r.text
        assert why in r.json()["reason"], r.text


def _edited(path, value):
    raw = my_set("odd")
    *keys, last = path
    target = raw
    for key in keys:
        target = target[key]
    target[last] = value
    return raw


@pytest.mark.parametrize("path, value, field", [
    (("highway", 3, "id"), "H" * 5000, "highway[3].id"),  # the actions endpoint takes 2000
    (("highway", 3, "id"), "H" * 33, "highway[3].id"),
    (("highway", 3, "id"), "H\u0000", "highway[3].id"),
    (("landmarks", 2, "id"), "L\u0007", "landmarks[2].id"),
    (("name",), "odd\u0000", "name"),
    (("description",), "mine\u0000", "description"),
    (("highway", 5, "text"), "two\nlines\u0000", "H06.text"),
    (("landmarks", 1, "name"), "Bridge\u001b", "L02.name")])
def test_ids_and_strings_a_card_set_cannot_hold_are_refused_naming_the_field(
        client, path, value, field):
    """Ids the actions endpoint would refuse, and control characters (a NUL fails in
    PostgreSQL): refused by the check and by saving, naming the field."""
    raw = _edited(path, value)
    checked = client.post("/v1/cardsets/check", json=raw).json()
    assert not checked["ok"], checked
    r = client.post("/v1/cardsets", json=raw)
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    assert len(r.text) < 2000, r.text  # a 5,000-character id is not echoed


def test_an_id_of_32_characters_and_line_breaks_in_text_are_fine(client):
    raw = _edited(("highway", 3, "id"), "H" * 32)
    raw["highway"][5]["text"] = "two\nlines\twith a tab"
    assert client.post("/v1/cardsets", json=raw).status_code == 201


@pytest.mark.parametrize("edit, field", [
    ({"version": 99}, "version"), ({"version": float("nan")}, "version"),
    ({"version": "1\u0000"}, "version"),
    ({"highway": load_card_set().to_json()["highway"], "description": "the shipped cards"},
     "reconstruction")])
def test_the_check_says_what_saving_does(client, edit, field):
    """The check and the saves validate alike: a version that is not a string was ok:false
    in the check and stored (201); a reconstruction's cards labelled printed were ok:true
    in the check and refused (422) by saving."""
    raw = {**my_set("mine"), **edit}
    if field == "reconstruction":
        raw["landmarks"] = load_card_set().to_json()["landmarks"]
    body, headers = json.dumps(raw), {"Content-Type": "application/json"}  # NaN as sent
    checked = client.post("/v1/cardsets/check", content=body, headers=headers).json()
    assert not checked["ok"] and checked["errors"][0]["field"] == field, checked
    r = client.post("/v1/cardsets", content=body, headers=headers)
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    assert client.post("/v1/cardsets", json=my_set("mine")).status_code == 201
    r = client.post("/v1/cardsets/mine/versions", content=body, headers=headers)
    assert r.status_code == 422 and r.json()["field"] == field, r.text


def test_csv_upload_convert_check_and_template(client):
    template = client.get("/v1/cardsets/template.csv")
    assert template.status_code == 200 and template.text.startswith("kind,id,miles,")
    text = card_set_to_csv(my_set())
    bad = text.replace("highway,H02,1,", "highway,H02,one,", 1)
    conv = client.post("/v1/cardsets/convert?name=sheet", content=bad,
                       headers={"Content-Type": "text/csv"}).json()
    assert [(e["row"], e["card"], e["field"]) for e in conv["errors"]] == [(3, "H02", "miles")]
    r = client.post("/v1/cardsets?name=sheet", content=bad, headers={"Content-Type": "text/csv"})
    assert r.status_code == 422 and r.json()["errors"][0]["card"] == "H02"
    r = client.post("/v1/cardsets?name=sheet", content=text, headers={"Content-Type": "text/csv"})
    assert r.status_code == 201, r.text
    assert client.get("/v1/cardsets/sheet").json()["highway"][0]["text"] == "my first card"
    # the live check: 200 with the problems, or ok with a summary
    checked = client.post("/v1/cardsets/check", json=my_set("sheet")).json()
    assert checked["ok"] and "taken" in checked["name"] and not checked["name_refused"]
    checked = client.post("/v1/cardsets/check", json=my_set("qa set")).json()
    assert checked["ok"] and checked["name_refused"] and "letters" in checked["name"]
    raw = my_set("fresh")
    raw["highway"][0]["persistent"] = None
    checked = client.post("/v1/cardsets/check", json=raw).json()
    assert not checked["ok"] and checked["errors"][0]["card"] == "H01"
    assert checked["errors"][0]["field"] == "persistent" and checked["name"] is None


def test_payment_of_a_view_equals_the_payment_of_the_state(make_client):
    """The position editor pays from a view of the seat to act: the same cheapest payment
    as from the full state (a payment reads only that seat's cards and public ones)."""
    from solver.rules.engine import play
    from solver.rules.payment import affordable_cards
    from solver.rules.position import state_to_json

    client = make_client(fake=False)
    for seed in range(3, 40):
        state = play(play(new_game(2, seed=seed), "take deck"), "take deck")
        payable = affordable_cards(state)
        if payable:
            break
    card = state.cards.highway[next(iter(payable))].id
    body = {"builds": [f"{card}:R"]}
    full = client.post("/v1/payment", json={**body, "position": state_to_json(state)})
    view = view_to_json(view_of(state, state.current))
    seen = client.post("/v1/payment", json={**body, "position": view})
    assert full.status_code == 200 and seen.status_code == 200, seen.text
    assert seen.json()["feasible"] and seen.json()["builds"] == full.json()["builds"]
    assert seen.json()["spent"] == full.json()["spent"]


@pytest.mark.parametrize("version", ["0", "51", "9223372036854775808", "-1"])
def test_a_version_out_of_range_is_a_422_not_a_crash(client, version):
    # found by schemathesis: 2**63 overflowed SQLite's integer and answered 500
    r = client.get(f"/v1/cardsets/any/versions/{version}")
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "version"


def test_a_stored_set_that_fails_todays_checks_does_not_stop_the_server(make_client, db_target,
                                                                      caplog):
    """A set stored before a check it now fails (an id of more than 32 characters, stored
    by an older server) stopped the server at start (CardSetError from the start-up
    registration): the server starts without it, logs why, and naming it answers a 422
    saying what is wrong, never a 500. The list of stored sets, the check and the saves
    (which compare a new set with the stored reconstructions) leave it out: they
    answered 422 naming that other set's card."""
    import sqlite3

    first = make_client()
    recon = {**my_set("olderrecon"), "reconstruction": True}
    recon["landmarks"][1]["name"] += " (another box)"
    for raw in (my_set("older"), recon, my_set("kept")):
        assert first.post("/v1/cardsets", json=raw).status_code == 201
    with sqlite3.connect(db_target) as db:
        for key in ("older", "olderrecon"):
            body = json.loads(db.execute("SELECT body FROM cardsets WHERE key=?", (key,))
                              .fetchone()[0])
            body["highway"][0]["id"] = "H" * 40
            db.execute("UPDATE cardsets SET body=? WHERE key=?", (json.dumps(body), key))
    listed = first.get("/v1/cardsets")
    assert listed.status_code == 200 and [s["name"] for s in listed.json()] == ["kept"]
    fresh = my_set("fresh")
    check = first.post("/v1/cardsets/check", json=fresh)
    assert check.status_code == 200 and check.json()["ok"], check.text
    assert first.post("/v1/cardsets", json=fresh).status_code == 201
    with caplog.at_level("WARNING", logger="bigsur.server"):
        again = make_client()  # a new app on the same database file
    assert "older" in caplog.text and "highway[0]" in caplog.text
    assert "older" not in [s["name"] for s in again.get("/v1/cards").json()]
    got = again.get("/v1/cardsets/older")
    assert got.status_code == 422 and "highway[0]" in got.text, got.text
    game = again.post("/v1/games", json={"players": 2, "seats": ["human", "random"],
                                         "seed": 3, "cards": "older"})
    assert game.status_code == 422 and "highway[0]" in game.text, game.text


def test_a_card_sets_problems_repeat_the_clients_values_capped(client):
    """The check's problems and a refused save repeat what the client sent capped, as every
    other error does (errors.clip_echo): 20,000-character values came back whole, 80 KB
    and 120 KB answers to a 60 KB set."""
    raw = my_set("huge-values")
    raw["highway"][0]["scenery"] = ["q" * 20000]
    raw["highway"][1]["bonus"] = {"kind": "k" * 20000}
    raw["landmarks"][0]["ability"] = {"kind": "scenery_points", "scenery": "s" * 20000,
                                      "points": 1}
    checked = client.post("/v1/cardsets/check", json=raw)
    saved = client.post("/v1/cardsets", json=raw)
    assert checked.status_code == 200 and saved.status_code == 422, saved.text
    for r in (checked, saved):
        assert len(r.content) < 5000, len(r.content)
        assert "(20000 characters)" in r.text or "20002 characters" in r.text, r.text[:500]
    cards = {e["card"] for e in checked.json()["errors"]}
    assert {"H01", "H02", "L01"} <= cards  # each problem still names its card
    assert saved.json()["field"] == "H01.scenery"


def test_looking_up_card_sets_uses_the_running_apps_store(client, monkeypatch):
    """Card-set lookups go through the app's store (its pool of connections): each lookup
    of an unknown name opened a store of its own, two new PostgreSQL connections a
    request (the operator's pass: 10 requests, 20 connections)."""
    import server.cardsets

    opened: list[str] = []
    real = server.cardsets.Store

    def counting(*args, **kwargs):
        opened.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(server.cardsets, "Store", counting)
    for k in range(5):
        assert client.get(f"/v1/cardsets/nosuch{k}").status_code == 404
        assert client.get(f"/v1/cards/nosuch{k}").status_code == 404
    assert client.post("/v1/cardsets", json=my_set("pooled")).status_code == 201
    assert client.get("/v1/cardsets/pooled").status_code == 200
    assert client.get("/v1/cardsets").status_code == 200
    assert opened == []


def test_card_set_lookups_answer_before_and_after_the_app_runs(db_target):
    """Between two runs of one app (its store closed) a lookup opens a store of its own:
    it was handed the closed one and answered 500 (the second read)."""
    from conftest import make_settings
    from fastapi.testclient import TestClient

    from server.app import create_app

    app = create_app(make_settings(db_target))
    for _run in range(2):
        with TestClient(app) as client:
            assert client.get("/v1/cardsets/nosuch").status_code == 404
        assert TestClient(app).get("/v1/cardsets/nosuch").status_code == 404  # not running
