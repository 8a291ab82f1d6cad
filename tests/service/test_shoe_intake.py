"""The shoe intake, alone: each shoe message and what the table knows in, the steps out.

Pure (`tablectl.shoe_intake`): no service, no journal, no event loop; a `TableSide` and a
`ShoeMemory` are made by hand, as the service reads them from the table before each message.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime, timezone

import firmware_bridge as fb
from controller import events as ev
from controller.cards import parse_card
from controller.engine import Table
from controller.rules import build_rules
from tablectl.shoe_intake import (
    Ack,
    CountReported,
    LinkState,
    Remember,
    Say,
    ShoeMemory,
    Step,
    Submit,
    SyncGate,
    TableSide,
    check_count,
    intake,
)

BETTING = TableSide(between_rounds=True, in_round=False, shoe_id="S1", shoe_spent=False, cut_card_out=False,
                    has_cut_card=True)
IN_ROUND = replace(BETTING, between_rounds=False, in_round=True)
NO_SHOE = replace(BETTING, shoe_id=None)
HELLO = fb.HelloInfo(codec="framed", protocol_version=1, firmware="1.0", serial="X1", boot_id=1, can_lock=True,
                     acks=True)


def status(shoe_id: str = "S1", position: int = 0, *, cut_card_out: bool = False, jammed: bool = False,
           lid_open: bool = False, unacked: int = 0) -> fb.Status:
    """A heartbeat of the shoe."""
    return fb.Status(shoe_id, position, None, False, cut_card_out, jammed, lid_open, unacked)


def memory(shoe_id: str = "S1", cards: dict[int, str] | None = None) -> ShoeMemory:
    """The service's memory after `cards` (position -> code) of `shoe_id` were stored."""
    m = ShoeMemory()
    for position, code in (cards or {}).items():
        m.remember(shoe_id, position, code)
    return m


def submitted(steps: list[Step]) -> list[ev.Event]:
    """The events the steps submit, in order."""
    return [s.event for s in steps if isinstance(s, Submit)]


# ---------------------------------------------------------------------------- cards
def test_a_new_card_is_submitted_then_remembered_then_acked_once_committed():
    steps = intake(fb.Card("S1", 3, "10H"), IN_ROUND, memory(cards={1: "AS", 2: "KD"}))
    assert steps == [Submit(ev.CardDrawn(card=parse_card("TH"), position=3), "shoe", shoe_id="S1", position=3),
                     Remember("S1", 3, "10H"), Ack("S1", 3)]
    assert not steps[-1].resent  # acked after the commit, never before


def test_a_card_sent_again_is_acked_at_once_and_nothing_is_journalled():
    assert intake(fb.Card("S1", 2, "KD"), IN_ROUND, memory(cards={1: "AS", 2: "KD"})) == [Ack("S1", 2, resent=True)]


def test_a_card_sent_again_spelled_otherwise_is_the_same_card():
    assert intake(fb.Card("S1", 1, "10H"), IN_ROUND, memory(cards={1: "TH"})) == [Ack("S1", 1, resent=True)]


def test_a_different_card_at_a_stored_position_is_journalled():
    assert submitted(intake(fb.Card("S1", 2, "QC"), IN_ROUND, memory(cards={1: "AS", 2: "KD"})))[0].type == "card"


def test_a_card_that_is_not_a_card_is_a_bad_data_fault_still_acked():
    steps = intake(fb.Card("S1", 1, "ZZ"), IN_ROUND, memory())
    (fault,) = submitted(steps)
    assert isinstance(fault, ev.ShoeFault) and fault.kind == "bad_data" and "'ZZ'" in (fault.detail or "")
    assert steps[-2:] == [Remember("S1", 1, "ZZ"), Ack("S1", 1)]


def test_the_first_card_of_a_shoe_never_seen_loaded_records_its_shuffle_first():
    steps = intake(fb.Card("S2", 1, "AS"), BETTING, memory(cards={1: "KD"}))
    shuffle, card = submitted(steps)
    assert isinstance(shuffle, ev.Shuffle) and shuffle.shoe_id == "S2" and shuffle.card_count is None
    assert isinstance(card, ev.CardDrawn)
    assert next(s for s in steps if isinstance(s, Submit)).actor == "shoe status"


def test_the_first_card_of_a_new_shoe_mid_round_records_no_shuffle():
    assert [e.type for e in submitted(intake(fb.Card("S2", 1, "AS"), IN_ROUND, memory()))] == ["card"]


def test_a_later_card_of_a_shoe_never_seen_loaded_reports_the_cards_missing_once():
    m = memory(cards={1: "KD"})
    steps = intake(fb.Card("S2", 5, "AS"), IN_ROUND, m)
    count, card = submitted(steps)
    assert count == ev.ShoeCount(shoe_id="S2", position=4, unacked=0) and card.type == "card"
    assert CountReported("S2", 4) in steps
    m.count_reported = ("S2", 4)  # as the service applies it
    assert check_count("S2", 4, 0, IN_ROUND, m) == []


# ---------------------------------------------------------------------------- faults
def test_an_unreadable_card_is_a_card_event_remembered_as_unreadable():
    steps = intake(fb.Fault(fb.FaultKind.UNREADABLE, "S1", 4, "no read"), IN_ROUND, memory(cards={3: "AS"}))
    assert steps[1:] == [Remember("S1", 4, "??"), Ack("S1", 4)]
    (fault,) = submitted(steps)
    assert fault == ev.ShoeFault(kind="unreadable", detail="no read (card 4)")
    assert steps[0].shoe_id == "S1" and steps[0].position == 4


