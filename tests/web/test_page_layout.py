"""The table's layout and a few page texts, as a player meets them (a QA pass), each
proved in a real browser against a real server (same setup as test_web_page.py: a real
uvicorn, Debian's Chromium through Playwright). Screenshots go to
``test-artifacts/web/``.
"""

from __future__ import annotations

import json
import urllib.request

import pytest
from test_page_qa import (
    ZOOM_OVER_PAYMENT,
    graph_colours_explained,
    review_upload,
    to_two_possible_claims,
)
from test_web_page import (  # noqa: F401 - fixtures
    ARTIFACTS,
    api_get,
    browser,
    click_payment,
    fresh_page,
    log_count,
    no_overflow,
    open_page,
    page,
    server,
    settle,
    shot,
    start_a_game_against_greedy,
    to_the_first_build_step,
)

from solver.cli import play_random_game


def play_by_api_to_round(base: str, pg, round_: int) -> dict:
    """The page's game played on through the API up to the start of the human's turn
    in round ``round_``: take the first card offered, build the first card that can be
    paid once a turn when the hand holds 5 cards or more (a road and a hand, as a person
    keeps them), end the turn. Returns the seat's last answer (the page is reloaded
    afterwards)."""
    saved = json.loads(pg.evaluate("localStorage.getItem('bigsur.game')"))
    token = next(iter(saved["tokens"].values()))
    for i in range(400):
        d = api_get(base, f"/v1/games/{saved['id']}", token)
        assert not d["over"]
        v = d["view"]
        if d["your_turn"] and v["phase"] == "take" and v["picks"] == 0 and \
                v["turn"] // len(v["seats"]) + 1 >= round_:
            return d
        legal = d["legal_actions"]
        built = d["log"][-1]["action"].startswith("build")
        action = next((a for a in legal if a.startswith("take")), None) or (
            next((a for a in legal if a.startswith("build")), None)
            if len(v["seats"][d["seat"]]["hand"]) >= 5 and not built else None) or "end"
        req = urllib.request.Request(
            f"{base}/v1/games/{saved['id']}/actions", method="POST",
            data=json.dumps({"action": action, "action_id": f"l{i}"}).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=60).close()
    raise AssertionError(f"round {round_} not reached")


def to_a_late_four_player_turn(base: str, pg) -> None:
    """A fresh page's 4-player game against three GreedyBots (seed 12345), played through
    the API to the start of the human's turn in round 6 of 7, the page reloaded there:
    the player has a road and a hand."""
    fresh_page(pg, base + "/?speed=0")
    pg.select_option("#setup-players", "4")
    for i in (1, 2, 3):
        pg.select_option(f"#seat-{i}", "greedy")
    pg.click("#setup-advanced summary")
    pg.fill("#setup-seed", "12345")
    pg.click("#setup-start")
    pg.wait_for_selector("#game:not([hidden])")
    settle(pg)
    d = play_by_api_to_round(base, pg, 6)
    me = d["view"]["seats"][d["seat"]]
    assert me["hand"] and me["highway"], me  # a hand to see and a road
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    settle(pg)
    assert "Your turn" in pg.locator("#status").inner_text()


def in_view(pg, selector: str) -> bool:
    """The element's whole box is inside the viewport as the page is scrolled now."""
    b = pg.locator(selector).first.bounding_box()
    vp = pg.viewport_size
    return b is not None and 0 <= b["y"] and b["y"] + b["height"] <= vp["height"] and \
        0 <= b["x"] and b["x"] + b["width"] <= vp["width"]


def test_four_players_at_1280x800_your_turn_starts_on_screen(server, browser):  # noqa: F811
    """A 4-player game at 1280x800, round 6 of 7: the table was about 1150 px tall, the
    other three Highways above the player's own, so the turn started with the hand below
    the fold (y about 930); scrolled down to build, the status line and the Depot were
    off the top. With 3 or 4 players the player's own Highway and hand come right under
    the Depot (the other Highways below them), and the status line stays at the top."""
    pg = open_page(browser, 1280, 800)
    try:
        to_a_late_four_player_turn(server, pg)
        assert pg.evaluate("window.scrollY") == 0
        # the table is taller than the screen: the other Highways need the scrolling
        height = pg.evaluate("document.documentElement.scrollHeight")
        assert height > 800, height
        shot(pg, "layout-01-four-players-turn-start")
        for sel in ("#status", "#depot", "#hand .cardbtn", "#seats .seat.me"):
            assert in_view(pg, sel), (sel, pg.locator(sel).first.bounding_box())
        # your Highway and hand come before the other players' Highways
        mine = pg.locator("#hand").bounding_box()
        for box in pg.locator("#seats .seat:not(.me)").all():
            assert box.bounding_box()["y"] > mine["y"] + mine["height"]
        # the other Highways use the room beside them: their cards were drawn at half size
        # (50 px wide, too small to read) with most of the row empty; now as large as the
        # row allows, up to 3/4 (75 px)
        roads = pg.eval_on_selector_all("#seats .seat:not(.me) .hwwrap", """(ws) => ws.map((w) => {
          const svg = w.querySelector('svg.highway');
          const cards = svg.querySelectorAll(':scope > svg.card').length;
          return {room: w.clientWidth, width: svg.getBoundingClientRect().width,
                  card: svg.getBoundingClientRect().width / (cards * 106 - 2) * 100};
        })""")
        assert len(roads) == 3, roads
        for road in roads:
            assert road["card"] >= 70 or road["width"] >= 0.9 * road["room"], road
        no_overflow(pg)
        # scrolled to the bottom (the other Highways), the status line is still on top
        pg.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        pg.wait_for_function("window.scrollY > 0")
        assert in_view(pg, "#status"), pg.locator("#status").bounding_box()
        assert in_view(pg, "#seats .seat:not(.me) >> nth=-1")
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


@pytest.mark.parametrize("players", [3, 4])
def test_review_graph_even_line_is_one_in_the_number_of_players(server, page, players):  # noqa: F811
    """The review graph drew its dashed "even" line at 50% whatever the number of
    players; an even chance is 1 in the number of players: 33% with 3 (a line of its
    own, labelled on the axis), 25% with 4 (on the 25% grid line). The grid stays."""
    pg = page
    review_upload(pg, server, f"random-{players}p.json",
                  play_random_game(players, seed=6).to_json())
    svg = "#review-graph svg"
    pg.locator("#review-graph").screenshot(path=str(ARTIFACTS / f"layout-02-graph-{players}p.png"))
    grid = pg.eval_on_selector(svg, """(s) => Object.fromEntries([...s.querySelectorAll('text')]
      .filter((t) => /^[0-9]+%$/.test(t.textContent))
      .map((t) => [t.textContent, Number(t.getAttribute('y')) - 4]))""")
    assert set(grid) >= {"0%", "25%", "50%", "75%", "100%"}, grid
    evens = pg.eval_on_selector_all(f"{svg} line.even", "(ls) => ls.map((l) => "
                                    "[Number(l.getAttribute('y1')), l.getAttribute('y2'), "
                                    "l.getAttribute('stroke-dasharray')])")
    assert len(evens) == 1, evens
    y, y2, dash = evens[0]
    assert float(y2) == y and dash
    share = (grid["0%"] - y) / (grid["0%"] - grid["100%"])
    assert abs(share - 1 / players) < 1e-6, share
    if players == 3:
        assert abs(grid["33%"] - y) < 1e-6, grid
    else:
        assert "33%" not in grid and abs(grid["25%"] - y) < 1e-6, grid
    # no other dashed line (the old one at 50%)
    assert pg.locator(f"{svg} line[stroke-dasharray]").count() == 1
    assert "1 in the number of players" in pg.locator("#review figcaption").inner_text()
    graph_colours_explained(pg)  # (Player 4's orange ring: not a mistake's dot)
    assert not pg.js_errors, pg.js_errors


def test_an_empty_hand_in_the_build_step_is_said_once(server, page):  # noqa: F811
    """With every card of the hand built, the hand's panel said "Your hand is empty:
    nothing left to build." and, in the hand's row, "Empty.". It says it once, and the
    action bar says what is left to do."""
    pg = page
    to_two_possible_claims(pg, server)  # the build step, the hand empty
    assert pg.evaluate("window.bigsur.state.data.view.phase") == "build"
    assert pg.evaluate("window.bigsur.state.data.view.seats[0].hand") == []
    area = pg.locator("#myarea").inner_text()
    assert area.lower().count("empty") == 1, area
    assert pg.locator("#handinfo").inner_text() == "Your hand is empty.", area
    assert pg.locator("#hand").inner_text().strip() == "", area
    bar = pg.locator("#actionbar").inner_text()
    assert "Nothing to build: claim a Landmark or end your turn." in bar, bar
    # out of the build step (the AI's turn, then the take step) the row still says it
    pg.locator("#actionbar .endbtn").click()
    settle(pg)
    assert pg.evaluate("window.bigsur.state.data.view.phase") == "take"
    assert pg.locator("#handinfo").inner_text() == ""
    assert pg.locator("#hand").inner_text().strip() == "Empty."
    assert not pg.js_errors, pg.js_errors


