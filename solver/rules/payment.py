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


@lru_cache(maxsize=16)
def _card_ids(cards: CardSet) -> tuple[str, ...]:
    return tuple(c.id for c in cards.highway)


@lru_cache(maxsize=16)
def _default_qvalues(cards: CardSet) -> tuple[int, ...]:
    """card_keep_value of every card, quantised (see VALUE_SCALE)."""
    return tuple(round(card_keep_value(cards, c) * VALUE_SCALE)
                 for c in range(len(cards.highway)))


def _qvalues(cards: CardSet, pool: list[int], values) -> dict[int, int]:
    if values is None:
        dq = _default_qvalues(cards)
        return {c: dq[c] for c in pool}
    return {c: round(float(values[c]) * VALUE_SCALE) for c in pool}


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


# ------------------------------------------------------------------ joint cheapest payment
#
# The fast exact path. A request is an ordered list of builds; the answer is the cheapest
# joint payment under the lexicographic objective of docs/format.md ("Payments"):
#   1. fewest hand cards spent;
#   2. least total value of the spent cards (values quantised to 1e-6, see VALUE_SCALE);
#   3. the most useful final top of the discard pile: the number of cost slots of its
#      Material among the hand cards left after the builds (next turn's Recycling).
# Levels 1 and 2 are exact. Level 3 is exact for the spends kept by the count search and
# the single-card allocations tried (all of them for up to 3 builds); CP-SAT
# (solver.payment_ilp) is exact on all three.
#
# How: hand cards are interchangeable within a Material except for their value, so the
# search runs over counts. A dynamic programme over the builds, in order, tries every
# split of each build's cost between the free sources (base Persistent uses, extra uses,
# borrowed Materials, Recycling) and "uncovered"; its state is the remaining per-turn
# sources, the Recycling status and the uncovered Materials so far (U). Uncovered slots are
# paid by single discards while the hand has that Material, else by substitutions
# (min(U, h) singles + 3 * the rest); so levels 1 and 2 depend only on (singles per
# Material, substitutions, a Material a substitution must contain), and the cheapest
# cards for those are taken greedily (the cheapest singles of each Material, then the
# cheapest remaining cards). The count search is cached on a key without card identities.

VALUE_SCALE = 1_000_000  # values are compared after rounding to 1e-6
_PATHS_KEPT = 16  # alternative source plans kept per spend, for level 3


class PaymentInfeasible(PaymentError):
    """The builds cannot all be paid this turn. ``short`` names the Material(s) the hand
    lacks (after the free sources, in the plan that comes closest)."""

    def __init__(self, message: str, short: tuple[str, ...] = ()):
        super().__init__(message)
        self.short = short


class PaymentRequestError(PaymentError):
    """A malformed request: wrong step of the turn, a card not in hand, a card twice."""


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
        if player.landmarks:
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


def _spend_counts(U, hand):
    """(singles per Material, substitutions, cards spent) for uncovered Materials U."""
    x = tuple(u if u < hv else hv for u, hv in zip(U, hand, strict=False))
    s = sum(U) - sum(x)
    return x, s, sum(x) + 3 * s


