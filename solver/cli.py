"""The ``bigsur`` command line.

    bigsur cards validate [FILE]     check a card set (exit 1 with every problem)
    bigsur cards show [FILE]         list a card set
    bigsur score POSITION.json       per-player score breakdown as JSON (and the winners,
                                     or the seats leading an unfinished game)
    bigsur replay RECORD.json        replay a record (every action checked), print scores
                                     (and the winners, or the seats leading an unfinished game)
    bigsur replay RECORD.json --at N --out POS.json   the position after N actions
    bigsur selfplay --players N --games K --seed S --out DIR
    bigsur play --players N --ai SPEC  play in the terminal (hot-seat or vs the AI)
    bigsur play --resume RECORD.json   go on with a saved, unfinished game
    bigsur verify RECORD.json         check a served game's deal against its commitment

Every command that uses cards takes ``--cards FILE`` (default: the shipped
reconstruction; a position or record that carries its own set refuses another). Errors a
user can cause print one clear line and exit 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import json
import os
import random
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from .rules.actions import ActionError
from .rules.cards import CardSetError, UnknownCardError, load_card_set
from .rules.constants import MATERIALS, SCENERIES
from .rules.determinize import Determinizer, InconsistentViewError
from .rules.effects import describe
from .rules.engine import SetupError, legal_actions
from .rules.explain import _seat_words  # (seats as hint and the page say them)
from .rules.position import PositionError, resolve_cards, state_from_json, state_to_json
from .rules.record import MAX_SEED, GameRecord, RecordError
from .rules.scoring import final_scores
from .rules.state import Phase
from .rules.userfiles import (
    JsonFileError,
    OutputError,
    output_problem,
    read_json_file,
    read_text_file,
    write_output,
)
from .rules.views import PlayerView, position_or_view_from_json
from .rules.wording import got

# Commands that other modules register through ``add_cli(subparsers)``: command ->
# (module, one-line help). A module is imported only when its command is run (or its own
# --help asked), so that ``bigsur --help`` and the rules commands start fast.
EXTENSIONS = {
    "pay": ("solver.payment_ilp",
            "cheapest joint payment of builds in a position or a view (JSON plan)"),
    "hint": ("solver.search.api", "rank the moves of the seat to act (ISMCTS)"),
    "tournament": ("solver.search.tournament",
                   "play bots against each other (paired deals, Elo, intervals)"),
    "train": ("solver.search.train_cli", "train the value model by self-play"),
    "analyze": ("solver.report", "review a game record: HTML report and graph"),
    "play": ("solver.terminal", "play in the terminal (against the AI or hot-seat)"),
    "serve": ("server.app", "run the hint and analysis service (HTTP)"),
}


class UserError(Exception):
    """A problem with the user's input: printed as one line, exit status 2."""


def _read_json(path: str):
    try:
        return read_json_file(path)
    except JsonFileError as err:
        raise UserError(str(err)) from None


def _cards(args):
    return load_card_set(getattr(args, "cards", None))


def seed_arg(text: str) -> int:
    """The argparse ``type`` of every ``--seed``: an integer 0 to :data:`MAX_SEED` (the
    seeds the service takes, so that a game's record can be reviewed there). A UserError,
    which argparse lets through to :func:`main`, says what is wrong in one line."""
    try:
        value = int(text)
    except ValueError:
        shown = repr(text) if len(text) <= 40 else f"a text of {len(text)} characters"
        raise UserError(f"--seed: must be an integer 0 to {MAX_SEED}, got {shown}") from None
    shown = str(value) if len(str(value)) <= 40 else f"a number of {len(str(value))} digits"
    if value < 0:
        raise UserError(f"--seed: must be 0 or more, got {shown}")
    if value > MAX_SEED:
        raise UserError(f"--seed: must be at most {MAX_SEED} (2**63 - 1, the largest seed "
                        f"the service takes), got {shown}")
    return value


