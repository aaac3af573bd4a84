"""Every error a client can cause becomes a 4xx whose JSON body names the field and the
reason. One handler maps the engine's named errors (all ``ValueError`` subclasses) and the
server's own :class:`ApiError` to a status; request-validation errors get the same shape.

Body: ``{"error": KIND, "field": FIELD | null, "reason": TEXT, "message": TEXT}`` (plus
``"errors"``, the list, for request validation). What a body repeats of the client's input
is capped (:func:`clip_echo`, :func:`clip_field`): a 20,000-character game id is not sent
back twice in full.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
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

from .cluster import ClusterUnavailable
from .store import StoreUnavailable

log = logging.getLogger("bigsur.server")
# "field: reason", or "field (what): reason" as a record names its action: "actions[72]
# ('end'): illegal action 'end' ..." (the field is actions[72], not the whole record)
_LEADING_FIELD = re.compile(r"^(?P<field>[A-Za-z_][\w.\[\]]*)(?: \((?P<what>.*?)\))?: "
                            r"(?P<reason>.*)$", re.S)


# What an error body repeats of one piece of client input (a quoted value, a word, a key of
# a field path), and of the whole reason; and the problems of a request validation listed
# (cut to the limit only beyond the limit and _SLACK, what a cut adds: so a body made
# of cut text, as a position's error is made again inside a request's, is not cut twice)
ECHO_LIMIT = 200
REASON_LIMIT = 2000
MAX_ERRORS = 20
_SLACK = 30
_LONGER = ECHO_LIMIT + _SLACK + 1
_LONG_RUN = re.compile(rf"(?<!\S)\S{{{_LONGER},}}")  # a word, a number, an id
_LONG_KEY = re.compile(rf"(?<![^.\[\]])[^.\[\]]{{{_LONGER},}}")  # a part of a field path


def _cut(text: str, limit: int, tail: str = "", total: int | None = None) -> str:
    """``text`` as its first ``limit`` characters, an ellipsis and its length (``total``)."""
    return f"{text[:limit]}\u2026{tail} ({total or len(text)} characters)"


def _clip_words(text: str) -> str:
    return _LONG_RUN.sub(lambda m: _cut(m[0], ECHO_LIMIT), text)


def _encodable(text: str) -> str:
    """``text`` with what UTF-8 cannot encode (a lone surrogate of a client's key, JSON's
    ``"\\ud800"``) written as its escape: the answer is UTF-8 JSON, or else a 500."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# a quote that opens a value as ``!r`` writes it (not the one of "seat's"), and the text
# up to its closing quote (escaped quotes skipped); possessive, so linear
_OPENING = {quotes: re.compile(rf"(?<!\w)[{quotes}]") for quotes in ("'\"", "'", '"')}
_REST = {q: re.compile(rf"(?:[^{q}\\]++|\\.)*+{q}", re.S) for q in "'\""}


def clip_echo(reason: str) -> str:
    """A reason with each piece of client input it quotes cut to ``ECHO_LIMIT`` characters
    and its length (``"no game 'xxx\u2026' (20000 characters)"``): quoted values (as ``!r``
    writes them), words without a space (ids, numbers); beyond ``REASON_LIMIT`` (a long
    list, say) the reason itself is cut, with its length. Linear in the reason's length."""
    reason = _encodable(reason)
    out: list[str] = []
    size = plain = 0
    quotes = "'\""  # the quotes that may still open a value
    while quotes and size <= REASON_LIMIT + _SLACK:
        m = _OPENING[quotes].search(reason, plain)
        if m is None:
            break
        k, quote = m.start(), m[0]
        rest = _REST[quote].match(reason, k + 1)
        if rest is None:  # no later quote of this kind closes either
            quotes = quotes.replace(quote, "")
            continue
        inner = reason[k + 1:rest.end() - 1]
        out += [_clip_words(reason[plain:k]),
                f"{quote}{inner}{quote}" if len(inner) <= ECHO_LIMIT + _SLACK
                else quote + _cut(inner, ECHO_LIMIT, quote)]
        size += len(out[-2]) + len(out[-1])
        plain = rest.end()
    out.append(_clip_words(reason[plain:]))
    text = "".join(out)
    return text if len(text) <= REASON_LIMIT + _SLACK else \
        _cut(text, REASON_LIMIT, total=len(reason))


