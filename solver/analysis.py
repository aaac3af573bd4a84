"""Post-game review: for every decision of a record, how much the move played lost.

Each decision is judged from the acting player's view at the time (never the full
state: the reviewer knows no more than the player did). One search of that view ranks
the moves; from it:

- **value before**: the search's value of the position (``stats.win_probability`` /
  ``stats.expected_margin`` when the search reports them, else the best move's), never
  below the value of the move played (the player could play it: a short search can
  rate the played move, or the position after it, above its own root);
- **best move** and its value: the top-ranked move;
- **value of the move played**: the search's moves may be *macro* moves (several engine
  actions, e.g. two builds) while a record holds single actions, so the played action
  is compared with the **first action** of each ranked move; among the moves starting
  with it, the best value counts (the player could still continue that way), and the
  best move's own when it is one of them (the player began the search's choice). Actions
  match on their kind and cards: a Build matches on card and side, whatever the payment
  (payments are a cost detail the search optimises itself); moves the search never
  visited carry no value and do not match. When no ranked move starts with the played
  action: if the game ended with it, its exact value (win share,
  margin); if the same player still acts after it, a second search of the position
  after it (the player's view then) gives the value; if it ended the player's turn (an
  end or a claim the search had not tried), a second search of the same position with
  the played move as its only candidate (*played*); otherwise it is *unrated*;
- **loss**: best minus played, in win-% points and in expected points (never below 0);
  a loss that earns a label (below) when the search ranked the move played (or the
  *played* search valued it) is measured again by a fresh search of just those two
  moves with four times the budget, whose values then stand: the best of many short
  estimates is the luckiest, and a rarely visited move's value is noisy;
- **label** (lichess-style; lichess judges drops of 0.1 / 0.2 / 0.3 in winning chances on
  a -1..1 scale, i.e. 5 / 10 / 15 win-% points; plus an expected-points scale in the
  spirit of GNU Backgammon's equity loss): the more severe of

  ==============  =====================  ==========================
  label           win-% drop at least    expected-points loss at least
  ==============  =====================  ==========================
  inaccuracy      5                      3
  mistake         10                     6
  blunder         15                     10
  ==============  =====================  ==========================

- **accuracy** per player: lichess's per-move formula on the win-% drop,
  ``103.1668 * exp(-0.04354 * drop) - 3.1669`` clamped to 0..100, averaged over the
  player's rated decisions (forced moves, with one legal action, are not rated).

Search values are estimates: with the small default budget the value of a rarely
visited move is noisy, so single labels are hints, not verdicts.

>>> from solver.rules.record import GameRecord
>>> len(decision_points(GameRecord.start(2, seed=1))) == 0
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from .rules.actions import Action, Build, Claim, End, Take, parse_action
from .rules.engine import legal_actions
from .rules.record import GameRecord
from .rules.scoring import final_scores
from .rules.state import GameState, Phase
from .rules.views import PlayerView, view_of
from .rules.wording import plural

WIN_PCT_THRESHOLDS = (5.0, 10.0, 15.0)  # inaccuracy, mistake, blunder (win-% points)
POINTS_THRESHOLDS = (3.0, 6.0, 10.0)  # same, in expected points of margin
LABELS = ("inaccuracy", "mistake", "blunder")
SEED_STRIDE = 1_000_003
# how a decision was judged (``DecisionReview.how``), in a player's words
HOW_WORDS = {
    "ranked": "the search ranked the move among its own",
    "continuation": "valued by a search of the position after it (the player still acted)",
    "played": "searched again as the only candidate (an end or a claim the search had "
              "not tried)",
    "terminal": "it ended the game: its exact result",
    "forced": "the only legal move, not rated",
    "unrated": "the search found no value for it",
}


class AnalysisError(ValueError):
    """A review that cannot be run as asked; names the field and the reason."""

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


@dataclass(frozen=True)
class Value:
    """A value for the acting seat: win probability (0..1) and expected score margin
    (its score minus the best other score)."""

    win_probability: float
    expected_margin: float

    def to_json(self) -> dict[str, float]:
        return {"win_probability": round(self.win_probability, 4),
                "expected_margin": round(self.expected_margin, 3)}


@dataclass
class DecisionReview:
    """The review of one decision (one action of the record)."""

    index: int  # position of the action in the record
    seat: int
    turn: int  # turns completed in the game before it
    phase: str  # "take" or "build"
    played: str
    legal: int  # number of legal actions
    how: str  # "ranked" | "continuation" | "played" | "terminal" | "forced" | "unrated"
    best: list[str] | None = None
    value_before: Value | None = None
    value_best: Value | None = None
    value_played: Value | None = None
    loss_win_pct: float | None = None
    loss_points: float | None = None
    label: str | None = None
    measured_again: bool = False  # value_best/value_played from the second search
    drawn: str | None = None  # a deck take: the card it drew (the record tells, after play)

    @property
    def rated(self) -> bool:
        return self.loss_win_pct is not None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("value_before", "value_best", "value_played"):
            value = getattr(self, key)
            out[key] = value.to_json() if value is not None else None
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> DecisionReview:
        raw = dict(raw)
        for key in ("value_before", "value_best", "value_played"):
            if raw.get(key) is not None:
                raw[key] = Value(**raw[key])
        return cls(**raw)


@dataclass
class DecisionPoint:
    """A decision of a record, with what reviewing it needs (full states stay here: the
    reviewer is given only ``view`` and, when needed, ``after_view`` / ``terminal``)."""

    index: int
    seat: int
    state: GameState
    action: Action
    after: GameState
    legal: int

    @property
    def view(self) -> PlayerView:
        return view_of(self.state, self.seat)

    @property
    def drawn(self) -> str | None:
        """The card a deck take drew (None for any other action)."""
        if type(self.action) is Take and self.action.card is None and self.state.deck:
            return self.state.cards.highway[self.state.deck[-1]].id
        return None

    def placed(self, review: DecisionReview) -> DecisionReview:
        """``review``, searched from the acting seat's view alone, put at this decision:
        its index in the record, its legal count and the card a deck take drew."""
        review.index, review.legal, review.drawn = self.index, self.legal, self.drawn
        return review

    @property
    def after_view(self) -> PlayerView | None:
        """The same player's view after the action, when it still acts then."""
        if self.after.phase != Phase.OVER and self.after.current == self.seat:
            return view_of(self.after, self.seat)
        return None

    @property
    def terminal(self) -> dict[str, float] | None:
        """Exact value of the action for the seat when it ended the game."""
        if self.after.phase != Phase.OVER:
            return None
        return terminal_value(self.after, self.seat).to_json()


