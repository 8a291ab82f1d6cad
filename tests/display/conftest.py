"""Fixtures for the display tests: a fresh gpiozero MockFactory per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from display.clock import ManualClock


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """A MockFactory, also set as gpiozero's default (its software SPI bus needs one)."""
    previous = Device.pin_factory
    mock = MockFactory()
    Device.pin_factory = mock
    yield mock
    mock.reset()
    Device.pin_factory = previous


@pytest.fixture
def clock() -> ManualClock:
    """A clock the test moves by hand."""
    return ManualClock(start=1000.0)
