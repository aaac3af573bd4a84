"""``module:Class`` bot specs: the command line's tournaments load them; nothing else
does (a spec that names code runs it)."""

from __future__ import annotations

import pytest

from solver.search.bots import BotSpecError
from solver.search.tournament import TournamentError, schedule, seat_bot

BOT = '''
from solver.rules.engine import legal_actions


class First:
    name = "first"

    def act(self, view, seed):
        return legal_actions(view)[0]


class NoAct:
    pass
'''


@pytest.fixture()
def bot_module(tmp_path, monkeypatch):
    (tmp_path / "my_bots.py").write_text(BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_bots"


def test_module_class_specs_load_only_when_code_is_allowed(bot_module):
    assert seat_bot(f"{bot_module}:First", code=True).name == "first"
    with pytest.raises(BotSpecError):
        seat_bot(f"{bot_module}:First")  # the spec grammar of make_bot
    with pytest.raises(TournamentError):
        schedule([f"{bot_module}:First", "random"], 2, 2)
    tasks = schedule([f"{bot_module}:First", "random"], 2, 2, code=True)
    assert all(t.code for t in tasks)
    assert seat_bot("mcts:5i", code=True).name.startswith("mcts")  # built-ins unchanged


@pytest.mark.parametrize("spec, words", [
    ("no_such_module_xyz:Bot", "cannot import module"),
    ("my_bots:Missing", "has no 'Missing'"),
    ("my_bots:NoAct", "has no act(view, seed)"),
])
def test_bad_module_class_specs_name_the_problem(bot_module, spec, words):
    with pytest.raises(BotSpecError, match=words.replace("(", r"\(").replace(")", r"\)")):
        seat_bot(spec, code=True)
