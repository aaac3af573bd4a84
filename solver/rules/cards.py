"""Card sets: the schema, the loader and the validator.

The printed card list is not public, so cards are data: a JSON file in the schema of
``docs/format.md``. The shipped ``default`` set is a reconstruction (its metadata says
so); an owner of the game loads the printed list with ``--cards FILE``.

Inside the engine a card is an index into the set's tuples (``cards.miles[i]``...);
ids appear only at the edges.

>>> cards = load_card_set()
>>> cards.reconstruction, len(cards.highway), len(cards.landmarks)
(True, 69, 20)
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from numbers import Integral
from os import PathLike
from pathlib import Path
from typing import Any

from .constants import (
    CARDS_TAKEN_PER_TURN,
    DEPOT_SIZE,
    FULL_SET_HIGHWAY,
    FULL_SET_LANDMARKS,
    HAND_SIZE,
    MATERIALS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SCENERIES,
)
from .effects import Effect, EffectError, parse_effect
from .userfiles import JsonFileError, read_json_file
from .wording import got, got_type

FORMAT = "bigsur-cards/1"
MAX_ID_LENGTH = 32  # a card id; actions name cards by id (an action has at most 2,000)
# control characters (a NUL fails in PostgreSQL) and lone surrogates (JSON's "\ud800"):
# refused in every string of a set; free text (descriptions, card texts) may break lines
# a control character (C0, C1) or a lone surrogate (JSON's "\ud800", which no UTF-8 answer
# can hold): never in a name or id of a card set or a record
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_CONTROL_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


class CardSetError(ValueError):
    """A card set failed validation; ``errors`` lists every problem (one per bad card,
    its root cause), each naming the card and the field. ``str()`` lists them all;
    :meth:`summary` is one line."""

    def __init__(self, source: str, errors: list[str]):
        self.source = source
        self.errors = errors
        shown = "\n  ".join(errors[:20])
        more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"card set {source}: {len(errors)} problem(s):\n  {shown}{more}")

    def summary(self) -> str:
        """One line: the first problem, and how many more there are."""
        more = f" (and {len(self.errors) - 1} more problem(s))" if len(self.errors) > 1 else ""
        return f"card set {self.source}: {self.errors[0]}{more}"


class UnknownCardError(ValueError):
    """A card or Landmark id that the card set does not have."""


@dataclass(frozen=True)
class HighwayCard:
    """A Highway card (docs/format.md, "Highway cards"). Sceneries and Materials are
    indices into ``SCENERIES`` / ``MATERIALS`` (solver.rules.constants); ``persistent``
    is set on 1-Mile cards only, ``bonus`` on 2-Mile cards only."""

    id: str
    miles: int
    scenery: tuple[int, int]
    cost: tuple[int, ...]
    material: int
    persistent: int | None
    bonus: Effect | None
    players: frozenset[int]
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "miles": self.miles,
            "scenery": [SCENERIES[s] for s in self.scenery],
            "cost": [MATERIALS[m] for m in self.cost],
            "material": MATERIALS[self.material],
        }
        if self.persistent is not None:
            out["persistent"] = MATERIALS[self.persistent]
        if self.bonus is not None:
            out["bonus"] = self.bonus.to_json()
        out["players"] = sorted(self.players)
        if self.text:
            out["text"] = self.text
        return out


@dataclass(frozen=True)
class Landmark:
    """A Landmark card (docs/format.md, "Landmarks"): claimed with an unused qualifying
    Stretch of its ``scenery`` (an index into ``SCENERIES``)."""

    id: str
    name: str
    scenery: int
    ability: Effect
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        out = {"id": self.id, "name": self.name, "scenery": SCENERIES[self.scenery],
               "ability": self.ability.to_json()}
        if self.text:
            out["text"] = self.text
        return out


class CardSet:
    """A validated card set with per-index lookup tables for the engine's hot paths.

    A card set is a value: sets of equal content (the same :attr:`fingerprint`: name,
    version, description and every card) are one object, however each was made (loaded
    twice, parsed from JSON, unpickled, copied). So ``==`` and ``hash`` compare content,
    a view or state of one equals that of the other, and the search's caches keyed by a
    set keep the speed of an identity hash.

    >>> load_card_set() == parse_card_set(load_card_set().to_json())
    True
    """

    def __new__(cls, name: str, version: str, reconstruction: bool, description: str,
                highway: tuple[HighwayCard, ...], landmarks: tuple[Landmark, ...]):
        self = super().__new__(cls)
        self._fill(name, version, reconstruction, description, highway, landmarks)
        with _SETS_LOCK:  # one object per content: identity is value equality
            return _SETS.setdefault((cls, self.fingerprint), self)

    def __reduce__(self):  # unpickled as the process's own set of that content
        return (_card_set_of, (type(self), self.fingerprint, (
            self.name, self.version, self.reconstruction, self.description, self.highway,
            self.landmarks)))

    def __copy__(self) -> CardSet:
        return self

    def __deepcopy__(self, memo: dict) -> CardSet:
        return self

    def _fill(self, name: str, version: str, reconstruction: bool, description: str,
              highway: tuple[HighwayCard, ...], landmarks: tuple[Landmark, ...]) -> None:
        self.name = name
        self.version = version
        self.reconstruction = reconstruction
        self.description = description
        self.highway = highway
        self.landmarks = landmarks
        self.highway_index = {c.id: i for i, c in enumerate(highway)}
        self.landmark_index = {lm.id: i for i, lm in enumerate(landmarks)}
        self.miles = tuple(c.miles for c in highway)
        self.material = tuple(c.material for c in highway)
        self.persistent = tuple(-1 if c.persistent is None else c.persistent for c in highway)
        self.scenery = tuple(c.scenery for c in highway)
        self.cost = tuple(c.cost for c in highway)
        self.cost_counts = tuple(tuple(c.cost.count(m) for m in range(len(MATERIALS)))
                                 for c in highway)
        self.landmark_scenery = tuple(lm.scenery for lm in landmarks)
        self.fingerprint = hashlib.sha256(
            json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()[:16]

    @cached_property
    def cards_fingerprint(self) -> str:
        """The cards alone: every field of every Highway card and Landmark but its free
        text, not the set's name, version, description or label. Sets with the same
        cards play the same game: a reconstruction copied under another name is still a
        reconstruction (the server refuses to store it labelled as the printed list)."""
        cards = {"highway": [{k: v for k, v in c.to_json().items() if k != "text"}
                             for c in self.highway],
                 "landmarks": [{k: v for k, v in lm.to_json().items() if k != "text"}
                               for lm in self.landmarks]}
        return hashlib.sha256(json.dumps(cards, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def label(self) -> str:
        """How the set is shown to people: its name, marked when it is a reconstruction."""
        suffix = " (reconstruction, not the printed cards)" if self.reconstruction else ""
        return f"{self.name} v{self.version}{suffix}"

    def identity(self) -> dict[str, Any]:
        """What a record stores to name the set it was played with."""
        return {"name": self.name, "version": self.version, "fingerprint": self.fingerprint,
                "reconstruction": self.reconstruction}

    def deck_for(self, players: int) -> list[int]:
        """Indices of the Highway cards used with ``players`` players, in set order."""
        return [i for i, c in enumerate(self.highway) if players in c.players]

    def turns_per_player(self, players: int) -> int:
        """How many turns each of ``players`` gets: the game ends when the deck runs out,
        after the hands and the Depot are dealt and each turn takes its cards (a set's
        deck sizes make it a whole number, checked when the set is read). ValueError for
        a player count the rules do not have, or one this set cannot deal."""
        if isinstance(players, bool) or not isinstance(players, Integral) \
                or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players: must be {MIN_PLAYERS} to {MAX_PLAYERS}, "
                             f"got {players!r}")
        players = int(players)
        deck = len(self.deck_for(players))
        spare = deck - HAND_SIZE * players - DEPOT_SIZE
        if spare < 0:
            raise ValueError(f"players: card set {self.name!r} has {deck} cards for "
                             f"{players} players, fewer than the {deck - spare} the hands "
                             "and the Depot are dealt")
        return spare // (CARDS_TAKEN_PER_TURN * players)

    def card(self, card_id: str) -> int:
        """Index of a Highway card id; UnknownCardError names the id when absent."""
        try:
            return self.highway_index[card_id]
        except (KeyError, TypeError):
            raise UnknownCardError(
                f"unknown Highway card {card_id!r} in card set {self.name!r}") from None

    def landmark(self, landmark_id: str) -> int:
        try:
            return self.landmark_index[landmark_id]
        except (KeyError, TypeError):
            raise UnknownCardError(
                f"unknown Landmark {landmark_id!r} in card set {self.name!r}") from None

    def typed_id(self, typed: str, landmark: bool = False) -> str:
        """A card id as a person typed it: as typed when the set has it, else the one id
        of the set that matches it in another case ('h43': 'H43'), else as typed (the
        lookup that follows names it unknown). UnknownCardError names the ids when
        several match (a set may hold ids differing only in case)."""
        ids = self.landmark_index if landmark else self.highway_index
        if typed in ids:
            return typed
        found = [i for i in ids if i.casefold() == typed.casefold()]
        if len(found) > 1:
            raise UnknownCardError(f"unknown {'Landmark' if landmark else 'Highway card'} "
                                   f"{typed!r} in card set {self.name!r}; did you mean "
                                   f"{' or '.join(found)}?")
        return found[0] if found else typed

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "name": self.name,
            "version": self.version,
            "reconstruction": self.reconstruction,
            "description": self.description,
            "highway": [c.to_json() for c in self.highway],
            "landmarks": [lm.to_json() for lm in self.landmarks],
        }

    def __repr__(self) -> str:
        return (f"<CardSet {self.label}: {len(self.highway)} Highway, "
                f"{len(self.landmarks)} Landmarks>")


_SETS: weakref.WeakValueDictionary[tuple[type, str], CardSet] = weakref.WeakValueDictionary()
_SETS_LOCK = threading.Lock()


def _card_set_of(cls: type[CardSet], fingerprint: str, args: tuple) -> CardSet:
    """The set of ``fingerprint`` this process holds, else one made of ``args``."""
    found = _SETS.get((cls, fingerprint))
    return found if found is not None else cls(*args)


def _check_equal_turns(counts: dict[int, int], errors: list[str]) -> None:
    for players, n in sorted(counts.items()):
        spare = n - players * HAND_SIZE - DEPOT_SIZE
        per_round = 2 * players
        if spare <= 0 or spare % per_round:
            errors.append(
                f"players: the {players}-player deck has {n} cards; {n} - {players * HAND_SIZE}"
                f" (hands) - {DEPOT_SIZE} (Depot) must be a positive multiple of {per_round}"
                " so that every player gets the same number of turns")


def parse_card_set(raw: Any, source: str = "<data>", require_full: bool = True) -> CardSet:
    """Validate ``raw`` (parsed JSON) and build a CardSet, or raise CardSetError listing
    every problem. ``require_full`` asks for the 69 + 20 cards of a complete game."""
    errors: list[str] = []
    if not isinstance(raw, dict):
        raise CardSetError(source, [f"top level must be an object{got_type(raw)}"])
    if raw.get("format") != FORMAT:
        errors.append(f"format: must be {FORMAT!r}{got(raw.get('format'))}")
    for extra in sorted(set(raw) - TOP_LEVEL_FIELDS, key=str):
        errors.append(f"{extra}: unknown field (known: {', '.join(sorted(TOP_LEVEL_FIELDS))})")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.append("name: must be a non-empty string")
        name = "?"
    _check_plain("name", name, errors)
    version = raw.get("version", "1")
    if not isinstance(version, str) or not version.strip():
        errors.append(f"version: must be a non-empty string{got(version)}")
    _check_plain("version", version, errors)
    description = raw.get("description", "")
    if not isinstance(description, str):
        errors.append(f"description: must be a string{got(description)}")
    _check_plain("description", description, errors, _CONTROL_IN_TEXT)
    reconstruction = raw.get("reconstruction", False)
    if not isinstance(reconstruction, bool):
        errors.append("reconstruction: must be true or false")
    seen_ids: set[str] = set()
    before = len(errors)
    highway = _parse_highway(raw.get("highway"), seen_ids, errors)
    landmarks = _parse_landmarks(raw.get("landmarks"), seen_ids, errors)
    if require_full and len(errors) == before:  # a rejected card would skew the counts
        if len(highway) != FULL_SET_HIGHWAY:
            errors.append(f"highway: a full set has {FULL_SET_HIGHWAY} cards, got {len(highway)}")
        if len(landmarks) != FULL_SET_LANDMARKS:
            errors.append(
                f"landmarks: a full set has {FULL_SET_LANDMARKS} cards, got {len(landmarks)}")
        counts = {p: sum(1 for c in highway if p in c.players)
                  for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
        if counts[MAX_PLAYERS] != len(highway):
            errors.append(f"players: {MAX_PLAYERS} players use every card; "
                          f"{len(highway) - counts[MAX_PLAYERS]} card(s) lack {MAX_PLAYERS}")
        _check_equal_turns(counts, errors)
    if errors:
        raise CardSetError(source, errors)
    card_set = CardSet(name, version, reconstruction, description, tuple(highway),
                       tuple(landmarks))
    for field in sorted(DERIVED_FIELDS & set(raw)):
        stated, derived = raw[field], getattr(card_set, field)
        if stated != derived:
            errors.append(f"{field}: the set's {field} is {derived!r}, not {stated!r} "
                          f"('label' and 'fingerprint' are worked out from the set: a set "
                          f"saved from GET /v1/cards/NAME and then edited drops them)")
    if errors:
        raise CardSetError(source, errors)
    return card_set


# what a card set says of itself; ``label`` and ``fingerprint`` are worked out from them
# and, when a set states them (a set saved as GET /v1/cards/NAME gives it), checked
DERIVED_FIELDS = frozenset({"label", "fingerprint"})
TOP_LEVEL_FIELDS = frozenset({"format", "name", "version", "reconstruction", "description",
                              "highway", "landmarks"}) | DERIVED_FIELDS


def _check_plain(where: str, value: Any, errors: list[str], pattern=CONTROL_CHARACTERS) -> None:
    """A problem naming ``where`` when the string ``value`` holds a control character or
    a lone surrogate (``pattern``: which ones); other values are checked elsewhere."""
    found = pattern.search(value) if isinstance(value, str) else None
    if found:
        errors.append(f"{where}: must not contain a control character or a lone surrogate, got "
                      f"{found.group()!r} at position {found.start()}")


def _text(item: dict, where: str, errors: list[str]) -> None:
    text = item.get("text", "")
    if not isinstance(text, str):
        errors.append(f"{where}.text: must be a string{got(text)}")
    _check_plain(f"{where}.text", text, errors, _CONTROL_IN_TEXT)


def _id_shaped(card_id: Any) -> bool:
    """A non-empty string of at most MAX_ID_LENGTH printable characters, no spaces and
    none of ``:+=,`` (the action notation's separators)."""
    return isinstance(card_id, str) and 0 < len(card_id) <= MAX_ID_LENGTH \
        and card_id.isprintable() and not any(ch.isspace() or ch in ":+=," for ch in card_id)


def _where(where: str, kind: str, card_id: Any) -> str:
    """``highway card 'H01'`` (``''`` too: the editor finds the card by it), or the list
    position when the id is not a short printable string (not echoed in every message)."""
    named = isinstance(card_id, str) and len(card_id) <= MAX_ID_LENGTH and card_id.isprintable()
    return f"{kind} {card_id!r}" if named else where


def _check_id(where: str, card_id: Any, seen: set[str], errors: list[str]) -> bool:
    if not _id_shaped(card_id):
        shown = got(card_id) if not isinstance(card_id, str) or len(card_id) <= MAX_ID_LENGTH \
            else f", got a string of {len(card_id)} characters"
        errors.append(f"{where}.id: must be 1 to {MAX_ID_LENGTH} printable characters "
                      f"without spaces or ':+=,'{shown}")
        return False
    if card_id.lower() == "deck" or card_id == "rec":  # of the notation: 'take deck' (in
        # any case), 'rec'
        errors.append(f"{where}.id: {card_id!r} is reserved by the action notation"
                      + (" ('take deck' reads it in any case)" if card_id != "rec" else ""))
        return False
    if card_id in seen:
        errors.append(f"{where}.id: duplicate id {card_id!r}")
        return False
    seen.add(card_id)
    return True


def _names(raw: Any, table: tuple[str, ...]) -> tuple[int, ...] | None:
    if not isinstance(raw, list) or not all(isinstance(x, str) and x in table for x in raw):
        return None
    return tuple(table.index(x) for x in raw)


def _parse_highway(raw: Any, seen: set[str], errors: list[str]) -> list[HighwayCard]:
    if not isinstance(raw, list):
        errors.append("highway: must be a list of cards")
        return []
    cards = []
    for pos, item in enumerate(raw):
        where = f"highway[{pos}]"
        if not isinstance(item, dict):
            errors.append(f"{where}: must be an object")
            continue
        card_id = item.get("id")
        where = _where(where, "highway card", card_id)
        repeated = _repeats_an_id(card_id, seen)
        mine: list[str] = []
        card = _parse_highway_card(item, where, seen, mine)
        errors.extend(mine[:1] if repeated else mine)
        if not mine and card is not None:
            cards.append(card)
    return cards


def _repeats_an_id(card_id: Any, seen: set[str]) -> bool:
    """Whether a card repeats the id of an earlier one: its duplicate-id problem is then
    its only one reported (its others would name that id, so the earlier card)."""
    return isinstance(card_id, str) and card_id in seen


def _parse_highway_card(item: dict, where: str, seen: set[str],
                        errors: list[str]) -> HighwayCard | None:
    """One Highway card, or None with all its problems in ``errors`` (checks that depend
    on a bad field are skipped: no knock-on problems)."""
    card_id = item.get("id")
    _check_id(where, card_id, seen, errors)
    known = {"id", "miles", "scenery", "cost", "material", "persistent", "bonus",
             "players", "text"}
    for extra in sorted(set(item) - known):
        errors.append(f"{where}.{extra}: unknown field")
    miles = item.get("miles")
    if isinstance(miles, bool) or not isinstance(miles, int) or not 1 <= miles <= 4:
        errors.append(f"{where}.miles: must be an integer 1 to 4{got(miles)}")
        return None  # persistent and bonus depend on the miles (the rest waits for them too)
    scenery = _names(item.get("scenery"), SCENERIES)
    if scenery is None or len(scenery) != 2:
        errors.append(f"{where}.scenery: must be a list of two of "
                      f"{', '.join(SCENERIES)}{got(item.get('scenery'))}")
    cost = _names(item.get("cost"), MATERIALS)
    if cost is None or not 2 <= len(cost) <= 3:
        errors.append(f"{where}.cost: must be a list of 2 or 3 of "
                      f"{', '.join(MATERIALS)}{got(item.get('cost'))}")
    material = item.get("material")
    if material not in MATERIALS:
        errors.append(f"{where}.material: must be one of {', '.join(MATERIALS)}"
                      f"{got(material)}")
    persistent = item.get("persistent")
    if miles == 1 and persistent not in MATERIALS:
        errors.append(f"{where}.persistent: every 1-Mile card has a Persistent Material "
                      f"(one of {', '.join(MATERIALS)}){got(persistent)}")
    if miles != 1 and persistent is not None:
        errors.append(f"{where}.persistent: only 1-Mile cards have a Persistent Material")
    bonus = None
    if miles == 2:
        if "bonus" not in item:
            errors.append(f"{where}.bonus: every 2-Mile card has a scoring condition")
        else:
            try:
                bonus = parse_effect(item["bonus"], "bonus")
            except EffectError as err:
                errors.append(f"{where}.bonus: {err}")
    elif "bonus" in item:
        errors.append(f"{where}.bonus: only 2-Mile cards have a scoring condition")
    players = item.get("players")
    if not isinstance(players, list) or not players or not all(
            isinstance(p, int) and not isinstance(p, bool)
            and MIN_PLAYERS <= p <= MAX_PLAYERS for p in players):
        errors.append(f"{where}.players: must be a non-empty list of player counts "
                      f"{MIN_PLAYERS}-{MAX_PLAYERS}{got(players)}")
    _text(item, where, errors)
    if errors:
        return None
    return HighwayCard(card_id, miles, scenery, cost, MATERIALS.index(material),
                       None if persistent is None else MATERIALS.index(persistent), bonus,
                       frozenset(players), item.get("text", ""))


def _parse_landmarks(raw: Any, seen: set[str], errors: list[str]) -> list[Landmark]:
    if not isinstance(raw, list):
        errors.append("landmarks: must be a list of cards")
        return []
    landmarks = []
    for pos, item in enumerate(raw):
        where = f"landmarks[{pos}]"
        if not isinstance(item, dict):
            errors.append(f"{where}: must be an object")
            continue
        lm_id = item.get("id")
        where = _where(where, "landmark", lm_id)
        repeated = _repeats_an_id(lm_id, seen)
        mine: list[str] = []
        _check_id(where, lm_id, seen, mine)
        landmark = _parse_landmark(item, where, lm_id, mine)
        errors.extend(mine[:1] if repeated else mine)
        if not mine:
            landmarks.append(landmark)
    return landmarks


def _parse_landmark(item: dict, where: str, lm_id: Any, errors: list[str]) -> Landmark | None:
    for extra in sorted(set(item) - {"id", "name", "scenery", "ability", "text"}):
        errors.append(f"{where}.{extra}: unknown field")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.append(f"{where}.name: must be a non-empty string")
    _check_plain(f"{where}.name", name, errors)
    scenery = item.get("scenery")
    if scenery not in SCENERIES:
        errors.append(f"{where}.scenery: must be one of {', '.join(SCENERIES)}"
                      f"{got(scenery)}")
    ability = None
    try:
        ability = parse_effect(item.get("ability"), "landmark")
    except EffectError as err:
        errors.append(f"{where}.ability: {err}")
    _text(item, where, errors)
    if errors:
        return None
    return Landmark(lm_id, name, SCENERIES.index(scenery), ability, item.get("text", ""))


def read_card_set(path: str | Path, require_full: bool = True) -> CardSet:
    """Load and validate a card-set JSON file."""
    try:
        raw = read_json_file(path)
    except JsonFileError as err:
        raise CardSetError(err.path, [err.reason]) from None
    return parse_card_set(raw, str(path), require_full)


@lru_cache(maxsize=1)
def default_card_set() -> CardSet:
    text = resources.files("solver.rules").joinpath("data/default.json").read_text("utf-8")
    return parse_card_set(json.loads(text), "default")


def load_card_set(spec: str | Path | dict | None = None) -> CardSet:
    """The card set named by ``spec``: None or "default" for the shipped reconstruction;
    a path to a JSON file in the schema (docs/format.md, "Card sets") or, named ``.csv``,
    to a CSV of one row per card ("Card sets as CSV", its name the file's stem); or a
    dict of the JSON schema (:func:`parse_card_set`). A full set is required, and
    CardSetError lists every problem."""
    if spec is None or spec == "default":
        return default_card_set()
    if isinstance(spec, dict):
        return parse_card_set(spec, "(dict)")
    if not isinstance(spec, (str, Path)):
        raise TypeError(f"load_card_set: expected None, 'default', a path to a JSON or CSV "
                        f"card set or a dict of the JSON schema, got {type(spec).__name__}")
    reader = FILE_READERS.get(Path(spec).suffix.lower())
    return reader(spec) if reader is not None else read_card_set(spec)


def require_card_set(cards: object, none_means: str = "the default set") -> CardSet | None:
    """``cards`` as given when it is a CardSet or None; anything else (a path, a dict) is
    a TypeError saying how to get a CardSet, the same for every entry that takes a
    ``cards`` argument (``new_game``, ``GameRecord.start``, ``state_from_json``,
    ``view_from_json``). ``none_means``: what None stands for at that entry."""
    if cards is None or isinstance(cards, CardSet):
        return cards
    if isinstance(cards, (str, PathLike)):
        how = f"load it with load_card_set({str(cards)!r})"
    elif isinstance(cards, dict):
        how = "build it from parsed JSON with parse_card_set(data) (solver.rules.cards)"
    else:
        how = "load one with load_card_set(path) ('default' for the shipped set)"
    given = f" {cards!r}" if isinstance(cards, str) else ""
    raise TypeError(f"cards: must be a CardSet or None ({none_means}), got "
                    f"{type(cards).__name__}{given}: {how}")


def card_set_or_default(cards: object) -> CardSet:
    """``cards`` if it is a CardSet, the default set for None; anything else is the
    TypeError of :func:`require_card_set`, for every entry that deals a game
    (``new_game``, ``GameRecord.start``)."""
    checked = require_card_set(cards)
    return load_card_set() if checked is None else checked


# Readers of card-set files in a format other than JSON, by file suffix: a reader builds
# on this module, so it adds itself (solver.rules.cardset_csv adds ".csv"; the package
# imports it).
FILE_READERS: dict[str, Callable[[str | Path], CardSet]] = {}
