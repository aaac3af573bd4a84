"""Stretch finding: the one place that knows adjacency.

A run of Scenery ``s`` is a maximal sequence of adjacent Highway cards that each show
at least one ``s`` icon. It is a Stretch when it holds at least 3 ``s`` icons (so two
cards can make one when a card shows ``s`` twice). Its length is the sum of its cards'
miles, Landmark mile bonuses included. Runs of different Sceneries overlap freely;
runs of one Scenery are separated by a card without that icon, and since cards are
only added at the ends, two runs of one Scenery never merge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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


def scenery_runs(card_scenery: Sequence[tuple[int, int]], highway: Sequence[int],
                 s: int) -> list[tuple[list[int], int]]:
    """The maximal runs of Scenery ``s`` as (cards left to right, icons): the lean scan
    behind :func:`runs`, for hot paths that need no miles (claims)."""
    found = []
    run: list[int] = []
    icons = 0
    for c in highway:
        a, b = card_scenery[c]
        if a == s or b == s:
            run.append(c)
            icons += (a == s) + (b == s)
        elif run:
            found.append((run, icons))
            run, icons = [], 0
    if run:
        found.append((run, icons))
    return found


def runs(cards: CardSet, highway: Sequence[int], miles: Mapping[int, int] | None = None,
         scenery: int | None = None, min_icons: int = 0) -> list[Stretch]:
    """Every maximal run of each Scenery (or of ``scenery`` only), qualifying or not
    (only those with at least ``min_icons`` icons if given).

    ``miles`` maps a card to its mile value when it differs from the printed one.
    """
    wanted = range(len(SCENERIES)) if scenery is None else (scenery,)
    printed = cards.miles
    found = []
    for s in wanted:
        for run, icons in scenery_runs(cards.scenery, highway, s):
            if icons < min_icons:
                continue
            if miles:
                total = sum(miles.get(c, printed[c]) for c in run)
            else:
                total = sum(printed[c] for c in run)
            found.append(Stretch(s, tuple(run), icons, total))
    return found


def stretches(cards: CardSet, highway: Sequence[int],
              miles: Mapping[int, int] | None = None) -> list[Stretch]:
    """The qualifying Stretches of a Highway (at least 3 icons)."""
    return runs(cards, highway, miles, min_icons=STRETCH_MIN_ICONS)
