"""The public entry points: the cheapest joint payment of a turn's builds, the engine's
auto-pay of one build, what can be built this turn, and helpers for bot writers (the
cards an automatic payment spends, the cost in cards of every affordable build).
"""

from __future__ import annotations

from itertools import permutations
from numbers import Integral
from typing import Any

from ..actions import Payment
from ..cards import CardSet, UnknownCardError
from ..state import GameState
from .arrange import best_arrangement, spend_cards
from .checked import spent_cards
from .counts import (
    min_cards_simple,
    plan_shapes,
    plan_shapes_reduced,
    search_one,
    single_search,
    solve_counts,
    solve_counts_reduced,
)
from .plan import (
    JointPlan,
    Problem,
    as_payment_state,
    fill_single,
    final_top,
    infeasible_error,
)
from .sources import (
    N_MATERIALS,
    VALUE_SCALE,
    Sources,
    cost_items,
    grants_any,
    hand_counts,
)


def _realise(P: Problem, spends) -> JointPlan:
    """The JointPlan of the best arrangement."""
    _score, payments, spent, total = best_arrangement(P, spends)
    plan = JointPlan(list(zip(P.builds, P.sides, strict=True)), payments, len(spent),
                     total / VALUE_SCALE, sorted(spent, key=lambda c: (P.qvalue[c], c)))
    plan.top, plan.usefulness = final_top(P.state, P.builds, payments)
    return plan


def joint_payment(state: GameState, builds, values=None) -> JointPlan:
    """The cheapest joint payment (fast exact path) for ``builds``, an ordered list of
    cards (indices, ids or (card, side) pairs) in the hand of the player to act, at the
    build step. ``values`` says what a hand card is worth keeping: None (default
    :func:`card_keep_value`), a function of a card index, or a sequence / mapping by card
    index. ``state`` may be the view of the seat to act. Raises PaymentInfeasible (naming
    the short Material) or PaymentRequestError."""
    P = Problem(state, builds, values)
    n, spends = P.plan_shapes()
    if n is None:
        raise infeasible_error(P.cards, P.builds, P.hand, spends)
    return _realise(P, spends)


def joint_cost(state: GameState, builds, values=None) -> tuple[int, float] | None:
    """The optimal cost of paying ``builds`` jointly, in this order, without building the
    plan (levels 1 and 2: fewest hand cards, then their least total value), or None when
    nothing pays. The cheap question a search asks."""
    P = Problem(state, builds, values)
    n, spends = P.solve_counts()
    if n is None:
        return None
    return n, min(spend_cards(P, x, s, force)[2] for x, s, force, _shapes in spends) \
        / VALUE_SCALE


def cheapest_payment(state: GameState | Any, card: int | str,
                     values=None) -> Payment | None:
    """A concrete cheapest payment for building ``card`` alone (the 1-build case of the
    joint fast path): fewest hand cards, then the least valuable ones (``values``: None
    for :func:`card_keep_value`, a function of a card index, or a sequence / mapping by
    card index), then the most useful discard top, then the most per-turn sources left.
    None when the card cannot be paid. :func:`auto_payment_cards` lists the cards it
    spends; :func:`build_costs` the cost in cards of every affordable build.

    ``card`` is a card index or a card id (``Build.card``; an unknown id or index raises
    :class:`~solver.rules.cards.UnknownCardError` naming it). It need not be in hand, nor
    the state at its build step: a Depot card is priced as if it were in hand (what
    building it would cost once taken; :func:`auto_payment_cards`), and only playing the
    ``Build`` checks that it may be built now. ``state`` may be the view of the seat to
    act. ``Build(card_id, side, payment)`` is the action that pays so."""
    if type(state) is not GameState:
        state = as_payment_state(state)
    if type(card) is not int:  # (one test on the search's path, which passes indices)
        card = _card_index(state.cards, card)
    player = state.players[state.current]
    src = Sources(state)
    src_key = src.key()
    key = None
    if values is None and not (src.borrow_h or src.borrow_d):
        # everything the answer depends on when nothing is borrowed from another player
        per = state.cards.persistent
        key = (state.cards, card, tuple(player.hand),
               tuple([c for c in player.highway if per[c] >= 0]),
               tuple(state.persistent_uses.items()) if state.persistent_uses else (),
               src_key)
        got = _PAYMENTS.get(key, _MISSING)
        if got is not _MISSING:
            return got
    if not 0 <= card < len(state.cards.highway):  # (checked past the cache: a hot path)
        raise UnknownCardError(f"card: no Highway card has index {card!r} in card set "
                               f"{state.cards.name!r} (0 to {len(state.cards.highway) - 1})")
    P = Problem.__new__(Problem)
    fill_single(P, state, card, values, src)
    low, _U, spends = search_one(P.costs[0], P.hand, src_key)
    got = None if low > P.hand_total else best_arrangement(P, spends)[1][0]
    if key is not None:
        if len(_PAYMENTS) >= _PAYMENTS_MAX:
            _PAYMENTS.clear()
        _PAYMENTS[key] = got
    return got


