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


def resume_from_new_game(pg) -> None:
    """New game, then its "Resume it" (which must be offered): the game it offers on the
    screen."""
    pg.click("#nav-new")
    pg.wait_for_selector("#setup:not([hidden])")
    assert pg.locator("#setup-resume").is_visible()
    pg.click("#setup-resume-btn")
    pg.wait_for_selector("#game:not([hidden])")
    settle(pg)


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
    resume_from_new_game(pg)
    assert pg.evaluate("window.bigsur.state.game.id") == game_id
    assert pg.evaluate("location.hash") == "#game=" + game_id
    assert not pg.js_errors, pg.js_errors


def start_another_game(pg, seed: int) -> str:
    """From the table: New game, a game against GreedyBot dealt from ``seed`` started and
    a card taken (a game in progress). Its id."""
    before = pg.evaluate("window.bigsur.state.game.id")
    pg.click("#nav-new")
    pg.wait_for_selector("#setup:not([hidden])")
    pg.select_option("#seat-1", "greedy")
    pg.evaluate("document.getElementById('setup-advanced').open = true")
    pg.fill("#setup-seed", str(seed))
    pg.click("#setup-start")
    pg.wait_for_function("(id) => location.hash.startsWith('#game=') && "
                         "window.bigsur.state.game.id !== id", arg=before)
    settle(pg)
    pg.locator("#deck .cardbtn").click()
    settle(pg)
    return pg.evaluate("window.bigsur.state.game.id")


@pytest.mark.parametrize("reload", [False, True])
def test_resume_it_offers_the_game_played_last(server, page, reload):  # noqa: F811
    """A QA pass: game C started and a card taken, New game, game E started and a card
    taken, a finished game's review opened by its address (and the page reloaded there,
    or not), New game: "Resume it" opened C, not E (the game in progress was noted only
    when New game was shown with it on the table, never when a game was entered). It
    opens E, the game played last."""
    from test_web_page import finish_a_game_against_greedy

    pg = page
    finish_a_game_against_greedy(server, pg, seed=11)
    finished = pg.evaluate("window.bigsur.state.game.id")
    start_another_game(pg, seed=12)
    last = start_another_game(pg, seed=13)
    pg.evaluate("(id) => { location.hash = '#review=' + id; }", finished)
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline")
    if reload:
        pg.reload()
        pg.wait_for_selector("body[data-ready='1'] #review-graph svg polyline")
    assert pg.evaluate("window.bigsur.state.game.id") == finished
    resume_from_new_game(pg)
    assert pg.evaluate("window.bigsur.state.game.id") == last
    assert not pg.js_errors, pg.js_errors
