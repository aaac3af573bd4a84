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
from functools import lru_cache
from typing import NamedTuple

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


class HighwayRuns(NamedTuple):
    """The runs of every Scenery in one Highway (see :func:`highway_runs`)."""

    icons: tuple[int, ...]  # icons per Scenery over the whole Highway
    # per Scenery, its maximal runs as (cards left to right, icons)
    runs: tuple[tuple[tuple[tuple[int, ...], int], ...], ...]


@lru_cache(maxsize=30_000)
def highway_runs(cards: CardSet, highway: tuple[int, ...]) -> HighwayRuns:
    """:func:`scenery_runs` of every Scenery of a Highway and its icon counts, cached by
    Highway: search scores and tests claims on the same Highways over and over (3,000
    iterations at a mid-game position meet about 2,600; this cache and the next hold
    about 2 kB per Highway)."""
    found = tuple(tuple((tuple(run), icons) for run, icons in
                        scenery_runs(cards.scenery, highway, s))
                  for s in range(len(SCENERIES)))
    return HighwayRuns(tuple(sum(icons for _run, icons in f) for f in found), found)


@lru_cache(maxsize=30_000)
def printed_stretches(cards: CardSet, highway: tuple[int, ...]) -> tuple[Stretch, ...]:
    """The qualifying Stretches (at least 3 icons) of a Highway at printed miles, cached as
    :func:`highway_runs` is (Stretches are immutable: shared)."""
    printed = cards.miles
    return tuple(Stretch(s, run, icons, sum(printed[c] for c in run))
                 for s, found in enumerate(highway_runs(cards, highway).runs)
                 for run, icons in found if icons >= STRETCH_MIN_ICONS)


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
    """The qualifying Stretches of a Highway (at least 3 icons): those at printed miles
    (cached), their miles recounted when ``miles`` is given."""
    found = printed_stretches(cards, tuple(highway))
    if not miles:
        return list(found)
    printed = cards.miles
    out = []
    for st in found:
        total = sum(miles.get(c, printed[c]) for c in st.cards)
        out.append(st if total == st.miles else Stretch(st.scenery, st.cards, st.icons, total))
    return out
