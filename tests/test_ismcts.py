"""ISMCTS: never reads hidden cards, reproducible, root parallel merge, finds wins."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from rules_testkit import hoarded_build_step, play_greedy_to

from solver.rules.cards import load_card_set
from solver.rules.engine import apply_inplace, new_game, outcome, play
from solver.rules.state import Phase
from solver.rules.views import view_of
from solver.search.api import Budget, analyse
from solver.search.bots import MCTSBot, make_bot
from solver.search.determinize import Determinizer, determinize
from solver.search.ismcts import DEFAULT_PARAMS, Searcher, concrete_move, root_moves


@pytest.fixture(scope="module")
def cards():
    return load_card_set()



def _without_seconds(result):
    out = result.to_json()
    out["stats"].pop("seconds")
    return out


def test_states_differing_only_in_hidden_cards_give_the_same_answer(cards):
    for phase in (Phase.TAKE, Phase.BUILD):
        a = play_greedy_to(cards, 7, phase)
        view = view_of(a, a.current)
        b = determinize(view, 12345)  # another full state behind the same view
        assert b != a and view_of(b, b.current) == view
        assert (sorted(b.players[1 - a.current].hand) != sorted(a.players[1 - a.current].hand)
                or b.deck != a.deck)
        ra = _without_seconds(analyse(a, Budget(iterations=50), seed=9))
        rb = _without_seconds(analyse(b, Budget(iterations=50), seed=9))
        assert ra == rb
        bot_a, bot_b = make_bot("mcts:40i"), make_bot("mcts:40i")
        assert bot_a.act(view_of(a, a.current), 3) == bot_b.act(view_of(b, b.current), 3)


def test_iteration_budget_is_reproducible_and_seed_matters(cards):
    state = play_greedy_to(cards, 6, Phase.TAKE)
    r1 = _without_seconds(analyse(state, Budget(iterations=60), seed=1))
    r2 = _without_seconds(analyse(state, Budget(iterations=60), seed=1))
    assert r1 == r2
    others = [_without_seconds(analyse(state, Budget(iterations=60), seed=s))
              for s in (2, 3)]
    assert any(o["moves"] != r1["moves"] for o in others)


def test_root_parallel_merge(cards):
    state = play_greedy_to(cards, 6, Phase.BUILD)
    r = analyse(state, Budget(iterations=40), seed=3, workers=2)
    out = r.to_json()
    assert out["stats"]["workers"] == 2 and out["stats"]["iterations"] == 40
    assert sum(m["visits"] for m in out["moves"]) == 40
    assert _without_seconds(analyse(state, Budget(iterations=40), seed=3, workers=2)) == \
        _without_seconds(r)
    # the merge sums the two workers' trees: same as running both seeds by hand
    from solver.search.ismcts import _worker_seed

    view = view_of(state, state.current)
    visits: dict = {}
    for k in range(2):
        s = Searcher(view, _worker_seed(3, k))
        s.run(iterations=20)
        for st in s.root_stats():
            visits[st.move] = visits.get(st.move, 0) + st.visits
    by_actions = {tuple(a.notation() for a in concrete_move(
        determinize(view, 0), move)): n for move, n in visits.items()}
    assert {tuple(m["actions"]): m["visits"] for m in out["moves"]} == by_actions


def test_tree_statistics_are_consistent(cards):
    state = play_greedy_to(cards, 4, Phase.TAKE, players=3)
    s = Searcher(view_of(state, state.current), 5)
    s.run(iterations=80)
    assert s.iterations == 80 == s.root.visits
    assert sum(c.visits for c in s.root.children.values()) == 80

    def walk(node):
        for child in node.children.values():
            assert child.avail >= child.visits >= 1
            assert 0.0 <= child.wins <= child.visits + 1e-9
            assert sum(c.visits for c in child.children.values()) <= child.visits
            walk(child)

    walk(s.root)


def _final_build_positions(cards, seeds):
    """The last build step of greedy games (the game ends with it)."""
    from solver.rules.actions import End

    bot = make_bot("greedy")
    for seed in seeds:
        state = new_game(2, seed, cards)
        k = 0
        while state.phase != Phase.OVER:
            if state.phase == Phase.BUILD:
                after = state.copy()
                apply_inplace(after, End())
                if after.phase == Phase.OVER:
                    yield state
                    break
            state = play(state, bot.act(view_of(state, state.current), k))
            k += 1


def _final_margin(state, move):
    s = state.copy()
    for a in move:
        apply_inplace(s, a)
    assert s.phase == Phase.OVER
    o = outcome(s)
    me = state.current
    return o.scores[me].total - max(x.total for i, x in enumerate(o.scores) if i != me)


def test_finds_the_winning_build_in_the_last_turn(cards):
    """In the last build step of the game nothing is hidden that matters: the search
    solves it exactly, so its move is at least as good as the best of the heuristic's
    candidates, is marked exact, and wins when some candidate wins."""
    found = 0
    for state in _final_build_positions(cards, range(40)):
        moves = root_moves(state, replace(DEFAULT_PARAMS, exact_last=False))
        margins = {m: _final_margin(state, m) for m in moves}
        best = max(margins.values())
        if len(set(margins.values())) < 2:
            continue
        result = analyse(state, Budget(iterations=8 * len(moves)), seed=1)
        chosen = result.moves[0]
        assert chosen.exact
        assert chosen.expected_margin >= best - 1e-9
        if best > 0 > min(margins.values()):
            found += 1
        if found >= 2:
            break
    assert found >= 1, "no decisive last build step found in the sampled games"


def _last_step_with(sequences: int):
    from rules_testkit import noisy_build_steps

    from solver.search.buildsteps import payable_sequences

    for state in noisy_build_steps(range(60, 90), last=True):
        if sum(1 for _ in payable_sequences(state, sequences)) >= sequences:
            return state
    pytest.fail(f"no last build step with {sequences} build sequences")


def test_past_the_exact_limit_the_root_tries_it_once_then_leads_with_the_best_found(
        cards, monkeypatch):
    """A last build step with more sequences than the root's exact limit: the exact
    step is tried once (it used to be tried twice, seconds each at a hoarded hand), and
    the best found among the best scoring sequences leads the root's candidates, ahead
    of the heuristic's macros; the answer is not called exact."""
    from solver.search import buildsteps, ismcts

    state = _last_step_with(200)
    tries = []
    real = buildsteps.best_last_step

    def counting(*args, **kwargs):
        tries.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(ismcts, "best_last_step", counting)
    monkeypatch.setattr(ismcts, "ROOT_EXACT_LIMIT", 100)
    monkeypatch.setattr(ismcts, "ROOT_FOUND_LIMIT", 150)
    searcher = Searcher(view_of(state, state.current), 1)
    assert tries == [1] and searcher.exact is None
    found, _score = buildsteps.best_found_last_step(state, 150)
    assert searcher.root_order[0] == found and len(searcher.root_order) > 1
    macros = root_moves(state, replace(DEFAULT_PARAMS, exact_last=False))
    assert set(searcher.root_order[1:]) <= set(macros)
    out = ismcts.search(view_of(state, state.current), iterations=20, seed=1)
    assert out.exact_score is None


