"""Post-game review from the command line: a self-contained HTML report and a graph.

    bigsur analyze RECORD.json --html report.html --png graph.png [--iterations N]

The review is :func:`solver.analysis.analyse_record`, the same as the service's
``POST /v1/analyze`` (each decision judged from the acting player's view, labels
inaccuracy / mistake / blunder, per-player accuracy). A progress bar runs on stderr.
The graph (matplotlib) shows each seat's win probability, from its own decisions, over
the game (ending, when the game is over, at its result), with the labelled moves marked;
the HTML report embeds it as SVG, so the one file holds everything (no outside links).
"""

from __future__ import annotations

import html
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

from .analysis import (
    HOW_WORDS,
    LABELS,
    POINTS_THRESHOLDS,
    WIN_PCT_THRESHOLDS,
    AnalysisError,
    Review,
    accuracy_line,
    analyse_record,
    better_move,
    format_review,
    number,
    plural,
)
from .cli import check_output, load_record
from .rules.record import GameRecord, RecordError
from .rules.userfiles import OutputError, output_problem, write_output
from .rules.wording import got

SEAT_COLORS = ("#1f6fb2", "#c2185b", "#2e7d32", "#e07b00")
LABEL_COLORS = {"inaccuracy": "#d4a000", "mistake": "#e06000", "blunder": "#c62828"}
# a shape per label on the graph: its colours alone are too near the seats' (the orange
# of seat 3 and of a mistake, the red of seat 1 and of a blunder)
LABEL_MARKERS = {"inaccuracy": "o", "mistake": "s", "blunder": "D"}
LABEL_SIZES = {"inaccuracy": 30, "mistake": 40, "blunder": 50}
# the service's default per-decision budget (BIGSUR_ANALYSIS_BUDGET_MS)
DEFAULT_BUDGET_MS = 100


class ReportError(ValueError):
    """A bad option of ``bigsur analyze``; names the option."""


def seat_name(record: GameRecord, seat: int) -> str:
    names = record.names or []
    name = names[seat] if seat < len(names) and names[seat] else None
    return f"Seat {seat}" + (f" ({name})" if name else "")


# ------------------------------------------------------------------ the graph

