"""The dealer console: mock buttons driven by hand, debounce and holds under a manual clock."""

from __future__ import annotations

import asyncio
import threading

import pytest
from gpiozero.pins.mock import MockFactory

from display.clock import ManualClock
from display.console import (
    ButtonEvent,
    ConsoleAction,
    ConsoleKind,
    DealerConsole,
    DebouncedButton,
    FunctionButton,
    asyncio_action_sink,
)
from display.testing import bounce, press
from tests.support.deadlines import scaled

PINS = {
    FunctionButton.STAND: 5, FunctionButton.DOUBLE: 6, FunctionButton.SPLIT: 13,
    FunctionButton.SURRENDER: 19, FunctionButton.INSURANCE: 26, FunctionButton.CONTINUE: 21,
    FunctionButton.CALL_PIT: 20, 1: 4, 2: 12, 3: 16,
}


@pytest.fixture
def console(factory: MockFactory, clock: ManualClock):  # type: ignore[no-untyped-def]
    actions: list[ConsoleAction] = []
    con = DealerConsole(PINS, actions.append, boxes=3, pin_factory=factory, clock=clock, start=False)
    con.actions = actions  # type: ignore[attr-defined]
    yield con
    con.close()


def kinds(console: DealerConsole) -> list[tuple[ConsoleKind, int | None]]:
    return [(a.kind, a.box) for a in console.actions]  # type: ignore[attr-defined]


def tap(console: DealerConsole, clock: ManualClock, button, hold: float = 0.1) -> None:  # type: ignore[no-untyped-def]
    press(console.pin(button), clock, hold)
    clock.advance(0.05)
    console.tick()


def test_clean_press_becomes_one_action_stamped_at_its_first_edge(console: DealerConsole, clock: ManualClock) -> None:
    start = clock()
    console.pin(FunctionButton.STAND).drive_low()
    clock.advance(0.029)
    console.tick()
    assert console.actions == []  # type: ignore[attr-defined]  # not yet stable for 30 ms
    clock.advance(0.001)
    console.tick()
    assert console.actions == [ConsoleAction(ConsoleKind.STAND, None, start)]  # type: ignore[attr-defined]
    clock.advance(0.5)
    console.pin(FunctionButton.STAND).drive_high()
    clock.advance(0.1)
    console.tick()
    assert len(console.actions) == 1  # type: ignore[attr-defined]  # release is not an action


def test_contact_bounce_gives_a_single_press(console: DealerConsole, clock: ManualClock) -> None:
    pin = console.pin(FunctionButton.DOUBLE)
    bounce(pin, clock, edges=7, spacing=0.003)  # press chatter
    clock.advance(0.2)
    bounce(pin, clock, edges=6, spacing=0.003)  # release chatter ... ending low
    pin.drive_high()
    clock.advance(0.2)
    console.tick()
    assert kinds(console) == [(ConsoleKind.DOUBLE, None)]


def test_a_spike_shorter_than_the_debounce_is_ignored(console: DealerConsole, clock: ManualClock) -> None:
    pin = console.pin(FunctionButton.SPLIT)
    pin.drive_low()
    clock.advance(0.01)
    pin.drive_high()
    clock.advance(1.0)
    console.tick()
    assert console.actions == []  # type: ignore[attr-defined]


def test_press_is_settled_by_the_next_edge_even_without_a_tick(console: DealerConsole, clock: ManualClock) -> None:
    press(console.pin(FunctionButton.CONTINUE), clock, hold=0.05)
    assert kinds(console) == [(ConsoleKind.CONTINUE, None)]


def test_call_pit_needs_a_long_press(console: DealerConsole, clock: ManualClock) -> None:
    pin = console.pin(FunctionButton.CALL_PIT)
    tap(console, clock, FunctionButton.CALL_PIT, hold=1.0)
    assert console.actions == []  # type: ignore[attr-defined]  # a brush is not a call
    pin.drive_low()
    held_from = clock()
    clock.advance(1.49)
    console.tick()
    assert console.actions == []  # type: ignore[attr-defined]
    clock.advance(0.01)
    console.tick()  # fires while still held
    assert console.actions == [ConsoleAction(ConsoleKind.CALL_PIT, None, held_from + 1.5)]  # type: ignore[attr-defined]
    clock.advance(3.0)
    console.tick()
    pin.drive_high()
    clock.advance(0.1)
    console.tick()
    assert len(console.actions) == 1  # type: ignore[attr-defined]  # once per hold


def test_call_pit_hold_survives_a_bounce_and_counts_from_the_first_edge(console: DealerConsole, clock: ManualClock) -> None:
    pin = console.pin(FunctionButton.CALL_PIT)
    bounce(pin, clock, edges=5, spacing=0.002)
    clock.advance(0.7)
    pin.drive_high()  # a 5 ms wobble mid-hold
    clock.advance(0.005)
    pin.drive_low()
    clock.advance(0.8)
    console.tick()
    assert kinds(console) == [(ConsoleKind.CALL_PIT, None)]
    pin.drive_high()


def test_call_pit_released_after_the_hold_between_ticks_still_counts(console: DealerConsole, clock: ManualClock) -> None:
    press(console.pin(FunctionButton.CALL_PIT), clock, hold=1.6)  # no tick while held
    clock.advance(0.1)
    console.tick()
    assert kinds(console) == [(ConsoleKind.CALL_PIT, None)]


