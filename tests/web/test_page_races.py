"""The page when answers come late or wrong: a view's load overtaken by Back, an address
naming a game gone from the server, a score answer without scores while the AI's moves
are shown, and the editors' Undo history against the browser's limits and slow loads (a
real browser against a real server, the fixtures of test_web_page.py; a request held
with page.route and let go when the test chooses, never a timed wait)."""

from __future__ import annotations

import json

from test_web_page import api_get, browser, page, server, settle  # noqa: F401 - fixtures


def test_a_score_answer_without_scores_ends_the_ai_moves_all_the_same(server, page):  # noqa: F811
    """A score asked for an AI build while its moves are shown answered without scores
    (a server of another version, a proxy): the error came before the moves' try, so
    S.animating stayed true for good; the table never came back and every key said to
    wait for the AI. The moves end, the player's turn is drawn and the keys act."""
    from rules_testkit import random_mid_game
    from test_page_qa import continue_position

    from solver.rules.position import state_to_json

    pg = page
    st = state_to_json(random_mid_game(4, seed=3, actions=16))
    continue_position(pg, server, st, st["current"])
    pg.select_option("#ai-speed", "120")
    game = json.loads(pg.evaluate("localStorage.getItem('bigsur.game')"))
    asked = []

    def no_scores(route):  # a step's score (a Highway shorter than the game's) answered {}
        now = api_get(server, f"/v1/games/{game['id']}", next(iter(game["tokens"].values())))
        asks = route.request.post_data_json["position"]["seats"]
        seats = zip(asks, now["view"]["seats"], strict=True)
        if any(len(a["highway"]) < len(b["highway"]) for a, b in seats):
            asked.append(route.request.url)
            route.fulfill(json={})
        else:
            route.continue_()

    pg.route("**/v1/score", no_scores)
    for _ in range(8):  # (the AIs' turns until one builds: the server draws their cards)
        for _ in range(2):
            pg.locator("#deck .cardbtn").click()
            settle(pg)
        pg.keyboard.press("e")
        pg.wait_for_function("document.querySelector('#status').innerText.includes('Your turn')")
        settle(pg)
        if asked:
            break
    assert asked  # (the steps' scores were asked, and answered without any)
    assert pg.evaluate("window.bigsur.state.animating") is False
    pg.keyboard.press("]")  # a key acts: the next hand card chosen
    assert pg.locator("#hand .cardbtn.selected").count() == 1
    assert pg.locator("#alert").is_hidden(), pg.locator("#alert").inner_text()
