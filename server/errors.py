"""Every error a client can cause becomes a 4xx whose JSON body names the field and the
reason. One handler maps the engine's named errors (all ``ValueError`` subclasses) and the
server's own :class:`ApiError` to a status; request-validation errors get the same shape.

Body: ``{"error": KIND, "field": FIELD | null, "reason": TEXT, "message": TEXT}`` (plus
``"errors"``, the full list, for request validation).
"""

from __future__ import annotations

import json
import logging
import re
import sys
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from solver.analysis import AnalysisError
from solver.rules.actions import ActionError, IllegalActionError, NotationError
from solver.rules.cards import CardSetError, UnknownCardError
from solver.rules.engine import SetupError
from solver.rules.payment import PaymentRequestError
from solver.rules.position import PositionError
from solver.rules.record import RecordError
from solver.search.api import BudgetError, GameOverError, NotToActError
from solver.search.bots import BotSpecError
from solver.search.determinize import InconsistentViewError

from .store import StoreUnavailable

log = logging.getLogger("bigsur.server")
# "field: reason", or "field (what): reason" as a record names its action: "actions[72]
# ('end'): illegal action 'end' ..." (the field is actions[72], not the whole record)
_LEADING_FIELD = re.compile(r"^(?P<field>[A-Za-z_][\w.\[\]]*)(?: \((?P<what>.*?)\))?: "
                            r"(?P<reason>.*)$", re.S)


class ApiError(Exception):
    """An error the server raises itself: status, field, reason, optional headers."""

    def __init__(self, status: int, field: str | None, reason: str, kind: str = "request",
                 headers: dict[str, str] | None = None):
        self.status = status
        self.field = field
        self.reason = reason
        self.kind = kind
        self.headers = headers
        super().__init__(f"{field}: {reason}" if field else reason)


class Saturated(ApiError):
    """Every search slot is busy: 503 with Retry-After, never an unbounded queue."""

    def __init__(self, what: str, retry_after: int):
        super().__init__(503, None, f"all search workers are busy; retry {what} in about "
                         f"{retry_after} s", "busy", {"Retry-After": str(retry_after)})


class WorkerError(ValueError):
    """A named user error raised inside a search worker, carried back as plain data
    (named errors with custom constructors do not survive pickling)."""

    def __init__(self, kind: str, field: str | None, reason: str):
        self.kind = kind
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}" if field else reason)

    def __reduce__(self):
        return (WorkerError, (self.kind, self.field, self.reason))


# Engine error type -> (status, kind, field when the error does not carry one).
# Order matters: the first matching base class wins.
ERROR_MAP: list[tuple[type[Exception], int, str, str | None]] = [
    (PositionError, 422, "position", None),
    (InconsistentViewError, 422, "position", "position"),
    (GameOverError, 422, "game_over", "position"),
    (NotToActError, 422, "not_to_act", "view_of"),
    (BudgetError, 422, "budget", "budget"),
    (PaymentRequestError, 422, "payment", "builds"),
    (NotationError, 422, "notation", "action"),
    (IllegalActionError, 422, "illegal_action", "action"),
    (ActionError, 422, "action", "action"),
    (RecordError, 422, "record", "record"),
    (CardSetError, 422, "cards", "cards"),
    (UnknownCardError, 422, "unknown_card", "cards"),
    (SetupError, 422, "setup", "players"),
    (BotSpecError, 422, "bot_spec", "seats"),
    (AnalysisError, 422, "analysis", None),
    (WorkerError, 422, "worker", None),
]


def describe(err: Exception) -> tuple[int, dict[str, Any], dict[str, str] | None]:
    """Status, body and headers for a client error (500 only for what is not one)."""
    if isinstance(err, ApiError):
        body = {"error": err.kind, "field": err.field, "reason": err.reason,
                "message": str(err)}
        return err.status, body, err.headers
    if isinstance(err, StoreUnavailable):
        reason = "the database is unavailable; retry shortly"
        log.warning("database unavailable: %s", err)  # the details stay in the log
        return 503, {"error": "unavailable", "field": None, "reason": reason,
                     "message": reason}, {"Retry-After": "5"}
    for etype, status, kind, default_field in ERROR_MAP:
        if isinstance(err, etype):
            field = getattr(err, "field", None)
            reason = getattr(err, "reason", None)
            if isinstance(err, CardSetError):
                reason = "; ".join(err.errors[:10])
            if reason is None:
                reason = str(err)
                m = _LEADING_FIELD.match(reason)
                if m and field is None:
                    field, reason = m["field"], m["reason"]
                    if m["what"] and m["what"] not in reason:  # else the reason quotes it
                        reason = f"{m['what']}: {reason}"
            field = field or default_field
            if isinstance(err, WorkerError):
                kind = err.kind
            message = f"{field}: {reason}" if field else reason
            return status, {"error": kind, "field": field, "reason": reason,
                            "message": message}, None
    return 500, {"error": "internal", "field": None, "reason": "internal server error",
                 "message": "internal server error"}, None


