"""Fixtures for the display tests: a fresh gpiozero MockFactory per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from tests.support.mock_pins import mock_pin_factory

from display.clock import ManualClock


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """A MockFactory, also set as gpiozero's default (its software SPI bus needs one)."""
    with mock_pin_factory() as mock:
        yield mock


@pytest.fixture
def clock() -> ManualClock:
    """A clock the test moves by hand."""
    return ManualClock(start=1000.0)
