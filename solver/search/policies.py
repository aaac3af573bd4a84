"""The heuristic: a static evaluation of a seat and the greedy move choice built on it.

Used three ways: :class:`~solver.search.bots.GreedyBot` plays it, MCTS rollouts play it
(with Gumbel noise) and cut off with :func:`estimate_scores`, and it ranks the build
macro-actions that MCTS considers (:func:`build_macros`).

**Evaluation** (:func:`seat_value`, in expected final points). For seat ``p`` with ``F``
build steps still to come after the current one, the exact score of its Highway now
(Stretches, 2-Mile bonuses, Landmarks) plus weighted terms (:data:`FEATURES`):

- hand (only while ``F > 0``: in the last build step hand cards are worth nothing, so
  everything that scores gets built): ``hand_card`` per card (future Material),
  ``hand_fit`` times each card's *fit* (the points it would add at the better end of
  the Highway: completing or extending a Stretch there), ``hand_one_mile`` per future
  step for each 1-Mile card, ``hand_growth`` for 2-Mile cards whose bonus grows;
- engine: ``persistent`` per Persistent Material per future build step (so 1-Mile
  cards are worth most early), ``recycle`` while the discard pile is not empty,
  ``borrow`` per Landmark payment ability use;
- growth: ``growth`` times the points the built 2-Mile bonuses and Landmark scoring
  abilities are expected to gain per future step (e.g. 1 point per Ocean icon gains
  about 0.4 per card built);
- shape of the two open ends: ``open_run`` per Stretch open at an end (it grows with
  every matching card), ``near`` times the miles of an end run one icon short of a
  Stretch, ``single`` times the miles of a one-icon end run;
- ``claimable`` when an unused qualifying Stretch matches a Landmark in the row;
- ``base`` per future build step (the average income, so that seats with different
  numbers of turns left compare).

Two weight sets: :data:`DEFAULT_WEIGHTS`, hand-tuned for *choosing* moves (tested head
to head), and :data:`EVAL_WEIGHTS`, least-squares fitted per player count to *predict*
final scores (:func:`fit_weights`), used where search cuts a rollout off.

**Moves** (:func:`greedy_action`): *take* the card with the highest hand value (fit,
Material I lack for a fitting hand card, Persistent and bonus potential), or the deck
when the average value of the cards I have not seen is higher; *build* one card at a
time, the card and side that raise the evaluation most (so cards go where their Scenery
extends a run, 1-Mile and growing 2-Mile cards early, nothing that costs more than it
adds), paid the cheapest way (:func:`solver.rules.payment.cheapest_payment`: fewest
cards, least valuable first); then *claim*, always when possible (a claim is free), the
Landmark and placement card that raise the evaluation most (``mile_bonus`` lands on the
biggest card in the most Stretches; other Landmarks prefer cards with one Scenery, so
cards that could carry another Scenery's Landmark stay free), else end.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields, replace
from functools import cached_property, lru_cache
from operator import mul
from types import SimpleNamespace
from typing import NamedTuple

from ..rules.actions import Action, Build, Claim, Discard, End, Substitute, Take
from ..rules.cards import CardSet
from ..rules.constants import SCENERIES, STRETCH_MIN_ICONS
from ..rules.effects import REGISTRY
from ..rules.engine import DEPOT_SIZE, apply_inplace, claim_possible, claimable, turns_per_player
from ..rules.payment import (
    PaymentError,
    Sources,
    affordable_cards,
    card_keep_value,
    cheapest_cards_needed,
    cheapest_payment,
)
from ..rules.scoring import score_player
from ..rules.state import GameState, Phase, PlayerState

N_SCENERIES = len(SCENERIES)


@dataclass(frozen=True)
class Weights:
    """Points of the evaluation terms (see the module doc)."""

    hand_card: float = 0.9
    hand_fit: float = 0.35
    hand_one_mile: float = 0.15  # per future build step, for a 1-Mile card in hand
    need: float = 0.4  # take: the card's Material is missing for a fitting hand card
    persistent: float = 0.55
    recycle: float = 0.15
    borrow: float = 0.35
    open_run: float = 1.2
    near: float = 0.35
    claimable: float = 2.0
    base: float = 1.0
    growth: float = 1.0  # times the expected growth of built scoring effects
    hand_growth: float = 0.5  # the same for 2-Mile cards in hand (built later)
    single: float = 0.0  # miles of an end run with a single icon
    placement_block: float = 0.3  # claim: placement card could carry another Landmark

    @cached_property
    def vector(self) -> tuple[float, ...]:
        """The weights of :data:`FEATURES`, in order."""
        return tuple(getattr(self, name) for name in FEATURES)

    @cached_property
    def memo_id(self) -> int:
        """A small number standing for these weights' values in memo keys (equal weights,
        equal number): hashing the floats in every key cost more than the rest of it."""
        return _WEIGHT_IDS.setdefault(self._values(), len(_WEIGHT_IDS))

    def _values(self) -> tuple[float, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))

    def __reduce__(self):
        # pickled by value only: a memo_id means something in its own process alone
        return (Weights, self._values())


_WEIGHT_IDS: dict[tuple[float, ...], int] = {}  # the values of every Weights met -> memo_id


DEFAULT_WEIGHTS = Weights()

# Calibrated for prediction (the cut-off evaluation of search), per player count: the
# least-squares fit of the points still to come in noisy greedy self-play on the default
# card set (:func:`fit_weights`, 300 games each; held-out RMSE of a seat's final score
# about 15 / 9 / 7 points over a whole game with 2 / 3 / 4 players, against 35 / 19 / 14
# with DEFAULT_WEIGHTS, which are tuned for choosing moves, not for predicting).
EVAL_WEIGHTS = {
    2: Weights(base=5.645, persistent=1.333, borrow=1.309, recycle=-0.146, hand_card=1.024,
               hand_fit=0.149, hand_one_mile=0.296, open_run=-2.33, near=0.199,
               claimable=4.473, growth=0.893, hand_growth=0.355, single=-0.068),
    3: Weights(base=4.47, persistent=1.293, borrow=1.765, recycle=-0.016, hand_card=1.239,
               hand_fit=0.109, hand_one_mile=0.206, open_run=-1.968, near=0.343,
               claimable=3.489, growth=1.003, hand_growth=0.491, single=-0.058),
    4: Weights(base=4.122, persistent=1.169, borrow=2.034, recycle=0.133, hand_card=1.146,
               hand_fit=0.119, hand_one_mile=0.23, open_run=-1.932, near=0.337,
               claimable=2.614, growth=1.717, hand_growth=0.328, single=-0.024),
}


# ------------------------------------------------------------------ card tables

class Tables:
    """Per-card-set lookup tables for the heuristic's hot paths."""

    def __init__(self, cards: CardSet):
        self.cards = cards
        self.miles = cards.miles
        self.icons = tuple(tuple(sc.count(s) for s in range(N_SCENERIES))
                           for sc in cards.scenery)
        self.sceneries = tuple(tuple(sorted(set(sc))) for sc in cards.scenery)
        self.one_mile = tuple(p >= 0 for p in cards.persistent)
        kinds = []
        for lm in cards.landmarks:
            spec = REGISTRY[lm.ability.kind]
            if spec.category == "payment":
                resource, uses = spec.fn(lm.ability.args)
                kinds.append((resource, uses))
            else:
                kinds.append((spec.category, 0))
        self.landmark_kind = tuple(kinds)
        self.growth = tuple(_growth_rate(cards, c.bonus) for c in cards.highway)
        self.lm_growth = tuple(_growth_rate(cards, lm.ability) for lm in cards.landmarks)
        self.ids = tuple(c.id for c in cards.highway)
        self.lm_ids = tuple(lm.id for lm in cards.landmarks)
        # actions are immutable values: the unpaid builds (left, right) of every card and
        # the claims met so far are made once and shared
        self.builds = tuple((Build(i, "L"), Build(i, "R")) for i in self.ids)
        self.keep_values = tuple(card_keep_value(cards, c) for c in range(len(self.ids)))
        self.takes = tuple(Take(i) for i in self.ids)  # the Depot take of every card
        self.take_deck = Take(None)
        self._claim_actions: dict[tuple[int, int], Claim] = {}
        self._turns: dict[int, int] = {}
        self._ends: dict[tuple[int, ...], list] = {}
        self._fits: dict[tuple[int, ...], dict[int, float]] = {}
        self._roads: dict[tuple, tuple[float, ...]] = {}
        self._highway: dict[tuple[int, ...], tuple[float, int, float, float, float]] = {}
        # build_options(exact=False) answers by every fact they read: search meets the
        # same seat again in other determinizations
        self.estimated_builds: dict[tuple, list] = {}
        self.claim_values: dict[tuple, list] = {}  # claim_options answers, the same way
        # the value model's feature rows of turn ends (value.turn_end_row), the same way
        self.turn_end_rows: dict[tuple, list[float]] = {}

    def end_runs(self, highway: tuple[int, ...]) -> list[dict[int, tuple[int, int]]]:
        """:func:`_end_runs` of a Highway, memoised (search sees the same roads often)."""
        runs = self._ends.get(highway)
        if runs is None:
            if len(self._ends) > 200_000:
                self._ends.clear()
                self._fits.clear()
            runs = self._ends[highway] = _end_runs(self, highway)
        return runs

    def fits(self, highway: tuple[int, ...]) -> dict[int, float]:
        """The memo of :meth:`fit` for one Highway, card -> fit (as far as asked): a hand's
        cards look their fits up there without a key each."""
        got = self._fits.get(highway)
        if got is None:
            if len(self._fits) > 200_000:
                self._fits.clear()
            got = self._fits[highway] = {}
        return got

    def fit(self, highway: tuple[int, ...], c: int) -> float:
        """:func:`card_fit` of card ``c`` to a Highway, memoised."""
        fits = self.fits(highway)
        v = fits.get(c)
        if v is None:
            v = fits[c] = card_fit(self, self.end_runs(highway), c)
        return v

    def highway_terms(self, hw: tuple[int, ...]) -> tuple[float, int, float, float, float]:
        """:func:`_highway_terms`, memoised: every Landmark set and hand on a Highway shares
        them."""
        terms = self._highway.get(hw)
        if terms is None:
            if len(self._highway) > 200_000:
                self._highway.clear()
            terms = self._highway[hw] = _highway_terms(self, hw)
        return terms

    def road_terms(self, hw: tuple[int, ...], lms: tuple[tuple[int, int], ...], f: int,
                   live: bool, row: tuple[int, ...]) -> tuple[float, ...]:
        """:func:`_road_terms`, memoised: search values many hands on the same roads."""
        key = (hw, lms, f, live, row)
        terms = self._roads.get(key)
        if terms is None:
            if len(self._roads) > 200_000:
                self._roads.clear()
            terms = self._roads[key] = _road_terms(self, hw, lms, f, live, row)
        return terms

    @staticmethod
    def remember(memo: dict, key, value) -> None:
        """Store ``value`` in ``memo``, emptied once it holds 50,000 answers (lists of
        options: about 1 kB each)."""
        if len(memo) >= 50_000:
            memo.clear()
        memo[key] = value

    def claim_action(self, lm: int, c: int) -> Claim:
        """The Claim of Landmark ``lm`` placed above card ``c`` (shared)."""
        action = self._claim_actions.get((lm, c))
        if action is None:
            action = self._claim_actions[lm, c] = Claim(self.lm_ids[lm], self.ids[c])
        return action

    def total_turns(self, state: GameState) -> int:
        n = state.num_players
        if n not in self._turns:
            self._turns[n] = turns_per_player(state)
        return self._turns[n]


