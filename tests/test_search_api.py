"""The search entry point: the JSON contract, inputs (state or view), errors, CLI."""

from __future__ import annotations

import argparse
import json
import math

import pytest
from rules_testkit import noisy_build_steps, play_greedy_to

from solver.rules.actions import Action, Discard, Substitute
from solver.rules.cards import load_card_set
from solver.rules.engine import play
from solver.rules.position import state_to_json
from solver.rules.scoring import score_player
from solver.rules.state import Phase
from solver.rules.views import view_of, view_to_json
from solver.search.api import (
    Budget,
    BudgetError,
    GameOverError,
    InconsistentViewError,
    NotToActError,
    add_cli,
    analyse,
)


@pytest.fixture(scope="module")
def cards():
    return load_card_set()



@pytest.fixture(scope="module")
def build_state(cards):
    return play_greedy_to(cards, 6, Phase.BUILD)


@pytest.fixture(scope="module")
def take_state(cards):
    return play_greedy_to(cards, 5, Phase.TAKE)


def test_budget_validation():
    assert Budget(iterations=5).iterations == 5
    assert Budget.parse("1.5s") == Budget(seconds=1.5)
    assert Budget.parse("300i") == Budget(iterations=300)
    for bad in ({}, {"iterations": 5, "seconds": 1.0}, {"iterations": 0},
                {"seconds": -1.0}, {"iterations": 2.5}, {"iterations": True}):
        with pytest.raises(BudgetError):
            Budget(**bad)
    with pytest.raises(BudgetError, match="budget"):
        Budget.parse("fast")


def _check_result(state, result, iterations):
    out = result.to_json()
    assert json.loads(json.dumps(out)) == out  # plain JSON
    assert set(out) == {"seat", "moves", "stats"}
    assert out["seat"] == state.current
    assert set(out["stats"]) == {"iterations", "seconds", "determinizations", "workers"}
    assert out["stats"]["iterations"] == iterations
    moves = out["moves"]
    assert moves
    visits = [m["visits"] for m in moves]
    assert visits == sorted(visits, reverse=True)
    assert sum(visits) == iterations  # every iteration goes through one root move
    seen = set()
    for m in moves:
        assert set(m) - {"final_score"} == {"actions", "label", "visits", "win_probability",
                                            "expected_margin", "payment", "line", "exact",
                                            "score_change", "reasons", "versus_top"}
        assert isinstance(m["reasons"], list) and len(m["reasons"]) <= 3
        assert all(isinstance(r, str) and r and not r.endswith(".") for r in m["reasons"])
        assert ("final_score" in m) == m["exact"]
        assert m["label"] and isinstance(m["label"], str)
        assert 0.0 <= m["win_probability"] <= 1.0
        assert all(isinstance(a, str) for a in m["line"])
        key = tuple(m["actions"])
        assert key not in seen
        seen.add(key)
        s = state
        for text in m["actions"]:  # the move applies, in sequence, from the position
            s = play(s, text)
        builds = [a for a in m["actions"] if a.startswith("build")]
        if builds:
            plan = m["payment"]["builds"]
            assert [b["action"] for b in plan] == builds  # explicit payments, explained
            assert all(len(b["pay"]) == len(b["cost"]) for b in plan)
            steps = [step for b in builds for step in Action.parse(b).payment]
            spent = sum(3 if isinstance(step, Substitute) else isinstance(step, Discard)
                        for step in steps)
            assert m["payment"]["cards_spent"] == spent
        else:
            assert m["payment"] is None
        if state.phase == Phase.TAKE:
            assert len(m["actions"]) == 1 and m["actions"][0].startswith("take")
        else:  # a build step ends the turn
            assert m["actions"][-1] == "end" or m["actions"][-1].startswith("claim")
            assert s.current != state.current or s.phase == Phase.OVER


def test_build_step_result_contract(build_state):
    result = analyse(build_state, Budget(iterations=60), seed=1)
    _check_result(build_state, result, 60)
    assert any(m.payment for m in result.moves)  # this position has builds to rank


def test_take_step_result_contract(take_state):
    result = analyse(take_state, Budget(iterations=40), seed=2)
    _check_result(take_state, result, 40)
    takes = {m.actions[0] for m in result.moves}
    assert "take deck" in takes