def test_mcts_bot_plays_its_build_plan_over_several_calls(cards, monkeypatch):
    """The build step is one macro-action: searched once, then played out."""
    state = play_greedy_to(cards, 6, Phase.BUILD)
    calls = []
    real = Searcher.run

    def counting(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Searcher, "run", counting)
    bot = MCTSBot(Budget(iterations=30))
    seat = state.current
    actions = []
    while state.current == seat and state.phase != Phase.OVER:
        action = bot.act(view_of(state, seat), 1)
        actions.append(action)
        state = play(state, action)
    assert len(calls) <= 1  # one search for the whole build step
    assert actions[-1].notation() == "end" or actions[-1].notation().startswith("claim")


def test_a_timed_bot_repays_time_spent_over_its_budget_in_the_next_turns(cards,
                                                                        monkeypatch):
    """A turn that overruns (a decision's set-up and its last iteration cannot be cut
    short) leaves a debt; the next turns search for the budget less the debt, never for
    less than half the budget, and a turn under budget repays it."""
    asked = []
    monkeypatch.setattr(Searcher, "run", lambda self, its=None, secs=None: asked.append(secs))
    bot = MCTSBot(Budget(seconds=1.0))
    state = play_greedy_to(cards, 6, Phase.TAKE)
    seat = state.current
    bot.act(view_of(state, seat), 1)
    assert bot._debt == 0.0 and asked[-1] <= 0.4
    bot._spent = 1.3  # this turn overran by 0.3 s
    later = state.copy()
    later.turn += 2  # the seat's next turn
    bot.act(view_of(later, seat), 2)
    assert abs(bot._debt - 0.3) < 1e-9
    assert asked[-1] <= 0.4 * 0.7 + 1e-9  # the first take's share of 0.7 s
    bot._spent = 2.0  # overran again: the debt exceeds half the budget
    later.turn += 2
    bot.act(view_of(later, seat), 3)
    assert abs(bot._debt - 1.3) < 1e-9 and asked[-1] <= 0.4 * 0.5 + 1e-9
    bot._spent = 0.0  # a free turn (e.g. forced moves) repays a whole budget
    later.turn += 2
    bot.act(view_of(later, seat), 4)
    assert abs(bot._debt - 0.3) < 1e-9


def test_a_bot_gives_its_first_take_the_share_its_params_name(cards, monkeypatch):
    """The first take of a turn gets ``first_take_share`` of the turn's budget, in
    iterations as in seconds; a share outside (0, 1) is refused by name."""
    asked = []
    monkeypatch.setattr(Searcher, "run", lambda self, its=None, secs=None: asked.append(
        (its, secs)))
    state = play_greedy_to(cards, 6, Phase.TAKE)
    for share in (0.4, 0.7):
        params = replace(DEFAULT_PARAMS, first_take_share=share)
        MCTSBot(Budget(iterations=100), params=params).act(view_of(state, state.current), 1)
        assert asked[-1] == (round(100 * share), None)
        MCTSBot(Budget(seconds=1.0), params=params).act(view_of(state, state.current), 1)
        assert share - 0.05 < asked[-1][1] <= share
    with pytest.raises(ValueError, match="first_take_share"):
        replace(DEFAULT_PARAMS, first_take_share=1.5)


