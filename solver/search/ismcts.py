"""Information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012) over macro-actions.

One tree per search, rooted at the searching seat's information set. Every iteration:

1. *determinize*: draw a full state consistent with the seat's view
   (:class:`~solver.search.determinize.Determinizer`); the real state is never seen;
2. *select* down the tree with UCB1 over the children *available* in this
   determinization (availability counts replace the parent's visits), with
   *progressive widening*: a node considers only its ``ceil(pw_c * n ** pw_alpha)`` best
   moves by the heuristic (:mod:`~solver.search.policies`) after ``n`` visits;
3. *expand* the best-ranked untried move;
4. *roll out* with the greedy heuristic plus Gumbel noise to the end of the root's round
   (``rollout_rounds`` more rounds if asked; ``cutoff="replies"``: until every other
   seat has answered the root's turn; a turn in progress is always finished),
   then *cut off* with :func:`~solver.search.policies.estimate_scores` and its
   calibrated weights (exact scores when the game ends first): short rollouts won
   against long ones at equal time;
5. *back up*, for each node, the reward of the seat that moved into it: its win share
   (a logistic estimate from the score margin at a cut-off) blended with its margin.

Moves are the decisions of the game with the build step folded into one
*macro-action*: a take (Depot card or deck) is one move; a whole build step (builds in
order, each paid the cheapest way, then a claim or ``end``) is one move, its candidates
generated and ranked by :func:`~solver.search.policies.build_macros`. A turn is thus
three levels of the tree. Edges are keyed by public facts (card ids and sides), so an
opponent's move is the same edge in every determinization where it is possible. Below
the root, the searching seat's own build step is not searched but played: the one the
learned value rates best among all its build steps (:func:`own_build_step`), so a take
is valued by the best it lets the seat build.

Root parallelism: ``workers`` processes search independent trees with different seeds
and their root statistics are summed (:func:`search`). :meth:`Searcher.advance` keeps a
tree between the decisions of one turn when the move played revealed nothing (a Depot
take), as :class:`~solver.search.bots.MCTSBot` does.
"""

from __future__ import annotations

import gc
import json
import math
import random
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import Any

from ..rules.actions import Action, Build, End, Take
from ..rules.engine import apply_inplace, outcome
from ..rules.payment import PaymentError, cheapest_payment, joint_payment
from ..rules.state import GameState, Phase
from ..rules.views import PlayerView
from .buildsteps import best_found_last_step, best_last_step, is_last_build_step, step_outcomes
from .determinize import Determinizer
from .policies import (
    DEFAULT_WEIGHTS,
    Weights,
    build_macros,
    estimate_scores,
    lookahead_take_values,
    play_takes,
    play_turn,
    tables,
    take_values,
    turn_end_value,
    valued_build_step_value,
)
from .value import ValueModel, default_evaluator, one_blas_thread, win_shares


