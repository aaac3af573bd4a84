"""The connection guard (server/netguard.py) driven directly: GuardedH11Protocol on a real
asyncio loop, with fake transports, in the order asyncio calls it (a burst of accepted
connections all get ``connection_made`` in one turn of the loop, their first bytes are read
on a later turn, and a closed connection's ``connection_lost`` comes on the next turn)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict, defaultdict

import uvicorn
from uvicorn.server import ServerState

from server.netguard import MIN_AGE, GuardedH11Protocol

PARTIAL = b"GET /healthz HTTP/1.1\r\n"  # an attack's slow headers
WHOLE = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"  # a real client's request


async def ok_app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


class FakeTransport(asyncio.Transport):
    def __init__(self, loop, peer: str, port: int):
        super().__init__(extra={"peername": (peer, port), "sockname": ("127.0.0.1", 8000)})
        self.loop, self.protocol, self.out = loop, None, b""
        self.closing = self.aborted = False

    def is_closing(self) -> bool:
        return self.closing

    def write(self, data) -> None:
        self.out += bytes(data)

    def abort(self) -> None:
        self.aborted = True
        self.close()

    def close(self) -> None:
        if not self.closing:  # as asyncio: connection_lost on the loop's next turn
            self.closing = True
            self.loop.call_soon(self.protocol.connection_lost, None)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def guard(max_connections: int, max_per_peer: int = 100):
    class Guard(GuardedH11Protocol):  # its own counts, not the class bigsur serve uses
        per_peer = defaultdict(int)
        fresh = OrderedDict()
        partial = OrderedDict()
        refused = evicted = timed_out = 0
    return Guard.configure(request_timeout=10, max_connections=max_connections,
                           max_per_peer=max_per_peer)


class Server:
    """A guarded server on the running loop: ``accept(peer)`` is asyncio accepting one
    connection (``connection_made``, nothing read yet) -> (protocol, transport)."""

    def __init__(self, max_connections: int, max_per_peer: int = 100):
        self.loop = asyncio.get_running_loop()
        self.guard = guard(max_connections, max_per_peer)
        self.config = uvicorn.Config(ok_app, http=self.guard, log_config=None,
                                     access_log=False)
        self.config.load()
        self.state = ServerState()
        self.ports = iter(range(40000, 50000))

    def accept(self, peer: str):
        t = FakeTransport(self.loop, peer, next(self.ports))
        p = self.guard(self.config, self.state, {}, _loop=self.loop)
        t.protocol = p
        p.connection_made(t)
        return p, t


async def turns(n: int = 10) -> None:
    """Let the loop run ``n`` turns (reads, closes, the guard's next-turn decisions)."""
    for _ in range(n):
        await asyncio.sleep(0)


def test_a_whole_request_in_a_burst_of_reconnections_is_not_refused():
    """bench.server's slow-connection attack: the cap is full of connections that sent
    part of a request; the server closes them and the attacker reconnects them all at
    once. The burst's connections are accepted before any of their bytes is read, so
    they look fresh (unevictable for MIN_AGE): the partial ones run out, the overflow
    fills, and a real client's connection in the same burst was refused (closed at once:
    a ReadError for /healthz) although its whole request was there. Attack connections
    must be closed instead."""
    async def scenario():
        server = Server(10)
        Guard, accept = server.guard, server.accept
        cap_over = Guard.max_connections + Guard.overflow()
        held = [accept(f"127.0.0.{2 + k % 5}") for k in range(Guard.max_connections)]
        for p, _ in held:
            p.data_received(PARTIAL)
        await asyncio.sleep(0)
        # one turn of the loop: the burst (closed ones reconnecting, twice the cap), and
        # a client polling /healthz among them
        burst = [accept(f"127.0.0.{2 + k % 5}") for k in range(2 * Guard.max_connections)]
        client, client_t = accept("127.0.0.1")
        # the next turn: their bytes are read
        for p, t in burst:
            if not t.closing:
                p.data_received(PARTIAL)
        if not client_t.closing:
            client.data_received(WHOLE)
        await turns()
        live = [t for _, t in held + burst + [(client, client_t)] if not t.closing]
        return client_t, live, cap_over, Guard

    client_t, live, cap_over, Guard = asyncio.run(scenario())
    assert not client_t.aborted, f"refused ({Guard.refused} refused, {Guard.evicted} evicted)"
    assert client_t.out.startswith(b"HTTP/1.1 200"), client_t.out[:80]
    assert client_t.out.endswith(b"ok")
    assert len(live) <= cap_over, len(live)  # the attack's connections made room
    assert Guard.evicted > Guard.max_connections


def test_a_burst_that_sends_nothing_is_still_refused_beyond_the_overflow():
    """Connections that send nothing are not let in without bound: beyond the cap and
    the overflow, with nothing that may be closed, they are refused."""
    async def scenario():
        server = Server(10)
        transports = [server.accept(f"127.0.0.{2 + k % 5}")[1] for k in range(100)]
        await turns()
        return transports, server.guard

    transports, Guard = asyncio.run(scenario())
    live = [t for t in transports if not t.closing]
    assert len(live) == Guard.max_connections + Guard.overflow()
    assert Guard.refused == 100 - len(live)


def test_a_whole_request_beyond_the_overflow_is_answered_then_closed():
    """Beyond the cap and the overflow with nothing that may be closed (fresh connections
    younger than MIN_AGE), a connection whose whole request has arrived by the loop's next
    turn is answered rather than refused, and closed after its answer (no keep-alive), so
    it holds no room beyond the cap; one that sent nothing is refused."""
    async def scenario():
        server = Server(10)
        Guard = server.guard
        out = [server.accept(f"127.0.0.{2 + k % 5}" if k < 20 else "127.0.0.1")
               for k in range(Guard.max_connections + Guard.overflow() + 2)]
        (client, client_t), (_, silent_t) = out[-2:]
        client.data_received(WHOLE)
        await turns()
        return out, client_t, silent_t, Guard

    out, client_t, silent_t, Guard = asyncio.run(scenario())
    assert not client_t.aborted and client_t.out.startswith(b"HTTP/1.1 200")
    assert client_t.closing and client_t.out.endswith(b"ok")  # answered, then closed
    assert silent_t.aborted and Guard.refused == 1
    assert sum(not t.closing for _, t in out) == Guard.max_connections + Guard.overflow()


def test_a_new_connection_beyond_the_per_address_cap_closes_that_address_s_oldest_idle_one():
    """At the per-address cap, a new connection from that address closes the oldest of
    its connections that sent nothing for MIN_AGE (as the global cap does), rather than
    being refused while they sit idle; another address's older connections stay open."""
    async def scenario():
        server = Server(1000, max_per_peer=3)
        other = server.accept("127.0.0.9")
        held = [server.accept("127.0.0.2") for _ in range(3)]
        await asyncio.sleep(MIN_AGE + 0.05)  # idle long enough to be closed
        client, client_t = server.accept("127.0.0.2")
        client.data_received(WHOLE)
        await turns()
        return other, held, client_t, server.guard

    (_, other_t), held, client_t, Guard = asyncio.run(scenario())
    assert client_t.out.startswith(b"HTTP/1.1 200"), client_t.out[:80]
    assert [t.aborted for _, t in held] == [True, False, False]
    assert not other_t.closing
    assert Guard.refused == 0 and Guard.evicted == 1


def test_beyond_the_per_address_cap_a_part_sent_request_goes_first_and_fresh_ones_stay():
    """Among an address's connections, one that sent part of a request is closed before
    older idle ones; when its connections are all too fresh to close (younger than
    MIN_AGE) or have requests being answered, the new one is refused."""
    async def scenario():
        server = Server(1000, max_per_peer=3)
        idle = server.accept("127.0.0.2")
        await asyncio.sleep(MIN_AGE + 0.05)
        stalled = server.accept("127.0.0.2")
        stalled[0].data_received(PARTIAL)
        fresh = server.accept("127.0.0.2")
        first = server.accept("127.0.0.2")  # closes the stalled one, not the idle one
        await turns()
        stalled_closed, idle_closed = stalled[1].aborted, idle[1].aborted
        refused_then = server.guard.refused
        second = server.accept("127.0.0.2")  # closes the idle one
        third = server.accept("127.0.0.2")  # none may be closed: refused
        await turns()
        return (stalled_closed, idle_closed, refused_then, idle, fresh, first, second,
                third, server.guard)

    (stalled_closed, idle_closed, refused_then, idle, fresh, first, second, third,
     Guard) = asyncio.run(scenario())
    assert stalled_closed and not idle_closed and refused_then == 0
    assert idle[1].aborted
    assert not any(t.closing for _, t in (fresh, first, second))
    assert third[1].aborted and Guard.refused == 1 and Guard.evicted == 2
