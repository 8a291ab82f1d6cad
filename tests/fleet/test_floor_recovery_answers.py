"""What the floor does with a table API's answer when it asks for the rows of a gap (issue 21).

The floor runs in-process (its store, its recovery, its HTTP API through a test client); the table's
API is a stand-in on a real socket (`tests/support/table_api.py`) answering well or in one of the ways
a table, or whatever answers at its address, can answer badly. A bad answer changes nothing in the
store, is one `recovery_failed` incident for as long as the table keeps failing (retried with back-off),
and no other table waits for it; rows that come back go through the broker rows' path, so a masked row
stays masked and a row whose MAC does not verify is refused as evidence, never exported. The tests of what
is stored run on both engines of the store (`floor_db`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.support.deadlines import scaled
from tests.support.floor import NOW, StoreAt, api_client, floor_service, ledger, state
from tests.support.fleet import make_rows
from tests.support.harness import FLOOR_KEY, tablectl
from tests.support.table_api import TableApi

from tablectl.floor import FloorConfigError
from tablectl.floor.service import FloorService
from tablectl.floor.store import BAD, OK
from tablectl.fleet.wire import ledger_payload

KEY = bytes.fromhex("77" * 32)
ROWS = make_rows(KEY, 12)
GAP = (4, 8)  # the floor has 1..3 and 9..12


def _floor(tmp_path: Path, apis: dict[str, TableApi], store: StoreAt | None = None, **recovery: Any) -> FloorService:
    """A floor with the tables of `apis` (keys and recovery entries), each missing rows 4..8 for a minute."""
    key_file = tmp_path / "floor-key"
    key_file.write_text(FLOOR_KEY + "\n")
    floor = floor_service(tmp_path, {t: KEY for t in apis}, store=store,
                          recovery={"timeout_seconds": 0.5, "page_rows": 2, **recovery},
                          tables=[{"id": t, "api_url": api.url, "api_key_file": str(key_file)}
                                  for t, api in apis.items()])
    for table in apis:
        floor.handle([ledger(table, ledger_payload(table, r)) for r in ROWS if not GAP[0] <= r.seq <= GAP[1]],
                     now=NOW)
    assert floor.recovery is not None
    floor.recovery.wall = lambda: NOW + 60  # the gaps are past their grace
    return floor


async def _attempt(floor: FloorService, table: str) -> None:
    assert floor.recovery is not None
    target = floor.recovery.targets[table]
    await floor.recovery.attempt(target, floor.recovery.wanted(target))


def _incidents(floor: FloorService, kind: str) -> list[dict[str, Any]]:
    return [i for i in floor.store.incidents(1000) if i["kind"] == kind]


def test_the_gap_is_filled_from_the_api_with_the_floor_key_and_verified(tmp_path, floor_db):
    async def go() -> FloorService:
        api = await TableApi("t1", ROWS).start()
        try:
            # A good answer is not a race: time enough for a loaded machine to store the pages (either engine).
            floor = _floor(tmp_path, {"t1": api}, floor_db, timeout_seconds=30)
            await _attempt(floor, "t1")
            path, headers = api.requests[0]
            assert path == "/api/ledger?after=3&limit=2" and headers["authorization"] == f"Bearer {FLOOR_KEY}"
            assert headers["accept-encoding"] == "identity"
            assert [p for p, _ in api.requests] == [f"/api/ledger?after={a}&limit={n}" for a, n in
                                                    ((3, 2), (5, 2), (7, 1))]  # pages, never past the gap
            return floor
        finally:
            await api.stop()

    floor = asyncio.run(go())
    t = floor.store.tracks["t1"]
    assert (t.contiguous, t.verified_upto, len(t.gaps)) == (12, 12, 0)
    assert [r.mac for r in floor.store.rows("t1")] == [r.mac for r in ROWS]
    assert {r.verified for r in floor.store.rows("t1")} == {OK}
    assert "rows 4..8 fetched from the table's API" in _incidents(floor, "recovered")[0]["detail"]
    assert floor.tile("t1", NOW)["recovery"] == {"failing": False, "error": None, "failures": 0, "rows": 5}


BAD_ANSWERS = {
    "garbage": "line 1 of the table's answer: malformed ledger message",
    "huge": "answered more than 32770 bytes for 2 rows",
    "slow": "no whole answer from the table's API within 0.5 s",
    "silent": "no whole answer from the table's API within 0.5 s",
    "error_500": "the table's API answered 500",
    "refused_401": "answered 401 (bad_key: this API key is not known)",
    "redirect": "the table's API answered 302",
    "other_table": "names table 't9' on the topic of 't1'",
    "wrong_rows": "not those asked for (after 3)",
    "gzip": "answered compressed",
    "json": "'application/json', not application/x-ndjson",
    "empty": "the table's API has no row 4",
}


@pytest.mark.parametrize("mode", BAD_ANSWERS)
def test_a_bad_answer_changes_nothing_and_is_an_incident_not_a_500(tmp_path, mode):
    async def go() -> tuple[FloorService, TableApi]:
        elsewhere = await TableApi("t1", ROWS).start()  # where a redirect points: never followed
        api = await TableApi("t1", ROWS, mode, redirect_to=elsewhere.url + "/api/ledger?after=3&limit=2").start()
        try:
            floor = _floor(tmp_path, {"t1": api})
            await _attempt(floor, "t1")
            assert not elsewhere.requests
            return floor, api
        finally:
            await api.stop()
            await elsewhere.stop()

    floor, _ = asyncio.run(go())
    assert floor.store.missing("t1") == [GAP] and floor.store.tracks["t1"].rows == 7
    failed = _incidents(floor, "recovery_failed")
    assert len(failed) == 1 and failed[0]["table"] == "t1" and BAD_ANSWERS[mode] in failed[0]["detail"], failed
    tile = api_client(floor).get("/api/tables/t1")
    assert tile.status_code == 200 and tile.json()["recovery"]["failing"] is True
    assert api_client(floor).get("/api/incidents").status_code == 200


def test_a_table_that_keeps_failing_is_one_incident_retried_with_back_off_then_said_to_answer(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="tablectl.floor")
    clock = [1000.0]

    async def go() -> FloorService:
        api = await TableApi("t1", ROWS, "error_500").start()
        try:
            floor = _floor(tmp_path, {"t1": api}, backoff_max_seconds=60)
            recovery = floor.recovery
            assert recovery is not None
            recovery.clock = lambda: clock[0]
            target = recovery.targets["t1"]
            for _ in range(4):
                await _attempt(floor, "t1")
            assert target.failures == 4 and len(_incidents(floor, "recovery_failed")) == 1
            # Backing off: not asked again before its time (2, 4, 8, then 16 s, give or take a fifth).
            assert recovery.poll() == [] and 1000 + 16 * 0.8 <= target.next_try <= 1000 + 16 * 1.2
            clock[0] = target.next_try
            assert recovery.poll() == ["t1"]
            assert target.task is not None
            await target.task
            assert target.failures == 5 and len(_incidents(floor, "recovery_failed")) == 1
            api.mode = "good"
            await _attempt(floor, "t1")
            assert target.error is None and target.failures == 0 and floor.store.missing("t1") == []
            return floor
        finally:
            await api.stop()

    floor = asyncio.run(go())
    assert len(_incidents(floor, "recovered")) == 1
    said = [r.getMessage() for r in caplog.records if "t1" in r.getMessage()]
    assert sum("recovery_failed" in m for m in said) == 1  # the log says the outage once
    assert any("its API answers again (after 5 failed attempts)" in m for m in said)


def test_a_table_that_answers_slowly_delays_no_other_table(tmp_path):
    async def go() -> FloorService:
        held = await TableApi("t1", ROWS, "hold").start()
        good = await TableApi("t2", ROWS).start()
        try:
            floor = _floor(tmp_path, {"t1": held, "t2": good}, timeout_seconds=60)
            assert floor.recovery is not None
            assert sorted(floor.recovery.poll()) == ["t1", "t2"]
            t1, t2 = floor.recovery.targets["t1"].task, floor.recovery.targets["t2"].task
            assert t1 is not None and t2 is not None
            await t2
            assert floor.store.missing("t2") == [] and not t1.done()  # t2 filled while t1 still waits
            assert floor.store.missing("t1") == [GAP]
            held.release.set()
            await t1
            assert floor.store.missing("t1") == []
            return floor
        finally:
            await held.stop()
            await good.stop()

    asyncio.run(go())


def test_a_masked_row_comes_masked_and_becomes_final_through_the_broker(tmp_path, floor_db):
    async def go() -> FloorService:
        api = await TableApi("t1", ROWS, masked=frozenset({6})).start()  # a card face down in row 6
        try:
            # A good answer is not a race: time enough for a loaded machine to store the pages (either engine).
            floor = _floor(tmp_path, {"t1": api}, floor_db, timeout_seconds=30)
            await _attempt(floor, "t1")
            return floor
        finally:
            await api.stop()

    floor = asyncio.run(go())
    stored = {r.seq: r for r in floor.store.rows("t1")}
    assert floor.store.missing("t1") == [] and [s for s in stored if stored[s].masked] == [6, 7, 8]
    assert '"card":"XX"' in stored[6].body and stored[6].mac is None and stored[7].mac is None
    assert floor.store.tracks["t1"].verified_upto == 5  # the chain waits for the final rows
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in ROWS[5:8]], now=NOW + 70)  # turned: final
    assert floor.store.tracks["t1"].verified_upto == 12 and not floor.store.tracks["t1"].masked


def test_rows_whose_macs_do_not_verify_are_refused_as_evidence_not_exported(tmp_path, floor_db):
    forged = make_rows(bytes.fromhex("88" * 32), 12, start_body=1)  # another key: none of them verifies

    async def go() -> FloorService:
        api = await TableApi("t1", forged).start()
        try:
            # A good answer is not a race: time enough for a loaded machine to store the pages (either engine).
            floor = _floor(tmp_path, {"t1": api}, floor_db, timeout_seconds=30)
            await _attempt(floor, "t1")
            return floor
        finally:
            await api.stop()

    floor = asyncio.run(go())
    t = floor.store.tracks["t1"]
    assert t.verified_upto == 3 and t.bad_macs >= 1
    assert floor.store.rows("t1")[3].verified == BAD
    bad = _incidents(floor, "bad_mac")
    assert bad and "row 4" in bad[-1]["detail"]
    assert api_client(floor).get("/api/tables/t1/export").status_code == 409


@pytest.mark.parametrize("content, why", [(None, "No such file"), ("", "not a key"), ("two words\n", "not a key"),
                                          ("k" * 2000, "not a key")], ids=["missing", "empty", "space", "long"])
def test_a_key_file_that_cannot_be_used_stops_the_floor_at_start_named(tmp_path, content, why):
    key_file = tmp_path / "floor-key"
    if content is not None:
        key_file.write_text(content)
    with pytest.raises(FloorConfigError, match=re.escape(f"table-001: api_key_file {key_file}: {why}")):
        floor_service(tmp_path, {}, tables=[{"id": "table-001", "api_url": "http://127.0.0.1:1",
                                            "api_key_file": str(key_file)}])
    cfg = tmp_path / "floor.toml"
    cfg.write_text(f'[floor]\nstore = "{tmp_path / "f.sqlite"}"\nkeys_dir = "{tmp_path}"\n[[floor.tables]]\n'
                   f'id = "table-001"\napi_url = "http://127.0.0.1:1"\napi_key_file = "{key_file}"\n'
                   '[broker]\nurl = "mqtt://127.0.0.1:9"\n[api]\nport = 1\n')
    refused = tablectl("floor", "--config", str(cfg), timeout=30)
    assert refused.returncode == 2 and why in refused.stderr and "Traceback" not in refused.stderr


@pytest.mark.parametrize("entry, why", [
    ({"api_url": "ftp://10.0.0.1/"}, "use https://HOST:PORT"),
    ({"api_url": "https://floor:secret@10.0.0.1/"}, "the key goes in api_key_file"),
    ({"api_url": "https://10.0.0.1/?redirect=x"}, "the key goes in api_key_file"),
    ({"api_url": "https://10.0.0.1:99999/"}, "not a usable URL"),
    ({"id": "../etc"}, "floor.tables.0.id"),
    ({"api_url": "http://10.0.0.1:8080", "ca_file": "/etc/ca.crt"}, "ca_file goes with an https:// api_url"),
], ids=["scheme", "credentials", "query", "port", "id", "ca without https"])
def test_a_table_entry_that_cannot_work_is_refused_naming_the_setting(tmp_path, entry, why):
    from tablectl.floor.settings import floor_settings

    base = {"id": "table-001", "api_url": "https://10.0.0.1:8080", "api_key_file": "/etc/tablectl-floor/t1.key"}
    with pytest.raises(FloorConfigError, match="floor.tables.0") as err:
        floor_settings({"floor": {"tables": [{**base, **entry}]}})
    assert why in str(err.value)
    with pytest.raises(FloorConfigError, match="configured more than once"):
        floor_settings({"floor": {"tables": [base, base]}})


def _masked_then_final(floor: FloorService, table: str, at: float) -> None:
    """The floor got rows 1..12 with 6..8 masked (a card face down in 6), and their final forms never."""
    rows = [ledger(table, ledger_payload(table, r, mask_card=r.seq == 6, withhold_mac=6 <= r.seq <= 8))
            for r in ROWS]
    floor.handle(rows, now=at)


def test_masked_rows_below_a_final_one_are_asked_for_their_final_form(tmp_path, floor_db):
    """The final forms of rows sent masked go out before any later row: a masked row below a final one had
    its final form lost (the floor away), and the export would stop there for good."""
    async def go() -> FloorService:
        api = await TableApi("t1", ROWS).start()  # the card is turned: the table gives them final
        try:
            key_file = tmp_path / "floor-key"
            key_file.write_text(FLOOR_KEY + "\n")
            floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, recovery={"page_rows": 2}, tables=[
                {"id": "t1", "api_url": api.url, "api_key_file": str(key_file)}])
            assert floor.recovery is not None
            _masked_then_final(floor, "t1", NOW)
            target = floor.recovery.targets["t1"]
            floor.recovery.wall = lambda: NOW + 0.5
            assert floor.recovery.wanted(target) == []  # within the grace: the final forms may be in flight
            floor.recovery.wall = lambda: NOW + 60
            assert floor.recovery.wanted(target) == [(6, 8)]
            await floor.recovery.attempt(target, floor.recovery.wanted(target))
            assert [p for p, _ in api.requests] == ["/api/ledger?after=5&limit=2", "/api/ledger?after=7&limit=1"]
            return floor
        finally:
            await api.stop()

    floor = asyncio.run(go())
    t = floor.store.tracks["t1"]
    assert not t.masked and t.verified_upto == 12
    assert "rows 6..8 fetched" in _incidents(floor, "recovered")[0]["detail"]


def test_the_round_in_play_is_not_asked_for(tmp_path):
    key_file = tmp_path / "floor-key"
    key_file.write_text(FLOOR_KEY + "\n")
    floor = floor_service(tmp_path, {"t1": KEY}, tables=[
        {"id": "t1", "api_url": "http://127.0.0.1:1", "api_key_file": str(key_file)}])
    # Rows 6..12 masked: the card in 6 is still face down, nothing final after it.
    floor.handle([ledger("t1", ledger_payload("t1", r, mask_card=r.seq == 6, withhold_mac=r.seq >= 6))
                  for r in ROWS], now=NOW)
    assert floor.recovery is not None
    floor.recovery.wall = lambda: NOW + 3600
    assert floor.recovery.wanted(floor.recovery.targets["t1"]) == []


def test_the_last_rows_before_a_table_falls_silent_are_asked_up_to_the_head_its_state_names(tmp_path, floor_db):
    """Rows lost at the end leave no gap behind them: the state's head says they exist."""
    async def go() -> FloorService:
        api = await TableApi("t1", ROWS).start()
        try:
            key_file = tmp_path / "floor-key"
            key_file.write_text(FLOOR_KEY + "\n")
            floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, recovery={"page_rows": 5}, tables=[
                {"id": "t1", "api_url": api.url, "api_key_file": str(key_file)}])
            assert floor.recovery is not None
            floor.handle([ledger("t1", ledger_payload("t1", r)) for r in ROWS[:7]]
                         + [state("t1", json.dumps({"table": "t1", "head": {"seq": 12, "mac": None}}).encode())],
                         now=NOW)
            target = floor.recovery.targets["t1"]
            clock = [NOW]
            floor.recovery.wall = lambda: clock[0]
            assert floor.recovery.wanted(target) == []  # row 8 awaited from now
            clock[0] = NOW + 9.5
            assert floor.recovery.wanted(target) == []  # within the grace: it may be in flight
            floor.handle([ledger("t1", ledger_payload("t1", ROWS[7]))], now=NOW + 9.6)  # row 8 came
            clock[0] = NOW + 10.2
            assert floor.recovery.wanted(target) == []  # row 9 awaited from now on
            clock[0] = NOW + 10.2 + 10  # the grace (10 s) over
            assert floor.recovery.wanted(target) == [(9, 12)]
            await floor.recovery.attempt(target, [(9, 12)])
            return floor
        finally:
            await api.stop()

    floor = asyncio.run(go())
    assert floor.store.tracks["t1"].verified_upto == 12


