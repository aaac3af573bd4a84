"""The determinizer: samples are consistent with the view, vary, are uniform enough,
and impossible views are refused with a named error."""

from __future__ import annotations

import random
from collections import Counter

import networkx as nx
import pytest

from solver.rules.cards import load_card_set
from solver.rules.engine import apply_inplace, legal_actions, new_game
from solver.rules.position import check_state
from solver.rules.state import Phase
from solver.rules.views import view_of
from solver.search.bots import legal_from_view
from solver.search.determinize import Determinizer, InconsistentViewError, determinize
from solver.search.policies import greedy_action


@pytest.fixture(scope="module")
def cards():
    return load_card_set()


def _game_states(cards, players: int, seed: int, greedy: bool = True):
    """Every state of one game (greedy play mixed with random moves, so that hands,
    discard piles and known cards all grow)."""
    rng = random.Random(seed)
    state = new_game(players, seed, cards)
    while state.phase != Phase.OVER:
        yield state
        if greedy and rng.random() < 0.7:
            action = greedy_action(state)
        else:
            action = rng.choice(legal_actions(state))
        state = state.copy()
        apply_inplace(state, action)


def _mid_state(cards, players=2, seed=3, turn=4):
    """A build step at or after ``turn`` where the other seat holds hidden cards."""
    for state in _game_states(cards, players, seed):
        other = state.players[1 - state.current]
        if state.turn >= turn and state.phase == Phase.BUILD \
                and len(other.hand) - len(other.known_hand) >= 1:
            return state
    raise AssertionError("game too short")


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_samples_are_consistent_with_the_view(cards, players, seed):
    rng = random.Random(seed)
    checked = 0
    for i, state in enumerate(_game_states(cards, players, seed)):
        if i % 3:
            continue
        for seat in range(players):
            view = view_of(state, seat)
            sample = Determinizer(view).sample(rng)
            check_state(sample)
            assert view_of(sample, seat) == view
            checked += 1
    assert checked > 20


def test_legal_actions_from_the_view_match_the_state(cards):
    for players, seed in ((2, 5), (4, 6)):
        for state in _game_states(cards, players, seed):
            expected = [a.notation() for a in legal_actions(state)]
            got = [a.notation() for a in legal_from_view(view_of(state, state.current))]
            assert got == expected


def test_samples_vary_across_seeds(cards):
    state = _mid_state(cards)
    view = view_of(state, state.current)
    other = 1 - state.current
    hands = {tuple(sorted(determinize(view, s).players[other].hand)) for s in range(20)}
    decks = {tuple(determinize(view, s).deck) for s in range(20)}
    assert len(hands) >= 5 and len(decks) == 20
    # and the same seed gives the same sample
    assert determinize(view, 7) == determinize(view, 7)


def test_samples_are_uniform_over_the_unseen_cards(cards):
    """Each unseen card that may sit in the opponent's hand does so about
    hand_size / free_slots of the time (a fixed seed keeps the test deterministic)."""
    state = _mid_state(cards)
    view = view_of(state, state.current)
    other = 1 - state.current
    d = Determinizer(view)
    rng = random.Random(11)
    n = 3000
    counts = Counter()
    for _ in range(n):
        counts.update(d.sample(rng).players[other].hand)
    o = view.others[other]
    hidden = o.hand_count - len(o.known_hand)
    assert hidden > 0
    free = len(d.unseen) - sum(d.need.values())
    # a card of a Material needed in the discard pile is less often free: check the
    # cards of Materials no hidden discard position needs
    pure = [c for c in d.unseen if d.need[cards.material[c]] == 0]
    assert pure
    p = hidden / free
    sd = (n * p * (1 - p)) ** 0.5
    for c in pure:
        assert abs(counts[c] - n * p) < 5 * sd, (cards.highway[c].id, counts[c], n * p)


