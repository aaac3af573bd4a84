"""Positions and views: the JSON round trip at every step of a turn, the checks that
reject malformed or impossible positions (naming the field), and what a player's view
may contain."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import re
from pathlib import Path

import pytest
from rules_testkit import card_set, hw, lm, make_state

from solver.rules.cards import CardSet
from solver.rules.engine import apply, legal_actions, new_game, play
from solver.rules.position import PositionError, state_from_json, state_to_json
from solver.rules.state import GameState, Phase
from solver.rules.views import view_from_json, view_of, view_to_json


def roundtrip(state):
    return state_from_json(json.loads(json.dumps(state_to_json(state))))


def game_states(cards, players, seed):
    """Every state of a random legal game (uniform choice, seeded)."""
    state = new_game(players, seed, cards)
    rng = random.Random(seed)
    out = [state]
    while not state.is_over:
        state = apply(state, rng.choice(legal_actions(state)))
        out.append(state)
    return out


# ------------------------------------------------------------------ round trip


@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_trip_at_every_step_default_set(players):
    seen = {"picks1": 0, "build": 0, "after_build": 0, "recycle": 0, "persistent": 0,
            "claimable": 0, "landmark": 0, "over": 0}
    for seed in range(2):
        for state in game_states(None, players, seed):
            assert roundtrip(state) == state
            seen["picks1"] += state.phase == Phase.TAKE and state.picks == 1
            seen["build"] += state.phase == Phase.BUILD
            seen["after_build"] += state.phase == Phase.BUILD and bool(
                state.recycle_used or state.persistent_uses or state.player.discard)
            seen["recycle"] += state.recycle_used
            seen["persistent"] += bool(state.persistent_uses)
            seen["claimable"] += state.phase == Phase.BUILD and any(
                a.notation().startswith("claim") for a in legal_actions(state))
            seen["landmark"] += any(p.landmarks for p in state.players)
            seen["over"] += state.is_over
    assert all(seen.values()), seen  # every step of a turn was checked


def test_round_trip_inline_card_set(custom):
    states = game_states(custom, 3, 4)
    for state in states[::3] + [states[-1]]:
        raw = state_to_json(state)
        assert isinstance(raw["cards"], dict) and raw["cards"]["name"] == "custom"
        assert roundtrip(state) == state


def test_an_inline_card_set_passes_the_checks_of_a_cards_file(small):
    """A set inside a position is checked as ``--cards FILE`` is (69 + 20 cards, equal
    turns): the small test set is read only when given as ``cards``."""
    state = game_states(small, 3, 4)[5]
    raw = state_to_json(state)
    with pytest.raises(PositionError) as info:
        state_from_json(raw)
    assert info.value.field == "cards" and "a full set has 69 cards" in info.value.reason
    assert state_from_json(raw, small) == state


def test_per_turn_usage_is_written_to_the_position():
    cards = card_set([hw("P", 1, "ocean ocean", per="water"), hw("WW", 3, cost="water water")]
                     + [hw(f"W{i}", back="water") for i in range(3)])
    state = make_state(cards, [{"hand": "WW W1", "highway": "P"}, {"discard": "W2"}],
                       recycle_used=True, persistent_uses={"P": 1},
                       resource_uses={"borrow_discard": 1})
    assert state_to_json(state)["per_turn"] == {
        "recycle_used": True, "persistent_used": {"P": 1},
        "resources_used": {"borrow_discard": 1}}


# ------------------------------------------------------------------ malformed positions


def base_position():
    """A position in the build step of turn 4 (seat 1 to act) of a 2-player default game."""
    state = new_game(2, seed=17)
    rng = random.Random(17)
    while not (state.turn == 3 and state.phase == Phase.BUILD):
        state = apply(state, rng.choice(legal_actions(state)))
    return state, state_to_json(state)


def mutated(fn):
    state, raw = base_position()
    raw = copy.deepcopy(raw)
    fn(raw, state)
    return raw


def expect_error(raw, field, words=""):
    with pytest.raises(PositionError) as info:
        state_from_json(raw)
    assert info.value.field == field, str(info.value)
    assert words in info.value.reason, str(info.value)
    assert str(info.value).startswith(field + ": ")


def move(raw, src, dst, n=1):
    """Move ``n`` card ids from list path ``src`` to list path ``dst`` (e.g. seats.0.hand)."""
    def get(path):
        obj = raw
        for key in path.split("."):
            obj = obj[int(key)] if key.isdigit() else obj[key]
        return obj
    for _ in range(n):
        get(dst).append(get(src).pop())


def give_unknown_card(raw, src, dst):
    """Move a card that is not publicly known from seat ``src``'s hand to ``dst``'s."""
    seat = raw["seats"][src]
    card = next(c for c in seat["hand"] if c not in seat["known_hand"])
    seat["hand"].remove(card)
    raw["seats"][dst]["hand"].append(card)


def test_base_position_is_valid():
    state, raw = base_position()
    assert state_from_json(raw) == state
    assert raw["current"] != raw["first_player"] or raw["turn"] % 2 == 0


@pytest.mark.parametrize("change, field, words", [
    (lambda r, s: r["seats"][0]["hand"].__setitem__(0, "H99"), "seats[0].hand[0]",
     "unknown Highway"),
    (lambda r, s: r["seats"][0]["hand"].append(r["deck"][0]), "seats[0].hand", "also in deck"),
    (lambda r, s: r["depot"].append(r["depot"][0]), "depot", "also in depot"),
    (lambda r, s: r["deck"].pop(), "deck", "nowhere"),
    (lambda r, s: r["seats"][1]["highway"].append(
        next(c.id for c in s.cards.highway if 2 not in c.players)), "seats[1].highway",
     "not used with 2 players"),
    (lambda r, s: give_unknown_card(r, 0, 1), "seats[0]", "must hold"),
    (lambda r, s: move(r, "deck", "seats.0.hand"), "deck", "deck + Depot must hold"),
    (lambda r, s: move(r, "deck", "depot", 3), "depot", "must hold"),
    (lambda r, s: r.update(phase="lunch"), "phase", "must be one of"),
    (lambda r, s: r.update(phase=[]), "phase", "must be one of"),  # was a TypeError
    (lambda r, s: r.update(phase="take"), "picks", "0 or 1"),
    (lambda r, s: r.update(picks=1), "picks", "must be 2"),
    (lambda r, s: r.update(picks=3), "picks", "0 to 2"),
    (lambda r, s: r.update(current=1 - r["current"]), "current", "acts"),
    (lambda r, s: r.update(current=2), "current", "0 to 1"),
    (lambda r, s: r.update(first_player=5), "first_player", "0 to 1"),
    (lambda r, s: r.update(turn=4), "current", "seat"),
    (lambda r, s: r.update(turn=5), "seats[0].turns", "after 5 turns"),
    # counters that agree, past the game's end: it said "deck + Depot must hold -956 cards"
    (lambda r, s: [r.update(turn=500, current=r["first_player"])] + [
        seat.update(turns=250) for seat in r["seats"]], "turn",
     "a game of 2 players on these cards ends after 20 turns (10 each), got 500"),
    (lambda r, s: r["seats"][0].update(turns=9), "seats[0].turns", "must be"),
    (lambda r, s: r["seats"][0].update(turns=-1), "seats[0].turns", "0 to"),
    (lambda r, s: r["seats"][0].update(known_hand=[r["deck"][0]]), "seats[0].known_hand",
     "not in the hand"),
    (lambda r, s: r["seats"][0].update(known_discard=[r["seats"][0]["hand"][0]]),
     "seats[0].known_discard", "not in the discard"),
    (lambda r, s: r.update(format="chess"), "format", "bigsur-position/1"),
    (lambda r, s: r.update(seats=r["seats"][:1]), "seats", "2 to 4"),
    (lambda r, s: r.update(seats="x"), "seats", "2 to 4"),
    (lambda r, s: r["seats"].__setitem__(0, 3), "seats[0]", "must be an object"),
    (lambda r, s: r.update(deck="H01"), "deck", "list of card ids"),
    (lambda r, s: r.update(landmark_row=["L99"] + r["landmark_row"][1:]), "landmark_row[0]",
     "unknown Landmark"),
    (lambda r, s: r["landmark_row"].pop(), "landmark_deck", "nowhere"),
    (lambda r, s: r["landmark_row"].append(r["landmark_deck"][0]), "landmark_row",
     "also in landmark_deck"),
    (lambda r, s: move(r, "landmark_row", "landmark_deck"), "landmark_row",
     "must hold 5 Landmarks"),
    (lambda r, s: r.update(cards={"name": "default", "fingerprint": "0"}), "cards",
     "fingerprint differs"),
    (lambda r, s: r.update(cards=7), "cards", "must be"),
    (lambda r, s: r.update(cards={"format": "bigsur-cards/1", "name": "x", "highway": [{}],
                                  "landmarks": []}), "cards", "highway[0].id"),
    (lambda r, s: r.update(per_turn=[]), "per_turn", "object"),
    (lambda r, s: r["per_turn"].update(recycle_used="yes"), "per_turn.recycle_used", "true"),
    (lambda r, s: r["per_turn"].update(resources_used={"magic": 1}),
     "per_turn.resources_used.magic", "unknown resource"),
    (lambda r, s: r["per_turn"].update(persistent_used={r["deck"][0]: 1}),
     f"per_turn.persistent_used.{base_position()[1]['deck'][0]}", "not in the Highway"),
    (lambda r, s: r["per_turn"].update(persistent_used={"H99": 1}),
     "per_turn.persistent_used.H99", "unknown Highway"),  # the key, not "[0]"
    (lambda r, s: r["seats"][0].update(landmarks=[{"landmark": "L99", "card": "H01"}]),
     "seats[0].landmarks[0].landmark", "unknown Landmark 'L99'"),
    (lambda r, s: r["seats"][0].update(landmarks=[{"landmark": "L01", "card": "H99"}]),
     "seats[0].landmarks[0].card", "unknown Highway card 'H99'"),
])
def test_malformed_positions_name_the_field(change, field, words):
    expect_error(mutated(change), field, words)


def test_position_must_be_an_object():
    with pytest.raises(PositionError, match="position: must be an object"):
        state_from_json([])


def test_game_over_exactly_when_deck_is_empty():
    states = game_states(None, 2, 3)
    final = state_to_json(states[-1])
    assert final["phase"] == "over" and final["deck"] == []
    final["phase"] = "take"
    final["current"] = (final["first_player"] + final["turn"]) % 2
    expect_error(final, "phase", "deck is empty")
    mid = state_to_json(next(s for s in states if s.turn == 3 and s.phase == Phase.TAKE
                             and s.picks == 0))
    assert mid["deck"]
    mid["phase"] = "over"
    expect_error(mid, "phase", "deck is empty")


# ---- Highways built: in their owner's build steps, after a discard


def first_turn(players: int, seed: int, picks: int) -> GameState:
    """A new game after ``picks`` takes of its first turn (2: its build step)."""
    state = new_game(players, seed)
    for _ in range(picks):
        state = apply(state, legal_actions(state)[0])
    return state


@pytest.mark.parametrize("picks, seat_after_first", [(0, 0), (1, 0), (2, 1), (2, 2)])
def test_a_highway_before_its_owners_first_build_step_is_refused(picks, seat_after_first):
    """A Highway starts empty and grows only in its owner's build step: a card built by
    the first player before it has taken both cards, or by a seat whose first turn is to
    come, is named with the seat and the counts."""
    state = first_turn(3, 5, picks)
    seat = (state.first_player + seat_after_first) % 3
    raw = state_to_json(state)
    move(raw, f"seats.{seat}.hand", f"seats.{seat}.highway")
    raw["seats"][seat]["known_hand"] = [c for c in raw["seats"][seat]["known_hand"]
                                        if c in raw["seats"][seat]["hand"]]
    expect_error(raw, f"seats[{seat}].highway", f"seat {seat} has 1 Highway card but has "
                 "not had a build step yet (0 turns of its own played)")


def test_the_first_player_builds_in_its_first_build_step():
    """The seat to act in its first build step may have a Highway (its discard pays)."""
    built = 0
    for seed in range(10):
        state = first_turn(3, seed, 2)
        build = next((a for a in legal_actions(state) if a.notation().startswith("build")),
                     None)
        if build is None:
            continue
        state = play(state, build)
        assert state.player.turns == 0 and state.player.highway and state.player.discard
        assert roundtrip(state) == state
        built += 1
    assert built > 5


def without_discard(raw: dict, seat: int) -> dict:
    """``raw`` with seat ``seat``'s discard pile taken back into its hand."""
    move(raw, f"seats.{seat}.discard", f"seats.{seat}.hand",
         len(raw["seats"][seat]["discard"]))
    raw["seats"][seat]["known_discard"] = []
    return raw


