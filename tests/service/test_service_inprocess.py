"""The service in-process against the real virtual shoe: unplugging mid-round, and clock ticks."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from tests.support.harness import until
from tests.support.journals import open_authority

from controller import events as ev
from controller.alerts import AlertKind
from controller.engine import Phase
from simulators.shoe.process import SimProcess
from tablectl.config import settings_from_dict
from tablectl.service import TableService



def test_shoe_unplugged_mid_round_alerts_and_the_round_goes_on(tmp_path):
    asyncio.run(_unplugged(tmp_path))


async def _unplugged(tmp_path) -> None:
    sim = SimProcess(tmp_path, "--seed", "21").start()
    loop = asyncio.get_running_loop()
    try:
        settings = settings_from_dict({"shoe": {"port": sim.link},
                                       "journal": {"path": str(tmp_path / "j.sqlite")}})
        service = TableService(settings)
        stop = asyncio.Event()
        runner = asyncio.create_task(service.run(stop))
        await until(lambda: service.health.link_up and service.table.phase is Phase.BETTING)
        await service.act(ev.PlaceBet(box=1, amount=Decimal(10)), "dealer")
        for _ in range(2):
            seq = service.authority.journal.last_seq
            await until(lambda: not sim.request("status")["locked"])
            assert (await loop.run_in_executor(None, lambda: sim.request("deal")))["ok"]
            await until(lambda: service.authority.journal.last_seq > seq)
        await loop.run_in_executor(None, lambda: sim.request("unplug", seconds=4))
        # a card drawn while the cable is out is kept by the shoe and arrives after the replug
        answer = await loop.run_in_executor(None, lambda: sim.request("deal"))
        assert answer["ok"]
        await until(lambda: not service.health.link_up)
        assert [a.kind for a in service.table.open_alerts()] == [AlertKind.LINK_DOWN]
        await until(lambda: service.health.link_up)
        await until(lambda: service.table.phase is Phase.PLAYERS)
        hand = service.table.round.boxes[0].hands[0]
        assert [c.code for c in hand.cards][1] == answer["card"]
        alert = service.table.open_alerts()[0]
        assert alert.kind is AlertKind.LINK_DOWN and not alert.active  # cause gone, still latched
        await service.act(ev.AcknowledgeAlert(alert_id=alert.id), "supervisor:pit")
        assert service.table.open_alerts() == []
        cards = [e.event for e in service.authority.journal.entries() if isinstance(e.event, ev.CardDrawn)]
        assert len(cards) == 3  # exactly once, despite the resend after the replug
        stop.set()
        await runner
    finally:
        sim.stop()


def test_reservation_lapses_by_journalled_clock_ticks(tmp_path):
    asyncio.run(_ticks(tmp_path))


async def _ticks(tmp_path) -> None:
    now = [datetime(2026, 11, 30, 20, 0, tzinfo=timezone.utc)]
    settings = settings_from_dict({"shoe": {"port": str(tmp_path / "no-shoe-here")},
                                   "journal": {"path": str(tmp_path / "j.sqlite")},
                                   "clock": {"tick_seconds": 0.02}})
    service = TableService(settings, clock=lambda: now[0])
    stop = asyncio.Event()
    runner = asyncio.create_task(service.run(stop))
    await service.act(ev.Shuffle(shoe_id="S1"), "dealer")
    await service.act(ev.Reserve(box=3, player="Ivan"), "dealer")
    now[0] += timedelta(minutes=19)
    await asyncio.sleep(0.1)
    assert 3 in service.table.reservations
    now[0] += timedelta(minutes=1)
    await until(lambda: 3 not in service.table.reservations)
    stop.set()
    await runner
    # the lapse came from a journalled tick, so a replay reproduces it
    reopened = open_authority(tmp_path / "j.sqlite")
    ticks = [e for e in reopened.journal.entries() if e.event.type == "tick"]
    assert ticks and ticks[-1].event.at == datetime(2026, 11, 30, 20, 20, tzinfo=timezone.utc)
    assert 3 not in reopened.table.reservations
