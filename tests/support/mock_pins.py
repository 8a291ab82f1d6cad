"""gpiozero's mock pins in tests: a fresh MockFactory, set as gpiozero's default while a test runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@contextmanager
def mock_pin_factory() -> Iterator[MockFactory]:
    """A MockFactory, also gpiozero's default (its software SPI bus needs one); the previous default
    comes back after, so no test's pins reach the next test."""
    previous = Device.pin_factory
    mock = MockFactory()
    Device.pin_factory = mock
    try:
        yield mock
    finally:
        mock.reset()
        Device.pin_factory = previous
