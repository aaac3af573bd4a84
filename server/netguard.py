"""Connection limits uvicorn does not have: a deadline for receiving each request, a cap
on open connections (total and per peer address), and rate-limited logging.

uvicorn (h11) times out only idle keep-alive connections: a client that sends its
headers or its body a byte at a time, or a body shorter than its Content-Length, held a
connection (and a file descriptor) forever. :class:`GuardedH11Protocol` gives every
request ``request_timeout`` seconds from its first byte (or from the connection's
opening) until it is fully received, then answers 408 and closes; the time the
application takes to answer is not counted (searches have their own deadlines); a
client that stops reading its answer (the write buffer stays full for
``request_timeout``) is dropped too.
Beyond ``max_connections`` in all, one connection waiting for its request is closed to
make room: the oldest that has sent part of a request (slow headers or body: what an
attack looks like; a client that sends its request at once is never one), else the
oldest that has sent nothing for at least ``MIN_AGE`` seconds (a burst of new
connections cannot close a fresh one before its request arrives). Beyond
``max_per_peer`` from one address, the same rule picks among that address's
connections; if none of them may be closed, the new connection is refused (closed at
once). Beyond ``max_connections`` with none that may be closed, the new connection is
let in over the cap by up to :meth:`GuardedH11Protocol.overflow` (10%, at most 128).
Beyond that the decision waits one turn of the event loop: a burst of connections is
accepted before any of their first bytes is read, so an attack's reconnections look
fresh and a real client's connection among them looked no different (it was refused:
bench.server's /healthz ReadErrors). On the next turn their bytes have been read: a
connection that sent part of a request is closed to make room, and the new connection
is refused only if none may be closed and its request has not arrived in full (if it
has, it is answered, then closed).
So slow connections from many addresses cannot lock ``/healthz`` and real clients out.

``bigsur serve`` installs it (``uvicorn.Config(http=GuardedH11Protocol)``). The uvicorn
command line cannot (its ``--http`` takes only auto/h11/httptools): ``uvicorn
server.app:create_app --factory`` runs without these limits. In Python,
``uvicorn.run(..., http=GuardedH11Protocol)`` installs it with the ``BIGSUR_*`` values
read at import. These limits are a last line of defence: in production put a reverse
proxy in front (docs/deploy.md).
"""

from __future__ import annotations

import json
import logging
import os
import resource
import sys
import time
from collections import OrderedDict, defaultdict

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .errors import describe, error_body, headers_too_large

log = logging.getLogger("bigsur.server")
_ENDED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)
MIN_AGE = 0.5  # seconds a connection may wait for its request before it can be evicted


def _timeout_response() -> bytes:
    body = json.dumps({"error": "timeout", "field": None,
                       "reason": "the request was not received in time "
                                 "(BIGSUR_REQUEST_TIMEOUT_SECONDS)",
                       "message": "the request was not received in time "
                                  "(BIGSUR_REQUEST_TIMEOUT_SECONDS)"},
                      separators=(",", ":")).encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"connection: close\r\ncontent-length: " + str(len(body)).encode() +
            b"\r\n\r\n" + body)


