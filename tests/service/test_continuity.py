"""The shoe's count, end to end: the real virtual shoe on a pty, the real bridge, `tablectl run` (issue 11).

Nothing is dropped silently: a gap, a position dealt again with another card, a frame whose
body does not parse, and a journal put back from a copy behind the shoe each raise an alert,
lock the shoe, and are in the journal; the link moves on.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import httpx

from tests.support.deadlines import scaled
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, Table

AUTH = {"Authorization": f"Bearer {SUPERVISOR_KEY}"}


def view(table: Table) -> dict:
    return httpx.get(table.api + "/api/table", headers=AUTH, timeout=scaled(10)).json()


def wait(predicate, what: str, timeout: float = 20.0) -> dict:  # noqa: ANN001 - a callable on the view
    end = time.monotonic() + scaled(timeout)
    while time.monotonic() < end:
        v = view(table_ref[0])
        if predicate(v):
            return v
        time.sleep(0.05)
    raise AssertionError(f"not reached in time: {what}")


table_ref: list[Table] = []


def deal(table: Table) -> dict:
    seq = view(table)["last_seq"]
    end = time.monotonic() + scaled(60)
    # The table's view opens the gate at once; the shoe's own gate opens when its UNLOCK arrives.
    while (answer := table.shoe.request("deal")).get("error") == "locked" and time.monotonic() < end:
        time.sleep(0.02)
    assert answer["ok"], answer
    wait(lambda v: v["last_seq"] > seq, "the card reached the journal")
    return answer


def start_round(table: Table) -> None:
    wait(lambda v: v["phase"] == "betting" and not v["locked"], "the table is ready for bets")
    r = httpx.post(table.api + "/api/actions", json={"type": "bet", "box": 1, "amount": 10},
                   headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
    assert r.status_code == 200, r.text


def integrity(v: dict) -> list[str]:
    return [a["message"] for a in v["alerts"] if a["kind"] == "integrity"]


def test_a_gap_a_repeated_position_and_a_garbled_frame_each_raise_an_alert_and_lock_the_shoe(tmp_path):
    with Table(tmp_path, seed=11) as table:
        table_ref[:] = [table]
        start_round(table)
        deal(table)
        assert table.shoe.request("misbehave", how="skip", count=2)["ok"]
        answer = deal(table)
        v = wait(lambda v: integrity(v), "the gap's alert")
        shoe = answer["shoe_id"]
        assert integrity(v) == [f"cards 2 to 3 of shoe {shoe} never reached the table: the shoe's count jumped "
                                "from 1 to 4"]
        wait(lambda v: v["locked"], "the shoe locked")
        assert table.shoe.request("status")["locked"] is True
        assert any("integrity alert" in r for r in view(table)["lock_reasons"])
        for alert in view(table)["alerts"]:
            httpx.post(table.api + "/api/actions", json={"type": "ack_alert", "alert_id": alert["id"]},
                       headers=AUTH, timeout=scaled(10))
        wait(lambda v: not v["locked"], "acknowledged, the gate opens")

        assert table.shoe.request("misbehave", how="repeat", card="KH")["ok"]  # position 4 again, another card
        v = wait(lambda v: v["phase"] == "attention", "the repeated position is held")
        assert v["held_cards"] == ["KH"]
        assert any(f"card 4 of shoe {shoe} came again (KH)" in m for m in integrity(v))
        httpx.post(table.api + "/api/actions", json={"type": "void_round"}, headers=AUTH, timeout=scaled(10))
        for alert in view(table)["alerts"]:
            httpx.post(table.api + "/api/actions", json={"type": "ack_alert", "alert_id": alert["id"]},
                       headers=AUTH, timeout=scaled(10))

        start_round(table)
        assert table.shoe.request("misbehave", how="garble")["ok"]
        table.shoe.request("deal")  # card 5: its frame's body cannot be read
        v = wait(lambda v: any(a["kind"] == "shoe_fault" for a in v["alerts"]) and integrity(v),
                 "the garbled frame's fault, and the shoe's count showing the card missing")
        fault = next(a for a in v["alerts"] if a["kind"] == "shoe_fault")
        assert "could not be read" in fault["message"]
        assert integrity(v) == [f"the shoe has released 5 cards of shoe {shoe} but the table has 4: card 5 is "
                                "missing (a journal put back from a copy, or cards lost)"]
        for alert in v["alerts"]:
            httpx.post(table.api + "/api/actions", json={"type": "ack_alert", "alert_id": alert["id"]},
                       headers=AUTH, timeout=scaled(10))
        wait(lambda v: not v["locked"], "acknowledged, the gate opens")
        deal(table)  # the link moved on: card 6 arrives, and is not taken for a second gap
        assert integrity(view(table)) == []
        assert table.shoe.request("status")["unacked"] == 0  # nothing left waiting on the link


def test_a_journal_put_back_from_a_copy_behind_the_shoe_raises_an_alert(tmp_path):
    with Table(tmp_path, seed=12) as table:
        table_ref[:] = [table]
        start_round(table)
        for _ in range(2):
            deal(table)
        table.service.stop()
        saved = tmp_path / "saved"
        saved.mkdir()
        shutil.copy(table.journal, saved / "journal.sqlite")  # a clean stop: the WAL is folded in
        table.service.start()
        for _ in range(3):
            deal(table)
        table.service.stop()
        shutil.copy(saved / "journal.sqlite", table.journal)  # the SD card gives back the old copy
        for side in ("-wal", "-shm"):
            Path(str(table.journal) + side).unlink(missing_ok=True)
        table.service.start()
        v = wait(lambda v: integrity(v), "the rolled-back journal's alert")
        shoe = table.shoe.request("status")["shoe_id"]
        assert integrity(v) == [f"the shoe has released 5 cards of shoe {shoe} but the table has 2: cards 3 to 5 "
                                "are missing (a journal put back from a copy, or cards lost)"]
        wait(lambda v: v["locked"], "the shoe locked")
        assert table.shoe.request("status")["locked"] is True
