"""The card-set editor and the position editor in a real browser (issue 14).

Same setup as test_web_page.py (its fixtures: a real server on loopback, Debian's
Chromium through Playwright). A card set is entered through the form and through a CSV
import (with problems found, named by card and field, and fixed), saved and offered for
new games; a 3-player mid-game position is set up by clicks, flagged while incomplete,
hinted, scored and paid, and its URL reloads into the same position. Opening a position
from a recorded game's review is checked at the end of test_web_page's full game.
This module's server also serves a set of its own, from a ``BIGSUR_CARDS`` file
(:data:`FILE_SET`). Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

import csv
import io
import json
import urllib.request

import pytest
from test_web_page import browser, no_overflow, page, server, shot  # noqa: F401 - fixtures

from solver.rules.cards import load_card_set
from solver.rules.cardset_csv import card_set_to_csv

CARDS = load_card_set()
FILE_SET = "printed-cards"  # the set of this module's server's BIGSUR_CARDS file


@pytest.fixture(scope="module", autouse=True)
def server_cards_file(tmp_path_factory):
    """The shipped cards as :data:`FILE_SET` in a file that this module's server reads
    from ``BIGSUR_CARDS`` at start-up (the environment is set while the module runs)."""
    path = tmp_path_factory.mktemp("cards") / "printed.json"
    path.write_text(json.dumps(CARDS.to_json() | {"name": FILE_SET}))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BIGSUR_CARDS", str(path))
        yield path


def open_editor(pg, base: str, nav: str, ready: str) -> None:
    """The page at ``base``, one of its editors opened by its ``nav`` button and drawn
    (``ready``: a selector of the editor)."""
    pg.goto(base + "/")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click(nav)
    pg.wait_for_selector(ready)


def get(base: str, path: str):
    with urllib.request.urlopen(base + path, timeout=10) as r:
        return json.loads(r.read())


def status_has(pg, text: str) -> None:
    pg.wait_for_function("(t) => document.querySelector('#ce-status') && "
                         "document.querySelector('#ce-status').innerText.includes(t)", arg=text)


def test_card_set_editor_form_and_csv(server, page):  # noqa: F811
    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-ok")  # starts from a copy of the shipped set: valid
    pg.fill("#ce-setname", "table-cards")
    pg.click("[data-ce-pick='highway:1']")  # H02, drawn as on the table
    assert pg.locator(".ce-preview svg.card").count() == 1
    pg.select_option("#ce-miles", "3")
    # live validation: the server's rules, naming the card and the field
    status_has(pg, "H02 \u00b7 persistent")
    pg.wait_for_selector(".ce-field.bad[data-field='persistent'] .ce-err")
    assert pg.locator(".ce-chip.bad[data-ce-pick='highway:1']").count() == 1
    shot(pg, "20-cardset-form-error")
    pg.select_option("select[name='persistent']", "")
    pg.fill("#ce-text", "typed from the box")
    pg.wait_for_selector("#ce-ok")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    stored = get(server, "/v1/cardsets/table-cards")
    h02 = stored["highway"][1]
    assert h02["miles"] == 3 and "persistent" not in h02 and h02["text"] == "typed from the box"
    assert pg.locator("#setup-cards option[value='table-cards']").count() == 1
    assert "table-cards" in [s["name"] for s in get(server, "/v1/cards")]

    # CSV import with two problems: a miles cell that is no number, an unknown Scenery
    rows = list(csv.reader(io.StringIO(card_set_to_csv(CARDS.to_json()))))
    by_id = {r[1]: r for r in rows}
    by_id["H05"][3] = "ocean lava"
    by_id["H07"][2] = "x"
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    pg.fill("#ce-setname", "sheet-cards")
    pg.set_input_files("#ce-csv", files=[{"name": "my-cards.csv", "mimeType": "text/csv",
                                          "buffer": buf.getvalue().encode()}])
    status_has(pg, "H07 \u00b7 miles")
    status_has(pg, "H05 \u00b7 scenery")
    assert "CSV row 8" in pg.locator("#ce-status").inner_text()
    shot(pg, "21-cardset-csv-errors")
    pg.click("#ce-status [data-ce-jump='highway:4']")  # H05
    pg.wait_for_selector(".ce-field.bad[data-field='scenery']")
    pg.select_option("select[name='scenery1']", "forest")
    pg.click("[data-ce-pick='highway:6']")  # H07
    pg.select_option("#ce-miles", "1")
    pg.wait_for_selector("#ce-ok")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    shot(pg, "22-cardset-saved")
    stored = get(server, "/v1/cardsets/sheet-cards")
    assert stored["highway"][4]["scenery"] == ["ocean", "forest"]
    assert stored["highway"][6]["miles"] == 1
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_three_players(server, page):  # noqa: F811
    pg = page
    deck = [c.id for c in CARDS.highway if 3 in c.players]
    depot, hand, discard, mine, p2, p3, p3_known = (deck[0:5], deck[5:7], deck[7], deck[8],
                                                    deck[9:11], deck[11], deck[12])
    icons = {s for cid in p2 for s in CARDS.highway[CARDS.card(cid)].scenery}
    stray = next(lm.id for lm in CARDS.landmarks if lm.scenery not in icons)
    row = [lm.id for lm in CARDS.landmarks if lm.id != stray][:5]

    open_editor(pg, server, "#nav-editor", "#pe-problems")
    # the pure parts, in the page: turns per seat, the link's encoding, effects as text
    pure = pg.evaluate("""async () => {
      const m = await import('/js/views/position-editor.js');
      const c = await import('/js/views/cardset-editor.js');
      const p = m.emptyPosition('default', 3, 0);
      p.first = 2; p.turn = 4; p.hand = ['H01'];
      const e = {kind: 'landmark_collection', points: 1, sceneries: ['ocean', 'field']};
      return [[0, 1, 2].map((i) => m.seatTurns(p, i)), m.toAct(p),
              JSON.stringify(m.decode(m.encode(p))) === JSON.stringify(p),
              JSON.stringify(c.effectFromText(c.effectToText(e))) === JSON.stringify(e)];
    }""")
    assert pure == [[1, 1, 2], 0, True, True]
    pg.select_option("#pe-players", "3")
    pg.fill("#pe-turn", "3")
    pg.press("#pe-turn", "Enter")
    pg.locator("#pe-turn").evaluate("e => e.dispatchEvent(new Event('change'))")
    pg.wait_for_selector("#pe-summary:has-text('Player 1 to act')")
    # the counts do not add up yet: flagged
    pg.wait_for_selector("#pe-problems:has-text('hold 0 cards')")

    def place(target: str, ids: list[str]) -> None:
        pg.select_option("#pe-target", target)
        for cid in ids:
            pg.click(f".pe-palette [data-pe-place='{cid}']")

    place("depot", depot)
    place("hand", hand)
    place("discard", [discard])  # a seat that built has discarded (its first build)
    place("hw:0:R", [mine])
    place("hw:1:R", p2)
    place("hw:2:L", [p3])
    place("known:2", [p3_known])
    pg.click("[data-pe-mat='1:stone']")  # Player 2's discard pile: one stone on top
    pg.click("[data-pe-mat='2:water']")
    pg.select_option("#pe-target", "row")
    for lm in row:
        pg.click(f"[data-pe-lm='{lm}']")
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    # a Landmark above a card outside any Stretch of its Scenery is flagged
    pg.select_option("#pe-target", "lm:1")
    pg.click(f"[data-pe-lm='{stray}']")
    pg.wait_for_selector("#pe-pending")
    pg.click(f"[data-pe-hwcard='1:{p2[0]}']")
    pg.wait_for_selector(f"#pe-problems:has-text('{stray} sits above {p2[0]}')")
    assert "Player 2's Landmarks: " in pg.locator("#pe-problems").inner_text()
    assert "no qualifying" in pg.locator("#pe-problems").inner_text()
    # a card typed twice is refused, naming it
    pg.select_option("#pe-target", "hand")
    pg.fill("#pe-ids", depot[0])
    pg.press("#pe-ids", "Enter")
    pg.wait_for_selector(f"#alert:has-text('{depot[0]} is already placed')")
    pg.click("#alert-close")
    pg.click(f"[data-pe-unclaim='1:{stray}']")
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    summary = pg.locator("#pe-summary").inner_text()
    assert "deck 42 cards" in summary, summary  # 59 - 5 (Depot) - 3 x 4 held
    shot(pg, "23-position-3p", full=True)

    pg.select_option("#pe-budget", "iterations:100")
    pg.click("#pe-hint")
    pg.wait_for_selector("#pe-moves li", timeout=60_000)
    assert "win" in pg.locator("#pe-moves li").first.inner_text()
    shot(pg, "24-position-hint", full=True)
    pg.click("#pe-score")
    pg.wait_for_selector("#pe-scores")
    assert pg.locator("#pe-scores tr").last.locator("th").count() == 4  # label + 3 seats

    # the URL holds the position: reloading it gives the same view
    pg.click("#pe-json")
    pg.wait_for_selector("#pe-copied")
    before = json.loads(pg.locator("#pe-jsonbox").input_value())
    assert before["format"] == "bigsur-view/1" and before["seats"][1]["hand"] == {
        "count": 1, "known": []}
    assert before["seats"][2]["hand"] == {"count": 2, "known": [p3_known]}
    url = pg.url
    assert "#position=" in url
    pg.goto("about:blank")
    pg.goto(url)
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    pg.click("#pe-json")
    pg.wait_for_selector("#pe-copied")
    assert json.loads(pg.locator("#pe-jsonbox").input_value()) == before
    shot(pg, "25-position-reloaded", full=True)

    # the build step: two more hand cards (the picks), then the cheapest payment
    pg.select_option("#pe-step", "build")
    pg.wait_for_selector("#pe-problems:has-text('you hold 6')")
    pg.select_option("#pe-target", "hand")
    pg.fill("#pe-ids", f"{deck[13]} {deck[14]}")
    pg.click("[data-pe='type']")  # the Place button, not only Enter in the box
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    pg.click("#pe-pay")  # nothing typed: says what to type, in words (not the API's list rule)
    pg.wait_for_selector("#pe-error:has-text('Type the cards to build')")
    pg.fill("#pe-builds", f"{hand[0]}:R")
    pg.click("#pe-pay")
    pg.wait_for_selector("#pe-payment")
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_editors_on_a_phone(server, browser):  # noqa: F811
    """390x844: neither editor is wider than the phone (the card-set choice carries the
    set's long label; the page hides sideways overflow, so it would be cut off)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    try:
        pg.goto(server + "/")
        pg.wait_for_selector("body[data-ready='1']")
        pg.click("#nav-editor")
        pg.wait_for_selector("#editor:not([hidden]) #pe-problems")
        no_overflow(pg)
        pg.click("#nav-cards")
        pg.wait_for_selector("#cards:not([hidden]) #ce-save")
        no_overflow(pg)
    finally:
        context.close()


def test_card_set_draft_survives_a_reload(server, page):  # noqa: F811
    """The set being edited is kept in the browser (a reload had dropped every unsaved
    edit); a card added after a deletion gets an id not taken (it had got the count + 1,
    the id of the last card); a name the server refuses is flagged next to 'Valid'."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "my draft")  # a space: refused when saving
    pg.wait_for_selector("#ce-name-note.bad:has-text('Cannot be saved under this name')")
    pg.fill("#ce-setname", "my-draft")
    pg.click("[data-ce-pick='highway:4']")
    pg.click("[data-ce='delete']")
    pg.click("[data-ce='add-highway']")
    assert pg.locator("#ce-id").input_value() == "H70"
    pg.fill("#ce-text", "not saved yet")
    pg.wait_for_selector("#ce-ok")  # checked: valid (with the count + 1, H69 twice)
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-restored")
    assert pg.locator("#ce-setname").input_value() == "my-draft"
    assert pg.locator("#ce-id").input_value() == "H70"
    assert pg.locator("#ce-text").input_value() == "not saved yet"
    pg.click("[data-ce='load']")  # starting over is still one click
    pg.wait_for_selector("#ce-restored", state="detached")
    assert pg.locator("#ce-setname").input_value() == "my-cards"
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_mistakes(server, page):  # noqa: F811
    """A fractional turn count is a whole one (it had made 'Player 3.5 to act'); changing
    the player count keeps what was placed (it had emptied the table); a hint when
    another seat is to act says so in the page's words (not the server's seat 1);
    an incomplete JSON names what it lacks (not a script's TypeError)."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.select_option("#pe-players", "3")
    pg.fill("#pe-turn", "2.5")
    pg.press("#pe-turn", "Enter")
    pg.locator("#pe-turn").evaluate("e => e.dispatchEvent(new Event('change'))")
    pg.wait_for_selector("#pe-summary:has-text('Player 3 to act')")
    assert pg.locator("#pe-turn").input_value() == "2"
    pg.select_option("#pe-target", "hand")
    pg.click(".pe-palette [data-pe-place='H01']")
    pg.select_option("#pe-players", "4")
    pg.wait_for_selector("#pe-me option[value='3']", state="attached")
    assert pg.locator("#pe-hand [data-card='H01']").count() == 1
    pg.click("#pe-hint")
    pg.wait_for_selector("#pe-error:has-text('Player 3 is to act, not you (Player 1)')")
    pg.click("#pe-continue")
    pg.wait_for_selector("#pe-error:has-text('Player 3 is to act')")
    assert pg.locator("#editor").is_visible()
    pg.fill("#pe-jsonbox", '{"format": "bigsur-view/1", "cards": "default"}')
    pg.click("#pe-loadjson")
    pg.wait_for_selector("#alert:has-text('has no seats, depot, landmark_row, view_of')")
    assert pg.locator("#pe-hand [data-card='H01']").count() == 1  # the table is kept
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_card_set_import_of_no_cards_keeps_the_set(server, page):  # noqa: F811
    """A CSV that holds no card (an empty file, another file) is refused, naming why: it
    had replaced the set being edited by an empty one (every edit lost)."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.click("[data-ce-pick='highway:2']")
    pg.fill("#ce-text", "an edit")
    for name, data in [("empty.csv", b""), ("photo.csv", b"\x89PNG\r\n\x1a\n")]:
        pg.set_input_files("#ce-csv", files=[{"name": name, "mimeType": "text/csv",
                                              "buffer": data}])
        pg.wait_for_selector(f"#alert:has-text('{name} holds no card')")
        pg.click("#alert-close")
    assert pg.locator("[data-ce-pick^='highway:']").count() == 69
    assert pg.locator("#ce-text").input_value() == "an edit"
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_by_keyboard(server, page):  # noqa: F811
    """A card placed or removed by the keyboard (Enter on it) leaves the focus on the one
    now in its place: the editor is redrawn on each change, and the focus had gone back
    to the top of the page (each of the 59 cards was a walk from there)."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.focus(".pe-palette [data-pe-place='H01']")
    pg.keyboard.press("Enter")
    pg.wait_for_selector("#pe-hand [data-card='H01']")
    assert pg.evaluate("document.activeElement.dataset.pePlace") == "H02"
    pg.keyboard.press("Enter")
    pg.wait_for_selector("#pe-hand [data-card='H02']")
    pg.focus("#pe-hand [data-card='H01']")
    pg.keyboard.press("Enter")
    pg.wait_for_selector("#pe-hand [data-card='H01']", state="detached")
    assert pg.evaluate("document.activeElement.dataset.card") == "H02"
    pg.click("[data-pe-mat='1:stone']")
    assert pg.evaluate("document.activeElement.dataset.peMat") == "1:stone"


def set_draft(pg, **changes) -> None:
    """Change the card-set draft kept in this browser (as a reload would find it)."""
    pg.evaluate("""(changes) => {
      const key = 'bigsur.cardset-draft';
      const d = JSON.parse(localStorage.getItem(key));
      if (changes.name) d.set.name = changes.name;
      if ('storedName' in changes) d.storedName = changes.storedName;
      localStorage.setItem(key, JSON.stringify(d));
    }""", changes)


def test_card_set_draft_of_a_set_this_server_lacks(server, page):  # noqa: F811
    """A draft restored from this browser that was based on a set this server does not
    store (saved on another server, or the database was reset) had 'Save a new version'
    answered by a raw 404; the editor now says the set is not on this server and saves
    the draft as a new set."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    set_draft(pg, name="elsewhere-cards", storedName="elsewhere-cards")
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-restored")
    pg.wait_for_selector("#ce-base-missing:has-text('elsewhere-cards is not on this server')")
    assert pg.locator("#ce-save").inner_text() == "Save to the server"
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    assert get(server, "/v1/cardsets/elsewhere-cards")["stored_version"] == 1
    assert not pg.locator("#alert").is_visible()
    pg.wait_for_selector("#ce-base-missing", state="detached")  # it is on this server now
    assert pg.locator("#ce-save").inner_text() == "Save a new version"
    assert not pg.js_errors, pg.js_errors


def test_card_set_save_with_no_change_says_so(server, page):  # noqa: F811
    """Save with nothing changed since the last save had said 'Saved' again; it now says
    there is nothing to save (and stores no version); after an edit it saves again."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "unchanged-cards")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-nothing:has-text('Nothing to save')")
    assert pg.locator("#ce-saved").count() == 0
    assert len(get(server, "/v1/cardsets/unchanged-cards/versions")) == 1
    pg.click("[data-ce-pick='highway:2']")
    pg.fill("#ce-text", "an edit")
    pg.wait_for_selector("#ce-nothing", state="detached")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved:has-text('unchanged-cards v2')")
    assert len(get(server, "/v1/cardsets/unchanged-cards/versions")) == 2
    assert not pg.js_errors, pg.js_errors


