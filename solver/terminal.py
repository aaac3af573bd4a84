"""Terminal play: the table drawn with rich, moves typed in the action notation, AI seats.

    bigsur play --players 2 --ai mcts:1s          # you (seat 0) against the AI
    bigsur play --players 3                       # hot-seat, every seat human
    bigsur play --seats human,greedy,mcts:200i    # any mix
    bigsur play --resume records/play-7-1700000000.json   # go on with a saved game

At the prompt: an action in the notation (``take H12``, ``take deck``, ``build H12 R``,
``build H12 L pay H03 rec``, ``claim L04 H12``, ``end``), a number from ``moves``
(they count from 1, as a hint's lines),
``hint [BUDGET]`` (the search's ranked moves; ``h N`` then plays the N-th), ``card ID``
(a card's or Landmark's line of ``bigsur cards show``: its bonus or ability), ``undo``
(takes back your last move and the AI's moves after it; at a hot-seat table, the last
move whoever made it; never when a card or Landmark a player has seen would go back into
its deck: not a card drawn from the deck, nor the end of a turn or a claim once a player
has seen a card its refill drew into the Depot, the Landmark it revealed in the row, or
a card the AI's moves after it drew),
``help``, ``quit``. Tab completes legal actions when the terminal
is interactive (readline).
The record is saved at the end (``--save``), also when the game is left early.

Hidden information is respected: the table is drawn from the side of the human to act
(in a game against the AI, always the human's seat), and the hint searches only that
seat's view. In hot-seat, when the turn passes to another human, the game waits for Enter
(and clears a colour terminal) before it draws that player's hand.
"""

from __future__ import annotations

import dataclasses
import io
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .analysis import number, plural
from .rules.actions import (
    Action,
    ActionError,
    Build,
    Claim,
    End,
    Substitute,
    Take,
    parse_action,
)
from .rules.cards import CardSet, load_card_set
from .rules.constants import MATERIALS, SCENERIES
from .rules.engine import legal_actions, new_game, play, turns_per_player
from .rules.payment import cheapest_payment
from .rules.record import MAX_NAME, GameRecord
from .rules.scoring import effective_miles, final_scores, score_player
from .rules.state import GameState, Phase
from .rules.stretches import stretches
from .rules.userfiles import OutputError, output_problem
from .rules.views import view_of
from .rules.wording import got

HUMAN = "human"
SCENERY_STYLE = {"ocean": "bold white on dodger_blue3", "forest": "bold white on green4",
                 "mountain": "bold white on orange4", "flower": "bold white on deep_pink3",
                 "field": "bold black on gold3"}
SCENERY_FG = {"ocean": "dodger_blue2", "forest": "green3", "mountain": "orange3",
              "flower": "deep_pink2", "field": "gold3"}
SCENERY_GLYPH = {"ocean": "≈", "forest": "♣", "mountain": "▲", "flower": "✿", "field": "ψ"}
MATERIAL_STYLE = {"stone": "grey70", "water": "bright_blue", "timber": "dark_orange3",
                  "engineering": "orange1", "steel": "steel_blue1"}
MATERIAL_ABBR = {"stone": "St", "water": "Wa", "timber": "Ti", "engineering": "En",
                 "steel": "Sl"}
SEAT_STYLE = ("bold dodger_blue2", "bold deep_pink2", "bold green3", "bold orange1")

HELP = """Actions (the notation):
  take CARD | take deck                 take a Depot card / the top of the deck
  build CARD L|R                        build at the left/right end, paid the cheapest way
  build CARD L|R pay STEP ...           ... with your own payment, steps in order:
      CARD (discard it)  sub:A+B+C=MATERIAL  per:CARD (Persistent)  rec (Recycle)
      bh:SEAT:CARD  bd:SEAT (Landmark borrowing)
  claim LANDMARK CARD                   claim a Landmark, placed above CARD (ends the turn)
  end                                   end the turn
Commands:
  moves          list the legal actions, numbered from 1 (type a number to play one)
  hint [BUDGET]  the search's best moves, e.g. 'hint', 'hint 2s', 'hint 500i'
  h N            play the N-th move of the last hint
  card ID        a card or Landmark in words: its bonus or ability, and its printed text
  undo           take back your last move (and the AI's moves after it); again for more
                 (never when a card or Landmark a player has seen would go back into
                 its deck: not a card taken from the deck, nor an end or a claim once
                 a player has seen its refill of the Depot or of the Landmark row, or
                 a card the AI's moves after it drew)
  table          draw the table again      score   the scores so far
  help           this text                 quit    leave (the record is still saved)
Tab completes legal actions, commands and the ids of 'card'."""


class PlayError(ValueError):
    """A bad option of ``bigsur play`` (seat spec, counts); names the option."""


# ------------------------------------------------------------------ plain text (kept)

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
    """The table as plain text, from ``seat``'s side (its hand shown), or all hands."""
    cards = state.cards
    lines = [f"Card set: {cards.label}",
             f"Turn {state.turn + 1}, seat {state.current} to act ({state.phase.name.lower()}"
             f" step), deck {plural(len(state.deck), 'card')}"]
    lines.append("Depot: " + "  ".join(card_text(cards, c) for c in state.depot))
    lines.append("Landmarks: " + "  ".join(
        f"{cards.landmarks[lm].id} {cards.landmarks[lm].name} "
        f"({SCENERIES[cards.landmark_scenery[lm]]})" for lm in state.landmark_row))
    for i, p in enumerate(state.players):
        score = score_player(cards, p).total
        lines.append(f"-- seat {i}: {plural(score, 'point')}, hand {len(p.hand)}, discard top "
                     f"{MATERIALS[cards.material[p.discard[-1]]] if p.discard else '-'}")
        lines.append("   Highway: " + (" | ".join(card_text(cards, c) for c in p.highway)
                                       or "-"))
        for s in stretches(cards, p.highway, effective_miles(cards, p)):  # as scored
            lines.append(f"   Stretch {SCENERIES[s.scenery]}: {s.miles} mi "
                         f"({' '.join(cards.highway[c].id for c in s.cards)})")
        for lm, c in p.landmarks:
            lines.append(f"   Landmark {cards.landmarks[lm].name} above {cards.highway[c].id}")
        if seat is None or seat == i:
            lines.append("   Hand: " + ("  ".join(card_text(cards, c) for c in p.hand) or "-"))
    return "\n".join(lines)