def _growth_rate(cards: CardSet, effect) -> float:
    """Points a scoring effect (2-Mile bonus, Landmark ability) is expected to gain per
    future build step of its owner, beyond what it scores now (rough rates: a built card
    shows 2 icons, about 1 card is built per turn)."""
    if effect is None:
        return 0.0
    a = effect.args
    kind = effect.kind
    points = a.get("points", 0)
    if kind == "scenery_points":
        return points * 0.4
    if kind == "mile_cards":
        share = sum(1 for m in cards.miles if m == a["miles"]) / len(cards.miles)
        return points * share * 0.9
    if kind == "material_cards":
        share = sum(1 for m in cards.material if m == a["material"]) / len(cards.material)
        return points * share * 0.9
    if kind == "stretch_count":
        return points * 0.15
    if kind == "landmark_collection":
        wanted = a.get("sceneries")
        return points * 0.25 * (len(wanted) / len(SCENERIES) if wanted else 1.0)
    if kind == "distinct_scenery":
        return points * 0.2
    if kind == "longest_stretch":
        return 0.8 / a["divisor"]
    return 0.0


@lru_cache(maxsize=8)
def tables(cards: CardSet) -> Tables:
    return Tables(cards)


@lru_cache(maxsize=300_000)
def highway_score(cards: CardSet, highway: tuple[int, ...],
                  landmarks: tuple[tuple[int, int], ...]) -> int:
    """Exact score of a Highway with its Landmarks (cached: search rescoring repeats)."""
    return score_player(cards, PlayerState(highway=list(highway), landmarks=list(landmarks)),
                        details=False).total


