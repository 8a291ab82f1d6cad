"""deploy/mosquitto/dev.conf, the README's broker for a floor on one machine, keeps nothing across a restart
(issue 23): a second run with a fresh floor is not handed the last run's tables as retained ghosts."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import re
from pathlib import Path

from tests.support.broker import Mosquitto
from tests.support.harness import free_port

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings

DEV_CONF = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto" / "dev.conf"
PROD_CONF = DEV_CONF.with_name("tablectl.conf")


def _settings(text: str) -> dict[str, str]:
    return dict(line.split(None, 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))


def test_the_dev_broker_persists_nothing_and_the_production_broker_still_does():
    dev = _settings(DEV_CONF.read_text())
    assert dev["persistence"] == "false" and "persistence_location" not in dev
    assert re.search(r"(?m)^#.*ghost", DEV_CONF.read_text())  # the file says why
    prod = _settings(PROD_CONF.read_text())
    assert prod["persistence"] == "true"  # the floor's session and queue survive a production broker's restart


async def _publish(url: str, topic: str, payload: bytes) -> None:
    async with mqtt.connect(BrokerSettings(url=url), "test-table") as conn:
        await conn.publish(topic, payload, retain=True)


async def _first_retained(url: str, topics: list[str]) -> str:
    """The topic of the first retained message delivered when subscribing to `topics` one after the other.

    The broker sends a subscription's retained messages right after acknowledging it, before it handles the
    next subscription: if the first one delivered is the last topic's, the earlier topics held nothing."""
    async with mqtt.connect(BrokerSettings(url=url), "test-floor") as conn:
        for t in topics:
            await conn.subscribe([t])
        async for message in conn.messages():
            return str(message.topic)
    raise AssertionError("no message")


def test_a_restarted_dev_broker_hands_no_table_of_the_last_run_to_a_new_floor(tmp_path):
    port = free_port()
    conf = DEV_CONF.read_text().replace("listener 1883 127.0.0.1", f"listener {port} 127.0.0.1")
    # As root (CI) mosquitto would switch to its own user; run as whoever runs the test.
    b = Mosquitto(tmp_path / "broker", port=port, config=f"user {getpass.getuser()}\n" + conf)
    b.start()
    try:
        asyncio.run(_publish(b.url, "tablectl/table-001/status", b"offline"))
        b.stop()
        b.start()
        asyncio.run(_publish(b.url, "test/marker", b"1"))
        assert asyncio.run(_first_retained(b.url, ["tablectl/+/status", "test/marker"])) == "test/marker"
    finally:
        b.stop()


def test_the_dev_broker_queues_a_floor_s_rows_while_it_runs_and_its_restart_ends_the_queue(tmp_path):
    """Issue 37: the workers' docs rely on the broker's queue while dev.conf keeps nothing. Decided and documented:
    the development broker keeps a floor's session and the rows queued for it (its share, for a worker) for as
    long as it runs; its restart ends them (the floor then fetches those rows from the tables' APIs)."""
    port = free_port()
    conf = DEV_CONF.read_text().replace("listener 1883 127.0.0.1", f"listener {port} 127.0.0.1")
    b = Mosquitto(tmp_path / "broker", port=port, config=f"user {getpass.getuser()}\n" + conf)
    durable = {"clean_start": False, "session_expiry": 3600}

    async def publish(rows: range) -> None:
        async with mqtt.connect(BrokerSettings(url=b.url), "table-001") as table:
            for n in rows:
                await table.publish("tablectl/table-001/ledger", str(n).encode(), qos=1)

    async def floor_takes(subscribe: bool = False) -> list[str]:
        got: list[str] = []
        async with mqtt.connect(BrokerSettings(url=b.url), "tablectl-floor-1", **durable) as floor:
            if subscribe:
                await floor.subscribe(["$share/floor/tablectl/+/ledger"])
                return got

            async def drain() -> None:
                async for m in floor.messages():
                    got.append(m.payload.decode())

            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(drain(), 1.0)
        return got

    b.start()
    try:
        asyncio.run(floor_takes(subscribe=True))  # the worker's session, then it goes away
        asyncio.run(publish(range(1, 4)))
        assert asyncio.run(floor_takes()) == ["1", "2", "3"]  # queued for it while it was away
        asyncio.run(publish(range(4, 6)))
        b.stop()
        b.start()
        assert asyncio.run(floor_takes()) == []  # the restart ended its session and queue: gaps for the floor
    finally:
        b.stop()