# ------------------------------------------------------------------ rich rendering

def _rich():
    """rich, imported on first use (so that ``import solver.terminal`` stays cheap)."""
    import rich.box
    import rich.console
    import rich.panel
    import rich.table
    import rich.text

    return rich


def card_cell(cards: CardSet, c: int, marker: str = ""):
    """One card as a small block of coloured text: id and miles, Scenery, cost, back."""
    rich = _rich()
    Text = rich.text.Text
    card = cards.highway[c]
    t = Text()
    t.append(f"{card.id}", style="bold")
    t.append(f" {card.miles}mi{marker}\n")
    for s in card.scenery:
        name = SCENERIES[s]
        t.append(f"{SCENERY_GLYPH[name]}{name[:3]}", style=SCENERY_STYLE[name])
    t.append("\n")
    for m in card.cost:
        name = MATERIALS[m]
        t.append(MATERIAL_ABBR[name], style=MATERIAL_STYLE[name])
    t.append(" ▸", style="dim")
    back = MATERIALS[card.material]
    t.append(MATERIAL_ABBR[back], style=f"bold {MATERIAL_STYLE[back]}")
    if card.persistent is not None:
        per = MATERIALS[card.persistent]
        t.append(f"\n∞{per[:5]}", style=MATERIAL_STYLE[per])
    elif card.bonus is not None:
        t.append("\n★bonus", style="yellow")
    return t


class CardRow:
    """Cards side by side in one box, as a rich renderable: where the width left is too
    small for all of them (a narrow terminal), the row wraps onto more boxes below, so
    that no card is cut. ``marks``: a marker after a card's miles (a Landmark's ⚑)."""

    def __init__(self, cards: CardSet, ids: Sequence[int], marks: dict[int, str] | None = None):
        self.cards = cards
        self.ids = list(ids)
        self.marks = marks or {}

    def table(self, ids: Sequence[int]):
        rich = _rich()
        table = rich.table.Table(box=rich.box.ROUNDED, show_header=False, padding=(0, 1),
                                 pad_edge=False, expand=False)
        for _c in ids:
            table.add_column(no_wrap=True)
        if ids:
            table.add_row(*(card_cell(self.cards, c, self.marks.get(c, "")) for c in ids))
        return table

    def rows(self, console, options) -> list[list[int]]:
        """The cards in rows, each as many as fit in ``options.max_width`` (at least one)."""
        from rich.measure import Measurement

        unbounded = options.update_width(10_000)
        rows: list[list[int]] = [[]]
        for c in self.ids:
            wider = rows[-1] + [c]
            if rows[-1] and Measurement.get(console, unbounded, self.table(wider)).maximum \
                    > options.max_width:
                rows.append([c])
            else:
                rows[-1] = wider
        return rows

    def __rich_console__(self, console, options):
        for ids in self.rows(console, options):
            yield self.table(ids)

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement

        return Measurement.get(console, options, self.table(self.ids))


def _card_row(cards: CardSet, ids: Sequence[int]):
    return CardRow(cards, ids)


def _seat_label(seats: Sequence[str] | None, i: int, viewer: int | None) -> str:
    if seats is None or seats[i] == HUMAN:
        return f"Seat {i}" + (" (you)" if viewer == i and seats and
                             seats.count(HUMAN) == 1 else "")
    return f"Seat {i} · {seats[i]}"