def test_a_built_highway_with_an_empty_discard_pile_is_refused():
    """The first card built costs Materials that only a discard from the hand can pay at
    first (no Persistent Material, Landmark or discard top yet), and no card leaves a
    discard pile."""
    state, raw = base_position()
    assert state.players[1].highway and state.players[1].discard
    expect_error(without_discard(raw, 1), "seats[1].highway",
                 "seat 1 has built 1 Highway card with an empty discard pile")


def with_free_cards(cards: CardSet, free: set[int]) -> CardSet:
    """``cards`` with the Highway cards ``free`` costing no Material."""
    highway = tuple(dataclasses.replace(c, cost=()) if i in free else c
                    for i, c in enumerate(cards.highway))
    return CardSet(f"{cards.name}-free", cards.version, cards.reconstruction,
                   cards.description, highway, cards.landmarks)


def test_a_highway_with_a_card_costing_nothing_needs_no_discard():
    """Derived from the card set: a seat whose Highway holds a card costing nothing may
    have built it first without discarding, so its empty pile is not refused; one whose
    every Highway card costs Materials is."""
    state, raw = base_position()
    (card,) = state.players[1].highway
    free = with_free_cards(state.cards, {card})
    assert state_from_json(without_discard(raw, 1), free).players[1].discard == []
    others_free = with_free_cards(state.cards, set(range(len(state.cards.highway))) - {card})
    expect_error_with(without_discard(raw, 1), others_free, "seats[1].highway",
                      "with an empty discard pile")


