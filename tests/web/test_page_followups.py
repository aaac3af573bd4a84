"""The page's editors and the page's own services (a real browser against a real server,
the fixtures of test_web_page.py): the card-set editor says what it did in the page's
#announce queue, its lists of cards keep their keys from the page's shortcuts, the keys
help names the editors' keys; a hint waits for the AI's moves being shown, and says the
visits of a line standing for several claims in words."""

from __future__ import annotations

from test_cardset_editor_workflow import SAID, checked, no_js_errors, open_cards, said
from test_web_page import browser, page, server, settle  # noqa: F401 - fixtures


def test_the_card_set_editors_undo_is_said_once_in_the_pages_queue(server, page):  # noqa: F811
    """The card-set editor wrote into #announce with a copy of the page's announce: it
    says what it did through the page's own (editorCtx.announce), one line for an Undo,
    and the queue keeps its last three lines."""
    pg = page
    open_cards(pg, server)
    pg.click("[data-ce-pick='highway:11']")
    checked(pg)
    pg.evaluate(SAID)
    pg.click("[data-ce='delete']")
    checked(pg)
    pg.click("#ce-undo")
    pg.wait_for_function("() => window.__said.some((t) => t.startsWith('Undone: delete H12'))")
    checked(pg)
    pg.click("[data-ce-pick='highway:3']")  # (another step drawn: nothing more is said of the Undo)
    checked(pg)
    undone = [t for t in said(pg) if t.startswith("Undone")]
    assert len(undone) == 1, said(pg)
    assert pg.locator("#announce p").count() <= 3
    assert pg.locator("#announce p").last.inner_text() == said(pg)[-1]
    no_js_errors(pg)


def test_the_pages_shortcuts_wait_on_a_list_of_cards_and_in_a_field(server, page):  # noqa: F811
    """A QA pass: "n" pressed on a card of the card-set editor's lists (moved in with the
    arrow keys) jumped to New game, the set's view left. The lists keep their keys; a text
    field gets the letter typed."""
    pg = page
    open_cards(pg, server)
    pg.focus("[data-ce-pick='highway:0']")
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate("document.activeElement.dataset.cePick") == "highway:1"
    for key in ["n", "N", "?"]:
        pg.keyboard.press(key)
        assert not pg.locator("#cards").is_hidden(), key
        assert pg.evaluate("location.hash") == "#cards", key
        assert pg.evaluate("document.activeElement.dataset.cePick") == "highway:1", key
    assert pg.locator("#keys").is_hidden()
    pg.focus("#ce-setname")
    pg.keyboard.press("End")
    before = pg.locator("#ce-setname").input_value()
    pg.keyboard.press("n")
    assert pg.locator("#ce-setname").input_value() == before + "n"
    assert not pg.locator("#cards").is_hidden()
    pg.focus("[data-ce='add-highway']")  # (a button of the editor: the page's keys act)
    pg.keyboard.press("n")
    pg.wait_for_function("() => !document.getElementById('setup').hidden")
    no_js_errors(pg)


def help_entries(pg) -> dict[str, str]:
    """The keys help as the page shows it: each key's words -> what it does."""
    pg.click("#nav-keys")
    pg.wait_for_selector("#keys:not([hidden])")
    return pg.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#keys dt')]
      .map((dt) => [dt.innerText.replace(/\\s+/g, ' ').trim(),
                    dt.nextElementSibling.innerText.replace(/\\s+/g, ' ').trim()]))""")


def test_the_keys_help_names_the_editors_keys(server, page):  # noqa: F811
    """The ? help listed the game's keys only: not the editors' Undo and Redo (the keys
    their buttons declare in aria-keyshortcuts), nor the arrow keys, Home and End of the
    card-set editor's lists of cards."""
    pg = page
    declared = set()
    for nav, ready, undo, redo in [("#nav-cards", "#ce-ok", "#ce-undo", "#ce-redo"),
                                   ("#nav-editor", "#pe-problems", "#pe-undo", "#pe-redo")]:
        pg.goto(server + "/")
        pg.wait_for_selector("body[data-ready='1']")
        pg.click(nav)
        pg.wait_for_selector(ready)
        for button in (undo, redo):
            declared |= set(pg.locator(button).get_attribute("aria-keyshortcuts").split())
    assert {"Control+Z", "Control+Shift+Z", "Control+Y"} <= declared, declared
    help_ = help_entries(pg)
    text = pg.locator("#keys").inner_text()
    assert "Card sets" in text and "Position editor" in text, text
    for keys in declared:
        if keys.startswith("Meta+"):
            assert "Cmd for Ctrl" in text, text
            continue
        said = keys.replace("Control", "Ctrl")
        entry = [what for key, what in help_.items() if said in key.split(" or ")]
        assert entry, (said, help_)
        assert ("undo" if keys == "Control+Z" else "redo") in entry[0], entry
    arrows = [what for key, what in help_.items() if "\u2190" in key and "\u2193" in key]
    assert arrows and "list of cards" in arrows[0], help_
    home = help_.get("Home End", "")
    assert "list of cards" in home and "first" in home and "last" in home, help_
    assert not pg.js_errors, pg.js_errors


