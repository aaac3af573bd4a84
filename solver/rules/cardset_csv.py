"""Card sets as a spreadsheet: one CSV row per card (docs/format.md, "Card sets as CSV").

Columns (a header row is required; column order is free, unknown columns are refused)::

    kind,id,miles,scenery,cost,material,persistent,bonus,players,name,ability,text

- ``kind``: ``highway`` or ``landmark``;
- Highway rows: ``miles`` 1-4, ``scenery`` two sceneries separated by spaces,
  ``cost`` two or three materials separated by spaces, ``material`` (the back),
  ``persistent`` (1-Mile cards only), ``bonus`` (2-Mile cards only, an effect),
  ``players`` the player counts separated by spaces (``2 3 4``), ``text`` optional;
- Landmark rows: ``name``, ``scenery`` (one), ``ability`` (an effect), ``text`` optional;
- an effect is written ``KIND param=value ...``, e.g. ``scenery_points scenery=ocean
  points=1``; a list parameter separates its items with ``|``
  (``landmark_collection points=1 sceneries=ocean|forest``).

Conversion errors name the row, the card id and the column; the result then goes through
:func:`solver.rules.cards.parse_card_set`, the same validator as ``bigsur cards validate``.

>>> text = card_set_to_csv(load_card_set().to_json())
>>> raw, errors = csv_to_card_set_json(text, name="copy")
>>> errors, parse_card_set(raw).fingerprint == load_card_set().fingerprint
([], False)
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from .cards import (  # noqa: F401
    FILE_READERS,
    FORMAT,
    CardSet,
    CardSetError,
    load_card_set,
    parse_card_set,
)
from .userfiles import JsonFileError, read_text_file
from .wording import got, plural

COLUMNS = ("kind", "id", "miles", "scenery", "cost", "material", "persistent", "bonus",
           "players", "name", "ability", "text")
LIST_PARAMS = frozenset({"sceneries"})
MAX_ROWS = 500


class CsvTooLong(CardSetError):
    """A CSV of more than MAX_ROWS rows, read no further: a size cap (the server's 413),
    not a problem of a card."""

    def __init__(self, source: str, rows: int):
        self.rows = rows
        super().__init__(source, [f"csv: {rows} rows, at most {MAX_ROWS}"])


def effect_to_text(effect: dict[str, Any] | None) -> str:
    if not effect:
        return ""
    parts = [str(effect["kind"])]
    for key, value in effect.items():
        if key == "kind":
            continue
        if isinstance(value, list):
            value = "|".join(str(v) for v in value)
        parts.append(f"{key}={value}")
    return " ".join(parts)


def effect_from_text(text: str) -> dict[str, Any]:
    """``"scenery_points scenery=ocean points=1"`` -> the effect object (ValueError)."""
    words = text.split()
    if not words:
        raise ValueError("is empty")
    if "=" in words[0]:
        raise ValueError(f"must start with the effect kind, got {words[0]!r}")
    out: dict[str, Any] = {"kind": words[0]}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or not key or not value:
            raise ValueError(f"expected param=value, got {word!r}")
        if key in LIST_PARAMS:
            out[key] = [v for v in value.split("|") if v]
        elif value.isdigit():
            out[key] = int(value)
        else:
            out[key] = value
    return out


def card_set_to_csv(raw: dict[str, Any]) -> str:
    """A card set (its JSON form) as CSV text, one row per card."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for c in raw.get("highway", []):
        w.writerow(["highway", c["id"], c["miles"], " ".join(c["scenery"]), " ".join(c["cost"]),
                    c["material"], c.get("persistent", ""), effect_to_text(c.get("bonus")),
                    " ".join(str(p) for p in c["players"]), "", "", c.get("text", "")])
    for lm in raw.get("landmarks", []):
        w.writerow(["landmark", lm["id"], "", lm["scenery"], "", "", "", "", "", lm["name"],
                    effect_to_text(lm["ability"]), lm.get("text", "")])
    return buf.getvalue()


def template_csv() -> str:
    """The template offered for download: the shipped set, to be overwritten card by card."""
    return card_set_to_csv(load_card_set().to_json())


def csv_to_card_set_json(text: str, name: str, version: str = "1", description: str = "",
                         reconstruction: bool = False) -> tuple[dict[str, Any], list[str]]:
    """Read CSV text into a card set's JSON form; the second value lists the conversion
    errors (each naming the row, the card and the column). The JSON is not validated.
    More than MAX_ROWS rows: CsvTooLong."""
    raw, errors, _dropped = _convert(text, name, version, description, reconstruction)
    return raw, errors


def _convert(text: str, name: str, version: str = "1", description: str = "",
             reconstruction: bool = False) -> tuple[dict[str, Any], list[str], int]:
    """:func:`csv_to_card_set_json`, and how many rows gave no card (their cell count or
    kind refused): the set's card counts are not those of the file."""
    errors: list[str] = []
    raw: dict[str, Any] = {"format": FORMAT, "name": name, "version": version,
                           "reconstruction": reconstruction, "description": description,
                           "highway": [], "landmarks": []}
    text = text.lstrip("\ufeff")
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        return raw, ["csv: empty file (the first row must name the columns)"], 0
    except csv.Error as err:
        return raw, [f"csv: {err}"], 0
    header = [h.strip().lower() for h in header]
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        errors.append(f"csv: unknown column(s) {', '.join(map(repr, unknown))} "
                      f"(known: {', '.join(COLUMNS)})")
    for need in ("kind", "id"):
        if need not in header:
            errors.append(f"csv: the header has no {need!r} column")
    if errors:
        return raw, errors, 0
    try:
        rows = list(reader)
    except csv.Error as err:
        return raw, [f"csv: {err}"], 0
    if len(rows) > MAX_ROWS:
        raise CsvTooLong(f"{name} (CSV)", len(rows))
    dropped = 0
    for n, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = {h: cell.strip() for h, cell in zip(header, row, strict=False)}
        card_id = cells.get("id", "")
        where = f"row {n} ({card_id or 'no id'})"
        if len(row) != len(header):  # a cell left out or one too many shifts the columns
            errors.append(f"{where}: {plural(len(row), 'cell')} but the header names "
                          f"{len(header)} columns")
            dropped += 1
            continue
        kind = cells.get("kind", "").lower()
        if kind == "highway":
            raw["highway"].append(_highway_row(cells, where, errors))
        elif kind == "landmark":
            raw["landmarks"].append(_landmark_row(cells, where, errors))
        else:
            errors.append(f"{where}.kind: must be highway or landmark{got(cells.get('kind'))}")
            dropped += 1
    return raw, errors, dropped


def _highway_row(cells: dict[str, str], where: str, errors: list[str]) -> dict[str, Any]:
    card: dict[str, Any] = {"id": cells.get("id", "")}
    miles = cells.get("miles", "")
    try:
        card["miles"] = int(miles)
    except ValueError:
        errors.append(f"{where}.miles: must be a whole number 1 to 4{got(miles)}")
        card["miles"] = None
    card["scenery"] = cells.get("scenery", "").lower().split()
    card["cost"] = cells.get("cost", "").lower().split()
    card["material"] = cells.get("material", "").lower()
    if cells.get("persistent"):
        card["persistent"] = cells["persistent"].lower()
    if cells.get("bonus"):
        try:
            card["bonus"] = effect_from_text(cells["bonus"])
        except ValueError as err:
            errors.append(f"{where}.bonus: {err}")
    players = []
    for word in cells.get("players", "").replace(",", " ").split():
        if word.isdigit():
            players.append(int(word))
        else:
            errors.append(f"{where}.players: must be player counts like '2 3 4', got {word!r}")
    card["players"] = players
    for col in ("name", "ability"):
        if cells.get(col):
            errors.append(f"{where}.{col}: only Landmark rows have a {col}")
    if cells.get("text"):
        card["text"] = cells["text"]
    return card


def _landmark_row(cells: dict[str, str], where: str, errors: list[str]) -> dict[str, Any]:
    lm: dict[str, Any] = {"id": cells.get("id", ""), "name": cells.get("name", ""),
                          "scenery": cells.get("scenery", "").lower()}
    try:
        lm["ability"] = effect_from_text(cells.get("ability", ""))
    except ValueError as err:
        errors.append(f"{where}.ability: {err}")
        lm["ability"] = None
    for col in ("miles", "cost", "material", "persistent", "bonus", "players"):
        if cells.get(col):
            errors.append(f"{where}.{col}: only Highway rows have a {col}")
    if cells.get("text"):
        lm["text"] = cells["text"]
    return lm


def read_csv_card_set(text: str, name: str, source: str | None = None, **meta: Any):
    """CSV text -> a validated full CardSet, or CardSetError (from ``source``, default
    "NAME (CSV)") listing every problem: the rows that could not be read, then the checks
    of the set on the rest (a card its row's problem names is not named again: its
    other problems follow from it; nor are the set's card counts while a row gave no
    card)."""
    source = source or f"{name} (CSV)"
    try:
        raw, errors, dropped = _convert(text, name, **meta)
    except CsvTooLong as err:
        raise CsvTooLong(source, err.rows) from None
    if not errors:
        return parse_card_set(raw, source)
    if not errors[0].startswith("csv:"):  # the rows were read: the others are checked too
        named = {m.group(1) for e in errors if (m := re.match(r"row \d+ \(([^)]*)\)", e))}
        try:
            parse_card_set(raw, source, require_full=not dropped)
        except CardSetError as err:
            errors += [e for e in err.errors if not any(f"'{i}'" in e for i in named)]
    raise CardSetError(source, errors)


def read_csv_file(path: str | Path) -> CardSet:
    """A CSV card-set file (UTF-8, a spreadsheet's byte-order mark allowed) as a
    validated full CardSet named after the file's stem, or CardSetError from the path.
    :func:`~solver.rules.cards.load_card_set` reads a path ending in ``.csv`` so."""
    try:
        text = read_text_file(path, encoding="utf-8-sig")
    except JsonFileError as err:  # (the file readers' words: not found, not UTF-8...)
        raise CardSetError(err.path, [err.reason]) from None
    return read_csv_card_set(text, Path(path).stem, str(path))


FILE_READERS[".csv"] = read_csv_file
