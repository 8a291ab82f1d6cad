"""The technician's bring-up (issue 22) on gpiozero's mock pins: what each display, the bell and the console do.

The steps' timing is passed in: the displays' `wait` and the bell's clock are the test's, so nothing sleeps.
"""

from __future__ import annotations

import io
import threading

from gpiozero.pins.mock import MockFactory

from display.bell import DEFAULT_PATTERNS, BellSignal
from display.bringup import ConsoleChecklist, display_label, display_steps
from display.clock import ManualClock
from display.console import DealerConsole, FunctionButton
from display.factory import console_pins
from display.testing import Max7219Emulator, press
from display.wiring import GpioWiring, PinFactoryName
from tablectl.bringup import run_bell, run_console, run_displays


def wiring(**changes: object) -> GpioWiring:
    return GpioWiring(pin_factory=PinFactoryName.MOCK, boxes=3, buttons={"boxes": [4, 12, 16]}, **changes)


def test_labels_fit_every_width() -> None:
    assert display_label("box3", 8) == "bo     3" and display_label("dealer", 8) == "  dEALEr"
    assert display_label("box7", 4) == "bo 7" and display_label("dealer", 4) == "dEAL"
    assert len(display_steps(["dealer", "box1"], 6)) == 4  # each, the lamp test, dark


def test_each_display_shows_its_name_in_chain_order_then_every_segment(factory: MockFactory) -> None:
    w = wiring(chain_order=["box2", "dealer", "box1", "box3"])  # a chain wired in its own order
    chain = Max7219Emulator(4, pin_factory=factory)
    seen: list[list[str | None]] = []
    out = io.StringIO()
    run_displays(w, pin_factory=factory, wait=lambda s: seen.append([chain.visible(i) for i in range(4)]),
                 seconds=2.0, out=out)
    blank = " " * 8
    assert seen[0] == ["bo     2", blank, blank, blank]  # the module nearest the Pi first
    assert seen[1] == [blank, "  dEALEr", blank, blank]
    assert seen[2] == [blank, blank, "bo     1", blank]
    assert seen[3] == [blank, blank, blank, "bo     3"]
    assert seen[4] == ["8." * 8] * 4  # the lamp test: every segment and point lit
    assert seen[5] == [blank] * 4
    lines = out.getvalue().splitlines()
    assert lines[0] == "display 1 of 4 in the chain (box2) shows 'bo     2', the others dark"
    assert "lamp test" in lines[4] and len(lines) == 6


def test_the_bell_rings_every_pattern_as_configured(factory: MockFactory) -> None:
    w = wiring(bell_pin=17)
    clock = ManualClock(start=100.0)
    pin = factory.pin(17)
    levels: list[tuple[float, bool]] = []

    def wait(seconds: float) -> None:
        levels.append((round(clock(), 6), bool(pin.state)))
        clock.advance(seconds)

    out = io.StringIO()
    run_bell(w, pin_factory=factory, clock=clock, wait=wait, pause=1.0, out=out)
    # Each "on" stretch of the pin, in order: the patterns' on-times, every signal, highest priority first.
    on_times = []
    for (t, level), (t_next, _) in zip(levels, levels[1:]):
        if level:
            on_times.append(round(t_next - t, 6))
    want = [on for signal in BellSignal for on, _ in DEFAULT_PATTERNS[signal]]
    assert on_times == want
    said = out.getvalue().splitlines()
    assert [line.split(",")[0] for line in said[:4]] == [f"bell: {s.value}" for s in BellSignal]
    assert said[-1] == "bell: every pattern rung" and not pin.state


def test_every_console_button_is_echoed_until_all_are_pressed(factory: MockFactory) -> None:
    w = wiring()
    clock = ManualClock(start=50.0)
    out = io.StringIO()

    def drive(console: DealerConsole, done: threading.Event) -> None:
        for button in console_pins(w):
            hold = w.call_pit_hold_s + 0.1 if button is FunctionButton.CALL_PIT else 0.1
            press(console.pin(button), clock, hold)  # type: ignore[arg-type]
            clock.advance(0.1)
            console.tick()
        assert done.is_set()

    assert run_console(w, pin_factory=factory, clock=clock, out=out, drive=drive, start_threads=False)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("console: press each button once, CALL PIT held 1.5 s (10 buttons")
    assert lines[1].startswith("console: stand (GPIO5) -> stand; 9 to go")
    assert "console: box 2 (GPIO12) -> select_box box 2" in out.getvalue()
    assert "console: call_pit (GPIO20) -> call_pit" in out.getvalue()
    assert lines[-1].endswith("every button answered")


def test_the_console_says_which_buttons_were_never_pressed(factory: MockFactory) -> None:
    w = wiring()
    clock = ManualClock(start=50.0)
    out = io.StringIO()

    def drive(console: DealerConsole, done: threading.Event) -> None:
        press(console.pin(FunctionButton.STAND), clock)  # type: ignore[arg-type]
        clock.advance(0.1)
        console.tick()

    assert not run_console(w, pin_factory=factory, clock=clock, out=out, drive=drive, start_threads=False)
    assert out.getvalue().splitlines()[-1].startswith("console: not pressed: double, split")


def test_the_checklist_names_each_pin() -> None:
    from display.console import ConsoleAction, ConsoleKind

    checklist = ConsoleChecklist({FunctionButton.STAND: 5, 1: 4})
    assert checklist.record(ConsoleAction(ConsoleKind.SELECT_BOX, box=1)) == \
        "console: box 1 (GPIO4) -> select_box box 1; 1 to go: stand"
    assert not checklist.done
