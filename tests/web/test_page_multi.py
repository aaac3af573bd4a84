"""The play page in 3- and 4-player games, as a player meets it (a QA pass): each fault
found is proved here in a real browser against a real server (same setup as
test_web_page.py: a real uvicorn, Debian's Chromium through Playwright).
"""

from __future__ import annotations

from test_web_page import (  # noqa: F401 - fixtures
    browser,
    fresh_page,
    page,
    play_out_by_api,
    server,
    settle,
)


def words_in_page(pg, base: str, script: str):
    """``script`` (the body of an async function with ``w``, the page's words.js) run in
    the page."""
    pg.goto(base + "/")
    pg.wait_for_selector("body[data-ready='1']")
    return pg.evaluate("async () => { const w = await import('/js/words.js');\n"
                       + script + "\n}")


def test_another_players_payment_is_not_called_yours(server, page):  # noqa: F811
    """An AI's build in the review (its list of decisions, the turning points, "better"
    moves) read "AI 3 (easy) builds H36 ..., paying: the Persistent stone of H03 in your
    Highway; recycle the top of your discard pile": H03 was in AI 3's Highway, the pile
    AI 3's, and the reader's own road had no H03. Another player's payment says
    "their"; the reader's own still says "your", also where another player borrows from
    it (it said "from You's Highway")."""
    pg = page
    out = words_in_page(pg, server, """
      const cards = {highway: {H03: {material: 'water', persistent: 'stone'},
                               H23: {material: 'engineering'}, H36: {material: 'steel'}},
                     landmarks: {}};
      const ctx = {cards, seatName: (i) => 'AI ' + (i + 1) + ' (easy)'};
      const act = 'build H36 L pay per:H03 rec H23 bh:0:H03';
      // the reader's own Highway and discard pile, borrowed from by an AI
      const mine = {...ctx, seatName: (i) => (i === 0 ? 'You' : 'AI ' + (i + 1) + ' (easy)'),
                    discardTops: ['stone']};
      return {ai: w.actionWords(act, ctx, 'AI 3 (easy)'), me: w.actionWords(act, ctx, 'You'),
              seat: w.actionWords(act, ctx, 'Player 2'),
              fromMe: w.actionWords('build H36 L pay bh:0:H03 bd:0', mine, 'AI 2 (easy)'),
              owners: [w.possessive('You'), w.possessive('You', true),
                       w.possessive('AI 2 (easy)')]};
    """)
    assert out["ai"] == ("AI 3 (easy) builds H36 at the left end, paying: the Persistent stone "
                         "of H03 in their Highway; recycle the top of their discard pile; "
                         "discard H23 (engineering); borrow the Persistent stone of H03 from "
                         "AI 1 (easy)'s Highway"), out["ai"]
    assert "in their Highway" in out["seat"] and "of their discard pile" in out["seat"]
    assert "in your Highway" in out["me"] and "of your discard pile" in out["me"]
    # borrowed from the reader: "your", never "You's" (the review's list and graph said
    # "borrow the Persistent stone of H09 from You's Highway")
    assert out["fromMe"] == ("AI 2 (easy) builds H36 at the left end, paying: borrow the "
                             "Persistent stone of H03 from your Highway; borrow the top of "
                             "your discard pile (stone)"), out["fromMe"]
    assert out["owners"] == ["your", "Your", "AI 2 (easy)'s"]
    assert not pg.js_errors, pg.js_errors


def start_game(pg, base: str, seats: list[str], url: str = "/?speed=0") -> None:
    """A fresh page (nothing remembered), a game of ``len(seats)`` players started with
    these seat choices (seat 0 "human"), the table settled on the human's turn."""
    fresh_page(pg, base + url)
    pg.select_option("#setup-players", str(len(seats)))
    for i, spec in enumerate(seats):
        pg.select_option(f"#seat-{i}", spec)
    pg.click("#setup-start")
    pg.wait_for_selector("#game:not([hidden])")
    settle(pg)


def test_ai_seats_are_named_in_words_not_bot_notation(server, page):  # noqa: F811
    """The setup offers "AI \u2014 MCTS 200 iterations" and "AI \u2014 random moves", but the
    table, the log and the scores then called the seats "AI 3 (mcts:200i)" and "AI 2
    (random)": the server's bot notation. They are named as chosen."""
    pg = page
    start_game(pg, server, ["human", "random", "mcts:200i"])
    heads = pg.locator("#seats .seat-head h2").all_inner_texts()
    assert heads == ["AI 2 (random moves)", "AI 3 (MCTS 200 iterations)", "Your Highway"], heads
    pg.locator("#deck .cardbtn").click()
    settle(pg)
    pg.locator("#deck .cardbtn").click()
    settle(pg)
    pg.locator("#actionbar .endbtn").click()
    settle(pg)  # both AIs have played a turn
    who = set(pg.locator("#log .who").all_inner_texts())
    assert who == {"You", "AI 2 (random moves)", "AI 3 (MCTS 200 iterations)"}, who
    assert "mcts:" not in pg.locator("body").inner_text()
    assert not pg.js_errors, pg.js_errors


def test_what_decided_a_3_player_game_is_the_winners_lead(server, page):  # noqa: F811
    """With 3 or 4 players, "What decided it" (on the final scores and the review)
    compared the winner with the reader however far behind: "What decided it: Stretches
    \u2014 AI 3 (easy) 33, You 6 points." in a game AI 3 won 63 to AI 2's 62, which 2-Mile
    bonuses (19 to 12) decided; Stretches were 33 to 32. It compares the winner with the
    runner-up (the reader, in 2 players, when not the winner), and says nothing of a
    shared win."""
    pg = page
    out = words_in_page(pg, server, """
      const row = (stretches, bonuses, landmark_count, landmark_abilities) => ({stretches,
        bonuses, landmark_count, landmark_abilities,
        total: stretches + bonuses + landmark_count + landmark_abilities});
      const names = (i) => (i === 0 ? 'You' : 'AI ' + (i + 1) + ' (easy)');
      const three = {scores: [row(6, 2, 0, 0), row(32, 12, 5, 13), row(33, 19, 8, 3)],
                     winners: [2]};
      const two = {scores: [row(6, 2, 0, 0), row(32, 12, 5, 13)], winners: [1]};
      const tie = {scores: [row(6, 2, 0, 0), row(10, 2, 0, 0), row(8, 4, 0, 0)],
                   winners: [1, 2]};
      return [w.decidingCategory(three, names), w.decidingCategory(two, names),
              w.decidingCategory(tie, names)];
    """)
    assert out == ["What decided it: 2-Mile bonuses \u2014 AI 3 (easy) 19, AI 2 (easy) 12 points.",
                   "What decided it: Stretches \u2014 AI 2 (easy) 32, You 6 points.",
                   None], out
    assert not pg.js_errors, pg.js_errors


def test_review_detail_says_as_you_saw_it(server, page):  # noqa: F811
    """A finished 3-player game's review: a decision's "Open in the position editor"
    said "(the position as You saw it, ...)", a capital You inside the sentence."""
    pg = page
    start_game(pg, server, ["human", "greedy", "greedy"], "/?speed=0&review=iterations:1")
    play_out_by_api(server, pg)
    pg.reload()
    pg.wait_for_selector("#final-review-summary:has-text('Review ready')", timeout=60_000)
    pg.click("#final-review")
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline")
    mine = pg.evaluate("window.bigsur.state.data.log.find((e) => e.seat === 0).index")
    pg.click(f"#review-list [data-decision='{mine}']")
    pg.wait_for_selector("#review-detail #review-open-editor")
    text = pg.locator("#review-detail").inner_text()
    assert "(the position as you saw it, to try other moves)" in text, text[:600]
    assert not pg.js_errors, pg.js_errors


def test_games_list_counts_rounds_as_the_table_does(server, page):  # noqa: F811
    """The list of past games said "turn 2, in progress" for a 4-player game whose table
    said "Round 2 of 7" (its 5th turn or later: the review counts every player's turn).
    It says "round 2"."""
    pg = page
    start_game(pg, server, ["human", "greedy", "greedy", "greedy"])
    for _ in range(2):
        pg.locator("#deck .cardbtn").click()
        settle(pg)
    pg.locator("#actionbar .endbtn").click()
    settle(pg)  # every AI has played: the human's turn of round 2
    assert "Round 2 of 7" in pg.locator("#status").inner_text()
    pg.click("#nav-new")
    pg.wait_for_selector("#games-list [data-open-game]")
    row = pg.locator("#games-list li").first.inner_text()
    assert "round 2, in progress" in row and "turn" not in row, row
    assert not pg.js_errors, pg.js_errors


def test_a_persistent_material_used_twice_is_said_as_such(server, page):  # noqa: F811
    """A 3-player review said "paying: the Persistent stone of H14 in their Highway; the
    Persistent stone of H14 in their Highway" where a Landmark's ability (an extra use a
    turn) let the same card give its Material twice: the second use is said as such."""
    pg = page
    out = words_in_page(pg, server, """
      const cards = {highway: {H14: {material: 'water', persistent: 'stone'},
                               H20: {material: 'steel'}}, landmarks: {}};
      const ctx = {cards, seatName: (i) => 'AI ' + (i + 1) + ' (easy)'};
      return {ai: w.actionWords('build H20 R pay per:H14 per:H14', ctx, 'AI 3 (easy)'),
              me: w.actionWords('build H20 R pay per:H14 per:H14', ctx, 'You'),
              mats: w.stepsInWords(['per:H14', 'per:H14'], ctx).map((s) => s.material)};
    """)
    assert out["ai"] == ("AI 3 (easy) builds H20 at the right end, paying: the Persistent "
                         "stone of H14 in their Highway; the same stone of H14 again (an "
                         "extra use)"), out["ai"]
    assert out["me"].endswith("the Persistent stone of H14 in your Highway; the same stone "
                              "of H14 again (an extra use)"), out["me"]
    assert out["mats"] == ["stone", "stone"]  # each use still gives its Material
    assert not pg.js_errors, pg.js_errors


# What a seat's header and Highway show, as the JS expression of its element ``el``
SEAT_NUMBERS_JS = ("[(el.querySelector('.seat-head .score') || {}).innerHTML + ' ' + "
                   "(el.querySelector('.seat-head .muted.small') || {}).innerHTML, "
                   "(el.querySelector('.hwwrap') || {}).innerHTML]")


def watch_the_ai_turns(pg, base: str, seat_js: str) -> tuple[int, list[dict]]:
    """Play the 4-player mid-game of seed 3 (40 actions in) as its seat to act: two deck
    takes and the end of the turn, after which the three AI turns are shown one move at
    a time (120 ms each). Returns the seat played and what the page showed at each change
    of its status from that end on: ``{"caption"`` (the status line), ``"index"`` (the
    log entry shown as it is played, None when none), ``"animating"`` (the AI's moves
    being shown), ``"seats"``: ``{seat: what the JS expression seat_js gives of its
    element el}}``; the page is then at the seat's next turn."""
    from rules_testkit import random_mid_game
    from test_page_qa import continue_position

    from solver.rules.position import state_to_json

    st = state_to_json(random_mid_game(4, seed=3, actions=40))
    me = st["current"]
    continue_position(pg, base, st, me)
    pg.select_option("#ai-speed", "120")
    pg.evaluate("""() => {
      window.seen = [];
      new MutationObserver(() => {
        const now = document.querySelector('#log li.now'), seats = {};
        for (const el of document.querySelectorAll('#seats .seat')) {
          seats[el.dataset.seat] = (SEAT_JS);
        }
        window.seen.push({caption: document.querySelector('#status-line').innerText,
                          index: now ? Number(now.dataset.index) : null,
                          animating: !document.querySelector('#skip-btn').hidden, seats});
      }).observe(document.querySelector('#status'), {childList: true, subtree: true});
    }""".replace("SEAT_JS", seat_js))
    for _ in range(2):
        pg.locator("#deck .cardbtn").click()
        settle(pg)
    before = pg.evaluate("window.seen.length")
    pg.keyboard.press("e")
    pg.wait_for_function("document.querySelector('#status').innerText.includes('Your turn')",
                         timeout=90_000)
    settle(pg)
    return me, pg.evaluate("window.seen")[before:]


