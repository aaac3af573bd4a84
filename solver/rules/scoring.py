"""Final scoring with a per-category breakdown, and the game's outcome as data.

Categories: Stretches (1 point per mile of each qualifying Stretch, overlapping
Stretches scoring independently), 2-Mile bonuses (every 2-Mile card in the Highway,
in a Stretch or not), Landmark count (0 / 3 / 5 / 8) and Landmark abilities.

:func:`score_player` scores one seat's Highway as it stands, at any moment of the game;
:func:`final_scores` scores every seat (and :func:`solver.rules.engine.outcome` gives the
same once the game is over, None before). Each :class:`ScoreBreakdown` has the four
categories, their ``total`` and one ``details`` line per scoring item.

>>> from solver.rules.engine import legal_actions, new_game, play
>>> state = new_game(2, seed=8)
>>> for move in ["take H06", "take H22", "end", "take H18", "take H19", "end"]:
...     state = play(state, move)
>>> [score_player(state.cards, p).total for p in state.players]   # mid-game
[0, 0]
>>> while not state.is_over:                     # always the first legal action
...     state = play(state, legal_actions(state)[0])
>>> result = final_scores(state)
>>> [s.total for s in result.scores], result.winners
([21, 29], (1,))
>>> first = result.scores[0]
>>> first.stretches, first.bonuses, first.landmark_count, first.landmark_abilities
(8, 6, 3, 4)
>>> first.details[0]
{'category': 'stretches', 'points': 8, 'what': 'ocean Stretch',
 'cards': ['H56', 'H50', 'H38']}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from .cards import CardSet
from .constants import SCENERIES, landmark_count_points
from .effects import REGISTRY
from .state import PlayerState
from .stretches import Stretch, highway_runs, stretches

if TYPE_CHECKING:
    from .state import GameState


@dataclass
class HighwayFacts:
    """What scoring effects read about one finished (or current) Highway."""

    cards: CardSet
    highway: tuple[int, ...]
    miles: dict[int, int]  # effective miles of every card in the Highway
    icon_counts: list[int]  # icons per Scenery over the whole Highway
    stretches: list[Stretch]
    landmarks: list[tuple[int, int]]  # (landmark, card below it)


@lru_cache(maxsize=16)
def _effects(cards: CardSet) -> tuple[tuple, tuple]:
    """Every effect of a card set resolved once (search scores thousands of Highways a
    second): per Highway card its 2-Mile bonus as (fn, params) or None, per Landmark its
    ability as (category, fn, params). The params are only read."""
    bonuses = tuple(None if c.bonus is None else (REGISTRY[c.bonus.kind].fn, c.bonus.args)
                    for c in cards.highway)
    abilities = tuple((REGISTRY[lm.ability.kind].category, REGISTRY[lm.ability.kind].fn,
                       lm.ability.args) for lm in cards.landmarks)
    return bonuses, abilities


def effective_miles(cards: CardSet, player: PlayerState) -> dict[int, int]:
    """Miles of each card in the Highway, Landmark mile bonuses included."""
    return _miles(cards, player)[0]


def _miles(cards: CardSet, player: PlayerState) -> tuple[dict[int, int], bool]:
    """:func:`effective_miles`, and whether a Landmark changed any."""
    miles = {c: cards.miles[c] for c in player.highway}
    abilities = _effects(cards)[1]
    changed = False
    for lm, card in player.landmarks:
        category, fn, params = abilities[lm]
        if category == "miles":
            miles[card] += fn(params)
            changed = True
    return miles, changed


def highway_facts(cards: CardSet, player: PlayerState) -> HighwayFacts:
    highway = tuple(player.highway)
    miles, changed = _miles(cards, player)
    # at printed miles the Stretches are cached whole; recounted only when a Landmark
    # changed a card's miles (search scores many Highways without one)
    return HighwayFacts(cards, highway, miles, list(highway_runs(cards, highway).icons),
                        stretches(cards, highway, miles if changed else None),
                        list(player.landmarks))


@dataclass(init=False)
class ScoreBreakdown:
    """One seat's score by category (``total`` is their sum); ``details`` has one line
    per scoring item: ``{"category", "points", "what"}`` (a Stretch's line also lists its
    ``"cards"``). ``to_json`` adds ``"total"``; ``str()`` starts with it:

    >>> score = ScoreBreakdown(stretches=19, bonuses=7, landmark_count=3)
    >>> print(score)
    29 points: stretches 19, 2-Mile bonuses 7, Landmark count 3, Landmark abilities 0

    and so does ``repr()``, which pastes back (a ``total`` given is checked against the
    sum of the categories; it is no field):

    >>> score
    ScoreBreakdown(total=29, stretches=19, bonuses=7, landmark_count=3,
                   landmark_abilities=0, details=[])
    >>> eval(repr(score)) == score
    True
    """

    stretches: int = 0
    bonuses: int = 0
    landmark_count: int = 0
    landmark_abilities: int = 0
    details: list[dict] = field(default_factory=list)  # one line per scoring item

    def __init__(self, stretches: int = 0, bonuses: int = 0, landmark_count: int = 0,
                 landmark_abilities: int = 0, details: list[dict] | None = None, *,
                 total: int | None = None):
        self.stretches = stretches
        self.bonuses = bonuses
        self.landmark_count = landmark_count
        self.landmark_abilities = landmark_abilities
        self.details = [] if details is None else details
        if total is not None and total != self.total:
            raise ValueError(f"total: {total} is not the sum of the categories, {self.total}")

    @property
    def total(self) -> int:
        """The score: the sum of the four categories."""
        return self.stretches + self.bonuses + self.landmark_count + self.landmark_abilities

    def __repr__(self) -> str:
        return (f"ScoreBreakdown(total={self.total}, stretches={self.stretches!r}, "
                f"bonuses={self.bonuses!r}, landmark_count={self.landmark_count!r}, "
                f"landmark_abilities={self.landmark_abilities!r}, details={self.details!r})")

    def __str__(self) -> str:
        total = self.total
        return (f"{total} point{'' if total == 1 else 's'}: stretches {self.stretches}, "
                f"2-Mile bonuses {self.bonuses}, Landmark count {self.landmark_count}, "
                f"Landmark abilities {self.landmark_abilities}")

    def to_json(self) -> dict:
        return {"total": self.total, "stretches": self.stretches, "bonuses": self.bonuses,
                "landmark_count": self.landmark_count,
                "landmark_abilities": self.landmark_abilities, "details": self.details}


def score_player(cards: CardSet, player: PlayerState, details: bool = True,
                 facts: HighwayFacts | None = None) -> ScoreBreakdown:
    """Score one Highway as the rules' Final Scoring does. ``details``: False leaves the
    per-item lines out (the same totals, for search, which rescores often). ``facts``:
    the player's :func:`highway_facts` when the caller has them.

    ``player`` is a seat's :class:`~solver.rules.state.PlayerState`, not its number:
    ``score_player(state.cards, state.players[seat])``; anything else is a ``TypeError``
    naming the arguments expected."""
    try:  # free when nothing is raised (search scores Highways by the thousand)
        if facts is None:
            facts = highway_facts(cards, player)
        out = ScoreBreakdown()
        lines = out.details if details else None
        for s in facts.stretches:
            out.stretches += s.miles
            if lines is not None:
                lines.append({"category": "stretches", "points": s.miles,
                              "what": f"{SCENERIES[s.scenery]} Stretch",
                              "cards": [cards.highway[c].id for c in s.cards]})
        bonuses, abilities = _effects(cards)
        for c in player.highway:
            bonus = bonuses[c]
            if bonus is not None:
                points = bonus[0](facts, bonus[1], c)
                out.bonuses += points
                if lines is not None:
                    lines.append({"category": "bonuses", "points": points,
                                  "what": f"{cards.highway[c].id}: {cards.highway[c].bonus.kind}"})
        out.landmark_count = landmark_count_points(len(player.landmarks))
        if player.landmarks and lines is not None:
            lines.append({"category": "landmark_count", "points": out.landmark_count,
                          "what": f"{len(player.landmarks)} Landmark(s)"})
        for lm, _card in player.landmarks:
            category, fn, params = abilities[lm]
            if category == "score":
                points = fn(facts, params, lm)
                out.landmark_abilities += points
                if lines is not None:
                    ability = cards.landmarks[lm].ability
                    lines.append({"category": "landmark_abilities", "points": points,
                                  "what": f"{cards.landmarks[lm].id}: {ability.kind}"})
        return out
    except (AttributeError, TypeError):
        if isinstance(cards, CardSet) and hasattr(player, "highway") \
                and hasattr(player, "landmarks"):
            raise
        raise TypeError(
            "score_player(cards, player): expected a CardSet and a PlayerState, e.g. "
            "score_player(state.cards, state.players[seat]) or score_player(view.cards, "
            f"view.me), got {type(cards).__name__} and {type(player).__name__}") from None


def claim_totals(cards: CardSet, highway: tuple[int, ...],
                 landmarks: tuple[tuple[int, int], ...],
                 claims: list[tuple[int, int]]) -> list[int]:
    """The total score of ``highway`` with ``landmarks``, then with each of ``claims``
    ((Landmark, card below) added): ``[without, claim 1, ...]``. The Highway's facts are
    found once and shared by every claim whose Landmark leaves the miles alone (an exact
    last build step weighs every claim of thousands of Highways)."""
    player = PlayerState(highway=list(highway), landmarks=list(landmarks))
    facts = highway_facts(cards, player)
    totals = [score_player(cards, player, False, facts).total]
    abilities = _effects(cards)[1]
    for claim in claims:
        with_claim = PlayerState(highway=list(highway), landmarks=[*landmarks, claim])
        shared = None
        if abilities[claim[0]][0] != "miles":
            shared = HighwayFacts(cards, facts.highway, facts.miles, facts.icon_counts,
                                  facts.stretches, with_claim.landmarks)
        totals.append(score_player(cards, with_claim, False, shared).total)
    return totals


@dataclass(frozen=True)
class Outcome:
    """The end of a game: every seat's score and the winners (equal best scores share)."""

    scores: tuple[ScoreBreakdown, ...]
    winners: tuple[int, ...]

    def to_json(self) -> dict:
        return {"scores": [s.to_json() for s in self.scores], "winners": list(self.winners)}


def final_scores(state: GameState) -> Outcome:
    """Every seat's :func:`score_player` breakdown and the seats with the best total.

    At the end of the game this is the rules' Final Scoring (:func:`engine.outcome
    <solver.rules.engine.outcome>` returns it then); before, it scores the Highways as
    they stand, and ``winners`` are only the seats leading now. A seat's view scores the
    same (Highways and Landmarks are public: :func:`~solver.rules.views.public_players`)."""
    players = getattr(state, "players", None)
    if players is None:  # a view: its public players
        from .views import public_players  # (views read positions, which read this module)

        players = public_players(state)
    scores = tuple(score_player(state.cards, p) for p in players)
    best = max(s.total for s in scores)
    return Outcome(scores, tuple(i for i, s in enumerate(scores) if s.total == best))
