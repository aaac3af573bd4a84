"""Game state: plain values, cheap to copy.

A :class:`GameState` is the whole truth of a game (every hand, the deck order). Cards
are indices into ``state.cards`` (a :class:`~solver.rules.cards.CardSet`, shared, never
copied). The engine mutates states only through :mod:`solver.rules.engine`; everyone
else treats them as values and calls :meth:`GameState.copy` before changing one.

The deck is stored with its top card at the END of ``deck`` (``deck.pop()`` draws);
the JSON form lists it top first.
"""

from __future__ import annotations

from enum import IntEnum

from .cards import CardSet

_new = object.__new__


class Phase(IntEnum):
    """The step of the turn of the player to act (``GameState.phase``).

    An int (comparisons, hashing, ``int()`` and JSON numbers are the value's) that prints
    as the word the position JSON uses: ``f"{state.phase} step"`` is ``"take step"``; a
    numeric format (``f"{phase:d}"``) gives the number."""

    TAKE = 0  # taking the 2 Highway cards, one at a time
    BUILD = 1  # building any number of cards, then claiming at most one Landmark
    OVER = 2

    def __str__(self) -> str:
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        if spec and spec[-1] in "bcdoxXneEfFgG%":
            return int.__format__(self, spec)
        return format(self.name.lower(), spec)


class PlayerState:
    """One seat: hand, Highway (left to right), discard pile (bottom to top), Landmarks,
    and what the other players know of its hand and discard pile."""

    __slots__ = ("hand", "highway", "discard", "landmarks", "known_hand", "known_discard",
                 "turns")

    def __init__(self, hand=None, highway=None, discard=None, landmarks=None,
                 known_hand=None, known_discard=None, turns=0):
        self.hand: list[int] = hand if hand is not None else []
        self.highway: list[int] = highway if highway is not None else []
        self.discard: list[int] = discard if discard is not None else []
        # (landmark index, index of the Highway card it sits above), in claim order
        self.landmarks: list[tuple[int, int]] = landmarks if landmarks is not None else []
        # cards publicly known to be in this hand (taken from the Depot) / discard pile
        self.known_hand: set[int] = known_hand if known_hand is not None else set()
        self.known_discard: set[int] = known_discard if known_discard is not None else set()
        self.turns = turns  # completed turns

    def copy(self) -> PlayerState:
        # fields set directly, not through __init__: copies are the hot path of search
        new = _new(PlayerState)
        new.hand = self.hand[:]
        new.highway = self.highway[:]
        new.discard = self.discard[:]
        new.landmarks = self.landmarks[:]
        new.known_hand = self.known_hand.copy()
        new.known_discard = self.known_discard.copy()
        new.turns = self.turns
        return new

    def __eq__(self, other) -> bool:
        return isinstance(other, PlayerState) and all(
            getattr(self, s) == getattr(other, s) for s in self.__slots__
            if s != "hand") and sorted(self.hand) == sorted(other.hand)

    def __repr__(self) -> str:
        return (f"PlayerState(hand={self.hand}, highway={self.highway}, "
                f"discard={self.discard}, landmarks={self.landmarks})")


