"""Host side of the framed shoe protocol (codec ``framed``): a sans-I/O state machine.

Link states: DOWN (no port) -> HANDSHAKE (port open, RESUME sent, waiting for
HELLO) -> UP (events flow). The shoe numbers every event (``seq``); the host
accepts events strictly in order, drops duplicates, NAKs gaps, and sends a
cumulative ACK whose ``received`` stops retransmission and whose ``stored``
lets the shoe forget. ``stored`` only moves past a card event once the owner
has called :meth:`FramedSession.ack` for it, so an unstored card survives any
reconnect. Each event is delivered to the owner at most once per session
object; a card event is recognised again by (shoe id, position) even if the
shoe restarted, so duplicates are harmless. See docs/shoe-protocol.md.
"""

from __future__ import annotations

import enum
import logging
import math
from collections import deque
from dataclasses import dataclass

from firmware_bridge.session import LinkStats, LinkTiming
from firmware_bridge.framing import FrameDecoder, encode_frame
from firmware_bridge.messages import (
    Button,
    Card,
    CutCard,
    Fault,
    FaultKind,
    HelloInfo,
    LinkDown,
    LinkUp,
    ShoeLoaded,
    ShoeMessage,
    Status,
    StoredPosition,
    is_card_code,
)
from firmware_bridge.wire import (
    EVENT_TYPES,
    PacketType,
    PROTOCOL_VERSION,
    UNKNOWN_COUNT,
    Ack,
    ButtonEvent,
    CardEvent,
    CutCardEvent,
    Event,
    FaultEvent,
    Hello,
    Lock,
    Nak,
    Packet,
    Resume,
    ShoeLoadedEvent,
    StatusFlags,
    StatusPacket,
    UnknownEvent,
    Unlock,
    WireError,
    WireFaultKind,
    decode_packet,
    encode_packet,
)

log = logging.getLogger(__name__)

# What the pit is told when the shoe falls silent (the timer behind it goes in the detail and the log).
NO_ANSWER = "the shoe does not answer"

_FAULT_KINDS: dict[int, FaultKind] = {  # keyed by the wire byte: an IntEnum member is equal to its int
    WireFaultKind.JAM: FaultKind.JAM,
    WireFaultKind.UNREADABLE: FaultKind.UNREADABLE,
    WireFaultKind.LID_OPEN: FaultKind.LID_OPEN,
    WireFaultKind.OTHER: FaultKind.OTHER,
}
@dataclass(frozen=True, slots=True)
class _UnreadableEvent:
    """An event whose seq could be read but whose body could not: it keeps its place in the stream."""

    type: int
    seq: int
    reason: str


def _unreadable_event(body: bytes, exc: WireError) -> _UnreadableEvent | None:
    if len(body) < 5 or body[0] not in EVENT_TYPES:
        return None  # not an event (or not even its seq): nothing in the stream waits for it
    return _UnreadableEvent(body[0], int.from_bytes(body[1:5], "big"), str(exc))


_EVENT_TYPES = (ShoeLoadedEvent, CardEvent, CutCardEvent, ButtonEvent, FaultEvent, UnknownEvent, _UnreadableEvent)
_StreamEvent = Event | _UnreadableEvent  # what takes a seq in the shoe's event stream


class LinkState(enum.Enum):
    """Where the host side of the link is."""

    DOWN = "down"
    HANDSHAKE = "handshake"
    UP = "up"


@dataclass(slots=True)
class _Pending:
    """An event delivered to the owner but not yet covered by the cumulative ``stored``."""

    seq: int
    key: StoredPosition | None  # set for card events, which wait for the owner's ack
    released: bool


