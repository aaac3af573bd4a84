"""The page's hints as a player meets them (a quality pass): what a hint says must be
true of the position, say what its numbers are, and go away when the position changes.
Same setup as test_web_page.py (a real uvicorn, Debian's Chromium through Playwright).
Where a test needs one particular suggestion, the server's hint answer is replaced on
its way to the page (``fake_hint``) by a move checked legal here with the engine.
"""

from __future__ import annotations

from test_page_qa import continue_position, ragged_point_position, to_two_possible_claims
from test_web_page import browser, page, server, settle, shot  # noqa: F401


def ask_hint(pg, budget: str = "iterations:100") -> None:
    pg.select_option("#hint-budget", budget)
    pg.click("#hint-btn")
    pg.wait_for_selector("#hint .hintlist li, #alert:not([hidden])", timeout=60_000)
    assert not pg.locator("#alert").is_visible(), pg.locator("#alert").inner_text()


def build_by_payment_box(pg, card: str, side: str = "R") -> None:
    """Select ``card`` and build it with the cheapest payment the page suggests."""
    pg.click(f"#hand .cardbtn[data-select='{card}']")
    pg.wait_for_selector("#paybox:not([hidden]) .paychip")
    pg.click(f"#paybox [data-build='{side}']")
    settle(pg)


def test_hint_cleared_after_an_undo_and_another_build(server, page):  # noqa: F811
    """A hint belonged to a number of actions played: after building H04, asking for a
    hint, undoing H04 and building H14 instead, the number was the same again and the old
    hint came back as the current one (it built on H04, then in the hand again)."""
    pg = page
    continue_position(pg, server, ragged_point_position(), 0)
    build_by_payment_box(pg, "H04")
    ask_hint(pg)
    assert "Play this" in pg.locator("#hint").inner_text()
    pg.keyboard.press("u")  # undo H04
    settle(pg)
    build_by_payment_box(pg, "H14")
    road = pg.evaluate("window.bigsur.state.data.view.seats[0].highway")
    assert "H14" in road and "H04" not in road, road
    text = pg.locator("#hint").inner_text()
    assert "Play this" not in text and "Ask for the search's best moves" in text, text
    assert pg.locator(".suggested").count() == 0
    assert "hint: here" not in pg.locator("#seats").inner_html()
    assert not pg.js_errors, pg.js_errors


def fake_hint(pg, state: dict, moves: list[dict], iterations: int = 100,
              budget: dict | None = None) -> None:
    """The server's hint answer replaced by ``moves`` (each ``actions`` and whatever else
    it needs), each checked legal in ``state`` with the engine first, from a search of
    ``iterations`` (asked for as ``budget``, by default that many iterations)."""
    from solver.rules.engine import play
    from solver.rules.position import state_from_json

    for m in moves:
        s = state_from_json(state)
        for a in m["actions"]:
            s = play(s, a)  # raises if the move is not legal
    answer = {"seat": state["current"], "stats": {"iterations": iterations},
              "position_kind": "view", "budget": budget or {"iterations": iterations},
              "seed": 0,
              "card_set": "default",
              "elapsed_ms": 50.0,
              "moves": [{"label": None, "visits": 50 - k, "win_probability": 0.5 - k / 10,
                         "expected_margin": 1.0 - k, "payment": None, "line": [],
                         "exact": False, **m} for k, m in enumerate(moves)]}
    pg.route("**/v1/games/*/hint", lambda route: route.fulfill(json=answer))


def recycle_after_a_discard_position() -> dict:
    """Seat 0 in a build step, its discard pile's top H35 (steel); in hand H04 (water +
    engineering), H26 (engineering) and H11 (engineering + steel); H02 in its Highway."""
    from rules_testkit import noisy_build_steps

    from solver.rules.position import state_to_json

    st = state_to_json(next(iter(noisy_build_steps([1], last=False))))
    me = st["seats"][0]
    assert st["current"] == 0 and st["phase"] == "build" and me["discard"][-1] == "H35"
    assert {"H04", "H26", "H11"} <= set(me["hand"]) and "H02" in me["highway"]
    return st


def test_hint_payment_recycles_what_the_earlier_build_discarded(server, page):  # noqa: F811
    """A hint's second build recycled the top of the discard pile, which by then is the
    card its first build discarded (H26, engineering); the page named the top before the
    move (H35, steel), a Material the build did not even need (H04 gives it steel)."""
    pg = page
    st = recycle_after_a_discard_position()
    continue_position(pg, server, st, 0)
    first, second = "build H04 L pay per:H02 H26", "build H11 L pay per:H04 rec"
    fake_hint(pg, st, [{"actions": [first, second, "end"], "payment": {"builds": [
        {"card": "H04", "side": "L", "action": first},
        {"card": "H11", "side": "L", "action": second}]}}])
    ask_hint(pg)
    pay = pg.locator("#hint .hintlist li").first.locator("div.small").first.inner_text()
    assert pay.startswith("Pay: H04: "), pay
    h11 = pay.split("H11: ")[1]
    assert "recycle the top of your discard pile (engineering)" in h11, pay
    assert "steel" in h11 and "(steel)" not in h11, pay  # steel: H04's Persistent
    assert not pg.js_errors, pg.js_errors


