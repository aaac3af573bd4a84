"""The game log on the play page, in a real browser against a real server (same setup as
test_web_page.py: a real uvicorn, Debian's Chromium through Playwright).
"""

from __future__ import annotations

import json

from test_page_qa import (
    continue_position,
    open_payment,
    pay_by_clicks_and_build,
    point_lobos_position,
    review_upload,
)
from test_web_page import (  # noqa: F401 - fixtures
    api_get,
    browser,
    page,
    play_out_by_api,
    server,
    settle,
    to_the_first_build_step,
)

from solver.rules.engine import new_game


def test_log_names_the_borrowed_and_recycled_materials_as_paid(server, page):  # noqa: F811
    """A payment in the log names each Material as the payment panel did: the top of
    AI 2's discard pile borrowed with Point Lobos (stone) had no Material at all, and a
    recycled top of one's own pile had none unless the same payment discarded onto it
    first. The log is written from the whole game each time, after the piles changed
    (here a discard onto one's own pile in the same payment; AI 2 plays its turn and its
    pile is shown with another top after a reload): it names the Materials as they were
    when paid."""
    pg = page
    continue_position(pg, server, point_lobos_position(), 0)
    open_payment(pg, "H56")  # stone, timber, steel
    pay_by_clicks_and_build(pg, ["bd:1", "rec", "H24"])
    expected = ("borrow the top of AI 2 (easy)'s discard pile (stone); "
                "recycle the top of your discard pile (timber); discard H24 (steel)")
    line = pg.locator("#log li").last.inner_text()
    assert expected in line, line

    pg.locator("#actionbar .endbtn").click()
    settle(pg)  # AI 2 has played its turn: your turn again

    def other_top(route):  # AI 2's pile with another top, as its turn might have left it
        response = route.fetch()
        body = response.json()
        if isinstance(body, dict) and "view" in body:
            body["view"]["seats"][1]["discard"]["materials"][-1] = "water"
        route.fulfill(response=response, json=body)

    pg.route("**/v1/games/*", other_top)
    refused: list[str] = []
    pg.on("response", lambda r: refused.append(f"{r.request.method} {r.url}")
          if r.status >= 400 else None)
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    settle(pg)
    line = pg.locator("#log li", has_text="H56").last.inner_text()
    assert expected in line, line
    # the faked pile need not be one the server's checks accept: the page's request for
    # the scores of that view may be refused (422), the test's own doing; nothing else
    assert all(r.startswith("POST ") and r.endswith("/v1/score") for r in refused), refused
    assert not [e for e in pg.js_errors if "status of 422" not in e], pg.js_errors


def test_review_names_the_borrowed_and_recycled_materials_as_the_log_does(server, page):  # noqa: F811
    """The review's move list and its "Played" line said "borrow the top of AI 2
    (easy)'s discard pile; recycle the top of your discard pile" with no Material where
    the log names them. A review shows every seat's payments: with the piles after the
    last move (the finished game's, or an uploaded record's start and its payments) the
    piles' tops when paid are known, for the game's review and for its record uploaded."""
    pg = page
    continue_position(pg, server, point_lobos_position(), 0)
    open_payment(pg, "H56")  # stone, timber, steel
    pay_by_clicks_and_build(pg, ["bd:1", "rec", "H24"])
    index = int(pg.locator("#log li", has_text="H56").last.get_attribute("data-index"))
    paid = ("borrow the top of AI 2 (easy)'s discard pile (stone); "
            "recycle the top of your discard pile (timber); discard H24 (steel)")
    assert paid in pg.locator("#log li").last.inner_text()

    play_out_by_api(server, pg)
    pg.goto(server + "/?speed=0&review=iterations:5")
    pg.wait_for_selector("#final-review-summary:has-text('Review ready')", timeout=120_000)
    pg.click("#final-review-summary [data-review-game]")
    pg.select_option("#review-filter", "all")
    line = pg.locator(f"#review-list [data-decision='{index}']")
    assert paid in line.inner_text(), line.inner_text()
    line.click()
    played = pg.locator("#review-detail dl.cmp dd").first.inner_text()
    assert paid in played, played

    # the same game's record uploaded: its start position's piles and its payments
    saved = json.loads(pg.evaluate("localStorage.getItem('bigsur.game')"))
    record = api_get(server, f"/v1/games/{saved['id']}/record",
                     next(iter(saved["tokens"].values())))
    record["actions"] = record["actions"][:index + 4]  # a shorter review
    review_upload(pg, server, "lobos.json", record)
    pg.select_option("#review-filter", "all")
    theirs = ("borrow the top of Player 2 (easy)'s discard pile (stone); "
              "recycle the top of their discard pile (timber); discard H24 (steel)")
    line = pg.locator(f"#review-list [data-decision='{index}']")
    assert theirs in line.inner_text(), line.inner_text()
    assert not pg.js_errors, pg.js_errors


