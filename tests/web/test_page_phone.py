"""The table on a phone (390x844, touch) with 3-4 players, in a real browser against a
real server (same setup as test_web_page.py). Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

import json

from rules_testkit import random_mid_game
from test_continue_and_upload import editor_link, upload
from test_page_layout import to_a_late_four_player_turn
from test_page_qa import review_upload
from test_web_page import (  # noqa: F401 - fixtures
    ARTIFACTS,
    browser,
    fresh_page,
    no_overflow,
    open_page,
    server,
    settle,
    shot,
)

from solver.cli import play_random_game
from solver.rules.position import state_to_json


def test_four_players_on_a_phone_your_highway_and_hand_come_first(server, browser):  # noqa: F811
    """A 4-player game on a 390x844 phone, round 6 of 7, the start of the human's turn:
    the player's own Highway came last on the page (y about 1150), after the other three
    Highways and the hint panel, so the turn started with a scroll past every other road.
    As on a laptop, with 3 or 4 players the player's own Highway and hand (with the
    actions) come right under the Depot, before every other player's Highway."""
    pg = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    try:
        to_a_late_four_player_turn(server, pg)
        shot(pg, "phone-01-four-players-turn-start")
        shot(pg, "phone-02-four-players-whole-page", full=True)
        others = pg.locator("#seats .seat:not(.me)").all()
        assert len(others) == 3
        first_other = min(o.bounding_box()["y"] for o in others)
        road = pg.locator("#seats .seat.me").bounding_box()
        card = pg.locator("#hand .cardbtn").first.bounding_box()
        actions = pg.locator("#actionbar").bounding_box()
        for name, box in (("own Highway", road), ("first hand card", card),
                          ("actions", actions)):
            assert box["y"] + box["height"] <= first_other, (name, box, first_other)
        # the road, then the hand: the order of a laptop's table
        assert road["y"] + road["height"] <= card["y"], (road, card)
        no_overflow(pg)
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


def test_two_players_on_a_phone_your_highway_comes_first(server, browser):  # noqa: F811
    """The same order with 2 players: the player's own Highway came after the hint panel
    and the other Highway, just below the fold (y about 830 in round 6); your road, the
    one you build on and the hint draws its cards on, comes before your hand and the
    other Highway after the hint, with the hand and the actions still on the screen."""
    pg = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    try:
        fresh_page(pg, server + "/?speed=0")
        pg.select_option("#seat-1", "greedy")
        pg.click("#setup-start")
        pg.wait_for_selector("#game:not([hidden])")
        settle(pg)
        assert "Your turn" in pg.locator("#status").inner_text()
        shot(pg, "phone-03-two-players-turn-start")
        road = pg.locator("#seats .seat.me").bounding_box()
        actions = pg.locator("#actionbar").bounding_box()
        hint = pg.locator("#hintpanel").bounding_box()
        other = pg.locator("#seats .seat:not(.me)").bounding_box()
        assert road["y"] > pg.locator(".market").bounding_box()["y"]
        assert road["y"] + road["height"] <= pg.locator("#myarea").bounding_box()["y"]
        assert actions["y"] + actions["height"] <= hint["y"] < other["y"], (actions, hint, other)
        assert actions["y"] + actions["height"] <= 844, actions
        no_overflow(pg)
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


GRAPH_TEXT = """(svg) => [...svg.querySelectorAll('text')].map((t) => {
  const r = t.getBoundingClientRect();
  return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
          px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a};
})"""


def graph_is_legible(pg, width: int) -> None:
    """The review graph's every text at least 10 px (its font size as drawn) and inside
    the graph, no two texts overlapping, every mark at least 24 px to tap, and no
    sideways scrolling of the page."""
    svg = pg.locator("#review-graph svg")
    box = svg.bounding_box()
    assert box["width"] <= width, box
    texts = svg.evaluate(GRAPH_TEXT)
    assert texts
    for t in texts:
        assert t["px"] >= 10 and t["bottom"] - t["top"] >= 10, t
        assert box["x"] - 0.5 <= t["left"] and t["right"] <= box["x"] + box["width"] + 0.5, (t, box)
    for k, a in enumerate(texts):
        for b in texts[k + 1:]:
            apart = (a["right"] <= b["left"] + 0.5 or b["right"] <= a["left"] + 0.5
                     or a["bottom"] <= b["top"] + 0.5 or b["bottom"] <= a["top"] + 0.5)
            assert apart, (a, b)
    marks = pg.eval_on_selector_all("#review-graph g.mark", "(ms) => ms.map((m) => "
                                    "m.getBoundingClientRect()).map((r) => [r.width, r.height])")
    assert marks and min(min(m) for m in marks) >= 24, marks
    no_overflow(pg)


