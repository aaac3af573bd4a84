"""Paying for builds: checking any concrete payment, and the cheapest joint payment of a
turn's builds (the fast exact path; the CP-SAT model is :mod:`solver.payment_ilp`).

Sources of Materials (each step of a payment supplies one):

- discard a hand card for the Material on its back;
- substitution: discard any 3 hand cards for 1 Material of choice;
- the Persistent Material of each 1-Mile card in your Highway, once per turn (more with
  a ``persistent_extra_use`` Landmark);
- Recycling, once per turn, the Material on top of your discard pile at that moment
  (so a card discarded earlier in the same payment or turn can be recycled);
- Landmark abilities: ``borrow_highway`` (another player's Persistent Material) and
  ``borrow_discard`` (the top of another player's discard pile), per turn.

A payment supplies exactly the cost (readings in docs/rules.md). Discarded cards go to
the discard pile in payment order; the last one is the new top.

Cheapest (docs/format.md, "Payments"): fewest hand cards, then the least value of the
cards spent, then the most useful final discard top. :func:`joint_payment` pays an
ordered list of builds jointly (paying each alone, cheapest, can leave a later build
unpayable); :func:`cheapest_payment` is its 1-build case and the engine's auto-pay;
:func:`affordable_cards` / :func:`affordable_sets` say what can be built this turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations

from .actions import (
    BorrowDiscard,
    BorrowHighway,
    Build,
    Discard,
    IllegalActionError,
    Payment,
    PaymentStep,
    Persistent,
    Recycle,
    Substitute,
)
from .cards import CardSet, UnknownCardError
from .constants import MATERIALS, SUBSTITUTION_CARDS
from .effects import PAYMENT_RESOURCES, REGISTRY
from .state import GameState, Phase, PlayerState

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
def _card_ids(cards: CardSet) -> tuple[str, ...]:
    return tuple(c.id for c in cards.highway)


@lru_cache(maxsize=16)
def _default_qvalues(cards: CardSet) -> tuple[int, ...]:
    """card_keep_value of every card, quantised (see VALUE_SCALE)."""
    return tuple(round(card_keep_value(cards, c) * VALUE_SCALE)
                 for c in range(len(cards.highway)))


def _qvalues(cards: CardSet, pool: list[int], values) -> dict[int, int]:
    """Quantised keep values of the pool: ``values`` is None (the default values), a
    function of a card index, or anything indexed by card index (list, dict)."""
    if values is None:
        dq = _default_qvalues(cards)
        return {c: dq[c] for c in pool}
    if callable(values):
        return {c: round(float(values(c)) * VALUE_SCALE) for c in pool}
    return {c: round(float(values[c]) * VALUE_SCALE) for c in pool}


def _ties(cards: CardSet, pool: list[int], qvalue: dict[int, int]) -> bool:
    """Whether two pool cards of equal value differ in Material or cost (then which of
    them is spent can matter for level 3). The default values never tie."""
    seen: dict[int, tuple] = {}
    for c in pool:
        kind = (cards.material[c], cards.cost_counts[c])
        if seen.setdefault(qvalue[c], kind) != kind:
            return True
    return False


def _hand_index(cards: CardSet, card_id: str, hand: list[int], what: str) -> int:
    try:
        c = cards.card(card_id)
    except UnknownCardError as err:
        raise PaymentError(f"{what}: {err}") from None
    if c not in hand:
        raise PaymentError(f"{what}: {card_id} is not in your hand (or is already spent)")
    return c


def apply_payment(state: GameState, card: int, steps: Payment) -> None:
    """Check that ``steps`` pay for building ``card`` (in hand) and carry them out: the
    spent cards and ``card`` leave the hand (the caller places ``card``), the spent cards
    go to the discard pile in order, the per-turn uses are counted.

    Raises PaymentError naming the step and the reason; the state is untouched then.
    """
    cards = state.cards
    seat = state.current
    player = state.players[seat]
    hand = player.hand[:]
    hand.remove(card)
    discard = player.discard[:]
    recycle_used = state.recycle_used
    persistent_uses = dict(state.persistent_uses)
    resource_uses = dict(state.resource_uses)
    allowed = allowances(cards, player)
    need = list(cards.cost_counts[card])
    material = cards.material

    def use_resource(resource: str, what: str) -> None:
        used = resource_uses.get(resource, 0)
        if used >= allowed[resource]:
            have = "no Landmark allowing it" if not allowed[resource] else \
                f"all {allowed[resource]} use(s) this turn are spent"
            raise PaymentError(f"{what}: {resource} not available ({have})")
        resource_uses[resource] = used + 1

    def other_seat(seat_no: int, what: str) -> PlayerState:
        if not 0 <= seat_no < len(state.players) or seat_no == seat:
            raise PaymentError(f"{what}: seat must be another player's (0-"
                               f"{len(state.players) - 1}, not {seat}), got {seat_no}")
        return state.players[seat_no]

    for step in steps:
        what = f"payment step {step.notation()!r}"
        kind = type(step)
        if kind is Discard:
            c = _hand_index(cards, step.card, hand, what)
            hand.remove(c)
            discard.append(c)
            supplied = material[c]
        elif kind is Substitute:
            spent = [_hand_index(cards, cid, hand, what) for cid in step.cards]
            if len(set(spent)) != SUBSTITUTION_CARDS:
                raise PaymentError(f"{what}: the {SUBSTITUTION_CARDS} cards must differ")
            for c in spent:
                hand.remove(c)
                discard.append(c)
            supplied = MATERIALS.index(step.material)
        elif kind is Persistent:
            try:
                c = cards.card(step.card)
            except UnknownCardError as err:
                raise PaymentError(f"{what}: {err}") from None
            if c not in player.highway or cards.persistent[c] < 0:
                raise PaymentError(f"{what}: {step.card} is not a 1-Mile card in your Highway")
            uses = persistent_uses.get(c, 0)
            if uses >= 1:
                use_resource("persistent_extra_use", f"{what} ({step.card} already used)")
            persistent_uses[c] = uses + 1
            supplied = cards.persistent[c]
        elif kind is Recycle:
            if recycle_used:
                raise PaymentError(f"{what}: Recycling is already used this turn")
            if not discard:
                raise PaymentError(f"{what}: your discard pile is empty")
            recycle_used = True
            supplied = material[discard[-1]]
        elif kind is BorrowHighway:
            other = other_seat(step.seat, what)
            try:
                c = cards.card(step.card)
            except UnknownCardError as err:
                raise PaymentError(f"{what}: {err}") from None
            if c not in other.highway or cards.persistent[c] < 0:
                raise PaymentError(f"{what}: {step.card} is not a 1-Mile card in seat "
                                   f"{step.seat}'s Highway")
            use_resource("borrow_highway", what)
            supplied = cards.persistent[c]
        elif kind is BorrowDiscard:
            other = other_seat(step.seat, what)
            if not other.discard:
                raise PaymentError(f"{what}: seat {step.seat}'s discard pile is empty")
            use_resource("borrow_discard", what)
            supplied = material[other.discard[-1]]
        else:
            raise PaymentError(f"{what}: not a payment step")
        if need[supplied] == 0:
            raise PaymentError(f"{what}: supplies {MATERIALS[supplied]}, which the cost "
                               f"of {cards.highway[card].id} does not need (any more)")
        need[supplied] -= 1
    if any(need):
        missing = [MATERIALS[m] for m in range(N_MATERIALS) for _ in range(need[m])]
        raise PaymentError(f"the payment leaves {', '.join(missing)} unpaid for "
                           f"{cards.highway[card].id}")
    known = player.known_hand
    for c in player.hand:
        if c not in hand and c != card and c in known:
            known.discard(c)
            player.known_discard.add(c)
    player.hand = hand  # without the spent cards and without ``card``: the caller builds it
    player.discard = discard
    state.recycle_used = recycle_used
    state.persistent_uses = persistent_uses
    state.resource_uses = resource_uses


def carry_out_payment(state: GameState, card: int, steps: Payment) -> None:
    """:func:`apply_payment` without its checks, for payments the engine found itself
    (:func:`cheapest_payment`, :func:`joint_payment`): the same changes to the state, in
    the same order. Unchecked: a wrong payment corrupts the state."""
    cards = state.cards
    player = state.players[state.current]
    index = cards.highway_index
    hand = player.hand
    hand.remove(card)
    discard = player.discard
    known = player.known_hand
    for step in steps:
        kind = type(step)
        if kind is Discard:
            c = index[step.card]
            hand.remove(c)
            discard.append(c)
            if c in known:
                known.discard(c)
                player.known_discard.add(c)
        elif kind is Substitute:
            for cid in step.cards:
                c = index[cid]
                hand.remove(c)
                discard.append(c)
                if c in known:
                    known.discard(c)
                    player.known_discard.add(c)
        elif kind is Recycle:
            state.recycle_used = True
        elif kind is Persistent:
            c = index[step.card]
            uses = state.persistent_uses.get(c, 0)
            if uses:
                _count_use(state, "persistent_extra_use")
            state.persistent_uses[c] = uses + 1
        else:  # BorrowHighway, BorrowDiscard
            _count_use(state, "borrow_highway" if kind is BorrowHighway else "borrow_discard")


def _count_use(state: GameState, resource: str) -> None:
    state.resource_uses[resource] = state.resource_uses.get(resource, 0) + 1


# ------------------------------------------------------------------ joint cheapest payment
#
# The fast exact path. A request is an ordered list of builds; the answer is the cheapest
# joint payment under the lexicographic objective of docs/format.md ("Payments"):
#   1. fewest hand cards spent;
#   2. least total value of the spent cards (values quantised to 1e-6, see VALUE_SCALE);
#   3. the most useful final top of the discard pile: the number of cost slots of its
#      Material among the hand cards left after the builds (next turn's Recycling).
# All three levels are exact, as in CP-SAT (solver.payment_ilp).
#
# How: hand cards are interchangeable within a Material except for their value, so the
# search runs over counts. A dynamic programme over the builds, in order, tries every
# split of each build's cost between the free sources (base Persistent uses, extra uses,
# borrowed Materials, Recycling) and "uncovered"; its state is the remaining per-turn
# sources, the Recycling status and the uncovered Materials so far (U). Uncovered slots are
# paid by single discards while the hand has that Material, else by substitutions
# (min(U, h) singles + 3 * the rest; one or two singles fewer when Recycling needs a card
# of some Material inside a substitution, see _recycle_demotions); so levels 1 and 2
# depend only on (singles per Material, substitutions, a Material a substitution must
# contain), and the cheapest cards for those are taken greedily (the cheapest singles of
# each Material, then the cheapest remaining cards). The count search is cached on a key
# without card identities.
#
# Level 3 depends on more than the totals: which build discards last, how many slots of
# each Material it leaves uncovered (whether a single of a Material, or a substitution
# card, can be placed there and end on top), and where Recycling happens (the card on
# top at that moment must be of its Material). A plan request therefore runs the same
# programme a second time (:func:`plan_shapes`, also cached on counts) with the *shape* of
# the plan so far in its state: per build, the uncovered count and the Recycling of each
# Material. It keeps only states that can still reach the optimal card count, and returns
# every distinct shape of the optimal spends. (One build needs no programme: its count
# search keeps the shapes at no cost.) The card-level step then tries, for every
# shape, every way to give the single discards to the builds and every card that may end
# on top (with the Recycling constraint), best bound first, until no shape can do better.

VALUE_SCALE = 1_000_000  # values are compared after rounding to 1e-6
_NOTHING_USEFUL = (0,) * N_MATERIALS  # level 3 when nothing is discarded (the top stays)


class PaymentInfeasible(PaymentError):
    """The builds cannot all be paid this turn. ``short`` names the Material(s) the hand
    lacks (after the free sources, in the plan that comes closest)."""

    def __init__(self, message: str, short: tuple[str, ...] = ()):
        super().__init__(message)
        self.short = short


class PaymentRequestError(PaymentError):
    """A malformed request: wrong step of the turn, a card not in hand, a card twice."""


def _grants_any(cards: CardSet, landmarks) -> bool:
    grants = landmark_grants(cards)
    for lm, _card in landmarks:
        if grants[lm] is not None:
            return True
    return False


class _Sources:
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
        if player.landmarks and _grants_any(cards, player.landmarks):
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


def _build_options(mats, bav, umask, e_left, h_left, d_left, rec_open, h_mask, d_mask,
                   hand, recycle):
    """Every split of one build's cost: per Material (m, base, extra, borrowed from a
    Highway, borrowed from a discard pile, recycled, uncovered)."""
    out = []
    n = len(mats)
    recs: list = [None] * n
    if not (e_left or h_left or d_left):
        _simple_options(mats, bav, rec_open, hand, recycle, recs, 0, -1, out)
        return out

    def go(j, e_left, h_left, d_left, r_used):
        if j == n:
            out.append((tuple(recs), e_left, h_left, d_left, r_used))
            return
        m, cnt = mats[j]
        bit = 1 << m
        for b in range(min(cnt, bav[m]), -1, -1):
            rb = cnt - b
            e_max = min(rb, e_left) if e_left and (umask & bit or b) else 0
            for e in range(e_max, -1, -1):
                re = rb - e
                for hh in range(min(re, h_left) if h_mask & bit else 0, -1, -1):
                    rh = re - hh
                    for dd in range(min(rh, d_left) if d_mask & bit else 0, -1, -1):
                        rd = rh - dd
                        r_max = 1 if (rec_open and r_used < 0 and rd
                                      and (m == recycle or hand[m])) else 0
                        for r in range(r_max, -1, -1):
                            recs[j] = (m, b, e, hh, dd, r, rd - r)
                            go(j + 1, e_left - e, h_left - hh, d_left - dd, m if r else r_used)

    go(0, e_left, h_left, d_left, -1)
    return out


def _simple_options(mats, bav, rec_open, hand, recycle, recs, j, r_used, out) -> None:
    """:func:`_build_options` when the only free sources are the Persistent Materials
    and Recycling (no extra uses, nothing to borrow): the same splits, in the same order."""
    if j == len(mats):
        out.append((tuple(recs), 0, 0, 0, r_used))
        return
    m, cnt = mats[j]
    for b in range(min(cnt, bav[m]), -1, -1):
        rd = cnt - b
        if rec_open and r_used < 0 and rd and (m == recycle or hand[m]):
            recs[j] = (m, b, 0, 0, 0, 1, rd - 1)
            _simple_options(mats, bav, rec_open, hand, recycle, recs, j + 1, m, out)
        recs[j] = (m, b, 0, 0, 0, 0, rd)
        _simple_options(mats, bav, rec_open, hand, recycle, recs, j + 1, r_used, out)


def _reduce(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple) -> tuple:
    """The count-search key reduced to what can matter (Materials no cost needs, more
    copies than the costs hold), so that equivalent positions share the caches."""
    need = costs[0] if len(costs) == 1 else tuple(map(sum, zip(*costs, strict=True)))
    slots = sum(need)
    base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = src
    cm = 0
    for m in range(N_MATERIALS):
        if need[m]:
            cm |= 1 << m
    bh_mask &= cm
    bd_mask &= cm
    key = (
        tuple([b if b < n else n for b, n in zip(base0, need, strict=True)]),
        used0 & cm if extra0 else 0,
        extra0 if extra0 < slots else slots,
        (bh0 if bh0 < slots else slots) if bh_mask else 0, bh_mask,
        (bd0 if bd0 < slots else slots) if bd_mask else 0, bd_mask,
        recycle if recycle < 0 or need[recycle] else -1)
    return (costs, tuple([g if g >= 0 and need[g] else -1 for g in built]),
            tuple([(h if h <= n else n + 1) if n else 0
                   for h, n in zip(hand, need, strict=True)]),
            hand_total if hand_total < 3 * slots else 3 * slots, key)


def _reduce_single(cost: tuple, hand: tuple, src: tuple) -> tuple:
    """:func:`_reduce` for one build, as the arguments of :func:`_single_search` (the
    pool's size is compared with the answer by the caller)."""
    base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = src
    slots = 0
    cm = 0
    for m in range(N_MATERIALS):
        if cost[m]:
            cm |= 1 << m
            slots += cost[m]
    bh_mask &= cm
    bd_mask &= cm
    key = (
        tuple([b if b < n else n for b, n in zip(base0, cost, strict=True)]),
        used0 & cm if extra0 else 0,
        extra0 if extra0 < slots else slots,
        (bh0 if bh0 < slots else slots) if bh_mask else 0, bh_mask,
        (bd0 if bd0 < slots else slots) if bd_mask else 0, bd_mask,
        recycle if recycle < 0 or cost[recycle] else -1)
    return (cost, tuple([(h if h <= n else n + 1) if n else 0
                         for h, n in zip(hand, cost, strict=True)]), key)


@lru_cache(maxsize=200_000)
def solve_counts(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """The count search for builds with cost vectors ``costs`` (in order; ``built``: the
    Persistent Material each gives to the later ones, or -1), a pool of ``hand_total``
    cards with ``hand`` per Material, and free sources ``src`` (``_Sources.key()``).
    Returns ``(cards, spends)``: the fewest hand cards and every distinct (singles per
    Material, substitutions, Material a substitution must hold or -1, shapes) reaching
    them, where shapes are those of :func:`plan_shapes` for one build (it costs nothing
    more there) and None for more; when nothing pays, ``(None, (cards the closest plan
    would need, its uncovered Materials))``.
    """
    return _solve_counts(*_reduce(costs, built, hand, hand_total, src))


@lru_cache(maxsize=50_000)
def plan_shapes(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """:func:`solve_counts` with, per spend, every distinct shape of plan reaching it (see
    the comment above), each as ``(spare, path, bound key)``: the source plan that leaves
    the most per-turn sources (``spare``, larger is better) and, per build, one record per
    cost Material ``(m, base, extra, borrowed Highway, borrowed discard, recycled,
    uncovered)``; the bound key is :func:`_shape_bound_key`."""
    return _plan_shapes(*_reduce(costs, built, hand, hand_total, src))


@lru_cache(maxsize=200_000)
def _solve_counts(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """The count search on a reduced key (see :func:`solve_counts`)."""
    if len(costs) == 1:  # one build: no programme, and the shapes cost nothing more
        return _single(costs[0], hand, hand_total, src)
    return _collect(_count_dp(costs, built, hand, src, False, None), hand, hand_total, False)


@lru_cache(maxsize=50_000)
def _plan_shapes(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """:func:`plan_shapes` on a reduced key. For one build the count search holds the
    shapes already; for more, the optimal card count comes first (the cheaper programme
    without shapes) and bounds the one with."""
    cap, got = _solve_counts(costs, built, hand, hand_total, src)
    if cap is None or len(costs) == 1:
        return cap, got
    return _collect(_count_dp(costs, built, hand, src, True, cap), hand, hand_total, True)


def _single(cost: tuple, hand: tuple, hand_total: int, src: tuple):
    """The count search for one build, with its shapes, without the programme: every
    split of the cost is a final state (the same answer as ``_collect(_count_dp(...))``,
    faster; the engine asks it for every hand card). The pool's size only decides
    whether the cheapest plan is affordable, so the search is cached without it."""
    low, U, spends = _single_search(cost, hand, src)
    if low > hand_total:
        return None, (low, U)
    return low, spends


@lru_cache(maxsize=100_000)
def _single_search(cost: tuple, hand: tuple, src: tuple):
    """:func:`_single` for a pool of any size: (fewest cards, the uncovered Materials of
    the first cheapest plan, the spends)."""
    base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = src
    rec_open = recycle != -2
    mats = [(m, cost[m]) for m in range(N_MATERIALS) if cost[m]]
    base_sum = sum(base0)
    low = None
    best: list = []
    for recs, e2, h2, d2, r_m in _build_options(mats, base0, used0, extra0, bh0, bd0,
                                                rec_open, bh_mask, bd_mask, hand, recycle):
        n = used = supp = 0
        for m, b, _e, _hh, _dd, _r, u in recs:
            used += b
            if u:
                supp |= 1 << m
                h = hand[m]
                n += u if u <= h else 3 * u - 2 * h
        if low is not None and n > low:
            continue
        force = -1
        if r_m >= 0 and r_m != recycle and not (supp >> r_m & 1 and hand[r_m]):
            # Recycling a card of this build: a substitution card of Material r_m
            if not (hand[r_m] > _uncovered(recs, r_m) and any(
                    rec[6] > hand[rec[0]] for rec in recs)):
                continue
            force = r_m
        if low is None or n < low:
            low = n
            best = []
        best.append((recs, n, force, (r_m < 0 and rec_open, e2, h2, d2, base_sum - used)))
    U = tuple(next((rec[6] for rec in best[0][0] if rec[0] == m), 0)
              for m in range(N_MATERIALS))
    found: dict = {}
    for recs, _n, force, spare in best:
        x = [0] * N_MATERIALS
        singles = 0
        sub_ok = False
        for rec in recs:
            u = rec[6]
            if u:
                m = rec[0]
                h = hand[m]
                if u > h:
                    x[m] = h
                    sub_ok = True
                else:
                    x[m] = u
                if h:
                    singles |= 1 << m
        x = tuple(x)
        by_shape = found.setdefault((x, (low - sum(x)) // 3, force), {})
        shape = tuple([(rec[0], rec[5], rec[6]) for rec in recs])
        if shape not in by_shape or spare > by_shape[shape][0]:
            # the bound key of _shape_bound_key, for one build
            by_shape[shape] = (spare, (recs,), (singles, sub_ok, -1, low > 0))
    return low, U, tuple((x, s, force, tuple(by_shape.values()))
                         for (x, s, force), by_shape in found.items())


def _uncovered(recs, m: int) -> int:
    """Slots of Material m that a build's records leave to hand cards."""
    for rec in recs:
        if rec[0] == m:
            return rec[6]
    return 0


def _splits(mats, bav, umask, e_left, h_left, d_left, rec_open, h_mask, d_mask, hand,
            recycle, gain) -> list[tuple]:
    """Every split of one build's cost (:func:`_build_options`) with what it leaves:
    (records, base left, used mask, extra, borrow_h, borrow_d, recycled Material or -1,
    uncovered (Material, count) pairs, their Material mask, the build's shape)."""
    out = []
    for recs, e2, h2, d2, r_m in _build_options(mats, bav, umask, e_left, h_left, d_left,
                                                rec_open, h_mask, d_mask, hand, recycle):
        bav2 = list(bav)
        umask2 = umask
        uncovered = []
        supp = 0
        for m, b, _e, _hh, _dd, _r, u in recs:
            if b:
                bav2[m] -= b
                umask2 |= 1 << m
            if u:
                uncovered.append((m, u))
                supp |= 1 << m
        if gain >= 0:
            bav2[gain] += 1
        out.append((recs, tuple(bav2), umask2, e2, h2, d2, r_m, uncovered, supp,
                    tuple([(rec[0], rec[5], rec[6]) for rec in recs])))
    return out


def _count_dp(costs: tuple, built: tuple, hand: tuple, src: tuple, shaped: bool,
              cap: int | None) -> dict:
    """The dynamic programme over the builds; returns its final states (key -> a source
    plan reaching it). ``shaped``: the key also holds the shape of the plan so far; with
    ``cap`` (the optimal card count), states that would spend more cards are dropped."""
    base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = src
    rec_open = recycle != -2
    if cap is None:
        cap = 1 << 30
    # core state: (base left, used mask, extra, borrow_h, borrow_d, recycle status, any
    # discard yet, Materials uncovered in the last build that discarded, U, cards U costs)
    # recycle status: 0 open, 1 settled (used and valid, or never), (m, S) needs a
    # substitution holding m in a build whose uncovered Materials S include a
    # substituted one. The key is the core, or (core, shape) when shaped.
    start = (base0, used0, extra0, bh0, bd0, 0 if rec_open else 1, False, 0, -1,
             (0,) * N_MATERIALS, 0)
    states = {(start, ()) if shaped else start: ()}
    last = len(costs) - 1
    for i, cost in enumerate(costs):
        mats = [(m, cost[m]) for m in range(N_MATERIALS) if cost[m]]
        new: dict = {}
        gain = built[i] if i < last else -1
        memo: dict = {}  # the splits depend on the free sources left only
        for state, path in states.items():
            if shaped:
                core, shape = state
            else:
                core = state
            bav, umask, e_left, h_left, d_left, rst, anyd, lsupp, edge, U, n = core
            okey = (bav, umask, e_left, h_left, d_left, rst == 0)
            splits = memo.get(okey)
            if splits is None:
                splits = memo[okey] = _splits(mats, bav, umask, e_left, h_left, d_left,
                                              rst == 0, bh_mask, bd_mask, hand, recycle, gain)
            for recs, bav2, umask2, e2, h2, d2, r_m, uncovered, supp, part in splits:
                if supp:
                    U2 = list(U)
                    n2 = n
                    for m, u in uncovered:  # singles while the hand has them, else 3 each
                        o = U2[m]
                        k = U2[m] = o + u
                        h = hand[m]
                        n2 += (k if k <= h else 3 * k - 2 * h) - (o if o <= h else 3 * o - 2 * h)
                    if n2 > cap:
                        continue
                    U2 = tuple(U2)
                else:
                    U2 = U
                    n2 = n
                rst2 = rst
                if r_m >= 0:
                    ok = False
                    need_sub = 0
                    if not anyd:
                        ok = r_m == recycle
                    elif lsupp >> r_m & 1 and hand[r_m]:
                        ok = True
                    else:
                        need_sub |= lsupp
                    if not ok:
                        if supp >> r_m & 1 and hand[r_m]:
                            ok = True
                        else:
                            need_sub |= supp
                    if ok:
                        rst2 = 1
                    elif need_sub:
                        rst2 = (r_m, need_sub)
                    else:
                        continue
                if supp:
                    edge2 = -1
                elif r_m >= 0 and anyd:
                    edge2 = r_m  # recycled after the last discard: that card stays on top
                else:
                    edge2 = edge
                key = (bav2, umask2, e2, h2, d2, rst2, anyd or bool(supp), supp or lsupp,
                       edge2, U2, n2)
                if shaped:
                    key = (key, shape + (part,))
                if key not in new:
                    new[key] = path + (recs,)
        states = new
    return states


_NO_DEMOTION = ((),)


def _recycle_demotions(U: tuple, hand: tuple, m: int, need_sub: int) -> tuple:
    """How a plan can recycle a substitution card of Material ``m`` discarded last in a
    build whose uncovered Materials are ``need_sub``: that build needs a slot paid by a
    substitution (some Material q of it with more slots than hand cards, U[q] > hand[q]),
    and a card of m must be left for it after the singles (hand[m] > U[m]). When not, a
    slot can still be paid by a substitution instead of a single card of its Material
    (2 cards more each): the alternatives, each a tuple of the Materials that lose a
    single (all of one length); () if Recycling cannot be valid."""
    sub_slot = any(need_sub >> q & 1 and U[q] > hand[q] for q in range(N_MATERIALS))
    if hand[m] > U[m]:
        if sub_slot:
            return _NO_DEMOTION
        return tuple((q,) for q in range(N_MATERIALS) if need_sub >> q & 1)
    if not hand[m]:
        return ()
    if sub_slot or need_sub >> m & 1:
        return ((m,),)  # the freed card of m pays in the window's substitution
    return tuple((m, q) for q in range(N_MATERIALS) if need_sub >> q & 1)


def _collect(states: dict, hand: tuple, hand_total: int, shaped: bool):
    """The answer of the count search from the final states: ``(cards, spends)`` or
    ``(None, closest)`` (see :func:`solve_counts`); with shapes, each spend also lists
    its shapes as :func:`plan_shapes` says."""
    low = None
    best: list = []
    for state, path in states.items():
        core = state[0] if shaped else state
        n = core[10]
        if low is not None and n > low:
            continue
        rst = core[5]
        force = -1
        demoted = _NO_DEMOTION
        if type(rst) is tuple:  # Recycling needs a substitution card of Material m
            force = rst[0]
            demoted = _recycle_demotions(core[9], hand, force, rst[1])
            if not demoted:
                continue
            n += 2 * len(demoted[0])
            if low is not None and n > low:
                continue
        if low is None or n < low:
            low = n
            best = []
        best.append((state, core, path, force, demoted))
    if low is None or low > hand_total:
        return None, (low, best[0][1][9]) if best else (0, (0,) * N_MATERIALS)
    found: dict = {}
    for state, core, path, force, demoted in best:
        U = core[9]
        x0 = [u if u < h else h for u, h in zip(U, hand, strict=True)]
        for singles_less in demoted:
            x = x0
            if singles_less:
                x = x0[:]
                for q in singles_less:
                    x[q] -= 1
            x = tuple(x)
            spend = (x, (low - sum(x)) // 3, force)
            if not shaped:
                found[spend] = None
                continue
            by_shape = found.setdefault(spend, {})
            spare = (core[5] == 0, core[2], core[3], core[4], sum(core[0]))
            shape = state[1]
            if shape not in by_shape or spare > by_shape[shape][0]:
                by_shape[shape] = (spare, path)
    if not shaped:
        return low, tuple([(x, s, force, None) for x, s, force in found])
    return low, tuple(
        (x, s, force, tuple((spare, path, _shape_bound_key(path, x))
                            for spare, path in by_shape.values()))
        for (x, s, force), by_shape in found.items())


# ------------------------------------------------------------------ the problem of a state

class _Problem:
    """One request: the state, the builds in order, the hand cards that may be spent (the
    pool: the hand without the cards being built) and their quantised values."""

    __slots__ = ("state", "cards", "builds", "sides", "pool", "hand", "hand_total", "src",
                 "qvalue", "tied", "costs", "built")

    def __init__(self, state: GameState, builds, values=None, sources: _Sources | None = None):
        cards = state.cards
        cards_, sides = _normalise_builds(state, builds)
        self.state = state
        self.cards = cards
        self.builds = cards_
        self.sides = sides
        building = set(cards_)
        self.pool = [c for c in state.player.hand if c not in building]
        self.hand = _material_counts(cards, self.pool)
        self.hand_total = len(self.pool)
        self.src = sources or _Sources(state)
        self.qvalue = _qvalues(cards, self.pool, values)
        self.tied = values is not None and _ties(cards, self.pool, self.qvalue)
        self.costs = tuple(cards.cost_counts[c] for c in cards_)
        per = cards.persistent
        self.built = tuple(per[c] for c in cards_[:-1]) + (-1,)

    def solve_counts(self):
        return solve_counts(self.costs, self.built, self.hand, self.hand_total,
                            self.src.key())

    def plan_shapes(self):
        """The count search with shapes. It asks :func:`solve_counts` first: a plan request
        warms the cost question too, stops there when nothing pays, and for one build
        finds the shapes there (no second cache entry)."""
        args = (self.costs, self.built, self.hand, self.hand_total, self.src.key())
        got = solve_counts(*args)
        return got if got[0] is None or len(self.costs) == 1 else plan_shapes(*args)


def _normalise_builds(state: GameState, builds) -> tuple[list[int], list[str]]:
    """Card indices and sides of a request given as card indices, ids or (card, side)."""
    cards = state.cards
    if state.phase != Phase.BUILD:
        raise PaymentRequestError(f"builds: the position is at the {state.phase.name.lower()} "
                                  "step; payments are made at the build step")
    out, sides = [], []
    hand = state.player.hand
    for pos, item in enumerate(builds):
        side = "L"
        if isinstance(item, tuple):
            if len(item) != 2:
                raise PaymentRequestError(f"builds[{pos}]: expected (card, side), got {item!r}")
            item, side = item
            if side not in ("L", "R"):
                raise PaymentRequestError(f"builds[{pos}]: side must be 'L' or 'R', got {side!r}")
        if isinstance(item, str):
            try:
                item = cards.card(item)
            except UnknownCardError as err:
                raise PaymentRequestError(f"builds[{pos}]: {err}") from None
        if isinstance(item, bool) or not isinstance(item, int) \
                or not 0 <= item < len(cards.highway):
            raise PaymentRequestError(f"builds[{pos}]: not a Highway card: {item!r}")
        if item not in hand:
            raise PaymentRequestError(f"builds[{pos}]: {cards.highway[item].id} is not in the "
                                      f"hand of seat {state.current}")
        if item in out:
            raise PaymentRequestError(f"builds[{pos}]: {cards.highway[item].id} is built twice")
        out.append(item)
        sides.append(side)
    if not out:
        raise PaymentRequestError("builds: name at least one card to build")
    return out, sides


# ------------------------------------------------------------------ plans

@dataclass
class JointPlan:
    """The cheapest joint payment of a list of builds.

    ``payments[i]`` pays ``builds[i]`` (engine payment steps, in order); ``spent`` are the
    hand cards discarded, ``value`` their total value, ``top`` the card left on top of the
    discard pile (None if the pile stays empty) and ``usefulness`` the level-3 score:
    cost slots of the top's Material among the hand cards kept.
    """

    builds: list[tuple[int, str]]
    payments: list[Payment]
    cards_spent: int
    value: float
    spent: list[int] = field(default_factory=list)
    top: int | None = None
    usefulness: int = 0
    solver: str = "fast"
    stats: dict = field(default_factory=dict)

    @property
    def objective(self) -> tuple[int, int, int]:
        """(cards spent, quantised value, -usefulness): smaller is better."""
        return (self.cards_spent, round(self.value * VALUE_SCALE), -self.usefulness)

    def actions(self, cards: CardSet) -> list[Build]:
        """The engine actions, to apply in order (``engine.play`` accepts each)."""
        return [Build(cards.highway[c].id, side, payment)
                for (c, side), payment in zip(self.builds, self.payments, strict=False)]

    def to_json(self, state: GameState) -> dict:
        """A plan a person can read: per build, which card or source pays which Material."""
        return explain_payments(state, self.builds, self.payments) | {
            "solver": self.solver,
            "cards_spent": self.cards_spent,
            "value": self.value,
            "spent": [state.cards.highway[c].id for c in self.spent],
            "top": None if self.top is None else state.cards.highway[self.top].id,
            "usefulness": self.usefulness,
        }


def explain_payments(state: GameState, builds, payments) -> dict:
    """Replay ``payments`` for ``builds`` (list of (card, side)) step by step and say what
    each step supplies; the actions in notation too."""
    cards = state.cards
    ids = _card_ids(cards)
    material = cards.material
    discard = state.player.discard[:]
    out = []
    for (card, side), payment in zip(builds, payments, strict=False):
        rows = []
        for step in payment:
            kind = type(step)
            if kind is Discard:
                c = cards.card(step.card)
                discard.append(c)
                rows.append({"material": MATERIALS[material[c]], "source": "discard",
                             "cards": [step.card]})
            elif kind is Substitute:
                discard.extend(cards.card(x) for x in step.cards)
                rows.append({"material": step.material, "source": "substitution",
                             "cards": list(step.cards)})
            elif kind is Persistent:
                c = cards.card(step.card)
                rows.append({"material": MATERIALS[cards.persistent[c]], "source": "persistent",
                             "cards": [step.card]})
            elif kind is Recycle:
                rows.append({"material": MATERIALS[material[discard[-1]]], "source": "recycle",
                             "cards": [ids[discard[-1]]]})
            elif kind is BorrowHighway:
                c = cards.card(step.card)
                rows.append({"material": MATERIALS[cards.persistent[c]],
                             "source": "borrow_highway", "seat": step.seat, "cards": [step.card]})
            else:
                top = state.players[step.seat].discard[-1]
                rows.append({"material": MATERIALS[material[top]], "source": "borrow_discard",
                             "seat": step.seat, "cards": [ids[top]]})
        action = Build(ids[card], side, payment)
        out.append({"card": ids[card], "side": side,
                    "cost": [MATERIALS[m] for m in cards.cost[card]],
                    "pay": rows, "action": action.notation()})
    return {"builds": out}


def _useful_vector(P: _Problem, spent) -> list[int]:
    """Level 3: per Material, its cost slots among the pool cards kept."""
    useful = [0] * N_MATERIALS
    cc = P.cards.cost_counts
    spent = set(spent)
    for c in P.pool:
        if c not in spent:
            for m, k in enumerate(cc[c]):
                useful[m] += k
    return useful


def _spend_cards(P: _Problem, x, s, force, target: int = -1, extra: int = 0):
    """The cheapest cards for a spend: (singles by Material, substitution cards, total
    quantised value). With ``target`` (a Material), equally valued cards are taken
    fewest cost slots of ``target`` first (they leave a top of that Material most
    useful), and the substitutions hold ``extra`` more cards of it; None if they cannot.
    """
    material = P.cards.material
    q = P.qvalue
    if target < 0:
        order = sorted(P.pool, key=q.__getitem__)  # stable: equal values keep hand order
    else:
        cc = P.cards.cost_counts
        order = sorted(P.pool, key=lambda c: (q[c], cc[c][target]))
    singles: list[list[int]] = [[] for _ in range(N_MATERIALS)]
    need = list(x)
    rest = []
    for c in order:
        m = material[c]
        if need[m]:
            need[m] -= 1
            singles[m].append(c)
        else:
            rest.append(c)
    subs: list[int] = []
    if extra and not s:
        return None
    if s:
        req = [0] * N_MATERIALS
        if force >= 0:
            req[force] = 1
        if extra:
            req[target] += extra
        if force >= 0 or extra:
            picked = []
            others = []
            for c in rest:
                m = material[c]
                if req[m]:
                    req[m] -= 1
                    picked.append(c)
                else:
                    others.append(c)
            if any(req) or len(picked) > 3 * s:
                return None
            subs = picked + others[:3 * s - len(picked)]
        else:
            subs = rest[:3 * s]
    total = sum(q[c] for g in singles for c in g) + sum(q[c] for c in subs)
    return singles, subs, total


def _free_steps(P: _Problem, path) -> list[list[PaymentStep]]:
    """Concrete free steps (Persistent, borrowed) per build, for a source plan."""
    for recs in path:
        for rec in recs:
            if rec[1] or rec[2] or rec[3] or rec[4]:
                break
        else:
            continue
        break
    else:
        return [[] for _ in path]
    state = P.state
    cards = P.cards
    ids = _card_ids(cards)
    persistent = cards.persistent
    uses = state.persistent_uses
    player = state.player
    fresh: list[list[int]] = [[] for _ in range(N_MATERIALS)]
    used: list[list[int]] = [[] for _ in range(N_MATERIALS)]
    for c in player.highway:
        m = persistent[c]
        if m >= 0:
            (used if uses.get(c, 0) else fresh)[m].append(c)
    out = []
    for i, recs in enumerate(path):
        steps: list[PaymentStep] = []
        extras: list[PaymentStep] = []
        for m, b, e, hh, dd, _r, _u in recs:
            for _ in range(b):
                c = fresh[m].pop(0)
                used[m].append(c)
                steps.append(Persistent(ids[c]))
            for _ in range(e):
                extras.append(Persistent(ids[used[m][0]]))
            for _ in range(hh):
                seat, c = next((j, c) for j, other in enumerate(state.players)
                               if j != state.current for c in other.highway
                               if persistent[c] == m)
                steps.append(BorrowHighway(seat, ids[c]))
            for _ in range(dd):
                seat = next(j for j, other in enumerate(state.players)
                            if j != state.current and other.discard
                            and cards.material[other.discard[-1]] == m)
                steps.append(BorrowDiscard(seat))
        out.append(steps + extras)
        if i + 1 < len(path):
            m = persistent[P.builds[i]]
            if m >= 0:
                fresh[m].append(P.builds[i])
    return out


def _arrange(P: _Problem, singles, group_mats, subs, rec, useful, free):
    """Order the discards of every build: which card is recycled, which ends on top. The
    substitution cards are placed in groups here. Returns (usefulness, payments) or None.

    Rules used (docs/format.md, "Payments"): Recycling takes the top at its moment, so the
    recycled Material is the top at the turn's start (nothing discarded before), the last
    card of the last build that discarded, or a card of the same build discarded just
    before it; the final top is the last card of the last build that discards.
    """
    material = P.cards.material
    nb = len(singles)
    disc = [bool(singles[i] or group_mats[i]) for i in range(nb)]
    L = max((i for i in range(nb) if disc[i]), default=-1)
    if rec is None:
        justs = [(None, -1)]
    else:
        k, m = rec
        prior = max((i for i in range(k) if disc[i]), default=-1)
        justs = [("T", prior)] if prior >= 0 or P.src.recycle == m else []
        justs.append(("O", k))
    if L >= 0:
        tops = [(c, False) for c in singles[L]]
        if group_mats[L]:
            tops += [(c, True) for c in subs]
    else:
        tops = [(None, False)]
    best = None
    for mode, w in justs:
        for Y, y_sub in tops:
            X = x_sub = None
            if mode is not None:
                m = rec[1]
                if mode == "T" and w < 0:
                    pass  # the top at the start of the turn
                else:
                    if Y is not None and material[Y] == m and L == w:
                        X, x_sub = Y, y_sub
                    elif mode == "T" and L == w:
                        continue  # the window build ends the turn's discards: top is X
                    else:
                        X, x_sub = _pick_recycled(singles[w], subs if group_mats[w] else (), m,
                                                  material, Y)
                        if X is None:
                            continue
                        if mode == "O" and L == w and Y is not None and x_sub and y_sub \
                                and len(group_mats[w]) < 2:
                            # X and Y would share the build's only group: try X single
                            X2 = next((c for c in singles[w] if material[c] == m), None)
                            if X2 is None:
                                continue
                            X, x_sub = X2, False
            score = useful[material[Y]] if Y is not None else 0
            if best is None or score > best[0]:
                best = (score, mode, w, X, x_sub, Y, y_sub)
    if best is None:
        return None
    score, mode, w, X, x_sub, Y, y_sub = best
    ids = _card_ids(P.cards)
    # place the substitution cards in groups: X into build w, Y into build L
    slots = [3 * len(g) for g in group_mats]
    placed: list[list[int]] = [[] for _ in range(nb)]
    pinned = set()
    if x_sub:
        placed[w].append(X)
        pinned.add(X)
    if y_sub and Y not in pinned:
        placed[L].append(Y)
        pinned.add(Y)
    pool = [c for c in subs if c not in pinned]
    for i in range(nb):
        while len(placed[i]) < slots[i]:
            placed[i].append(pool.pop(0))
    payments = []
    for i in range(nb):
        units: list[list[int]] = [[c] for c in singles[i]]
        cards_i = placed[i]
        if x_sub and i == w and y_sub and i == L and X != Y:
            # X in the first group, Y in the last one
            rest = [c for c in cards_i if c not in (X, Y)]
            cards_i = [X] + rest + [Y]
        groups = [cards_i[3 * g:3 * g + 3] for g in range(len(group_mats[i]))]
        units += groups
        unit_x = next((u for u in units if X in u), None) if i == w else None
        unit_y = next((u for u in units if Y in u), None) if i == L else None
        if unit_x is not None:
            unit_x.remove(X)
            unit_x.append(X)
        if unit_y is not None and (unit_y is not unit_x or X == Y):
            if Y in unit_y:
                unit_y.remove(Y)
                unit_y.append(Y)
        others = [u for u in units if u is not unit_x and u is not unit_y]
        seq: list = []
        if mode == "T" and rec[0] == i:
            seq.append("rec")
        if mode == "O" and i == w:
            if unit_y is unit_x and unit_x is not None:
                seq += others + [unit_x, "rec"]
            else:
                seq += [unit_x, "rec"] + others + ([unit_y] if unit_y is not None else [])
        else:
            tail = []
            if unit_y is not None:
                tail.append(unit_y)
            if unit_x is not None and unit_x is not unit_y:
                tail.append(unit_x)  # a prior window build: X last (never also L)
            seq += others + tail
        steps = list(free[i])
        g = 0
        mats_i = group_mats[i]
        for u in seq:
            if u == "rec":
                steps.append(Recycle())
            elif len(u) == 1:
                steps.append(Discard(ids[u[0]]))
            else:
                steps.append(Substitute(tuple(ids[c] for c in u), MATERIALS[mats_i[g]]))
                g += 1
        payments.append(tuple(steps))
    return score, payments


def _arrange_plain(P: _Problem, singles, group_mats, subs, useful, free):
    """_arrange without Recycling: the most useful card of the last discarding build
    ends on top."""
    material = P.cards.material
    ids = _card_ids(P.cards)
    nb = len(singles)
    L = -1
    for i in range(nb - 1, -1, -1):
        if singles[i] or group_mats[i]:
            L = i
            break
    Y = None
    score = 0
    y_sub = False
    if L >= 0:
        for c in singles[L]:
            if Y is None or useful[material[c]] > score:
                Y, score = c, useful[material[c]]
        if group_mats[L]:
            for c in subs:
                if Y is None or useful[material[c]] > score:
                    Y, score, y_sub = c, useful[material[c]], True
    pool = [c for c in subs if c != Y] if y_sub else subs
    at = 0
    payments = []
    for i in range(nb):
        steps = list(free[i])
        last = i == L
        for c in singles[i]:
            if not (last and c == Y):
                steps.append(Discard(ids[c]))
        gm = group_mats[i]
        for g, m in enumerate(gm):
            if last and y_sub and g == len(gm) - 1:
                group = pool[at:at + 2] + [Y]
                at += 2
            else:
                group = pool[at:at + 3]
                at += 3
            steps.append(Substitute(tuple(ids[c] for c in group), MATERIALS[m]))
        if last and Y is not None and not y_sub:
            steps.append(Discard(ids[Y]))
        payments.append(tuple(steps))
    return score, payments


def _pick_recycled(singles_w, subs_w, m, material, Y):
    """A card of Material m discarded in the window build, other than Y: (card, is_sub)."""
    for c in singles_w:
        if material[c] == m and c != Y:
            return c, False
    for c in subs_w:
        if material[c] == m and c != Y:
            return c, True
    return None, False


def _allocations(path, singles_by_m):
    """Ways to give each build its single discards (per Material, among the builds with
    that Material uncovered); the other uncovered slots are paid by substitutions."""
    nb = len(path)
    per_m = []
    for m in range(N_MATERIALS):
        if not singles_by_m[m]:
            continue
        caps = [next((rec[6] for rec in recs if rec[0] == m), 0) for recs in path]
        splits: list[tuple[int, ...]] = []

        def go(i, left, acc, caps=caps, splits=splits):
            if i == nb:
                if not left:
                    splits.append(tuple(acc))
                return
            for k in range(min(caps[i], left), -1, -1):
                go(i + 1, left - k, acc + [k])

        go(0, len(singles_by_m[m]), [])
        per_m.append((m, splits))
    combos: list[dict[int, tuple[int, ...]]] = [{}]
    for m, splits in per_m:
        combos = [{**c, m: sp} for c in combos for sp in splits]
    for combo in combos:
        singles: list[list[int]] = [[] for _ in range(nb)]
        group_mats: list[list[int]] = [[] for _ in range(nb)]
        for i, recs in enumerate(path):
            for rec in recs:
                m, u = rec[0], rec[6]
                group_mats[i] += [m] * (u - (combo[m][i] if m in combo else 0))
        for m, split in combo.items():
            cards_m = singles_by_m[m]
            at = 0
            for i in range(nb):
                singles[i] += cards_m[at:at + split[i]]
                at += split[i]
        yield singles, group_mats


def _rec_of(path):
    for i, recs in enumerate(path):
        for m, _b, _e, _hh, _dd, r, _u in recs:
            if r:
                return i, m
    return None


def _shape_bound_key(path, x) -> tuple[int, bool, int, bool]:
    """What bounds level 3 for a shape (card-independent): the Materials a single of the
    last discarding build may have, whether that build may hold a substitution, the
    Material the top is pinned to by a Recycling after the last discard (-1: none), and
    whether anything is discarded at all."""
    last = -1
    for i in range(len(path) - 1, -1, -1):
        if any(rec[6] for rec in path[i]):
            last = i
            break
    if last < 0:
        return 0, False, -1, False
    total = [0] * N_MATERIALS
    for recs in path:
        for rec in recs:
            total[rec[0]] += rec[6]
    singles = 0
    sub_ok = False
    for rec in path[last]:
        m, u = rec[0], rec[6]
        if u:
            if x[m]:
                singles |= 1 << m
            if total[m] > x[m]:
                sub_ok = True
    pin = -1
    for i in range(last + 1, len(path)):
        for rec in path[i]:
            if rec[5]:
                pin = rec[0]
    return singles, sub_ok, pin, True


def _candidate_spends(P: _Problem, spends) -> list[tuple]:
    """The cheapest card choices (level 2) of the optimal spends, as (singles by
    Material, substitution cards, total, x, shapes). Values from the caller may tie between
    cards of different Materials or costs; then several sets of cards are equally cheap,
    and for each target Material the set that keeps the most cost slots of it is added
    (with one more substitution card of it, too): whichever card ends on top, one of these
    sets is at least as good for level 3 as any other equally cheap set."""
    out = []
    for x, s, force, shapes in spends:
        out.append((*_spend_cards(P, x, s, force), x, shapes))
    low = min(t[2] for t in out)
    if len(out) > 1:
        out = [t for t in out if t[2] == low]
    if not P.tied:
        return out
    seen = {(id(t[4]), frozenset(t[1]).union(*t[0])) for t in out}
    for x, s, force, shapes in spends:
        for target in range(N_MATERIALS):
            for extra in ((0, 1) if s else (0,)):
                got = _spend_cards(P, x, s, force, target, extra)
                if got is None or got[2] != low:
                    continue
                key = (id(shapes), frozenset(got[1]).union(*got[0]))
                if key not in seen:
                    seen.add(key)
                    out.append((*got, x, shapes))
    return out


def _best_arrangement(P: _Problem, spends):
    """The best arranged plan among the cheapest spends (level 2 by the values), exact on
    level 3: every shape of every cheapest spend is a candidate, bounded from above by
    the best card that could end on top; they are tried best bound first (ties: the most
    per-turn sources left), each with every single allocation, until no candidate left
    can do better. Returns (usefulness, payments, spent cards, quantised value)."""
    material = P.cards.material
    if len(spends) == 1 and not P.tied:
        x, s, force, shapes = spends[0]
        chosen = [(*_spend_cards(P, x, s, force), x, shapes)]
    else:
        chosen = _candidate_spends(P, spends)
    cands = []
    for singles_by_m, subs, total, x, shapes in chosen:
        spent = [c for g in singles_by_m for c in g] + subs
        useful = _useful_vector(P, spent) if spent else _NOTHING_USEFUL
        if len(chosen) == 1 and len(shapes) == 1 and len(shapes[0][1]) == 1:
            # one candidate and one build (one allocation): nothing to bound
            cands.append((0, shapes[0][0], shapes[0][1], singles_by_m, subs, x, useful,
                          spent, total))
            break
        sub_best = None
        for spare, path, (single_mask, sub_ok, pin, discards) in shapes:
            bound = -1
            if not discards:
                bound = 0
            elif sub_ok:
                if sub_best is None:
                    sub_best = max(useful[material[c]] for c in subs)
                bound = sub_best
            for m in range(N_MATERIALS):
                if single_mask >> m & 1 and useful[m] > bound:
                    bound = useful[m]
            if pin >= 0 and useful[pin] < bound:
                bound = useful[pin]
            cands.append((bound, spare, path, singles_by_m, subs, x, useful, spent, total))
    if len(cands) > 1:
        cands.sort(key=lambda c: (c[0], c[1]), reverse=True)
    best = None
    for bound, spare, path, singles_by_m, subs, x, useful, spent, total in cands:
        if best is not None and (bound < best[0] or (bound == best[0] and spare <= best[1])):
            break
        got = _arrange_shape(P, path, singles_by_m, subs, x, useful, bound)
        if got is not None and (best is None or (got[0], spare) > best[:2]):
            best = (got[0], spare, got[1], path, spent, total)
    if best is None:  # pragma: no cover - the count search only keeps valid Recyclings
        raise AssertionError("no arrangement of a counted plan")
    score, _spare, payments, path, spent, total = best
    free = _free_steps(P, path)
    if any(free):
        payments = [tuple(f) + p for f, p in zip(free, payments, strict=True)]
    return score, payments, spent, total


def _arrange_shape(P: _Problem, path, singles_by_m, subs, x, useful, bound):
    """The best (usefulness, payments without the free steps) of one shape over every
    allocation of the single discards to the builds, or None if none can be ordered
    (stops at ``bound``)."""
    nb = len(path)
    free = [()] * nb
    rec = _rec_of(path)
    if nb == 1:
        group_mats = []
        for rec_ in path[0]:
            if rec_[6] > x[rec_[0]]:
                group_mats += [rec_[0]] * (rec_[6] - x[rec_[0]])
        allocs = [([[c for g in singles_by_m for c in g]], [group_mats])]
    else:
        allocs = _allocations(path, singles_by_m)
    best = None
    for singles, group_mats in allocs:
        if rec is None:
            got = _arrange_plain(P, singles, group_mats, subs, useful, free)
        elif rec[1] == P.src.recycle and not any(
                singles[i] or group_mats[i] for i in range(rec[0])):
            # the top at the turn's start is recycled first: no constraint left
            got = _arrange_plain(P, singles, group_mats, subs, useful, free)
            got[1][rec[0]] = (Recycle(),) + got[1][rec[0]]
        else:
            got = _arrange(P, singles, group_mats, subs, rec, useful, free)
        if got is not None and (best is None or got[0] > best[0]):
            best = got
            if got[0] >= bound:
                break
    return best


def _realise(P: _Problem, spends) -> JointPlan:
    """The JointPlan of the best arrangement."""
    _score, payments, spent, total = _best_arrangement(P, spends)
    plan = JointPlan(list(zip(P.builds, P.sides, strict=True)), payments, len(spent),
                     total / VALUE_SCALE, sorted(spent, key=lambda c: (P.qvalue[c], c)))
    plan.top, plan.usefulness = final_top(P.state, P.builds, payments)
    return plan


def final_top(state: GameState, builds, payments) -> tuple[int | None, int]:
    """The discard top after paying ``payments`` for ``builds`` (card indices or (card,
    side)) and its level-3 usefulness: the cost slots of its Material among the hand cards
    neither built nor spent. (None, 0) when the pile stays empty."""
    cards = state.cards
    top = state.player.discard[-1] if state.player.discard else None
    gone = {b[0] if isinstance(b, tuple) else b for b in builds}
    for payment in payments:
        for step in payment:
            if type(step) is Discard:
                top = cards.card(step.card)
                gone.add(top)
            elif type(step) is Substitute:
                gone.update(cards.card(x) for x in step.cards)
                top = cards.card(step.cards[-1])
    if top is None:
        return None, 0
    m = cards.material[top]
    cc = cards.cost_counts
    return top, sum(cc[c][m] for c in state.player.hand if c not in gone)


# ------------------------------------------------------------------ public entry points

def joint_payment(state: GameState, builds, values=None) -> JointPlan:
    """The cheapest joint payment (fast exact path) for ``builds``, an ordered list of
    cards (indices, ids or (card, side) pairs) in the hand of the player to act, at the
    build step. ``values`` says what a hand card is worth keeping: None (default
    :func:`card_keep_value`), a function of a card index, or a sequence / mapping by card
    index. Raises PaymentInfeasible (naming the short Material) or
    PaymentRequestError."""
    P = _Problem(state, builds, values)
    n, spends = P.plan_shapes()
    if n is None:
        raise infeasible_error(P.cards, P.builds, P.hand, spends)
    return _realise(P, spends)


def joint_cost(state: GameState, builds, values=None) -> tuple[int, float] | None:
    """The optimal cost of paying ``builds`` jointly, in this order, without building the
    plan (levels 1 and 2: fewest hand cards, then their least total value), or None when
    nothing pays. The cheap question a search asks."""
    P = _Problem(state, builds, values)
    n, spends = P.solve_counts()
    if n is None:
        return None
    return n, min(_spend_cards(P, x, s, force)[2] for x, s, force, _shapes in spends) \
        / VALUE_SCALE


def infeasible_error(cards: CardSet, builds, hand, closest) -> PaymentInfeasible:
    """The error for builds nobody can pay: what is still needed after the free sources
    in the plan that comes closest, and which Materials the hand lacks."""
    names = ", ".join(cards.highway[c].id for c in builds)
    n, U = closest
    short = tuple(MATERIALS[m] for m in range(N_MATERIALS) if U[m] > hand[m])
    needs = ", ".join(f"{U[m]} {MATERIALS[m]}" for m in range(N_MATERIALS) if U[m])
    has = ", ".join(f"{hand[m]} {MATERIALS[m]}" for m in range(N_MATERIALS) if hand[m]) \
        or "nothing"
    return PaymentInfeasible(
        f"cannot pay for {names}: {', '.join(short) or 'a Material'} short. After the free "
        f"sources the cheapest plan still needs {needs}; the hand (without the cards being "
        f"built) has {sum(hand)} card(s) ({has}), and substituting for the rest would take "
        f"{n} card(s)", short)


def cheapest_payment(state: GameState, card: int, values=None) -> Payment | None:
    """A concrete cheapest payment for building ``card`` alone (the 1-build case of the
    joint fast path): fewest hand cards, then the least valuable ones (``values``: None
    for :func:`card_keep_value`, a function of a card index, or a sequence / mapping by
    card index), then the most useful discard top, then the most per-turn sources left.
    None when the card cannot be paid. :func:`auto_payment_cards` lists the cards it
    spends; :func:`build_costs` the cost in cards of every affordable build."""
    player = state.players[state.current]
    src = _Sources(state)
    key = None
    if values is None and not (src.borrow_h or src.borrow_d):
        # everything the answer depends on when nothing is borrowed from another player
        per = state.cards.persistent
        key = (state.cards, card, tuple(player.hand),
               tuple([c for c in player.highway if per[c] >= 0]),
               tuple(state.persistent_uses.items()) if state.persistent_uses else (),
               src.key())
        got = _PAYMENTS.get(key, _MISSING)
        if got is not _MISSING:
            return got
    P = _Problem.__new__(_Problem)
    _fill_single(P, state, card, values, src)
    low, _U, spends = _single_search(*_reduce_single(P.costs[0], P.hand, src.key()))
    got = None if low > P.hand_total else _best_arrangement(P, spends)[1][0]
    if key is not None:
        if len(_PAYMENTS) >= _PAYMENTS_MAX:
            _PAYMENTS.clear()
        _PAYMENTS[key] = got
    return got


_PAYMENTS: dict = {}  # cheapest_payment answers without Landmark sources (values None)
_PAYMENTS_MAX = 100_000
_MISSING = object()


def _fill_single(P: _Problem, state: GameState, card: int, values,
                 src: _Sources | None = None) -> None:
    """_Problem for one build, without the request checks (the engine's hot path)."""
    cards = state.cards
    P.state = state
    P.cards = cards
    P.builds = [card]
    P.sides = ["L"]
    P.pool = [c for c in state.player.hand if c != card]
    P.hand = _material_counts(cards, P.pool)
    P.hand_total = len(P.pool)
    P.src = src or _Sources(state)
    P.qvalue = _qvalues(cards, P.pool, values)
    P.tied = values is not None and _ties(cards, P.pool, P.qvalue)
    P.costs = (cards.cost_counts[card],)
    P.built = (-1,)


def _material_counts(cards: CardSet, pool) -> tuple[int, ...]:
    """How many of ``pool``'s cards carry each Material on their back."""
    counts = [0] * N_MATERIALS
    material = cards.material
    for c in pool:
        counts[material[c]] += 1
    return tuple(counts)


def _hand_counts(cards: CardSet, hand: list[int], skip: int) -> tuple[tuple[int, ...], int]:
    counts = list(_material_counts(cards, hand))
    counts[cards.material[skip]] -= 1
    return tuple(counts), len(hand) - 1


@lru_cache(maxsize=16)
def _cost_items(cards: CardSet) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per card, its cost as (Material, count) pairs of the Materials it needs."""
    return tuple(tuple((m, k) for m, k in enumerate(cc) if k) for cc in cards.cost_counts)


def affordable_cards(state: GameState) -> list[int]:
    """Distinct hand cards of the player to act that can be paid for right now."""
    cards = state.cards
    player = state.players[state.current]
    hand = player.hand
    material = cards.material
    items = _cost_items(cards)
    counts = [0] * N_MATERIALS
    for c in hand:
        counts[material[c]] += 1
    total = len(hand) - 1
    key = None
    if player.landmarks and _grants_any(cards, player.landmarks):
        # Landmark sources: the count search unless they are all spent
        key = _Sources(state).key()
        base, recycle = key[0], key[7]
        simple = not (key[2] or key[3] or key[5])
    else:
        simple = True
        per = cards.persistent
        uses = state.persistent_uses
        base = [0] * N_MATERIALS
        for c in player.highway:
            m = per[c]
            if m >= 0 and not (uses and uses.get(c, 0)):
                base[m] += 1
        recycle = -2 if state.recycle_used else material[player.discard[-1]] \
            if player.discard else -1
    out = []
    for c in hand:
        m0 = material[c]
        counts[m0] -= 1
        n = 0
        for m, u in items[c]:  # every Persistent use taken, the rest paid by hand cards
            b = base[m]
            if b:
                u = u - b if b < u else 0
            if u:
                h = counts[m]
                n += u if u <= h else 3 * u - 2 * h
        if n <= total:
            out.append(c)  # a plan (Recycling or more sources can only save cards)
        elif simple:
            # Recycling saves at most 3 cards
            if recycle != -2 and n - 3 <= total \
                    and min_cards_simple(items[c], counts, base, recycle) <= total:
                out.append(c)
        elif _single_search(*_reduce_single(cards.cost_counts[c], counts, key))[0] <= total:
            out.append(c)
        counts[m0] += 1
    return out


def min_cards_simple(items, hand, base, recycle) -> int:
    """Fewest hand cards paying one build whose only free sources are the Persistent
    Materials ``base`` (unused, by Material) and Recycling (``recycle``: the Material on
    top, -1 nothing on top yet, -2 used this turn): the count search's ``low`` for sources
    without extra uses or borrowing (``items``: the cost as (Material, count) pairs,
    ``hand``: the pool's cards per Material), without its search.

    Every Persistent use that a cost slot can take is taken (it only lowers the slots
    left to hand cards); then at most one slot is recycled, the one saving most (3 cards
    for a slot that a substitution pays, else 1) among those the rules allow: the top at
    the turn's start, a card of the Material discarded just before (the build still
    discards one of it), or a card of it inside a substitution of the build."""
    n = 0
    left = []
    for m, k in items:
        b = base[m]
        u = k - b if b < k else 0
        if u:
            h = hand[m]
            if u <= h:
                n += u
            else:
                n += 3 * u - 2 * h
            left.append((m, u, h))
    if recycle == -2 or not left:
        return n
    gain = 0
    for m, u, h in left:
        if not (m == recycle or h):
            continue
        g = 3 if u > h else 1
        if g <= gain:
            continue
        if m == recycle or (u > 1 and h):
            gain = g
        elif h > u - 1:
            # Recycling a substitution card of m: the build must still substitute
            if any(uq > hq for q, uq, hq in left if q != m) or u - 1 > h:
                gain = g
    return n - gain


def cheapest_cards_needed(state: GameState, card: int) -> int | None:
    """Fewest hand cards that pay for ``card`` alone, or None if it cannot be paid."""
    counts, total = _hand_counts(state.cards, state.player.hand, card)
    cost = state.cards.cost_counts[card]
    low = _single_search(*_reduce_single(cost, counts, _Sources(state).key()))[0]
    return None if low > total else low


def affordable_sets(state: GameState, max_size: int = 3) -> dict[frozenset[int], tuple]:
    """Every set of up to ``max_size`` hand cards that the player to act can build this
    turn, with its best order: ``{frozenset(cards): (order, cards_spent)}``, the order
    spending the fewest hand cards (ties: the first in hand order). Sets are found by
    growing affordable ones (a prefix of a payable order is payable)."""
    cards = state.cards
    hand = list(dict.fromkeys(state.player.hand))
    key = _Sources(state).key()
    material = cards.material
    cost_counts = cards.cost_counts
    per = cards.persistent
    full = [0] * N_MATERIALS
    for c in hand:
        full[material[c]] += 1
    rank = {c: i for i, c in enumerate(hand)}

    def best_order(members):
        counts = list(full)
        for c in members:
            counts[material[c]] -= 1
        counts_t = tuple(counts)
        total = len(hand) - len(members)
        best = None
        for order in permutations(sorted(members, key=rank.__getitem__)):
            built = tuple(per[c] for c in order[:-1]) + (-1,)
            n = solve_counts(tuple(cost_counts[c] for c in order), built, counts_t, total,
                             key)[0]
            if n is not None and (best is None or n < best[1]):
                best = (order, n)
        return best

    out: dict[frozenset[int], tuple] = {}
    layer = []
    for c in hand:
        got = best_order((c,))
        if got is not None:
            out[frozenset((c,))] = got
            layer.append(frozenset((c,)))
    for _size in range(2, max_size + 1):
        nxt = []
        for members in layer:
            for c in hand:
                if c in members:
                    continue
                grown = members | {c}
                if grown in out:
                    continue
                got = best_order(grown)
                if got is not None:
                    out[grown] = got
                    nxt.append(grown)
        layer = nxt
    return out


# ------------------------------------------------------------------ helpers for bot writers

def spent_cards(state: GameState, payment: Payment) -> list[int]:
    """The hand cards ``payment`` discards (single discards and substitutions), in
    payment order; the free sources spend none."""
    card = state.cards.card
    out = []
    for step in payment:
        kind = type(step)
        if kind is Discard:
            out.append(card(step.card))
        elif kind is Substitute:
            out.extend(card(c) for c in step.cards)
    return out


def auto_payment_cards(state: GameState, card: int, values=None) -> list[int] | None:
    """The hand cards the engine's automatic payment of building ``card`` spends (what
    ``Build(card)`` without a payment discards), or None when it cannot be paid.
    ``values`` as for :func:`cheapest_payment` (None, a function of a card index, or a
    sequence / mapping by card index: what a card is worth keeping)."""
    payment = cheapest_payment(state, card, values)
    return None if payment is None else spent_cards(state, payment)


def build_costs(state: GameState) -> dict[int, int]:
    """The cost in hand cards of every card the player to act can build now (alone):
    ``{card: fewest hand cards}``, in hand order; free sources cost nothing."""
    return {c: cheapest_cards_needed(state, c) for c in affordable_cards(state)}
