"""The wire format: the journal v2 MAC, masked and final ledger messages, and what the floor refuses."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from tablectl.fleet import BadMessage
from tablectl.fleet.wire import (
    MAX_LEDGER_BYTES,
    LedgerRow,
    ledger_payload,
    parse_ledger,
    parse_state,
    parse_status,
    row_mac,
    split_topic,
)

KEY = bytes(range(32))


def _row(seq: int = 1, prev: str = "", body: str = '{"at":"2026-11-30T20:00:00+00:00","card":"AS","position":3,'
         '"type":"card"}') -> LedgerRow:
    row = LedgerRow(seq, "event", "2026-11-30T20:00:00+00:00", body, "S1", 3, None, None, "")
    return LedgerRow(*[getattr(row, f) for f in row.__slots__[:-1]], row_mac(KEY, prev, row))  # type: ignore[attr-defined]


def test_mac_is_the_contracts_hmac_over_the_previous_mac_and_the_canonical_row():
    """The ledger's MAC restated independently: HMAC-SHA256 over the previous MAC, a newline, then
    seq|kind and every other column length-prefixed ("len:text", "~" for none), joined by "|"."""
    row = _row()
    at, body = row.received_at, row.body
    canonical = f"1|event|{len(at)}:{at}|{len(body)}:{body}|2:S1|1:3|~|~"
    assert row.mac == hmac.new(KEY, ("\n" + canonical).encode(), hashlib.sha256).hexdigest()
    nxt = _row(2, row.mac)
    canonical = f"2|event|{len(at)}:{at}|{len(body)}:{body}|2:S1|1:3|~|~"
    assert nxt.mac == hmac.new(KEY, (row.mac + "\n" + canonical).encode(), hashlib.sha256).hexdigest()


def test_a_final_message_carries_the_body_byte_for_byte_and_verifies():
    row = _row()
    wire = parse_ledger(ledger_payload("t1", row), "t1")
    assert wire.body == row.body and wire.mac == row.mac and not wire.masked
    assert row_mac(KEY, "", wire) == row.mac


def test_a_masked_hole_card_shows_xx_and_no_mac():
    row = _row()
    raw = ledger_payload("t1", row, mask_card=True, withhold_mac=True)
    assert b"AS" not in raw and row.mac.encode() not in raw
    wire = parse_ledger(raw, "t1")
    assert wire.masked and wire.mac is None and json.loads(wire.body)["card"] == "XX"


def test_rows_after_a_masked_one_travel_without_their_mac():
    row = _row(2, "0" * 64)
    wire = parse_ledger(ledger_payload("t1", row, withhold_mac=True), "t1")
    assert wire.masked and wire.mac is None and wire.body == row.body


@pytest.mark.parametrize("payload, why", [
    (b"not json", "malformed"),
    (b"[]", "malformed"),
    (json.dumps({"table": "t1"}).encode(), "malformed"),
    (ledger_payload("t2", _row()), "names table"),
    (ledger_payload("t1", _row()).replace(b'"masked":false', b'"masked":true'), "exactly when"),
    (ledger_payload("t1", _row()).replace(b'"seq":1', b'"seq":"1"'), "malformed"),
    (ledger_payload("t1", _row()).replace(b'"seq":1', b'"seq":1,"extra":1'), "malformed"),
    (b" " * (MAX_LEDGER_BYTES + 1), "limit"),
])
def test_a_bad_ledger_message_is_refused_with_a_reason(payload, why):
    with pytest.raises(BadMessage, match=why):
        parse_ledger(payload, "t1")


def test_a_body_that_is_not_an_event_is_refused():
    row = LedgerRow(1, "event", "2026-11-30T20:00:00+00:00", "[1,2]", None, None, None, None, "a" * 64)
    with pytest.raises(BadMessage, match="session-format"):
        parse_ledger(ledger_payload("t1", row), "t1")


def test_topics_state_and_status():
    assert split_topic("casino/floor1", "casino/floor1/t-7/ledger") == ("t-7", "ledger")
    for bad in ("other/t/ledger", "casino/floor1/t/ledger/x", "casino/floor1/+/ledger", "casino/floor1/t/cmd"):
        with pytest.raises(BadMessage):
            split_topic("casino/floor1", bad)
    assert parse_status(b"online") == "online"
    with pytest.raises(BadMessage):
        parse_status(b"maybe")
    assert parse_state(b'{"table":"t1","a":1}', "t1").as_published() == {"table": "t1", "a": 1}
    for bad in (b"[1]", b'{"a":1}', b'{"table":"t2"}', b'{"table":"t1","head":"x"}'):
        with pytest.raises(BadMessage):
            parse_state(bad, "t1")


def test_the_mac_formula_docs_floor_md_gives_is_the_journal_s():
    """docs/floor.md's worked example, recomputed from its formula with hmac alone, is what row_mac gives:
    the first row chains on the empty string, a null column is `~` and an empty string `0:`."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "floor.md").read_text()
    zero = bytes(32)
    first = LedgerRow(1, "event", "2026-11-30T20:00:00+00:00", '{"profile":"ru-standard","type":"rules"}', None,
                      None, None, None, "")
    text = '\n1|event|25:2026-11-30T20:00:00+00:00|40:{"profile":"ru-standard","type":"rules"}|~|~|~|~'
    mac = hmac.new(zero, text.encode(), hashlib.sha256).hexdigest()
    assert row_mac(zero, "", first) == mac and mac.startswith("109b4279") and mac.endswith("0a7da2")
    assert "`" + text.replace("\n", "\\n") + "`" in doc and "(`109b4279…0a7da2`)" in doc
    refusal = LedgerRow(2, "refusal", "2026-11-30T20:00:01+00:00", '{"box":1,"type":"stand"}', None, None,
                        "not_your_turn", "", "")
    text = f'{mac}\n2|refusal|25:2026-11-30T20:00:01+00:00|24:{{"box":1,"type":"stand"}}|~|~|13:not_your_turn|0:'
    assert row_mac(zero, mac, refusal) == hmac.new(zero, text.encode(), hashlib.sha256).hexdigest()
    assert "`…|~|~|13:not_your_turn|0:`" in doc


