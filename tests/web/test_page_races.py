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
    continue_position(pg, server, st, st["current"], seed=1)  # (a deal where an AI
    pg.select_option("#ai-speed", "120")  # builds twice in a turn before the game ends)
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
        pg.wait_for_function("['Your turn', 'The game is over'].some((w) => "
                             "document.querySelector('#status').innerText.includes(w))",
                             timeout=90_000)  # (three AI turns, as the other such waits)
        settle(pg)
        if asked:
            break
    assert asked  # (the steps' scores were asked, and answered without any)
    assert "Your turn" in pg.locator("#status").inner_text()  # (the deal's game went on)
    assert pg.evaluate("window.bigsur.state.animating") is False
    pg.keyboard.press("]")  # a key acts: the next hand card chosen
    assert pg.locator("#hand .cardbtn.selected").count() == 1
    assert pg.locator("#alert").is_hidden(), pg.locator("#alert").inner_text()


def shown_view(pg) -> str:
    return pg.evaluate("['setup', 'game', 'review', 'cards', 'editor']"
                       ".filter((v) => !document.getElementById(v).hidden).join()")


def another_game_against_greedy(pg) -> str:
    """From a game shown: New game, a game against GreedyBot started and shown. Its id."""
    shown = pg.evaluate("window.bigsur.state.game.id")
    pg.click("#nav-new")
    pg.wait_for_selector("#setup:not([hidden])")
    pg.select_option("#seat-1", "greedy")
    pg.click("#setup-start")
    pg.wait_for_function("(a) => location.hash.startsWith('#game=') && !location.hash.endsWith(a)",
                         arg=shown)
    settle(pg)
    return pg.evaluate("window.bigsur.state.game.id")


def two_games(pg, base: str) -> tuple[str, str]:
    """A fresh page's two games against GreedyBot, A then B (New game between): the
    history #setup, #game=A, #setup, #game=B, with B shown. Their ids."""
    from test_web_page import start_a_game_against_greedy

    start_a_game_against_greedy(pg, base + "/?speed=0")
    settle(pg)
    first = pg.evaluate("window.bigsur.state.game.id")
    return first, another_game_against_greedy(pg)


def test_a_second_back_before_the_first_backs_game_came_stays(server, page):  # noqa: F811
    """Back to a game (#game=A, loaded from the server before it is shown), then Back
    again before it came: A's answer showed A over the second Back's New game and pushed
    #game=A as a new entry, which cut the Forward part of the history (B's entries). The
    second Back's view stays, the history keeps its length, Forward goes to A, then B."""
    pg = page
    first, second = two_games(pg, server)
    length = pg.evaluate("history.length")
    held = []

    def back_to(hash_: str) -> None:
        pg.evaluate("history.back()")
        pg.wait_for_function("(h) => location.hash === h", arg=hash_)

    back_to("#setup")
    pg.wait_for_selector(f"#games-list [data-open-game='{first}']")  # (its list asked)
    pg.route(f"**/v1/games/{first}", lambda route: held.append(route))
    back_to(f"#game={first}")
    for _ in range(100):  # (A's request on its way: each call lets Playwright route it)
        if held:
            break
        pg.evaluate("0")
    assert len(held) == 1, held
    back_to("#setup")
    pg.wait_for_selector("#setup:not([hidden])")
    for route in held:  # (the games list asks for A too)
        route.continue_()
    pg.unroute(f"**/v1/games/{first}")
    # A's answer taken (then, before, shown at once: the cards were loaded)
    pg.wait_for_function("(id) => window.bigsur.state.data && window.bigsur.state.game.id === id",
                         arg=first)
    settle(pg)
    assert shown_view(pg) == "setup"
    assert pg.evaluate("location.hash") == "#setup"
    assert pg.evaluate("history.length") == length
    pg.evaluate("history.forward()")
    pg.wait_for_function("(id) => location.hash === '#game=' + id", arg=first)
    pg.wait_for_selector("#game:not([hidden])")
    pg.wait_for_function("(id) => window.bigsur.state.game.id === id", arg=first)
    pg.evaluate("history.forward()")
    pg.wait_for_selector("#setup:not([hidden])")
    pg.evaluate("history.forward()")
    pg.wait_for_function("(id) => location.hash === '#game=' + id", arg=second)
    pg.wait_for_function("(id) => window.bigsur.state.game.id === id", arg=second)
    pg.wait_for_selector("#game:not([hidden])")
    assert not pg.js_errors, pg.js_errors


