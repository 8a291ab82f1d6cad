"""Faults on a real broker, with a few tables: the broker stopped mid-session and started again, the floor
killed and restarted, every table killed and restarted. Afterwards every table's rows on the floor equal
its own journal (count and MACs), none missing, none doubled, and the floor's export replays as the
table's own does.
"""

from __future__ import annotations

import time

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.fleet import FleetSimProcess, FloorProcess, journal_ledger, until_true, write_floor_config
from tests.support.harness import SUPERVISOR_KEY, free_port, tablectl

TABLES = 3
ROUNDS = 36


def _tiles(api: str) -> dict[str, dict]:
    r = httpx.get(api + "/api/floor", headers={"Authorization": f"Bearer {SUPERVISOR_KEY}"}, timeout=scaled(10))
    return {t["id"]: t for t in r.json()["tables"]} if r.status_code == 200 else {}


def _floor_rows(api: str, table: str) -> list[dict]:
    out: list[dict] = []
    while True:
        page = httpx.get(f"{api}/api/tables/{table}/rows", params={"after": out[-1]["seq"] if out else 0,
                                                                     "limit": 1000},
                         headers={"Authorization": f"Bearer {SUPERVISOR_KEY}"}, timeout=scaled(10)).json()["rows"]
        if not page:
            return out
        out += page


def _each_has(api: str, rows: int) -> bool:
    tiles = _tiles(api)
    return len(tiles) == TABLES and all(t["contiguous"] >= rows for t in tiles.values())


@pytest.mark.long
def test_broker_floor_and_table_restarts_lose_nothing_and_double_nothing(tmp_path, broker):
    keys = tmp_path / "sim" / "keys"
    floor = FloorProcess(write_floor_config(tmp_path, broker.url, free_port(), keys), tmp_path / "floor.log").start()
    args = ("--rules", "us-holecard", "--step-seconds", "0.03", "--seed", "4")
    sim = FleetSimProcess(tmp_path, broker.url, TABLES, ROUNDS, *args).start()
    try:
        until_true(lambda: _each_has(floor.api, 40), 60, "rows from every table")

        # 1. The broker stops in the middle of the session; the tables play on; it comes back.
        broker.stop()
        time.sleep(2.0)
        broker.start()
        until_true(lambda: _each_has(floor.api, 120), 90, "rows after the broker came back")

        # 2. The floor is killed and restarted; the broker kept its queue meanwhile.
        floor.kill()
        time.sleep(1.5)
        floor.start()
        until_true(lambda: _each_has(floor.api, 200), 90, "rows after the floor came back")

        # 3. Every table loses power at once and starts again on its journal.
        sim.kill()
        sim = FleetSimProcess(tmp_path, broker.url, TABLES, ROUNDS, *args).start()
        summary = sim.wait(timeout=240)
        assert summary["tables"] == TABLES and all(t["rounds"] == ROUNDS for t in summary["per_table"])

        for t in summary["per_table"]:
            tid = t["table"]
            ledger = journal_ledger(tmp_path / "sim" / tid / "journal.sqlite", keys / f"{tid}.key")
            until_true(lambda: (_tiles(floor.api).get(tid) or {}).get("contiguous") == len(ledger)
                       and _tiles(floor.api)[tid]["masked"] == 0, 60, f"{tid} complete on the floor")
            rows = _floor_rows(floor.api, tid)
            assert [r["seq"] for r in rows] == [r.seq for r in ledger]  # none missing, none doubled
            assert [r["mac"] for r in rows] == [r.mac for r in ledger]
            assert [r["body"] for r in rows] == [r.body for r in ledger]
            assert {r["verified"] for r in rows} == {"ok"}
            tile = _tiles(floor.api)[tid]
            assert tile["mac"] == "ok" and tile["gaps"] == 0 and tile["conflicts"] == 0
            assert tile["status"] == "offline"  # the sim stopped cleanly at the end

            # Surveillance's review from the floor: its export replays exactly as the table's own.
            mine = tmp_path / f"{tid}-floor.jsonl"
            theirs = tmp_path / f"{tid}-journal.jsonl"
            cfg = tmp_path / "floor.toml"
            assert tablectl("floor", "--config", str(cfg), "export", "--table", tid, "--out", str(mine)).returncode == 0
            assert tablectl("journal", "export", "--db", str(tmp_path / "sim" / tid / "journal.sqlite"),
                            "--out", str(theirs)).returncode == 0
            assert mine.read_text() == theirs.read_text()
            replayed = tablectl("replay", str(mine), "--json")
            assert replayed.returncode == 0, replayed.stdout[-500:]
            assert replayed.stdout == tablectl("replay", str(theirs), "--json").stdout
        incidents = httpx.get(floor.api + "/api/incidents", headers={"Authorization": f"Bearer {SUPERVISOR_KEY}"},
                              timeout=scaled(10)).json()["incidents"]
        assert not [i for i in incidents if i["kind"] in ("bad_mac", "conflict", "bad_message")], incidents
    finally:
        sim.stop()
        floor.stop()