def test_a_build_steps_score_change_is_what_playing_it_adds_now(take_state):
    """Each ranked build step says what it adds to the seat's score as its Highway
    stands, category by category: the change that playing it on the true state gives
    (searched from the view, whose hidden cards the search samples); takes and a bare
    end say nothing."""
    states = [*noisy_build_steps(range(3), last=False), *noisy_build_steps(range(2), True)]
    checked = 0
    for state in states:
        seat = state.current
        view = view_of(state, seat)
        for m in analyse(view, Budget(iterations=40), seed=3).moves:
            if not any(a.startswith(("build", "claim")) for a in m.actions):
                assert m.score_change is None
                continue
            after = state
            for a in m.actions:
                after = play(after, a)
            old = score_player(state.cards, state.players[seat]).to_json()
            new = score_player(state.cards, after.players[seat]).to_json()
            assert m.score_change == {k: new[k] - old[k] for k in old if k != "details"}
            assert m.to_json()["score_change"] == m.score_change
            checked += 1
    assert checked >= 10
    assert all(m.score_change is None
               for m in analyse(take_state, Budget(iterations=20), seed=1).moves)


def test_each_ranked_move_says_what_it_does_from_the_seats_view(take_state, build_state):
    """A move's reasons are explain_move of the seat's view and its actions (the facts
    are checked against the engine in tests/test_explain.py); the positions' best moves
    have some."""
    from solver.rules.explain import explain_move

    said = 0
    for state in (take_state, build_state):
        view = view_of(state, state.current)
        result = analyse(state, Budget(iterations=60), seed=2)
        for m in result.moves:
            actions = tuple(Action.parse(a) for a in m.actions)
            assert m.reasons == explain_move(view, actions)
            assert m.to_json()["reasons"] == m.reasons
            said += bool(m.reasons)
    assert said >= 3


def test_a_failing_explanation_does_not_fail_the_hint(take_state, monkeypatch, caplog):
    """A bug in the explanation leaves the moves without reasons, logged; the hint
    keeps its numbers."""
    import solver.search.api as api

    def broken(view, move):
        raise RuntimeError("explain bug")

    monkeypatch.setattr(api, "explain_move", broken)
    with caplog.at_level("ERROR", logger="solver.search.api"):
        result = analyse(take_state, Budget(iterations=20), seed=1)
    assert result.moves and all(m.reasons == [] for m in result.moves)
    assert "explain bug" in caplog.text


def test_state_and_its_view_give_the_same_result(build_state, cards):
    from solver.rules.views import view_from_json

    a = analyse(build_state, Budget(iterations=40), seed=5).to_json()
    view = view_from_json(json.loads(json.dumps(view_to_json(
        view_of(build_state, build_state.current)))), cards)
    b = analyse(view, Budget(iterations=40), seed=5).to_json()
    a.pop("stats")
    b.pop("stats")
    assert a == b


def test_errors_are_named(cards, build_state):
    over = play_greedy_to(cards, 0, Phase.OVER)
    with pytest.raises(GameOverError):
        analyse(over, Budget(iterations=5))
    with pytest.raises(NotToActError, match="seat"):
        analyse(view_of(build_state, 1 - build_state.current), Budget(iterations=5))
    broken = view_of(build_state, build_state.current)
    broken.deck_count += 2
    with pytest.raises(InconsistentViewError, match="deck.count"):
        analyse(broken, Budget(iterations=5))
    with pytest.raises(BudgetError, match="workers"):
        analyse(build_state, Budget(iterations=5), workers=0)


def _cli(argv, capsys):
    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr()


def test_cli_hint(tmp_path, capsys, build_state, cards):
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(state_to_json(build_state)))
    code, out = _cli(["hint", str(pos), "--iterations", "30", "--seed", "4", "--json",
                      "--top", "2"], capsys)
    assert code == 0
    data = json.loads(out.out)
    assert len(data["moves"]) <= 2 and data["stats"]["iterations"] == 30
    assert data["seed"] == 4  # the seed searched with, as POST /v1/hint answers it
    view = tmp_path / "view.json"
    view.write_text(json.dumps(view_to_json(view_of(build_state, build_state.current))))
    code, out = _cli(["hint", str(view), "--iterations", "30", "--seed", "4"], capsys)
    assert code == 0
    assert "visits" in out.out and data["moves"][0]["label"] in out.out
    # the seat to act as the reasons under it and the page say players, counted from 1
    # (it said "Seat 0 to act." over "denies Player 3 ..."); the JSON's "seat" from 0
    assert out.out.startswith(f"Player {data['seat'] + 1} to act. 30 iterations in "), out.out
    assert "\nseed 4: " in out.out
    for m in data["moves"]:  # the reasons, one line under their move
        if m["reasons"]:
            assert f"why: {'; '.join(m['reasons'])}" in out.out
    over = tmp_path / "over.json"
    over.write_text(json.dumps(state_to_json(play_greedy_to(cards, 0, Phase.OVER))))
    code, out = _cli(["hint", str(over), "--iterations", "5"], capsys)
    assert code == 2 and "game is over" in out.err


def test_a_hint_of_too_few_iterations_says_so_under_its_table(tmp_path, capsys, take_state):
    """`bigsur hint --seconds 1` ran 5 iterations, each move 1 visit, and said nothing of
    it where the page says "too few iterations to tell". The table now says it under its
    moves, by the page's rule, also when --top leaves the moves out; a search long
    enough to tell says nothing."""
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(state_to_json(take_state)))
    code, out = _cli(["hint", str(pos), "--iterations", "5", "--json"], capsys)
    top = json.loads(out.out)["moves"][0]
    assert code == 0 and top["visits"] < 100
    for extra in ([], ["--top", "1"]):
        code, out = _cli(["hint", str(pos), "--iterations", "5", *extra], capsys)
        table, _, after = out.out.partition("\n\nToo few iterations to tell")
        assert code == 0 and top["label"] in table
        assert after.startswith(f" the top moves apart (5 iterations): only {top['visits']} "
                                f"visit{'s' if top['visits'] != 1 else ''} for the top move"
                                " (a verdict needs 100); search longer"), out.out
    code, out = _cli(["hint", str(pos), "--iterations", "1000"], capsys)
    assert code == 0 and "Too few" not in out.out


def test_the_caution_of_a_thin_hint_is_the_pages_rule():
    """words.js confidence(): after a race, the paired test against the listed move least
    told apart from the first (one that scored alike every round counts only when all
    did) not clear on fewer than 30 rounds; without a race, under 100 visits for the top
    move; never with one move."""
    from solver.search.api import RankedMove, SearchResult, too_few_words
    from solver.search.ismcts import PairedGap

    def said(visits, *gaps):  # (no gaps: a search that did not race)
        gaps = (None, *gaps) if gaps else (None,) * len(visits)
        moves = [RankedMove(["end"], f"move {k}", v, 0.5, 0.0, None, [], versus_top=g)
                 for k, (v, g) in enumerate(zip(visits, gaps, strict=True), 1)]
        return too_few_words(SearchResult(0, moves, {"iterations": sum(visits)}))

    assert said([99, 1]).endswith("only 99 visits for the top move (a verdict needs 100); "
                                  "search longer (a larger --iterations or --seconds)")
    assert said([100, 1]) is None and said([5]) is None and said([]) is None
    close, far = PairedGap(29, 1.5, False), PairedGap(29, 9.0, True)
    assert "#1 and #3 are not yet told apart on 29 shared rounds" in said([9, 9, 9], far, close)
    assert said([9, 9, 9], far, PairedGap(30, 1.5, False)) is None  # enough rounds
    assert said([9, 9], far) is None  # a clear lead on few rounds
    alike = PairedGap(6, 0.0, False, alike=True)
    assert said([9, 9], alike) is None  # the same move as far as the search can tell
    assert "#1 and #3" in said([9, 9, 9], alike, close)  # the alike one does not count
    # the page judges the 4 moves it lists: a 5th not yet told apart does not count
    assert said([9, 9, 9, 9, 1], far, far, far, close) is None


@pytest.mark.parametrize("workers", [1, 2])
def test_versus_top_is_the_races_paired_test_against_the_first_move(build_state, workers):
    """A hint at a build step said "only 96 visits for the top move (a verdict needs
    100): search longer" at 1 s: the race gives its last candidates equal visits, so
    visits never told them apart. Each move but the first now carries the race's paired
    test against it, on the rounds both played in each worker (pooled: a worker's rounds
    pair only with its own), recomputed here from the workers' own searches."""
    from solver.search.ismcts import (
        DEFAULT_PARAMS,
        _paired_gap,
        _run_one,
        _t975,
        _worker_seed,
        search,
    )

    view = view_of(build_state, build_state.current)
    out = search(view, iterations=600, seed=3, workers=workers)
    top = out.moves[0].move
    assert out.moves[0].versus_top is None
    paired = [m for m in out.moves[1:] if m.versus_top is not None]
    assert paired, "a build step with many candidates races them"
    runs = [_run_one(view, 600 // workers, None, _worker_seed(3, k), DEFAULT_PARAMS)[3]
            for k in range(workers)]
    for m in paired:
        lead, other = [], []
        for rounds in runs:
            n = min(len(rounds[top]), len(rounds[m.move]))
            lead += rounds[top][:n]
            other += rounds[m.move][:n]
        gap = max(-999.0, min(999.0, _paired_gap(lead, other)))
        assert m.versus_top.rounds == len(lead) >= 2
        assert m.versus_top.standard_errors == pytest.approx(gap)
        assert m.versus_top.clear == (gap >= max(2.0, _t975(len(lead) - 1)))
        assert m.versus_top.alike == (lead == other)
        assert m.versus_top.every_round == math.isinf(_paired_gap(lead, other))
    assert any(m.versus_top.clear for m in paired)  # a 600-iteration race drops some
    # the hint passes it on, in the search's order, as JSON
    result = analyse(build_state, Budget(iterations=600), seed=3, workers=workers)
    assert [m.versus_top for m in result.moves] == [m.versus_top for m in out.moves]
    said = [m["versus_top"] for m in result.to_json()["moves"]]
    assert said == [None] + [m.versus_top and {
        "rounds": m.versus_top.rounds, "standard_errors": round(m.versus_top.standard_errors, 2),
        "clear": m.versus_top.clear, "alike": m.versus_top.alike,
        "every_round": m.versus_top.every_round} for m in out.moves[1:]]


def test_a_move_the_race_merged_stands_as_the_move_it_was_merged_into():
    """A player's pass: at a last round's first take every budget, 3 s included, said
    "the 4th listed is not yet told apart from the top move on the 6 sampled deals":
    the race had merged it into an equivalent after 6 rounds and never played it again.
    Such a move carries the test of the move it repeats (scored alike with the first:
    0 exactly); a move cut short by the time, with too few rounds to be merged, keeps
    its own."""
    import random

    from solver.search.ismcts import DEFAULT_PARAMS, MoveStats, _pair_with_top

    rng = random.Random(4)
    a = [rng.random() for _ in range(40)]
    b = [x - 0.2 + 0.01 * rng.random() for x in a]
    rounds = {("A",): a, ("B",): b, ("C",): b[:6], ("D",): a[:6], ("E",): b[:3]}
    moves = [MoveStats(m, len(r)) for m, r in rounds.items()]
    _pair_with_top(moves, [rounds], DEFAULT_PARAMS)
    tests = {m.move[0]: m.versus_top for m in moves}
    assert tests["A"] is None and tests["B"].clear and tests["B"].rounds == 40
    assert tests["C"] == tests["B"]  # merged into B after 6 rounds
    assert tests["D"].alike and tests["D"].rounds == 6  # merged into the first
    assert tests["E"].rounds == 3 and tests["E"] != tests["B"]  # cut short, not merged
    assert not any(tests[m].alike for m in "BCE")
    # differences that cancel give 0 standard errors without scoring alike
    rounds = {("A",): [1.0, 0.0, 0.5, 0.5, 0.3, 0.7], ("F",): [0.0, 1.0, 0.5, 0.5, 0.3, 0.7]}
    moves = [MoveStats(m, 6) for m in rounds]
    _pair_with_top(moves, [rounds], DEFAULT_PARAMS)
    assert moves[1].versus_top.standard_errors == 0 and not moves[1].versus_top.alike


def test_a_gap_of_every_round_is_said_in_words_not_as_the_bound_of_the_test():
    """A move behind (or ahead of) the first by the same amount on every round has no
    number of standard errors: the test holds it at a bound, which the table must not
    print as a measured 999.0."""
    from solver.search.api import versus_top_words
    from solver.search.ismcts import DEFAULT_PARAMS, MoveStats, _pair_with_top

    first = [0.1 * k for k in range(24)]
    rounds = {("A",): first, ("B",): [x - 0.2 for x in first],
              ("C",): [x + 0.3 for x in first]}
    moves = [MoveStats(m, 24) for m in rounds]
    _pair_with_top(moves, [rounds], DEFAULT_PARAMS)
    behind, ahead = (versus_top_words(m.versus_top) for m in moves[1:])
    assert behind == "against #1: behind on every one of 24 shared rounds"
    assert ahead == "against #1: ahead on every one of 24 shared rounds"
    # a second read: a gap held at the bound need not be the same every round (one tie
    # in 2,000 rounds: 1,999 standard errors), and then "every one" is untrue
    lead = [1.0] * 2000
    rounds = {("A",): lead, ("B",): [0.0] * 1999 + [1.0]}
    moves = [MoveStats(m, 2000) for m in rounds]
    _pair_with_top(moves, [rounds], DEFAULT_PARAMS)
    assert not moves[1].versus_top.every_round and moves[1].versus_top.standard_errors == 999
    assert versus_top_words(moves[1].versus_top) == (
        "against #1: clearly behind on 2000 shared rounds (999 or more standard errors)")


def test_a_search_that_does_not_race_says_no_paired_test(build_state):
    """UCB at the root (``root=uct``) compares no rounds: no move carries a test."""
    from dataclasses import replace

    from solver.search.ismcts import DEFAULT_PARAMS

    result = analyse(build_state, Budget(iterations=200), seed=1,
                     params=replace(DEFAULT_PARAMS, root="uct"))
    assert len(result.moves) > 1
    assert all(m.versus_top is None for m in result.moves)
    assert all(m["versus_top"] is None for m in result.to_json()["moves"])


def test_the_modules_examples_run():
    """Its docstring examples (the score change in words) are checked."""
    import doctest

    import solver.search.api

    result = doctest.testmod(solver.search.api)
    assert result.attempted >= 1 and result.failed == 0


def test_a_bare_end_does_not_claim_the_turn_built_nothing():
    """A position does not record a build made earlier in its build step: a hint from the
    position editor, after the seat had built H43 that turn, offered "End the turn without
    building". The words say only that it builds no more."""
    from solver.rules.actions import End
    from solver.rules.engine import new_game, play
    from solver.search.api import describe_move

    state = play(play(new_game(2, seed=3), "take deck"), "take deck")
    assert describe_move(state, [End()]) == "End the turn without building more"


def test_moves_to_rank_must_be_legal_for_the_seat_to_act():
    """``analyse(..., moves=...)`` ranked an illegal take in the build step at 83% to win,
    and a build of a card not in hand failed inside the payment ('list.remove(x): x not
    in list'). Each move is played on a state of the view first: an illegal one is named."""
    from solver.rules.actions import Build, End, IllegalActionError, Take
    from solver.rules.engine import new_game
    from solver.search.api import Budget, analyse

    take_step = new_game(2, seed=3)
    build_step = play(play(take_step, "take deck"), "take deck")
    hand = build_step.players[build_step.current].hand
    not_in_hand = next(c.id for c in build_step.cards.highway
                       if build_step.cards.card(c.id) not in hand)
    for state, moves, words in (
            (build_step, [(End(),), (Take(None),)], r"moves\[1\]: illegal action 'take deck'"),
            (take_step, [(End(),)], r"moves\[0\]: illegal action 'end'"),
            (build_step, [(Build(not_in_hand, "L"), End())], rf"moves\[0\]: .*{not_in_hand}"),
            (build_step, [End()], r"moves\[0\]: must be a tuple of Actions"),
            (build_step, [], "moves: must be a non-empty list")):
        with pytest.raises(IllegalActionError, match=words):
            analyse(state, Budget(iterations=5), moves=moves)
    ranked = analyse(build_step, Budget(iterations=5), moves=[(End(),)])
    assert [m.actions for m in ranked.moves] == [["end"]]


def test_the_search_package_and_its_results_say_what_each_field_is():
    """help() on RankedMove and SearchResult explained no field (win_probability,
    expected_margin, visits, line), solver.search had no docstring, and Budget said only
    "wall time, per worker" though set-up at a large hand overruns a short budget."""
    import dataclasses

    import solver.search
    from solver.search.api import RankedMove, SearchResult

    assert "solver.search.api" in (solver.search.__doc__ or "")
    for cls in (RankedMove, SearchResult):
        doc = cls.__doc__ or ""
        assert doc and not doc.startswith(cls.__name__ + "(")  # not the dataclass's
        for f in dataclasses.fields(cls):
            assert f"``{f.name}``" in doc, (cls.__name__, f.name)
    assert "overrun" in Budget.__doc__ and "set-up" in Budget.__doc__


@pytest.mark.parametrize("text", ["1 s", "fast", ""])
def test_a_budget_outside_the_grammar_names_the_budget_once(text):
    with pytest.raises(BudgetError) as info:
        Budget.parse(text)
    assert str(info.value).startswith("budget must be <iterations>i or <seconds>s")
    assert "budget" not in str(info.value)[len("budget"):].split("(e.g.")[0]
