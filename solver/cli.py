"""The ``bigsur`` command line.

    bigsur cards validate [FILE]     check a card set (exit 1 with every problem)
    bigsur cards show [FILE]         list a card set
    bigsur score POSITION.json       per-player score breakdown as JSON
    bigsur replay RECORD.json        replay a record (every action checked), print scores
    bigsur selfplay --players N --games K --seed S --out DIR
    bigsur play --players N --ai SPEC  play in the terminal (hot-seat or vs the AI)

Every command that uses cards takes ``--cards FILE`` (default: the shipped
reconstruction). Errors a user can cause print one clear line and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from pathlib import Path

from .rules.actions import ActionError
from .rules.cards import CardSetError, load_card_set, read_card_set
from .rules.constants import MATERIALS, SCENERIES
from .rules.effects import describe
from .rules.engine import SetupError, legal_actions
from .rules.position import PositionError, state_from_json
from .rules.record import GameRecord, RecordError
from .rules.scoring import final_scores
from .rules.state import Phase

# Modules that register their own subcommands through ``add_cli(subparsers)``.
EXTENSIONS = (
    "solver.payment_ilp",
    "solver.search.api",
    "solver.search.tournament",
    "solver.search.train_cli",
    "solver.report",
    "solver.terminal",
    "server.app",
)


class UserError(Exception):
    """A problem with the user's input: printed as one line, exit status 2."""


def _read_json(path: str):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise UserError(f"{path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise UserError(f"{path}: not valid JSON ({err})") from None


def _cards(args):
    return load_card_set(getattr(args, "cards", None))


# ------------------------------------------------------------------ cards

def cmd_cards_validate(args) -> int:
    try:
        cards = read_card_set(args.file) if args.file else load_card_set()
    except CardSetError as err:
        print(str(err), file=sys.stderr)
        return 1
    decks = ", ".join(f"{p} players: {len(cards.deck_for(p))} cards" for p in (2, 3, 4))
    print(f"OK: {cards.label}: {len(cards.highway)} Highway cards, "
          f"{len(cards.landmarks)} Landmarks ({decks})")
    return 0


def cmd_cards_show(args) -> int:
    cards = read_card_set(args.file) if args.file else load_card_set()
    if args.json:
        print(json.dumps(cards.to_json(), indent=1))
        return 0
    print(f"Card set: {cards.label}")
    if cards.description:
        print(cards.description)
    print(f"\n{'id':6} {'mi':>2}  {'scenery':18} {'cost':30} {'back':12} {'players':8} extra")
    for c in cards.highway:
        extra = ""
        if c.persistent is not None:
            extra = f"persistent {MATERIALS[c.persistent]}"
        if c.bonus is not None:
            extra = describe(c.bonus.to_json())
        print(f"{c.id:6} {c.miles:>2}  {'+'.join(SCENERIES[s] for s in c.scenery):18} "
              f"{'+'.join(MATERIALS[m] for m in c.cost):30} {MATERIALS[c.material]:12} "
              f"{','.join(map(str, sorted(c.players))):8} {extra}")
    print(f"\n{'id':6} {'name':28} {'scenery':9} ability")
    for lm in cards.landmarks:
        print(f"{lm.id:6} {lm.name:28} {SCENERIES[lm.scenery]:9} "
              f"{describe(lm.ability.to_json())}")
    return 0


# ------------------------------------------------------------------ positions and records

def load_position(path: str, cards_path: str | None = None):
    raw = _read_json(path)
    cards = load_card_set(cards_path) if cards_path else None
    return state_from_json(raw, cards)


def cmd_score(args) -> int:
    state = load_position(args.position, args.cards)
    outcome = final_scores(state)
    out = outcome.to_json()
    out["card_set"] = state.cards.label
    out["game_over"] = state.phase == Phase.OVER
    print(json.dumps(out, indent=1))
    return 0


def cmd_replay(args) -> int:
    cards = load_card_set(args.cards) if args.cards else None
    record = GameRecord.load(args.record, cards)
    state = record.replay()
    out = final_scores(state).to_json()
    out["actions"] = len(record.actions)
    out["game_over"] = state.phase == Phase.OVER
    out["card_set"] = state.cards.label
    print(json.dumps(out, indent=1))
    return 0


def play_random_game(players: int, seed: int, cards=None) -> GameRecord:
    """A random legal game (uniform over legal actions), recorded; deterministic in seed."""
    from .rules.engine import apply_inplace

    record = GameRecord.start(players, seed, cards, names=["random"] * players)
    state = record.initial_state()
    rng = random.Random(seed)
    while state.phase != Phase.OVER:
        action = rng.choice(legal_actions(state))
        record.actions.append(action.notation())
        apply_inplace(state, action)
    return record


def cmd_selfplay(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cards = _cards(args)
    for k in range(args.games):
        seed = args.seed + k
        record = play_random_game(args.players, seed, cards)
        state = record.replay()
        record.meta["result"] = final_scores(state).to_json()
        record.save(out / f"game-{seed}.json")
        totals = [s["total"] for s in record.meta["result"]["scores"]]
        print(f"game {k + 1}/{args.games} seed {seed}: scores {totals}", file=sys.stderr)
    print(f"wrote {args.games} record(s) to {out}")
    return 0


# ------------------------------------------------------------------ entry point

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bigsur", description="Big Sur rules engine and AI")
    sub = parser.add_subparsers(dest="command", required=True)

    cards = sub.add_parser("cards", help="validate or show a card set")
    cards_sub = cards.add_subparsers(dest="cards_command", required=True)
    v = cards_sub.add_parser("validate", help="check a card-set JSON file (default: shipped set)")
    v.add_argument("file", nargs="?")
    v.set_defaults(func=cmd_cards_validate)
    s = cards_sub.add_parser("show", help="list a card set")
    s.add_argument("file", nargs="?")
    s.add_argument("--json", action="store_true", help="print the set as JSON")
    s.set_defaults(func=cmd_cards_show)
    from .cardset_cli import add_cli as add_cardset_cli  # cards new / cards import
    add_cardset_cli(cards_sub)

    score = sub.add_parser("score", help="score a position (per-player breakdown, JSON)")
    score.add_argument("position")
    score.add_argument("--cards", help="card-set file (default: the position's own)")
    score.set_defaults(func=cmd_score)

    replay = sub.add_parser("replay", help="replay a game record and print final scores")
    replay.add_argument("record")
    replay.add_argument("--cards", help="card-set file (default: the record's own)")
    replay.set_defaults(func=cmd_replay)

    selfplay = sub.add_parser("selfplay", help="write records of random legal games")
    selfplay.add_argument("--players", type=int, default=2)
    selfplay.add_argument("--games", type=int, default=1)
    selfplay.add_argument("--seed", type=int, default=0)
    selfplay.add_argument("--out", default="records")
    selfplay.add_argument("--cards")
    selfplay.set_defaults(func=cmd_selfplay)


    for module in EXTENSIONS:
        importlib.import_module(module).add_cli(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (UserError, CardSetError, PositionError, RecordError, SetupError,
            ActionError) as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