def check_output(option: str, path: str | Path, force: bool) -> None:
    """Before the work that makes it: OutputError when the file ``option`` names (empty:
    a file the command names itself) cannot be written at ``path``
    (:func:`output_problem`), or is there already and ``force`` (the command's
    ``--force``) is not given. Every command that writes files refuses to replace one
    without ``--force`` (replay --out, analyze, train, selfplay, play --save, cards new and
    import), in write_output's words, so that a run again never loses the last one."""
    where = f"{option} {path}" if option else str(path)
    if problem := output_problem(path):
        raise OutputError(f"{where}: {problem}")
    if not force and Path(path).is_file():
        raise OutputError(f"{where} exists (use --force to overwrite)")


# the largest counts the command line takes: a run far beyond them cannot end (the
# service caps a search at BIGSUR_MAX_ITERATIONS, 100,000 by default)
MAX_ITERATIONS = 1_000_000  # one search's iterations (hint, analyze per decision): about
# 20 minutes at the ~900 iterations/s docs/ai.md measures
MAX_SELFPLAY_GAMES = 100_000  # games of one `bigsur selfplay` or `tournament` (scheduled at once)


def check_search_iterations(spec: str, field: str, allow_import: bool = False) -> None:
    """A bot spec's iterations (``mcts:500i``: per turn) at most :data:`MAX_ITERATIONS`,
    for the specs of play, train and tournament (``allow_import``: a ``module:Class``
    spec, which has none); SpecError (a ValueError) "FIELD: N iterations exceeds the
    limit of 1000000", kind ``limit``, or kind ``bot_spec`` for a spec it cannot read."""
    from .search.specs import check_caps, parse_bot_spec

    check_caps(parse_bot_spec(spec, field, allow_import=allow_import), None, MAX_ITERATIONS,
               field)


def count_arg(option: str, most: int) -> Callable[[str], int]:
    """The argparse ``type`` of a count option (``--games``, ``--iterations``,
    ``--epochs``): an integer 1 to ``most``, as :func:`seed_arg` is the type of every
    seed. Its UserError names ``option`` and the bound passed in one line, as seed_arg's:
    "--games: must be at least 1, got 0", "--games: must be at most 100000, got ..."."""
    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            shown = got(text) if len(text) <= 40 else f", got a text of {len(text)} characters"
            raise UserError(f"{option}: must be an integer 1 to {most}{shown}") from None
        digits = len(str(abs(value)))
        shown = got(value) if digits <= 40 else f", got a number of {digits} digits"
        if value < 1:
            raise UserError(f"{option}: must be at least 1{shown}")
        if value > most:
            raise UserError(f"{option}: must be at most {most}{shown}")
        return value

    return count


# ------------------------------------------------------------------ cards

def cmd_cards_validate(args) -> int:
    if args.file is not None:
        try:  # a missing or unreadable file is an error of the command (one line, exit 2,
            read_text_file(args.file)  # as `cards show`), not a problem of the set
        except JsonFileError as err:
            raise CardSetError(err.path, [err.reason]) from None
    try:
        cards = load_card_set(args.file)  # JSON, or CSV by its .csv name
    except CardSetError as err:
        print(str(err), file=sys.stderr)
        return 1
    decks = ", ".join(f"{p} players: {len(cards.deck_for(p))} cards" for p in (2, 3, 4))
    print(f"OK: {cards.label}: {len(cards.highway)} Highway cards, "
          f"{len(cards.landmarks)} Landmarks ({decks})")
    return 0


def cmd_cards_show(args) -> int:
    cards = load_card_set(args.file)
    if args.json:
        print(json.dumps(cards.to_json(), indent=1))
        return 0
    print(f"Card set: {cards.label}")
    if cards.description:
        print(cards.description)
    print(f"\n{HIGHWAY_HEADER}")
    for c in cards.highway:
        print(highway_line(c))
    print(f"\n{LANDMARK_HEADER}")
    for lm in cards.landmarks:
        print(landmark_line(lm))
    return 0


