"""The page's hints as a player meets them (a quality pass): what a hint says must be
true of the position, say what its numbers are, and go away when the position changes.
Same setup as test_web_page.py (a real uvicorn, Debian's Chromium through Playwright).
Where a test needs one particular suggestion, the server's hint answer is replaced on
its way to the page (``fake_hint``) by a move checked legal here with the engine.
"""

from __future__ import annotations

from test_page_qa import continue_position, ragged_point_position
from test_web_page import browser, page, server, settle  # noqa: F401


def ask_hint(pg, budget: str = "iterations:100") -> None:
    pg.select_option("#hint-budget", budget)
    pg.click("#hint-btn")
    pg.wait_for_selector("#hint .hintlist li, #alert:not([hidden])", timeout=60_000)
    assert not pg.locator("#alert").is_visible(), pg.locator("#alert").inner_text()


def build_by_payment_box(pg, card: str, side: str = "R") -> None:
    """Select ``card`` and build it with the cheapest payment the page suggests."""
    pg.click(f"#hand .cardbtn[data-select='{card}']")
    pg.wait_for_selector("#paybox:not([hidden]) .paychip")
    pg.click(f"#paybox [data-build='{side}']")
    settle(pg)


def test_hint_cleared_after_an_undo_and_another_build(server, page):  # noqa: F811
    """A hint belonged to a number of actions played: after building H04, asking for a
    hint, undoing H04 and building H14 instead, the number was the same again and the old
    hint came back as the current one (it built on H04, then in the hand again)."""
    pg = page
    continue_position(pg, server, ragged_point_position(), 0)
    build_by_payment_box(pg, "H04")
    ask_hint(pg)
    assert "Play this" in pg.locator("#hint").inner_text()
    pg.keyboard.press("u")  # undo H04
    settle(pg)
    build_by_payment_box(pg, "H14")
    road = pg.evaluate("window.bigsur.state.data.view.seats[0].highway")
    assert "H14" in road and "H04" not in road, road
    text = pg.locator("#hint").inner_text()
    assert "Play this" not in text and "Ask for the search's best moves" in text, text
    assert pg.locator(".suggested").count() == 0
    assert "hint: here" not in pg.locator("#seats").inner_html()
    assert not pg.js_errors, pg.js_errors
