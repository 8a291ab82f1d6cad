"""Where the API listens, checked without the web stack: the socket and the TLS pair from `[api]`.

`tablectl.web.guard.serving` binds the service's socket here, and `tablectl run --check` asks
the same questions without serving, so both name the same settings in the same words. This
module imports neither FastAPI nor uvicorn: `run --check` and the service's failure paths
must not pay for them.
"""

from __future__ import annotations

import socket
from typing import Any


class ListenError(OSError):
    """The API could not listen where the config says; the message names the settings."""


def scheme(settings: Any) -> str:
    """http or https, as the `[api]` settings serve."""
    return "https" if settings.tls_certfile else "http"


def check_tls(settings: Any) -> None:
    """Load the `[api]` TLS pair, if any, as the server will; ListenError names both settings."""
    if not settings.tls_certfile:
        return
    import ssl

    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(settings.tls_certfile, settings.tls_keyfile)
    except (OSError, ssl.SSLError) as exc:
        raise ListenError(f"[api] tls_certfile = {str(settings.tls_certfile)!r}, tls_keyfile = "
                          f"{str(settings.tls_keyfile)!r}: cannot be used ({exc})") from None


def bind(settings: Any, backlog: int) -> socket.socket:
    """The listening socket at `[api] host`/`port` (SO_REUSEADDR, as uvicorn's); ListenError names them."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    try:
        return socket.create_server((settings.host, settings.port), family=family, backlog=backlog)
    except OSError as exc:
        raise ListenError(f"[api] host = {settings.host!r}, port = {settings.port}: the API cannot listen there "
                          f"({exc.strerror or exc}: the port is in use, or the address is not this machine's)") from None
