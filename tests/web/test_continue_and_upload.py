"""The two ways out of the editors and into play or review, in a real browser (issue 14):

- a 3-player mid-game position loaded into the position editor through its
  ``#position=`` link, refused while the seat asking is not to act (the reason shown,
  naming the seat to act), then continued as a game against the AI: a move is made and
  the AI answers;
- a record file uploaded in the review (first bad files: not JSON, a wrong field, an
  illegal action, each named), reviewed, stepped through by keyboard, and a decision's
  position opened in the editor. The record's seed is above 2**53: the page sends the
  file's own text.

Same setup as test_web_page.py (a real uvicorn, Debian's Chromium through Playwright).
Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

import json

from rules_testkit import random_mid_game
from test_web_page import SEED, browser, fresh_page, log_count, page, server, settle, shot  # noqa: F401

from solver.cli import play_random_game
from solver.rules.position import state_to_json
from solver.rules.views import view_of, view_to_json


def editor_link(pg, state: dict, seat: int) -> str:
    """The editor's own ``#position=`` link for the seat's view of a full state (as
    :func:`state_to_json` writes it)."""
    return pg.evaluate("""async ([st, seat]) => {
      const m = await import('/js/views/position-editor.js');
      const cards = await (await fetch('/v1/cards/default')).json();
      const mat = Object.fromEntries(cards.highway.map((c) => [c.id, c.material]));
      return m.encode(m.viewOfState(st, seat, (id) => mat[id]));
    }""", [state, seat])


def test_continue_an_edited_position_as_a_game_against_the_ai(server, page):  # noqa: F811
    pg = page
    state = random_mid_game()
    me = state.current
    expected = view_to_json(view_of(state, me))
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1']")
    link = editor_link(pg, state_to_json(state), me)
    pg.goto("about:blank")
    pg.goto(f"{server}/?speed=120#position={link}")
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    pg.click("#pe-json")
    pg.wait_for_selector("#pe-copied")
    # the editor keeps the whole view (my discard fronts the others saw included)
    assert json.loads(pg.locator("#pe-jsonbox").input_value()) == expected

    # asking as a seat that is not to act: refused, the reason in the page's words (its
    # Player numbers, not the server's seat indices)
    other = (me + 1) % 3
    pg.select_option("#pe-me", str(other))
    pg.click("#pe-continue")
    pg.wait_for_selector("#pe-error")
    refusal = pg.locator("#pe-error").inner_text()
    assert "Cannot continue as a game" in refusal, refusal
    assert f"Player {me + 1} is to act, not you (Player {other + 1})" in refusal, refusal
    assert not pg.locator("#game").is_visible()
    pg.select_option("#pe-me", str(me))
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    shot(pg, "26-position-to-continue", full=True)

    pg.select_option("#pe-ai", "greedy")
    pg.click("#pe-continue")
    pg.wait_for_selector("#game:not([hidden])", timeout=60_000)
    settle(pg)
    assert "Your turn" in pg.locator("#status").inner_text()
    data = pg.evaluate("window.bigsur.state.data")
    assert data["view"] == expected  # the game starts from exactly the edited position
    assert data["seat"] == me and data["fairness"] is None
    assert log_count(pg) == 0
    shot(pg, "27-continued-game", full=True)

    # my move: two cards from the deck, then end the turn; the AI seats answer
    pg.keyboard.press("d")
    settle(pg)
    pg.keyboard.press("d")
    settle(pg)
    pg.keyboard.press("e")
    pg.wait_for_function("document.querySelector('#status').innerText.includes('Your turn')",
                         timeout=90_000)
    settle(pg)
    data = pg.evaluate("window.bigsur.state.data")
    seats_moved = {e["seat"] for e in data["log"]}
    assert seats_moved == {0, 1, 2}, data["log"]  # I moved, and both AI seats answered
    assert data["your_turn"] and data["view"]["turn"] == expected["turn"] + 3
    assert log_count(pg) == len(data["log"])
    shot(pg, "28-continued-game-ai-answered", full=True)
    assert not [e for e in pg.js_errors if "status of 422" not in e], pg.js_errors


def upload(pg, name: str, text: str) -> None:
    pg.set_input_files("#review-file", files=[{"name": name, "mimeType": "application/json",
                                               "buffer": text.encode()}])


def upload_error_has(pg, text: str) -> str:
    pg.wait_for_function("(t) => { const e = document.querySelector('#review-upload-error');"
                         " return !e.hidden && e.innerText.includes(t); }", arg=text)
    return pg.locator("#review-upload-error").inner_text()


def test_review_an_uploaded_record_and_step_through_it(server, page):  # noqa: F811
    pg = page
    record = play_random_game(2, seed=SEED)
    assert record.seed > 2**53
    text = json.dumps(record.to_json(), indent=1)
    pg.goto(server + "/?review=iterations:5")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-review")
    pg.wait_for_selector("#review:not([hidden]) #review-file")
    assert "Upload a record" in pg.locator("#review-summary").inner_text()

    # bad files: each named, nothing reviewed, nothing broken
    upload(pg, "notes.txt", "this is not a record")
    assert "notes.txt: not JSON" in upload_error_has(pg, "not JSON")
    upload(pg, "wrong.json", json.dumps({**record.to_json(), "players": 7}))
    assert "players: must be 2, 3 or 4" in upload_error_has(pg, "wrong.json")
    illegal = record.to_json()
    illegal["actions"][3] = "claim L01 H01"
    upload(pg, "illegal.json", json.dumps(illegal))
    message = upload_error_has(pg, "illegal.json")
    assert "actions[3]" in message, message
    # its seat as the review names its players (the server counts seats from 0)
    assert "for Player " in message and "for seat" not in message, message
    assert pg.locator("#review-graph svg").count() == 0
    shot(pg, "29-review-upload-error", full=True)

    upload(pg, "my-game.json", text)
    pg.wait_for_selector("#review-graph svg polyline", timeout=120_000)
    assert pg.locator("#review-upload-error").is_hidden()
    assert "my-game.json" in pg.locator("#review-source").inner_text()
    assert pg.locator("#review-list .decision").count() == len(record.actions)
    assert "Player 1 (random moves)" in pg.locator("#review-summary").inner_text()
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.querySelector('#review-detail').innerText.includes('Move 1:')")
    pg.wait_for_selector("#review-detail .minitable svg.card")
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.querySelector('#review-detail').innerText.includes('Move 3:')")
    pg.wait_for_selector("#review-detail .minitable svg.card")
    assert pg.locator("#review-graph line.cursor").count() == 1
    shot(pg, "30-review-uploaded", full=True)
    # the position at that decision is the record's: the server replays the job's record
    st = pg.evaluate("window.bigsur.state.upload.position.st")
    assert st["depot"] == state_to_json(record_prefix(record, 2))["depot"]

    pg.click("#review-open-editor")
    pg.wait_for_selector("#editor:not([hidden]) #pe-problems")
    pg.wait_for_selector("#pe-problems:has-text('No problem found')")
    shot(pg, "31-uploaded-review-in-editor", full=True)
    pg.click("#nav-review")  # back to the uploaded record's review
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline")
    assert "my-game.json" in pg.locator("#review-source").inner_text()
    assert not [e for e in pg.js_errors if "status of 422" not in e], pg.js_errors


def record_prefix(record, n: int):
    from solver.rules.record import GameRecord

    return GameRecord(record.cards, record.players, seed=record.seed,
                      actions=record.actions[:n]).replay()


# ---------------------------------------------------------------- a kept upload's review
KEPT = "JSON.parse(localStorage.getItem('bigsur.upload') || 'null')"


def analyse_posts(pg) -> list[str]:
    """The analyses the page submits from now on (POST /v1/analyze), across reloads."""
    posts: list[str] = []
    pg.on("request", lambda r: posts.append(r.url)
          if r.method == "POST" and r.url.endswith("/v1/analyze") else None)
    return posts


def short_record(actions: int = 14) -> dict:
    record = play_random_game(2, seed=5).to_json()
    record["actions"] = record["actions"][:actions]
    return record


def upload_and_review(pg, base: str, name: str, text: str, budget: str = "iterations:5") -> None:
    pg.goto(f"{base}/?review={budget}")
    pg.wait_for_selector("body[data-ready='1']")
    pg.click("#nav-review")
    pg.wait_for_selector("#review:not([hidden]) #review-file")
    upload(pg, name, text)


def reload_page(pg) -> None:
    pg.reload()
    pg.wait_for_selector("body[data-ready='1']")


def test_a_finished_uploaded_review_is_shown_again_after_a_reload(server, page):  # noqa: F811
    """An uploaded record's review lived only in the page: a reload (or leaving and coming
    back) lost it, and the record had to be uploaded and analysed again. The latest
    upload's review is kept in the browser: the page comes back to it, with its result,
    its decision and its positions, and asks the server for no second analysis."""
    pg = page
    posts = analyse_posts(pg)
    record = short_record()
    upload_and_review(pg, server, "kept.json", json.dumps(record))
    pg.wait_for_selector("#review-graph svg polyline", timeout=120_000)
    pg.click("#review-list [data-decision='2']")
    pg.wait_for_selector("#review-detail .minitable svg.card")
    kept = pg.evaluate(KEPT)
    assert kept["name"] == "kept.json" and kept["result"] and kept["selected"] == 2, kept.keys()
    result = pg.evaluate("window.bigsur.state.upload.result")

    reload_page(pg)  # left on the upload's review: back to it
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline")
    assert "kept.json" in pg.locator("#review-source").inner_text()
    assert pg.evaluate("window.bigsur.state.upload.result") == result
    assert pg.locator("#review-list .decision").count() == len(record["actions"])
    assert "Player 1 (random moves)" in pg.locator("#review-summary").inner_text()
    pg.wait_for_function("document.querySelector('#review-detail').innerText.includes('Move 3:')")
    pg.wait_for_selector("#review-detail .minitable svg.card")  # replayed from the kept text
    assert pg.locator("#review-list .decision.selected").get_attribute("data-decision") == "2"
    assert pg.locator("#review-lost").is_hidden()

    # left for the setup screen, then back later: the Review tab offers it again
    pg.click("#nav-new")
    reload_page(pg)
    assert pg.locator("#setup").is_visible()
    pg.click("#nav-review")
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline")
    assert "kept.json" in pg.locator("#review-source").inner_text()
    assert pg.locator("#review-run").inner_text() == "Analyse again"
    assert len(posts) == 1, posts  # shown again without a second analysis
    assert not pg.js_errors, pg.js_errors


def test_a_running_uploaded_review_is_picked_up_after_a_reload(server, page):  # noqa: F811
    """A reload while an uploaded record's review ran: its job went on on the server but
    the page forgot its id. The page picks the same job up by its id, shows its progress
    and its result."""
    pg = page
    posts = analyse_posts(pg)
    record = play_random_game(2, seed=7).to_json()
    upload_and_review(pg, server, "running.json", json.dumps(record), "ms:30")  # some 5 s
    job_id = pg.wait_for_function(f"(() => {{ const k = {KEPT}; return k && k.jobId; }})()"
                                  ).json_value()
    followed: list[str] = []
    pg.on("request", lambda r: followed.append(r.url) if "/v1/analyze/" in r.url else None)
    reload_page(pg)
    pg.wait_for_selector("#review:not([hidden])")
    # still running after the reload: its progress, from the same job
    pg.wait_for_function("!document.querySelector('#review-progress').hidden"
                         " && document.querySelector('#review-status').innerText"
                         ".includes('decisions')")
    assert "running.json" in pg.locator("#review-source").inner_text()
    assert "The analysis is running" in pg.locator("#review-summary").inner_text()
    pg.wait_for_selector("#review-graph svg polyline", timeout=120_000)
    assert pg.locator("#review-progress").is_hidden()
    assert followed and all(u.endswith("/v1/analyze/" + job_id) for u in followed), followed
    assert pg.evaluate("window.bigsur.state.upload.jobId") == job_id
    assert pg.evaluate(KEPT)["result"]["decisions"]  # kept once done
    assert len(posts) == 1, posts
    assert not pg.js_errors, pg.js_errors


def test_a_kept_upload_the_server_no_longer_has_can_be_analysed_again(server, page):  # noqa: F811
    """The kept job unknown to the server (dropped an hour after it ended, or another
    server): a kept result is the whole review (its positions replayed from the kept
    record: they came from the job, and could not be opened then); a review that was
    running says so in words, and "Analyse again" reviews the kept record anew."""
    pg = page
    posts = analyse_posts(pg)
    upload_and_review(pg, server, "gone.json", json.dumps(short_record()))
    pg.wait_for_selector("#review-graph svg polyline", timeout=120_000)

    def forget_job(keep_result: bool) -> None:
        pg.evaluate(f"""(keep) => {{ const k = {KEPT};
          k.jobId = 'gone-' + k.jobId; if (!keep) k.result = null;
          localStorage.setItem('bigsur.upload', JSON.stringify(k)); }}""", keep_result)
        reload_page(pg)

    # finished when the player left: the kept result is the whole review, its positions
    # replayed from the kept record (they came from the job, and could not be opened)
    jobs_asked: list[str] = []
    pg.on("request", lambda r: jobs_asked.append(r.url) if "/v1/analyze/" in r.url else None)
    forget_job(keep_result=True)
    pg.wait_for_selector("#review:not([hidden]) #review-graph svg polyline")
    pg.click("#review-list [data-decision='1']")
    pg.wait_for_selector("#review-detail .minitable svg.card")
    assert pg.locator("#review-lost").is_hidden()
    assert not jobs_asked, jobs_asked

    # running when the player left: nothing to show but the message and the way out
    forget_job(keep_result=False)
    pg.wait_for_selector("#review-lost:not([hidden])")
    note = pg.locator("#review-lost").inner_text()
    assert "The server no longer has this review: no analysis job" in note, note
    assert "press Analyse again" in note, note
    assert pg.locator("#review-graph svg").count() == 0
    assert pg.locator("#review-run").inner_text() == "Analyse again"
    assert pg.locator("#review-progress").is_hidden()
    pg.click("#review-run")
    pg.wait_for_selector("#review-graph svg polyline", timeout=120_000)
    assert pg.locator("#review-lost").is_hidden()
    kept = pg.evaluate(KEPT)
    assert kept["result"] and not kept["jobId"].startswith("gone-")
    pg.click("#review-list [data-decision='1']")
    pg.wait_for_selector("#review-detail .minitable svg.card")  # the new job's positions
    assert len(posts) == 2, posts

    # a record over the browser's quota: reviewed all the same, and not stood for by the
    # older upload kept before it
    pg.evaluate("""() => { const set = Storage.prototype.setItem;
      Storage.prototype.setItem = function (k, v) {
        if (k === 'bigsur.upload') throw new DOMException('full', 'QuotaExceededError');
        return set.call(this, k, v); }; }""")
    upload(pg, "too-big.json", json.dumps(short_record(10)))
    pg.wait_for_function("window.bigsur.state.upload.name === 'too-big.json'"
                         " && window.bigsur.state.upload.result", timeout=120_000)
    pg.wait_for_selector("#review-graph svg polyline")
    assert pg.locator("#review-list .decision").count() == 10
    assert pg.evaluate(KEPT) is None
    # the only console errors: the forgotten job's (HTTP 404)
    assert not [e for e in pg.js_errors if "status of 404" not in e], pg.js_errors


def test_a_better_move_names_the_materials_it_takes_from_discard_piles(server, page):  # noqa: F811
    """Both QA passes: a review's "Better" line read "recycle the top of their discard
    pile" without the Material (the "Played" line names it). Once the decision's position
    is loaded the Better line names it, and a later build of the move recycles what the
    earlier one discarded."""
    from solver.cli import play_random_game as dealt
    from solver.rules.constants import MATERIALS
    from solver.rules.state import Phase

    record = dealt(2, seed=9)
    states = list(record.states())
    k, st = next((i, s) for i, (s, a) in enumerate(states[:-1])
                 if s.phase == Phase.BUILD and a is not None and a.notation() == "end"
                 and s.players[s.current].discard and len(s.players[s.current].hand) >= 3)
    seat = st.players[st.current]
    cards = st.cards
    top = MATERIALS[cards.material[seat.discard[-1]]]
    first, second, spent = (cards.highway[c].id for c in seat.hand[:3])
    best = [f"build {first} L pay rec", f"build {second} L pay {spent} rec", "end"]
    after_first = MATERIALS[cards.material[cards.card(spent)]]  # the second build's top

    def with_best(route):
        resp = route.fetch()
        body = resp.json()
        for dc in (body.get("result") or {}).get("decisions", []):
            if dc["index"] == k:
                dc["best"] = best
        route.fulfill(response=resp, json=body)

    pg = page
    pg.route("**/v1/analyze/*", with_best)
    upload_and_review(pg, server, "better.json", json.dumps(record.to_json()))
    pg.wait_for_selector("#review-graph svg polyline", timeout=120_000)
    pg.click(f"#review-list [data-decision='{k}']")
    pg.wait_for_selector("#review-detail .minitable svg.card")
    line = pg.locator("#review-detail [data-part=better]").inner_text()
    first_build, second_build = line.split(", then ")[:2]
    assert f"discard pile ({top})" in first_build, line
    assert f"discard pile ({after_first})" in second_build, line
    assert not pg.js_errors, pg.js_errors


def test_the_address_review_budget_is_in_the_menu_or_said_unknown(server, page):  # noqa: F811
    """?review= in the address was sent as it was, beside the menu: a budget not among the
    menu's choices was used while the menu showed another, and a word such as "deep" or
    "fast" reached the server as an unknown field (the upload refused, naming the file).
    The address sets the menu: a choice by its value or its word, any budget the server
    takes added to it; another value is said in one line, and the menu's choice is used."""
    pg = page
    upload_and_review(pg, server, "seven.json", json.dumps(short_record(10)), "iterations:7")
    pg.wait_for_selector("#review-graph svg polyline", timeout=120_000)
    assert "search 7 iterations each" in pg.locator("#review-summary").inner_text()
    assert pg.locator("#review-budget").input_value() == "iterations:7"
    assert pg.locator("#review-budget option:checked").inner_text() == "7 iterations"

    fresh_page(pg, server + "/?review=deep")
    assert pg.locator("#review-budget").input_value() == "ms:500"
    pg.click("#nav-review")
    assert pg.locator("#review-address").is_hidden()

    fresh_page(pg, server + "/?review=fast")
    pg.click("#nav-review")
    note = pg.locator("#review-address")
    assert note.is_visible() and note.inner_text() == (
        "The address's review=fast is not a search budget: use quick, normal or deep, or "
        "iterations:N or ms:N (N a whole number); the menu's choice is used."), note.inner_text()
    assert pg.locator("#review-budget").input_value() == "ms:100"
    upload(pg, "menu.json", json.dumps(short_record(6)))
    pg.wait_for_selector("#review-summary:has-text('search 100 ms each')", timeout=120_000)
    assert pg.locator("#review-upload-error").is_hidden()
    pg.select_option("#review-budget", "iterations:30")
    assert note.is_hidden()
    assert not pg.js_errors, pg.js_errors
