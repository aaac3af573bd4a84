"""Players behind one protocol: a bot sees only a :class:`PlayerView` and a seed.

    bot = make_bot("random")
    action = bot.act(view_of(state, state.current), seed=7)

Bot specs (used by the CLI, tournaments and the server): ``random``, ``greedy``,
``mcts:<seconds>s`` (time per turn) or ``mcts:<iterations>i`` (iterations per turn,
reproducible with a seed), and ``mcts-heuristic:<budget>``, the same search with the
hand-written evaluation and candidates of the first version (the baseline the learned
evaluation is measured against), and ``flat:<budget>``, flat Monte Carlo
(:mod:`solver.search.flat`: the simple player the tree search must be far ahead of).
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Protocol, runtime_checkable

from ..rules.actions import Action, Take
from ..rules.engine import apply_inplace, legal_actions
from ..rules.state import Phase
from ..rules.views import PlayerView
from ..rules.wording import got
from .api import Budget, BudgetError
from .determinize import Determinizer, determinize
from .flat import FlatMCBot
from .ismcts import DEFAULT_PARAMS, Searcher, concrete_move, root_moves, search
from .policies import DEFAULT_WEIGHTS, greedy_action


class BotSpecError(ValueError):
    """A bot spec that names no known bot or has a bad budget."""


@runtime_checkable
class Bot(Protocol):
    name: str

    def act(self, view: PlayerView, seed: int) -> Action:
        """The action to play in ``view`` (the bot's own seat is to act)."""
        ...


def legal_from_view(view: PlayerView) -> list[Action]:
    """Legal actions of the viewer when it is to act: the legal actions of any state
    consistent with the view (they read only the viewer's own cards and public facts,
    e.g. the Materials on top of the other discard piles for Landmark borrowing)."""
    return legal_actions(determinize(view, 0))


class RandomBot:
    """Uniform over the legal actions: the floor every other bot must beat."""

    name = "random"

    def act(self, view: PlayerView, seed: int) -> Action:
        return random.Random(seed).choice(legal_from_view(view))


class GreedyBot:
    """The documented heuristic of :mod:`solver.search.policies`, one action at a time
    (stateless: the same view and seed give the same action)."""

    name = "greedy"

    def __init__(self, weights=None, lookahead: bool = True):
        self.weights = weights or DEFAULT_WEIGHTS
        self.lookahead = lookahead  # value takes by trying the turn's build step

    def act(self, view: PlayerView, seed: int) -> Action:
        # the greedy choice reads only the viewer's cards and public facts; the sample
        # only fills the hidden places, and the deck is valued over the unseen cards
        return greedy_action(determinize(view, seed), pool=view.unseen_cards(),
                             w=self.weights, lookahead=self.lookahead)


class MCTSBot:
    """SO-ISMCTS (:mod:`solver.search.ismcts`) with a budget per TURN: all of the bot's
    decisions in one turn share it (first take ``params.first_take_share``, 40%; second
    take half of the rest; the build step the remainder), and time spent over it is
    taken from the next turns. A move of several actions (a build step; both takes with
    ``root_takes="pairs"``) is searched once and its actions are then played one per
    call. Iteration budgets are reproducible with the seeds passed to :meth:`act`."""

    def __init__(self, budget, workers: int = 1, params=None):
        if not isinstance(budget, Budget):
            raise BotSpecError(f"MCTSBot budget must be a Budget, got {budget!r}")
        self.budget = budget
        self.workers = workers
        self.params = params or DEFAULT_PARAMS
        self.name = "mcts:" + (f"{budget.iterations}i" if budget.iterations is not None
                               else f"{budget.seconds:g}s")
        self._turn: tuple | None = None
        self._searcher = None  # single-worker tree kept within a turn
        self._last: tuple | None = None  # the move chosen at the previous decision
        self._spent = 0.0
        # seconds over budget in earlier turns, repaid by the next ones (a turn keeps at
        # least half its budget): a decision's set-up and its last iteration cannot be
        # cut short, so a time budget holds on average over the game
        self._debt = 0.0
        self._plan: list[Action] = []
        self._plan_sig: tuple | None = None

    @classmethod
    def from_spec(cls, arg: str) -> MCTSBot:
        """``"1s"``, ``"0.25s"`` (seconds per turn) or ``"500i"`` (iterations per turn)."""
        try:
            return cls(Budget.parse(arg))
        except BudgetError as err:
            raise BotSpecError(f"bot spec 'mcts:{arg}': {err}") from None

    @staticmethod
    def _sig(state_or_view) -> tuple:
        me = state_or_view.me if isinstance(state_or_view, PlayerView) \
            else state_or_view.players[state_or_view.current]
        return (state_or_view.turn, int(state_or_view.phase), tuple(sorted(me.hand)),
                tuple(me.highway), len(me.landmarks))

    def act(self, view: PlayerView, seed: int) -> Action:
        turn = (view.seat, view.turn)
        if turn != self._turn:
            if self._turn is not None and self.budget.seconds is not None:
                self._debt = max(0.0, self._debt + self._spent - self.budget.seconds)
            self._turn, self._spent, self._plan, self._plan_sig = turn, 0.0, [], None
            self._searcher, self._last = None, None
        if self._plan and self._plan_sig == self._sig(view):
            action = self._plan.pop(0)
            self._plan_sig = self._after(view, action) if self._plan else None
            return action
        start = time.perf_counter()  # the clock counts this decision's set-up too
        sample = Determinizer(view).sample(random.Random(seed))
        share = (self.params.first_take_share if view.picks == 0 else 0.5) \
            if view.phase == Phase.TAKE else 1.0
        total = self.budget.iterations if self.budget.iterations is not None \
            else max(self.budget.seconds - self._debt, 0.5 * self.budget.seconds)
        amount = max(total - self._spent, 0.0) * share
        its = max(1, round(amount)) if self.budget.iterations is not None else None
        if self.workers == 1:
            move, searched = self._search_reusing(view, seed, its, amount, start)
        else:
            moves = root_moves(sample, self.params)
            searched = len(moves) > 1
            move = moves[0] if not searched else search(
                view, its, None if its is not None else self._seconds_left(amount, start),
                seed, self.workers, self.params).moves[0].move
        if its is not None and searched:
            self._spent += its
        self._last = move
        actions = concrete_move(sample, move)
        if self.budget.iterations is None:  # the joint payment is thinking time too
            self._spent += time.perf_counter() - start
        first, self._plan = actions[0], actions[1:]
        if self._plan:
            after = sample.copy()
            apply_inplace(after, first)
            self._plan_sig = self._sig(after)
        return first

    @staticmethod
    def _seconds_left(amount: float, start: float) -> float:
        return max(amount - (time.perf_counter() - start), 0.005)

    def _search_reusing(self, view: PlayerView, seed: int, iterations: int | None,
                        amount: float, start: float) -> tuple[tuple, bool]:
        """Single-process search that keeps the tree after a Depot take (which reveals
        nothing to the bot), so the turn's later decisions start from its statistics.
        Returns the move and whether it was searched (a single candidate, such as the
        exact last build step, is played at once)."""
        last = self._last
        searcher = self._searcher
        reuse = (searcher is not None and last is not None and len(last) == 1
                 and type(last[0]) is Take and last[0].card is not None
                 and searcher.advance(last, view))
        # (a new searcher's clock starts at its creation: what is left is known before)
        seconds = None if iterations is not None else self._seconds_left(amount, start)
        if not reuse:
            searcher = Searcher(view, seed, self.params)
        self._searcher = searcher
        if len(searcher.root_order) == 1:
            return searcher.root_order[0], False
        searcher.run(iterations, seconds)
        return searcher.best(), True

    def _after(self, view: PlayerView, action: Action) -> tuple:
        state = Determinizer(view).sample(random.Random(0))
        apply_inplace(state, action)
        return self._sig(state)


def _no_arg(kind: str, make):
    def factory(arg: str):
        if arg:
            raise BotSpecError(f"bot {kind!r} takes no argument{got(kind + ':' + arg)}")
        return make()
    return factory


def _mcts(arg: str):
    return MCTSBot.from_spec(arg)


# the landed search of issue 4: hand-written cut-off evaluation, heuristic macros only,
# UCB at the root, no exact last build step, the deck's top as sampled, a tree open past
# the cut-off (the baseline of the learned evaluation)
HEURISTIC_PARAMS = replace(DEFAULT_PARAMS, value="heuristic", exact_last=False,
                           root_widening=0, root="uct", own_builds="tree",
                           rollout_builds="greedy", stratify_top=0, tree_horizon="open")


def _flat(arg: str):
    try:
        return FlatMCBot(Budget.parse(arg))
    except BudgetError as err:
        raise BotSpecError(f"bot spec 'flat:{arg}': {err}") from None


def _mcts_heuristic(arg: str):
    bot = MCTSBot.from_spec(arg)
    bot.params = HEURISTIC_PARAMS
    bot.name = "mcts-heuristic:" + bot.name.partition(":")[2]
    return bot


BOT_FACTORIES: dict[str, object] = {
    "random": _no_arg("random", RandomBot),
    "greedy": _no_arg("greedy", GreedyBot),
    "mcts": _mcts,
    "mcts-heuristic": _mcts_heuristic,
    "flat": _flat,
}


def make_bot(spec: str) -> Bot:
    """Build a bot from its spec string (grammar: :mod:`solver.search.specs`)."""
    from .specs import SpecError, parse_bot_spec

    try:
        parsed = parse_bot_spec(spec, "bot", known=BOT_FACTORIES)
    except SpecError as err:
        raise BotSpecError(err.reason) from None
    return BOT_FACTORIES[parsed.kind](parsed.arg)