@dataclass
class PlayerSummary:
    seat: int
    name: str | None
    decisions: int  # rated decisions
    forced: int
    unrated: int
    accuracy: float | None
    mean_loss_win_pct: float | None
    mean_loss_points: float | None
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0


@dataclass
class Review:
    """A whole record's review: every decision and a summary per player."""

    decisions: list[DecisionReview]
    players: list[PlayerSummary]
    final_scores: list[int] | None
    budget: dict[str, Any]
    seed: int
    thresholds: dict[str, Any] = field(default_factory=lambda: {
        "labels": list(LABELS), "win_pct": list(WIN_PCT_THRESHOLDS),
        "points": list(POINTS_THRESHOLDS)})

    def to_json(self) -> dict[str, Any]:
        return {"decisions": [d.to_json() for d in self.decisions],
                "players": [asdict(p) for p in self.players],
                "final_scores": self.final_scores, "budget": self.budget, "seed": self.seed,
                "thresholds": self.thresholds}


# ------------------------------------------------------------------ pieces

def terminal_value(state: GameState, seat: int) -> Value:
    """The exact value of a finished game for ``seat``: its win share (1/k for a k-way
    tie) and its score minus the best other score."""
    from .search.tournament import margins, win_shares

    totals = [s.total for s in final_scores(state).scores]
    return Value(win_shares(totals)[seat], margins(totals)[seat])


def same_decision(played: Action, first: Action) -> bool:
    """Whether a search move starting with ``first`` plays the action ``played``: same
    kind and cards; a Build matches on card and side whatever the payment."""
    if type(played) is not type(first):
        return False
    if isinstance(played, Build):
        return played.card == first.card and played.side == first.side
    if isinstance(played, (Take, Claim)):
        return played == first
    return isinstance(played, End)