# the columns of `bigsur cards show`, one card a line (also `card ID` at the play prompt)
HIGHWAY_HEADER = f"{'id':6} {'mi':>2}  {'scenery':18} {'cost':30} {'back':12} {'players':8} extra"
LANDMARK_HEADER = f"{'id':6} {'name':28} {'scenery':9} ability"


def highway_line(c) -> str:
    """A Highway card under :data:`HIGHWAY_HEADER`, its bonus in words."""
    extra = ""
    if c.persistent is not None:
        extra = f"persistent {MATERIALS[c.persistent]}"
    if c.bonus is not None:
        extra = describe(c.bonus.to_json())
    return (f"{c.id:6} {c.miles:>2}  {'+'.join(SCENERIES[s] for s in c.scenery):18} "
            f"{'+'.join(MATERIALS[m] for m in c.cost):30} {MATERIALS[c.material]:12} "
            f"{','.join(map(str, sorted(c.players))):8} {extra}")


def landmark_line(lm) -> str:
    """A Landmark under :data:`LANDMARK_HEADER`, its ability in words."""
    return f"{lm.id:6} {lm.name:28} {SCENERIES[lm.scenery]:9} {describe(lm.ability.to_json())}"


# ------------------------------------------------------------------ positions and records

def load_position(path: str, cards_path: str | None = None, views: bool = False):
    """The position in the file at ``path`` (``views``: or one seat's view), checked; its
    errors name the file as a JSON error does ("pos.json: current: must be an integer 0
    to 1, got 9"), as :func:`load_record`'s do. A view that no full state matches is
    refused here too, as the service refuses it up front (for score as for hint and pay):
    "view.json: deck.count: ..."."""
    raw = _read_json(path)
    cards = load_card_set(cards_path) if cards_path is not None else None
    try:
        if cards is not None:
            _check_cards_given(raw, cards, cards_path)
        position = position_or_view_from_json(raw, cards) if views else \
            state_from_json(raw, cards)
        if isinstance(position, PlayerView):
            Determinizer(position)  # InconsistentViewError naming the field
    except PositionError as err:
        named = raw.get("cards") if isinstance(raw, dict) else None
        if err.field == "cards" and isinstance(named, str):  # a name of a stored set
            raise UserError(f"{path}: cards: the position's cards are the set named "
                            f"{named[:100]!r}, which this tool does not have: give its file "
                            "with --cards FILE") from None
        raise UserError(f"{path}: {err}") from None
    except InconsistentViewError as err:
        raise UserError(f"{path}: {err}") from None
    return position


def _check_cards_given(raw, cards, cards_path: str) -> None:
    """PositionError naming ``cards`` when the position or view ``raw`` carries its own
    card set (inline, or a record's name-version-fingerprint form) and it is not the set
    of ``--cards`` (``cards``, read from ``cards_path``): other cards would change its
    legal moves unsaid. Compared by fingerprint, as ``bigsur replay`` compares a record's
    set with the one given; a set named only by name takes ``--cards``."""
    own = raw.get("cards") if isinstance(raw, dict) else None
    if isinstance(own, dict) and "highway" in own:
        own = resolve_cards(own).identity()  # (PositionError naming the inline set's fault)
    if not isinstance(own, dict) or own.get("fingerprint") in (None, cards.fingerprint):
        return
    raise PositionError("cards", f"the position was made with {own.get('name')!r} "
                        f"fingerprint {own.get('fingerprint')}, but the cards given (--cards "
                        f"{cards_path}) are {cards.name!r} fingerprint {cards.fingerprint}: "
                        "leave out --cards to use the position's own")


def load_record(path: str, cards=None, raw=None) -> GameRecord:
    """The record in the file at ``path`` (``raw``: its JSON, already read), checked as
    :meth:`GameRecord.load` checks it; its errors name the file as a JSON error does
    ("bad.json: format: must be 'bigsur-record/1' (missing)"). Not its actions: the
    errors of a replay name the move."""
    try:
        return GameRecord.from_json(read_json_file(path) if raw is None else raw, cards)
    except JsonFileError as err:  # already 'path: reason'
        raise RecordError(str(err)) from None
    except RecordError as err:
        raise RecordError(f"{path}: {err}") from None