# ---- Landmark placement in positions (a small set, built by hand)


def lm_set():
    """21 cards (3 turns each for 2 players) and 6 Landmarks."""
    return card_set([hw("A", 3, "ocean ocean"), hw("B", 3, "ocean field"),
                     hw("C", 3, "ocean mountain"), hw("F", 3, "field flower"),
                     hw("G", 3, "mountain mountain")] + [hw(f"X{i}") for i in range(16)],
                    [lm("O1", "ocean"), lm("O2", "ocean"), lm("M1", "mountain"),
                     lm("F1", "forest"), lm("N1", "field"), lm("N2", "field")])


def lm_raw(highway: str, landmarks) -> tuple:
    """A position at the first pick of a round (seat 0 to act) whose seat 0 shows
    ``highway`` with ``landmarks``, after as many turns each as the Highway (built in its
    build steps, two cards a turn) and the claims need (one claim a turn), one card in its
    discard pile (its first build's payment); seat 1 holds its cards in hand, the rest fill
    deck and Depot."""
    cards = lm_set()
    built = highway.split()
    turns = max(len(landmarks), (len(built) + 1) // 2)
    held = 2 + 2 * turns
    fillers = [f"X{i}" for i in range(16)]
    other, kept = fillers[:held], fillers[held:held + held - len(built)]
    discard, hand = kept[:1], kept[1:]
    rest = [c.id for c in cards.highway if c.id not in built + kept + other]
    placed = [a for a, _ in landmarks]
    free = [x.id for x in cards.landmarks if x.id not in placed]
    state = make_state(cards, [{"highway": highway, "hand": " ".join(hand), "turns": turns,
                                "discard": " ".join(discard), "landmarks": landmarks},
                               {"hand": " ".join(other), "turns": turns}],
                       deck=" ".join(rest[:-5]), depot=" ".join(rest[-5:]), phase=Phase.TAKE,
                       landmark_row=" ".join(free[:5]), landmark_deck=" ".join(free[5:]),
                       turn=2 * turns, current=0)
    return cards, state_to_json(state)


@pytest.mark.parametrize("highway, landmarks", [
    ("A B", [("O1", "B")]), ("A B C G", [("O1", "A"), ("M1", "G")]), ("A B", [])])
def test_landmark_placements_that_can_happen(highway, landmarks):
    cards, raw = lm_raw(highway, landmarks)
    state = state_from_json(raw, cards)
    assert len(state.players[0].landmarks) == len(landmarks)


@pytest.mark.parametrize("highway, landmarks, words", [
    ("A", [("O1", "B")], "B (below O1) is not in this Highway"),
    ("A", [("O1", "A")], "no qualifying Stretch"),
    ("A B", [("M1", "A")], "no qualifying Stretch"),
    ("A B C G", [("O1", "C"), ("M1", "C")], "two Landmarks above it"),
    ("A B", [("O1", "A"), ("O2", "B")], "already used"),
])
def test_landmark_placement_checks(highway, landmarks, words):
    cards, raw = lm_raw(highway, landmarks)
    with pytest.raises(PositionError) as info:
        state_from_json(raw, cards)
    assert info.value.field == "seats[0].landmarks", str(info.value)
    assert words in info.value.reason, str(info.value)


def test_landmark_in_a_row_and_a_highway():
    cards, raw = lm_raw("A B", [("O1", "B")])
    raw["landmark_row"].append("O1")
    expect_error_with(raw, cards, "seats[0].landmarks", "also in landmark_row")


def expect_error_with(raw, cards, field, words):
    with pytest.raises(PositionError) as info:
        state_from_json(raw, cards)
    assert (info.value.field, words in info.value.reason) == (field, True), str(info.value)


def test_per_turn_usage_must_be_empty_in_the_take_step():
    state, raw = base_position()
    while state.phase != Phase.TAKE:
        state = play(state, "end")
    raw = state_to_json(state)
    raw["per_turn"]["recycle_used"] = True
    expect_error(raw, "per_turn", "take step")


# ------------------------------------------------------------------ views


def walk_ids(obj, out):
    """Every string in a JSON value (card ids included)."""
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k != "cards":
                walk_ids(v, out)
    elif isinstance(obj, list):
        for v in obj:
            walk_ids(v, out)
    return out


def hidden_from(state, seat):
    """Card ids the seat must not see: the deck, other hands less their known cards, the
    fronts of other discard piles less the known ones, the Landmark deck."""
    hid = [c.id for c in state.cards.highway]
    hidden = {hid[c] for c in state.deck}
    for i, p in enumerate(state.players):
        if i != seat:
            hidden |= {hid[c] for c in p.hand if c not in p.known_hand}
            hidden |= {hid[c] for c in p.discard if c not in p.known_discard}
    hidden |= {state.cards.landmarks[x].id for x in state.landmark_deck}
    return hidden


@pytest.mark.parametrize("players", [2, 3, 4])
def test_views_hide_what_they_must(players):
    hid = None
    checked_known = 0
    for state in game_states(None, players, 40 + players)[::2]:
        hid = [c.id for c in state.cards.highway]
        for seat in range(players):
            view = view_of(state, seat)
            raw = json.loads(json.dumps(view_to_json(view)))
            shown = walk_ids(raw, set())
            assert not shown & hidden_from(state, seat)
            me = state.players[seat]
            assert {hid[c] for c in me.hand + me.discard + me.highway} <= shown
            for i, p in enumerate(state.players):
                assert {hid[c] for c in p.known_hand | p.known_discard} <= shown
                assert {hid[c] for c in p.highway} <= shown
                checked_known += len(p.known_hand) if i != seat else 0
                if i != seat:
                    assert raw["seats"][i]["hand"]["count"] == len(p.hand)
                    assert raw["seats"][i]["discard"]["materials"] == [
                        state.cards.highway[c].to_json()["material"] for c in p.discard]
            assert {hid[c] for c in state.depot} <= shown
            assert raw["deck"] == {"count": len(state.deck)}
            assert raw["landmark_deck"] == {"count": len(state.landmark_deck)}
            assert view_from_json(raw) == view
            unseen = {hid[c] for c in view.unseen_cards()}
            assert unseen == hidden_from(state, seat) - {
                state.cards.landmarks[x].id for x in state.landmark_deck}
    assert checked_known > 0  # Depot takes were seen by others


def test_view_from_json_errors_name_the_field():
    state = new_game(2, seed=2)
    raw = view_to_json(view_of(state, 0))
    for change, field in [
        (lambda r: r.update(format="x"), "format"),
        (lambda r: r.update(view_of=3), "view_of"),
        (lambda r: r["seats"][1]["hand"].update(count=-1), "seats[1].hand.count"),
        (lambda r: r["seats"][1]["discard"].update(materials=["gold"]),
         "seats[1].discard.materials"),
        (lambda r: r.update(depot=["H99"]), "depot[0]"),
        (lambda r: r.update(phase="x"), "phase"),
        (lambda r: r.update(deck=3), "deck"),
        # the turn counters, as a full state's (a meaningless hint before: 99% to win)
        (lambda r: r["seats"][1].update(turns=5), "seats[1].turns"),
        (lambda r: r.update(current=1 - r["current"]), "current"),
        (lambda r: r.update(picks=2), "picks"),
    ]:
        bad = copy.deepcopy(raw)
        change(bad)
        with pytest.raises(PositionError) as info:
            view_from_json(bad)
        assert info.value.field == field, str(info.value)


def test_a_view_past_the_games_end_or_with_the_wrong_cards_left_is_named():
    """A view's turn was checked against its counters only: at turn 500 (counters that
    agree) it was read, and a hint on it failed with "math domain error" (turns left
    below zero). Its turn and its deck count are checked as a full state's."""
    state = play(new_game(2, seed=2), "take deck")
    raw = view_to_json(view_of(state, state.current))
    late = copy.deepcopy(raw)
    late.update(turn=500, current=late["first_player"])
    for seat in late["seats"]:
        seat["turns"] = 250
    with pytest.raises(PositionError, match="ends after 20 turns") as info:
        view_from_json(late)
    assert info.value.field == "turn"
    short = copy.deepcopy(raw)
    short["deck"]["count"] -= 3
    with pytest.raises(PositionError, match="deck \\+ Depot must hold 44 cards after 0 "
                       "turns and 1 pick") as info:
        view_from_json(short)
    assert info.value.field == "deck.count"


def test_repr_pastes_back(custom):
    from solver.rules.state import GameState

    for state in (new_game(2, seed=3), game_states(custom, 3, 1)[7]):
        assert eval(repr(state), {"GameState": GameState}) == state  # noqa: S307


@pytest.mark.parametrize("seat", ["0", 1.0, True, None])
def test_view_of_a_seat_that_is_not_an_integer_is_named(seat):
    """Not a TypeError from a comparison, nor ``True`` read as seat 1."""
    state = new_game(2, seed=1)
    with pytest.raises(PositionError, match="seat: must be a seat 0 to 1"):
        view_of(state, seat)


@pytest.mark.parametrize("players", [2, 3])
def test_a_phase_given_as_its_number_is_written_as_that_phase(players):
    """``t.phase = 0`` (which the engine reads as Phase.TAKE) is written as its Phase by
    state_to_json and view_to_json (an AttributeError: 'int' has no attribute 'name');
    a value that is no phase is named."""
    for state in game_states(None, players, 11)[:12]:
        numbered = state.copy()
        numbered.phase = int(state.phase)
        assert type(numbered.phase) is int
        assert state_to_json(numbered) == state_to_json(state)
        assert view_to_json(view_of(numbered, 1)) == view_to_json(view_of(state, 1))
    for bad in (7, -1, "take", None, True):
        numbered.phase = bad
        with pytest.raises(PositionError, match=r"^phase: must be a Phase \(Phase.TAKE, ") \
                as info:
            state_to_json(numbered)
        assert repr(bad) in str(info.value)
        with pytest.raises(PositionError, match=r"^phase: must be a Phase"):
            view_to_json(view_of(numbered, 0))


def test_view_of_takes_numpy_integers():
    np = pytest.importorskip("numpy")
    state = new_game(2, seed=1)
    assert view_of(state, np.int64(1)) == view_of(state, 1)


# ------------------------------------------------------------------ fields left out


def documented_absences() -> tuple[dict[str, object], list[str]]:
    """docs/format.md ("Positions"): each field that may be left out with the value it is
    read as, and the fields it says are required."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "format.md").read_text("utf-8")
    part = text[text.index("A field left out is read as follows"):]
    part = part[:part.index("\n\n", part.index("| left out |"))]
    required = re.findall(r"`([\w.]+)`", part[part.index("every other"):part.index("is required")])
    absent = {}
    for row in re.findall(r"^\| (`.*?) \| (.*) \|$", part, re.M):
        value = json.loads(re.findall(r"`([^`]+)`", row[1])[-1])
        for name in re.findall(r"`([\w.\[\]]+)`", row[0]):
            absent[name] = value
    return absent, required


def drop(raw: dict, path: str, value=None, keep_value: bool = False) -> dict:
    """``raw`` with ``path`` (``per_turn.recycle_used``; ``seats[i].x`` is every seat's)
    left out, or set to ``value``."""
    raw = copy.deepcopy(raw)
    *parents, name = path.replace("seats[i].", "seats.").split(".")
    targets = [raw]
    for key in parents:
        targets = [t for parent in targets for t in (
            parent[key] if isinstance(parent[key], list) else [parent[key]])]
    for target in targets:
        if keep_value:
            target[name] = copy.deepcopy(value)
        else:
            target.pop(name)
    return raw


def outcome(raw: dict):
    try:
        return state_from_json(raw)
    except PositionError as err:
        return err.field, err.reason


@pytest.mark.parametrize("usage", [False, True])
def test_fields_left_out_are_read_as_the_format_page_says(usage):
    """Each field docs/format.md lists as optional reads, left out, as its documented
    value (the same state, or the same error); the per-turn usage of a build step left out
    is none used. Every other field named required is refused, named, when left out."""
    state, raw = base_position()
    if usage:  # a build step that has used its Recycling: left out, it is unused
        raw["per_turn"]["recycle_used"] = True
    absent, required = documented_absences()
    assert "per_turn" in absent and set(absent) <= {
        *raw, *(f"per_turn.{k}" for k in raw["per_turn"]),
        *(f"seats[i].{k}" for k in raw["seats"][0])}
    for path, value in absent.items():
        assert outcome(drop(raw, path)) == outcome(drop(raw, path, value, keep_value=True)), path
    left_out = state_from_json(drop(raw, "per_turn"))
    assert (left_out.recycle_used, left_out.persistent_uses, left_out.resource_uses) == (
        False, {}, {})
    assert set(required) | {p.removeprefix("seats[i].") for p in absent} | {"seats"} >= {
        *raw, *raw["seats"][0]}
    for name in required:
        path = name if name in raw else f"seats[i].{name}"
        with pytest.raises(PositionError) as info:
            state_from_json(drop(raw, path))
        assert info.value.field in (name, f"seats[0].{name}"), (name, str(info.value))


# ------------------------------------------------------------------ impossible hidden discards


def view_with_one_material_pile(players: int, seat: int, seed: int = 4) -> tuple[dict, str]:
    """A view (of the seat to act, late in a random game) in which ``seat``'s discard pile
    shows only the Material of which the viewer has fewest unseen cards, none of its fronts
    known: more hidden discards of it than unseen cards of it. Also the Material."""
    from solver.rules.constants import MATERIALS

    state = new_game(players, seed)
    rng = random.Random(seed)
    while state.phase != Phase.TAKE or state.current == seat or \
            len(state.players[seat].discard) < 8:
        state = apply(state, rng.choice(legal_actions(state)))
    raw = view_to_json(view_of(state, state.current))
    pile = raw["seats"][seat]["discard"]
    pile["known"] = []  # fronts no longer known: unseen, and still a consistent view
    unseen = {name: 0 for name in MATERIALS}
    for c in view_from_json(raw).unseen_cards():
        unseen[MATERIALS[state.cards.material[c]]] += 1
    rarest = min(unseen, key=unseen.get)
    assert len(pile["materials"]) > unseen[rarest]
    pile["materials"] = [rarest] * len(pile["materials"])
    return raw, rarest


@pytest.mark.parametrize("players, seat", [(2, 0), (2, 1), (3, 1), (3, 2), (4, 3)])
def test_too_many_hidden_discards_of_a_material_name_the_seat(players, seat):
    """Old code: 'seats[*].discard.materials', which the server could not read as a field
    and reported under 'position'."""
    from solver.rules.determinize import Determinizer, InconsistentViewError

    raw, material = view_with_one_material_pile(players, seat)
    view = view_from_json(raw)  # the counts are the determinizer's to check
    with pytest.raises(InconsistentViewError) as info:
        Determinizer(view)
    field, _, reason = str(info.value).partition(": ")
    assert field == f"seats[{seat}].discard.materials", str(info.value)
    assert f"{len(raw['seats'][seat]['discard']['materials'])} hidden {material}" in reason


def test_hidden_discards_too_many_together_name_the_pile_that_tips_it():
    """Two piles, each possible alone, that together need more cards of a Material than
    are unseen: the later seat is named, the earlier pile's count said."""
    from solver.rules.constants import MATERIALS
    from solver.rules.determinize import Determinizer, InconsistentViewError

    state = new_game(3, 6)
    rng = random.Random(6)
    while state.phase != Phase.TAKE or state.current != 0 or \
            min(len(p.discard) for p in state.players[1:]) < 4:
        state = apply(state, rng.choice(legal_actions(state)))
    raw = view_to_json(view_of(state, 0))
    piles = [raw["seats"][i]["discard"] for i in (1, 2)]
    for pile in piles:
        pile["known"] = []
    unseen = {name: 0 for name in MATERIALS}
    for c in view_from_json(raw).unseen_cards():
        unseen[MATERIALS[state.cards.material[c]]] += 1
    sizes = [len(pile["materials"]) for pile in piles]
    # the rarest Material that the two piles can hold more of than are unseen, neither
    # pile alone (each then shows it n times, its other positions the most common other)
    def split(u: int) -> tuple[int, int]:
        return min(u, sizes[0]), u + 1 - min(u, sizes[0])

    material = min((m for m, u in unseen.items() if u >= 1 and split(u)[1] <= min(u, sizes[1])),
                   key=unseen.get)
    u = unseen[material]
    first, second = split(u)
    filler = max((m for m in MATERIALS if m != material), key=unseen.get)
    for pile, n, size in zip(piles, (first, second), sizes, strict=True):
        pile["materials"] = [material] * n + [filler] * (size - n)
    with pytest.raises(InconsistentViewError) as info:
        Determinizer(view_from_json(raw))
    assert str(info.value).startswith(
        f"seats[2].discard.materials: {second} hidden {material} discard(s) "
        f"(and {first} in seats[1]'s pile) but only {u} unseen"), str(info.value)


# ------------------------------------------------------------------ a seat's cards


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_views_hand_counts_are_what_each_seats_turns_took(players):
    """A seat holds, in hand, Highway and discard pile, the cards its turns took, as a
    full state's seat: an opponent's hand.count of 9 at turns 1 was read, and the error
    came later from sampling, naming deck.count. Every view of random and greedy games
    reads back; a count one off is named, as is the viewer's own hand one card short."""
    from solver.search.bots import make_bot

    greedy = make_bot("greedy")
    games = [game_states(None, players, 60 + players)]
    state = new_game(players, 70 + players)
    games.append([state])
    while not state.is_over:  # a greedy game builds and spends more than a random one
        state = play(state, greedy.act(view_of(state, state.current), len(games[1])))
        games[1].append(state)
    named = 0
    for states in games:
        for state in states[::3]:
            for seat in range(players):
                raw = json.loads(json.dumps(view_to_json(view_of(state, seat))))
                assert view_from_json(raw) == view_of(state, seat)
                other = (seat + 1) % players
                for delta in (-1, 1, 5):
                    bad = copy.deepcopy(raw)
                    count = bad["seats"][other]["hand"]["count"] + delta
                    if count < len(bad["seats"][other]["hand"]["known"]):
                        continue
                    bad["seats"][other]["hand"]["count"] = count
                    with pytest.raises(PositionError) as info:
                        view_from_json(bad)
                    assert info.value.field == f"seats[{other}].hand.count", str(info.value)
                    assert f"got {count}" in str(info.value)
                    named += 1
                mine = raw["seats"][seat]
                if mine["hand"]:
                    card = mine["hand"].pop()
                    mine["known_hand"] = [c for c in mine["known_hand"] if c != card]
                    with pytest.raises(PositionError) as info:
                        view_from_json(raw)
                    assert info.value.field == f"seats[{seat}]", str(info.value)
    assert named > 50


@pytest.mark.parametrize("players", [2, 3])
def test_a_seat_holding_a_card_too_few_is_named_alike_in_a_position_and_a_view(players):
    """The cards a seat took are counted once (position.cards_taken) for a full position
    and a view: the seat to act one card short (passed to the next seat's hand) is named
    in the same words by both, the picks of its turn under way said (the position's
    message left them out)."""
    compared = 0
    for state in game_states(None, players, 5)[:40]:
        seat, other = state.current, state.current + 1
        full = state_to_json(state)
        view = view_to_json(view_of(state, seat))
        if other == players or not full["seats"][seat]["hand"]:
            continue
        for raw in (full, view):
            card = raw["seats"][seat]["hand"].pop()
            raw["seats"][seat]["known_hand"] = [c for c in raw["seats"][seat]["known_hand"]
                                                if c != card]
        full["seats"][other]["hand"].append(card)
        view["seats"][other]["hand"]["count"] += 1
        with pytest.raises(PositionError) as in_full:
            state_from_json(full)
        with pytest.raises(PositionError) as in_view:
            view_from_json(view)
        assert in_full.value.field == f"seats[{seat}]", str(in_full.value)
        assert str(in_view.value) == str(in_full.value)
        if state.picks:
            assert f"and {state.picks} pick(s), holds" in str(in_full.value)
            compared += 1
    assert compared > 5
