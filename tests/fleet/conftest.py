"""Fixtures of the fleet tests: a real Mosquitto on a free loopback port, stopped afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from tests.support.broker import Mosquitto


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A running broker (fails, never skips, if mosquitto is missing)."""
    b = Mosquitto(tmp_path / "broker")
    b.start()
    yield b
    b.stop()