def scores_json(position) -> dict:
    """The scores of a position or a view as ``bigsur score`` and ``bigsur replay`` print
    them: each seat's breakdown, the ``winners`` of a finished game or, as an unfinished
    game has none, the seats ``leading`` now, and ``game_over``."""
    out = final_scores(position).to_json()
    over = position.phase == Phase.OVER
    if not over:
        out["leading"] = out.pop("winners")
    out["game_over"] = over
    return out


def cmd_score(args) -> int:
    position = load_position(args.position, args.cards, views=True)  # Highways are public
    out = scores_json(position)
    out["card_set"] = position.cards.label
    print(json.dumps(out, indent=1))
    return 0


def cmd_replay(args) -> int:
    cards = load_card_set(args.cards) if args.cards is not None else None
    if args.out and Path(args.out).resolve() == Path(args.record).resolve():
        raise UserError(f"--out {args.out}: is the record being replayed (name another file)")
    record = load_record(args.record, cards)
    if args.at is not None or args.out:
        return _write_position(record, args)
    state = record.replay()
    out = scores_json(state)
    out["actions"] = len(record.actions)
    out["card_set"] = state.cards.label
    print(json.dumps(out, indent=1))
    return 0


def _write_position(record: GameRecord, args) -> int:
    """``bigsur replay --at N [--out FILE]``: the full position after the record's first
    N actions (default: all of them), as ``GET /v1/analyze/{id}/positions/{n}`` gives it;
    only those actions are replayed (checked). On stdout without ``--out``."""
    from .analysis import plural

    total = len(record.actions)
    at = total if args.at is None else args.at
    if not 0 <= at <= total:
        raise UserError(f"--at: must be 0 to {total} (the record's {plural(total, 'action')})"
                        f"{got(at)}")
    state = dataclasses.replace(record, actions=record.actions[:at]).replay()
    text = json.dumps(state_to_json(state), indent=1) + "\n"
    if not args.out:
        sys.stdout.write(text)
        return 0
    out = Path(args.out)
    write_output("--out", out, lambda: out.write_text(text, encoding="utf-8"),
                 overwrite=args.force)
    # (the file counts seats from 0 and its "turn" the turns done; the words say the
    # player as hint and the page do, and the turn being played)
    where = "the game is over" if state.phase == Phase.OVER else \
        f"{_seat_words(state.current)} to act in turn {state.turn + 1}; the file's " \
        f"\"current\" is {state.current} and its \"turn\" {state.turn}, the turns done"
    print(f"wrote {out}: the position after {at} of {plural(total, 'action')} ({where})")
    return 0


def play_random_game(players: int, seed: int, cards=None) -> GameRecord:
    """A random legal game (uniform over legal actions), recorded; deterministic in seed."""
    return _random_game(players, seed, cards)[0]


def _random_game(players: int, seed: int, cards=None):
    """:func:`play_random_game` and its final state (the actions come from
    ``legal_actions``, so the game needs no checked replay)."""
    from .rules.engine import apply_inplace

    record = GameRecord.start(players, seed, cards, names=["random"] * players)
    state = record.initial_state()
    rng = random.Random(seed)
    while state.phase != Phase.OVER:
        action = rng.choice(legal_actions(state))
        record.actions.append(action.notation())
        apply_inplace(state, action)
    return record, state