def test_a_seats_numbers_follow_its_cards_while_the_ai_turns_are_shown(server, page):  # noqa: F811
    """A QA pass (4 players, speed "slow"): while AI 4's turn was shown ("AI 4 (normal)
    claims ... L04 above H08"), its Highway showed the cards but its header still said
    "0 pts · hand 2 · discard 3" with no Stretch bar, and "11 pts" only after the moves.
    A seat's points, hand and discard counts and Stretch bars at the step that ends its
    turn are as the table then stays (each build's own step: the next test, and
    test_page_navigation's for the points)."""
    pg = page
    me, seen = watch_the_ai_turns(pg, server, SEAT_NUMBERS_JS)
    final = pg.evaluate("""() => {
      const seats = {};
      for (const el of document.querySelectorAll('#seats .seat')) {
        seats[el.dataset.seat] = (SEAT_JS);
      }
      return seats;
    }""".replace("SEAT_JS", SEAT_NUMBERS_JS))
    names = {i: pg.locator(f"#seats .seat[data-seat='{i}']").get_attribute("aria-label")
             for i in range(4) if i != me}
    checked = 0
    for i, name in names.items():
        ends = [x for x in seen if x["caption"].startswith(name) and
                (" ends the turn" in x["caption"] or " claims " in x["caption"])]
        assert len(ends) == 1, (name, [x["caption"] for x in seen])
        head, road = ends[0]["seats"][str(i)]
        assert head == final[str(i)][0], (ends[0]["caption"], head, final[str(i)][0])
        assert road == final[str(i)][1], ends[0]["caption"]  # the Stretch bars too
        checked += 1
    assert checked == 3
    # the moves changed what a seat's header says (or the test proves nothing)
    start = seen[0]["seats"]
    assert any(start[str(i)][0] != final[str(i)][0] for i in names), start
    assert not pg.js_errors, pg.js_errors


def test_a_seats_hand_and_discard_counts_follow_each_step_of_the_ai_turns(server, page):  # noqa: F811
    """A review: while the AI's turn was shown, a seat built with cards from its hand and
    its header still said the hand and discard of before, both jumping at its turn's
    end. A build's payment is public in its counts (the pile grows by the cards' backs;
    the log says how many and which known ones): a take adds one card to the hand, a
    build takes the card and the cards paid from it and puts those on the discard pile,
    and the turn's end changes neither."""
    import re
    from itertools import pairwise

    pg = page
    _me, seen = watch_the_ai_turns(pg, server,
                                   "el.querySelector('.seat-head .muted.small').innerText")
    log = pg.evaluate("window.bigsur.state.data.log")
    steps = {}  # each move shown: the seats' headers as it showed them
    for x in seen:
        if x["index"] is not None and x["animating"]:
            steps[x["index"]] = x["seats"]
    shown = sorted(steps)
    assert len(shown) >= 9, shown  # (three AI turns: two takes and an end at least)

    def counts(head: str) -> tuple[int, int]:
        found = re.search(r"hand (\d+)\b.*\bdiscard (\d+)", head)
        assert found, head
        return int(found[1]), int(found[2])

    paid_at_a_build = 0
    for k, j in pairwise(shown):
        entry = log[j]
        assert entry["index"] == j and j == k + 1, (k, j)
        seat = str(entry["seat"])
        (hand, pile), (hand_then, pile_then) = counts(steps[k][seat]), counts(steps[j][seat])
        verb = entry["action"].split()[0]
        if verb == "take":
            assert (hand_then, pile_then) == (hand + 1, pile), entry
        elif verb == "build":
            assert (hand_then, pile_then) == (hand - 1 - entry["cards_spent"],
                                              pile + entry["cards_spent"]), entry
            paid_at_a_build += entry["cards_spent"] > 0
        else:  # end, claim
            assert (hand_then, pile_then) == (hand, pile), entry
    assert paid_at_a_build, [log[j]["action"] for j in shown]  # (or it proves little)
    assert not pg.js_errors, pg.js_errors
