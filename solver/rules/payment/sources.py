"""The per-turn free sources of the player to act, what Landmarks allow, the payment
errors, and the values of hand cards (what a card is worth keeping, quantised).

:class:`Sources` summarises the free sources by Material, without card identities: its
:meth:`Sources.key` is the key of the count search (:mod:`.counts`).
"""

from __future__ import annotations

from functools import lru_cache

from ..actions import Discard, IllegalActionError, Persistent
from ..cards import CardSet
from ..constants import MATERIALS
from ..effects import PAYMENT_RESOURCES, REGISTRY
from ..state import GameState, PlayerState
from ..wording import got_type

N_MATERIALS = len(MATERIALS)


class PaymentError(IllegalActionError):
    """A payment that does not pay the cost by the rules."""


def allowances(cards: CardSet, player: PlayerState) -> dict[str, int]:
    """Per-turn uses granted by the player's Landmarks, by payment resource."""
    out = dict.fromkeys(PAYMENT_RESOURCES, 0)
    grants = landmark_grants(cards)
    for lm, _card in player.landmarks:
        grant = grants[lm]
        if grant is not None:
            out[grant[0]] += grant[1]
    return out


@lru_cache(maxsize=16)
def landmark_grants(cards: CardSet) -> tuple[tuple[str, int] | None, ...]:
    """Per Landmark of the set, the (payment resource, uses per turn) its ability grants,
    or None when its ability is not a payment one."""
    out = []
    for landmark in cards.landmarks:
        spec = REGISTRY[landmark.ability.kind]
        out.append(spec.fn(landmark.ability.args) if spec.category == "payment" else None)
    return tuple(out)


def card_keep_value(cards: CardSet, card: int) -> float:
    """How much a hand card is worth keeping, used to choose which cards to spend.

    Higher-mile cards score more when built, and 1-Mile cards are worth more than their
    miles because of their Persistent Material. Ties break on card order.
    """
    miles = cards.miles[card]
    return (2.5 if miles == 1 else float(miles)) + card * 1e-6


@lru_cache(maxsize=16)
def card_ids(cards: CardSet) -> tuple[str, ...]:
    return tuple(c.id for c in cards.highway)


@lru_cache(maxsize=16)
def _default_qvalues(cards: CardSet) -> tuple[int, ...]:
    """card_keep_value of every card, quantised (see VALUE_SCALE)."""
    return tuple(round(card_keep_value(cards, c) * VALUE_SCALE)
                 for c in range(len(cards.highway)))


def qvalues(cards: CardSet, pool: list[int], values) -> dict[int, int]:
    """Quantised keep values of the pool: ``values`` is None (the default values), a
    function of a card index, or anything indexed by card index (list, dict)."""
    if values is None:
        dq = _default_qvalues(cards)
        return {c: dq[c] for c in pool}
    get = values if callable(values) else getattr(values, "__getitem__", None)
    if get is None or isinstance(values, (str, bytes)):
        raise PaymentRequestError(f"values: must be a function of a card index, or a list "
                                  f"or dict by card index{got_type(values)}")
    try:
        return {c: round(float(get(c)) * VALUE_SCALE) for c in pool}
    except (LookupError, TypeError, ValueError, OverflowError):
        _values_problem(cards, pool, get)
        raise  # a fault inside the caller's own function, raised again as it was


def _values_problem(cards: CardSet, pool: list[int], get) -> None:
    """Raise PaymentRequestError naming the first pool card ``values`` has no number for
    (a card index missing from a list or dict, a value that is no finite number)."""
    for c in pool:
        where = f"card index {c} ({cards.highway[c].id})"
        try:
            value = get(c)
        except LookupError:
            raise PaymentRequestError(
                f"values: no value for {where}: values is a function of a card index, or "
                "a list or dict by card index, with a value for every hand card") from None
        try:
            round(float(value) * VALUE_SCALE)
        except (TypeError, ValueError, OverflowError):
            raise PaymentRequestError(f"values: the value of {where} must be a finite "
                                      f"number, got {value!r}") from None


def ties(cards: CardSet, pool: list[int], qvalue: dict[int, int]) -> bool:
    """Whether two pool cards of equal value differ in Material or cost (then which of
    them is spent can matter for level 3). The default values never tie."""
    seen: dict[int, tuple] = {}
    for c in pool:
        kind = (cards.material[c], cards.cost_counts[c])
        if seen.setdefault(qvalue[c], kind) != kind:
            return True
    return False


