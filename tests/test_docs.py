"""The tutorial (docs/tutorial.md) runs as a doctest, and so do the library section of
docs/rules.md and the examples in the rules modules' docstrings."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_the_tutorial_runs(tmp_path, monkeypatch):
    text = TUTORIAL.read_text(encoding="utf-8")
    # the bot module the page asks the reader to save as thrifty.py
    module = re.search(r"Save this as `thrifty.py`.*?```python\n(.*?)```", text, re.S)
    (tmp_path / "thrifty.py").write_text(module.group(1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = doctest.testfile(str(TUTORIAL), module_relative=False, optionflags=FLAGS,
                              globs={}, report=True, verbose=False)
    assert result.attempted > 20 and result.failed == 0


def test_the_library_section_of_the_rules_page_runs(tmp_path, monkeypatch):
    """docs/rules.md, "Using the rules as a library": the three programs a library user
    writes first (a bot's game, a position's payments, a record's scores by turn). The
    page writes its record in the current directory: here a temporary one."""
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(str(ROOT / "docs" / "rules.md"), module_relative=False,
                              optionflags=FLAGS, globs={}, report=True, verbose=False)
    assert result.attempted > 20 and result.failed == 0


RULES_MODULES = sorted(p.stem for p in (ROOT / "solver" / "rules").glob("*.py")
                       if p.stem != "__init__")


@pytest.mark.parametrize("name", RULES_MODULES)
def test_rules_docstring_examples(name):
    module = importlib.import_module(f"solver.rules.{name}")
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.failed == 0


def test_the_rules_package_docstring_example():
    import solver.rules

    result = doctest.testmod(solver.rules, optionflags=FLAGS)
    assert result.attempted > 0 and result.failed == 0


def test_the_pay_example_of_the_format_page_is_real_output(tmp_path, capsys):
    """docs/format.md shows `bigsur pay` of the tutorial's position (its card ids were of
    another card set before)."""
    import json

    from solver.cli import main
    from solver.rules.engine import new_game, play
    from solver.rules.position import state_to_json

    text = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")
    shown = re.search(r"### `bigsur pay`.*?```json\n(.*?)```", text, re.S).group(1)
    state = new_game(2, seed=8)
    for move in ["take H06", "take H22", "end", "take H18", "take H19", "end",
                 "take H02", "take H37"]:
        state = play(state, move)
    position = tmp_path / "position.json"
    position.write_text(json.dumps(state_to_json(state)))
    assert main(["pay", str(position), "--build", "H11:left"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(shown)


def test_the_readme_python_example_runs(capsys):
    """The README's Python example is the first code a library user runs; it was checked
    by nothing. Its prints: the legal actions after a take, then the search's top move."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks and any("from solver.rules" in b for b in blocks)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    import ast

    lines = capsys.readouterr().out.splitlines()
    moves = ast.literal_eval(lines[0])  # the second take of the turn
    assert "take deck" in moves and all(m.startswith("take ") for m in moves)
    top = ast.literal_eval(lines[1])
    assert top["actions"][0] in moves and top["visits"] > 0


def test_the_readme_terminal_lines_run_in_order(tmp_path, monkeypatch, capsys):
    """README.md, "First use": its selfplay, replay, hint and pay lines, run in order as a
    newcomer runs them (the hint at 50 iterations instead of its seconds). Its pay line
    named H12, a card not in the hand of the position the replay line writes: the pay
    failed."""
    import json
    import shlex

    from solver.cli import main

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"From the terminal:\n\n```bash\n(.*?)```", text, re.S).group(1)
    lines = {}
    for line in block.splitlines():
        words = shlex.split(line.split("  #")[0])
        lines.setdefault(words[1], words[1:])
    monkeypatch.chdir(tmp_path)
    for name in ("selfplay", "replay", "hint", "pay"):
        argv = lines[name]
        if "--seconds" in argv:  # the hint: a search of seconds, cut short here
            argv = argv[:argv.index("--seconds")] + ["--iterations", "50"]
        capsys.readouterr()
        assert main(argv) == 0, (name, capsys.readouterr())
    plan = json.loads(capsys.readouterr().out)
    assert plan["feasible"] and plan["builds"][0]["card"] == lines["pay"][-1].split(":")[0]


def test_the_error_example_of_the_api_page_is_real_output(tmp_path):
    """docs/api.md, "Errors": the example body is the server's answer to a hint asked for a
    position with an unknown card in seats[1].hand[0]."""
    import json

    from fastapi.testclient import TestClient

    from server.app import create_app
    from server.settings import Settings
    from solver.rules.engine import new_game
    from solver.rules.position import state_to_json

    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    shown = json.loads(re.search(r"## Errors.*?```json\n(.*?)```", text, re.S).group(1))
    position = state_to_json(new_game(2, seed=8))
    position["seats"][1]["hand"][0] = "H99"
    app = create_app(Settings(db=str(tmp_path / "t.db"), workers=1, pool="thread",
                              warm=False))
    with TestClient(app) as client:
        answer = client.post("/v1/hint", json={"position": position,
                                               "budget": {"iterations": 10}})
    assert answer.status_code == 422 and answer.json() == shown