def cmd_selfplay(args) -> int:
    if args.players not in (2, 3, 4):  # before the folder is made
        raise UserError(f"--players: must be 2, 3 or 4{got(args.players)}")
    if args.seed + args.games - 1 > MAX_SEED:  # (--seed itself is checked by seed_arg)
        raise UserError(f"--seed {args.seed} with --games {args.games}: the last game's seed "
                        f"would be {args.seed + args.games - 1}, more than {MAX_SEED} "
                        "(2**63 - 1, the largest seed the service takes)")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: is a file, not a directory")
    names = [out / f"game-{args.seed + k}.json" for k in range(args.games)]
    if out.is_dir():  # the records of earlier runs only with --force
        for name in names:
            check_output("", name, args.force)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UserError(f"--out {out}: cannot make the directory ({err.strerror})") from None
    cards = _cards(args)
    for k, name in enumerate(names):
        seed = args.seed + k
        record, state = _random_game(args.players, seed, cards)
        record.meta["result"] = final_scores(state).to_json()
        write_output("", name, functools.partial(record.save, name), overwrite=args.force)
        totals = [s["total"] for s in record.meta["result"]["scores"]]
        print(f"game {k + 1}/{args.games} seed {seed}: scores {totals}", file=sys.stderr)
    print(f"wrote {args.games} record(s) to {out}")
    return 0


def cmd_verify(args) -> int:
    """Check a served game's deal: sha256("SEED:SALT") is the commitment published at its
    creation, the record's seed is that seed, and every action replays from it."""
    import hashlib

    raw = _read_json(args.record)
    record = load_record(args.record, raw=raw)  # a position is named as every command names it
    fair = record.meta.get("fairness")
    if record.start_position is not None and fair is None:
        raise UserError(f"{args.record}: a game continued from a position has no seeded deal "
                        "to commit to (its hidden cards were drawn by the server from the "
                        "view; the record's 'start' is that full position)")
    if not isinstance(fair, dict) or not all(k in fair for k in ("commitment", "seed", "salt")):
        raise UserError(f"{args.record}: no meta.fairness with commitment, seed and salt "
                        "(only records of finished server games carry one)")
    # the server's salt is hex (ASCII); any other text cannot match, but is no crash
    digest = hashlib.sha256(f"{fair['seed']}:{fair['salt']}".encode()).hexdigest()
    problems = []
    if digest != fair["commitment"]:
        problems.append(f"sha256(seed:salt) is {digest}, not the commitment "
                        f"{fair['commitment']}")
    if str(record.seed) != str(fair["seed"]):  # (a seed may be written as its digits)
        problems.append(f"the record's seed {raw.get('seed')!r} is not the revealed seed "
                        f"{fair['seed']!r}")
    if problems:
        print("FAILED: " + "; ".join(problems))
        return 1
    state = record.replay()  # RecordError (exit 2) names a bad action
    print(f"OK: the deal of seed {fair['seed']} matches the commitment {fair['commitment']}; "
          f"{len(raw.get('actions') or [])} actions replay"
          + (" to the end" if state.phase == Phase.OVER else ""))
    return 0


# ------------------------------------------------------------------ entry point

