"""Every build step, and the exact best last build step, against brute force through the
engine's own legal actions."""

from __future__ import annotations

import random

import pytest
from rules_testkit import hoarded_build_step, noisy_build_steps

from solver.rules.actions import Build, Claim, End
from solver.rules.engine import apply_inplace, legal_actions, new_game, play
from solver.rules.state import Phase
from solver.search.buildsteps import (
    all_build_steps,
    best_found_last_step,
    best_last_step,
    build_state_key,
    is_last_build_step,
    payable_sequences,
)
from solver.search.ismcts import concrete_move
from solver.search.policies import build_step_inplace, highway_score, play_turn


def _brute_force_best(state) -> int:
    """The best own final score over every sequence of legal builds (engine auto-pay)
    followed by every legal claim or end."""
    seat = state.current
    best = -1

    def go(s):
        nonlocal best
        for action in legal_actions(s):
            if type(action) is Build:
                after = s.copy()
                apply_inplace(after, action)
                go(after)
            else:
                after = s.copy()
                apply_inplace(after, action)
                p = after.players[seat]
                best = max(best, highway_score(s.cards, tuple(p.highway), tuple(p.landmarks)))

    go(state)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_exact_last_step_matches_brute_force(seed):
    checked = 0
    for state in noisy_build_steps([seed, seed + 100], last=True):
        if len(state.player.hand) > 7:  # brute force grows as hand! * 2^builds
            continue
        exact = best_last_step(state)
        assert exact is not None
        assert exact.score == _brute_force_best(state)
        # the move is playable through the checked path, jointly paid, and scores it
        s = state
        for action in concrete_move(state, exact.move):
            s = play(s, action)
        p = s.players[state.current]
        assert highway_score(s.cards, tuple(p.highway), tuple(p.landmarks)) == exact.score
        checked += 1
    assert checked, "no last build step with a small hand in these games"


def test_exact_last_step_is_at_least_the_greedy_one():
    gains = []
    for state in noisy_build_steps(range(20, 30), last=True):
        if len(state.player.hand) > 8:  # keeps the test fast; the bound is the same
            continue
        exact = best_last_step(state)
        if exact is None:
            continue
        greedy = state.copy()
        build_step_inplace(greedy)
        p = greedy.players[state.current]
        gains.append(exact.score - highway_score(state.cards, tuple(p.highway),
                                                 tuple(p.landmarks)))
    assert gains and min(gains) >= 0


def test_not_exact_outside_the_last_build_step():
    state = next(noisy_build_steps([3], last=False))
    assert not is_last_build_step(state)
    assert best_last_step(state) is None


def test_exact_gives_up_past_its_limit():
    for state in noisy_build_steps(range(40, 60), last=True):
        n = sum(1 for _ in payable_sequences(state))
        if n > 3:
            assert best_last_step(state, limit=2) is None
            assert best_last_step(state, limit=n) is not None
            return
    pytest.fail("no last build step with more than 3 build sequences")


def test_all_build_steps_are_legal_and_distinct():
    for state in noisy_build_steps(range(5), last=False):
        steps = all_build_steps(state)
        assert len(steps) == len(set(steps))
        assert (End(),) in steps
        for step in steps:
            assert type(step[-1]) in (End, Claim)
            s = state
            for action in concrete_move(state, step):
                s = play(s, action)  # checked: raises on anything illegal
            assert s.phase != Phase.BUILD or s.current != state.current


def test_all_build_steps_cover_every_single_build():
    state = next(noisy_build_steps([7], last=False))
    steps = set(all_build_steps(state))
    for action in legal_actions(state):
        if type(action) is Build:
            assert (Build(action.card, action.side), End()) in steps


def test_payable_sequences_reach_distinct_states():
    from solver.search.buildsteps import build_state_key

    state = next(noisy_build_steps([11], last=False))
    keys = [build_state_key(s) for _seq, s in payable_sequences(state)]
    assert len(keys) == len(set(keys))


def test_play_turn_still_runs_with_exact_positions():
    # a full noisy game passes through last build steps without error
    rng = random.Random(5)
    state = new_game(3, 5)
    while state.phase != Phase.OVER:
        play_turn(state, rng)
    assert state.phase == Phase.OVER


