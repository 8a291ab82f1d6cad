"""build_outputs on the mock pin factory: the whole display side wired from the config."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest

from gpiozero.pins.mock import MockFactory

from display.bell import BellSignal
from display.clock import ManualClock
from display.console import ConsoleAction, ConsoleKind, FunctionButton
from display.drivers.terminal import TerminalDisplay
from display.factory import MOCK_PIN_HISTORY, build_outputs, make_pin_factory
from display.glyphs import canonical
from display.model import BoxView, DealerView, HandView, TableMessage, TableView
from display.testing import Max7219Emulator, press
from display.wiring import GpioWiring, PinFactoryName


def test_a_table_on_mock_pins_shows_totals_rings_and_reads_buttons(factory: MockFactory, clock: ManualClock) -> None:
    wiring = GpioWiring.model_validate(
        {"pin_factory": "mock", "boxes": 3, "buttons": {"boxes": [4, 12, 16]},
         "tower_light": {"red": 18, "amber": 27}}
    )
    emulator = Max7219Emulator(4, pin_factory=factory)
    actions: list[ConsoleAction] = []
    io_ = build_outputs(wiring, on_action=actions.append, pin_factory=factory, clock=clock, start_threads=False)
    try:
        view = TableView(
            boxes=(
                BoxView(1, True, (HandView(3, 19, done=True),)),
                BoxView(2, True, (HandView(2, 7, 17, in_play=True),)),
                BoxView(3),
            ),
            dealer=DealerView(up_card=10, card_count=2, hard_total=16, hole_card_hidden=True),
            messages=frozenset({TableMessage.CUT_CARD_OUT}),
        )
        io_.show(view)
        io_.displays.pump()
        # chain order: dealer nearest the Pi, then box1..box3
        assert [emulator.visible(i) for i in range(4)] == [
            "Cut   10", "      19", "    7-17.", " " * 8
        ]
        assert {m.intensity for m in emulator.modules} == {8}

        press(io_.console.pin(2), clock, 0.1)
        press(io_.console.pin(FunctionButton.SURRENDER), clock, 0.1)
        assert [(a.kind, a.box) for a in actions] == [(ConsoleKind.SELECT_BOX, 2), (ConsoleKind.SURRENDER, 2)]

        io_.bell.ring(BellSignal.SHUFFLE_DUE)
        assert factory.pin(17).state is True
        clock.advance(0.2)
        io_.bell.step()
        assert factory.pin(17).state is False
        assert io_.tower is not None
    finally:
        io_.close()


def test_terminal_driver_for_the_demo(factory: MockFactory, clock: ManualClock) -> None:
    wiring = GpioWiring.model_validate(
        {"pin_factory": "mock", "driver": "terminal", "boxes": 2, "digits": 4, "buttons": {"boxes": [4, 12]}}
    )
    out = io.StringIO()
    io_ = build_outputs(wiring, on_action=lambda a: None, pin_factory=factory, clock=clock,
                        terminal_stream=out, start_threads=False)
    try:
        assert isinstance(io_.displays.driver, TerminalDisplay)
        io_.show(TableView((BoxView(1, True, (HandView(2, 11, 21, is_blackjack=True),)), BoxView(2))))
        io_.displays.pump()
        assert out.getvalue().splitlines()[-1] == "dealer[    ] box1[  bJ] box2[    ]"
    finally:
        io_.close()


def test_threads_run_the_display_by_themselves(factory: MockFactory) -> None:
    wiring = GpioWiring.model_validate({"pin_factory": "mock", "boxes": 1, "buttons": {"boxes": [4]}})
    emulator = Max7219Emulator(2, pin_factory=factory)
    io_ = build_outputs(wiring, on_action=lambda a: None, pin_factory=factory)
    try:
        io_.show(TableView((BoxView(1, True, (HandView(3, 25, is_bust=True),)),)))
        assert io_.displays.flush(5)
        assert emulator.visible(1) == canonical("    bUSt")
        assert io_.displays.status.ok
    finally:
        io_.close()


def test_terminal_segments_style_from_the_config(factory: MockFactory, clock: ManualClock) -> None:
    wiring = GpioWiring.model_validate(
        {"pin_factory": "mock", "driver": "terminal", "boxes": 1, "digits": 4, "buttons": {"boxes": [4]},
         "terminal": {"style": "segments"}}
    )
    out = io.StringIO()
    io_ = build_outputs(wiring, on_action=lambda a: None, pin_factory=factory, clock=clock,
                        terminal_stream=out, start_threads=False)
    try:
        io_.show(TableView((BoxView(1, True, payout=Decimal("15")),)))
        io_.displays.pump()
        rows = out.getvalue().splitlines()[-6:]  # dealer, then box1: three rows each
        assert rows[3] == "   box1  _           _"  # P, blank, 1, 5: the tops of the segments
        assert rows[4] == "        |_|       | |_"  # P's F B G, the 1's B C, the 5's F G
    finally:
        io_.close()


def test_terminal_driver_writes_to_the_log_by_default(factory: MockFactory, clock: ManualClock,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    wiring = GpioWiring.model_validate(
        {"pin_factory": "mock", "driver": "terminal", "boxes": 1, "digits": 4, "buttons": {"boxes": [4]}})
    io_ = build_outputs(wiring, on_action=lambda a: None, pin_factory=factory, clock=clock, start_threads=False)
    try:
        io_.show(TableView((BoxView(1, True),)))
        io_.displays.pump()
    finally:
        io_.close()
    captured = capsys.readouterr()
    assert captured.out == "" and "box1[  --]" in captured.err


def test_the_services_mock_pins_keep_a_bounded_history(clock: ManualClock) -> None:
    """A table served on mock pins (the demo, the arm64 proof, a machine that is no Pi) drives its MAX7219
    chain by software SPI: gpiozero's MockPin kept every change of level, about 1 MiB a round, for ever."""
    from gpiozero import Device

    factory = make_pin_factory(PinFactoryName.MOCK)  # the one `tablectl run` makes for pin_factory = "mock"
    previous, Device.pin_factory = Device.pin_factory, factory  # its software SPI bus needs a default
    wiring = GpioWiring.model_validate({"pin_factory": "mock", "boxes": 3, "buttons": {"boxes": [4, 12, 16]}})
    io_ = build_outputs(wiring, on_action=lambda a: None, pin_factory=factory, clock=clock, start_threads=False)
    try:
        for total in range(4, 22):  # a round or two of totals on every box
            io_.show(TableView(tuple(BoxView(b, True, (HandView(2, total),)) for b in (1, 2, 3))))
            io_.displays.pump()
        clock_pin = factory.pin(wiring.spi.clock)  # (no emulator on the bus: it would make the pin a test's own)
        assert clock_pin.state is False and len(clock_pin.states) == MOCK_PIN_HISTORY  # it did clock the words out
        assert max(len(pin.states) for pin in factory.pins.values()) <= MOCK_PIN_HISTORY
    finally:
        io_.close()
        factory.reset()
        Device.pin_factory = previous