def future_steps(state: GameState, seat: int) -> int:
    """Build steps of ``seat`` still to come, not counting one in progress now."""
    if state.phase == Phase.OVER:
        return 0
    left = tables(state.cards).total_turns(state) - state.players[seat].turns
    if seat == state.current and state.phase == Phase.BUILD:
        left -= 1
    return max(left, 0)


def _end_runs(tab: Tables, highway: list[int]) -> list[dict[int, tuple[int, int]]]:
    """For each open end of the Highway: Scenery -> (icons, miles) of the run ending
    there (only Sceneries shown by the end card)."""
    if not highway:
        return []
    out = []
    ends = (highway,) if len(highway) == 1 else (highway, highway[::-1])
    icons, miles = tab.icons, tab.miles
    for seq in ends:
        runs = {}
        for s in tab.sceneries[seq[0]]:
            k = m = 0
            for c in seq:
                n = icons[c][s]
                if not n:
                    break
                k += n
                m += miles[c]
            runs[s] = (k, m)
        out.append(runs)
    return out


def card_fit(tab: Tables, ends: list[dict[int, tuple[int, int]]], c: int) -> float:
    """Points card ``c`` would add at the better end (Stretch miles completed or
    extended), with a fraction for runs it brings to one icon short."""
    icons, miles = tab.icons[c], tab.miles[c]
    if not ends:
        return 0.4 * miles if max(icons) >= 2 else 0.0
    best = 0.0
    for runs in ends:
        gain = 0.0
        for s in tab.sceneries[c]:
            k, m = runs.get(s, (0, 0))
            new = k + icons[s]
            if new >= STRETCH_MIN_ICONS:
                gain += miles + (m if k < STRETCH_MIN_ICONS else 0)
            elif new == 2:
                gain += 0.4 * (m + miles)
        if gain > best:
            best = gain
    return best


def seat_value(state: GameState, seat: int, w: Weights = DEFAULT_WEIGHTS) -> float:
    """Expected final score of ``seat`` (see the module doc)."""
    p = state.players[seat]
    if state.phase == Phase.OVER:
        return float(highway_score(state.cards, tuple(p.highway), tuple(p.landmarks)))
    f = future_steps(state, seat)
    live = f > 0 or (seat == state.current and state.phase == Phase.BUILD)
    return _value(tables(state.cards), p.highway, p.landmarks, p.hand, bool(p.discard), f,
                  live, tuple(state.landmark_row), w)


# the evaluation terms whose weights are fitted (:func:`fit_weights`), in order
FEATURES = ("base", "persistent", "borrow", "recycle", "hand_card", "hand_fit",
            "hand_one_mile", "open_run", "near", "claimable", "growth", "hand_growth",
            "single")


def _features(tab: Tables, highway: list[int], landmarks: list[tuple[int, int]],
              hand: list[int], has_discard: bool, f: int, live: bool,
              row: tuple[int, ...]) -> tuple[float, tuple[float, ...]]:
    """The Highway's score now and the terms of :data:`FEATURES` for one seat."""
    hw = tuple(highway)
    return _assemble(tab.road_terms(hw, tuple(landmarks), f, live, row),
                     _hand_terms(tab, hw, hand, has_discard, f), f)


def _hand_terms(tab: Tables, hw: tuple[int, ...], hand: list[int], has_discard: bool,
                f: int) -> tuple[float, float, float, float, float]:
    """The terms of :func:`_features` that depend on the hand: recycle, hand_card,
    hand_fit, hand_one_mile, hand_growth (computed once when only the road changes)."""
    recycle = hand_card = hand_fit = hand_one = hand_growth = 0.0
    if f > 0:
        one = tab.one_mile
        rate = tab.growth
        fits = tab.fits(hw)
        for c in hand:
            v = fits.get(c)
            hand_fit += v if v is not None else tab.fit(hw, c)
            if one[c]:
                hand_one += f - 1
            hand_growth += rate[c]
        hand_growth *= f - 1
        hand_card = float(len(hand))
        recycle = f if has_discard else 0.0
    return recycle, hand_card, hand_fit, hand_one, hand_growth