def test_a_head_beyond_the_tables_journal_is_one_failure_not_a_loop(tmp_path):
    async def go() -> FloorService:
        api = await TableApi("t1", ROWS).start()
        try:
            key_file = tmp_path / "floor-key"
            key_file.write_text(FLOOR_KEY + "\n")
            floor = floor_service(tmp_path, {"t1": KEY}, tables=[
                {"id": "t1", "api_url": api.url, "api_key_file": str(key_file)}])
            assert floor.recovery is not None
            # A forged state (an open broker) names a head far beyond the table's twelve rows (within max_seq_jump:
            # one beyond it is refused outright, test_floor_forged_state.py).
            floor.handle([ledger("t1", ledger_payload("t1", r)) for r in ROWS]
                         + [state("t1", json.dumps({"table": "t1", "head": {"seq": 50_000, "mac": None}}).encode())],
                         now=NOW)
            target = floor.recovery.targets["t1"]
            floor.recovery.wall = lambda: NOW
            assert floor.recovery.wanted(target) == []
            floor.recovery.wall = lambda: NOW + 60
            await floor.recovery.attempt(target, floor.recovery.wanted(target))
            assert len(api.requests) == 1 and target.next_try > floor.recovery.clock()
            return floor
        finally:
            await api.stop()

    floor = asyncio.run(go())
    failed = _incidents(floor, "recovery_failed")
    assert len(failed) == 1 and "has no row 13" in failed[0]["detail"]
    assert floor.store.tracks["t1"].rows == 12