def test_exact_badge_says_what_is_exact(server, page):  # noqa: F811
    """An exact move (the last build step, solved) has an exact final score for the
    player; its win chance is still an estimate (the other hands are hidden). The badge
    said "exact", titled "computed exactly, not estimated", beside "win 26.5%". Its header
    said "Only move: no other move was worth searching." with several cards affordable:
    it is the best last build step solved exactly, not the only legal move."""
    pg = page
    st = ragged_point_position()
    continue_position(pg, server, st, 0)
    fake_hint(pg, st, [{"actions": ["end"], "exact": True, "final_score": 64,
                        "win_probability": 0.265, "expected_margin": -1.7}])
    ask_hint(pg)
    badge = pg.locator("#hint .badge.exact")
    assert badge.inner_text() == "exact score 64"  # the final score, no win chance
    title = badge.get_attribute("title")
    assert "not estimated" not in title and "win chance and points are still estimates" in title
    assert "win 26.5%" in pg.locator("#hint .hintlist li").first.inner_text()
    assert len(pg.evaluate("window.bigsur.state.data.legal_actions")) > 1
    conf = pg.locator("#hint .conf").inner_text()
    assert conf == "Solved exactly: your best last build step (final score 64).", conf
    assert "Only move" not in pg.locator("#hint").inner_text()
    assert not pg.js_errors, pg.js_errors


def test_hint_numbers_say_what_they_are(server, page):  # noqa: F811
    """"win 80.0%  +18.7 pts  24 visits" said what its numbers were only in tooltips,
    which a touch screen never shows: "+18.7 pts" read as the points the move gains, where
    it is the expected final score minus the other player's."""
    pg = page
    continue_position(pg, server, ragged_point_position(), 0)
    ask_hint(pg)
    legend = pg.locator("#hint .hintlegend").inner_text()
    assert legend.startswith("win: your chance to win; pts: your expected final score "
                             "minus AI 2 (easy)'s; visits: how often the search tried the "
                             "move"), legend
    assert not pg.js_errors, pg.js_errors


def test_hint_says_how_its_moves_are_ranked(server, page):  # noqa: F811
    """A QA pass: "build H58, win 3.3%" (1,797 visits) was listed above "build H06, win
    11.8%" (1,536 visits), with nothing saying why; a later pass saw the 2nd listed worth
    far less than the 4th. The list shows the search's choice first, then the other moves
    it tried most by the search's value, which counts the win chance and the points
    together: the legend says so, and when a lower move shows a higher win chance with
    fewer points, that this is why."""
    pg = page
    st = ragged_point_position()
    continue_position(pg, server, st, 0)
    fake_hint(pg, st, [{"actions": ["end"], "win_probability": 0.033, "expected_margin": -4.0},
                       {"actions": ["build H04 R", "end"], "win_probability": 0.02,
                        "expected_margin": -19.5},
                       {"actions": ["build H14 R", "end"], "win_probability": 0.118,
                        "expected_margin": -9.5}])
    ask_hint(pg)
    legend = pg.locator("#hint .hintlegend").inner_text()
    assert "First the search's choice (the move it tried most), then the other moves it " \
           "tried most, best first by the search's value: the win chance counting three " \
           "parts to the points' one (so a move lower in the list can show a higher win " \
           "chance, with fewer points)" in legend, legend
    rows = pg.locator("#hint .hintlist > li .hintrow")
    assert [rows.nth(k).inner_text() for k in range(3)] == [
        "You end the turn", "You build H14 at the right end, then end the turn",
        "You build H04 at the right end, then end the turn"], rows.all_inner_texts()
    # ranked as both numbers say: the reason is left out
    fake_hint(pg, st, [{"actions": ["end"], "win_probability": 0.3, "expected_margin": -4.0},
                       {"actions": ["build H04 R", "end"], "win_probability": 0.2,
                        "expected_margin": -9.5}])
    ask_hint(pg)
    pg.wait_for_function("!document.querySelector('#hint').innerText.includes('3.3%')")
    legend = pg.locator("#hint .hintlegend").inner_text()
    assert "best first by the search's value" in legend and "lower in the list" not in legend, \
        legend
    assert not pg.js_errors, pg.js_errors


def only_end_position() -> dict:
    """The Ragged Point position with the hand discarded: seat 0 in its build step with
    nothing to build and nothing to claim, "end" its only legal action."""
    from solver.rules.engine import legal_actions
    from solver.rules.position import state_from_json

    st = ragged_point_position()
    me = st["seats"][0]
    me["discard"] += me["hand"]
    me["hand"] = []
    assert [a.notation() for a in legal_actions(state_from_json(st))] == ["end"]
    return st


