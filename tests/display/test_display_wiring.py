"""The wiring config: defaults for a Pi 40-pin header, and errors that name the field."""

from __future__ import annotations

import tomllib

import pytest
from pydantic import ValidationError

from display.bell import DEFAULT_PATTERNS, BellSignal
from display.wiring import DriverName, GpioWiring, PinFactoryName


def test_defaults_are_valid_and_use_spi0() -> None:
    w = GpioWiring()
    assert (w.spi.clock, w.spi.mosi, w.spi.select) == (11, 10, 8)
    assert w.pin_factory is PinFactoryName.LGPIO
    assert w.driver is DriverName.MAX7219
    assert (w.boxes, w.digits, w.brightness) == (7, 8, 8)
    pins = [pin for _, pin in w.pin_uses()]
    assert len(pins) == len(set(pins)) == 3 + 1 + 7 + 7
    assert w.display_chain_order() == ["dealer"] + [f"box{n}" for n in range(1, 8)]


def test_a_pin_used_twice_is_named_with_both_fields() -> None:
    with pytest.raises(ValidationError, match=r"GPIO17 is used twice: by bell_pin and by buttons.stand"):
        GpioWiring.model_validate({"buttons": {"stand": 17}})


def test_a_box_button_on_an_spi_pin_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"spi.clock and by buttons.boxes\[2\] \(box 3\)"):
        GpioWiring.model_validate({"buttons": {"boxes": [4, 12, 11, 22, 23, 24, 25]}})


def test_spi_pins_are_free_without_the_max7219() -> None:
    w = GpioWiring.model_validate({"driver": "terminal", "bell_pin": 9})
    assert w.bell_pin == 9


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"bell_pin": 28}, "bell_pin"),
        ({"bell_pin": -1}, "bell_pin"),
        ({"buttons": {"call_pit": 40}}, "buttons.call_pit"),
        ({"digits": 9}, "digits"),
        ({"brightness": 16}, "brightness"),
        ({"driver": "ht16k33"}, "driver"),
        ({"bel_pin": 5}, "bel_pin"),
    ],
)
def test_invalid_values_name_their_field(data: dict, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        GpioWiring.model_validate(data)
    assert field in str(err.value)


def test_reserved_pins_are_refused() -> None:
    with pytest.raises(ValidationError, match="bell_pin: GPIO0 is reserved"):
        GpioWiring.model_validate({"bell_pin": 0})
    with pytest.raises(ValidationError, match="bell_pin: GPIO9 is reserved"):
        GpioWiring.model_validate({"bell_pin": 9})


def test_box_buttons_must_match_the_box_count() -> None:
    with pytest.raises(ValidationError, match="buttons.boxes lists 7 pins but boxes = 5"):
        GpioWiring.model_validate({"boxes": 5})
    w = GpioWiring.model_validate({"boxes": 5, "buttons": {"boxes": [4, 12, 16, 22, 23]}})
    assert w.display_chain_order()[-1] == "box5"


def test_chain_order_must_name_every_display_once() -> None:
    with pytest.raises(ValidationError, match="chain_order"):
        GpioWiring.model_validate({"chain_order": ["dealer", "box1"]})


def test_bell_patterns_override_defaults_and_are_checked() -> None:
    w = GpioWiring.model_validate({"bell_patterns": {"call_pit": [[0.3, 0.3], [0.3, 0.0]]}})
    assert w.patterns()[BellSignal.CALL_PIT] == ((0.3, 0.3), (0.3, 0.0))
    assert w.patterns()[BellSignal.FAULT] == DEFAULT_PATTERNS[BellSignal.FAULT]
    with pytest.raises(ValidationError, match="bell_patterns.fault"):
        GpioWiring.model_validate({"bell_patterns": {"fault": [[0.0, 1.0]]}})


def test_loads_from_a_toml_gpio_section() -> None:
    doc = tomllib.loads(
        """
        [gpio]
        pin_factory = "mock"
        driver = "max7219"
        boxes = 3
        digits = 4
        bell_pin = 17
        [gpio.buttons]
        continue = 21
        boxes = [4, 12, 16]
        [gpio.tower_light]
        red = 18
        amber = 27
        [gpio.bell_patterns]
        shuffle_due = [[0.2, 0.0]]
        """
    )
    w = GpioWiring.model_validate(doc["gpio"])
    assert w.pin_factory is PinFactoryName.MOCK
    assert w.buttons.continue_ == 21
    assert w.tower_light is not None and w.tower_light.amber == 27
