"""deploy/mosquitto/dev.conf, the README's broker for a floor on one machine, keeps nothing across a restart
(issue 23): a second run with a fresh floor is not handed the last run's tables as retained ghosts."""

from __future__ import annotations

import asyncio
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
