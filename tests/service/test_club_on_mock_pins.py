"""The club games on gpiozero's mock pins: closed hands on the box displays (their card count,
never a total) until the settlement shows each total and what to pay or take; the banker's
total once he draws face up, and in club-21-36 the bank's balance beside it; the croupier's
STAND button ends a box's turn and the banker's.

The shoe is scripted (tests/support/club.py), so every closed card is known to the test.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from tests.support.club import (CLUB21_BANKER_DRAW, CLUB21_BOTTOM, CLUB21_BOX2_DRAW, CLUB21_DEAL, ScriptedShoe)
from tests.support.harness import until
from tests.support.mock_pins import mock_pin_factory

from controller import events as ev
from games.club_21_36.events import OpenBank
from controller.engine import Phase
from display.clock import ManualClock
from display.console import FunctionButton, asyncio_action_sink
from display.factory import build_outputs
from display.testing import Max7219Emulator, press
from tablectl.config import settings_from_dict
from tablectl.console_actions import handle_console_action
from tablectl.outputs import DisplayOutput
from tablectl.service import TableService


@pytest.fixture
def factory():
    with mock_pin_factory() as mock:
        yield mock


class _Console:
    """A club table's service on the mock pins with a scripted shoe: its displays, its buttons, its cards."""

    def __init__(self, service: TableService, shoe: ScriptedShoe, io: Any, clock: ManualClock,
                 emulator: Max7219Emulator) -> None:
        self.service, self.shoe, self.io, self.clock, self.emulator = service, shoe, io, clock, emulator

    def shown(self) -> list[str | None]:
        """What the displays show: dealer, box1, box2, box3."""
        self.io.displays.pump()
        return [self.emulator.visible(i) for i in range(4)]

    def tap(self, button: FunctionButton | int) -> None:
        """Press and release a console button."""
        press(self.io.console.pin(button), self.clock)
        self.clock.advance(0.1)
        self.io.console.tick()  # the release is settled too (no ticker thread here), ready for the next press

    async def deal(self, *codes: str) -> None:
        """Deal the cards from the scripted shoe, each once the last is journalled."""
        for code in codes:
            seq = self.service.authority.journal.last_seq
            self.shoe.deal(code)
            await until(lambda: self.service.authority.journal.last_seq > seq)


@asynccontextmanager
async def _console(tmp_path: Path, factory: MockFactory, table: dict[str, Any],
                   displays: bool = True) -> AsyncIterator[_Console]:
    """The service running at a 3-box ``table`` with the console's buttons; ``displays``: its output
    drives the MAX7219 chain (the emulator is built either way, before the driver claims the SPI pins)."""
    loop = asyncio.get_running_loop()
    settings = settings_from_dict({
        "table": table,
        "shoe": {"port": str(tmp_path / "no-shoe")},
        "journal": {"path": str(tmp_path / "journal.sqlite")},
        "gpio": {"pin_factory": "mock", "boxes": 3, "buttons": {"boxes": [4, 12, 16]}},
    })
    emulator = Max7219Emulator(4, pin_factory=factory)
    clock = ManualClock(start=1000.0)
    shoe = ScriptedShoe()
    service = TableService(settings, link=shoe)
    io = build_outputs(settings.gpio, pin_factory=factory, clock=clock, start_threads=False,
                       on_action=asyncio_action_sink(loop, lambda a: handle_console_action(a, service)))
    if displays:
        service.add_output(DisplayOutput(io.show))
    stop = asyncio.Event()
    runner = asyncio.create_task(service.run(stop))
    try:
        yield _Console(service, shoe, io, clock, emulator)
    finally:
        stop.set()
        await runner
        io.close()


def test_club21_round_keeps_every_hand_closed_on_the_displays_until_the_reveal(tmp_path, factory):
    asyncio.run(_round(tmp_path, factory))


async def _round(tmp_path, factory: MockFactory) -> None:
    async with _console(tmp_path, factory, {"profile": "club-21", "options": {"boxes": 3}}) as c:
        service, shoe, shown, tap, deal = c.service, c.shoe, c.shown, c.tap, c.deal
        shoe.load(104)
        await until(lambda: service.table.shoe is not None)
        assert not service.table.open_alerts()  # the shoe's count (104) is the pack's: no integrity alert
        await deal(CLUB21_BOTTOM)
        await service.act(ev.PlaceBet(box=1, amount=Decimal(10)), "dealer")
        await service.act(ev.PlaceBet(box=2, amount=Decimal(20)), "dealer")
        for code in CLUB21_DEAL:
            await deal(code)
        assert service.table.phase is Phase.PLAYERS
        dealer, box1, box2, box3 = shown()
        # Every hand closed: two cards each, the box in turn marked, no total anywhere.
        assert box1 == "    -- 2." and box2 == "    -- 2" and dealer == "    -- 2"
        assert box3 == " " * 8
        tap(FunctionButton.STAND)  # box 1 stands on its closed 19
        await until(lambda: service.table.round.box_i == 1)
        await deal(CLUB21_BOX2_DRAW)
        assert shown()[2] == "    -- 3."  # a third card landed; its total (17) is not told
        assert "17" not in "".join(shown()) and "19" not in "".join(shown())
        tap(FunctionButton.STAND)
        await until(lambda: service.table.phase is Phase.DEALER)
        assert shown()[0] == "      16"  # the banker turns his cards: his total is shown
        assert shown()[1] == "    -- 2"  # the boxes stay closed while he draws
        await deal(CLUB21_BANKER_DRAW)
        assert shown()[0] == "      18"
        tap(FunctionButton.STAND)  # STAND in his turn: the banker stops drawing
        await until(lambda: service.table.round is None)
        record = service.table.last_round
        assert [h["outcome"] for h in record["hands"]] == ["win", "lose"] and record["dealer"]["total"] == 18
        dealer, box1, box2, _ = shown()
        # Turned at last: each box's total and what to pay or take; the round's total on the banker's.
        assert box1 == " 19 P 10" and box2 == "  17 -20" and dealer == "bEt5 -10"  # bets open for the next
        assert shoe.acked[-1] == (shoe.shoe_id, 9)  # every card acknowledged once journalled


