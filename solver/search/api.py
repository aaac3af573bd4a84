"""The one entry point of the search: ranked moves for a position.

Used by ``bigsur hint``, the HTTP server and the game analysis::

    result = analyse(state_or_view, Budget(iterations=2000), seed=1)
    result.to_json()   # {"seat", "moves": [...best first], "stats": {...}}

A full :class:`GameState` is first reduced to the view of the seat to act: search never
sees hidden cards. With a seed and an iteration budget the result is reproducible
(also with ``workers > 1``: the iterations are split over the workers, each with its
own seed); a time budget gives every worker that much wall time.

Each move is a whole decision of the game: one take, or a build step (builds with
their payments, then a claim or ``end``). ``actions`` apply in sequence with
:func:`solver.rules.engine.play` from the position.
"""

from __future__ import annotations

import json
import logging
import random
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from ..rules.actions import (
    Action,
    ActionError,
    Build,
    Claim,
    Discard,
    End,
    IllegalActionError,
    Substitute,
    Take,
)
from ..rules.constants import SCENERIES
from ..rules.explain import _seat_words, explain_move  # (seats as its reasons say them)
from ..rules.state import GameState, Phase
from ..rules.views import PlayerView, view_of
from ..rules.wording import got, got_type, plural
from .determinize import Determinizer, InconsistentViewError
from .ismcts import DEFAULT_PARAMS, PairedGap, SearchParams, concrete_move, search
from .specs import MAX_SECONDS, MAX_WORKERS, workers_problem

log = logging.getLogger(__name__)

__all__ = ["Budget", "BudgetError", "GameOverError", "NotToActError", "InconsistentViewError",
           "RankedMove", "SearchResult", "analyse", "add_cli"]


class BudgetError(ValueError):
    """A search budget that is not exactly one positive number of iterations or seconds."""


class GameOverError(ValueError):
    """The position is a finished game: there is no move to search."""


class NotToActError(ValueError):
    """A view of a seat that is not the one to act (search plays the seat to act)."""


