"""Actions: small value types with a text notation that round-trips.

Notation (one action per line; card ids as printed in the card set):

=======================================  =============================================
``take H17``                             take Highway card H17 from the Depot
``take deck``                            take the top card of the Highway deck
``build H12 L``                          build H12 at the left end, paid the cheapest way
``build H12 R pay H03 rec per:H05``      build H12 at the right end with this payment
``claim L07 H12``                        claim Landmark L07, placed above Highway card H12
``end``                                  end the turn (no more builds, no claim)
=======================================  =============================================

The verbs, the side and ``deck`` are read in any case (``TAKE DECK``, ``build H12 l``;
``Build("H12", "l")`` is ``Build("H12", "L")``); card ids and payment steps as written.

Payment steps, in the order they happen (each supplies one Material):

- ``H03``: discard H03 from hand for the Material on its back
- ``sub:H01+H02+H04=steel``: discard the three cards for one Material of choice
- ``per:H05``: the Persistent Material of H05, a 1-Mile card in your Highway
- ``rec``: Recycling, the Material on top of your discard pile at that moment
- ``bh:1:H30``: (Landmark) the Persistent Material of H30 in seat 1's Highway
- ``bd:1``: (Landmark) the Material on top of seat 1's discard pile

>>> a = Action.parse("build H12 R pay H03 sub:H01+H02+H04=steel rec")
>>> Action.parse(a.notation()) == a
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .constants import MATERIALS, SUBSTITUTION_CARDS


class ActionError(ValueError):
    """Base of the errors a user's action can cause."""


class NotationError(ActionError):
    """Text that is not an action in the notation."""


class IllegalActionError(ActionError):
    """A well-formed action that the rules do not allow in this position."""


# ------------------------------------------------------------------ payment steps

@dataclass(frozen=True, slots=True)
class Discard:
    """Payment step ``H03``: discard a hand card for the Material on its back."""

    card: str

    def notation(self) -> str:
        return self.card


@dataclass(frozen=True, slots=True)
class Substitute:
    """Payment step ``sub:H01+H02+H04=steel``: discard three hand cards, in this order,
    for one Material of choice."""

    cards: tuple[str, str, str]
    material: str

    def notation(self) -> str:
        return f"sub:{'+'.join(self.cards)}={self.material}"


@dataclass(frozen=True, slots=True)
class Persistent:
    """Payment step ``per:H05``: the Persistent Material of a 1-Mile card in your
    Highway."""

    card: str

    def notation(self) -> str:
        return f"per:{self.card}"


@dataclass(frozen=True, slots=True)
class Recycle:
    """Payment step ``rec``: Recycling, the Material on top of your discard pile at that
    moment (once per turn)."""

    def notation(self) -> str:
        return "rec"


@dataclass(frozen=True, slots=True)
class BorrowHighway:
    """Payment step ``bh:1:H30`` (a Landmark ability): the Persistent Material of a 1-Mile
    card in another seat's Highway."""

    seat: int
    card: str

    def notation(self) -> str:
        return f"bh:{self.seat}:{self.card}"


@dataclass(frozen=True, slots=True)
class BorrowDiscard:
    """Payment step ``bd:1`` (a Landmark ability): the Material on top of another seat's
    discard pile."""

    seat: int

    def notation(self) -> str:
        return f"bd:{self.seat}"


PaymentStep = Discard | Substitute | Persistent | Recycle | BorrowHighway | BorrowDiscard
Payment = tuple[PaymentStep, ...]


def _parse_seat(text: str, token: str) -> int:
    if not text.isdigit():
        raise NotationError(f"payment step {token!r}: seat must be a number, got {text!r}")
    return int(text)


def spent_cards(payment: Payment) -> list[str]:
    """The hand cards a payment discards, in order (substitutions count 3 each).

    >>> spent_cards((Discard("H03"), Recycle(), Substitute(("H1", "H2", "H4"), "steel")))
    ['H03', 'H1', 'H2', 'H4']
    """
    out: list[str] = []
    for step in payment:
        if type(step) is Discard:
            out.append(step.card)
        elif type(step) is Substitute:
            out.extend(step.cards)
    return out


