"""The position editor as a player setting up a table to ask for hints uses it: every
edit undone and redone (the Undo button naming it, Ctrl+Z), the position saved to a file
and read back (the file the command line reads), a bad file refused by name, and what is
shown kept to the position shown (a result, the focus).

Same setup as test_web_page.py (a real server on loopback, Debian's Chromium through
Playwright). A position is compared through its #position= link, which holds the whole
of it (the editor writes it after each change).
"""

from __future__ import annotations

import json
import urllib.request

from test_editors import build_step_position, open_editor
from test_web_page import browser, page, server  # noqa: F401 - fixtures

from solver.cli import load_position
from solver.rules.cards import load_card_set
from solver.rules.views import view_to_json


def store_set(base: str, cards: dict) -> None:
    """``cards`` stored on the server (POST /v1/cardsets)."""
    req = urllib.request.Request(base + "/v1/cardsets", data=json.dumps(cards).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 201


def load_box(pg, position: dict) -> None:
    """``position`` read into the editor through the JSON box."""
    pg.fill("#pe-jsonbox", json.dumps(position))
    pg.click("#pe-loadjson")
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")


def table(pg) -> str:
    """The position as the editor holds it (its link: written 200 ms after each change,
    as the editor checks it; a wait for it to change, or come back, comes first)."""
    return pg.evaluate("location.hash")


def changes_to(pg, before: str) -> str:
    pg.wait_for_function("(h) => location.hash !== h", arg=before)
    return table(pg)


def comes_back(pg, expected: str) -> None:
    pg.wait_for_function("(h) => location.hash === h", arg=expected)


def test_every_kind_of_edit_is_undone_and_redone(server, page):  # noqa: F811
    """Each edit (a card placed, removed or typed, a Landmark claimed and removed, a
    Material added and removed, "I am", the player count, Clear, Load JSON) is undone by
    the Undo button, which names it, or Ctrl+Z, and redone by Ctrl+Shift+Z; the link
    holds the position it gave back, exactly."""
    pg = page
    position, _ = build_step_position()
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    load_box(pg, position)
    hw = position["seats"][0]["highway"]
    hand = position["seats"][0]["hand"]
    pg.select_option("#pe-target", "depot")
    placed = pg.locator(".pe-palette [data-pe-place]").first.get_attribute("data-pe-place")
    landmark = pg.locator("[data-pe-lm]").first.get_attribute("data-pe-lm")

    def claim() -> None:
        pg.select_option("#pe-target", "lm:0")
        pg.click(f"[data-pe-lm='{landmark}']")
        pg.click(f"[data-pe-hwcard='0:{hw[0]}']")

    def typed() -> None:
        pg.select_option("#pe-target", "depot")
        pg.fill("#pe-ids", placed)
        pg.press("#pe-ids", "Enter")

    def load_other() -> None:
        pg.fill("#pe-jsonbox", json.dumps(position | {"turn": 2}))
        pg.click("#pe-loadjson")

    edits = [
        (lambda: pg.click(f".pe-palette [data-pe-place='{placed}']"), f"place {placed}"),
        (lambda: pg.click(f"#pe-hand [data-card='{hand[0]}']"), f"remove {hand[0]}"),
        (claim, f"claim {landmark}"),
        (lambda: pg.click("[data-pe-mat='1:stone']"), "add stone (Player 2)"),
        (lambda: pg.select_option("#pe-me", "1"), "I am Player 2"),
        (lambda: pg.select_option("#pe-players", "3"), "3 players"),
        (lambda: pg.click("#pe-clear"), "clear"),
        (typed, f"place {placed}"),
        (load_other, "Load JSON"),
    ]
    start = table(pg)
    for k, (edit, label) in enumerate(edits):
        before = table(pg)
        edit()
        after = changes_to(pg, before)
        assert pg.locator("#pe-undo").inner_text() == f"Undo {label}"
        if k % 2:
            pg.click("#pe-undo")
        else:
            pg.locator("#pe-problems").focus()  # not a text field: the editor's key
            pg.keyboard.press("Control+z")
        comes_back(pg, before)
        assert pg.locator("#pe-redo").inner_text() == f"Redo {label}"
        pg.locator("#pe-problems").focus()
        pg.keyboard.press("Control+Shift+z")
        comes_back(pg, after)
        pg.keyboard.press("Control+z")
        comes_back(pg, before)
    # a Landmark claimed, then removed: each its own step back
    claim()
    claimed = changes_to(pg, start)
    pg.click(f"[data-pe-unclaim='0:{landmark}']")
    changes_to(pg, claimed)
    assert pg.locator("#pe-undo").inner_text() == f"Undo remove {landmark}"
    pg.click("[data-pe-mat='1:water']")
    watered = changes_to(pg, table(pg))
    pg.locator("[data-pe-unmat^='1:']").last.click()  # the top of the pile
    changes_to(pg, watered)
    assert pg.locator("#pe-undo").inner_text() == "Undo remove water (Player 2)"
    for _ in range(3):
        pg.click("#pe-undo")
    comes_back(pg, claimed)
    pg.click("#pe-undo")
    comes_back(pg, start)
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_clear_undone_gives_back_the_table_and_says_so(server, page):  # noqa: F811
    """Clear was a one-click loss of the whole table; Undo brings it back, the status line
    (a live region) says what came back, and the focus stays on the button used (Clear had
    no id: the redraw dropped the focus to the page's top)."""
    pg = page
    position, _ = build_step_position()
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    load_box(pg, position)
    full = table(pg)
    pg.click("#pe-json")
    pg.wait_for_selector("#pe-copied")
    copied = pg.locator("#pe-jsonbox").input_value()
    pg.focus("[data-pe='clear']")
    pg.keyboard.press("Enter")
    changes_to(pg, full)
    assert pg.evaluate("document.activeElement.dataset.pe") == "clear"
    assert pg.locator("#pe-hand [data-card]").count() == 0
    pg.keyboard.press("Tab")  # Clear, then Undo
    assert pg.evaluate("document.activeElement.id") == "pe-undo"
    pg.keyboard.press("Enter")
    comes_back(pg, full)
    assert pg.evaluate("document.activeElement.id") == "pe-undo"
    status = pg.locator("#pe-status")
    assert status.get_attribute("role") == "status"
    said = status.inner_text()
    hand = len(position["seats"][0]["hand"])
    assert said.startswith("Undone: clear.") and "Player 1 to act" in said, said
    assert pg.locator("#pe-hand [data-card]").count() == hand
    pg.click("#pe-json")
    pg.wait_for_selector("#pe-copied")
    assert pg.locator("#pe-jsonbox").input_value() == copied
    pg.keyboard.press("Control+z")  # the load of the box, then nothing more
    pg.wait_for_selector("#pe-undo[aria-disabled='true']")
    pg.keyboard.press("Control+z")
    pg.wait_for_function("() => document.querySelector('#pe-status').innerText === "
                         "'Nothing to undo.'")


def test_ctrl_z_in_a_text_field_is_its_own(server, page):  # noqa: F811
    """Ctrl+Z typed in the JSON box or the ids box undoes the typing there, not the
    position."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.select_option("#pe-target", "hand")
    before = table(pg)
    pg.click(".pe-palette [data-pe-place='H01']")
    placed = changes_to(pg, before)
    for box in ["#pe-jsonbox", "#pe-ids"]:
        pg.click(box)
        pg.keyboard.type("abc")
        pg.keyboard.press("Control+z")
    assert pg.evaluate("location.hash") == placed
    assert pg.locator("#pe-hand [data-card='H01']").count() == 1


def test_a_result_is_shown_with_its_position_only(server, page):  # noqa: F811
    """The score (a hint, a payment) of a position stayed on screen after an edit, as if
    it were of the new one; it is shown with its position only, and again after an Undo
    back to it."""
    pg = page
    position, _ = build_step_position()
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    load_box(pg, position)
    scored = table(pg)
    pg.click("#pe-score")
    pg.wait_for_selector("#pe-scores")
    pg.click("[data-pe-mat='1:stone']")
    changes_to(pg, scored)
    assert pg.locator("#pe-scores").count() == 0
    pg.click("#pe-undo")
    comes_back(pg, scored)
    pg.wait_for_selector("#pe-scores")


def test_download_json_is_the_file_the_command_line_reads(server, page, tmp_path):  # noqa: F811
    """Download JSON saves what Copy JSON gives, named after the set and the date; the
    command line's reader takes it as the same view, and Load a file reads it back into
    the editor (after a Clear: the same position)."""
    pg = page
    position, _ = build_step_position()
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    load_box(pg, position)
    full = table(pg)
    pg.click("#pe-json")
    pg.wait_for_selector("#pe-copied")
    copied = pg.locator("#pe-jsonbox").input_value()
    with pg.expect_download() as info:
        pg.click("#pe-download")
    download = info.value
    name = download.suggested_filename
    assert name.startswith("bigsur-position-default-") and name.endswith(".json"), name
    path = tmp_path / name
    download.save_as(path)
    text = path.read_text()
    assert text == copied
    view = load_position(str(path), views=True)
    assert view_to_json(view) == json.loads(text) | {"cards": view_to_json(view)["cards"]}
    pg.click("#pe-clear")
    changes_to(pg, full)
    pg.set_input_files("#pe-file", str(path))
    comes_back(pg, full)
    assert pg.locator("#pe-undo").inner_text() == f"Undo load {name}"
    assert pg.locator("#pe-status").inner_text().startswith(f"Loaded {name}.")
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_a_bad_file_is_named_and_the_table_kept(server, page):  # noqa: F811
    """A file that holds no position (not JSON, another format, a seat count or a seat
    asking out of range, a seat without its hand, a card its set lacks) is refused naming
    the file and what is wrong; the position being edited stays as it was, with its cards
    (a file of another set left that set's cards in use, and the table flagged)."""
    pg = page
    position, _ = build_step_position()
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    load_box(pg, position)
    pg.click("#pe-json")
    pg.wait_for_selector("#pe-copied")
    view = json.loads(pg.locator("#pe-jsonbox").input_value())
    full = table(pg)
    undo = pg.locator("#pe-undo").inner_text()
    no_hand = json.loads(json.dumps(view))
    del no_hand["seats"][1]["hand"]
    # a set of this server's in which a card of the table has another id
    renamed = load_card_set().to_json() | {"name": "renamed-cards"}
    mine = position["seats"][0]["hand"][0]
    renamed["highway"] = [c | {"id": "Z99"} if c["id"] == mine else c
                          for c in renamed["highway"]]
    store_set(server, renamed)
    bad = [
        ("photo.json", b"\x89PNG\r\n\x1a\n", "photo.json does not hold JSON"),
        ("record.json", json.dumps({"format": "bigsur-record/1"}).encode(),
         'record.json: format: expected bigsur-view/1 or bigsur-position/1, got "bigsur-record/1"'),
        ("seven.json", json.dumps(view | {"seats": view["seats"] * 4}).encode(),
         "seven.json cannot be read: seats: 8 players; a game has 2 to 4"),
        ("seat.json", json.dumps(view | {"view_of": 5}).encode(),
         "seat.json cannot be read: view_of: must be a seat, 0 to 1; got 5"),
        ("hand.json", json.dumps(no_hand).encode(), "in hand.json has no seats[1].hand"),
        ("cards.json", json.dumps(position | {"cards": "renamed-cards", "seats": [
            position["seats"][0], {**position["seats"][1], "discard": ["NOPE"]}]}).encode(),
         "NOPE is not a Highway card of renamed-cards"),
    ]
    for name, data, said in bad:
        pg.set_input_files("#pe-file", files=[{"name": name, "mimeType": "application/json",
                                               "buffer": data}])
        pg.wait_for_selector(f"#alert:has-text('{said}')")
        pg.click("#alert-close")
        assert pg.evaluate("location.hash") == full
        assert pg.locator("#pe-undo").inner_text() == undo
    assert table(pg) == full
    pg.click("[data-pe-mat='1:stone']")  # drawn again, and back: checked with its own cards
    changes_to(pg, full)
    pg.click("#pe-undo")
    comes_back(pg, full)
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    assert pg.locator(f"#pe-hand [data-card='{mine}']").count() == 1
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_the_focus_goes_on_from_a_field_left_by_tab(server, page):  # noqa: F811
    """Turns done or a Landmark ability's count typed, then Tab: the change redrew the
    editor while the focus was on its way to the next field, which the drawing took
    away, and the focus fell to the page's top. It now lands on the next field."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    before = table(pg)
    pg.focus("#pe-turn")
    pg.keyboard.press("Control+a")
    pg.keyboard.type("3")  # (of 3 players: your turn again)
    pg.keyboard.press("Tab")
    changes_to(pg, before)
    assert pg.locator("#pe-turn").input_value() == "3"
    assert pg.evaluate("document.activeElement.id") == "pe-step"
    pg.select_option("#pe-step", "build")
    counts = pg.locator("[data-pe-res]")
    counts.first.wait_for()
    counts.first.focus()
    pg.keyboard.press("Control+a")
    pg.keyboard.type("1")
    pg.keyboard.press("Tab")
    pg.wait_for_function("() => document.querySelector('[data-pe-res]').value === '1'")
    second = counts.nth(1).get_attribute("data-pe-res")
    assert pg.evaluate("document.activeElement.dataset.peRes") == second


def test_an_edit_just_before_leaving_the_editor_leaves_no_link(server, page):  # noqa: F811
    """An edit, then New game at once: the editor's check, 200 ms after the edit, wrote
    the #position= link back over the address the page had just cleared, and a reload
    opened the editor instead of the page left for."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    checked = int(pg.evaluate("document.body.dataset.peChecked || 0"))
    pg.evaluate("""() => {
      document.querySelector(".pe-palette [data-pe-place='H01']").click();
      document.querySelector('#nav-new').click();
    }""")
    pg.wait_for_function("(n) => Number(document.body.dataset.peChecked || 0) > n", arg=checked)
    assert pg.locator("#setup").is_visible()
    assert "#position=" not in pg.url, pg.url


def test_a_link_opened_over_a_table_is_undone(server, page):  # noqa: F811
    """A #position= link followed (or a review's position opened) replaces the table
    being edited: Undo brings the table back, and Redo the link's position."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.select_option("#pe-target", "hand")
    before = table(pg)
    pg.click(".pe-palette [data-pe-place='H01']")
    mine = changes_to(pg, before)
    link = pg.evaluate("""async () => {
      const m = await import('/js/views/position-editor.js');
      const p = m.emptyPosition('default', 2, 0);
      p.hand = ['H02'];
      return '#position=' + m.encode(p);
    }""")
    pg.evaluate("(h) => { location.hash = h; }", link)
    pg.wait_for_selector("#pe-hand [data-card='H02']")
    comes_back(pg, link)
    assert pg.locator("#pe-undo").inner_text() == "Undo open position"
    pg.click("#pe-undo")
    comes_back(pg, mine)
    assert pg.locator("#pe-hand [data-card='H01']").count() == 1
    pg.click("#pe-redo")
    comes_back(pg, link)


def type_ids(pg, target: str, ids: str) -> None:
    """``ids`` typed into the ids box, placed into ``target`` (Enter)."""
    pg.select_option("#pe-target", target)
    pg.fill("#pe-ids", ids)
    pg.press("#pe-ids", "Enter")


def alert_says(pg, *texts: str) -> None:
    pg.wait_for_selector("#alert", state="visible")
    said = pg.locator("#alert").inner_text()
    assert all(t in said for t in texts), said
    pg.click("#alert-close")


def test_the_ids_box_keeps_what_it_refused(server, page):  # noqa: F811
    """A refused id emptied the box ('H99', and 'H18;H19', which it did not split);
    'h14' was not a card of this set; 'L06' into your Landmarks with no card to sit
    above said nothing. Ids are now read in any case and split at spaces, commas and
    semicolons; what is refused stays in the box, each entry said with why."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.select_option("#pe-players", "2")
    type_ids(pg, "hand", "H99")
    alert_says(pg, "H99 is not a card of this set")
    assert pg.locator("#pe-ids").input_value() == "H99"
    type_ids(pg, "hand", "h14,H18;H19 H99, L01")
    alert_says(pg, "H99 is not a card of this set",
               "L01 is a Landmark: place it into the Landmark row or a seat's Landmarks")
    assert pg.locator("#pe-ids").input_value() == "H99 L01"
    assert pg.locator("#pe-hand [data-card]").evaluate_all(
        "cs => cs.map((c) => c.dataset.card)") == ["H14", "H18", "H19"]
    type_ids(pg, "lm:0", "L06")
    alert_says(pg, "L06: your Highway has no card for it to sit above yet")
    assert pg.locator("#pe-ids").input_value() == "L06"
    type_ids(pg, "hw:0:R", "h12")
    pg.wait_for_selector("[data-pe-hwcard='0:H12']")
    assert pg.locator("#pe-ids").input_value() == ""
    type_ids(pg, "lm:0", "l06 L07")  # one Landmark waits for its card at a time
    alert_says(pg, "L07: L06 waits for its card first")
    assert pg.locator("#pe-ids").input_value() == "L07"
    pg.click("[data-pe-hwcard='0:H12']")
    pg.wait_for_selector("[data-pe-unclaim='0:L06']")
    type_ids(pg, "lm:0", "L06")
    alert_says(pg, "L06 is already placed")
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_a_highway_needs_its_build_steps_and_a_discard_pile(server, page):  # noqa: F811
    """QA's table: Player 1 has had the one turn done, yet Player 2 had built H13, and
    'No problem found'. A Highway starts empty and grows only in its owner's build steps;
    its first card is paid in part by a card discarded from the hand, and no card leaves a
    discard pile: either missing is named, with the seat and its count."""
    pg = page
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    pg.select_option("#pe-players", "2")
    pg.fill("#pe-turn", "1")
    pg.locator("#pe-turn").evaluate("e => e.dispatchEvent(new Event('change'))")
    for target, ids in [("hand", "H12 H40"), ("hw:0:R", "H11"), ("discard", "H43"),
                        ("depot", "H01 H02 H03 H04 H05"), ("row", "L01 L02 L03 L04 L05"),
                        ("hw:1:R", "H13")]:
        type_ids(pg, target, ids)
    problems = pg.locator("#pe-problems li")
    pg.wait_for_selector("#pe-problems:has-text('Player 2 has 1 Highway card after 0 turns')")
    assert problems.count() == 1, problems.all_inner_texts()
    pg.select_option("#pe-step", "build")  # Player 2's first build step: H13 built in it
    pg.wait_for_selector("#pe-problems:has-text('Player 2 has built 1 Highway card with an "
                         "empty discard pile')")
    assert problems.count() == 1, problems.all_inner_texts()
    pg.click("[data-pe-mat='1:stone']")
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    pg.click("[data-pe-remove='discard'][data-card='H43']")  # my pile empty, H43 in my hand
    type_ids(pg, "hand", "H43")
    pg.wait_for_selector("#pe-problems:has-text('You have built 1 Highway card with an "
                         "empty discard pile')")
    assert problems.count() == 1, problems.all_inner_texts()
    # "Turns done" counts every player's turns (Player 1's one here)
    assert "all players" in pg.locator("label[for='pe-turn']").inner_text()
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors
