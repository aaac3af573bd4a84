"""Problems found by using the page as a player would (QA pass), each proved here in a
real browser against a real server (same setup as test_web_page.py: a real uvicorn,
Debian's Chromium through Playwright). Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

import json

from rules_testkit import random_mid_game
from test_continue_and_upload import editor_link, upload
from test_web_page import (  # noqa: F401
    ARTIFACTS,
    browser,
    finish_a_game_against_greedy,
    fresh_page,
    log_count,
    page,
    server,
    settle,
    shot,
    start_a_game_against_greedy,
    to_the_first_build_step,
)

from solver.cli import play_random_game
from solver.rules.position import state_to_json


def continue_position(pg, base: str, state: dict, seat: int, seed: int = 0) -> None:
    """A full state continued as a game against GreedyBot through the position editor,
    from the seat's view. The page asks for no seed, so the server would draw the other
    seats' hidden cards (and seed the bots) with a fresh one; the request is given
    ``seed``, so that every run of a test plays the same cards."""
    pg.goto(base + "/?speed=0")
    pg.wait_for_selector("body[data-ready='1']")
    pg.evaluate("localStorage.clear()")
    link = editor_link(pg, state, seat)
    pg.goto("about:blank")
    pg.goto(f"{base}/?speed=0#position={link}")
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    pg.select_option("#pe-ai", "greedy")

    def seeded(route):
        if route.request.method != "POST":
            return route.continue_()
        body = route.request.post_data_json
        assert "seed" not in body, body  # (the page chose one: this helper is not needed)
        return route.continue_(post_data=json.dumps({**body, "seed": seed}))

    pg.route("**/v1/games", seeded)
    pg.click("#pe-continue")
    pg.wait_for_selector("#game:not([hidden])", timeout=60_000)
    pg.unroute("**/v1/games", seeded)
    settle(pg)


def rocky_creek_position() -> dict:
    """Seat 0 to act (take step), its Highway H02 + H12 (a Mountain Stretch) with Rocky
    Creek Bridge (L12: one extra use of a Persistent Material a turn) above H12, whose
    Persistent Material is engineering; in hand H14, which costs engineering twice."""
    st = state_to_json(random_mid_game(2, seed=8, actions=30))
    me = st["seats"][0]
    assert me["highway"] == ["H41", "H35", "H02"] and me["hand"] == ["H62"]
    for wanted, given in (("H12", "H41"), ("H14", "H35")):
        st["deck"][st["deck"].index(wanted)] = given
    me["highway"] = ["H02", "H12"]
    me["hand"] = ["H14", "H62"]
    row = st["landmark_row"]
    row[row.index("L12")] = st["landmark_deck"].pop(0)
    me["landmarks"] = [{"landmark": "L12", "card": "H12"}]
    st["current"] = st["first_player"] = 0
    return st


def open_payment(pg, card: str) -> None:
    """The hand card selected in a build step, its payment box open."""
    pg.click(f"#hand .cardbtn[data-select='{card}']")
    pg.wait_for_selector("#paybox:not([hidden]) .paychip")


def test_persistent_extra_use_by_clicking(server, page):  # noqa: F811
    """A Landmark that allows one extra use of a Persistent Material a turn (Limekiln,
    Rocky Creek Bridge, Esalen): clicking the Persistent Material a second time adds the
    second use (it took the first one away again, so the cheapest payment the server
    suggests, per:H12 twice, could not be clicked)."""
    pg = page
    continue_position(pg, server, rocky_creek_position(), 0)
    for _ in range(2):
        pg.locator("#deck .cardbtn").click()
        settle(pg)
    open_payment(pg, "H14")
    assert pg.evaluate("window.bigsur.state.data.payments.H14.steps") == ["per:H12", "per:H12"]
    pg.click("#paybox [data-paystep='per:H12']")
    pg.click("#paybox [data-paystep='per:H12']")
    assert "Paid in full" in pg.locator("#pay-need").inner_text()
    assert pg.locator("#paybox .paysteps li").count() == 2
    assert "2 uses" in pg.locator("#paybox [data-paystep='per:H12']").inner_text()
    shot(pg, "qa-01-persistent-extra-use")
    # a third click: no third use is allowed, so the uses are taken away (a toggle)
    pg.click("#paybox [data-paystep='per:H12']")
    assert pg.locator("#paybox .paysteps li").count() == 0
    pg.click("#paybox [data-paystep='per:H12']")
    pg.click("#paybox [data-paystep='per:H12']")
    n = log_count(pg)
    pg.locator("#paybox [data-paybuild]").last.click()
    settle(pg)
    assert not pg.locator("#alert").is_visible(), pg.locator("#alert").inner_text()
    assert log_count(pg) == n + 1
    assert "H14" in pg.evaluate("window.bigsur.state.data.view.seats[0].highway")
    # the rule as a pure function: one extra use in all, shared by the cards
    fits = pg.evaluate("""async () => {
      const p = await import('/js/pay.js');
      return [p.persistentUseFits('A', [], {}, 0), p.persistentUseFits('A', ['per:A'], {}, 0),
              p.persistentUseFits('A', ['per:A'], {}, 1), p.persistentUseFits('A', [], {A: 1}, 1),
              p.persistentUseFits('B', ['per:A', 'per:A', 'per:B'], {}, 1)];
    }""")
    assert fits == [True, False, True, True, False]
    assert not pg.js_errors, pg.js_errors


def test_a_key_pressed_again_too_soon_is_told_until_the_action_lands(server, page):  # noqa: F811
    """Pressing 1 three times quickly: the second and third were refused with "Wait: the
    previous action is still on its way to the server.", which stayed on the screen after
    the first had gone through. It is said while the action is on its way and taken
    away once it lands."""
    pg = page
    start_a_game_against_greedy(pg, server + "/?speed=0")
    settle(pg)
    n = log_count(pg)
    said = pg.evaluate("""() => {
      for (let k = 0; k < 3; k++) {
        document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '1', bubbles: true}));
      }
      return document.querySelector('#alert-text').textContent;  // (before it lands)
    }""")
    assert said == "Wait: the previous action is still on its way to the server.", said
    settle(pg)
    assert log_count(pg) == n + 1  # the first press only
    assert pg.locator("#alert").is_hidden(), pg.locator("#alert").inner_text()
    assert not pg.js_errors, pg.js_errors


def test_speed_in_the_address_in_the_menus_words(server, page):  # noqa: F811
    """?speed=fast left the "AI speed" menu blank (it took milliseconds only, ?speed=120):
    the menu's own words are taken as well, in any case, and an unknown value is
    ignored (the menu keeps its choice)."""
    pg = page
    fresh_page(pg, server + "/")
    for given, chosen in (("fast", "120"), ("Instant", "0"), ("900", "900"), ("warp", "450"),
                          ("", "450")):
        pg.goto(f"{server}/?speed={given}")
        pg.wait_for_selector("body[data-ready='1']")
        speed = pg.locator("#ai-speed")
        assert speed.input_value() == chosen, given
        assert pg.eval_on_selector("#ai-speed", "(s) => s.selectedIndex") >= 0, given
    assert not pg.js_errors, pg.js_errors


ZOOM_OVER_PAYMENT = """() => {
  const z = document.querySelector('#zoom');
  if (!z || z.hidden) return [];
  const r = z.getBoundingClientRect();
  const over = (b) => b.width && b.height && r.left < b.right && b.left < r.right &&
    r.top < b.bottom && b.top < r.bottom;
  return [...document.querySelectorAll('#paybox button, #pay-need, #actionbar button')]
    .filter((el) => over(el.getBoundingClientRect()))
    .map((el) => el.id || el.textContent.trim().slice(0, 40));
}"""


def test_the_enlarged_card_leaves_the_payment_controls_free(server, page):  # noqa: F811
    """On a laptop, a hand card clicked opened the enlarged card (shown on hovering a
    card) right over the payment box's "Still need" line and its Build buttons, until
    the mouse moved away. The enlarged card is placed clear of the action bar and the
    payment box."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=0")
    hand = pg.locator("#hand .cardbtn")
    for k in range(min(2, hand.count())):
        card = hand.nth(k)
        box = card.bounding_box()
        pg.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        pg.wait_for_selector("#zoom:not([hidden])")
        card.click()
        pg.wait_for_selector("#paybox:not([hidden]) #pay-need")
        # hovered again (the click may have scrolled the page): shown, beside the controls
        pg.mouse.move(5, 5)
        pg.wait_for_selector("#zoom", state="hidden")
        box = hand.nth(k).bounding_box()
        pg.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        pg.wait_for_selector("#zoom:not([hidden])", timeout=5_000)
        if k == 0:
            shot(pg, "qa-10-enlarged-card-and-payment")
        assert pg.evaluate(ZOOM_OVER_PAYMENT) == [], k
    assert not pg.js_errors, pg.js_errors


def test_turning_point_says_an_inaccuracy(server, page):  # noqa: F811
    """A labelled decision among the turning points read "(a inaccuracy: ...)"."""
    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    texts = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const dc = (index, label) => ({index, seat: 0, played: 'take deck', best: ['take H01'],
        value_before: {win_probability: 0.5, expected_margin: 0}, label,
        loss_win_pct: 6, loss_points: 3.0});
      const res = {players: [{seat: 0}, {seat: 1}],
        decisions: [dc(0, 'inaccuracy'), dc(1, 'mistake')]};
      const ctx = {me: 0, seatName: (i) => (i === 0 ? 'You' : 'AI 2'),
        cards: {highway: {H01: {}}, landmarks: {}}};
      return w.turningPoints(res, ctx).map((x) => x.text);
    }""")
    assert any("(an inaccuracy: " in t for t in texts), texts
    assert any("(a mistake: " in t for t in texts), texts
    assert not any("a inaccuracy" in t for t in texts), texts


def test_scoring_items_in_words(server, page):  # noqa: F811
    """The final scores' "Every scoring item" listed the effects' keys: "H27:
    landmark_collection", "L13: scenery_points", "5 Landmark(s)". They are said in words:
    the card's text (as the cards say their bonus and ability), else the effect in
    words (a set without texts), and "5 Landmarks held"."""
    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    out = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const cards = window.bigsur.state.cards;
      const bare = {highway: {H27: {...cards.highway.H27, text: undefined}},
                    landmarks: {L13: {...cards.landmarks.L13, text: undefined}}};
      const items = [
        {category: 'stretches', points: 8, what: 'ocean Stretch', cards: ['H01', 'H02']},
        {category: 'bonuses', points: 6, what: 'H27: landmark_collection'},
        {category: 'landmark_count', points: 8, what: '5 Landmark(s)'},
        {category: 'landmark_count', points: 3, what: '1 Landmark(s)'},
        {category: 'landmark_abilities', points: 4, what: 'L13: scenery_points'}];
      return {words: items.map((x) => w.scoringItemWords(x, cards)),
              bare: items.map((x) => w.scoringItemWords(x, bare)),
              effects: [{kind: 'scenery_points', scenery: 'field', points: 1},
                        {kind: 'landmark_collection', points: 2, sceneries: ['ocean', 'flower']},
                        {kind: 'mile_bonus', miles: 1}, {kind: 'borrow_discard', uses: 1},
                        {kind: 'brand_new_kind'}].map(w.effectWords),
              text: [cards.highway.H27.text, cards.landmarks.L13.name, cards.landmarks.L13.text]};
    }""")
    h27, l13_name, l13 = out["text"]
    assert out["words"] == ["ocean Stretch", f"H27's bonus: {h27.rstrip('.')}",
                            "5 Landmarks held", "1 Landmark held",
                            f"{l13_name} (L13): {l13.rstrip('.')}"], out["words"]
    # a set whose cards carry no text: the effect in words
    assert out["bare"][1] == "H27's bonus: 2 points per Landmark in your Highway", out["bare"]
    assert out["bare"][4] == f"{l13_name} (L13): 1 point per Flower icon in your Highway"
    for line in out["words"] + out["bare"]:
        assert "_" not in line and "(s)" not in line, line
    assert out["effects"] == [
        "1 point per Field icon in your Highway",
        "2 points per Ocean or Flower Landmark in your Highway",
        "the card below this Landmark counts 1 more mile",
        "once a turn, the top Material of another player's discard pile",
        "brand new kind"], out["effects"]
    assert not pg.js_errors, pg.js_errors


def review_upload(pg, base: str, name: str, record: dict) -> None:
    """The record uploaded to the Review tab, searched at 5 iterations a decision, and
    its review drawn."""
    pg.goto(base + "/?review=iterations:5")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-review")
    pg.wait_for_selector("#review:not([hidden]) #review-file")
    upload(pg, name, json.dumps(record))
    # the upload's own review drawn: a finished game's review, resumed by the page load,
    # may have its graph on screen already (a CI run read that game's list as the upload's)
    pg.wait_for_function("(n) => { const u = window.bigsur.state.upload;"
                         " return u && u.name === n && u.result &&"
                         " document.querySelector('#review-source').innerText.includes(n); }",
                         arg=name, timeout=120_000)
    pg.wait_for_selector("#review-graph svg polyline", timeout=120_000)


def test_uploaded_unfinished_record_says_it_has_no_scores(server, page):  # noqa: F811
    """A record of an unfinished game is reviewed: its Score column was left blank with
    no word why; the page says the record ends before the game does, and marks the
    scores as missing."""
    pg = page
    record = play_random_game(4, seed=11).to_json()
    record["actions"] = record["actions"][:12]
    record["names"] = ["mcts:0.1s", "greedy", "Zoe", "human"]
    review_upload(pg, server, "unfinished.json", record)
    summary = pg.locator("#review-summary").inner_text()
    assert "ends before the end of the game" in summary, summary
    # seats named by a bot spec are called by the game page's level words ("Player 2
    # (mcts:0.1s)" was "normal" on the game page); a record's person (the page's own
    # records say "human") is "a person"; other names as they are
    for name in ("Player 1 (normal)", "Player 2 (easy)", "Player 3 (Zoe)",
                 "Player 4 (a person)"):
        assert name in summary, summary
    scores = pg.locator("#review-summary tbody td:last-child").all_inner_texts()
    assert scores == ["\u2014"] * 4, scores
    shot(pg, "qa-03-unfinished-record", full=True)
    assert not pg.js_errors, pg.js_errors


def test_review_does_not_offer_the_played_move_as_better(server, page):  # noqa: F811
    """A decision where the search's best move is the move played said "Better: takes
    H33 from the Depot" under "Played: takes H33 from the Depot" (and a legend for a
    better move the table could not show apart); it says the move played was the best.
    With the list showing labelled decisions only, ← / → step through those."""
    pg = page
    record = play_random_game(2, seed=5).to_json()
    review_upload(pg, server, "best.json", record)
    decisions = pg.evaluate("window.bigsur.state.upload.result.decisions")
    same = next(d for d in decisions if d["best"] and d["best"][0] == d["played"])
    worse = next(d for d in decisions if d["best"] and d["best"][0] != d["played"])
    pg.click(f"#review-list [data-decision='{same['index']}']")
    pg.wait_for_selector("#review-detail .minitable svg.card")
    detail = pg.locator("#review-detail").inner_text()
    assert f"Move {same['index'] + 1}:" in detail, detail
    assert "Better" not in detail and "the better move" not in detail, detail
    assert "the move played was the search's best" in detail, detail
    shot(pg, "qa-04-played-was-best", full=True)
    pg.click(f"#review-list [data-decision='{worse['index']}']")
    pg.wait_for_function("(n) => document.querySelector('#review-detail').innerText"
                         ".includes('Move ' + n + ':')", arg=worse["index"] + 1)
    detail = pg.locator("#review-detail").inner_text()
    assert "Better" in detail and "the better move" in detail, detail

    # "labelled only": ← / → step through the decisions the list shows (→ went to the
    # next decision of the game, which the list does not show)
    labelled = [d["index"] for d in decisions if d["label"]]
    assert len(labelled) >= 3, labelled
    pg.select_option("#review-filter", "labelled")
    pg.click(f"#review-list [data-decision='{labelled[0]}']")

    def shown_after(key: str, index: int) -> None:
        pg.keyboard.press(key)
        pg.wait_for_function("(n) => document.querySelector('#review-detail').innerText"
                             ".includes('Move ' + n + ':')", arg=index + 1)
        listed = [int(x) for x in pg.eval_on_selector_all(
            "#review-list .decision", "(ds) => ds.map((d) => d.dataset.decision)")]
        assert listed == labelled, listed

    shown_after("ArrowRight", labelled[1])
    shown_after("ArrowRight", labelled[2])
    shown_after("ArrowLeft", labelled[1])
    assert not pg.js_errors, pg.js_errors


GRAPH_COLOURS = """(svg) => {
  const attr = (el, name) => (el ? el.getAttribute(name) : null);
  const keys = {label: {}, seat: {}};
  for (const k of svg.querySelectorAll('g.key[data-label]')) {
    keys.label[k.dataset.label] = attr(k.querySelector('.dot'), 'fill');
  }
  for (const k of svg.querySelectorAll('g.key[data-seat]')) {
    keys.seat[k.dataset.seat] = attr(k.querySelector('.ring'), 'stroke');
  }
  const marks = [...svg.querySelectorAll('g.mark')].map((m) => {
    const dot = m.querySelector('.dot'), ring = m.querySelector('.ring');
    return {label: m.dataset.label, seat: m.dataset.seat, fill: attr(dot, 'fill'),
            dotStroke: attr(dot, 'stroke'), dotR: Number(attr(dot, 'r')),
            ring: attr(ring, 'stroke'), ringR: Number(attr(ring, 'r')),
            ringWidth: Number(attr(ring, 'stroke-width')), ringFill: attr(ring, 'fill')};
  });
  return {keys, marks};
}"""


def graph_colours_explained(pg) -> None:
    """Every colour a mark of the review graph shows is one its legend explains: its dot
    the colour of its label's key, its ring the colour of its player's key; the ring thin
    and apart from the dot (a white gap), so that the dot's colour reads as it is."""
    out = pg.eval_on_selector("#review-graph svg", GRAPH_COLOURS)
    keys, marks = out["keys"], out["marks"]
    assert set(keys["label"]) == {"inaccuracy", "mistake", "blunder"}, keys
    assert marks
    for m in marks:
        assert m["fill"] and m["fill"] == keys["label"][m["label"]], (m, keys)
        assert m["ring"] and m["ring"] == keys["seat"].get(m["seat"]), (m, keys)
        assert m["dotStroke"] is None, m  # nothing of another colour on the dot
        assert m["ringFill"] == "#fff" and m["ringWidth"] <= 2, m
        assert m["ringR"] - m["ringWidth"] / 2 - m["dotR"] >= 1, m  # a gap between


def test_uploaded_review_graph_caption_names_no_you(server, page):  # noqa: F811
    """The graph's caption said the 2-player line is "yours" also for an uploaded record,
    whose line was Player 1's. Each player has a line now, its legend naming both. And
    its marks' colours: an orange mistake in a magenta ring (the other player's colour,
    which the legend did not explain) looked like the red blunder of the legend; each
    colour drawn is explained."""
    pg = page
    record = play_random_game(2, seed=6).to_json()
    review_upload(pg, server, "other.json", record)
    legend = pg.locator("#review-graph").inner_text()
    assert "Player 1 (random moves)" in legend and "Player 2 (random moves)" in legend, legend
    caption = pg.locator("#review figcaption").inner_text()
    assert "yours" not in caption and "one line a player" in caption, caption
    graph_colours_explained(pg)
    pg.locator("#review-graph").screenshot(path=str(ARTIFACTS / "qa-09-graph-colours-2p.png"))
    assert not pg.js_errors, pg.js_errors


def test_no_enabled_build_button_for_a_card_that_cannot_be_paid(server, page):  # noqa: F811
    """A selected hand card that cannot be paid for showed enabled Build buttons (in the
    action bar and under its payment) that could only be refused; they are disabled,
    and a click says why without asking the server."""
    pg = page
    for seed in range(1, 40):  # the first deal whose first build step has such a card
        fresh_page(pg, server + "/?speed=0")
        pg.click("#setup summary:has-text('Advanced')")
        pg.fill("#setup-seed", str(seed))
        pg.select_option("#seat-1", "greedy")
        pg.click("#setup-start")
        pg.wait_for_selector("#game:not([hidden])")
        for _ in range(2):  # both takes from the deck: the build step
            settle(pg)
            pg.locator("#deck .cardbtn").click()
        settle(pg)
        data = pg.evaluate("window.bigsur.state.data")
        hand = data["view"]["seats"][data["view"]["view_of"]]["hand"]
        unpayable = [c for c in hand if not any(a.startswith(f"build {c} ")
                                               for a in data["legal_actions"])]
        if unpayable and len(unpayable) < len(hand):
            break
    else:
        raise AssertionError("no deal with a payable and an unpayable card in hand")
    payable = next(c for c in hand if c not in unpayable)
    sent = []
    pg.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    pg.click(f"#hand .cardbtn[data-select='{unpayable[0]}']")
    settle(pg)
    for bar in ("#actionbar", "#paybox"):
        buttons = pg.locator(f"{bar} button[data-build], {bar} button[data-paybuild]")
        assert buttons.count() >= 1
        assert all(b.get_attribute("aria-disabled") == "true" for b in buttons.all()), bar
    pg.locator("#actionbar button[data-build]").first.click(force=True)  # (aria-disabled)
    pg.wait_for_selector(f"text=You cannot pay for {unpayable[0]} now")
    assert not [u for u in sent if "/actions" in u], sent
    pg.click(f"#hand .cardbtn[data-select='{payable}']")
    settle(pg)
    assert pg.locator("#actionbar button[data-build]").first.get_attribute("aria-disabled") is None
    assert not pg.js_errors, pg.js_errors


def swap_ids(obj, a: str, b: str):
    """A position (JSON) with the ids ``a`` and ``b`` swapped wherever they are."""
    if isinstance(obj, dict):
        return {k: swap_ids(v, a, b) for k, v in obj.items()}
    if isinstance(obj, list):
        return [swap_ids(v, a, b) for v in obj]
    return b if obj == a else a if obj == b else obj


def in_build_step(st: dict, taken: list[str]) -> dict:
    """Seat 0 to act in its build step, the cards ``taken`` from the deck into its hand."""
    for c in taken:
        st["deck"].remove(c)
    st["seats"][0]["hand"] += taken
    st["phase"], st["picks"] = "build", 2
    st["current"] = st["first_player"] = 0
    return st


def ragged_point_position() -> dict:
    """Seat 0 in its build step with Ragged Point (L09: once a turn, a Persistent
    Material of another player's Highway) above H02 of its Mountain Stretch H12 + H02;
    in hand H14 (engineering twice: its own H12 and AI 2's H05 pay it, nothing else),
    H04 (water + engineering) and H62 (engineering)."""
    st = state_to_json(random_mid_game(2, seed=8, actions=30))
    for a, b in (("H35", "H12"), ("H66", "H05"), ("H62", "H14")):
        st = swap_ids(st, a, b)
    me, other = st["seats"]
    assert me["highway"] == ["H41", "H12", "H02"] and other["highway"] == ["H19", "H06", "H05"]
    st["landmark_deck"].remove("L09")
    me["landmarks"] = [{"landmark": "L09", "card": "H02"}]
    return in_build_step(st, ["H04", "H62"])


def point_lobos_position() -> dict:
    """Seat 0 in its build step with Point Lobos (L14: once a turn, the top Material of
    another player's discard pile) above H06 of its Flower Stretch H19 + H06; AI 2's
    discard top is stone (H46); in hand H05 (stone + water), H24 and H56."""
    st = state_to_json(random_mid_game(2, seed=8, actions=30))
    st["seats"].reverse()
    st = swap_ids(swap_ids(st, "L16", "L14"), "H49", "H05")
    assert st["seats"][1]["discard"][-1] == "H46"
    return in_build_step(st, ["H24", "H56"])


def pay_by_clicks_and_build(pg, steps: list[str], side: str = "R") -> None:
    for s in steps:
        pg.click(f"#paybox [data-paystep='{s}']")
    assert "Paid in full" in pg.locator("#pay-need").inner_text()
    pg.locator(f"#paybox [data-paybuild='{side}']").click()
    settle(pg)
    assert not pg.locator("#alert").is_visible(), pg.locator("#alert").inner_text()


def test_borrowing_from_another_highway_once_a_turn(server, page):  # noqa: F811
    """Ragged Point (borrow_highway): AI 2's Persistent Material is clicked into the
    payment, sent, and accepted. The ability is once a turn: a second borrow in the same
    payment, or one after the ability was used this turn, was accepted by the page and
    could only be refused by the server (the button did not say it was used); the page
    now says why in words, sends nothing, and marks the buttons used."""
    pg = page
    continue_position(pg, server, ragged_point_position(), 0)
    assert pg.evaluate("window.bigsur.state.data.payments.H14.steps") == ["per:H12", "bh:1:H05"]
    open_payment(pg, "H14")
    borrow = pg.locator("#paybox [data-paystep='bh:1:H05']")
    assert "Borrow" in borrow.inner_text() and "H05" in borrow.inner_text()
    sent = []
    pg.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    pg.click("#paybox [data-paystep='bh:1:H05']")
    pg.click("#paybox [data-paystep='bh:1:H06']")  # a second borrow: once a turn
    alert = pg.locator("#alert")
    alert.wait_for(state="visible")
    assert "once a turn" in alert.inner_text(), alert.inner_text()
    assert pg.locator("#paybox .paysteps li").count() == 1
    pg.click("#alert-close")
    n = log_count(pg)
    pay_by_clicks_and_build(pg, ["per:H12"])
    assert log_count(pg) == n + 1
    last = pg.locator("#log li").last.inner_text()
    assert "borrow the Persistent engineering of H05 from AI 2 (easy)'s Highway" in last, last
    assert pg.evaluate("window.bigsur.state.data.view.per_turn.resources_used") == \
        {"borrow_highway": 1}
    # used this turn: the buttons say so, and a click is refused in words, not sent
    open_payment(pg, "H04")
    for b in pg.locator("#paybox [data-paystep^='bh:']").all():
        assert "(used)" in b.inner_text() and b.get_attribute("aria-disabled") == "true"
    shot(pg, "qa-06-borrow-highway-used")
    posts = len(sent)
    pg.locator("#paybox [data-paystep='bh:1:H19']").click(force=True)
    alert.wait_for(state="visible")
    assert "Ragged Point" in alert.inner_text() and "this turn" in alert.inner_text()
    assert pg.locator("#paybox .paysteps li").count() == 0 and len(sent) == posts
    pay_by_clicks_and_build(pg, ["per:H02", "H62"])
    assert "H04" in pg.evaluate("window.bigsur.state.data.view.seats[0].highway")
    left = pg.evaluate("""async () => {
      const p = await import('/js/pay.js');
      const h = 'borrow_highway';
      return [p.borrowsLeft(h, [], 0, 1), p.borrowsLeft(h, ['bh:1:H05'], 0, 1),
              p.borrowsLeft(h, ['bd:1'], 0, 1), p.borrowsLeft('borrow_discard', [], 1, 1),
              p.borrowsLeft(h, ['bh:1:H05'], 0, 2)];
    }""")
    assert left == [1, 0, 1, 0, 1]
    assert not pg.js_errors, pg.js_errors


def test_borrowing_from_another_discard_pile_once_a_turn(server, page):  # noqa: F811
    """Point Lobos (borrow_discard): the top of AI 2's discard pile (stone) is clicked
    into the payment, sent and accepted; afterwards its button says it is used this turn
    (it stayed offered, for a payment the server could only refuse)."""
    pg = page
    continue_position(pg, server, point_lobos_position(), 0)
    assert pg.evaluate("window.bigsur.state.data.payments.H05.steps") == ["bd:1", "per:H19"]
    open_payment(pg, "H05")
    button = pg.locator("#paybox [data-paystep='bd:1']")
    assert "AI 2 (easy)'s discard" in button.inner_text()
    assert "stone" in button.inner_html()
    pay_by_clicks_and_build(pg, ["bd:1", "per:H19"])
    last = pg.locator("#log li").last.inner_text()
    assert "borrow the top of AI 2 (easy)'s discard pile" in last, last
    open_payment(pg, "H56")
    assert "(used)" in button.inner_text() and button.get_attribute("aria-disabled") == "true"
    button.click(force=True)
    alert = pg.locator("#alert")
    alert.wait_for(state="visible")
    assert "Point Lobos" in alert.inner_text() and "this turn" in alert.inner_text()
    assert not pg.js_errors, pg.js_errors


def test_three_for_one_says_why_a_used_card_cannot_be_chosen(server, page):  # noqa: F811
    """While the 3 cards of a 3-for-1 are chosen, a card the payment already discards
    is disabled: a click on it did nothing and said nothing; it says why, and how."""
    pg = page
    st = ragged_point_position()
    me = st["seats"][0]
    for c in ("H50", "H08"):  # two more cards in hand (from the discard pile)
        me["discard"].remove(c)
        me["hand"].append(c)
    continue_position(pg, server, st, 0)
    open_payment(pg, "H14")
    pg.click("#paybox [data-paystep='H62']")
    pg.click("#paybox [data-paysub='1']")
    used = pg.locator("#paybox [data-paystep='H62']")
    assert used.get_attribute("aria-disabled") == "true"
    used.click(force=True)
    alert = pg.locator("#alert")
    alert.wait_for(state="visible")
    text = alert.inner_text()
    assert "H62" in text and "already" in text and "\u00d7" in text, text
    assert "0 chosen" in pg.locator("#paybox .paysrc").inner_text()
    for c in ("H04", "H50", "H08"):
        pg.click(f"#paybox [data-paystep='{c}']")
    assert "3 chosen" in pg.locator("#paybox .paysrc").inner_text()
    assert not pg.js_errors, pg.js_errors


def three_for_one_and_recycle_position() -> dict:
    """Seat 0 in its first build step, no Highway and an empty discard pile; in hand H11
    (engineering + steel), H21 (water), H69 (timber) and H59 (steel): H11 is paid only by
    a 3-for-1 of the other three for engineering, H59 discarded last and recycled."""
    st = swap_ids(state_to_json(random_mid_game(2, seed=8, actions=0)), "H35", "H11")
    st = in_build_step(st, ["H69", "H59"])
    me = st["seats"][0]
    assert me["hand"] == ["H21", "H11", "H69", "H59"] and me["highway"] == me["discard"] == []
    return st


def test_three_for_one_clicked_in_any_order_leaves_the_recycle_its_material(server, page):  # noqa: F811
    """A QA pass: the 3-for-1's cards clicked in another order than the suggestion's
    (H59, H69, H21 for engineering): they were discarded in that order, H21 (water) on top,
    so the Recycle offered water and the panel said "Still need: steel" with no card left
    (only Clear got out). The card whose Material is still needed goes on top: the
    Recycle offers steel, the payment completes and the server accepts it."""
    pg = page
    continue_position(pg, server, three_for_one_and_recycle_position(), 0)
    assert pg.evaluate("window.bigsur.state.data.payments.H11.steps") == \
        ["sub:H21+H69+H59=engineering", "rec"]
    open_payment(pg, "H11")
    pg.click("#paybox [data-paysub='1']")
    for c in ("H59", "H69", "H21"):
        pg.click(f"#paybox [data-paystep='{c}']")
    pg.click("#paybox [data-submat='engineering']")
    step = pg.locator("#paybox .paysteps li").first.inner_text()
    assert "discard H69, H21, H59 for engineering" in step, step  # H59 on top
    assert "steel" in pg.locator("#pay-need").inner_text()
    assert "steel" in pg.locator("#paybox [data-paystep='rec']").inner_html()
    n = log_count(pg)
    pay_by_clicks_and_build(pg, ["rec"], side="L")
    assert log_count(pg) == n + 1
    assert pg.evaluate("window.bigsur.state.data.view.seats[0].highway") == ["H11"]
    assert pg.evaluate("window.bigsur.state.data.view.seats[0].discard")[-1] == "H59"
    # the rule as a pure function: the click order kept unless a needed card would be
    # buried, and always once Recycling is used
    orders = pg.evaluate("""async () => {
      const p = await import('/js/pay.js');
      const mat = {A: 'steel', B: 'water', C: 'timber'};
      const order = (need, free) => p.substitutionOrder(['A', 'B', 'C'], (c) => mat[c], need, free);
      return [order(['steel'], true), order(['steel'], false), order(['timber'], true),
              order(['stone'], true), order([], true), order(['water', 'steel'], true)];
    }""")
    assert orders == [["B", "C", "A"], ["A", "B", "C"], ["A", "B", "C"], ["A", "B", "C"],
                      ["A", "B", "C"], ["B", "C", "A"]]
    assert not pg.js_errors, pg.js_errors


def test_review_analysed_again_survives_leaving_the_page(server, page):  # noqa: F811
    """"Analyse again" with a deeper search, and the page left (reloaded) while it runs:
    the page showed the old analysis again and never the new one (it did not ask the
    server for the game's running review). It follows the running job, shows its
    progress, then the new analysis; ← / → step through it. While the deeper analysis
    runs, the budget menu says its budget (it said the shown analysis's, 5 iterations)."""
    pg = page
    finish_a_game_against_greedy(server, pg)  # reviewed at 5 iterations a decision
    pg.goto(server + "/?speed=0")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-review")
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline")
    assert "search 5 iterations each" in pg.locator("#review-summary").inner_text()
    # 0.1 s a decision: the analysis runs for seconds, still running when the page is back
    pg.select_option("#review-budget", "ms:100")
    pg.click("#review-run")
    pg.wait_for_selector("#review-status:has-text('Analysing the game')")
    pg.goto("about:blank")  # the page left while the analysis runs
    pg.goto(server + "/?speed=0")
    pg.wait_for_selector("body[data-ready='1']")
    pg.wait_for_selector("#review:not([hidden])")
    pg.wait_for_selector("#review-status:has-text('Analysing the game')")  # followed
    assert "search 5 iterations each" in pg.locator("#review-summary").inner_text()
    assert pg.locator("#review-budget").input_value() == "ms:100"  # the job running
    pg.wait_for_selector("#review-summary:has-text('search 100 ms each')", timeout=120_000)
    assert pg.locator("#review-budget").input_value() == "ms:100"
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.querySelector('#review-detail').innerText"
                         ".includes('Move 1:')")
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.querySelector('#review-detail').innerText"
                         ".includes('Move 2:')")
    pg.wait_for_selector("#review-detail .minitable svg.card")
    # kept: a reload shows the new analysis again
    pg.reload()
    pg.wait_for_selector("#review-summary:has-text('search 100 ms each')")
    shot(pg, "qa-08-analysed-again-after-leaving", full=True)
    assert not pg.js_errors, pg.js_errors


def to_two_possible_claims(pg, base: str) -> None:
    """The Ragged Point position, H14 and H04 built (the hand is empty): H04 + H41 make
    an Ocean Stretch, and Pfeiffer Beach and McWay Falls can each be claimed above
    either card."""
    continue_position(pg, base, ragged_point_position(), 0)
    pg.click("#hand .cardbtn[data-select='H14']")
    pay_by_clicks_and_build(pg, ["per:H12", "bh:1:H05"])
    pg.click("#hand .cardbtn[data-select='H04']")
    pay_by_clicks_and_build(pg, ["per:H02", "H62"], side="L")
    assert sorted(a for a in pg.evaluate("window.bigsur.state.data.legal_actions")
                  if a.startswith("claim ")) == \
        ["claim L02 H04", "claim L02 H41", "claim L03 H04", "claim L03 H41"]


def test_claim_buttons_say_a_claim_ends_the_turn(server, page):  # noqa: F811
    """A claim is the last step of a turn (the server ends the turn with it), but the
    Claim buttons did not say so: a player could claim and lose the builds still
    planned. The buttons' group says it; the claim is made and logged."""
    pg = page
    to_two_possible_claims(pg, server)
    bar = pg.locator("#actionbar").inner_text()
    assert "ends your turn" in bar, bar
    pg.click("#landmarks [data-claim='L03']")  # two places: the page asks which
    assert "Choose the Highway card" in pg.locator("#status").inner_text()
    pg.click("#actionbar .claimbtn[data-act='claim L03 H04']")
    settle(pg)
    log = pg.locator("#log").inner_text()
    assert "You claim Pfeiffer Beach (L03) above H04" in log, log
    assert pg.evaluate("window.bigsur.state.data.view.seats[0].landmarks")[-1] == \
        {"landmark": "L03", "card": "H04"}
    assert not pg.js_errors, pg.js_errors


def test_an_empty_hand_is_not_called_unpayable(server, page):  # noqa: F811
    """With every card of the hand built, the hand said "You cannot pay for any card
    now." next to "Empty."; it says the hand is empty."""
    pg = page
    to_two_possible_claims(pg, server)
    info = pg.locator("#handinfo").inner_text()
    assert "cannot pay" not in info and "empty" in info, info
    assert not pg.js_errors, pg.js_errors


def test_a_landmark_that_cannot_be_claimed_says_why_without_asking(server, page):  # noqa: F811
    """Clicking a Landmark of the row that no legal action claims sent a claim above a
    card the page guessed, and the server's refusal named that card ("... above H41:
    H41 shows no field icon"), one the player never chose. The page says why itself."""
    pg = page
    to_the_first_build_step(pg, server + "/?speed=0")
    sent = []
    pg.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    row = pg.locator("#landmarks [data-claim]")
    landmark = row.first.get_attribute("data-claim")
    row.first.click()
    pg.wait_for_selector("text=You cannot claim")
    text = pg.locator("body").inner_text()
    assert f"({landmark}) now: it needs a Stretch" in text, text[-800:]
    assert not [u for u in sent if "/actions" in u], sent
    assert not pg.js_errors, pg.js_errors