def _card_index(cards: CardSet, card: Any) -> int:
    """The index of ``card`` given as an id or another integer type; a bool (True would
    be card 1), a float or anything else is refused, naming ``card``."""
    if isinstance(card, str):
        return cards.card(card)
    if isinstance(card, Integral) and not isinstance(card, bool):
        return int(card)
    raise UnknownCardError(f"card: must be a Highway card id or an index 0 to "
                           f"{len(cards.highway) - 1}, got {card!r} ({type(card).__name__})")


def clear_caches() -> None:
    """Forget every cached payment answer (the count searches and the cheapest single
    payments): for benchmarks that measure a cold start, and tests."""
    _PAYMENTS.clear()
    for cached in (solve_counts, plan_shapes, solve_counts_reduced, plan_shapes_reduced,
                   single_search, search_one):
        cached.cache_clear()


_PAYMENTS: dict = {}  # cheapest_payment answers, nothing borrowed (values None)


_PAYMENTS_MAX = 30_000  # entries (cleared when full): a few MB


_MISSING = object()


def affordable_cards(state: GameState | Any) -> list[int]:
    """Distinct hand cards of the player to act that can be paid for right now. ``state``
    may be the view of the seat to act."""
    try:
        player = state.players[state.current]
    except AttributeError:  # a view (caught, not checked: the search's path)
        state = as_payment_state(state)
        player = state.players[state.current]
    cards = state.cards
    hand = player.hand
    material = cards.material
    items = cost_items(cards)
    counts = [0] * N_MATERIALS
    for c in hand:
        counts[material[c]] += 1
    total = len(hand) - 1
    key = None
    free = 0
    if player.landmarks and grants_any(cards, player.landmarks):
        # Landmark sources: the count search unless they are all spent
        key = Sources(state).key()
        base, recycle = key[0], key[7]
        simple = not (key[2] or key[3] or key[5])
        # slots the per-turn sources beyond the Persistent ones could cover at most
        free = key[2] + key[3] + key[5] + (recycle != -2)
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
        elif n - 3 * free <= total \
                and search_one(cards.cost_counts[c], tuple(counts), key)[0] <= total:
            # (a slot covered by a free source saves at most the 3 cards of a
            # substitution: beyond that, no search can make the card affordable)
            out.append(c)
        counts[m0] += 1
    return out


def cheapest_cards_needed(state: GameState, card: int, sources_key: tuple | None = None
                          ) -> int | None:
    """Fewest hand cards that pay for ``card`` alone, or None if it cannot be paid.
    ``sources_key``: ``Sources(state).key()``, when the caller asks about several cards
    of one state and has computed it once."""
    counts, total = hand_counts(state.cards, state.player.hand, card)
    cost = state.cards.cost_counts[card]
    if sources_key is None:
        sources_key = Sources(state).key()
    low = search_one(cost, counts, sources_key)[0]
    return None if low > total else low


def affordable_sets(state: GameState | Any, max_size: int = 3
                    ) -> dict[frozenset[int], tuple]:
    """Every set of up to ``max_size`` hand cards that the player to act can build this
    turn, with its best order: ``{frozenset(cards): (order, cards_spent)}``, the order
    spending the fewest hand cards (ties: the first in hand order). Sets are found by
    growing affordable ones (a prefix of a payable order is payable). ``state`` may be
    the view of the seat to act."""
    state = as_payment_state(state)
    cards = state.cards
    hand = list(dict.fromkeys(state.player.hand))
    key = Sources(state).key()
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


def auto_payment_cards(state: GameState | Any, card: int | str,
                       values=None) -> list[int] | None:
    """The hand cards the engine's automatic payment of building ``card`` spends (what
    ``Build(card)`` without a payment discards), or None when it cannot be paid.
    ``card`` need not be in hand: a Depot card is priced as if it were (what building it
    would cost once taken, the card itself paying nothing). ``state`` may be the view of
    the seat to act (what it pays reads only what it sees).
    ``card`` is a card index or a card id; ``values`` as for :func:`cheapest_payment`
    (None, a function of a card index, or a sequence / mapping by card index: what a card
    is worth keeping)."""
    state = as_payment_state(state)
    payment = cheapest_payment(state, card, values)
    return None if payment is None else spent_cards(state, payment)


def build_costs(state: GameState | Any) -> dict[int, int]:
    """The cost in hand cards of every card the player to act can build now (alone):
    ``{card: fewest hand cards}``, in hand order; free sources cost nothing. ``state`` may
    be the view of the seat to act."""
    state = as_payment_state(state)
    return {c: cheapest_cards_needed(state, c) for c in affordable_cards(state)}
