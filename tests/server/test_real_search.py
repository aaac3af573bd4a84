"""The real search behind the API and the post-game review (solver.analysis): hints are
reproducible with a seed and an iteration budget; a short record is reviewed with
values, losses, labels and accuracy that follow the documented rules."""

from __future__ import annotations

import math

import pytest
from session_testkit import poll_job

from solver.analysis import (
    AnalysisError,
    DecisionReview,
    Value,
    analyse_record,
    decision_points,
    decision_seed,
    label_for,
    move_accuracy,
    review_decision,
    same_decision,
    terminal_value,
)
from solver.cli import play_random_game
from solver.rules.actions import Action
from solver.rules.engine import new_game, play
from solver.rules.position import state_to_json
from solver.rules.record import GameRecord
from solver.search.api import Budget, analyse


@pytest.fixture
def real(make_client):
    return make_client(fake=False)


def test_hint_with_seed_and_iterations_is_reproducible(real):
    raw = state_to_json(play(new_game(2, seed=6), "take deck"))
    body = {"position": raw, "budget": {"iterations": 120}, "seed": 5}
    a = real.post("/v1/hint", json=body)
    b = real.post("/v1/hint", json=body)
    assert a.status_code == b.status_code == 200, a.text
    assert a.json()["moves"] == b.json()["moves"]
    assert a.json()["stats"]["iterations"] == 120
    direct = analyse(play(new_game(2, seed=6), "take deck"), Budget(iterations=120), seed=5)
    assert a.json()["moves"] == direct.to_json()["moves"]  # the server adds nothing
    for move in a.json()["moves"]:
        assert 0 <= move["win_probability"] <= 1 and move["actions"]
        assert isinstance(move["reasons"], list)  # what it does, in words (may be none)


def test_hint_moves_of_a_build_step_carry_their_payment(real):
    for seed in range(30):
        state = play(play(new_game(2, seed=seed), "take deck"), "take deck")
        r = real.post("/v1/hint", json={"position": state_to_json(state),
                                        "budget": {"iterations": 60}, "seed": 1})
        assert r.status_code == 200, r.text
        builds = [m for m in r.json()["moves"] if any(a.startswith("build")
                                                       for a in m["actions"])]
        if builds:
            break
    move = builds[0]
    assert move["payment"]["builds"][0]["card"] == move["actions"][0].split()[1]
    after = state
    for text in move["actions"]:  # the move, payments included, is legal as given
        after = play(after, text)


def test_a_hint_lists_the_legal_actions_of_the_seat_to_act(real):
    """A page tells "the only move" from "the only move worth searching" by the legal
    actions, which a game's view carries and a posted position's hint did not."""
    from solver.rules.engine import legal_actions

    for state in (play(new_game(2, seed=6), "take deck"),
                  play(play(new_game(2, seed=6), "take deck"), "take deck")):
        r = real.post("/v1/hint", json={"position": state_to_json(state),
                                        "budget": {"iterations": 20}})
        assert r.status_code == 200, r.text
        assert r.json()["legal_actions"] == [a.notation() for a in legal_actions(state)]
    ended = play(play(play(new_game(2, seed=6), "take deck"), "take deck"), "end")
    while [a.notation() for a in legal_actions(ended)] != ["end"]:
        ended = play(ended, legal_actions(ended)[0])
    r = real.post("/v1/hint", json={"position": state_to_json(ended),
                                    "budget": {"iterations": 20}})
    assert r.json()["legal_actions"] == ["end"] and \
        [m["actions"] for m in r.json()["moves"]] == [["end"]]


def short_record(seed: int = 21, n: int = 8) -> GameRecord:
    record = play_random_game(2, seed=seed)
    record.actions = record.actions[:n]
    return record


def test_review_of_a_short_record_is_reproducible_and_consistent():
    record = short_record()
    budget = Budget(iterations=40)
    progress = []
    review = analyse_record(record, budget, seed=3, progress=lambda d, t: progress.append(d))
    assert progress == list(range(1, 9))
    again = analyse_record(record, budget, seed=3)
    assert review.to_json() == again.to_json()
    assert [d.index for d in review.decisions] == list(range(8))
    for d in review.decisions:
        assert d.played == record.actions[d.index]
        assert d.how in ("ranked", "continuation", "played", "terminal", "forced", "unrated")
        if d.rated:
            best, played = d.value_best, d.value_played
            assert d.loss_win_pct == round(max(0.0, 100 * (best.win_probability
                                                           - played.win_probability)), 2)
            assert d.loss_points == round(max(0.0, best.expected_margin
                                              - played.expected_margin), 2)
            assert d.label == label_for(d.loss_win_pct, d.loss_points)
    for p in review.players:
        rated = [d for d in review.decisions if d.seat == p.seat and d.rated]
        assert p.decisions == len(rated)
        if rated:
            expect = sum(move_accuracy(d.loss_win_pct) for d in rated) / len(rated)
            assert p.accuracy == pytest.approx(expect, abs=0.01)


def test_playing_the_searchs_best_move_loses_nothing():
    state = new_game(2, seed=33)
    seed = decision_seed(9, 0)
    best = analyse(state.copy(), Budget(iterations=50), seed=seed).moves[0].actions[0]
    record = GameRecord.start(2, 33)
    record.actions = [best]
    review = analyse_record(record, Budget(iterations=50), seed=9)
    d = review.decisions[0]
    assert d.how == "ranked" and d.best[0] == best
    assert d.loss_win_pct == 0 and d.loss_points == 0 and d.label is None
    assert review.players[state.current].accuracy == pytest.approx(100, abs=0.01)


