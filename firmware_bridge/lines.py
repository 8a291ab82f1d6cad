"""Codec ``lines``: one card code per line, as a barcode or RFID reader sends them.

There is no handshake, no acknowledgement and no heartbeat on such a line, so
the link is "up" as soon as the port opens, positions are assigned here by
counting (continuing from the resume point), ``ack`` has nothing to send and
the gate cannot be locked (``HelloInfo.can_lock`` is False). A line that is
not a card code is reported as a BAD_DATA fault, never dropped silently.
"""

from __future__ import annotations

import logging

from firmware_bridge.session import LinkStats, LinkTiming
from firmware_bridge.messages import (
    Card,
    Fault,
    FaultKind,
    HelloInfo,
    LinkDown,
    LinkUp,
    ShoeMessage,
    StoredPosition,
    is_card_code,
)

log = logging.getLogger(__name__)

DEFAULT_SHOE_ID = "lines"
MAX_LINE = 256


class LinesSession:
    """Host side of the ``lines`` codec; see the module docstring."""

    codec = "lines"

    def __init__(self, stored: StoredPosition | None, timing: LinkTiming, port_name: str = "") -> None:
        self.stats = LinkStats()
        self._port_name = port_name
        self._shoe_id = stored.shoe_id if stored else DEFAULT_SHOE_ID
        self._position = stored.position if stored else 0
        self._stored = stored
        self._buf = b""
        self._up = False
        self._down_reported = False

    @property
    def wants_reopen(self) -> bool:
        """A line reader is silent between cards, so silence never means the link is dead."""
        return False

    @property
    def stored(self) -> StoredPosition | None:
        """The last position the owner acknowledged."""
        return self._stored

    def connected(self, now: float) -> list[ShoeMessage]:
        """The port opened: with no handshake to wait for, the link is up."""
        self._buf = b""
        self._up = True
        self._down_reported = False
        self.stats.reconnects += 1
        info = HelloInfo(
            codec=self.codec, protocol_version=0, firmware="", serial=self._port_name, boot_id=0, can_lock=False, acks=False
        )
        return [LinkUp(info)]

    def port_lost(self, reason: str, now: float, detail: str = "") -> list[ShoeMessage]:
        """Tell the owner once per outage."""
        self._up = False
        if self._down_reported:
            return []
        self._down_reported = True
        log.warning("shoe link down: %s (%s)", reason, detail)
        return [LinkDown(reason, detail)]

    def receive(self, data: bytes, now: float) -> list[ShoeMessage]:
        """Split ``data`` into lines; each good line is the next card."""
        buf = self._buf + data
        *lines, rest = buf.replace(b"\r", b"\n").split(b"\n")
        msgs: list[ShoeMessage] = []
        if len(rest) > MAX_LINE:
            msgs.append(self._bad(rest[:32], "line too long"))
            rest = b""
        self._buf = rest
        for raw in lines:
            text = raw.strip()
            if not text:
                continue  # CR LF endings and blank lines are not data
            code = text.decode("ascii", errors="replace").upper()
            if is_card_code(code):
                self._position += 1
                self.stats.frames += 1
                self.stats.delivered += 1
                msgs.append(Card(self._shoe_id, self._position, code))
            else:
                msgs.append(self._bad(text, "not a card code"))
        return msgs

    def _bad(self, raw: bytes, why: str) -> Fault:
        self.stats.bad_frames += 1
        return Fault(FaultKind.BAD_DATA, self._shoe_id, None, f"{why}: {raw[:32]!r}")

    def tick(self, now: float) -> list[ShoeMessage]:
        """No timers on a line reader."""
        return []

    def ack(self, shoe_id: str, position: int) -> None:
        """Nothing goes back on the wire; the resume point still follows the owner."""
        self._stored = StoredPosition(shoe_id, position)

    def set_locked(self, locked: bool, now: float) -> None:
        """A line reader has no gate: say so in the log (HelloInfo.can_lock is False)."""
        log.warning("codec 'lines' cannot %s the shoe; ignoring", "lock" if locked else "unlock")

    def take_output(self) -> bytes:
        """A line reader is never written to."""
        return b""


def new_session(stored: StoredPosition | None, timing: LinkTiming, port_name: str) -> LinesSession:
    """A session of the ``lines`` codec."""
    return LinesSession(stored, timing, port_name)
