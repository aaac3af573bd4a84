"""The engine's payment shortcuts give the answers of the count search they skip.

``affordable_cards`` screens cards without the search (a plan paid by the hand alone, the
closed form of :func:`min_cards_simple` when the only free sources are Persistent
Materials and Recycling), ``cheapest_payment`` caches its answers, and the engine carries
out the payments it found without re-checking them. Each is compared here with the
unshortened path on random positions (every payment rule comes up, Landmark sources too).
"""

from __future__ import annotations

import random

import pytest

from bench.payment import random_position
from solver.rules.cards import load_card_set
from solver.rules.engine import apply_inplace, legal_actions, new_game
from solver.rules.payment import (
    Sources,
    affordable_cards,
    apply_payment,
    carry_out_payment,
    cheapest_cards_needed,
    cheapest_payment,
    clear_caches,
    min_cards_simple,
    solve_counts,
)
from solver.rules.state import Phase

CARDS = load_card_set()


def searched(state, card):
    """Fewest cards for ``card`` by the count search alone (None: not payable)."""
    hand = [c for c in state.player.hand]
    hand.remove(card)
    counts = [0] * 5
    for c in hand:
        counts[CARDS.material[c]] += 1
    return solve_counts((CARDS.cost_counts[card],), (-1,), tuple(counts), len(hand),
                        Sources(state).key())[0]


@pytest.mark.parametrize("seed", range(3))
def test_affordable_cards_and_cards_needed_match_the_count_search(seed):
    rng = random.Random(seed)
    for _ in range(400):
        state, _builds = random_position(rng, CARDS, rng.randint(1, 7), 1)
        expected = [c for c in state.player.hand if searched(state, c) is not None]
        assert affordable_cards(state) == expected
        for c in state.player.hand:
            assert cheapest_cards_needed(state, c) == searched(state, c)


def test_min_cards_simple_is_the_count_search_without_landmarks():
    rng = random.Random(5)
    costs = sorted(set(CARDS.cost_counts))
    for _ in range(20_000):
        cost = rng.choice(costs)
        hand = tuple(rng.choice((0, 0, 1, 1, 2, 3, 5)) for _ in range(5))
        base = tuple(rng.choice((0, 0, 0, 1, 2)) for _ in range(5))
        recycle = rng.choice((-2, -1, 0, 1, 2, 3, 4))
        got = solve_counts((cost,), (-1,), hand, 99, (base, 0, 0, 0, 0, 0, 0, recycle))
        items = tuple((m, k) for m, k in enumerate(cost) if k)
        assert min_cards_simple(items, hand, base, recycle) == got[0]


@pytest.mark.parametrize("seed", range(2))
def test_cached_payments_and_unchecked_carry_out_match_the_checked_path(seed):
    rng = random.Random(seed)
    for _ in range(300):
        state, _builds = random_position(rng, CARDS, rng.randint(1, 7), 1)
        for c in affordable_cards(state):
            clear_caches()
            fresh = cheapest_payment(state, c)
            assert cheapest_payment(state, c) == fresh  # from the cache
            checked, fast = state.copy(), state.copy()
            apply_payment(checked, c, fresh)
            carry_out_payment(fast, c, fresh)
            assert fast == checked
            assert [p.known_discard for p in fast.players] == \
                [p.known_discard for p in checked.players]


def test_random_games_auto_pay_as_the_checked_payment():
    """Every auto-paid build of random games equals the checked payment of that build."""
    for seed in range(30):
        state = new_game(2 + seed % 3, seed)
        rng = random.Random(seed)
        while not state.is_over:
            action = rng.choice(legal_actions(state))
            if state.phase == Phase.BUILD and type(action).__name__ == "Build":
                c = CARDS.card(action.card)
                checked = state.copy()
                apply_payment(checked, c, cheapest_payment(state, c))
                apply_inplace(state, action)
                assert state.player.hand == checked.player.hand
                assert state.player.discard == checked.player.discard
                assert state.persistent_uses == checked.persistent_uses
                assert state.recycle_used == checked.recycle_used
            else:
                apply_inplace(state, action)