def test_the_review_graph_is_legible_on_a_phone(server, browser):  # noqa: F811
    """On a 390x844 phone the review graph was the laptop's 860-wide drawing scaled to the
    screen (about 0.42): its labels under 5 px, its marks 4-6 px across, too small to read
    or to tap. It is drawn at the phone's width: text at least 10 px, marks a finger wide,
    fewer turn numbers, the legends on rows of their own; a tapped mark chooses its
    decision. Also with 4 players (a longer legend)."""
    pg = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    try:
        review_upload(pg, server, "phone-graph.json", play_random_game(2, seed=5).to_json())
        pg.locator("#review-graph").screenshot(path=str(ARTIFACTS / "phone-04-review-graph.png"))
        graph_is_legible(pg, 390)
        mark = pg.locator("#review-graph g.mark").nth(2)
        mark.scroll_into_view_if_needed()
        n = int(mark.get_attribute("data-decision")) + 1
        mark.tap()
        pg.wait_for_function("(n) => document.querySelector('#review-detail')"
                             ".innerText.includes('Move ' + n + ':')", arg=n)
        assert pg.locator("#review-graph line.cursor").count() == 1

        four = play_random_game(4, seed=6).to_json()
        four["actions"] = four["actions"][:40]
        upload(pg, "phone-4p.json", json.dumps(four))
        pg.wait_for_function("window.bigsur.state.upload.name === 'phone-4p.json'"
                             " && window.bigsur.state.upload.result", timeout=120_000)
        pg.wait_for_selector("#review-graph svg polyline")
        pg.locator("#review-graph").screenshot(path=str(ARTIFACTS / "phone-05-review-graph-4p.png"))
        graph_is_legible(pg, 390)
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


def test_the_review_legend_keys_stay_on_one_line_on_a_phone(server, browser):  # noqa: F811
    """On a 390x844 phone the review's legend "the better move" box broke across two
    lines (a box on each); each key stays on one line."""
    pg = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    try:
        record = play_random_game(2, seed=5).to_json()
        record["actions"] = record["actions"][:16]
        review_upload(pg, server, "phone-legend.json", record)
        decisions = pg.evaluate("window.bigsur.state.upload.result.decisions")
        worse = next(d for d in decisions if d["best"] and d["best"][0] != d["played"])
        pg.click(f"#review-list [data-decision='{worse['index']}']")
        pg.wait_for_selector("#review-detail .key.better")
        lines = pg.eval_on_selector_all(
            "#review-detail .key",
            "(ks) => ks.map((k) => [k.textContent, k.getClientRects().length])")
        assert len(lines) == 2 and all(n == 1 for _, n in lines), lines
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


def test_a_long_highway_scrolls_in_its_own_row_on_a_phone(server, browser):  # noqa: F811
    """The position editor on a 390x844 phone: another player's Highway of 7 cards (drawn
    at a fixed size, some 400 px) widened its column, and with it the whole page, to its
    width: every panel ran off the right of the screen (the Place row, the Landmark
    chips, the discard piles cut off). The Highway scrolls inside its own row; the page
    and every panel stay within the screen's width."""
    st = state_to_json(random_mid_game(2, seed=8, actions=60))
    assert len(st["seats"][1]["highway"]) >= 7
    pg = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    try:
        fresh_page(pg, server + "/?speed=0")
        link = editor_link(pg, st, 0)
        pg.goto("about:blank")
        pg.goto(f"{server}/?speed=0#position={link}")
        pg.wait_for_selector("#pe-problems:has-text('No problem found')")
        shot(pg, "phone-06-editor-long-highway", full=True)
        assert pg.evaluate("document.scrollingElement.scrollWidth") <= 390
        no_overflow(pg)
        rows = pg.eval_on_selector_all(
            "#editor .pe-hw", "(hs) => hs.map((h) => [h.getBoundingClientRect().right,"
            " h.scrollWidth, h.clientWidth])")
        assert len(rows) == 2 and all(right <= 390 for right, _, _ in rows), rows
        right, wide, shown = rows[1]  # the other player's: scrolls in its row
        assert wide > shown, rows
        panels = pg.eval_on_selector_all("#editor .panel",
                                         "(ps) => ps.map((p) => p.getBoundingClientRect().right)")
        assert panels and max(panels) <= 390, panels
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


