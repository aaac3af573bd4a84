"""Flat Monte Carlo: the simple player a tree search has to be far ahead of.

Issue 10 measured that a flat Monte Carlo player (sample the hidden cards, try every
legal action, play each out to the end of the game with a plain heuristic, keep the best
mean margin) beat GreedyBot about as often as the first tree search did. This is that
player, kept as a yardstick (``flat:1s`` in a tournament, ``bench.strength --part
vs-flat``): it shares nothing with :mod:`solver.search.ismcts` but the engine, the
determinizer and the rollout heuristic.

    bot = FlatMCBot(Budget(seconds=1.0))
    action = bot.act(view_of(state, state.current), seed=7)

Each round draws one full state consistent with the bot's view and plays every legal
action out from it (common random numbers: the actions are compared on the same hidden
cards and the same rollout seed), so a difference between two actions' means is not the
luck of different deals. The budget is per turn, shared by the turn's decisions as
:class:`~solver.search.bots.MCTSBot` shares it (first take 40%, second take half of the
rest, each build-step decision half of what is left); ``<n>i`` is n rounds per decision
(reproducible with the seed).
"""

from __future__ import annotations

import random
import time

from ..rules.actions import Action
from ..rules.engine import apply_inplace, legal_actions, outcome
from ..rules.state import GameState, Phase
from ..rules.views import PlayerView
from .api import Budget
from .determinize import Determinizer
from .policies import DEFAULT_WEIGHTS, Weights, play_turn

# Gumbel noise (points) on the rollout's choices, as in the tree search's rollouts: a
# noiseless rollout plays the same game every time and averages nothing
ROLLOUT_NOISE = 0.3


def playout_margin(state: GameState, seat: int, rng: random.Random,
                   weights: Weights = DEFAULT_WEIGHTS) -> float:
    """Play ``state`` out to the end of the game, every seat by the greedy heuristic with
    noise, in place; ``seat``'s final score minus the best other seat's."""
    while state.phase != Phase.OVER:
        play_turn(state, rng, weights, ROLLOUT_NOISE)
    scores = [s.total for s in outcome(state).scores]
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


def rate_actions(view: PlayerView, actions: list[Action], seed: int, rounds: int | None,
                 deadline: float | None) -> tuple[list[float], int]:
    """Mean playout margin of each of ``actions`` (the legal actions of ``view``'s seat)
    over whole rounds: ``rounds`` of them, or as many as end by ``deadline``
    (``time.perf_counter()``; at least one). Returns the means and the rounds played."""
    rng = random.Random(seed)
    sampler = Determinizer(view)
    totals = [0.0] * len(actions)
    played = 0
    while True:
        state = sampler.sample(rng)
        rollout_seed = rng.getrandbits(64)
        margins = []
        for action in actions:
            after = state.copy()
            apply_inplace(after, action)
            margins.append(playout_margin(after, view.seat, random.Random(rollout_seed)))
            if deadline is not None and played and time.perf_counter() >= deadline:
                break  # an unfinished round is not counted: its actions saw fewer deals
        else:
            totals = [t + m for t, m in zip(totals, margins, strict=True)]
            played += 1
        if rounds is not None and played >= rounds:
            break
        if deadline is not None and time.perf_counter() >= deadline:
            break
    return [t / played for t in totals], played


class FlatMCBot:
    """Flat Monte Carlo over the legal actions, one decision at a time (see the module
    doc). Stateless between turns but for the per-turn budget."""

    def __init__(self, budget: Budget):
        self.budget = budget
        self.name = "flat:" + (f"{budget.iterations}i" if budget.iterations is not None
                               else f"{budget.seconds:g}s")
        self._turn: tuple | None = None
        self._spent = 0.0

    def act(self, view: PlayerView, seed: int) -> Action:
        start = time.perf_counter()
        turn = (view.seat, view.turn)
        if turn != self._turn:
            self._turn, self._spent = turn, 0.0
        actions = legal_actions(view)
        if len(actions) == 1:
            return actions[0]
        if self.budget.iterations is not None:
            means, _ = rate_actions(view, actions, seed, self.budget.iterations, None)
        else:
            share = (0.4 if view.picks == 0 else 0.5) if view.phase == Phase.TAKE else 0.5
            amount = max(self.budget.seconds - self._spent, 0.0) * share
            means, _ = rate_actions(view, actions, seed, None, start + amount)
            self._spent += time.perf_counter() - start
        return actions[max(range(len(actions)), key=means.__getitem__)]


__all__ = ["FlatMCBot", "playout_margin", "rate_actions"]
