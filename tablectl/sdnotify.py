"""systemd's notify protocol (sd_notify(3)), stdlib only.

The unit is ``Type=notify`` with ``WatchdogSec=``: the service calls `ready()`
once it serves, `watchdog()` from its asyncio main loop every
``watchdog_period() / 2`` seconds (a stuck loop stops the pings and systemd
restarts the service), `status(text)` for ``systemctl status``, and
`stopping()` on shutdown. Outside systemd (``NOTIFY_SOCKET`` unset) every call
is a no-op returning False, so the service runs the same in a terminal.
"""

from __future__ import annotations

import os
import socket

__all__ = ["notify", "ready", "watchdog", "stopping", "status", "extend_timeout", "watchdog_period"]


def _address(path: str) -> str | bytes | None:
    if path.startswith("@"):  # abstract namespace: leading NUL byte, no file
        return b"\0" + path[1:].encode()
    if path.startswith("/"):
        return path
    return None  # vsock and other forms are not used on a Pi


def notify(*fields: str) -> bool:
    """Send ``KEY=VALUE`` fields in one datagram; True if systemd got it."""
    address = _address(os.environ.get("NOTIFY_SOCKET", ""))
    if address is None or not fields:
        return False
    message = "\n".join(fields).encode()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            return sock.send(message) == len(message)
    except OSError:  # systemd gone or socket full: never take the service down for it
        return False


def ready(text: str | None = None) -> bool:
    """Start-up is finished (``READY=1``), optionally with a status line."""
    return notify("READY=1", *(() if text is None else (f"STATUS={_one_line(text)}",)))


def watchdog() -> bool:
    """Keep-alive ping (``WATCHDOG=1``); send it from the main loop."""
    return notify("WATCHDOG=1")


def stopping(text: str | None = None) -> bool:
    """Shutdown has begun (``STOPPING=1``)."""
    return notify("STOPPING=1", *(() if text is None else (f"STATUS={_one_line(text)}",)))


def status(text: str) -> bool:
    """One line shown by ``systemctl status`` (``STATUS=``)."""
    return notify(f"STATUS={_one_line(text)}")


def extend_timeout(seconds: float) -> bool:
    """Ask for more time to start or stop (e.g. a long journal recovery)."""
    return notify(f"EXTEND_TIMEOUT_USEC={max(0, int(seconds * 1_000_000))}")


def watchdog_period() -> float | None:
    """The watchdog timeout in seconds, or None when not watched (or not for this process)."""
    pid = os.environ.get("WATCHDOG_PID")
    if pid and pid.strip() != str(os.getpid()):
        return None
    try:
        usec = int(os.environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec / 1_000_000 if usec > 0 else None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