def test_mcts_bot_reuses_its_tree_after_a_depot_take(cards):
    """With UCB at the root (a race restarts: its rounds must be paired)."""
    branches = set()
    for turn in range(3, 12):
        if len(branches) == 2:
            break
        state = play_greedy_to(cards, turn, Phase.TAKE)
        bot = MCTSBot(Budget(iterations=60), params=replace(DEFAULT_PARAMS, root="uct"))
        seat = state.current
        first = bot.act(view_of(state, seat), 2)
        searcher = bot._searcher
        kept = searcher.root.children[(first,)]
        state = play(state, first)
        bot.act(view_of(state, seat), 3)
        if first.card is not None:  # a Depot take reveals nothing: the subtree is reused
            assert bot._searcher is searcher and searcher.root is kept
            assert sum(c.visits for c in kept.children.values()) > 0
        else:  # a deck draw reveals a card: a fresh tree
            assert bot._searcher is not searcher
        branches.add(first.card is None)
    assert branches == {True, False}


# ------------------------------------------------------------------ the root race

def _racer(cards, moves: int = 5) -> Searcher:
    """A racing searcher at a mid-game build step whose candidates get synthetic rewards."""
    state = play_greedy_to(cards, 5, Phase.BUILD)
    searcher = Searcher(view_of(state, state.current), 1,
                        replace(DEFAULT_PARAMS, race_start=3, race_min_active=2,
                                race_min_rounds=4))
    assert searcher.race and len(searcher.root_order) >= moves
    return searcher


def _play_rounds(searcher: Searcher, reward_of, rounds: int) -> None:
    """Give every active candidate ``rounds`` more rounds, as the race would."""
    for _ in range(rounds * 8):
        move, k = searcher._race_next()
        if k >= rounds and all(len(searcher._rewards[m]) >= rounds for m in searcher._active):
            return
        searcher._rewards[move].append(reward_of(move, k))
        searcher._race_update()


def test_race_drops_a_clearly_worse_candidate_and_tests_it_again_later(cards):
    searcher = _racer(cards)
    order = searcher.root_order
    good, bad = order[0], order[1]

    def reward(move, k):  # ``bad`` trails by 0.3, ``good`` leads the rest by 0.01: noise
        noise = 0.04 if (k + order.index(move)) % 2 else -0.04
        return 0.5 + noise - (0.3 if move == bad else 0.0) + (0.01 if move == good else 0.0)

    _play_rounds(searcher, reward, 4)
    assert bad not in searcher._active and searcher._dropped[bad] == 4
    assert good in searcher._active
    # equal candidates stay; once nothing waits and few are left, the dropped one returns
    # only when the race has played twice the rounds it had when it was dropped
    searcher._waiting.clear()
    searcher._active = [good]
    for k in range(4, 8):
        assert bad not in searcher._active
        searcher._rewards[good].append(reward(good, k))
        searcher._race_update()
    assert bad in searcher._active and bad not in searcher._dropped
    assert searcher.best() == good  # ``bad`` has yet to catch up on rounds 4 to 7
    _play_rounds(searcher, reward, 8)
    assert searcher._dropped[bad] == 8  # still clearly worse: dropped again


def test_race_merges_candidates_that_score_alike_every_round(cards):
    searcher = _racer(cards)
    order = searcher.root_order
    twin_a, twin_b, other = order[0], order[1], order[2]

    def reward(move, k):
        if move in (twin_a, twin_b):
            return 0.4 + 0.1 * (k % 2)  # the very same outcome every round
        return 0.42 + 0.1 * ((k + 1) % 2)

    _play_rounds(searcher, reward, 4)
    assert twin_a in searcher._active and twin_b not in searcher._active
    assert twin_b not in searcher._dropped  # equivalent: never tested again
    assert other in searcher._active


def test_the_choice_reads_only_rounds_every_contender_has_played(cards):
    """A time budget can end in the middle of a round: the leader is chosen on the
    rounds the contenders have all finished, and a candidate that has just come back
    (catching up on earlier rounds) is not comparable yet."""
    searcher = _racer(cards)
    order = searcher.root_order
    searcher._active = [order[0], order[1], order[2]]
    searcher._rewards[order[0]] = [0.5] * 10 + [1.0]  # its 11th round is in progress
    searcher._rewards[order[1]] = [0.6] * 10
    searcher._rewards[order[2]] = [0.9] * 3  # just came back: 3 of 10 rounds
    assert searcher.best() == order[1]


def test_students_t_quantile():
    from solver.search.ismcts import _t975

    for df, table in ((3, 3.182), (5, 2.571), (9, 2.262), (19, 2.093), (99, 1.984)):
        assert abs(_t975(df) - table) < 0.03


def test_a_time_budget_counts_the_root_set_up(cards):
    import time

    state = play_greedy_to(cards, 5, Phase.BUILD)
    searcher = Searcher(view_of(state, state.current), 1)
    time.sleep(0.25)  # as if ranking the root's candidates had taken that long
    searcher.run(seconds=0.2)
    # the budget was spent before the first iteration: one iteration, not the race's
    # whole first round
    assert searcher.iterations == 1


