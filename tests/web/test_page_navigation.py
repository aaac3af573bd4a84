"""The page against the AI as a keyboard player meets it while the AI's moves are shown,
and the browser's Back and Forward between the page's views, in a real browser against a
real server (same setup as test_web_page.py: a real uvicorn, Debian's Chromium through
Playwright)."""

from __future__ import annotations

from test_page_a11y import focused
from test_web_page import (  # noqa: F401 - fixtures
    browser,
    page,
    server,
    settle,
    to_the_first_build_step,
)


def test_the_focus_stays_on_the_status_line_while_the_ai_moves_are_shown(server, page):  # noqa: F811
    """A QA pass (keyboard, screen reader): E pressed on "End turn" drew the action bar
    anew and each AI move the table; the focus waited on <body> until the moves were
    shown (Tab started again from the page's top). It is on the status line, which says
    each move, from the first move shown to the next turn."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=120")
    pg.evaluate("""() => {
      window.seen = [];
      new MutationObserver(() => {
        const a = document.activeElement;
        window.seen.push({caption: document.querySelector('#status-line').innerText,
                          animating: !document.querySelector('#skip-btn').hidden,
                          focus: !a || a === document.body ? 'body'
                            : (a.id || a.outerHTML.slice(0, 60))});
      }).observe(document.querySelector('#status'), {childList: true, subtree: true});
    }""")
    pg.focus("#actionbar .endbtn")
    pg.keyboard.press("Enter")
    settle(pg)
    shown = [x for x in pg.evaluate("window.seen") if x["animating"]]
    assert len(shown) >= 3, pg.evaluate("window.seen")  # the AI's takes and end at least
    assert {x["focus"] for x in shown} == {"status-line"}, shown
    assert "Your turn" in pg.locator("#status-line").inner_text()
    assert focused(pg) == "#status-line"
    assert not pg.js_errors, pg.js_errors