def _matching_feasible(view) -> bool:
    """Oracle: a perfect matching of the cards to place (unseen cards, and the known
    fronts of other discard piles) to the hidden slots (networkx Hopcroft-Karp)."""
    cards = view.cards
    seen = set(view.me.hand) | set(view.me.highway) | set(view.me.discard) | set(view.depot)
    for o in view.others.values():
        seen.update(o.known_hand)
        seen.update(o.highway)
        seen.update(o.known_discard)
    unseen = [c for c in cards.deck_for(view.num_players) if c not in seen]
    slots = []  # (kind, seat, index, Material or None)
    for i, o in sorted(view.others.items()):
        if o.hand_count < len(o.known_hand):
            return False
        slots += [("hand", i, k, None) for k in range(o.hand_count - len(o.known_hand))]
        slots += [("discard", i, pos, m) for pos, m in enumerate(o.discard_materials)]
    slots += [("deck", -1, k, None) for k in range(view.deck_count)]
    left = [("card", c, None) for c in unseen]  # (kind, card, seat it is known in)
    for i, o in sorted(view.others.items()):
        left += [("known", c, i) for c in o.known_discard]
    if len(slots) != len(left):
        return False
    g = nx.Graph()
    g.add_nodes_from(left, bipartite=0)
    g.add_nodes_from(slots, bipartite=1)
    for node in left:
        _kind, c, seat = node
        for s in slots:
            if s[0] == "discard" and s[3] != cards.material[c]:
                continue
            if seat is not None and (s[0] != "discard" or s[1] != seat):
                continue
            g.add_edge(node, s)
    matching = nx.bipartite.hopcroft_karp_matching(g, top_nodes=left)
    return len(matching) // 2 == len(left)


def test_counting_check_agrees_with_bipartite_matching(cards):
    """Perturb discard Materials and counts of real views; the determinizer accepts
    exactly the views that networkx finds a perfect matching for."""
    rng = random.Random(4)
    agreed = {True: 0, False: 0}
    for state in list(_game_states(cards, 3, 9))[10::6]:
        seat = state.current
        for _ in range(4):
            view = view_of(state, seat)
            o = view.others[rng.choice(sorted(view.others))]
            if o.discard_materials and rng.random() < 0.7:
                pos = rng.randrange(len(o.discard_materials))
                o.discard_materials[pos] = rng.randrange(5)
            else:
                o.hand_count += rng.choice((-1, 1))
                view.deck_count -= rng.choice((-1, 0, 1))
            expected = _matching_feasible(view)
            try:
                Determinizer(view)
                got = True
            except InconsistentViewError:
                got = False
            assert got == expected
            agreed[got] += 1
    assert agreed[True] and agreed[False]


def test_impossible_views_raise_named_errors(cards):
    state = _mid_state(cards)
    seat = state.current
    other = 1 - seat

    def broken(change):
        view = view_of(state, seat)
        change(view)
        with pytest.raises(InconsistentViewError) as err:
            Determinizer(view)
        return str(err.value)

    assert "deck.count" in broken(lambda v: setattr(v, "deck_count", v.deck_count + 1))
    msg = broken(lambda v: v.others[other].known_hand.append(v.me.hand[0]))
    assert "is also in" in msg
    msg = broken(lambda v: setattr(v.others[other], "hand_count", -1))
    assert f"seats[{other}].hand" in msg
    msg = broken(lambda v: setattr(v, "landmark_deck_count", v.landmark_deck_count + 1))
    assert "landmark_deck.count" in msg

    def too_many(v):  # every discard of the opponent shows one Material...
        o = v.others[other]
        o.discard_materials = [0] * 40
        v.deck_count -= 40 - len(state.players[other].discard)

    assert "discard" in broken(too_many)

    def known_wrong_material(v):  # a known front whose Material no position shows
        o = v.others[other]
        o.discard_materials = [0] * len(o.discard_materials)
        o.known_discard.append(next(c for c in v.unseen_cards() if cards.material[c] != 0))

    assert "discard.known" in broken(known_wrong_material)


def test_sampling_a_full_state_instead_of_a_view_is_a_named_type_error():
    from solver.rules.determinize import sample_states

    state = new_game(2, seed=1)
    with pytest.raises(TypeError, match="expected a PlayerView .*got GameState"):
        sample_states(state, 1)
    with pytest.raises(TypeError, match="view_of"):
        determinize(state)
