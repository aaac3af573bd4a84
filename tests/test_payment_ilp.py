"""The CP-SAT payment model: against the brute-force oracle on tiny cases, against the fast
path on random positions (a hypothesis property; ``BIGSUR_FULL=1`` for 20,000), its
hints and statistics, and the ``bigsur pay`` command line."""

from __future__ import annotations

import argparse
import json
import os
import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_payment_fast import replay_plan, tiny_positions
from test_payment_rules import brute_force

from bench.payment import random_position
from solver.payment_ilp import add_cli, build_model, cheapest_joint, parse_build
from solver.rules.actions import Build, End
from solver.rules.cards import load_card_set
from solver.rules.engine import legal_actions, new_game, play
from solver.rules.payment import (
    PaymentInfeasible,
    PaymentRequestError,
    affordable_sets,
    joint_payment,
)
from solver.rules.position import state_to_json
from solver.rules.state import Phase

CARDS = load_card_set()
FULL = os.environ.get("BIGSUR_FULL") == "1"
AGREEMENT_EXAMPLES = 20_000 if FULL else 300


@pytest.mark.parametrize("seed", range(3))
def test_cpsat_matches_the_oracle(seed):
    feasible = 0
    for state, builds in tiny_positions(50, seed + 100):
        expected = brute_force(state, [c for c, _side in builds])
        try:
            plan = cheapest_joint(state, builds)
        except PaymentInfeasible:
            assert expected is None
            continue
        assert plan.objective == expected
        replay_plan(state, plan)
        feasible += 1
    assert feasible >= 8


@pytest.mark.slow
@settings(max_examples=AGREEMENT_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), hand=st.integers(1, 15), builds=st.integers(1, 3))
@example(seed=2, hand=10, builds=2)  # the best top needed a plan shape the fast path dropped
def test_cpsat_and_fast_path_agree(seed, hand, builds):
    """Same feasibility and the same optimum on all three levels; both plans replay."""
    state, request = random_position(random.Random(seed), CARDS, hand, builds)
    try:
        fast = joint_payment(state, request)
    except PaymentInfeasible as err:
        with pytest.raises(PaymentInfeasible):
            cheapest_joint(state, request)
        assert err.short
        return
    exact = cheapest_joint(state, request)
    assert fast.objective == exact.objective
    replay_plan(state, fast)
    replay_plan(state, exact)


def test_stats_and_hint():
    rng = random.Random(8)
    done = 0
    while done < 20:
        state, request = random_position(rng, CARDS, 9, 2)
        try:
            fast = joint_payment(state, request)
        except PaymentInfeasible:
            continue
        plain = cheapest_joint(state, request)
        hinted = cheapest_joint(state, request, hint=fast)
        assert plain.objective == hinted.objective == fast.objective
        for key in ("build_ms", "solve_ms", "build_cpu_ms", "solve_cpu_ms"):
            assert plain.stats[key] >= 0
        assert plain.stats["status"] == "OPTIMAL" and plain.solver == "cp-sat"
        done += 1
    model = build_model(state, request)
    assert len(model.sp) == len(state.player.hand) - len(request)


def test_parse_build():
    assert parse_build("H12:left") == ("H12", "L")
    assert parse_build("H12:R") == ("H12", "R")
    for bad in ("H12", "H12:up", ":left"):
        with pytest.raises(PaymentRequestError, match="CARD:left"):
            parse_build(bad)


def _build_step_position():
    """A real game position at a build step where two cards can be built together."""
    for seed in range(200):
        state = new_game(2, seed, CARDS)
        rng = random.Random(seed)
        while state.phase != Phase.OVER:
            if state.phase == Phase.BUILD:
                pairs = [s for s in affordable_sets(state, 2) if len(s) == 2]
                if pairs:
                    return state, affordable_sets(state, 2)[pairs[0]][0]
            action = rng.choice(legal_actions(state))
            if isinstance(action, Build):
                action = End()
            state = play(state, action)
    raise AssertionError("no position with two affordable builds")


def _run(args):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    add_cli(sub)
    parsed = parser.parse_args(args)
    return parsed.func(parsed)


def test_cli_pay(tmp_path, capsys):
    state, order = _build_step_position()
    path = tmp_path / "position.json"
    path.write_text(json.dumps(state_to_json(state)))
    ids = [CARDS.highway[c].id for c in order]
    for extra in ([], ["--fast"]):
        assert _run(["pay", str(path), "--build", f"{ids[0]}:left",
                     "--build", f"{ids[1]}:right", *extra]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["feasible"] and [b["card"] for b in out["builds"]] == ids
        assert [b["side"] for b in out["builds"]] == ["L", "R"]
        after = state
        for build in out["builds"]:
            after = play(after, build["action"])
        assert len(state.player.hand) - len(after.player.hand) == 2 + out["cards_spent"]


def test_cli_pay_reads_card_ids_in_any_case_as_the_play_prompt_does(tmp_path, capsys):
    """`bigsur pay position.json --build h05:l` said "unknown Highway card 'h05'" where
    the play prompt reads 'h05' as H05: both read a typed id in any case."""
    from solver.cli import main

    state, order = _build_step_position()
    path = tmp_path / "position.json"
    path.write_text(json.dumps(state_to_json(state)))
    ids = [CARDS.highway[c].id for c in order]
    assert main(["pay", str(path), "--build", f"{ids[0]}:left", "--build",
                 f"{ids[1]}:right"]) == 0
    as_printed = json.loads(capsys.readouterr().out)
    assert main(["pay", str(path), "--build", f"{ids[0].lower()}:l", "--build",
                 f"{ids[1].lower()}:R"]) == 0
    assert json.loads(capsys.readouterr().out) == as_printed
    assert main(["pay", str(path), "--build", "h999:left"]) == 2
    assert "unknown Highway card 'h999'" in capsys.readouterr().err


def test_an_id_typed_in_another_case_that_matches_two_cards_is_one_line(tmp_path, capsys,
                                                                       monkeypatch):
    """A second read: a set may hold ids differing only in case ('Ab1', 'aB1'), and
    'ab1' then names neither: CardSet.typed_id says so, and the command line prints it
    as one line, not a traceback."""
    from types import SimpleNamespace

    from solver.cli import main
    from solver.rules.cards import CardSet, UnknownCardError

    cards = SimpleNamespace(name="cased", highway_index={"Ab1": 0, "aB1": 1},
                            landmark_index={})  # (what typed_id reads of a set)
    with pytest.raises(UnknownCardError, match="'ab1'.*did you mean Ab1 or aB1"):
        CardSet.typed_id(cards, "ab1")
    assert CardSet.typed_id(cards, "aB1") == "aB1"
    state, order = _build_step_position()
    path = tmp_path / "position.json"
    path.write_text(json.dumps(state_to_json(state)))
    monkeypatch.setattr(CardSet, "typed_id", lambda self, typed, landmark=False:
                        (_ for _ in ()).throw(UnknownCardError(f"unknown card {typed!r}")))
    assert main(["pay", str(path), "--build", "x:left"]) == 2
    assert capsys.readouterr().err == "bigsur: error: unknown card 'x'\n"


def test_cli_pay_takes_a_view_of_the_seat_to_act(tmp_path, capsys):
    """`bigsur pay view.json` said "format: must be 'bigsur-position/1'", though
    POST /v1/payment pays a view: a payment reads only the acting seat's cards and public
    ones, so the view of the seat to act pays as its full position; another seat's view
    is one line naming the seats."""
    from solver.cli import main
    from solver.rules.views import view_of, view_to_json

    state, order = _build_step_position()
    build = ["--build", f"{CARDS.highway[order[0]].id}:left"]
    for name, raw in [("pos", state_to_json(state)),
                      ("view", view_to_json(view_of(state, state.current)))]:
        (tmp_path / f"{name}.json").write_text(json.dumps(raw))
    assert main(["pay", str(tmp_path / "pos.json"), *build]) == 0
    of_position = json.loads(capsys.readouterr().out)
    assert main(["pay", str(tmp_path / "view.json"), *build]) == 0
    assert json.loads(capsys.readouterr().out) == of_position
    other = 1 - state.current
    (tmp_path / "other.json").write_text(json.dumps(view_to_json(view_of(state, other))))
    assert main(["pay", str(tmp_path / "other.json"), *build]) == 2
    assert capsys.readouterr().err == (f"bigsur: error: view_of: the view is of seat {other} "
                                       f"but seat {state.current} is to act; only the seat "
                                       "to act pays\n")


def test_cli_pay_infeasible(tmp_path, capsys):
    state, _order = _build_step_position()
    hand = state.player.hand
    blocked = next((c for c in hand if joint_cost_none(state, c)), None)
    if blocked is None:  # every card alone is payable: ask for all of them at once
        request = [f"{CARDS.highway[c].id}:left" for c in hand]
    else:
        request = [f"{CARDS.highway[blocked].id}:left"]
    path = tmp_path / "position.json"
    path.write_text(json.dumps(state_to_json(state)))
    args = ["pay", str(path)]
    for text in request:
        args += ["--build", text]
    assert _run(args) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["feasible"] is False and "cannot pay" in out["reason"] and out["short"]


def joint_cost_none(state, card) -> bool:
    try:
        joint_payment(state, [card])
    except PaymentInfeasible:
        return True
    return False
