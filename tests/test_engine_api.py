"""The engine's entry points (new_game, play, legal_actions) meet a library user's
mistakes with errors that say what was given and what to do instead."""

from __future__ import annotations

import pytest

from solver.rules import IllegalActionError, Take, apply, legal_actions, new_game, play


@pytest.mark.parametrize("card", ["deck", "", "Deck"])
def test_a_take_of_the_card_deck_points_to_the_deck_take(card):
    """play(state, Take('deck')) said "illegal action 'take deck' ...: unknown Highway
    card 'deck'": 'take deck' is the text of the deck take, another action. The refusal
    names the action as given, says the id is no card and names the deck take."""
    state = new_game(2, seed=1)
    deck_take = Take()
    assert deck_take in legal_actions(state)
    with pytest.raises(IllegalActionError) as err:
        play(state, Take(card))
    words = str(err.value)
    assert f"illegal action {deck_take.notation()!r}" not in words  # not the deck take
    assert f"{card!r} is not a Highway card id" in words, words
    assert f"the deck take is the action {deck_take!r}, written {deck_take.notation()!r}" \
        in words, words
    with pytest.raises(IllegalActionError) as unchecked:
        apply(state, Take(card))
    assert str(unchecked.value) == words  # apply says it in play's words
    play(state, deck_take)  # the deck take itself plays
