"""The page's editors and the page's own services (a real browser against a real server,
the fixtures of test_web_page.py): the card-set editor says what it did in the page's
#announce queue, its lists of cards keep their keys from the page's shortcuts, the keys
help names the editors' keys."""

from __future__ import annotations

from test_cardset_editor_workflow import SAID, checked, no_js_errors, open_cards, said
from test_web_page import browser, page, server  # noqa: F401 - fixtures


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