def test_the_log_grows_with_the_ai_moves_shown(server, page):  # noqa: F811
    """A QA pass (the AI's moves shown one at a time): while the status line said "AI 2
    builds H50 at the left end", the log already listed that AI's claim after it and the
    next AI's takes. The log lists a move once the table shows it: at each move shown its
    last entry is that move (the one marked as played now); Esc shows the rest at once,
    and at the end it lists every move of the game once, in order."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=300", seed=11)
    pg.evaluate("""() => {
      window.seen = [];
      new MutationObserver(() => {
        if (document.querySelector('#skip-btn').hidden) return;
        const items = [...document.querySelectorAll('#log li')];
        const now = document.querySelector('#log li.now');
        window.seen.push({caption: document.querySelector('#status-line').innerText,
                          last: items.length ? items[items.length - 1].dataset.index : null,
                          now: now ? now.dataset.index : null});
      }).observe(document.querySelector('#status'), {childList: true, subtree: true});
    }""")
    before = pg.locator("#log li").count()
    pg.keyboard.press("e")
    pg.wait_for_function("window.seen.filter((x) => x.now !== null).length >= 2")
    pg.keyboard.press("Escape")  # the rest at once
    settle(pg)
    moves = [x for x in pg.evaluate("window.seen") if x["now"] is not None]
    assert len(moves) >= 2, pg.evaluate("window.seen")
    assert all(x["last"] == x["now"] for x in moves), moves
    assert int(moves[0]["now"]) == before + 1  # (after the player's own end of the turn)

    saved = json.loads(pg.evaluate("localStorage.getItem('bigsur.game')"))
    log = api_get(server, f"/v1/games/{saved['id']}", next(iter(saved["tokens"].values())))["log"]
    shown = pg.locator("#log li").evaluate_all("(xs) => xs.map((x) => Number(x.dataset.index))")
    assert shown == [e["index"] for e in log], shown
    assert not pg.js_errors, pg.js_errors


def test_the_name_typed_at_the_setup_names_the_player(server, page):  # noqa: F811
    """A QA pass: "Quinn" typed as player 1's name (its field's placeholder is "You", the
    name it stands for) showed in the games list only; the log, the seats and the final
    scores said "You". The name typed names the player wherever the page names players
    (the log, the seat, the scores); the table still speaks to the player ("Your turn",
    "Your Highway"), and the record keeps "human" (docs/format.md: its names say who
    sat where, "human" or a bot spec)."""
    from test_web_page import fresh_page

    pg = page
    fresh_page(pg, server + "/?speed=0")
    pg.fill("#name-0", "Quinn")
    pg.select_option("#seat-1", "greedy")
    pg.click("#setup-advanced summary")
    pg.fill("#setup-seed", "9")
    pg.click("#setup-start")
    pg.wait_for_selector("#game:not([hidden])")
    settle(pg)
    assert "Your turn" in pg.locator("#status-line").inner_text()
    me = pg.locator("#seats .seat.me")
    assert me.get_attribute("aria-label") == "Quinn"
    assert me.locator("h2").inner_text().strip() == "Your Highway"
    pg.locator("#deck .cardbtn").click()
    settle(pg)
    assert pg.locator("#log li .who").last.inner_text() == "Quinn"

    play_out_by_api(server, pg)
    pg.reload()
    pg.wait_for_selector("#final:not([hidden])")
    heads = pg.locator("#final-body thead th").all_inner_texts()
    assert heads[1].rstrip(" \u2605") == "Quinn", heads
    assert "You" not in pg.locator("#log .who").all_inner_texts()
    assert not pg.js_errors, pg.js_errors


def test_the_log_names_the_cards_you_drew_from_the_deck(server, page):  # noqa: F811
    """"You take the top card of the deck" never said which card, though the player drew
    it and has it in hand: the log names it. The AI's deck takes stay bare."""
    pg = page
    seed = 4  # a deal where the player acts first: its draws are the deck's top two
    dealt = new_game(2, seed=seed)
    top_two = [dealt.cards.highway[c].id for c in dealt.deck[-2:][::-1]]
    to_the_first_build_step(pg, server, seed=seed)
    saved = json.loads(pg.evaluate("localStorage.getItem('bigsur.game')"))
    token = next(iter(saved["tokens"].values()))
    data = api_get(server, f"/v1/games/{saved['id']}", token)
    mine = [e for e in data["log"] if e["seat"] == data["seat"]][-2:]
    assert [e["action"] for e in mine] == ["take deck", "take deck"]
    drawn = [e["drawn"] for e in mine]
    assert set(drawn) <= set(data["view"]["seats"][data["seat"]]["hand"])
    assert dealt.current == data["seat"] and drawn == top_two
    lines = pg.locator("#log li").all_inner_texts()
    mine_lines = [ln for ln in lines if "the top card of the deck" in ln and "You" in ln]
    assert [ln.split(": ")[-1].strip() for ln in mine_lines[-2:]] == drawn, lines
    others = [e for e in data["log"] if e["seat"] != data["seat"] and e["action"] ==
              "take deck"]
    assert all(e["drawn"] is None for e in others)
    assert not pg.js_errors
