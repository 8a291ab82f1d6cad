"""Builds the table's display chain, bell, tower light and console from the wiring.

The composition root calls :func:`build_outputs` once and keeps the returned
:class:`TableIO`; it calls ``io.show(view)`` on every state change and
``io.bell.ring(signal)`` on events, and receives ConsoleActions via ``on_action``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Protocol, TextIO

from gpiozero.pins import Factory

from display.bell import Bell, TowerLight
from display.chain import DisplayChain, StatusCallback
from display.clock import Clock
from display.console import ActionCallback, ButtonId, DealerConsole, FunctionButton
from display.drivers.base import DisplayDriver
from display.drivers.recording import NullDisplay
from display.drivers.terminal import TerminalDisplay
from display.model import TableView
from display.wiring import DriverName, GpioWiring, PinFactoryName

log = logging.getLogger(__name__)


class GpioUnavailable(RuntimeError):
    """The wiring's pin factory, or a part on its pins, cannot be used here.

    The message is one line: the setting or the part, what went wrong, and what to do.
    """


LGPIO_MISSING = ('[gpio] pin_factory = "lgpio", but the lgpio module is not installed: on the Pi, '
                 "sudo apt-get install python3-lgpio, then run deploy/install.sh again (it links lgpio into the "
                 'venv); on another machine use pin_factory = "mock" or --no-gpio')


def make_pin_factory(name: PinFactoryName) -> Factory:
    """The gpiozero pin factory named in the wiring (lgpio imported only when asked for).

    GpioUnavailable says why lgpio cannot be used: not installed, a board gpiozero does not know
    as a Raspberry Pi (PinUnknownPi), or a GPIO chip that cannot be opened.
    """
    if name is PinFactoryName.MOCK:
        from gpiozero.pins.mock import MockFactory

        return MockFactory(pin_class=_service_mock_pin())
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError:
        raise GpioUnavailable(LGPIO_MISSING) from None
    except OSError as exc:
        # lgpio makes its notification pipes in LG_WD (default: the working directory) as it is
        # imported, so a user who cannot write there gets an OSError before any pin is touched.
        raise GpioUnavailable(
            f'[gpio] pin_factory = "lgpio": lgpio cannot create its notification pipes '
            f"({type(exc).__name__}: {exc}): set LG_WD to a folder this user may write (the service "
            "unit uses LG_WD=/run/tablectl; by hand: sudo -u tablectl env LG_WD=/tmp tablectl ...)") from None
    from gpiozero.exc import PinUnknownPi

    try:
        return LGPIOFactory()
    except PinUnknownPi as exc:
        raise GpioUnavailable(
            f'[gpio] pin_factory = "lgpio", but gpiozero does not recognise this board as a Raspberry Pi '
            f'(PinUnknownPi: {exc}): run on the table\'s Pi (3, 4 or 5), or use pin_factory = "mock" or '
            "--no-gpio elsewhere") from None
    except Exception as exc:  # lgpio.error and OSError: no /dev/gpiochip*, or no right to it
        raise GpioUnavailable(
            f'[gpio] pin_factory = "lgpio": cannot open the GPIO chip ({type(exc).__name__}: {exc}): the '
            "service's user must be in the gpio group (deploy/install.sh) and /dev/gpiochip0 must exist") from None


MOCK_PIN_HISTORY = 16  # the changes a service's mock pin keeps (the newest), for a look in a debugger


def _service_mock_pin() -> type:
    """gpiozero's MockPin, keeping only its newest `MOCK_PIN_HISTORY` changes.

    A MockPin records every change of its level (``states``, for a test's ``assert_states``) and never
    lets one go. The displays' MAX7219 chain is driven by software SPI: each digit shifted out is a few
    hundred changes of the clock and data pins, so a table served on mock pins (the demo, a machine that
    is not a Pi, the arm64 proof) grew by about 1 MiB a round without bound (benchmarks/soak.py: 63 MiB at
    READY, 379 MiB after 300 rounds). A test that asserts on a pin's states makes its own MockFactory.
    """
    from collections import deque

    from gpiozero.pins.mock import MockPin, PinState

    class ServiceMockPin(MockPin):  # type: ignore[misc]  # gpiozero has no type hints: MockPin is Any
        """A mock pin whose history of levels is bounded (see `_service_mock_pin`)."""

        def clear_states(self) -> None:
            super().clear_states()
            self.states = deque([PinState(0.0, self._state)], maxlen=MOCK_PIN_HISTORY)

    return ServiceMockPin


def make_driver(
    wiring: GpioWiring, pin_factory: Factory, *, terminal_stream: TextIO | None = None
) -> DisplayDriver:
    """The display back end the wiring names."""
    ids = wiring.display_chain_order()
    if wiring.driver is DriverName.MAX7219:
        from display.drivers.max7219 import Max7219Chain

        return Max7219Chain(
            ids,
            digits=wiring.digits,
            brightness=wiring.brightness,
            pin_factory=pin_factory,
            clock_pin=wiring.spi.clock,
            mosi_pin=wiring.spi.mosi,
            miso_pin=9,  # unused by the MAX7219, but SPI0 claims it; naming it keeps lgpio on hardware SPI
            select_pin=wiring.spi.select,
        )
    if wiring.driver is DriverName.TERMINAL:
        return TerminalDisplay(ids, wiring.digits, stream=terminal_stream, style=wiring.terminal.style.value,
                               columns=wiring.terminal.columns)
    return NullDisplay(ids, wiring.digits)


def spi_device(wiring: GpioWiring) -> str | None:
    """The spidev device the MAX7219 chain is driven through on a Pi, or None (software SPI, no SPI).

    gpiozero (lgpio) uses the kernel's SPI0 when the chain is on its pins, SCLK GPIO11 and MOSI
    GPIO10, with CE0 (GPIO8, /dev/spidev0.0) or CE1 (GPIO7, /dev/spidev0.1) as LOAD; on other
    pins it clocks the bits out itself.
    """
    if wiring.driver is not DriverName.MAX7219 or (wiring.spi.clock, wiring.spi.mosi) != (11, 10):
        return None
    return {8: "/dev/spidev0.0", 7: "/dev/spidev0.1"}.get(wiring.spi.select)


def _displays(wiring: GpioWiring) -> str:
    s = wiring.spi
    if wiring.driver is DriverName.MAX7219:
        device = spi_device(wiring)
        return (f"the displays (MAX7219 chain on {device or 'software SPI'}: CLK GPIO{s.clock}, DIN GPIO{s.mosi}, "
                f"LOAD GPIO{s.select})")
    return f"the displays (driver = {wiring.driver.value!r})"


def console_pins(wiring: GpioWiring) -> dict[ButtonId, int]:
    """Button -> BCM pin, from the wiring."""
    b = wiring.buttons
    pins: dict[ButtonId, int] = {
        FunctionButton.STAND: b.stand,
        FunctionButton.DOUBLE: b.double,
        FunctionButton.SPLIT: b.split,
        FunctionButton.SURRENDER: b.surrender,
        FunctionButton.INSURANCE: b.insurance,
        FunctionButton.CONTINUE: b.continue_,
        FunctionButton.CALL_PIT: b.call_pit,
    }
    pins.update({n: pin for n, pin in enumerate(b.boxes, start=1)})
    return pins


@dataclass
class TableIO:
    """The table's outputs and inputs, built from the wiring."""

    wiring: GpioWiring
    pin_factory: Factory
    displays: DisplayChain
    bell: Bell
    console: DealerConsole
    tower: TowerLight | None = None

    def show(self, view: TableView) -> dict[str, str]:
        """Render ``view`` for the wiring's digit count and queue it; returns the texts."""
        return self.displays.show_view(view)

    def close(self) -> None:
        """Stop every thread and release every pin."""
        self.console.close()
        self.bell.close()
        if self.tower is not None:
            self.tower.close()
        self.displays.close()


class _Closeable(Protocol):
    def close(self) -> None: ...


def build_outputs(
    wiring: GpioWiring,
    *,
    on_action: ActionCallback,
    pin_factory: Factory | None = None,
    clock: Clock = time.monotonic,
    on_display_status: StatusCallback | None = None,
    terminal_stream: TextIO | None = None,
    start_threads: bool = True,
) -> TableIO:
    """Build displays, bell, tower light and console from ``wiring``.

    ``pin_factory`` overrides the wiring's (tests pass their MockFactory so they can
    reach the mock pins). ``on_action`` receives console actions from gpiozero's or
    the console's thread (see :func:`display.console.asyncio_action_sink`);
    ``on_display_status`` receives display health changes from the display worker.
    With ``start_threads=False`` nothing runs in the background: the caller pumps
    ``displays.pump()``, ``bell.step()`` and ``console.tick()`` under its own clock.
    """
    factory = pin_factory if pin_factory is not None else make_pin_factory(wiring.pin_factory)
    built: list[_Closeable] = []
    part = _displays(wiring)
    try:
        driver = make_driver(wiring, factory, terminal_stream=terminal_stream)
        displays = DisplayChain(
            driver,
            clock=clock,
            on_status=on_display_status,
            reinit_interval=wiring.reinit_interval_s,
            start=start_threads,
        )
        built.append(displays)
        part = f"the bell (bell_pin = GPIO{wiring.bell_pin})"
        bell = Bell(
            wiring.bell_pin,
            pin_factory=factory,
            active_high=wiring.bell_active_high,
            patterns=wiring.patterns(),
            clock=clock,
            start=start_threads,
        )
        built.append(bell)
        tower = None
        if wiring.tower_light is not None:
            t = wiring.tower_light
            part = "the tower light ([gpio.tower_light])"
            tower = TowerLight(t.red, t.amber, t.green, pin_factory=factory)
            built.append(tower)
        part = "the dealer console's buttons ([gpio.buttons])"
        console = DealerConsole(
            console_pins(wiring),
            on_action,
            boxes=wiring.boxes,
            pin_factory=factory,
            clock=clock,
            debounce=wiring.debounce_s,
            call_pit_hold=wiring.call_pit_hold_s,
            selection_timeout=wiring.selection_timeout_s,
            start=start_threads,
        )
    except Exception as exc:
        for made in reversed(built):
            made.close()
        if isinstance(exc, (ValueError, GpioUnavailable)):  # (a wiring the config let through is a bug: as it is)
            raise
        raise GpioUnavailable(
            f"{part}: {type(exc).__name__}: {exc}: is another program using these pins (the service: sudo "
            "systemctl stop tablectl), SPI enabled (deploy/README.md, section 1), and the service's user in the "
            "gpio and spi groups?") from None
    displays.set_brightness(wiring.brightness)
    return TableIO(wiring, factory, displays, bell, console, tower)