def clip_field(field: str | None) -> str | None:
    """A field path with each part longer than ``ECHO_LIMIT`` (a client's key) cut as
    :func:`clip_echo` cuts a value: ``per_turn.persistent_used.QQQ… (10000 characters)``."""
    if field is None:
        return None
    return _LONG_KEY.sub(lambda m: _cut(m[0], ECHO_LIMIT), _encodable(field))


def error_body(kind: str, field: str | None, reason: str) -> dict[str, Any]:
    """The one error shape, what it repeats of the client's input capped."""
    field, reason = clip_field(field), clip_echo(reason)
    return {"error": kind, "field": field, "reason": reason,
            "message": f"{field}: {reason}" if field else reason}


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
        return err.status, error_body(err.kind, err.field, err.reason), err.headers
    if isinstance(err, StoreUnavailable):  # an outage, or no connection (StoreUnreachable)
        log.warning("database unavailable: %s", err)  # the details stay in the log
        return 503, error_body("unavailable", None, err.public), {"Retry-After": "5"}
    if isinstance(err, ClusterUnavailable):
        log.warning("%s", err)
        return 503, error_body("unavailable", None, "the search cluster is unavailable; "
                               "retry shortly"), {"Retry-After": "5"}
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
            return status, error_body(kind, field, reason), None
    return 500, error_body("internal", None, "internal server error"), None


def in_position(err: Exception, where: str = "position") -> ApiError:
    """A posted position's error (PositionError, InconsistentViewError, GameOverError,
    NotToActError) as :func:`describe` says it, naming its field inside the request's
    ``position`` (or ``where`` the position is, a record's ``start``):
    ``position.seats[1].hand``, ``position.view_of``; a finished game is
    ``position.phase``; the whole position (not an object, malformed) ``position``. The
    one place that prefixes: every route taking a position (POST /v1/games, /v1/hint,
    /v1/score, /v1/payment) or a record (/v1/replay, /v1/analyze) names its fields alike."""
    status, body, headers = describe(err)
    field = "phase" if body["error"] == "game_over" else body["field"]
    field = where if field in (None, "position") else f"{where}.{field}"
    return ApiError(status, field, body["reason"], body["error"], headers)


def error_response(err: Exception) -> JSONResponse:
    """The response of an error; a traceback in the log only for a 500 (a bug): an
    expected outage (503 ``unavailable``) is one line, said by :func:`describe`."""
    status, body, headers = describe(err)
    if status == 500:
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
        else:  # a key of the client's (an unknown field) may be of any length
            out += ("." if out else "") + clip_field(str(part))
    return out or "body"


class RepeatedKeyError(ValueError):
    """A JSON object with a key given twice: JSON leaves its meaning open (the decoder
    took the last, silently), so a body with one is refused, naming the key."""

    def __init__(self, key: str):
        self.key = key
        super().__init__(f"the key {key!r} appears twice in one object")


def _unrepeated(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict; :class:`RepeatedKeyError` if a key repeats."""
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise RepeatedKeyError(key)
            seen.add(key)
    return out


def parse_json(body: bytes | str) -> Any:
    """A request body's JSON value, refusing a key repeated in one object: the one
    decoder of every route's body (:func:`json_body`, :class:`JsonRequest`)."""
    return json.loads(body, object_pairs_hook=_unrepeated)


def not_json(cause: BaseException | None = None) -> ApiError:
    """The 400 ``body`` of a body that is not JSON at all, saying why when ``cause`` (the
    decoder's error) does: bad UTF-8, bad syntax, nesting too deep, a number too long, a
    key repeated in one object."""
    if isinstance(cause, RepeatedKeyError):
        return ApiError(400, "body", f"{cause} (send each key once)", "body")
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
    others, through :class:`JsonRequest`): :func:`not_json` for anything the decoder
    refuses."""
    try:
        return parse_json(body)
    except (ValueError, RecursionError) as err:  # JSONDecodeError, UnicodeDecodeError too
        raise not_json(err) from None


class JsonRequest(Request):
    """A request whose JSON body FastAPI reads with :func:`parse_json`: what the decoder
    refuses reaches :func:`http_error_response` as the cause of FastAPI's 400."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = parse_json(await self.body())
        return self._json