def error_response(err: Exception) -> JSONResponse:
    status, body, headers = describe(err)
    if status >= 500 and not isinstance(err, ApiError):
        log.error("unhandled error", exc_info=err)
    return JSONResponse(body, status_code=status, headers=headers)


def _field_of(loc: tuple | list) -> str:
    """``("body", "budget", "ms")`` -> ``budget.ms``; list indices as ``[i]``."""
    out = ""
    for part in loc:
        if part in ("body", "query", "path", "header") and not out:
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "body"


def not_json(cause: BaseException | None = None) -> ApiError:
    """The 400 ``body`` of a body that is not JSON at all, saying why when ``cause`` (the
    decoder's error) does: bad UTF-8, bad syntax, nesting too deep, a number too long."""
    if isinstance(cause, json.JSONDecodeError):
        why = f"{cause.msg} at line {cause.lineno} column {cause.colno}"
    elif isinstance(cause, UnicodeDecodeError):
        why = f"not UTF-8: {cause.reason} at byte {cause.start}"
    elif isinstance(cause, RecursionError):
        why = "nested too deeply"
    elif isinstance(cause, ValueError):
        why = f"a number of more than {sys.get_int_max_str_digits()} digits"
    else:
        why = "bad UTF-8, nesting too deep or a number too long"
    return ApiError(400, "body", f"the body is not valid JSON ({why})", "body")


def json_body(body: bytes) -> Any:
    """The JSON value of a request body read by a route itself (as FastAPI reads the
    others): :func:`not_json` for anything the decoder refuses."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as err:  # JSONDecodeError, UnicodeDecodeError too
        raise not_json(err) from None


HTTP_KINDS = {400: "body", 404: "not_found", 405: "method_not_allowed", 413: "limit"}


def no_route(path: str) -> ApiError:
    """The 404 of a path no route has."""
    return ApiError(404, "path", f"no resource at {path} (the API is under /v1, see /docs)",
                    "not_found")


def http_error_response(request: Request, err: StarletteHTTPException) -> JSONResponse:
    """Starlette's own errors (no route, wrong method, an unreadable body) in our shape."""
    status = err.status_code
    if status == 404:
        reason, field = no_route(request.url.path).reason, "path"
    elif status == 405:
        reason = f"{request.method} is not allowed here"
        field = "method"
    elif status == 400:  # FastAPI's "error parsing the body", raised from the decoder's
        reason = not_json(err.__cause__).reason if "pars" in str(err.detail) \
            else str(err.detail)
        field = "body"
    else:
        reason, field = str(err.detail), None
    body = {"error": HTTP_KINDS.get(status, "request"), "field": field, "reason": reason,
            "message": f"{field}: {reason}" if field else reason}
    return JSONResponse(body, status_code=status, headers=getattr(err, "headers", None))


def validation_response(err: RequestValidationError,
                        content_type: str = "application/json") -> JSONResponse:
    if any(item.get("type") == "json_invalid" for item in err.errors()):
        return error_response(not_json(err.__cause__))  # FastAPI's, raised from the decoder
    errors = []
    for item in err.errors():
        field = _field_of(item.get("loc", ()))
        errors.append({"field": field, "reason": item.get("msg", "invalid"),
                       "type": item.get("type")})
    first = errors[0] if errors else {"field": "body", "reason": "invalid request"}
    if first["field"] == "body" and first.get("type") != "missing" and \
            "json" not in content_type.lower():
        # e.g. curl -d '{...}' sends a form: the body is read as no JSON object at all
        first = {**first, "reason": "the body must be a JSON object sent with "
                 f"'Content-Type: application/json' (got {content_type or 'none'!r})"}
        errors[0] = first
    body = {"error": "validation", "field": first["field"], "reason": first["reason"],
            "message": f"{first['field']}: {first['reason']}", "errors": errors}
    return JSONResponse(body, status_code=422)


def install(app: FastAPI) -> None:
    """Register the one handler for every named error, and the validation handler."""

    async def handle(_request: Request, err: Exception) -> JSONResponse:
        return error_response(err)

    async def handle_validation(request: Request, err: RequestValidationError) -> JSONResponse:
        return validation_response(err, request.headers.get("content-type", ""))

    async def handle_http(request: Request, err: StarletteHTTPException) -> JSONResponse:
        return http_error_response(request, err)

    app.add_exception_handler(RequestValidationError, handle_validation)
    app.add_exception_handler(StarletteHTTPException, handle_http)
    for etype in {ApiError, StoreUnavailable, *(etype for etype, *_ in ERROR_MAP)}:
        app.add_exception_handler(etype, handle)
