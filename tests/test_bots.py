"""Bots: specs, legal play over whole games for 2-4 players, statelessness."""

from __future__ import annotations

import pytest

from solver.rules.cards import load_card_set
from solver.rules.engine import new_game, outcome, play
from solver.rules.record import GameRecord
from solver.rules.state import Phase
from solver.rules.views import view_of
from solver.search.bots import BOT_FACTORIES, Bot, BotSpecError, GreedyBot, make_bot
from solver.search.determinize import determinize


@pytest.fixture(scope="module")
def cards():
    return load_card_set()


def test_specs():
    assert set(BOT_FACTORIES) >= {"random", "greedy", "mcts"}
    assert make_bot("random").name == "random"
    assert make_bot("greedy").name == "greedy"
    assert make_bot("mcts:250i").name == "mcts:250i"
    assert make_bot("mcts:0.5s").name == "mcts:0.5s"
    for bot in map(make_bot, ("random", "greedy", "mcts:3i")):
        assert isinstance(bot, Bot)
    for bad in ("", "alphazero", "mcts", "mcts:fast", "mcts:0i", "mcts:-1s", "greedy:3"):
        with pytest.raises(BotSpecError):
            make_bot(bad)


def _play_game(cards, specs, seed):
    """A whole game, every action checked by the rules; returns the final state."""
    bots = [make_bot(s) for s in specs]
    record = GameRecord.start(len(specs), seed, cards, names=list(specs))
    state = record.initial_state()
    k = 0
    while state.phase != Phase.OVER:
        action = bots[state.current].act(view_of(state, state.current), seed * 1000 + k)
        state = play(state, action)  # raises IllegalActionError on an illegal action
        record.actions.append(action.notation())
        k += 1
    assert record.replay() == state
    return state


@pytest.mark.parametrize("specs,seed", [
    (("mcts:12i", "greedy"), 1),
    (("random", "mcts:8i", "greedy"), 2),
    (("greedy", "random", "mcts:6i", "greedy"), 3),
])
def test_bots_play_legal_full_games(cards, specs, seed):
    state = _play_game(cards, specs, seed)
    assert outcome(state) is not None
    assert len({p.turns for p in state.players}) == 1


def test_greedy_beats_random(cards):
    wins = 0
    for seed in range(3):
        for seats in (("greedy", "random"), ("random", "greedy")):
            o = outcome(_play_game(cards, seats, seed))
            g = seats.index("greedy")
            wins += g in o.winners
            assert o.scores[g].total > 0
    assert wins == 6


def test_greedy_is_stateless_and_reads_only_the_view(cards):
    state = new_game(2, 8, cards)
    bot = GreedyBot()
    k = 0
    while state.turn < 8:
        view = view_of(state, state.current)
        action = bot.act(view, k)
        assert GreedyBot().act(view, k) == action
        # another full state behind the same view, another seed: same action
        other = determinize(view, k + 100)
        assert bot.act(view_of(other, other.current), k + 1) == action
        state = play(state, action)
        k += 1