def test_an_unreadable_card_sent_again_is_acked_at_once():
    m = memory(cards={4: "??"})
    assert intake(fb.Fault(fb.FaultKind.UNREADABLE, "S1", 4, "no read"), IN_ROUND, m) == [Ack("S1", 4, resent=True)]


def test_a_jam_is_a_fault_without_a_card():
    assert intake(fb.Fault(fb.FaultKind.JAM, "S1", None, ""), IN_ROUND, memory()) == [
        Submit(ev.ShoeFault(kind="jam", detail=None), "shoe")]


# ---------------------------------------------------------------------------- the heartbeat
def test_a_quiet_heartbeat_asks_nothing():
    assert intake(status(position=3), IN_ROUND, memory(cards={1: "AS", 2: "KD", 3: "QC"})) == []


def test_a_heartbeat_of_a_new_shoe_between_rounds_records_its_shuffle():
    assert [e.type for e in submitted(intake(status("S2"), BETTING, memory()))] == ["shuffle"]


def test_a_heartbeat_of_a_new_shoe_carries_the_count_it_loaded_into_the_shuffle():
    """Issue 37: a 6-deck shoe at a 1-deck table said nothing when the table learnt the shoe from STATUS; its count
    (cards left at position 0) now goes with the shuffle, as SHOE_LOADED's does, and the engine checks it."""
    heartbeat = fb.Status("S2", 0, 312, False, False, False, False, 0)
    (shuffle,) = submitted(intake(heartbeat, BETTING, memory()))
    assert shuffle == ev.Shuffle(shoe_id="S2", card_count=312)
    one_deck = Table(build_rules("ru-standard", {"decks": 1}))
    shuffle.at = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)
    one_deck.apply(shuffle)
    loaded = ev.Shuffle(shoe_id="S3", card_count=312, at=shuffle.at)  # the same shoe told by SHOE_LOADED
    other = Table(build_rules("ru-standard", {"decks": 1}))
    other.apply(loaded)
    said = [(a.kind, a.level, a.message.replace("S2", "S")) for a in one_deck.open_alerts()]
    assert said and said == [(a.kind, a.level, a.message.replace("S3", "S")) for a in other.open_alerts()]
    assert "reports 312 cards loaded" in said[0][2]


def test_a_heartbeat_of_a_new_shoe_replaces_a_spent_one_mid_round():
    spent = replace(IN_ROUND, shoe_spent=True)
    assert [e.type for e in submitted(intake(status("S2"), spent, memory()))] == ["shuffle"]
    assert submitted(intake(status("S2"), IN_ROUND, memory())) == []


def test_a_heartbeat_shows_a_lost_cut_card_only_where_the_game_has_one():
    assert submitted(intake(status(position=70, cut_card_out=True), IN_ROUND, memory(cards={70: "AS"}))) == [
        ev.CutCardOut()]
    club = replace(IN_ROUND, has_cut_card=False)
    assert submitted(intake(status(position=70, cut_card_out=True), club, memory(cards={70: "AS"}))) == []


def test_a_heartbeat_counting_more_cards_than_stored_reports_them_missing():
    steps = intake(status(position=9, unacked=1), IN_ROUND, memory(cards={1: "AS", 2: "KD"}))
    assert submitted(steps) == [ev.ShoeCount(shoe_id="S1", position=9, unacked=1)]
    assert any(isinstance(s, Say) and s.level == logging.ERROR and "counts 8 cards" in s.text for s in steps)


def test_a_heartbeat_with_no_shoe_asks_nothing_of_counts():
    assert intake(status("", position=5), NO_SHOE, memory()) == []


def test_a_heartbeat_clears_only_the_faults_standing_whose_cause_is_gone():
    jammed = replace(IN_ROUND, faults_active=frozenset({"jam", "lid_open"}))
    steps = intake(status(position=0, lid_open=True), jammed, memory())
    assert submitted(steps) == [ev.ShoeFaultCleared(kind="jam")]
    assert submitted(intake(status(position=0), IN_ROUND, memory())) == []


# ---------------------------------------------------------------------------- the link and the rest
def test_the_link_up_is_health_a_journalled_input_then_the_gate_set():
    steps = intake(fb.LinkUp(HELLO), BETTING, memory())
    assert [type(s) for s in steps] == [LinkState, Say, Submit, SyncGate]
    assert steps[0] == LinkState(True) and submitted(steps) == [ev.LinkUp()]


def test_the_link_down_is_health_and_a_journalled_input():
    steps = intake(fb.LinkDown("unplugged", "gone"), BETTING, memory())
    assert steps[0] == LinkState(False) and submitted(steps) == [ev.LinkDown(reason="unplugged")]


def test_a_shoe_loaded_again_after_a_reconnect_is_not_a_new_shuffle():
    assert intake(fb.ShoeLoaded("S1", 312), BETTING, memory()) == []
    (shuffle,) = intake(fb.ShoeLoaded("S2", 312), BETTING, memory())
    assert shuffle == Submit(ev.Shuffle(shoe_id="S2", card_count=312), "shoe",
                             refused="shoe S2 loaded but the table refused the shuffle")


def test_the_cut_card_is_journalled_once():
    assert submitted(intake(fb.CutCard("S1", 70), IN_ROUND, memory())) == [ev.CutCardOut(position=70)]
    assert intake(fb.CutCard("S1", 70), replace(IN_ROUND, cut_card_out=True), memory()) == []


def test_the_shoe_button_calls_the_pit_in_its_name():
    assert intake(fb.Button("call"), IN_ROUND, memory()) == [Submit(ev.CallPit(), "shoe button call")]