def delay_checks(pg, ms: int) -> None:
    """From now on the page's live card-set checks are answered ``ms`` late."""
    pg.evaluate("""(ms) => {
      const plain = window.fetch;
      window.fetch = (url, opts) => String(url).includes('/v1/cardsets/check')
        ? new Promise((r) => setTimeout(r, ms)).then(() => plain(url, opts)) : plain(url, opts);
    }""", ms)


def test_card_set_saved_line_outlives_an_older_check(server, page):  # noqa: F811
    """A live check sent before a save and answered after it had wiped the 'Saved on
    the server' line (the editor is redrawn on each check's answer)."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "slow-check-cards")
    pg.wait_for_function("document.querySelector('#ce-setname').value === 'slow-check-cards'")
    pg.wait_for_timeout(600)  # the check of the new name answered
    before = int(pg.evaluate("document.body.dataset.ceChecked"))
    delay_checks(pg, 2000)
    pg.click("[data-ce-pick='highway:2']")
    pg.fill("#ce-text", "checked slowly")
    pg.wait_for_timeout(400)  # the check is sent (250 ms after the edit), not answered
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    pg.wait_for_function("(n) => Number(document.body.dataset.ceChecked) > n", arg=before,
                         timeout=10_000)
    assert pg.locator("#ce-saved").count() == 1
    assert pg.locator("#ce-ok").count() == 1
    assert not pg.js_errors, pg.js_errors



def test_card_set_name_typed_over_while_a_check_answers(server, page):  # noqa: F811
    """The editor is redrawn when a live check answers; the redraw kept the caret but
    not the selection, so a name selected to be typed over got the new text in front of
    it ('sheet-cardstable-cards': a CI run saved that name, then found no 'sheet-cards')."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "old-name")
    pg.wait_for_timeout(600)  # the check of the name answered
    before = int(pg.evaluate("document.body.dataset.ceChecked"))
    delay_checks(pg, 1500)
    pg.fill("#ce-desc", "a check on its way")  # a check is sent, answered 1.5 s later
    pg.focus("#ce-setname")
    pg.evaluate("document.querySelector('#ce-setname').select()")
    pg.wait_for_function("(n) => Number(document.body.dataset.ceChecked) > n", arg=before,
                         timeout=10_000)  # the redraw, between selecting and typing
    pg.keyboard.type("new-name")
    assert pg.input_value("#ce-setname") == "new-name"
    assert not pg.js_errors, pg.js_errors


