"""The service's writer archives the journal at the first input of a gaming day (issue 42), between its batches,
and goes on on the new live file: the history verifies across the archive, and a restart is from the live file."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from pathlib import Path

from controller import events as ev
from controller.journal import History, JournalKey, archives, key_beside
from simulators.shoe.process import SimProcess
from tablectl.config import settings_from_dict
from tablectl.service import TableService
from tests.support.harness import until


def test_the_first_input_of_a_gaming_day_archives_the_journal(tmp_path: Path) -> None:
    asyncio.run(_archives(tmp_path))


async def _archives(tmp_path: Path) -> None:
    sim = SimProcess(tmp_path, "--seed", "42").start()
    now = [datetime(2026, 12, 7, 20, 0, tzinfo=timezone.utc)]
    path = tmp_path / "j.sqlite"
    settings = settings_from_dict({"shoe": {"port": sim.link},
                                   "table": {"time_zone": "Europe/Moscow"},
                                   "journal": {"path": str(path)}})
    try:
        service = TableService(settings, clock=lambda: now[0])
        stop = asyncio.Event()
        runner = asyncio.create_task(service.run(stop))
        await until(lambda: service.health.link_up)
        for _ in range(3):
            await service.act(ev.CallPit(), "dealer")
        assert archives(path) == []
        now[0] = datetime(2026, 12, 8, 2, 59, tzinfo=timezone.utc)  # 05:59 in Moscow: the same gaming day
        await service.act(ev.CallPit(), "dealer")
        assert archives(path) == []
        now[0] = datetime(2026, 12, 8, 3, 0, tzinfo=timezone.utc)  # 06:00 in Moscow: a new one
        await service.act(ev.CallPit(), "dealer")
        (archive,) = archives(path)
        assert archive.name.endswith("-2026-12-07.sqlite")
        head = service.authority.journal.head()
        stop.set()
        await runner
    finally:
        sim.stop()
    verified = History(path, JournalKey.load(key_beside(path))).verify()
    assert (verified.head_seq, verified.head_mac) == head
    again = TableService(settings, clock=lambda: now[0] + timedelta(minutes=1))
    assert again.authority.journal.base > 1 and again.authority.replayed <= 2
    again.authority.journal.close()
