"""One payment request (:class:`Problem`: the state, the builds in order, the pool of
hand cards that may be spent and their values), its answer (:class:`JointPlan`) and how
plans are explained to people.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..actions import (
    BorrowHighway,
    Build,
    Discard,
    Payment,
    Persistent,
    Recycle,
    Substitute,
)
from ..cards import CardSet, UnknownCardError
from ..constants import MATERIALS
from ..state import GameState, Phase, known_state
from ..wording import got_type
from .counts import plan_shapes, solve_counts
from .sources import (
    N_MATERIALS,
    VALUE_SCALE,
    PaymentInfeasible,
    PaymentRequestError,
    Sources,
    card_ids,
    material_counts,
    qvalues,
    ties,
)


class Problem:
    """One request: the state, the builds in order, the hand cards that may be spent (the
    pool: the hand without the cards being built) and their quantised values."""

    __slots__ = ("state", "cards", "builds", "sides", "pool", "hand", "hand_total", "src",
                 "qvalue", "tied", "costs", "built")

    def __init__(self, state: GameState, builds, values=None, sources: Sources | None = None):
        if type(state) is not GameState:
            state = as_payment_state(state)
        cards = state.cards
        cards_, sides = _normalise_builds(state, builds)
        self.state = state
        self.cards = cards
        self.builds = cards_
        self.sides = sides
        building = set(cards_)
        self.pool = [c for c in state.player.hand if c not in building]
        self.hand = material_counts(cards, self.pool)
        self.hand_total = len(self.pool)
        self.src = sources or Sources(state)
        self.qvalue = qvalues(cards, self.pool, values)
        self.tied = values is not None and ties(cards, self.pool, self.qvalue)
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


def as_payment_state(state) -> GameState:
    """A full state as is; the view of the seat to act as the state of what it shows
    (:func:`~solver.rules.state.known_state`: a payment reads only the payer's cards and
    public ones). Raises PaymentRequestError for another seat's view or another type."""
    if type(state) is GameState:
        return state
    if not all(hasattr(state, name) for name in ("seat", "current", "me", "others")):
        # (a view's fields: solver.rules.views imports the payments, not the other way)
        raise PaymentRequestError(f"state: must be a GameState or a PlayerView, got "
                                  f"{type(state).__name__}")
    if state.seat != state.current:
        raise PaymentRequestError(f"the view is seat {state.seat}'s but seat {state.current} "
                                  "is to act; only the seat to act pays")
    return known_state(state)


def _normalise_builds(state: GameState, builds) -> tuple[list[int], list[str]]:
    """Card indices and sides of a request given as card indices, ids or (card, side)."""
    if isinstance(builds, (str, bytes, bytearray)) or not isinstance(builds, Iterable):
        # (a string was read letter by letter: "unknown Highway card 'H'")
        example = [builds] if isinstance(builds, str) and builds.strip() else ["H11"]
        given = f" {builds!r}" if isinstance(builds, str) else ""
        raise PaymentRequestError(f"builds: must be a list of card ids such as {example!r}"
                                  f"{got_type(builds)}{given}")
    cards = state.cards
    if state.phase != Phase.BUILD:
        where = ("the game is over" if state.phase == Phase.OVER else
                 f"the position is at the {state.phase.name.lower()} step")
        raise PaymentRequestError(f"builds: {where}; payments are made at the build step")
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

    def to_json(self, state: GameState, viewer: int | None = None) -> dict:
        """A plan a person can read: per build, which card or source pays which Material
        (``viewer``: see :func:`explain_payments`)."""
        return explain_payments(state, self.builds, self.payments, viewer) | {
            "solver": self.solver,
            "cards_spent": self.cards_spent,
            "value": self.value,
            "spent": [state.cards.highway[c].id for c in self.spent],
            "top": None if self.top is None else state.cards.highway[self.top].id,
            "usefulness": self.usefulness,
        }


def explain_payments(state: GameState, builds, payments, viewer: int | None = None) -> dict:
    """Replay ``payments`` for ``builds`` (list of (card, side)) step by step and say what
    each step supplies; the actions in notation too. With ``viewer`` (``state`` is then a
    sample behind that seat's view), a borrowed discard top whose front the viewer has
    not seen is given by its Material only (``"cards": []``): naming the sampled card
    would show a guess as a fact, and a hidden card's identity is not the viewer's."""
    cards = state.cards
    ids = card_ids(cards)
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
                owner = state.players[step.seat]
                top = owner.discard[-1]
                seen = viewer is None or viewer == step.seat or top in owner.known_discard
                rows.append({"material": MATERIALS[material[top]], "source": "borrow_discard",
                             "seat": step.seat, "cards": [ids[top]] if seen else []})
        action = Build(ids[card], side, payment)
        out.append({"card": ids[card], "side": side,
                    "cost": [MATERIALS[m] for m in cards.cost[card]],
                    "pay": rows, "action": action.notation()})
    return {"builds": out}


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


def fill_single(P: Problem, state: GameState, card: int, values,
                 src: Sources | None = None) -> None:
    """Problem for one build, without the request checks (the engine's hot path)."""
    cards = state.cards
    pool = [c for c in state.players[state.current].hand if c != card]
    P.state = state
    P.cards = cards
    P.builds = [card]
    P.sides = ["L"]
    P.pool = pool
    P.hand = material_counts(cards, pool)
    P.hand_total = len(pool)
    P.src = src or Sources(state)
    P.qvalue = qvalue = qvalues(cards, pool, values)
    P.tied = values is not None and ties(cards, pool, qvalue)
    P.costs = (cards.cost_counts[card],)
    P.built = (-1,)
