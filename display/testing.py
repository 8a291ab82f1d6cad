"""Test helpers for display parts on gpiozero's mock pin factory (used by tests/display
and by the whole-round tests of the composition root).

:class:`Max7219Emulator` listens on the mock SPI pins like a real chain of MAX7219s:
it shifts every bit through the chain's 16-bit registers and latches them when CS
rises, so the tests see what each module would display, not what we meant to send.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpiozero.pins.mock import MockFactory, MockPin, MockSPIDevice

from display.clock import ManualClock
from display.drivers.max7219 import DIGITS_PER_MODULE, Register
from display.glyphs import decode

# Code B font of the MAX7219 decode mode, for showing what a scrambled module displays.
_CODE_B = "0123456789-EHLP "


@dataclass
class ModuleState:
    """The registers of one emulated MAX7219 (power-on state: shut down, all cleared)."""

    digits: list[int] = field(default_factory=lambda: [0] * DIGITS_PER_MODULE)
    decode_mode: int = 0
    intensity: int = 0
    scan_limit: int = 0
    shutdown: bool = True
    display_test: bool = False
    writes: int = 0

    def apply(self, register: int, value: int) -> None:
        """Latch one 16-bit word into this module (``writes`` counts all but no-ops)."""
        if register != Register.NOOP:
            self.writes += 1
        if Register.DIGIT0 <= register < Register.DIGIT0 + DIGITS_PER_MODULE:
            self.digits[register - Register.DIGIT0] = value
        elif register == Register.DECODE_MODE:
            self.decode_mode = value
        elif register == Register.INTENSITY:
            self.intensity = value & 0x0F
        elif register == Register.SCAN_LIMIT:
            self.scan_limit = value & 0x07
        elif register == Register.SHUTDOWN:
            self.shutdown = not value & 1
        elif register == Register.DISPLAY_TEST:
            self.display_test = bool(value & 1)
        # NOOP and unknown addresses change nothing

    def visible(self) -> str | None:
        """What a person would read (left to right), None when the module is dark.

        Only digits within the scan limit light; a digit in decode mode shows its Code B
        character (``?`` for a no-decode pattern outside the glyph table).
        """
        if self.display_test:
            return "8." * (self.scan_limit + 1)
        if self.shutdown:
            return None
        out = []
        for n in range(self.scan_limit, -1, -1):
            bits = self.digits[n]
            if self.decode_mode & (1 << n):
                out.append(_CODE_B[bits & 0x0F] + ("." if bits & 0x80 else ""))
            else:
                out.append(decode([bits]))
        return "".join(out)


class Max7219Emulator(MockSPIDevice):  # type: ignore[misc]  # gpiozero has no type hints, so MockSPIDevice is Any
    """A chain of ``modules`` MAX7219s on the mock SPI pins (create it before the driver).

    ``modules[0]`` is the one nearest the Pi. ``frames`` counts CS latches.
    """

    rx_buf: list[int]  # set by gpiozero (untyped): the MOSI levels clocked in since CS fell

    def __init__(
        self,
        modules: int,
        *,
        pin_factory: MockFactory,
        clock_pin: int = 11,
        mosi_pin: int = 10,
        select_pin: int = 8,
    ) -> None:
        super().__init__(clock_pin, mosi_pin, None, select_pin, pin_factory=pin_factory)
        self.modules = [ModuleState() for _ in range(modules)]
        self._shift = [0] * (16 * modules)  # the chain's shift registers, module 0 first
        self.frames = 0
        self.bits_in_frame: list[int] = []

    def on_select(self) -> None:
        """CS falling starts a frame; CS rising latches every module's register."""
        if self.select_pin.state == self.select_high:
            self.on_start()
        elif self.rx_buf:
            self.frames += 1
            self.bits_in_frame.append(len(self.rx_buf))
            for bit in self.rx_buf:
                # A bit enters module 0's register; each register's MSB moves on to the next.
                self._shift = [int(bit)] + self._shift[:-1]
            self.rx_buf = []
            for i, module in enumerate(self.modules):
                word_bits = self._shift[16 * i : 16 * (i + 1)]
                # _shift holds the newest bit first; a word's MSB came first.
                word = 0
                for b in reversed(word_bits):
                    word = (word << 1) | b
                module.apply(word >> 8, word & 0xFF)

    def visible(self, index: int) -> str | None:
        """What module ``index`` shows (see :meth:`ModuleState.visible`)."""
        return self.modules[index].visible()

    def brown_out(self, index: int) -> None:
        """Simulate a module losing power: shut down, decode mode on, random-ish digits."""
        self.modules[index] = ModuleState(
            digits=[0x0F, 0x33, 0x5A, 0x01, 0x77, 0x08, 0x3C, 0x42],
            decode_mode=0xFF,
            intensity=0,
            scan_limit=0,
            shutdown=True,
        )


def press(pin: MockPin, clock: ManualClock, hold: float = 0.1) -> None:
    """Press a mock button wired to ground (active low) for ``hold`` seconds, cleanly."""
    pin.drive_low()
    clock.advance(hold)
    pin.drive_high()


def bounce(pin: MockPin, clock: ManualClock, edges: int = 6, spacing: float = 0.002) -> None:
    """Chatter a mock contact: ``edges`` alternating edges ``spacing`` seconds apart, ending low."""
    for n in range(edges):
        (pin.drive_low if n % 2 == 0 else pin.drive_high)()
        clock.advance(spacing)
    pin.drive_low()
