"""A fast table never pauses, and its publisher must still record its outbox mark and publish its state.

Issue 21: four fast tables killed after ~30 s and ~2,500 rows each had an empty outbox (the floor then
dropped ~10,600 duplicates per table after the restart), and six of seven had no state on the floor: the
send loop did not return while new rows kept coming. Here a source that commits a new window of rows as
soon as the last one is sent plays against a real Mosquitto; the publisher's clock is the test's, moving
on a little with every reading, so "on time" is counted in rows, not measured.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tablectl.fleet.publisher import Publisher
from tablectl.fleet.settings import BrokerSettings, FleetSettings
from tablectl.fleet.wire import LedgerRow
from tests.support.deadlines import scaled

TOTAL = 3000  # rows the table commits, without a pause


class EndlessTable:
    """A `Source` whose table commits rows as fast as the publisher reads them, until TOTAL."""

    def __init__(self) -> None:
        self.committed = 0
        self.marks: list[tuple[int, int]] = []  # (mark recorded, rows committed by then)
        self.states: list[int] = []  # rows committed when each state was taken
        self.wake: Any = None

    def add_listener(self, wake: Any) -> None:
        self.wake = wake

    def rows(self, after: int, limit: int) -> list[LedgerRow]:
        # Reading the last row makes the table commit more: there is always a next window, until TOTAL.
        if after >= self.committed < TOTAL:
            self.committed = min(TOTAL, self.committed + limit)
            self.wake(self.committed)  # as the service's commit listener does
        return [LedgerRow(seq, "bet", "2026-12-01T20:00:00+00:00", "{}", None, None, None, None, "00" * 32)
                for seq in range(after + 1, min(self.committed, after + limit) + 1)]

    def head(self) -> tuple[int, str]:
        return self.committed, "00" * 32

    def outbox_position(self) -> int:
        return 0

    async def record_outbox(self, seq: int) -> None:
        self.marks.append((seq, self.committed))

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

    def state(self, table_id: str, dashboard_url: str, head: tuple[int, str | None]) -> dict[str, Any]:
        self.states.append(self.committed)
        return {"table": table_id, "head": {"seq": head[0], "mac": head[1]}}

    def close(self) -> None:
        pass


class SteppingClock:
    """Monotonic seconds that move on by `step` at every reading."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_a_table_that_never_pauses_gets_its_outbox_mark_and_state_on_time(broker) -> None:
    table = EndlessTable()
    settings = FleetSettings(enabled=True, table_id="table-001", state_every_seconds=1.0,
                             broker=BrokerSettings(url=broker.url))
    publisher = Publisher(table, settings, clock=SteppingClock(0.05))

    async def play() -> None:
        task = asyncio.create_task(publisher.run())
        while publisher.acked < TOTAL:
            await asyncio.sleep(0.01)
        await publisher.aclose()
        await asyncio.wait_for(task, scaled(10))

    asyncio.run(play())
    assert publisher.acked == TOTAL
    # While rows were still coming, marks were recorded and states published, not only at the end.
    assert any(committed < TOTAL for _, committed in table.marks), table.marks
    assert len([n for n in table.states if n < TOTAL]) >= 2, table.states
    assert table.marks[-1][0] == TOTAL  # and the last mark, at shutdown, covers every row