@pytest.mark.parametrize("root", ["race", "uct"])
def test_flat_search_has_no_tree_below_the_root_candidates(cards, root):
    """tree_turns=-1: every iteration plays one root candidate, then the rollout; the
    root's children get all the visits and have no children of their own."""
    state = play_greedy_to(cards, 6, Phase.TAKE)
    searcher = Searcher(view_of(state, state.current), 3,
                        replace(DEFAULT_PARAMS, root=root, tree_turns=-1))
    searcher.run(iterations=60)
    children = searcher.root.children.values()
    assert len(children) > 1
    assert sum(c.visits for c in children) == 60
    assert all(not c.children for c in children)


@pytest.mark.parametrize("horizon", ["open", "cutoff"])
def test_a_tree_held_to_the_cutoff_evaluates_every_iteration_at_the_roots_round_end(
        cards, monkeypatch, horizon):
    """tree_horizon="cutoff": the tree stops at the end of the root's round, so every
    rollout starts at or before it and every iteration is evaluated there; "open" lets
    the tree grow past it (the check could fail). The second seat to act in a round: its
    own turn ends the round."""
    state = play_greedy_to(cards, 7, Phase.TAKE)
    searcher = Searcher(view_of(state, state.current), 3,
                        replace(DEFAULT_PARAMS, tree_horizon=horizon, root="uct"))
    starts = []
    rollout = Searcher._rollout

    def recording(self, s):
        starts.append((s.turn, s.phase == Phase.TAKE and s.picks == 0))
        return rollout(self, s)

    monkeypatch.setattr(Searcher, "_rollout", recording)
    searcher.run(iterations=400)
    cut = searcher.cutoff_turn
    past = [(turn, at_start) for turn, at_start in starts
            if turn > cut or (turn == cut and not at_start)]
    if horizon == "cutoff":
        assert not past
        assert any(turn == cut for turn, _ in starts)  # the tree does reach it
    else:
        assert past


@pytest.mark.parametrize("cutoff, answered", [("round", False), ("replies", True)])
def test_the_replies_cutoff_evaluates_after_every_opponent_has_answered(
        cards, monkeypatch, cutoff, answered):
    """cutoff="replies": the last seat of a round (turn 7 of a 2-player game) is evaluated
    after its opponent's next turn, not at the end of its own; "round" stops at the
    round's end. Every iteration of a search is evaluated at the same turn."""
    state = play_greedy_to(cards, 7, Phase.TAKE)
    searcher = Searcher(view_of(state, state.current), 3,
                        replace(DEFAULT_PARAMS, cutoff=cutoff))
    ends = _rollout_ends(monkeypatch, searcher, 120)
    assert {turn for turn, _over in ends} == {state.turn + (2 if answered else 1)}


def _rollout_ends(monkeypatch, searcher: Searcher, iterations: int) -> list[tuple]:
    """Where each rollout of ``iterations`` of ``searcher`` stopped: (turn, game over)."""
    ends = []
    rollout = Searcher._rollout

    def recording(self, s):
        out = rollout(self, s)
        ends.append((s.turn, s.phase == Phase.OVER))
        return out

    monkeypatch.setattr(Searcher, "_rollout", recording)
    searcher.run(iterations=iterations)
    return ends


@pytest.mark.parametrize("turn, endgame_rounds, scored_at_the_end", [
    (16, 0, False), (16, 1, True), (14, 1, False), (14, 2, True)])
def test_endgame_rounds_search_the_games_last_rounds_to_its_end(
        cards, monkeypatch, turn, endgame_rounds, scored_at_the_end):
    """endgame_rounds=k: when the game (10 rounds of a 2-player game) ends within k rounds
    after the root's round, every iteration is played to the game's end and scored
    there; otherwise it stops at the root's round's end, as by default."""
    state = play_greedy_to(cards, turn, Phase.TAKE)
    searcher = Searcher(view_of(state, state.current), 3,
                        replace(DEFAULT_PARAMS, endgame_rounds=endgame_rounds))
    ends = _rollout_ends(monkeypatch, searcher, 40)
    assert set(ends) == ({(20, True)} if scored_at_the_end else {(turn + 2, False)})
    assert searcher.tree_end == searcher.cutoff_turn


@pytest.mark.parametrize("opp_tree", ["all", "takes", "none"])
def test_opp_tree_keeps_the_opponents_played_decisions_out_of_the_tree(cards, opp_tree):
    """opp_tree="takes": no tree node is an opponent's build step (the rollout plays it on
    the opponent's sampled hand); "none": no node is an opponent's at all; "all" has
    both (the check could fail). The first seat of a 2-player round: its opponent's turn
    is inside the root's round."""
    from solver.rules.actions import Take

    state = play_greedy_to(cards, 6, Phase.TAKE)
    seat = state.current
    searcher = Searcher(view_of(state, seat), 3,
                        replace(DEFAULT_PARAMS, opp_tree=opp_tree, root="uct"))
    searcher.run(iterations=600)
    theirs, stack = [], list(searcher.root.children.values())
    while stack:
        node = stack.pop()
        stack.extend(node.children.values())
        if node.mover != seat:
            theirs.append(all(isinstance(a, Take) for a in node.move))
    if opp_tree == "all":
        assert True in theirs and False in theirs
    elif opp_tree == "takes":
        assert theirs and all(theirs)
    else:
        assert not theirs


