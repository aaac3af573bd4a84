"""Setup and turn flow: the deal, taking two cards one at a time, building at the ends,
ending the turn (Depot refill, next seat clockwise) and the end of the game."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from rules_testkit import card_set, fillers, hw, make_state

from solver.rules.actions import Build, Claim, End, IllegalActionError, NotationError, Take
from solver.rules.engine import (
    apply,
    legal_actions,
    new_game,
    outcome,
    play,
    turns_per_player,
)
from solver.rules.state import Phase


def all_cards(state):
    """Every Highway card of the state, with multiplicity."""
    out = list(state.deck) + list(state.depot)
    for p in state.players:
        out += p.hand + p.highway + p.discard
    return out


def random_game(state, seed, checked=False):
    """Play uniformly random legal actions to the end; returns the list of states."""
    rng = random.Random(seed)
    states = [state]
    while not state.is_over:
        action = rng.choice(legal_actions(state))
        state = play(state, action) if checked else apply(state, action)
        states.append(state)
    return states


# ------------------------------------------------------------------ setup


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup(small, players):
    state = new_game(players, seed=11, cards=small)
    in_game = small.deck_for(players)
    assert sorted(all_cards(state)) == sorted(in_game)  # deck filtered by player count
    assert len(in_game) == {2: 21, 3: 23, 4: 29}[players]
    assert all(len(p.hand) == 2 and not p.highway and not p.discard for p in state.players)
    assert len(state.depot) == 5
    assert len(state.landmark_row) == 5 and len(state.landmark_deck) == 3
    assert sorted(state.landmark_row + state.landmark_deck) == list(range(8))
    assert state.current == state.first_player and 0 <= state.first_player < players
    assert (state.phase, state.picks, state.turn) == (Phase.TAKE, 0, 0)
    assert all(not p.known_hand for p in state.players)  # dealt hands are secret


def test_two_and_three_player_decks_leave_out_unmarked_cards(small):
    out2 = {small.highway[c].id for c in all_cards(new_game(2, seed=1, cards=small))}
    out3 = {small.highway[c].id for c in all_cards(new_game(3, seed=1, cards=small))}
    assert "S21" not in out2 and "S21" in out3  # marked for 3 and 4 players
    assert "S23" not in out3  # marked for 4 players only


def test_same_seed_same_game_different_seeds_differ(small):
    assert new_game(3, seed=5, cards=small) == new_game(3, seed=5, cards=small)
    games = [new_game(3, seed=s, cards=small) for s in range(10)]
    assert all(games[i] != games[j] for i in range(10) for j in range(i))


def test_first_player_is_drawn(small):
    firsts = Counter(new_game(4, seed=s, cards=small).first_player for s in range(60))
    assert set(firsts) == {0, 1, 2, 3}


def test_turns_per_player_small_set(small):
    assert [turns_per_player(new_game(n, 0, small)) for n in (2, 3, 4)] == [3, 2, 2]


# ------------------------------------------------------------------ taking


def test_take_two_cards_one_at_a_time(small):
    state = new_game(2, seed=3, cards=small)
    seat = state.current
    depot_card = small.highway[state.depot[2]].id
    state = play(state, f"take {depot_card}")
    assert (state.phase, state.picks, state.current) == (Phase.TAKE, 1, seat)
    assert small.card(depot_card) in state.player.hand and len(state.player.hand) == 3
    state = play(state, "take deck")
    assert (state.phase, state.picks, len(state.player.hand)) == (Phase.BUILD, 2, 4)
    with pytest.raises(IllegalActionError, match="already taken 2 cards"):
        play(state, "take deck")


def test_deck_draw_is_seen_before_the_second_pick(small):
    state = new_game(2, seed=4, cards=small)
    top = state.deck[-1]
    after = play(state, "take deck")
    assert top in after.player.hand and top not in after.deck
    assert after.phase == Phase.TAKE  # the player now chooses the second card knowing it
    assert {a for a in legal_actions(after)} == (
        {Take(small.highway[c].id) for c in after.depot} | {Take(None)})
    assert top not in after.player.known_hand  # others did not see it


@pytest.mark.parametrize("first, second", [("depot", "depot"), ("depot", "deck"),
                                           ("deck", "depot"), ("deck", "deck")])
def test_any_mix_of_depot_and_deck(small, first, second):
    state = new_game(2, seed=8, cards=small)
    depot_before = state.depot[:]
    deck_before = state.deck[:]
    taken = []
    for source in (first, second):
        if source == "depot":
            c = state.depot[0]
            state = play(state, f"take {small.highway[c].id}")
        else:
            c = state.deck[-1]
            state = play(state, "take deck")
        taken.append(c)
    assert state.phase == Phase.BUILD and all(c in state.player.hand for c in taken)
    from_depot = [c for c in taken if c in depot_before]
    assert len(state.depot) == 5 - len(from_depot)  # not refilled during the turn
    assert len(state.deck) == len(deck_before) - (2 - len(from_depot))
    assert state.player.known_hand == set(from_depot)


def test_depot_is_refilled_only_at_end_of_turn_from_the_deck_top(small):
    state = new_game(2, seed=9, cards=small)
    d = [small.highway[c].id for c in state.depot]
    state = play(play(state, f"take {d[0]}"), f"take {d[3]}")
    assert state.phase == Phase.BUILD and len(state.depot) == 3
    top_two = state.deck[-1], state.deck[-2]
    state = play(state, "end")
    assert len(state.depot) == 5 and state.depot[-2:] == list(top_two)


def test_take_errors(small):
    state = new_game(2, seed=2, cards=small)
    not_there = next(c for c in small.deck_for(2) if c not in state.depot)
    with pytest.raises(IllegalActionError) as info:
        play(state, f"take {small.highway[not_there].id}")
    msg = str(info.value)
    assert f"take {small.highway[not_there].id}" in msg and "is not in the Depot" in msg
    assert all(small.highway[c].id in msg for c in state.depot)
    with pytest.raises(IllegalActionError, match="unknown Highway card 'NOPE'"):
        play(state, "take NOPE")
    for text in ("end", "build S00 L", "claim L0 S00"):
        with pytest.raises(IllegalActionError, match="first take 2 more card"):
            play(state, text)
    state = play(state, "take deck")
    with pytest.raises(IllegalActionError, match="first take 1 more card"):
        play(state, "end")


def test_take_from_an_empty_deck_is_illegal():
    cards = card_set(fillers(8))
    state = make_state(cards, [{"hand": "X0 X1"}, {"hand": "X2 X3"}], deck="",
                       depot="X4 X5 X6 X7", phase=Phase.TAKE)
    with pytest.raises(IllegalActionError, match="deck is empty"):
        play(state, "take deck")
    assert Take(None) not in legal_actions(state)


def test_no_hand_size_limit():
    cards = card_set(fillers(30))
    hand = " ".join(f"X{i}" for i in range(20))
    state = make_state(cards, [{"hand": hand}, {"hand": "X20"}], deck="X21 X22 X23",
                       depot="X24 X25 X26 X27 X28", phase=Phase.TAKE)
    state = play(play(state, "take deck"), "take X24")
    assert len(state.players[0].hand) == 22


# ------------------------------------------------------------------ building


def test_first_card_starts_the_road_then_left_or_right():
    cards = card_set([hw(x, cost="stone stone") for x in "ABCD"] + fillers(10))
    state = make_state(cards, [{"hand": "A B C D X0 X1 X2 X3 X4 X5 X6 X7"}, {"hand": "X8"}])
    sides = {a.side for a in legal_actions(state) if isinstance(a, Build)}
    assert sides == {"L"}  # an empty Highway has one place: the start of the road
    state = play(state, "build A L pay X0 X1")
    assert {a.side for a in legal_actions(state) if isinstance(a, Build)} == {"L", "R"}
    state = play(state, "build B R pay X2 X3")
    state = play(state, "build C L pay X4 X5")
    state = play(state, "build D R pay X6 X7")  # any number of builds in a turn
    assert [cards.highway[c].id for c in state.player.highway] == ["C", "A", "B", "D"]
    assert state.phase == Phase.BUILD and state.current == 0


def test_first_build_on_the_right_also_starts_the_road():
    cards = card_set([hw("A")] + fillers(4))
    state = make_state(cards, [{"hand": "A X0 X1"}, {}])
    assert play(state, "build A R pay X0 X1").player.highway == [cards.card("A")]


def test_cannot_insert_or_rearrange():
    """The only placements are the two ends: no action names a position in between."""
    cards = card_set([hw(x) for x in "ABC"] + fillers(4))
    state = make_state(cards, [{"hand": "C X0 X1", "highway": "A B"}, {}])
    targets = {tuple(play(state, a).player.highway) for a in legal_actions(state)
               if isinstance(a, Build) and a.card == "C"}
    a, b, c = (cards.card(x) for x in "ABC")
    assert targets == {(c, a, b), (a, b, c)}
    with pytest.raises(NotationError, match="side must be L or R"):
        play(state, "build C M")  # the notation has no place in between either


def test_build_errors_name_the_action():
    cards = card_set([hw("A", cost="water water"), hw("B")] + fillers(4))
    state = make_state(cards, [{"hand": "A X0", "highway": "B"}, {"hand": "X1"}])
    with pytest.raises(IllegalActionError) as info:
        play(state, "build X1 L")
    assert "'build X1 L' for seat 0" in str(info.value) and "not in your hand" in str(info.value)
    with pytest.raises(IllegalActionError, match="cannot pay for A .cost: water, water."):
        play(state, "build A L")
    with pytest.raises(IllegalActionError, match="side must be L or R"):
        play(state, Build("X0", "M"))
    with pytest.raises(IllegalActionError, match="unknown Highway card"):
        play(state, "build ZZ L")


# ------------------------------------------------------------------ end of turn


def test_end_refills_and_passes_clockwise():
    cards = card_set(fillers(40))
    seats = [{"hand": "X0"}, {"hand": "X1"}, {"hand": "X2"}]
    state = make_state(cards, seats, deck="X10 X11 X12 X13 X14 X15", depot="X20 X21 X22",
                       current=2, first_player=2, phase=Phase.BUILD)
    after = play(state, "end")
    assert after.current == 0 and after.phase == Phase.TAKE and after.picks == 0
    assert after.turn == 1 and after.players[2].turns == 1
    assert [cards.highway[c].id for c in after.depot] == ["X20", "X21", "X22", "X10", "X11"]
    after = play(play(play(after, "take deck"), "take deck"), "end")
    assert after.current == 1


def test_claim_ends_the_turn():
    cards = card_set([hw(x, scenery="ocean ocean") for x in "AB"] + fillers(10),
                     [{"id": "L", "name": "L", "scenery": "ocean",
                       "ability": {"kind": "mile_bonus", "miles": 1}}])
    state = make_state(cards, [{"highway": "A B"}, {}], deck="X0 X1 X2 X3", depot="X4 X5 X6")
    after = play(state, "claim L A")
    assert (after.current, after.phase, after.turn) == (1, Phase.TAKE, 1)
    assert len(after.depot) == 5


def test_game_ends_exactly_when_deck_is_empty_after_refill():
    cards = card_set(fillers(30))
    # 2 cards left in the deck, Depot full: this turn's 2 takes empty the system's spare
    state = make_state(cards, [{"hand": "X0", "turns": 3}, {"hand": "X1", "turns": 3}],
                       deck="X2 X3", depot="X4 X5 X6 X7 X8", phase=Phase.TAKE, turn=6)
    state = play(play(state, "take X4"), "take deck")
    assert state.phase == Phase.BUILD and len(state.deck) == 1
    assert outcome(state) is None
    over = play(state, "end")  # refill takes the last deck card: game over
    assert over.phase == Phase.OVER and not over.deck and len(over.depot) == 4 + 1
    assert legal_actions(over) == [] and outcome(over) is not None
    with pytest.raises(IllegalActionError, match="the game is over"):
        play(over, "take deck")
    # deck cards left after the refill: the game goes on
    state2 = make_state(cards, [{"hand": "X0"}, {"hand": "X1"}], deck="X2 X3 X9",
                        depot="X5 X6 X7 X8")
    assert play(state2, "end").phase == Phase.TAKE


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_give_equal_turns_small_set(small, players):
    for seed in range(3):
        states = random_game(new_game(players, seed, small), seed)
        final = states[-1]
        expected = turns_per_player(final)
        assert all(p.turns == expected for p in final.players)
        assert final.turn == expected * players
        # the game was not over one action earlier, and the deck emptied only at the end
        assert not states[-2].is_over and states[-2].deck
        assert all(s.deck for s in states[:-1])
        assert sorted(all_cards(final)) == sorted(small.deck_for(players))


@pytest.mark.parametrize("players, turns", [(2, 10), (3, 8), (4, 7)])
def test_random_games_give_equal_turns_default_set(players, turns):
    final = random_game(new_game(players, seed=players), seed=players)[-1]
    assert [p.turns for p in final.players] == [turns] * players
    assert final.turn == turns * players and outcome(final) is not None


def test_turn_order_over_a_game(small):
    states = random_game(new_game(3, seed=21, cards=small), seed=21)
    order = [s.current for s, t in zip(states, states[1:], strict=False) if t.turn > s.turn]
    first = states[0].first_player
    assert order == [(first + i) % 3 for i in range(len(order))]


def test_apply_does_not_change_its_input_and_matches_play(small):
    state = new_game(2, seed=1, cards=small)
    rng = random.Random(1)
    while not state.is_over:
        before = state.copy()
        action = rng.choice(legal_actions(state))
        after = apply(state, action)
        assert state == before and after == play(state, action)
        state = after


def test_legal_actions_in_build_step_end_is_always_legal(small):
    state = new_game(2, seed=6, cards=small)
    state = play(play(state, "take deck"), "take deck")
    acts = legal_actions(state)
    assert acts[-1] == End() and all(isinstance(a, Build | Claim | End) for a in acts)
    for a in acts:
        play(state, a)  # every generated action passes the checked entry point


def test_highway_only_grows_at_the_ends(small):
    """No card is inserted, moved, replaced or removed once built: over random games each
    Highway after an action is the one before, or it with one card added at an end."""
    grew = 0
    for seed in range(6):
        states = random_game(new_game(2 + seed % 3, seed, small), seed)
        for before, after in zip(states, states[1:], strict=False):
            for old, new in zip(before.players, after.players, strict=True):
                a, b = old.highway, new.highway
                assert b == a or (len(b) == len(a) + 1 and (b[1:] == a or b[:-1] == a))
                grew += len(b) > len(a)
    assert grew > 10


def test_a_phase_given_as_its_number_is_that_phase(small):
    """A state whose phase is a plain int (state.phase = 0) listed only 'end' in the take
    step (the engine compares phases by identity) and play's refusals failed with an
    AttributeError. legal_actions and play read the number as its Phase (play's state
    has a Phase), apply's refusals word it as play does, and another value is an error
    naming the field."""
    from solver.rules.position import PositionError

    seen = set()
    for state in random_game(new_game(3, seed=4, cards=small), 4):
        numbered = state.copy()
        numbered.phase = int(state.phase)
        seen.add(state.phase)
        assert legal_actions(numbered) == legal_actions(state)
        assert numbered.phase == state.phase and type(numbered.phase) is int  # unchanged
        for action in legal_actions(state)[:4]:
            after = play(numbered, action)
            assert after == play(state, action) and type(after.phase) is Phase
        if not state.is_over:
            with pytest.raises(IllegalActionError) as checked:
                play(state, Take("S01") if state.phase == Phase.BUILD else End())
            with pytest.raises(IllegalActionError) as numbered_err:
                play(numbered, Take("S01") if state.phase == Phase.BUILD else End())
            assert str(numbered_err.value) == str(checked.value)
            gone = next(c for c in range(len(small.highway)) if c not in state.depot)
            with pytest.raises(IllegalActionError) as unchecked:
                apply(numbered, Take(small.highway[gone].id))
            assert f"{state.phase} step" in str(unchecked.value)
    assert seen == set(Phase)
    for bad in (7, "take", True, None):
        numbered.phase = bad
        for entry in (legal_actions, lambda s: play(s, "end")):
            with pytest.raises(PositionError, match=r"phase: must be a Phase \(Phase.TAKE, "
                               rf".* or its number 0 to 2, got {bad!r}"):
                entry(numbered)
