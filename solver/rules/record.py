"""Game records: the card set's identity, the start (a seed, or a start position), the
players and every action in the notation. A record replays to the identical state.

>>> from solver.rules.engine import new_game
>>> rec = GameRecord.start(players=2, seed=3)
>>> state = rec.replay()
>>> state == new_game(2, seed=3)
True

Stepping through a record (``bigsur selfplay`` writes some, :meth:`GameRecord.load`
reads one): :meth:`GameRecord.states` yields each state with the action played from it,
then the final state with None. A turn has ended where ``turn`` has grown:

>>> from solver.rules.engine import legal_actions, play
>>> from solver.rules.scoring import score_player
>>> while not state.is_over:                     # the first legal action, to the end
...     action = legal_actions(state)[0]
...     rec.actions.append(action.notation())
...     state = play(state, action)
>>> turn = 0
>>> for state, action in rec.states():
...     if state.turn > turn:                    # the turn before this state has ended
...         turn = state.turn
...         scores = [score_player(state.cards, p).total for p in state.players]
...         if turn % 5 == 0 or state.is_over:
...             print(turn, scores)
5 [0, 0]
10 [4, 4]
15 [16, 18]
20 [19, 19]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .actions import Action, ActionError, NotationError, parse_action
from .cards import CONTROL_CHARACTERS, CardSet, card_set_or_default
from .engine import apply_inplace, new_game, play
from .position import PositionError, cards_to_json, resolve_cards, state_from_json, state_to_json
from .scoring import final_scores
from .state import GameState, Phase
from .userfiles import JsonFileError, read_json_file, write_new_file
from .wording import got, got_type

FORMAT = "bigsur-record/1"
MAX_NAME = 200  # characters of a seat's name (reports print them)
# the largest seed of a game that the service takes (a signed 64-bit integer): the
# command line deals no game beyond it, so that every record it writes can be reviewed
MAX_SEED = 2**63 - 1
RECORD_FIELDS = frozenset({"format", "cards", "card_set", "players", "seed", "start", "names",
                           "actions", "meta"})


class RecordError(ValueError):
    """A record that cannot be read or replayed; names the field or the move number."""


@dataclass
class GameRecord:
    """A game as data (``bigsur-record/1``, docs/format.md "Records"): the card set, the
    player count, a ``seed`` for :func:`~solver.rules.engine.new_game` or a
    ``start_position`` (position JSON), and ``actions`` in the notation.
    :meth:`load` / :meth:`from_json` read one (raising :class:`RecordError` naming the
    field); :meth:`states` steps through it; :meth:`replay` gives the last state."""

    cards: CardSet
    players: int
    seed: int | None = None
    start_position: dict | None = None  # instead of a seed: the position play starts from
    actions: list[str] = field(default_factory=list)
    names: list[str] | None = None  # who sat where, e.g. ["human", "mcts:1s"]
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, players: int, seed: int, cards: CardSet | None = None,
              names: list[str] | None = None) -> GameRecord:
        """A new record of a game dealt by ``seed``, checked as :meth:`from_json` checks
        a record read back (RecordError naming the field), so that what is saved loads."""
        record = cls(card_set_or_default(cards), players, seed=seed, names=names)
        cls.from_json(record.to_json(), record.cards)
        return record

    def initial_state(self) -> GameState:
        if self.start_position is not None:
            return state_from_json(self.start_position, self.cards)
        return new_game(self.players, self.seed, self.cards)

    def states(self, checked: bool = True) -> Iterator[tuple[GameState, Action | None]]:
        """Yield (state before, action) for every action, then (final state, None).
        Each state is a new value (keeping them is safe); an action the rules refuse
        raises :class:`RecordError` naming its index. ``checked=False`` skips the
        checks (faster, for records known to be good)."""
        state = self.initial_state()
        for i, text in enumerate(self.actions):
            try:
                action = parse_action(text)
                after = play(state, action) if checked else _unchecked(state, action)
            except ActionError as err:
                raise _action_error(i, text, err) from None
            yield state, action
            state = after
        yield state, None

    def replay(self) -> GameState:
        """The state after every action, each checked by the rules."""
        *_, (final, _none) = self.states()
        return final

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "cards": cards_to_json(self.cards),
            "card_set": self.cards.identity(),
            "players": self.players,
        }
        if self.start_position is not None:
            out["start"] = self.start_position
        else:
            out["seed"] = self.seed
        if self.names:
            out["names"] = self.names
        out["actions"] = list(self.actions)
        if self.meta:
            out["meta"] = self.meta
        return out

    @classmethod
    def from_json(cls, raw: Any, cards: CardSet | None = None) -> GameRecord:
        if not isinstance(raw, dict):
            raise RecordError(f"record: must be an object{got_type(raw)}")
        if raw.get("format") != FORMAT:
            raise RecordError(f"format: must be {FORMAT!r}{got(raw.get('format'))}")
        extra = sorted((k for k in raw if k not in RECORD_FIELDS), key=str)
        if extra:
            raise RecordError(f"{extra[0]}: unknown field (known: "
                              f"{', '.join(sorted(RECORD_FIELDS))})")
        try:
            cards = cards or resolve_cards(raw.get("cards"))
        except PositionError as err:
            raise RecordError(str(err)) from None
        identity = raw.get("card_set")
        if identity is not None and not isinstance(identity, dict):
            raise RecordError(f"card_set: must be an object (the set's name, version and "
                              f"fingerprint){got_type(identity)}")
        if isinstance(identity, dict) and identity.get("fingerprint") not in (
                None, cards.fingerprint):
            raise RecordError(f"card_set: the record was played with {identity.get('name')!r} "
                              f"fingerprint {identity.get('fingerprint')}, but the cards given "
                              f"are {cards.name!r} fingerprint {cards.fingerprint}")
        players = raw.get("players")
        if players not in (2, 3, 4):
            raise RecordError(f"players: must be 2, 3 or 4{got(players)}")
        seed = raw.get("seed")
        start = raw.get("start")
        if (seed is None) == (start is None):
            raise RecordError("seed/start: a record has exactly one of 'seed' and 'start'")
        if isinstance(seed, str) and seed.isascii() and seed.isdigit():
            try:
                seed = int(seed)  # a seed written as a decimal string (exact in JavaScript)
            except ValueError:  # more digits than Python converts (4300)
                raise RecordError(f"seed: must be an integer of at most "
                                  f"{sys.get_int_max_str_digits()} digits, got a string of "
                                  f"{len(seed)}") from None
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise RecordError(f"seed: must be an integer{got(seed)}")
        if seed is not None and not 0 <= seed <= MAX_SEED:  # (-5 would deal 5's game)
            shown = got(seed) if abs(seed) < 10**30 else \
                f", got a number of {len(str(abs(seed)))} digits"
            raise RecordError(f"seed: must be an integer 0 to {MAX_SEED} (2**63 - 1), as "
                              f"every game's seed{shown}")
        actions = raw.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise RecordError("actions: must be a list of action strings")
        check_notation(actions)
        names = raw.get("names")
        if names is not None:
            if not isinstance(names, list) or len(names) != players:
                raise RecordError(f"names: must be a list of {players} strings (one per seat), "
                                  f"got {type(names).__name__}"
                                  + (f" of {len(names)}" if isinstance(names, list) else ""))
            for i, name in enumerate(names):
                if not isinstance(name, str) or len(name) > MAX_NAME:
                    raise RecordError(f"names[{i}]: must be a string of at most {MAX_NAME} "
                                      f"characters{got_type(name)}")
                found = CONTROL_CHARACTERS.search(name)  # (a review shows them: plain text)
                if found:
                    raise RecordError(f"names[{i}]: must not contain a control character or "
                                      f"a lone surrogate, got {found.group()!r} at position "
                                      f"{found.start()}")
        meta = raw.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise RecordError(f"meta: must be an object{got_type(meta)}")
        return cls(cards, players, seed, start, list(actions), names, meta or {})

    def save(self, path: str | Path) -> None:
        """Write the record as JSON; what :meth:`load` would refuse (an action that cannot
        be read, a seed out of range, ...) is refused before anything is written."""
        Path(path).write_text(self._text(), encoding="utf-8")

    def save_new(self, path: str | Path) -> Path:
        """:meth:`save` to a new file: a file already at ``path`` is kept and the record
        goes to the first free numbered name beside it (:func:`~.userfiles.write_new_file`);
        returns the path written."""
        return write_new_file(path, self._text())

    def _text(self) -> str:
        raw = self.to_json()
        type(self).from_json(raw, self.cards)  # (what load reads back, checked alike)
        return json.dumps(raw, indent=1) + "\n"

    @classmethod
    def load(cls, path: str | Path, cards: CardSet | None = None) -> GameRecord:
        try:
            raw = read_json_file(path)
        except JsonFileError as err:
            raise RecordError(str(err)) from None
        return cls.from_json(raw, cards)


def check_notation(actions: list[str]) -> None:
    """RecordError naming the first action whose text cannot be read (the notation only:
    whether it is legal shows when the record is replayed, :meth:`GameRecord.states`)."""
    for i, text in enumerate(actions):
        try:
            parse_action(text)
        except NotationError as err:
            raise _action_error(i, text, err) from None


def _action_error(i: int, text: object, err: ActionError) -> RecordError:
    """Why the record's action ``i`` cannot be read or played: the index names the field,
    the move counts from 1, as reviews do."""
    return RecordError(f"actions[{i}] (move {i + 1}: {text!r}): {err}")


def _unchecked(state: GameState, action: Action) -> GameState:
    new = state.copy()
    apply_inplace(new, action)
    return new


def result_json(state: GameState) -> dict[str, Any] | None:
    """The final scores of a finished game, with a readable state summary."""
    if state.phase != Phase.OVER:
        return None
    out = final_scores(state).to_json()
    out["final_position"] = state_to_json(state)
    return out