@dataclass(frozen=True)
class SearchParams:
    """Knobs of the search (defaults tuned on short 2-player runs)."""

    c_uct: float = 0.6  # exploration constant (rewards are in [0, 1])
    # the exploration constant at the searching seat's own nodes below the root (None:
    # c_uct). Lower, the value of a take converges sooner to that of its best follow-up,
    # instead of averaging over the seat's own second takes while it explores them.
    # 0.2 was the default for one run and reverted: 1 s hints agreed with 16 s on 77%
    # (84% without), since the 16 s search moved too (docs/ai.md, "Hints"). With the
    # seat's takes and build steps below the root played by the value (own_takes,
    # own_builds), its nodes in the root's round have one move each: this then acts only
    # on the first takes of its later turns (rollout_rounds > 0)
    c_own: float | None = None
    pw_c: float = 1.5  # progressive widening: children allowed = ceil(pw_c * n ** pw_alpha)
    pw_alpha: float = 0.5
    macro_limit: int = 8  # build macros generated per node
    macro_beam: int = 3
    # full rounds simulated past the root before the cut-off (0: to the end of the
    # root's round; -1: only finish the turn in progress at the leaf)
    rollout_rounds: int = 0
    # where that cut-off falls: "round" (at a round's end, every seat having had the same
    # turns: the last seat of a round then searches its own turn only) or "replies" (once
    # every other seat has moved after the root's turn, so that each seat's search sees
    # its opponents answer; mid-round for all but the first seat). "replies": level at
    # 1 s (51.0%, margin +2.5), 1.6 s against itself at 0.4 s 57.5% (the default's step:
    # 55.0%), but hints 87.0% (94.0% with "round"); at 1.6 s against "round" at 0.4 s
    # (a switch for long searches only) 57.0%: not the default (docs/ai.md)
    cutoff: str = "round"
    rollout_noise: float = 0.3  # Gumbel noise (points) on rollout choices
    rollout_lookahead: int = 0  # >0: rollout takes try the build step (deck: that many cards)
    # reward = (1 - w) * win share + w * squashed margin; at 0.4 s 0.0 and 0.5 measured
    # no better, at 1 s 0.1 level (49.5%, docs/ai.md)
    margin_weight: float = 0.25
    margin_scale: float = 15.0
    # win probability at a cut-off: Phi(margin / sigma), sigma = sigma0 + sigma1 *
    # sqrt(turns left), fitted to the spread of final margins around the estimate
    sigma0: float = 4.0
    sigma1: float = 6.0
    tree_turns: int = 0  # turns the tree spans from the root's (0: no limit; -1: none
    # below the root's candidates: each is played out by the rollout policy)
    # how deep the tree may grow: "cutoff" (not past the rollouts' cut-off: every
    # iteration is evaluated at the same point, the end of the root's round, or the
    # game's end) or "open" (past it, the evaluation then coming after the leaf's turn:
    # the first seven versions). Open, a candidate whose subtree grows deeper sooner (a
    # Depot take's, not shared by the cards a deck take may show) was valued at a later
    # point than its rivals, so a short and a long search ranked the same moves by
    # different measures. Level in play at 1 s (50.2%, margin -1.1, docs/ai.md)
    tree_horizon: str = "cutoff"
    # the game's last rounds searched to its end: when the game ends within this many
    # rounds after the root's cut-off, the cut-off (and the tree's horizon with it) is
    # the game's end, scored exactly rather than valued (0: never). 1: the ladder step
    # 1.6 s against itself at 0.4 s 57.0% (the default's 55.0%), not 60%: opt-in
    endgame_rounds: int = 0
    line_min_visits: int = 2
    line_max: int = 9
    weights: Weights = DEFAULT_WEIGHTS  # rollout and move-ranking heuristic
    eval_weights: Weights | None = None  # cut-off evaluation (None: EVAL_WEIGHTS[players])
    # the cut-off evaluation: "auto" (the shipped learned model when it was trained on
    # the card set, else the heuristic), "heuristic", or a model file's path
    value: str = "auto"
    exact_last: bool = True  # the seat's last build step: the exact best (buildsteps)
    # the root: "race" (candidates compared on the same determinizations and rollout
    # seeds, clearly worse ones dropped) or "uct" (UCB1 with progressive widening)
    root: str = "race"
    race_start: int = 6  # candidates raced at first
    race_min_active: int = 3  # fewer left: the next candidates join
    race_min_rounds: int = 6  # rounds before a candidate may be dropped
    race_z: float = 2.0  # dropped when worse than the leader by z standard errors
    root_widening: int = 24  # build steps beyond the macros the root may widen to
    # the order of the root's build steps: "heuristic" (the macros first, then the
    # widening by the evaluator) or "value" (all of them by the evaluator)
    root_step_order: str = "heuristic"
    # >0 (with own_builds="tree"): once the searching seat has met one of its own build
    # steps inside the tree that many times, its candidates become all the build steps
    # by the evaluator
    tree_step_upgrade: int = 0
    # the rollouts' build steps: "greedy" (the heuristic's), "value" (each build chosen
    # by the evaluator, :func:`~solver.search.policies.valued_build_step_inplace`, about
    # 2.3x the cost of an iteration), or "auto": "value" for a search given at least
    # ``value_rollouts_from`` seconds (or 1,000 times as many iterations), "greedy" for
    # a shorter one. A short search is short of rounds, so cheap rollouts serve it best;
    # a long one has rounds to spare, and what it lacks is a truer rollout.
    rollout_builds: str = "auto"
    value_rollouts_from: float = 0.25
    # the searching seat's own build steps below the root (in the tree and in rollouts):
    # "value" (the one build step the evaluator values best among all of them,
    # :func:`own_build_step`) or "tree" (tree nodes over the heuristic's macros, greedy in
    # rollouts: the first versions). "value" won 62.3% (margin +10.8) at 1 s a turn.
    own_builds: str = "value"
    # the root's candidates at a turn's first take: "single" (each take; the second is
    # a node of the tree below it) or "pairs" (both takes of the turn as one move when
    # the first is from the Depot, which reveals nothing; the deck first stays single)
    root_takes: str = "single"
    # the searching seat's second take of a turn below the root (with own_builds="value"):
    # "tree" (a node over the takes, explored by UCB) or "value" (played, not searched: the
    # take whose best build step the evaluator values most, the deck as the mean over
    # ``own_take_samples`` of the cards it may show, :func:`own_take`)
    own_takes: str = "value"
    own_take_samples: int = 6
    # how own_take values the build step after each take: "full" (the best of all build
    # steps, :func:`own_build_step`) or "greedy" (the value's greedy step,
    # :func:`~solver.search.policies.valued_build_step_value`: a few builds valued, not
    # every build set in every order; the last build step stays exact). About 10x
    # cheaper cold; level in play at 1 s (51.5%, docs/ai.md), so not the default
    own_take_value: str = "full"
    # build sequences tried at most for a build step below the root (the seat's own, its
    # take lookahead's one per take, 11 at a turn's second take; and every seat's exact
    # last step): past it no last step is exact, and the seat's step is chosen among the
    # shortest sequences (breadth first). Hoarded hands allow tens of thousands: at 3,000
    # (2,000 for exact steps) one iteration took up to 8 s and a 1 s hint overran its
    # deadline; against it at 1 s, 3,000 53.0% (p = 0.072), 1,000 51.2% (docs/ai.md)
    own_step_limit: int = 400
    # the deck's top cards over the iterations (a race's rounds): that many places from
    # the top each see every unseen card in turn (a fixed shuffled order per place, each
    # round's state drawn given them), so that a deck take's mean is not swayed by which
    # cards chance put on top in few rounds; 0: as the samples drew them. Level in play
    # at 1 s (51.0%); two 16 s searches agree on 96.4% of the hint take positions with
    # it, 89.3% without (docs/ai.md)
    stratify_top: int = 1
    # which of the opponents' decisions below the root are tree nodes: "all" (takes and
    # build steps), "takes" (their build steps played by the rollout policy on their
    # sampled hands) or "none" (their whole turns played so). A tree node of an
    # opponent's is shared by every hand the samples give it, so it learns the move best
    # on average over hands (strategy fusion); the policy answers each hand. "takes":
    # level at 1 s (47.8%) and 0.4 s (51.0%); hints 97.0% (94.0%); as the default the
    # ladder read 58.5% and 57.8% (60.5% and 55.0%), both steps p = 0.001, neither at
    # the 60% goal, the other parts level: one goal fewer, so opt-in (docs/ai.md).
    # "none": level at 1 s (53.2%, margin +0.8), the ladder step 53.2% against itself;
    # at a 4-player table level too (25.5% a seat against 24.5%, p = 0.43)
    opp_tree: str = "all"
    # how the rollouts play the opponents' build steps: "rollout" (the rollout policy:
    # the heuristic's, or the value among its 4 best with ``rollout_builds``) or "value"
    # (as the seat's own: the best of all their build steps on their sampled hand by the
    # evaluator, :func:`own_build_step`); with opp_tree="takes" every opponent build step
    # below the root is played so. Both together: as a ladder step 52.2% (p = 0.22), at
    # 1 s against the default 46.8% (p = 0.94): not adopted (docs/ai.md)
    opp_builds: str = "rollout"
    # a time budget per turn (:class:`~solver.search.bots.MCTSBot`): the share of it the
    # turn's first take may use (the second take then half of what is left, the build
    # step the rest). Against 0.4 at 1 s: 0.6 48.2%, level; 0.25 45.5%, margin -3.9,
    # worse (docs/ai.md)
    first_take_share: float = 0.4

    def __post_init__(self):
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"SearchParams.{name}: {getattr(self, name)!r} is not one "
                                 f"of {', '.join(allowed)}")
        if not isinstance(self.exact_last, bool):
            raise ValueError(f"SearchParams.exact_last: {self.exact_last!r} is not true or "
                             f"false")
        for name, unit, least in (("stratify_top", "places", 0),
                                  ("endgame_rounds", "rounds", 0),
                                  ("own_step_limit", "sequences", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"SearchParams.{name}: {value!r} is not a whole number "
                                 f"of {unit}, {least} or more")
        share = self.first_take_share
        if isinstance(share, bool) or not isinstance(share, (int, float)) \
                or not 0.0 < share < 1.0:
            raise ValueError(f"SearchParams.first_take_share: {share!r} is not a number "
                             f"between 0 and 1")


_CHOICES = {"root": ("race", "uct"), "root_step_order": ("heuristic", "value"),
            "rollout_builds": ("greedy", "value", "auto"), "own_builds": ("tree", "value"),
            "root_takes": ("single", "pairs"), "own_takes": ("tree", "value"),
            "own_take_value": ("full", "greedy"), "tree_horizon": ("open", "cutoff"),
            "cutoff": ("round", "replies"), "opp_tree": ("all", "takes", "none"),
            "opp_builds": ("rollout", "value")}
DEFAULT_PARAMS = SearchParams()


def parse_param_overrides(pairs: list[str]) -> dict:
    """``NAME=VALUE`` texts as :class:`SearchParams` overrides, each value read as JSON
    (else kept as text); ValueError naming the pair or the value that is wrong.

    >>> parse_param_overrides(["root=uct", "race_z=2.5"])
    {'root': 'uct', 'race_z': 2.5}
    """
    names = {f.name for f in fields(SearchParams)}
    out = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or name not in names:
            raise ValueError(f"{pair!r} is not NAME=VALUE with NAME one of "
                             f"{', '.join(sorted(names))}")
        try:
            out[name] = json.loads(text)
        except json.JSONDecodeError:
            out[name] = text
    try:
        replace(DEFAULT_PARAMS, **out)
    except TypeError as err:
        raise ValueError(str(err)) from None
    return out


class Node:
    __slots__ = ("move", "mover", "children", "visits", "avail", "total", "wins", "margin")

    def __init__(self, move, mover: int):
        self.move = move  # tuple of actions (a take is a 1-tuple)
        self.mover = mover  # seat that played ``move`` to reach this node
        self.children: dict[tuple, Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.wins = 0.0
        self.margin = 0.0


@dataclass(frozen=True)
class PairedGap:
    """How a racing root tells a move from its first move: over ``rounds`` rounds both
    played (each round the same sampled deal and playout seed for every candidate), the
    first move's mean reward is ``standard_errors`` standard errors of the paired
    difference above this move's (negative: below; held within +-999). ``every_round``:
    the two differed by the same amount on every one of those rounds (the test's error
    is nil: the order is certain, and held at the bound). ``clear``: at least the race's
    own bar for dropping a candidate (``race_z``, or Student's t at 97.5% when that is
    higher); how often such a lead at 1 s holds against a 16 s search is measured
    (``bench.strength --part hints``), not promised by the bar, which the race applies
    again every two rounds.
    ``alike``: the two scored exactly alike on every one of those rounds, the same move
    as far as the search can tell."""

    rounds: int
    standard_errors: float
    clear: bool
    alike: bool = False
    every_round: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "standard_errors": round(self.standard_errors, 2),
                "clear": self.clear, "alike": self.alike, "every_round": self.every_round}


@dataclass
class MoveStats:
    """Root statistics of one move (summed over workers); ``versus_top``: how the race
    tells it from the first move (:func:`search`'s output; None for the first move, a
    root that did not race, or fewer than two rounds in common)."""

    move: tuple[Action, ...]
    visits: int = 0
    total: float = 0.0
    wins: float = 0.0
    margin: float = 0.0
    line: list[str] = field(default_factory=list)
    line_visits: int = 0
    versus_top: PairedGap | None = None

    @property
    def value(self) -> float:
        return self.total / self.visits if self.visits else 0.0

    @property
    def win_probability(self) -> float:
        return self.wins / self.visits if self.visits else 0.0

    @property
    def expected_margin(self) -> float:
        return self.margin / self.visits if self.visits else 0.0


@dataclass
class SearchOutput:
    seat: int
    moves: list[MoveStats]  # best first
    iterations: int
    seconds: float
    determinizations: int
    workers: int
    exact_score: int | None = None  # the last build step, solved: its final score


# ------------------------------------------------------------------ moves of a state

def root_moves(state: GameState, params: SearchParams = DEFAULT_PARAMS,
               pool: list[int] | None = None, evaluator=None,
               needed: int | None = None, try_exact: bool = True) -> list[tuple]:
    """The candidate moves at a decision, best first. With ``pool`` (the cards the seat
    has not seen: a root decision) takes are ranked by trying the turn's build step
    (:func:`~solver.search.policies.lookahead_take_values`) and the build step widens:
    after the heuristic's macros come up to ``params.root_widening`` more of all the
    build steps (:func:`~solver.search.buildsteps.all_build_steps`), ordered by
    ``evaluator`` (the learned value when there is one), for progressive widening to
    reach. In a player's last build step the exact best one
    (:func:`~solver.search.buildsteps.best_last_step`) is the only candidate; where there
    are too many sequences for it, the best found among the best scoring ones
    (:func:`~solver.search.buildsteps.best_found_last_step`) leads the macros.
    ``needed``: only the first ``needed`` moves are wanted (a list of build macros may
    stop there, :func:`~solver.search.policies.build_macros`). ``try_exact``: False when
    the caller has tried the exact step already (it costs seconds at a hoarded hand)."""
    if state.phase == Phase.TAKE:
        if pool is not None:
            singles = lookahead_take_values(state, pool, params.weights)
            if params.root_takes == "pairs" and state.picks == 0:
                return _take_pairs(singles)
            return [(a,) for _v, a in singles]
        return [(a,) for _v, a in take_values(state, None, params.weights)]
    if state.phase == Phase.BUILD:
        if params.exact_last and try_exact:
            exact = _exact_last(state, ROOT_EXACT_LIMIT if pool is not None
                                else params.own_step_limit)
            if exact is not None:
                return [exact.move]
        macros = [seq for _v, seq in build_macros(state, params.macro_limit, params.macro_beam,
                                                  params.weights, needed)]
        if pool is not None and params.exact_last and is_last_build_step(state):
            # too many sequences to be exact: the best of the most promising ones leads,
            # then the macros (the widening's cut keeps the shortest sequences, which
            # score least in a last build step)
            found, _score = best_found_last_step(state, ROOT_FOUND_LIMIT)
            return [found] + [m for m in macros if m != found]
        if pool is not None and params.root_step_order == "value" and evaluator is not None:
            return _valued_steps(state, params, evaluator, params.macro_limit
                                 + params.root_widening)
        if pool is not None and params.root_widening > 0:
            macros += _wider_steps(state, set(macros), params, evaluator)
        return macros
    return []


def _take_pairs(singles: list[tuple[float, Take]]) -> list[tuple]:
    """A turn's two takes as one move, best first by the sum of the single takes'
    values: two Depot cards (the better one taken first), a Depot card then the deck,
    and the deck alone (what it shows decides the second take, below it in the tree).
    Singles valued A 3, deck 2, B 1 give (A, deck) and the deck alone at 5, (A, B) at 4,
    then (B, deck) at 3."""
    value = {take: v for v, take in singles}
    depot = [take for _v, take in singles if take.card is not None]
    pairs = [(value[a] + value[b], (a, b)) for i, a in enumerate(depot) for b in depot[i + 1:]]
    for deck in (take for _v, take in singles if take.card is None):
        pairs += [(value[a] + value[deck], (a, deck)) for a in depot]
        pairs.append((value[deck] + max((value[a] for a in depot), default=value[deck]),
                      (deck,)))
    pairs.sort(key=lambda vm: -vm[0])
    return [move for _v, move in pairs]


# build sequences the root's exact last step may try (inside the tree: own_step_limit)
ROOT_EXACT_LIMIT = 20_000
# past it, the root's best found last step tries this many, the best scoring first
ROOT_FOUND_LIMIT = 5_000


def _exact_last(state: GameState, limit: int):
    """The exact best last build step, or None (not the last step, or more than
    ``limit`` build sequences to try: then it would not be exact)."""
    if not is_last_build_step(state):
        return None
    return best_last_step(state, limit)


def _wider_steps(state: GameState, have: set, params: SearchParams, evaluator) -> list[tuple]:
    """Build steps beyond ``have``, best first by the seat's value after the turn."""
    steps = _valued_steps(state, params, evaluator, None)
    return [m for m in steps if m not in have][:params.root_widening]


def _valued_steps(state: GameState, params: SearchParams, evaluator, limit: int | None
                  ) -> list[tuple]:
    """All the build steps (the ``limit`` best) by the seat's value after the turn: the
    evaluator's (the heuristic's when None; exact when the game ends)."""
    steps, values = _step_values(state, params, evaluator, 3_000)
    order = sorted(range(len(steps)), key=lambda i: -values[i])
    return [steps[i] for i in order[:limit]]


def _step_values(state: GameState, params: SearchParams, evaluator, limit: int
                 ) -> tuple[list[tuple], list[float]]:
    """The build steps of the player to act (``limit`` sequences; when there are more,
    the shortest ones) and the value of each: its expected final score once the turn
    ends there, by the evaluator (the heuristic's when None; exact when the game ends)."""
    steps, index, outcomes = step_outcomes(state, limit)
    if sum(1 for step in steps if isinstance(step[-1], End)) >= limit:  # cut: shortest first
        steps, index, outcomes = step_outcomes(state, limit, breadth_first=True)
    if evaluator is None:
        values = [turn_end_value(state, o, params.weights) for o in outcomes]
    else:
        values = evaluator.turn_end_scores(state, outcomes)
    return steps, [values[k] for k in index]


def evaluator_for(params: SearchParams, cards):
    """The cut-off evaluator of ``params.value`` for ``cards`` (None: the hand-written
    evaluation with ``params``' own sigma, exactly as before the learned model)."""
    if params.value == "heuristic":
        return None
    if params.value == "auto":
        ev = default_evaluator(cards)
        return ev if isinstance(ev, ValueModel) else None
    return _load_model(params.value)


@lru_cache(maxsize=4)
def _load_model(path: str) -> ValueModel:
    return ValueModel.load(path)


class Searcher:
    """One SO-ISMCTS tree for the seat of ``view`` (which must be to act)."""

    def __init__(self, view: PlayerView, seed: int, params: SearchParams = DEFAULT_PARAMS,
                 moves: list[tuple[Action, ...]] | None = None):
        """``moves``: the root's candidates, instead of the search's own (each a whole
        decision as the search plays it, e.g. ``(End(),)``): to value a move it would
        not have tried, such as a review's move played."""
        self.created = time.perf_counter()  # a time budget counts the root's set-up too
        self.view = view
        self.seat = view.seat
        self.params = params
        self.rng = random.Random(seed)
        self.det = Determinizer(view)
        self.root = Node((), -1)
        self.iterations = 0
        sample = self.det.sample(random.Random(seed))
        self.evaluator = evaluator_for(params, view.cards)
        # the last build step: solved exactly (own hand and public facts only)
        self.exact = _exact_last(sample, ROOT_EXACT_LIMIT) \
            if params.exact_last and moves is None else None
        if moves is not None:
            self.root_order = [tuple(m) for m in moves]
        elif self.exact is not None:
            self.root_order = [self.exact.move]
        else:
            with one_blas_thread(), full_gc_deferred():
                self.root_order = root_moves(sample, params, view.unseen_cards(),
                                             self.evaluator, try_exact=False)
        self.n = view.num_players
        self.cutoff_turn = self._cutoff(view.turn, sample)
        self.tree_end = self._tree_end(view.turn)
        self._move_cache: dict[tuple, list[tuple]] = {}
        self._hits: dict[tuple, int] = {}  # visits of the seat's own cached build steps
        self._upgrade = params.tree_step_upgrade if self.evaluator is not None else 0
        self._rollout_scores = (self.evaluator.turn_end_scores if self.evaluator is not None
                                and params.rollout_builds == "value" else None)
        self._own_value = params.own_builds == "value" and self.evaluator is not None
        self._own_takes = self._own_value and params.own_takes == "value"
        self._opp_value = params.opp_builds == "value" and self.evaluator is not None
        self._unseen = tuple(sorted(view.unseen_cards()))
        self._seed = seed
        self._tops = []  # per stratified place of the deck, its order of the unseen cards
        for depth in range(params.stratify_top if self.det.unseen else 0):
            order = list(self.det.unseen)
            random.Random(_worker_seed(seed, 2_000_003 + depth)).shuffle(order)
            self._tops.append(order)
        self._race_reset()

    def _cutoff(self, turn: int, sample: GameState) -> int:
        n, p = self.n, self.params
        if p.cutoff == "replies":
            target = turn + n + p.rollout_rounds * n
        else:
            target = turn + 1 + p.rollout_rounds * n
            target += -target % n  # a round boundary: every seat has had its turns
        if p.endgame_rounds and p.rollout_rounds >= 0:
            end = turn + sum(_turns_left(sample, seat) for seat in range(n))
            if end - target <= p.endgame_rounds * n:
                return max(target, end)
        return target

    def _tree_end(self, turn: int) -> int:
        """The turn at which the tree stops growing (``tree_turns``, ``tree_horizon``)."""
        p = self.params
        end = turn + p.tree_turns if p.tree_turns > 0 else 1 << 30
        if p.tree_horizon == "cutoff" and p.rollout_rounds >= 0:
            end = min(end, self.cutoff_turn)
        return end

    # -------------------------------------------------------------- one iteration

    def _moves(self, state: GameState, node: Node, needed: int) -> list[tuple]:
        """The node's candidate moves, best first; at least the first ``needed`` of them
        (more when the list is cached: the searching seat's own decisions)."""
        if node is self.root:
            return self.root_order
        key = None
        if state.current == self.seat:
            if self._own_value and state.phase == Phase.BUILD:
                return [own_build_step(state, self.params, self.evaluator)]
            if self._own_takes and state.picks == 1:
                return [(own_take(state, self.params, self.evaluator, self._unseen),)]
            key = _own_key(state)
            cached = self._move_cache.get(key)
            if cached is not None:
                if self._upgrade and state.phase == Phase.BUILD and len(cached) > 1:
                    hits = self._hits.get(key, 0) + 1
                    self._hits[key] = hits
                    if hits == self._upgrade:
                        cached = self._move_cache[key] = _valued_steps(
                            state, self.params, self.evaluator,
                            self.params.macro_limit + self.params.root_widening)
                return cached
            needed = None  # cached for every later visit: the whole list
        moves = root_moves(state, self.params, needed=needed)
        if key is not None and len(self._move_cache) < 50_000:
            self._move_cache[key] = moves
        return moves

    # -------------------------------------------------------------- the root race

    def _race_reset(self) -> None:
        self.race = self.params.root == "race" and len(self.root_order) > 1
        order = self.root_order
        self._prior = {m: i for i, m in enumerate(order)}
        self._active = list(order[:self.params.race_start])
        self._waiting = list(order[self.params.race_start:])
        self._dropped: dict[tuple, int] = {}  # candidate -> rounds when dropped
        self._rewards: dict[tuple, list[float]] = {m: [] for m in order}

    def _race_next(self) -> tuple[tuple, int]:
        """The active candidate with the fewest rounds, and that round's index: every
        candidate plays round k on the same determinization and rollout seed."""
        rewards = self._rewards
        move = min(self._active, key=lambda m: len(rewards[m]))
        return move, len(rewards[move])

    def _race_update(self) -> None:
        """Once every active candidate has played the same rounds: drop those clearly
        worse than the leader on those rounds (paired differences) and merge those that
        scored exactly alike (the earlier in the prior order stays). When few are left,
        the next candidates join, and once none is waiting the most promising dropped
        ones come back, so that more time keeps re-testing the decision."""
        p = self.params
        rewards = self._rewards
        counts = {len(rewards[m]) for m in self._active}
        if len(counts) != 1:
            return
        n = counts.pop()
        if n >= p.race_min_rounds and n % 2 == 0 and len(self._active) > 1:
            leader = self._race_leader()
            lead = rewards[leader]
            z = max(p.race_z, _t975(n - 1))
            keep = [leader]
            for m in sorted(self._active, key=self._prior.__getitem__):
                if m is leader:
                    continue
                if any(rewards[m] == rewards[k] for k in keep):
                    continue  # the same outcome every round: an equivalent move
                gap = _paired_gap(lead, rewards[m])
                if gap is None or gap < z:
                    keep.append(m)
                else:
                    self._dropped[m] = n
            self._active = keep
        while len(self._active) < p.race_min_active and self._waiting:
            self._active.append(self._waiting.pop(0))
        # a dropped candidate is tested again once the race has twice the rounds it had
        # then: the catching up costs at most as many rounds as the race has played
        due = [m for m, at in self._dropped.items() if n >= 2 * at]
        if len(self._active) < p.race_min_active and due:
            lead = rewards[self._race_leader() or self._active[0]]
            for m in sorted(due, key=lambda m: _paired_gap(lead, rewards[m]) or 0.0)[
                    :p.race_min_active - len(self._active)]:
                del self._dropped[m]
                self._active.append(m)

    def _race_leader(self) -> tuple | None:
        """The best mean reward over the rounds they have all played, among the active
        candidates with at least half the most rounds (rounds are paired, so equal
        prefixes compare like with like; one that has just come back is left out)."""
        rewards = self._rewards
        most = max((len(rewards[m]) for m in self._active), default=0)
        if most == 0:
            return None
        pool = [m for m in self._active if 2 * len(rewards[m]) >= most]
        common = min(len(rewards[m]) for m in pool)
        return max(pool, key=lambda m: (sum(rewards[m][:common]), -self._prior[m]))

    # -------------------------------------------------------------- one iteration

    def iterate(self) -> None:
        params = self.params
        node = self.root
        path = [node]
        root_move = None
        if self.race:
            root_move, k = self._race_next()
            # (re-seeded in place: the same stream as a new Random, without making one)
            self.rng.seed(_worker_seed(self._seed, 1_000_003 + k))
        rng = self.rng
        state = self.det.sample(rng)
        if self._tops:
            r = k if root_move is not None else self.iterations
            for depth, order in enumerate(self._tops):
                _put_on_top(state, self.seat, order[r % len(order)], depth)
        flat = params.tree_turns < 0  # the root's candidates only, then the rollout
        last_turn = self.tree_end
        if root_move is not None:
            child = node.children.get(root_move)
            fresh = child is None
            if fresh:
                child = node.children[root_move] = Node(root_move, state.current)
            child.avail += 1
            for action in root_move:
                apply_inplace(state, action)
            path.append(child)
            node = child
            if fresh or flat:
                last_turn = -1  # expanded (or no tree below the root): roll out from here
        c_own = params.c_uct if params.c_own is None else params.c_own
        opp_tree = params.opp_tree
        while state.phase != Phase.OVER and state.turn < last_turn:
            if opp_tree != "all" and state.current != self.seat and (
                    opp_tree == "none" or state.phase == Phase.BUILD):
                break  # the rollout plays the opponent's move on its sampled hand
            allowed = max(1, math.ceil(params.pw_c * (node.visits + 1) ** params.pw_alpha))
            moves = self._moves(state, node, allowed)[:allowed]
            children = node.children
            untried = None
            best = None
            best_u = -1.0
            log = math.log
            c = c_own if state.current == self.seat else params.c_uct
            for move in moves:
                child = children.get(move)
                if child is None:
                    if untried is None:
                        untried = move
                    continue
                child.avail += 1
                if untried is None:
                    u = child.total / child.visits + c * math.sqrt(
                        log(child.avail) / child.visits)
                    if u > best_u:
                        best_u, best = u, child
            mover = state.current
            if untried is not None:
                child = Node(untried, mover)
                child.avail = 1
                children[untried] = child
                for action in untried:
                    apply_inplace(state, action)
                path.append(child)
                break
            if best is None:
                break
            for action in best.move:
                apply_inplace(state, action)
            node = best
            path.append(node)
            if flat:
                break  # (a UCB root: one root move, then the rollout)
        wins, margins = self._rollout(state)
        mw = params.margin_weight
        scale = params.margin_scale
        for nd in path[1:]:
            s = nd.mover
            nd.visits += 1
            nd.wins += wins[s]
            nd.margin += margins[s]
            reward = (1 - mw) * wins[s] + mw * (0.5 + 0.5 * math.tanh(margins[s] / scale))
            nd.total += reward
            if root_move is not None and nd is path[1]:
                self._rewards[root_move].append(reward)
        self.root.visits += 1
        self.iterations += 1
        if root_move is not None:
            self._race_update()

    def _rollout(self, state: GameState) -> tuple[list[float], list[float]]:
        params = self.params
        rng = self.rng
        # always finish a turn in progress: the evaluation reads turn boundaries best
        cutoff = state.turn + (1 if state.phase != Phase.TAKE or state.picks else 0)
        if params.rollout_rounds >= 0:
            cutoff = max(cutoff, self.cutoff_turn)
        while state.phase != Phase.OVER and state.turn < cutoff:
            own = state.current == self.seat
            if self._own_value if own else self._opp_value:  # the value plays the step
                if own and self._own_takes and state.phase == Phase.TAKE and state.picks == 1:
                    apply_inplace(state, own_take(state, params, self.evaluator,
                                                  self._unseen))
                play_takes(state, rng, params.weights, params.rollout_noise,
                           params.rollout_lookahead)
                if state.phase == Phase.BUILD:
                    for action in own_build_step(state, params, self.evaluator):
                        apply_inplace(state, action)
                continue
            play_turn(state, rng, params.weights, params.rollout_noise,
                      params.rollout_lookahead, self._rollout_scores)
        n = state.num_players
        if state.phase == Phase.OVER:
            result = outcome(state)
            scores = [float(s.total) for s in result.scores]
            wins = [1.0 / len(result.winners) if i in result.winners else 0.0
                    for i in range(n)]
        else:
            ev = self.evaluator
            if ev is None:
                scores = estimate_scores(state, params.eval_weights)
                left = max(max(0, _turns_left(state, i)) for i in range(n))
                sigma = params.sigma0 + params.sigma1 * math.sqrt(left)
            else:
                scores = ev.scores(state)
                sigma = ev.sigma(state)
            wins = win_shares(scores, sigma)
        margins = [scores[i] - max(scores[j] for j in range(n) if j != i) for i in range(n)]
        return wins, margins

    # -------------------------------------------------------------- results

    def run(self, iterations: int | None = None, seconds: float | None = None) -> None:
        """Search for ``iterations`` more iterations or ``seconds``; a first run's time
        budget counts from the searcher's creation, so that ranking the root's
        candidates and solving a last build step are part of the thinking time. A time
        budget ends at the first iteration past it, even in the middle of a race's round
        (the choice reads only the rounds every contender has played,
        :meth:`_race_leader`): waiting for the round, whose iterations can each be slow
        (a build step valued afresh), overran short budgets by half."""
        if self.iterations == 0 and self.params.rollout_builds == "auto" \
                and self.evaluator is not None:
            long = self.params.value_rollouts_from
            if (iterations or 0) >= 1000 * long or (seconds or 0.0) >= long:
                self._rollout_scores = self.evaluator.turn_end_scores
        with one_blas_thread(), full_gc_deferred():
            if iterations is not None:
                for _ in range(iterations):
                    self.iterate()
                return
            start = self.created if self.iterations == 0 else time.perf_counter()
            deadline = start + (seconds or 0.0)
            while True:
                self.iterate()
                if time.perf_counter() >= deadline:
                    break

    def advance(self, move: tuple, view: PlayerView) -> bool:
        """Re-root the tree at ``move`` for the seat's next decision in ``view`` (reuse
        within a turn). Only valid when ``move`` revealed nothing to the seat (a Depot
        take): the subtree's statistics were gathered over the same information set.
        Returns False (tree unchanged) when ``move`` was never expanded."""
        child = self.root.children.get(move)
        if child is None or view.seat != self.seat or self.params.root == "race":
            return False
        self.view = view
        self.det = Determinizer(view)
        self.root = child
        self.root_order = root_moves(self.det.sample(random.Random(0)), self.params,
                                     view.unseen_cards(), self.evaluator)
        return True

    def best(self) -> tuple:
        """The move to play: racing, the active candidate with the best mean reward;
        otherwise the most visited root move (ties: higher value, then the heuristic
        order)."""
        if self.race:
            leader = self._race_leader()
            if leader is not None:
                return leader
        stats = self.root_stats()
        rank = {m.move: i for i, m in enumerate(stats)}
        return min(stats, key=lambda m: (-m.visits, -m.value, rank[m.move])).move

    def root_stats(self) -> list[MoveStats]:
        """Statistics of every root move tried, plus untried candidates with 0 visits."""
        out = []
        for move in self.root_order:
            child = self.root.children.get(move)
            if child is None:
                out.append(MoveStats(move))
                continue
            out.append(MoveStats(move, child.visits, child.total, child.wins, child.margin,
                                 self._line(child), child.visits))
        return out

    def _line(self, node: Node) -> list[str]:
        line: list[str] = []
        params = self.params
        while node.children and len(line) < params.line_max:
            node = max(node.children.values(), key=lambda c: (c.visits, c.total))
            if node.visits < params.line_min_visits:
                break
            line.extend(a.notation() for a in node.move)
        return line


_GC_LOCK = threading.Lock()
_GC_SEARCHES = 0  # searches running in this process (threads of a server share it)
_GC_SAVED: tuple[int, int, int] = gc.get_threshold()
_GC_FREEZES = 0  # times the process's searches have all ended
_GC_SWEEP_EVERY = 1000  # a full pass before every that many-th freeze


@contextmanager
def full_gc_deferred():
    """A context in which the cyclic garbage collector makes no full pass (its young
    generations still run). A search fills memos with millions of long-lived objects
    that hold no cycles, and every full pass walks them all: over a 16 s search at a
    mid-game position such passes took 4 to 5 s, a quarter of the time (a probe). The
    thresholds come back when the last search of the process leaves the context, and
    what is alive then is frozen (``gc.freeze``): the full passes that resume walk only
    objects made after it, where walking the memos again after each search took up to
    2 s a pass once a worker had played a few games (a probe), charged to whichever
    decision it fell in. Frozen objects are still freed when their last reference goes;
    only cyclic garbage alive at the freeze would stay. A search makes none (a test), but
    a process that also serves requests in threads (``BIGSUR_POOL=thread``) does, so
    every ``_GC_SWEEP_EVERY``-th freeze is preceded by one full pass over everything
    (``gc.unfreeze``, ``gc.collect``): what such a process can hold back stays bounded.

    >>> with full_gc_deferred():
    ...     gc.get_threshold()[2] > 1_000_000
    True
    """
    global _GC_SEARCHES, _GC_SAVED, _GC_FREEZES
    with _GC_LOCK:
        if _GC_SEARCHES == 0:
            _GC_SAVED = gc.get_threshold()
            gc.set_threshold(_GC_SAVED[0], _GC_SAVED[1], 1 << 30)
        _GC_SEARCHES += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_SEARCHES -= 1
            if _GC_SEARCHES == 0:
                gc.set_threshold(*_GC_SAVED)
                _GC_FREEZES += 1
                if _GC_FREEZES % _GC_SWEEP_EVERY == 0:
                    gc.unfreeze()
                    gc.collect()
                gc.freeze()


# own_build_step's answers: (cards, evaluator, weights, exact, deck size, own key) -> step
_OWN_STEPS: dict[tuple, tuple] = {}
_OWN_STEPS_MAX = 20_000  # about 0.9 kB each (18 MB); the oldest go first


def _remember(memo: dict, key: tuple, value) -> None:
    """Keep ``value`` in one of the process's own-decision memos, the oldest entry
    dropped once it holds ``_OWN_STEPS_MAX`` (pop: threads of one process share it)."""
    if len(memo) >= _OWN_STEPS_MAX:
        memo.pop(next(iter(memo)), None)
    memo[key] = value


def own_build_step(state: GameState, params: SearchParams = DEFAULT_PARAMS,
                   evaluator=None) -> tuple:
    """The build step of the player to act that ``evaluator`` (the heuristic's
    :func:`~solver.search.policies.turn_end_value` when None) values best among all of
    them; the exact best in the player's last build step (``params.exact_last``). It reads
    only what the player knows (:class:`~solver.search.buildsteps.StepOutcome`), so it is
    memoised for the process by that: the turn's later searches, and other searches of
    the same position, find it done."""
    return _own_step(state, params, evaluator)[0]


def _own_step(state: GameState, params: SearchParams, evaluator) -> tuple[tuple, float]:
    """:func:`own_build_step` and the player's expected final score after it."""
    key = (state.cards, evaluator, params.weights.memo_id, params.exact_last,
           params.own_step_limit, len(state.deck), _own_key(state))
    found = _OWN_STEPS.get(key)
    if found is None:
        exact = _exact_last(state, params.own_step_limit) if params.exact_last else None
        if exact is not None:
            found = (exact.move, float(exact.score))
        else:
            steps, values = _step_values(state, params, evaluator, params.own_step_limit)
            best = max(range(len(steps)), key=lambda i: (values[i], -i))
            found = (steps[best], values[best])
        _remember(_OWN_STEPS, key, found)
    return found


_GREEDY_VALUES: dict[tuple, float] = {}


def _greedy_step_value(state: GameState, params: SearchParams, evaluator) -> float:
    """The value's greedy build step's worth to the player to act
    (:func:`~solver.search.policies.valued_build_step_value`), memoised like
    :func:`_own_step`."""
    key = (state.cards, evaluator, params.weights.memo_id, len(state.deck), _own_key(state))
    found = _GREEDY_VALUES.get(key)
    if found is None:
        probe = state.copy_for_builds()
        probe.landmark_deck = []  # a claim's gap left open: what refills it is hidden
        found = valued_build_step_value(probe, evaluator.turn_end_scores, params.weights)
        _remember(_GREEDY_VALUES, key, found)
    return found


# own_take's answers: (cards, evaluator, weights, exact, samples, unseen, own key) -> take
_OWN_TAKES: dict[tuple, Take] = {}


def own_take(state: GameState, params: SearchParams, evaluator, unseen: tuple[int, ...]
             ) -> Take:
    """The take of the player to act (its turn's last) after which its best build step
    (:func:`own_build_step`) is worth the most to it: a Depot card's value is that of the
    hand with the card, the deck's the mean over up to ``params.own_take_samples`` of the
    cards it may show (``unseen`` less the hand, spread evenly). The one-turn lookahead on
    the value of a strong tableau-game AI (Keldon Jones's for Race for the Galaxy): the
    choice knows which card a deck take showed before, where a tree node below a deck
    take is shared by all of them. Memoised for the process like the build step."""
    key = (state.cards, evaluator, params.weights.memo_id, params.exact_last,
           params.own_step_limit, params.own_take_samples, params.own_take_value, unseen,
           len(state.deck), _own_key(state))
    take = _OWN_TAKES.get(key)
    if take is not None:
        return take
    tab = tables(state.cards)
    hand = state.player.hand

    greedy = params.own_take_value == "greedy" and evaluator is not None

    def worth(take: Take, card: int | None = None) -> float:
        after = state.copy()
        if card is not None:
            after.deck[-1] = card  # (the deck shows it: only the seat's hand is read)
        apply_inplace(after, take)  # the state the tree meets, so the memo serves both
        if greedy and not (params.exact_last and is_last_build_step(after)):
            return _greedy_step_value(after, params, evaluator)
        return _own_step(after, params, evaluator)[1]

    options = [(worth(tab.takes[c]), tab.takes[c]) for c in sorted(set(state.depot))]
    if state.deck:
        pool = [c for c in unseen if c not in hand]
        if pool:
            step = max(1, len(pool) // params.own_take_samples)
            picked = pool[::step][:params.own_take_samples]
            deck = tab.take_deck
            options.append((sum(worth(deck, c) for c in picked) / len(picked), deck))
    # (no option valued: an empty Depot and no unseen card to value the deck by)
    take = max(options, key=lambda vt: vt[0])[1] if options else tab.take_deck
    _remember(_OWN_TAKES, key, take)
    return take


def clear_memos() -> None:
    """Forget the answers :func:`own_build_step` and :func:`own_take` keep for the
    process: for benchmarks that measure a cold start, and tests."""
    _OWN_STEPS.clear()
    _OWN_TAKES.clear()
    _GREEDY_VALUES.clear()


def _own_key(state: GameState) -> tuple:
    """What the player to act knows that its own decisions depend on: two states with
    the same key (different hidden cards) offer it the same moves of equal value."""
    p = state.player
    return (state.turn, state.phase, state.picks, tuple(sorted(p.hand)),
            tuple(p.highway), tuple(p.discard[-1:]), tuple(p.landmarks),
            tuple(state.depot), tuple(state.landmark_row),
            tuple(tuple(o.highway) for o in state.players),
            tuple(state.cards.material[o.discard[-1]] if o.discard else -1
                  for o in state.players))


def _put_on_top(state: GameState, seat: int, card: int, depth: int = 0) -> None:
    """Make ``card`` the deck's card ``depth`` places below the top (0: the top) in a
    determinization, by swapping it with the card there, when it lies lower in the deck
    or in an opponent's hidden hand (a hidden discard keeps it, the pile's materials are
    public; so do the places above, already set). Each such state is as likely as the one
    it came from, so cycling ``card`` over the unseen cards stratifies that place: the
    iterations see each card there about equally often, as the seat's uncertainty says
    they should."""
    deck = state.deck
    at = len(deck) - 1 - depth
    if at < 0 or deck[at] == card:
        return
    if card in deck:
        i = deck.index(card)
        if i < at:
            deck[i], deck[at] = deck[at], card
        return
    for j, p in enumerate(state.players):
        if j != seat and card in p.hand and card not in p.known_hand:
            p.hand[p.hand.index(card)] = deck[at]
            deck[at] = card
            return


def _paired_gap(lead: list[float], other: list[float]) -> float | None:
    """How many standard errors ``lead`` is ahead of ``other`` on the rounds both have
    played (paired differences); None with fewer than two rounds; inf when ``lead`` is
    ahead by the same amount every round."""
    n = min(len(lead), len(other))
    if n < 2:
        return None
    diffs = [a - b for a, b in zip(lead, other, strict=False)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if var <= 1e-18:
        return math.inf if mean > 1e-9 else (-math.inf if mean < -1e-9 else 0.0)
    return mean / math.sqrt(var / n)


def _t975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (Cornish-Fisher
    expansion; within 0.01 of the table from 3 degrees of freedom)."""
    z = 1.959964
    df = max(df, 1)
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def _turns_left(state: GameState, seat: int) -> int:
    return tables(state.cards).total_turns(state) - state.players[seat].turns


# ------------------------------------------------------------------ parallel search

_POOLS: dict[int, ProcessPoolExecutor] = {}


def _pool(workers: int) -> ProcessPoolExecutor:
    """A process pool kept for reuse (worker start-up is paid once). Workers are forked
    from a single-threaded caller (cheap, and scripts need no ``__main__`` guard); a
    threaded caller such as the HTTP server gets them from a fork server (or spawned),
    since forking a threaded process is unsafe."""
    pool = _POOLS.get(workers)
    if pool is None:
        import multiprocessing
        import threading

        methods = multiprocessing.get_all_start_methods()
        if "fork" in methods and threading.active_count() == 1:
            method = "fork"
        else:
            method = "forkserver" if "forkserver" in methods else "spawn"
        ctx = multiprocessing.get_context(method)
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
        _POOLS[workers] = pool
    return pool


def _worker_seed(seed: int, k: int) -> int:
    return (seed * 1_000_003 + 7919 * k) % (2**63)


def _run_one(view: PlayerView, iterations: int | None, seconds: float | None, seed: int,
             params: SearchParams, moves: list[tuple[Action, ...]] | None = None
             ) -> tuple[list[MoveStats], int, int | None, dict[tuple, list[float]]]:
    """One worker's search: its root statistics, iterations, exact last-step score and
    the race's rewards by round of each candidate (empty when the root did not race)."""
    searcher = Searcher(_canonical(view), seed, params, moves)
    searcher.run(iterations, seconds)
    exact = searcher.exact.score if searcher.exact is not None else None
    rounds = searcher._rewards if searcher.race else {}
    return searcher.root_stats(), searcher.iterations, exact, rounds


def _canonical(view: PlayerView) -> PlayerView:
    """Swap an unpickled card set for the process's own copy of the default set, so
    that the scoring caches keyed by it keep hitting across searches."""
    from ..rules.cards import load_card_set

    try:
        default = load_card_set()
    except Exception:  # noqa: BLE001 - no default set installed: keep the view's own
        return view
    if view.cards is not default and view.cards.fingerprint == default.fingerprint:
        view.cards = default
    return view


def search(view: PlayerView, iterations: int | None = None, seconds: float | None = None,
           seed: int = 0, workers: int = 1, params: SearchParams = DEFAULT_PARAMS,
           moves: list[tuple[Action, ...]] | None = None) -> SearchOutput:
    """Run SO-ISMCTS for the seat of ``view`` with an iteration budget (split over the
    workers, reproducible with ``seed``) or a time budget (every worker searches for
    ``seconds``); return the merged root statistics, best (most visited) first.
    ``moves``: the root's candidates instead of its own (:class:`Searcher`)."""
    start = time.perf_counter()
    workers = max(1, int(workers))
    if workers == 1:
        runs = [_run_one(view, iterations, seconds, _worker_seed(seed, 0), params, moves)]
    else:
        shares = [None] * workers
        if iterations is not None:
            shares = [iterations // workers + (k < iterations % workers) for k in range(workers)]
        pool = _pool(workers)
        try:
            futures = [pool.submit(_run_one, view, shares[k], seconds, _worker_seed(seed, k),
                                   params, moves) for k in range(workers)]
            runs = [f.result() for f in futures]
        except BrokenProcessPool:
            _POOLS.pop(workers, None)  # a worker died: the next search starts a new pool
            raise
    merged: dict[tuple, MoveStats] = {}
    order: list[tuple] = []
    total_iterations = 0
    exact_score = None
    for stats, count, exact, _ in runs:
        total_iterations += count
        exact_score = exact if exact is not None else exact_score
        for st in stats:
            m = merged.get(st.move)
            if m is None:
                merged[st.move] = MoveStats(st.move, st.visits, st.total, st.wins, st.margin,
                                            st.line, st.line_visits)
                order.append(st.move)
                continue
            m.visits += st.visits
            m.total += st.total
            m.wins += st.wins
            m.margin += st.margin
            if st.line_visits > m.line_visits:
                m.line, m.line_visits = st.line, st.line_visits
    rank = {move: i for i, move in enumerate(order)}
    moves = sorted(merged.values(), key=lambda m: (-m.visits, -m.value, rank[m.move]))
    _pair_with_top(moves, [run[3] for run in runs], params)
    return SearchOutput(view.seat, moves, total_iterations, time.perf_counter() - start,
                        total_iterations, workers, exact_score)


def _pair_with_top(moves: list[MoveStats], rounds: list[dict[tuple, list[float]]],
                   params: SearchParams) -> None:
    """Set each move's ``versus_top`` from the workers' race ``rounds`` (one dict per
    worker: candidate -> its rewards by round). Rounds pair only within a worker (each
    worker samples its own deals), so each worker's common rounds are pooled. A move the
    race merged into another (the same rewards every round it played: an equivalent, no
    longer played) stands as that move does, that move's rounds included: its own few
    rounds would read "not yet told apart" however long the search."""
    if not moves or not any(rounds):
        return
    top = moves[0].move
    by_move = {m.move: m for m in moves}
    for m in moves[1:]:
        lead: list[float] = []
        other: list[float] = []
        for worker in rounds:
            a, b = worker.get(top, ()), worker.get(m.move, ())
            n = min(len(a), len(b))
            lead.extend(a[:n])
            other.extend(b[:n])
        gap = _paired_gap(lead, other)
        if gap is not None:
            n = len(lead)
            m.versus_top = PairedGap(n, max(-999.0, min(999.0, gap)),
                                     gap >= max(params.race_z, _t975(n - 1)), lead == other,
                                     every_round=math.isinf(gap))
    for m in moves[1:]:
        twin = _merged_into(m.move, rounds, params.race_min_rounds)
        while twin is not None and twin != top:  # (each twin played more rounds)
            m.versus_top = by_move[twin].versus_top
            twin = _merged_into(twin, rounds, params.race_min_rounds)


def _merged_into(move: tuple, rounds: list[dict[tuple, list[float]]],
                 min_rounds: int) -> tuple | None:
    """The candidate whose first rounds ``move``'s rounds repeat exactly in every worker
    where it played, with more rounds of its own (the race merged ``move`` into it: it
    merges only once ``min_rounds`` are played), or None."""
    played = [worker for worker in rounds if worker.get(move)]
    if not played or any(len(w[move]) < min_rounds for w in played):
        return None
    for other in played[0]:
        if other != move and all(
                len(w.get(other, ())) > len(w[move])
                and w[other][:len(w[move])] == w[move] for w in played):
            return other
    return None


# ------------------------------------------------------------------ concrete moves

def concrete_move(state: GameState, move: tuple[Action, ...]) -> list[Action]:
    """``move`` as engine actions from ``state`` (not changed), its builds paid jointly
    the cheapest way (:func:`solver.rules.payment.joint_payment`, the fast exact path:
    paying each build alone can cost more), payments explicit."""
    builds = [(state.cards.card(a.card), a.side) for a in move
              if type(a) is Build and a.payment is None]
    if not builds or len(builds) != sum(1 for a in move if type(a) is Build):
        return list(move)
    try:
        plan = joint_payment(state, builds)
    except PaymentError:  # pragma: no cover - the joint path pays what single builds pay
        plan = None
    paid = plan.actions(state.cards) if plan is not None else _sequential(state, move)
    it = iter(paid)
    return [next(it) if type(a) is Build else a for a in move]


def _sequential(state: GameState, move: tuple[Action, ...]) -> list[Build]:
    s = state.copy()
    out = []
    for action in move:
        if type(action) is Build:
            action = Build(action.card, action.side,
                           cheapest_payment(s, s.cards.card(action.card)))
            out.append(action)
        apply_inplace(s, action)
    return out


__all__ = ["DEFAULT_PARAMS", "MoveStats", "PairedGap", "SearchOutput", "SearchParams",
           "Searcher", "clear_memos", "concrete_move", "own_build_step", "own_take",
           "parse_param_overrides", "root_moves", "search"]
