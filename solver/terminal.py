"""Terminal play: a text rendering of the table and a hot-seat loop.

Moves are typed in the action notation (``help`` lists it, ``moves`` lists the legal
ones, a number picks from that list, ``quit`` leaves).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from .rules.actions import ActionError
from .rules.cards import CardSet
from .rules.constants import MATERIALS, SCENERIES
from .rules.engine import legal_actions, new_game, play
from .rules.record import GameRecord
from .rules.scoring import final_scores, score_player
from .rules.state import GameState, Phase
from .rules.stretches import stretches


def card_text(cards: CardSet, c: int) -> str:
    """One card in a line: ``H12[2mi ocean/forest cost stone+water back timber]``."""
    card = cards.highway[c]
    extra = ""
    if card.persistent is not None:
        extra = f" persist {MATERIALS[card.persistent]}"
    return (f"{card.id}[{card.miles}mi {'/'.join(SCENERIES[s] for s in card.scenery)} "
            f"cost {'+'.join(MATERIALS[m] for m in card.cost)} back "
            f"{MATERIALS[card.material]}{extra}]")


def render(state: GameState, seat: int | None = None) -> str:
    """The table as text, from ``seat``'s side (its hand shown), or all hands if None."""
    cards = state.cards
    lines = [f"Card set: {cards.label}",
             f"Turn {state.turn + 1}, seat {state.current} to act ({state.phase.name.lower()}"
             f" step), deck {len(state.deck)} cards"]
    lines.append("Depot: " + "  ".join(card_text(cards, c) for c in state.depot))
    lines.append("Landmarks: " + "  ".join(
        f"{cards.landmarks[lm].id} {cards.landmarks[lm].name} ({SCENERIES[cards.landmark_scenery[lm]]})"
        for lm in state.landmark_row))
    for i, p in enumerate(state.players):
        score = score_player(cards, p).total
        lines.append(f"-- seat {i}: {score} points, hand {len(p.hand)}, discard top "
                     f"{MATERIALS[cards.material[p.discard[-1]]] if p.discard else '-'}")
        lines.append("   Highway: " + (" | ".join(card_text(cards, c) for c in p.highway) or "-"))
        for s in stretches(cards, p.highway):
            lines.append(f"   Stretch {SCENERIES[s.scenery]}: {s.miles} mi "
                         f"({' '.join(cards.highway[c].id for c in s.cards)})")
        for lm, c in p.landmarks:
            lines.append(f"   Landmark {cards.landmarks[lm].name} above {cards.highway[c].id}")
        if seat is None or seat == i:
            lines.append("   Hand: " + ("  ".join(card_text(cards, c) for c in p.hand) or "-"))
    return "\n".join(lines)


HELP = """Actions: take CARD | take deck | build CARD L|R [pay STEP ...] | claim LANDMARK CARD | end
Payment steps: CARD (discard), sub:A+B+C=material, per:CARD, rec, bh:SEAT:CARD, bd:SEAT
Commands: moves (list legal actions; type a number to pick one), help, quit"""


def hot_seat(players: int, seed: int | None, cards: CardSet, save: str | None,
             read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> int:
    """Play a hot-seat game; returns the exit status."""
    state = new_game(players, seed, cards)
    record = GameRecord(cards, players, seed=seed, start_position=None)
    if seed is None:  # record the deal itself so the game replays
        from .rules.position import state_to_json

        record.start_position = state_to_json(state)
    write(HELP)
    while state.phase != Phase.OVER:
        write("")
        write(render(state, state.current))
        moves = legal_actions(state)
        try:
            text = read(f"seat {state.current}> ").strip()
        except EOFError:
            write("bye")
            return 0
        if text in ("quit", "exit"):
            return 0
        if text == "help":
            write(HELP)
            continue
        if text == "moves":
            write("\n".join(f"{i:3}: {m.notation()}" for i, m in enumerate(moves)))
            continue
        if text.isdigit():
            if int(text) >= len(moves):
                write(f"no move number {text}; 'moves' lists {len(moves)}")
                continue
            text = moves[int(text)].notation()
        try:
            state = play(state, text)
        except (ActionError, ValueError) as err:
            write(f"! {err}")
            continue
        record.actions.append(text)
    outcome = final_scores(state)
    write(render(state))
    for i, s in enumerate(outcome.scores):
        write(f"seat {i}: {s.total} (stretches {s.stretches}, bonuses {s.bonuses}, "
              f"landmarks {s.landmark_count} + {s.landmark_abilities})")
    write("winner(s): " + ", ".join(f"seat {w}" for w in outcome.winners))
    if save:
        record.save(save)
        write(f"record saved to {save}")
    return 0


