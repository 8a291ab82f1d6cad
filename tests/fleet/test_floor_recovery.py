"""The floor fills a gap by itself from the table's API (issue 21), against real parts: a real Mosquitto, the
floor as its own process, and a real table (its service, journal, publisher and uvicorn API, fleet-sim's
in-memory shoe and dealer).

The issue's case: rows a table published while the floor's session was gone (here erased by a client
claiming the floor's client id, as a table's certificate could before the ACL fix) are acknowledged by the
broker, so the table never sends them again: on the floor they are a gap for good, and the export answers
409. With `[[floor.tables]]` the floor asks the table's API for them, verifies them, and the export is
the table's own. It never asks the address the table publishes (`dashboard_url`): a trap listens there.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Awaitable, Callable

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.fleet import FloorProcess, write_floor_config
from tests.support.harness import FLOOR_KEY, SUPERVISOR_KEY, free_port, tablectl

from tablectl.config import ApiKey
from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet_sim import SimTable, SimTableConfig

HEADERS = {"Authorization": f"Bearer {SUPERVISOR_KEY}"}


class Trap:
    """A listener that counts who connects: where the table says its dashboard is, never asked for rows."""

    def __init__(self) -> None:
        self.connections = 0
        self.port = free_port()
        self.server: asyncio.Server | None = None

    async def start(self) -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            writer.close()

        self.server = await asyncio.start_server(handle, "127.0.0.1", self.port)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


def live_table(directory: Path, broker_url: str, api_port: int, dashboard_url: str) -> SimTable:
    """table-001: fleet on, its API on `api_port` with the floor's key, its published dashboard elsewhere."""
    return SimTable(SimTableConfig(1, directory, broker_url, "tablectl", 5, "ru-standard", api_port,
                                   floor_key_sha256=ApiKey.hash(FLOOR_KEY), dashboard_url=dashboard_url))


def recovery_config(api_port: int, key_file: Path) -> str:
    """The [[floor.tables]] entry for table-001 (small pages, so a gap takes several)."""
    return (f'[floor.recovery]\npage_rows = 10\ntimeout_seconds = {scaled(5.0)}\nbackoff_max_seconds = 2.0\n'
            f'[[floor.tables]]\nid = "table-001"\napi_url = "http://127.0.0.1:{api_port}"\n'
            f'api_key_file = "{key_file}"\n')


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 60.0) -> None:
    """Poll `check()` until true, or fail after `timeout` seconds (a bound on waiting, never an assertion)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + scaled(timeout)
    while not await check():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def erase_floor_session(broker_url: str) -> None:
    """Claim the floor's client id with a clean start and no expiry: the broker drops its session and queue."""
    async with mqtt.connect(BrokerSettings(url=broker_url), "tablectl-floor", clean_start=True, session_expiry=0):
        pass


@pytest.mark.long
def test_a_gap_the_broker_can_no_longer_fill_is_filled_from_the_tables_api(tmp_path, broker):
    asyncio.run(_gap_filled(tmp_path, broker.url))


