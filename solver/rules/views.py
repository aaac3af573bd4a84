"""What one player may see, and the constraints it puts on what it cannot.

A seat sees: its own hand and discard pile; every Highway and its Landmarks; the Depot,
the Landmark row and the counts of both decks; of every other seat, the hand size, the
cards it is known to hold (taken from the Depot), the Material of every card in its
discard pile (backs are public) and the cards known to be there; the per-turn usage of
the player to act. It never sees another hand's deck draws, a discard front it did not
see, or the deck order.

Field by field (:class:`PlayerView`, and :class:`OpponentView` for every other seat):

- ``me``: the viewer's own seat in full (a :class:`~solver.rules.state.PlayerState`).
- ``others[i].hand_count`` / ``known_hand``: the size of seat i's hand and the cards in
  it that everybody knows (taken face up from the Depot, not spent since). The other
  ``hand_count - len(known_hand)`` cards are hidden.
- ``others[i].discard_materials``: the Material of every card of seat i's discard pile
  **by position**, bottom to top (a card's back shows its Material, so the pile's
  Materials and its top Material are public; Landmark borrowing reads the top one).
- ``others[i].known_discard``: fronts known to be somewhere in that pile (known hand
  cards spent in a payment), an **unordered set**: which position holds which known card
  is not recorded. A known card of Material m sits in one of the positions showing m;
  the pile's other positions are hidden slots.
- Hidden slots are matched **by Material**: a hidden discard position showing m holds an
  unseen card of Material m, a hidden hand card or a deck card any unseen card. A view is
  consistent when the unseen cards (:meth:`PlayerView.unseen_cards`) fill every hidden
  slot this way: for every Material, at least as many unseen cards of it as hidden
  positions showing it, and as many unseen cards in all as hidden slots.
- ``deck_count``, ``landmark_deck_count``: sizes only; the orders are hidden.
- ``current``, ``phase``, ``picks``, ``turn``, ``recycle_used``, ``persistent_uses``,
  ``resource_uses``: the step of the game and the per-turn usage of the seat to act;
  ``is_over`` (read-only) is ``phase == Phase.OVER``, as for a full state.

:func:`solver.rules.engine.legal_actions` accepts the view of the seat to act (the same
actions as every consistent full state); :mod:`solver.rules.determinize` checks a view's
consistency and samples full states consistent with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import CardSet
from .constants import MATERIALS
from .position import (
    PositionError,
    PublicPosition,
    as_phase,
    cards_taken,
    cards_to_json,
    check_public,
    check_seat,
    check_seat_holds,
    open_document,
    per_turn_to_json,
    require_full_state,
    seat_to_json,
)
from .state import GameState, Phase, PlayerState
from .wording import got

FORMAT = "bigsur-view/1"
VIEW_FIELDS = frozenset({"format", "cards", "view_of", "current", "first_player", "phase",
                         "picks", "turn", "deck", "depot", "landmark_deck", "landmark_row",
                         "per_turn", "seats"})
OTHER_SEAT_FIELDS = frozenset({"hand", "highway", "discard", "landmarks", "turns"})


@dataclass
class OpponentView:
    """What the viewer sees of another seat (see the module doc)."""

    hand_count: int
    known_hand: list[int]
    highway: list[int]
    discard_materials: list[int]  # bottom to top
    known_discard: list[int]
    landmarks: list[tuple[int, int]]
    turns: int


@dataclass
class PlayerView:
    """What seat ``seat`` sees of a game (see the module doc, field by field)."""

    cards: CardSet
    seat: int
    me: PlayerState  # full knowledge of the viewer's own seat
    others: dict[int, OpponentView]
    deck_count: int
    depot: list[int]
    landmark_row: list[int]
    landmark_deck_count: int
    current: int
    first_player: int
    phase: Phase
    picks: int
    turn: int
    recycle_used: bool = False
    persistent_uses: dict[int, int] = field(default_factory=dict)
    resource_uses: dict[str, int] = field(default_factory=dict)

    @property
    def num_players(self) -> int:
        return 1 + len(self.others)

    @property
    def is_over(self) -> bool:
        """Whether the game is over, as :attr:`GameState.is_over` says it (a bot's loop
        on views)."""
        return self.phase == Phase.OVER

    def unseen_cards(self) -> list[int]:
        """Cards of this game whose place the viewer does not know: the deck, the other
        hands (less their known cards) and the unknown fronts of other discard piles."""
        seen = set(self.me.hand) | set(self.me.highway) | set(self.me.discard)
        seen.update(self.depot)
        for o in self.others.values():
            seen.update(o.known_hand)
            seen.update(o.highway)
            seen.update(o.known_discard)
        return [c for c in self.cards.deck_for(self.num_players) if c not in seen]


def view_of(state: GameState, seat: int) -> PlayerView:
    """The view of ``seat`` of the full state (PositionError for a seat not in the game)."""
    require_full_state("view_of", state, "it is a view already")
    check_seat(seat, len(state.players))
    material = state.cards.material
    others = {}
    for i, p in enumerate(state.players):
        if i == seat:
            continue
        others[i] = OpponentView(
            hand_count=len(p.hand), known_hand=sorted(p.known_hand), highway=p.highway[:],
            discard_materials=[material[c] for c in p.discard],
            known_discard=sorted(p.known_discard), landmarks=p.landmarks[:], turns=p.turns)
    return PlayerView(
        state.cards, seat, state.players[seat].copy(), others, len(state.deck),
        state.depot[:], state.landmark_row[:], len(state.landmark_deck), state.current,
        state.first_player, state.phase, state.picks, state.turn, state.recycle_used,
        dict(state.persistent_uses), dict(state.resource_uses))


def view_to_json(view: PlayerView) -> dict[str, Any]:
    """The view JSON (``bigsur-view/1``, docs/format.md "Views"); :func:`view_from_json`
    reads it back, checked."""
    if not isinstance(view, PlayerView):
        raise TypeError("view_to_json: expected a PlayerView (view_of(state, seat))"
                        + (", got a GameState: state_to_json writes a full state"
                           if isinstance(view, GameState) else f", got {type(view).__name__}"))
    cards = view.cards
    hid = [c.id for c in cards.highway]
    seats: list[dict[str, Any]] = []
    for i in range(view.num_players):
        if i == view.seat:
            seats.append(seat_to_json(cards, view.me))
            continue
        o = view.others[i]
        seats.append({
            "hand": {"count": o.hand_count, "known": [hid[c] for c in o.known_hand]},
            "highway": [hid[c] for c in o.highway],
            "discard": {"materials": [MATERIALS[m] for m in o.discard_materials],
                        "known": [hid[c] for c in o.known_discard]},
            "landmarks": [{"landmark": cards.landmarks[lm].id, "card": hid[c]}
                          for lm, c in o.landmarks],
            "turns": o.turns,
        })
    fake = GameState(cards, [], [], [], [], [], recycle_used=view.recycle_used,
                     persistent_uses=view.persistent_uses, resource_uses=view.resource_uses)
    return {
        "format": FORMAT,
        "cards": cards_to_json(cards),
        "view_of": view.seat,
        "current": view.current,
        "first_player": view.first_player,
        "phase": as_phase(view.phase).name.lower(),
        "picks": view.picks,
        "turn": view.turn,
        "deck": {"count": view.deck_count},
        "depot": [hid[c] for c in view.depot],
        "landmark_deck": {"count": view.landmark_deck_count},
        "landmark_row": [cards.landmarks[lm].id for lm in view.landmark_row],
        "per_turn": per_turn_to_json(fake),
        "seats": seats,
    }


def view_from_json(raw: Any, cards: CardSet | None = None) -> PlayerView:
    """Read a view, checked as a full position is for all it shows (the one
    :func:`~solver.rules.position.check_public`: Landmarks, the row, turns, cards left,
    per-turn usage) and for the cards each seat holds, the field named on error. That the
    hidden cards can fill the hidden places is the determinizer's check (it samples them)."""
    r, seats_raw = open_document(raw, FORMAT, cards, VIEW_FIELDS)
    n = len(seats_raw)
    seat = r.int(raw.get("view_of"), "view_of", 0, n - 1)
    me = r.seat(seats_raw[seat], f"seats[{seat}]")
    others = {}
    for i, s in enumerate(seats_raw):
        if i == seat:
            continue
        f = f"seats[{i}]"
        s = r.obj(s, f, OTHER_SEAT_FIELDS)
        hand = r.obj(s.get("hand"), f"{f}.hand", frozenset({"count", "known"}))
        discard = r.obj(s.get("discard", {"materials": []}), f"{f}.discard",
                        frozenset({"materials", "known"}))
        mats = discard.get("materials", [])
        if not isinstance(mats, list) or any(m not in MATERIALS for m in mats):
            raise PositionError(f"{f}.discard.materials",
                                f"must be a list of {', '.join(MATERIALS)}")
        others[i] = OpponentView(
            hand_count=r.int(hand.get("count"), f"{f}.hand.count", 0, 200),
            known_hand=r.card_list(hand.get("known", []), f"{f}.hand.known"),
            highway=r.card_list(s.get("highway"), f"{f}.highway"),
            discard_materials=[MATERIALS.index(m) for m in mats],
            known_discard=r.card_list(discard.get("known", []), f"{f}.discard.known"),
            landmarks=r.landmarks(s.get("landmarks", []), f"{f}.landmarks"),
            turns=r.int(s.get("turns", 0), f"{f}.turns", 0, 10_000))
    phase = r.phase(raw.get("phase"))
    recycle_used, persistent_uses, resource_uses = r.per_turn(raw.get("per_turn", {}))
    deck = r.obj(raw.get("deck"), "deck", frozenset({"count"}))
    lm_deck = r.obj(raw.get("landmark_deck", {"count": 0}), "landmark_deck",
                    frozenset({"count"}))
    view = PlayerView(
        r.cards, seat, me, others,
        deck_count=r.int(deck.get("count"), "deck.count", 0, 200),
        depot=r.card_list(raw.get("depot"), "depot"),
        landmark_row=r.landmark_list(raw.get("landmark_row"), "landmark_row"),
        landmark_deck_count=r.int(lm_deck.get("count"), "landmark_deck.count", 0, 200),
        current=r.int(raw.get("current"), "current", 0, n - 1),
        first_player=r.int(raw.get("first_player", 0), "first_player", 0, n - 1),
        phase=phase, picks=r.int(raw.get("picks", 0), "picks", 0, 2),
        turn=r.int(raw.get("turn", 0), "turn", 0, 10_000),
        recycle_used=recycle_used, persistent_uses=persistent_uses,
        resource_uses=resource_uses,
    )
    check_public(PublicPosition(
        cards=r.cards, seats=public_players(view), landmark_row=view.landmark_row,
        landmark_deck=None, landmark_deck_count=view.landmark_deck_count,
        deck_count=view.deck_count, depot=view.depot, current=view.current,
        first_player=view.first_player, phase=view.phase, picks=view.picks, turn=view.turn,
        recycle_used=view.recycle_used, persistent_uses=view.persistent_uses,
        resource_uses=view.resource_uses,
        discard_counts=[len(me.discard) if i == seat else len(others[i].discard_materials)
                        for i in range(n)]))
    for i in range(n):
        _check_cards_held(view, i, me if i == seat else others[i])
    return view