class GameState:
    """The full state of a game at any step of any turn."""

    __slots__ = ("cards", "deck", "depot", "landmark_deck", "landmark_row", "players",
                 "current", "first_player", "phase", "picks", "turn", "recycle_used",
                 "persistent_uses", "resource_uses")

    def __init__(self, cards: CardSet, players: list[PlayerState], deck: list[int],
                 depot: list[int], landmark_deck: list[int], landmark_row: list[int],
                 current: int = 0, first_player: int = 0, phase: Phase = Phase.TAKE,
                 picks: int = 0, turn: int = 0, recycle_used: bool = False,
                 persistent_uses: dict[int, int] | None = None,
                 resource_uses: dict[str, int] | None = None):
        self.cards = cards
        self.players = players
        self.deck = deck  # top card last
        self.depot = depot
        self.landmark_deck = landmark_deck  # next Landmark last
        self.landmark_row = landmark_row
        self.current = current
        self.first_player = first_player
        self.phase = phase
        self.picks = picks  # cards taken so far this turn (0 or 1 during TAKE)
        self.turn = turn  # turns completed in the whole game
        # per-turn usage of the player to act
        self.recycle_used = recycle_used
        self.persistent_uses: dict[int, int] = persistent_uses if persistent_uses else {}
        self.resource_uses: dict[str, int] = resource_uses if resource_uses else {}

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def player(self) -> PlayerState:
        """The seat to act."""
        return self.players[self.current]

    def copy(self) -> GameState:
        new = _new(GameState)  # as PlayerState.copy: every field set here
        new.cards = self.cards
        new.players = [p.copy() for p in self.players]
        new.deck = self.deck[:]
        new.depot = self.depot[:]
        new.landmark_deck = self.landmark_deck[:]
        new.landmark_row = self.landmark_row[:]
        new.current = self.current
        new.first_player = self.first_player
        new.phase = self.phase
        new.picks = self.picks
        new.turn = self.turn
        new.recycle_used = self.recycle_used
        new.persistent_uses = self.persistent_uses.copy()
        new.resource_uses = self.resource_uses.copy()
        return new

    def copy_for_builds(self) -> GameState:
        """A cheaper copy for trying builds of the seat to act (search plans them by the
        thousand): that seat and the per-turn usage are copied, the other seats and the
        public lists are shared, so only Build actions may be applied to it."""
        new = _new(GameState)
        new.cards = self.cards
        players = self.players[:]
        players[self.current] = players[self.current].copy()
        new.players = players
        new.deck = self.deck
        new.depot = self.depot
        new.landmark_deck = self.landmark_deck
        new.landmark_row = self.landmark_row
        new.current = self.current
        new.first_player = self.first_player
        new.phase = self.phase
        new.picks = self.picks
        new.turn = self.turn
        new.recycle_used = self.recycle_used
        new.persistent_uses = self.persistent_uses.copy()
        new.resource_uses = self.resource_uses.copy()
        return new

    def __eq__(self, other) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return (self.cards.fingerprint == other.cards.fingerprint
                and all(getattr(self, s) == getattr(other, s)
                        for s in self.__slots__ if s != "cards"))

    __hash__ = None  # mutable inside the engine

    @staticmethod
    def from_json(raw) -> GameState:
        """A checked position from its JSON (text or parsed): ``repr`` pastes back."""
        import json

        return _codec()[0](json.loads(raw) if isinstance(raw, str) else raw)

    def __repr__(self) -> str:
        import json

        return f"GameState.from_json({json.dumps(_codec()[1](self))!r})"


def known_state(view) -> GameState:
    """The state of what a :class:`~solver.rules.views.PlayerView` shows, for the rules
    that read only that (the legal actions and the payments of the viewer when it is to
    act): the viewer's seat and the public facts as they are; a hidden discard front is
    stood in for by a card of its Material (the only thing about it the rules read),
    hidden hands are left empty and the deck is ``deck_count`` placeholders. Not a
    consistent state (cards are missing or repeated): to play on, sample one
    (:mod:`solver.rules.determinize`). Shares the view's lists: do not change it."""
    cards = view.cards
    stand = _material_stand_ins(cards)
    players = []
    for i in range(view.num_players):
        if i == view.seat:
            players.append(view.me)
            continue
        o = view.others[i]
        players.append(PlayerState(highway=o.highway,
                                   discard=[stand[m] for m in o.discard_materials],
                                   landmarks=o.landmarks, turns=o.turns))
    return GameState(cards, players, [0] * view.deck_count, view.depot, [],
                     view.landmark_row, view.current, view.first_player, view.phase,
                     view.picks, view.turn, view.recycle_used, view.persistent_uses,
                     view.resource_uses)


def _material_stand_ins(cards: CardSet) -> dict[int, int]:
    """A card of each Material of the set (the first one), cached on the set's tables."""
    got = _STAND_INS.get(cards.fingerprint)
    if got is None:
        got = _STAND_INS[cards.fingerprint] = {}
        for c, m in enumerate(cards.material):
            got.setdefault(m, c)
    return got


_STAND_INS: dict[str, dict[int, int]] = {}


# The JSON form of a state lives in solver.rules.position (which imports this module):
# it registers its reader and writer here when imported, and the package imports it.
_JSON_CODEC: list = []


def register_json_codec(reader, writer) -> None:
    """Set the position JSON reader and writer behind :meth:`GameState.from_json` and
    ``repr`` (called by :mod:`solver.rules.position`)."""
    _JSON_CODEC[:] = [reader, writer]


def _codec():
    if not _JSON_CODEC:  # pragma: no cover - solver.rules imports position
        raise RuntimeError("the position JSON codec is not loaded (import solver.rules)")
    return _JSON_CODEC