async def _gap_filled(tmp_path: Path, broker_url: str) -> None:
    trap = Trap()
    await trap.start()
    table_port = free_port()
    sim = live_table(tmp_path / "sim", broker_url, table_port, f"http://127.0.0.1:{trap.port}/")
    keys = tmp_path / "sim" / "keys"
    keys.mkdir(parents=True, exist_ok=True)
    floor_port = free_port()
    key_file = tmp_path / "floor-key"
    key_file.write_text("not-the-floor-key\n")

    def floor_with(extra: str) -> FloorProcess:
        return FloorProcess(write_floor_config(tmp_path, broker_url, floor_port, keys, extra=extra),
                            tmp_path / "floor.log")

    floor = await asyncio.to_thread(floor_with("").start)  # no recovery configured: as before the fix
    http = httpx.AsyncClient(base_url=floor.api, headers=HEADERS, timeout=scaled(10))

    async def tile() -> dict[str, Any]:
        answer = await http.get("/api/tables/table-001")
        return answer.json() if answer.status_code == 200 else {}

    async def incidents(kind: str) -> list[dict[str, Any]]:
        return [i for i in (await http.get("/api/incidents", params={"limit": 1000})).json()["incidents"]
                if i["kind"] == kind and i["table"] == "table-001"]

    await sim.start()
    try:
        await sim.play(2, 0.0)  # two rounds reach the floor
        await sim.drain(30)
        before = sim.service.head()[0]
        await until(lambda: _has(tile, contiguous=before), "the first rows on the floor")

        await asyncio.to_thread(floor.stop)
        await sim.play(4, 0.0)  # rows the broker acknowledges and queues for the floor's session
        await sim.drain(30)
        lost = (before + 1, sim.service.head()[0])
        await erase_floor_session(broker_url)  # and the queue is gone: the table never sends them again
        floor = await asyncio.to_thread(floor_with("").start)
        await sim.play(6, 0.0)
        await sim.drain(30)
        head = sim.service.head()[0]
        await until(lambda: _has(tile, max_seq=head), "the rows after the gap")

        # The issue: a gap for good, and no export.
        await until(lambda: _nonempty(incidents("gap")), "the gap reported")
        assert [(g["first"], g["last"]) for g in (await tile())["open_gaps"]] == [lost]
        assert (await http.get("/api/tables/table-001/export")).status_code == 409

        # Recovery configured, with a key the table does not know: one incident, however many attempts.
        await asyncio.to_thread(floor.stop)
        floor = await asyncio.to_thread(floor_with(recovery_config(table_port, key_file)).start)
        await until(lambda: _nonempty(incidents("recovery_failed")), "the refusal reported")
        refused = await incidents("recovery_failed")
        assert len(refused) == 1 and "401" in refused[0]["detail"] and "bad_key" in refused[0]["detail"]
        await until(lambda: _has_failures(tile, 3), "more attempts, with back-off")
        assert len(await incidents("recovery_failed")) == 1  # still one: an outage is one incident
        assert (await tile())["recovery"]["failing"] and (await tile())["gaps"] == 1
        assert (await http.get("/api/tables/table-001/export")).status_code == 409

        # The floor's own key: the gap fills from the table's API, verified, and the export is whole.
        key_file.write_text(FLOOR_KEY + "\n")
        await asyncio.to_thread(floor.stop)
        floor = await asyncio.to_thread(floor_with(recovery_config(table_port, key_file)).start)
        await until(lambda: _has(tile, contiguous=head, gaps=0, mac="ok"), "the gap filled and verified")
        recovered = await incidents("recovered")
        assert len(recovered) == 1 and f"rows {lost[0]}..{lost[1]}" in recovered[0]["detail"]
        assert (await tile())["recovery"] == {"failing": False, "error": None, "failures": 0,
                                               "rows": lost[1] - lost[0] + 1}
        await sim.drain(30)
    finally:
        await sim.close()
        await http.aclose()
        await trap.stop()
    try:
        export = httpx.get(floor.api + "/api/tables/table-001/export", headers=HEADERS, timeout=scaled(10))
        assert export.status_code == 200 and export.headers["X-Tablectl-Verified"] == "yes"
        own = tablectl("journal", "export", "--db", str(tmp_path / "sim" / "table-001" / "journal.sqlite"))
        assert own.returncode == 0 and export.text == own.stdout  # the table's own rows, byte for byte
        assert not [i for i in httpx.get(floor.api + "/api/incidents", headers=HEADERS, timeout=scaled(10)).json()
                    ["incidents"] if i["kind"] in ("bad_mac", "conflict", "bad_message")]
    finally:
        floor.stop()
    assert trap.connections == 0  # the published dashboard_url was never asked for anything


async def _has(tile: Callable[[], Awaitable[dict[str, Any]]], **want: Any) -> bool:
    got = await tile()
    return all(got.get(k) == v for k, v in want.items())


async def _has_failures(tile: Callable[[], Awaitable[dict[str, Any]]], n: int) -> bool:
    recovery = (await tile()).get("recovery") or {}
    return recovery.get("failures", 0) >= n


async def _nonempty(found: Awaitable[list[Any]]) -> bool:
    return bool(await found)


def test_tables_that_answer_garbage_too_much_or_too_slowly_are_one_incident_each_and_delay_no_other(tmp_path, broker):
    asyncio.run(_bad_tables(tmp_path, broker.url))


async def _bad_tables(tmp_path: Path, broker_url: str) -> None:
    from tests.support.fleet import make_rows
    from tests.support.table_api import TableApi

    from tablectl.fleet.wire import ledger_payload

    key = bytes.fromhex("99" * 32)
    rows = make_rows(key, 30)
    modes = {"t1": "good", "t2": "garbage", "t3": "huge", "t4": "slow", "t5": "silent"}
    apis = {t: await TableApi(t, rows, mode).start() for t, mode in modes.items()}
    keys = tmp_path / "keys"
    keys.mkdir()
    key_file = tmp_path / "floor-key"
    key_file.write_text(FLOOR_KEY + "\n")
    extra = "[floor.recovery]\ntimeout_seconds = 1.0\nbackoff_max_seconds = 2.0\n" + "".join(
        f'[[floor.tables]]\nid = "{t}"\napi_url = "{api.url}"\napi_key_file = "{key_file}"\n' for t, api in apis.items())
    for t in apis:
        (keys / f"{t}.key").write_text(key.hex() + "\n")
    floor = await asyncio.to_thread(FloorProcess(write_floor_config(tmp_path, broker_url, free_port(), keys,
                                                                    extra=extra), tmp_path / "floor.log").start)
    http = httpx.AsyncClient(base_url=floor.api, headers=HEADERS, timeout=scaled(10))

    async def tile(table: str) -> dict[str, Any]:
        return (await http.get(f"/api/tables/{table}")).json()

    async def failures(table: str) -> int:
        return ((await tile(table)).get("recovery") or {}).get("failures", 0)

    async def failed_everywhere() -> bool:
        return all([await failures(t) >= 2 for t in ("t2", "t3", "t4", "t5")])

    try:
        async with mqtt.connect(BrokerSettings(url=broker_url), "test-tables") as conn:
            for t in apis:  # every table misses rows 11..20 (its session was gone meanwhile)
                for r in rows:
                    if not 11 <= r.seq <= 20:
                        await conn.publish(f"tablectl/{t}/ledger", ledger_payload(t, r))
        await until(lambda: _has(lambda: tile("t1"), contiguous=30, gaps=0, mac="ok"), "t1's gap filled")
        await until(failed_everywhere, "every other table failed twice")
        incidents = (await http.get("/api/incidents", params={"limit": 1000})).json()["incidents"]
        for t, why in (("t2", "malformed"), ("t3", "answered more than"), ("t4", "no whole answer"),
                       ("t5", "no whole answer")):
            mine = [i for i in incidents if i["table"] == t and i["kind"] == "recovery_failed"]
            assert len(mine) == 1 and why in mine[0]["detail"], (t, mine)
            assert (await tile(t))["gaps"] == 1 and (await http.get(f"/api/tables/{t}/export")).status_code == 409
        assert (await http.get("/healthz")).json()["ok"] is True
        assert (await http.get("/api/floor")).status_code == 200
        assert (await http.get("/api/tables/t1/export")).status_code == 200
    finally:
        await http.aclose()
        await asyncio.to_thread(floor.stop)
        for api in apis.values():
            await api.stop()
    log = (tmp_path / "floor.log").read_text()
    for t in ("t2", "t3", "t4", "t5"):
        assert log.count(f"table {t}: recovery_failed") == 1, log[-3000:]  # one line an outage, not one a retry
    assert "Traceback" not in log