def win_graph(review: Review, record: GameRecord):
    """The win-probability figure (a matplotlib Figure, no pyplot state)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(10, 4), dpi=100)
    ax = fig.add_subplot()
    n = max(1, len(record.actions))
    shares = None  # a finished game: each line ends at the result (its win share)
    if review.final_scores is not None:
        from .search.tournament import win_shares

        shares = win_shares(review.final_scores)
    for seat in range(record.players):
        mine = [d for d in review.decisions if d.seat == seat and d.value_before is not None]
        if not mine:
            continue
        color = SEAT_COLORS[seat % len(SEAT_COLORS)]
        xs = [d.index + 1 for d in mine]
        ys = [100 * d.value_before.win_probability for d in mine]
        if shares is not None:
            xs.append(len(record.actions) + 1)
            ys.append(100 * shares[seat])
        ax.plot(xs, ys, color=color, linewidth=1.8, label=seat_name(record, seat))
        for label in LABELS:
            marked = [d for d in mine if d.label == label]
            if marked:
                ax.scatter([d.index + 1 for d in marked],
                           [100 * d.value_before.win_probability for d in marked],
                           s=LABEL_SIZES[label], marker=LABEL_MARKERS[label],
                           color=LABEL_COLORS[label], edgecolors=color, linewidths=1.5,
                           zorder=3)
    for label in LABELS:  # one legend entry per label, whoever made it
        ax.scatter([], [], s=LABEL_SIZES[label], marker=LABEL_MARKERS[label],
                   color=LABEL_COLORS[label], edgecolors="#555", linewidths=1.0, label=label)
    # an even chance is 1 in the number of players (50%, 33%, 25%), as on the web page
    even = 100 / record.players
    ax.axhline(even, color="#999", linewidth=0.8, linestyle="--",
               label=f"even chance (1 in {record.players}: {even:.0f}%)")
    ax.set_ylim(-3, 103)
    ax.set_xlim(0, n + 1)
    ax.set_ylabel("win probability (%)")
    ax.set_xlabel("move")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # no "move 2.5" on a short game
    turn_ticks = {}
    for d in review.decisions:
        turn_ticks.setdefault(d.turn, d.index + 1)
    top = ax.secondary_xaxis("top")
    ticks = sorted(turn_ticks.items())[::2]
    top.set_xticks([x for _t, x in ticks], labels=[str(t + 1) for t, _x in ticks])
    top.set_xlabel("turn")
    ax.grid(True, axis="y", color="#e4e4e4")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, fontsize=9)
    fig.tight_layout()
    return fig


def figure_svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prologue and DOCTYPE for inlining


# ------------------------------------------------------------------ the HTML

def _value(v) -> str:
    if v is None:
        return "&mdash;"
    margin = number(v.expected_margin, sign=True).replace("-", "&minus;")  # as the losses
    return f"{number(100 * v.win_probability)}% / {margin}"


def _loss(loss_win_pct: float, loss_points: float) -> str:
    """What a move lost against the best move found, in its units: "14.9 win-% / 8.6 pts"
    (losses are never below 0: no sign; a zero is "0.0")."""
    return f"{number(loss_win_pct)} win-% / {number(loss_points)} pts"


def render_html(review: Review, record: GameRecord, graph_svg: str, source: str) -> str:
    """The report as one HTML page (inline CSS and SVG; nothing fetched)."""
    e = html.escape
    budget = review.budget
    budget_text = (plural(budget["iterations"], "iteration") if budget.get("iterations")
                   else f"{budget.get('seconds', 0) * 1000:.0f} ms")
    rows = []
    for p in review.players:
        acc = "&mdash;" if p.accuracy is None else f"{p.accuracy:.1f}/100"
        loss = "&mdash;" if p.mean_loss_win_pct is None else \
            f"{number(p.mean_loss_win_pct)} win-% / {number(p.mean_loss_points)} pts"
        score = "" if review.final_scores is None else str(review.final_scores[p.seat])
        color = SEAT_COLORS[p.seat % len(SEAT_COLORS)]
        rows.append(f"<tr><th style='color:{color}'>{e(seat_name(record, p.seat))}</th>"
                    f"<td>{score}</td><td>{acc}</td><td>{p.inaccuracies}</td>"
                    f"<td>{p.mistakes}</td><td>{p.blunders}</td><td>{loss}</td>"
                    f"<td>{p.decisions}</td><td>{p.forced}</td><td>{p.unrated}</td></tr>")

    def decision_row(d) -> str:
        label = f"<span class='lab {d.label}'>{d.label}</span>" if d.label else \
            f"<span class='muted'>{e(d.how)}</span>"
        loss = "" if d.loss_win_pct is None else _loss(d.loss_win_pct, d.loss_points)
        better = better_move(d)
        color = SEAT_COLORS[d.seat % len(SEAT_COLORS)]
        return (f"<tr id='move-{d.index + 1}'><td>{d.index + 1}</td><td>{d.turn + 1}</td>"
                f"<td style='color:{color}'>{e(seat_name(record, d.seat))}</td>"
                f"<td><code>{e(d.played)}</code></td><td>{label}</td><td>{loss}</td>"
                f"<td>{_value(d.value_played)}</td>"
                + (f"<td><code>{e(better)}</code></td><td>{_value(d.value_best)}</td>"
                   if better else "<td>&mdash;</td><td>&mdash;</td>") + "</tr>")

    labelled = [d for d in review.decisions if d.label]
    head = ("<tr><th>#</th><th>turn</th><th>seat</th><th>played</th><th>label</th>"
            "<th>lost against the best move</th><th>value played (win-% / pts)</th>"
            "<th>better move</th><th>its value (win-% / pts)</th></tr>")
    thresholds = ", ".join(f"{lab} &ge; {w:g} win-% or {p:g} pts" for lab, w, p in
                           zip(LABELS, WIN_PCT_THRESHOLDS, POINTS_THRESHOLDS, strict=True))
    cards = record.cards
    winners = ""
    if review.final_scores:
        best = max(review.final_scores)
        names = ", ".join(seat_name(record, i) for i, s in enumerate(review.final_scores)
                          if s == best)
        winners = f"<p>Winner(s): {e(names)} with {plural(best, 'point')}.</p>"
    else:
        winners = "<p>The game is not over: no final scores.</p>"
    every = "".join(decision_row(d) for d in review.decisions)
    legend = "; ".join(f"<i>{how}</i>: {e(words)}" for how, words in HOW_WORDS.items())
    start = "from a set-up position" if record.seed is None else f"deal seed {record.seed}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Big Sur review: {e(Path(source).name)}</title>
<style>
body {{ font-family: system-ui, "DejaVu Sans", sans-serif; margin: 1.5rem auto; max-width: 1100px;
       color: #1d2327; padding: 0 1rem; }}
h1 {{ font-size: 1.5rem; }} h2 {{ font-size: 1.15rem; margin-top: 1.6rem; }}
table {{ border-collapse: collapse; font-size: 0.92rem; }}
th, td {{ border-bottom: 1px solid #dde; padding: 0.25rem 0.6rem; text-align: left; }}
code {{ font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.88em; }}
.muted {{ color: #667; }}
.legend {{ color: #667; font-size: 0.85rem; }}
.lab {{ color: #fff; border-radius: 4px; padding: 0 0.35em; font-weight: 600; font-size: 0.85em; }}
.lab.inaccuracy {{ background: {LABEL_COLORS['inaccuracy']}; }}
.lab.mistake {{ background: {LABEL_COLORS['mistake']}; }}
.lab.blunder {{ background: {LABEL_COLORS['blunder']}; }}
.recon {{ background: #ffcf70; border-radius: 4px; padding: 0 0.4em; }}
.graph svg {{ width: 100%; height: auto; }}
</style></head><body>
<h1>Big Sur review</h1>
<p>Record <code>{e(Path(source).name)}</code>: {record.players} players, {start},
{plural(len(record.actions), "action")}. Cards:
<span class="{'recon' if cards.reconstruction else ''}">{e(cards.label)}</span>.</p>
<p class="muted">Each decision is judged from the acting player's view at the time, with a
search of {e(budget_text)} per decision (review seed {review.seed}, <code>--seed</code>).
Labels: {thresholds}.
A move's value is the search's estimate for its player: the chance to win (win-%) and
the expected margin in points (pts: its final score minus the best other player's, + ahead,
&minus; behind); what a move lost is the best move's value minus the value played (never
below 0), in win-% points and in points of margin: &ldquo;14.9 win-% / 8.6 pts&rdquo;.
Accuracy is a score out of 100 (100: no rated decision lost any win-%): lichess's per-move
formula on the win-% lost, averaged over the player's rated decisions. Search values are
estimates: single labels are hints, not verdicts.</p>
<h2>Players</h2>
<table><thead><tr><th>seat</th><th>score</th><th>accuracy (of 100)</th><th>inaccuracies</th>
<th>mistakes</th><th>blunders</th><th>mean loss</th><th>rated</th><th>forced</th>
<th>unrated</th></tr></thead><tbody>{''.join(rows)}</tbody></table>
{winners}
<h2>Win probability over the game</h2>
<div class="graph">{graph_svg}</div>
<p class="muted">Each line is the search's estimate of one player's chance to win, at each
of its own decisions{' (ending at its result)' if review.final_scores else ''}; the markers
are its labelled moves. The dashed line is an even chance: 1 in {record.players}
({number(100 / record.players, digits=0)}%).</p>
<h2>Labelled moves ({len(labelled)})</h2>
{'<p>None.</p>' if not labelled else
 f"<table><thead>{head}</thead><tbody>{''.join(decision_row(d) for d in labelled)}</tbody></table>"}
<details><summary><h2 style="display:inline">Every decision ({len(review.decisions)})</h2></summary>
<table><thead>{head}</thead><tbody>{every}</tbody></table>
<p class='legend'>A move without a label says in grey how it was judged: {legend}.</p>
</details>
</body></html>
"""


