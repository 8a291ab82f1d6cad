"""Fixtures shared by the link and virtual-shoe tests: a virtual shoe in a child process, on a real pty."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import pytest

from simulators.shoe.process import SimProcess
from tests.support.clock import DATES, frozen


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


@pytest.fixture
def anyio_backend() -> str:
    """The in-process table tests (``pytest.mark.anyio``, tests.support.inprocess) run on asyncio, the service's loop."""
    return "asyncio"


@pytest.fixture(params=DATES, ids=[d.label for d in DATES])
def any_date(request: pytest.FixtureRequest) -> Iterator[object]:
    """Run the test with the wall clock frozen at each instant of ``DATES``, in its time zone.

    For the date-sensitive tests (fixed fixture times beside a journal, a table or a display):
    they must pass whatever the calendar and the zone, since nothing they test reads the clock.
    """
    with frozen(request.param) as at:
        yield at


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave the long statistical runs (``slow``) out unless asked for with ``-m``.

    Each has a shorter run in the default suite. When every collected test is slow
    (``./scripts/test tests/strategy/test_house_edge.py``), they all run: naming
    them is asking for them, and a run must never end with no test at all.
    """
    if config.getoption("markexpr"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if not slow or len(slow) == len(items):
        return
    config.hook.pytest_deselected(items=slow)
    items[:] = [item for item in items if not item.get_closest_marker("slow")]