class FramedSession:
    """Host-side state machine of the framed protocol; see the module docstring."""

    codec = "framed"

    def __init__(self, stored: StoredPosition | None, timing: LinkTiming, port_name: str = "") -> None:
        self.stats = LinkStats()
        self._timing = timing
        self._port_name = port_name
        self._stored = stored
        self._last_card = stored  # the highest card delivered (or that the owner had stored)
        self._codes: dict[int, str | None] = {}  # what each position of that shoe held, as delivered
        self._decoder = FrameDecoder()
        self._out: list[bytes] = []
        self.state = LinkState.DOWN
        self._down_reported = False
        self._wants_reopen = False
        self._token = 0
        self._boot: int | None = None
        self._expected = 0
        self._delivered_seq = 0
        self._stored_seq = 0
        self._pending: deque[_Pending] = deque()
        self._ack_dirty = False
        self._want_locked: bool | None = None
        self._shoe_locked: bool | None = None
        self._now = 0.0
        self._last_rx = 0.0
        self._connect_time = 0.0
        self._last_resume = -math.inf
        self._last_ack_sent = -math.inf
        self._last_lock_sent = -math.inf
        self._nak_seq = -1
        self._nak_time = -math.inf

    # --- what the driver asks -------------------------------------------

    @property
    def wants_reopen(self) -> bool:
        """True once the session has judged the link dead and the port should be reopened."""
        return self._wants_reopen

    @property
    def stored(self) -> StoredPosition | None:
        """The resume point: the last card event the owner acknowledged, in stream order."""
        return self._stored

    def connected(self, now: float) -> list[ShoeMessage]:
        """The port has just been (re)opened: start the handshake."""
        self._decoder.reset()
        self._wants_reopen = False
        self._begin_handshake(now)
        return []

    def port_lost(self, reason: str, now: float, detail: str = "") -> list[ShoeMessage]:
        """The port failed; tell the owner once per outage."""
        self._now = now
        self.state = LinkState.DOWN
        return self._report_down(reason, detail)

    def receive(self, data: bytes, now: float) -> list[ShoeMessage]:
        """Decode ``data``; returns the messages to deliver. Never raises on bad bytes."""
        self._now = now
        msgs: list[ShoeMessage] = []
        for body in self._decoder.feed(data):
            packet: Packet | _UnreadableEvent
            try:
                packet = decode_packet(body)
            except WireError as exc:
                self.stats.bad_packets += 1
                unreadable = _unreadable_event(body, exc)
                if unreadable is None:
                    log.debug("undecodable packet %s: %s", body[:8].hex(), exc)
                    continue
                # An event with a good CRC but a body that does not parse: the shoe would resend it
                # forever. It takes its place in the stream as a fault, so the link moves on.
                log.warning("shoe event %d could not be read: %s", unreadable.seq, exc)
                packet = unreadable
            self._last_rx = now
            self._handle(packet, now, msgs)
        ds = self._decoder.stats
        self.stats.frames = ds.frames
        self.stats.bad_frames = ds.bad_crc + ds.too_short + ds.overlong
        return msgs

    def tick(self, now: float) -> list[ShoeMessage]:
        """Run the timers: RESUME retries, handshake and heartbeat timeouts, ACK keepalive."""
        self._now = now
        t = self._timing
        msgs: list[ShoeMessage] = []
        if self.state is LinkState.HANDSHAKE:
            if now - self._last_resume >= t.resume_interval:
                self._send_resume(now)
            if now - self._connect_time >= t.handshake_timeout and not self._wants_reopen:
                msgs += self._report_down(NO_ANSWER, f"no answer from the shoe for {t.handshake_timeout:g} s")
                self._wants_reopen = True
        elif self.state is LinkState.UP:
            silent = now - self._last_rx
            if silent >= t.heartbeat_timeout:
                self.state = LinkState.DOWN
                self._wants_reopen = True
                msgs += self._report_down(NO_ANSWER, f"no heartbeat from the shoe for {silent:.1f} s")
            else:
                if now - self._last_ack_sent >= t.ack_interval:
                    self._ack_dirty = True
                self._reconcile_lock(now)
        return msgs

    def ack(self, shoe_id: str, position: int) -> None:
        """The owner stored card event ``position`` of ``shoe_id``: let the shoe forget it."""
        key = StoredPosition(shoe_id, position)
        for entry in self._pending:
            if entry.key == key:
                entry.released = True
                break
        else:
            log.debug("ack for %s/%d which is not awaiting an ack", shoe_id, position)
            return
        self._advance()
        self._ack_dirty = True

    def set_locked(self, locked: bool, now: float) -> None:
        """Ask the shoe to hold its gate shut (or open); kept until STATUS agrees."""
        self._now = now
        self._want_locked = locked
        if self.state is LinkState.UP:
            self._send_lock(now)

    def take_output(self) -> bytes:
        """Bytes to write to the port now."""
        if self._ack_dirty and self.state is LinkState.UP:
            self._send(Ack(self._expected - 1, self._stored_seq))
            self._last_ack_sent = self._now
            self._ack_dirty = False
        if not self._out:
            return b""
        out = b"".join(self._out)
        self._out.clear()
        return out

    # --- internals --------------------------------------------------------

    def _send(self, packet: Packet) -> None:
        self._out.append(encode_frame(encode_packet(packet)))

    def _report_down(self, reason: str, detail: str = "") -> list[ShoeMessage]:
        if self._down_reported:
            return []
        self._down_reported = True
        log.warning("shoe link down: %s (%s)", reason, detail)
        return [LinkDown(reason, detail)]

    def _begin_handshake(self, now: float) -> None:
        self.state = LinkState.HANDSHAKE
        self._token = self._token % 0xFFFF + 1
        self._connect_time = now
        self._last_rx = now
        self._send_resume(now)

    def _send_resume(self, now: float) -> None:
        s = self._stored
        self._send(Resume(self._token, s.position if s else 0, s.shoe_id if s else ""))
        self._last_resume = now

    def _send_lock(self, now: float) -> None:
        self._send(Lock() if self._want_locked else Unlock())
        self._last_lock_sent = now

    def _reconcile_lock(self, now: float) -> None:
        if (
            self._want_locked is not None
            and self._shoe_locked is not None
            and self._shoe_locked != self._want_locked
            and now - self._last_lock_sent >= self._timing.lock_retry
        ):
            self._send_lock(now)

    def _handle(self, packet: Packet | _UnreadableEvent, now: float, msgs: list[ShoeMessage]) -> None:
        if isinstance(packet, _EVENT_TYPES):
            if self.state is LinkState.UP:
                self._on_event(packet, now, msgs)
            # Before HELLO we do not know where the stream starts: the shoe resends later.
        elif isinstance(packet, StatusPacket):
            self._on_status(packet, now, msgs)
        elif isinstance(packet, Hello):
            self._on_hello(packet, now, msgs)
        else:
            log.debug("ignoring host-bound packet %r (echo?)", packet)

    def _on_hello(self, hello: Hello, now: float, msgs: list[ShoeMessage]) -> None:
        if self.state is not LinkState.HANDSHAKE or hello.token != self._token:
            return  # a late duplicate of an answer we already acted on
        if hello.version != PROTOCOL_VERSION:
            msgs += self._report_down(
                "the shoe speaks another protocol version",
                f"shoe speaks protocol version {hello.version}, this bridge speaks {PROTOCOL_VERSION}",
            )
            return
        if hello.boot_id != self._boot:
            # A different boot numbers its events afresh: old seqs mean nothing now.
            self._pending.clear()
            self._delivered_seq = 0
        self._boot = hello.boot_id
        # Seqs start at 1; a shoe announcing 0 would otherwise make us ACK -1.
        self._expected = max(1, hello.next_seq)
        # The shoe forgot everything before next_seq when it took our RESUME.
        self._stored_seq = self._expected - 1
        self.state = LinkState.UP
        self._down_reported = False
        self.stats.reconnects += 1
        info = HelloInfo(
            codec=self.codec,
            protocol_version=hello.version,
            firmware=hello.firmware,
            serial=hello.serial,
            boot_id=hello.boot_id,
            can_lock=True,
            acks=True,
        )
        log.info("shoe link up: serial %s firmware %s, resuming at event %d", hello.serial, hello.firmware, hello.next_seq)
        msgs.append(LinkUp(info))
        self._ack_dirty = True
        if self._want_locked is not None:
            self._send_lock(now)

    def _on_status(self, status: StatusPacket, now: float, msgs: list[ShoeMessage]) -> None:
        if self.state is not LinkState.UP:
            return
        if status.boot_id != self._boot:
            msgs += self._report_down("the shoe restarted", f"boot id {status.boot_id}, was {self._boot}")
            self._begin_handshake(now)
            return
        self._shoe_locked = bool(status.flags & StatusFlags.LOCKED)
        self._reconcile_lock(now)
        if status.next_seq > self._expected:
            self._nak(now)  # the last event was lost and nothing followed it yet
        msgs.append(
            Status(
                shoe_id=status.shoe_id,
                position=status.position,
                cards_left=None if status.cards_left == UNKNOWN_COUNT else status.cards_left,
                locked=self._shoe_locked,
                cut_card_out=bool(status.flags & StatusFlags.CUT_CARD_OUT),
                jammed=bool(status.flags & StatusFlags.JAMMED),
                lid_open=bool(status.flags & StatusFlags.LID_OPEN),
                unacked=status.unacked,
            )
        )

    def _on_event(self, event: _StreamEvent, now: float, msgs: list[ShoeMessage]) -> None:
        seq = event.seq
        if seq < self._expected:
            self.stats.duplicates += 1
            self._ack_dirty = True  # our ACK was probably lost: repeat it
            return
        if seq > self._expected:
            self._nak(now)
            return
        self._expected += 1
        self._ack_dirty = True
        if seq <= self._delivered_seq:
            self.stats.duplicates += 1  # resent after a reconnect; the owner has it
            return
        self._delivered_seq = seq
        msg, key = self._to_message(event)
        code = msg.code if isinstance(msg, Card) else None
        if key is not None and self._is_resend(key, code):
            self.stats.duplicates += 1
            self._pending.append(_Pending(seq, None, True))
            self._advance()
            return
        self._pending.append(_Pending(seq, key, key is None))
        if key is not None:
            self._note_card(key, code)
        msgs.append(msg)
        self.stats.delivered += 1
        self._advance()

    def _is_resend(self, key: StoredPosition, code: str | None) -> bool:
        # A card at a position already delivered is the same card sent again only if its code is
        # the same: a different card there must reach the owner (the shoe went back), and one this
        # session never saw goes to the owner too, who knows what it has stored.
        last = self._last_card
        if last is None or last.shoe_id != key.shoe_id or key.position > last.position:
            return False
        seen = self._codes.get(key.position)
        return seen is not None and seen == code

    def _note_card(self, key: StoredPosition, code: str | None) -> None:
        last = self._last_card
        if last is None or last.shoe_id != key.shoe_id:
            self._codes = {}  # a new shoe: its positions start again
        self._codes.setdefault(key.position, code)
        if last is None or last.shoe_id != key.shoe_id or key.position > last.position:
            self._last_card = key

    def _nak(self, now: float) -> None:
        if self._nak_seq == self._expected and now - self._nak_time < self._timing.nak_interval:
            return
        self._nak_seq = self._expected
        self._nak_time = now
        self._send(Nak(self._expected))
        self.stats.naks_sent += 1

    def _advance(self) -> None:
        pending = self._pending
        while pending and pending[0].released:
            entry = pending.popleft()
            self._stored_seq = entry.seq
            if entry.key is not None:
                self._stored = entry.key

    @staticmethod
    def _to_message(event: _StreamEvent) -> tuple[ShoeMessage, StoredPosition | None]:
        if isinstance(event, CardEvent):
            key = StoredPosition(event.shoe_id, event.position)
            if is_card_code(event.code):
                return Card(event.shoe_id, event.position, event.code), key
            # A card left the shoe but we cannot say which: the owner must hear it.
            detail = f"card code {event.code!r} is not a valid code"
            return Fault(FaultKind.UNREADABLE, event.shoe_id, event.position, detail), key
        if isinstance(event, ShoeLoadedEvent):
            return ShoeLoaded(event.shoe_id, event.card_count or None, event.pack), None
        if isinstance(event, CutCardEvent):
            return CutCard(event.shoe_id, event.position), None
        if isinstance(event, ButtonEvent):
            return Button(event.name), None
        if isinstance(event, _UnreadableEvent):
            what = "a card" if event.type == PacketType.CARD else f"an event of type 0x{event.type:02X}"
            detail = (f"{what} from the shoe could not be read (event {event.seq}: {event.reason}); "
                      "if it was a card, the shoe's count shows it missing")
            return Fault(FaultKind.BAD_DATA, "", None, detail), None
        if isinstance(event, UnknownEvent):
            detail = f"unknown event type 0x{event.type:02X} from the shoe (newer firmware?)"
            return Fault(FaultKind.OTHER, "", None, detail), None
        kind = _FAULT_KINDS.get(event.kind, FaultKind.OTHER)
        detail = event.detail if event.kind in _FAULT_KINDS else f"fault kind {event.kind}: {event.detail}"
        if event.position:
            return Fault(kind, event.shoe_id, event.position, detail), StoredPosition(event.shoe_id, event.position)
        return Fault(kind, event.shoe_id, None, detail), None


def new_session(stored: StoredPosition | None, timing: LinkTiming, port_name: str) -> FramedSession:
    """A session of the ``framed`` codec."""
    return FramedSession(stored, timing, port_name)