@dataclass(frozen=True)
class Budget:
    """How long to search: exactly one of ``iterations`` (reproducible with a seed) and
    ``seconds`` (wall time, per worker).

    A time budget is a target, not a deadline: it counts from the start of the search,
    set-up included (ranking the candidate moves, solving a last build step exactly), and
    ends at the first iteration past it. The set-up grows with the hand and is done
    whatever the budget, so a short budget at a large hand overruns (0.05 s took 0.46 s
    at a 20-card hand); a caller with a hard deadline allows for it.
    ``Budget.parse("500i")`` / ``Budget.parse("1.5s")`` read the text form.
    """

    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self):
        if (self.iterations is None) == (self.seconds is None):
            raise BudgetError("budget: give exactly one of iterations and seconds, got "
                              f"iterations={self.iterations!r}, seconds={self.seconds!r}")
        if self.iterations is not None and (isinstance(self.iterations, bool) or not isinstance(
                self.iterations, int) or self.iterations < 1):
            raise BudgetError(f"budget.iterations: must be a positive integer"
                              f"{got(self.iterations)}")
        if self.seconds is not None and (isinstance(self.seconds, bool) or not isinstance(
                self.seconds, (int, float)) or not 0 < self.seconds < 86_400):
            raise BudgetError(f"budget.seconds: must be a positive number of seconds"
                              f"{got(self.seconds)}")

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``"500i"`` (iterations) or ``"1.5s"`` (seconds), in the strict grammar of
        :mod:`solver.search.specs` (no case folding, spaces, signs or exponents)."""
        from .specs import SpecError, parse_budget

        try:
            b = parse_budget(text)
        except SpecError as err:  # "budget must be ...", not "budget: budget must be"
            raise BudgetError(err.reason if err.reason.startswith(f"{err.field} ")
                              else str(err)) from None
        return cls(iterations=b.iterations, seconds=b.seconds)

    def scaled(self, share: float) -> Budget:
        """A fraction of this budget (at least one iteration / a millisecond)."""
        if self.iterations is not None:
            return Budget(iterations=max(1, round(self.iterations * share)))
        return Budget(seconds=max(0.001, self.seconds * share))

    def to_json(self) -> dict[str, Any]:
        return {"iterations": self.iterations} if self.iterations is not None \
            else {"seconds": self.seconds}


@dataclass
class RankedMove:
    """One candidate move of the seat to act, with what the search found of it.

    - ``actions``: the move in notation, a whole decision: one take, or a build step
      (builds with explicit payments, then a claim or ``end``); they apply in order with
      :func:`solver.rules.engine.play` from the position searched.
    - ``label``: the move in a sentence, for people.
    - ``visits``: the search iterations that went through this move (the moves are
      ranked by visits: the most searched is the best).
    - ``win_probability``: the seat's mean win share over those iterations, 0 to 1: 1 for
      a win, 1/k for a k-way tie, 0 for a loss, at the end of the game or as the value
      model estimates it where a playout stops.
    - ``expected_margin``: the mean of the seat's final score minus the best other
      seat's (estimated in the same way), in points.
    - ``payment``: per build its steps and the hand cards spent (None for a take).
    - ``line``: the continuation the search expects after this move (the most visited
      path, in notation); past the seat's own decision it can name cards of a sampled
      deal, the search's guesses.
    - ``exact_score``: the seat's final score when the move is its last build step,
      solved exactly (:attr:`exact`); else None.
    - ``score_change``: what a build step adds now to the seat's score, by category
      (None for a take or a bare ``end``).
    - ``reasons``: what the move does for the seat, up to 3 short sentences read from
      its view only.
    - ``versus_top``: how sure the search is that the first move is better than this
      one (:class:`~solver.search.ismcts.PairedGap`: the rounds both played on the same
      sampled deals, the gap in standard errors, and whether it is clear); None for the
      first move, or when the search did not race its candidates or had too few rounds.
      A race gives its last candidates equal visits, so visits alone cannot say it.
    """

    actions: list[str]
    label: str
    visits: int
    win_probability: float
    expected_margin: float
    payment: dict[str, Any] | None
    line: list[str]
    exact_score: int | None = None  # the last build step solved exactly: final score
    score_change: dict[str, int] | None = None  # what a build step adds now (score_change)
    reasons: list[str] = field(default_factory=list)  # what it does: move_reasons
    versus_top: PairedGap | None = None  # the race's paired test against the first move

    @property
    def exact(self) -> bool:
        """Whether the move is proved best for the seat's own score (its last build
        step: every payable build sequence, order, side and claim was scored)."""
        return self.exact_score is not None

    def to_json(self) -> dict[str, Any]:
        out = {"actions": list(self.actions), "label": self.label, "visits": self.visits,
               "win_probability": round(self.win_probability, 4),
               "expected_margin": round(self.expected_margin, 3),
               "payment": self.payment, "line": list(self.line), "exact": self.exact}
        if self.exact:
            out["final_score"] = self.exact_score
        out["score_change"] = None if self.score_change is None else dict(self.score_change)
        out["reasons"] = list(self.reasons)
        out["versus_top"] = None if self.versus_top is None else self.versus_top.to_json()
        return out


@dataclass
class SearchResult:
    """What :func:`analyse` found: ``seat`` (the seat to act, searched for), ``moves``
    (every candidate, a :class:`RankedMove` each, best first: most visits) and ``stats``
    (``iterations`` run, wall ``seconds``, ``determinizations`` sampled, ``workers``).
    :attr:`best` is the first move, :meth:`best_actions` its actions as values;
    :meth:`to_json` is the JSON of ``bigsur hint`` and the HTTP API."""

    seat: int
    moves: list[RankedMove]  # best first
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def best(self) -> RankedMove:
        """The best move: the most visited."""
        return self.moves[0]

    def best_actions(self) -> list[Action]:
        """The best move's actions as Action values, to :func:`play` in order."""
        return [Action.parse(a) for a in self.moves[0].actions]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "moves": [m.to_json() for m in self.moves],
                "stats": dict(self.stats)}


def to_view(position: GameState | PlayerView) -> PlayerView:
    """The view search works on: a state's seat to act, or the given view (which must
    be of the seat to act). Raises GameOverError / NotToActError / InconsistentViewError."""
    if isinstance(position, GameState):
        if position.phase == Phase.OVER:
            raise GameOverError("position: the game is over; there is no move to search")
        return view_of(position, position.current)
    if not isinstance(position, PlayerView):
        raise TypeError(f"position must be a GameState or a PlayerView, got "
                        f"{type(position).__name__}")
    if position.phase == Phase.OVER:
        raise GameOverError("position: the game is over; there is no move to search")
    if position.current != position.seat:
        raise NotToActError(f"view_of: the view is of seat {position.seat} but seat "
                            f"{position.current} is to act; search the view of the seat to act")
    Determinizer(position)  # raises InconsistentViewError naming the problem
    return position


def analyse(position: GameState | PlayerView, budget: Budget, seed: int | None = None,
            workers: int = 1, params: SearchParams = DEFAULT_PARAMS,
            moves: list[tuple[Action, ...]] | None = None) -> SearchResult:
    """Rank every candidate move of the seat to act (see the module doc); ``moves``: rank
    these instead (each a whole decision, e.g. ``[(End(),)]``), so that a move the
    search would not have tried gets a value too (a review's move played)."""
    if not isinstance(budget, Budget):
        raise BudgetError(f"budget: must be a Budget{got_type(budget)}")
    if problem := workers_problem("workers", workers):
        raise BudgetError(problem)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise BudgetError(f"seed: must be an integer or None, got {seed!r}")
    view = to_view(position)
    sample = Determinizer(view).sample(random.Random(0))
    if moves is not None:
        _check_moves(sample, moves)
    out = search(view, budget.iterations, budget.seconds, 0 if seed is None else seed,
                 workers, params, moves)
    moves = []
    for m in out.moves:
        actions = concrete_move(sample, m.move)
        moves.append(RankedMove(
            actions=[a.notation() for a in actions], label=describe_move(sample, actions),
            visits=m.visits, win_probability=m.win_probability,
            expected_margin=m.expected_margin,
            payment=payment_plan(sample, actions, view.seat),
            line=m.line, exact_score=out.exact_score if not moves else None,
            score_change=score_change(sample, actions, view.seat),
            reasons=move_reasons(view, actions), versus_top=m.versus_top))
    stats = {"iterations": out.iterations, "seconds": round(out.seconds, 4),
             "determinizations": out.determinizations, "workers": out.workers}
    return SearchResult(view.seat, moves, stats)


def _check_moves(sample: GameState, moves: Any) -> None:
    """Each of ``moves`` a tuple of Actions that the seat to act may play in turn from
    ``sample`` (a state of its view: its own cards and the public ones are the view's),
    or IllegalActionError naming ``moves[i]``: an illegal move was ranked as if it had
    been played (a take in the build step, 83% to win)."""
    from ..rules.engine import play

    if not isinstance(moves, (list, tuple)) or not moves:
        raise IllegalActionError(f"moves: must be a non-empty list of moves, each a tuple "
                                 f"of Actions such as (End(),){got_type(moves)}")
    for i, move in enumerate(moves):
        if not isinstance(move, tuple) or not move or \
                not all(isinstance(a, Action) for a in move):
            raise IllegalActionError(f"moves[{i}]: must be a tuple of Actions such as "
                                     f"(End(),), got {move!r}")
        state = sample
        for action in move:
            try:
                state = play(state, action)
            except ActionError as err:
                raise IllegalActionError(f"moves[{i}]: {err}") from None


# ------------------------------------------------------------------ describing moves

def _card_words(state: GameState, card_id: str) -> str:
    cards = state.cards
    c = cards.card(card_id)
    sc = "/".join(SCENERIES[s] for s in cards.scenery[c])
    return f"{card_id} ({cards.miles[c]} mi, {sc})"


def describe_move(state: GameState, actions: list[Action]) -> str:
    """A readable sentence for a move (``state``: the position it is played from). A bare
    end says "without building more": a position does not record whether its seat has
    built earlier in this build step."""
    parts = []
    for a in actions:
        if isinstance(a, Take):
            parts.append("take the top card of the deck" if a.card is None
                         else f"take {_card_words(state, a.card)} from the Depot")
        elif isinstance(a, Build):
            side = "left" if a.side == "L" else "right"
            parts.append(f"build {_card_words(state, a.card)} at the {side} end")
        elif isinstance(a, Claim):
            name = state.cards.landmarks[state.cards.landmark(a.landmark)].name
            parts.append(f"claim {a.landmark} ({name}) above {a.card}")
        elif isinstance(a, End):
            parts.append("end the turn" if parts else "end the turn without building more")
    text = ", ".join(parts)
    return text[:1].upper() + text[1:]


def payment_plan(state: GameState, actions: list[Action],
                 viewer: int | None = None) -> dict[str, Any] | None:
    """The payment of a move's builds, explained step by step (what each step supplies,
    the cards spent, the discard top left): :meth:`solver.rules.payment.JointPlan.to_json`
    of the move's payments, as ``viewer`` may see it. None for a move without builds."""
    from ..rules.payment import explain_payments

    builds = [a for a in actions if isinstance(a, Build)]
    if not builds:
        return None
    cards = state.cards
    pairs = [(cards.card(b.card), b.side) for b in builds]
    out = explain_payments(state, pairs, [b.payment or () for b in builds], viewer)
    spent = 0
    for b in builds:
        for step in b.payment or ():
            spent += 3 if isinstance(step, Substitute) else 1 if isinstance(step, Discard) else 0
    out["cards_spent"] = spent
    return out


def score_change(state: GameState, actions: list[Action], seat: int) -> dict[str, int] | None:
    """What a build step adds to ``seat``'s score as its Highway stands (Final Scoring
    applied before and after it): the change of each category and of the total, e.g.
    ``{"total": 5, "stretches": 3, "bonuses": 2, "landmark_count": 0,
    "landmark_abilities": 0}``. None for a take, or a build step that builds and claims
    nothing. It does not depend on the hidden cards ``state`` was sampled with: the
    builds come from the seat's own hand and scoring reads only its Highway and
    Landmarks. Why a move is good in the game's own terms, beside its win chance."""
    if not any(isinstance(a, (Build, Claim)) for a in actions):
        return None
    from ..rules.engine import apply_inplace
    from ..rules.scoring import score_player

    before = score_player(state.cards, state.players[seat], details=False).to_json()
    after_state = state.copy()
    for action in actions:
        apply_inplace(after_state, action)
    after = score_player(state.cards, after_state.players[seat], details=False).to_json()
    return {k: after[k] - before[k] for k in before if k != "details"}


def move_reasons(view: PlayerView, actions: list[Action]) -> list[str]:
    """What a move does for the seat, in short sentences
    (:func:`solver.rules.explain.explain_move` on the seat's view). Never fails a hint:
    an error in the explanation gives no reasons (logged), the move keeps its numbers."""
    try:
        return explain_move(view, tuple(actions))
    except Exception:  # an explanation is a courtesy: a bug in it must not lose the hint
        log.exception("explaining %s failed", " ; ".join(a.notation() for a in actions))
        return []


CATEGORY_WORDS = (("stretches", "Stretches"), ("bonuses", "2-Mile bonuses"),
                  ("landmark_count", "Landmarks held"),
                  ("landmark_abilities", "Landmark abilities"))


def score_change_words(change: dict[str, int]) -> str:
    """A :func:`score_change` in words, the categories that moved in brackets:

    >>> score_change_words({"total": 5, "stretches": 3, "bonuses": 2, "landmark_count": 0,
    ...                     "landmark_abilities": 0})
    'your score as it stands: +5 (Stretches +3, 2-Mile bonuses +2)'
    """
    parts = [f"{words} {change[key]:+d}" for key, words in CATEGORY_WORDS if change.get(key)]
    return (f"your score as it stands: {change['total']:+d}"
            + (f" ({', '.join(parts)})" if parts else ""))


# ------------------------------------------------------------------ CLI: bigsur hint

# the bound within which a PairedGap's standard errors are held (+-999, ismcts)
GAP_BOUND = 999.0


def versus_top_words(gap: PairedGap) -> str:
    """A move's :class:`~solver.search.ismcts.PairedGap` in words, for the table; one
    behind (or ahead) by the same amount on every round says so, with no number of
    standard errors; a finite gap held at :data:`GAP_BOUND` says "999 or more".

    >>> versus_top_words(PairedGap(192, 20.36, True))
    'against #1: clearly behind on 192 shared rounds (20.4 standard errors)'
    >>> versus_top_words(PairedGap(24, 999.0, True, every_round=True))
    'against #1: behind on every one of 24 shared rounds'
    >>> versus_top_words(PairedGap(2000, 999.0, True))
    'against #1: clearly behind on 2000 shared rounds (999 or more standard errors)'
    >>> versus_top_words(PairedGap(6, 0.0, False, alike=True))
    'against #1: scored alike on 6 shared rounds'
    """
    if gap.alike:
        return f"against #1: scored alike on {gap.rounds} shared rounds"
    if gap.every_round:
        side = "behind" if gap.standard_errors > 0 else "ahead"
        return f"against #1: {side} on every one of {gap.rounds} shared rounds"
    verdict = "clearly behind" if gap.clear else "not yet told apart"
    size = "999 or more" if abs(gap.standard_errors) >= GAP_BOUND \
        else f"{gap.standard_errors:.1f}"
    return f"against #1: {verdict} on {gap.rounds} shared rounds ({size} standard errors)"


# The page's bar for a verdict (server/static/js/words.js, ``confidence()``): visits the
# top move needs without a race, and rounds in common under which a race's paired test
# that has not told two moves apart says too little.
FEW_VISITS = 100
FEW_ROUNDS = 30
LISTED = 4  # the moves the page's hint lists and judges (``listedMoves``)


def too_few_words(result: SearchResult) -> str | None:
    """The caution under the table when the search's numbers are too thin to tell its
    top moves apart, by the page's rule (its "too few iterations to tell", ``confidence()``
    in server/static/js/words.js, on the :data:`LISTED` moves it shows): after a race, the
    paired test (:func:`versus_top_words`) against the move least told apart from the
    first is not clear on fewer than :data:`FEW_ROUNDS` rounds; without one, the top move
    has fewer than :data:`FEW_VISITS` visits. None when it can tell, or with fewer than two
    moves.

    >>> m = RankedMove(["take deck"], "Take", 1, 0.5, 0.0, None, [])
    >>> too_few_words(SearchResult(0, [m, m], {"iterations": 5}))  # doctest: +ELLIPSIS
    'Too few iterations to tell the top moves apart (5 iterations): only 1 visit for ...'
    """
    if len(result.moves) < 2:
        return None
    first, *others = result.moves[:LISTED]
    tested = [(k, m.versus_top) for k, m in enumerate(others, 2) if m.versus_top is not None]
    apart = [(k, gap) for k, gap in tested if not gap.alike]
    if tested and not apart:  # the top moves scored alike: either is fine
        return None
    if apart:
        k, gap = min(apart, key=lambda kg: kg[1].standard_errors)
        if gap.clear or gap.rounds >= FEW_ROUNDS:
            return None
        why = (f"#1 and #{k} are not yet told apart on {plural(gap.rounds, 'shared round')} "
               f"(a verdict needs a clear lead or {FEW_ROUNDS} rounds)")
    elif first.visits >= FEW_VISITS:
        return None
    else:
        why = (f"only {plural(first.visits, 'visit')} for the top move (a verdict needs "
               f"{FEW_VISITS})")
    return (f"Too few iterations to tell the top moves apart "
            f"({plural(result.stats['iterations'], 'iteration')}): {why}; search longer "
            "(a larger --iterations or --seconds)")


def format_table(result: SearchResult, top: int | None = None) -> str:
    """The ranked moves as a readable table (``top``: only the first moves), and under
    it the caution of :func:`too_few_words` when the numbers are too thin to trust."""
    lines = [f"{_seat_words(result.seat)} to act. {result.stats['iterations']} iterations in "
             f"{result.stats['seconds']:.2f} s ({result.stats['workers']} worker(s))", "",
             f"{'#':>2}  {'visits':>6}  {'win%':>5}  {'margin':>6}  move"]
    for i, m in enumerate(result.moves[:top] if top else result.moves, 1):
        lines.append(f"{i:>2}  {m.visits:>6}  {100 * m.win_probability:>5.1f}  "
                     f"{m.expected_margin:>+6.1f}  {m.label}")
        if m.exact:
            lines.append(f"{'':>26}exact: the best last build step, final score "
                         f"{m.exact_score}")
        if m.score_change is not None:
            lines.append(f"{'':>26}{score_change_words(m.score_change)}")
        if m.reasons:
            lines.append(f"{'':>26}why: {'; '.join(m.reasons)}")
        if m.versus_top is not None:
            lines.append(f"{'':>26}{versus_top_words(m.versus_top)}")
        lines.append(f"{'':>26}{' ; '.join(m.actions)}")
        if m.line:
            lines.append(f"{'':>26}then: {' ; '.join(m.line)}")
    if caution := too_few_words(result):
        lines += ["", caution]
    return "\n".join(lines)


