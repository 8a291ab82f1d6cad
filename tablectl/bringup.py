"""`tablectl bringup shoe|displays|bell|console|all --config FILE`: the technician's bring-up, before the service.

Each step drives the parts of one table from its config, one at a time, and says on stdout what
should be seen or heard (display/bringup.py has what is shown): the shoe's messages as they
come (as `shoe-monitor`, every card acknowledged), each display's name in chain order and the
lamp test, every bell pattern, every console button echoed until all have been pressed. Run it
with the service stopped: the pins and the shoe's port are the service's while it runs (a pin in
use is said in one line, exit 7).

Exit statuses: 0 done; 1 the shoe's port cannot be opened (as shoe-monitor); 2 the config or the
arguments; 7 the hardware cannot be used (as `tablectl run`); 3 the console's buttons were not
all pressed before --timeout.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import Any, Callable, TextIO

from .exits import EXIT_CONFIG, EXIT_HARDWARE

STEPS = ("shoe", "displays", "bell", "console")
EXIT_UNFINISHED = 3  # a step was not finished (the technician did not see every button, say)


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register bring-up's arguments."""
    p.add_argument("step", choices=(*STEPS, "all"), help="the part to bring up (all: displays, bell, console, shoe)")
    p.add_argument("--config", required=True, help="the table's config (its [shoe] and [gpio])")
    p.add_argument("--seconds", type=float, default=3.0, metavar="S",
                   help="displays: how long each step shows (default 3); bell: the pause between patterns")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S",
                   help="console: give up after S seconds without every button (default 300)")
    p.add_argument("--count", type=int, default=None, metavar="N", help="shoe: stop after N card events")
    p.add_argument("--json", action="store_true", help="shoe: one JSON object per message")


def run_displays(wiring: Any, *, pin_factory: Any, wait: Callable[[float], None], seconds: float,
                 out: TextIO) -> None:
    """Each display's name in chain order, the lamp test, then dark; `wait(seconds)` after each step is shown."""
    from display.bringup import display_steps
    from display.factory import make_driver

    driver = make_driver(wiring, pin_factory, terminal_stream=out)
    try:
        # Written straight to the driver (no queue, no thread): a step is on the modules when it is said.
        driver.set_brightness(wiring.brightness)
        driver.set_blanked(False)
        for step in display_steps(wiring.display_chain_order(), wiring.digits):
            driver.write(step.texts)
            print(step.say, file=out, flush=True)
            wait(seconds)
    finally:
        driver.close()


def run_bell(wiring: Any, *, pin_factory: Any, clock: Callable[[], float], wait: Callable[[float], None],
             pause: float, out: TextIO) -> None:
    """Every bell pattern in turn, said before it rings; `wait` lets the clock run to each change of level."""
    from display.bell import Bell
    from display.bringup import bell_steps

    bell = Bell(wiring.bell_pin, pin_factory=pin_factory, active_high=wiring.bell_active_high,
                patterns=wiring.patterns(), clock=clock, start=False)
    try:
        for signal, say in bell_steps(bell.player.patterns):
            print(say, file=out, flush=True)
            bell.ring(signal)
            while (change := bell.step()) is not None:
                wait(max(0.0, change - clock()))
            wait(pause)
        print("bell: every pattern rung", file=out, flush=True)
    finally:
        bell.close()


def run_console(wiring: Any, *, pin_factory: Any, clock: Callable[[], float], out: TextIO,
                drive: Callable[[Any, threading.Event], object], start_threads: bool = True) -> bool:
    """Echo every console action until each button has been pressed; `drive(console, done)` waits (or presses).

    Returns whether every button was pressed.
    """
    from display.bringup import ConsoleChecklist, button_name
    from display.console import DealerConsole
    from display.factory import console_pins

    pins = console_pins(wiring)
    checklist = ConsoleChecklist(pins)
    done = threading.Event()
    lock = threading.Lock()

    def echo(action: Any) -> None:
        with lock:
            print(checklist.record(action), file=out, flush=True)
            if checklist.done:
                done.set()

    print(f"console: press each button once, CALL PIT held {wiring.call_pit_hold_s:g} s "
          f"({len(pins)} buttons: {', '.join(button_name(b) for b in pins)})", file=out, flush=True)
    console = DealerConsole(pins, echo, boxes=wiring.boxes, pin_factory=pin_factory, clock=clock,
                            debounce=wiring.debounce_s, call_pit_hold=wiring.call_pit_hold_s,
                            selection_timeout=wiring.selection_timeout_s, start=start_threads)
    try:
        drive(console, done)
    finally:
        console.close()
    if not checklist.done:
        print(f"console: not pressed: {', '.join(button_name(b) for b in checklist.remaining())}", file=out,
              flush=True)
    return checklist.done


def run_shoe(settings: Any, args: argparse.Namespace) -> int:
    """The shoe's messages as they come: `shoe-monitor` on the config's port, codec and speed."""
    from firmware_bridge import monitor_cli

    print(f"shoe: {settings.shoe.port}, codec {settings.shoe.codec}, {settings.shoe.baudrate} baud: deal a few "
          "cards (Ctrl-C stops)", file=sys.stderr, flush=True)
    monitor = argparse.Namespace(port=settings.shoe.port, codec=settings.shoe.codec, baud=settings.shoe.baudrate,
                                 count=args.count, json=args.json, resume=None, no_status=False,
                                 heartbeat_timeout=3.0)
    return int(monitor_cli.run(monitor))


def run(args: argparse.Namespace) -> int:
    """Run the chosen step(s) of the bring-up on the config's parts."""
    from display.factory import GpioUnavailable, make_pin_factory

    from .config import ConfigError, load_settings

    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        print(f"tablectl bringup: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    if args.seconds < 0 or args.timeout <= 0 or (args.count is not None and args.count < 1):
        print("tablectl bringup: --seconds is 0 or more, --timeout more than 0, --count 1 or more", file=sys.stderr)
        return EXIT_CONFIG
    steps = ("displays", "bell", "console", "shoe") if args.step == "all" else (args.step,)
    wiring = settings.gpio
    factory = None
    try:
        for step in steps:
            if step == "shoe":
                status = run_shoe(settings, args)
                if status:
                    return status
                continue
            if factory is None:
                factory = make_pin_factory(wiring.pin_factory)
            if step == "displays":
                run_displays(wiring, pin_factory=factory, wait=time.sleep, seconds=args.seconds, out=sys.stdout)
            elif step == "bell":
                run_bell(wiring, pin_factory=factory, clock=time.monotonic, wait=time.sleep, pause=args.seconds,
                         out=sys.stdout)
            elif not run_console(wiring, pin_factory=factory, clock=time.monotonic, out=sys.stdout,
                                 drive=lambda console, done: done.wait(args.timeout)):
                return EXIT_UNFINISHED
    except GpioUnavailable as exc:
        print(f"tablectl bringup: {exc}", file=sys.stderr)
        return EXIT_HARDWARE
    except Exception as exc:  # a part that cannot be driven (a pin in use, SPI): one line, as `run` says it
        print(f"tablectl bringup {step}: {type(exc).__name__}: {exc}: is the service running (sudo systemctl stop "
              "tablectl)? SPI enabled, the user in the gpio and spi groups?", file=sys.stderr)
        return EXIT_HARDWARE
    finally:
        if factory is not None:
            factory.close()
    return 0
