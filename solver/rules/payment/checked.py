"""Concrete payments: checking one step by step and carrying it out
(:func:`apply_payment`), carrying out one the engine found itself without the checks
(:func:`carry_out_payment`), and the hand cards a payment spends (:func:`spent_cards`).
"""

from __future__ import annotations

from ..actions import (
    BorrowDiscard,
    BorrowHighway,
    Discard,
    Payment,
    Persistent,
    Recycle,
    Substitute,
)
from ..cards import CardSet, UnknownCardError
from ..constants import MATERIALS, SUBSTITUTION_CARDS
from ..state import GameState, PlayerState
from .sources import N_MATERIALS, PaymentError, allowances


def _hand_index(cards: CardSet, card_id: str, hand: list[int], what: str,
                building: int, held: list[int]) -> int:
    """The index of a card a payment step spends, in ``hand`` (the cards still unspent);
    ``building`` is the card being built, ``held`` the hand before the payment."""
    try:
        c = cards.card(card_id)
    except UnknownCardError as err:
        raise PaymentError(f"{what}: {err}") from None
    if c not in hand:
        if c == building:
            raise PaymentError(f"{what}: {card_id} is the card being built; it cannot pay "
                               "for itself")
        if c in held:
            raise PaymentError(f"{what}: {card_id} is already spent by an earlier step of "
                               "this payment")
        raise PaymentError(f"{what}: {card_id} is not in your hand")
    return c


# the per-turn uses a Landmark's ability allows, in the rules' words (for errors)
RESOURCE_WORDS = {
    "persistent_extra_use": "a second use of a Persistent Material this turn",
    "borrow_highway": "borrowing a Persistent Material from another player's Highway",
    "borrow_discard": "borrowing the top of another player's discard pile",
}


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
            have = "no Landmark of yours allows it" if not allowed[resource] else \
                f"all {allowed[resource]} use(s) this turn are spent"
            raise PaymentError(f"{what}: {RESOURCE_WORDS[resource]} is not possible ({have})")
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
            c = _hand_index(cards, step.card, hand, what, card, player.hand)
            hand.remove(c)
            discard.append(c)
            supplied = material[c]
        elif kind is Substitute:
            spent = [_hand_index(cards, cid, hand, what, card, player.hand)
                     for cid in step.cards]
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
        if kind is Discard or kind is Substitute:
            for cid in (step.card,) if kind is Discard else step.cards:
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