class GuardedH11Protocol(H11Protocol):
    request_timeout: float = float(os.environ.get("BIGSUR_REQUEST_TIMEOUT_SECONDS", 10))
    max_connections: int = int(os.environ.get("BIGSUR_MAX_CONNECTIONS", 1000))
    max_per_peer: int = int(os.environ.get("BIGSUR_MAX_CONNECTIONS_PER_CLIENT", 100))
    per_peer: dict[str, int] = defaultdict(int)
    # connections waiting for their request, oldest first: sent nothing yet / sent part
    fresh: OrderedDict[GuardedH11Protocol, float] = OrderedDict()
    partial: OrderedDict[GuardedH11Protocol, float] = OrderedDict()
    refused = 0
    evicted = 0
    timed_out = 0

    @classmethod
    def overflow(cls) -> int:
        """Connections allowed above the cap while none can be closed (a burst)."""
        return min(128, max(8, cls.max_connections // 10))

    @classmethod
    def configure(cls, request_timeout: float, max_connections: int,
                  max_per_peer: int) -> type[GuardedH11Protocol]:
        cls.request_timeout = request_timeout
        cls.max_connections = max_connections
        cls.max_per_peer = max_per_peer
        return cls

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._timer = None
        self._peer = self.client[0] if self.client else "?"
        cls = type(self)
        cls.per_peer[self._peer] += 1
        self._counted = True
        if cls.per_peer[self._peer] > cls.max_per_peer:
            if not self._make_room(self._peer):
                cls.refused += 1
                transport.abort()
                return
        elif len(self.connections) > cls.max_connections and not self._make_room() and \
                len(self.connections) > cls.max_connections + cls.overflow():
            # nothing may be closed yet and the overflow is full: a burst of connections
            # accepted in one turn of the event loop, none of whose first bytes has been
            # read (an attack's reconnections look fresh then, like a real client's).
            # Decide on the next turn, once they have been read.
            self.loop.call_later(0, self._admit)
        self._arm()

    def _make_room(self, peer: str | None = None) -> bool:
        """Close the oldest connection (from ``peer``, else from any address) that sent
        part of a request, else the oldest that sent nothing for MIN_AGE; False if there
        is none."""
        cls = type(self)

        def oldest(waiting: OrderedDict[GuardedH11Protocol, float]):
            return next((c for c in waiting if peer is None or c._peer == peer), None)

        victim = oldest(cls.partial)
        if victim is None:
            victim = oldest(cls.fresh)
            if victim is not None and time.monotonic() - cls.fresh[victim] < \
                    min(MIN_AGE, cls.request_timeout / 4):
                victim = None
        if victim is None:
            return False
        victim._disarm()
        cls.evicted += 1
        victim.transport.abort()
        return True

    def _admit(self) -> None:
        """A connection beyond the cap and the overflow, one turn of the loop after it
        came: the first bytes of the burst it came in have been read since, so attack
        connections that sent part of a request may be closed to make room. If none may,
        it is refused unless its request has arrived in full (a real client's): that one
        is answered, then closed (no keep-alive: it holds no room beyond the cap)."""
        cls = type(self)
        if self.transport.is_closing() or len(self.connections) <= cls.max_connections:
            return
        if self._make_room() or len(self.connections) <= cls.max_connections + cls.overflow():
            return
        if self in cls.fresh or self in cls.partial:  # still waiting for its request
            self._disarm()
            cls.refused += 1
            self.transport.abort()
        elif self.cycle is not None and not self.cycle.response_complete:
            self.cycle.keep_alive = False  # as uvicorn at shutdown: closed once answered
        else:
            self.transport.close()  # answered already: closed as if its keep-alive ended

    def connection_lost(self, exc) -> None:
        self._disarm()
        timer = getattr(self, "_write_timer", None)
        if timer is not None:
            timer.cancel()
            self._write_timer = None
        if getattr(self, "_counted", False):
            self._counted = False
            cls = type(self)
            cls.per_peer[self._peer] -= 1
            if cls.per_peer[self._peer] <= 0:
                del cls.per_peer[self._peer]
        super().connection_lost(exc)

    def _arm(self, started: bool = False) -> None:
        cls = type(self)
        if self._timer is None:
            self._timer = self.loop.call_later(self.request_timeout, self._too_slow)
            (cls.partial if started else cls.fresh)[self] = time.monotonic()
        elif started and self in cls.fresh:
            cls.partial[self] = cls.fresh.pop(self)

    def _disarm(self) -> None:
        timer = getattr(self, "_timer", None)
        if timer is not None:
            timer.cancel()
            self._timer = None
        type(self).fresh.pop(self, None)
        type(self).partial.pop(self, None)

    def data_received(self, data: bytes) -> None:
        self._arm(started=True)  # a request, or the rest of one, is arriving
        super().data_received(data)
        if self.conn.their_state in _ENDED:
            self._disarm()  # received in full: the application's time is not counted

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]:
            self._disarm()  # idle: uvicorn's keep-alive timeout applies

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse: 400 in the documented error shape rather than
        uvicorn's plain text; headers over ``MAX_HEADER_BYTES`` before their end (h11's
        limit of an incomplete event, which h11 marks with the status 431) are a 431, as
        the Guard answers those that arrive in one read; a request refused for another
        reason is a 400 however long its body. Called in uvicorn's ``except`` of h11's
        error, which ``sys.exc_info`` gives."""
        refused = sys.exc_info()[1]
        if getattr(refused, "error_status_hint", None) == 431:
            status, payload, _ = describe(headers_too_large())
            phrase = b"Request Header Fields Too Large"
        else:
            reason = f"not a valid HTTP/1.1 request ({msg})"
            status, payload = 400, error_body("request", "headers", reason)
            phrase = b"Bad Request"
        body = json.dumps(payload, separators=(",", ":")).encode()
        event = h11.Response(status_code=status, reason=phrase,
                             headers=[(b"content-type", b"application/json"),
                                      (b"connection", b"close")])
        try:
            for out in (self.conn.send(event), self.conn.send(h11.Data(data=body)),
                        self.conn.send(h11.EndOfMessage())):
                self.transport.write(out)
        except h11.LocalProtocolError:
            pass
        self.transport.close()

    def pause_writing(self) -> None:
        """The client does not read its answer: drop it if it stays so for a request
        timeout (a reader that never reads would otherwise hold the connection)."""
        super().pause_writing()
        if getattr(self, "_write_timer", None) is None:
            self._write_timer = self.loop.call_later(self.request_timeout, self._not_reading)

    def resume_writing(self) -> None:
        super().resume_writing()
        timer = getattr(self, "_write_timer", None)
        if timer is not None:
            timer.cancel()
            self._write_timer = None

    def _not_reading(self) -> None:
        self._write_timer = None
        type(self).timed_out += 1
        if not self.transport.is_closing():
            self.transport.abort()

    def _too_slow(self) -> None:
        self._timer = None
        type(self).fresh.pop(self, None)
        type(self).partial.pop(self, None)
        if self.transport.is_closing() or self.conn.their_state in _ENDED:
            return
        type(self).timed_out += 1
        if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE) and \
                (self.cycle is None or not self.cycle.response_started):
            try:
                self.transport.write(_timeout_response())
            except Exception:  # noqa: BLE001 - closing anyway
                pass
        self.transport.close()


# The floods a client (or running out of file descriptors) can cause: (logger, how the
# message begins). Nothing else is ever dropped: not an access line, not "Exception in
# ASGI application", not the server's own messages.
FLOODS: tuple[tuple[str, str], ...] = (
    ("asyncio", "socket.accept() out of system resource"),  # out of file descriptors
    ("uvicorn.error", "Invalid HTTP request received"),
    ("uvicorn.error", "Unsupported upgrade request"),
    ("uvicorn.error", "No supported WebSocket library"),  # said after each of those
)


class RateLimitFilter(logging.Filter):
    """Lets each of the :data:`FLOODS` (accept errors when file descriptors run out,
    invalid requests) through at most once per ``interval`` seconds, keyed by its
    formatted message, and says how many were dropped; every other record passes.
    Keeps floods from filling the disk."""

    def __init__(self, interval: float = 10.0, floods=FLOODS):
        super().__init__()
        self.interval = interval
        self.floods = tuple(floods)
        self.last: dict[tuple[str, str], float] = {}
        self.dropped: dict[tuple[str, str], int] = defaultdict(int)

    def _flood(self, record: logging.LogRecord) -> tuple[str, str] | None:
        """The key of a record of one of the floods (its formatted message's first
        line), None for any other record."""
        if not any(record.name == name for name, _ in self.floods):
            return None
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format: the handler reports it
            return None
        for name, start in self.floods:
            if record.name == name and text.startswith(start):
                return (record.name, text.split("\n", 1)[0][:200])
        return None

    def filter(self, record: logging.LogRecord) -> bool:
        key = self._flood(record)
        if key is None:
            return True
        now = time.monotonic()
        if now - self.last.get(key, -1e9) < self.interval:
            self.dropped[key] += 1
            return False
        if len(self.last) > 1000:
            self.last.clear()
        self.last[key] = now
        dropped = self.dropped.pop(key, 0)
        if dropped:
            record.msg = f"{record.msg} [{dropped} similar messages dropped in the last " \
                         f"{self.interval:g} s]"
        return True


def install_log_limits(interval: float = 10.0) -> RateLimitFilter:
    f = RateLimitFilter(interval)
    for name in {name for name, _ in FLOODS}:
        logging.getLogger(name).addFilter(f)
    return f


def raise_fd_limit(wanted: int) -> int:
    """Raise the soft limit of open files towards ``wanted`` (within the hard limit);
    returns the soft limit now in force."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        return soft
    except (ValueError, OSError):
        return 1024