MARK_CENTRES = """() => [...document.querySelectorAll('#review-graph g.mark')].map((m) => {
  const r = m.querySelector('circle.dot').getBoundingClientRect();
  return {decision: m.dataset.decision, x: r.x + r.width / 2, y: r.y + r.height / 2};
})"""


def test_a_tapped_mark_opens_itself_not_its_neighbour(server, browser):  # noqa: F811
    """On a 390x844 phone the review graph's marks are a finger wide (28 px to tap) and
    two close decisions' marks a few px apart: a tap on the centre of one opened its
    neighbour (drawn later, on top). A tap (or a click) opens the mark nearest to it."""
    pg = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    try:
        review_upload(pg, server, "phone-close-marks.json", play_random_game(2, seed=5).to_json())
        pg.locator("#review-graph").scroll_into_view_if_needed()
        marks = pg.evaluate(MARK_CENTRES)
        # the marks whose dot's centre lies under another mark's area to tap
        covered = [m for m in marks if pg.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('g.mark').dataset.decision",
            [m["x"], m["y"]]) != m["decision"]]
        assert covered, marks  # (else this record tests nothing)
        for mark in covered[:4]:
            pg.locator("#review-graph").scroll_into_view_if_needed()
            centre = next(m for m in pg.evaluate(MARK_CENTRES) if m["decision"] == mark["decision"])
            before = pg.evaluate("window.bigsur.state.upload.selected")
            pg.touchscreen.tap(centre["x"], centre["y"])
            pg.wait_for_function("(b) => ![b, null, undefined].includes("
                                 "window.bigsur.state.upload.selected)", arg=before)
            chosen = pg.evaluate("window.bigsur.state.upload.selected")
            assert chosen == int(mark["decision"]), (chosen, mark)
            n = chosen + 1
            pg.wait_for_function("(n) => document.querySelector('#review-detail')"
                                 ".innerText.includes('Move ' + n + ':')", arg=n)
            # the mark focused (its ring drawn black) is the one tapped
            focused = pg.evaluate("document.activeElement.dataset.decision")
            assert focused == mark["decision"], (focused, mark)
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


SMALL_TARGETS = """() => [...document.querySelectorAll('button, select, summary, [role=button]')]
  .filter((e) => e.getClientRects().length && !e.closest('svg'))
  .map((e) => { const r = e.getBoundingClientRect();
    return [e.id || e.className.toString() || e.tagName,
            (e.getAttribute('aria-label') || e.textContent).trim().slice(0, 30),
            Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10]; })
  .filter(([, , w, h]) => w < 24 || h < 24)"""


def test_every_control_is_a_finger_wide_on_a_phone(server, browser):  # noqa: F811
    """A QA pass at 390x844 (touch): "Play this" was 68x19 px, the seats' "0 pts" toggles
    61x19, the hint's search menu 137x22, the AI speed menu 75x22, the top navigation's
    buttons 23 px high, under the 24 x 24 px a target needs. Every button, menu and
    toggle of the setup and of the table (a hint shown) is at least 24 x 24 px."""
    from test_page_hints import ask_hint

    pg = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    try:
        fresh_page(pg, server + "/?speed=0")
        pg.select_option("#setup-players", "3")
        for seat in (1, 2):
            pg.select_option(f"#seat-{seat}", "greedy")
        pg.click("#setup-advanced summary")
        assert pg.evaluate(SMALL_TARGETS) == []
        pg.locator("#setup-start").tap()
        pg.wait_for_selector("#game:not([hidden])")
        settle(pg)
        ask_hint(pg)
        assert pg.locator("#hint .playhint").count()
        shot(pg, "phone-07-controls-a-finger-wide")
        assert pg.evaluate(SMALL_TARGETS) == []
        no_overflow(pg)
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()
