"""`tablectl fleet-sim --rounds 0` plays until it is stopped, and Ctrl-C (SIGINT) stops everything it started
(issue 23): every table says offline on the broker, every table's API stops listening, and fleet-sim exits 0
with its summary. It starts no broker, no floor and no process of its own: its tables run inside it."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from pathlib import Path

import httpx
from tests.support.deadlines import scaled
from tests.support.fleet import FleetSimProcess, until_true
from tests.support.harness import free_port, tablectl

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings

TABLES = 2
DEFAULT_ROUNDS = 20  # where fleet-sim stops by itself without --rounds


def _two_free_ports() -> int:
    """A port P with P + 1 free as well: fleet-sim serves table i's API on P + i - 1."""
    while True:
        port = free_port()
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def _statuses(url: str, count: int) -> dict[str, str]:
    """The retained status of each table, as a floor connecting now would read it."""
    got: dict[str, str] = {}
    async with mqtt.connect(BrokerSettings(url=url), "test-floor") as conn:
        await conn.subscribe(["tablectl/+/status"])
        async for message in conn.messages():
            got[str(message.topic).split("/")[1]] = bytes(message.payload).decode()
            if len(got) == count:
                return got
    return got


def _rounds(port: int) -> int:
    try:
        return int(httpx.get(f"http://127.0.0.1:{port}/api/table", timeout=scaled(5)).json()["rounds_played"])
    except (httpx.HTTPError, KeyError, ValueError):
        return 0


def test_rounds_0_plays_until_ctrl_c_which_stops_every_table_and_exits_0(tmp_path: Path, broker) -> None:
    port = _two_free_ports()
    sim = FleetSimProcess(tmp_path, broker.url, TABLES, 0, "--step-seconds", "0", "--api-port", str(port)).start()
    try:
        assert sim.proc is not None
        for i in range(TABLES):  # past where it would have stopped by itself
            until_true(lambda: _rounds(port + i) > DEFAULT_ROUNDS, timeout=120, what=f"table {i + 1} past 20 rounds")
        assert sim.proc.poll() is None
        assert _children(sim.proc.pid) == []  # nothing to leave behind but its own tables
        sim.proc.send_signal(signal.SIGINT)
        summary = sim.wait(60)  # exit 0, its summary on the last line
    finally:
        sim.stop()
    assert summary["tables"] == TABLES and all(t["rounds"] > DEFAULT_ROUNDS for t in summary["per_table"])
    assert not any(_listening(port + i) for i in range(TABLES))
    statuses = asyncio.run(asyncio.wait_for(_statuses(broker.url, TABLES), scaled(30)))
    assert statuses == {"table-001": "offline", "table-002": "offline"}  # each table said so as it stopped
    assert "Traceback" not in sim.log.read_text()


def test_fleet_sim_says_when_it_stops_and_refuses_negative_rounds(tmp_path: Path, broker) -> None:
    r = tablectl("fleet-sim", "--tables", "1", "--broker", broker.url, "--dir", str(tmp_path), "--rounds", "-1")
    assert r.returncode == 2 and "--rounds" in r.stderr and "Traceback" not in r.stderr
    sim = FleetSimProcess(tmp_path, broker.url, 1, 1, "--step-seconds", "0").start()
    summary = sim.wait(120)
    assert summary["per_table"][0]["rounds"] == 1
    assert "until each has played 1 rounds, then stops by itself; Ctrl-C stops them all" in sim.log.read_text()
    assert os.path.exists(tmp_path / "sim" / "table-001" / "journal.sqlite")
