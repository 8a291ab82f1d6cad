"""The host session of the framed protocol, against the real shoe core, in simulated time.

No clocks and no threads: both ends are sans-I/O state machines, so time is a
number the test advances and every run is the same.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.codecs import LinkTiming
from firmware_bridge.framed import FramedSession, LinkState
from firmware_bridge.framing import FrameDecoder, encode_frame
from firmware_bridge.messages import (
    Card,
    CutCard,
    Fault,
    FaultKind,
    LinkDown,
    LinkUp,
    ShoeLoaded,
    ShoeMessage,
    Status,
    StoredPosition,
)
from firmware_bridge.wire import (
    Ack,
    CardEvent,
    Hello,
    Lock,
    Nak,
    Resume,
    StatusFlags,
    StatusPacket,
    decode_packet,
    encode_packet,
)
from simulators.shoe.core import DealRefused, Released, ShoeConfig, ShoeCore, ShoeFault


class Pair:
    """A FramedSession and a ShoeCore joined by a simulated cable."""

    def __init__(
        self,
        stored: StoredPosition | None = None,
        core: ShoeCore | None = None,
        loss: random.Random | None = None,
        spoil: float = 0.0,
        cut_at: int | None = None,
    ) -> None:
        self.now = 0.0
        self.core = core or ShoeCore(ShoeConfig(seed=3, decks=1, boot_id=7, cut_at=cut_at), random.Random(0), 0.0)
        if core is None:
            self.core.load("S1")
        self.host = FramedSession(stored, LinkTiming())
        self.shoe_decoder = FrameDecoder()
        self.loss = loss
        self.spoil = spoil
        self.msgs: list[ShoeMessage] = []
        self.auto_ack = False
        self.plugged = True

    def connect(self) -> None:
        self.plugged = True
        self.msgs += self.host.connected(self.now)

    def unplug(self) -> None:
        self.plugged = False
        self.core.link_reset()
        self.msgs += self.host.port_lost("unplugged", self.now)

    def _mangle(self, frame: bytes) -> bytes:
        if self.loss is None or self.loss.random() >= self.spoil:
            return frame
        how = self.loss.randrange(3)
        if how == 0:
            return b""
        if how == 1:
            return frame + frame
        spoilt = bytearray(frame)
        spoilt[self.loss.randrange(len(spoilt))] ^= self.loss.randrange(1, 256)
        return bytes(spoilt)

    def step(self, dt: float = 0.01) -> list[ShoeMessage]:
        self.now += dt
        new: list[ShoeMessage] = []
        if self.plugged:
            for body in self.shoe_decoder.feed(self.host.take_output()):
                if self.loss is None or self.loss.random() >= self.spoil / 3:
                    self.core.on_body(body, self.now)
            wire = b"".join(self._mangle(encode_frame(b)) for b in self.core.poll(self.now))
            new += self.host.receive(wire, self.now)
        else:
            self.core.poll(self.now)
        new += self.host.tick(self.now)
        for m in new:
            if self.auto_ack and isinstance(m, Card):
                self.host.ack(m.shoe_id, m.position)
        self.msgs += new
        return new

    def run(self, seconds: float) -> None:
        for _ in range(int(seconds / 0.01)):
            self.step()

    def deal(self, n: int) -> list[Released]:
        out = []
        for _ in range(n):
            r = self.core.deal()
            assert isinstance(r, Released), r
            out.append(r)
        return out

    def cards(self) -> list[tuple[str, int, str]]:
        return [(m.shoe_id, m.position, m.code) for m in self.msgs if isinstance(m, Card)]


def test_handshake_brings_the_link_up_with_the_hello_info() -> None:
    pair = Pair()
    pair.connect()
    resume = decode_packet(FrameDecoder().feed(pair.host.take_output())[0])
    assert resume == Resume(1, 0, "")
    pair = Pair()
    pair.connect()
    pair.run(0.05)
    ups = [m for m in pair.msgs if isinstance(m, LinkUp)]
    assert len(ups) == 1
    assert ups[0].hello.serial == "SIM-0001" and ups[0].hello.protocol_version == 1 and ups[0].hello.can_lock
    events = [m for m in pair.msgs if not isinstance(m, Status)]
    assert events[1] == ShoeLoaded("S1", 52)


def test_cards_flow_in_order_and_acks_let_the_shoe_forget() -> None:
    pair = Pair()
    pair.connect()
    released = pair.deal(10)
    pair.run(0.1)
    assert pair.cards() == [("S1", r.position, r.card) for r in released]
    assert pair.core.unacked == 10  # the cards; SHOE_LOADED needs no owner ack
    for shoe_id, position, _ in pair.cards():
        pair.host.ack(shoe_id, position)
    pair.run(0.05)
    assert pair.core.unacked == 0
    assert pair.host.stored == StoredPosition("S1", 10)


def test_acks_out_of_order_only_advance_the_stored_point_contiguously() -> None:
    pair = Pair()
    pair.connect()
    pair.deal(3)
    pair.run(0.1)
    pair.host.ack("S1", 3)
    pair.host.ack("S1", 1)
    pair.run(0.05)
    assert pair.host.stored == StoredPosition("S1", 1)
    assert pair.core.unacked == 2  # cards 2 and 3
    pair.host.ack("S1", 2)
    pair.run(0.05)
    assert pair.host.stored == StoredPosition("S1", 3) and pair.core.unacked == 0


def test_an_unstored_card_is_sent_again_after_a_reconnect() -> None:
    pair = Pair()
    pair.connect()
    pair.deal(3)
    pair.run(0.1)
    pair.host.ack("S1", 1)
    pair.host.ack("S1", 2)  # the owner never stores card 3
    pair.run(0.05)
    assert pair.core.unacked == 1
    pair.unplug()
    pair.run(0.5)
    pair.connect()
    before = pair.host.stats.duplicates
    pair.run(0.2)
    # On the wire card 3 came again; the same session knows it delivered it, so the owner is not bothered.
    assert pair.host.stats.duplicates > before
    assert [p for _, p, _ in pair.cards()] == [1, 2, 3]
    # An owner that restarts with what it really stored gets card 3 again.
    again = Pair(stored=StoredPosition("S1", 2), core=pair.core)
    again.connect()
    again.run(0.2)
    assert again.cards() == [pair.cards()[2]]
    assert not any(isinstance(m, ShoeLoaded) for m in again.msgs)


def test_a_lossy_cable_delivers_every_card_exactly_once_in_order() -> None:
    pair = Pair(loss=random.Random(5), spoil=0.3)
    pair.auto_ack = True
    pair.connect()
    released: list[Released] = []
    for i in range(52):
        released += pair.deal(1)
        pair.run(0.05)
        if i in (13, 30):
            pair.unplug()
            pair.run(0.3)
            pair.connect()
    pair.run(5.0)
    assert pair.cards() == [("S1", r.position, r.card) for r in released]
    assert pair.core.unacked == 0
    assert pair.host.stats.naks_sent > 0 and pair.host.stats.bad_frames > 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 0.5), st.lists(st.integers(0, 51), max_size=4))
def test_property_exactly_once_in_order_for_any_fault_pattern(seed: int, spoil: float, unplug_at: list[int]) -> None:
    pair = Pair(loss=random.Random(seed), spoil=spoil)
    pair.auto_ack = True
    pair.connect()
    released: list[Released] = []
    for i in range(52):
        released += pair.deal(1)
        pair.step()
        if i in unplug_at:
            pair.unplug()
            pair.run(0.2)
            pair.connect()
    for _ in range(3000):
        pair.step(0.02)
        if len(pair.cards()) == 52 and pair.core.unacked == 0:
            break
    assert pair.cards() == [("S1", r.position, r.card) for r in released]


def test_cut_card_arrives_before_the_card_behind_it() -> None:
    pair = Pair(cut_at=5)
    pair.connect()
    pair.deal(6)
    pair.run(0.1)
    kinds = [(type(m).__name__, getattr(m, "position", None)) for m in pair.msgs if not isinstance(m, (Status, LinkUp))]
    assert kinds.index(("CutCard", 5)) == kinds.index(("Card", 4)) + 1
    assert kinds.index(("Card", 5)) == kinds.index(("CutCard", 5)) + 1
    assert [m for m in pair.msgs if isinstance(m, CutCard)] == [CutCard("S1", 5)]


def test_unreadable_card_is_a_fault_that_takes_its_position() -> None:
    pair = Pair()
    pair.connect()
    pair.deal(1)
    pair.core.fault(ShoeFault.UNREADABLE)
    pair.deal(2)
    pair.run(0.1)
    faults = [m for m in pair.msgs if isinstance(m, Fault)]
    assert faults == [Fault(FaultKind.UNREADABLE, "S1", 2, "card could not be read")]
    assert [p for _, p, _ in pair.cards()] == [1, 3]
    pair.host.ack("S1", 1)
    pair.run(0.05)
    assert pair.core.unacked == 2  # the unread card waits for its ack like any card
    pair.host.ack("S1", 2)
    pair.host.ack("S1", 3)
    pair.run(0.05)
    assert pair.core.unacked == 0


def test_lock_is_sent_and_repeated_until_the_shoe_reports_it() -> None:
    pair = Pair()
    pair.connect()
    pair.run(0.05)
    pair.host.set_locked(True, pair.now)
    sent = [decode_packet(b) for b in FrameDecoder().feed(pair.host.take_output())]
    assert Lock() in sent  # (this copy never reached the shoe)
    assert pair.core.locked is False
    pair.run(1.5)  # the next STATUS still says unlocked, so the host says it again
    assert pair.core.locked is True
    assert pair.core.deal() is DealRefused.LOCKED
    assert [m for m in pair.msgs if isinstance(m, Status)][-1].locked
    pair.host.set_locked(False, pair.now)
    pair.run(0.05)
    assert isinstance(pair.core.deal(), Released)


def test_silence_means_link_down_once_then_reopen() -> None:
    pair = Pair()
    pair.connect()
    pair.run(0.1)
    pair.plugged = False  # the shoe goes silent without any port error
    pair.run(3.1)
    downs = [m for m in pair.msgs if isinstance(m, LinkDown)]
    assert len(downs) == 1 and "heartbeat" in downs[0].detail and downs[0].reason == "the shoe does not answer"
    assert pair.host.wants_reopen
    assert pair.host.port_lost("cannot open", pair.now) == []  # the owner already knows
    pair.connect()
    pair.run(0.1)
    assert isinstance(pair.msgs[-1], (LinkUp, ShoeLoaded, Status))
    assert sum(isinstance(m, LinkUp) for m in pair.msgs) == 2


def _frames(*packets: object) -> bytes:
    return b"".join(encode_frame(encode_packet(p)) for p in packets)  # type: ignore[arg-type]


def _up(session: FramedSession, next_seq: int = 1, boot: int = 9) -> None:
    session.connected(0.0)
    session.take_output()
    assert isinstance(session.receive(_frames(Hello(1, 1, boot, next_seq, "fw", "sn")), 0.0)[0], LinkUp)


def test_a_gap_is_nakked_once_and_a_duplicate_reacked() -> None:
    session = FramedSession(None, LinkTiming())
    _up(session)
    session.take_output()
    out = session.receive(_frames(CardEvent(1, 1, "AS", "X"), CardEvent(3, 3, "KD", "X"), CardEvent(3, 3, "KD", "X")), 0.1)
    assert out == [Card("X", 1, "AS")]
    sent = [decode_packet(b) for b in FrameDecoder().feed(session.take_output())]
    assert sent.count(Nak(2)) == 1 and Ack(1, 0) in sent
    session.receive(_frames(CardEvent(1, 1, "AS", "X")), 0.2)
    assert session.stats.duplicates == 1
    assert [decode_packet(b) for b in FrameDecoder().feed(session.take_output())] == [Ack(1, 0)]


def test_version_mismatch_is_reported_not_accepted() -> None:
    session = FramedSession(None, LinkTiming())
    session.connected(0.0)
    out = session.receive(_frames(Hello(1, 2, 9, 1, "fw", "sn")), 0.1)
    assert out == [LinkDown("the shoe speaks another protocol version", "shoe speaks protocol version 2, this bridge speaks 1")]
    assert session.state is LinkState.HANDSHAKE


def test_a_restarted_shoe_is_noticed_from_its_status() -> None:
    session = FramedSession(None, LinkTiming())
    _up(session, boot=9)
    session.take_output()
    out = session.receive(_frames(StatusPacket(10, StatusFlags.NONE, 0, 52, 0, 1, "X")), 0.5)
    assert out == [LinkDown("the shoe restarted", "boot id 10, was 9")]
    assert session.state is LinkState.HANDSHAKE
    assert isinstance(decode_packet(FrameDecoder().feed(session.take_output())[0]), Resume)


def test_a_card_with_a_bad_code_is_an_unreadable_fault_not_a_drop() -> None:
    session = FramedSession(None, LinkTiming())
    _up(session)
    out = session.receive(_frames(CardEvent(1, 1, "a?", "X")), 0.1)
    assert out == [Fault(FaultKind.UNREADABLE, "X", 1, "card code 'a?' is not a valid code")]


def test_events_before_hello_are_ignored_until_the_shoe_resends_them() -> None:
    session = FramedSession(None, LinkTiming())
    session.connected(0.0)
    assert session.receive(_frames(CardEvent(1, 1, "AS", "X")), 0.1) == []


@settings(max_examples=200)
@given(st.binary(max_size=600))
def test_session_never_raises_on_arbitrary_bytes(noise: bytes) -> None:
    session = FramedSession(None, LinkTiming())
    _up(session)
    session.receive(noise, 0.5)
    session.tick(1.0)
    session.take_output()


@settings(max_examples=200)
@given(st.lists(st.binary(min_size=1, max_size=40), max_size=10))
def test_session_never_raises_on_frames_with_good_crc_but_any_payload(bodies: list[bytes]) -> None:
    session = FramedSession(None, LinkTiming())
    _up(session)
    session.receive(b"".join(encode_frame(b) for b in bodies), 0.5)
    session.take_output()


def test_an_unknown_event_type_is_reported_and_does_not_stall_the_stream() -> None:
    from firmware_bridge.wire import UnknownEvent

    session = FramedSession(None, LinkTiming())
    _up(session)
    out = session.receive(_frames(UnknownEvent(0x20, 1, b"?"), CardEvent(2, 1, "AS", "X")), 0.1)
    assert out[0] == Fault(FaultKind.OTHER, "", None, "unknown event type 0x20 from the shoe (newer firmware?)")
    assert out[1] == Card("X", 1, "AS")


def test_a_36_card_shoe_reaches_the_host_with_its_pack_and_count() -> None:
    core = ShoeCore(ShoeConfig(seed=3, decks=2, pack=36, boot_id=7), random.Random(0), 0.0)
    core.load("S36")
    pair = Pair(core=core)
    pair.auto_ack = True
    pair.connect()
    released = pair.deal(72)
    pair.run(1.0)
    loaded = [m for m in pair.msgs if isinstance(m, ShoeLoaded)]
    assert loaded == [ShoeLoaded("S36", 72, 36)]
    assert [code for _, _, code in pair.cards()] == [r.card for r in released]
    assert {code[0] for _, _, code in pair.cards()} == set("6789TJQKA")


def test_an_old_shoes_shoe_loaded_reaches_the_owner_as_a_52_card_pack() -> None:
    pair = Pair()
    pair.connect()
    pair.run(0.05)
    old = bytes([0x10, 0, 0, 0, 99, 0, 52]) + b"\x02S9"  # before the pack byte existed
    seq = pair.core._next_seq  # the old event takes the shoe's next seq, in order
    body = old[:1] + seq.to_bytes(4, "big") + old[5:]
    got = pair.host.receive(encode_frame(body), pair.now)
    assert ShoeLoaded("S9", 52, 52) in got
