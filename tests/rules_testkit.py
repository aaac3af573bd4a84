"""Shared test helpers: small inline card sets from compact specs, and game states built
directly, so that each rule can be tested on a position made for it.

Card specs are dicts in the card-set schema (docs/format.md), written with ``hw`` and
``lm``; ``card_set`` validates them with ``parse_card_set(..., require_full=False)``.
``make_state`` builds a :class:`GameState` from card ids (the engine's ``play`` works on
any such state; position checks are not applied, so a test can set up exactly the
situation it needs).

Test modules import these helpers as ``from rules_testkit import ...`` (a module of
its own: pytest imports every conftest.py under the same bare name ``conftest``, so
importing from one would depend on the collection order); ``conftest.py`` holds only
the fixtures.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from solver.rules.cards import FORMAT, CardSet, parse_card_set
from solver.rules.state import GameState, Phase, PlayerState

ALL = (2, 3, 4)


def hw(card_id: str, miles: int = 3, scenery: str = "mountain flower", cost: str = "stone stone",
       back: str = "stone", per: str | None = None, bonus: dict | None = None,
       players: Sequence[int] = ALL, **extra) -> dict:
    """A Highway card spec. ``scenery`` and ``cost`` are space-separated names. A 1-Mile
    card gets ``per`` (default: its back Material); a 2-Mile card must be given ``bonus``
    unless the test does not score it (default: 1 point per 4-Mile card)."""
    out = {"id": card_id, "miles": miles, "scenery": scenery.split(), "cost": cost.split(),
           "material": back, "players": list(players)}
    if miles == 1:
        out["persistent"] = per or back
    elif per is not None:
        out["persistent"] = per
    if miles == 2:
        out["bonus"] = bonus if bonus is not None else {"kind": "mile_cards", "miles": 4,
                                                         "points": 1}
    elif bonus is not None:
        out["bonus"] = bonus
    out.update(extra)
    return out


def lm(lm_id: str, scenery: str = "ocean", ability: dict | None = None, name: str = "") -> dict:
    """A Landmark spec; default ability: one extra Persistent use (scores nothing)."""
    return {"id": lm_id, "name": name or f"Landmark {lm_id}", "scenery": scenery,
            "ability": ability or {"kind": "persistent_extra_use", "uses": 1}}


def raw_set(highway: Iterable[dict], landmarks: Iterable[dict] = (), name: str = "test",
            **meta) -> dict:
    return {"format": FORMAT, "name": name, "version": "1", "reconstruction": False,
            "description": "test set", "highway": list(highway),
            "landmarks": list(landmarks), **meta}


def card_set(highway: Iterable[dict], landmarks: Iterable[dict] = (), name: str = "test",
             require_full: bool = False) -> CardSet:
    """Validate and build a card set from specs."""
    return parse_card_set(raw_set(highway, landmarks, name), name, require_full=require_full)


def fillers(n: int, prefix: str = "X", players: Sequence[int] = ALL, **kw) -> list[dict]:
    """``n`` plain 3-Mile cards (mountain/flower, cost stone+stone, back stone)."""
    return [hw(f"{prefix}{i}", players=players, **kw) for i in range(n)]


def ids(cards: CardSet, text: str | Sequence[str]) -> list[int]:
    """Card indices of space-separated Highway ids."""
    names = text.split() if isinstance(text, str) else list(text)
    return [cards.card(x) for x in names]


def make_state(cards: CardSet, seats: Sequence[dict], deck: str = "", depot: str = "",
               landmark_row: str | None = None, landmark_deck: str = "", current: int = 0,
               phase: Phase = Phase.BUILD, picks: int | None = None, turn: int = 0,
               first_player: int = 0, recycle_used: bool = False,
               persistent_uses: dict[str, int] | None = None,
               resource_uses: dict[str, int] | None = None) -> GameState:
    """A GameState from ids. ``seats``: dicts with optional "hand", "highway", "discard"
    (space-separated ids, left to right / bottom to top) and "landmarks" ([(lm, card)]).
    ``deck`` lists the top card FIRST (as in position JSON). ``landmark_row`` defaults to
    every Landmark that is neither placed nor in ``landmark_deck``."""
    players = []
    placed = set()
    for seat in seats:
        landmarks = [(cards.landmark(a), cards.card(b)) for a, b in seat.get("landmarks", ())]
        placed.update(x for x, _ in landmarks)
        players.append(PlayerState(
            hand=ids(cards, seat.get("hand", "")), highway=ids(cards, seat.get("highway", "")),
            discard=ids(cards, seat.get("discard", "")), landmarks=landmarks,
            known_hand=set(ids(cards, seat.get("known_hand", ""))),
            known_discard=set(ids(cards, seat.get("known_discard", ""))),
            turns=seat.get("turns", 0)))
    lm_deck = [cards.landmark(x) for x in landmark_deck.split()]
    if landmark_row is None:
        row = [i for i in range(len(cards.landmarks)) if i not in placed and i not in lm_deck]
    else:
        row = [cards.landmark(x) for x in landmark_row.split()]
    if picks is None:
        picks = 2 if phase == Phase.BUILD else 0
    return GameState(
        cards, players, deck=list(reversed(ids(cards, deck))), depot=ids(cards, depot),
        landmark_deck=list(reversed(lm_deck)), landmark_row=row, current=current,
        first_player=first_player, phase=phase, picks=picks, turn=turn,
        recycle_used=recycle_used,
        persistent_uses={cards.card(k): v for k, v in (persistent_uses or {}).items()},
        resource_uses=dict(resource_uses or {}))


# ------------------------------------------------------------------ a small playable set

def small_specs() -> tuple[list[dict], list[dict]]:
    """29 Highway cards (21 for 2 players, 23 for 3, 29 for 4: 3, 2 and 2 turns each)
    with every Mile value, Material and Scenery, and 8 Landmarks."""
    mats = ("stone", "water", "timber", "engineering", "steel")
    scen = ("ocean", "forest", "mountain", "flower", "field")
    bonuses = [{"kind": "distinct_scenery", "points": 1},
               {"kind": "scenery_points", "scenery": "ocean", "points": 1},
               {"kind": "mile_cards", "miles": 1, "points": 2},
               {"kind": "stretch_count", "points": 2},
               {"kind": "material_cards", "material": "water", "points": 1},
               {"kind": "highway_end", "points": 3}]
    highway = []
    for i in range(29):
        miles = 1 + i % 4
        players = ALL if i < 21 else ((3, 4) if i < 23 else (4,))
        highway.append(hw(
            f"S{i:02d}", miles, f"{scen[i % 5]} {scen[(i * 2 + 1) % 5]}",
            cost=f"{mats[i % 5]} {mats[(i + 2) % 5]}" + (f" {mats[(i + 4) % 5]}" if i % 3 else ""),
            back=mats[(i * 3) % 5], bonus=bonuses[(i // 4) % len(bonuses)] if miles == 2 else None,
            players=players))
    landmarks = [lm(f"L{i}", scen[i % 5]) for i in range(8)]
    landmarks[1]["ability"] = {"kind": "mile_bonus", "miles": 1}
    landmarks[2]["ability"] = {"kind": "scenery_points", "scenery": "mountain", "points": 1}
    landmarks[3]["ability"] = {"kind": "landmark_collection", "points": 1}
    landmarks[4]["ability"] = {"kind": "borrow_discard", "uses": 1}
    landmarks[5]["ability"] = {"kind": "borrow_highway", "uses": 1}
    return highway, landmarks


def play_greedy_to(cards: CardSet, turn: int, phase: Phase, players: int = 2,
                   seed: int = 3) -> GameState:
    """A realistic position: GreedyBot plays every seat from ``new_game(players, seed)``
    until ``turn`` turns are done and the game stands at ``phase``."""
    from solver.rules.engine import new_game, play
    from solver.rules.views import view_of
    from solver.search.bots import make_bot

    state = new_game(players, seed, cards)
    bot = make_bot("greedy")
    k = 0
    while not (state.turn >= turn and state.phase == phase):
        state = play(state, bot.act(view_of(state, state.current), k))
        k += 1
    return state


def random_mid_game(players: int = 3, seed: int = 8, actions: int = 25) -> GameState:
    """A state some turns in (``actions`` random legal actions from ``new_game(players,
    seed)``), then played on at random to the start of a take step."""
    import random

    from solver.rules.engine import legal_actions, new_game, play

    rng = random.Random(seed)
    state = new_game(players, seed=seed)
    for _ in range(actions):
        state = play(state, rng.choice(legal_actions(state)))
    while state.phase != Phase.TAKE or state.picks != 0:
        state = play(state, rng.choice(legal_actions(state)))
    return state


def noisy_build_steps(seeds: Iterable[int], last: bool, turns: Iterable[int] = (6, 9)
                      ) -> Iterable[GameState]:
    """Build steps of noisy greedy 2-player games (one per seed): each player's last one
    (``last``), or the others of ``turns``. Noisy greedy players hoard: their hands reach
    sizes a searching player's never do, as a person's may."""
    import random

    from solver.rules.engine import apply_inplace, new_game
    from solver.search.buildsteps import is_last_build_step
    from solver.search.policies import build_step_inplace, greedy_take

    turns = set(turns)
    for seed in seeds:
        rng = random.Random(seed)
        state = new_game(2, seed)
        while state.phase != Phase.OVER:
            while state.phase == Phase.TAKE:
                apply_inplace(state, greedy_take(state, None, rng=rng, noise=0.3))
            if is_last_build_step(state) == last and (last or state.turn in turns):
                yield state.copy()
            build_step_inplace(state, rng=rng, noise=0.15, exact=False)


def hoarded_build_step(min_sequences: int) -> GameState:
    """A build step before the player's last (:func:`noisy_build_steps`) whose player has
    at least ``min_sequences`` payable build sequences: where enumerating them is dear."""
    from solver.search.buildsteps import payable_sequences

    for state in noisy_build_steps(range(40), False, range(100)):
        if sum(1 for _ in payable_sequences(state, min_sequences)) >= min_sequences:
            return state
    raise AssertionError(f"no build step with {min_sequences} sequences in 40 games")
