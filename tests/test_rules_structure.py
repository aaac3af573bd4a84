"""The shape of ``solver/rules``: no import cycles, nothing imported from ``search/``,
``server/`` or the CLI, and the payment package's modules import only public names of
one another."""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "solver" / "rules"


def _modules() -> dict[str, Path]:
    out = {}
    for path in RULES.rglob("*.py"):
        parts = path.relative_to(RULES.parent.parent).with_suffix("").parts
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


def test_rules_has_no_import_cycles_and_imports_nothing_of_search_server_or_cli():
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for target, names in _imports(m, path):
            assert not target.startswith(("solver.search", "server", "solver.cli")), (m, target)
            for t in [target] + [f"{target}.{n}" for n in names]:
                if t in mods and t != m:
                    edges[m].add(t)
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(edges[m]):
            assert state.get(n) != 1, "import cycle: " + " -> ".join(path + [n])
            if n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(mods):
        if m not in state:
            visit(m, [m])


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