def test_a_refusal_says_what_is_wrong_without_pydantics_value_error_prefix():
    # The floor's refusals read as the engine's and the config's do (controller.explain): where, then what.
    with pytest.raises(BadMessage) as caught:
        parse_state(b'{"table":"t1","dashboard_url":"ftp://x"}', "t1")
    assert str(caught.value) == "malformed state message: dashboard_url: only http:// and https:// links with a host"
    body = LedgerRow(1, "event", "2026-11-30T20:00:00+00:00", '{"type":"x","a":1e999}', None, None, None, None, "a" * 64)
    with pytest.raises(BadMessage) as caught:
        parse_ledger(ledger_payload("t1", body), "t1")
    assert str(caught.value) == "ledger body is not a session-format event: a: not a finite number"


def test_a_public_round_is_each_box_s_result_and_nothing_a_count_is_made_of():
    """Issue 37: the public feed carried every card, total and outcome of each round (version 1), so a display's
    reader kept the exact count. Version 2: each box won, lost or came out even, or the round was voided."""
    from tablectl.fleet.wire import public_round

    record = {"number": 7, "shoe_id": "S1", "dealer": {"cards": ["AS", "KD"], "total": 21},
              "hands": [{"box": 1, "cards": ["AH", "KS"], "bet": "10.00", "outcome": "blackjack", "net": "15.00"},
                        {"box": 2, "cards": ["8S", "3D"], "bet": "10.00", "outcome": "lose", "net": "-10.00"},
                        {"box": 2, "cards": ["8H", "KC"], "bet": "10.00", "outcome": "push", "net": "0.00"},
                        {"box": 3, "cards": ["7S", "7D", "7C"], "bet": "5.00", "outcome": "three_sevens",
                         "net": "10.00"},
                        {"box": 4, "cards": ["9S", "9D"], "bet": "10.00", "outcome": "lose", "net": "-10.00"}],
              "insurance": [{"box": 4, "amount": "5.00", "net": "10.00"}], "net": "5.00",
              "player": "Ivan", "future_field": ["AS"]}
    out = public_round(record, "2026-11-30T20:00:00+00:00")
    assert out == {"version": 2, "number": 7, "shoe_id": "S1", "void": False,
                   "settled_at": "2026-11-30T20:00:00+00:00",
                   "boxes": [{"box": 1, "result": "won"}, {"box": 2, "result": "lost"}, {"box": 3, "result": "won"},
                             {"box": 4, "result": "even"}]}  # box 4: the hand lost, its insurance paid it back
    void = public_round({"number": 8, "game": "club-21", "void": True, "void_reason": "misdeal",
                         "hands": [{"box": 2, "cards": ["2S"], "net": "0.00"}]}, None)
    assert void == {"version": 2, "number": 8, "shoe_id": None, "game": "club-21", "void": True,
                    "void_reason": "misdeal", "settled_at": None, "boxes": [{"box": 2, "result": "void"}]}
