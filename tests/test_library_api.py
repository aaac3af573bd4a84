"""The rules library's public entry points meet a library user's common mistakes with
errors that say what to do instead (docs/rules.md, "Using the rules as a library")."""

from __future__ import annotations

import pytest

from solver.rules import (
    End,
    GameState,
    IllegalActionError,
    apply,
    legal_actions,
    new_game,
    play,
    sample_states,
    view_of,
)


@pytest.fixture
def state():
    return play(new_game(3, seed=1), "take deck")


# ------------------------------------------------------------------ a view is not a state


@pytest.mark.parametrize("entry", [apply, play])
def test_apply_and_play_refuse_a_view_and_point_to_sample_states(state, entry):
    view = view_of(state, state.current)
    action = legal_actions(view)[0]
    with pytest.raises(TypeError, match=rf"{entry.__name__}: a PlayerView cannot be played "
                       r"forward.*hides.*unknown.*sample_states\(view, n\)"):
        entry(view, action)
    # what the message suggests works: a full state consistent with the view
    sampled = sample_states(view, 1, seed=2)[0]
    assert isinstance(entry(sampled, action), GameState)


def test_play_refuses_a_view_given_text(state):
    with pytest.raises(TypeError, match="PlayerView cannot be played forward"):
        play(view_of(state, state.current), "take deck")


@pytest.mark.parametrize("entry", [apply, play])
def test_apply_and_play_name_what_they_expected(entry):
    with pytest.raises(TypeError, match=rf"{entry.__name__}: expected a GameState, got dict"):
        entry({}, End())


# ------------------------------------------------------------------ text goes through play


def test_apply_given_text_points_to_play(state):
    state = play(state, "take deck")  # the build step: "end" is legal
    with pytest.raises(IllegalActionError, match=r"not an action: 'end': apply takes an "
                       r"Action.*for text such as 'end' use play\(state, 'end'\)"):
        apply(state, "end")
    assert play(state, "end").turn == state.turn + 1  # what the message suggests works
    with pytest.raises(IllegalActionError, match=r"not an action: 42: apply takes an Action"):
        apply(state, 42)
