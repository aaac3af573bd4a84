"""The page's post-game review: what its numbers say and which cards it draws, in a real
browser against a real server (same setup as test_web_page.py: a real uvicorn, Debian's
Chromium through Playwright). Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

import re

from test_page_qa import review_upload
from test_web_page import browser, page, server, shot  # noqa: F401 - fixtures

from solver.cli import play_random_game

LOSS = r"\d+\.\d win-% / \d+\.\d pts"  # as `bigsur analyze` says a loss: 21.4 win-% / 5.0 pts


def test_review_says_the_units_of_a_loss_and_of_accuracy(server, page):  # noqa: F811
    """A decision's loss read "−21.4 win-%, −5.0 pts" in the list, "21.4 win-% points,
    5.0 expected points" in its detail, "−21 win-%, −5.0 expected points" in the turning
    points, and a player's accuracy "78.1" (of what?). The page says them as the command
    line does: "21.4 win-% / 5.0 pts" (lost against the best move found) and "78.1/100",
    and its text says what they are (accuracy is not a share of the moves)."""
    pg = page
    record = play_random_game(2, seed=5).to_json()
    review_upload(pg, server, "units.json", record)
    pure = pg.evaluate("""async () => {
      const w = await import('/js/words.js');
      const dc = {index: 4, seat: 0, played: 'take deck', best: ['take H01'], label: 'mistake',
        value_before: {win_probability: 0.5, expected_margin: 0}, loss_win_pct: 12.04,
        loss_points: 3.0};
      const ctx = {me: 0, seatName: (i) => (i === 0 ? 'You' : 'AI 2'),
        cards: {highway: {H01: {}}, landmarks: {}}};
      return {loss: w.lossWords(21.43, 5), zero: w.lossWords(0, -0.01),
              acc: w.accuracyWords(78.14), none: w.accuracyWords(null),
              turning: w.turningPoints({players: [{seat: 0}, {seat: 1}], decisions: [dc]}, ctx)
                .map((x) => x.text)};
    }""")
    assert pure["loss"] == "21.4 win-% / 5.0 pts" and pure["zero"] == "0.0 win-% / 0.0 pts"
    assert pure["acc"] == "78.1/100" and pure["none"] == "\u2014"
    assert pure["turning"] == ["Move 5: You take the top card of the deck (a mistake: lost "
                               "12.0 win-% / 3.0 pts against the best move found; better: "
                               "take H01 from the Depot)."], pure["turning"]

    res = pg.evaluate("window.bigsur.state.upload.result")
    summary = pg.locator("#review-summary")
    for p in res["players"]:
        row = summary.locator("tbody tr").nth(p["seat"]).inner_text()
        assert re.search(r"\b\d+\.\d/100\b", row), row
        assert re.search(LOSS, row), row
    note = " ".join(summary.locator("p").inner_text().split())
    assert "against the best move the search found" in note, note
    assert "Accuracy is a score out of 100, not a share of the moves" in note, note
    legend = " ".join(pg.locator("#review .panel p.muted").first.inner_text().split())
    assert "at least 5 win-% or 3 pts" in legend, legend

    lossy = next(d for d in res["decisions"] if d["loss_win_pct"] and d["loss_win_pct"] >= 0.5)
    item = pg.locator(f"#review-list [data-decision='{lossy['index']}']")
    assert re.search("lost " + LOSS, item.inner_text()), item.inner_text()
    assert "\u2212" not in item.inner_text()  # a loss is never below 0: no sign
    item.click()
    pg.wait_for_selector("#review-detail .minitable svg.card")
    detail = pg.locator("#review-detail dl.cmp").inner_text()
    assert re.search(r"Lost\s+" + LOSS + " against the best move found", detail), detail
    shot(pg, "review-01-units", full=True)
    assert not pg.js_errors, pg.js_errors
