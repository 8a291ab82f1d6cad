"""The record of a disputed round (issue 26, part 3): what it says, read from a real journal (tests/dispute/conftest.py).

Each card's shoe position and time (UTC and local, in a zone half an hour off the hour), each box's bets and
decisions (a refused one too), the settlement the engine computes against the record kept when the round
settled (a kept record forged with the key shows its difference), the dealer on duty from dealer_in, the
supervisors' keys that acted, the round's alert, the count at each bet in surveillance's copy only, the rows
and their MACs chaining to the head, the ten rounds before it; and the rounds no record is made of.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from controller import events as ev
from games.club_21_36.events import OpenBank
from controller.cards import parse_card
from controller.dispute import Copy, DisputeOptions, NoSuchRound, RoundNotSettled, RoundStillClosed
from controller.journal import Journal, JournalReader, JournalTampered, LedgerRow, row_mac
from controller.protection.shoes import HI_LO
from tablectl.dispute import make_record, to_json
from tests.dispute.conftest import DISPUTED, HOSTILE, Played, copy_of
from tests.support.journals import T0, open_authority

KOLKATA = "Asia/Kolkata"  # UTC+05:30: a local time is never the UTC one with only its hour changed
EXPORTED = datetime(2026, 12, 2, 9, 15, 30, tzinfo=timezone.utc)


def options(number: int = DISPUTED, copy: Copy = Copy.PIT, **kw: object) -> DisputeOptions:
    return DisputeOptions(round_number=number, table="table-7", exported_by="surveillance:ivan", exported_at=EXPORTED,
                          time_zone=ZoneInfo(KOLKATA), time_zone_name=KOLKATA, copy=copy, **kw)  # type: ignore[arg-type]


def record_of(path: Path, played: Played, opts: DisputeOptions) -> dict:
    with JournalReader(path, played.key) as reader:
        return json.loads(to_json(make_record(reader, opts)))


def test_each_card_has_its_shoe_position_and_its_time_in_utc_and_local(played_journal: Played) -> None:
    r = record_of(played_journal.path, played_journal, options())
    assert (r["table"], r["round"], r["shoe_id"], r["game"], r["rules"]) == ("table-7", 12, "S1", "blackjack",
                                                                             "ru-standard")
    cards = [(c["card"], c["position"], c["to"], c["box"]) for c in r["cards"]]
    assert cards == [("5H", 56, "box", 1), ("TS", 57, "box", 3), ("7S", 58, "dealer", None), ("6C", 59, "box", 1),
                     ("8D", 60, "box", 3), ("TD", 61, "box", 1), ("KH", 62, "dealer", None)]
    for c in r["cards"]:
        at = played_journal.times[c["card"]]
        assert c["at"]["utc"] == at.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert datetime.fromisoformat(c["at"]["local"]) == at  # the same instant ...
        assert c["at"]["local"].endswith("+05:30")  # ... in the table's zone
        assert c["at"]["recorder"] == (at + timedelta(hours=5, minutes=30)).strftime("%Y-%m-%d %H:%M:%S.000")
    assert r["camera"]["time_zone"] == KOLKATA
    assert r["exported"] == {"by": "surveillance:ivan", "copy": "pit", "at": {
        "utc": "2026-12-02T09:15:30Z", "local": "2026-12-02T14:45:30+05:30", "recorder": "2026-12-02 14:45:30.000"}}


def test_each_box_has_its_bets_and_decisions_and_the_refused_one(played_journal: Played) -> None:
    r = record_of(played_journal.path, played_journal, options())
    boxes = {b["box"]: b for b in r["boxes"]}
    assert sorted(boxes) == [1, 3]
    assert [(s["player"], s["amount"]) for s in boxes[1]["stakes"]] == [("Ann", "20")]
    assert [(s["player"], s["amount"]) for s in boxes[3]["stakes"]] == [(HOSTILE, "10")]
    assert boxes[1]["stakes"][0]["at"]["utc"] == played_journal.bet_at[1].strftime("%Y-%m-%dT%H:%M:%SZ")
    assert [(d["type"], d["hand"], d["refused"]) for d in boxes[1]["decisions"]] == [("double", 0, None)]
    split, stand = boxes[3]["decisions"]
    assert split["type"] == "split" and split["refused"].startswith("split_unequal") and split["box"] == 3
    assert (stand["type"], stand["refused"]) == ("stand", None)
    assert [(h["cards"], h["bet"], h["outcome"], h["net"]) for h in boxes[1]["hands"]] == [
        (["5H", "6C", "TD"], "40", "win", "40")]
    assert [(h["cards"], h["net"]) for h in boxes[3]["hands"]] == [(["TS", "8D"], "10")]
    # The pit's copy has no count.
    assert all(s["running_count"] is None and s["true_count"] is None for b in r["boxes"] for s in b["stakes"])
    assert "left out" in r["counts"]


def test_the_settlement_agrees_with_what_was_recorded_as_paid(played_journal: Played) -> None:
    r = record_of(played_journal.path, played_journal, options())
    s = r["settlement"]
    assert s["agrees"] is True and s["differences"] == []
    assert s["recorded"] == s["engine"] and s["engine"]["net"] == "50"
    assert len(s["recorded_mac"]) == 64


def test_a_kept_record_that_differs_from_the_engine_is_listed_field_by_field(played_journal: Played,
                                                                            tmp_path: Path) -> None:
    """A record written with the key (an older release's bug, or someone holding the key) that paid box 3 20."""
    path = copy_of(played_journal, tmp_path)
    with JournalReader(path, played_journal.key) as reader:
        seq, kept, _ = reader.kept_round(DISPUTED) or (0, {}, "")
    kept["hands"][1]["net"] = "20"
    kept["net"] = "60"
    writer = Journal(path, played_journal.key)
    writer.save_round(seq, kept)
    writer.close()
    r = record_of(path, played_journal, options())
    s = r["settlement"]
    assert s["agrees"] is False
    assert [(d["path"], d["recorded"], d["engine"]) for d in s["differences"]] == [
        ("hands[1].net", '"20"', '"10"'), ("net", '"60"', '"50"')]


def test_the_dealer_on_duty_and_the_supervisors_who_acted(played_journal: Played) -> None:
    r = record_of(played_journal.path, played_journal, options())
    assert r["dealer"]["dealer"] == "D-1042"
    assert r["dealer"]["since"]["utc"] == (T0 + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    sup = r["supervisors"]
    assert [(a["actor"], a["type"]) for a in sup["during"]] == [("supervisor:sam", "ack_alert")]
    assert (sup["last_before"]["actor"], sup["last_before"]["type"]) == ("supervisor:pit", "dealer_in")
    assert "no supervisor sign-in" in sup["note"]
    [alert] = r["alerts"]
    assert (alert["id"], alert["kind"], alert["acknowledged_by"]) == (played_journal.ack_alert, "call_pit",
                                                                      "supervisor:sam")
    assert alert["raised_seq"] < alert["cleared_seq"] <= played_journal.settle_seq
    assert [a["type"] for a in r["acts"]] == ["call_pit", "ack_alert"]


def test_surveillances_copy_has_the_tables_count_at_each_bet(played_journal: Played) -> None:
    r = record_of(played_journal.path, played_journal, options(copy=Copy.SURVEILLANCE))
    dealt = [parse_card(c) for c in played_journal.dealt_before]
    running = sum(HI_LO.get(c.value, 0) for c in dealt)  # computed here from the cards, not from the table
    true = round(running / ((6 * 52 - len(dealt)) / 52), 1)
    assert running == 22  # (eleven rounds of 9 9 6 4 7: +2 each)
    stakes = [s for b in r["boxes"] for s in b["stakes"]]
    assert [(s["running_count"], s["true_count"]) for s in stakes] == [(running, true), (running, true)]
    assert "Hi-Lo" in r["counts"] and r["exported"]["copy"] == "surveillance"


def test_the_rows_and_their_macs_chain_to_the_verified_head(played_journal: Played) -> None:
    r = record_of(played_journal.path, played_journal, options())
    v, rows = r["verification"], r["rows"]
    assert v["verified"] is True and v["key_id"] == played_journal.key.key_id
    assert [row["seq"] for row in rows] == list(range(v["first_seq"], v["last_seq"] + 1))
    assert v["previous_seq"] == v["first_seq"] - 1 and v["last_seq"] == played_journal.settle_seq
    # Row by row, with the key: each MAC covers the one before, starting from the row before the first.
    prev = v["previous_mac"]
    for row in rows:
        assert row_mac(played_journal.key.secret, prev, LedgerRow(**row)) == row["mac"]
        prev = row["mac"]
    # And on from the last row of the record to the head it names, which is the journal's.
    with JournalReader(played_journal.path, played_journal.key) as reader:
        assert reader.head() == (v["head_seq"], v["head_mac"])
        for row in reader.ledger_rows(v["last_seq"], 1000):
            assert row_mac(played_journal.key.secret, prev, row) == row.mac
            prev = row.mac
    assert prev == v["head_mac"]
    # The bets come first: the rows run from the one after round 11's settlement.
    assert json.loads(rows[0]["body"])["type"] == "bet"


def test_the_ten_rounds_before_it_in_order(played_journal: Played) -> None:
    r = record_of(played_journal.path, played_journal, options())
    recall = r["recall"]
    assert [p["number"] for p in recall] == list(range(2, 12))
    for p, k in zip(recall, range(1, 11)):
        assert p["dealer_on_duty"] == "D-1042" and p["agrees"] is True and p["net"] == "10"
        assert p["hands"][0]["cards"] == [played_journal.dealt_before[5 * k], played_journal.dealt_before[5 * k + 2]]
    assert recall[-1]["last_seq"] == r["verification"]["first_seq"] - 1  # round 11 ends where round 12's rows begin
    early = record_of(played_journal.path, played_journal, options(number=3))
    assert [p["number"] for p in early["recall"]] == [1, 2]  # fewer than ten before it: all of them


def test_a_round_not_in_the_journal_and_one_still_in_play_are_refused(played_journal: Played, tmp_path: Path) -> None:
    with JournalReader(played_journal.path, played_journal.key) as reader:
        with pytest.raises(NoSuchRound, match="no round 14: rounds 1 to 13 are in it"):
            make_record(reader, options(number=14))
    path = tmp_path / "in-play.sqlite"
    authority = open_authority(path)
    authority.submit(ev.Shuffle(shoe_id="S9"), T0)
    authority.submit(ev.PlaceBet(box=2, amount=10), T0)
    authority.submit(ev.CardDrawn(card=parse_card("TS"), position=1), T0, shoe_id="S9", position=1)
    key = authority.journal.key
    authority.journal.close()
    with JournalReader(path, key) as reader:
        with pytest.raises(RoundNotSettled, match="round 1 is not settled yet"):
            make_record(reader, options(number=1))


def test_a_journal_that_does_not_verify_gives_no_record(played_journal: Played, tmp_path: Path) -> None:
    path = copy_of(played_journal, tmp_path)
    db = sqlite3.connect(path)
    db.execute("UPDATE ledger SET body = replace(body, '\"amount\":20', '\"amount\":2000') WHERE seq = 81")
    db.commit()
    db.close()
    with JournalReader(path, played_journal.key) as reader:
        with pytest.raises(JournalTampered, match="ledger row 81 does not verify"):
            make_record(reader, options())


def test_a_round_whose_kept_card_is_still_closed_waits_until_it_is_turned(tmp_path: Path) -> None:
    """club-21-36: the banker keeps his unused card into the next round (tests/engine/test_secrets.py's play); round 1's
    record waits until round 2 turns it, so no copy shows a card the table still keeps face down."""
    path = tmp_path / "duels.sqlite"
    authority = open_authority(path, "club-21-36")
    key = authority.journal.key

    def submit(*events: ev.Event) -> None:
        for e in events:
            authority.submit(e, T0)

    def card(code: str) -> ev.CardDrawn:
        return ev.CardDrawn(card=parse_card(code))

    submit(ev.Shuffle(shoe_id="S1"), OpenBank(amount=1000), ev.PlaceBet(box=1, amount=10))
    submit(card("9S"), card("7D"), card("6C"), card("TS"), card("9D"))  # box 1 passes 21: the banker keeps 7D
    assert authority.table.round is None and authority.closed_rows
    with JournalReader(path, key) as reader:
        with pytest.raises(RoundStillClosed, match="still face down at the table"):
            make_record(reader, options(number=1))
    submit(ev.PlaceBet(box=1, amount=10), card("8H"), ev.Stand())  # round 2: he turns his kept card
    assert not (authority.closed_rows & set(range(1, 9)))
    authority.journal.close()
    with JournalReader(path, key) as reader:
        r = json.loads(to_json(make_record(reader, options(number=1))))
    assert "7D" in [c["card"] for c in r["cards"]] and r["game"] == "club-21-36"
    assert all(s["running_count"] is None for b in r["boxes"] for s in b["stakes"])
