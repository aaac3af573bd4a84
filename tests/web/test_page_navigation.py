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
    start_a_game_against_greedy,
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


def shown_view(pg) -> str:
    return pg.evaluate("['setup', 'game', 'review', 'cards', 'editor']"
                       ".filter((v) => !document.getElementById(v).hidden).join()")


def test_back_and_forward_go_from_view_to_view_and_a_reload_stays(server, page):  # noqa: F811
    """A QA pass (a player using Back): the views pushed no history, so Back left the
    page (and the game) from anywhere. Each view is an entry: Back from the card sets
    goes to the same game, from there to New game; Forward comes back; a reload on the
    card sets stays there, the game still on its Table button; a #position= link
    followed from the game opens the editor, and Back goes to the game again."""
    from test_page_links import DECK, link

    pg = page
    start_a_game_against_greedy(pg, server + "/?speed=0")
    settle(pg)
    game_id = pg.evaluate("window.bigsur.state.game.id")
    pg.click("#nav-cards")
    pg.wait_for_selector("#cards:not([hidden]) #cards-root input")

    def back_at(view: str, forward: bool = False) -> None:
        (pg.go_forward if forward else pg.go_back)()
        pg.wait_for_function("(v) => !document.getElementById(v).hidden", arg=view)
        if view == "cards":  # (its editor loaded, not cut off by the next step)
            pg.wait_for_selector("#cards-root input")
        settle(pg)
        assert shown_view(pg) == view

    back_at("game")
    assert pg.evaluate("window.bigsur.state.game.id") == game_id
    assert "Your turn" in pg.locator("#status-line").inner_text()
    back_at("setup")
    back_at("game", forward=True)
    assert pg.evaluate("window.bigsur.state.game.id") == game_id
    back_at("cards", forward=True)

    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    assert shown_view(pg) == "cards"
    pg.wait_for_selector("#cards-root input")
    assert pg.locator("#nav-game").is_visible()
    back_at("game")  # (the history outlives the reload)
    assert pg.evaluate("window.bigsur.state.game.id") == game_id
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    assert shown_view(pg) == "game"
    assert pg.evaluate("window.bigsur.state.game.id") == game_id

    pg.evaluate("(h) => { location.hash = h; }", link([DECK[0]]))
    pg.wait_for_selector(f"#editor:not([hidden]) #pe-hand [data-card='{DECK[0]}']")
    back_at("game")
    assert pg.evaluate("window.bigsur.state.game.id") == game_id
    back_at("editor", forward=True)
    pg.wait_for_selector(f"#pe-hand [data-card='{DECK[0]}']")
    assert not pg.js_errors, pg.js_errors


def test_a_seats_points_follow_each_build_while_the_ai_turns_are_shown(server, page):  # noqa: F811
    """A QA pass (keyboard and screen reader, the AI's moves shown one by one): a seat's
    points and Stretch bars followed its cards only at its turn's end ("builds H12"
    beside the points of before). They are the server's score of its Highway as drawn
    at each build and claim (its hand and discard counts too, since 0999b40:
    test_page_multi.py)."""
    from test_page_multi import watch_the_ai_turns

    pg = page
    me, seen = watch_the_ai_turns(pg, server,
                                  "(el.querySelector('.seat-head .score') || {}).innerText")
    names = {i: pg.locator(f"#seats .seat[data-seat='{i}']").get_attribute("aria-label")
             for i in range(4) if i != me}
    changed_at_a_build = 0
    for k in range(1, len(seen)):
        for i, name in names.items():
            if not seen[k]["caption"].startswith(name + " "):
                continue
            was, now = seen[k - 1]["seats"][str(i)], seen[k]["seats"][str(i)]
            if seen[k]["caption"] == name + " ends the turn":
                assert now == was, (seen[k - 1], seen[k])  # a bare end scores nothing
            if seen[k]["caption"].startswith(name + " builds ") and now != was:
                changed_at_a_build += 1
    assert changed_at_a_build, [(x["caption"], x["seats"]) for x in seen]
    assert not pg.js_errors, pg.js_errors


def test_back_puts_the_focus_at_the_top_of_the_view_and_the_title_names_it(server, page):  # noqa: F811
    """Alt+Left with the focus in the card-set editor left it in the view gone (Tab went
    on from the page's top), and every entry of the history was called "Big Sur". The
    view shown has the focus at its top (the table's status line, New game's heading,
    the editor's section), and the page's title names the view."""
    pg = page
    start_a_game_against_greedy(pg, server + "/?speed=0")
    settle(pg)
    assert pg.title() == "Table \u2014 Big Sur"
    pg.click("#nav-cards")
    pg.wait_for_selector("#cards-root input")
    assert pg.title() == "Card sets \u2014 Big Sur"
    pg.focus("#cards-root input >> nth=0")
    pg.go_back()  # (Alt+Left: the browser's, not the page's)
    pg.wait_for_selector("#game:not([hidden])")
    settle(pg)
    pg.wait_for_function("document.activeElement.id === 'status-line'")
    assert pg.title() == "Table \u2014 Big Sur"
    pg.go_back()
    pg.wait_for_function("document.activeElement.id === 'setup-title'")
    assert pg.title() == "New game \u2014 Big Sur"
    pg.go_forward()
    pg.go_forward()
    pg.wait_for_function("document.activeElement.id === 'cards'")
    pg.keyboard.press("Tab")  # on into the editor, not from the page's top
    assert pg.evaluate("document.getElementById('cards').contains(document.activeElement)")
    assert pg.get_attribute("#cards", "tabindex") is None  # (focusable while it had the focus)
    assert not pg.js_errors, pg.js_errors


