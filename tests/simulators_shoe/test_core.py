"""The shoe's firmware logic in simulated time."""

from __future__ import annotations

import random

from firmware_bridge.wire import (
    Ack,
    CardEvent,
    CutCardEvent,
    Hello,
    Lock,
    Nak,
    Resume,
    ShoeLoadedEvent,
    StatusFlags,
    StatusPacket,
    Unlock,
    decode_packet,
    encode_packet,
)
from simulators.shoe.core import DealRefused, Released, ShoeConfig, ShoeCore, ShoeFault
from simulators.shoe.deck import shuffled_shoe


def make(**kw: object) -> ShoeCore:
    core = ShoeCore(ShoeConfig(seed=4, decks=1, boot_id=5, **kw), random.Random(0), 0.0)  # type: ignore[arg-type]
    core.load("S")
    return core


def sent(core: ShoeCore, now: float) -> list[object]:
    return [decode_packet(b) for b in core.poll(now)]


def events(core: ShoeCore, now: float) -> list[object]:
    return [p for p in sent(core, now) if not isinstance(p, (StatusPacket, Hello))]


def resume(core: ShoeCore, now: float, shoe_id: str = "", position: int = 0) -> None:
    core.on_body(encode_packet(Resume(1, position, shoe_id)), now)


def test_cards_are_the_seeded_shuffle_in_order() -> None:
    core = make()
    order = shuffled_shoe(4, 1, 1)
    released = [core.deal() for _ in range(52)]
    assert [r.card for r in released if isinstance(r, Released)] == order
    assert core.deal() is DealRefused.EMPTY


def test_nothing_but_status_before_resume_then_hello_and_events() -> None:
    core = make()
    core.deal()
    assert [type(p) for p in sent(core, 0.0)] == [StatusPacket]
    resume(core, 0.1)
    out = sent(core, 0.1)
    assert out[0] == Hello(1, 1, 5, 1, "sim-1.0", "SIM-0001")
    assert [type(p) for p in out[1:]] == [StatusPacket, ShoeLoadedEvent, CardEvent]


def test_cut_card_comes_out_when_card_k_is_next() -> None:
    core = make(cut_at=3)
    assert core.deal().cut_card_next is False  # type: ignore[union-attr]
    r = core.deal()
    assert isinstance(r, Released) and r.position == 2 and r.cut_card_next
    assert core.cut_card_out
    resume(core, 0.0)
    evs = events(core, 0.0)
    assert [type(e) for e in evs] == [ShoeLoadedEvent, CardEvent, CardEvent, CutCardEvent]
    assert evs[-1] == CutCardEvent(4, 3, "S")


def test_lock_jam_and_lid_refuse_cards() -> None:
    core = make()
    core.on_body(encode_packet(Lock()), 0.0)
    assert core.deal() is DealRefused.LOCKED
    assert StatusFlags.LOCKED in sent(core, 0.0)[0].flags  # type: ignore[union-attr]
    core.on_body(encode_packet(Unlock()), 0.0)
    core.fault(ShoeFault.JAM)
    assert core.deal() is DealRefused.JAMMED
    core.clear_faults()
    core.fault(ShoeFault.LID_OPEN)
    assert core.deal() is DealRefused.LID_OPEN
    core.clear_faults()
    assert isinstance(core.deal(), Released)


def test_unacknowledged_events_are_resent_after_the_timeout_and_forgotten_when_stored() -> None:
    core = make(retransmit=0.5)
    resume(core, 0.0)
    core.deal()
    core.deal()
    assert len(events(core, 0.0)) == 3
    assert events(core, 0.3) == []
    assert len(events(core, 0.6)) == 3  # no ACK: everything again
    core.on_body(encode_packet(Ack(3, 1)), 0.7)  # received all, stored SHOE_LOADED only
    assert events(core, 5.0) == []  # received: no more retransmission...
    assert core.unacked == 2  # ...but kept until stored
    core.on_body(encode_packet(Ack(3, 3)), 5.1)
    assert core.unacked == 0


def test_nak_rewinds_to_the_missing_event() -> None:
    core = make()
    resume(core, 0.0)
    for _ in range(3):
        core.deal()
    assert len(events(core, 0.0)) == 4
    core.on_body(encode_packet(Nak(3)), 0.1)
    assert [e.seq for e in events(core, 0.1)] == [3, 4]  # type: ignore[attr-defined]


def test_window_limits_events_in_flight() -> None:
    core = make(window=4)
    resume(core, 0.0)
    for _ in range(10):
        core.deal()
    assert len(events(core, 0.0)) == 4
    core.on_body(encode_packet(Ack(2, 2)), 0.1)
    assert [e.seq for e in events(core, 0.1)] == [5, 6]  # type: ignore[attr-defined]


def test_resume_forgets_what_the_host_stored_and_resends_the_rest() -> None:
    core = make()
    for _ in range(5):
        core.deal()
    resume(core, 0.0, "S", 3)
    out = sent(core, 0.0)
    assert out[0].next_seq == 5  # type: ignore[union-attr]
    assert [(e.position) for e in out if isinstance(e, CardEvent)] == [4, 5]
    assert core.unacked == 2


def test_a_36_card_shoe_says_its_pack_and_size_in_shoe_loaded() -> None:
    core = ShoeCore(ShoeConfig(seed=4, decks=2, pack=36, boot_id=5), random.Random(0), 0.0)
    core.load("S36")
    resume(core, 0.0)
    loaded = [p for p in events(core, 0.0) if isinstance(p, ShoeLoadedEvent)]
    assert loaded == [ShoeLoadedEvent(1, 72, "S36", 36)]
    assert core.cards == shuffled_shoe(4, 1, 2, pack=36)


def test_loading_another_pack_changes_this_shoe_and_the_next() -> None:
    core = make()
    core.load(pack=36, decks=1)
    assert len(core.cards) == 36 and core.config.pack == 36
    core.load()
    assert len(core.cards) == 36
    try:
        core.load(pack=48)
    except ValueError as exc:
        assert "36 or 52" in str(exc)
    else:
        raise AssertionError("a 48-card pack was loaded")
    assert core.config.pack == 36


def test_a_shoe_loaded_in_a_round_leaves_out_the_cards_still_on_the_table() -> None:
    core = ShoeCore(ShoeConfig(seed=4, decks=1, pack=36, boot_id=5), random.Random(0), 0.0)
    core.load("A")
    out = [core.deal() for _ in range(36)]
    on_table = [r for r in out[:3] if isinstance(r, Released)]
    core.load("B", keep=[("A", r.position) for r in on_table])
    assert len(core.cards) == 33 and not {r.card for r in on_table} & set(core.cards)
    try:
        core.load("C", keep=[("B", 5)])  # nothing of shoe B has been dealt
    except ValueError as exc:
        assert "has not left" in str(exc)
    else:
        raise AssertionError("kept a card that never left the shoe")


def test_skipped_cards_leave_with_the_next_card_and_not_before() -> None:
    """A skip is of reports lost: the shoe counts the cards when they leave, with the next deal, so a STATUS
    sent between the fault and that deal shows the table no card missing (a test racing a heartbeat saw one)."""
    core = make()
    first = core.deal()
    assert isinstance(first, Released) and first.position == 1
    core.skip(2)
    assert core.position == 1 and core.cards_left == 51
    after = core.deal()
    assert isinstance(after, Released) and after.position == 4 and after.card == shuffled_shoe(4, 1, 1)[3]
    assert core.position == 4
