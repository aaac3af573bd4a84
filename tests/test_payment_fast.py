"""The fast exact payment path against the brute-force oracle (tiny random positions), the
engine's auto-pay in checked random games, the cache key reduction, and affordable sets.
"""

from __future__ import annotations

import random

import pytest
from test_payment_rules import brute_force

from bench.payment import random_position
from solver.rules.actions import Build
from solver.rules.cards import load_card_set
from solver.rules.engine import legal_actions, new_game, play
from solver.rules.payment import (
    PaymentInfeasible,
    _collect,
    _count_dp,
    _Problem,
    _reduce,
    _single,
    _solve_counts,
    _Sources,
    affordable_cards,
    affordable_sets,
    cheapest_cards_needed,
    cheapest_payment,
    joint_payment,
    solve_counts,
)
from solver.rules.state import Phase

CARDS = load_card_set()


def tiny_positions(n: int, seed: int, hand_sizes=(2, 3, 4, 5, 6), builds=(1, 2, 3)):
    rng = random.Random(seed)
    for _ in range(n):
        yield random_position(rng, CARDS, rng.choice(hand_sizes), rng.choice(builds))


def replay_plan(state, plan):
    for action in plan.actions(state.cards):
        state = play(state, action)
    assert (state.player.discard[-1] if state.player.discard else None) == plan.top
    return state


@pytest.mark.parametrize("seed", range(4))
def test_fast_path_matches_the_oracle(seed):
    """Optimal on all three levels, plans the engine accepts, on tiny random positions."""
    checked = feasible = 0
    for state, builds in tiny_positions(60, seed):
        cards_ = [c for c, _side in builds]
        expected = brute_force(state, cards_)
        try:
            plan = joint_payment(state, builds)
        except PaymentInfeasible:
            assert expected is None
            continue
        assert plan.objective == expected
        replay_plan(state, plan)
        feasible += 1
        checked += 1
    assert feasible >= 10  # the positions do exercise paying


# values a caller might pass that tie between cards of different Materials or costs (the
# default values never tie): then which equally cheap cards are spent matters for level 3
TIED_VALUES = {
    "miles": lambda c: float(CARDS.miles[c]),
    "all equal": lambda c: 1.0,
    "two levels": lambda c: float(CARDS.material[c] % 2),
}


@pytest.mark.parametrize("kind", sorted(TIED_VALUES))
def test_fast_path_matches_the_oracle_with_tied_values(kind):
    values = {c: TIED_VALUES[kind](c) for c in range(len(CARDS.highway))}
    feasible = 0
    for state, builds in tiny_positions(120, seed=31, hand_sizes=(3, 4, 5, 6, 7)):
        expected = brute_force(state, [c for c, _side in builds], values)
        try:
            plan = joint_payment(state, builds, values)
        except PaymentInfeasible:
            assert expected is None
            continue
        assert plan.objective == expected
        replay_plan(state, plan)
        feasible += 1
    assert feasible >= 20


def test_single_build_shortcut_matches_the_programme():
    """One build skips the dynamic programme (the engine's hot path); same answer."""
    rng = random.Random(5)
    for _ in range(400):
        state, builds = random_position(rng, CARDS, rng.randint(1, 15), 1)
        P = _Problem(state, builds)
        costs, built, hand, total, src = _reduce(P.costs, P.built, P.hand, P.hand_total,
                                                 P.src.key())
        assert _single(costs[0], hand, total, src) == \
            _collect(_count_dp(costs, built, hand, src, True, None), hand, total, True)


def test_affordable_cards_match_the_oracle():
    for state, _builds in tiny_positions(150, seed=11, hand_sizes=(2, 3, 4, 5)):
        afford = set(affordable_cards(state))
        for c in set(state.player.hand):
            best = brute_force(state, [c])
            assert (c in afford) == (best is not None)
            n = cheapest_cards_needed(state, c)
            assert n == (None if best is None else best[0])
            payment = cheapest_payment(state, c)
            assert (payment is None) == (best is None)
            if payment is not None:
                after = play(state, Build(CARDS.highway[c].id, "L", payment))
                assert len(state.player.hand) - 1 - len(after.player.hand) == best[0]


def test_auto_pay_in_checked_random_games():
    """Every Build that legal_actions offers is paid by the engine, through the checked
    entry point, with the fewest cards the oracle finds (small hands only)."""
    builds = 0
    for seed in range(25):
        state = new_game(2 + seed % 3, seed, CARDS)
        rng = random.Random(seed)
        while state.phase != Phase.OVER:
            action = rng.choice(legal_actions(state))
            if isinstance(action, Build) and len(state.player.hand) <= 6:
                c = CARDS.card(action.card)
                best = brute_force(state, [c])
                after = play(state, action)
                assert len(state.player.hand) - 1 - len(after.player.hand) == best[0]
                builds += 1
            state = play(state, action)
    assert builds > 20


def test_reduced_cache_key_changes_nothing():
    """solve_counts reduces its key (Materials no cost needs, extra copies); the answer is
    the one of the unreduced search."""
    rng = random.Random(3)
    for _ in range(300):
        state, builds = random_position(rng, CARDS, rng.randint(1, 15), rng.choice((1, 2, 3)))
        cards_ = [c for c, _side in builds]
        building = set(cards_)
        pool = [c for c in state.player.hand if c not in building]
        hand = [0] * 5
        for c in pool:
            hand[CARDS.material[c]] += 1
        costs = tuple(CARDS.cost_counts[c] for c in cards_)
        built = tuple(CARDS.persistent[c] for c in cards_[:-1]) + (-1,)
        src = _Sources(state).key()
        reduced = solve_counts(costs, built, tuple(hand), len(pool), src)
        full = _solve_counts.__wrapped__(costs, built, tuple(hand), len(pool), src)
        assert reduced[0] == full[0]
        if full[0] is not None:
            assert {s[:3] for s in reduced[1]} == {s[:3] for s in full[1]}


def test_affordable_sets_are_exactly_the_payable_sets():
    from itertools import combinations, permutations

    for state, _builds in tiny_positions(40, seed=5, hand_sizes=(3, 4, 5)):
        sets = affordable_sets(state, max_size=3)
        hand = sorted(set(state.player.hand))
        for size in (1, 2, 3):
            for members in combinations(hand, size):
                best = [brute_force(state, order) for order in permutations(members)]
                best = [b for b in best if b is not None]
                got = sets.get(frozenset(members))
                if not best:
                    assert got is None
                else:
                    assert got is not None and got[1] == min(b[0] for b in best)
                    assert joint_payment(state, list(got[0])).cards_spent == got[1]
