"""A whole round on gpiozero's mock pins: the virtual shoe on a pty, the real service and link,
the MAX7219 chain decoded from the mock SPI bus, the bell's mock pin and the console's buttons.

Also the attention path: an unexpected card locks the shoe, rings the attention pattern and
shows on every display, until the supervisor resolves it.
"""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from gpiozero.pins.mock import MockFactory

from tests.support.harness import until
from tests.support.mock_pins import mock_pin_factory

from controller import events as ev
from controller.engine import Phase
from display.bell import BellSignal
from display.clock import ManualClock
from display.console import FunctionButton, asyncio_action_sink
from display.factory import build_outputs
from display.render import render_table
from display.testing import Max7219Emulator, press
from simulators.shoe.process import SimProcess
from tablectl.config import settings_from_dict
from tablectl.console_actions import handle_console_action
from tablectl.display_views import display_view
from tablectl.outputs import BellOutput, DisplayOutput
from tablectl.service import TableService


@pytest.fixture
def factory():
    with mock_pin_factory() as mock:
        yield mock



def test_round_by_console_buttons_lights_every_display_and_attention_rings(tmp_path, factory):
    asyncio.run(_scenario(tmp_path, factory))


async def _scenario(tmp_path, factory: MockFactory) -> None:
    sim = SimProcess(tmp_path, "--seed", "21", "--decks", "6").start()
    loop = asyncio.get_running_loop()
    try:
        settings = settings_from_dict({
            "table": {"options": {"boxes": 3}},
            "shoe": {"port": sim.link},
            "journal": {"path": str(tmp_path / "journal.sqlite")},
            "gpio": {"pin_factory": "mock", "boxes": 3, "buttons": {"boxes": [4, 12, 16]}},
        })
        emulator = Max7219Emulator(4, pin_factory=factory)  # before the driver claims the SPI pins
        clock = ManualClock(start=1000.0)
        service = TableService(settings)
        io = build_outputs(settings.gpio, pin_factory=factory, clock=clock, start_threads=False,
                           on_action=asyncio_action_sink(loop, lambda a: handle_console_action(a, service)))
        service.add_output(DisplayOutput(io.show, lambda: service.health.link_up))
        service.add_output(BellOutput(io.bell.ring))
        stop = asyncio.Event()
        runner = asyncio.create_task(service.run(stop))

        def shown() -> list[str | None]:
            io.displays.pump()
            return [emulator.visible(i) for i in range(4)]  # dealer, box1, box2, box3

        def expected() -> list[str]:
            texts = render_table(display_view(service.table, service.health.link_up), settings.gpio.digits)
            return [texts["dealer"], texts["box1"], texts["box2"], texts["box3"]]

        async def deal() -> str:
            seq = service.authority.journal.last_seq
            await until(lambda: sim.request("status")["locked"] is False)  # the gate follows the table
            answer = await loop.run_in_executor(None, lambda: sim.request("deal"))
            assert answer["ok"], answer
            await until(lambda: service.authority.journal.last_seq > seq)
            return answer["card"]

        await until(lambda: service.health.link_up and service.table.phase is Phase.BETTING)
        await service.act(ev.PlaceBet(box=2, amount=Decimal(10)), "dealer")
        cards = [await deal() for _ in range(3)]  # box 2, dealer, box 2
        assert cards == ["JH", "6S", "9H"]  # seed 21: box 2 has 19 against a six
        assert service.table.phase is Phase.PLAYERS
        assert shown() == expected()
        assert "19" in shown()[2]  # the player sees his own total
        press(io.console.pin(FunctionButton.STAND), clock)  # the dealer's stand button
        await until(lambda: service.table.phase is not Phase.PLAYERS)
        while service.table.round is not None:  # the dealer draws to 17
            cards.append(await deal())
        record = service.table.last_round
        assert record is not None and record["hands"][0]["cards"] == [cards[0], cards[2]]
        assert record["hands"][0]["outcome"] == "win" and record["dealer"]["total"] == 17
        assert shown() == expected()
        assert shown()[1] == " " * 8 and shown()[3] == " " * 8  # boxes without a bet stay blank
        # what the dealer pays: box 2's 10 on a win, and the round's total on the dealer's display
        assert shown()[2] == "    P 10" and shown()[0] == "    P 10"

        # an unexpected card: nobody bet, yet a card leaves the shoe
        assert factory.pin(17).state is False
        seq = service.authority.journal.last_seq
        assert (await loop.run_in_executor(None, lambda: sim.request("deal")))["ok"]
        await until(lambda: service.authority.journal.last_seq > seq)
        assert service.table.phase is Phase.ATTENTION
        assert factory.pin(17).state is True  # the action pattern (a held card waits for the pit) starts at once
        assert io.bell.player.ringing is BellSignal.FAULT
        assert shown() == expected() and len(set(shown())) == 1  # every display says so
        await until(lambda: sim.request("status")["locked"] is True)
        refused = await loop.run_in_executor(None, lambda: sim.request("deal"))
        assert refused == {"ok": False, "error": "locked"}  # the gate holds further cards back

        await service.act(ev.DiscardCard(), "supervisor:pit")
        assert service.table.phase is Phase.BETTING and not service.table.open_alerts()
        await until(lambda: sim.request("status")["locked"] is False)
        stop.set()
        await runner
        io.close()
    finally:
        sim.stop()