def test_card_set_editor_says_a_blank_field_is_missing(server, page):  # noqa: F811
    """A field left blank was reported in Python's words: 'got None' for the Miles set
    to '?', "got '?'" for an effect parameter typed without a value; both now read
    'missing' (the message still names the card and the field)."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.click("[data-ce-pick='highway:1']")
    pg.select_option("#ce-miles", "")
    status_has(pg, "H02 \u00b7 miles")
    status_has(pg, "must be an integer 1 to 4 (missing)")
    pg.select_option("#ce-miles", "3")
    pg.select_option("select[name='persistent']", "")
    pg.wait_for_selector("#ce-ok")
    pg.click("[data-ce-pick='landmark:0']")
    pg.fill("#ce-ability", "scenery_points scenery=ocean points")
    status_has(pg, "L01 \u00b7 ability")
    status_has(pg, "scenery_points.points must be a positive integer (missing)")
    assert pg.locator("#ce-ability").input_value() == "scenery_points scenery=ocean points"
    text = pg.locator("#ce-status").inner_text()
    assert "got None" not in text and "got '?'" not in text, text
    assert not pg.js_errors, pg.js_errors

def test_position_editor_says_a_problem_once(server, page):  # noqa: F811
    """An empty position said its Depot problem twice: in the page's words and in the
    server's (its count of unseen cards); the page's own problems are said once."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.click("[data-pe='clear']")
    pg.wait_for_selector("#pe-problems:has-text('the Depot holds 0 cards')")
    pg.wait_for_timeout(600)  # a live check would have answered
    problems = pg.locator("#pe-problems li").all_inner_texts()
    # the page's two (your cards, the Depot), not the server's count of unseen cards too
    assert len(problems) == 2 and not [p for p in problems if "unseen" in p], problems