@pytest.mark.parametrize("last", [False, True])
def test_step_outcomes_say_what_each_build_step_leaves_without_making_the_state(last):
    """step_outcomes lists all_build_steps' steps in the same order, and each outcome is
    what the step's ended state holds for the player (over when the turn ends the game;
    the states made with an empty Landmark deck, since an outcome leaves a claim's gap
    open: the refill is hidden); the learned and the hand-written evaluations value an
    outcome exactly as they value that state. Outcomes read nothing hidden."""
    from solver.search.buildsteps import step_outcomes
    from solver.search.policies import seat_value, turn_end_value
    from solver.search.value import current_model, seat_features_row, turn_end_row

    model = current_model(new_game(2, 0).cards)
    checked = 0
    for state in noisy_build_steps(range(14, 20), last):
        seat = state.current
        hidden = state.copy()
        random.Random(seat).shuffle(hidden.landmark_deck)
        random.Random(seat).shuffle(hidden.deck)
        assert step_outcomes(hidden, 3_000) == step_outcomes(state, 3_000)
        state.landmark_deck = []
        reference = all_build_steps(state, 3_000, with_states=True)
        steps, index, outcomes = step_outcomes(state, 3_000)
        assert steps == [m for m, _after in reference]
        assert len(set(outcomes)) == len(outcomes) == len(set(index))
        for k, (_m, done) in enumerate(reference):
            o = outcomes[index[k]]
            p = done.players[seat]
            assert (o.highway, o.landmarks, o.hand, o.has_discard, o.row, o.over) == (
                tuple(p.highway), tuple(p.landmarks), tuple(p.hand), bool(p.discard),
                tuple(done.landmark_row), done.phase == Phase.OVER)
            assert turn_end_value(state, o) == seat_value(done, seat)
            if not o.over:
                assert turn_end_row(state, o) == seat_features_row(done, seat)
        scores = model.turn_end_scores(state, outcomes)
        assert [scores[i] for i in index] == pytest.approx(
            model.seat_scores([done for _m, done in reference], seat), abs=1e-9)
        checked += 1
    assert checked >= 6


@pytest.mark.parametrize("last", [False, True])
def test_ended_outcome_reads_what_ending_the_turn_in_place_leaves(last):
    """ended_outcome (how value rollouts value stopping after each build) holds what the
    state ended in place with the heuristic's claim holds for the player, the claim's
    gap refilled from the Landmark deck as the engine does; the learned model values it
    exactly as that state. Given a build, it holds what building it first would (the
    engine's payment: the same hand order and discard)."""
    from solver.search.policies import (
        DEFAULT_WEIGHTS,
        _claim_and_end,
        build_options,
        ended_outcome,
    )
    from solver.search.value import current_model, seat_features_row, turn_end_row

    model = current_model(new_game(2, 0).cards)
    checked = claimed = spent = 0
    for state in noisy_build_steps(range(14, 22), last):
        seat = state.current
        s = state
        while True:  # the step after each of the heuristic's builds
            o = ended_outcome(s)
            done = s.copy()
            _claim_and_end(done, DEFAULT_WEIGHTS, [])
            p = done.players[seat]
            assert (o.highway, o.landmarks, o.hand, o.has_discard, o.row, o.over) == (
                tuple(p.highway), tuple(p.landmarks), tuple(p.hand), bool(p.discard),
                tuple(done.landmark_row), done.phase == Phase.OVER)
            if not o.over:
                assert turn_end_row(s, o) == seat_features_row(done, seat)
            assert model.turn_end_scores(s, [o]) == model.seat_scores([done], seat)
            claimed += len(o.landmarks) > len(s.player.landmarks)
            checked += 1
            options = build_options(s, DEFAULT_WEIGHTS, exact=False)
            if not options:
                break
            for _v, build in options:  # a build's outcome without making its state
                after = s.copy()
                apply_inplace(after, build)
                assert ended_outcome(s, DEFAULT_WEIGHTS, build) == ended_outcome(after)
                spent += len(after.player.discard) > len(s.player.discard)
            s = s.copy()
            apply_inplace(s, options[0][1])
    assert checked >= 20 and claimed >= 2 and spent >= 10


def test_valued_build_step_value_is_what_the_greedy_step_ends_with():
    """valued_build_step_value: the model's value of the turn that
    valued_build_step_inplace (no noise) ends, without changing the state; never less
    than ending the step at once."""
    from solver.search.policies import (
        DEFAULT_WEIGHTS,
        ended_outcome,
        valued_build_step_inplace,
        valued_build_step_value,
    )
    from solver.search.value import current_model

    model = current_model(new_game(2, 0).cards)
    built = 0
    for state in noisy_build_steps(range(14, 22), False):
        seat = state.current
        before = state.copy()
        value = valued_build_step_value(state, model.turn_end_scores)
        assert (state.player.hand, state.player.highway) == (before.player.hand,
                                                             before.player.highway)
        done = state.copy()
        actions = valued_build_step_inplace(done, model.turn_end_scores)
        built += len(actions) > 1
        assert value == pytest.approx(model.seat_scores([done], seat)[0])
        stop = model.turn_end_scores(state, [ended_outcome(state, DEFAULT_WEIGHTS)])[0]
        assert value >= stop - 1e-9
    assert built >= 3


