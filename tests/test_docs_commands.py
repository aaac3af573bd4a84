"""What the documentation tells a reader to type exists in the code: every `bigsur ...`
and `python -m bench.NAME ...` command shown in README.md and docs/ (its subcommand and
each of its --options, checked against the command's own argparse parser), and every
HTTP route: docs/api.md names each route the app serves and no other, README.md no
other. docs/deploy.md has its own checks (tests/server/test_ops.py)."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re
from pathlib import Path

import pytest

from solver.search.ismcts import SearchParams

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["README.md", "docs/tutorial.md", "docs/rules.md", "docs/ai.md", "docs/format.md",
        "docs/api.md"]
FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```", re.S | re.M)
COMMAND = re.compile(r"(?:(?<=[\s(])|^)(bigsur|python -m bench\.\w+)(?=\s|$)")


def shown_commands(text: str) -> list[str]:
    """Each command line the page shows: in shell code blocks (comments cut), in indented
    command lines and in inline code (which may wrap a line)."""
    snippets = []
    for lang, block in FENCE.findall(text):
        if lang in ("", "bash", "sh", "console"):
            block = re.sub(r"\\\n\s*", " ", block)  # a line continued with \
            snippets += [line.split(" #")[0] for line in block.splitlines()]
    prose = FENCE.sub("", text)
    snippets += re.findall(r"(?m)^    ((?:bigsur|python -m bench)\b.*)$", prose)
    snippets += [code.replace("\n", " ") for code in re.findall(r"`([^`]+)`", prose)]
    commands = []
    for snippet in snippets:
        for match in COMMAND.finditer(snippet):
            # up to the end of the command: a shell separator or the prose's parenthesis
            commands.append(re.split(r";|\)|\s&&|\s\|\s", snippet[match.start():])[0].strip())
    return commands


class _Parser(Exception):
    pass


def bench_parser(module: str) -> argparse.ArgumentParser:
    """The parser a benchmark's main() builds, caught as it starts parsing (nothing runs)."""
    def catch(self, *args, **kwargs):
        raise _Parser(self)

    main = importlib.import_module(module).main
    original = argparse.ArgumentParser.parse_known_args
    argparse.ArgumentParser.parse_known_args = catch
    try:
        main([])
    except _Parser as caught:
        return caught.args[0]
    finally:
        argparse.ArgumentParser.parse_known_args = original
    raise AssertionError(f"{module}.main() parsed no arguments")


def subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(name)
    return None


def command_problem(command: str) -> str | None:
    """Why a shown command would not parse its options (None: it would)."""
    from solver.cli import build_parser

    words = [w for w in re.sub(r"[\[\]|,]", " ", command).split()]
    if words[0] == "bigsur":
        if len(words) < 2:
            return None  # the program's name in prose
        parser = subparser(build_parser(words[1]), words[1])
        if parser is None:
            return f"no subcommand {words[1]!r}"
        rest = words[2:]
        if words[1] == "cards" and rest and not rest[0].startswith("-"):
            parser = subparser(parser, rest[0])
            if parser is None:
                return f"no subcommand 'cards {rest[0]}'"
            rest = rest[1:]
    else:
        try:
            parser = bench_parser(words[2])
        except ModuleNotFoundError:
            return f"no module {words[2]}"
        rest = words[3:]
    options = {option for action in parser._actions for option in action.option_strings}
    unknown = [w.split("=")[0] for w in rest
               if w.startswith("--") and w.split("=")[0].rstrip(".:") not in options]
    # NAME=VALUE words (bench.variants, hint_agreement, train --search) set SearchParams
    knobs = {f.name for f in dataclasses.fields(SearchParams)}
    unknown += [f"SearchParams field {w.split('=')[0]}" for w in rest
                if re.match(r"[a-z_]+=", w) and w.split("=")[0] not in knobs]
    return f"no option {', '.join(unknown)}" if unknown else None


@pytest.mark.parametrize("page", DOCS)
def test_every_command_shown_has_its_subcommand_and_options(page):
    commands = shown_commands((ROOT / page).read_text(encoding="utf-8"))
    assert commands or page == "docs/rules.md", "no command found: is the extraction broken?"
    problems = [f"{command!r}: {why}" for command in commands
                if (why := command_problem(command))]
    assert not problems, problems


def test_a_wrong_option_or_subcommand_is_caught():
    """The check above, on commands made wrong (else it could pass by checking nothing)."""
    page = "Run `bigsur hint pos.json --secs 2`, then\n\n```bash\nbigsur replays r.json\n" \
           "python -m bench.variants c_uct=0.3 --budgt 1  # a typo\n```\n"
    found = {c: command_problem(c) for c in shown_commands(page)}
    assert found == {"bigsur hint pos.json --secs 2": "no option --secs",
                     "bigsur replays r.json": "no subcommand 'replays'",
                     "python -m bench.variants c_uct=0.3 --budgt 1": "no option --budgt"}
    assert command_problem("bigsur cards import x.csv --name n --force") is None
    assert command_problem("python -m bench.variants c_utc=0.3") == \
        "no option SearchParams field c_utc"


METHOD_PATH = re.compile(r"\b((?:GET|POST|PUT|PATCH|DELETE)(?:\|(?:GET|POST|PUT|PATCH|DELETE))*)"
                         r" (/[^\s`,;)]*)")


def named_routes(text: str) -> set[tuple[str, str]]:
    """(method, path) for each `METHOD /path` the page names; `POST|GET` names both,
    `[/{name}]` both paths, `{anything}` is a parameter, a query is dropped."""
    routes = set()
    for methods, path in METHOD_PATH.findall(text):
        path = re.sub(r"\{[^}]*\}", "{}", path.split("?")[0]).rstrip(".:")
        paths = {re.sub(r"\[.*?\]", "", path), path.replace("[", "").replace("]", "")}
        routes |= {(method, p) for method in methods.split("|") for p in paths}
    return routes


@pytest.fixture(scope="module")
def served_routes(tmp_path_factory):
    from server.app import create_app
    from server.settings import Settings

    # (create_app opens its database: a temporary one, not bigsur.db where pytest runs)
    db = tmp_path_factory.mktemp("routes") / "routes.db"
    paths = create_app(Settings(db=str(db), workers=1, pool="thread",
                                warm=False)).openapi()["paths"]
    return {(method.upper(), re.sub(r"\{[^}]*\}", "{}", path))
            for path, operations in paths.items() for method in operations}


def test_the_api_page_names_every_route_and_no_other(served_routes):
    named = named_routes((ROOT / "docs" / "api.md").read_text(encoding="utf-8"))
    assert served_routes - named == set(), "served, not in docs/api.md"
    assert named - served_routes == set(), "in docs/api.md, not served"


def test_the_readme_names_only_routes_that_are_served(served_routes):
    named = named_routes((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(named) > 20 and named - served_routes == set()


@pytest.mark.parametrize("page", DOCS)
def test_every_results_file_named_is_there(page):
    """A figure's source named as bench/results/NAME.json is a file of the repository."""
    text = (ROOT / page).read_text(encoding="utf-8")
    named = set(re.findall(r"bench/results/([\w.-]+\.json)", text)) - {"NAME.json"}
    missing = sorted(n for n in named if not (ROOT / "bench" / "results" / n).is_file())
    assert not missing, missing


def documented_default(cell: str):
    """A settings table's default as a value (a number, `text`, true/false, unset), or
    ... when it is said in words ("core count", "half the workers")."""
    cell = re.sub(r"\s*\(.*\)$", "", cell.strip())
    if re.fullmatch(r"-?\d+(\.\d+)?", cell):
        return float(cell)
    if re.fullmatch(r"`[^`]*`", cell):
        return cell.strip("`")
    return {"true": True, "false": False, "unset": None}.get(cell, ...)


@pytest.mark.parametrize("page", ["README.md", "docs/api.md"])
def test_the_settings_tables_defaults_are_the_code_s(page):
    """Each row of a settings table names settings (README: several per row, `A` / `B`,
    with their defaults `a / b`) whose defaults, where given as a value, are Settings'."""
    from server.settings import Settings

    fields = Settings.model_fields
    rows = re.findall(r"(?m)^\| (`BIGSUR_[^|]*) \| ([^|]*) \|", (ROOT / page).read_text("utf-8"))
    assert len(rows) > 15
    compared = 0
    for names_cell, defaults_cell in rows:
        names = re.findall(r"`BIGSUR_(\w+)`", names_cell)
        defaults = defaults_cell.split(" / ") if len(names) > 1 else [defaults_cell]
        assert len(names) == len(defaults), names_cell
        for name, cell in zip(names, defaults, strict=True):
            assert name.lower() in fields, f"BIGSUR_{name} is not a setting"
            shown = documented_default(cell)
            if shown is not ...:
                code = fields[name.lower()].default
                assert shown == code, (name, cell, code)
                compared += 1
    assert compared > 10


@pytest.mark.parametrize("page", DOCS)
def test_every_file_and_python_name_the_page_points_at_exists(page):
    """Paths of the repository (`solver/...`, `server/...`, ...) are there, and dotted
    names (`solver.search.api.analyse`) import and resolve."""
    text = (ROOT / page).read_text(encoding="utf-8")
    paths = set(re.findall(r"(?<![\w/.-])((?:solver|server|bench|tests|docs)/[\w./-]*\w)",
                           text)) - {"bench/results/NAME.json"}
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    unresolved = []
    for name in set(re.findall(r"`((?:solver|server|bench)(?:\.\w+)+)", text)):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                thing = importlib.import_module(".".join(parts[:cut]))
                break
            except ImportError:
                continue
        for attribute in parts[cut:]:
            thing = getattr(thing, attribute, None)
        if thing is None:
            unresolved.append(name)
    assert not missing and not unresolved, (missing, sorted(unresolved))