def test_payment_box_keeps_the_keyboard_focus(server, page):  # noqa: F811
    """A QA pass: a hand card selected with ], P, then Enter on a source button or on
    "Fill it in" dropped the focus to <body> (choosing several sources meant tabbing back
    each time), and so did L, R and U; P focused "Fill it in", not the first source."""
    pg = page
    continue_position(pg, server, ragged_point_position(), 0)
    focused = "(() => { const a = document.activeElement; return a === document.body ? 'body' " \
              ": (a.closest('#paybox') ? 'paybox ' : a.closest('#hand') ? 'hand ' : '') " \
              "+ JSON.stringify(a.dataset); })()"
    pg.keyboard.press("]")
    pg.wait_for_selector("#paybox:not([hidden]) .paychip")
    pg.keyboard.press("p")
    first = pg.evaluate(focused)
    assert first.startswith('paybox {"paystep"'), first  # a source, not "Fill it in"
    pg.keyboard.press("Enter")  # pay with it
    assert pg.evaluate(focused) == first
    assert pg.locator("#paybox .paysteps li").count() == 1
    pg.keyboard.press("Tab")
    second = pg.evaluate(focused)
    pg.keyboard.press("Enter")
    assert pg.evaluate(focused) == second != first
    pg.focus("#paybox [data-paysuggest]")
    pg.keyboard.press("Enter")
    assert pg.evaluate(focused) == 'paybox {"paysuggest":"1"}'
    card = pg.evaluate("window.bigsur.state.selected")
    pg.keyboard.press("r")
    settle(pg)
    assert card in pg.evaluate("window.bigsur.state.data.view.seats[0].highway")
    assert pg.evaluate(focused).startswith("hand "), pg.evaluate(focused)
    pg.keyboard.press("u")
    settle(pg)
    assert pg.evaluate(focused) == f'hand {{"select":"{card}"}}', pg.evaluate(focused)
    pg.keyboard.press("l")  # nothing selected: refused, the focus stays
    assert pg.evaluate(focused).startswith("hand ")
    assert not pg.js_errors, pg.js_errors


def test_deck_cards_counted_and_an_ocean_stretch(server, page):  # noqa: F811
    """A turning point read "Player 2 (random moves) took a deck card and a deck card and
    built H35"; a Landmark's screen-reader label read "needs a ocean Stretch"."""
    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    texts = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const svg = await import('/js/svg.js');
      const ctx = {cards: {highway: {}, landmarks: {}}};
      return [w.turnInShort(['take deck', 'take deck', 'build H35 L pay H01', 'end'], ctx),
              w.turnInShort(['take H12', 'take deck', 'end'], ctx),
              w.turnInShort(['take deck', 'take H12', 'take deck'], ctx),
              svg.landmarkWords('L01', {name: 'Bixby Bridge', scenery: 'ocean', text: 'x'}),
              svg.landmarkWords('L02', {name: 'Pfeiffer', scenery: 'forest', text: 'y'})];
    }""")
    assert texts == ["took two deck cards and built H35", "took H12 and a deck card",
                     "took two deck cards and H12",
                     "L01 Bixby Bridge: needs an ocean Stretch. x",
                     "L02 Pfeiffer: needs a forest Stretch. y"], texts
    assert not pg.js_errors, pg.js_errors


def test_keys_that_cannot_act_in_this_step_say_what_to_do(server, page):  # noqa: F811
    """A QA pass: E at the take step sent "end" and showed the server's refusal in red
    ('Not allowed: illegal action "end the turn" for You (turn 3, take step): first take
    1 more card(s) ...', a console 422, "turn 3" beside "Round 1 of 7"); L and R before
    both cards were taken said "Select a card of your hand first", which misleads. A key
    that cannot act in the step says in the page's words what to do, with no request."""
    pg = page
    continue_position(pg, server, rocky_creek_position(), 0)
    sent: list[str] = []
    pg.on("request", lambda r: sent.append(r.url) if r.url.endswith("/actions") else None)

    def said(key: str) -> str:
        pg.keyboard.press("Escape")  # the last message gone
        assert pg.locator("#alert").is_hidden()
        pg.keyboard.press(key)
        alert = pg.locator("#alert")
        alert.wait_for(state="visible")
        return pg.locator("#alert-text").inner_text()

    for key in "elrpc":
        text = said(key)
        assert text.startswith("Take 2 cards first"), (key, text)
    pg.keyboard.press("d")
    settle(pg)
    assert len(sent) == 1, sent  # the take only
    for key in "elrpc":
        text = said(key)
        assert text.startswith("Take 1 more card first"), (key, text)
        assert "Not allowed" not in text and "turn 3" not in text, text
    pg.keyboard.press("d")
    settle(pg)
    assert len(sent) == 2, sent
    for key in "d1":
        text = said(key)
        assert text == "You have taken your 2 cards: build, claim a Landmark or end the turn.", text
    legal = pg.evaluate("window.bigsur.state.data.legal_actions")
    if not any(a.startswith("claim ") for a in legal):
        assert said("c") == "No Landmark can be claimed now."
    assert said("l").startswith("Select a card of your hand first")
    assert len(sent) == 2, sent  # no refused key reached the server
    assert not pg.js_errors, pg.js_errors
