"""The way back to a game in progress (the Table button, New game's "Resume it") after a
reload on another view, in a real browser against a real server (same setup as
test_web_page.py: a real uvicorn, Debian's Chromium through Playwright)."""

from __future__ import annotations

import pytest
from test_web_page import (  # noqa: F401 - fixtures
    browser,
    page,
    server,
    settle,
    to_the_first_build_step,
)


@pytest.mark.parametrize("address", ["#position=", "#editor"])
def test_a_reload_on_the_position_editor_keeps_the_way_back_to_the_game(server, page, address):  # noqa: F811
    """A QA pass: a game against the AI, a move played, the position editor opened and
    the page reloaded there (its address #position=..., or #editor): the Table button
    was gone and New game no longer offered "Resume it" (the game was not loaded under
    a #position= address, and the game in progress was only noted when New game was
    shown with the game loaded). Both are there, and lead to the game."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=0")
    pg.locator("#actionbar .endbtn").click()  # a move played: the turn ended
    settle(pg)
    game_id = pg.evaluate("window.bigsur.state.game.id")
    pg.click("#nav-editor")
    pg.wait_for_selector("#editor:not([hidden])")
    if address == "#editor":
        pg.evaluate("history.replaceState(null, '', location.pathname + location.search"
                    " + '#editor')")
    else:  # the editor writes its position into the address
        pg.wait_for_function("location.hash.startsWith('#position=')")
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    assert pg.locator("#editor").is_visible()
    assert pg.locator("#nav-game").is_visible()
    pg.click("#nav-new")
    pg.wait_for_selector("#setup:not([hidden])")
    assert pg.locator("#setup-resume").is_visible()
    pg.click("#setup-resume-btn")
    pg.wait_for_selector("#game:not([hidden])")
    settle(pg)
    assert pg.evaluate("window.bigsur.state.game.id") == game_id
    assert pg.evaluate("location.hash") == "#game=" + game_id
    assert not pg.js_errors, pg.js_errors