def test_keys_pressed_while_the_ai_moves_are_shown_leave_them_shown(server, page):  # noqa: F811
    """] (the next hand card), H (a hint) or a hand card clicked while the AI's moves were
    shown drew the whole table of the next turn in the middle of them: the status line
    said "Your turn" (a screen reader read it) between two AI moves, then the next move
    was drawn on the table of before. The moves go on being shown; the choice is on the
    table after them."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=900")
    pg.evaluate("""() => {
      window.seen = [];
      window.pressed = [];
      addEventListener('keydown', () => window.pressed.push(window.bigsur.state.animating), true);
      new MutationObserver(() => window.seen.push({
        caption: document.querySelector('#status-line').innerText,
        animating: window.bigsur.state.animating,
      })).observe(document.querySelector('#status'), {childList: true, subtree: true});
    }""")
    pg.keyboard.press("e")
    pg.wait_for_selector("#skip-btn:visible")
    pg.keyboard.press("]")
    settle(pg)
    assert pg.evaluate("window.pressed") == [False, True]  # (] while the moves were shown)
    shown = [x["caption"] for x in pg.evaluate("window.seen") if x["animating"]]
    assert shown and not any("Your turn" in c for c in shown), shown
    assert "Your turn" in pg.locator("#status-line").inner_text()
    assert pg.locator("#hand .cardbtn.selected").count() == 1  # ] chose a card
    assert not pg.js_errors, pg.js_errors


def test_back_from_an_address_of_a_game_this_browser_lacks_is_no_trap(server, page):  # noqa: F811
    """An address naming a game this browser does not have (#game=... of another
    browser's link) shows the game in progress; Back then goes on to the views before
    it (showing it pushed an entry of its own, and Back came to the same address again
    and again)."""
    pg = page
    start_a_game_against_greedy(pg, server + "/?speed=0")
    settle(pg)
    game_id = pg.evaluate("window.bigsur.state.game.id")
    pg.evaluate("location.hash = '#game=not-a-game-of-this-browser'")
    pg.wait_for_function("(id) => location.hash === '#game=' + id", arg=game_id)
    assert shown_view(pg) == "game"
    pg.go_back()
    pg.wait_for_selector("#game:not([hidden])")
    pg.go_back()
    pg.wait_for_selector("#setup:not([hidden])")
    assert not pg.js_errors, pg.js_errors


def test_a_key_pressed_while_the_ai_thinks_says_so(server, page):  # noqa: F811
    """A key pressed after "End turn", while the status line said "AI 2 (easy) is
    thinking…", was told "Wait: the previous action is still on its way to the server."
    (a keyboard player had sent nothing more, and wondered what). It says that the AI is
    thinking, and goes once its moves are there."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=0")
    name = pg.locator("#seats .seat:not(.me)").first.get_attribute("aria-label")
    said = pg.evaluate("""() => {
      for (const key of ['e', 'd']) {
        document.body.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
      }
      return document.querySelector('#alert-text').textContent;  // (before it lands)
    }""")
    assert said == f"Wait: {name} is thinking; its moves are shown next.", said
    settle(pg)
    assert "Your turn" in pg.locator("#status-line").inner_text()
    assert pg.locator("#alert").is_hidden(), pg.locator("#alert").inner_text()
    assert not pg.js_errors, pg.js_errors


def test_a_hint_asked_while_the_turn_ended_is_on_its_way_is_not_searched(server, page):  # noqa: F811
    """H (or Hint) just after End turn searched the position of the turn being ended:
    its answer came for a position gone ("Ask for the search's best moves in this
    position"), a search for nothing. It says to wait, as the other keys do."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=0")
    hints = []
    pg.on("request", lambda r: hints.append(r.url) if r.url.endswith("/hint") else None)
    said = pg.evaluate("""() => {
      for (const key of ['e', 'h']) {
        document.body.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
      }
      return document.querySelector('#alert-text').textContent;  // (before it lands)
    }""")
    assert said.startswith("Wait: "), said
    assert said.endswith(" is thinking; its moves are shown next."), said
    settle(pg)
    assert hints == []
    assert pg.locator("#alert").is_hidden(), pg.locator("#alert").inner_text()
    assert not pg.js_errors, pg.js_errors
