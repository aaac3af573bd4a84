"""The one grammar of bot and budget specs (CLI, tournaments, the server).

::

    spec    := KIND [":" budget]            random | greedy | mcts:500i | mcts:1.5s
             | MODULE ":" CLASS             mypkg.bots:MyBot (only where a caller allows it)
    budget  := ITERATIONS "i" | SECONDS "s"
    KIND    := [a-z][a-z0-9-]*              a registered bot (see solver.search.bots)
    ITERATIONS := [1-9][0-9]*               no sign, no exponent, no "_", no leading zero
    SECONDS := (0 | [1-9][0-9]*) ["." [0-9]+]   and more than 0, less than a day

Nothing is normalised first: no case folding, no surrounding spaces. ``mcts:1000S``,
``mcts:1e3s``, `` mcts:1s``, ``mcts:1_000i`` and ``mcts:+1s`` are refused, so that what a
caller checks is exactly what is run. Limits (a server's caps) are applied after parsing,
on the numbers, by :func:`check_caps`.

>>> parse_bot_spec("mcts:1.5s").budget
BudgetSpec(iterations=None, seconds=1.5)
>>> parse_budget("500i")
BudgetSpec(iterations=500, seconds=None)
>>> try:
...     parse_bot_spec("mcts:1e3s")
... except SpecError as err:
...     print(err)
bot: 'mcts:1e3s': budget must be <iterations>i or <seconds>s (e.g. 500i, 1.5s), got '1e3s'
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..rules.wording import got, got_type

__all__ = ["BudgetSpec", "BotSpec", "SpecError", "parse_budget", "parse_bot_spec",
           "check_caps", "MAX_SECONDS", "MAX_WORKERS"]

MAX_SECONDS = 86_400.0  # exclusive: a budget is less than a day whatever the caller's caps
MAX_WORKERS = 64  # local processes of one search, tournament or self-play


def workers_problem(field: str, workers: object) -> str | None:
    """What is wrong with a count of local processes (``field`` names the option or the
    argument), or None: ``"--workers: must be an integer 1 to 64, got 0"``."""
    if isinstance(workers, bool) or not isinstance(workers, int) or \
            not 1 <= workers <= MAX_WORKERS:
        return f"{field}: must be an integer 1 to {MAX_WORKERS}{got(workers)}"
    return None

_BUDGET = re.compile(r"(?:(?P<iterations>[1-9][0-9]*)i|"
                     r"(?P<seconds>(?:0|[1-9][0-9]*)(?:\.[0-9]+)?)s)\Z")
_KIND = re.compile(r"[a-z][a-z0-9-]*\Z")
_IMPORT = re.compile(r"(?P<module>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
                     r":(?P<cls>[A-Za-z_][A-Za-z0-9_]*)\Z")
_MAX_LEN = 200


class SpecError(ValueError):
    """A spec outside the grammar, or beyond a cap. ``field`` names where it came from
    (``seats[1]``, ``bots``, ``budget``); ``kind`` is ``bot_spec`` or ``limit``."""

    def __init__(self, field: str, reason: str, kind: str = "bot_spec"):
        self.field = field
        self.reason = reason
        self.kind = kind
        super().__init__(f"{field}: {reason}")


@dataclass(frozen=True)
class BudgetSpec:
    """A parsed budget: exactly one of ``iterations`` and ``seconds``."""

    iterations: int | None = None
    seconds: float | None = None

    def text(self) -> str:
        return f"{self.iterations}i" if self.iterations is not None else f"{self.seconds:g}s"


@dataclass(frozen=True)
class BotSpec:
    """A parsed bot spec: a registered ``kind`` with an optional budget, or (``module``
    and ``cls`` set, ``kind == "import"``) a class to import."""

    text: str
    kind: str
    budget: BudgetSpec | None = None
    arg: str = ""
    module: str | None = None
    cls: str | None = None


def parse_budget(text: object, field: str = "budget") -> BudgetSpec:
    """``"500i"`` or ``"1.5s"``, strictly (see the module doc)."""
    if not isinstance(text, str):
        raise SpecError(field, f"must be a string such as 500i or 1.5s{got_type(text)}")
    m = _BUDGET.match(text) if len(text) <= _MAX_LEN else None
    if m is None and re.fullmatch(r"0+i", text):
        raise SpecError(field, f"iterations must be at least 1{got(text)}")
    if m is None:
        raise SpecError(field, f"budget must be <iterations>i or <seconds>s (e.g. 500i, "
                        f"1.5s){got(text[:_MAX_LEN])}")
    if m["iterations"] is not None:
        return BudgetSpec(iterations=int(m["iterations"]))
    seconds = float(m["seconds"])
    if not 0 < seconds < MAX_SECONDS:
        raise SpecError(field, f"seconds must be more than 0 and less than a day{got(text)}")
    return BudgetSpec(seconds=seconds)


def parse_bot_spec(text: object, field: str = "bot", known: Collection[str] | None = None,
                   allow_import: bool = False) -> BotSpec:
    """Parse a bot spec. ``known``: the kinds accepted (default: any kind the grammar
    allows; the caller checks it exists). ``allow_import``: accept ``module:Class``."""
    if not isinstance(text, str) or not text:
        raise SpecError(field, f"a bot spec must be a non-empty string{got(text)}")
    if len(text) > _MAX_LEN:
        raise SpecError(field, f"a bot spec has at most {_MAX_LEN} characters")
    kind, sep, arg = text.partition(":")
    if _KIND.match(kind) and (known is None or kind in known):
        if not sep:
            return BotSpec(text, kind)
        try:
            budget = parse_budget(arg, field)
        except SpecError as err:
            raise SpecError(field, f"{text!r}: {err.reason}") from None
        return BotSpec(text, kind, budget, arg)
    m = _IMPORT.match(text)
    if m is not None and allow_import:
        return BotSpec(text, "import", module=m["module"], cls=m["cls"])
    known_text = f" (known: {', '.join(sorted(known))})" if known is not None else ""
    if m is not None:
        raise SpecError(field, f"{text!r}: module:Class bots are not accepted here"
                        f"{known_text}")
    raise SpecError(field, f"unknown bot {kind!r} in spec {text!r}{known_text}")


def check_caps(spec: BotSpec | BudgetSpec, max_seconds: float | None,
               max_iterations: int | None, field: str) -> None:
    """Refuse a budget beyond the caps (``kind == "limit"``); the caps name themselves
    in the message as given by the caller."""
    budget = spec.budget if isinstance(spec, BotSpec) else spec
    if budget is None:
        return
    if budget.seconds is not None and max_seconds is not None and budget.seconds > max_seconds:
        raise SpecError(field, f"{budget.text()} per move exceeds the limit of "
                        f"{max_seconds:g} s", "limit")
    if budget.iterations is not None and max_iterations is not None \
            and budget.iterations > max_iterations:
        raise SpecError(field, f"{budget.iterations} iterations exceeds the limit of "
                        f"{max_iterations}", "limit")
