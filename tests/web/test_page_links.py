"""A shared #position= link followed in a tab that already has the page open, in a real
browser against a real server (same setup as test_web_page.py: a real uvicorn, Debian's
Chromium through Playwright)."""

from __future__ import annotations

import base64
import json

from test_web_page import browser, page, server  # noqa: F401 - fixtures

from solver.rules.cards import load_card_set

DECK = [c.id for c in load_card_set().highway if 3 in c.players]


def link(hand: list[str]) -> str:
    position = {"cards": "default", "players": 3, "me": 0, "first": 0, "turn": 0,
                "phase": "take", "picks": 0, "depot": [], "row": [], "hand": hand,
                "discard": [], "perTurn": {"recycle": False, "persistent": [],
                                           "resources": {}},
                "seats": [{"highway": [], "landmarks": [], "known": [], "knownDiscard": [],
                           "materials": []} for _ in range(3)]}
    text = base64.urlsafe_b64encode(json.dumps(position).encode()).decode()
    return "#position=" + text.rstrip("=")


def hand_in_address(pg) -> list[str]:
    return pg.evaluate("""() => {
      const b64 = location.hash.slice('#position='.length).replace(/-/g, '+').replace(/_/g, '/');
      return JSON.parse(atob(b64 + '==='.slice((b64.length + 3) % 4))).hand; }""")


def test_a_link_followed_in_an_open_tab_opens_its_position(server, page):  # noqa: F811
    """location.hash = a link left New game showing, and in the position editor the old
    position stayed (the next edit wrote it over the link): the hash was read only at
    start-up. Now the link's position opens in the editor, as at start-up."""
    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    assert pg.locator("#setup").is_visible()
    pg.evaluate("(h) => { window.hashchanges = 0; "
                "addEventListener('hashchange', () => { window.hashchanges += 1; }); "
                "location.hash = h; }", link([DECK[0]]))
    pg.wait_for_selector(f"#editor:not([hidden]) #pe-hand [data-card='{DECK[0]}']")
    assert pg.locator("#setup").is_hidden()

    checked = int(pg.evaluate("document.body.dataset.peChecked || 0"))
    pg.evaluate("(h) => { location.hash = h; }", link([DECK[1], DECK[2]]))
    pg.wait_for_selector(f"#pe-hand [data-card='{DECK[2]}']")
    assert pg.locator(f"#pe-hand [data-card='{DECK[0]}']").count() == 0
    # the editor checked the new position and wrote it to the address (replaceState: no
    # hashchange, so no loop); an edit keeps it
    pg.wait_for_function("(n) => Number(document.body.dataset.peChecked || 0) > n", arg=checked)
    assert hand_in_address(pg) == [DECK[1], DECK[2]]
    checked = int(pg.evaluate("document.body.dataset.peChecked"))
    pg.click(f"#pe-hand [data-card='{DECK[1]}']")  # removed from the hand
    pg.wait_for_function("(n) => Number(document.body.dataset.peChecked || 0) > n", arg=checked)
    assert hand_in_address(pg) == [DECK[2]]
    assert pg.evaluate("window.hashchanges") == 2
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors
