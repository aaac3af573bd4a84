"""The position editor as a player setting up a table to ask for hints uses it: the
focus kept where the keyboard left it.

Same setup as test_web_page.py (a real server on loopback, Debian's Chromium through
Playwright). A position is compared through its #position= link, which holds the whole
of it (the editor writes it after each change).
"""

from __future__ import annotations

from test_editors import open_editor
from test_web_page import browser, page, server  # noqa: F401 - fixtures


def table(pg) -> str:
    """The position as the editor holds it (its link: written 200 ms after each change,
    as the editor checks it; a wait for it to change, or come back, comes first)."""
    return pg.evaluate("location.hash")


def changes_to(pg, before: str) -> str:
    pg.wait_for_function("(h) => location.hash !== h", arg=before)
    return table(pg)


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