def test_a_reload_at_the_address_of_a_game_gone_keeps_the_game_left(server, page):  # noqa: F811
    """A reload at #game=A of a game deleted meanwhile, B being the game left: the page
    forgot B (the game left, kept under another key than A) and showed New game; a plain
    reload no longer resumed B, and its Resume button was gone. A is forgotten and said
    gone; B is shown, resumed by a plain reload, and offered by New game's Resume."""
    import urllib.request

    pg = page
    first, second = two_games(pg, server)
    games = json.loads(pg.evaluate("localStorage.getItem('bigsur.games')"))
    token = next(iter(next(g for g in games if g["id"] == first)["tokens"].values()))
    req = urllib.request.Request(f"{server}/v1/games/{first}", method="DELETE",
                                 headers={"Authorization": f"Bearer {token}"})
    urllib.request.urlopen(req, timeout=10).close()
    pg.evaluate("(id) => history.replaceState(null, '', '#game=' + id)", first)
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    settle(pg)
    assert shown_view(pg) == "game"
    assert pg.evaluate("window.bigsur.state.game.id") == second
    assert pg.evaluate("location.hash") == f"#game={second}"
    assert "is gone from the server" in pg.locator("#alert").inner_text()
    games = json.loads(pg.evaluate("localStorage.getItem('bigsur.games')"))
    assert [g["id"] for g in games] == [second]
    pg.goto(server + "/?speed=0")  # (a plain reload: no address)
    pg.wait_for_selector("body[data-ready='1']")
    settle(pg)
    assert shown_view(pg) == "game"
    assert pg.evaluate("window.bigsur.state.game.id") == second
    pg.click("#nav-new")
    pg.wait_for_selector("#setup-resume:not([hidden])")


def test_an_edit_while_an_undo_loads_its_card_set_stands(server, page):  # noqa: F811
    """The position editor's Undo to a position of another card set waits for that set;
    an edit made meanwhile was pushed on the Undo list, and the Undo then popped it (the
    edit's entry lost, its own left in the list: the next Undo named a step already
    undone). The edit stands, the Undo is not taken and says so, and each Undo after it
    gives back the position before it."""
    from test_editors import open_editor
    from test_position_editor_workflow import changes_to, comes_back, store_set, table

    from solver.rules.cards import load_card_set

    pg = page
    store_set(server, load_card_set().to_json() | {"name": "race-cards"})
    open_editor(pg, server, "#nav-editor", "#pe-problems")
    start = table(pg)
    pg.select_option("#pe-cards", "race-cards")
    other = changes_to(pg, start)
    assert pg.locator("#pe-undo").inner_text() == "Undo cards race-cards"
    held = []
    pg.route("**/v1/cards/default", lambda route: held.append(route))
    pg.click("#pe-undo")
    for _ in range(100):  # (the default set asked for: each call lets Playwright route it)
        if held:
            break
        pg.evaluate("0")
    assert held
    card = pg.locator(".pe-palette [data-pe-place]").first.get_attribute("data-pe-place")
    pg.click(f".pe-palette [data-pe-place='{card}']")
    placed = changes_to(pg, other)
    assert pg.locator("#pe-undo").inner_text() == f"Undo place {card}"
    said = pg.locator("#pe-status").inner_text()
    for route in held:
        route.continue_()
    pg.unroute("**/v1/cards/default")
    pg.wait_for_function("(t) => document.querySelector('#pe-status').innerText !== t", arg=said)
    assert pg.locator("#pe-status").inner_text().startswith("Not undone")
    assert table(pg) == placed
    assert pg.locator("#pe-cards").input_value() == "race-cards"
    assert pg.locator("#pe-undo").inner_text() == f"Undo place {card}"
    assert pg.get_attribute("#pe-redo", "aria-disabled") == "true"
    pg.click("#pe-undo")
    comes_back(pg, other)
    assert pg.locator("#pe-undo").inner_text() == "Undo cards race-cards"
    pg.click("#pe-undo")
    comes_back(pg, start)
    assert pg.get_attribute("#pe-undo", "aria-disabled") == "true"
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


