"""The play page in 3- and 4-player games, as a player meets it (a QA pass): each fault
found is proved here in a real browser against a real server (same setup as
test_web_page.py: a real uvicorn, Debian's Chromium through Playwright).
"""

from __future__ import annotations

from test_web_page import (  # noqa: F401 - fixtures
    browser,
    page,
    server,
)


def words_in_page(pg, base: str, script: str):
    """``script`` (the body of an async function with ``w``, the page's words.js) run in
    the page."""
    pg.goto(base + "/")
    pg.wait_for_selector("body[data-ready='1']")
    return pg.evaluate("async () => { const w = await import('/js/words.js');\n"
                       + script + "\n}")


def test_another_players_payment_is_not_called_yours(server, page):  # noqa: F811
    """An AI's build in the review (its list of decisions, the turning points, "better"
    moves) read "AI 3 (easy) builds H36 ..., paying: the Persistent stone of H03 in your
    Highway; recycle the top of your discard pile": H03 was in AI 3's Highway, the pile
    AI 3's, and the reader's own road had no H03. Another player's payment says
    "their"; the reader's own still says "your"."""
    pg = page
    out = words_in_page(pg, server, """
      const cards = {highway: {H03: {material: 'water', persistent: 'stone'},
                               H23: {material: 'engineering'}, H36: {material: 'steel'}},
                     landmarks: {}};
      const ctx = {cards, seatName: (i) => 'AI ' + (i + 1) + ' (easy)'};
      const act = 'build H36 L pay per:H03 rec H23 bh:0:H03';
      return {ai: w.actionWords(act, ctx, 'AI 3 (easy)'), me: w.actionWords(act, ctx, 'You'),
              seat: w.actionWords(act, ctx, 'Player 2')};
    """)
    assert out["ai"] == ("AI 3 (easy) builds H36 at the left end, paying: the Persistent stone "
                         "of H03 in their Highway; recycle the top of their discard pile; "
                         "discard H23 (engineering); borrow the Persistent stone of H03 from "
                         "AI 1 (easy)'s Highway"), out["ai"]
    assert "in their Highway" in out["seat"] and "of their discard pile" in out["seat"]
    assert "in your Highway" in out["me"] and "of your discard pile" in out["me"]
    assert not pg.js_errors, pg.js_errors