def _option_problem(args) -> str | None:
    """What is wrong with ``bigsur hint``'s numbers, naming the option typed (Budget and
    :func:`analyse` name their own fields, budget.iterations or workers), else None."""
    if args.top is not None and args.top < 1:  # 0 would have shown every move
        return f"--top: at least 1{got(args.top)}"
    if args.seconds is not None and not 0 < args.seconds < MAX_SECONDS:  # nan too
        return (f"--seconds: must be positive and less than a day ({MAX_SECONDS:.0f})"
                f"{got(args.seconds)}")
    if problem := workers_problem("--workers", args.workers):
        return problem
    return None


TICK = 0.25  # seconds between two redraws of the search's progress line


@contextmanager
def _progress_line(budget: Budget, stream=None) -> Iterator[None]:
    """While the body runs (a search): "searching... 1.2 s of 5 s" on ``stream``
    (stderr), redrawn with \\r every :data:`TICK` and erased at the end; only on a
    terminal, as the progress of analyze, tournament and train (a pipe or a file gets
    nothing)."""
    stream = stream or sys.stderr
    if not (hasattr(stream, "isatty") and stream.isatty()):
        yield
        return
    of = (f"of {budget.seconds:g} s" if budget.seconds is not None
          else f"({budget.iterations} iterations)")
    start, done, shown = time.monotonic(), threading.Event(), 0

    def redraw() -> None:
        nonlocal shown
        while not done.wait(TICK):
            text = f"searching... {time.monotonic() - start:.1f} s {of}"
            stream.write("\r" + text.ljust(shown))
            stream.flush()
            shown = len(text)

    ticker = threading.Thread(target=redraw, name="hint-progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
        if shown:
            stream.write("\r" + " " * shown + "\r")
            stream.flush()


def cmd_hint(args) -> int:
    problem = _option_problem(args)
    if problem is not None:
        print(f"bigsur: error: {problem}", file=sys.stderr)
        return 2
    from ..cli import load_position  # (the command line's file reader: not for library users)

    position = load_position(args.position, args.cards, views=True)
    budget = Budget(seconds=args.seconds) if args.seconds is not None else \
        Budget(iterations=args.iterations if args.iterations is not None else 1000)
    try:
        with nullcontext() if args.json else _progress_line(budget):  # JSON: for scripts
            result = analyse(position, budget, seed=args.seed, workers=args.workers)
    except (BudgetError, GameOverError, NotToActError, InconsistentViewError) as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    if args.json:  # the seed searched with, as the service's hints answer it
        result.moves = result.moves[:args.top]
        print(json.dumps({**result.to_json(), "seed": args.seed}, indent=1))
    else:  # (the caution under the table reads the moves --top leaves out too)
        print(format_table(result, args.top))
        print(f"\nseed {args.seed}: the same position, seed and iteration budget give this "
              "answer again")
    return 0


def add_cli(sub) -> None:
    """Register ``bigsur hint`` on the CLI's subparsers."""
    from ..cli import MAX_ITERATIONS, count_arg, seed_arg  # (one type a kind of number)

    p = sub.add_parser("hint", help="rank the moves of the seat to act (ISMCTS)",
                       description="Search a position (full state or one seat's view) and "
                       "print the moves of the seat to act, best first. On a terminal "
                       "(without --json) a line on stderr shows the search's time.")
    p.add_argument("position", help="bigsur-position/1 or bigsur-view/1 JSON file")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--iterations", type=count_arg("--iterations", MAX_ITERATIONS),
                       help=f"search iterations, 1 to {MAX_ITERATIONS} (default 1000)")
    group.add_argument("--seconds", type=float, help="search time per worker, in seconds")
    p.add_argument("--seed", type=seed_arg, default=0,
                   help="random seed, 0 to 2**63 - 1 (default 0)")
    p.add_argument("--workers", type=int, default=1,
                   help=f"processes (root parallelism), 1 to {MAX_WORKERS}")
    p.add_argument("--cards", help="card-set file (default: the position's own)")
    p.add_argument("--top", type=int, help="show only the K best moves")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_hint)

