"""The review of one decision (solver.analysis.review_decision) on a scripted search."""

from __future__ import annotations

from rules_testkit import random_mid_game

from solver.analysis import review_decision
from solver.rules.engine import legal_actions
from solver.rules.views import view_of


def scripted(results):
    """A stand-in for the search: each call answers the next result."""
    answers = iter(results)
    return lambda *_args, **_kwargs: next(answers)


def move(action: str, win: float, margin: float, visits: int = 5) -> dict:
    return {"actions": [action], "win_probability": win, "expected_margin": margin,
            "visits": visits}


def test_the_value_before_is_never_below_the_move_played():
    """A short search can rate the move played above its own root (the root's mean, or
    the most visited move, lower): the position is worth at least what the player could
    play, so the graph does not dip below the move that was made."""
    state = random_mid_game()
    view = view_of(state, state.current)
    played, other = [a.notation() for a in legal_actions(state)][:2]
    search = scripted([{"moves": [move(other, 0.0, -3.0, visits=4), move(played, 1.0, 3.0, 1)],
                        "stats": {"win_probability": 0.0, "expected_margin": -3.0}}])
    review = review_decision(view, played, None, None, {"iterations": 5}, 0, search=search)
    assert review.how == "ranked"
    assert (review.value_played.win_probability, review.value_played.expected_margin) == (1.0, 3.0)
    assert review.value_before == review.value_played
    assert review.loss_win_pct == 0.0 and review.label is None  # best rated lower: no loss


def test_the_value_before_stays_the_root_when_the_move_played_is_worse():
    state = random_mid_game()
    view = view_of(state, state.current)
    played, other = [a.notation() for a in legal_actions(state)][:2]
    search = scripted([{"moves": [move(other, 0.6, 2.0), move(played, 0.3, -1.0)],
                        "stats": {"win_probability": 0.55, "expected_margin": 1.5}}])
    review = review_decision(view, played, None, None, {"iterations": 5}, 0, search=search)
    assert (review.value_before.win_probability, review.value_before.expected_margin) == (0.55, 1.5)
    assert review.loss_win_pct == 30.0 and review.label == "blunder"
