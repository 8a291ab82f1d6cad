"""Fixtures shared by the link and virtual-shoe tests: a virtual shoe in a child process, on a real pty."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import pytest

from simulators.shoe.process import SimProcess


@pytest.fixture
def start_sim(tmp_path: Path) -> Iterator[Callable[..., SimProcess]]:
    """Start ``tablectl shoe-sim`` children with the given extra arguments; all stopped afterwards."""
    started: list[SimProcess] = []

    def start(*args: str, name: str = "shoe") -> SimProcess:
        sim = SimProcess(tmp_path, *args, name=name).start()
        started.append(sim)
        return sim

    yield start
    for sim in started:
        sim.stop()