def label_for(loss_win_pct: float, loss_points: float) -> str | None:
    """The more severe label of the two scales, or None below both first thresholds."""
    level = -1
    for i, (w, p) in enumerate(zip(WIN_PCT_THRESHOLDS, POINTS_THRESHOLDS, strict=True)):
        if loss_win_pct >= w or loss_points >= p:
            level = i
    return LABELS[level] if level >= 0 else None


def move_accuracy(loss_win_pct: float) -> float:
    """lichess's accuracy of one move from its win-% drop (0..100)."""
    raw = 103.1668 * math.exp(-0.04354 * max(0.0, loss_win_pct)) - 3.1669
    return max(0.0, min(100.0, raw))


def better_move(decision: DecisionReview) -> str | None:
    """The search's best move as printed (" ; " between its actions) when it was better
    than the move played; None when the move played was the best, or lost nothing."""
    if not decision.best:
        return None
    if decision.rated and number(decision.loss_win_pct) == number(decision.loss_points) \
            == number(0.0):
        return None
    if same_decision(parse_action(decision.played), parse_action(decision.best[0])):
        return None
    return " ; ".join(decision.best)


def number(value: float, sign: bool = False, digits: int = 1) -> str:
    """``value`` rounded to ``digits`` for print, never "-0.0": a value that rounds to
    zero prints 0.0 (+0.0 with ``sign``, as the other signed values)."""
    spec = f"{'+' if sign else ''}.{digits}f"
    text = format(value, spec)
    return format(0.0, spec) if float(text) == 0 else text


def decision_seed(seed: int, index: int) -> int:
    return (seed * SEED_STRIDE + index) % (1 << 63)


def _value(move: dict[str, Any]) -> Value:
    return Value(float(move["win_probability"]), float(move["expected_margin"]))


def _rank(value: Value) -> tuple[float, float]:
    """Values in order: winning chances first, then the margin."""
    return value.win_probability, value.expected_margin


def _result_json(result: Any) -> dict[str, Any]:
    return result if isinstance(result, dict) else result.to_json()


def review_decision(view: PlayerView, played: str | Action, after_view: PlayerView | None,
                    terminal: dict[str, float] | None, budget: Any, seed: int,
                    search: Callable | None = None) -> DecisionReview:
    """Review one decision from the acting player's ``view`` (see the module doc).
    ``search`` is :func:`solver.search.api.analyse` unless given."""
    if search is None:
        from .search.api import analyse as search
    action = parse_action(played) if isinstance(played, str) else played
    result = _result_json(search(view, budget, seed=seed))
    moves = result.get("moves") or []
    out = DecisionReview(index=-1, seat=view.seat, turn=view.turn,
                         phase=view.phase.name.lower(), played=action.notation(),
                         legal=len(moves), how="unrated")
    if not moves:
        return out
    best = moves[0]
    out.best = list(best["actions"])
    out.value_best = _value(best)
    stats = result.get("stats") or {}
    if "win_probability" in stats and "expected_margin" in stats:
        out.value_before = Value(float(stats["win_probability"]),
                                 float(stats["expected_margin"]))
    else:
        out.value_before = out.value_best
    matching = [m for m in moves if m.get("actions") and m.get("visits", 1) > 0
                and same_decision(action, parse_action(m["actions"][0]))]
    played_move = None  # the whole decision played, when the search ranked one
    if matching:
        out.how = "ranked"
        # the search's first move begun is the decision it rates best, whatever another
        # line from the same action reads (what follows the action is a later decision)
        chosen = best if matching[0] is best else max(matching, key=lambda m: _rank(_value(m)))
        out.value_played = _value(chosen)
        played_move = chosen["actions"]
    elif terminal is not None:
        out.how = "terminal"
        out.value_played = Value(float(terminal["win_probability"]),
                                 float(terminal["expected_margin"]))
    elif after_view is not None:
        again = _result_json(search(after_view, budget, seed=seed + 1))
        if again.get("moves"):
            out.how = "continuation"
            out.value_played = _value(again["moves"][0])
    else:  # it ended the turn (an end, a claim) where the search had not tried it
        again = _result_json(search(view, budget, seed=seed + 1, moves=[(action,)]))
        if again.get("moves") and again["moves"][0].get("visits", 1) > 0:
            out.how = "played"
            out.value_played = _value(again["moves"][0])
            played_move = [action.notation()]
    if out.value_played is None:
        return out
    _rate(out)
    if out.label is not None and played_move is not None:
        _measure_again(out, view, played_move, _deeper(budget), seed + 2, search)
    return out