VALUE_SCALE = 1_000_000  # values are compared after rounding to 1e-6


class PaymentInfeasible(PaymentError):
    """The builds cannot all be paid this turn. ``short`` names the Material(s) the hand
    lacks (after the free sources, in the plan that comes closest)."""

    def __init__(self, message: str, short: tuple[str, ...] = ()):
        super().__init__(message)
        self.short = short


class PaymentRequestError(PaymentError):
    """A malformed request: wrong step of the turn, a card not in hand, a card twice."""


def grants_any(cards: CardSet, landmarks) -> bool:
    grants = landmark_grants(cards)
    for lm, _card in landmarks:
        if grants[lm] is not None:
            return True
    return False


class Sources:
    """The free Material sources of the player to act, summarised by Material (the key of
    the count search: no card identities)."""

    __slots__ = ("base", "used_mask", "extra", "borrow_h", "borrow_h_mask", "borrow_d",
                 "borrow_d_mask", "recycle")

    def __init__(self, state: GameState):
        cards = state.cards
        player = state.player
        persistent = cards.persistent
        base = [0] * N_MATERIALS
        used_mask = 0
        uses = state.persistent_uses
        for c in player.highway:
            m = persistent[c]
            if m >= 0:
                if uses and uses.get(c, 0):
                    used_mask |= 1 << m
                else:
                    base[m] += 1
        self.base = tuple(base)
        self.extra = self.borrow_h = self.borrow_d = 0
        self.used_mask = self.borrow_h_mask = self.borrow_d_mask = 0
        if player.landmarks and grants_any(cards, player.landmarks):
            allowed = allowances(cards, player)
            spent = state.resource_uses
            self.extra = max(0, allowed["persistent_extra_use"]
                             - spent.get("persistent_extra_use", 0))
            self.borrow_h = max(0, allowed["borrow_highway"] - spent.get("borrow_highway", 0))
            self.borrow_d = max(0, allowed["borrow_discard"] - spent.get("borrow_discard", 0))
            if self.extra:
                self.used_mask = used_mask
            for i, other in enumerate(state.players):
                if i == state.current:
                    continue
                if self.borrow_h:
                    for c in other.highway:
                        if persistent[c] >= 0:
                            self.borrow_h_mask |= 1 << persistent[c]
                if self.borrow_d and other.discard:
                    self.borrow_d_mask |= 1 << cards.material[other.discard[-1]]
            if not self.borrow_h_mask:
                self.borrow_h = 0
            if not self.borrow_d_mask:
                self.borrow_d = 0
        if state.recycle_used:
            self.recycle = -2  # used this turn
        elif player.discard:
            self.recycle = cards.material[player.discard[-1]]
        else:
            self.recycle = -1  # available, but nothing on top yet

    def key(self) -> tuple:
        return (self.base, self.used_mask, self.extra, self.borrow_h, self.borrow_h_mask,
                self.borrow_d, self.borrow_d_mask, self.recycle)


def material_counts(cards: CardSet, pool) -> tuple[int, ...]:
    """How many of ``pool``'s cards carry each Material on their back."""
    counts = [0] * N_MATERIALS
    material = cards.material
    for c in pool:
        counts[material[c]] += 1
    return tuple(counts)


def hand_counts(cards: CardSet, hand: list[int], skip: int) -> tuple[tuple[int, ...], int]:
    counts = list(material_counts(cards, hand))
    counts[cards.material[skip]] -= 1
    return tuple(counts), len(hand) - 1


@lru_cache(maxsize=16)
def cost_items(cards: CardSet) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per card, its cost as (Material, count) pairs of the Materials it needs."""
    return tuple(tuple((m, k) for m, k in enumerate(cc) if k) for cc in cards.cost_counts)


@lru_cache(maxsize=16)
def step_tables(cards: CardSet) -> tuple[tuple[Discard, ...], tuple[Persistent | None, ...]]:
    """Per card of the set, its Discard step and (1-Mile cards) its Persistent step:
    steps are immutable values, so payments share them."""
    return (tuple(Discard(c.id) for c in cards.highway),
            tuple(Persistent(c.id) if c.persistent is not None else None
                  for c in cards.highway))
