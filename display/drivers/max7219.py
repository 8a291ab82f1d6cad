"""A chain of MAX7219 8-digit 7-segment modules on SPI, through gpiozero's SPI interface.

Wiring: the Pi's MOSI feeds DIN of the first module, each DOUT feeds the next DIN;
CLK and LOAD(CS) are shared. A register write is a 16-bit word (address byte, data
byte). To write one row, one word per module is shifted through the chain while CS is
low, the word for the farthest module first; raising CS latches every module at once.
A module that must not change gets a no-op word.

Why our own driver rather than luma.led_matrix: luma's 7-segment support draws
through PIL on a pixel canvas and brings its own SPI layer (spidev) - we would lose
gpiozero's pin factory, hence its mock SPI and the lgpio back end on a Pi 5. The
register protocol is small.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Mapping, Sequence

from gpiozero import Device, SPIDevice

from display.drivers.base import check_brightness, check_texts
from display.glyphs import encode

log = logging.getLogger(__name__)

DIGITS_PER_MODULE = 8


class Register(enum.IntEnum):
    """MAX7219 register addresses (digit registers are DIGIT0 + n)."""

    NOOP = 0x00
    DIGIT0 = 0x01
    DECODE_MODE = 0x09
    INTENSITY = 0x0A
    SCAN_LIMIT = 0x0B
    SHUTDOWN = 0x0C
    DISPLAY_TEST = 0x0F


def cells_for_module(text: str, digits: int) -> list[int]:
    """Digit register values for ``text``: index 0 is DIGIT0, the rightmost digit.

    Common 8-digit boards wire DIGIT0 to the rightmost digit, so the text's last cell
    goes to DIGIT0. Unused digits above ``digits`` stay blank.
    """
    cells = encode(text)
    if len(cells) > digits:
        raise ValueError(f"{text!r} needs {len(cells)} digits, the display has {digits}")
    cells = [0] * (digits - len(cells)) + cells
    return list(reversed(cells)) + [0] * (DIGITS_PER_MODULE - digits)


class Max7219Chain(SPIDevice):  # type: ignore[misc]  # gpiozero has no type hints, so SPIDevice is Any
    """The MAX7219 modules of the table, one per display id, in chain order.

    ``display_ids[0]`` is the module nearest the Pi (its DIN on MOSI). Pass the SPI
    pins as gpiozero spi args (``clock_pin``, ``mosi_pin``, ``select_pin``, and
    ``miso_pin``, which the MAX7219 does not use but SPI0 claims) or ``port``/``device``.
    """

    def __init__(
        self,
        display_ids: Sequence[str],
        *,
        digits: int = 8,
        brightness: int = 8,
        **spi_args: object,
    ) -> None:
        if not 1 <= digits <= DIGITS_PER_MODULE:
            raise ValueError(f"digits must be in 1..{DIGITS_PER_MODULE}, got {digits}")
        if not display_ids:
            raise ValueError("a MAX7219 chain needs at least one display")
        factory = spi_args.get("pin_factory")
        # gpiozero's software SPI bus (used on the mock factory) builds a Device
        # without passing the factory on, so a default factory must exist.
        if factory is not None and Device.pin_factory is None:
            Device.pin_factory = factory
        super().__init__(**spi_args)
        self._spi.clock_mode = 0  # MAX7219 latches DIN on CLK's rising edge
        self.display_ids = list(display_ids)
        self.digits = digits
        self._brightness = check_brightness(brightness)
        self._blanked = False
        # Shadow of every module's digit registers: what we believe it shows.
        self._shadow = [[0] * DIGITS_PER_MODULE for _ in self.display_ids]
        self.reinitialise()

    # -- the wire --------------------------------------------------------------

    def _write_row(self, words: Sequence[tuple[int, int] | None]) -> None:
        """One latch: ``words[i]`` for module i (None = no-op), farthest module sent first."""
        data: list[int] = []
        for word in reversed(words):
            reg, value = word if word is not None else (Register.NOOP, 0)
            data += [int(reg), value & 0xFF]
        self._spi.transfer(data)

    def _write_all(self, register: Register, value: int) -> None:
        self._write_row([(register, value)] * len(self.display_ids))

    # -- DisplayDriver -----------------------------------------------------------

    def reinitialise(self) -> None:
        """Re-send every configuration register and every digit.

        A MAX7219 that browned out comes back in shutdown with its registers cleared
        or random (decode mode garbage shows as Code B digits), so everything is sent.
        """
        self._write_all(Register.DISPLAY_TEST, 0)
        self._write_all(Register.DECODE_MODE, 0)
        self._write_all(Register.SCAN_LIMIT, self.digits - 1)
        self._write_all(Register.INTENSITY, self._brightness)
        for digit in range(DIGITS_PER_MODULE):
            self._write_row(
                [(Register.DIGIT0 + digit, cells[digit]) for cells in self._shadow]
            )
        self._write_all(Register.SHUTDOWN, 0 if self._blanked else 1)

    def write(self, texts: Mapping[str, str]) -> None:
        """Show the texts; only digit rows that change are sent, untouched modules get no-ops."""
        check_texts(texts, self.display_ids)
        wanted = [list(cells) for cells in self._shadow]
        for i, display_id in enumerate(self.display_ids):
            if display_id in texts:
                wanted[i] = cells_for_module(texts[display_id], self.digits)
        for digit in range(DIGITS_PER_MODULE):
            row: list[tuple[int, int] | None] = [
                (Register.DIGIT0 + digit, wanted[i][digit])
                if wanted[i][digit] != self._shadow[i][digit]
                else None
                for i in range(len(self.display_ids))
            ]
            if any(word is not None for word in row):
                self._write_row(row)
                for i, word in enumerate(row):
                    if word is not None:
                        self._shadow[i][digit] = word[1]

    def set_brightness(self, level: int) -> None:
        """Set the intensity register of every module (0..15)."""
        self._brightness = check_brightness(level)
        self._write_all(Register.INTENSITY, level)

    def set_blanked(self, blanked: bool) -> None:
        """Shutdown mode darkens the modules but keeps their digits for unblanking."""
        self._blanked = blanked
        self._write_all(Register.SHUTDOWN, 0 if blanked else 1)

    @property
    def brightness(self) -> int:
        """The brightness last set."""
        return self._brightness
