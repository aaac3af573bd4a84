"""Sampling full states consistent with one seat's view (determinization): the public
sampler for whoever needs full states from what a seat can see (search, analysis, bots).

    from solver.rules.determinize import Determinizer, determinize, sample_states

A :class:`~solver.rules.views.PlayerView` hides: the other hands (less the cards known
from Depot picks), the fronts of the other discard piles (each position's Material is
public, and some fronts are known), the deck order and the Landmark deck order. A
*determinization* deals the viewer's unseen cards into those places so that every
public fact holds; search samples one per iteration.

The constraint structure is a bipartite graph between unseen cards and hidden slots:
a hidden discard position accepts only cards of its Material, a hand or deck slot
accepts any card. For this structure Hall's condition reduces to counting, which is
exact: a consistent assignment exists if and only if the slot total equals the number
of unseen cards and, for every Material, the unseen cards of that Material are at least
the discard positions needing it (``tests/test_determinize.py`` cross-checks this with
networkx's Hopcroft-Karp matching). Sampling fills each Material's positions with a
uniform ordered draw of its cards, then shuffles the rest over the hand and deck slots:
a uniform draw over all consistent assignments.

>>> from solver.rules.engine import new_game
>>> from solver.rules.views import view_of
>>> state = new_game(2, seed=1)
>>> d = Determinizer(view_of(state, 0))
>>> view_of(d.sample(random.Random(5)), 0) == view_of(state, 0)
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .constants import MATERIALS
from .state import GameState, PlayerState
from .views import PlayerView


class InconsistentViewError(ValueError):
    """A view that no full state matches; the message names the field and the reason."""


@dataclass(frozen=True)
class _Seat:
    seat: int
    known_hand: tuple[int, ...]
    hidden_hand: int  # unknown hand cards
    discard_materials: tuple[int, ...]  # Material of each position, bottom to top
    positions: dict[int, tuple[int, ...]]  # Material -> positions showing it
    known_by_material: dict[int, tuple[int, ...]]  # Material -> known fronts


class Determinizer:
    """The hidden-slot structure of a view, checked once; :meth:`sample` draws states.

    Raises :class:`InconsistentViewError` when no state matches the view."""

    def __init__(self, view: PlayerView):
        if not isinstance(view, PlayerView):
            raise TypeError(f"expected a PlayerView (solver.rules.views.view_of(state, seat)), "
                            f"got {type(view).__name__}")
        self.view = view
        cards = view.cards
        n = view.num_players
        in_game = cards.deck_for(n)
        in_game_set = set(in_game)
        hid = [c.id for c in cards.highway]
        where: dict[int, str] = {}

        def place(c: int, field: str) -> None:
            if c not in in_game_set:
                raise InconsistentViewError(f"{field}: {hid[c]} is not used with {n} players")
            if c in where:
                raise InconsistentViewError(f"{field}: {hid[c]} is also in {where[c]}")
            where[c] = field

        me = view.me
        for name in ("hand", "highway", "discard"):
            for c in getattr(me, name):
                place(c, f"seats[{view.seat}].{name}")
        for c in view.depot:
            place(c, "depot")
        seats = []
        for i in sorted(view.others):
            o = view.others[i]
            f = f"seats[{i}]"
            for c in o.known_hand:
                place(c, f"{f}.hand.known")
            for c in o.highway:
                place(c, f"{f}.highway")
            for c in o.known_discard:
                place(c, f"{f}.discard.known")
            hidden = o.hand_count - len(o.known_hand)
            if hidden < 0:
                raise InconsistentViewError(
                    f"{f}.hand: {len(o.known_hand)} known card(s) but a hand of {o.hand_count}")
            seats.append(self._seat(cards, i, f, o, hidden))
        self.seats: tuple[_Seat, ...] = tuple(seats)
        self.unseen: tuple[int, ...] = tuple(c for c in in_game if c not in where)
        # counting check (Hall's condition for this bipartite structure)
        pools: dict[int, list[int]] = {m: [] for m in range(len(MATERIALS))}
        for c in self.unseen:
            pools[cards.material[c]].append(c)
        need = dict.fromkeys(range(len(MATERIALS)), 0)
        for s in seats:
            for m, pos in s.positions.items():
                need[m] += len(pos) - len(s.known_by_material.get(m, ()))
        for m in range(len(MATERIALS)):
            if need[m] > len(pools[m]):
                raise InconsistentViewError(self._too_many_hidden(seats, m, len(pools[m])))
        slots = sum(s.hidden_hand for s in seats) + sum(need.values()) + view.deck_count
        if slots != len(self.unseen):
            raise InconsistentViewError(
                f"deck.count: {len(self.unseen)} unseen card(s) must fill the hidden hand "
                f"cards ({sum(s.hidden_hand for s in seats)}), hidden discards "
                f"({sum(need.values())}) and the deck ({view.deck_count}), which make {slots}")
        self.pools = {m: tuple(p) for m, p in pools.items()}
        self.need = need
        claimed = {lm for lm, _c in me.landmarks}
        for o in view.others.values():
            claimed.update(lm for lm, _c in o.landmarks)
        self.landmarks_unseen = tuple(lm for lm in range(len(cards.landmarks))
                                      if lm not in claimed and lm not in view.landmark_row)
        if len(self.landmarks_unseen) != view.landmark_deck_count:
            raise InconsistentViewError(
                f"landmark_deck.count: {len(self.landmarks_unseen)} Landmark(s) are neither "
                f"claimed nor in the row, but the count says {view.landmark_deck_count}")

    @staticmethod
    def _too_many_hidden(seats: list[_Seat], m: int, unseen: int) -> str:
        """The error of more hidden discards of Material ``m`` than unseen cards of it,
        naming the seat whose pile makes them too many (counting the piles in seat
        order), as every other error of a seat names it."""
        name = MATERIALS[m]
        before: list[tuple[int, int]] = []  # (seat, its hidden discards of m)
        for s in seats:
            mine = len(s.positions.get(m, ())) - len(s.known_by_material.get(m, ()))
            if mine + sum(n for _i, n in before) > unseen:
                also = " (and " + ", ".join(f"{n} in seats[{i}]'s pile" for i, n in before) \
                    + ")" if before else ""
                return (f"seats[{s.seat}].discard.materials: {mine} hidden {name} "
                        f"discard(s){also} but only {unseen} unseen {name} card(s)")
            if mine:
                before.append((s.seat, mine))
        raise AssertionError("called only when the hidden discards are too many")

    @staticmethod
    def _seat(cards, i: int, f: str, o, hidden: int) -> _Seat:
        mats = tuple(o.discard_materials)
        positions: dict[int, list[int]] = {}
        for pos, m in enumerate(mats):
            positions.setdefault(m, []).append(pos)
        known: dict[int, list[int]] = {}
        for c in o.known_discard:
            known.setdefault(cards.material[c], []).append(c)
        for m, cs in known.items():
            if len(cs) > len(positions.get(m, ())):
                raise InconsistentViewError(
                    f"{f}.discard.known: {len(cs)} known {MATERIALS[m]} card(s) but "
                    f"{len(positions.get(m, ()))} {MATERIALS[m]} position(s) in the pile")
        return _Seat(i, tuple(o.known_hand), hidden, mats,
                     {m: tuple(p) for m, p in positions.items()},
                     {m: tuple(cs) for m, cs in known.items()})

    def sample(self, rng: random.Random) -> GameState:
        """One full state consistent with the view, drawn uniformly with ``rng``."""
        view = self.view
        pools = {m: list(p) for m, p in self.pools.items()}
        for p in pools.values():
            rng.shuffle(p)
        players: list[PlayerState | None] = [None] * view.num_players
        players[view.seat] = view.me.copy()
        rest: list[int] = []
        discards = {}
        for s in self.seats:
            pile = [-1] * len(s.discard_materials)
            for m, positions in s.positions.items():
                known = list(s.known_by_material.get(m, ()))
                fill = known + [pools[m].pop() for _ in range(len(positions) - len(known))]
                rng.shuffle(fill)
                for pos, c in zip(positions, fill, strict=True):
                    pile[pos] = c
            discards[s.seat] = pile
        for p in pools.values():
            rest.extend(p)
        rng.shuffle(rest)
        for s in self.seats:
            o = view.others[s.seat]
            hand = list(s.known_hand) + [rest.pop() for _ in range(s.hidden_hand)]
            players[s.seat] = PlayerState(
                hand=hand, highway=list(o.highway), discard=discards[s.seat],
                landmarks=list(o.landmarks), known_hand=set(o.known_hand),
                known_discard=set(o.known_discard), turns=o.turns)
        deck = rest  # exactly deck_count cards left, in random order (top last)
        landmark_deck = list(self.landmarks_unseen)
        rng.shuffle(landmark_deck)
        return GameState(view.cards, players, deck, list(view.depot), landmark_deck,
                         list(view.landmark_row), view.current, view.first_player, view.phase,
                         view.picks, view.turn, view.recycle_used, dict(view.persistent_uses),
                         dict(view.resource_uses))


def determinize(view: PlayerView, seed: int | random.Random | None = None) -> GameState:
    """One full state consistent with ``view`` (see :class:`Determinizer`)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return Determinizer(view).sample(rng)


def sample_states(view: PlayerView, n: int,
                  seed: int | random.Random | None = None) -> list[GameState]:
    """``n`` full states consistent with ``view``, drawn independently and uniformly (the
    view is checked once). Same seed, same states."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n: must be a non-negative integer, got {n!r}")
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    sampler = Determinizer(view)
    return [sampler.sample(rng) for _ in range(n)]