AGAIN_FACTOR = 4  # a labelled loss is measured again with this many times the budget
# the most one reviewed decision searches: the position, the move played alone (or the
# position after it), then a labelled loss again at AGAIN_FACTOR times the budget
REVIEW_SEARCHES = 3
REVIEW_BUDGETS = 2 + AGAIN_FACTOR


def _deeper(budget: Any) -> Any:
    """The budget of a labelled loss's second search: ``AGAIN_FACTOR`` times the
    decision's (a Budget; anything else, a test's stand-in, as it is)."""
    from .search.api import Budget

    if not isinstance(budget, Budget):
        return budget
    if budget.iterations is not None:
        return Budget(iterations=budget.iterations * AGAIN_FACTOR)
    return Budget(seconds=budget.seconds * AGAIN_FACTOR)


def _rate(out: DecisionReview) -> None:
    """The loss and label of ``out`` from its values (the value before never below the
    value of the move played)."""
    if out.value_before is None or _rank(out.value_played) > _rank(out.value_before):
        out.value_before = out.value_played
    out.loss_win_pct = round(max(0.0, 100.0 * (out.value_best.win_probability
                                               - out.value_played.win_probability)), 2)
    out.loss_points = round(max(0.0, out.value_best.expected_margin
                                - out.value_played.expected_margin), 2)
    out.label = label_for(out.loss_win_pct, out.loss_points)


def _measure_again(out: DecisionReview, view: PlayerView, played_move: list[str],
                   budget: Any, seed: int, search: Callable) -> None:
    """A labelled loss measured again by a fresh search of just the two moves, best and
    played, with a larger budget (:func:`_deeper`): the best of many short estimates is
    the luckiest one (it rates above its truth on average) and a move with few visits is
    noisy, so the first search alone calls good moves mistakes. The second search's two
    values replace the first's, unless it left one of the moves unvisited; when it rates
    the played move at least as high, that move is the best found (no loss)."""
    pair = [tuple(parse_action(a) for a in out.best),
            tuple(parse_action(a) for a in played_move)]
    result = _result_json(search(view, budget, seed=seed, moves=pair))
    values = {}
    for m in result.get("moves") or []:
        if m.get("actions") and m.get("visits", 1) > 0:
            first = parse_action(m["actions"][0])
            values["played" if same_decision(pair[1][0], first) else "best"] = _value(m)
    if len(values) == 2:
        out.measured_again = True
        out.value_best, out.value_played = values["best"], values["played"]
        if _rank(out.value_played) >= _rank(out.value_best):  # the played move was best
            out.best, out.value_best = list(played_move), out.value_played
        _rate(out)


def decision_points(record: GameRecord, seats: Iterable[int] | None = None,
                    max_decisions: int | None = None) -> list[DecisionPoint]:
    """Every decision of ``record`` (each action, checked by the rules), optionally only
    those of ``seats``. Raises RecordError for an illegal record and AnalysisError when
    there are more than ``max_decisions``."""
    wanted = None if seats is None else set(seats)
    if wanted is not None:
        bad = sorted(s for s in wanted if not 0 <= s < record.players)
        if bad:
            raise AnalysisError("seats", f"seat {bad[0]} does not exist in a "
                                f"{record.players}-player game")
    points = []
    steps = list(record.states())
    for i, (state, action) in enumerate(steps[:-1]):
        if wanted is not None and state.current not in wanted:
            continue
        points.append(DecisionPoint(i, state.current, state, action, steps[i + 1][0],
                                    len(legal_actions(state))))
    if max_decisions is not None and len(points) > max_decisions:
        raise AnalysisError("record", f"{plural(len(points), 'decision')} to review, more "
                            f"than the limit of {max_decisions}")
    return points


def forced_review(point: DecisionPoint) -> DecisionReview:
    return DecisionReview(index=point.index, seat=point.seat, turn=point.state.turn,
                          phase=point.state.phase.name.lower(),
                          played=point.action.notation(), legal=point.legal, how="forced",
                          drawn=point.drawn)


