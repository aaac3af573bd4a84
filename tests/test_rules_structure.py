"""The shape of ``solver/rules`` and ``server/``: no import cycles in either (lazy and
TYPE_CHECKING imports count), ``rules`` imports nothing from ``search/``, ``server/`` or
the CLI, ``server.settings`` imports no other server module, and the payment package's
modules import only public names of one another."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "solver" / "rules"
SERVER = ROOT / "server"


def _modules(package: Path = RULES) -> dict[str, Path]:
    out = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path):
    """(module imported, names imported) of every import, at any depth (lazy and
    TYPE_CHECKING imports count too)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield target, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []


def _edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ``mods`` it imports."""
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for target, names in _imports(m, path):
            for t in [target] + [f"{target}.{n}" for n in names]:
                if t in mods and t != m:
                    edges[m].add(t)
    return edges


def _assert_no_cycles(edges: dict[str, set[str]]) -> None:
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(edges[m]):
            assert state.get(n) != 1, "import cycle: " + " -> ".join(path + [n])
            if n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])


def test_rules_has_no_import_cycles_and_imports_nothing_of_search_server_or_cli():
    mods = _modules()
    for m, path in mods.items():
        for target, _names in _imports(m, path):
            assert not target.startswith(("solver.search", "server", "solver.cli")), (m, target)
    _assert_no_cycles(_edges(mods))


def test_server_has_no_import_cycles_and_settings_imports_no_server_module():
    mods = _modules(SERVER)
    edges = _edges(mods)
    _assert_no_cycles(edges)
    assert edges["server.settings"] == set(), edges["server.settings"]
    assert "server.settings" in edges["server.app"]  # the one Settings, imported


def test_the_cycle_check_finds_a_cycle():
    import pytest

    with pytest.raises(AssertionError, match="import cycle: a -> b -> a"):
        _assert_no_cycles({"a": {"b"}, "b": {"a"}})


def test_payment_modules_import_only_public_names_of_each_other():
    mods = _modules()
    for m, path in mods.items():
        if not m.startswith("solver.rules.payment"):
            continue
        for target, names in _imports(m, path):
            if target.startswith("solver.rules"):
                private = [n for n in names if n.startswith("_")]
                assert not private, (m, target, private)
        assert len(path.read_text(encoding="utf-8").splitlines()) < 600, m


def test_the_package_exports_the_names_a_library_user_needs_each_documented():
    """``solver.rules`` exported nothing, and its docstring sent the reader to the HTTP
    API's page: a program built on the rules had to find each name's module. Its
    ``__all__`` now lists the entry points, each the object of its own module and each
    with a docstring of its own (not the dataclass signature)."""
    import importlib
    import inspect

    import solver.rules as rules

    assert len(rules.__all__) == len(set(rules.__all__))
    namespace: dict = {}
    exec("from solver.rules import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(rules.__all__)
    for name in rules.__all__:
        obj = getattr(rules, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            home = importlib.import_module(obj.__module__)
            assert getattr(home, name) is obj, name
            doc = obj.__doc__ or ""
            assert doc.strip() and not doc.startswith(f"{name}("), f"{name}: no docstring"
    for name in ["new_game", "legal_actions", "play", "view_of", "cheapest_payment",
                 "score_player", "final_scores", "state_from_json", "GameRecord"]:
        assert name in rules.__all__, name
    assert "docs/api.md" not in rules.__doc__  # the HTTP API, not this library
