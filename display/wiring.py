"""The GPIO wiring of the table, as configuration (the service's ``[gpio]`` TOML section).

Pins are BCM numbers (GPIOn), not header positions; docs/display.md has the header
diagram. Defaults fit a Pi 3/4/5 40-pin header with 7 boxes: SPI0 for the MAX7219
chain, the bell on GPIO17, the console buttons on the remaining free pins. GPIO0/1
(HAT EEPROM) are never allowed; with the MAX7219 driver GPIO9 (MISO) and GPIO7 (CE1)
are held by the kernel's SPI0 driver too.
"""

from __future__ import annotations

import enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from display.bell import DEFAULT_PATTERNS, BellSignal, Pulse, check_pattern

BcmPin = Annotated[int, Field(ge=0, le=27, description="BCM GPIO number (0..27 on the 40-pin header)")]

ALWAYS_RESERVED = {0: "ID_SD (HAT EEPROM)", 1: "ID_SC (HAT EEPROM)"}
SPI0_RESERVED = {9: "SPI0 MISO (held by the SPI driver)", 7: "SPI0 CE1 (held by the SPI driver)"}


class DriverName(str, enum.Enum):
    """Which display back end drives the 7-segment displays."""

    MAX7219 = "max7219"
    TERMINAL = "terminal"
    NONE = "none"


class PinFactoryName(str, enum.Enum):
    """Which gpiozero pin factory to use: lgpio on a Pi (3, 4 and 5), mock for demo/tests."""

    LGPIO = "lgpio"
    MOCK = "mock"


class TerminalStyle(str, enum.Enum):
    """How the terminal driver draws the displays."""

    LINE = "line"  # one line per update: box1[      17] ... dealer[   7-17]
    SEGMENTS = "segments"  # three rows of ASCII-art digits, as the segments light (the demo's)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class SpiWiring(_Strict):
    """SPI0 pins for the MAX7219 chain (CLK, DIN, LOAD/CS)."""

    clock: BcmPin = 11
    mosi: BcmPin = 10
    select: BcmPin = 8


class ButtonWiring(_Strict):
    """Console buttons, each between its GPIO and ground (internal pull-ups are used)."""

    stand: BcmPin = 5
    double: BcmPin = 6
    split: BcmPin = 13
    surrender: BcmPin = 19
    insurance: BcmPin = 26
    continue_: BcmPin = Field(default=21, alias="continue")
    call_pit: BcmPin = 20
    boxes: list[BcmPin] = Field(
        default_factory=lambda: [4, 12, 16, 22, 23, 24, 25],
        description="one button per box, box 1 first",
    )


class TowerWiring(_Strict):
    """Tower light lamps (through a driver transistor or relay board)."""

    red: BcmPin = 18
    amber: BcmPin = 27
    green: BcmPin | None = None


class TerminalWiring(_Strict):
    """The terminal driver (``driver = "terminal"``): it writes to the log (stderr), never stdout."""

    style: TerminalStyle = TerminalStyle.LINE
    columns: int = Field(default=1, ge=1, le=10, description="displays side by side in the segments style")


class GpioWiring(_Strict):
    """Everything on the GPIO header, with the display and console settings."""

    pin_factory: PinFactoryName = PinFactoryName.LGPIO
    driver: DriverName = DriverName.MAX7219
    boxes: int = Field(default=7, ge=1, le=9)
    digits: int = Field(default=8, ge=4, le=8, description="7-segment digits per display")
    brightness: int = Field(default=8, ge=0, le=15)
    chain_order: list[str] | None = Field(
        default=None,
        description="display ids from the module nearest the Pi; default dealer, box1..boxN",
    )
    reinit_interval_s: float | None = Field(default=30.0, gt=0)
    spi: SpiWiring = Field(default_factory=SpiWiring)
    terminal: TerminalWiring = Field(default_factory=TerminalWiring)
    bell_pin: BcmPin = 17
    bell_active_high: bool = True
    bell_patterns: dict[BellSignal, list[tuple[float, float]]] = Field(default_factory=dict)
    tower_light: TowerWiring | None = None
    buttons: ButtonWiring = Field(default_factory=ButtonWiring)
    debounce_s: float = Field(default=0.03, ge=0, le=0.5)
    call_pit_hold_s: float = Field(default=1.5, ge=0, le=10)
    selection_timeout_s: float = Field(default=10.0, gt=0)
    settled_seconds: float = Field(
        default=0.0, ge=0, le=600,
        description="how long a settled round's payouts stay on the displays; 0 = until the next round's first card",
    )

    @field_validator("bell_patterns")
    @classmethod
    def _patterns_valid(cls, value: dict[BellSignal, list[Pulse]]) -> dict[BellSignal, list[Pulse]]:
        for signal, pulses in value.items():
            try:
                check_pattern(pulses)
            except ValueError as exc:
                raise ValueError(f"bell_patterns.{signal.value}: {exc}") from None
        return value

    def patterns(self) -> dict[BellSignal, tuple[Pulse, ...]]:
        """Every signal's pattern: the configured ones over the defaults."""
        merged = dict(DEFAULT_PATTERNS)
        merged.update({s: tuple(p) for s, p in self.bell_patterns.items()})
        return merged

    def display_chain_order(self) -> list[str]:
        """The display ids in chain order (module nearest the Pi first)."""
        from display.render import DEALER_DISPLAY_ID, box_display_id

        if self.chain_order is not None:
            return list(self.chain_order)
        return [DEALER_DISPLAY_ID] + [box_display_id(n) for n in range(1, self.boxes + 1)]

    def pin_uses(self) -> list[tuple[str, int]]:
        """(field, pin) for every pin this wiring claims."""
        uses: list[tuple[str, int]] = []
        if self.driver is DriverName.MAX7219:
            uses += [(f"spi.{name}", pin) for name, pin in self.spi.model_dump().items()]
        uses.append(("bell_pin", self.bell_pin))
        if self.tower_light is not None:
            uses += [
                (f"tower_light.{name}", pin)
                for name, pin in self.tower_light.model_dump().items()
                if pin is not None
            ]
        for name, pin in self.buttons.model_dump(by_alias=True).items():
            if name == "boxes":
                uses += [(f"buttons.boxes[{i}] (box {i + 1})", p) for i, p in enumerate(pin)]
            else:
                uses.append((f"buttons.{name}", pin))
        return uses

    @model_validator(mode="after")
    def _check_pins(self) -> GpioWiring:
        if len(self.buttons.boxes) != self.boxes:
            raise ValueError(
                f"buttons.boxes lists {len(self.buttons.boxes)} pins but boxes = {self.boxes}"
            )
        if self.chain_order is not None:
            from display.render import display_ids

            if sorted(self.chain_order) != sorted(display_ids(self.boxes)):
                raise ValueError(
                    f"chain_order must list each of {display_ids(self.boxes)} once, got {self.chain_order}"
                )
        reserved = dict(ALWAYS_RESERVED)
        if self.driver is DriverName.MAX7219:
            reserved.update(SPI0_RESERVED)
        seen: dict[int, str] = {}
        for field, pin in self.pin_uses():
            if pin in reserved:
                raise ValueError(f"{field}: GPIO{pin} is reserved ({reserved[pin]})")
            if pin in seen:
                raise ValueError(f"GPIO{pin} is used twice: by {seen[pin]} and by {field}")
            seen[pin] = field
        return self