def _check_cards_held(view: PlayerView, i: int, s: PlayerState | OpponentView) -> None:
    """A seat holds in hand, Highway and discard pile the cards its turns took, as in a
    full state (:func:`~solver.rules.position.cards_taken`): an opponent's hand count is
    what its taken cards leave (PositionError naming ``seats[i].hand.count``, or the seat
    when its Highway and pile hold more)."""
    if isinstance(s, PlayerState):
        check_seat_holds(i, s, view.current, view.phase, view.picks)
        return
    taken, after = cards_taken(i, s.turns, view.current, view.phase, view.picks)
    placed = len(s.highway) + len(s.discard_materials)
    if placed > taken:
        raise PositionError(f"seats[{i}]", f"{placed} cards in the Highway and discard pile "
                            f"but {taken} taken {after}")
    if s.hand_count != taken - placed:
        raise PositionError(f"seats[{i}].hand.count", f"must be {taken - placed} {after} "
                            f"({taken} cards taken, {len(s.highway)} in the Highway, "
                            f"{len(s.discard_materials)} in the discard pile), "
                            f"got {s.hand_count}")


def public_players(position: GameState | PlayerView) -> list[PlayerState]:
    """Every seat's Highway, Landmarks and turns, which a view shows too (public): what
    scoring reads, e.g. ``[score_player(cards, p) for p in public_players(view)]``, and
    what check_public reads. Hands and discard piles are left out of a view's other
    seats."""
    if isinstance(position, GameState):
        return position.players
    if not isinstance(position, PlayerView):
        raise TypeError(f"public_players: expected a GameState or a PlayerView, got "
                        f"{type(position).__name__}")
    return [position.me if i == position.seat else
            PlayerState(highway=position.others[i].highway,
                        landmarks=position.others[i].landmarks, turns=position.others[i].turns)
            for i in range(position.num_players)]


def position_or_view_from_json(raw: Any, cards: CardSet | None = None
                               ) -> GameState | PlayerView:
    """A full position (``bigsur-position/1``) or one seat's view (``bigsur-view/1``) by
    its ``format``, checked (PositionError naming the field)."""
    from .position import FORMAT as POSITION_FORMAT
    from .position import state_from_json

    fmt = raw.get("format") if isinstance(raw, dict) else None
    if fmt == FORMAT:
        return view_from_json(raw, cards)
    if fmt == POSITION_FORMAT:
        return state_from_json(raw, cards)
    raise PositionError("format", f"must be {POSITION_FORMAT!r} (a full position) or "
                        f"{FORMAT!r} (one seat's view){got(fmt)}")
