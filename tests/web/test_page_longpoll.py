"""The page waiting on the server: the AI's turn long-polled (one GET while it thinks, not
one every 400 ms), and the position editor's card-set menu against an edit made while the
chosen set loads (a real browser against a real server, the fixtures of test_web_page.py;
a request held with page.route and let go when the test chooses, never a timed wait)."""

from __future__ import annotations

import json

from test_web_page import api_get, browser, page, server, settle  # noqa: F401 - fixtures


def end_turn_while_the_ai_thinks(pg, base: str) -> tuple[list[str], dict]:
    """A game against a 3 s AI, the player's two takes and "End turn", that action
    answered at once while the AI thinks (sent with ``wait: 0``, as a server whose wait ran
    out answers), up to the player's next turn: the page's GETs of the game meanwhile, and
    the game as the server has it then (the AI's turn played)."""
    from test_page_multi import start_game

    start_game(pg, base, ["human", "mcts:3s"])
    game = json.loads(pg.evaluate("localStorage.getItem('bigsur.game')"))
    path = f"/v1/games/{game['id']}"
    gets = []
    pg.on("request", lambda r: gets.append(r.url) if r.method == "GET"
          and r.url.split("?")[0].endswith(path) else None)

    def no_wait(route):
        route.continue_(post_data=json.dumps({**route.request.post_data_json, "wait": 0}))

    pg.route("**/v1/games/*/actions", no_wait)
    for _ in range(2):
        pg.locator("#deck .cardbtn").click()
        settle(pg)
    gets.clear()
    pg.locator("#actionbar .endbtn").click()
    pg.wait_for_function("document.querySelector('#status').innerText.includes('Your turn')")
    settle(pg)
    now = api_get(base, path, next(iter(game["tokens"].values())))
    assert [e for e in now["log"] if e["seat"] == 1]  # (the AI played its turn)
    assert not now["ai_thinking"] and now["your_turn"]
    return gets, now


def test_the_ai_turn_is_long_polled_and_its_moves_shown(server, page):  # noqa: F811
    """While the AI thought, the page asked for the game every 400 ms until it was done.
    It asks with ``?wait`` (the server answers once the AI is done): at most 2 GETs for
    the AI's turn, and the AI's moves are shown."""
    pg = page
    gets, now = end_turn_while_the_ai_thinks(pg, server)
    assert 1 <= len(gets) <= 2, gets
    assert "wait=" in gets[0]
    assert pg.locator("#log li").count() == len(now["log"])  # its moves shown
    assert pg.locator("#alert").is_hidden(), pg.locator("#alert").inner_text()


def test_a_server_refusing_the_long_poll_is_polled_as_before(server, page):  # noqa: F811
    """A server whose BIGSUR_AI_WAIT_SECONDS is below the page's wait answers its long-poll
    with a 422 naming ``wait``: the page asks without it, as before, and the AI's moves
    are shown, no error."""
    pg = page

    def refused(route):
        route.fulfill(status=422, json={"error": "out_of_range", "field": "wait",
                                        "message": "must be 0 to 1 seconds"})

    pg.route(lambda url: "wait=" in url and "/v1/games/" in url, refused)
    gets, now = end_turn_while_the_ai_thinks(pg, server)
    assert "wait=" in gets[0] and "wait=" not in gets[-1]
    assert pg.locator("#log li").count() == len(now["log"])  # its moves shown
    assert pg.locator("#alert").is_hidden(), pg.locator("#alert").inner_text()


def test_an_edit_while_the_chosen_card_set_loads_stands(server, page):  # noqa: F811
    """The position editor's Cards menu waits for the chosen set, then reshaped the
    position of before the wait: a card placed meanwhile was lost. The edit stands, the
    set is not changed (the table's own set drawn, the menu naming it) and the status
    line says so; Undo gives back the position before the edit."""
    from test_editors import open_editor
    from test_position_editor_workflow import changes_to, comes_back, store_set, table

    from solver.rules.cards import load_card_set

    pg = page
    store_set(server, load_card_set().to_json() | {"name": "slow-cards"})
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    start = table(pg)
    held = []
    pg.route("**/v1/cards/slow-cards", lambda route: held.append(route))
    pg.select_option("#pe-cards", "slow-cards")
    for _ in range(100):  # (the set asked for: each call lets Playwright route it)
        if held:
            break
        pg.evaluate("0")
    assert held
    card = pg.locator(".pe-palette [data-pe-place]").first.get_attribute("data-pe-place")
    pg.click(f".pe-palette [data-pe-place='{card}']")
    placed = changes_to(pg, start)
    said = pg.locator("#pe-status").inner_text()
    for route in held:
        route.continue_()
    pg.unroute("**/v1/cards/slow-cards")
    pg.wait_for_function("(t) => document.querySelector('#pe-status').innerText !== t", arg=said)
    assert "edited meanwhile" in pg.locator("#pe-status").inner_text()
    assert table(pg) == placed
    assert pg.locator(f".pe-palette [data-pe-place='{card}']").count() == 0  # (placed)
    assert pg.locator("#pe-cards").input_value() == "default"
    assert pg.evaluate("window.bigsur.state.cards.name") == "default"  # (the page's set too)
    assert pg.locator("#pe-undo").inner_text() == f"Undo place {card}"
    pg.click("#pe-undo")
    comes_back(pg, start)
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors
