"""The codec registry: how a shoe's wire protocol plugs into the bridge.

A codec is a factory for a :class:`~firmware_bridge.session.LinkSession`, a sans-I/O state machine
that turns received bytes into typed messages and owner calls (ack, lock)
into bytes to send. Time is always passed in, never read, so sessions are
tested without clocks. The port thread in :mod:`firmware_bridge.link` drives
whichever session the configured codec name selects; adding a shoe with
another protocol means registering one more factory, nothing else.
"""

from __future__ import annotations

import logging

from firmware_bridge import framed, lines
from firmware_bridge.messages import StoredPosition
from firmware_bridge.session import LinkSession, LinkStats, LinkTiming, SessionFactory

__all__ = ["LinkSession", "LinkStats", "LinkTiming", "SessionFactory", "UnknownCodec", "codec_names",
           "make_session", "register_codec"]

log = logging.getLogger(__name__)


# The built-in codecs, declared here in one place (a codec module never registers itself).
_REGISTRY: dict[str, SessionFactory] = {
    "framed": framed.new_session,
    "lines": lines.new_session,
}


class UnknownCodec(ValueError):
    """The configured codec name is not registered."""


def register_codec(name: str, factory: SessionFactory) -> None:
    """Make ``factory(stored, timing, port_name)`` available under ``name`` (a shoe outside this package)."""
    _REGISTRY[name] = factory


def codec_names() -> list[str]:
    """Names of the registered codecs, sorted."""
    return sorted(_REGISTRY)


def make_session(name: str, stored: StoredPosition | None, timing: LinkTiming, port_name: str) -> LinkSession:
    """Create a session of the codec called ``name``."""
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise UnknownCodec(f"unknown codec {name!r} (known: {', '.join(sorted(_REGISTRY))})") from None
    return factory(stored, timing, port_name)