def test_the_position_editors_short_hint_says_the_races_verdict(server, page):  # noqa: F811
    """The position editor said "search longer" after each of its 100-iteration hints, a
    verdict that never came (a verdict needed 100 visits for the top move, which shares
    the 100 iterations with the other moves). Its hint reads the race's paired test now,
    as the table's does (words.js confidence): 100 iterations can tell moves apart, so
    the menu no longer says "(no verdict)" and no note says it never gives one."""
    from test_editors import build_step_position
    from test_position_editor_workflow import load_box

    pg = page
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-editor")
    pg.wait_for_selector("#pe-problems")
    load_box(pg, build_step_position()[0])
    assert pg.locator("#pe-budget option[value='iterations:100']").inner_text() == "100 iterations"
    pg.select_option("#pe-budget", "iterations:100")
    pg.click("#pe-hint")
    pg.wait_for_selector("#pe-moves li", timeout=60_000)
    line = pg.locator("#pe-conf").inner_text()
    assert "sampled deals both played" in line, line
    assert pg.locator("#pe-conf #pe-noverdict").count() == 0, line
    # without a race (no paired test), a 100-iteration search's "too few" still says it
    # never gives a verdict; a longer search's, or a race's, is no such note
    words = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const conf = {cue: 'too few iterations to tell', paired: false};
      const menu = [{value: 'iterations:100', label: '100 iterations'},
                    {value: 'ms:500', label: '0.5 s'}];
      return [w.noVerdictWords(conf, 1000, menu, 'here'), w.noVerdictWords(null, 100, menu, 'here'),
              w.noVerdictWords({...conf, paired: true}, 100, menu, 'here'),
              w.noVerdictWords(conf, 100, menu.slice(0, 1), 'here'),
              w.noVerdictWords(conf, 100, menu, 'here')]; }""")
    assert words[:3] == ["", "", ""], words
    assert words[3].endswith("for the top move)."), words  # (no choice to name)
    assert words[4] == ("A search of 100 iterations never gives a verdict (it needs 100 visits "
                        "for the top move): choose 0.5 s here for one."), words
    assert not [e for e in pg.js_errors if "status of" not in e], pg.js_errors


def test_a_hint_waits_for_the_ai_moves_being_shown(server, page):  # noqa: F811
    """A QA pass: H pressed while the AI's moves were shown one by one gave a hint naming
    Depot cards the table had not shown yet (the Depot as it stood before the AI's takes),
    where the other keys said to wait. H and the hint button are refused then with the
    same words, and the hint is asked once the moves are over (here skipped with Esc).
    The AI's moves are kept on the screen by holding the score requests they wait for."""
    from test_page_hints import ask_hint
    from test_web_page import to_the_first_build_step

    pg = page
    to_the_first_build_step(pg, server + "/?speed=900", seed=5)
    held = []
    pg.route("**/v1/score", lambda route: held.append(route))
    pg.keyboard.press("e")
    pg.wait_for_function("window.bigsur.state.animating")
    hints = []
    pg.on("request", lambda r: hints.append(r.url) if r.url.endswith("/hint") else None)
    wait_ai = pg.evaluate("""() => {
      document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '1', bubbles: true}));
      return document.querySelector('#alert-text').textContent; }""")
    assert wait_ai.startswith("Wait for the AI's moves to finish"), wait_ai
    for key, on in (("h", "body"), ("Enter", "#hint-btn")):  # (a busy page's button takes
        pg.evaluate("document.querySelector('#alert-text').textContent = ''")  # no pointer)
        pg.focus(on)
        pg.keyboard.press(key)
        assert pg.locator("#alert-text").inner_text() == wait_ai
        assert pg.evaluate("window.bigsur.state.hint") is None
    pg.keyboard.press("Escape")
    for route in held:
        route.continue_()
    pg.unroute("**/v1/score")
    settle(pg)
    assert pg.locator("#alert").is_hidden(), pg.locator("#alert").inner_text()
    assert not hints, hints
    ask_hint(pg)
    assert "Play this" in pg.locator("#hint").inner_text()
    assert len(hints) == 1, hints
    assert not pg.js_errors, pg.js_errors


def test_a_merged_claims_visits_say_which_claim_had_which(server, page):  # noqa: F811
    """A QA pass: a hint line standing for claims above different cards with the same
    numbers (words.js mergedClaims) printed its members' visits joined, "384, 6 visits",
    which no player could read. It says which claim had which, the most tried first."""
    from test_page_hints import ask_hint, fake_hint, two_claims_built
    from test_page_qa import to_two_possible_claims

    pg = page
    to_two_possible_claims(pg, server)
    same = {"win_probability": 0.012, "expected_margin": -21.5}
    fake_hint(pg, two_claims_built(), [
        {"actions": ["claim L03 H04"], "visits": 384, **same},
        {"actions": ["claim L03 H41"], "visits": 6, **same},
        {"actions": ["end"], "win_probability": 0.005, "expected_margin": -25.0, "visits": 100}])
    ask_hint(pg)
    line = pg.locator("#hint .hintlist > li").first
    assert line.locator(".hintrow b").inner_text() == \
        "You claim Pfeiffer Beach (L03) above H04 or H41"
    assert line.locator(".hintnums .muted").inner_text() == "384 visits above H04, 6 above H41"
    assert not pg.js_errors, pg.js_errors


def test_a_pasted_record_is_named_as_pasted_and_its_refusal_does_not_stay(server, page):  # noqa: F811
    """A QA pass on the review's paste box: an empty paste said "the file is empty"; a
    pasted record's review read "Reviewing the uploaded record the pasted record"; the
    address stayed as it was while the upload's review was shown (a reload could show
    another review); a refusal ("the pasted record: ...") stayed on the screen after
    another review was opened. An empty paste says nothing was pasted; the review says
    it reviews the pasted record, the address names the upload (a reload shows it again);
    a refusal goes once a review is opened again."""
    import json

    from test_web_page import fresh_page

    from solver.cli import play_random_game

    pg = page
    fresh_page(pg, server + "/?review=iterations:5")
    pg.click("#nav-review")
    pg.wait_for_selector("#review:not([hidden]) #review-file")
    pg.click(".review-paste summary")
    error = pg.locator("#review-upload-error")
    pg.click("#review-paste-go")
    assert error.inner_text() == "the pasted record: nothing was pasted"

    record = play_random_game(2, seed=5).to_json()
    record["actions"] = record["actions"][:8]
    pg.fill("#review-paste", json.dumps(record))
    pg.click("#review-paste-go")
    assert error.is_hidden()
    pg.wait_for_function("() => { const u = window.bigsur.state.upload; return u && u.result; }",
                         timeout=120_000)
    assert pg.locator("#review-source").inner_text() == "Reviewing the pasted record"
    assert pg.evaluate("location.hash") == "#review=upload"
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline", timeout=120_000)
    assert pg.locator("#review-source").inner_text() == "Reviewing the pasted record"

    pg.click(".review-paste summary")
    pg.fill("#review-paste", "{")
    pg.click("#review-paste-go")
    assert error.inner_text().startswith("the pasted record: "), error.inner_text()
    pg.click("#nav-new")
    pg.click("#nav-review")
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline")
    assert error.is_hidden(), error.inner_text()
    assert not pg.js_errors, pg.js_errors


def test_game_keys_say_why_they_cannot_act_and_one_that_acts_clears_the_refusal(server, page):  # noqa: F811
    """A QA pass (keyboard): V in an unfinished game did nothing and said nothing; ] at
    the take step selected a hand card that nothing spoke of, and the first take dropped
    it; L with no card payable said "select another card of your hand" where the hand's
    line says no card can be paid for; after C was refused, P moved the focus to the
    payment panel with the refusal still on the screen. V says when the review opens; a
    card selected at the take step is said in the action bar and kept for the build
    step; L says what the hand's line says; a key that acts takes the refusal away, as
    an action does. (Seed 9 deals the player first, and no card payable after two deck
    takes.)"""
    from test_web_page import start_a_game_against_greedy

    pg = page
    start_a_game_against_greedy(pg, server + "/?speed=0", seed=9)
    settle(pg)
    alert = pg.locator("#alert-text")
    pg.keyboard.press("v")
    assert alert.inner_text() == "The review opens when the game is over."
    pg.keyboard.press("]")
    settle(pg)
    chosen = pg.evaluate("window.bigsur.state.selected")
    assert pg.locator("#hand .cardbtn.selected").get_attribute("data-select") == chosen
    bar = pg.locator("#actionbar").inner_text()
    assert f"Selected {chosen}: you can build it once you have taken your cards." in bar, bar
    for _ in range(2):
        pg.locator("#deck .cardbtn").click()
        settle(pg)
    assert pg.locator("#hand .cardbtn.selected").get_attribute("data-select") == chosen
    assert f"Selected {chosen}" in pg.locator("#actionbar").inner_text()

    pg.keyboard.press("c")
    assert alert.inner_text() == "No Landmark can be claimed now."
    pg.keyboard.press("]")
    assert pg.locator("#hand .cardbtn.selected").count() == 1
    assert pg.locator("#alert").is_hidden(), alert.inner_text()
    pg.keyboard.press("l")
    hand_line = pg.locator("#handinfo").inner_text()
    assert hand_line == "You cannot pay for any card now."
    assert alert.inner_text() == "You cannot pay for any card now: end your turn."
    pg.keyboard.press("c")
    pg.keyboard.press("p")
    assert pg.evaluate("document.getElementById('paybox').contains(document.activeElement)")
    assert pg.locator("#alert").is_hidden(), alert.inner_text()
    assert not pg.js_errors, pg.js_errors


def test_a_score_breakdown_opened_in_one_game_is_not_open_in_the_next(server, page):  # noqa: F811
    """A QA pass: a seat's score breakdown opened in one game was open in the next game
    shown (the open seats were kept for the page, not for the game). They are kept across
    the redraws of one game only."""
    from test_page_qa import continue_position, ragged_point_position
    from test_page_races import another_game_against_greedy

    pg = page
    continue_position(pg, server, ragged_point_position(), 0)
    first = pg.evaluate("window.bigsur.state.game.id")
    pg.locator("#seats .seat.me details.score summary").click()
    pg.locator("#seats .seat.me details.score .breakdown").wait_for(state="visible")
    another_game_against_greedy(pg)  # then back to the first from the games list
    pg.click("#nav-new")
    pg.wait_for_selector("#setup:not([hidden])")
    pg.click(f"[data-open-game='{first}']")
    pg.wait_for_function("(a) => location.hash === '#game=' + a", arg=first)
    settle(pg)
    assert pg.locator("#seats .seat.me details.score").count() == 1
    assert pg.locator("#seats .seat.me details.score[open]").count() == 0
    # within a game it stays open across redraws (test_page_a11y), and opens again
    pg.locator("#seats .seat.me details.score summary").click()
    pg.keyboard.press("]")  # a card selected: the table drawn again
    settle(pg)
    assert pg.locator("#seats .seat.me details.score[open]").count() == 1
    assert not pg.js_errors, pg.js_errors
