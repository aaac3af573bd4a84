"""The engine's entry points (new_game, play, legal_actions) meet a library user's
mistakes with errors that say what was given and what to do instead."""

from __future__ import annotations

import pytest

from solver.rules import GameRecord, IllegalActionError, Take, apply, legal_actions, new_game, play


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


@pytest.mark.parametrize("given", ["mine.json", "default", "data", {}, 3],
                         ids=["path", "default", "data", "empty-dict", "number"])
def test_new_game_names_a_card_set_given_as_anything_else(given):
    """new_game(2, cards='mine.json') (or 'default', or a dict) failed inside with
    AttributeError: 'str' object has no attribute 'deck_for', and cards={} dealt the
    default set. A TypeError names the argument, what was given and how to get a
    CardSet; that way deals the game as the default cards do."""
    from solver.rules.cards import load_card_set, parse_card_set

    raw = load_card_set().to_json()
    given = raw if given == "data" else given
    with pytest.raises(TypeError) as err:
        new_game(2, seed=1, cards=given)
    words = str(err.value)
    assert words.startswith("cards: must be a CardSet or None (the default set), got "
                            f"{type(given).__name__}"), words
    if isinstance(given, str):
        assert f"load_card_set({given!r})" in words, words
    if given == raw:
        assert "parse_card_set(data)" in words, words
        cards = parse_card_set(given)
    elif given == "default":
        cards = load_card_set(given)
    else:
        return
    assert new_game(2, seed=1, cards=cards).depot == new_game(2, seed=1).depot


@pytest.mark.parametrize("cards", ["mine.json", {}, "default"])
def test_a_record_started_on_anything_but_a_card_set_says_how_to_get_one(cards):
    """GameRecord.start deals as new_game does, so it names a wrong ``cards`` the same
    way (it raised AttributeError on a path, and dealt the default set for ``{}``)."""
    with pytest.raises(TypeError, match=r"cards: must be a CardSet or None \(the default") as err:
        GameRecord.start(2, 1, cards=cards)
    with pytest.raises(TypeError) as same:
        new_game(2, seed=1, cards=cards)
    assert str(err.value) == str(same.value)


@pytest.mark.parametrize("reader", ["state_from_json", "view_from_json"])
@pytest.mark.parametrize("cards", ["default", "data", 3])
def test_a_position_read_with_anything_but_a_card_set_says_how_to_get_one(reader, cards):
    """state_from_json(text, cards="default") (or a dict of the schema) and
    view_from_json the same failed with AttributeError: 'str' object has no attribute
    'card'. They refuse it as new_game does, saying what None means there; a CardSet
    reads the position."""
    from solver.rules import (
        load_card_set,
        state_from_json,
        state_to_json,
        view_from_json,
        view_of,
        view_to_json,
    )

    state = new_game(2, seed=1)
    read, raw = {"state_from_json": (state_from_json, state_to_json(state)),
                 "view_from_json": (view_from_json, view_to_json(view_of(state, 0)))}[reader]
    cards = load_card_set().to_json() if cards == "data" else cards
    with pytest.raises(TypeError) as err:
        read(raw, cards=cards)
    with pytest.raises(TypeError) as dealt:
        new_game(2, seed=1, cards=cards)
    assert str(err.value) == str(dealt.value).replace("(the default set)",
                                                      "(the set the JSON names)")
    assert read(raw, cards=load_card_set()).depot == state.depot