class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose own errors (an unknown option, a missing argument) are
    the command line's one error line and where to read more, without the usage block
    first: "bigsur hint: error: ..." then "try 'bigsur hint --help'" (exit 2). Every
    subcommand's parser is one too (add_subparsers makes them of its parser's class), and
    an option no command knows is said by the command it was given to, not by bigsur."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extra = super().parse_known_args(args, namespace)
        if not hasattr(namespace, "_parser"):  # the innermost command's (run first)
            namespace._parser = self
        return namespace, extra

    def parse_args(self, args=None, namespace=None):
        namespace, extra = self.parse_known_args(args, namespace)
        parser = namespace.__dict__.pop("_parser", self)
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return namespace

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\ntry '{self.prog} --help'\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; of the :data:`EXTENSIONS`, only ``command``'s module is imported (the
    others are listed with their help line)."""
    parser = _Parser(prog="bigsur", description="Big Sur rules engine and AI")
    sub = parser.add_subparsers(dest="command", required=True)

    cards = sub.add_parser("cards", help="validate, show, make (new) or import a card set")
    cards_sub = cards.add_subparsers(dest="cards_command", required=True)
    v = cards_sub.add_parser("validate", help="check a card-set file (default: shipped set)")
    v.add_argument("file", nargs="?", help="card-set file, JSON or a .csv (default: the "
                   "shipped reconstruction)")
    v.set_defaults(func=cmd_cards_validate)
    s = cards_sub.add_parser("show", help="list a card set")
    s.add_argument("file", nargs="?", help="card-set file, JSON or a .csv (default: the "
                   "shipped reconstruction)")
    s.add_argument("--json", action="store_true", help="print the set as JSON")
    s.set_defaults(func=cmd_cards_show)
    from .cardset_cli import add_cli as add_cardset_cli  # cards new / cards import
    add_cardset_cli(cards_sub)

    score = sub.add_parser("score", help="score a position or a view (per-player "
                                         "breakdown, JSON; Highways are public)")
    score.add_argument("position", help="bigsur-position/1 or bigsur-view/1 JSON file")
    score.add_argument("--cards", help="card-set file (default: the position's own)")
    score.set_defaults(func=cmd_score)

    replay = sub.add_parser("replay", help="replay a game record and print final scores")
    replay.add_argument("record", help="bigsur-record/1 JSON file")
    replay.add_argument("--cards", help="card-set file (default: the record's own)")
    replay.add_argument("--at", type=int, metavar="N",
                        help="write the position after the first N actions (0: the start) "
                        "instead of the scores: a bigsur-position/1 JSON for score, hint "
                        "or the service; on stdout without --out")
    replay.add_argument("--out", metavar="FILE",
                        help="write that position to FILE (default --at: the last action)")
    replay.add_argument("--force", action="store_true", help="overwrite an existing --out")
    replay.set_defaults(func=cmd_replay)

    selfplay = sub.add_parser("selfplay", help="write records of random legal games")
    selfplay.add_argument("--players", type=int, default=2,
                          help="seats in each game: 2, 3 or 4 (default 2)")
    selfplay.add_argument("--games", type=count_arg("--games", MAX_SELFPLAY_GAMES),
                          default=1, help=f"games, one record each, 1 to "
                          f"{MAX_SELFPLAY_GAMES} (default 1)")
    selfplay.add_argument("--seed", type=seed_arg, default=0,
                          help="game k uses seed S+k (default 0)")
    selfplay.add_argument("--out", default="records",
                          help="directory for the records (default records)")
    selfplay.add_argument("--cards", help="card-set file (default: the shipped reconstruction)")
    selfplay.add_argument("--force", action="store_true",
                          help="overwrite the records of an earlier run in --out")
    selfplay.set_defaults(func=cmd_selfplay)

    verify = sub.add_parser("verify", help="check a served game's deal against its commitment")
    verify.add_argument("record", help="a finished server game's bigsur-record/1 JSON "
                        "file (it carries meta.fairness)")
    verify.set_defaults(func=cmd_verify)

    for name, (module, help_line) in EXTENSIONS.items():
        if name == command:
            importlib.import_module(module).add_cli(sub)
        else:
            sub.add_parser(name, help=help_line, add_help=False)
    return parser


def _command(argv: list[str]) -> str | None:
    """The subcommand named in ``argv`` (its first word that is not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def _warning_line(message, category, filename, lineno, line=None) -> str:
    """A warning as the command line says it: one line, without Python's file and
    source line ('bigsur: warning: no value model was trained on card set ...')."""
    return f"bigsur: warning: {message}\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    shown, warnings.formatwarning = warnings.formatwarning, _warning_line
    try:  # (an option's type such as seed_arg may raise UserError)
        args = build_parser(_command(argv)).parse_args(argv)
        return args.func(args)
    except CardSetError as err:  # one line; `bigsur cards validate FILE` lists them all
        print(f"bigsur: error: {err.summary()}", file=sys.stderr)
        return 2
    except (UserError, PositionError, RecordError, SetupError, ActionError,
            OutputError, UnknownCardError) as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `bigsur cards show | head`: the reader left; no traceback
        try:  # what is still buffered goes nowhere (the recipe of Python's signal docs)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a file (tests)
            pass
        return 1
    except KeyboardInterrupt:  # Ctrl-C in a long review or tournament: no traceback
        print("\nbigsur: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = shown


if __name__ == "__main__":
    sys.exit(main())