@pytest.mark.parametrize("opp_builds", ["rollout", "value"])
def test_opp_builds_value_plays_the_opponents_steps_by_the_value(cards, monkeypatch,
                                                                opp_builds):
    """opp_builds="value": the rollouts play an opponent's build step as the seat's own,
    the value's best (:func:`own_build_step`) on the opponent's sampled hand; "rollout"
    never asks it for an opponent's (the check could fail)."""
    import solver.search.ismcts as ismcts

    state = play_greedy_to(cards, 6, Phase.TAKE)
    seat = state.current
    movers = []
    real = ismcts.own_build_step

    def recording(st, params, evaluator):
        movers.append(st.current)
        step = real(st, params, evaluator)
        play(st, step[0])  # legal on that hand (IllegalActionError otherwise)
        return step

    monkeypatch.setattr(ismcts, "own_build_step", recording)
    searcher = Searcher(view_of(state, seat), 3, replace(
        DEFAULT_PARAMS, opp_tree="takes", opp_builds=opp_builds, root="uct"))
    searcher.run(iterations=200)
    assert seat in movers
    assert (any(m != seat for m in movers)) == (opp_builds == "value")


# ------------------------------------------------------------------ build steps by value

def _model_or_skip(cards):
    from solver.search.value import current_model

    model = current_model(cards)
    assert model is not None, "the shipped value model is trained on the default cards"
    return model


def test_root_step_order_value_ranks_every_build_step_by_the_model(cards):
    from solver.search.buildsteps import all_build_steps

    model = _model_or_skip(cards)
    state = play_greedy_to(cards, 7, Phase.BUILD)
    seat = state.current
    params = replace(DEFAULT_PARAMS, root_step_order="value")
    order = Searcher(view_of(state, seat), 1, params).root_order
    steps = all_build_steps(state, 3_000, with_states=True)
    value = {m: model.scores(after)[seat] for m, after in steps}
    assert len(order) == min(len(steps), params.macro_limit + params.root_widening)
    assert [value[m] for m in order] == sorted((value[m] for m in order), reverse=True)
    assert value[order[0]] == max(value.values())
    # today's order starts with the heuristic's macros instead
    assert Searcher(view_of(state, seat), 1).root_order != order


def test_tree_step_upgrade_reranks_the_seats_own_build_steps_it_meets_often(cards, monkeypatch):
    from solver.search import ismcts

    calls = []
    real = ismcts._valued_steps
    monkeypatch.setattr(ismcts, "_valued_steps",
                        lambda state, *a: calls.append(state.current) or real(state, *a))
    state = play_greedy_to(cards, 6, Phase.TAKE)
    seat = state.current
    tree = replace(DEFAULT_PARAMS, own_builds="tree")  # (the seat's build steps as nodes)
    Searcher(view_of(state, seat), 2, tree).run(iterations=200)
    assert calls == []  # off by default
    searcher = Searcher(view_of(state, seat), 2, replace(tree, tree_step_upgrade=3))
    searcher.run(iterations=200)
    assert calls and set(calls) == {seat}  # only the searching seat's own decisions
    assert len(calls) == sum(1 for hits in searcher._hits.values() if hits >= 3)


def test_rollouts_can_build_by_the_model(cards):
    state = play_greedy_to(cards, 6, Phase.TAKE)
    params = replace(DEFAULT_PARAMS, rollout_builds="value")
    a = Searcher(view_of(state, state.current), 4, params)
    a.run(iterations=80)
    b = Searcher(view_of(state, state.current), 4, params)
    b.run(iterations=80)
    today = Searcher(view_of(state, state.current), 4)
    today.run(iterations=80)
    assert a.root_stats() == b.root_stats()  # reproducible
    assert [s.total for s in a.root_stats()] != [s.total for s in today.root_stats()]


def test_auto_rollouts_build_by_the_model_only_in_a_long_search(cards):
    """``rollout_builds="auto"``: a search given ``value_rollouts_from`` seconds (or 1,000x
    as many iterations) plays the rollouts of ``"value"``, a shorter one those of
    ``"greedy"`` (same seed, same statistics)."""
    state = play_greedy_to(cards, 6, Phase.TAKE)
    view = view_of(state, state.current)

    def stats(rollout_builds: str, iterations: int) -> list:
        params = replace(DEFAULT_PARAMS, rollout_builds=rollout_builds,
                         value_rollouts_from=0.06)
        searcher = Searcher(view, 4, params)
        searcher.run(iterations=iterations)
        return searcher.root_stats()

    assert stats("auto", 60) == stats("value", 60) != stats("greedy", 60)
    assert stats("auto", 59) == stats("greedy", 59) != stats("value", 59)


def test_own_exploration_constant_applies_at_the_seats_own_nodes_only(cards):
    """``c_own``: None and ``c_uct``'s value search alike; another value changes the
    search only through the seat's own nodes below the root (its second takes, with
    own_takes="tree"), so with ``c_uct`` also changed at the opponents' nodes the
    statistics differ again. With the second take played by the value, the seat's nodes
    in the root's round have one move each, and ``c_own`` changes nothing."""
    state = play_greedy_to(cards, 6, Phase.TAKE)
    view = view_of(state, state.current)

    def stats(own_takes="tree", **knobs) -> list:
        searcher = Searcher(view, 4, replace(DEFAULT_PARAMS, rollout_builds="greedy",
                                             own_takes=own_takes, **knobs))
        searcher.run(iterations=300)
        return searcher.root_stats()

    assert stats(c_own=None) == stats(c_own=DEFAULT_PARAMS.c_uct)
    own_low = stats(c_own=0.05)
    assert own_low != stats(c_own=None)
    assert stats(c_own=0.05, c_uct=1.5) != own_low  # the opponents' nodes keep c_uct
    assert stats("value", c_own=0.05) == stats("value", c_own=None)