def _assemble(road: tuple[float, ...], hand: tuple[float, ...], f: int
              ) -> tuple[float, tuple[float, ...]]:
    """The score and the :data:`FEATURES` terms from :func:`_road_terms` and
    :func:`_hand_terms`."""
    score, growth, persistent, borrow, open_run, near, claim, single = road
    recycle, hand_card, hand_fit, hand_one, hand_growth = hand
    return score, (float(f), persistent, borrow, recycle, hand_card, hand_fit, hand_one,
                   open_run, near, claim, growth, hand_growth, single)


def _road_terms(tab: Tables, hw: tuple[int, ...], lms: tuple[tuple[int, int], ...], f: int,
                live: bool, row: tuple[int, ...]) -> tuple[float, ...]:
    """The terms of :func:`_features` that do not depend on the hand: score, growth,
    persistent, borrow, open_run, near, claimable, single."""
    score = float(highway_score(tab.cards, hw, lms))
    growth_hw, count, open_ends, near_ends, single_ends = tab.highway_terms(hw)
    persistent = borrow = growth = 0.0
    if f > 0:
        growth = growth_hw
        for lm, _c in lms:
            growth += tab.lm_growth[lm]
        growth *= f
        extra = 0
        for lm, _c in lms:
            resource, uses = tab.landmark_kind[lm]
            if resource == "persistent_extra_use":
                extra += uses
            elif resource in ("borrow_highway", "borrow_discard"):
                borrow += uses
        persistent = f * (count + min(extra, count))
        borrow *= f
    open_run = near = claim = single = 0.0
    if live and hw:
        near = near_ends
        if f > 0:
            open_run, single = open_ends, single_ends
        if row and claim_possible(tab.cards, hw, lms, row):
            claim = 1.0
    return score, growth, persistent, borrow, open_run, near, claim, single


def _highway_terms(tab: Tables, hw: tuple[int, ...]) -> tuple[float, int, float, float, float]:
    """The parts of :func:`_road_terms` read from the Highway alone: the growth of its
    2-Mile bonuses, its 1-Mile cards, and over the runs at its open ends the Stretches
    (open_run), the miles one icon short (near) and of single icons (single)."""
    growth = 0.0
    for c in hw:
        growth += tab.growth[c]
    one = tab.one_mile
    count = sum(1 for c in hw if one[c])
    open_run = near = single = 0.0
    for runs in tab.end_runs(hw):
        for k, m in runs.values():
            if k >= STRETCH_MIN_ICONS:
                open_run += 1
            elif k == 2:
                near += m
            else:
                single += m
    return growth, count, open_run, near, single


def _value(tab: Tables, highway: list[int], landmarks: list[tuple[int, int]],
           hand: list[int], has_discard: bool, f: int, live: bool,
           row: tuple[int, ...], w: Weights) -> float:
    """:func:`seat_value` from the parts of a seat, so that a build or claim can be
    valued without applying it."""
    hw = tuple(highway)  # (as _features, one call less: the hot path of every valuation)
    score, phi = _assemble(tab.road_terms(hw, tuple(landmarks), f, live, row),
                           _hand_terms(tab, hw, hand, has_discard, f), f)
    return score + sum(map(mul, phi, w.vector))


def seat_features(state: GameState, seat: int) -> tuple[float, tuple[float, ...]]:
    """Score now and evaluation terms of ``seat`` (for fitting the weights)."""
    p = state.players[seat]
    f = future_steps(state, seat)
    live = f > 0 or (seat == state.current and state.phase == Phase.BUILD)
    return _features(tables(state.cards), p.highway, p.landmarks, p.hand, bool(p.discard),
                     f, live, tuple(state.landmark_row))


class StepOutcome(NamedTuple):
    """What a build step leaves its player with once the turn has ended: all that the
    evaluations read of that seat (:meth:`solver.search.value.ValueModel.turn_end_scores`),
    without making the state, and only what the player knows: ``row`` is the Landmark
    row after the turn with a claim's gap left open (the Landmark that refills it is
    hidden), so a step's outcome is the same in every state consistent with the
    player's view (:func:`~solver.search.buildsteps.step_outcomes`; a rollout, which knows
    its determinization, refills the row: :func:`ended_outcome`). ``over``: the game ends
    with the turn."""

    highway: tuple[int, ...]
    landmarks: tuple[tuple[int, int], ...]
    hand: tuple[int, ...]  # in hand order
    has_discard: bool
    row: tuple[int, ...]
    over: bool


def turn_end_features(state: GameState, outcome) -> tuple[float, tuple[float, ...]]:
    """:func:`seat_features` of the player to act once its turn has ended with
    ``outcome`` (a :class:`StepOutcome` of a build step now),
    read from the outcome without making that state. The game must go on after it."""
    tab = tables(state.cards)
    f = max(tab.total_turns(state) - state.player.turns - 1, 0)
    return _features(tab, outcome.highway, outcome.landmarks, outcome.hand,
                     outcome.has_discard, f, f > 0, outcome.row)


def turn_end_value(state: GameState, outcome, w: Weights = DEFAULT_WEIGHTS) -> float:
    """:func:`seat_value` of the player to act once its turn has ended with ``outcome``
    (exact when the game ends with the turn), without making that state."""
    if outcome.over:
        return float(highway_score(state.cards, outcome.highway, outcome.landmarks))
    score, phi = turn_end_features(state, outcome)
    return score + sum(map(mul, phi, w.vector))