def parse_step(token: str) -> PaymentStep:
    """Parse one payment step of the notation."""
    if token == "rec":
        return Recycle()
    if token.startswith("per:"):
        return Persistent(_card(token[4:], token))
    if token.startswith("sub:"):
        body, eq, material = token[4:].partition("=")
        cards = tuple(body.split("+"))
        if not eq or material not in MATERIALS:
            raise NotationError(f"payment step {token!r}: substitution must end with "
                                f"'=MATERIAL', one of {', '.join(MATERIALS)}")
        if len(cards) != SUBSTITUTION_CARDS or not all(cards):
            raise NotationError(f"payment step {token!r}: a substitution discards exactly "
                                f"{SUBSTITUTION_CARDS} cards, e.g. sub:H01+H02+H03=steel")
        return Substitute(cards, material)  # type: ignore[arg-type]
    if token.startswith("bh:"):
        seat, _, card = token[3:].partition(":")
        return BorrowHighway(_parse_seat(seat, token), _card(card, token))
    if token.startswith("bd:"):
        return BorrowDiscard(_parse_seat(token[3:], token))
    return Discard(_card(token, token))


def _card(text: str, token: str) -> str:
    if not text or any(ch in text for ch in ":+="):
        raise NotationError(f"{token!r}: expected a card id, got {text!r}")
    return text


# ------------------------------------------------------------------ actions

class Action:
    """Base of the four action types; ``Action.parse(text)`` reads the notation."""

    __slots__ = ()

    @staticmethod
    def parse(text: str) -> Action:
        return parse_action(text)

    def notation(self) -> str:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __str__(self) -> str:
        return self.notation()


@dataclass(frozen=True, slots=True)
class Take(Action):
    """Take a card: from the Depot (``card`` is its id) or the deck (``card`` is None)."""

    card: str | None = None

    def notation(self) -> str:
        return f"take {self.card or 'deck'}"


@dataclass(frozen=True, slots=True)
class Build(Action):
    """Build ``card`` at end ``side`` ("L" or "R"; "l" and "r" are made upper case, as
    the notation reads them); ``payment`` None means the cheapest payment the engine
    finds (see :func:`solver.rules.payment.cheapest_payment`)."""

    card: str
    side: str = "L"
    payment: Payment | None = None

    def __post_init__(self) -> None:
        # Build(card, "l") was built, then refused by play ("the side must be L or R")
        if self.side == "l" or self.side == "r":
            object.__setattr__(self, "side", self.side.upper())

    def notation(self) -> str:
        text = f"build {self.card} {self.side}"
        if self.payment is not None:
            text += " pay " + " ".join(step.notation() for step in self.payment)
        return text


@dataclass(frozen=True, slots=True)
class Claim(Action):
    """Claim Landmark ``landmark`` and place it above Highway card ``card``."""

    landmark: str
    card: str

    def notation(self) -> str:
        return f"claim {self.landmark} {self.card}"


@dataclass(frozen=True, slots=True)
class End(Action):
    """End the turn without (further) building or claiming."""

    def notation(self) -> str:
        return "end"


_USAGE = ("expected one of: 'take CARD', 'take deck', 'build CARD L|R [pay STEP ...]', "
          "'claim LANDMARK CARD', 'end'")


def parse_action(text: str) -> Action:
    """Parse one action of the notation; NotationError says what is wrong.

    >>> parse_action("take deck")
    Take(card=None)
    """
    if not isinstance(text, str):
        raise NotationError(f"an action must be text, got {type(text).__name__}")
    words = text.split()
    if not words:
        raise NotationError(f"empty action; {_USAGE}")
    verb, args = words[0].lower(), words[1:]
    if verb == "take" and len(args) == 1:
        return Take(None if args[0].lower() == "deck" else _card(args[0], text))
    if verb == "end" and not args:
        return End()
    if verb == "claim" and len(args) == 2:
        return Claim(_card(args[0], text), _card(args[1], text))
    if verb == "build" and len(args) >= 2:
        side = args[1].upper()
        if side not in ("L", "R"):
            raise NotationError(f"{text!r}: the side must be L or R, got {args[1]!r}")
        payment = None
        if len(args) > 2:
            if args[2] != "pay" or len(args) == 3:
                raise NotationError(f"{text!r}: after the side expected 'pay STEP ...'")
            payment = tuple(parse_step(token) for token in args[3:])
        return Build(_card(args[0], text), side, payment)
    raise NotationError(f"cannot read action {text!r}; {_USAGE}")

