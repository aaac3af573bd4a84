"""Every build step of a turn, and the exact best one in a player's last build step.

A *build step* is a macro-action: builds in order (card and side), then a claim or
``end``. :func:`all_build_steps` enumerates all of them lazily, depth first in the
heuristic's order of builds; two sequences that leave the same Highway, hand and
discard top are one step (the one found first). Payment order matters: a 1-Mile card's
Persistent Material serves only later builds, and cards spent early can be missing
later, so feasibility is checked on the ordered sequence with the count search of the
fast exact payer (:func:`solver.rules.payment.solve_counts`), which pays the whole
sequence jointly. A prefix of a payable sequence is payable, so the search prunes at the
first unpayable build.

In a player's **last** build step nothing the player does later can change its own
score, and hand cards are worth nothing afterwards: the score of the Highway after the
step is final. :func:`best_last_step` maximises it exactly over every payable sequence
of builds, every order and side, and every claim (ties: the fewest cards built, so
cards are not spent for nothing).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from ..rules.actions import Action, Build, Claim, End
from ..rules.engine import apply_inplace
from ..rules.payment import affordable_cards
from ..rules.scoring import claim_totals
from ..rules.state import GameState, Phase
from .policies import (
    StepOutcome,
    claimable_pairs,
    future_steps,
    highway_score,
    tables,
    turn_ends_game,
)

_END = End()


@dataclass(frozen=True)
class ExactStep:
    """The best last build step: its actions (builds carry no payment: pay them with
    :func:`solver.search.ismcts.concrete_move`) and the final score they reach."""

    move: tuple[Action, ...]
    score: int
    sequences: int  # payable build sequences examined


def is_last_build_step(state: GameState) -> bool:
    """Whether the player to act is at its last build step of the game."""
    return state.phase == Phase.BUILD and future_steps(state, state.current) == 0


def build_state_key(state: GameState) -> tuple:
    """What decides the rest of a build step: two build sequences that reach the same
    key have the same continuations."""
    p = state.player
    return (tuple(p.highway), tuple(sorted(p.hand)), tuple(p.discard[-1:]),
            tuple(sorted(state.persistent_uses.items())),
            tuple(sorted(state.resource_uses.items())), state.recycle_used)


def payable_sequences(state: GameState, limit: int = 20_000, breadth_first: bool = False,
                      by_score: bool = False
                      ) -> Iterator[tuple[tuple[tuple[int, str], ...], GameState]]:
    """Every payable sequence of builds ``((card, side), ...)`` of the player to act,
    each build paid the cheapest way when it is made (the engine's auto-pay), with the
    state it leaves; sequences that reach the same state are given once. Depth first
    (or ``breadth_first``: the shorter sequences first, so that a ``limit`` cuts the
    longest ones rather than every sequence but the first card's), the empty sequence
    first, cards in id order (or ``by_score``, depth first: the builds whose Highway
    scores most first, so that a ``limit`` keeps a last build step's good sequences);
    stops after ``limit`` sequences."""
    tab = tables(state.cards)
    lms = tuple(state.player.landmarks) if by_score else ()
    seen = {build_state_key(state)}
    frontier: deque[tuple[tuple, GameState]] = deque([((), state)])
    count = 0
    while frontier:
        seq, s = frontier.popleft() if breadth_first else frontier.pop()
        yield seq, s
        count += 1
        if count >= limit:
            return
        if breadth_first and count + len(frontier) >= limit:
            continue  # (the frontier already holds every sequence still to be given)
        sides = ("L", "R") if s.player.highway else ("L",)
        children = []  # the last one is met first depth first
        for c in reversed(sorted(set(affordable_cards(s)))):
            for side in reversed(sides):
                after = s.copy_for_builds()  # (only builds are applied to it)
                apply_inplace(after, Build(tab.ids[c], side))
                key = build_state_key(after)
                if key in seen:
                    continue
                seen.add(key)
                children.append((seq + ((c, side),), after))
        if by_score:  # (stable: ties stay in card order)
            children.sort(key=lambda child: highway_score(
                state.cards, tuple(child[1].player.highway), lms))
        frontier.extend(reversed(children) if breadth_first else children)


def best_last_step(state: GameState, limit: int = 20_000) -> ExactStep | None:
    """The exact best build step when the player to act is at its last one (see the
    module doc), or None when the enumeration would pass ``limit`` sequences (then it
    would not be exact) or it is not the last build step."""
    if not is_last_build_step(state):
        return None
    # every distinct Highway first, scored only when there are not too many: a hoarded
    # hand's 20,000 sequences cost about half a second to make and two more to score
    highways: dict[tuple[int, ...], tuple] = {}  # the first sequence to reach each
    n = 0
    for seq, after in payable_sequences(state, limit + 1):
        n += 1
        if n > limit:
            return None
        highways.setdefault(tuple(after.player.highway), seq)
    move, score = _best_ending(state, highways)
    return ExactStep(move, score, n)


def best_found_last_step(state: GameState, limit: int
                         ) -> tuple[tuple[Action, ...], int] | None:
    """``(move, final score)``: the best of the first ``limit`` build sequences of a last
    build step, each build's Highways that score most tried first
    (:func:`payable_sequences` ``by_score``). Not exact where :func:`best_last_step`
    finds too many sequences, but close: at 12 hoarded last steps (13 to 18 cards) hints
    led by it (5,000 sequences) fell 2.00 points short of the best known on average, 7.92
    before it (``python -m bench.search_diagnostics --part latency``). None when it is
    not the last build step."""
    if not is_last_build_step(state):
        return None
    highways: dict[tuple[int, ...], tuple] = {}
    for seq, after in payable_sequences(state, limit, by_score=True):
        highways.setdefault(tuple(after.player.highway), seq)
    return _best_ending(state, highways)


def _best_ending(state: GameState, highways: dict[tuple[int, ...], tuple]
                 ) -> tuple[tuple[Action, ...], int]:
    """The best build step among ``highways`` (Highway -> the build sequence reaching it,
    in the order found) with each claim it allows or ``end``: ``(move, score)``; ties go
    to the fewest cards built, then to the first found."""
    cards = state.cards
    tab = tables(cards)
    lms = tuple(state.player.landmarks)
    row = tuple(state.landmark_row)
    best: tuple[int, int, tuple] | None = None  # (score, -cards built, move)
    for hw, seq in highways.items():
        builds = tuple(Build(tab.ids[c], side) for c, side in seq)
        claims = claimable_pairs(cards, hw, lms, row)
        lasts = [_END] + [Claim(tab.lm_ids[lm], tab.ids[c]) for lm, c in claims]
        for score, last in zip(claim_totals(cards, hw, lms, claims), lasts, strict=True):
            cand = (score, -len(seq), builds + (last,))
            if best is None or cand[:2] > best[:2]:
                best = cand
    return best[2], best[0]


def all_build_steps(state: GameState, limit: int = 2_000, with_states: bool = False
                    ) -> list:
    """Every distinct build step (up to ``limit`` build sequences), each ended by every
    claim it allows and by ``end``. With ``with_states``: ``(step, state after it)``
    pairs (the turn ended)."""
    tab = tables(state.cards)
    lms = tuple(state.player.landmarks)
    row = tuple(state.landmark_row)
    out = []
    for seq, after in payable_sequences(state, limit):
        builds = tuple(Build(tab.ids[c], side) for c, side in seq)
        hw = tuple(after.player.highway)
        lasts = [_END] + [Claim(tab.lm_ids[lm], tab.ids[c])
                          for lm, c in claimable_pairs(state.cards, hw, lms, row)]
        for last in lasts:
            move = builds + (last,)
            if with_states:
                done = after.copy()
                apply_inplace(done, last)
                out.append((move, done))
            else:
                out.append(move)
    return out


def step_outcomes(state: GameState, limit: int = 2_000, breadth_first: bool = False
                  ) -> tuple[list[tuple[Action, ...]], list[int], list[StepOutcome]]:
    """The build steps of :func:`all_build_steps` (same order, same ``limit``; or the
    sequences ``breadth_first``, :func:`payable_sequences`) and what each leaves:
    ``(steps, index, outcomes)``, step ``k`` leading to ``outcomes[index[k]]``; steps
    that leave the same outcome share it (orders of the same builds, which differ only in
    the discard pile's top), so each is valued once."""
    tab = tables(state.cards)
    cards = state.cards
    row = tuple(state.landmark_row)
    over = turn_ends_game(state)
    steps: list[tuple[Action, ...]] = []
    index: list[int] = []
    outcomes: list[StepOutcome] = []
    known: dict[StepOutcome, int] = {}

    def add(move: tuple[Action, ...], outcome: StepOutcome) -> None:
        k = known.get(outcome)
        if k is None:
            k = known[outcome] = len(outcomes)
            outcomes.append(outcome)
        steps.append(move)
        index.append(k)

    for seq, after in payable_sequences(state, limit, breadth_first):
        p = after.player
        builds = tuple(Build(tab.ids[c], side) for c, side in seq)
        hw = tuple(p.highway)
        lms = tuple(p.landmarks)
        hand = tuple(p.hand)
        has_discard = bool(p.discard)
        add(builds + (_END,), StepOutcome(hw, lms, hand, has_discard, row, over))
        for lm, c in claimable_pairs(cards, hw, lms, row):
            add(builds + (Claim(tab.lm_ids[lm], tab.ids[c]),),
                StepOutcome(hw, lms + ((lm, c),), hand, has_discard,
                            tuple(x for x in row if x != lm), over))
    return steps, index, outcomes


__all__ = ["ExactStep", "StepOutcome", "all_build_steps", "best_found_last_step", "best_last_step",
           "build_state_key", "is_last_build_step", "payable_sequences", "step_outcomes"]