@lru_cache(maxsize=200_000)
def claimable_pairs(cards: CardSet, highway: tuple[int, ...], landmarks: tuple,
                    row: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The engine's :func:`~solver.rules.engine.claimable` for a Highway, cached."""
    probe = SimpleNamespace(cards=cards, players=[PlayerState(highway=list(highway),
                                                              landmarks=list(landmarks))],
                            landmark_row=list(row), current=0)
    return tuple(claimable(probe, 0))


def estimate_scores(state: GameState, w: Weights | None = None) -> list[float]:
    """Expected final score of every seat (exact once the game is over); by default
    with the calibrated :data:`EVAL_WEIGHTS` of the player count."""
    if w is None:
        w = EVAL_WEIGHTS.get(state.num_players, DEFAULT_WEIGHTS)
    return [seat_value(state, i, w) for i in range(state.num_players)]


# ------------------------------------------------------------------ taking

def take_values(state: GameState, pool: list[int] | None = None,
                w: Weights = DEFAULT_WEIGHTS) -> list[tuple[float, Take]]:
    """Value of each legal take for the player to act, best first. The deck's value is
    the average over ``pool`` (cards whose place the player does not know; default: a
    fixed slice of the deck away from its top, so the top card is never peeked)."""
    tab = tables(state.cards)
    p = state.player
    hw = tuple(p.highway)
    f = future_steps(state, state.current) + 1
    needed = _needed_materials(state, tab, hw)
    fits = tab.fits(hw)
    hand_card, hand_fit, hand_growth, need = w.hand_card, w.hand_fit, w.hand_growth, w.need
    one_mile_bonus = w.hand_one_mile * (f - 1) + w.persistent * 0.5 * (f - 1)
    one_mile, growth, material = tab.one_mile, tab.growth, tab.cards.material

    def value(c: int) -> float:
        fit = fits.get(c)
        v = hand_card + hand_fit * (fit if fit is not None else tab.fit(hw, c))
        if one_mile[c]:
            v += one_mile_bonus
        v += hand_growth * growth[c] * (f - 1)
        if material[c] in needed:
            v += need
        return v

    takes = tab.takes
    out = [(value(c), takes[c]) for c in sorted(set(state.depot))]
    if state.deck:
        if pool is None:
            pool = state.deck[:8]
        if pool:
            out.append((sum(value(c) for c in pool) / len(pool), tab.take_deck))
        else:
            out.append((w.hand_card, tab.take_deck))
    out.sort(key=lambda vt: -vt[0])
    return out


def lookahead_take_values(state: GameState, pool: list[int] | None = None,
                          w: Weights = DEFAULT_WEIGHTS, deck_samples: int = 12
                          ) -> list[tuple[float, Take]]:
    """Take values found by trying the rest of the turn: the seat's value after adding
    the card to its hand and playing the greedy build step, so a card that makes a
    build possible now counts fully (the deck: the average over up to ``deck_samples``
    cards of ``pool``, spread evenly). About 20 times slower than :func:`take_values`;
    the GreedyBot uses it, rollouts do not."""
    seat = state.current
    tab = tables(state.cards)

    def after(c: int) -> float:
        s = state.copy()
        s.players[seat].hand.append(c)
        s.phase, s.picks = Phase.BUILD, 2
        build_step_inplace(s, w, exact=False)
        return seat_value(s, seat, w)

    out = [(after(c), tab.takes[c]) for c in sorted(set(state.depot))]
    if state.deck:
        pool = sorted(pool if pool is not None else state.deck[:8])
        if pool:
            step = max(1, len(pool) // deck_samples)
            picked = pool[::step][:deck_samples]
            out.append((sum(after(c) for c in picked) / len(picked), tab.take_deck))
        else:
            out.append((seat_value(state, seat, w), tab.take_deck))
    out.sort(key=lambda vt: -vt[0])
    return out


def _needed_materials(state: GameState, tab: Tables, hw: tuple[int, ...]) -> set[int]:
    """Materials of the cost of hand cards that fit the Highway but are unaffordable."""
    p = state.player
    if not p.hand:
        return set()
    cards = state.cards
    have = [0] * 5
    for c in p.hand:
        have[cards.material[c]] += 1
    needed: set[int] = set()
    for c in p.hand:
        if tab.fit(hw, c) >= 2:
            counts = cards.cost_counts[c]
            for m in range(5):
                if counts[m] > have[m] - (cards.material[c] == m):
                    needed.add(m)
    return needed


# ------------------------------------------------------------------ building

def _spent(cards: CardSet, payment) -> list[int]:
    out = []
    for step in payment:
        kind = type(step)
        if kind is Discard:
            out.append(cards.highway_index[step.card])
        elif kind is Substitute:
            out.extend(cards.highway_index[x] for x in step.cards)
    return out


def build_options(state: GameState, w: Weights = DEFAULT_WEIGHTS, exact: bool = True
                  ) -> list[tuple[float, Build]]:
    """Every single build now with the seat's value after it, best first; nothing is
    applied. ``exact``: the cheapest payment is computed and made explicit in the action;
    otherwise (rollouts, ranking) the spent cards are estimated from the fewest cards
    needed (:func:`~solver.rules.payment.cheapest_cards_needed`, taking cards whose
    Material the cost needs, least valuable first) and the engine pays when applying."""
    cards = state.cards
    tab = tables(cards)
    seat = state.current
    p = state.player
    f = future_steps(state, seat)
    live = f > 0 or state.phase == Phase.BUILD
    row = tuple(state.landmark_row)
    ids = tab.ids
    out = []
    hw = tuple(p.highway)
    lms = tuple(p.landmarks)
    both_ends = bool(hw)  # an empty Highway has one end
    material = cards.material
    keep = tab.keep_values
    src_key = memo_key = None
    if not exact:
        # everything the estimate reads (the Sources key sums up the free sources)
        src_key = Sources(state).key()
        memo_key = (tuple(p.hand), hw, lms, bool(p.discard), f, live, row, src_key, w.memo_id)
        known = tab.estimated_builds.get(memo_key)
        if known is not None:
            return known[:]
    for c in affordable_cards(state):
        hand = p.hand[:]
        hand.remove(c)
        if exact:
            payment = cheapest_payment(state, c)
            if payment is None:  # pragma: no cover - affordable_cards said it can be paid
                continue
            for x in _spent(cards, payment):
                hand.remove(x)
            actions = (Build(ids[c], "L", payment), Build(ids[c], "R", payment))
        else:
            n = cheapest_cards_needed(state, c, src_key)
            if n:
                cost = cards.cost_counts[c]
                hand.sort(key=lambda x: (not cost[material[x]], keep[x]))
                hand = hand[n:]
            actions = tab.builds[c]
        has_discard = bool(p.discard) or len(hand) < len(p.hand) - 1
        out.append((_value(tab, (c,) + hw, lms, hand, has_discard, f, live, row, w),
                    actions[0]))
        if both_ends:
            out.append((_value(tab, hw + (c,), lms, hand, has_discard, f, live, row, w),
                        actions[1]))
    out.sort(key=lambda t: -t[0])
    if memo_key is not None:
        tab.remember(tab.estimated_builds, memo_key, out[:])
    return out


def claim_options(state: GameState, w: Weights = DEFAULT_WEIGHTS
                  ) -> list[tuple[float, Claim]]:
    """Every claim now with the value after it (ability and placement included)."""
    p = state.player
    hw = tuple(p.highway)
    lms = tuple(p.landmarks)
    row_now = tuple(state.landmark_row)
    pairs = claimable_pairs(state.cards, hw, lms, row_now)
    if not pairs:
        return []
    return _valued_claims(tables(state.cards), pairs, hw, lms, p.hand, bool(p.discard),
                          future_steps(state, state.current), row_now, w)[:]


def _valued_claims(tab: Tables, pairs: tuple[tuple[int, int], ...], hw: tuple[int, ...],
                   lms: tuple[tuple[int, int], ...], hand: list[int], has_discard: bool,
                   f: int, row_now: tuple[int, ...], w: Weights) -> list[tuple[float, Claim]]:
    """:func:`claim_options` from the parts of the seat (``pairs``: its claimable
    Landmarks and cards, not empty), best first; memoised, so the list is shared: do
    not change it. Build planning values every plan's claims this way, the parts the
    plans share found once."""
    memo_key = (hw, lms, tuple(hand), has_discard, f, row_now, w.memo_id)
    known = tab.claim_values.get(memo_key)
    if known is not None:
        return known
    vector = w.vector
    hand_terms = _hand_terms(tab, hw, hand, has_discard, f)  # the same for every claim
    out = []
    row = ()
    row_of = None  # the row after claiming it
    for lm, c in pairs:
        if lm != row_of:
            row_of, row = lm, tuple(x for x in row_now if x != lm)
        score, phi = _assemble(tab.road_terms(hw, lms + ((lm, c),), f, True, row), hand_terms,
                               f)
        v = score + sum(map(mul, phi, vector))
        resource, uses = tab.landmark_kind[lm]
        if resource == "persistent_extra_use":
            has = sum(1 for x in hw if tab.one_mile[x])
            v += f * w.persistent * min(uses, max(has, 1)) * 0.7
        elif resource in ("borrow_highway", "borrow_discard"):
            v += f * w.borrow * uses
        if resource != "miles":
            # keep cards that show another Scenery free for that Scenery's Landmark
            v -= w.placement_block * (len(tab.sceneries[c]) - 1)
        v -= 0.01 * tab.miles[c]  # tie-break: small cards carry non-mile Landmarks
        out.append((v, tab.claim_action(lm, c)))
    out.sort(key=lambda t: -t[0])
    tab.remember(tab.claim_values, memo_key, out)
    return out


def build_step_inplace(state: GameState, w: Weights = DEFAULT_WEIGHTS,
                       rng: random.Random | None = None, noise: float = 0.0,
                       exact: bool = True) -> list[Action]:
    """Play the greedy build step on ``state`` in place and return its actions: builds
    one at a time while one raises the evaluation, then the best claim (a claim is
    free, so one is always made when possible) or ``end``. ``noise`` (points, times a
    Gumbel variable drawn from ``rng``) randomises rollouts."""
    seat = state.current
    actions: list[Action] = []
    while True:
        options = build_options(state, w, exact)
        if not options:
            break
        if noise and rng is not None:
            options = [(v + noise * _gumbel(rng), a) for v, a in options]
            options.sort(key=lambda t: -t[0])
        v, action = options[0]
        if v <= seat_value(state, seat, w) + 1e-9:
            break
        actions.append(action)
        apply_inplace(state, action)
    return _claim_and_end(state, w, actions)


def _claim_and_end(state: GameState, w: Weights, actions: list[Action]) -> list[Action]:
    """End a build step in place with the heuristic's best claim (or ``end``)."""
    claims = claim_options(state, w)
    last = claims[0][1] if claims else End()
    actions.append(last)
    apply_inplace(state, last)
    return actions


def ended_outcome(state: GameState, w: Weights = DEFAULT_WEIGHTS,
                  build: Build | None = None) -> StepOutcome:
    """What ending the build step now with the heuristic's best claim (or ``end``) leaves
    the player to act, without making that state: the row refilled from ``state``'s
    Landmark deck as the engine would, so the evaluations read exactly the numbers of
    the state ended in place (:func:`valued_build_step_inplace` values its options so).
    ``build`` (a Build without a payment, as ``build_options(exact=False)`` gives): the
    step ended after that build too, paid as the engine pays it (the cheapest way)."""
    cards = state.cards
    p = state.player
    hw = tuple(p.highway)
    hand = p.hand
    has_discard = bool(p.discard)
    if build is not None:
        c = cards.highway_index[build.card]
        payment = cheapest_payment(state, c)
        if payment is None:
            raise PaymentError(f"{build.notation()!r}: {build.card} cannot be paid for")
        hand = hand[:]
        hand.remove(c)  # the engine's order: the card, then the spent cards in turn
        spent = _spent(cards, payment)
        for x in spent:
            hand.remove(x)
        has_discard = has_discard or bool(spent)
        hw = (c,) + hw if build.side == "L" else hw + (c,)
    lms = tuple(p.landmarks)
    row = tuple(state.landmark_row)
    pairs = claimable_pairs(cards, hw, lms, row)
    if pairs:
        claim = _valued_claims(tables(cards), pairs, hw, lms, hand, has_discard,
                               future_steps(state, state.current), row, w)[0][1]
        lm = cards.landmark_index[claim.landmark]
        lms += ((lm, cards.highway_index[claim.card]),)
        row = tuple(x for x in row if x != lm)
        if state.landmark_deck:
            row += (state.landmark_deck[-1],)
    return StepOutcome(hw, lms, tuple(hand), has_discard, row, turn_ends_game(state))


def turn_ends_game(state: GameState) -> bool:
    """Whether the game ends with the current turn: the Depot's refill at its end
    empties the Highway deck (builds and claims do not touch either)."""
    return len(state.deck) <= DEPOT_SIZE - len(state.depot)


def greedy_builds(state: GameState, w: Weights = DEFAULT_WEIGHTS) -> list[Action]:
    """The greedy build step from ``state`` (not changed): builds, then claim or end."""
    return build_step_inplace(state.copy(), w)


def _gumbel(rng: random.Random) -> float:
    return -math.log(-math.log(rng.random() + 1e-12) + 1e-12)


def build_macros(state: GameState, limit: int = 8, beam: int = 3,
                 w: Weights = DEFAULT_WEIGHTS, needed: int | None = None
                 ) -> list[tuple[float, tuple[Action, ...]]]:
    """Candidate build steps (macro-actions: builds in order, then a claim or ``end``),
    ranked by the evaluation, at most ``limit`` plus the greedy plan and ``end``: a
    beam search over build sequences (``beam`` best partial plans per depth), each plan
    finished with its two best claims. Builds carry no payment (the engine pays the
    cheapest way), so a macro applies in any determinization of the same view.
    ``needed``: only the first ``needed`` candidates are wanted (search's progressive
    widening); when the ``limit`` best plans fill them, the greedy plan and ``end``
    (which come after those) are not looked for and the list stops there."""
    seat = state.current
    plans: dict[tuple, tuple[float, tuple[Action, ...], GameState]] = {
        _plan_key(state): (seat_value(state, seat, w), (), state)}
    frontier = [(0.0, (), state)]
    while frontier:
        nxt = []
        for _v, seq, s in frontier:
            built: dict[str, tuple[str, GameState]] = {}  # card -> (side, state after)
            for v, action in build_options(s, w, exact=False):
                first = built.get(action.card)
                if first is None:
                    after = s.copy_for_builds()
                    apply_inplace(after, action)
                    built[action.card] = (action.side, after)
                else:
                    after = _at_other_end(*first)
                key = _plan_key(after)
                if key in plans:
                    continue
                move = seq + (action,)  # (no payment: the engine pays the cheapest way)
                plans[key] = (v, move, after)
                nxt.append((v, move, after))
        nxt.sort(key=lambda t: -t[0])
        frontier = nxt[:beam]
    end = End()
    # the plans' claims (claim_options of each plan): builds change neither the seat's
    # Landmarks nor the row nor its build steps to come
    cards = state.cards
    tab = tables(cards)
    lms = tuple(state.player.landmarks)
    row_now = tuple(state.landmark_row)
    f = future_steps(state, seat)
    # (every sequence is new: plans differ, and so do a plan's claims)
    finished: list[tuple[float, tuple[Action, ...]]] = []
    for v, seq, s in plans.values():
        finished.append((v, seq + (end,)))
        p = s.players[seat]
        hw = tuple(p.highway)
        pairs = claimable_pairs(cards, hw, lms, row_now)
        if pairs:
            for cv, claim in _valued_claims(tab, pairs, hw, lms, p.hand, bool(p.discard), f,
                                            row_now, w)[:2]:
                finished.append((cv, seq + (claim,)))
    finished.sort(key=lambda t: -t[0])
    out = finished[:limit]
    if needed is not None and needed <= len(out):
        # the plans added below sort after these: none is better than the last of them
        return out[:needed]
    greedy = tuple(Build(a.card, a.side) if type(a) is Build else a
                   for a in greedy_builds(state, w))
    values = {seq: v for v, seq in finished}
    keep = {seq for _v, seq in out}
    for must in (greedy, (end,)):
        if must not in keep:
            out.append((values.get(must, -1e9), must))
            keep.add(must)
    out.sort(key=lambda t: -t[0])
    return out


def _at_other_end(side: str, state: GameState) -> GameState:
    """The state after the same build as ``state``'s last one (at ``side``) but at the
    other end: the engine's payment of a build does not depend on its side."""
    new = state.copy_for_builds()
    hw = new.players[new.current].highway
    if side == "L":
        hw.append(hw.pop(0))
    else:
        hw.insert(0, hw.pop())
    return new


def _plan_key(state: GameState) -> tuple:
    p = state.player
    return (tuple(p.highway), tuple(sorted(p.hand)), tuple(p.discard[-1:]))


# ------------------------------------------------------------------ whole turns

def greedy_take(state: GameState, pool: list[int] | None = None,
                w: Weights = DEFAULT_WEIGHTS, rng: random.Random | None = None,
                noise: float = 0.0) -> Take:
    values = take_values(state, pool, w)
    if noise and rng is not None and len(values) > 1:
        return max(values, key=lambda vt: vt[0] + noise * _gumbel(rng))[1]
    return values[0][1]


def greedy_action(state: GameState, pool: list[int] | None = None,
                  w: Weights = DEFAULT_WEIGHTS, lookahead: bool = True) -> Action:
    """The greedy player's next action (stateless: replanning after each build gives
    the same sequence, since each build is chosen from the state alone). ``lookahead``
    values takes by trying the turn's build step (:func:`lookahead_take_values`)."""
    if state.phase == Phase.TAKE:
        if lookahead:
            return lookahead_take_values(state, pool, w)[0][1]
        return greedy_take(state, pool, w)
    return greedy_builds(state, w)[0]


def play_turn(state: GameState, rng: random.Random, w: Weights = DEFAULT_WEIGHTS,
              noise: float = 0.3, lookahead: int = 0, turn_end_scores=None) -> None:
    """Rollout step: the player to act finishes the current turn greedily (with Gumbel
    ``noise`` on the choices), in place. ``lookahead`` > 0 values takes by trying the
    build step (:func:`lookahead_take_values`, the deck over that many of its cards).
    ``turn_end_scores`` (an evaluator's ``turn_end_scores(state, outcomes)``): the build
    step is :func:`valued_build_step_inplace` by it instead of the heuristic's."""
    play_takes(state, rng, w, noise, lookahead)
    if state.phase == Phase.BUILD:
        if turn_end_scores is not None:
            valued_build_step_inplace(state, turn_end_scores, w, rng, noise * 0.5)
        else:
            build_step_inplace(state, w, rng, noise * 0.5, exact=False)


def play_takes(state: GameState, rng: random.Random, w: Weights = DEFAULT_WEIGHTS,
               noise: float = 0.3, lookahead: int = 0) -> None:
    """Rollout step: the player to act makes the turn's remaining takes greedily (with
    Gumbel ``noise``), in place; ``lookahead`` as in :func:`play_turn`."""
    while state.phase == Phase.TAKE:
        if lookahead:
            values = lookahead_take_values(state, None, w, lookahead)
            take = max(values, key=lambda vt: vt[0] + noise * _gumbel(rng))[1]
        else:
            take = greedy_take(state, None, w, rng, noise)
        apply_inplace(state, take)


def valued_build_step_inplace(state: GameState, turn_end_scores, w: Weights = DEFAULT_WEIGHTS,
                              rng: random.Random | None = None, noise: float = 0.0,
                              width: int = 4) -> list[Action]:
    """The build step one build at a time like :func:`build_step_inplace`, but each
    build is chosen by ``turn_end_scores`` (an evaluator's, e.g. the learned value's
    :meth:`~solver.search.value.ValueModel.turn_end_scores`) among the heuristic's
    ``width`` best and stopping, each valued as the turn ended there with the
    heuristic's claim (:func:`ended_outcome`: no state is ended to value it); in place,
    returns the actions."""
    actions: list[Action] = []
    _valued_builds_inplace(state, turn_end_scores, w, rng, noise, width, actions, False)
    return _claim_and_end(state, w, actions)


def valued_build_step_value(state: GameState, turn_end_scores, w: Weights = DEFAULT_WEIGHTS,
                            width: int = 4) -> float:
    """What :func:`valued_build_step_inplace` (without noise) expects its build step to
    be worth: the evaluator's value of the turn ended where it stops. ``state`` is not
    changed. A cheap stand-in for the best of all build steps (a few builds valued,
    not every build set in every order)."""
    after = state.copy_for_builds()
    return _valued_builds_inplace(after, turn_end_scores, w, None, 0.0, width, [], True)


def _valued_builds_inplace(state: GameState, turn_end_scores, w: Weights,
                           rng: random.Random | None, noise: float, width: int,
                           actions: list[Action], value_wanted: bool) -> float:
    """The builds of :func:`valued_build_step_inplace`, made in place and added to
    ``actions``; returns the (noisy) value of stopping where it stopped when
    ``value_wanted`` (else 0.0 when no build was left to value)."""
    while True:
        options = build_options(state, w, exact=False)[:width]
        if not options and not value_wanted:
            return 0.0
        moves: list[Action | None] = [None]
        outcomes = [ended_outcome(state, w)]
        for _v, action in options:
            moves.append(action)
            outcomes.append(ended_outcome(state, w, action))
        values = turn_end_scores(state, outcomes)
        if noise and rng is not None:
            values = [v + noise * _gumbel(rng) for v in values]
        best = max(range(len(moves)), key=values.__getitem__)
        action = moves[best]
        if action is None:
            return values[best]
        actions.append(action)
        apply_inplace(state, action)


# ------------------------------------------------------------------ fitting the weights

def self_play_samples(cards: CardSet, players: int, games: int, seed: int,
                      w: Weights = DEFAULT_WEIGHTS, noise: float = 0.3):
    """(score now, features, final score) of every seat at every turn start of noisy
    greedy self-play games: the data :func:`fit_weights` regresses on."""
    from ..rules.engine import new_game, outcome

    rng = random.Random(seed)
    for _ in range(games):
        state = new_game(players, rng.randrange(2**31), cards)
        rows = []
        while state.phase != Phase.OVER:
            for seat in range(players):
                rows.append((seat, *seat_features(state, seat)))
            play_turn(state, rng, w, noise)
        final = [sc.total for sc in outcome(state).scores]
        for seat, score, phi in rows:
            yield score, phi, final[seat]


def fit_weights(cards: CardSet, players: int, games: int = 300, seed: int = 0,
                w: Weights = DEFAULT_WEIGHTS) -> Weights:
    """Least-squares fit of the :data:`FEATURES` weights to the points still to come
    (final score minus score now) in noisy greedy self-play with ``players`` players;
    decision-only weights are copied from ``w``. This is how :data:`EVAL_WEIGHTS` were
    made (``fit_weights(load_card_set(), n, 300, seed=n)``)."""
    import numpy as np

    xs, ys = [], []
    for score, phi, final in self_play_samples(cards, players, games, seed, w):
        xs.append(phi)
        ys.append(final - score)
    coef, *_ = np.linalg.lstsq(np.array(xs), np.array(ys), rcond=None)
    return replace(w, **{name: round(float(c), 3) for name, c in zip(FEATURES, coef, strict=True)})