def test_a_reviewed_deck_take_names_the_card_it_drew():
    """A finished record tells every card drawn: a deck take's decision names it
    (``drawn``), searched or forced; every other decision has none."""
    record = short_record(seed=20, n=8)  # four deck takes, a build, two ends
    review = analyse_record(record, Budget(iterations=5), seed=1)
    ids = [c.id for c in record.cards.highway]
    expected = [ids[state.deck[-1]] if action.notation() == "take deck" else None
                for state, action in list(record.states())[:-1]]
    assert [d.drawn for d in review.decisions] == expected
    assert sum(card is not None for card in expected) == 4


def test_analysis_job_with_the_real_search(real):
    record = short_record(seed=20, n=6)  # (deck takes among them: their drawn cards too)
    r = real.post("/v1/analyze", json={"record": record.to_json(),
                                       "budget": {"iterations": 30}, "seed": 2})
    assert r.status_code == 202, r.text
    done = poll_job(real, r.json()["job_id"])
    assert done["status"] == "done", done
    direct = analyse_record(record, Budget(iterations=30), seed=2).to_json()
    assert done["result"]["decisions"] == direct["decisions"]
    assert done["result"]["players"] == direct["players"]


# ------------------------------------------------------------------ the rules of the review

def test_labels_follow_the_documented_thresholds():
    assert label_for(4.99, 2.99) is None
    assert label_for(5, 0) == "inaccuracy" and label_for(0, 3) == "inaccuracy"
    assert label_for(10, 0) == "mistake" and label_for(0, 6) == "mistake"
    assert label_for(15, 0) == "blunder" and label_for(0, 10) == "blunder"
    assert label_for(5, 10) == "blunder"  # the more severe scale wins
    assert move_accuracy(0) == pytest.approx(100, abs=1e-3)
    assert move_accuracy(10) == pytest.approx(103.1668 * math.exp(-0.4354) - 3.1669)
    assert move_accuracy(200) == 0


def test_actions_match_on_kind_and_cards_not_payment():
    p = Action.parse
    assert same_decision(p("build H12 L"), p("build H12 L pay H03 rec"))
    assert not same_decision(p("build H12 L"), p("build H12 R"))
    assert not same_decision(p("take deck"), p("take H02"))
    assert same_decision(p("claim L03 H12"), p("claim L03 H12"))
    assert same_decision(p("end"), p("end")) and not same_decision(p("end"), p("take deck"))


def test_a_move_the_search_did_not_rank_uses_the_exact_end_or_a_second_search():
    """With the search stubbed to rank only other moves, the value of the move played
    comes from the game's end (terminal) or from searching the position after it."""
    record = play_random_game(2, seed=40)
    points = decision_points(record)
    last = points[-1]
    calls = []

    def stub(view, budget, seed=None):
        calls.append(view)
        return {"seat": view.seat, "stats": {}, "moves": [
            {"actions": ["take deck" if last.action.notation() != "take deck" else "end"],
             "visits": 10, "win_probability": 0.9, "expected_margin": 4.0}]}

    d = review_decision(last.view, last.action, last.after_view, last.terminal, None, 0, stub)
    exact = terminal_value(last.after, last.seat)
    assert d.how == "terminal" and d.value_played.win_probability == exact.win_probability
    take = next(p for p in points if p.action.notation().startswith("take")
                and p.after.current == p.seat)
    calls.clear()
    d = review_decision(take.view, Action.parse("build H01 L"), take.after_view, None, None, 0,
                        stub)
    assert d.how == "continuation" and len(calls) == 2
    assert calls[1].turn == take.after.turn  # the second search saw the position after
    assert isinstance(DecisionReview.from_json(d.to_json()), DecisionReview)


def test_a_turn_ending_move_the_search_did_not_try_is_searched_alone():
    """An end (or a claim) the search never tried, with another seat to act after it, was
    *unrated* (a review marked a 54-point drop in winning chances on one with no loss);
    a second search of the same position with the move as its only candidate values it."""
    record = play_random_game(2, seed=40)
    point = next(p for p in decision_points(record)
                 if p.action.notation() == "end" and p.after_view is None
                 and p.terminal is None and p.legal > 1)
    calls = []

    def stub(view, budget, seed=None, moves=None):
        calls.append(moves)
        if moves is None:  # the first search ranks only a build, never the end played
            return {"seat": view.seat, "stats": {}, "moves": [
                {"actions": ["build H01 L"], "visits": 10, "win_probability": 0.8,
                 "expected_margin": 5.0}]}
        return {"seat": view.seat, "stats": {}, "moves": [
            {"actions": [a.notation() for a in moves[0]], "visits": 7,
             "win_probability": 0.25, "expected_margin": -3.0}]}

    d = review_decision(point.view, point.action, None, None, None, 0, stub)
    assert calls[:2] == [None, [(point.action,)]]
    assert d.how == "played" and d.value_played == Value(0.25, -3.0)
    assert d.loss_win_pct == 55.0 and d.loss_points == 8.0 and d.label == "blunder"
    # the labelled loss is measured again (best and played alone); this stub values only
    # one of the two there, so the first figures stand
    assert [[a.notation() for a in move] for move in calls[2]] == [["build H01 L"], ["end"]]


def test_analyse_ranks_only_the_moves_it_is_given():
    from solver.rules.actions import End

    record = play_random_game(2, seed=40)
    point = next(p for p in decision_points(record)
                 if p.action.notation() == "end" and p.legal > 1)
    result = analyse(point.view, Budget(iterations=30), seed=1, moves=[(End(),)])
    assert [m.actions for m in result.moves] == [["end"]]
    assert result.moves[0].visits == 30


def test_review_errors_name_the_field():
    record = short_record()
    with pytest.raises(AnalysisError, match="seats"):
        decision_points(record, seats=[2])
    with pytest.raises(AnalysisError, match="limit of 3"):
        decision_points(record, max_decisions=3)