class JsonRoute(APIRoute):
    """The route class of every router (``APIRouter(route_class=JsonRoute)``): its
    requests are :class:`JsonRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def read_with_parse_json(request: Request) -> Response:
            return await handler(JsonRequest(request.scope, request.receive, request._send))

        return read_with_parse_json


HTTP_KINDS = {400: "body", 404: "not_found", 405: "method_not_allowed", 413: "limit"}


# The request line and headers of one request, at most: h11's limit of an incomplete
# event (bigsur serve), and the Guard's of headers that arrive complete in one read (h11
# counts only an incomplete event: 40 KiB of headers in one read passed it)
MAX_HEADER_BYTES = 16 * 1024


def headers_too_large(size: int | None = None) -> ApiError:
    """The 431 of headers over :data:`MAX_HEADER_BYTES` (``size``: their bytes, if known)."""
    what = f"{size} bytes of headers" if size is not None else "the request's headers"
    return ApiError(431, "headers", f"{what} exceed the limit of {MAX_HEADER_BYTES} bytes",
                    "limit")


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
    return JSONResponse(error_body(HTTP_KINDS.get(status, "request"), field, reason),
                        status_code=status, headers=getattr(err, "headers", None))


# pydantic's wording of a request's shape, by its error type, as the API says it
REWORDED = {
    "model_attributes_type": "must be a JSON object",  # a model's body or field
    "model_type": "must be a JSON object",
    "dict_type": "must be a JSON object",  # a position, a record: dict[str, Any]
}


def _reason(item: dict[str, Any], field: str) -> str:
    """What a request validation problem says: :data:`REWORDED`; a body left out of a
    route that needs one; else pydantic's words (a validator's without its prefix)."""
    if item.get("type") == "missing" and field == "body":
        return "the request needs a JSON object body"
    return REWORDED.get(item.get("type"), None) or \
        item.get("msg", "invalid").removeprefix("Value error, ")


def validation_response(err: RequestValidationError,
                        content_type: str = "application/json") -> JSONResponse:
    if any(item.get("type") == "json_invalid" for item in err.errors()):
        return error_response(not_json(err.__cause__))  # FastAPI's, raised from the decoder
    errors = []
    problems = err.errors()
    for item in problems[:MAX_ERRORS]:  # 20,000 unknown keys are not 20,000 entries
        field = _field_of(item.get("loc", ()))
        reason = _reason(item, field)
        errors.append({"field": field, "reason": clip_echo(reason), "type": item.get("type")})
    first = errors[0] if errors else {"field": "body", "reason": "invalid request"}
    if first["field"] == "body" and first.get("type") != "missing" and \
            "json" not in content_type.lower():
        # e.g. curl -d '{...}' sends a form: the body is read as no JSON object at all
        first = {**first, "reason": "the body must be a JSON object sent with "
                 f"'Content-Type: application/json' (got {content_type or 'none'!r})"}
        errors[0] = first
    body = {**error_body("validation", first["field"], first["reason"]), "errors": errors}
    if len(problems) > len(errors):
        body["errors_left_out"] = len(problems) - len(errors)
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
    for etype in {ApiError, StoreUnavailable, ClusterUnavailable,
                  *(etype for etype, *_ in ERROR_MAP)}:
        app.add_exception_handler(etype, handle)
