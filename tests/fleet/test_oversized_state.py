"""An oversized state never takes the table off the floor (issue 21).

The retained state is the largest message a table publishes; a broker whose `message_size_limit`
it exceeds drops the publisher (the table's status goes offline by its will) at every state
publish. The publisher sends no state over the floor's limit: it logs it once, and the ledger's
rows keep flowing on the same connection. Against a real Mosquitto with the deployed limit.
"""

from __future__ import annotations

import asyncio
import logging

from controller.journal import LedgerRow
from tablectl.fleet import broker as mqtt
from tablectl.fleet.publisher import Publisher
from tablectl.fleet.settings import BrokerSettings, FleetSettings
from tablectl.fleet.wire import MAX_STATE_BYTES, parse_ledger
from tests.support.deadlines import scaled
from tests.support.broker import Mosquitto


class GrowingSource:
    """A table whose state grows with every row (as 1,800 call_pit alerts grew it), past the broker's limit."""

    def __init__(self) -> None:
        self.ledger: list[LedgerRow] = []
        self.wake = None
        self.padding = 0

    def add(self, n: int, padding: int) -> None:
        for _ in range(n):
            seq = len(self.ledger) + 1
            self.ledger.append(LedgerRow(seq, "event", "2026-12-01T20:00:00+00:00",
                                         '{"actor":"dealer:ann","type":"call_pit"}', None, None, None, None,
                                         f"{seq:064x}"))
        self.padding = padding
        assert self.wake is not None
        self.wake(self.ledger[-1].seq)

    def add_listener(self, wake) -> None:  # noqa: ANN001 - the publisher's wake callback
        self.wake = wake

    def rows(self, after: int, limit: int) -> list[LedgerRow]:
        return self.ledger[after:after + limit]

    def head(self) -> tuple[int, str]:
        return (self.ledger[-1].seq, self.ledger[-1].mac) if self.ledger else (0, "")

    def outbox_position(self) -> int:
        return 0

    async def record_outbox(self, seq: int) -> None:
        pass

    def masked_seqs(self) -> set[int]:
        return set()

    def surveillance(self, table_id: str, head: tuple[int, str | None]) -> dict:
        return {"table": table_id}

    def ended_ratings(self, table_id: str) -> list:
        return []

    def last_round_number(self) -> int:
        return 0

    def settled_after(self, number: int, limit: int = 64) -> list:
        return []

    def state(self, table_id: str, dashboard_url: str, head: tuple[int, str | None]) -> dict:
        return {"table": table_id, "view": {"alerts": "x" * self.padding}, "head": {"seq": head[0], "mac": head[1]}}

    def close(self) -> None:
        pass


def test_an_oversized_state_is_not_sent_and_the_rows_keep_flowing(tmp_path, caplog):
    broker = Mosquitto(tmp_path / "broker")  # the test broker's own settings, plus the deployed limit
    broker.config.write_text(broker.config.read_text() + f"message_size_limit {MAX_STATE_BYTES}\n")
    with broker:
        with caplog.at_level(logging.INFO, logger="tablectl.fleet"):
            asyncio.run(_run(broker.url))
    oversized = [r for r in caplog.records if "state" in r.getMessage() and "not published" in r.getMessage()]
    assert len(oversized) == 1, [r.getMessage() for r in caplog.records]


async def _run(url: str) -> None:
    source = GrowingSource()
    settings = FleetSettings(enabled=True, table_id="table-9", state_every_seconds=0.1, broker=BrokerSettings(url=url))
    seqs: list[int] = []
    statuses: list[bytes] = []
    states: list[int] = []
    subscribed = asyncio.Event()

    async def listen() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "test-listener") as conn:
            await conn.subscribe(["tablectl/table-9/#"])
            subscribed.set()
            async for m in conn.messages():
                leaf = str(m.topic).rsplit("/", 1)[1]
                if leaf == "ledger":
                    seqs.append(parse_ledger(m.payload, "table-9").seq)
                elif leaf == "status":
                    statuses.append(m.payload)
                else:
                    states.append(len(m.payload))

    listener = asyncio.create_task(listen())
    await asyncio.wait_for(subscribed.wait(), scaled(10))
    publisher = Publisher(source, settings)
    task = asyncio.create_task(publisher.run())
    source.add(10, padding=1000)  # a state that fits
    await _until(lambda: len(seqs) >= 10 and states)
    for batch in range(6):  # the state now over the limit at every publish, and rows keep coming
        source.add(10, padding=MAX_STATE_BYTES + 1000)
        await _until(lambda: len(seqs) >= 20 + 10 * batch)
        await asyncio.sleep(0.3)  # room for a state publish (every 0.1 s) between the batches
    await publisher.aclose()
    await asyncio.wait_for(task, scaled(10))
    await _until(lambda: len(set(seqs)) >= 70 and statuses and statuses[-1] == b"offline")  # the last of it heard
    listener.cancel()
    await asyncio.gather(listener, return_exceptions=True)

    assert sorted(set(seqs)) == list(range(1, 71))  # every row reached the floor
    assert statuses and statuses[:-1] == [b"online"] * (len(statuses) - 1), statuses  # never dropped mid-run
    assert statuses[-1] == b"offline"  # ... until it said goodbye
    assert publisher.outages == 0
    assert states and max(states) <= MAX_STATE_BYTES  # only the states that fit were sent


async def _until(predicate, timeout: float = 20.0) -> None:  # noqa: ANN001 - a zero-argument callable
    loop = asyncio.get_running_loop()
    end = loop.time() + scaled(timeout)
    while not predicate():
        assert loop.time() < end, "not reached"
        await asyncio.sleep(0.02)