def summarise(record: GameRecord, reviews: list[DecisionReview], budget: dict[str, Any],
              seed: int, final_state: GameState | None = None) -> Review:
    """Per-player accuracy and label counts over the reviewed decisions."""
    players = []
    names = record.names or [None] * record.players
    for seat in range(record.players):
        mine = [r for r in reviews if r.seat == seat]
        rated = [r for r in mine if r.rated]
        summary = PlayerSummary(
            seat=seat, name=names[seat] if seat < len(names) else None,
            decisions=len(rated), forced=sum(1 for r in mine if r.how == "forced"),
            unrated=sum(1 for r in mine if r.how == "unrated"),
            accuracy=_mean(move_accuracy(r.loss_win_pct) for r in rated),
            mean_loss_win_pct=_mean(r.loss_win_pct for r in rated),
            mean_loss_points=_mean(r.loss_points for r in rated))
        summary.inaccuracies = sum(1 for r in rated if r.label == "inaccuracy")
        summary.mistakes = sum(1 for r in rated if r.label == "mistake")
        summary.blunders = sum(1 for r in rated if r.label == "blunder")
        players.append(summary)
    scores = None
    if final_state is not None and final_state.phase == Phase.OVER:
        scores = [s.total for s in final_scores(final_state).scores]
    return Review(reviews, players, scores, budget, seed)


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return round(sum(values) / len(values), 2) if values else None


def analyse_record(record: GameRecord, budget: Any, seed: int = 0,
                   progress: Callable[[int, int], None] | None = None,
                   search: Callable | None = None, seats: Iterable[int] | None = None,
                   max_decisions: int | None = None) -> Review:
    """Review every decision of ``record`` (or of ``seats``) with ``budget`` per decision
    (a :class:`solver.search.api.Budget`); ``progress(done, total)`` after each one.
    Decision ``i`` is searched with seed ``seed * 1000003 + i``: same seed, same review
    (with an iteration budget)."""
    points = decision_points(record, seats, max_decisions)
    reviews = []
    for done, point in enumerate(points, 1):
        if point.legal <= 1:
            review = forced_review(point)
        else:
            after_view = point.after_view
            review = point.placed(review_decision(
                point.view, point.action, after_view, point.terminal, budget,
                decision_seed(seed, point.index), search))
        reviews.append(review)
        if progress is not None:
            progress(done, len(points))
    final = record.replay() if record.actions else None
    return summarise(record, reviews, _budget_json(budget), seed, final)


def _budget_json(budget: Any) -> dict[str, Any]:
    if isinstance(budget, dict):
        return dict(budget)
    return {k: getattr(budget, k) for k in ("iterations", "seconds") if hasattr(budget, k)}


# ------------------------------------------------------------------ CLI: bigsur analyze

def format_review(review: Review) -> str:
    """The rated decisions as a readable table, numbered from 1 as the HTML report's
    moves (the accuracy lines are :func:`accuracy_line`)."""
    lines = [f"{'#':>4}  {'seat':>4}  {'played':28} {'better move':28} {'win-% lost':>11} "
             f"{'pts lost':>9}  label"]
    for d in review.decisions:
        if not d.rated:
            continue
        best = better_move(d) or "—"
        lines.append(f"{d.index + 1:>4}  {d.seat:>4}  {_cell(d.played, 28)} {_cell(best, 28)} "
                     f"{number(d.loss_win_pct):>11} {number(d.loss_points):>9}  "
                     f"{d.label or ''}")
    lines.append("")
    return "\n".join(lines)


def _cell(text: str, width: int) -> str:
    """``text`` in a column of ``width`` characters, cut with an ellipsis when longer (a
    cut payment, 'pay rec sub:H40+', read as a whole one)."""
    return (text if len(text) <= width else text[:width - 1] + "\u2026").ljust(width)


def accuracy_line(player, name: str) -> str:
    """One player's accuracy (a score out of 100) and labelled-move counts, as the CLI and
    report print them."""
    acc = "-" if player.accuracy is None else f"{player.accuracy:.1f}/100"
    return (f"{name}: accuracy {acc}, {plural(player.inaccuracies, 'inaccuracy', 'inaccuracies')}"
            f", {plural(player.mistakes, 'mistake')}, {plural(player.blunders, 'blunder')} "
            f"({plural(player.decisions, 'rated decision')})")
