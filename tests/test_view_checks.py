"""A posted view is checked as a full position is for all it shows: the one
``position.check_public`` for both readers, the same field and reason for the same fault
(a view's Landmark row, claims and per-turn usage were read unchecked, so /v1/score and
/v1/hint answered positions /v1/games refused)."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable

import pytest

from solver.rules.engine import apply, legal_actions, new_game
from solver.rules.position import (
    PositionError,
    PublicPosition,
    check_public,
    state_from_json,
    state_to_json,
)
from solver.rules.state import GameState, Phase
from solver.rules.stretches import runs
from solver.rules.views import public_players, view_from_json, view_of, view_to_json
from solver.search.bots import make_bot


def random_game(players: int, seed: int) -> list[GameState]:
    rng = random.Random(seed)
    state = new_game(players, seed)
    out = [state]
    while not state.is_over:
        state = apply(state, rng.choice(legal_actions(state)))
        out.append(state)
    return out


def greedy_game(players: int, seed: int) -> list[GameState]:
    """A greedy game claims Landmarks and borrows Materials (a random one seldom does)."""
    greedy = make_bot("greedy")
    state = new_game(players, seed)
    out = [state]
    while not state.is_over:
        state = apply(state, greedy.act(view_of(state, state.current), len(out)))
        out.append(state)
    return out


GAMES = {players: [random_game(players, 10 * players + k) for k in range(2)]
         + [greedy_game(players, 20 * players + k) for k in range(2)] for players in (2, 3, 4)}


def as_json(raw: dict) -> dict:
    return json.loads(json.dumps(raw))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_view_of_random_and_greedy_games_reads_back(players):
    seen = {phase: 0 for phase in Phase} | {"claimed": 0, "usage": 0}
    for states in GAMES[players]:
        for state in states:
            seen[state.phase] += 1
            seen["claimed"] += any(p.landmarks for p in state.players)
            seen["usage"] += bool(state.persistent_uses or any(state.resource_uses.values()))
            for seat in range(players):
                view = view_of(state, seat)
                assert view_from_json(as_json(view_to_json(view))) == view
    assert min(seen.values()) > 0, seen  # every step, claims and usage were read


# ------------------------------------------------------------------ same fault, same words


def both(state: GameState, seat: int) -> tuple[dict, dict]:
    return as_json(state_to_json(state)), as_json(view_to_json(view_of(state, seat)))


def refusal(read: Callable, raw: dict) -> tuple[str, str]:
    with pytest.raises(PositionError) as info:
        read(raw)
    return info.value.field, info.value.reason


def assert_refused_alike(full: dict, view: dict, field: str, words: str) -> None:
    in_full, in_view = refusal(state_from_json, full), refusal(view_from_json, view)
    assert in_view == in_full, (in_full, in_view)
    assert in_full[0] == field and words in in_full[1], in_full


def states_where(test: Callable[[GameState], bool], players=(2, 3, 4), every: int = 1):
    for n in players:
        for states in GAMES[n]:
            yield from (s for s in states[::every] if test(s))


def test_an_empty_landmark_row_while_the_landmark_deck_has_cards_is_refused_in_a_view():
    named = 0
    for state in states_where(lambda s: s.landmark_deck and s.landmark_row, every=7):
        for seat in range(state.num_players):
            full, view = both(state, seat)
            full["landmark_deck"] = full["landmark_row"] + full["landmark_deck"]
            view["landmark_deck"]["count"] += len(view["landmark_row"])
            full["landmark_row"] = view["landmark_row"] = []
            assert_refused_alike(full, view, "landmark_row", "must hold 5 Landmarks")
            named += 1
    assert named > 30


def second_claim_on_one_stretch(state: GameState):
    """(seat, Landmark, card): a Landmark not claimed yet, of the Scenery of a seat's claim,
    placed above another card of the claim's Stretch; None if no seat has such."""
    cards = state.cards
    free = state.landmark_deck + state.landmark_row
    for i, p in enumerate(state.players):
        for lm, c in p.landmarks:
            s = cards.landmark_scenery[lm]
            run = next(r for r in runs(cards, p.highway, scenery=s) if c in r.cards)
            other = [x for x in run.cards if x != c and x not in {b for _, b in p.landmarks}]
            same = [m for m in free if cards.landmark_scenery[m] == s]
            if other and same and p.turns > len(p.landmarks):
                return i, same[0], other[0]
    return None