def test_hint_with_only_end_possible_says_so(server, page):  # noqa: F811
    """A hint where ending the turn is the only legal move said "Only move: no other move
    was worth searching.", as if the search had passed over something; nothing else is
    possible, and it says that."""
    pg = page
    continue_position(pg, server, only_end_position(), 0)
    ask_hint(pg)
    assert pg.evaluate("window.bigsur.state.hint.result.moves.length") == 1
    conf = pg.locator("#hint .conf").inner_text()
    assert conf == "Only move: nothing else is possible, so end the turn.", conf
    assert "worth searching" not in pg.locator("#hint").inner_text()
    # a lone move among other legal ones still says the search passed the others over
    texts = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const m = {actions: ['end'], visits: 10, win_probability: 0.5, expected_margin: 0};
      const c = (ms, legal) => { const r = w.confidence(ms, legal); return `${r.cue}: ${r.why}`; };
      return [c([m], ['build H01 L pay H02', 'end']), c([m], ['end']),
              c([{...m, exact: true, final_score: 18}], ['build H01 L pay H02', 'end'])];
    }""")
    assert texts == ["only candidate: no other move was worth searching",
                     "only move: nothing else is possible, so end the turn",
                     "solved exactly: your best last build step (final score 18)"]
    assert not pg.js_errors, pg.js_errors


def test_suggested_claim_marks_the_highway_card(server, page):  # noqa: F811
    """A suggested claim marked the Landmark in the row, but not the card of the
    player's Highway it goes above (a choice: Pfeiffer Beach can be claimed above H04 or
    H41). The card is marked as a hint's builds are, with the Landmark's place above it;
    the move shown on the table decides which."""
    pg = page
    to_two_possible_claims(pg, server)  # H14 and H04 built through the page
    fake_hint(pg, two_claims_built(), [{"actions": ["claim L03 H04"]},
                                       {"actions": ["claim L02 H41"]}])
    ask_hint(pg)
    mine = pg.locator("#seats .seat.me")
    assert pg.locator("#landmarks [data-claim='L03'].suggested").count() == 1
    marks = mine.locator(".hintclaim")
    assert marks.count() == 1 and marks.get_attribute("data-card") == "H04"
    assert marks.locator("title").text_content() == \
        "hint: claim Pfeiffer Beach (L03) above H04"
    assert pg.locator("#seats .seat:not(.me) .hintclaim").count() == 0
    shot(pg, "hints-01-claim-marks-the-highway-card")
    pg.click("#hint [data-showhint='1']")
    assert marks.count() == 1 and marks.get_attribute("data-card") == "H41"
    assert pg.locator("#landmarks [data-claim='L02'].suggested").count() == 1
    assert not pg.js_errors, pg.js_errors


def test_a_hint_says_what_each_build_step_adds_to_the_score_now(server, page):  # noqa: F811
    """A hint gave win chance, points and visits, nothing in the game's own terms. Each
    suggested build step now says what it adds to the player's score as the Highway
    stands (the categories that moved), checked here by playing the move with the engine;
    a move without builds or claims says nothing of the kind."""
    from solver.rules.engine import play
    from solver.rules.position import state_from_json
    from solver.rules.scoring import score_player

    pg = page
    st = ragged_point_position()
    continue_position(pg, server, st, 0)
    ask_hint(pg)
    moves = pg.evaluate("window.bigsur.state.hint.result.moves.slice(0, 4)")
    items = pg.locator("#hint .hintlist > li")
    said = 0
    for k, m in enumerate(moves):
        text = items.nth(k).inner_text()
        if not any(a.startswith(("build", "claim")) for a in m["actions"]):
            assert "score as it stands" not in text, text
            continue
        before = state_from_json(st)
        after = before
        for a in m["actions"]:
            after = play(after, a)
        gain = (score_player(before.cards, after.players[0]).total
                - score_player(before.cards, before.players[0]).total)
        shown = f"{'+' if gain >= 0 else chr(0x2212)}{abs(gain)}"
        assert f"Your score as it stands: {shown}" in text, (m["actions"], text)
        said += 1
    assert said >= 1, moves  # the position has build steps worth suggesting
    assert "what the move adds now" in pg.locator("#hint .hintlegend").inner_text()
    assert not pg.js_errors, pg.js_errors


def test_a_hint_survives_a_reload_in_its_position(server, page):  # noqa: F811
    """A QA pass: after a reload mid-turn the hint asked for was gone ("Ask for the
    search's best moves here") and had to be searched again. It is shown again, with no
    second search, while the position is the one it was asked in."""
    pg = page
    continue_position(pg, server, ragged_point_position(), 0)
    ask_hint(pg)
    before = pg.locator("#hint .hintlist").inner_text()
    asked: list[str] = []
    pg.on("request", lambda r: asked.append(r.url) if r.url.endswith("/hint") else None)
    pg.reload()
    pg.wait_for_selector("body[data-ready='1'] #hint .hintlist li")
    assert pg.locator("#hint .hintlist").inner_text() == before
    assert not asked, asked
    assert not pg.js_errors, pg.js_errors


def test_a_hint_says_the_searchs_reasons_in_the_pages_names(server, page):  # noqa: F811
    """POST /v1/hint's moves may carry ``reasons`` (short sentences, the hint's seat as
    "you", another seat as "Player N", 1-based): the page says them under the move, each
    "Player N" by the page's name for that seat ("AI 2 (easy)"); a move without the field
    (an older server) says none. The real answer is intercepted and given reasons here."""
    pg = page
    continue_position(pg, server, ragged_point_position(), 0)

    def with_reasons(route):
        answer = route.fetch().json()
        answer["moves"][0]["reasons"] = ["it keeps Player 2 from claiming Pfeiffer Beach",
                                         "your Stretch grows to 3 cards"]
        for m in answer["moves"][1:]:
            m.pop("reasons", None)
        route.fulfill(json=answer)

    pg.route("**/v1/games/*/hint", with_reasons)
    ask_hint(pg)
    items = pg.locator("#hint .hintlist > li")
    assert items.count() >= 2
    said = items.first.locator(".reasons li").all_inner_texts()
    assert said == ["It keeps AI 2 (easy) from claiming Pfeiffer Beach.",
                    "Your Stretch grows to 3 cards."], said
    assert "Player 2" not in items.first.inner_text()
    assert items.nth(1).locator(".reasons").count() == 0
    assert not pg.js_errors, pg.js_errors


def test_confidence_against_the_closest_move_and_not_on_a_short_search(server, page):  # noqa: F811
    """A QA pass against the strongest AI: the headline compared the top move with the
    second by visits ("Likely best: 768 vs 438 visits, 36.2 win-% and 35.7 points ahead
    of the next move") while the 4th listed move was 2.6 win-% behind; gave a verdict at
    87 iterations ("24 vs 23 visits"); and said "0.0 win-%" where every move showed 0.0%.
    It compares with the listed move closest in the search's value (win chance three
    parts, points one), gives no verdict under 100 visits of the top move, and speaks of
    points only where every win chance shows 0.0% (or 100.0%)."""
    pg = page
    st = ragged_point_position()
    continue_position(pg, server, st, 0)
    out = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const m = (visits, p, pts) => ({visits, win_probability: p, expected_margin: pts});
      const c = (ms) => {
        const r = w.confidence(ms, ['end', 'take deck']);
        return `${r.cue}: ${r.why}`;
      };
      return {
        closest: c([m(768, 0.500, 10.0), m(438, 0.138, -25.7), m(300, 0.30, 0),
                    m(200, 0.474, 9.0)]),
        // listed by value (listedMoves): a move of 3 visits 2nd is no measure of the gap
        thin: c([m(600, 0.60, 2.0), m(3, 0.70, 4.0), m(300, 0.50, 0.0), m(2, 0.20, -5.0)]),
        short: c([m(24, 0.300, 1.0), m(23, 0.253, -3.0)]),
        lost: c([m(2898, 0.0001, -5.0), m(1536, 0.0, -9.5), m(400, 0.0002, -12.0)]),
        won: c([m(2898, 0.9999, 12.0), m(2700, 1.0, 11.5)]),
      };
    }""")
    assert out["closest"] == ("likely best: 768 vs 200 visits, 2.6 win-% and 1.0 points ahead "
                              "of the best other move, the 4th listed"), out
    assert out["thin"] == ("clearly best: 600 vs 300 visits, 10.0 win-% and 2.0 points ahead "
                           "of the best other move, the 3rd listed"), out
    assert out["short"] == ("too few iterations to tell: only 24 visits for the top move "
                            "(a verdict needs 100): search longer"), out
    assert out["lost"] == ("likely best: 2898 vs 1536 visits; every move's win chance 0.0%, "
                           "4.5 points ahead of the next move"), out
    assert out["won"] == ("close call: the top moves are within 0.5 points (2898 vs 2700 "
                          "visits; every move's win chance 100.0%): either is fine"), out
    # the page says it: a hint of 50 visits for its top move (of 300 iterations, not too
    # short ever to give a verdict: test_a_hint_too_short_ever_to_give_a_verdict_says_so_once)
    fake_hint(pg, st, [{"actions": ["end"]}, {"actions": ["build H04 R", "end"]}], 300)
    ask_hint(pg)
    conf = pg.locator("#hint .conf").inner_text()
    assert conf == ("Too few iterations to tell: only 50 visits for the top move (a verdict "
                    "needs 100): search longer."), conf
    assert not pg.js_errors, pg.js_errors


def test_a_raced_hint_gives_the_paired_tests_verdict_whatever_the_visits(server, page):  # noqa: F811
    """A player's pass: a build step's hint at 0.5 s or 1 s mostly ended "only 96 visits
    for the top move (a verdict needs 100): search longer", and a 100-iteration hint never
    gave one. The search races its candidates on the same sampled deals and gives its
    last ones equal visits, so visits could not tell them apart; each move's
    ``versus_top`` is the race's paired test against the first, and the verdict is read
    from it: against the listed move least told apart (one that scored alike every round
    is the same move), clear only when every candidate was searched."""
    from test_web_page import to_the_first_build_step

    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    out = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const m = (visits, p, pts, vt) => ({visits, win_probability: p, expected_margin: pts,
        versus_top: vt || null});
      const vt = (rounds, standard_errors, clear, alike = false) =>
        ({rounds, standard_errors, clear, alike});
      const c = (ms, untried = 0) => {
        const r = w.confidence(ms, ['end', 'take deck'], 1, untried);
        return `${r.cue}: ${r.why}`;
      };
      const menu = [{value: 'iterations:100', label: '100 iterations'},
                    {value: 'ms:500', label: '0.5 s'}];
      const short = w.confidence([m(16, 0.5, 2), m(16, 0.3, -3, vt(12, 1.1, false))], null);
      return {
        clear: c([m(192, 0.437, -3.0), m(192, 0.360, -6.6, vt(192, 25.75, true))]),
        untried: c([m(40, 0.437, -3.0), m(40, 0.360, -6.6, vt(40, 9.5, true))], 15),
        short: `${short.cue}: ${short.why}`,
        shortNote: w.noVerdictWords(short, 100, menu, 'here'),
        notYet: c([m(96, 0.50, 2.0), m(96, 0.40, -1.0, vt(96, 1.4, false))]),
        least: c([m(96, 0.60, 4.0), m(96, 0.30, -5.0, vt(96, 25.0, true)),
                  m(96, 0.585, 3.5, vt(96, 3.1, true))]),
        same: c([m(96, 0.60, 4.0), m(6, 0.55, 3.0, vt(6, 0, false, true)),
                 m(96, 0.40, -2.0, vt(96, 12.0, true))]),
        onlySame: c([m(96, 0.60, 4.0), m(6, 0.55, 3.0, vt(6, 0, false, true))]),
        // a test of 0 standard errors whose rounds did not all score alike is no twin
        cancel: c([m(96, 0.60, 4.0), m(96, 0.585, 3.9, vt(96, 0, false))]),
        // the test's clear lead against a move whose own mean reads higher: no verdict
        mixed: c([m(96, 0.60, 2.0), m(6, 0.66, 3.0, vt(6, 2.7, true))]),
      };
    }""")
    assert out["clear"] == ("clearly best: 192 visits each, 7.7 win-% and 3.6 points ahead of "
                            "the next move, a clear lead on the 192 sampled deals both played"), out
    assert out["untried"] == ("likely best: 40 visits each, 7.7 win-% and 3.6 points ahead of "
                              "the next move, a clear lead on the 40 sampled deals both played, "
                              "but 15 other candidates not searched yet"), out
    assert out["short"] == ("too few iterations to tell: the search cannot yet separate the "
                            "top move from the next move on the 12 sampled deals both played: "
                            "search longer"), out
    assert out["shortNote"] == "", out  # (a race can tell moves apart on 100 iterations)
    assert out["notYet"] == ("likely best: 96 visits each, 10.0 win-% and 3.0 points ahead of "
                             "the next move, not yet a clear lead on the 96 sampled deals both "
                             "played"), out
    assert out["least"] == ("close call: the top move and the 3rd listed are within 1.5 win-% "
                            "and 0.5 points (96 visits each): either is fine, though the "
                            "search is sure of the order on the 96 sampled deals both played"), out
    assert out["same"] == ("clearly best: 96 visits each, 20.0 win-% and 6.0 points ahead of "
                           "the best other move, the 3rd listed, a clear lead on the 96 "
                           "sampled deals both played"), out
    assert out["onlySame"] == ("close call: the top moves scored alike on the 6 sampled deals "
                               "both played: either is fine"), out
    assert out["cancel"].startswith("close call: the top moves are within 1.5"), out
    assert out["mixed"] == ("likely best: 96 vs 6 visits, 6.0 win-% and 1.0 points behind "
                            "the next move, though ahead by the search's test on the 6 "
                            "sampled deals both played"), out
    # on the table: a real 100-iteration hint at a build step says the race's verdict,
    # once, and no note that such a search never gives one
    to_the_first_build_step(pg, server + "/?speed=0", seed=1)
    assert len(pg.evaluate("window.bigsur.state.data.legal_actions")) > 2  # (moves to weigh)
    ask_hint(pg, "iterations:100")
    moves = pg.evaluate("window.bigsur.state.hint.result.moves")
    assert moves[0]["versus_top"] is None and any(m["versus_top"] for m in moves[1:]), moves
    line = pg.locator("#hint .conf").inner_text()
    assert "sampled deals both played" in line, line
    hint = pg.locator("#hint").inner_text()
    assert pg.locator("#hint .noverdict").count() == 0 and hint.count("search longer") <= 1, hint
    assert not pg.js_errors, pg.js_errors


def test_a_timed_hint_of_few_iterations_names_no_menu_choice(server, page):  # noqa: F811
    """A player's pass, late in a game: "Too few iterations to tell. A search of 1
    iterations never gives a verdict (it needs 100 visits for the top move): choose 0.5
    s, 1 s, 3 s or 1000 iterations under “search” for one." with 0.5 s chosen, and the
    moves never tried showed "win 0.0% +0.0 pts 0 visits", a sure loss to the eye. The
    note is for a search asked for that few iterations; a timed one says to search
    longer, and a move never tried says so instead of numbers."""
    pg = page
    st = ragged_point_position()
    continue_position(pg, server, st, 0)
    fake_hint(pg, st, [{"actions": ["end"], "visits": 1},
                       {"actions": ["build H04 R", "end"], "visits": 0}], 1, {"ms": 500})
    ask_hint(pg, "ms:500")
    conf = pg.locator("#hint .conf").inner_text()
    assert conf == ("Too few iterations to tell: only 1 visit for the top move (a verdict "
                    "needs 100): search longer."), conf
    rows = pg.locator("#hint .hintlist > li .hintnums")
    assert rows.nth(0).inner_text().startswith("win "), rows.nth(0).inner_text()
    assert rows.nth(1).inner_text().startswith("not searched yet"), rows.nth(1).inner_text()
    assert "1 iteration," in pg.locator("#hint").inner_text()
    assert not pg.js_errors, pg.js_errors


def test_a_clear_lead_is_no_verdict_while_candidates_wait_unsearched(server, page):  # noqa: F811
    """A short race lets its later candidates in as it drops others: a clear lead over
    the moves it played says nothing of those it never did (0 visits), and the table's
    hint says so rather than "clearly best"."""
    pg = page
    st = ragged_point_position()
    continue_position(pg, server, st, 0)
    clear = {"rounds": 40, "standard_errors": 9.5, "clear": True}
    twin = {"rounds": 6, "standard_errors": 0.0, "clear": False, "alike": True}
    fake_hint(pg, st, [{"actions": ["end"], "visits": 40, "versus_top": None},
                       {"actions": ["build H04 R", "end"], "visits": 40, "versus_top": clear},
                       {"actions": ["build H14 R", "end"], "visits": 6, "versus_top": twin},
                       {"actions": ["build H14 L", "end"], "visits": 0, "versus_top": None}])
    ask_hint(pg)
    conf = pg.locator("#hint .conf").inner_text()
    assert conf.startswith("Likely best: 40 visits each") and conf.endswith(
        "a clear lead on the 40 sampled deals both played, but 1 other candidate not "
        "searched yet."), conf
    # a move that scored as the first on every round says so under its own numbers
    rows = pg.locator("#hint .hintlist > li")
    assert rows.nth(2).locator(".alike").inner_text() == (
        "Scored the same as the first move on each of the 6 sampled deals both played: the "
        "same move as far as the search can tell; its numbers differ as they count only "
        "those deals"), rows.nth(2)
    assert rows.nth(1).locator(".alike").count() == 0
    assert not pg.js_errors, pg.js_errors


def test_a_hints_line_says_unseen_cards_as_its_legend_does(server, page):  # noqa: F811
    """A QA pass: the line under a hint said in its header that unseen cards are "a deck
    card", but its lines read "build a card from the hand at the left end", "claim
    Pfeiffer Beach (L03) above a new card" and "AI 2 (strong) takes a deck card from the
    Depot" (Depot cards are face up: the card is one the Depot gets from the deck when a
    turn ends, in the search's sample). The legend says that cards not seen are not
    named, and each line says what the card is."""
    pg = page
    st = ragged_point_position()
    continue_position(pg, server, st, 0)
    unseen = [c for c in st["deck"] if c not in st["depot"]][:2]
    x, y = unseen
    fake_hint(pg, st, [{"actions": ["end"],
                        "line": [f"take {x}", "take deck", f"build {x} R", f"claim L03 {x}",
                                 "take deck", f"take {y}", f"build {y} L", "end"]}])
    ask_hint(pg)
    then = pg.locator("#hint .thenlist li").all_inner_texts()
    assert then == [
        "AI 2 (easy) takes a Depot card refilled from the deck, takes the top card of the "
        "deck, builds a card from their hand at the right end, claims Pfeiffer Beach (L03) "
        "above a card not seen yet",
        "You take the top card of the deck, take a Depot card refilled from the deck, build a "
        "card from your hand at the left end, end the turn"], then
    text = pg.locator("#hint").inner_text()
    assert "Then (the search's guess; cards you have not seen are not named):" in text, text
    assert "a deck card" not in text and x not in text and y not in text, text
    assert not pg.js_errors, pg.js_errors



def two_claims_built() -> dict:
    """The position of :func:`to_two_possible_claims` after its two builds (H14, H04), in
    JSON: a Landmark then has two places, above H04 or H41."""
    from solver.rules.engine import play
    from solver.rules.position import state_from_json, state_to_json

    s = state_from_json(ragged_point_position())
    for a in ("build H14 R pay per:H12 bh:1:H05", "build H04 L pay per:H02 H62"):
        s = play(s, a)
    return state_to_json(s)

def test_claims_above_different_cards_with_the_same_numbers_are_one_line(server, page):  # noqa: F811
    """A QA pass: the 4 lines of a hint were "claim Pfeiffer Beach (L03) above H18 / H36 /
    H38", all "win 1.2% -21.5 pts 384 visits", pushing real alternatives off the list.
    Moves that differ only in the card a claim goes above, with the same numbers as shown,
    are one line naming the choices; different numbers keep their own lines."""
    pg = page
    to_two_possible_claims(pg, server)
    same = {"win_probability": 0.012, "expected_margin": -21.5, "visits": 384}
    fake_hint(pg, two_claims_built(), [
        {"actions": ["claim L03 H04"], **same}, {"actions": ["claim L03 H41"], **same},
        {"actions": ["claim L02 H04"], "win_probability": 0.010, "expected_margin": -22.0,
         "visits": 300},
        {"actions": ["claim L02 H41"], "win_probability": 0.010, "expected_margin": -22.3,
         "visits": 290},
        {"actions": ["end"], "win_probability": 0.005, "expected_margin": -25.0, "visits": 100}])
    ask_hint(pg)
    items = pg.locator("#hint .hintlist > li")
    heads = [items.nth(k).locator(".hintrow b").inner_text() for k in range(items.count())]
    assert heads == ["You claim Pfeiffer Beach (L03) above H04 or H41",
                     "You claim McWay Falls (L02) above H04",
                     "You claim McWay Falls (L02) above H41",
                     "You end the turn"], heads
    assert "384 visits each" in items.first.inner_text()
    # each line's buttons play and show its own move
    pg.click("#hint [data-showhint='4']")
    assert pg.evaluate("window.bigsur.state.hintShow") == 4
    assert "shown on the table" in items.nth(3).inner_text()
    assert not pg.js_errors, pg.js_errors


def test_every_place_of_a_landmark_is_marked(server, page):  # noqa: F811
    """Pfeiffer Beach can be claimed above H04 or H41: the hint's line said "above H04 or
    H41" but the table marked one place (above H04), and the Landmark row showed only
    that the Landmark could be claimed, not where. Every place of a shown hint is marked
    on the Highway, and the row says where a Landmark can go (and how many places)."""
    pg = page
    to_two_possible_claims(pg, server)
    row = {lm: pg.locator(f"#landmarks [data-claim='{lm}']") for lm in ("L02", "L03")}
    for lm, button in row.items():
        said = button.inner_text()
        assert "Claim above H04 or H41 (2 places)" in said, (lm, said)
        assert "above H04 or H41 (2 places)" in button.get_attribute("aria-label")
    others = pg.locator("#landmarks .cardbtn:not(.claimable)")
    assert others.count() and others.locator(".lmplaces").count() == 0

    same = {"win_probability": 0.012, "expected_margin": -21.5, "visits": 384}
    fake_hint(pg, two_claims_built(), [
        {"actions": ["claim L03 H04"], **same}, {"actions": ["claim L03 H41"], **same},
        {"actions": ["end"], "win_probability": 0.005, "expected_margin": -25.0, "visits": 100}])
    ask_hint(pg)
    assert "above H04 or H41" in pg.locator("#hint .hintlist > li").first.inner_text()
    marks = pg.locator("#seats .seat.me g.hintclaim")
    assert sorted(marks.nth(k).get_attribute("data-card") for k in range(marks.count())) == \
        ["H04", "H41"]
    assert "above H04 or H41 (2 places)" in marks.first.locator("title").text_content()
    assert "suggested" in row["L03"].get_attribute("class")
    shot(pg, "hints-every-place-marked")
    pg.click("#hint [data-showhint='2']")  # the other line: no claim marked
    assert marks.count() == 0
    assert not pg.js_errors, pg.js_errors


def test_the_list_ranks_moves_by_value_and_the_verdict_names_what_it_measures(server, page):  # noqa: F811
    """A QA pass: the list ranked by visits showed a 2nd move worth less than the 4th (a
    race gives its last candidates equal visits, and a move it dropped early has few), and
    the headline measured its gap against the move least told apart by the race's test,
    calling it "the closest move ..., the 4th listed" while the 4th was the farthest
    behind by its numbers; the other way, "ahead of the next move" by 2.4 points while
    the 3rd listed was 0.1 points behind. The list shows the search's move first, then
    the others by value; the gap is to the best of them, the test's clear lead is over
    every listed move."""
    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    out = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const m = (name, visits, p, pts, vt) => ({actions: [name], visits, win_probability: p,
        expected_margin: pts, versus_top: vt || null});
      const vt = (rounds, standard_errors, clear) =>
        ({rounds, standard_errors, clear, alike: false});
      const said = (ms) => {
        const listed = w.listedMoves(ms).map((x) => x.move);
        const r = w.confidence(listed, ['end', 'take deck']);
        return {order: listed.map((x) => x.actions[0]), said: `${r.cue}: ${r.why}`};
      };
      return {
        farthest: said([m('take deck', 300, 0.054, -30.6),
                        m('take H50', 300, 0.032, -35.2, vt(300, 6.0, true)),
                        m('take H48', 150, 0.033, -35.1, vt(150, 5.0, true)),
                        m('take H65', 40, 0.028, -35.8, vt(40, 2.9, true)),
                        m('take H12', 30, 0.060, -30.0, vt(30, 3.0, true))]),
        nearest: said([m('take deck', 300, 0.061, -32.7),
                       m('take H48', 300, 0.058, -35.1, vt(300, 2.5, true)),
                       m('take H25', 100, 0.060, -32.8, vt(100, 0.5, false)),
                       m('take H12', 0, 0, 0)]),
      };
    }""")
    # the 5th by visits is not listed; the rest by value, the search's move first
    assert out["farthest"]["order"] == ["take deck", "take H48", "take H50", "take H65"], out
    assert out["farthest"]["said"] == (
        "clearly best: 300 vs 150 visits, 2.1 win-% and 4.5 points ahead of the next move, "
        "a clear lead over every listed move on the sampled deals each played with it"), out
    assert out["nearest"]["order"] == ["take deck", "take H25", "take H48", "take H12"], out
    assert out["nearest"]["said"] == ("close call: the top moves are within 0.1 win-% and 0.1 "
                                      "points (300 vs 100 visits): either is fine"), out
    assert not pg.js_errors, pg.js_errors


def test_a_small_gap_the_race_is_sure_of_is_no_close_call(server, page):  # noqa: F811
    """A QA pass at a game's final take: every other move scored 1 point less than the
    first on every one of the 1536 sampled deals both played (the paired test at its
    999 bound), yet the hint said "Close call: ... within 1.0 points ...: either is fine,
    though the search is sure of the order". A gap the test is sure of (at the bound, or
    far beyond the race's bar) is a small but sure margin; a small gap with a test just
    past the bar stays a close call."""
    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    out = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const m = (name, visits, p, pts, vt) => ({actions: [name], visits, win_probability: p,
        expected_margin: pts, versus_top: vt || null});
      const vt = (rounds, standard_errors, clear = true) =>
        ({rounds, standard_errors, clear, alike: false, every_round: standard_errors === 999});
      const said = (ms, untried = 0) => {
        const r = w.confidence(ms, ['take H11', 'take deck', 'take H05'], 1, untried);
        return `${r.cue}: ${r.why}`;
      };
      const finalTake = (se) => [m('take H11', 1536, 0, -11.0),
        m('take deck', 1536, 0, -12.0, vt(1536, se)), m('take H05', 1536, 0, -12.0, vt(1536, se))];
      return {
        every: said(finalTake(999.0)),
        far: said([m('take H11', 96, 0.60, 4.0), m('take deck', 96, 0.585, 3.5, vt(96, 14.2))]),
        // the least told-apart move is another than the gap's: the test's deals are its
        farOther: said([m('take H11', 96, 0.60, 4.0), m('take deck', 96, 0.585, 3.5, vt(96, 12.0)),
                        m('take H05', 96, 0.30, -5.0, vt(96, 11.0))]),
        justPast: said(finalTake(3.1)),
        // a candidate never searched could be better: no sure margin
        untried: said(finalTake(999.0), 2),
        // held at the bound, yet not the same amount on every deal: no "every one"
        bound: said([m('take H11', 2000, 0.60, 4.0), m('take deck', 2000, 0.585, 3.5,
          {rounds: 2000, standard_errors: 999, clear: true, alike: false, every_round: false})]),
      };
    }""")
    assert out["every"] == ("best by a small but sure margin: 1.0 points ahead of the next "
                            "move, a lead on every one of the 1536 sampled deals both played "
                            "(1536 visits each; every move's win chance 0.0%)"), out
    assert out["far"] == ("best by a small but sure margin: 1.5 win-% and 0.5 points ahead of "
                          "the next move, a lead of 14.2 standard errors on the 96 sampled "
                          "deals both played (96 visits each)"), out
    assert out["farOther"] == ("best by a small but sure margin: 1.5 win-% and 0.5 points ahead "
                               "of the next move, a lead of 11.0 standard errors on the sampled "
                               "deals each played with it (96 visits each)"), out
    assert out["justPast"] == ("close call: the top moves are within 1.0 points (1536 visits "
                               "each; every move's win chance 0.0%): either is fine, though the "
                               "search is sure of the order on the 1536 sampled deals both "
                               "played"), out
    assert out["untried"].startswith("close call: the top moves are within 1.0 points"), out
    assert out["bound"] == ("best by a small but sure margin: 1.5 win-% and 0.5 points ahead "
                            "of the next move, a lead of 999 or more standard errors on the "
                            "2000 sampled deals both played (2000 visits each)"), out
    assert not pg.js_errors, pg.js_errors
