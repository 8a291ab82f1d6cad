"""The codec registry: how a shoe's wire protocol plugs into the bridge.

A codec is a factory for a :class:`LinkSession`, a sans-I/O state machine
that turns received bytes into typed messages and owner calls (ack, lock)
into bytes to send. Time is always passed in, never read, so sessions are
tested without clocks. The port thread in :mod:`firmware_bridge.link` drives
whichever session the configured codec name selects; adding a shoe with
another protocol means registering one more factory, nothing else.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Protocol

from firmware_bridge.messages import ShoeMessage, StoredPosition

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LinkTiming:
    """Timeouts and intervals of the host side, in seconds."""

    heartbeat_timeout: float = 3.0  # no good frame for this long: link down
    resume_interval: float = 0.5  # resend RESUME until HELLO answers
    handshake_timeout: float = 3.0  # no HELLO for this long: reopen the port
    ack_interval: float = 1.0  # repeat the current ACK (the host's heartbeat)
    nak_interval: float = 0.2  # at most one NAK per missing event per interval
    lock_retry: float = 0.5  # resend LOCK/UNLOCK while STATUS disagrees
    reopen_backoff_initial: float = 0.05
    reopen_backoff_max: float = 2.0
    read_timeout: float = 0.02  # port read slice; bounds ack/lock latency


@dataclass(slots=True)
class LinkStats:
    """Counters of one link, for the monitor and the benchmark."""

    frames: int = 0
    bad_frames: int = 0
    bad_packets: int = 0
    duplicates: int = 0
    naks_sent: int = 0
    reconnects: int = 0
    delivered: int = 0
    extra: dict[str, int] = field(default_factory=dict)


class LinkSession(Protocol):
    """The host side of one wire protocol, without I/O."""

    codec: str
    stats: LinkStats

    @property
    def wants_reopen(self) -> bool:
        """True once the session has judged the link dead and the port should be reopened."""
        ...

    @property
    def stored(self) -> StoredPosition | None:
        """The resume point: the last card event the owner has acknowledged, in order."""
        ...

    def connected(self, now: float) -> list[ShoeMessage]:
        """The port has just been (re)opened."""
        ...

    def port_lost(self, reason: str, now: float, detail: str = "") -> list[ShoeMessage]:
        """The port failed or was closed; returns LinkDown (human reason, technical detail) if the owner has not heard yet."""
        ...

    def receive(self, data: bytes, now: float) -> list[ShoeMessage]:
        """Bytes arrived; returns the messages to deliver, in order. Never raises on bad bytes."""
        ...

    def tick(self, now: float) -> list[ShoeMessage]:
        """Run timers (heartbeat loss, retries)."""
        ...

    def ack(self, shoe_id: str, position: int) -> None:
        """The owner has stored card event ``position`` of ``shoe_id``."""
        ...

    def set_locked(self, locked: bool, now: float) -> None:
        """The owner wants the card gate shut (True) or open (False)."""
        ...

    def take_output(self) -> bytes:
        """Bytes to write to the port now (and forget)."""
        ...


SessionFactory = Callable[[StoredPosition | None, LinkTiming, str], LinkSession]

_REGISTRY: dict[str, SessionFactory] = {}


class UnknownCodec(ValueError):
    """The configured codec name is not registered."""


def register_codec(name: str, factory: SessionFactory) -> None:
    """Make ``factory(stored, timing, port_name)`` available under ``name``."""
    _REGISTRY[name] = factory


def codec_names() -> list[str]:
    """Names of the registered codecs, sorted."""
    _load_builtins()
    return sorted(_REGISTRY)


def make_session(name: str, stored: StoredPosition | None, timing: LinkTiming, port_name: str) -> LinkSession:
    """Create a session of the codec called ``name``."""
    _load_builtins()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise UnknownCodec(f"unknown codec {name!r} (known: {', '.join(sorted(_REGISTRY))})") from None
    return factory(stored, timing, port_name)


def _load_builtins() -> None:
    # Imported here, not at module top, so the codec modules can import this one.
    from firmware_bridge import framed, lines  # noqa: F401