def test_two_landmarks_claimed_on_one_stretch_are_refused_in_a_view():
    named = 0
    for state in states_where(lambda s: second_claim_on_one_stretch(s) is not None, every=3):
        i, lm, c = second_claim_on_one_stretch(state)
        lm_id, card_id = state.cards.landmarks[lm].id, state.cards.highway[c].id
        for seat in {i, (i + 1) % state.num_players}:  # the claimer's own view, another's
            full, view = both(state, seat)
            for raw in (full, view):
                raw["seats"][i]["landmarks"].append({"landmark": lm_id, "card": card_id})
                if lm_id in raw["landmark_row"]:
                    raw["landmark_row"].remove(lm_id)
            if lm_id in full["landmark_deck"]:
                full["landmark_deck"].remove(lm_id)
                view["landmark_deck"]["count"] -= 1
            assert_refused_alike(full, view, f"seats[{i}].landmarks",
                                 "sit on one Stretch, which was already used to claim")
            named += 1
    assert named > 5


def build_steps(state: GameState) -> bool:
    return state.phase == Phase.BUILD


@pytest.mark.parametrize("resource", ["borrow_discard", "borrow_highway"])
def test_borrowing_no_landmark_of_the_player_to_act_grants_is_refused_in_a_view(resource):
    """'The top Material of another player's discard pile' (borrow_discard) used with no
    Landmark granting it, or more often than granted."""
    from solver.rules.payment import allowances

    named = 0
    for state in states_where(build_steps, every=5):
        granted = allowances(state.cards, state.player)[resource]
        for seat in {state.current, (state.current + 1) % state.num_players}:
            full, view = both(state, seat)
            for raw in (full, view):
                raw["per_turn"]["resources_used"][resource] = granted + 1
            assert_refused_alike(full, view, f"per_turn.resources_used.{resource}",
                                 f"{granted + 1} use(s) this turn, but ")
            named += 1
    assert named > 30


def test_a_persistent_material_used_more_than_granted_is_refused_in_a_view():
    named = 0
    for state in states_where(build_steps, every=5):
        cards = state.cards
        ones = [c for c in state.player.highway if cards.persistent[c] >= 0]
        if not ones:
            continue
        for seat in {state.current, (state.current + 1) % state.num_players}:
            full, view = both(state, seat)
            for raw in (full, view):
                raw["per_turn"]["persistent_used"] = {cards.highway[ones[0]].id: 5}
            assert_refused_alike(full, view, f"per_turn.persistent_used."
                                 f"{cards.highway[ones[0]].id}", "5 uses this turn")
            named += 1
    assert named > 10


def take_step_start(state: GameState) -> bool:
    return state.phase == Phase.TAKE and state.picks == 0 and state.turn > 0


@pytest.mark.parametrize("where, change, field, words", [
    # a Landmark of the row claimed as well
    (lambda s: build_steps(s) and s.landmark_row and s.player.highway,
     lambda s, raw: raw["seats"][s.current]["landmarks"].append(
         {"landmark": raw["landmark_row"][0], "card": raw["seats"][s.current]["highway"][0]}),
     "seats[{current}].landmarks", "is also in landmark_row"),
    # the game over with cards in the deck
    (take_step_start, lambda s, raw: raw.update(phase="over"),
     "phase", "the game is over exactly when the deck is empty"),
    # usage before both cards are taken
    (take_step_start, lambda s, raw: raw["per_turn"].update(recycle_used=True),
     "per_turn", "must show no usage in the take step"),
])
def test_other_public_faults_are_named_alike(where, change, field, words):
    named = 0
    for state in states_where(where, every=9):
        for seat in range(state.num_players):
            full, view = both(state, seat)
            change(state, full)
            change(state, view)
            assert_refused_alike(full, view, field.format(current=state.current), words)
            named += 1
    assert named > 10


