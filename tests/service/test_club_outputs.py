"""The service and its outputs at a club table: what the shoe's heartbeat may and may not add to
the journal, and the bell for every alert the engine raises."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

from tests.support.club import CLUB21_BOTTOM, ScriptedShoe
from tests.support.harness import until

from controller import events as ev
from controller.alerts import Alert, AlertKind
from controller.effects import AlertRaised
from display.bell import BellSignal
from tablectl.config import settings_from_dict
from tablectl.outputs import BellOutput
from tablectl.service import TableService


def test_an_empty_shoe_is_a_notice_and_does_not_ring():
    """Issue 23: an empty club pack is routine (load it again): shown, never rung."""
    rung: list[BellSignal] = []
    bell = BellOutput(rung.append)
    bell.handle([AlertRaised(Alert(1, AlertKind.SHOE_EMPTY, "x", datetime.now(timezone.utc)))], None)  # type: ignore[arg-type]
    assert rung == []


def test_a_club_pack_has_no_cut_card_to_catch_up_from_the_heartbeat(tmp_path):
    asyncio.run(_heartbeats(tmp_path))


async def _heartbeats(tmp_path) -> None:
    settings = settings_from_dict({"table": {"profile": "club-21"}, "shoe": {"port": str(tmp_path / "none")},
                                   "journal": {"path": str(tmp_path / "j.sqlite")}})
    shoe = ScriptedShoe()
    service = TableService(settings, link=shoe)
    stop = asyncio.Event()
    runner = asyncio.create_task(service.run(stop))
    try:
        shoe.load(104)
        shoe.deal(CLUB21_BOTTOM)
        await until(lambda: service.table.shoe is not None and service.table.shoe.bottom is not None)
        seq = service.authority.journal.last_seq
        for _ in range(3):  # a shoe whose cut card lies early reports it out on every heartbeat
            shoe.status(cut_card_out=True)
        await service.act(ev.CallPit(), "dealer")  # behind the heartbeats in the one ordered path
        kinds = [e.event.type for e in service.authority.journal.entries(seq)]
        assert kinds == ["call_pit"]  # no cut_card rows: the club game deals to the bottom card
    finally:
        stop.set()
        await runner
