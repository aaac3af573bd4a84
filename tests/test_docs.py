"""The tutorial (docs/tutorial.md) runs as a doctest, and so do the examples in the
rules modules' docstrings."""

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


RULES_MODULES = sorted(p.stem for p in (ROOT / "solver" / "rules").glob("*.py")
                       if p.stem != "__init__")


@pytest.mark.parametrize("name", RULES_MODULES)
def test_rules_docstring_examples(name):
    module = importlib.import_module(f"solver.rules.{name}")
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.failed == 0
