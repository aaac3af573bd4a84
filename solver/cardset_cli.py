"""``bigsur cards new`` and ``bigsur cards import``: a card set from a spreadsheet.

    bigsur cards new [FILE.csv] [--name NAME]   write the CSV template to fill in (asks
                                                for the name when run in a terminal)
    bigsur cards import FILE.csv --name NAME [--out FILE.json] [--description TEXT]
                                                CSV -> a validated card-set JSON file
                                                (an existing one only with --force)

The CSV format (one row per card) is in docs/format.md; the logic is in
:mod:`solver.rules.cardset_csv`. Validation is the same as ``bigsur cards validate``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .rules.cards import CardSetError
from .rules.cardset_csv import read_csv_card_set, template_csv
from .rules.userfiles import JsonFileError, read_text_file, write_output


def _ask(prompt: str, default: str) -> str:
    try:
        answer = input(f"{prompt} [{default}]: ").strip()
    except EOFError:
        return default
    return answer or default


def cmd_cards_new(args) -> int:
    name = args.name
    interactive = sys.stdin.isatty() and not args.name
    if interactive:
        name = _ask("Name of the card set (letters, digits, - and _)", "my-cards")
    name = name or "my-cards"
    out = Path(args.file or f"{name}.csv")
    write_output("", out, lambda: out.write_text(template_csv(), encoding="utf-8"),
                 overwrite=args.force)
    print(f"Wrote {out}: the template, one row per card (the shipped reconstruction's "
          f"69 Highway cards and 20 Landmarks).\nOverwrite each row with your cards, then:\n"
          f"  bigsur cards import {out} --name {name}")
    return 0


def cmd_cards_import(args) -> int:
    path = Path(args.file)
    try:
        text = read_text_file(args.file, encoding="utf-8-sig")
    except JsonFileError as err:  # the words of the JSON readers
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    given = bool(args.out)  # else the default: the CSV's path with .json
    out = Path(args.out) if given else path.with_suffix(".json")
    # a message about the default file names that file, not an --out the user did not type
    where = f"--out {out}" if given else f"{out} (the default output, the CSV's name with " \
        ".json)"
    if out.resolve() == path.resolve():  # the JSON would replace the user's CSV
        print(f"bigsur: error: {where}: is the CSV being imported (name another file"
              f"{'' if given else ' with --out'})", file=sys.stderr)
        return 2
    name = args.name or path.stem
    try:
        cards = read_csv_card_set(text, name, str(path), description=args.description,
                                  reconstruction=args.reconstruction)
    except CardSetError as err:
        print(str(err), file=sys.stderr)
        return 1
    written = json.dumps(cards.to_json(), indent=1) + "\n"
    if not given and not args.force and out.is_file():
        print(f"bigsur: error: {where} exists (use --force to overwrite it, or --out to "
              "write another file)", file=sys.stderr)
        return 2
    write_output("--out" if given else "", out,
                 lambda: out.write_text(written, encoding="utf-8"), overwrite=args.force)
    decks = ", ".join(f"{p} players: {len(cards.deck_for(p))} cards" for p in (2, 3, 4))
    print(f"OK: {cards.label}: {len(cards.highway)} Highway cards, {len(cards.landmarks)} "
          f"Landmarks ({decks}); wrote {out} (fingerprint {cards.fingerprint})")
    return 0


def add_cli(cards_sub) -> None:
    """Register ``new`` and ``import`` under ``bigsur cards``."""
    n = cards_sub.add_parser("new", help="write a CSV template to fill in with your cards")
    n.add_argument("file", nargs="?", help="where to write it (default: NAME.csv)")
    n.add_argument("--name", help="the set's name (asked for in a terminal)")
    n.add_argument("--force", action="store_true", help="overwrite an existing file")
    n.set_defaults(func=cmd_cards_new)
    i = cards_sub.add_parser("import", help="convert a CSV (one row per card) to a "
                             "validated card-set JSON file")
    i.add_argument("file", help="the CSV file, one row per card (bigsur cards new writes "
                   "a template)")
    i.add_argument("--name", help="the set's name (default: the file's name)")
    i.add_argument("--out", help="the JSON file to write (default: the CSV's path with "
                   ".json: cards.csv -> cards.json)")
    i.add_argument("--description", default="", help="a line saying what the set is "
                   "(default: none)")
    i.add_argument("--reconstruction", action="store_true",
                   help="mark the set as a reconstruction (not the printed list)")
    i.add_argument("--force", action="store_true", help="overwrite an existing output file")
    i.set_defaults(func=cmd_cards_import)
