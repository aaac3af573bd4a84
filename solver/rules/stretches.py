"""Stretch finding: the one place that knows adjacency.

A run of Scenery ``s`` is a maximal sequence of adjacent Highway cards that each show
at least one ``s`` icon. It is a Stretch when it holds at least 3 ``s`` icons (so two
cards can make one when a card shows ``s`` twice). Its length is the sum of its cards'
miles, Landmark mile bonuses included. Runs of different Sceneries overlap freely;
runs of one Scenery are separated by a card without that icon, and since cards are
only added at the ends, two runs of one Scenery never merge.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping, Sequence

from .cards import CardSet
from .constants import SCENERIES, STRETCH_MIN_ICONS


@dataclass(frozen=True)
class Stretch:
    scenery: int
    cards: tuple[int, ...]  # Highway card indices, left to right
    icons: int
    miles: int

    @property
    def qualifies(self) -> bool:
        return self.icons >= STRETCH_MIN_ICONS

    def to_json(self, cards: CardSet) -> dict:
        return {"scenery": SCENERIES[self.scenery],
                "cards": [cards.highway[c].id for c in self.cards],
                "icons": self.icons, "miles": self.miles}


def runs(cards: CardSet, highway: Sequence[int], miles: Mapping[int, int] | None = None,
         scenery: int | None = None) -> list[Stretch]:
    """Every maximal run of each Scenery (or of ``scenery`` only), qualifying or not.

    ``miles`` maps a card to its mile value when it differs from the printed one.
    """
    found = []
    wanted = range(len(SCENERIES)) if scenery is None else (scenery,)
    card_scenery = cards.scenery
    printed = cards.miles
    for s in wanted:
        run: list[int] = []
        icons = 0
        for c in highway:
            a, b = card_scenery[c]
            n = (a == s) + (b == s)
            if n:
                run.append(c)
                icons += n
            elif run:
                found.append(_stretch(s, run, icons, printed, miles))
                run, icons = [], 0
        if run:
            found.append(_stretch(s, run, icons, printed, miles))
    return found


def _stretch(s, run, icons, printed, miles) -> Stretch:
    if miles:
        total = sum(miles.get(c, printed[c]) for c in run)
    else:
        total = sum(printed[c] for c in run)
    return Stretch(s, tuple(run), icons, total)


def stretches(cards: CardSet, highway: Sequence[int],
              miles: Mapping[int, int] | None = None) -> list[Stretch]:
    """The qualifying Stretches of a Highway (at least 3 icons)."""
    return [r for r in runs(cards, highway, miles) if r.icons >= STRETCH_MIN_ICONS]