def test_four_players_at_1280x800_an_ai_build_is_shown_on_screen(server, browser):  # noqa: F811
    """A 4-player game at 1280x800: the other Highways are below the player's own hand,
    so the card AI 4 built (highlighted while its turn is shown) was below the fold. A
    build brings its Highway into view while the AIs play, and the page is back where
    the player had it (the top: the Depot, the own Highway and hand) when their turn
    comes."""
    import time

    pg = open_page(browser, 1280, 800)
    try:
        to_a_late_four_player_turn(server, pg)
        pg.select_option("#ai-speed", "900")  # each AI action shown for 0.9 s
        for _ in range(2):
            pg.locator("#deck .cardbtn").click()
            settle(pg)
        pg.locator("#actionbar .endbtn").click()
        shown = {}  # each build's caption: whether its highlighted card was on screen
        deadline = time.monotonic() + 60
        while "Your turn" not in (status := pg.locator("#status").inner_text()):
            assert time.monotonic() < deadline, status
            # the caption and its card read at once: the page moves on between two reads
            # (a card read after the next action's render is a detached node, no box)
            seen = pg.evaluate("""() => {
                const card = document.querySelector('#seats svg.card.hl');
                if (!card) return null;
                const b = card.getBoundingClientRect();
                return [document.querySelector('#status').innerText.split('\\n')[0],
                        b.top >= 0 && b.left >= 0 && b.bottom <= innerHeight &&
                        b.right <= innerWidth];
            }""")
            if seen:
                shown[seen[0]] = seen[1]
                if "AI 4" in seen[0]:
                    shot(pg, "layout-03-four-players-ai-build-in-view")
            time.sleep(0.1)
        assert "AI 4 (easy) builds H21 at the right end" in shown, shown  # (below the fold)
        assert all(shown.values()), shown
        settle(pg)
        assert pg.evaluate("window.scrollY") == 0
        for sel in ("#status", "#depot", "#hand .cardbtn", "#seats .seat.me"):
            assert in_view(pg, sel), (sel, pg.locator(sel).first.bounding_box())
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


def test_a_card_selected_for_building_brings_its_payment_box_into_view(server, browser):  # noqa: F811
    """At 1280x800, a 2-player game's first build step: a hand card clicked opened its
    payment box at the foot of the screen, "Pay with:" on its bottom edge and "Build with
    this payment" below the fold, so every click-to-pay build needed a scroll. A card
    selected (clicked, or ] from the keyboard) brings the box into view; the page stays
    where it is when the box is in view already, and the focus stays on the card."""
    pg = open_page(browser, 1280, 800)
    try:
        # (a deal whose box reaches below the fold; the server's fits, just)
        start_a_game_against_greedy(pg, server + "/?speed=0", seed=8)
        for _ in range(2):
            settle(pg)
            pg.locator("#deck .cardbtn").click()
        settle(pg)
        assert pg.evaluate("window.scrollY") == 0
        hand = pg.locator("#hand .cardbtn")
        first, second = (hand.nth(k).get_attribute("data-select") for k in (0, 1))
        selected = "document.activeElement.dataset.select"
        hand.nth(0).click()
        pg.wait_for_selector(f"#paybox:not([hidden]):has-text('Pay for {first}')")
        shot(pg, "layout-06-payment-box-in-view")
        for sel in ("#paybox", "#paybox [data-paybuild]", f"#hand [data-select='{first}']"):
            assert in_view(pg, sel), (sel, pg.locator(sel).first.bounding_box())
        assert pg.evaluate(selected) == first
        assert pg.evaluate("window.scrollY") > 0  # (the box was below the fold)
        # the box of each card in view once: selected again, the page does not move
        hand.nth(1).click()
        pg.wait_for_selector(f"#paybox:has-text('Pay for {second}')")
        assert pg.evaluate(selected) == second
        scrolled = pg.evaluate("window.scrollY")
        for card in (first, second):
            pg.locator(f"#hand [data-select='{card}']").click()
            pg.wait_for_selector(f"#paybox:has-text('Pay for {card}')")
            assert pg.evaluate("window.scrollY") == scrolled, card
        # from the keyboard, the page at the top: ] selects the next card, box in view
        pg.evaluate("window.scrollTo(0, 0)")
        pg.wait_for_function("window.scrollY === 0")
        pg.keyboard.press("]")
        third = hand.nth(2).get_attribute("data-select")
        pg.wait_for_function(f"document.activeElement.dataset.select === '{third}'")
        for sel in ("#paybox", "#paybox [data-paybuild]", f"#hand [data-select='{third}']"):
            assert in_view(pg, sel), (sel, pg.locator(sel).first.bounding_box())
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


