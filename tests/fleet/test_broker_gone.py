"""When the broker goes away under a connection, leaving the block leaves nothing unretrieved.

Issue 21: when the broker went away, fleet-sim logged `ERROR asyncio: Future exception was never
retrieved ... MqttCodeError`: aiomqtt keeps the unexpected disconnection in a future that nobody
reads once the block has ended, and asyncio reports it when the future is collected.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging

import pytest

from tablectl.fleet import BrokerUnavailable
from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings


def test_a_broker_gone_mid_connection_leaves_no_unretrieved_error(broker, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        with contextlib.suppress(BrokerUnavailable):
            async with mqtt.connect(BrokerSettings(url=broker.url), "table-001") as conn:
                await conn.publish("tablectl/table-001/status", b"online")
                broker.stop()  # the broker is gone, and nothing is sent before the block ends
                while not conn.lost:
                    await asyncio.sleep(0.01)

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(scenario())
        gc.collect()
    assert "never retrieved" not in caplog.text
