"""What every codec's session is: the timing it runs on, its counters, its interface.

A codec is a factory for a :class:`LinkSession`, a sans-I/O state machine that turns
received bytes into typed messages and owner calls (ack, lock) into bytes to send. The
codec modules (:mod:`firmware_bridge.framed`, :mod:`firmware_bridge.lines`) implement it;
:mod:`firmware_bridge.codecs` names them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from firmware_bridge.messages import ShoeMessage, StoredPosition


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
    read_timeout: float = 0.02  # port read slice: how often the session's timers run (commands wake it)


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