# what the enlarged card covers of the table: the seats' headers, the ends of the
# player's own Highway and the card focused (null when no enlarged card is shown)
ZOOM_OVER_THE_TABLE = """() => {
  const z = document.querySelector('#zoom');
  if (!z || z.hidden) return null;
  const r = z.getBoundingClientRect();
  const over = (el) => { const b = el.getBoundingClientRect(); return b.width && b.height &&
    r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom; };
  const road = [...document.querySelectorAll('#seats .seat.me svg.highway > svg.card')];
  const named = [...document.querySelectorAll('#seats .seat-head')]
    .map((el) => [el.innerText.split('\\n')[0], el]);
  if (road.length) named.push(['the left end', road[0]], ['the right end', road[road.length - 1]]);
  named.push(['the focused card', document.activeElement]);
  return named.filter(([, el]) => over(el)).map(([name]) => name);
}"""


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)])
def test_the_card_enlarged_for_the_keyboard_leaves_the_table_free(server, browser, size):  # noqa: F811
    """A hand card selected with ] showed its enlarged card beside it, right over the
    player's own Highway's right end; after U (undo) it covered the AI's "hand \u00b7
    discard" counts. Shown for keyboard focus, the enlarged card leaves free the seats'
    headers, the ends of the player's own Highway, the card itself and the payment
    controls."""
    pg = open_page(browser, *size)
    try:
        start_a_game_against_greedy(pg, server + "/?speed=0", seed=3)  # (a payable card at round 6)
        settle(pg)
        pg.locator("#deck .cardbtn").click()  # (a move in the log: play_by_api_to_round)
        settle(pg)
        play_by_api_to_round(server, pg, 6)
        pg.reload()
        pg.wait_for_selector("body[data-ready='1']")
        for _ in range(2):
            settle(pg)
            pg.locator("#deck .cardbtn").click()
        settle(pg)
        assert pg.locator("#seats .seat.me svg.highway > svg.card").count() >= 2
        own_hand = "(({view: v}) => v.seats[v.view_of].hand)(window.bigsur.state.data)"
        hand = pg.evaluate(own_hand)
        payable = pg.evaluate("Object.keys(window.bigsur.state.data.payments || {})")
        assert payable, hand  # (a card to build, then take back)
        for k, card in enumerate(hand):
            pg.keyboard.press("]")
            pg.wait_for_function(f"document.activeElement.dataset.select === '{card}'")
            pg.wait_for_selector("#zoom:not([hidden])")
            if k == 0:
                shot(pg, f"layout-07-keyboard-zoom-{size[0]}")
            zoom = pg.locator("#zoom").bounding_box()
            assert pg.evaluate(ZOOM_OVER_THE_TABLE) == [], (card, zoom)
            assert pg.evaluate(ZOOM_OVER_PAYMENT) == [], card
        # a card built (L) and taken back (U): the enlarged card of the card back in hand
        while pg.evaluate("window.bigsur.state.selected") != payable[0]:
            pg.keyboard.press("]")
        pg.keyboard.press("l")
        settle(pg)
        assert payable[0] not in pg.evaluate(own_hand)
        pg.keyboard.press("u")
        settle(pg)
        pg.wait_for_function(f"document.activeElement.dataset.select === '{payable[0]}'")
        pg.wait_for_selector("#zoom:not([hidden])")
        shot(pg, f"layout-08-keyboard-zoom-after-undo-{size[0]}")
        assert pg.evaluate(ZOOM_OVER_THE_TABLE) == [], pg.locator("#zoom").bounding_box()
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