def render_rich(state: GameState, seat: int | None, seats: Sequence[str] | None = None):
    """The table as a rich renderable, from ``seat``'s side (None: every hand shown)."""
    rich = _rich()
    Text, Table, Panel = rich.text.Text, rich.table.Table, rich.panel.Panel
    cards = state.cards
    parts = []
    head = Text()
    tpp = turns_per_player(state)
    rnd = min(tpp, state.turn // state.num_players + 1)
    head.append("Big Sur", style="bold")
    head.append(f"  round {rnd} of {tpp} · deck {len(state.deck)} · ")
    if state.phase == Phase.OVER:
        head.append("game over", style="bold")
    else:
        head.append(f"{_seat_label(seats, state.current, seat)} to act",
                    style=SEAT_STYLE[state.current % 4])
        head.append(f" ({state.phase.name.lower()} step"
                    + (f", {2 - state.picks} to take" if state.phase == Phase.TAKE else "")
                    + ")")
    head.append(f"\nCards: {cards.label}", style="yellow" if cards.reconstruction else "dim")
    parts.append(head)
    parts.append(Text.assemble(("Depot", "bold"), ("   a card: id miles / Scenery / cost ▸back"
                                                   " / ∞Persistent or ★2-Mile bonus", "dim")))
    parts.append(_card_row(cards, state.depot))  # unnumbered: numbers are 'moves'
    lm_table = Table(box=rich.box.SIMPLE, show_header=True, header_style="bold",
                     title="Landmarks", title_justify="left", title_style="bold", pad_edge=False,
                     expand=False)
    lm_table.add_column("id")
    lm_table.add_column("name")
    lm_table.add_column("needs")
    lm_table.add_column("ability", overflow="fold")
    for lm in state.landmark_row:
        card = cards.landmarks[lm]
        sc = SCENERIES[card.scenery]
        lm_table.add_row(card.id, card.name, Text(f"{SCENERY_GLYPH[sc]} {sc}",
                                                  style=SCENERY_FG[sc]),
                         card.text or card.ability.kind)
    parts.append(lm_table)
    order = list(range(state.num_players))
    if seat is not None:  # the viewer last, next to the prompt
        order = [(seat + k) % state.num_players for k in range(1, state.num_players + 1)]
    for i in order:
        p = state.players[i]
        score = score_player(cards, p)
        body = []
        info = Text()
        info.append(f"hand {len(p.hand)}")
        if seat is not None and i != seat and p.known_hand:
            info.append(" (known: " + " ".join(cards.highway[c].id
                                              for c in sorted(p.known_hand)) + ")")
        info.append(" · discard ")
        if p.discard:
            top = MATERIALS[cards.material[p.discard[-1]]]
            info.append(f"{len(p.discard)}, top ")
            info.append(top, style=f"bold {MATERIAL_STYLE[top]}")
        else:
            info.append("empty")
        body.append(info)
        if p.highway:
            marks = {card: "⚑" for _lm, card in p.landmarks}
            body.append(Text("Highway (left → right):", style="dim"))
            body.append(CardRow(cards, p.highway, marks))
        else:
            body.append(Text("Highway: none yet", style="dim"))
        # the miles the scorer counts: a Landmark may add miles to the card below it
        for s in stretches(cards, p.highway, effective_miles(cards, p)):
            name = SCENERIES[s.scenery]
            line = Text("  ")
            line.append(f" {SCENERY_GLYPH[name]} {name} Stretch {plural(s.miles, 'pt')} ",
                        style=SCENERY_STYLE[name])
            line.append(" " + " ".join(cards.highway[c].id for c in s.cards))
            body.append(line)
        for lm, c in p.landmarks:
            body.append(Text(f"  ⚑ {cards.landmarks[lm].id} {cards.landmarks[lm].name} "
                             f"above {cards.highway[c].id}"))
        if seat is None or seat == i:
            body.append(Text("Hand:", style="bold"))
            body.append(_card_row(cards, p.hand) if p.hand else Text("  (empty)"))
        title = Text(f"{_seat_label(seats, i, seat)} — {plural(score.total, 'pt')}",
                     style=SEAT_STYLE[i % 4])
        sub = (f"stretches {score.stretches} · bonuses {score.bonuses} · "
               f"landmarks {score.landmark_count}+{score.landmark_abilities}")
        parts.append(Panel(rich.console.Group(*body), title=title, subtitle=sub,
                           title_align="left", subtitle_align="right",
                           border_style=SEAT_STYLE[i % 4].split()[-1]
                           if i == state.current else "grey50"))
    return rich.console.Group(*parts)


class Screen:
    """Turns rich renderables into text for ``write``: colours on a real terminal, plain
    text (box drawing kept) otherwise, so scripted games and tests read clean lines.
    ``width``: a number of columns, or a function that reads it at each drawing (the
    terminal's, which the player may resize); 120 without it."""

    def __init__(self, write: Callable[[str], None], color: bool,
                 width: int | Callable[[], int] | None = None):
        self.write = write
        self.color = color
        self.width = width

    def show(self, renderable) -> None:
        rich = _rich()
        buf = io.StringIO()
        console = rich.console.Console(file=buf, force_terminal=self.color,
                                       color_system="truecolor" if self.color else None,
                                       width=(self.width() if callable(self.width)
                                              else self.width) or 120, highlight=False,
                                       soft_wrap=False)
        console.print(renderable)
        self.write(buf.getvalue().rstrip("\n"))


# ------------------------------------------------------------------ completion

COMMANDS = ("help", "moves", "hint", "undo", "table", "score", "quit")
# the commands typed alone, and what each does: said when a word follows one (it was
# ignored: 'moves foo' listed the moves)
ALONE = {"help": "it lists the actions and commands", "moves": "it lists the legal actions",
         "undo": "it takes back one move", "table": "it draws the table again",
         "score": "it shows the scores so far", "quit": "it leaves the game",
         "exit": "it leaves the game"}


def prompt_candidates(state: GameState) -> list[str]:
    """What Tab completes at the prompt: the legal actions, the commands and ``card ID``
    of every card and Landmark of the set."""
    cards = state.cards
    return ([m.notation() for m in legal_actions(state)] + list(COMMANDS)
            + [f"card {c.id}" for c in (*cards.highway, *cards.landmarks)])


def card_words(cards: CardSet, typed: str) -> str:
    """``card ID`` at the prompt: the card's or Landmark's line of ``bigsur cards show``
    under its header (its bonus or ability in words), then its printed text if the set
    has one; the id in any case. ValueError names an unknown or ambiguous id."""
    from .cli import HIGHWAY_HEADER, LANDMARK_HEADER, highway_line, landmark_line

    card_id = cards.typed_id(typed)
    if card_id in cards.highway_index:
        card = cards.highway[cards.highway_index[card_id]]
        lines = [HIGHWAY_HEADER, highway_line(card)]
    else:
        card_id = cards.typed_id(typed, landmark=True)
        if card_id not in cards.landmark_index:
            raise ValueError(f"card: no card or Landmark {typed!r} in card set "
                             f"{cards.name!r}")
        card = cards.landmarks[cards.landmark_index[card_id]]
        lines = [LANDMARK_HEADER, landmark_line(card)]
    if card.text:
        lines.append(f"printed: {card.text}")
    return "\n".join(line.rstrip() for line in lines)


def completions(buffer: str, begidx: int, candidates: Sequence[str]) -> list[str]:
    """Readline completions of the word starting at ``begidx`` of ``buffer``: the next
    word of every candidate (a legal action or a command) that extends the buffer, in
    any case, as the prompt reads ids and commands ('take h4' completes to H41, H43)."""
    typed = buffer.casefold()
    words = set()
    for c in candidates:
        if len(c) >= len(buffer) and c[:len(buffer)].casefold() == typed:
            rest = c[begidx:]
            word = rest.split(" ", 1)[0]
            words.add(word + (" " if " " in rest else ""))
    return sorted(words)


def _install_completer(candidates: Callable[[], list[str]]) -> Callable[[], None]:
    """Tab completion of legal actions for ``input``; returns the uninstaller."""
    try:
        import readline
    except ImportError:  # pragma: no cover - no readline on this platform
        return lambda: None
    old = readline.get_completer()
    old_delims = readline.get_completer_delims()
    state: dict[str, list[str]] = {}

    def complete(_text: str, i: int):
        if i == 0:
            state["m"] = completions(readline.get_line_buffer(), readline.get_begidx(),
                                     candidates())
        m = state.get("m", [])
        return m[i] if i < len(m) else None

    readline.set_completer_delims(" ")
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")

    def undo() -> None:
        readline.set_completer(old)
        readline.set_completer_delims(old_delims)

    return undo


# ------------------------------------------------------------------ the game loop

def _moves_table(state: GameState, moves):
    rich = _rich()
    table = rich.table.Table(box=rich.box.SIMPLE, show_header=True, header_style="bold",
                             pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("action")
    table.add_column("cheapest payment", style="dim")
    for i, m in enumerate(moves, 1):  # numbered from 1, as a hint's lines ('h 1')
        pay = ""
        if isinstance(m, Build):
            steps = cheapest_payment(state, state.cards.card(m.card))
            pay = " ".join(s.notation() for s in steps) if steps else "free"
        table.add_row(str(i), m.notation(), pay)
    return table


def numbered(text: str, count: int) -> int | None:
    """The index of the item a number typed at the prompt names in a list numbered 1 to
    ``count`` (the moves of 'moves', the lines of a hint for 'h N'), else None: not digits,
    or out of the range. ('²' is a digit that int() refuses, and thousands of digits a
    number it will not read: both are None, never an error.)"""
    if not (text.isdecimal() and len(text) <= 9):
        return None
    n = int(text)
    return n - 1 if 1 <= n <= count else None


def move_words(cards: CardSet, move: Action) -> str:
    """A move in the table's words: ``take H14 from the Depot``, ``build H12 at the left
    end of your Highway``, ``claim L06 Julia Pfeiffer Burns above H32``, ``end the turn``."""
    if isinstance(move, Take):
        return f"take {move.card} from the Depot" if move.card else "take the deck's top card"
    if isinstance(move, Build):
        return f"build {move.card} at the {'left' if move.side == 'L' else 'right'} end of " \
            "your Highway"
    if isinstance(move, Claim):
        return f"claim {move.landmark} {cards.landmarks[cards.landmark(move.landmark)].name} " \
            f"above {move.card}"
    return "end the turn"


def typed_action(cards: CardSet, text: str) -> str:
    """An action typed at the prompt with its card ids and 'deck' in any case, in the
    notation the library reads (strict). Text that is no action is returned as typed
    (the engine says what is wrong)."""
    try:
        action = parse_action(text)
    except ActionError:
        return text
    if isinstance(action, Take) and action.card is not None:
        if action.card not in cards.highway_index and action.card.lower() == "deck":
            return "take deck"
        action = Take(cards.typed_id(action.card))
    elif isinstance(action, Claim):
        action = Claim(cards.typed_id(action.landmark, landmark=True),
                       cards.typed_id(action.card))
    elif isinstance(action, Build):
        steps = None
        if action.payment is not None:
            steps = tuple(
                dataclasses.replace(st, cards=tuple(cards.typed_id(c) for c in st.cards))
                if isinstance(st, Substitute) else
                dataclasses.replace(st, card=cards.typed_id(st.card))
                if hasattr(st, "card") else st for st in action.payment)
        action = Build(cards.typed_id(action.card), action.side, steps)
    return action.notation()


def _hint_table(result, top: int = 5):
    rich = _rich()
    iterations = result.stats.get("iterations") or 0
    table = rich.table.Table(box=rich.box.SIMPLE, show_header=True, header_style="bold",
                             pad_edge=False, title=f"Hint ({plural(iterations, 'iteration')}"
                             f", {result.stats.get('seconds', 0):.1f} s)",
                             title_justify="left")
    table.add_column("h", justify="right")
    table.add_column("visits", justify="right")  # the ranking (as 'bigsur hint')
    table.add_column("win", justify="right")
    table.add_column("pts", justify="right")
    table.add_column("move", overflow="fold")
    for i, m in enumerate(result.moves[:top], 1):
        move = rich.text.Text(m.label + "\n", style="bold")
        move.append(" ; ".join(m.actions), style="cyan")
        if m.line:
            move.append("\nthen: " + " ; ".join(m.line), style="dim")
        table.add_row(str(i), str(m.visits), f"{100 * m.win_probability:.1f}%",
                      number(m.expected_margin, sign=True), move)
    return table


class UndoRefused(ValueError):
    """An undo that would put back into a deck a card or Landmark a human seat has seen:
    the player would draw it again knowing it."""


def visible_cards(state: GameState, seat: int) -> set[int]:
    """The cards the table shows ``seat``: its hand and discard pile, the Depot, every
    Highway and the cards known in the other hands and discard piles."""
    seen = set(state.depot)
    for i, p in enumerate(state.players):
        seen.update(p.highway)
        seen.update(p.hand + p.discard if i == seat else p.known_hand | p.known_discard)
    return seen


@dataclasses.dataclass
class Sight:
    """What the table has shown one human seat (for undo): Highway cards
    (:func:`visible_cards`) and Landmarks (the row, which every seat sees)."""

    cards: set[int] = dataclasses.field(default_factory=set)
    landmarks: set[int] = dataclasses.field(default_factory=set)

    @classmethod
    def of(cls, state: GameState, seat: int) -> Sight:
        """What the table shows ``seat`` in ``state``."""
        return cls(visible_cards(state, seat), set(state.landmark_row))

    def add(self, state: GameState, seat: int) -> None:
        """Add what the table shows ``seat`` in ``state``."""
        shown = Sight.of(state, seat)
        self.cards |= shown.cards
        self.landmarks |= shown.landmarks


def _seer(seers: Sequence[int], now: GameState) -> str:
    """Who has seen it, as an undo's refusal says it: the seat at the keyboard first."""
    seer = now.current if now.current in seers else min(seers)
    return "you have" if seer == now.current else f"seat {seer} has"


MOVE_NAMES = {Take: "a take", Build: "a build", End: "the end of a turn", Claim: "a claim"}


def take_back(record: GameRecord, humans: Sequence[int],
              seen: dict[int, Sight] | None = None
              ) -> tuple[GameState, list[tuple[int, Action]]] | None:
    """Undo: cut the record's actions before the last one a human seat played (so also
    every AI action after it) and replay the rest. Returns the state then and the (seat,
    action) pairs taken back, or None when no human seat has played.

    ``seen``: what each human seat has been shown (:class:`Sight`). An undo never puts
    back into the deck a card that a human seat has been shown, nor into the Landmark
    deck a Landmark one has been shown: that player would draw it again knowing it. So a
    'take deck' is kept once its card was shown, and the end of a turn ('end' or a claim)
    once a human seat was shown a card its refill of the Depot drew or the Landmark its
    refill of the Landmark row revealed, or a card or Landmark the AI's moves after it
    drew (in a game against the AI: the table of the human's next turn shows them).
    UndoRefused says what was seen and by whom, and the record is left as it was."""
    seen = seen or {}
    *steps, (now, _none) = record.states()  # (state before, action), every action checked
    last = next((i for i in reversed(range(len(steps))) if steps[i][0].current in humans),
                None)
    if last is None:
        return None
    _refuse_shown_draws(steps[last:], now, seen)
    taken = [(before.current, action) for before, action in steps[last:]]
    del record.actions[last:]
    return steps[last][0], taken


def _refuse_shown_draws(steps: Sequence[tuple[GameState, Action]], now: GameState,
                        seen: dict[int, Sight]) -> None:
    """Raise UndoRefused when taking back ``steps`` (the (state before, action) pairs from
    the move undone on; ``now`` the state after the last) would put back into the deck a
    card, or into the Landmark deck a Landmark, that a seat of ``seen`` has been shown.
    Each step is checked in turn, so the refusal names the first draw that was seen."""
    move = steps[0][1]
    what = MOVE_NAMES[type(move)]
    afters = [before for before, _action in steps[1:]] + [now]
    for k, ((before, action), after) in enumerate(zip(steps, afters, strict=True)):
        drawn = set(before.deck) - set(after.deck)
        revealed = set(before.landmark_deck) - set(after.landmark_deck)
        card_seers = [s for s, sight in seen.items() if sight.cards & drawn]
        landmark_seers = [s for s, sight in seen.items() if sight.landmarks & revealed]
        if k and (card_seers or landmark_seers):  # an AI move after the human's
            thing = "cards they drew from the deck" if card_seers \
                else "the Landmark they revealed"
            raise UndoRefused(f"{what} cannot be taken back with the AI's moves after it: "
                              f"{_seer(card_seers or landmark_seers, now)} seen {thing}")
        if card_seers and isinstance(action, Take):
            raise UndoRefused("a card drawn from the deck cannot be taken back: "
                              f"{_seer(card_seers, now)} seen it")
        if card_seers:
            raise UndoRefused(f"{what} cannot be taken back once the Depot was refilled from "
                              f"the deck: {_seer(card_seers, now)} seen the cards drawn")
        if landmark_seers:
            raise UndoRefused(f"{what} cannot be taken back once the Landmark row was "
                              "refilled from the Landmark deck: "
                              f"{_seer(landmark_seers, now)} seen the Landmark revealed")


def _scores_text(state: GameState, seats) -> str:
    outcome = final_scores(state)
    lines = []
    for i, s in enumerate(outcome.scores):
        lines.append(f"{_seat_label(seats, i, None)}: {s.total} (stretches {s.stretches}, "
                     f"2-Mile bonuses {s.bonuses}, landmarks {s.landmark_count} + "
                     f"{s.landmark_abilities})")
    return "\n".join(lines)


def play_game(seats: Sequence[str], seed: int | None, cards: CardSet | None = None,
              save: str | None = None, read: Callable[[str], str] = input,
              write: Callable[[str], None] = print, color: bool | None = None,
              hint_budget: str = "1s", width: int | None = None,
              resume: GameRecord | None = None, overwrite: bool = False) -> int:
    """Play one game in the terminal; ``seats`` holds "human" or a bot spec per seat.

    AI seats act on their own view with seeds derived from the game seed (the same as
    the server's, :func:`solver.search.tournament.bot_seed`; None: :func:`random_seed`).
    ``resume``: a record of an unfinished game, played on from its last position (its
    seed and cards are used; ``seed`` and ``cards`` are ignored). The record is saved to
    ``save`` at the end; a file there already (another game's, saved meanwhile) is kept
    and the record written beside it under a numbered name, said, unless ``overwrite``
    (``--force``, or a resumed record saved back). Returns the exit status.
    """
    from .search.api import analyse
    from .search.bots import make_bot
    from .search.tournament import bot_seed

    cards = cards or load_card_set()
    seats = list(seats)
    if HUMAN not in seats:
        raise PlayError("seats: at least one seat must be human")
    bots = {i: make_bot(spec) for i, spec in enumerate(seats) if spec != HUMAN}
    budget = hint_budget_of(hint_budget)
    if resume is not None:
        record = resume
        record.names = resumed_names(record.names, seats, len(record.actions))
        state = record.replay()
        seed = record.seed if record.seed is not None else 0  # 0: from a set-up position
    else:
        if seed is None:
            seed = random_seed()
        state = new_game(len(seats), seed, cards)
        record = GameRecord(cards, len(seats), seed=seed, names=seats)
    interactive = read is input and sys.stdin.isatty()
    if color is None:
        color = write is print and sys.stdout.isatty()
    if width is None and write is print and sys.stdout.isatty():
        import shutil

        screen = Screen(write, color, lambda: shutil.get_terminal_size().columns)
    else:
        screen = Screen(write, color, width)
    humans = [i for i, s in enumerate(seats) if s == HUMAN]
    single = len(humans) == 1
    last_hint = None
    undo = _install_completer(lambda: prompt_candidates(state)) if interactive \
        else (lambda: None)

    def viewer() -> int:
        return humans[0] if single else state.current

    def finish(status: int) -> int:
        undo()
        if save:
            record.meta["result"] = final_scores(state).to_json() if state.is_over else None
            try:
                Path(save).parent.mkdir(parents=True, exist_ok=True)
                written = Path(save)
                if overwrite:
                    record.save(save)
                else:
                    written = record.save_new(save)
            except OSError as err:  # the game is played: say so, with its moves
                write(f"! cannot save the record to {save} ({err.strerror}); its actions: "
                      + "; ".join(record.actions))
                return status or 1
            kept = "" if written == Path(save) else \
                f"; {save} was there already (another game's?) and is kept"
            write(f"record saved to {written} ({plural(len(record.actions), 'action')}"
                  f"{kept})")
        return status

    write(f"Big Sur: {', '.join(_seat_label(seats, i, viewer()) for i in range(len(seats)))};"
          f" seed {seed}. Type 'help' for the notation, Tab completes.")
    shown_at = -1
    seen: dict[int, Sight] = {}  # what each human seat was shown (for undo)
    seen_by = None  # hot-seat: the human whose hand was last drawn
    try:
        while state.phase != Phase.OVER:
            seat = state.current
            if seat in bots:
                action = bots[seat].act(view_of(state, seat),
                                        bot_seed(seed, seat, state.turn, len(record.actions)))
                try:
                    state = play(state, action)
                except ActionError as err:  # a bot bug must not end the game silently
                    write(f"! {seats[seat]} chose an illegal action: {err}")
                    return finish(1)
                shown = action.notation()
                if isinstance(action, Build):  # the payment names hidden fronts
                    shown = Build(action.card, action.side).notation()
                write(f"  {_seat_label(seats, seat, viewer())}: {shown}")
                record.actions.append(action.notation())
                continue
            if not single and seat != seen_by:  # hot-seat: no hand shown to another player
                if seen_by is not None:
                    try:
                        read(f"seat {seat} to play: pass the keyboard, then press Enter ")
                    except EOFError:
                        write("bye")
                        return finish(0)
                    if color:  # the last player's hand off the screen and its scrollback
                        write("\x1b[H\x1b[2J\x1b[3J")
                seen_by, shown_at = seat, -1
            if shown_at != len(record.actions):
                screen.show(render_rich(state, viewer(), seats))
                seen.setdefault(viewer(), Sight()).add(state, viewer())
                shown_at = len(record.actions)
            moves = legal_actions(state)
            try:
                text = read(f"seat {seat}> ").strip()
            except EOFError:
                write("bye")
                return finish(0)
            if not text:
                continue
            word, *extra = text.split()
            word = word.lower()
            if word in ALONE and extra:
                write(f"! {word}: unexpected '{extra[0]}' (type '{word}' alone: "
                      f"{ALONE[word]})")
                continue
            if word in ("quit", "exit"):
                return finish(0)
            if word == "help":
                write(HELP)
                continue
            if word == "table":
                shown_at = -1
                continue
            if word == "score":
                write(_scores_text(state, seats))
                continue
            if word == "moves":
                screen.show(_moves_table(state, moves))
                continue
            if word == "card":
                if len(extra) != 1:
                    write("! card ID: one card or Landmark id, e.g. 'card H41', 'card L06'")
                    continue
                try:
                    write(card_words(state.cards, extra[0]))
                except ValueError as err:
                    write(f"! {err}")
                continue
            if word == "hint":
                args = text.split()[1:]
                if len(args) > 1:
                    write(f"! hint: unexpected '{args[1]}' (hint [BUDGET], e.g. 'hint 2s')")
                    continue
                try:
                    b = hint_budget_of(args[0]) if args else budget
                    last_hint = (len(record.actions),
                                 analyse(view_of(state, seat), b, seed=len(record.actions)))
                except ValueError as err:
                    write(f"! hint: {str(err).removeprefix('budget: ')}")
                    continue
                except KeyboardInterrupt:  # Ctrl-C stops the search, not the game
                    write("\n! hint interrupted")
                    continue
                screen.show(_hint_table(last_hint[1]))
                write("type 'h N' to play hint N")
                continue
            if word == "undo":
                try:
                    undone = take_back(record, humans, seen)
                except UndoRefused as err:
                    write(f"! undo: {err}")
                    continue
                if undone is None:
                    write("! undo: nothing to take back ("
                          + ("no move of yours in this game)" if single
                             else "no move yet in this game)"))
                    continue
                state, taken = undone
                (mover, move), replies = taken[0], len(taken) - 1
                if isinstance(move, Build) and mover != seat:  # its payment names hidden fronts
                    move = Build(move.card, move.side)
                write(f"taken back: {move.notation()}"
                      + ("" if single else f" (seat {mover})")
                      + (f" and the AI's {plural(replies, 'move')} after it" if replies else ""))
                last_hint, shown_at = None, -1
                continue
            if word == "h":
                args = text.split()[1:]
                if last_hint is None or last_hint[0] != len(record.actions):
                    write("! no hint for this position: type 'hint' first")
                    continue
                shown_hints = min(5, len(last_hint[1].moves))
                if len(args) != 1 or (i := numbered(args[0], shown_hints)) is None:
                    write(f"! h N: N is a hint number 1 to {shown_hints}")
                    continue
                queue = list(last_hint[1].moves[i].actions)
            elif text.isdigit():
                if (i := numbered(text, len(moves))) is None:
                    write(f"! no move number {text}; 'moves' lists "
                          f"{plural(len(moves), 'move')}, numbered 1 to {len(moves)}")
                    continue
                queue = [moves[i].notation()]
                # said, as the list may never have been shown ('1' played 'take H14')
                write(f"{i + 1}: {move_words(state.cards, moves[i])}")
            else:
                try:  # card ids and 'deck' in any case, here only (the notation is strict)
                    queue = [typed_action(state.cards, text)]
                except ValueError as err:
                    write(f"! {err}")
                    continue
            for item in queue:
                try:
                    new_state = play(state, item)
                except ActionError as err:
                    write(f"! {err}")
                    break
                except ValueError as err:  # unknown card ids and the like
                    write(f"! {err}")
                    break
                applied = parse_action(item)
                if isinstance(applied, Build) and applied.payment is None:
                    # store the payment the engine chose, so the record replays the same
                    steps = cheapest_payment(state, state.cards.card(applied.card))
                    if steps is not None:
                        applied = Build(applied.card, applied.side, steps)
                record.actions.append(applied.notation())
                state = new_state
    except KeyboardInterrupt:
        write("\ninterrupted")
        return finish(130)
    screen.show(render_rich(state, None, seats))
    outcome = final_scores(state)
    write(_scores_text(state, seats))
    write("winner(s): " + ", ".join(_seat_label(seats, w, viewer()) for w in outcome.winners))
    return finish(0)


def random_seed() -> int:
    """The deal seed of a game started without one, from the clock: the banner says it
    and the default record name carries it, so that the game can be dealt again."""
    return int(time.time() * 1000) % (1 << 31)


def hot_seat(players: int, seed: int | None, cards: CardSet, save: str | None,
             read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> int:
    """Play a hot-seat game (every seat human); returns the exit status."""
    return play_game([HUMAN] * players, seed, cards, save, read, write)


# ------------------------------------------------------------------ CLI

def hint_budget_of(text: str):
    """The search budget of 'hint' typed at the prompt or given by ``--hint-budget``:
    :meth:`Budget.parse <solver.search.api.Budget.parse>`'s, at most the command line's
    :data:`~solver.cli.MAX_ITERATIONS` iterations (a search of more could not end in a
    game's time). ValueError says what is wrong, after 'budget: '."""
    from .cli import MAX_ITERATIONS
    from .search.api import Budget
    from .search.specs import BudgetSpec, check_caps

    budget = Budget.parse(text)
    check_caps(BudgetSpec(budget.iterations, budget.seconds), None, MAX_ITERATIONS, "budget")
    return budget


def seats_from_args(players: int, ai: str | None, seats: str | None) -> list[str]:
    """The seat list of ``bigsur play``: ``--seats`` as given, else seat 0 human and the
    others ``--ai`` (every seat human without ``--ai``)."""
    if seats:
        out = [s.strip() for s in seats.split(",")]
        if not 2 <= len(out) <= 4:
            raise PlayError(f"--seats: 2 to 4 comma-separated seats, got {len(out)}")
    else:
        if not 2 <= players <= 4:
            raise PlayError(f"--players: must be 2 to 4{got(players)}")
        out = [HUMAN] + [ai or HUMAN] * (players - 1)
    return checked_seats(out)


def checked_seats(specs: Sequence[str]) -> list[str]:
    """Each seat "human" (in any case) or a bot spec that makes a bot, at least one
    human; PlayError names the first bad seat."""
    from .cli import check_search_iterations
    from .search.bots import BotSpecError, make_bot

    out = [HUMAN if spec.strip().lower() == HUMAN else spec for spec in specs]  # 'Human' too
    for i, spec in enumerate(out):
        if spec != HUMAN:
            try:
                make_bot(spec)
            except BotSpecError as err:
                raise PlayError(f"seat {i}: {err}; or '{HUMAN}' for a player at the "
                                "keyboard") from None
            try:  # a search of more iterations could not end in a game's time
                check_search_iterations(spec, f"seat {i}")
            except ValueError as err:
                raise PlayError(str(err)) from None
    if HUMAN not in out:
        raise PlayError("--seats: at least one seat must be human")
    return out


def resume_from_args(path: str, ai: str | None, seats: str | None
                     ) -> tuple[GameRecord, list[str]]:
    """The record of ``--resume`` (read and replayed by the record reader) and its seats:
    the record's names, or ``--seats`` / ``--ai`` when given. PlayError names the record
    and what is wrong: unreadable, illegal action, the game over, a name not a seat."""
    from .rules.record import RecordError

    try:
        record = GameRecord.load(path)
        state = record.replay()
    except RecordError as err:
        raise PlayError(f"--resume {path}: {str(err).removeprefix(f'{path}: ')}") from None
    if state.is_over:
        played = plural(len(record.actions), "action")
        raise PlayError(f"--resume {path}: the game is over ({played} played), nothing is "
                        f"left to play; 'bigsur analyze {path}' reviews it")
    if seats or ai:
        found = seats_from_args(record.players, ai, seats)
        if len(found) != record.players:
            raise PlayError(f"--seats: the record of --resume is a {record.players}-player "
                            f"game, got {len(found)} seats")
        return record, found
    try:
        if not record.names:
            raise PlayError("the record names no seats")
        return record, checked_seats([seat_now(name) for name in record.names])
    except PlayError as err:
        raise PlayError(f"--resume {path}: {err} (the record's seats; give others with "
                        "--seats)") from None


# a seat's name in a record resumed with other seats: who played it before, then who
# from which move on (moves count from 1, as reviews count them)
THEN = ", then "
FROM_MOVE = re.compile(r" from move \d+$")


def resumed_names(names: Sequence[str] | None, seats: Sequence[str], played: int
                  ) -> list[str]:
    """The record's seat names when a game of ``played`` actions is resumed with
    ``seats``: a seat played by another than before keeps who that was, "greedy, then
    random from move 10", so that the record stays true of the moves already made (a
    name too long for a record, :data:`~solver.rules.record.MAX_NAME`, drops the middle
    of its history). :func:`seat_now` reads the seat back."""
    out = []
    for i, seat in enumerate(seats):
        before = names[i] if names and i < len(names) else None
        if before is None or not played:  # no move made under another name
            out.append(seat)
            continue
        if seat_now(before).strip().casefold() == seat.casefold():  # ('Human': human)
            out.append(before)  # the same player goes on, its history kept
            continue
        name = f"{before}{THEN}{seat} from move {played + 1}"
        if len(name) > MAX_NAME:
            name = f"{before.split(THEN)[0]}{THEN}…{THEN}{seat} from move {played + 1}"
        out.append(name if len(name) <= MAX_NAME else seat)
    return out


def seat_now(name: str) -> str:
    """Who plays a seat named ``name`` in a record now: the name, or the last seat of a
    history that :func:`resumed_names` wrote ("greedy, then random from move 10":
    random). (A seat's spec holds no comma: ``--seats`` splits at them.)"""
    return FROM_MOVE.sub("", name.rsplit(THEN, 1)[-1]) if THEN in name else name


def cmd_play(args) -> int:
    resume = None
    try:
        if args.resume:
            for option, given in (("--players", args.players), ("--seed", args.seed),
                                  ("--cards", args.cards)):
                if given is not None:
                    raise PlayError(f"{option}: not with --resume (the record has its own)")
            resume, seats = resume_from_args(args.resume, args.ai, args.seats)
        else:
            seats = seats_from_args(2 if args.players is None else args.players, args.ai,
                                    args.seats)
    except PlayError as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    try:
        hint_budget_of(args.hint_budget)
    except ValueError as err:
        print(f"bigsur: error: --hint-budget: {str(err).removeprefix('budget: ')}",
              file=sys.stderr)
        return 2
    if args.save and (problem := output_problem(args.save)):
        # (as every other output: a folder given is not made; the default records/ is)
        print(f"bigsur: error: --save {args.save}: {problem}"
              + (" (name the record file)" if problem == "is a directory" else ""),
              file=sys.stderr)
        return 2
    if args.save and not (args.resume and Path(args.save).resolve() ==
                          Path(args.resume).resolve()):
        from .cli import check_output  # (another game's record only with --force)

        try:
            check_output("--save", args.save, args.force)
        except OutputError as err:
            print(f"bigsur: error: {err}", file=sys.stderr)
            return 2
    cards = load_card_set(args.cards) if args.cards else None
    seed = resume.seed if resume is not None else \
        random_seed() if args.seed is None else args.seed
    save = None if args.no_save else (args.save or args.resume or f"records/play-{seed}"
                                      f"-{int(time.time())}.json")
    # a record saved back to the file it was resumed from is that game's own
    own_file = args.resume and save and Path(save).resolve() == Path(args.resume).resolve()
    if resume is not None:
        print(f"resumed {args.resume} at action {len(resume.actions)}")
    return play_game(seats, seed, cards, save, hint_budget=args.hint_budget,
                     resume=resume, overwrite=bool(args.force or own_file))


def add_cli(sub) -> None:
    """Register ``bigsur play`` on the CLI's subparsers."""
    from .cli import seed_arg

    p = sub.add_parser("play", help="play in the terminal (against the AI or hot-seat)",
                       description="Play Big Sur in the terminal. Moves are typed in the "
                       "action notation ('help' at the prompt); Tab completes legal moves.")
    p.add_argument("--players", type=int, default=None, help="2 to 4 (default 2)")
    p.add_argument("--ai", help="the AI of seats 1.. (random, greedy, mcts:1s, mcts:500i); "
                   "without it every seat is human (hot-seat)")
    p.add_argument("--seats", help="every seat, comma-separated, e.g. human,greedy,mcts:1s "
                   "(overrides --players/--ai)")
    p.add_argument("--seed", type=seed_arg, default=None,
                   help="deal seed, 0 to 2**63 - 1 (default: random)")
    p.add_argument("--cards", help="card-set file (default: the shipped reconstruction)")
    saving = p.add_mutually_exclusive_group()  # (--no-save --save X: which was meant?)
    saving.add_argument("--save", help="record file (default records/play-SEED-TIME.json, "
                   "SEED the game's seed, drawn when not given; a file there by the end of "
                   "the game is kept and the record saved as NAME-2.json, NAME-3.json...)")
    saving.add_argument("--no-save", action="store_true", help="do not save the record")
    p.add_argument("--force", action="store_true", help="overwrite an existing --save file "
                   "(the record of another game)")
    p.add_argument("--resume", metavar="RECORD", help="go on with a saved, unfinished game "
                   "(its seats, seed and cards; saved back to RECORD unless --save)")
    p.add_argument("--hint-budget", default="1s", help="search budget of 'hint': seconds "
                   "(1s, 0.5s) or iterations (500i); default 1s")
    p.set_defaults(func=cmd_play)