def test_a_wrong_landmark_deck_count_is_named_when_the_view_is_read():
    state = GAMES[3][0][40]
    view = as_json(view_to_json(view_of(state, 1)))
    bad = copy.deepcopy(view)
    bad["landmark_deck"]["count"] += 1
    assert refusal(view_from_json, bad) == (
        "landmark_deck.count", f"must be {len(state.landmark_deck)}, the Landmarks neither in "
        f"the row nor claimed, got {len(state.landmark_deck) + 1}")


# ------------------------------------------------------------------ Highways built


def test_a_highway_before_its_owners_first_build_step_is_refused_alike():
    """A seat that has played no turn and is not in its build step has built nothing:
    a card of its hand put in its Highway is named alike by a position and every view."""
    named = 0
    for state in states_where(lambda s: s.turn < s.num_players, every=1):
        for i, p in enumerate(state.players):
            if p.turns or (i == state.current and state.phase == Phase.BUILD):
                continue
            card = state.cards.highway[p.hand[0]].id
            for seat in range(state.num_players):
                full, view = both(state, seat)
                for raw in (full, view):
                    raw["seats"][i]["highway"].append(card)
                    if i == seat or raw is full:
                        raw["seats"][i]["hand"].remove(card)
                        raw["seats"][i]["known_hand"] = [
                            c for c in raw["seats"][i]["known_hand"] if c != card]
                    else:
                        raw["seats"][i]["hand"]["count"] -= 1
                        raw["seats"][i]["hand"]["known"] = [
                            c for c in raw["seats"][i]["hand"]["known"] if c != card]
                assert_refused_alike(full, view, f"seats[{i}].highway",
                                     f"seat {i} has 1 Highway card but has not had a build "
                                     "step yet (0 turns of its own played)")
                named += 1
    assert named > 30


def emptied_pile(state: GameState) -> GameState | None:
    """``state`` with the discard pile of its first seat that has built taken back into
    that seat's hand; None if no seat has built."""
    i = next((i for i, p in enumerate(state.players) if p.highway), None)
    if i is None:
        return None
    state = state.copy()
    p = state.players[i]
    p.hand += p.discard
    p.known_hand |= p.known_discard
    p.discard, p.known_discard = [], set()
    return state


def test_a_built_highway_with_an_empty_discard_pile_is_refused_from_the_counts():
    """The pile's size is public (every card's back shows): check_public refuses a seat
    with a Highway and an empty pile from the counts alone, the other seats' hands and
    piles not given (as a view shows them); a full state is refused the same way."""
    named = 0
    for state in states_where(lambda s: any(p.highway for p in s.players), every=11):
        bad = emptied_pile(state)
        i = next(i for i, p in enumerate(state.players) if p.highway)
        field, words = f"seats[{i}].highway", "with an empty discard pile"
        assert refusal(state_from_json, as_json(state_to_json(bad)))[0] == field
        for seat in range(state.num_players):
            seen = PublicPosition.of_state(state)._replace(
                seats=public_players(view_of(state, seat)))
            check_public(seen)
            counts = [0 if j == i else n for j, n in enumerate(seen.discard_counts)]
            with pytest.raises(PositionError) as info:
                check_public(seen._replace(discard_counts=counts))
            assert (info.value.field, words in info.value.reason) == (field, True), info.value
            # as a view reads it (the pile's size from its JSON: the second read found
            # view_from_json passing no counts, so no view was ever refused)
            got = refusal(view_from_json, as_json(view_to_json(view_of(bad, seat))))
            assert (got[0], words in got[1]) == (field, True), got
            named += 1
    assert named > 30