@pytest.mark.parametrize("width", [1366, 1400])
def test_the_review_graph_uses_the_width_of_its_row(server, browser, width):  # noqa: F811
    """At 1366-1400 px the review graph was the 860 px drawing scaled to at most 980 px,
    a quarter of its row left empty (some 330 px). It is drawn at its row's width, 1 px a
    px (its text as large as it is drawn, 12 px), and its texts do not overlap."""
    from test_page_phone import GRAPH_TEXT

    pg = open_page(browser, width, 900)
    try:
        review_upload(pg, server, f"wide-{width}.json", play_random_game(2, seed=5).to_json())
        pg.locator("#review-graph").screenshot(path=str(ARTIFACTS / f"layout-05-graph-{width}.png"))
        row = pg.eval_on_selector("#review-graph", "(b) => b.clientWidth")
        drawn = pg.locator("#review-graph svg").bounding_box()["width"]
        assert row - 2 <= drawn <= row, (row, drawn)
        texts = pg.eval_on_selector("#review-graph svg", GRAPH_TEXT)
        assert all(abs(t["px"] - 12) < 0.1 for t in texts), {t["px"] for t in texts}
        for k, a in enumerate(texts):
            for b in texts[k + 1:]:
                assert (a["right"] <= b["left"] + 0.5 or b["right"] <= a["left"] + 0.5
                        or a["bottom"] <= b["top"] + 0.5 or b["bottom"] <= a["top"] + 0.5), (a, b)
        no_overflow(pg)
        assert not pg.js_errors, pg.js_errors
    finally:
        pg.context.close()


FOCUS_IN_PAYBOX = "!!document.activeElement.closest('#paybox')"


def test_a_wrong_payment_is_refused_in_the_payment_panel(server, page):  # noqa: F811
    """A QA pass (keyboard, 1366x768): a hand card whose Material the cost does not need,
    clicked with the cheapest payment, showed "(H66 does not need stone)" but "Paid in
    full.", and Build sent it: the server refused, its words in the alert at the top of
    the page (off the screen), and the focus went to a hand card, whose enlarged view
    covered the hint panel. The panel says the payment is wrong and does not send it;
    a refusal of the server's is said in the panel, on the screen, the focus left on
    its Build button."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=0", seed=1)
    data = pg.evaluate("window.bigsur.state.data")
    cards = pg.evaluate("window.bigsur.state.cards.highway")
    hand = data["view"]["seats"][data["view"]["view_of"]]["hand"]
    card, spare = next(
        (c, s) for c in hand if c in data["payments"] for s in hand
        if s != c and cards[s]["material"] not in cards[c]["cost"]
        and s not in " ".join(data["payments"][c]["steps"]))
    steps = data["payments"][card]["steps"]
    sent = []
    pg.on("request", lambda r: sent.append(r.post_data) if "/actions" in r.url else None)
    pg.click(f"#hand .cardbtn[data-select='{card}']")
    pg.wait_for_selector("#paybox:not([hidden]) .paychip")
    pg.click(f"#paybox [data-paystep='{spare}']")
    click_payment(pg, steps)
    need = pg.locator("#pay-need").inner_text()
    material = cards[spare]["material"]
    assert "Paid in full" not in need and f"{card} does not need {material}" in need, need
    pg.focus("#paybox [data-paybuild]")
    pg.keyboard.press("Enter")
    refusal = pg.locator("#pay-refusal")
    refusal.wait_for()
    assert f"{card} does not need {material}" in refusal.inner_text()
    assert in_view(pg, "#pay-refusal") and pg.evaluate(FOCUS_IN_PAYBOX)
    assert sent == [], sent
    shot(pg, "layout-07-payment-not-needed")

    # the payment made right, and refused by the server all the same (the request given
    # the spare card back on its way): the server's words in the panel, the focus there
    pg.click("#paybox .paysteps [data-payundo='0']")
    assert "Paid in full" in pg.locator("#pay-need").inner_text()
    assert not pg.locator("#pay-refusal").count()  # said of the payment as it was

    def with_the_spare_card(route):
        body = json.loads(route.request.post_data)
        body["action"] = body["action"].replace(" pay ", f" pay {spare} ")
        route.continue_(post_data=json.dumps(body))

    pg.route("**/v1/games/*/actions", with_the_spare_card)
    n = log_count(pg)
    pg.focus("#paybox [data-paybuild]")
    pg.keyboard.press("Enter")
    refusal.wait_for()
    settle(pg)
    assert "Not allowed" in refusal.inner_text(), refusal.inner_text()
    assert in_view(pg, "#pay-refusal") and pg.evaluate(FOCUS_IN_PAYBOX)
    assert pg.evaluate("document.activeElement.dataset.paybuild"), "the Build button"
    assert pg.locator("#zoom").is_hidden()
    assert log_count(pg) == n and len(sent) == 1, sent
    shot(pg, "layout-08-payment-refused")
    pg.unroute("**/v1/games/*/actions")
    assert not [e for e in pg.js_errors if "status of 422" not in e], pg.js_errors