def test_breadth_first_gives_the_same_sequences_shortest_first():
    """payable_sequences(breadth_first=True): the same sequences as depth first when
    none is cut, never a longer one before a shorter; cut by a limit, the first
    ``limit`` of the whole breadth-first list (so every single build is there), where
    depth first spends the limit on the first cards' long sequences."""
    state = hoarded_build_step(1_500)
    whole = [seq for seq, _after in payable_sequences(state, 10**9, breadth_first=True)]
    depth = [seq for seq, _after in payable_sequences(state, 10**9)]
    assert sorted(whole) == sorted(depth)
    assert [len(s) for s in whole] == sorted(len(s) for s in whole)
    cut = [seq for seq, _after in payable_sequences(state, 300, breadth_first=True)]
    assert cut == whole[:300]
    singles = {s for s in whole if len(s) == 1}
    assert singles <= set(cut)
    assert not singles <= {s for s, _a in payable_sequences(state, 300)}  # (could fail)


def test_by_score_reaches_the_same_states_best_scoring_builds_first():
    """payable_sequences(by_score=True): the same states as in card order when none is
    cut, each state's builds tried the one whose Highway scores most first; so the first
    sequence after the empty one is the best scoring single build."""
    state = hoarded_build_step(1_500)
    ranked = list(payable_sequences(state, 10**9, by_score=True))
    assert ({build_state_key(a) for _s, a in ranked}
            == {build_state_key(a) for _s, a in payable_sequences(state, 10**9)})
    lms = tuple(state.player.landmarks)

    def score(after):
        return highway_score(state.cards, tuple(after.player.highway), lms)

    singles = [score(a) for seq, a in ranked if len(seq) == 1]
    assert len(ranked[1][0]) == 1 and score(ranked[1][1]) == max(singles) > min(singles)


@pytest.mark.parametrize("seed", range(4))
def test_best_found_last_step_is_the_exact_one_when_it_sees_every_sequence(seed):
    checked = 0
    for state in noisy_build_steps([seed, seed + 50], last=True):
        exact = best_last_step(state, 3_000)  # (larger ones only cost test time)
        if exact is None or exact.sequences < 3:
            continue
        move, score = best_found_last_step(state, exact.sequences)
        assert score == exact.score
        s = state
        for action in concrete_move(state, move):
            s = play(s, action)  # checked: raises on anything illegal
        p = s.players[state.current]
        assert highway_score(s.cards, tuple(p.highway), tuple(p.landmarks)) == score
        checked += 1
    assert checked


def test_best_found_last_step_cut_short_plays_what_it_scores():
    for state in noisy_build_steps(range(60, 80), last=True):
        if sum(1 for _ in payable_sequences(state, 400)) < 400:
            continue
        move, score = best_found_last_step(state, 100)
        s = state
        for action in concrete_move(state, move):
            s = play(s, action)
        p = s.players[state.current]
        assert highway_score(s.cards, tuple(p.highway), tuple(p.landmarks)) == score
        assert best_found_last_step(next(noisy_build_steps([3], last=False)), 100) is None
        return
    pytest.fail("no last build step with 400 build sequences")


def _first_written_best_last_step(state):
    """The exact last step as first written: sequences in card order, each Highway once
    (its first sequence), ``end`` then each claim the engine lists scored alone; ties to
    the fewest cards built, then the first found."""
    from solver.rules.engine import claimable
    from solver.search.policies import tables

    tab = tables(state.cards)
    lms = tuple(state.player.landmarks)
    best, seen = None, set()
    for seq, after in payable_sequences(state, 10**9):
        hw = tuple(after.player.highway)
        if hw in seen:
            continue
        seen.add(hw)
        builds = tuple(Build(tab.ids[c], side) for c, side in seq)
        options = [(highway_score(state.cards, hw, lms), End())]
        options += [(highway_score(state.cards, hw, lms + ((lm, c),)),
                     Claim(tab.lm_ids[lm], tab.ids[c])) for lm, c in claimable(after)]
        for score, last in options:
            cand = (score, -len(seq), builds + (last,))
            if best is None or cand[:2] > best[:2]:
                best = cand
    return best[2], best[0]


def test_exact_last_step_is_the_first_written_one_move_for_move():
    """Counting before scoring, sharing a Highway's facts between its claims: the same
    move as the first version's loop, ties included, not only the same score."""
    checked = 0
    for state in noisy_build_steps(range(100, 112), last=True):
        exact = best_last_step(state, 3_000)
        if exact is None:
            continue
        assert (exact.move, exact.score) == _first_written_best_last_step(state)
        checked += 1
    assert checked >= 5
