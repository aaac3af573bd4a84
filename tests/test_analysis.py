"""The review of one decision (solver.analysis.review_decision) on a scripted search."""

from __future__ import annotations

from rules_testkit import random_mid_game

from solver.analysis import AGAIN_FACTOR, review_decision
from solver.rules.engine import legal_actions
from solver.rules.views import view_of
from solver.search.api import Budget


def scripted(results, calls=None):
    """A stand-in for the search: each call answers the next result (and is appended to
    ``calls`` as its keyword arguments when given)."""
    answers = iter(results)

    def search(_view, budget, **kwargs):
        if calls is not None:
            calls.append({**kwargs, "budget": budget})
        return next(answers)
    return search


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


def test_the_decision_the_search_ranks_first_loses_nothing():
    """The search's first move starts with the action played (a build, then a claim),
    and another of its moves starting with that action (the build, then the end) has the
    higher win chance and a lower margin. The decision played is the search's best: the
    review took the other line as the move played and found a loss in points (the page
    then said "the move played was the search's best" and "lost 1.1 pts")."""
    state = random_mid_game()
    view = view_of(state, state.current)
    played = legal_actions(state)[0].notation()
    best = {**move(played, 0.998, 30.4, visits=384), "actions": [played, "claim L17 H08"]}
    other = {**move(played, 0.999, 29.3, visits=6), "actions": [played, "end"]}
    search = scripted([{"moves": [best, other]}])
    review = review_decision(view, played, None, None, {"iterations": 5}, 0, search=search)
    assert review.how == "ranked"
    assert review.value_played == review.value_best
    assert (review.loss_win_pct, review.loss_points, review.label) == (0.0, 0.0, None)


def test_the_value_before_stays_the_root_when_the_move_played_is_worse():
    state = random_mid_game()
    view = view_of(state, state.current)
    played, other = [a.notation() for a in legal_actions(state)][:2]
    search = scripted([{"moves": [move(other, 0.6, 2.0), move(played, 0.3, -1.0)],
                        "stats": {"win_probability": 0.55, "expected_margin": 1.5}},
                       {"moves": [move(other, 0.6, 2.0), move(played, 0.3, -1.0)]}])
    review = review_decision(view, played, None, None, {"iterations": 5}, 0, search=search)
    assert (review.value_before.win_probability, review.value_before.expected_margin) == (0.55, 1.5)
    assert review.loss_win_pct == 30.0 and review.label == "blunder"


def test_a_labelled_loss_is_measured_again_by_the_two_moves_alone():
    """The first search's best is the luckiest of many short estimates: a loss it labels
    is searched again with only the best and the played move as candidates (a fresh
    seed), and the review keeps that search's values, here no loss at all."""
    state = random_mid_game()
    view = view_of(state, state.current)
    played, other = [a.notation() for a in legal_actions(state)][:2]
    calls: list = []
    search = scripted([{"moves": [move(other, 0.9, 20.0, 3), move(played, 0.4, -2.0, 1)]},
                       {"moves": [move(played, 0.55, 1.0, 3), move(other, 0.5, 0.5, 2)]}],
                      calls)
    review = review_decision(view, played, None, None, Budget(iterations=5), 7,
                             search=search)
    assert [a.notation() for pair in calls[1]["moves"] for a in pair] == [other, played]
    assert calls[1]["seed"] not in (7, 8)  # a fresh search, not the first one again
    assert calls[1]["budget"] == Budget(iterations=5 * AGAIN_FACTOR)  # a longer one
    assert review.how == "ranked" and review.label is None and review.loss_win_pct == 0.0
    assert review.value_played.win_probability == 0.55
    assert review.best == [played] and review.value_best == review.value_played  # best found
    assert review.measured_again  # said in the JSON: the page tells the player
    assert review.to_json()["measured_again"] is True


def test_a_loss_measured_again_keeps_its_label_when_the_second_search_agrees():
    state = random_mid_game()
    view = view_of(state, state.current)
    played, other = [a.notation() for a in legal_actions(state)][:2]
    search = scripted([{"moves": [move(other, 0.9, 20.0, 3), move(played, 0.4, -2.0, 1)]},
                       {"moves": [move(other, 0.7, 8.0, 4), move(played, 0.6, 1.0, 1)]}])
    review = review_decision(view, played, None, None, {"iterations": 5}, 7, search=search)
    assert review.loss_win_pct == 10.0 and review.loss_points == 7.0
    assert review.label == "mistake" and review.measured_again


def test_no_second_search_when_nothing_is_labelled_or_it_ranks_one_move():
    state = random_mid_game()
    view = view_of(state, state.current)
    played, other = [a.notation() for a in legal_actions(state)][:2]
    calls: list = []
    search = scripted([{"moves": [move(other, 0.52, 1.0), move(played, 0.5, 0.0)]}], calls)
    assert review_decision(view, played, None, None, {"iterations": 5}, 0,
                           search=search).label is None
    assert len(calls) == 1
    search = scripted([{"moves": [move(other, 0.9, 20.0), move(played, 0.4, -2.0)]},
                       {"moves": [move(other, 0.7, 8.0), move(played, 0.6, 1.0, visits=0)]}])
    review = review_decision(view, played, None, None, {"iterations": 5}, 0, search=search)
    assert review.label == "blunder" and review.loss_win_pct == 50.0  # the first figures
    assert not review.measured_again  # the second search left the played move unvisited