def test_search_params_name_a_choice_that_does_not_exist():
    with pytest.raises(ValueError,
                       match="rollout_builds: 'valeu' is not one of greedy, value, auto"):
        replace(DEFAULT_PARAMS, rollout_builds="valeu")


@pytest.mark.parametrize("field,value", [("exact_last", "False"), ("stratify_top", "1"),
                                         ("stratify_top", -1), ("stratify_top", True),
                                         ("endgame_rounds", -1), ("endgame_rounds", 1.5),
                                         ("own_step_limit", 0)])
def test_search_params_refuse_a_value_of_the_wrong_kind(field, value):
    """A flag given as the text "False" would be true: refused, naming the field."""
    with pytest.raises(ValueError, match=f"SearchParams.{field}: {value!r} is not"):
        replace(DEFAULT_PARAMS, **{field: value})


# ------------------------------------------------------------------ the seat's own turn

def test_own_builds_by_value_play_the_models_best_step_below_the_root(cards, monkeypatch):
    """own_builds="value": every build step of the searching seat below the root is the
    one the model values best among all its build steps, worked out once per thing the
    seat knows (memoised), never for another seat."""
    from solver.search import ismcts
    from solver.search.buildsteps import all_build_steps

    model = _model_or_skip(cards)
    seen = []
    real = ismcts._step_values
    monkeypatch.setattr(ismcts, "_step_values",
                        lambda state, *a: seen.append(state.copy()) or real(state, *a))
    state = play_greedy_to(cards, 6, Phase.TAKE)
    seat = state.current
    ismcts.clear_memos()
    params = replace(DEFAULT_PARAMS, own_builds="value")
    first = Searcher(view_of(state, seat), 2, params)
    first.run(iterations=150)
    assert seen and all(s.current == seat and s.phase == Phase.BUILD for s in seen)
    keys = [ismcts._own_key(s) for s in seen]
    assert len(keys) == len(set(keys))  # each known situation valued once
    for s in seen[:5]:
        s.landmark_deck = []  # (a claim's gap stays open in what the seat can know)
        steps = all_build_steps(s, 3_000, with_states=True)
        best = max(model.scores(after)[seat] for _m, after in steps)
        chosen = ismcts.own_build_step(s, params, model)
        assert model.scores(dict(steps)[chosen])[seat] == pytest.approx(best)
    # the memo serves a second search of the position, which plays exactly as the first
    count = len(seen)
    again = Searcher(view_of(state, seat), 2, params)
    again.run(iterations=150)
    assert len(seen) == count
    assert again.root_stats() == first.root_stats()


def test_own_take_by_value_is_the_take_whose_best_build_step_is_worth_most(cards):
    """own_takes="value": the seat's last take of a turn is the one after which its best
    build step (every build step, valued by the model) is worth the most: a Depot card by
    the hand with it, the deck by the mean over the cards it may show (here all of them)."""
    from solver.rules.actions import Take
    from solver.search import ismcts
    from solver.search.buildsteps import all_build_steps
    from solver.search.policies import tables

    model = _model_or_skip(cards)
    state = play_greedy_to(cards, 4, Phase.TAKE)
    apply_inplace(state, Take(None))  # a first take from the deck: the second is next
    seat = state.current
    assert state.phase == Phase.TAKE and state.picks == 1
    unseen = tuple(sorted(view_of(state, seat).unseen_cards()))
    pool = [c for c in unseen if c not in state.players[seat].hand]
    params = replace(DEFAULT_PARAMS, own_takes="value", own_take_samples=len(pool))

    def worth(card: int) -> float:  # the best build step's value, found independently
        after = state.copy()
        after.players[seat].hand.append(card)
        after.phase, after.picks = Phase.BUILD, 2
        after.landmark_deck = []
        return max(model.scores(s)[seat] for _m, s in all_build_steps(after, 3_000, True))

    takes = tables(cards).takes
    values = {takes[c]: worth(c) for c in set(state.depot)}
    values[Take(None)] = sum(map(worth, pool)) / len(pool)
    chosen = ismcts.own_take(state, params, model, unseen)
    assert values[chosen] == pytest.approx(max(values.values()))


def test_own_step_limit_bounds_the_seats_step_to_the_shortest_sequences(cards, monkeypatch):
    """own_step_limit: where a hoarded hand allows thousands of build sequences, the
    seat's own build step below the root is chosen among the first ``own_step_limit`` of
    them breadth first (every single build among them), and no enumeration behind it
    goes further; a 1 s hint used to spend seconds in one such valuation."""
    from solver.search import buildsteps, ismcts
    from solver.search.policies import tables

    model = _model_or_skip(cards)
    state = hoarded_build_step(2_000)
    state.landmark_deck = []
    shortest = {seq for seq, _a in buildsteps.payable_sequences(state, 150, True)}
    given = []
    real = buildsteps.payable_sequences

    def counting(*args, **kwargs):
        given.append(0)
        for item in real(*args, **kwargs):
            given[-1] += 1
            yield item

    monkeypatch.setattr(buildsteps, "payable_sequences", counting)
    ismcts.clear_memos()
    params = replace(DEFAULT_PARAMS, own_step_limit=150)
    step = ismcts.own_build_step(state, params, model)
    assert given and max(given) <= 151  # (the exact step's try stops one past)
    ids = tables(cards).ids
    builds = tuple((b.card, b.side) for b in step[:-1])
    assert builds in {tuple((ids[c], side) for c, side in seq) for seq in shortest}


def test_own_take_valued_greedily_is_the_take_whose_greedy_build_step_is_worth_most(cards):
    """own_take_value="greedy": each take is valued by the value's greedy build step
    (played in place on the hand with the card, the claim's gap left open) instead of
    the best of all build steps; the deck still by the mean over the cards it may show."""
    from solver.rules.actions import Take
    from solver.search import ismcts
    from solver.search.policies import tables, valued_build_step_inplace

    model = _model_or_skip(cards)
    for turn in (4, 6):
        state = play_greedy_to(cards, turn, Phase.TAKE)
        apply_inplace(state, Take(None))
        seat = state.current
        unseen = tuple(sorted(view_of(state, seat).unseen_cards()))
        pool = [c for c in unseen if c not in state.players[seat].hand]
        params = replace(DEFAULT_PARAMS, own_take_samples=len(pool), own_take_value="greedy")

        def worth(card: int, state=state, seat=seat) -> float:
            after = state.copy()
            after.players[seat].hand.append(card)
            after.phase, after.picks = Phase.BUILD, 2
            after.landmark_deck = []
            valued_build_step_inplace(after, model.turn_end_scores)
            return model.scores(after)[seat]

        takes = tables(cards).takes
        values = {takes[c]: worth(c) for c in set(state.depot)}
        values[Take(None)] = sum(map(worth, pool)) / len(pool)
        chosen = ismcts.own_take(state, params, model, unseen)
        assert values[chosen] == pytest.approx(max(values.values()))


def test_own_takes_by_value_play_the_second_take_below_the_root(cards):
    """Below a Depot take at the root (which reveals nothing) the seat's second take is
    always the same one, own_take's; below the deck it may differ with the card shown."""
    from solver.search import ismcts

    model = _model_or_skip(cards)
    state = play_greedy_to(cards, 6, Phase.TAKE)
    seat = state.current
    params = replace(DEFAULT_PARAMS, own_takes="value")
    searcher = Searcher(view_of(state, seat), 4, params)
    searcher.run(iterations=200)
    unseen = tuple(sorted(view_of(state, seat).unseen_cards()))
    depot_takes = [m for m in searcher.root.children if m[0].card is not None]
    assert depot_takes
    for move in depot_takes:
        below = searcher.root.children[move].children
        if not below:
            continue  # (visited once: the rollout played it)
        after = state.copy()
        apply_inplace(after, move[0])
        assert list(below) == [(ismcts.own_take(after, params, model, unseen),)]


def test_take_pairs_are_both_takes_of_a_turn_best_first():
    from solver.rules.actions import Take
    from solver.search.ismcts import _take_pairs

    a, b, deck = Take("H01"), Take("H02"), Take(None)
    pairs = _take_pairs([(3.0, a), (2.0, deck), (1.0, b)])
    assert pairs == [(a, deck), (deck,), (a, b), (b, deck)]


def test_paired_root_takes_play_the_whole_turn_from_the_depot(cards):
    """root_takes="pairs": at a turn's first take the root's candidates are both takes
    (the deck first stays alone: what it shows decides the second), and the bot then
    plays the pair's second take without searching again."""
    from solver.rules.actions import Take

    state = play_greedy_to(cards, 6, Phase.TAKE)
    assert state.picks == 0
    params = replace(DEFAULT_PARAMS, root_takes="pairs")
    searcher = Searcher(view_of(state, state.current), 2, params)
    order = searcher.root_order
    depot = set(state.depot)
    assert [m for m in order if len(m) == 1] == [(Take(None),)]
    for move in order:
        assert move[0].card is None if len(move) == 1 else cards.card(move[0].card) in depot
    assert len({frozenset(m) for m in order}) == len(order)  # no pair twice
    searcher.run(iterations=120)
    assert searcher.best() in order

    seat = state.current
    pairs_played = 0
    for seed in range(5, 11):
        bot = MCTSBot(Budget(iterations=40), params=params)
        first = bot.act(view_of(state, seat), seed)
        if first.card is None:
            continue  # the deck first: the second take is searched when it is known
        second, = bot._plan
        assert bot.act(view_of(play(state, first), seat), seed + 1) == second
        pairs_played += 1
    assert pairs_played


def test_full_gc_passes_wait_while_searches_run_and_come_back_after(cards, monkeypatch):
    """A search runs with the collector's full passes deferred (its memos are millions of
    objects without cycles); the thresholds come back once the last search of the
    process has ended, also when searches overlap on threads."""
    import gc
    import threading

    from solver.search.ismcts import full_gc_deferred

    before = gc.get_threshold()
    seen = []
    iterate = Searcher.iterate
    monkeypatch.setattr(Searcher, "iterate",
                        lambda self: (seen.append(gc.get_threshold()), iterate(self)))
    state = play_greedy_to(cards, 6, Phase.TAKE)
    Searcher(view_of(state, state.current), 0).run(iterations=20)
    assert len(seen) == 20 and all(t[:2] == before[:2] and t[2] > 10**6 for t in seen)
    assert gc.get_threshold() == before

    inner_done = threading.Event()

    def other_search():
        with full_gc_deferred():
            pass
        inner_done.set()

    with full_gc_deferred():
        thread = threading.Thread(target=other_search)
        thread.start()
        thread.join()
        assert inner_done.is_set() and gc.get_threshold()[2] > 10**6  # still deferred
    assert gc.get_threshold() == before


_NO_CYCLES_SCRIPT = """
import gc, json
from collections import Counter
from rules_testkit import play_greedy_to
from solver.rules.cards import load_card_set
from solver.rules.payment.api import clear_caches
from solver.rules.state import Phase
from solver.rules.views import view_of
from solver.search.ismcts import Searcher, concrete_move

cards = load_card_set()
positions = [play_greedy_to(cards, 8, Phase.TAKE, seed=3),
             play_greedy_to(cards, 12, Phase.TAKE, seed=4),
             play_greedy_to(cards, 12, Phase.BUILD, seed=4)]
Searcher(view_of(positions[0], positions[0].current), 0).run(iterations=20)  # warm
gc.unfreeze()
gc.collect()
gc.disable()
gc.set_debug(gc.DEBUG_SAVEALL)  # keep what a collection finds, to name it
frozen, builds = [], 0
for k, state in enumerate(positions):
    clear_caches()
    searcher = Searcher(view_of(state, state.current), k)
    searcher.run(iterations=150)
    frozen.append(gc.get_freeze_count())
    if state.phase == Phase.BUILD:
        builds = len(concrete_move(state, searcher.best())) - 1
    gc.unfreeze()
gc.collect()  # (unfrozen first: a frozen cycle would hide from it)
found = Counter(getattr(x, "__qualname__", type(x).__name__) for x in gc.garbage)
print(json.dumps({"frozen": frozen, "builds": builds, "found": found.most_common(5)}))
"""


def test_a_search_freezes_what_it_leaves_alive_and_makes_no_cyclic_garbage():
    """After a search the objects alive are frozen (the full passes that resume do not
    walk the memos again), which is only safe if a search makes no cyclic garbage: a
    frozen cycle would never be freed. Payments are searched afresh (caches emptied) so
    that their recursive enumerations run, and the best build step is paid jointly (as a
    bot does) at a position where it holds several builds. In a fresh process: other
    tests' threads make garbage of their own."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    tests = Path(__file__).parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tests), str(tests.parent), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-c", _NO_CYCLES_SCRIPT], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert all(n > 0 for n in got["frozen"]) and got["builds"] >= 2
    assert got["found"] == [], f"cyclic garbage after searches: {got['found']}"


def test_every_so_many_freezes_a_full_pass_sweeps_what_a_server_thread_left(monkeypatch):
    """A process whose other threads make cyclic garbage would keep what it froze: every
    ``_GC_SWEEP_EVERY``-th time its searches all end, one full pass runs first."""
    import gc

    from solver.search import ismcts

    calls = []
    monkeypatch.setattr(ismcts, "_GC_SWEEP_EVERY", 3)
    monkeypatch.setattr(ismcts, "_GC_FREEZES", 0)
    monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("collect") or 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    for _ in range(6):
        with ismcts.full_gc_deferred():
            pass
    assert calls == ["freeze", "freeze", "unfreeze", "collect", "freeze"] * 2


@pytest.mark.parametrize("players", [2, 3])
def test_a_stratified_deck_place_takes_each_unseen_card_and_keeps_the_seats_view(cards,
                                                                                players):
    """_put_on_top (SearchParams.stratify_top): every unseen card can be put on the asked
    place of the deck, from lower in the deck or an opponent's hidden hand, except a hidden
    discard (its pile's materials are public); the state stays a legal one behind the same
    view, and places above the asked one keep their cards."""
    from solver.rules.position import check_state
    from solver.search.ismcts import _put_on_top

    state = play_greedy_to(cards, 6, Phase.TAKE, players=players)
    seat = state.current
    view = view_of(state, seat)
    det = Determinizer(view)
    placed = {0: 0, 1: 0}
    for k, card in enumerate(det.unseen):
        for depth in (0, 1):
            sample = det.sample(random.Random(k))
            top = sample.deck[-1]
            _put_on_top(sample, seat, card, depth)
            check_state(sample)
            assert view_of(sample, seat) == view
            hidden_discard = any(card in p.discard for p in sample.players)
            at_place = sample.deck[-1 - depth] == card
            assert at_place != hidden_discard or (depth == 1 and card == top)
            if depth == 1:
                assert sample.deck[-1] == top
            placed[depth] += at_place
    in_discards = sum(len(p.discard) for i, p in enumerate(state.players) if i != seat)
    assert placed[0] >= len(det.unseen) - in_discards > 0
