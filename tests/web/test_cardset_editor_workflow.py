"""The card-set editor as a player who types in their printed cards uses it (a real
browser, the fixtures of test_web_page.py): the set downloaded as JSON (the file `bigsur
cards validate`, `--cards FILE` and BIGSUR_CARDS read) and as CSV (written by the server,
read back by the editor's import); a JSON file imported, and a file that is no card set
refused in words with the set being edited kept; and every change undone (Undo, Ctrl+Z),
back to the exact set, destructive ones first (delete, Load, import, clear the text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_web_page import browser, page, server  # noqa: F401 - fixtures

from solver.rules.cards import load_card_set, parse_card_set

DEFAULT_JSON = Path(__file__).resolve().parents[2] / "solver" / "rules" / "data" / "default.json"
MODULE = "/js/views/cardset-editor.js"


def open_cards(pg, base: str) -> None:
    pg.goto(base + "/")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-ok")


def set_json(pg) -> str:
    """The set being edited as the editor writes its file (Download JSON's text)."""
    return pg.evaluate(f"async () => (await import('{MODULE}')).setJSON()")


def checked(pg) -> None:
    """Wait until a check has answered and none is shown pending (an import or an Undo
    shows "Checking..." until the check of the set it put on screen answers)."""
    pg.wait_for_function("""() => {
      const s = document.querySelector('#ce-status');
      return s && !s.innerText.includes('Checking') && document.body.dataset.ceChecked;
    }""")


def choose_file(pg, name: str, data: bytes, mime: str = "application/json") -> None:
    pg.set_input_files("#ce-csv", files=[{"name": name, "mimeType": mime, "buffer": data}])


def announced(pg, text: str) -> None:
    pg.wait_for_function("(t) => document.querySelector('#announce').innerText.includes(t)",
                         arg=text)


def no_js_errors(pg) -> None:
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_download_json_and_csv_are_the_set_on_screen(server, page, tmp_path):  # noqa: F811
    pg = page
    open_cards(pg, server)
    pg.fill("#ce-setname", "printed-cards")
    pg.click("[data-ce-pick='highway:2']")
    pg.fill("#ce-text", "typed from my box, \"quoted\", with a comma")
    pg.click("[data-ce-pick='landmark:1']")
    pg.fill("#ce-name", "Point Sur (as printed)")
    pg.wait_for_selector("#ce-ok")
    on_screen = set_json(pg)

    with pg.expect_download() as dl:
        pg.click("[data-ce='download-json']")
    assert dl.value.suggested_filename == "printed-cards.json"
    path = tmp_path / "printed-cards.json"
    dl.value.save_as(path)
    assert path.read_text() == on_screen
    loaded = load_card_set(str(path))  # as --cards FILE reads it
    assert loaded.to_json() == parse_card_set(json.loads(on_screen)).to_json()
    assert loaded.name == "printed-cards" and loaded.highway[2].text.startswith("typed from")
    assert "Downloaded printed-cards.json" in pg.locator("#ce-downloaded").inner_text()

    with pg.expect_download() as dl:
        pg.click("[data-ce='download-csv']")
    assert dl.value.suggested_filename == "printed-cards.csv"
    csv_path = tmp_path / "printed-cards.csv"
    dl.value.save_as(csv_path)
    assert csv_path.read_text().startswith("kind,id,miles,")
    pg.wait_for_function("() => document.activeElement.dataset.ce === 'download-csv'")

    # read back by the editor's import: the same cards (and the name, description kept)
    pg.click("[data-ce-pick='highway:0']")
    pg.click("[data-ce='delete']")
    assert set_json(pg) != on_screen
    choose_file(pg, "printed-cards.csv", csv_path.read_bytes(), "text/csv")
    pg.wait_for_function("(n) => document.querySelectorAll(\"[data-ce-pick^='highway:']\")"
                         ".length === n", arg=len(loaded.highway))
    pg.wait_for_selector("#ce-ok")
    again = parse_card_set(json.loads(set_json(pg))).to_json()
    assert again == loaded.to_json()
    no_js_errors(pg)


def test_download_csv_of_a_card_with_a_problem_names_it(server, page):  # noqa: F811
    pg = page
    open_cards(pg, server)
    pg.click("[data-ce-pick='highway:3']")
    pg.select_option("#ce-miles", "")  # no miles
    pg.wait_for_selector("#ce-status .bad")
    downloads = []
    pg.on("download", lambda d: downloads.append(d))
    pg.click("[data-ce='download-csv']")
    pg.wait_for_selector("#alert:has-text('Not downloaded as CSV')")
    text = pg.locator("#alert-text").inner_text()
    assert "H04" in text and "miles" in text and "Download JSON" in text, text
    assert downloads == []
    # the JSON keeps a set with its problems, and says so
    with pg.expect_download():
        pg.click("[data-ce='download-json']")
    assert "problem" in pg.locator("#ce-downloaded").inner_text()
    no_js_errors(pg)


def test_import_json_file(server, page):  # noqa: F811
    """The shipped default.json and a set downloaded here import as JSON (the import took
    CSV only); the file's problems are named by card and field as a CSV's are, and what
    the editor has no place for is listed; a file that is no card set is refused in
    words, the set being edited kept."""
    pg = page
    open_cards(pg, server)
    pg.click("[data-ce-pick='highway:0']")
    pg.click("[data-ce='delete']")
    choose_file(pg, "default.json", DEFAULT_JSON.read_bytes())
    announced(pg, "Imported default.json: 69 Highway cards, 20 Landmarks")
    assert pg.locator("[data-ce-pick^='highway:']").count() == 69
    assert pg.locator("#ce-setname").input_value() == "default"
    assert pg.locator("#ce-recon").is_checked()
    assert json.loads(set_json(pg)) == json.loads(DEFAULT_JSON.read_text())
    assert pg.evaluate("document.activeElement.id") == "ce-csv"  # the focus stays

    kept = set_json(pg)
    for name, data, said in [
            ("notes.json", b"{\"highway\": [1, 2", "is not JSON"),
            ("list.json", b"[1, 2, 3]", "is not a card set"),
            ("record.json", json.dumps({"format": "bigsur-record/1", "actions": []}).encode(),
             "is not a card set"),
            ("future.json", json.dumps({"format": "bigsur-cards/9", "highway": []}).encode(),
             "of format \"bigsur-cards/9\""),
            ("empty.json", json.dumps({"highway": [], "landmarks": []}).encode(),
             "holds no card")]:
        choose_file(pg, name, data)
        pg.wait_for_selector(f"#alert:has-text('{name}')")
        text = pg.locator("#alert-text").inner_text()
        assert said in text and "the set being edited is kept" in text, text
        assert set_json(pg) == kept
        pg.click("#alert-close")

    # a hand-written file: problems named by card and field, fields left out listed
    raw = json.loads(DEFAULT_JSON.read_text())
    raw.update(name="hand-typed", reconstruction=False, colour="blue")
    raw["highway"][2]["miles"] = "x"
    raw["highway"][4]["colour"] = "red"
    raw["highway"][5]["scenery"] = "ocean"  # a text, not a list
    raw["highway"].insert(7, 12)
    raw["landmarks"][0]["ability"] = "mile_bonus miles=2"  # an effect as text
    choose_file(pg, "hand-typed.json", json.dumps(raw).encode())
    pg.wait_for_selector("#ce-import-note")
    note = pg.locator("#ce-import-note").inner_text()
    assert "colour: not a field of a card set" in note
    assert "H05.colour: not a field of a Highway card" in note
    assert "highway[7]: 12, not a card" in note
    pg.wait_for_function("() => document.querySelector('#ce-status').innerText"
                         ".includes('H03 \u00b7 miles')")
    status = pg.locator("#ce-status").inner_text()
    assert "H06 \u00b7 scenery" in status, status
    pg.click("[data-ce-pick='highway:5']")  # drawn without a crash
    pg.click("[data-ce-pick='highway:2']")
    assert pg.locator(".ce-field.bad[data-field='miles']").count() == 1
    pg.click("[data-ce-pick='landmark:0']")
    assert pg.locator("#ce-ability").input_value() == "mile_bonus miles=2"
    no_js_errors(pg)


def click_and_check_undo(pg, label: str, before: str) -> None:
    """Undo's button names the last action; clicked, the set is back to ``before``."""
    undo = pg.locator("#ce-undo")
    assert undo.inner_text() == "Undo " + label
    undo.click()
    assert set_json(pg) == before
    announced(pg, "Undone: " + label)


def test_each_destructive_action_is_undone(server, page):  # noqa: F811
    pg = page
    open_cards(pg, server)
    assert pg.locator("#ce-undo").is_disabled()
    pg.fill("#ce-setname", "undo-me")
    pg.click("[data-ce-pick='highway:11']")
    pg.fill("#ce-text", "an edit not saved")
    checked(pg)
    before = set_json(pg)

    pg.click("[data-ce='delete']")
    assert pg.evaluate("document.activeElement.dataset.ce") == "delete"  # not <body>
    assert "H12" not in [c["id"] for c in json.loads(set_json(pg))["highway"]]
    click_and_check_undo(pg, "delete H12", before)
    assert pg.locator("#ce-text").input_value() == "an edit not saved"
    assert pg.evaluate("document.activeElement.id") == "ce-undo"  # not <body>

    pg.click("[data-ce='load']")  # the shipped set replaces the edits
    pg.wait_for_function("() => document.querySelector('#ce-undo').innerText"
                         ".startsWith('Undo load')")
    assert pg.locator("#ce-setname").input_value() == "my-cards"
    label = pg.locator("#ce-undo").inner_text()[len("Undo "):]
    click_and_check_undo(pg, label, before)

    choose_file(pg, "default.json", DEFAULT_JSON.read_bytes())
    pg.wait_for_function("() => document.querySelector('#ce-setname').value === 'default'")
    click_and_check_undo(pg, "import default.json", before)
    assert pg.locator("#ce-setname").input_value() == "undo-me"

    # the text written for a bonus, which changed under it: "Clear the text"
    card = next(i for i, c in enumerate(json.loads(before)["highway"]) if c["miles"] == 2)
    pg.click(f"[data-ce-pick='highway:{card}']")
    pg.fill("#ce-text", "my own words for the bonus")
    pg.fill("#ce-bonus", "stretch_count points=2")
    pg.wait_for_selector("[data-ce='clear-text']")
    with_text = set_json(pg)
    card_id = json.loads(with_text)["highway"][card]["id"]
    announced(pg, f"The text of {card_id} was written for its bonus before your change")
    pg.click("[data-ce='clear-text']")
    assert "text" not in json.loads(set_json(pg))["highway"][card]
    click_and_check_undo(pg, f"clear the text of {card_id}", with_text)
    no_js_errors(pg)


def test_undo_by_key_goes_back_through_twenty_states(server, page):  # noqa: F811
    """Ctrl+Z outside a text field undoes the editor's last step, at least 20 back; in a
    text field it is the field's own undo. A Save in between leaves an undone set a new
    version of the set saved (not a second set refused by its name)."""
    pg = page
    open_cards(pg, server)
    pg.fill("#ce-setname", "many-steps")
    pg.click("[data-ce-pick='highway:0']")
    checked(pg)
    start = set_json(pg)
    for _ in range(21):
        pg.click("[data-ce='delete']")
    assert len(json.loads(set_json(pg))["highway"]) == 69 - 21
    pg.keyboard.press("Control+z")
    assert len(json.loads(set_json(pg))["highway"]) == 69 - 20
    pg.focus("#ce-setname")
    pg.keyboard.press("Control+z")  # the name field's own undo: not the editor's
    assert len(json.loads(set_json(pg))["highway"]) == 69 - 20
    pg.focus("[data-ce='download-json']")
    for _ in range(20):
        pg.keyboard.press("Control+z")
    assert set_json(pg) == start

    # saved, then an earlier state undone: Save stores it as a new version of the set
    pg.click("[data-ce-pick='highway:0']")
    pg.fill("#ce-text", "my first card")
    with_text = set_json(pg)
    pg.fill("#ce-desc", "typed from my box")
    checked(pg)
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    click_and_check_undo(pg, "edit the description", with_text)
    checked(pg)
    assert pg.locator("#ce-save").inner_text() == "Save a new version"
    assert pg.locator("#ce-name-note").count() == 0
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    no_js_errors(pg)


@pytest.mark.parametrize("action", ["add-highway", "add-landmark"])
def test_an_added_card_is_undone(server, page, action):  # noqa: F811
    pg = page
    open_cards(pg, server)
    before = set_json(pg)
    pg.click(f"[data-ce='{action}']")
    assert pg.evaluate("document.activeElement.dataset.ce") == action
    added = pg.locator("#ce-id").input_value()
    click_and_check_undo(pg, f"add {added}", before)
    no_js_errors(pg)


def test_save_labelled_as_a_reconstruction_keeps_the_focus(server, page):  # noqa: F811
    """'Save labelled as a reconstruction' goes away as it saves: the focus went to <body>
    (a keyboard player started again from the top of the page); it goes to Save."""
    pg = page
    open_cards(pg, server)
    pg.fill("#ce-setname", "focus-copy")
    before = set_json(pg)
    pg.uncheck("#ce-recon")  # the shipped cards said to be the printed list
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-recon-warn")
    pg.focus("[data-ce='keep-recon']")
    pg.keyboard.press("Enter")
    pg.wait_for_selector("#ce-saved")
    pg.wait_for_function("() => document.activeElement.id === 'ce-save'")
    assert json.loads(set_json(pg))["reconstruction"] is True
    pg.click("#ce-undo")  # back before the box was checked again: unchecked
    assert json.loads(set_json(pg))["reconstruction"] is False
    pg.click("#ce-undo")
    assert set_json(pg) == before
    no_js_errors(pg)


def test_save_is_said_to_a_screen_reader(server, page):  # noqa: F811
    """The status that says a Save is drawn anew with the editor, so a screen reader read
    nothing of it: Saved and Nothing to save are said in the page's polite region."""
    pg = page
    open_cards(pg, server)
    pg.fill("#ce-setname", "said-saved")
    pg.wait_for_selector("#ce-ok")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    announced(pg, "Saved on the server: said-saved v1")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-nothing")
    announced(pg, "Nothing to save: no change since said-saved v1")
    no_js_errors(pg)


def test_import_of_a_json_set_beyond_the_servers_caps_keeps_the_set(server, page):  # noqa: F811
    """A JSON file of more cards than the server checks was put in the editor as it was
    (hundreds of cards drawn, every check refused as too large): it is refused, naming
    the cap, and the set being edited is kept, as a CSV beyond it is."""
    pg = page
    open_cards(pg, server)
    kept = set_json(pg)
    raw = json.loads(DEFAULT_JSON.read_text())
    raw["highway"] = [{**raw["highway"][0], "id": f"H{i:03}"} for i in range(400)]
    choose_file(pg, "huge.json", json.dumps(raw).encode())
    pg.wait_for_selector("#alert:has-text('huge.json')")
    text = pg.locator("#alert-text").inner_text()
    assert "at most 300" in text and "the set being edited is kept" in text, text
    assert set_json(pg) == kept
    assert pg.locator("[data-ce-pick^='highway:']").count() == 69
    no_js_errors(pg)


def test_a_set_downloaded_and_imported_again_gets_a_version(server, page, tmp_path):  # noqa: F811
    """A set saved here, downloaded as JSON and imported again while another set is
    edited (another day, another browser) was refused by its own name ('already on this
    server: choose another name... Load it', and Load replaced the file's cards): it is
    a version of its stored set, as if loaded."""
    pg = page
    open_cards(pg, server)
    pg.fill("#ce-setname", "round-trip")
    pg.wait_for_selector("#ce-ok")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    with pg.expect_download() as dl:
        pg.click("[data-ce='download-json']")
    path = tmp_path / "round-trip.json"
    dl.value.save_as(path)
    pg.click("[data-ce='load']")  # the shipped set: another set is being edited
    pg.wait_for_function("() => document.querySelector('#ce-setname').value === 'my-cards'")
    raw = json.loads(path.read_text())
    raw["landmarks"][2]["text"] = "a note typed on another day"
    choose_file(pg, "round-trip.json", json.dumps(raw).encode())
    pg.wait_for_function("() => document.querySelector('#ce-setname').value === 'round-trip'")
    checked(pg)
    assert pg.locator("#ce-save").inner_text() == "Save a new version"
    assert pg.locator("#ce-name-note").count() == 0
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved:has-text('round-trip v2')")
    no_js_errors(pg)


SAID = """() => { window.__said = [];
  new MutationObserver((changes) => { for (const c of changes) {
    for (const p of c.addedNodes) window.__said.push(p.textContent); } })
    .observe(document.querySelector('#announce'), {childList: true}); }"""


def said(pg) -> list[str]:
    return pg.evaluate("window.__said")


def test_a_problem_is_said_once_not_at_each_check(server, page):  # noqa: F811
    """The form is drawn anew at each check, and each problem below a field was an alert,
    said again at every check while the player typed elsewhere; the status was a live
    region drawn anew (said at each check, or never). A new problem is said once, in a
    few words; the field is marked invalid and described by its problem."""
    pg = page
    open_cards(pg, server)
    pg.evaluate(SAID)
    pg.click("[data-ce-pick='highway:1']")  # H02, a 1-Mile card with a Persistent Material
    pg.select_option("#ce-miles", "3")
    pg.wait_for_function("() => window.__said.some((t) => t.includes('H02 \u00b7 persistent'))")
    assert said(pg) == [pg.evaluate("window.__said[0]")]
    assert said(pg)[0].startswith("1 problem; the first: H02 \u00b7 persistent")
    assert pg.locator("#ce-form [role=alert], #ce-status[aria-live]").count() == 0
    persistent = pg.locator("#ce-persistent")
    assert persistent.get_attribute("aria-invalid") == "true"
    described = pg.evaluate("""() => document.getElementById('ce-persistent')
      .getAttribute('aria-describedby').split(' ')
      .map((id) => document.getElementById(id).textContent).join(' ')""")
    assert described and described in pg.locator("#ce-status").inner_text(), described
    checks = pg.evaluate("Number(document.body.dataset.ceChecked)")
    pg.click("#ce-text")
    pg.keyboard.type("typed slowly", delay=60)  # checks answer as it is typed
    pg.wait_for_function("(n) => Number(document.body.dataset.ceChecked) > n", arg=checks)
    pg.wait_for_selector("#ce-status:has-text('H02 \u00b7 persistent')")
    assert len(said(pg)) == 1, said(pg)
    pg.select_option("#ce-persistent", "")  # fixed: said once
    pg.wait_for_function("() => window.__said.length === 2")
    assert said(pg)[1].startswith("Valid: 69 Highway cards")
    assert pg.locator("#ce-persistent").get_attribute("aria-invalid") is None
    no_js_errors(pg)


def test_an_undo_too_many_is_redone(server, page):  # noqa: F811
    """Undo was a way back with none forward: an Undo too many lost the change undone (a
    whole import, or a card typed in). Redo (its button, Ctrl+Shift+Z, Ctrl+Y) brings it
    back; a new change after an Undo ends what can be redone."""
    pg = page
    open_cards(pg, server)
    assert pg.locator("#ce-redo").is_disabled()
    pg.click("[data-ce-pick='highway:4']")
    pg.fill("#ce-text", "typed in with care")
    typed = set_json(pg)
    pg.click("[data-ce='delete']")
    deleted = set_json(pg)
    pg.click("#ce-undo")
    pg.click("#ce-undo")  # one too many: the text goes too
    assert "typed in with care" not in set_json(pg)
    assert pg.locator("#ce-redo").inner_text() == "Redo edit H05 \u00b7 text"
    pg.click("#ce-redo")
    assert set_json(pg) == typed
    announced(pg, "Redone: edit H05 \u00b7 text")
    assert pg.evaluate("document.activeElement.id") == "ce-redo"
    pg.keyboard.press("Control+Shift+z")
    assert set_json(pg) == deleted
    pg.keyboard.press("Control+z")
    pg.keyboard.press("Control+y")
    assert set_json(pg) == deleted
    pg.keyboard.press("Control+z")
    pg.click("[data-ce='add-landmark']")  # a new change: nothing to redo over it
    assert pg.locator("#ce-redo").is_disabled()
    no_js_errors(pg)


def test_undo_outlives_a_reload(server, page):  # noqa: F811
    """The set being edited is kept through a reload, but its Undo was not: a card
    deleted, then the page reloaded, and the card was gone for good. Undo and Redo are
    kept for the tab, and an import's notes with the draft."""
    pg = page
    open_cards(pg, server)
    pg.click("[data-ce-pick='highway:4']")
    pg.fill("#ce-text", "typed before the reload")
    before = set_json(pg)
    pg.click("[data-ce='delete']")
    deleted = set_json(pg)
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-restored")
    assert pg.locator("#ce-undo").inner_text() == "Undo delete H05"
    pg.click("#ce-undo")
    assert set_json(pg) == before
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-restored")
    assert pg.locator("#ce-redo").inner_text() == "Redo delete H05"
    pg.click("#ce-redo")
    assert set_json(pg) == deleted

    raw = json.loads(DEFAULT_JSON.read_text())
    raw["highway"][0]["colour"] = "red"
    raw["name"] = "with-a-note"
    choose_file(pg, "noted.json", json.dumps(raw).encode())
    pg.wait_for_selector("#ce-import-note:has-text('H01.colour')")
    pg.reload()  # the import's notes are kept with the draft
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-import-note:has-text('H01.colour')")
    no_js_errors(pg)


def test_the_card_lists_are_one_tab_stop_each(server, page):  # noqa: F811
    """Each of the 89 chips was a stop of the Tab key: a keyboard player went through
    them all to reach the form, and back. Each list is one stop (its chosen card, else its
    first); the arrow keys, Home and End move in it and Enter chooses."""
    pg = page
    open_cards(pg, server)
    assert pg.locator(".ce-chip[tabindex='0']").count() == 2
    active = "() => document.activeElement.dataset.cePick || document.activeElement.dataset.ce"
    pg.focus("[data-ce-pick='highway:0']")
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate(active) == "highway:2"
    pg.keyboard.press("Enter")
    assert pg.locator("#ce-id").input_value() == "H03"
    assert pg.evaluate(active) == "highway:2"
    pg.keyboard.press("Tab")  # the next list: its first card
    assert pg.evaluate(active) == "landmark:0"
    pg.keyboard.press("End")
    assert pg.evaluate(active) == "landmark:19"
    pg.keyboard.press("Tab")
    assert pg.evaluate(active) == "add-highway"
    pg.keyboard.press("Shift+Tab")
    pg.keyboard.press("Shift+Tab")  # back to the list of Highway cards: the card chosen
    assert pg.evaluate(active) == "highway:2"
    no_js_errors(pg)


def test_the_focus_outlives_the_check_answering(server, page):  # noqa: F811
    """The editor is drawn anew when the check answers; the focus went back only to a
    field, so a Delete, a card chosen or a download pressed from the keyboard lost it to
    <body> a moment later. It stays on the button."""
    pg = page
    open_cards(pg, server)
    active = "() => document.activeElement.dataset.cePick || document.activeElement.dataset.ce"
    for target in ("[data-ce='delete']", "[data-ce='add-landmark']"):
        checks = pg.evaluate("Number(document.body.dataset.ceChecked)")
        pg.focus(target)
        pg.keyboard.press("Enter")  # a change: the check answers after it
        pg.wait_for_function("(n) => Number(document.body.dataset.ceChecked) > n", arg=checks)
        assert pg.evaluate(active) == target.split("'")[1], target
    checks = pg.evaluate("Number(document.body.dataset.ceChecked)")
    pg.fill("#ce-setname", "focus-kept")  # a check to come, then a card chosen at once
    pg.focus("[data-ce-pick='highway:0']")
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("Enter")
    pg.wait_for_function("(n) => Number(document.body.dataset.ceChecked) > n", arg=checks)
    assert pg.evaluate(active) == "highway:1"
    no_js_errors(pg)


def test_the_problem_count_counts_every_problem_listed(server, page):  # noqa: F811
    """A 2-Mile card given the bonus 'foo' showed '1 problem:' over two red bullets: the
    bonus the check refuses and its text, written for the bonus before (which Save waits
    for as well). The heading and Save now count each problem listed, the text's too."""
    pg = page
    open_cards(pg, server)
    pg.fill("#ce-setname", "counted-problems")
    highway = load_card_set().highway
    index = next(i for i, c in enumerate(highway) if c.miles == 2 and c.text)
    card = highway[index].id
    pg.click(f"[data-ce-pick='highway:{index}']")
    pg.fill("#ce-bonus", "foo")
    pg.wait_for_selector("#ce-text-stale")
    pg.wait_for_selector("#ce-status:has-text(\"unknown kind 'foo'\")")
    status = pg.locator("#ce-status")
    listed = status.locator("li").all_inner_texts()
    assert [x.split(":")[0] for x in listed] == [f"{card} · bonus", f"{card} · text"], listed
    assert status.inner_text().startswith("2 problems:"), status.inner_text()
    pg.click("#ce-save")
    pg.wait_for_selector("#alert:has-text('Not saved: fix the 2 problems listed first')")
    pg.click("[data-ce='keep-text']")
    pg.wait_for_selector("#ce-text-stale", state="detached")
    assert status.locator("li").all_inner_texts() == listed[:1]
    assert status.inner_text().startswith("1 problem:"), status.inner_text()
    no_js_errors(pg)


COST_MENUS = "() => [...document.querySelectorAll('#ce-form [name^=cost]')].map((s) => s.value)"


def test_an_emptied_cost_menu_stays_in_its_place(server, page):  # noqa: F811
    """A card's Cost [timber, steel, —] with its first menu emptied ("?") showed
    [steel, ?, —]: the menus moved up, and timber chosen next in the first menu made the
    cost [timber] (steel silently gone); the problem read "must be a list of 2 or 3 of
    stone, ..., got ['timber']". The menus stay where they are while the card is edited,
    and the problem says the cost in words."""
    pg = page
    open_cards(pg, server)
    index, card = next((i, c) for i, c in enumerate(load_card_set().highway)
                       if len(c.cost) == 2 and len(set(c.cost)) == 2)
    first, second = card.to_json()["cost"]
    pg.click(f"[data-ce-pick='highway:{index}']")
    assert pg.evaluate(COST_MENUS) == [first, second, ""]
    pg.select_option("#ce-cost", "")
    pg.wait_for_selector(f"#ce-status:has-text('{card.id} · cost')")
    checked(pg)
    assert pg.evaluate(COST_MENUS) == ["", second, ""]
    status = pg.locator("#ce-status").inner_text()
    assert f"needs 2 or 3 Materials, has 1 ({second})" in status, status
    assert "got [" not in status, status
    assert "got [" not in pg.locator("#ce-form").inner_text()
    other = next(m for m in ("stone", "water", "timber", "engineering", "steel")
                 if m not in (first, second))
    pg.select_option("#ce-cost", other)
    pg.wait_for_selector(f"#ce-status:not(:has-text('{card.id} · cost'))")
    checked(pg)
    assert pg.evaluate(COST_MENUS) == [other, second, ""]
    cost = json.loads(set_json(pg))["highway"][index]["cost"]
    assert cost == [other, second], cost
    no_js_errors(pg)


def test_save_during_the_check_waits_for_it(server, page):  # noqa: F811
    """Save pressed while the check of a change was on its way sent the set: the server
    refused it in its own words ("Not allowed: 1 problem(s); first: ..."), where after
    the check the editor says "Not saved: fix the problem listed first (...)". Save waits
    for the check and applies the same rule (the check held here until Save is pressed)."""
    pg = page
    open_cards(pg, server)
    pg.fill("#ce-setname", "saved-during-check")
    checked(pg)
    card = load_card_set().highway[1].id
    pg.click("[data-ce-pick='highway:1']")
    held = []
    pg.route("**/v1/cardsets/check", lambda route: held.append(route))
    saves = []
    pg.on("request", lambda r: saves.append(r.url)
          if r.method == "POST" and r.url.endswith("/v1/cardsets") else None)
    with pg.expect_request("**/v1/cardsets/check"):
        pg.select_option("#ce-miles", "")
    pg.click("#ce-save")
    for route in held:
        route.continue_()
    pg.unroute("**/v1/cardsets/check")
    alert = pg.locator("#alert")
    alert.wait_for()
    text = alert.inner_text()
    assert text.startswith(f"Not saved: fix the problem listed first ({card} · miles"), text
    assert not saves, saves
    no_js_errors(pg)