# ------------------------------------------------------------------ the command

def budget_from_args(budget_ms: int | None, iterations: int | None):
    from .search.api import Budget
    from .search.specs import MAX_SECONDS

    if budget_ms is not None and iterations is not None:
        raise ReportError("--budget-ms/--iterations: give one of them, not both")
    if iterations is not None:
        if iterations < 1:
            raise ReportError(f"--iterations: must be positive{got(iterations)}")
        return Budget(iterations=iterations)
    ms = DEFAULT_BUDGET_MS if budget_ms is None else budget_ms
    if ms < 1:
        raise ReportError(f"--budget-ms: must be positive{got(ms)}")
    if ms >= 1000 * MAX_SECONDS:  # a search budget is less than a day (Budget)
        raise ReportError(f"--budget-ms: must be positive and less than a day "
                          f"({1000 * MAX_SECONDS:.0f}){got(ms)}")
    return Budget(seconds=ms / 1000.0)


def run(record_path: str, html_path: str | None, png_path: str | None,
        budget, seed: int = 0, json_path: str | None = None, progress: bool = True,
        out=None, table: bool = False, overwrite: bool = True) -> Review:
    """Analyse a record file and write the requested outputs; returns the review.
    An output that cannot be written does not stop the others: each is tried, the
    summary printed, then OutputError names every one that failed.
    ``table``: print the rated decisions (:func:`format_review`) before the summary.
    ``overwrite=False``: an output file that is there already is refused (--force not
    given), as :func:`cmd_analyze` checks before the review."""
    out = out or sys.stdout
    record = load_record(record_path)
    list(record.states())  # every action checked before the long part starts
    if progress:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with Progress(TextColumn("analysing"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TimeRemainingColumn(),
                      console=_stderr_console()) as bar:
            task = bar.add_task("decisions", total=len(record.actions))  # one per action
            review = analyse_record(record, budget, seed,
                                    progress=lambda done, total: bar.update(
                                        task, completed=done, total=total))
    else:
        review = analyse_record(record, budget, seed)
    failed: list[str] = []  # each output that can be written is, whichever fails

    def write(option: str, path: str, save: Callable[[], object], what: str) -> None:
        try:
            write_output(option, path, save, overwrite=overwrite)
        except OutputError as err:
            failed.append(str(err))
        else:
            print(f"{what} written to {path}", file=out)

    if png_path or html_path:
        fig = win_graph(review, record)
        if png_path:
            write("--png", png_path, lambda: fig.savefig(png_path, format="png"), "graph")
        if html_path:
            page = render_html(review, record, figure_svg(fig), record_path)
            write("--html", html_path,
                  lambda: Path(html_path).write_text(page, encoding="utf-8"), "report")
    if json_path:
        text = json.dumps(review.to_json(), indent=1) + "\n"
        write("--json", json_path,
              lambda: Path(json_path).write_text(text, encoding="utf-8"), "review")
    if table:
        print(format_review(review), file=out)
    print(summary_text(review, record), file=out)
    if failed:
        raise OutputError("; ".join(failed))
    return review


def _stderr_console():
    from rich.console import Console

    return Console(file=sys.stderr)


def summary_text(review: Review, record: GameRecord) -> str:
    return "\n".join(accuracy_line(p, seat_name(record, p.seat)) for p in review.players)


# the names each output may have: its data is written in that format whatever the name
SUFFIXES = {"--html": (".html", ".htm"), "--png": (".png",), "--json": (".json",)}


def cmd_analyze(args) -> int:
    try:
        budget = budget_from_args(args.budget_ms, args.iterations)
        for option, path in (("--html", args.html), ("--png", args.png), ("--json", args.json)):
            problem = path and output_problem(path)  # found before the review, not after
            if path and not problem and Path(path).resolve() == Path(args.record).resolve():
                problem = "is the record being reviewed (name another file)"
            if path and not problem and Path(path).suffix.lower() not in SUFFIXES[option]:
                # a PNG under an .svg name opens in no viewer
                problem = f"must end in {' or '.join(SUFFIXES[option])} (it is written as " \
                    f"{option[2:].upper()})"
            if problem:
                raise ReportError(f"{option} {path}: {problem}")
            if path:  # an earlier report only with --force
                check_output(option, path, args.force)
        run(args.record, args.html, args.png, budget, args.seed, args.json,
            progress=not args.no_progress, table=not (args.html or args.png or args.json),
            overwrite=args.force)
    except (ReportError, RecordError, AnalysisError, OutputError) as err:
        print(f"bigsur: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `bigsur analyze ... | head`: main() leaves quietly
        raise
    except OSError as err:
        print(f"bigsur: error: {err.filename}: {err.strerror}", file=sys.stderr)
        return 2
    return 0


def add_cli(sub) -> None:
    """Register ``bigsur analyze`` on the CLI's subparsers."""
    from .cli import MAX_ITERATIONS, count_arg, seed_arg  # (the one type of every --seed
    # and of every count)

    p = sub.add_parser("analyze", help="review a game record: HTML report and graph",
                       description="Review every decision of a record (the same analysis as "
                       "POST /v1/analyze) and write a self-contained HTML report and a "
                       "win-probability graph.")
    p.add_argument("record", help="bigsur-record/1 JSON file")
    p.add_argument("--html", help="write the HTML report here")
    p.add_argument("--png", help="write the win-probability graph (PNG) here")
    p.add_argument("--json", help="write the review itself (JSON) here")
    p.add_argument("--force", action="store_true",
                   help="overwrite an existing --html, --png or --json file")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--budget-ms", type=int, help=f"search time per decision, in "
                       f"milliseconds (default {DEFAULT_BUDGET_MS}, as the service)")
    group.add_argument("--iterations", type=count_arg("--iterations", MAX_ITERATIONS),
                       help=f"search iterations per decision, 1 to {MAX_ITERATIONS} "
                       "(reproducible with --seed)")
    p.add_argument("--seed", type=seed_arg, default=0,
                   help="review seed, 0 to 2**63 - 1 (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_analyze)