def test_position_editor_incomplete_position_logs_no_error(server, page):  # noqa: F811
    """Each live check of an incomplete position had logged a 422 in the browser's
    console: the page sends no check of a position it knows is incomplete."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.click("[data-pe='clear']")
    pg.select_option("#pe-target", "depot")
    for cid in ["H01", "H02", "H03"]:
        pg.click(f".pe-palette [data-pe-place='{cid}']")
        pg.wait_for_timeout(300)  # each change checked (200 ms after it)
    pg.select_option("#pe-target", "hand")
    pg.click(".pe-palette [data-pe-place='H10']")
    pg.wait_for_selector("#pe-problems:has-text('the Depot holds 3 cards')")
    pg.wait_for_timeout(600)
    assert not pg.js_errors, pg.js_errors


def test_position_editor_asks_nothing_of_an_incomplete_position(server, page):  # noqa: F811
    """Hint, Score, Pay and Continue on a position the page already finds incomplete
    sent it anyway: the server refused it (a failed 422 in the browser's console) and
    the page showed its reason. The page now says what to fix, from its own list, and
    sends nothing."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.click("[data-pe='clear']")
    pg.wait_for_selector("#pe-problems:has-text('the Depot holds 0 cards')")
    sent = []
    pg.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    pg.fill("#pe-builds", "H01:R")
    for button in ["#pe-hint", "#pe-score", "#pe-pay", "#pe-continue"]:
        pg.click(button)
        error = pg.locator("#pe-error")
        error.wait_for()
        text = error.inner_text()
        assert "Fix the position first" in text and "the Depot holds 0 cards" in text, text
        error.evaluate("e => e.remove()")  # the next answer draws its own
    assert pg.locator("#editor").is_visible()
    assert not sent, sent
    assert not pg.js_errors, pg.js_errors


def test_card_set_of_the_server_file_is_not_saved_under_its_name(server, page):  # noqa: F811
    """A set the server reads from its BIGSUR_CARDS file (known to the server, not stored
    in its database), loaded into the editor, offered 'Save a new version': the server
    answered 404, the editor then said the set was not on this server and saved it as a
    new set, which the server refused as a taken name, pointing back to a new version.
    The editor now says at once that the name is the server's own set and what to do,
    sends nothing under it, and saves the edit under another name."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.select_option("#ce-start", FILE_SET)
    pg.click("[data-ce='load']")
    note = pg.locator("#ce-name-note.bad")
    note.wait_for()
    assert "BIGSUR_CARDS" in note.inner_text() and "another name" in note.inner_text()
    assert pg.locator("#ce-save").inner_text() == "Save to the server"
    pg.click("[data-ce-pick='highway:2']")
    pg.fill("#ce-text", "an edit")
    sent = []
    pg.on("request", lambda r: sent.append(r.url)
          if r.method == "POST" and "/check" not in r.url else None)
    pg.click("#ce-save")
    alert = pg.locator("#alert")
    alert.wait_for(state="visible")
    assert "BIGSUR_CARDS" in alert.inner_text(), alert.inner_text()
    assert not sent, sent
    pg.click("#alert-close")
    pg.fill("#ce-setname", "printed-cards-edited")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    assert get(server, "/v1/cardsets/printed-cards-edited")["highway"][2]["text"] == "an edit"
    assert FILE_SET not in [s["name"] for s in get(server, "/v1/cardsets")]
    assert not pg.js_errors, pg.js_errors


def test_card_set_copy_of_the_reconstruction_stays_labelled(server, page):  # noqa: F811
    """A set started from ``default`` (the shipped reconstruction) had its 'a
    reconstruction' box unchecked: saved unchanged, it was listed with reconstruction
    false and offered for new games with no reconstruction label. The box now starts
    checked, a note beside it says what unchecking it states, and saving the shipped
    cards unchanged as not a reconstruction is stopped with a warning; a changed set is
    saved unchecked without one (the owner's statement that they typed the printed list)."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    assert "reconstruction" in pg.locator("#ce-start option[value='default']").inner_text()
    assert pg.is_checked("#ce-recon")
    pg.fill("#ce-setname", "qa-copy")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    listed = {s["name"]: s for s in get(server, "/v1/cardsets")}
    assert listed["qa-copy"]["reconstruction"] is True, listed["qa-copy"]
    assert "reconstruction" in pg.locator("#setup-cards option[value='qa-copy']").inner_text()

    pg.uncheck("#ce-recon")  # the same cards, said to be the printed list: warned
    pg.wait_for_selector("#ce-recon-note.bad:has-text('these are the cards of')")
    sent = []
    pg.on("request", lambda r: sent.append(r.url)
          if r.method == "POST" and "/check" not in r.url else None)
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-recon-warn:has-text('would be shown as the printed list')")
    assert not sent, sent
    shot(pg, "27-cardset-reconstruction-warning")
    pg.click("[data-ce='keep-recon']")  # labelled again, and so nothing changed
    pg.wait_for_selector("#ce-nothing")
    assert pg.is_checked("#ce-recon") and not sent, sent

    pg.click("[data-ce-pick='landmark:4']")  # a name changed: these may be the printed cards
    pg.fill("#ce-name", "Named as printed")
    pg.uncheck("#ce-recon")
    pg.wait_for_selector("#ce-recon-note:has-text('you state that these are the printed cards')")
    pg.wait_for_selector("#ce-ok")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved:has-text('qa-copy v2')")
    assert get(server, "/v1/cardsets/qa-copy")["reconstruction"] is False
    assert not pg.js_errors, pg.js_errors


def build_step_position() -> tuple[dict, str]:
    """A 2-player position at seat 0's build step (turn 4, seed 1) as JSON, and a card of
    that seat's hand it can build: every seat took 2 deck cards a turn and built its
    first buildable card."""
    from solver.rules import Build, legal_actions, new_game, play, state_to_json

    st = new_game(2, seed=1)
    for turn in range(5):
        st = play(play(st, "take deck"), "take deck")
        if turn == 4:
            break
        builds = [a for a in legal_actions(st) if isinstance(a, Build)]
        if builds:
            st = play(st, builds[0])
        st = play(st, "end")
    card = next(a.card for a in legal_actions(st) if isinstance(a, Build))
    assert st.current == 0
    return state_to_json(st), card


def test_position_editor_hint_and_payment_in_words(server, page):  # noqa: F811
    """The editor's Hint and Pay answered in notation ('pay: build H02 L pay
    sub:H26+H40+H01=timber rec'); they now say it in the table's words (words.js), the
    notation kept in a tooltip and a 'notation' line for power users, and the hint says
    how sure the search is, as the table's does."""
    pg = page
    position, card = build_step_position()
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    assert "No problem found" in load_position(pg, position)
    pg.fill("#pe-builds", f"{card}:R")
    pg.click("#pe-pay")
    pg.wait_for_selector("#pe-payment li")
    words = pg.locator("#pe-payment").inner_text()
    assert f"{card} at the right end" in words and "from your hand" in words, words
    assert " pay " not in words and "build " not in words, words
    assert "build " in pg.locator("#pe-payment li").first.get_attribute("title")
    assert f"build {card} R" in pg.locator(".pe-notation").inner_text()

    pg.select_option("#pe-budget", "iterations:100")
    pg.click("#pe-hint")
    pg.wait_for_selector("#pe-moves li", timeout=60_000)
    pays = pg.locator("#pe-moves .pay")
    assert pays.count(), pg.locator("#pe-moves").inner_text()
    for k in range(pays.count()):
        text = pays.nth(k).inner_text()
        assert text.startswith("Pay: ") and "from your hand" in text, text
        assert " pay " not in text and "build " not in text, text
        assert "pay" in pays.nth(k).get_attribute("title")
    moves = pg.locator("#pe-moves li b").all_inner_texts()
    assert all(m.startswith("You ") for m in moves), moves
    # how sure the search is, as the table's hint says it (the editor said nothing)
    assert "sampled deals both played" in pg.locator("#pe-conf").inner_text()
    shot(pg, "26-position-hint-in-words", full=True)
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_used_this_turn_in_the_rules_words(server, page):  # noqa: F811
    """'Used this turn' named the engine's resources ('persistent extra use', 'borrow
    highway', 'borrow discard'); it now says them as the rules do."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.select_option("#pe-step", "build")
    box = pg.locator(".pe-perturn")
    box.wait_for()
    text = box.inner_text()
    for internal in ["extra use", "borrow highway", "borrow discard", "_"]:
        assert internal not in text, text
    for said in ["Recycling", "a Persistent Material used more than once",
                 "a Material used from another player's Highway",
                 "the top Material of another player's discard pile"]:
        assert said in text, text
    assert box.locator("[data-pe-res]").count() == 3


def test_position_editor_names_too_many_turns(server, page):  # noqa: F811
    """Turns done 500 with one card placed said 'the cards placed exceed the 59-card deck
    by 947', a consequence; the page now names the turn count and the game's largest."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.select_option("#pe-players", "3")
    pg.select_option("#pe-target", "hand")
    pg.click(".pe-palette [data-pe-place='H01']")
    pg.fill("#pe-turn", "500")
    pg.locator("#pe-turn").evaluate("e => e.dispatchEvent(new Event('change'))")
    pg.wait_for_selector("#pe-problems:has-text('Turns done 500')")
    text = pg.locator("#pe-problems").inner_text()
    assert "24 turns (8 each)" in text and "at most 23" in text, text
    assert "exceed" not in text and "hold" not in text, text
    pg.fill("#pe-turn", "24")  # the game is over after the last turn: no one is to act
    pg.locator("#pe-turn").evaluate("e => e.dispatchEvent(new Event('change'))")
    pg.wait_for_selector("#pe-problems:has-text('Turns done 24')")


def test_position_editor_refuses_an_impossible_turn_count_before_the_seat_to_act(
        server, page):  # noqa: F811
    """Turns done 500 with 3 players, the problem listed: Hint answered "Player 3 is to
    act, not you (Player 1) ... Set "I am" to Player 3", advice that fixes nothing (the
    game is over: no one is to act). Hint, Pay and Continue say to fix the position
    first, as of any other impossible position, and send nothing; of a position with
    problems and another seat to act, the problems come first, the seat after them."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.select_option("#pe-players", "3")
    pg.fill("#pe-turn", "500")
    pg.locator("#pe-turn").evaluate("e => e.dispatchEvent(new Event('change'))")
    pg.wait_for_selector("#pe-problems:has-text('Turns done 500')")
    assert "Player 3 to act" in pg.locator("#pe-summary").inner_text()  # not you
    sent = posts_sent(pg)
    pg.fill("#pe-builds", "H01:R")
    for button in ["#pe-hint", "#pe-pay", "#pe-continue"]:
        pg.click(button)
        error = pg.locator("#pe-error")
        error.wait_for()
        text = error.inner_text()
        assert "Fix the position first" in text and "Turns done 500" in text, (button, text)
        assert "not you" not in text and "Set \"I am\"" not in text, (button, text)
        error.evaluate("e => e.remove()")  # the next answer draws its own
    pg.fill("#pe-turn", "2")
    pg.locator("#pe-turn").evaluate("e => e.dispatchEvent(new Event('change'))")
    pg.wait_for_selector("#pe-problems:not(:has-text('Turns done'))")
    pg.click("#pe-hint")
    text = pg.locator("#pe-error").inner_text()
    assert text.startswith("Fix the position first") and "the Depot holds 0 cards" in text, text
    assert text.index("the Depot") < text.index("Player 3 is to act, not you (Player 1)"), text
    assert [u for u in sent if "/v1/score" not in u] == [], sent
    assert not pg.js_errors, pg.js_errors


def test_position_editor_alert_clears_when_the_position_changes(server, page):  # noqa: F811
    """'H12 is in no Highway' stayed up through later edits; the editor's own alert now
    goes with the next change of the position (another alert is left alone)."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.fill("#pe-ids", "L03:H12")
    pg.press("#pe-ids", "Enter")
    pg.wait_for_selector("#alert:has-text('H12 is in no Highway')")
    pg.select_option("#pe-target", "hw:0:R")
    pg.click(".pe-palette [data-pe-place='H12']")
    pg.wait_for_selector("#alert", state="hidden")
    pg.fill("#pe-ids", "H12")  # placed twice: said, and gone after the next change
    pg.press("#pe-ids", "Enter")
    pg.wait_for_selector("#alert:has-text('H12 is already placed')")
    pg.click("[data-pe-mat='1:stone']")
    pg.wait_for_selector("#alert", state="hidden")
    pg.evaluate("document.querySelector('#alert-text').textContent = 'not the editor\\'s';"
                "document.querySelector('#alert').hidden = false")
    pg.click("[data-pe-mat='1:water']")
    assert pg.locator("#alert:has-text(\"not the editor's\")").is_visible()


def posts_sent(pg) -> list[str]:
    """The POSTs the page sends from now on, the live checks aside."""
    sent: list[str] = []
    pg.on("request", lambda r: sent.append(r.url)
          if r.method == "POST" and "/check" not in r.url else None)
    return sent


def test_card_set_reserved_name_is_refused_before_saving(server, page):  # noqa: F811
    """A reserved name ('Default') was noted as merely taken ('saving adds a new version
    if it is yours'), then Save sent it and the server refused it as reserved; the note
    now says it cannot be saved, and Save sends nothing."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "Default")
    pg.wait_for_selector("#ce-name-note.bad:has-text('reserved')")
    sent = posts_sent(pg)
    pg.click("#ce-save")
    alert = pg.locator("#alert")
    alert.wait_for(state="visible")
    assert "Cannot be saved under this name" in alert.inner_text(), alert.inner_text()
    assert "reserved" in alert.inner_text() and not sent, sent
    assert not pg.js_errors, pg.js_errors


def test_card_set_problems_of_a_card_named_by_its_place_lead_to_it(server, page):  # noqa: F811
    """An id of 33 characters is named by the card's place ('highway[2] · id'): the
    jump found no card and the card was not marked; a Landmark name of 301 characters
    made the check answer 413, shown as 'landmarks[0].name: landmarks[0].name: 301
    characters...'. Both are problems of their card, which the jump selects."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.click("[data-ce-pick='landmark:0']")
    pg.fill("#ce-name", "x" * 301)
    status_has(pg, "L01 \u00b7 name: 301 characters, at most 300")
    assert "name: landmarks" not in pg.locator("#ce-status").inner_text()
    pg.wait_for_selector(".ce-field.bad[data-field='name'] .ce-err")
    pg.fill("#ce-name", "Bixby Bridge")
    pg.click("[data-ce-pick='highway:2']")
    long_id = "H" * 33
    pg.fill("#ce-id", long_id)
    status_has(pg, "highway[2] \u00b7 id")
    pg.wait_for_selector(".ce-chip.bad[data-ce-pick='highway:2']")
    pg.click("[data-ce-pick='highway:5']")
    pg.click("#ce-status [data-ce-jump]")
    assert pg.locator("#ce-id").input_value() == long_id
    pg.wait_for_selector(".ce-field.bad[data-field='id'] .ce-err")
    assert pg.evaluate("document.activeElement.id") == "ce-id"
    assert not pg.js_errors, pg.js_errors


def greedy_position(players: int, seed: int, actions: int) -> dict:
    """The full position after ``actions`` actions of a game of greedy players."""
    from solver.rules import new_game, play, view_of
    from solver.search.bots import make_bot

    st, bot = new_game(players, seed=seed), make_bot("greedy")
    for k in range(actions):
        st = play(st, bot.act(view_of(st, st.current), k))
    from solver.rules import state_to_json

    return state_to_json(st)


def load_position(pg, position: dict) -> str:
    """``position`` loaded by Load JSON, once the editor has checked it: what it says."""
    before = int(pg.evaluate("document.body.dataset.peChecked || 0"))
    pg.fill("#pe-jsonbox", json.dumps(position))
    pg.click("#pe-loadjson")
    pg.wait_for_function("(n) => Number(document.body.dataset.peChecked || 0) > n", arg=before)
    return pg.locator("#pe-problems").inner_text()


def test_position_editor_flags_what_the_rules_forbid_of_landmarks_and_borrowing(
        server, page):  # noqa: F811
    """'No problem found' was said of positions the rules forbid, which Hint and Score
    answered and 'Continue as a game' refused: an empty Landmark row while the Landmark
    deck has some, two Landmarks on one Stretch, a discard pile borrowed from with no
    Landmark granting it. The server's check of the position (its score, asked on each
    change) refuses them: the page says so in its words and asks nothing more of them."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    base = greedy_position(3, 0, 28)  # Player 3: L05 above H03, of a forest Stretch with H24
    empty_row = {**base, "landmark_row": [],
                 "landmark_deck": base["landmark_deck"] + base["landmark_row"]}
    two = json.loads(json.dumps(base))
    two["seats"][2]["landmarks"] = [{"landmark": "L05", "card": "H03"},
                                    {"landmark": "L08", "card": "H24"}]
    two["landmark_row"] = [x if x != "L08" else "L15" for x in base["landmark_row"]]
    borrowing, _card = build_step_position()  # 2 players, no Landmark
    borrowing["per_turn"] = {"resources_used": {"borrow_discard": 1}}
    sent = []
    pg.on("request", lambda r: sent.append(r.url)
          if r.method == "POST" and "/v1/score" not in r.url else None)
    for position, words in [
            (empty_row, "The Landmark row: must hold 5 Landmarks while the Landmark deck has any"),
            (two, "Player 3's Landmarks: L08 and L05 sit on one Stretch"),
            (borrowing, "Used this turn: the top Material of another player's discard pile: "
                        "1 use(s) this turn, but no Landmark of the player to act grants it")]:
        said = load_position(pg, position)
        assert "No problem found" not in said and words in said, said
        for button in ["#pe-hint", "#pe-continue"]:
            pg.click(button)
            error = pg.locator("#pe-error")
            assert "Fix the position first" in error.inner_text() and words in error.inner_text()
            error.evaluate("e => e.remove()")
    assert not sent, sent
    assert pg.locator("#editor").is_visible()


def test_position_editor_draws_no_stretch_of_an_earlier_position(server, page):  # noqa: F811
    """After Load JSON of a position the page finds wrong (not scored again), the
    Stretches of the previous position's score were drawn under the new Highways (and
    had made a false problem: 'Landmark L01 sits above H04, which is in no qualifying
    ocean Stretch')."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    first = greedy_position(3, 0, 28)  # Player 3's Highway: H19 H24 H03 H41
    assert "No problem found" in load_position(pg, first)
    lanes = pg.locator(".pe-seat[data-seat='2'] text.lane")
    assert lanes.count() > 0
    second = json.loads(json.dumps(first))
    second["seats"][2]["highway"].remove("H41")
    second["depot"].remove("H48")
    second["deck"] += ["H41", "H48"]
    said = load_position(pg, second)
    assert "the Depot holds 4 cards" in said and "Stretch" not in said, said
    assert lanes.count() == 0, lanes.all_inner_texts()


def test_position_editor_i_am_keeps_each_seats_cards(server, page):  # noqa: F811
    """Changing 'I am' moved the hand and discard pile entered for Player 1 to the new
    seat, and Player 2's known hand card H40 vanished (from the table and from 'Highway
    cards not placed'). Each seat now keeps its cards: the new seat's known cards are its
    hand and discard pile, the cards of the seat that was asking that the others do not
    know are hidden (among the cards not placed, as the page says), and switching back
    gives each seat what was entered."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.click("[data-pe='clear']")
    pg.select_option("#pe-players", "2")
    for target, cid in [("hand", "H01"), ("hand", "H02"), ("discard", "H05"),
                        ("known:1", "H40"), ("kd:1", "H12")]:
        pg.select_option("#pe-target", target)
        pg.click(f".pe-palette [data-pe-place='{cid}']")
    pg.click("[data-pe-mat='1:stone']")  # H12's back Material, and one card not known
    pg.click("[data-pe-mat='1:water']")
    palette = pg.locator(".pe-palette [data-pe-place]")
    before = palette.count()

    def cards(selector: str) -> list[str]:
        return pg.locator(selector).evaluate_all("els => els.map((e) => e.dataset.card)")

    pg.select_option("#pe-me", "1")
    pg.wait_for_selector(".pe-seat.mine[data-seat='1']")
    assert cards("#pe-hand [data-card]") == ["H40"]
    assert cards(".pe-seat.mine [data-pe-remove='discard']") == ["H12"]
    assert palette.count() == before + 3  # Player 1's cards Player 2 cannot know
    assert [pg.locator(f".pe-palette [data-pe-place='{c}']").count()
            for c in ("H01", "H02", "H05")] == [1, 1, 1]
    assert pg.locator(".pe-seat[data-seat='0'] [data-pe-unmat]").count() == 1  # H05's
    said = pg.locator("#alert")
    said.wait_for(state="visible")
    assert "You are now Player 2" in said.inner_text(), said.inner_text()
    assert "(H01 H02 H05) are hidden from you" in said.inner_text(), said.inner_text()
    assert "add the 1 card of your discard pile" in said.inner_text(), said.inner_text()

    pg.select_option("#pe-me", "0")  # and back: each seat as entered
    pg.wait_for_selector(".pe-seat.mine[data-seat='0']")
    assert cards("#pe-hand [data-card]") == ["H01", "H02"]
    assert palette.count() == before
    assert cards("[data-pe-remove='known:1']") == ["H40"]
    assert cards("[data-pe-remove='kd:1']") == ["H12"]
    assert pg.locator(".pe-seat[data-seat='1'] [data-pe-unmat]").count() == 2
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_link_to_a_card_set_this_server_lacks(server, page):  # noqa: F811
    """A #position= link naming a card set this server does not have left the editor
    blank (and 'Position editor' again stayed blank); it now opens on the default set,
    saying the named set is unknown here, with what the link placed."""
    import base64

    pg = page
    position = {"cards": "elsewhere-set", "players": 3, "me": 0, "first": 0, "turn": 0,
                "phase": "take", "picks": 0, "depot": [], "row": [], "hand": ["H01"],
                "discard": [], "perTurn": {"recycle": False, "persistent": [],
                                           "resources": {}},
                "seats": [{"highway": [], "landmarks": [], "known": [], "knownDiscard": [],
                           "materials": []} for _ in range(3)]}
    link = base64.urlsafe_b64encode(json.dumps(position).encode()).decode().rstrip("=")
    pg.goto(server + "/#position=" + link)
    pg.wait_for_selector("body[data-ready='1']")
    pg.wait_for_selector("#alert:has-text('no card set named \"elsewhere-set\"')")
    assert pg.locator("#pe-cards").input_value() == "default"
    assert pg.locator("#pe-hand [data-card='H01']").count() == 1
    pg.click("#alert-close")
    pg.click("#nav-editor")
    pg.wait_for_selector("#editor:not([hidden]) #pe-hand [data-card='H01']")
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_card_set_csv_problem_said_once_and_duplicate_found(server, page):  # noqa: F811
    """A CSV miles cell 'x' gave two problems for one fault (the conversion's 'must be a
    whole number 1 to 4, got 'x'' and the check's 'must be an integer 1 to 4 (missing)');
    docs/format.md promises the root cause only. A duplicated id's jump selected the
    first card of that id (valid), not the duplicate, and marked both."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    rows = list(csv.reader(io.StringIO(card_set_to_csv(CARDS.to_json()))))
    by_id = {r[1]: r for r in rows}
    by_id["H07"][2] = "x"
    by_id["H09"][1] = "H08"  # the 9th Highway card (highway:8) repeats the 8th's id
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    pg.set_input_files("#ce-csv", files=[{"name": "dup.csv", "mimeType": "text/csv",
                                          "buffer": buf.getvalue().encode()}])
    status_has(pg, "H08 \u00b7 id")
    text = pg.locator("#ce-status").inner_text()
    assert "must be a whole number 1 to 4, got 'x'" in text, text
    assert "(missing)" not in text and text.count("H07 \u00b7") == 1, text
    assert pg.locator(".ce-chip.bad[data-ce-pick^='highway:']").evaluate_all(
        "els => els.map((e) => e.dataset.cePick)") == ["highway:6", "highway:8"]
    pg.click("#ce-status li:has-text('duplicate id') [data-ce-jump]")
    pg.wait_for_selector(".ce-chip.sel[data-ce-pick='highway:8']")
    pg.wait_for_selector(".ce-field.bad[data-field='id'] .ce-err")
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_card_set_save_refused_alert_goes_and_nothing_sent_with_problems(
        server, page):  # noqa: F811
    """After a refused Save its alert stayed up once the name was fixed and the status
    said Valid; Save with an empty name sent the set anyway (422) though the live check
    had said 'name: must be a non-empty string'. Save now sends nothing the check found
    wrong, and the editor's alert goes with the next change."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "refused-once")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    pg.click("[data-ce='load']")  # the shipped set again: a new set, under a taken name
    pg.wait_for_selector("#ce-setname[value='my-cards']")
    pg.fill("#ce-setname", "refused-once")
    pg.wait_for_selector("#ce-name-note:has-text('already on this server')")
    pg.click("#ce-save")
    alert = pg.locator("#alert")
    alert.wait_for(state="visible")
    pg.fill("#ce-setname", "refused-then-renamed")
    alert.wait_for(state="hidden")
    pg.wait_for_selector("#ce-ok")
    sent = posts_sent(pg)
    pg.fill("#ce-setname", "")
    status_has(pg, "name: must be")
    pg.click("#ce-save")
    alert.wait_for(state="visible")
    assert "Not saved: fix the problem listed first (name: must be" in alert.inner_text()
    assert not sent, sent
    pg.fill("#ce-setname", "named-at-last")
    alert.wait_for(state="hidden")
    pg.wait_for_selector("#ce-ok")
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_card_set_effect_suggestions_each_pass_the_check(server, page):  # noqa: F811
    """The effect fields suggested entries the check refuses ('scenery_points points=1'
    lacks its scenery, 'longest_stretch points=1' has no points, the Landmark abilities
    were bare kinds): each suggestion, put on a card, now passes the server's check, and
    every kind the rules allow there is suggested."""
    from solver.rules.effects import REGISTRY

    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    two_mile = next(i for i, c in enumerate(CARDS.highway) if c.miles == 2)
    pg.click(f"[data-ce-pick='highway:{two_mile}']")
    bonus = pg.locator("#ce-bonus-kinds option").evaluate_all("os => os.map((o) => o.value)")
    pg.click("[data-ce-pick='landmark:0']")
    ability = pg.locator("#ce-lm-kinds option").evaluate_all("os => os.map((o) => o.value)")
    for suggested, where in [(bonus, "bonus"), (ability, "landmark")]:
        kinds = {text.split()[0] for text in suggested}
        assert kinds == {k for k, spec in REGISTRY.items() if where in spec.on}, suggested
    refused = pg.evaluate("""async ([bonus, ability, i]) => {
      const c = await import('/js/views/cardset-editor.js');
      const base = await (await fetch('/v1/cards/default')).json();
      const out = [];
      for (const [texts, list, at, key] of [[bonus, 'highway', i, 'bonus'],
                                            [ability, 'landmarks', 0, 'ability']]) {
        for (const text of texts) {
          const set = JSON.parse(JSON.stringify(base));
          set.name = 'suggestions';
          set.reconstruction = true;
          delete set.label; delete set.fingerprint;
          set[list][at][key] = c.effectFromText(text);
          const res = await (await fetch('/v1/cardsets/check', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify(set)})).json();
          if (!res.ok) out.push([text, res.errors.map((e) => e.text)]);
        }
      }
      return out;
    }""", [bonus, ability, two_mile])
    assert not refused, refused


def test_card_set_text_of_a_changed_ability_is_not_saved_silently(server, page):  # noqa: F811
    """Changing a card's bonus or ability left its text, which the table shows in place of
    the effect: the table would describe the old ability, saved without a word. The editor
    now warns below the Text, offers to clear it (or keep it), and Save stops until then."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "stale-texts")
    lm = next(i for i, x in enumerate(CARDS.landmarks) if x.ability.kind == "borrow_discard")
    lm_id = CARDS.landmarks[lm].id
    pg.click(f"[data-ce-pick='landmark:{lm}']")
    assert "discard pile" in pg.locator("#ce-text").input_value()
    pg.fill("#ce-ability", "mile_bonus miles=1")
    warning = pg.locator("#ce-text-stale")
    warning.wait_for()
    assert "borrow_discard uses=1" in warning.inner_text(), warning.inner_text()
    pg.wait_for_selector(f"#ce-status li.ce-stale-text:has-text('{lm_id} · text')")
    shot(pg, "32-cardset-stale-text")
    sent = posts_sent(pg)
    pg.click("#ce-save")
    alert = pg.locator("#alert")
    alert.wait_for(state="visible")
    assert f"Not saved: the text of {lm_id} was written for" in alert.inner_text()
    assert not sent, sent
    pg.click("[data-ce='clear-text']")
    warning.wait_for(state="detached")
    assert pg.locator("#ce-text").input_value() == ""
    pg.wait_for_selector("#ce-status li.ce-stale-text", state="detached")

    two_mile = next(i for i, c in enumerate(CARDS.highway) if c.miles == 2 and c.text)
    pg.click(f"[data-ce-pick='highway:{two_mile}']")
    pg.fill("#ce-bonus", "stretch_count points=1")
    warning.wait_for()
    pg.click("[data-ce='keep-text']")  # the owner's word: the text fits
    warning.wait_for(state="detached")
    pg.wait_for_selector("#ce-ok")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    stored = get(server, "/v1/cardsets/stale-texts")
    assert "text" not in stored["landmarks"][lm]
    assert stored["highway"][two_mile]["text"] == CARDS.highway[two_mile].text
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_problems_count_in_good_english(server, page):  # noqa: F811
    """'Player 2 has 1 Landmarks after 0 turns', '... but 1 are known', '1 known discard
    fronts': one of a thing is said as one."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    said = pg.evaluate("""async () => {
      const m = await import('/js/views/position-editor.js');
      const cards = await (await fetch('/v1/cards/default')).json();
      const set = {highway: Object.fromEntries(cards.highway.map((c) => [c.id, c])),
                   landmarks: Object.fromEntries(cards.landmarks.map((l) => [l.id, l]))};
      const a = m.emptyPosition('default', 2, 0);
      Object.assign(a.seats[1], {highway: ['H01'], landmarks: [{landmark: 'L01', card: 'H01'}],
                                 known: ['H02'], materials: ['stone']});
      const b = m.emptyPosition('default', 2, 0);
      b.seats[1].knownDiscard = ['H03'];
      b.hand = ['H04'];
      return [...m.problems(a, set), ...m.problems(b, set)].join('\\n');
    }""")
    assert "Player 2 has 1 Landmark after 0 turns" in said, said
    assert "0 hand cards of the 2 held after 0 turns, but 1 is known" in said, said
    assert "1 known discard front on a pile of 0 Materials" in said, said
    assert "hold 1 card; after 0 turns" in said, said


def test_card_set_taken_name_said_to_a_player_before_saving(server, page):  # noqa: F811
    """A name another stored set has was noted 'taken (saving adds a new version if it
    is yours)', then Save sent it and the alert told a player to 'POST
    /v1/cardsets/qa-set/versions'. The note now says in a player's words that it cannot
    be saved under that name and how to add a version; Save sends nothing. The stored
    set itself, loaded, still saves a new version."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "qa-set")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved")
    pg.wait_for_selector("#ce-name-note", state="detached")  # its own name: no note
    pg.click("[data-ce='load']")  # the shipped set: a new set
    pg.wait_for_selector("#ce-setname[value='my-cards']")
    pg.fill("#ce-setname", "qa-set")
    note = pg.locator("#ce-name-note.bad")
    note.wait_for()
    assert 'a card set named "qa-set" is already on this server' in note.inner_text()
    sent = posts_sent(pg)
    pg.click("#ce-save")
    alert = pg.locator("#alert")
    alert.wait_for(state="visible")
    assert "choose another name" in alert.inner_text() and "/v1/" not in alert.inner_text()
    assert not sent, sent
    pg.select_option("#ce-start", "qa-set")
    pg.click("[data-ce='load']")
    pg.wait_for_selector("#ce-save:has-text('Save a new version')")
    pg.click("[data-ce-pick='highway:2']")
    pg.fill("#ce-text", "a second version")
    pg.wait_for_selector("#ce-ok")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved:has-text('qa-set v2')")
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_draws_a_card_set_saved_again_in_its_new_version(
        server, page):  # noqa: F811
    """A set saved again in the card-set editor was drawn by the position editor in the
    version it had first loaded (its cards were kept by name only): H01 stayed 1 mile
    after v2 made it 3. The page now loads a set again when the list names a newer
    version of it."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.fill("#ce-setname", "resaved-cards")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved:has-text('resaved-cards v1')")
    pg.click("#nav-editor")
    pg.wait_for_selector("#editor:not([hidden]) #pe-cards")
    pg.select_option("#pe-cards", "resaved-cards")
    pg.wait_for_selector("#cardset-label:has-text('resaved-cards v1')")
    assert pg.locator("[data-pe-place='H01'] small").inner_text() == "1"

    pg.click("#nav-cards")
    pg.wait_for_selector("#cards:not([hidden]) #ce-ok")
    pg.click("[data-ce-pick='highway:0']")  # H01
    pg.select_option("#ce-miles", "3")
    pg.select_option("select[name='persistent']", "")  # (a 3-Mile card has none)
    pg.wait_for_selector("#ce-ok")
    pg.click("#ce-save")
    pg.wait_for_selector("#ce-saved:has-text('resaved-cards v2')")
    assert get(server, "/v1/cards/resaved-cards")["highway"][0]["miles"] == 3

    pg.click("#nav-editor")
    pg.wait_for_selector("#cardset-label:has-text('resaved-cards v2')")
    assert pg.locator("#pe-cards").input_value() == "resaved-cards"
    pg.wait_for_selector("[data-pe-place='H01'] small:text-is('3')")
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


ID_FITS = """(sel) => [...document.querySelectorAll(sel)].map((svg) => {
  const box = svg.querySelector('rect').getBoundingClientRect();
  const id = svg.querySelector('text.cid').getBoundingClientRect();
  const marks = svg.querySelector('text.pmarks, text.keybadge');
  return {inside: id.left >= box.left && id.right <= box.right,
          clear: !marks || id.right <= marks.getBoundingClientRect().left,
          squeezed: svg.querySelector('text.cid').hasAttribute('textLength')};
})"""


def test_a_long_card_id_fits_on_the_card(server, page):  # noqa: F811
    """A valid 32-character id ran over the '2P 3P 4P' marks of the card-set editor's
    preview and off the card on the table (cut to 15 characters): it is now squeezed into
    the room left (the full id in the card's title); a short id is drawn as before."""
    pg = page
    long_id = "H05-abcdefghijklmnopqrstuvwxyz12"
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    pg.click("[data-ce-pick='highway:4']")  # H05
    assert pg.evaluate(ID_FITS, ".ce-preview svg.card") == [
        {"inside": True, "clear": True, "squeezed": False}]
    pg.fill("#ce-id", long_id)
    pg.wait_for_selector(f".ce-preview svg.card text.cid:text-is('{long_id}')")
    assert pg.evaluate(ID_FITS, ".ce-preview svg.card") == [
        {"inside": True, "clear": True, "squeezed": True}]
    assert long_id in pg.locator(".ce-preview svg.card > title").text_content()
    # as the table draws it: a Depot card (its key badge) and a hand card, each at the
    # table's size
    pg.evaluate("""async (id) => {
      const {cardSVG} = await import('/js/svg.js');
      const card = {miles: 2, scenery: ['ocean', 'forest'], cost: ['stone', 'water'],
                    material: 'steel', players: [2, 3, 4]};
      const div = document.createElement('div');
      div.id = 'drawn-cards';
      div.innerHTML = [id, 'H05']
        .flatMap((x) => [cardSVG(x, {card, badge: '1'}), cardSVG(x, {card})])
        .map((s) => `<span style="display:inline-block;width:86px">${s}</span>`).join('');
      document.body.prepend(div);
    }""", long_id)
    assert pg.evaluate(ID_FITS, "#drawn-cards svg.card") == [
        {"inside": True, "clear": True, "squeezed": True}] * 2 + [
        {"inside": True, "clear": True, "squeezed": False}] * 2
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_the_editors_undo_history_bounds_merges_and_tells_a_text_field(server, page):  # noqa: F811
    """Both editors' Undo and Redo are views/undo-history.js: the steps beyond the limit go
    oldest first, the edits of one key in a row are one step (until another step or an
    Undo), an Undo moves its step to Redo (a new edit ends Redo), each button names its
    step or is disabled, and Ctrl+Z is the editor's outside a text field only."""
    pg = page
    open_editor(pg, server, "#nav-cards", "#ce-ok")
    got = pg.evaluate("""async () => {
      const {UndoHistory, undoKey} = await import('/js/views/undo-history.js');
      const states = (steps) => steps.map((s) => s.state);
      const h = new UndoHistory(3);
      for (const n of [1, 2, 3, 4]) h.record(`edit ${n}`, n);
      const bounded = states(h.undo);
      const m = new UndoHistory(9);
      const merged = [m.record('name', 'a', 'name'), m.record('name', 'ab', 'name'),
                      m.record('add H70', 'abc'), m.record('name', 'abc+', 'name')];
      const taken = m.take(true, 'now');
      const afterTake = [states(m.undo), m.redo, m.record('name', 'x', 'name')];
      const redoEnded = m.redo.length;
      const t = new UndoHistory(9);
      t.record('delete H12', 's0');
      const box = document.createElement('div');
      const buttons = () => {
        box.innerHTML = t.buttonsHTML('xx');
        return [...box.querySelectorAll('button')].map((b) => [b.id, b.dataset.xx, b.innerText,
          b.disabled, b.getAttribute('aria-keyshortcuts')]);
      };
      const withUndo = buttons();
      t.take(true, 's1');
      const withRedo = buttons();
      box.innerHTML = t.buttonsHTML('xx', {focusable: true});
      const focusable = [...box.querySelectorAll('button')].map((b) => [b.disabled,
        b.getAttribute('aria-disabled')]);
      const field = document.createElement('div');
      field.innerHTML = '<input><input type="number"><input type="checkbox"><input type="file">' +
        '<textarea></textarea><select></select><button></button><div contenteditable="true"></div>';
      document.body.append(field);
      const keys = [...field.children].map((el) => [el.outerHTML,
        undoKey({key: 'z', ctrlKey: true, target: el}),
        undoKey({key: 'Z', metaKey: true, shiftKey: true, target: el}),
        undoKey({key: 'y', ctrlKey: true, target: el})]);
      field.remove();
      const others = [undoKey({key: 'z', target: document.body}),
        undoKey({key: 'z', ctrlKey: true, altKey: true, target: document.body}),
        undoKey({key: 'y', ctrlKey: true, shiftKey: true, target: document.body}),
        undoKey({key: 'x', ctrlKey: true, target: document.body})];
      return {bounded, merged, taken, afterTake, redoEnded, withUndo, withRedo, focusable, keys,
              others};
    }""")
    assert got["bounded"] == [2, 3, 4]
    assert got["merged"] == [True, False, True, True]
    assert got["taken"] == {"label": "name", "state": "abc+"}
    assert got["afterTake"] == [["a", "abc"], [{"label": "name", "state": "now"}], True]
    assert got["redoEnded"] == 0
    undo_keys, redo_keys = "Control+Z Meta+Z", "Control+Shift+Z Meta+Shift+Z Control+Y"
    assert got["withUndo"] == [["xx-undo", "undo", "Undo delete H12", False, undo_keys],
                               ["xx-redo", "redo", "Redo", True, redo_keys]]
    assert got["withRedo"] == [["xx-undo", "undo", "Undo", True, undo_keys],
                               ["xx-redo", "redo", "Redo delete H12", False, redo_keys]]
    assert got["focusable"] == [[False, "true"], [False, None]]
    typed = {"<input>", '<input type="number">', "<textarea></textarea>",
             '<div contenteditable="true"></div>'}
    for html, undo, redo_z, redo_y in got["keys"]:
        expected = [None] * 3 if html in typed else ["undo", "redo", "redo"]
        assert [undo, redo_z, redo_y] == expected, html
    assert got["others"] == [None] * 4


def test_position_editor_hint_lists_moves_as_the_table_does(server, page):  # noqa: F811
    """The editor's hint listed the search's moves by visits, where the 2nd could be worth
    far less than the 4th (a race gives its last candidates equal visits); it lists them
    as the table does: the search's move first, then the others by the search's value."""
    pg = page
    position, _card = build_step_position()
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    assert "No problem found" in load_position(pg, position)

    def move(actions, visits, win, margin):
        return {"actions": actions, "visits": visits, "win_probability": win,
                "expected_margin": margin, "payment": None, "line": [], "exact": False,
                "label": None, "versus_top": None}

    answer = {"seat": 0, "stats": {"iterations": 300}, "position_kind": "view",
              "budget": {"iterations": 300}, "seed": 1, "card_set": "default",
              "elapsed_ms": 50.0,
              "moves": [move(["end"], 120, 0.5, 1.0), move(["build H25 L", "end"], 100, 0.1, -9.0),
                        move(["build H35 R", "end"], 50, 0.45, 0.5),
                        move(["build H40 L", "end"], 30, 0.3, -2.0)]}
    pg.route("**/v1/hint", lambda route: route.fulfill(json=answer))
    pg.click("#pe-hint")
    pg.wait_for_selector("#pe-moves li")
    moves = pg.locator("#pe-moves li b").all_inner_texts()
    assert [m.split(",")[0] for m in moves] == [
        "You end the turn", "You build H35 at the right end", "You build H40 at the left end",
        "You build H25 at the left end"], moves
    assert "120 visits" in pg.locator("#pe-moves li").first.inner_text()
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_hint_says_each_move_as_the_table_does(server, page):  # noqa: F811
    """A QA pass: the editor's hint showed a move's words and numbers only, where the
    table's hint shows, for the same moves, what a build step adds to the score now, why
    the search likes the move and the line it expects after it ("Then"). The editor's
    list shows them, by the table's own rendering (hint-move.js)."""
    pg = page
    position, card = build_step_position()
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    assert "No problem found" in load_position(pg, position)
    hidden = position["deck"][0]  # a card seat 0 has not seen: the line does not name it
    build = {"actions": [f"build {card} R", "end"], "visits": 300, "win_probability": 0.55,
             "expected_margin": 2.0, "payment": None, "exact": False, "label": None,
             "line": ["take deck", f"take {hidden}", "end"],
             "score_change": {"total": 3, "stretches": 3, "bonuses": 0, "landmark_count": 0,
                              "landmark_abilities": 0},
             "reasons": ["extends your ocean Stretch to 3 cards, 5 miles (+3 points)",
                         "denies Player 2 a Landmark"],
             "versus_top": None}
    end = {**build, "actions": ["end"], "visits": 100, "win_probability": 0.40,
           "expected_margin": -1.0, "line": [], "score_change": None, "reasons": [],
           "versus_top": {"rounds": 100, "standard_errors": 6.0, "clear": True, "alike": False}}
    answer = {"seat": 0, "stats": {"iterations": 400}, "position_kind": "view",
              "budget": {"iterations": 400}, "seed": 1, "card_set": "default",
              "elapsed_ms": 50.0, "moves": [build, end]}
    pg.route("**/v1/hint", lambda route: route.fulfill(json=answer))
    pg.click("#pe-hint")
    pg.wait_for_selector("#pe-moves li")
    first, second = pg.locator("#pe-moves > li").nth(0), pg.locator("#pe-moves > li").nth(1)
    assert first.locator(".scorenow").inner_text() == (
        "Your score as it stands: +3 (Stretches +3)"), first.inner_text()
    assert first.locator(".reasons li").all_inner_texts() == [
        "Extends your ocean Stretch to 3 cards, 5 miles (+3 points).",
        "Denies Player 2 a Landmark."], first.inner_text()
    then = first.locator(".thenlist:not(.reasons)").inner_text()
    assert "Player 2 takes the top card of the deck, takes a Depot card refilled from the " \
        "deck, ends the turn" in then, then
    assert hidden not in first.inner_text(), first.inner_text()
    # a bare end: nothing to add, no reasons, no line
    assert second.locator(".scorenow, .reasons, .thenlist").count() == 0, second.inner_text()
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_hint_of_one_claim_above_two_cards_says_both(server, page):  # noqa: F811
    """A second read: the editor's hint merges claims above different cards worth the
    same into one line, as the table's does, but still said "only candidate: no other
    move was worth searching" when that line was all; it says, as the table does, that
    its choices are worth the same, and names both cards."""
    from test_continue_and_upload import editor_link
    from test_page_hints import two_claims_built

    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    link = editor_link(pg, two_claims_built(), 0)
    pg.goto("about:blank")
    pg.goto(f"{server}/#position={link}")
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    same = {"visits": 384, "win_probability": 0.012, "expected_margin": -21.5,
            "payment": None, "line": [], "exact": False, "label": None, "versus_top": None}
    answer = {"seat": 0, "stats": {"iterations": 768}, "position_kind": "view",
              "budget": {"iterations": 768}, "seed": 1, "card_set": "default",
              "elapsed_ms": 50.0, "moves": [{"actions": ["claim L03 H04"], **same},
                                            {"actions": ["claim L03 H41"], **same}]}
    pg.route("**/v1/hint", lambda route: route.fulfill(json=answer))
    pg.click("#pe-hint")
    pg.wait_for_selector("#pe-moves li")
    conf = pg.locator("#pe-conf").inner_text()
    assert conf.startswith("Close call: its 2 choices are worth the same"), conf
    line = pg.locator("#pe-moves li").first.inner_text()
    assert "above H04 (or above H41, worth the same)" in line and "768 visits in all" in line, line
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_position_editor_says_only_move_when_end_is_all_that_is_legal(server, page):  # noqa: F811
    """A QA pass: at a build step where ending the turn is the only legal action, the
    editor's hint read "Only candidate: no other move was worth searching", which says
    the search chose; the hint answer now lists the legal actions, and the editor says
    "Only move", as the table does."""
    from solver.rules.engine import legal_actions, new_game, play
    from solver.rules.position import state_to_json

    state = play(play(play(new_game(2, seed=6), "take deck"), "take deck"), "end")
    while [a.notation() for a in legal_actions(state)] != ["end"]:
        state = play(state, legal_actions(state)[0])
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    assert "No problem found" in load_position(pg, state_to_json(state))
    pg.select_option("#pe-budget", "iterations:100")
    pg.click("#pe-hint")
    pg.wait_for_selector("#pe-conf")
    verdict = pg.locator("#pe-conf").inner_text()
    assert verdict.startswith("Only move"), verdict
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors
