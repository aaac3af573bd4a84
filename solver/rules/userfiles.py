"""A user's files: reading a JSON file (a position, a view, a record, a card set) and
checking where an output will go, in one place, so that every command says the same thing
about a file it cannot use.

>>> read_json_file("no/such/file.json")
Traceback (most recent call last):
...
solver.rules.userfiles.JsonFileError: no/such/file.json: file not found
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


class JsonFileError(ValueError):
    """A file that is missing, unreadable, not UTF-8 text or (read as JSON) not JSON;
    ``reason`` says which, and the message starts with the path."""

    def __init__(self, path: str | Path, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"{path}: {reason}")


def read_text_file(path: str | Path, encoding: str = "utf-8") -> str:
    """The UTF-8 text of the file at ``path`` (JsonFileError instead of OSError or
    UnicodeDecodeError; an empty name is refused, ``Path("")`` being the folder).
    ``encoding="utf-8-sig"`` also drops a spreadsheet's byte-order mark."""
    if str(path) == "":
        raise JsonFileError('""', "the file name is empty")
    try:
        return Path(path).read_text(encoding=encoding)
    except FileNotFoundError:
        raise JsonFileError(path, "file not found") from None
    except OSError as err:  # a directory, no permission...
        raise JsonFileError(path, f"cannot read the file ({err.strerror})") from None
    except UnicodeDecodeError as err:
        raise JsonFileError(path, f"not UTF-8 text ({err.reason} at byte "
                                  f"{err.start})") from None


def read_json_file(path: str | Path) -> Any:
    """The JSON value in the file at ``path`` (:func:`read_text_file`, then JsonFileError
    instead of JSONDecodeError, the RecursionError of a too deeply nested value or the
    ValueError of a number of too many digits)."""
    text = read_text_file(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise JsonFileError(path, f"not valid JSON ({err})") from None
    except RecursionError:  # [[[[... deeper than Python's JSON parser goes
        raise JsonFileError(path, "not valid JSON (nested too deeply)") from None
    except ValueError:  # a number of more digits than Python converts (4300)
        raise JsonFileError(path, f"not valid JSON (a number of more than "
                                  f"{sys.get_int_max_str_digits()} digits)") from None


def output_problem(path: str | Path) -> str | None:
    """Why a file could not be written at ``path`` (a directory is there, its folder does
    not exist or takes no new file, the file there may not be written), else None:
    checked before long work, so that its result is not lost. The folder is tried with a
    nameless temporary file, since os.access says yes to root everywhere, even where no
    file can be made (/proc, a read-only mount).

    >>> output_problem("no/such/folder/out.json")
    'no such directory: no/such/folder'
    >>> output_problem("/proc/out.json")
    'cannot make a file in /proc (No such file or directory)'
    """
    path = Path(path)
    if path.is_dir():
        return "is a directory"
    folder = path.resolve().parent
    if not folder.is_dir():
        return f"no such directory: {path.parent}"
    if path.exists():
        return None if os.access(path, os.W_OK) else "cannot write it (permission denied)"
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        return f"cannot make a file in {path.parent} ({err.strerror or err})"
    return None


def write_new_file(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to a file created at ``path``, or, when one is there already
    (another run wrote it meanwhile), at the first free name of ``path`` numbered -2, -3,
    ... before its suffix; returns the path written. Each name is created exclusively, so
    that no file, not even one made at the same instant, is replaced. OSError as open's.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> [write_new_file(folder / "game.json", "{}").name for _ in range(3)]
    ['game.json', 'game-2.json', 'game-3.json']
    """
    path = Path(path)
    candidate, number = path, 1
    while True:
        try:
            with candidate.open("x", encoding="utf-8") as file:
                file.write(text)
            return candidate
        except FileExistsError:
            number += 1
            candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")


class OutputError(ValueError):
    """An output that could not be written; the message names the option and the path."""


def write_output(option: str, path: str | Path, write: Callable[[], object], *,
                 overwrite: bool = True) -> None:
    """Run ``write()``, which writes ``path``; OutputError naming ``option`` (empty for a
    file given without an option) and ``path`` when it fails (:func:`output_problem`,
    checked before long work, cannot see every unwritable place, e.g. under /proc).
    ``overwrite=False``: an existing file is refused, not replaced (a command's --force
    sets it): "--out X exists (use --force to overwrite)"."""
    where = f"{option} {path}" if option else str(path)
    if not overwrite and Path(path).is_file():
        raise OutputError(f"{where} exists (use --force to overwrite)")
    try:
        write()
    except OSError as err:
        raise OutputError(f"{where}: cannot write it ({err.strerror or err})") from None
