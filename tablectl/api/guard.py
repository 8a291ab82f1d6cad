"""The API's edge: what a request may cost before anyone has looked at it.

uvicorn bounds a request's headers by size but not by time, so a client that
sends half a request line and stops holds its connection, and a file
descriptor, for ever; a thousand of them leave the process no descriptor for
the shoe's serial port when it must reopen it. `GuardedH11Protocol` closes a
connection whose request headers are not complete within `header_timeout`
seconds, and refuses a connection beyond `max_connections` at once. Bodies
are bounded by FastAPI's `max_body_size` before they are read (and before the
key is checked), and the Host header by `HostCheck` where reads are open.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .errors import error_response

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

# asyncio accepts up to `backlog` sockets per wake-up, each holding a descriptor before any
# protocol can refuse it, and closes a refused one only on a later turn of the loop: a small
# burst keeps the descriptors in flight far below the process's limit (LimitNOFILE).
ACCEPT_BURST = 16

log = logging.getLogger(__name__)


def guarded_protocol(max_connections: int, header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a connection cap and a deadline for request headers."""

    class GuardedH11Protocol(H11Protocol):
        """H11Protocol that never lets a connection wait without a complete request for long."""

        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as H11Protocol itself narrows it
            if len(self.connections) >= max_connections:
                transport.abort()  # over the cap: the descriptor is given back at once
                return
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                self._disarm()  # a request is being answered: its headers came in time
            elif self._header_timer is None:
                self._arm()  # bytes of a next request on a kept-alive connection

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self in self.connections:
                super().connection_lost(exc)

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


class ListenError(OSError):
    """The API could not listen where the config says; the message names the settings."""


def edge_app(app: Any, settings: Any) -> Any:
    """An app's own edge from its `[api]` settings: the Host check (the body limit is FastAPI's)."""
    app.add_middleware(HostCheck, allowed=settings.hosts())
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
    accept burst is kept small (`ACCEPT_BURST`). Raises ListenError.
    """
    import socket
    import ssl

    import uvicorn

    a = settings
    tls: dict[str, Any] = {"ssl_certfile": str(a.tls_certfile), "ssl_keyfile": str(a.tls_keyfile)} if a.tls_certfile else {}
    if tls:
        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(a.tls_certfile, a.tls_keyfile)
        except (OSError, ssl.SSLError) as exc:
            raise ListenError(f"[api] tls_certfile = {str(a.tls_certfile)!r}, tls_keyfile = "
                              f"{str(a.tls_keyfile)!r}: cannot be used ({exc})") from None
    config = uvicorn.Config(app, host=a.host, port=a.port, log_level="warning", lifespan="off", access_log=False,
                            http=guarded_protocol(a.max_connections, a.header_timeout_seconds),
                            limit_concurrency=a.max_connections, timeout_keep_alive=a.keep_alive_seconds,
                            backlog=min(ACCEPT_BURST, a.max_connections), h11_max_incomplete_event_size=16 * 1024,
                            **tls, **extra)
    _check_descriptors(a.max_connections)
    family = socket.AF_INET6 if ":" in a.host else socket.AF_INET
    try:
        listening = socket.create_server((a.host, a.port), family=family, backlog=config.backlog)
    except OSError as exc:
        raise ListenError(f"[api] host = {a.host!r}, port = {a.port}: the API cannot listen there "
                          f"({exc.strerror or exc}: the port is in use, or the address is not this machine's)") from None
    server = uvicorn.Server(config)
    # uvicorn before 0.29 called this hook; later ones have no such method (they use capture_signals).
    server.install_signal_handlers = lambda: None  # type: ignore[attr-defined]  # uvicorn < 0.29 only
    return server, listening


def scheme(settings: Any) -> str:
    """http or https, as the `[api]` settings serve."""
    return "https" if settings.tls_certfile else "http"