@lru_cache(maxsize=200_000)
def solve_counts(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """The count search for builds with cost vectors ``costs`` (in order; ``built``: the
    Persistent Material each gives to the later ones, or -1), a pool of ``hand_total``
    cards with ``hand`` per Material, and free sources ``src`` (``_Sources.key()``).
    The key is first reduced to what can matter (Materials no cost needs, more copies
    than the costs hold), so that equivalent positions share the cache."""
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
    return _solve_counts(
        costs, tuple([g if g >= 0 and need[g] else -1 for g in built]),
        tuple([(h if h <= n else n + 1) if n else 0 for h, n in zip(hand, need, strict=True)]),
        hand_total if hand_total < 3 * slots else 3 * slots, key)


@lru_cache(maxsize=200_000)
def _solve_counts(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """The count search (see the comment above). Returns ``(cards, spends)`` where
    ``spends`` lists, for every distinct (singles per Material, substitutions, Material a
    substitution must hold or -1) reaching the fewest ``cards``, up to _PATHS_KEPT source
    plans (per build: one record per cost Material). When nothing pays, returns
    ``(None, (cards the closest plan would need, its uncovered Materials))``."""
    base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = src
    rec_open = recycle != -2
    # state: (base left, used mask, extra, borrow_h, borrow_d, recycle status, any
    # discard yet, Materials uncovered in the last build that discarded, U)
    # recycle status: 0 open, 1 settled (used and valid, or never), (m, S) needs a
    # substitution holding m in a build whose uncovered Materials S include a
    # substituted one.
    states = {(base0, used0, extra0, bh0, bd0, 0 if rec_open else 1, False, 0, -1,
               (0,) * N_MATERIALS): ()}
    last = len(costs) - 1
    for i, cost in enumerate(costs):
        mats = [(m, cost[m]) for m in range(N_MATERIALS) if cost[m]]
        new: dict = {}
        gain = built[i] if i < last else -1
        for (bav, umask, e_left, h_left, d_left, rst, anyd, lsupp, edge, U), path in \
                states.items():
            options = _build_options(mats, bav, umask, e_left, h_left, d_left, rst == 0,
                                     bh_mask, bd_mask, hand, recycle)
            for recs, e2, h2, d2, r_m in options:
                bav2 = list(bav)
                umask2 = umask
                U2 = list(U)
                supp = 0
                for m, b, _e, _hh, _dd, _r, u in recs:
                    if b:
                        bav2[m] -= b
                        umask2 |= 1 << m
                    if u:
                        U2[m] += u
                        supp |= 1 << m
                if gain >= 0:
                    bav2[gain] += 1
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
                key = (tuple(bav2), umask2, e2, h2, d2, rst2, anyd or bool(supp), supp or lsupp,
                       edge2, tuple(U2))
                if key not in new:
                    new[key] = path + (recs,)
        states = new
    best_n = None
    closest = None
    found: dict = {}
    for (bav, _um, e_left, h_left, d_left, rst, _a, lsupp, edge, U), path in states.items():
        x, s, n = _spend_counts(U, hand)
        force = -1
        if type(rst) is tuple:
            m, need_sub = rst
            if not (hand[m] > U[m] and any(need_sub >> q & 1 and U[q] > hand[q]
                                           for q in range(N_MATERIALS))):
                continue
            force = m
        if n > hand_total:
            if closest is None or n < closest[0]:
                closest = (n, U)
            continue
        if best_n is not None and n > best_n:
            continue
        if best_n is None or n < best_n:
            best_n = n
            found = {}
        spare = (rst == 0, e_left, h_left, d_left, sum(bav))
        # per spend, the best-spared path of each level-3 signature: what the last
        # discarding build leaves uncovered, and a Recycling that pins the top
        by_sig = found.setdefault((x, s, force), {})
        sig = (lsupp, edge)
        if sig not in by_sig or spare > by_sig[sig][0]:
            by_sig[sig] = (spare, path)
    if best_n is None:
        return None, closest
    spends = []
    for (x, s, force), by_sig in found.items():
        paths = sorted(by_sig.values(), key=lambda p: p[0], reverse=True)
        spends.append((x, s, force, tuple(p for _sp, p in paths[:_PATHS_KEPT])))
    return best_n, tuple(spends)


# ------------------------------------------------------------------ the problem of a state

class _Problem:
    """One request: the state, the builds in order, the hand cards that may be spent (the
    pool: the hand without the cards being built) and their quantised values."""

    __slots__ = ("state", "cards", "builds", "sides", "pool", "hand", "hand_total", "src",
                 "qvalue", "costs", "built")

    def __init__(self, state: GameState, builds, values=None, sources: _Sources | None = None):
        cards = state.cards
        cards_, sides = _normalise_builds(state, builds)
        self.state = state
        self.cards = cards
        self.builds = cards_
        self.sides = sides
        building = set(cards_)
        self.pool = [c for c in state.player.hand if c not in building]
        counts = [0] * N_MATERIALS
        material = cards.material
        for c in self.pool:
            counts[material[c]] += 1
        self.hand = tuple(counts)
        self.hand_total = len(self.pool)
        self.src = sources or _Sources(state)
        self.qvalue = _qvalues(cards, self.pool, values)
        self.costs = tuple(cards.cost_counts[c] for c in cards_)
        per = cards.persistent
        self.built = tuple(per[c] for c in cards_[:-1]) + (-1,)

    def solve_counts(self):
        return solve_counts(self.costs, self.built, self.hand, self.hand_total,
                            self.src.key())


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


def _spend_cards(P: _Problem, x, s, force) -> tuple[list[list[int]], list[int], int]:
    """The cheapest cards for a spend: singles by Material, substitution cards, total
    quantised value."""
    material = P.cards.material
    q = P.qvalue
    order = sorted(P.pool, key=q.__getitem__)  # stable: equal values keep hand order
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
    if s:
        if force >= 0:
            forced = next(c for c in rest if material[c] == force)
            rest.remove(forced)
            subs = [forced] + rest[:3 * s - 1]
        else:
            subs = rest[:3 * s]
    total = sum(q[c] for g in singles for c in g) + sum(q[c] for c in subs)
    return singles, subs, total


def _free_steps(P: _Problem, path) -> list[list[PaymentStep]]:
    """Concrete free steps (Persistent, borrowed) per build, for a source plan."""
    if not any(rec[1] or rec[2] or rec[3] or rec[4] for recs in path for rec in recs):
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


def _best_arrangement(P: _Problem, spends):
    """The best arranged plan among the cheapest spends: level 2 by the values, level 3 by
    trying the kept source plans and single allocations. Returns (usefulness, payments,
    spent cards, quantised value)."""
    if len(spends) == 1:
        x, s, force, paths = spends[0]
        scored = [(*_spend_cards(P, x, s, force), x, paths)]
    else:
        scored = []
        for x, s, force, paths in spends:
            scored.append((*_spend_cards(P, x, s, force), x, paths))
        low = min(t[2] for t in scored)
        scored = [t for t in scored if t[2] == low]
    material = P.cards.material
    best = None
    for singles_by_m, subs, total, x, paths in scored:
        spent = [c for g in singles_by_m for c in g] + subs
        if spent:
            useful = _useful_vector(P, spent)
            bound = max(useful[material[c]] for c in spent)
        else:
            useful, bound = [0] * N_MATERIALS, 0
        if len(paths) > 1:
            ranked = sorted(((_path_bound(path, x, subs, useful, material), path)
                             for path in paths), key=lambda bp: -bp[0])
        else:
            ranked = [(bound, paths[0])]
        for path_bound, path in ranked:
            if best is not None and best[0] >= path_bound:
                break
            free = _free_steps(P, path)
            rec = _rec_of(path)
            if len(path) == 1:
                group_mats = []
                for rec_ in path[0]:
                    if rec_[6] > x[rec_[0]]:
                        group_mats += [rec_[0]] * (rec_[6] - x[rec_[0]])
                allocs = [([[c for g in singles_by_m for c in g]], [group_mats])]
            else:
                allocs = _allocations(path, singles_by_m)
            for singles, group_mats in allocs:
                if rec is None:
                    got = _arrange_plain(P, singles, group_mats, subs, useful, free)
                elif rec[1] == P.src.recycle and not any(
                        singles[i] or group_mats[i] for i in range(rec[0])):
                    # the top at the turn's start is recycled first: no constraint left
                    got = _arrange_plain(P, singles, group_mats, subs, useful, free)
                    k = rec[0]
                    steps = got[1][k]
                    at = len(free[k])
                    got[1][k] = steps[:at] + (Recycle(),) + steps[at:]
                else:
                    got = _arrange(P, singles, group_mats, subs, rec, useful, free)
                if got is not None and (best is None or got[0] > best[0]):
                    best = (got[0], got[1], spent, total)
                    if got[0] >= bound:
                        return best
    if best is None:  # pragma: no cover - the count search only keeps arrangeable plans
        raise AssertionError("no arrangement of a counted plan")
    return best


def _path_bound(path, x, subs, useful, material) -> int:
    """An upper bound of level 3 for a source plan: the best Material that can end on top
    (a single or a substitution card of the last build that discards)."""
    last = -1
    for i in range(len(path) - 1, -1, -1):
        if any(rec[6] for rec in path[i]):
            last = i
            break
    if last < 0:
        return 0
    total = [0] * N_MATERIALS
    for recs in path:
        for rec in recs:
            total[rec[0]] += rec[6]
    best = -1
    sub_slot = False
    for rec in path[last]:
        m, u = rec[0], rec[6]
        if u:
            if x[m] and useful[m] > best:
                best = useful[m]
            if total[m] > x[m]:
                sub_slot = True
    if sub_slot:
        for c in subs:
            if useful[material[c]] > best:
                best = useful[material[c]]
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
    build step. ``values[c]`` is what a hand card is worth keeping (default
    :func:`card_keep_value`). Raises PaymentInfeasible (naming the short Material) or
    PaymentRequestError."""
    P = _Problem(state, builds, values)
    n, spends = P.solve_counts()
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
    return n, min(_spend_cards(P, x, s, force)[2] for x, s, force, _paths in spends) \
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
    joint fast path): fewest hand cards, then the least valuable ones (``values[c]``,
    default :func:`card_keep_value`), then the most useful discard top, then the most
    per-turn sources left. None when the card cannot be paid."""
    P = _Problem.__new__(_Problem)
    _fill_single(P, state, card, values)
    n, spends = P.solve_counts()
    if n is None:
        return None
    return _best_arrangement(P, spends)[1][0]


def _fill_single(P: _Problem, state: GameState, card: int, values) -> None:
    """_Problem for one build, without the request checks (the engine's hot path)."""
    cards = state.cards
    P.state = state
    P.cards = cards
    P.builds = [card]
    P.sides = ["L"]
    P.pool = [c for c in state.player.hand if c != card]
    counts = [0] * N_MATERIALS
    material = cards.material
    for c in P.pool:
        counts[material[c]] += 1
    P.hand = tuple(counts)
    P.hand_total = len(P.pool)
    P.src = _Sources(state)
    P.qvalue = _qvalues(cards, P.pool, values)
    P.costs = (cards.cost_counts[card],)
    P.built = (-1,)


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
    hand = state.player.hand
    key = _Sources(state).key()
    material = cards.material
    cost_counts = cards.cost_counts
    counts = [0] * N_MATERIALS
    for c in hand:
        counts[material[c]] += 1
    total = len(hand) - 1
    out = []
    for c in hand:
        m = material[c]
        counts[m] -= 1
        if solve_counts((cost_counts[c],), (-1,), tuple(counts), total, key)[0] is not None:
            out.append(c)
        counts[m] += 1
    return out


def cheapest_cards_needed(state: GameState, card: int) -> int | None:
    """Fewest hand cards that pay for ``card`` alone, or None if it cannot be paid."""
    counts, total = _hand_counts(state.cards, state.player.hand, card)
    return solve_counts((state.cards.cost_counts[card],), (-1,), counts, total,
                        _Sources(state).key())[0]


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
