"""Legal actions from a view: the same list as every full state consistent with it.

Property test over random positions of random games (2-4 players, every step of a turn),
some with payment Landmarks given to the seat to act (borrowing reads the other seats'
Highways and discard tops), and over the payment bench's random build positions.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.payment import PAYMENT_ABILITIES, random_position
from solver.rules.cards import load_card_set
from solver.rules.determinize import Determinizer, sample_states
from solver.rules.engine import apply_inplace, legal_actions, new_game
from solver.rules.payment import auto_payment_cards, build_costs
from solver.rules.state import Phase
from solver.rules.views import view_of

CARDS = load_card_set()
PAYMENT_LANDMARKS = [i for i, lm in enumerate(CARDS.landmarks)
                     if lm.ability.kind in PAYMENT_ABILITIES]


def random_position_of_a_game(players: int, seed: int, steps: int, grant: bool):
    rng = random.Random(seed)
    state = new_game(players, seed, CARDS)
    for _ in range(steps):
        if state.is_over:
            break
        apply_inplace(state, rng.choice(legal_actions(state)))
    me = state.player
    if grant and me.highway and not state.is_over:
        # payment Landmarks from the Landmark deck (the view stays consistent)
        for lm in PAYMENT_LANDMARKS:
            if lm in state.landmark_deck and len(me.landmarks) < len(me.highway):
                state.landmark_deck.remove(lm)
                me.landmarks.append((lm, me.highway[len(me.landmarks)]))
    return state


@settings(max_examples=80, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), steps=st.integers(0, 160),
       grant=st.booleans())
def test_actions_from_the_view_are_those_of_every_consistent_state(players, seed, steps,
                                                                      grant):
    state = random_position_of_a_game(players, seed, steps, grant)
    view = view_of(state, state.current)
    actions = legal_actions(view)
    assert actions == legal_actions(state)
    for sample in sample_states(view, 5, seed):
        assert legal_actions(sample) == actions
    if state.phase == Phase.BUILD:  # the payment helpers read the view alike
        costs = build_costs(view)
        assert costs == build_costs(state)
        for c in costs:
            assert auto_payment_cards(view, c) == auto_payment_cards(state, c)


def test_borrowing_positions_give_the_same_actions_from_the_view():
    rng = random.Random(11)
    for _ in range(300):
        state, _builds = random_position(rng, CARDS, rng.randint(1, 7), 1)
        assert legal_actions(view_of(state, state.current)) == legal_actions(state)


def test_a_view_of_a_seat_not_to_act_is_refused_and_a_finished_game_has_none():
    state = new_game(3, seed=4)
    other = (state.current + 1) % 3
    with pytest.raises(ValueError, match="to act"):
        legal_actions(view_of(state, other))
    rng = random.Random(4)
    while not state.is_over:
        apply_inplace(state, rng.choice(legal_actions(state)))
    assert legal_actions(view_of(state, other)) == []
    with pytest.raises(TypeError):
        legal_actions("take deck")


def test_sample_states_is_seeded_and_consistent():
    state = random_position_of_a_game(2, 8, 40, False)
    view = view_of(state, state.current)
    first = sample_states(view, 3, seed=1)
    assert [repr(s) for s in first] == [repr(s) for s in sample_states(view, 3, seed=1)]
    assert all(view_of(s, view.seat) == view for s in first)
    assert Determinizer(view).view is view
    with pytest.raises(ValueError):
        sample_states(view, -1)
