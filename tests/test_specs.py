"""The one grammar of bot and budget specs (solver/search/specs.py), strict: what a caller
checks is exactly what runs (issue 12: lenient variants bypassed the server's caps)."""

from __future__ import annotations

import pytest

from solver.search.api import Budget, BudgetError
from solver.search.bots import BotSpecError, make_bot
from solver.search.specs import BudgetSpec, SpecError, check_caps, parse_bot_spec, parse_budget

LENIENT = ["mcts:1000S", "mcts:1e3s", " mcts:1s", "mcts:1s ", "mcts:1_000i", "mcts:+1s",
           "MCTS:1s", "mcts:1.s", "mcts:.5s", "mcts:01s", "mcts:1.5i", "mcts:0s", "mcts:0i",
           "mcts:-1s", "mcts:1 s", "mcts:inf s", "mcts:nans", "mcts:infs", "mcts:1e3i",
           "mcts:１s", "mcts:1s\n", "mcts:86400s", "mcts:1000000000000000000000000000s",
           "greedy:1s:2", "mcts:", "mcts::1s"]


@pytest.mark.parametrize("text", LENIENT)
def test_lenient_variants_are_refused_everywhere(text):
    with pytest.raises(SpecError):
        parse_bot_spec(text)
    with pytest.raises(BotSpecError):
        make_bot(text)
    kind, _, arg = text.partition(":")
    if kind == "mcts" and ":" not in arg:
        with pytest.raises(BudgetError):
            Budget.parse(arg)


def test_grammar_accepts_the_documented_forms():
    assert parse_budget("500i") == BudgetSpec(iterations=500)
    assert parse_budget("0.25s") == BudgetSpec(seconds=0.25)
    assert parse_budget("86399.9s").seconds == 86399.9  # the grammar; caps come after
    assert parse_bot_spec("random").budget is None
    assert parse_bot_spec("mcts:2s").budget == BudgetSpec(seconds=2.0)
    assert Budget.parse("1.5s") == Budget(seconds=1.5)


def test_a_zero_budget_says_what_is_wrong():
    with pytest.raises(SpecError, match="iterations must be at least 1, got '0i'"):
        parse_budget("0i")  # it said only that the budget must be <iterations>i
    with pytest.raises(SpecError, match="seconds must be more than 0"):
        parse_budget("0s")


def test_caps_apply_to_the_parsed_numbers():
    check_caps(parse_bot_spec("mcts:10s"), 10, 100, "seats[1]")
    for text in ("mcts:10.001s", "mcts:101i"):
        with pytest.raises(SpecError) as info:
            check_caps(parse_bot_spec(text), 10, 100, "seats[1]")
        assert info.value.kind == "limit" and info.value.field == "seats[1]"


def test_module_class_specs_only_where_allowed():
    with pytest.raises(SpecError, match="module:Class"):
        parse_bot_spec("os.path:join", known={"random", "greedy", "mcts"})
    spec = parse_bot_spec("mypkg.bots:MyBot", allow_import=True)
    assert (spec.kind, spec.module, spec.cls) == ("import", "mypkg.bots", "MyBot")
    with pytest.raises(BotSpecError):
        make_bot("os.path:join")  # make_bot never imports