def test_club21_36_duels_show_the_bank_beside_the_banker_and_keep_boxes_closed(tmp_path, factory):
    asyncio.run(_duels(tmp_path, factory))


async def _duels(tmp_path, factory: MockFactory) -> None:
    async with _console(tmp_path, factory, {"profile": "club-21-36", "options": {"boxes": 3}}) as c:
        service, shoe, shown, deal = c.service, c.shoe, c.shown, c.deal
        shoe.load(36)
        await until(lambda: service.table.shoe is not None)
        await service.act(OpenBank(amount=Decimal(500)), "supervisor:pit")
        await service.act(ev.PlaceBet(box=1, amount=Decimal(10)), "dealer")
        await service.act(ev.PlaceBet(box=2, amount=Decimal(20)), "dealer")
        assert shown()[0] == "   b 500"  # the bank is up: its balance on the banker's display
        await deal("9S", "TH", "KD", "7C")  # box 1, box 2, the banker, then the bottom card
        assert service.table.phase is Phase.PLAYERS
        dealer, box1, box2, _ = shown()
        assert box1 == "    -- 1." and box2 == "    -- 1" and dealer == "b500 --1"
        await deal("TS")  # box 1 draws to a closed 19
        assert shown()[1] == "    -- 2." and "19" not in "".join(shown())
        await service.act(ev.Stand(), "dealer")
        assert shown()[0] == "b 500  4"  # the box stood: the banker's card is turned (a king: 4)
        await deal("6H", "8C")  # he draws to 18 and stops there
        assert shown()[0] == "   b 490"  # box 1's 19 won 10 from the bank
        assert shown()[1] == " 19 PAId"  # its duel is over: shown
        assert shown()[2] == "    -- 1"  # box 2's card is still closed
        await deal("QS", "9D")  # the banker's new card for box 2; box 2 draws to 19
        await service.act(ev.Stand(), "dealer")
        await deal("AD", "7H")  # the banker: queen 3, ace 11, seven: 21
        await until(lambda: service.table.round is None)
        record = service.table.last_round
        assert [h["outcome"] for h in record["hands"]] == ["win", "lose"] and record["bank"]["after"] == "510"
        dealer, box1, box2, _ = shown()
        assert box1 == " 19 P 10" and box2 == "  19 -20" and dealer == "bEt5 -10"


def test_contra_and_recontra_from_the_console_buttons(tmp_path, factory):
    asyncio.run(_contra(tmp_path, factory))


async def _contra(tmp_path, factory: MockFactory) -> None:
    table = {"profile": "club-21", "options": {"boxes": 3, "contra": True}}
    async with _console(tmp_path, factory, table, displays=False) as c:
        service, shoe, tap, deal = c.service, c.shoe, c.tap, c.deal
        shoe.load(104)
        await deal(CLUB21_BOTTOM)
        await service.act(ev.PlaceBet(box=1, amount=Decimal(10)), "dealer")
        await service.act(ev.PlaceBet(box=2, amount=Decimal(20)), "dealer")
        await deal(*CLUB21_DEAL[:3])  # everyone's first card: the banker may double every stake
        assert service.table.phase is Phase.CONTRA
        tap(FunctionButton.DOUBLE)  # no box selected: the banker's contra
        await until(lambda: service.table.round.contra)
        tap(2)  # box 2 selected, then DOUBLE: its recontra
        tap(FunctionButton.DOUBLE)
        await until(lambda: service.table.round.box(2).recontra)
        stakes = [b.hand.stake for b in service.table.round.boxes]
        assert stakes == [2000, 8000]  # in cents: 10 doubled; 20 doubled, then doubled again
        await deal(*CLUB21_DEAL[3:])  # the next card closes the window
        assert service.table.phase is Phase.PLAYERS and not service.table.round.box(1).recontra
        kinds = [e.event.type for e in service.authority.journal.entries() if e.event.actor == "console"]
        assert kinds == ["contra", "recontra"]
