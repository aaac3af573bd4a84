"""Card sets uploaded to the server: stored in the server's database (the ``cardsets``
table of :mod:`server.store`), named, versioned and fingerprinted, and registered in the app's
:class:`CardRegistry` so that every place that takes a card-set name
(``/v1/cards``, new games, hints, scores, payments) can use them.

    POST /v1/cardsets                     a full card set (JSON, or CSV with ?name=)
    POST /v1/cardsets/{name}/versions     a new version of a stored set
    POST /v1/cardsets/check               validate without storing (the editor's live check)
    POST /v1/cardsets/convert             CSV text -> the card set's JSON (not stored)
    POST /v1/cardsets/export.csv          a card set's JSON -> its CSV (not stored)
    GET  /v1/cardsets                     the stored sets (latest versions)
    GET  /v1/cardsets/{name}[/versions/{v}]
    GET  /v1/cardsets/template.csv        the CSV template (the shipped set)

Validation is :func:`solver.rules.cards.parse_card_set` with ``require_full=True``, the
same as ``bigsur cards validate``; every problem names the card and the field.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from contextlib import contextmanager
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Request
from fastapi import Path as FastPath
from fastapi.responses import JSONResponse, PlainTextResponse

from solver.rules.cards import (
    MAX_ID_LENGTH,
    CardSet,
    CardSetError,
    load_card_set,
    parse_card_set,
)
from solver.rules.cardset_csv import (
    MAX_ROWS,
    CsvTooLong,
    card_set_to_csv,
    csv_to_card_set_json,
    read_csv_card_set,
    template_csv,
)
from solver.rules.position import PositionError, cards_to_json
from solver.rules.wording import got

from .errors import ApiError, JsonRoute, clip_echo, error_body, json_body
from .routes.common import error_responses
from .store import Conflict, LimitReached, Store

log = logging.getLogger("bigsur.server")

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
RESERVED = frozenset({"default", "check", "convert", "template"})
MAX_SET_BYTES = 256_000       # one card set (JSON or CSV text)
MAX_TEXT = 300                # a card's text / a Landmark's name
MAX_DESCRIPTION = 2000
MAX_CARDS = 300               # list length checked before validation (a full set has 89)
MAX_STORED = 500              # rows (versions) in the table
MAX_VERSIONS = 50             # versions of one name

_WHERE = re.compile(r"^(?:highway card '(?P<hid>[^']*)'|landmark '(?P<lid>[^']*)'|"
                    r"(?P<list>highway|landmarks)\[(?P<pos>\d+)\])(?:\.(?P<field>\w+))?: "
                    r"(?P<msg>.*)$", re.S)
_FIELD = re.compile(r"^(?P<field>[A-Za-z_][\w.]*): (?P<msg>.*)$", re.S)
_ROW = re.compile(r"^row (?P<row>\d+) \((?P<id>[^)]*)\)(?:\.(?P<field>\w+))?: (?P<msg>.*)$", re.S)


def structured(errors: list[str]) -> list[dict[str, Any]]:
    """The validator's messages as ``{card, field, message}`` (card null for set-level
    problems; ``row`` for CSV conversion problems)."""
    out = []
    for text in map(clip_echo, errors):  # (a card's id or text as the client sent it)
        m = _WHERE.match(text)
        if m:
            card = m["hid"] if m["hid"] is not None else m["lid"]
            if card is None:
                card = f"{m['list']}[{m['pos']}]"
            out.append({"card": card, "field": m["field"], "message": m["msg"], "text": text})
            continue
        m = _ROW.match(text)
        if m:
            out.append({"card": None if m["id"] == "no id" else m["id"], "row": int(m["row"]),
                        "field": m["field"], "message": m["msg"], "text": text})
            continue
        m = _FIELD.match(text)
        out.append({"card": None, "field": m["field"] if m else None,
                    "message": m["msg"] if m else text, "text": text})
    return out


def invalid(errors: list[str], status: int = 422) -> JSONResponse:
    items = structured(errors)
    first = items[0]
    where = (f"{first['card']}.{first['field']}" if first["card"] and first["field"]
             else first["card"] or first["field"] or "cards")
    body = error_body("cards", where, first["message"])
    body["message"] = f"{len(errors)} problem(s); first: {first['text']}"
    return JSONResponse({**body, "errors": items}, status_code=status)


def too_many_rows(err: CsvTooLong) -> ApiError:
    """The CSV row cap, a size cap as the others: 413 naming ``csv``."""
    return ApiError(413, "csv", f"{err.rows} rows, at most {MAX_ROWS}", "limit")


def check_caps(raw: Any) -> None:
    """Size caps checked before validation (413 naming the field): the cards per list."""
    if not isinstance(raw, dict):
        raise ApiError(422, "body", "must be a card set object (bigsur-cards/1)", "cards")
    for key in ("highway", "landmarks"):
        items = raw.get(key)
        if isinstance(items, list) and len(items) > MAX_CARDS:
            raise ApiError(413, key, f"{len(items)} cards, at most {MAX_CARDS}", "limit")


def long_texts(raw: dict[str, Any]) -> list[str]:
    """The texts longer than the server stores (a card's text or a Landmark's name of more
    than MAX_TEXT characters, a description of more than MAX_DESCRIPTION): problems of the
    set, listed with the validator's and named as it names a card (by its id, or by its
    place in the list when the id is no short printable string)."""
    out = []
    desc = raw.get("description")
    if isinstance(desc, str) and len(desc) > MAX_DESCRIPTION:
        out.append(f"description: {len(desc)} characters, at most {MAX_DESCRIPTION}")
    for key, kind in (("highway", "highway card"), ("landmarks", "landmark")):
        items = raw.get(key)
        for i, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, dict):
                continue
            card_id = item.get("id")
            named = isinstance(card_id, str) and len(card_id) <= MAX_ID_LENGTH \
                and card_id.isprintable()
            where = f"{kind} {card_id!r}" if named else f"{key}[{i}]"
            for field in ("name", "text"):
                value = item.get(field)
                if isinstance(value, str) and len(value) > MAX_TEXT:
                    out.append(f"{where}.{field}: {len(value)} characters, at most {MAX_TEXT}")
    return out


class CardRegistry:
    """The card sets the server knows by name: ``default`` (the shipped reconstruction)
    and the set of ``BIGSUR_CARDS`` when given (under its own name). That file passes
    the checks of ``--cards FILE`` (a full set: 69 + 20 cards, equal turns) or the
    server refuses to start (:class:`CardSetError`, one line naming the file)."""

    def __init__(self, extra_path: str | None = None):
        default = load_card_set()
        self.sets: dict[str, CardSet] = {"default": default}
        self.from_file: str | None = None  # the name of the BIGSUR_CARDS set
        if extra_path:
            try:
                extra = load_card_set(extra_path)  # JSON, or CSV by its .csv name
            except CardSetError as err:  # `bigsur serve` prints its summary() and exits
                raise CardSetError(f"{extra_path} (BIGSUR_CARDS)", err.errors) from None
            if extra.name in self.sets:
                raise ValueError(f"BIGSUR_CARDS: the set in {extra_path} is named "
                                 f"{extra.name!r}, which is taken; rename it")
            if not extra.reconstruction and extra.cards_fingerprint == default.cards_fingerprint:
                raise CardSetError(f"{extra_path} (BIGSUR_CARDS)", [
                    f"reconstruction: these are the cards of {default.label}, labelled here "
                    'as the printed list; set "reconstruction": true (a printed list differs '
                    "from it)"])
            self.sets[extra.name] = extra
            self.from_file = extra.name
        self.load_stored: Callable[[str], CardSet | None] | None = None  # by attach()
        self.store_call: Callable[[Callable[[], Any]], Awaitable[Any]] = asyncio.to_thread

    def file_set_note(self, name: str) -> str | None:
        """Why ``name`` cannot be saved, when it is the BIGSUR_CARDS set's (any case): that
        set is read from its file at each start, so a version stored under its name
        would be shadowed by the file, then or at the next start."""
        if self.from_file is None or name.lower() != self.from_file.lower():
            return None
        return (f"{self.from_file!r} is this server's own card set, read from its "
                "BIGSUR_CARDS file at start-up and not stored in its database: it cannot be "
                "saved or get a new version here. Save the set under another name, or "
                "change that file and restart the server")

    async def find(self, name: Any) -> CardSet | None:
        """The set of this name, or None: a registered set, else one that another server
        process on the same database stored since this one started (registered now). The
        database is asked in a thread: a slow one holds up only the request naming the
        set, not every request of the process."""
        if not isinstance(name, str):
            return None
        found = self.sets.get(name)
        if found is None and self.load_stored is not None and NAME_RE.match(name):
            load = self.load_stored
            found = await self.store_call(lambda: load(name))
            if found is not None:
                found = self.sets.setdefault(found.name, found)
        return found

    async def get(self, name: str) -> CardSet:
        found = await self.find(name)
        if found is None:
            raise ApiError(404, "name", f"no card set named {name!r} (known: "
                           f"{', '.join(sorted(self.sets))})", "not_found")
        return found

    async def for_position(self, raw: Any) -> CardSet | None:
        """A registered set when the position names one other than "default"; None lets
        the engine resolve "default" or an inline set. A name the server does not know is
        a PositionError naming ``cards`` and the known names."""
        if isinstance(raw, str) and raw != "default":
            found = await self.find(raw)
            if found is None:
                raise PositionError("cards", f"no card set named {raw[:100]!r} (known: "
                                    f"{', '.join(sorted(self.sets))}; or a set inline)")
            return found
        return None

    async def canonical(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The position with a registered set name replaced by the set inline (workers
        know only "default" and inline sets)."""
        named = await self.for_position(raw.get("cards"))
        if named is None:
            return raw
        out = dict(raw)
        out["cards"] = cards_to_json(named)
        return out


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ApiError(422, "name", "must be 1 to 40 letters, digits, '-' or '_', starting "
                       f"with a letter or digit{got(name)}", "cards")
    if name.lower() in RESERVED:
        raise ApiError(409, "name", f"{name!r} is reserved; choose another name", "conflict")
    return name


