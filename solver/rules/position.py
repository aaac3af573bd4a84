"""Position JSON: a full state at any step of any turn, checked on the way in.

Every bug reproduces from one string: ``state_from_json(state_to_json(s)) == s``.
The format is documented in docs/format.md ("Positions"). ``state_from_json`` checks
the whole position (card conservation, counts, turn arithmetic, Landmark placement)
and raises :class:`PositionError` naming the field and the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any, NamedTuple

from .cards import (
    CardSet,
    CardSetError,
    UnknownCardError,
    load_card_set,
    parse_card_set,
    require_card_set,
)
from .constants import (
    CARDS_TAKEN_PER_TURN,
    DEPOT_SIZE,
    HAND_SIZE,
    LANDMARK_ROW_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
)
from .effects import PAYMENT_RESOURCES
from .payment import allowances
from .state import GameState, Phase, PlayerState, register_json_codec
from .stretches import runs
from .wording import got, got_type, plural

FORMAT = "bigsur-position/1"
PHASES = {"take": Phase.TAKE, "build": Phase.BUILD, "over": Phase.OVER}


class PositionError(ValueError):
    """A position that is malformed or impossible; the message names the field."""

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


def cards_to_json(cards: CardSet) -> str | dict:
    """How a position names its card set: "default", or the whole set inline."""
    if cards.name == "default" and cards.fingerprint == load_card_set().fingerprint:
        return "default"
    return cards.to_json()


def resolve_cards(raw: Any, field: str = "cards", require_full: bool = True) -> CardSet:
    """The card set a position or record names: "default" / absent, or an inline set.
    (Paths are resolved by the CLI, never from inside a position.) An inline set passes
    the checks of a ``--cards FILE`` (a full set: 69 + 20 cards, equal turns);
    ``require_full=False`` is for a program's own transport of a partial set it loaded
    itself (e.g. the server's ``BIGSUR_CARDS``), never for input."""
    if raw is None or raw == "default":
        return load_card_set()
    if isinstance(raw, dict) and "highway" in raw:
        try:
            return parse_card_set(raw, field, require_full=require_full)
        except CardSetError as err:
            more = f" (and {len(err.errors) - 1} more problem(s))" if len(err.errors) > 1 \
                else ""
            raise PositionError(field, f"{err.errors[0]}{more}") from None
    if isinstance(raw, dict) and raw.get("name") == "default":
        default = load_card_set()
        if raw.get("fingerprint", default.fingerprint) != default.fingerprint:
            raise PositionError(field, "names the default set but its fingerprint differs "
                                "(recorded with another version of the cards)")
        return default
    raise PositionError(field, 'must be "default" or a card set object (docs/format.md)')


def seat_to_json(cards: CardSet, p: PlayerState) -> dict:
    hid = [c.id for c in cards.highway]
    return {
        "hand": [hid[c] for c in p.hand],
        "highway": [hid[c] for c in p.highway],
        "discard": [hid[c] for c in p.discard],
        "landmarks": [{"landmark": cards.landmarks[lm].id, "card": hid[c]}
                      for lm, c in p.landmarks],
        "known_hand": sorted(hid[c] for c in p.known_hand),
        "known_discard": sorted(hid[c] for c in p.known_discard),
        "turns": p.turns,
    }


def as_phase(phase: object) -> Phase:
    """``phase`` as its :class:`Phase`: a Phase, or its number (``state.phase = 0`` is
    Phase.TAKE); anything else is a PositionError naming ``phase``."""
    if isinstance(phase, Phase):
        return phase
    if isinstance(phase, Integral) and not isinstance(phase, bool):
        try:
            return Phase(int(phase))
        except ValueError:
            pass
    names = ", ".join(f"Phase.{p.name}" for p in Phase)
    raise PositionError("phase", f"must be a Phase ({names}) or its number "
                        f"{min(Phase):d} to {max(Phase):d}, got {phase!r}")


def per_turn_to_json(state: GameState) -> dict:
    hid = state.cards.highway
    return {
        "recycle_used": state.recycle_used,
        "persistent_used": {hid[c].id: n for c, n in sorted(state.persistent_uses.items())},
        "resources_used": {k: v for k, v in sorted(state.resource_uses.items()) if v},
    }


def check_seat(seat: object, num_players: int) -> None:
    """PositionError naming ``seat`` unless it is a seat of a game of ``num_players``:
    -1 would silently be the last seat, True seat 1, "0" a TypeError from inside."""
    if isinstance(seat, bool) or not isinstance(seat, Integral) \
            or not 0 <= seat < num_players:
        raise PositionError("seat", f"must be a seat 0 to {num_players - 1}, got {seat!r}")


def require_full_state(entry: str, state: object, for_a_view: str) -> None:
    """TypeError unless ``state`` is a GameState (an AttributeError from inside before),
    naming ``entry`` and what it was given; ``for_a_view``: what to do with a PlayerView
    instead (the mirror of ``view_to_json`` given a full state)."""
    if isinstance(state, GameState):
        return
    # (by its class's name: views builds on this module, which must not import it)
    a_view = type(state).__name__ == "PlayerView" and type(state).__module__.endswith(".views")
    raise TypeError(f"{entry}: expected a GameState (a full state)"
                    + (f", got a PlayerView: {for_a_view}" if a_view
                       else f", got {type(state).__name__}"))


def state_to_json(state: GameState) -> dict:
    """The position JSON (``bigsur-position/1``, docs/format.md "Positions") of a full
    state; :func:`state_from_json` reads it back, checked."""
    require_full_state("state_to_json", state, "view_to_json writes a view")
    cards = state.cards
    hid = [c.id for c in cards.highway]
    lid = [lm.id for lm in cards.landmarks]
    return {
        "format": FORMAT,
        "cards": cards_to_json(cards),
        "current": state.current,
        "first_player": state.first_player,
        "phase": as_phase(state.phase).name.lower(),
        "picks": state.picks,
        "turn": state.turn,
        "deck": [hid[c] for c in reversed(state.deck)],
        "depot": [hid[c] for c in state.depot],
        "landmark_deck": [lid[lm] for lm in reversed(state.landmark_deck)],
        "landmark_row": [lid[lm] for lm in state.landmark_row],
        "per_turn": per_turn_to_json(state),
        "seats": [seat_to_json(cards, p) for p in state.players],
    }


# ------------------------------------------------------------------ reading

POSITION_FIELDS = frozenset({"format", "cards", "current", "first_player", "phase", "picks",
                             "turn", "deck", "depot", "landmark_deck", "landmark_row",
                             "per_turn", "seats"})
SEAT_FIELDS = frozenset({"hand", "highway", "discard", "landmarks", "known_hand",
                         "known_discard", "turns"})
PER_TURN_FIELDS = frozenset({"recycle_used", "persistent_used", "resources_used"})
LANDMARK_FIELDS = frozenset({"landmark", "card"})


def refuse_unknown(raw: dict, known: frozenset[str], field: str) -> None:
    """PositionError naming the first field of ``raw`` that is not in ``known``."""
    extra = sorted((k for k in raw if k not in known), key=str)
    if extra:
        where = f"{field}.{extra[0]}" if field else str(extra[0])
        raise PositionError(where, f"unknown field (known: {', '.join(sorted(known))})")


class _Reader:
    """Field-by-field reading with errors that name the field."""

    def __init__(self, cards: CardSet):
        self.cards = cards

    def obj(self, raw: Any, field: str, known: frozenset[str] | None = None) -> dict:
        """``raw`` as an object; with ``known``, any other field is refused."""
        if not isinstance(raw, dict):
            raise PositionError(field, f"must be an object{got_type(raw)}")
        if known is not None:
            refuse_unknown(raw, known, field)
        return raw

    def int(self, raw: Any, field: str, lo: int, hi: int) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or not lo <= raw <= hi:
            raise PositionError(field, f"must be an integer {lo} to {hi}{got(raw)}")
        return raw

    def card_list(self, raw: Any, field: str) -> list[int]:
        if not isinstance(raw, list):
            raise PositionError(field, f"must be a list of card ids{got_type(raw)}")
        out = []
        for i, card_id in enumerate(raw):
            try:
                out.append(self.cards.card(card_id))
            except UnknownCardError as err:
                raise PositionError(f"{field}[{i}]", str(err)) from None
        return out

    def landmark_list(self, raw: Any, field: str) -> list[int]:
        if not isinstance(raw, list):
            raise PositionError(field, f"must be a list of Landmark ids{got_type(raw)}")
        out = []
        for i, lm_id in enumerate(raw):
            try:
                out.append(self.cards.landmark(lm_id))
            except UnknownCardError as err:
                raise PositionError(f"{field}[{i}]", str(err)) from None
        return out

    @staticmethod
    def _one(read_list, raw: Any, field: str) -> int:
        """One id read by ``card_list`` / ``landmark_list``, an error naming ``field``
        itself (not ``field[0]``)."""
        try:
            return read_list([raw], field)[0]
        except PositionError as err:
            raise PositionError(field, err.reason) from None

    def landmarks(self, raw: Any, field: str) -> list[tuple[int, int]]:
        """``[{"landmark": id, "card": id}, ...]`` -> [(landmark, card)]."""
        if not isinstance(raw, list):
            raise PositionError(field, f"must be a list{got_type(raw)}")
        out = []
        for j, item in enumerate(raw):
            item = self.obj(item, f"{field}[{j}]", LANDMARK_FIELDS)
            lm = self._one(self.landmark_list, item.get("landmark"), f"{field}[{j}].landmark")
            c = self._one(self.card_list, item.get("card"), f"{field}[{j}].card")
            out.append((lm, c))
        return out

    def seat(self, raw: Any, field: str) -> PlayerState:
        """A seat known whole (every seat of a position; the viewer's own in a view)."""
        s = self.obj(raw, field, SEAT_FIELDS)
        return PlayerState(
            hand=self.card_list(s.get("hand"), f"{field}.hand"),
            highway=self.card_list(s.get("highway"), f"{field}.highway"),
            discard=self.card_list(s.get("discard", []), f"{field}.discard"),
            landmarks=self.landmarks(s.get("landmarks", []), f"{field}.landmarks"),
            known_hand=set(self.card_list(s.get("known_hand", []), f"{field}.known_hand")),
            known_discard=set(self.card_list(s.get("known_discard", []),
                                             f"{field}.known_discard")),
            turns=self.int(s.get("turns", 0), f"{field}.turns", 0, 10_000))

    def phase(self, raw: Any) -> Phase:
        if not isinstance(raw, str) or raw not in PHASES:
            raise PositionError("phase", f"must be one of {', '.join(PHASES)}{got(raw)}")
        return PHASES[raw]

    def per_turn(self, raw: Any) -> tuple[bool, dict[int, int], dict[str, int]]:
        """(recycle_used, persistent_uses, resource_uses) of the player to act."""
        per_turn = self.obj(raw, "per_turn", PER_TURN_FIELDS)
        recycle_used = per_turn.get("recycle_used", False)
        if not isinstance(recycle_used, bool):
            raise PositionError("per_turn.recycle_used",
                                f"must be true or false{got(recycle_used)}")
        persistent_uses = {}
        for card_id, uses in self.obj(per_turn.get("persistent_used", {}),
                                      "per_turn.persistent_used").items():
            c = self._one(self.card_list, card_id, f"per_turn.persistent_used.{card_id}")
            persistent_uses[c] = self.int(uses, f"per_turn.persistent_used.{card_id}", 0, 100)
        resource_uses = {}
        for k, v in self.obj(per_turn.get("resources_used", {}),
                             "per_turn.resources_used").items():
            if k not in PAYMENT_RESOURCES:
                raise PositionError(f"per_turn.resources_used.{k}",
                                    f"unknown resource (known: {', '.join(PAYMENT_RESOURCES)})")
            resource_uses[k] = self.int(v, f"per_turn.resources_used.{k}", 0, 100)
        return recycle_used, persistent_uses, resource_uses


def open_document(raw: Any, fmt: str, cards: CardSet | None,
                  known: frozenset[str] = POSITION_FIELDS) -> tuple[_Reader, list]:
    """Check the envelope shared by positions and views (an object of format ``fmt``
    with 2-4 seats and no field outside ``known``) and resolve its card set (``cards``, a
    CardSet, overrides the one it names); returns a reader and the raw seats."""
    require_card_set(cards, none_means="the set the JSON names")
    if not isinstance(raw, dict):
        raise PositionError("position", f"must be an object{got_type(raw)}")
    if raw.get("format") != fmt:
        raise PositionError("format", f"must be {fmt!r}{got(raw.get('format'))}")
    refuse_unknown(raw, known, "")
    reader = _Reader(cards or resolve_cards(raw.get("cards")))
    seats_raw = raw.get("seats")
    if not isinstance(seats_raw, list) or not MIN_PLAYERS <= len(seats_raw) <= MAX_PLAYERS:
        raise PositionError("seats", f"must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} seats")
    return reader, seats_raw


def state_from_json(raw: Any, cards: CardSet | None = None) -> GameState:
    """Read and check a full position. ``cards`` overrides the set the position names."""
    r, seats_raw = open_document(raw, FORMAT, cards)
    n = len(seats_raw)
    players = [r.seat(seat_raw, f"seats[{i}]") for i, seat_raw in enumerate(seats_raw)]
    phase = r.phase(raw.get("phase"))
    recycle_used, persistent_uses, resource_uses = r.per_turn(raw.get("per_turn", {}))
    state = GameState(
        r.cards, players,
        deck=list(reversed(r.card_list(raw.get("deck"), "deck"))),
        depot=r.card_list(raw.get("depot"), "depot"),
        landmark_deck=list(reversed(r.landmark_list(raw.get("landmark_deck", []),
                                                      "landmark_deck"))),
        landmark_row=r.landmark_list(raw.get("landmark_row"), "landmark_row"),
        current=r.int(raw.get("current"), "current", 0, n - 1),
        first_player=r.int(raw.get("first_player", 0), "first_player", 0, n - 1),
        phase=phase,
        picks=r.int(raw.get("picks", 0), "picks", 0, CARDS_TAKEN_PER_TURN),
        turn=r.int(raw.get("turn", 0), "turn", 0, 10_000),
        recycle_used=recycle_used,
        persistent_uses=persistent_uses,
        resource_uses=resource_uses,
    )
    check_state(state)
    return state


class PublicPosition(NamedTuple):
    """What every seat sees of a position: what a full state and a seat's view both show,
    and what :func:`check_public` checks (the one check of it for both readers).

    ``seats`` are read for their Highway, Landmarks and turns (a view's other seats show
    no more), and for ``known_hand`` / ``known_discard`` against the hand and pile given.
    ``landmark_deck`` is the Landmark deck itself in a full state, None in a view (which
    shows its size, ``landmark_deck_count``). ``discard_counts``: the size of each seat's
    discard pile (public: every card's back shows), None from a reader that does not give
    them (the check that reads them is then not made)."""

    cards: CardSet
    seats: Sequence[PlayerState]
    landmark_row: list[int]
    landmark_deck: list[int] | None
    landmark_deck_count: int
    deck_count: int
    depot: list[int]
    current: int
    first_player: int
    phase: Phase
    picks: int
    turn: int
    recycle_used: bool
    persistent_uses: dict[int, int]
    resource_uses: dict[str, int]
    discard_counts: Sequence[int] | None = None

    @classmethod
    def of_state(cls, state: GameState) -> PublicPosition:
        return cls(cards=state.cards, seats=state.players, landmark_row=state.landmark_row,
                   landmark_deck=state.landmark_deck,
                   landmark_deck_count=len(state.landmark_deck), deck_count=len(state.deck),
                   depot=state.depot, current=state.current, first_player=state.first_player,
                   phase=state.phase, picks=state.picks, turn=state.turn,
                   recycle_used=state.recycle_used, persistent_uses=state.persistent_uses,
                   resource_uses=state.resource_uses,
                   discard_counts=[len(p.discard) for p in state.players])

    @property
    def full(self) -> bool:
        """A full state's (its fields named as bigsur-position/1 names them), not a view's
        (bigsur-view/1: ``deck.count``, ``landmark_deck.count``)."""
        return self.landmark_deck is not None


def check_state(state: GameState) -> None:
    """Raise PositionError unless the state could arise in a game by the rules."""
    require_full_state("check_state", state, "a view is checked as it is read, "
                       "view_from_json(view_to_json(view))")
    _check_places(state)
    check_public(PublicPosition.of_state(state))
    for i, p in enumerate(state.players):  # the supply is right: is it shared right?
        check_seat_holds(i, p, state.current, state.phase, state.picks)


def _check_places(state: GameState) -> None:
    """Every card of the game in exactly one place (what only a full state knows)."""
    cards = state.cards
    n = state.num_players
    hid = [c.id for c in cards.highway]
    in_game = cards.deck_for(n)
    in_game_set = set(in_game)
    where: dict[int, str] = {}

    def place(c: int, field: str) -> None:
        if c not in in_game_set:
            raise PositionError(field, f"{hid[c]} is not used with {n} players")
        if c in where:
            raise PositionError(field, f"{hid[c]} is also in {where[c]} (each card is in "
                                "exactly one place)")
        where[c] = field

    for c in state.deck:
        place(c, "deck")
    for c in state.depot:
        place(c, "depot")
    for i, p in enumerate(state.players):
        for name in ("hand", "highway", "discard"):
            for c in getattr(p, name):
                place(c, f"seats[{i}].{name}")
    missing = [hid[c] for c in in_game if c not in where]
    if missing:
        raise PositionError("deck", f"{len(missing)} card(s) of the {n}-player deck are "
                            f"nowhere: {', '.join(missing[:8])}")


def check_public(pub: PublicPosition) -> None:
    """Raise PositionError unless what every seat sees could arise in a game by the rules:
    the Landmarks (each in one place, claimed above a card of a qualifying Stretch of its
    Scenery, one claim a Stretch, the row full while the Landmark deck lasts), the turn
    counters and the cards left, the end of the game, and the per-turn usage of the
    player to act, and each Highway (built in its owner's build steps, after a discard).
    The checks of a full state (:func:`check_state`) and of a seat's view
    (:func:`~solver.rules.views.view_from_json`) both, the field named as each format
    names it; the cards each seat holds are checked by :func:`check_seat_holds`."""
    _check_landmarks(pub)
    if len(pub.landmark_row) > LANDMARK_ROW_SIZE or (
            len(pub.landmark_row) < LANDMARK_ROW_SIZE and pub.landmark_deck_count):
        raise PositionError("landmark_row", f"must hold {LANDMARK_ROW_SIZE} Landmarks while "
                            "the Landmark deck has any")
    _check_turns(pub)
    _check_highways_built(pub)


def _check_landmarks(pub: PublicPosition) -> None:
    cards = pub.cards
    hid = [c.id for c in cards.highway]
    lm_where: dict[int, str] = {}
    for field, lms in (("landmark_deck", pub.landmark_deck or ()),
                       ("landmark_row", pub.landmark_row)):
        for lm in lms:
            if lm in lm_where:
                raise PositionError(field, f"{cards.landmarks[lm].id} is also in {lm_where[lm]}")
            lm_where[lm] = field
    for i, p in enumerate(pub.seats):
        below = set()
        used_runs: dict[tuple[int, tuple[int, ...]], int] = {}  # each Stretch claims once
        for lm, c in p.landmarks:
            field = f"seats[{i}].landmarks"
            if lm in lm_where:
                raise PositionError(field, f"{cards.landmarks[lm].id} is also in {lm_where[lm]}")
            lm_where[lm] = field
            if c not in p.highway:
                raise PositionError(field, f"{hid[c]} (below {cards.landmarks[lm].id}) is not "
                                    "in this Highway")
            if c in below:
                raise PositionError(field, f"{hid[c]} has two Landmarks above it")
            below.add(c)
            s = cards.landmark_scenery[lm]
            run = next((r for r in runs(cards, p.highway, scenery=s) if c in r.cards), None)
            if run is None or not run.qualifies:
                raise PositionError(field, f"{cards.landmarks[lm].id} sits above {hid[c]}, "
                                    "which is in no qualifying Stretch of its Scenery")
            if (s, run.cards) in used_runs:
                raise PositionError(field, f"{cards.landmarks[lm].id} and "
                                    f"{cards.landmarks[used_runs[s, run.cards]].id} sit on one "
                                    "Stretch, which was already used to claim a Landmark")
            used_runs[s, run.cards] = lm
        if not p.known_hand <= set(p.hand):
            raise PositionError(f"seats[{i}].known_hand", "lists cards not in the hand")
        if not p.known_discard <= set(p.discard):
            raise PositionError(f"seats[{i}].known_discard", "lists cards not in the discard pile")
    missing_lm = [cards.landmarks[lm].id for lm in range(len(cards.landmarks))
                  if lm not in lm_where]
    if pub.full and missing_lm:
        raise PositionError("landmark_deck", f"Landmark(s) nowhere: {', '.join(missing_lm)}")
    if not pub.full and len(missing_lm) != pub.landmark_deck_count:
        raise PositionError("landmark_deck.count", f"must be {len(missing_lm)}, the Landmarks "
                            f"neither in the row nor claimed, got {pub.landmark_deck_count}")


def _check_turn_counters(first_player: int, turn: int, phase: Phase, picks: int,
                         current: int, seat_turns: list[int], seat_landmarks: list[int]) -> None:
    """The checks of the turn counters that a full state and a seat's view can both make:
    picks by step, the seat to act, each seat's turns and Landmarks (at most one claim a
    turn). PositionError naming the field."""
    n = len(seat_turns)
    t = turn
    if phase == Phase.TAKE and picks >= CARDS_TAKEN_PER_TURN:
        raise PositionError("picks", f"must be 0 or 1 in the take step, got {picks}")
    if phase == Phase.BUILD and picks != CARDS_TAKEN_PER_TURN:
        raise PositionError("picks", f"must be {CARDS_TAKEN_PER_TURN} in the build step")
    if phase == Phase.OVER and picks:
        raise PositionError("picks", "must be 0 once the game is over")
    if phase != Phase.OVER and current != (first_player + t) % n:
        raise PositionError("current", f"after {t} turns from first player "
                            f"{first_player}, seat {(first_player + t) % n} acts")
    for i, turns in enumerate(seat_turns):
        expected = _turns_played(i, n, first_player, t)
        if turns != expected:
            raise PositionError(f"seats[{i}].turns", f"must be {expected} after {t} turns")
    for i, (turns, landmarks) in enumerate(zip(seat_turns, seat_landmarks, strict=True)):
        if landmarks > turns:  # a claim ends the claiming turn
            raise PositionError(f"seats[{i}].landmarks", f"{landmarks} Landmark(s) "
                                f"after {turns} turn(s): at most one claim per turn")


def _turns_played(seat: int, n: int, first_player: int, turn: int) -> int:
    """How many turns seat ``seat`` (of ``n``) has played after ``turn`` turns of the game,
    play going round from ``first_player`` in seat order."""
    return turn // n + (1 if (seat - first_player) % n < turn % n else 0)


def _check_highways_built(pub: PublicPosition) -> None:
    """A Highway starts empty and grows only in its owner's build steps: a seat with
    Highway cards has played a turn, or is in its first build step now. Its first card
    built is paid at least in part by a card discarded from the hand when that card costs
    Materials (true if every card of the Highway does): no Persistent Material, Landmark
    or discard top can pay yet, and no card ever leaves a discard pile. PositionError
    naming ``seats[i].highway``."""
    n = len(pub.seats)
    for i, p in enumerate(pub.seats):
        if not p.highway:
            continue
        field = f"seats[{i}].highway"
        built = plural(len(p.highway), "Highway card")
        played = _turns_played(i, n, pub.first_player, pub.turn)
        if not played and not (i == pub.current and pub.phase == Phase.BUILD):
            raise PositionError(field, f"seat {i} has {built} but has not had a build step "
                                f"yet ({plural(played, 'turn')} of its own played)")
        if pub.discard_counts is not None and not pub.discard_counts[i] \
                and all(pub.cards.cost[c] for c in p.highway):
            raise PositionError(field, f"seat {i} has built {built} with an empty discard "
                                "pile: its first card built cost Materials, paid at least "
                                "in part by discarding from the hand (no Persistent "
                                "Material, Landmark or discard top could pay yet), and no "
                                "card leaves a discard pile")


def _check_supply(cards: CardSet, n: int, turn: int, picks: int, deck: int, depot: int,
                  field: str) -> None:
    """The turn within the game and the cards left for it, which a full state and a seat's
    view can both check: every turn takes two cards from the deck and the Depot, so after
    ``turn`` turns and ``picks`` picks they hold what the hands and the turns have not
    taken (PositionError naming ``turn``, or ``field`` for the deck's size)."""
    last = cards.turns_per_player(n) * n
    if turn > last:  # (the cards left would be negative: say what is wrong, the turn)
        raise PositionError("turn", f"a game of {n} players on these cards ends after {last} "
                            f"turns ({last // n} each), got {turn}")
    expected = len(cards.deck_for(n)) - HAND_SIZE * n - CARDS_TAKEN_PER_TURN * turn - picks
    if deck + depot != expected:
        raise PositionError(field, f"deck + Depot must hold {expected} cards after {turn} "
                            f"turns and {picks} pick(s), got {deck + depot}")


def cards_taken(seat: int, turns: int, current: int, phase: Phase, picks: int
                ) -> tuple[int, str]:
    """The cards seat ``seat`` has taken (dealt, and two a turn) after ``turns`` turns of
    its own and, when it is the seat to act, the ``picks`` of its turn under way; with the
    words saying when ('after 3 turn(s) and 1 pick(s)'). Its hand, Highway and discard
    pile hold exactly these, in a full state as in a seat's view."""
    now = picks if seat == current and phase != Phase.OVER else 0
    after = f"after {turns} turn(s)" + (f" and {now} pick(s)" if now else "")
    return HAND_SIZE + CARDS_TAKEN_PER_TURN * turns + now, after


def check_seat_holds(seat: int, p: PlayerState, current: int, phase: Phase,
                     picks: int) -> None:
    """A seat known whole (a full state's, a view's own) holds the cards it took
    (:func:`cards_taken`); PositionError naming ``seats[i]``."""
    taken, after = cards_taken(seat, p.turns, current, phase, picks)
    held = len(p.hand) + len(p.highway) + len(p.discard)
    if held != taken:
        raise PositionError(f"seats[{seat}]", f"must hold {taken} cards in hand, Highway and "
                            f"discard pile {after}, holds {held}")


def _check_turns(pub: PublicPosition) -> None:
    n = len(pub.seats)
    t = pub.turn
    phase = pub.phase
    picks = pub.picks
    _check_turn_counters(pub.first_player, t, phase, picks, pub.current,
                         [p.turns for p in pub.seats], [len(p.landmarks) for p in pub.seats])
    _check_supply(pub.cards, n, t, picks, pub.deck_count, len(pub.depot),
                  "deck" if pub.full else "deck.count")
    if pub.deck_count and not DEPOT_SIZE - picks <= len(pub.depot) <= DEPOT_SIZE:
        raise PositionError("depot", f"must hold {DEPOT_SIZE - picks} to {DEPOT_SIZE} cards "
                            f"after {picks} pick(s), got {len(pub.depot)}")
    if (phase == Phase.OVER) != (not pub.deck_count and picks == 0 and t > 0):
        raise PositionError("phase", "the game is over exactly when the deck is empty at the "
                            "end of a turn")
    _check_usage(pub)
    if phase == Phase.TAKE and (pub.recycle_used or pub.persistent_uses
                                or any(pub.resource_uses.values())):
        raise PositionError("per_turn", "must show no usage in the take step (nothing is "
                            "built before both cards are taken)")


def _check_usage(pub: PublicPosition) -> None:
    """Per-turn usage only where a card or a Landmark of the player to act allows it."""
    cards = pub.cards
    player = pub.seats[pub.current]
    allowed = allowances(cards, player)
    extra = 0
    for c, uses in pub.persistent_uses.items():
        field = f"per_turn.persistent_used.{cards.highway[c].id}"
        if c not in player.highway:
            raise PositionError(field, "not in the Highway of the player to act")
        if cards.persistent[c] < 0:
            raise PositionError(field, f"{cards.highway[c].id} is a {cards.miles[c]}-Mile "
                                "card: only 1-Mile cards have a Persistent Material")
        if uses > 1 + allowed["persistent_extra_use"]:
            raise PositionError(field, f"{uses} uses this turn, but a Persistent Material is "
                                f"used once a turn (+{allowed['persistent_extra_use']} extra "
                                "use(s) from the Landmarks of the player to act)")
        extra += max(0, uses - 1)
    if extra > allowed["persistent_extra_use"]:
        raise PositionError("per_turn.persistent_used", f"{extra} extra use(s) of Persistent "
                            f"Materials, but the Landmarks of the player to act allow "
                            f"{allowed['persistent_extra_use']} a turn")
    for resource, used in pub.resource_uses.items():
        if used > allowed[resource]:
            why = "no Landmark of the player to act grants it" if not allowed[resource] \
                else f"its Landmarks grant {allowed[resource]} use(s) a turn"
            raise PositionError(f"per_turn.resources_used.{resource}",
                                f"{used} use(s) this turn, but {why}")


register_json_codec(state_from_json, state_to_json)
