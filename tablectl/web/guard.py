"""An API's edge (the table's and the floor's): what a request may cost before anyone has looked at it.

uvicorn bounds a request's headers by size but not by time, nor its body by
time, so a client that sends half a request line and stops, or whole headers
and then a body a byte at a time, holds its connection, and a file descriptor,
for ever; enough of them leave the API answering nobody, and the process no
descriptor for the shoe's serial port when it must reopen it.

- `GuardedH11Protocol` closes a connection whose request headers are not
  complete within `header_timeout` seconds. At `max_connections` a new
  connection makes room by closing the one that has waited longest for its
  request to be complete (headers or body; an idle kept-alive connection too):
  slow clients cannot keep out one that sends its request at once. When every
  connection is being answered (event streams), a few more are let in only to
  be told 503 `busy`; beyond those, refused at once.
- `RequestGuard` (in the app, so an in-process app has it too) answers in the
  documented error shape: a body over `max_body_bytes` with 413 before it is
  read and before the key is checked; a body not complete within the same
  deadline as the headers, counted from them, with 408 `too_slow`; more
  requests in flight than `max_connections` with 503 `busy`. Each of these
  answers closes its connection.
- `HostCheck` bounds the Host header where reads are open.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

# (ListenError and scheme live where `run --check` reaches them without the web stack; named here too.)
from tablectl.listening import ListenError as ListenError, bind, check_tls, scheme as scheme

from .errors import error_response

# asyncio accepts up to `backlog` sockets per wake-up, each holding a descriptor before any
# protocol can refuse it, and closes a refused one only on a later turn of the loop: a small
# burst keeps the descriptors in flight far below the process's limit (LimitNOFILE).
ACCEPT_BURST = 16

log = logging.getLogger(__name__)


def guarded_protocol(max_connections: int, header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a connection cap that makes room from the slowest, and a header deadline."""

    class GuardedH11Protocol(H11Protocol):
        """H11Protocol that never lets a connection wait without a complete request for long."""

        _header_timer: asyncio.TimerHandle | None = None
        _waiting_since = 0.0  # when the current wait for a complete request began
        _evicted = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as H11Protocol itself narrows it
            connections = self.connections
            if len(connections) >= max_connections and not _make_room(connections):
                if len(connections) >= max_connections + ACCEPT_BURST:
                    transport.abort()  # far over the cap: the descriptor is given back at once
                    return
                self.app = _busy  # every connection is being answered: this one is told so, then closed
            super().connection_made(transport)
            self._waiting_since = self.loop.time()
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                self._disarm()  # a request is being answered: its headers came in time (RequestGuard times its body)
            elif self._header_timer is None:
                self._arm()  # bytes of a next request on a kept-alive connection

        def on_response_complete(self) -> None:
            self._waiting_since = self.loop.time()  # kept alive: now it waits for its next request
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self in self.connections or self._evicted:
                super().connection_lost(exc)

        def waiting(self) -> bool:
            """True while this connection has no complete request to answer (headers, body, or idle)."""
            cycle = self.cycle
            if self._evicted or self.transport is None or self.transport.is_closing():
                return False
            return cycle is None or cycle.response_complete or (cycle.more_body and not cycle.response_started)

        def evict(self) -> None:
            """Close this connection to make room (its request, if any, was not complete)."""
            self._evicted = True
            self.connections.discard(self)  # counted out now: the transport closes on the loop's next turn
            self.transport.abort()

        def _arm(self) -> None:
            self._header_timer = self.loop.call_later(header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            cycle = self.cycle
            if cycle is None or cycle.response_complete:
                self.transport.close()

    return GuardedH11Protocol


def _make_room(connections: set[Any]) -> bool:
    """Close the connection that has waited longest for a complete request; False if none is waiting."""
    waiting = [c for c in connections if getattr(c, "waiting", None) is not None and c.waiting()]
    if not waiting:
        return False
    min(waiting, key=lambda c: c._waiting_since).evict()
    return True


async def _busy(scope: Scope, receive: Receive, send: Send) -> None:
    """The answer of a connection let in over the cap while every other one is being answered."""
    await _busy_response()(scope, receive, send)


def _busy_response() -> Any:
    return error_response(503, "busy", "the table's API is answering as many requests as it may: try again",
                          headers={"Connection": "close", "Retry-After": "1"})


class _TooSlow(HTTPException):
    """The request's body did not arrive within its deadline (raised from `receive`: FastAPI passes it on)."""

    def __init__(self) -> None:
        super().__init__(408, "the request body did not arrive in time", headers={"Connection": "close"})


class _TooLarge(HTTPException):
    """The request's body grew past the limit while it was read."""

    def __init__(self) -> None:
        super().__init__(413, "the request body is too large", headers={"Connection": "close"})


class RequestGuard:
    """Bounds each request's body by size and time, and the requests in flight; answers in the error shape.

    The body's deadline is the headers' (`deadline` seconds), counted from the moment its headers
    were complete: a client that trickles a body holds its connection no longer than one that
    trickles its headers.
    """

    def __init__(self, app: ASGIApp, max_body: int, deadline: float, max_in_flight: int) -> None:
        self.app = app
        self.max_body = max_body
        self.deadline = deadline
        self.max_in_flight = max_in_flight
        self.in_flight = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _content_length(scope)
        if length is not None and length > self.max_body:
            too_large = error_response(413, "too_large", f"the request body is too large (over {self.max_body} "
                                       "bytes)", headers={"Connection": "close"})
            await too_large(scope, receive, send)  # before a byte of it is read, before the key is checked
            return
        if self.in_flight >= self.max_in_flight:
            await _busy_response()(scope, receive, send)
            return
        self.in_flight += 1
        try:
            if length == 0 or (length is None and not _chunked(scope)):
                await self.app(scope, receive, send)  # no body: nothing to wait for
            else:
                await self.app(scope, self._bounded(receive), send)
        finally:
            self.in_flight -= 1

    def _bounded(self, receive: Receive) -> Receive:
        """`receive` with the body's deadline and size limit, until the body is in."""
        deadline = asyncio.get_running_loop().time() + self.deadline
        received = 0
        complete = False

        async def bounded_receive() -> Message:
            nonlocal received, complete
            if complete:
                return await receive()  # the body is in: later calls wait for a disconnect, untimed
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise _TooSlow() from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise _TooLarge()
                complete = not message.get("more_body", False)
            return message

        return bounded_receive


def _chunked(scope: Scope) -> bool:
    return any(name == b"transfer-encoding" and b"chunked" in value.lower() for name, value in scope.get("headers", ()))


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # h11 refuses a malformed length before any app sees it
    return None


class HostCheck:
    """Answer only requests whose Host header names an allowed host (DNS rebinding guard).

    Where reads need no key from 127.0.0.1, a web page elsewhere could point a name at
    127.0.0.1 and read the table through the pit's browser: such a request carries that
    name in its Host header and is refused here, in the documented error shape.
    """

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...]) -> None:
        self.app = app
        self.allowed = tuple(h.lower() for h in allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and "*" not in self.allowed:
            host = _host(scope)
            if host not in self.allowed:
                response = error_response(400, "bad_host", f"this table does not answer to the host {host!r}")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _host(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == b"host":
            text = value.decode("latin-1").lower()
            if text.startswith("["):  # [::1]:8080
                return text[1:].split("]", 1)[0]
            return text.rsplit(":", 1)[0] if text.count(":") == 1 else text
    return ""


def edge_app(app: Any, settings: Any) -> Any:
    """An app's own edge from its `[api]` settings: the request guard (body size and time, requests in
    flight), outermost, then the Host check."""
    app.add_middleware(HostCheck, allowed=settings.hosts())
    app.add_middleware(RequestGuard, max_body=settings.max_body_bytes, deadline=settings.header_timeout_seconds,
                       max_in_flight=settings.max_connections)
    return app


def _check_descriptors(max_connections: int) -> None:
    """Warn where the process's descriptor limit leaves the shoe and the journal too few beside the API."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = max_connections + 3 * ACCEPT_BURST + 64  # connections, accepts in flight, the table's own files
    if soft != resource.RLIM_INFINITY and soft < need:
        log.warning("[api] max_connections = %d needs about %d file descriptors but the process may open %d: "
                    "lower max_connections or raise LimitNOFILE", max_connections, need, soft)


def serving(app: Any, settings: Any, **extra: Any) -> tuple[Any, Any]:
    """The uvicorn server for `app` and the socket it listens on, from `[api]` settings (ApiSettings).

    The socket is bound here, so a port in use or an address not this machine's names the
    settings (uvicorn would exit 3 with a traceback); the TLS pair is loaded here for the same
    reason. Connections are capped and slow ones closed (`guarded_protocol`), and asyncio's
    accept burst is kept small (`ACCEPT_BURST`). uvicorn's own concurrency limit is off: its
    503 is plain text, and `RequestGuard` bounds the requests in flight in the error shape.
    Raises ListenError.
    """
    import uvicorn

    a = settings
    tls: dict[str, Any] = {"ssl_certfile": str(a.tls_certfile), "ssl_keyfile": str(a.tls_keyfile)} if a.tls_certfile else {}
    check_tls(a)
    config = uvicorn.Config(app, host=a.host, port=a.port, log_level="warning", lifespan="off", access_log=False,
                            http=guarded_protocol(a.max_connections, a.header_timeout_seconds),
                            limit_concurrency=None, timeout_keep_alive=a.keep_alive_seconds,
                            backlog=min(ACCEPT_BURST, a.max_connections), h11_max_incomplete_event_size=16 * 1024,
                            **tls, **extra)
    _check_descriptors(a.max_connections)
    listening = bind(a, config.backlog)
    server = uvicorn.Server(config)
    # uvicorn before 0.29 called this hook; later ones have no such method (they use capture_signals).
    server.install_signal_handlers = lambda: None  # type: ignore[attr-defined]  # uvicorn < 0.29 only
    return server, listening