FILL_SESSION = """() => {  // the tab's storage filled: nothing more fits (its size, in characters)
  let lo = 0, hi = 12000000;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    try { sessionStorage.setItem('filler', 'x'.repeat(mid)); lo = mid; } catch (e) { hi = mid - 1; }
  }
  sessionStorage.setItem('filler', 'x'.repeat(lo));
  return lo;
}"""


def test_the_card_set_editors_undo_after_a_reload_is_never_older_than_the_last_edit(
        server, page):  # noqa: F811
    """The card-set editor keeps its Undo steps in the tab's storage; when they no longer
    fit, the write failed and the copy of before stayed: after a reload the Undo button
    named an older step and jumped over the newer edits. After a reload its Undo is the
    last edit's (what fits of the steps, newest first) or none."""
    from test_cardset_editor_workflow import checked, no_js_errors, open_cards, set_json

    pg = page
    open_cards(pg, server)
    pg.evaluate("sessionStorage.clear()")
    pg.click("[data-ce-pick='highway:11']")
    checked(pg)
    pg.click("[data-ce='delete']")  # (one step kept)
    checked(pg)
    assert pg.locator("#ce-undo").inner_text() == "Undo delete H12"
    assert pg.evaluate(FILL_SESSION) > 0
    pg.click("[data-ce-pick='highway:3']")
    checked(pg)
    before = set_json(pg)
    pg.click("[data-ce='delete']")  # (two steps: they do not fit)
    checked(pg)
    last = pg.locator("#ce-undo").inner_text()
    assert last.startswith("Undo delete ") and last != "Undo delete H12", last
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-restored")
    undo = pg.locator("#ce-undo")
    if undo.is_enabled():
        assert undo.inner_text() == last
        undo.click()
        assert set_json(pg) == before
    pg.evaluate("sessionStorage.clear()")
    no_js_errors(pg)


def test_the_card_set_editors_undo_steps_keep_the_stored_sets_text_once(
        server, page):  # noqa: F811
    """Each Undo step of a stored set's version kept the set as saved (its JSON text) next
    to the set, so the tab's storage held that text once a step and filled twice as fast.
    It is kept once; after a reload, Undo back to the set as loaded finds nothing to
    save, as before the reload."""
    from test_cardset_editor_workflow import checked, no_js_errors, open_cards
    from test_position_editor_workflow import store_set

    from solver.rules.cards import load_card_set

    pg = page
    store_set(server, load_card_set().to_json() | {"name": "undo-kept-cards"})
    open_cards(pg, server)
    pg.evaluate("sessionStorage.clear()")
    pg.select_option("#ce-start", "undo-kept-cards")
    pg.click("[data-ce='load']")
    pg.wait_for_selector("#ce-undo:not([disabled])")
    checked(pg)
    for i in (11, 7, 5, 3):
        pg.click(f"[data-ce-pick='highway:{i}']")
        checked(pg)
        pg.click("[data-ce='delete']")
        checked(pg)
    raw = pg.evaluate("sessionStorage.getItem('bigsur.cardset-history')")
    assert raw.count('\\"name\\":\\"undo-kept-cards\\"') == 1  # (the text as saved, in JSON)
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-cards")
    pg.wait_for_selector("#ce-restored")
    for _ in range(4):
        pg.click("#ce-undo")
        checked(pg)
    pg.click("[data-ce='save']")
    pg.wait_for_selector("#ce-nothing")
    pg.evaluate("sessionStorage.clear()")
    no_js_errors(pg)