def test_box_then_surrender_targets_that_box(console: DealerConsole, clock: ManualClock) -> None:
    tap(console, clock, 3)
    tap(console, clock, FunctionButton.SURRENDER)
    tap(console, clock, FunctionButton.SURRENDER)  # the selection was used up
    assert kinds(console) == [
        (ConsoleKind.SELECT_BOX, 3), (ConsoleKind.SURRENDER, 3), (ConsoleKind.SURRENDER, None)
    ]


def test_insurance_round(console: DealerConsole, clock: ManualClock) -> None:
    for button in (1, FunctionButton.INSURANCE, 3, FunctionButton.INSURANCE, FunctionButton.CONTINUE):
        tap(console, clock, button)
    assert kinds(console) == [
        (ConsoleKind.SELECT_BOX, 1), (ConsoleKind.INSURANCE, 1),
        (ConsoleKind.SELECT_BOX, 3), (ConsoleKind.INSURANCE, 3), (ConsoleKind.CONTINUE, None),
    ]


def test_a_stale_selection_is_not_applied(console: DealerConsole, clock: ManualClock) -> None:
    tap(console, clock, 2)
    clock.advance(10.5)
    tap(console, clock, FunctionButton.SURRENDER)
    tap(console, clock, 1)
    tap(console, clock, FunctionButton.STAND)  # other actions clear the selection
    tap(console, clock, FunctionButton.INSURANCE)
    assert kinds(console) == [
        (ConsoleKind.SELECT_BOX, 2), (ConsoleKind.SURRENDER, None),
        (ConsoleKind.SELECT_BOX, 1), (ConsoleKind.STAND, None), (ConsoleKind.INSURANCE, None),
    ]


def test_every_function_button_has_its_action(console: DealerConsole, clock: ManualClock) -> None:
    for button in FunctionButton:
        if button is FunctionButton.CALL_PIT:
            tap(console, clock, button, hold=2.0)
        else:
            tap(console, clock, button)
    assert [k for k, _ in kinds(console)] == [ConsoleKind(b.value) for b in FunctionButton]


def test_a_failing_consumer_does_not_break_the_console(factory: MockFactory, clock: ManualClock) -> None:
    seen: list[ConsoleAction] = []

    def consumer(action: ConsoleAction) -> None:
        seen.append(action)
        raise RuntimeError("consumer bug")

    con = DealerConsole(PINS, consumer, boxes=3, pin_factory=factory, clock=clock, start=False)
    tap(con, clock, FunctionButton.STAND)
    tap(con, clock, FunctionButton.DOUBLE)
    assert [a.kind for a in seen] == [ConsoleKind.STAND, ConsoleKind.DOUBLE]
    con.close()


def test_missing_button_pin_is_refused(factory: MockFactory) -> None:
    pins = dict(PINS)
    del pins[2]
    with pytest.raises(ValueError, match="2"):
        DealerConsole(pins, lambda a: None, boxes=3, pin_factory=factory, start=False)


def test_debounced_button_alone() -> None:
    b = DebouncedButton(debounce=0.03, hold=1.0)
    assert b.edge(True, 0.0) == []
    assert b.tick(0.03) == [(ButtonEvent.PRESSED, 0.0)]
    assert b.next_deadline() == 1.0
    assert b.tick(2.0) == [(ButtonEvent.HELD, 1.0)]
    assert b.edge(False, 2.5) == []
    assert b.tick(2.53) == [(ButtonEvent.RELEASED, 2.5)]
    assert b.next_deadline() is None


def test_ticker_thread_settles_presses_in_real_time(factory: MockFactory) -> None:
    got = threading.Event()
    actions: list[ConsoleAction] = []

    def on_action(action: ConsoleAction) -> None:
        actions.append(action)
        got.set()

    con = DealerConsole(PINS, on_action, boxes=3, pin_factory=factory, debounce=0.01)
    try:
        con.pin(FunctionButton.STAND).drive_low()  # held: only the ticker can settle it
        assert got.wait(scaled(5))
        assert [a.kind for a in actions] == [ConsoleKind.STAND]
        con.pin(FunctionButton.STAND).drive_high()
    finally:
        con.close()


def test_asyncio_sink_delivers_from_a_foreign_thread() -> None:
    async def main() -> list[ConsoleAction]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[ConsoleAction] = asyncio.Queue()
        received: list[ConsoleAction] = []

        async def handler(action: ConsoleAction) -> None:
            received.append(action)

        to_queue = asyncio_action_sink(loop, queue)
        to_coro = asyncio_action_sink(loop, handler)
        caller = threading.Thread(
            target=lambda: (to_queue(ConsoleAction(ConsoleKind.STAND)), to_coro(ConsoleAction(ConsoleKind.SPLIT)))
        )
        caller.start()
        caller.join()
        first = await asyncio.wait_for(queue.get(), scaled(5))
        for _ in range(100):
            if received:
                break
            await asyncio.sleep(0)
        return [first, *received]

    assert [a.kind for a in asyncio.run(main())] == [ConsoleKind.STAND, ConsoleKind.SPLIT]


def test_the_console_runs_no_thread_per_button(factory: MockFactory, clock: ManualClock) -> None:
    """Holds are timed by the console's logic, so its pins are plain inputs: gpiozero's Button would start a
    hold thread for each of them (14 on a 7-box table), each a thread's memory in the service for nothing."""
    before = threading.active_count()
    con = DealerConsole(PINS, lambda action: None, boxes=3, pin_factory=factory, clock=clock, start=False)
    try:
        assert threading.active_count() == before
    finally:
        con.close()
