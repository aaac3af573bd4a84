"""Helpers shared by the routers: budgets within the caps, the error responses."""

from __future__ import annotations

from typing import Any

from ..errors import ApiError
from ..schemas import Budget, ErrorBody

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text} for code, text in (
        (413, "request body too large"),
        (422, "a field is malformed or the position/action is illegal (field named)"),
    )}
SEARCH_ERRORS = {**ERRORS, 503: {"model": ErrorBody, "description":
                                 "every search worker is busy; see Retry-After"}}
SEAT_ERRORS = {**ERRORS, **{code: {"model": ErrorBody, "description": text} for code, text in (
    (401, "no seat token"), (403, "not a token of this game"), (404, "no such game"),
    (409, "not this seat's turn / the game is (not) over / action id reused"))}}


def budget_dict(budget: Budget | None, default_ms: int, settings) -> dict[str, int]:
    """The budget as the workers take it, within BIGSUR_MAX_BUDGET_MS and
    BIGSUR_MAX_ITERATIONS (422 naming the limit beyond)."""
    if budget is None:
        return {"ms": min(default_ms, settings.max_budget_ms)}
    if budget.ms is not None:
        if budget.ms > settings.max_budget_ms:
            raise ApiError(422, "budget.ms", f"{budget.ms} ms exceeds the limit of "
                           f"{settings.max_budget_ms} ms (BIGSUR_MAX_BUDGET_MS)", "limit")
        return {"ms": budget.ms}
    if budget.iterations > settings.max_iterations:
        raise ApiError(422, "budget.iterations", f"{budget.iterations} exceeds the limit of "
                       f"{settings.max_iterations} iterations (BIGSUR_MAX_ITERATIONS)", "limit")
    return {"iterations": budget.iterations}