class CardSetStore:
    """The ``cardsets`` table of the server's database (:mod:`server.store`): through the
    running app's store (``shared``, its pool of connections) while there is one, else
    opened per call (the stored sets read as the app is made, before it runs). Opened
    per call, a lookup of an unknown name cost two new PostgreSQL connections."""

    def __init__(self, target: str, pool_size: int = 2, wait: float = 2.0,
                 shared: Callable[[], Store | None] = lambda: None, timeout: float = 3.0,
                 setting: str = "BIGSUR_DB"):
        self.target = target
        self.pool_size = pool_size
        self.wait = wait
        self.shared = shared
        self.timeout = timeout  # (BIGSUR_DB_TIMEOUT_SECONDS; the variable named in errors)
        self.setting = setting
        with self._open():
            pass  # created or migrated now: a bad database fails at start-up

    async def call(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` off the event loop: in the running app's store threads (a frozen
        database is a 503 within BIGSUR_DB_WAIT_SECONDS + BIGSUR_DB_TIMEOUT_SECONDS), else
        in a thread of its own."""
        running = self.shared()
        if running is not None:
            return await running.in_thread(fn)
        return await asyncio.to_thread(fn)

    @contextmanager
    def _open(self):
        running = self.shared()
        if running is not None:
            yield running
            return
        store = Store(self.target, self.pool_size, self.wait, self.timeout, self.setting)
        try:
            yield store
        finally:
            store.close()

    def latest_all(self) -> list[dict[str, Any]]:
        with self._open() as store:
            return [self._row(r) for r in store.cardsets_latest()]

    def get(self, name: str, version: int | None = None) -> dict[str, Any] | None:
        if not NAME_RE.match(name):  # never stored (a NUL would fail in PostgreSQL)
            return None
        with self._open() as store:
            rows = store.cardset_versions(name.lower(), version)
        return self._row(rows[-1]) if rows else None

    def versions(self, name: str) -> list[dict[str, Any]]:
        if not NAME_RE.match(name):
            return []
        with self._open() as store:
            return [self._row(r) for r in store.cardset_versions(name.lower())]

    def add(self, name: str, version: int, cards: CardSet) -> None:
        try:
            with self._open() as store:
                store.add_cardset(name.lower(), name, version, cards.fingerprint,
                                  json.dumps(cards.to_json()), MAX_STORED)
        except LimitReached:
            raise ApiError(507, "name", f"the server stores at most {MAX_STORED} card-set "
                           "versions", "limit") from None
        except Conflict:
            raise ApiError(409, "name", f"{name!r} version {version} was stored meanwhile; "
                           "retry", "conflict") from None

    @staticmethod
    def _row(row) -> dict[str, Any]:
        name, version, fingerprint, created, body = row
        return {"name": name, "version": version, "fingerprint": fingerprint,
                "created": created, "body": json.loads(body)}


def _summary(cards: CardSet, version: int, created: float | None = None) -> dict[str, Any]:
    return {"name": cards.name, "version": version, "label": cards.label,
            "fingerprint": cards.fingerprint, "reconstruction": cards.reconstruction,
            "highway": len(cards.highway), "landmarks": len(cards.landmarks),
            "decks": {str(p): len(cards.deck_for(p)) for p in (2, 3, 4)},
            "created": created}


# what a GET of a stored set adds about the stored copy (:func:`_full`), not part of the set
STORED_COPY_FIELDS = ("stored_version", "created")


async def _json_body(request: Request) -> Any:
    """The JSON a card-set route was sent, less the :data:`STORED_COPY_FIELDS`: a set
    fetched with GET /v1/cardsets/NAME and posted back is read as the set it is."""
    body = await request.body()
    if len(body) > MAX_SET_BYTES:
        raise ApiError(413, "body", f"{len(body)} bytes, a card set may have at most "
                       f"{MAX_SET_BYTES}", "limit")
    raw = json_body(body)
    if isinstance(raw, dict):
        for field in STORED_COPY_FIELDS:
            raw.pop(field, None)
    return raw


def _numbered(raw: dict[str, Any], version: int) -> CardSet:
    """A validated set as stored: its version is the server's number."""
    return parse_card_set({**raw, "version": str(version)}, "upload", require_full=True)


NOT_STORED = "no stored card set of that name or version (error 'not_found')"
STORED = error_responses((404, NOT_STORED), (422, "a stored set the server's checks now "
                                             "refuse (error 'cards')"), 503)
INVALID = (422, "invalid: the first problem named, every one listed in 'errors'")


def build_router(registry, store_of) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["card sets"], route_class=JsonRoute)

    def taken(name: str) -> str | None:
        key = name.lower()
        for known in registry.sets:
            if known.lower() == key:
                return known
        return None

    def register(cards: CardSet) -> None:
        registry.sets[cards.name] = cards

    async def reconstruction_unlabelled(cards: CardSet) -> list[str]:
        """A set labelled the printed cards whose cards are a reconstruction's (the shipped
        ``default``, or a set stored or served labelled one) is refused, naming it: it
        would show a reconstruction as the printed list wherever it is offered."""
        if cards.reconstruction:
            return []
        rows = await store_of().call(lambda: store_of().latest_all())
        known = [c for c in registry.sets.values() if c.reconstruction] + [
            c for _row, c in readable([r for r in rows if r["body"].get("reconstruction")])]
        same = next((c for c in known if c.cards_fingerprint == cards.cards_fingerprint), None)
        if same is None:
            return []
        return [f"reconstruction: these are the cards of {same.label}, a reconstruction: a "
                'set with its cards is one too; send "reconstruction": true (a printed '
                "list differs from it)"]

    async def validate(raw: Any) -> tuple[CardSet | None, list[str]]:
        """The set as sent and every problem saving it meets: the check and both saves
        validate through here, so that the check predicts a save (the name aside)."""
        check_caps(raw)
        too_long = long_texts(raw)
        try:
            cards = parse_card_set(raw, "upload", require_full=True)
        except CardSetError as err:
            return None, too_long + err.errors
        return cards, too_long + await reconstruction_unlabelled(cards)

    async def store_new(raw: Any) -> Any:
        if not isinstance(raw, dict):
            raise ApiError(422, "body", "must be a card set object (bigsur-cards/1)", "cards")
        name = check_name(raw.get("name") if isinstance(raw, dict) else None)
        if note := registry.file_set_note(name):
            raise ApiError(409, "name", note, "conflict")
        stored = await store_of().call(lambda: store_of().get(name))
        other = taken(name) or (stored or {}).get("name")
        if other:
            raise ApiError(409, "name", f"a card set named {other!r} exists; choose another "
                           f"name, or POST /v1/cardsets/{other}/versions for a new version",
                           "conflict")
        cards, errors = await validate(raw)
        if errors:
            return invalid(errors)
        cards = _numbered(raw, 1)
        await store_of().call(lambda: store_of().add(name, 1, cards))
        register(cards)
        return JSONResponse(_summary(cards, 1, time.time()), status_code=201)

    @router.get("/cardsets/template.csv", response_class=PlainTextResponse,
                summary="The CSV template (the shipped set, one row per card)")
    async def template() -> PlainTextResponse:
        return PlainTextResponse(template_csv(), media_type="text/csv", headers={
            "Content-Disposition": 'attachment; filename="bigsur-cards-template.csv"'})

    @router.get("/cardsets", summary="The stored card sets (latest versions)",
                responses=error_responses(503))
    async def list_sets() -> list[dict[str, Any]]:
        rows = await store_of().call(lambda: store_of().latest_all())
        return [_summary(cards, row["version"], row["created"]) for row, cards in readable(rows)]

    @router.post("/cardsets", status_code=201, summary="Store a new card set",
                 responses=error_responses(400, (409, "the name is taken (error 'conflict')"),
                                           413, INVALID, 503, 507))
    async def create(request: Request, name: str | None = None,
                     description: str = "", reconstruction: bool = False) -> Any:
        """A full card set (``bigsur-cards/1``, validated like ``bigsur cards validate``),
        stored as version 1 under its ``name``. With ``Content-Type: text/csv`` the body
        is the CSV of docs/format.md and ``?name=`` names the set."""
        if request.headers.get("content-type", "").startswith("text/csv"):
            text = (await request.body())
            if len(text) > MAX_SET_BYTES:
                raise ApiError(413, "body", f"{len(text)} bytes, at most {MAX_SET_BYTES}",
                               "limit")
            check_name(name)
            try:  # every problem listed: the rows not read, the checks of the rest
                cards = read_csv_card_set(text.decode("utf-8", "replace"), name, "upload",
                                          description=description,
                                          reconstruction=reconstruction)
            except CsvTooLong as err:
                raise too_many_rows(err) from None
            except CardSetError as err:
                return invalid(err.errors)
            return await store_new(cards.to_json())
        return await store_new(await _json_body(request))

    async def name_check(name: Any) -> tuple[str | None, bool]:
        """The check's note on the name and whether saving refuses it (its shape, a
        reserved name, the BIGSUR_CARDS set's), as saving says it; a taken name is noted,
        not refused. No note for a missing name: the validator names it."""
        if not isinstance(name, str) or not name:
            return None, False
        try:
            check_name(name)
        except ApiError as err:
            return f"name: {err.reason}", True
        if note := registry.file_set_note(name):
            return f"name: {note}", True
        if taken(name) or await store_of().call(lambda: store_of().get(name)):
            return f"name: {name!r} is taken (saving adds a new version if it is yours)", False
        return None, False

    @router.post("/cardsets/check", summary="Validate a card set without storing it",
                 responses=error_responses(400, 413, (422, "not a JSON object"), 503))
    async def check(request: Request) -> dict[str, Any]:
        """Always 200 for a JSON object within the size caps (a body of MAX_SET_BYTES,
        MAX_CARDS a list: 413): ``{ok, errors: [{card, field, message}], summary}`` (the
        editor's live validation; a name already taken is reported too)."""
        raw = await _json_body(request)
        cards, errors = await validate(raw)
        summary = _summary(cards, 0) if cards is not None else None
        name_note, refused = await name_check(raw.get("name"))
        return {"ok": not errors, "errors": structured(errors), "summary": summary,
                "name": name_note, "name_refused": refused}

    @router.post("/cardsets/convert", summary="CSV text -> the card set's JSON (not stored)",
                 responses=error_responses(413, 422))
    async def convert(request: Request, name: str = "my-cards", description: str = "",
                      reconstruction: bool = False) -> dict[str, Any]:
        """Conversion problems are listed naming row, card and column; the JSON is not
        validated (POST it to /v1/cardsets/check)."""
        body = await request.body()
        if len(body) > MAX_SET_BYTES:
            raise ApiError(413, "body", f"{len(body)} bytes, at most {MAX_SET_BYTES}", "limit")
        try:
            raw, errors = csv_to_card_set_json(body.decode("utf-8", "replace"), name,
                                               description=description,
                                               reconstruction=reconstruction)
        except CsvTooLong as err:
            raise too_many_rows(err) from None
        return {"cards": raw, "errors": structured(errors)}

    @router.post("/cardsets/export.csv", response_class=PlainTextResponse,
                 summary="A card set's JSON -> its CSV (not stored)",
                 responses=error_responses(400, 413, INVALID, text_route=True))
    async def export_csv(request: Request) -> Any:
        """The CSV of docs/format.md that the import reads (``/convert``, ``bigsur cards
        import``), one row per card, of the set sent (the editor's "Download CSV"). Each
        card is checked first, as by the check (422 naming the card and the field); the
        set need not be full. The CSV has the cards only: no name, description or label."""
        raw = await _json_body(request)
        check_caps(raw)
        try:
            cards = parse_card_set(raw, "upload", require_full=False)
        except CardSetError as err:
            return invalid(err.errors)
        stem = cards.name if NAME_RE.match(cards.name) else "cards"
        return PlainTextResponse(card_set_to_csv(cards.to_json()), media_type="text/csv",
                                 headers={"Content-Disposition":
                                          f'attachment; filename="{stem}.csv"'})

    @router.get("/cardsets/{name}", summary="A stored card set (latest version)",
                responses=STORED)
    async def get_set(name: str) -> dict[str, Any]:
        row = await store_of().call(lambda: store_of().get(name))
        if row is None:
            raise ApiError(404, "name", f"no stored card set named {name!r}", "not_found")
        return _full(row)

    @router.get("/cardsets/{name}/versions", summary="Every version of a stored set",
                responses=STORED)
    async def versions(name: str) -> list[dict[str, Any]]:
        rows = await store_of().call(lambda: store_of().versions(name))
        if not rows:
            raise ApiError(404, "name", f"no stored card set named {name!r}", "not_found")
        return [{"name": r["name"], "version": r["version"], "fingerprint": r["fingerprint"],
                 "created": r["created"]} for r in rows]

    @router.get("/cardsets/{name}/versions/{version}", summary="One version of a stored set",
                responses=STORED)
    async def get_version(name: str,
                          version: Annotated[int, FastPath(ge=1, le=MAX_VERSIONS)]
                          ) -> dict[str, Any]:
        row = await store_of().call(lambda: store_of().get(name, version))
        if row is None:
            raise ApiError(404, "version", f"{name!r} has no version {version}", "not_found")
        return _full(row)

    @router.post("/cardsets/{name}/versions", status_code=201,
                 summary="Store a new version of a stored set",
                 responses=error_responses(400, (404, NOT_STORED), (409, "a version was "
                                           "stored meanwhile (error 'conflict')"), 413,
                                           INVALID, 503, 507))
    async def new_version(name: str, request: Request) -> Any:
        """The body's ``name`` must be ``name``; the server numbers the version. The same
        content as the latest version stores nothing and answers 200 with it."""
        latest = await store_of().call(lambda: store_of().get(name))
        if latest is None:
            raise ApiError(404, "name", f"no stored card set named {name!r}", "not_found")
        raw = await _json_body(request)
        if not isinstance(raw, dict) or raw.get("name") != latest["name"]:
            raise ApiError(422, "name", f"must be {latest['name']!r} (the set this version "
                           "belongs to)", "cards")
        _, errors = await validate(raw)
        if errors:
            return invalid(errors)
        same = _numbered(raw, latest["version"])
        if same.fingerprint == latest["fingerprint"]:
            return JSONResponse(_summary(same, latest["version"], latest["created"]))
        if len(await store_of().call(lambda: store_of().versions(name))) >= MAX_VERSIONS:
            raise ApiError(507, "version", f"at most {MAX_VERSIONS} versions of one set",
                           "limit")
        version = latest["version"] + 1
        cards = _numbered(raw, version)
        await store_of().call(lambda: store_of().add(latest["name"], version, cards))
        register(cards)
        return JSONResponse(_summary(cards, version, time.time()), status_code=201)

    return router


def readable(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], CardSet]]:
    """Stored rows with their sets, leaving out (with a warning) a set stored before a
    check it fails now (an older server's): the server starts, lists and checks without
    it, and naming it answers what is wrong (422 cards)."""
    out = []
    for row in rows:
        try:
            out.append((row, parse_card_set(row["body"], row["name"])))
        except CardSetError as err:
            log.warning("stored card set %r version %s is not offered: %s", row["name"],
                        row["version"], err)
    return out


def _full(row: dict[str, Any]) -> dict[str, Any]:
    cards = parse_card_set(row["body"], row["name"])
    return {**cards.to_json(), "label": cards.label, "fingerprint": cards.fingerprint,
            "stored_version": row["version"], "created": row["created"]}


def attach(app: FastAPI, registry, settings) -> None:
    """Open the table on the database file of ``settings``, register the stored sets
    (latest versions) in ``registry`` and include the router. Called by the app factory
    before the static files are mounted."""
    box: dict[str, CardSetStore] = {}

    def store_of() -> CardSetStore:
        if "store" not in box:
            box["store"] = CardSetStore(settings.database, min(2, settings.db_pool_size),
                                        settings.db_wait_seconds,
                                        lambda: getattr(app.state, "store", None),
                                        settings.db_timeout_seconds,
                                        settings.database_setting)
        return box["store"]

    for _row, cards in readable(store_of().latest_all()):
        if cards.name not in registry.sets:
            registry.sets[cards.name] = cards

    def load_stored(name: str) -> CardSet | None:
        row = store_of().get(name)
        return parse_card_set(row["body"], row["name"]) if row else None

    registry.load_stored = load_stored
    registry.store_call = lambda fn: store_of().call(fn)
    app.state.cardsets = store_of
    app.include_router(build_router(registry, store_of))
