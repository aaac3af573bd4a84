"""Paying for a build: checking any concrete payment, and the cheapest one for a single
build.

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

The joint optimiser over several builds lives in :mod:`solver.payment_ilp`.
"""

from __future__ import annotations

from functools import lru_cache

from .actions import (
    BorrowDiscard,
    BorrowHighway,
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
from .state import GameState, PlayerState

N_MATERIALS = len(MATERIALS)


class PaymentError(IllegalActionError):
    """A payment that does not pay the cost by the rules."""


def allowances(cards: CardSet, player: PlayerState) -> dict[str, int]:
    """Per-turn uses granted by the player's Landmarks, by payment resource."""
    out = dict.fromkeys(PAYMENT_RESOURCES, 0)
    for lm, _card in player.landmarks:
        ability = cards.landmarks[lm].ability
        spec = REGISTRY[ability.kind]
        if spec.category == "payment":
            resource, uses = spec.fn(ability.args)
            out[resource] += uses
    return out


def card_keep_value(cards: CardSet, card: int) -> float:
    """How much a hand card is worth keeping, used to choose which cards to spend.

    Higher-mile cards score more when built, and 1-Mile cards are worth more than their
    miles because of their Persistent Material. Ties break on card order.
    """
    miles = cards.miles[card]
    return (2.5 if miles == 1 else float(miles)) + card * 1e-6


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


# ------------------------------------------------------------------ cheapest single build

class _Sources:
    """The free Material sources of the player to act, summarised by material."""

    __slots__ = ("base", "extra", "extra_mask", "borrow_h", "borrow_h_mask", "borrow_d",
                 "borrow_d_mask", "recycle")

    def __init__(self, state: GameState):
        cards = state.cards
        player = state.player
        persistent = cards.persistent
        base = [0] * N_MATERIALS
        used_mask = 0
        for c in player.highway:
            m = persistent[c]
            if m >= 0:
                if state.persistent_uses.get(c, 0):
                    used_mask |= 1 << m
                else:
                    base[m] += 1
        allowed = allowances(cards, player) if player.landmarks else None
        uses = state.resource_uses
        self.base = tuple(base)
        self.extra = self.borrow_h = self.borrow_d = 0
        self.extra_mask = self.borrow_h_mask = self.borrow_d_mask = 0
        if allowed:
            self.extra = allowed["persistent_extra_use"] - uses.get("persistent_extra_use", 0)
            self.extra_mask = used_mask
            self.borrow_h = allowed["borrow_highway"] - uses.get("borrow_highway", 0)
            self.borrow_d = allowed["borrow_discard"] - uses.get("borrow_discard", 0)
            for i, other in enumerate(state.players):
                if i == state.current:
                    continue
                for c in other.highway:
                    if persistent[c] >= 0:
                        self.borrow_h_mask |= 1 << persistent[c]
                if other.discard:
                    self.borrow_d_mask |= 1 << cards.material[other.discard[-1]]
        if state.recycle_used:
            self.recycle = -2
        elif player.discard:
            self.recycle = cards.material[player.discard[-1]]
        else:
            self.recycle = -1  # available, but nothing on top yet

    def key(self) -> tuple:
        return (self.base, self.extra, self.extra_mask, self.borrow_h, self.borrow_h_mask,
                self.borrow_d, self.borrow_d_mask, self.recycle)


# slot sources, in tie-break order: free sources first, then cards
_FREE = ("P", "X", "H", "B", "R")


@lru_cache(maxsize=200_000)
def _cheapest_plan(cost: tuple[int, ...], hand_counts: tuple[int, ...], hand_total: int,
                   sources: tuple) -> tuple[int, tuple[str, ...]] | None:
    """Fewest hand cards that pay ``cost`` (a tuple of materials) and, per slot, the
    kind of source: P base Persistent, X extra Persistent use, H/B borrowed, R Recycling,
    D discard a card of that material, S substitution. None when unaffordable."""
    base, extra, extra_mask, borrow_h, bh_mask, borrow_d, bd_mask, recycle = sources
    best: tuple[int, int, tuple[str, ...]] | None = None
    n = len(cost)
    plan: list[str] = [""] * n

    def leaf():
        nonlocal best
        p = [0] * N_MATERIALS
        d = [0] * N_MATERIALS
        x = h = b = r = s = 0
        r_material = -1
        for m, kind in zip(cost, plan):
            if kind == "P":
                p[m] += 1
            elif kind == "D":
                d[m] += 1
            elif kind == "X":
                if not (extra_mask >> m & 1 or p[m] or any(
                        k == "P" and mm == m for mm, k in zip(cost, plan))):
                    return
                x += 1
            elif kind == "H":
                h += 1
            elif kind == "B":
                b += 1
            elif kind == "R":
                r += 1
                r_material = m
            else:
                s += 1
        if x > extra or h > borrow_h or b > borrow_d or r > 1:
            return
        if any(p[m] > base[m] or d[m] > hand_counts[m] for m in range(N_MATERIALS)):
            return
        spent_single = sum(d)
        if SUBSTITUTION_CARDS * s > hand_total - spent_single:
            return
        if r:
            if recycle == -2:
                return
            if r_material != recycle and not d[r_material]:
                # only a substitution card of that material can put it on top
                if not (s and hand_counts[r_material] > d[r_material]):
                    return
        cards_spent = spent_single + SUBSTITUTION_CARDS * s
        free_used = sum(1 for k in plan if k in _FREE)
        candidate = (cards_spent, free_used, tuple(plan))
        if best is None or candidate[:2] < best[:2]:
            best = candidate

    def dfs(i: int) -> None:
        if i == n:
            leaf()
            return
        m = cost[i]
        bit = 1 << m
        options = []
        if base[m]:
            options.append("P")
        if extra and (extra_mask & bit or base[m]):
            options.append("X")
        if borrow_h and bh_mask & bit:
            options.append("H")
        if borrow_d and bd_mask & bit:
            options.append("B")
        if recycle != -2:
            options.append("R")
        if hand_counts[m]:
            options.append("D")
        if hand_total >= SUBSTITUTION_CARDS:
            options.append("S")
        for kind in options:
            plan[i] = kind
            dfs(i + 1)

    dfs(0)
    return None if best is None else (best[0], best[2])


def _hand_counts(cards: CardSet, hand: list[int], skip: int) -> tuple[tuple[int, ...], int]:
    counts = [0] * N_MATERIALS
    material = cards.material
    for c in hand:
        counts[material[c]] += 1
    counts[material[skip]] -= 1
    return tuple(counts), len(hand) - 1


def affordable_cards(state: GameState) -> list[int]:
    """Distinct hand cards of the player to act that can be paid for right now."""
    cards = state.cards
    player = state.player
    key = _Sources(state).key()
    out = []
    seen = set()
    for c in player.hand:
        if c in seen:
            continue
        seen.add(c)
        counts, total = _hand_counts(cards, player.hand, c)
        if _cheapest_plan(cards.cost[c], counts, total, key) is not None:
            out.append(c)
    return out


def cheapest_cards_needed(state: GameState, card: int) -> int | None:
    """Fewest hand cards that pay for ``card`` alone, or None if it cannot be paid."""
    counts, total = _hand_counts(state.cards, state.player.hand, card)
    plan = _cheapest_plan(state.cards.cost[card], counts, total, _Sources(state).key())
    return None if plan is None else plan[0]


def cheapest_payment(state: GameState, card: int, values=None) -> Payment | None:
    """A concrete cheapest payment for building ``card`` alone: fewest hand cards, then
    the least valuable ones (``values[c]``, default :func:`card_keep_value`), then the
    fewest per-turn sources. None when the card cannot be paid."""
    cards = state.cards
    player = state.player
    counts, total = _hand_counts(cards, player.hand, card)
    sources = _Sources(state)
    found = _cheapest_plan(cards.cost[card], counts, total, sources.key())
    if found is None:
        return None
    _, plan = found
    value = values.__getitem__ if values is not None else (lambda c: card_keep_value(cards, c))
    hand = sorted((c for c in player.hand if c != card), key=value)
    ids = [c.id for c in cards.highway]
    free_steps: list[PaymentStep] = []
    singles: list[int] = []
    subs: list[int] = []  # materials chosen by substitutions
    r_material = -1
    base_taken: set[int] = set()
    persistent = cards.persistent
    for m, kind in zip(cards.cost[card], plan):
        if kind == "P":
            c = next(c for c in player.highway if persistent[c] == m and c not in base_taken
                     and not state.persistent_uses.get(c, 0))
            base_taken.add(c)
            free_steps.append(Persistent(ids[c]))
        elif kind == "D":
            c = next(c for c in hand if cards.material[c] == m and c not in singles)
            singles.append(c)
        elif kind == "S":
            subs.append(m)
        elif kind == "R":
            r_material = m
        elif kind == "H":
            seat, c = next((i, c) for i, other in enumerate(state.players)
                           if i != state.current for c in other.highway if persistent[c] == m)
            free_steps.append(BorrowHighway(seat, ids[c]))
        elif kind == "B":
            seat = next(i for i, other in enumerate(state.players) if i != state.current
                        and other.discard and cards.material[other.discard[-1]] == m)
            free_steps.append(BorrowDiscard(seat))
    for m, kind in zip(cards.cost[card], plan):  # extra uses after the base uses
        if kind == "X":
            c = next(c for c in player.highway if persistent[c] == m
                     and (state.persistent_uses.get(c, 0) or c in base_taken))
            free_steps.append(Persistent(ids[c]))
    rest = [c for c in hand if c not in singles]
    groups = []
    for m in subs:
        group, rest = rest[:SUBSTITUTION_CARDS], rest[SUBSTITUTION_CARDS:]
        groups.append((group, m))
    discards = singles + [c for g, _ in groups for c in g]
    steps: list[PaymentStep] = list(free_steps)
    recycle_first = r_material >= 0 and r_material == sources.recycle
    if recycle_first:
        steps.append(Recycle())
    top_card = -1
    if r_material >= 0 and not recycle_first:
        top_card = next((c for c in reversed(discards) if cards.material[c] == r_material), -1)
        if top_card < 0:  # put a card of that material into a substitution group
            swap_in = next(c for c in rest if cards.material[c] == r_material)
            group, m = groups[-1]
            groups[-1] = (group[:-1] + [swap_in], m)
            top_card = swap_in
    ordered_singles = [c for c in singles if c != top_card]
    for c in ordered_singles:
        steps.append(Discard(ids[c]))
    for group, m in groups:
        if top_card in group:
            continue
        steps.append(Substitute(tuple(ids[c] for c in group), MATERIALS[m]))
    if top_card >= 0:
        for group, m in groups:
            if top_card in group:
                order = [c for c in group if c != top_card] + [top_card]
                steps.append(Substitute(tuple(ids[c] for c in order), MATERIALS[m]))
        if top_card in singles:
            steps.append(Discard(ids[top_card]))
        steps.append(Recycle())
    return tuple(steps)
