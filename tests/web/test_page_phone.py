"""The table on a phone (390x844, touch) with 3-4 players, in a real browser against a
real server (same setup as test_web_page.py). Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

from test_page_layout import to_a_late_four_player_turn
from test_web_page import (  # noqa: F401 - fixtures
    browser,
    fresh_page,
    no_overflow,
    open_page,
    server,
    settle,
    shot,
)


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