def test_over_https_the_table_s_certificate_is_checked_against_ca_file(tmp_path):
    cert, key = tmp_path / "table.crt", tmp_path / "table.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=scaled(60))
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    key_file = tmp_path / "floor-key"
    key_file.write_text(FLOOR_KEY + "\n")

    async def go(ca: Path | None, directory: Path) -> FloorService:
        api = await TableApi("t1", ROWS, tls=tls).start()
        try:
            directory.mkdir()
            entry = {"id": "t1", "api_url": api.url, "api_key_file": str(key_file)}
            floor = floor_service(directory, {"t1": KEY}, tables=[{**entry, "ca_file": str(ca)} if ca else entry])
            floor.handle([ledger("t1", ledger_payload("t1", r)) for r in ROWS if not GAP[0] <= r.seq <= GAP[1]],
                         now=NOW)
            assert floor.recovery is not None
            floor.recovery.wall = lambda: NOW + 60
            await _attempt(floor, "t1")
            return floor
        finally:
            await api.stop()

    trusted = asyncio.run(go(cert, tmp_path / "trusted"))
    assert trusted.store.missing("t1") == [] and trusted.store.tracks["t1"].verified_upto == 12
    untrusted = asyncio.run(go(None, tmp_path / "untrusted"))  # the system's CAs never signed it
    assert untrusted.store.missing("t1") == [GAP]
    assert "CERTIFICATE_VERIFY_FAILED" in _incidents(untrusted, "recovery_failed")[0]["detail"]
