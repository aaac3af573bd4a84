"""Flat Monte Carlo (the yardstick player of solver.search.flat): specs, legal play,
reproducibility from the view alone, and actions compared on the same deals."""

from __future__ import annotations

import pytest

from solver.rules.cards import load_card_set
from solver.rules.engine import legal_actions, new_game, outcome, play
from solver.rules.state import Phase
from solver.rules.views import view_of
from solver.search.bots import BotSpecError, GreedyBot, make_bot
from solver.search.determinize import determinize
from solver.search.flat import FlatMCBot, rate_actions


@pytest.fixture(scope="module")
def cards():
    return load_card_set()


def _late_game(cards, seed: int, players: int = 2, turn: int = 15):
    """A game played by GreedyBot up to ``turn`` (short playouts keep the tests fast)."""
    state = new_game(players, seed, cards)
    greedy = GreedyBot()
    k = 0
    while state.turn < turn:
        state = play(state, greedy.act(view_of(state, state.current), k))
        k += 1
    return state


def test_flat_specs():
    assert isinstance(make_bot("flat:3i"), FlatMCBot)
    assert make_bot("flat:3i").name == "flat:3i"
    assert make_bot("flat:0.5s").name == "flat:0.5s"
    for bad in ("flat", "flat:", "flat:0i", "flat:fast", "flat:-2s"):
        with pytest.raises(BotSpecError, match="flat"):
            make_bot(bad)


@pytest.mark.parametrize("players,seed", [(2, 4), (3, 5)])
def test_flat_plays_legal_games_to_the_end(cards, players, seed):
    state = _late_game(cards, seed, players)
    bots = [make_bot("flat:1i")] + [GreedyBot() for _ in range(players - 1)]
    k = 0
    while state.phase != Phase.OVER:
        action = bots[state.current].act(view_of(state, state.current), k)
        state = play(state, action)  # raises IllegalActionError on an illegal action
        k += 1
    assert outcome(state) is not None


def test_flat_reads_only_the_view_and_its_seed(cards):
    state = _late_game(cards, 6)
    view = view_of(state, state.current)
    action = make_bot("flat:2i").act(view, 11)
    assert action in legal_actions(state)
    other = determinize(view, 99)  # another full state behind the same view
    assert make_bot("flat:2i").act(view_of(other, other.current), 11) == action


def test_actions_are_compared_on_the_same_deals(cards):
    """Common random numbers: an action listed twice gets the same mean (same hidden
    cards, same rollout seeds), and another seed changes the deals."""
    state = _late_game(cards, 7, turn=12)
    view = view_of(state, state.current)
    actions = legal_actions(view)
    twice = actions + actions[:1]
    means, rounds = rate_actions(view, twice, seed=3, rounds=3, deadline=None)
    assert rounds == 3
    assert means[0] == means[-1]
    assert len(means) == len(twice)
    again, _ = rate_actions(view, twice, seed=3, rounds=3, deadline=None)
    assert again == means
