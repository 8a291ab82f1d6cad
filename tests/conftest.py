"""Fixtures shared by the link and virtual-shoe tests: a virtual shoe in a child process, on a real pty."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Generator, Iterator

import pytest

from simulators.shoe.process import SimProcess
from tests.support.clock import DATES, frozen
from tests.support.processes import env_of, kill_all, new_mark, survivors


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


WIDE_SCOPES = ("module", "package", "session")
# Markers of the runs left out of the default suite (pyproject.toml describes each).
OPT_IN = ("slow", "arm64")


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group module-wide harnesses, and leave the long runs (``slow``, ``arm64``) out unless asked for.

    Each slow run has a shorter run in the default suite; ``arm64`` is the arm64 proof under
    qemu (scripts/prove-arm64, minutes). When every collected test is one of them
    (``./scripts/test tests/strategy/test_house_edge.py``), they all run: naming
    them is asking for them, and a run must never end with no test at all.
    """
    _group_module_harnesses(items)
    _long_first(items)
    if config.getoption("markexpr"):
        return
    slow = [item for item in items if any(item.get_closest_marker(m) for m in OPT_IN)]
    if not slow or len(slow) == len(items):
        return
    config.hook.pytest_deselected(items=slow)
    items[:] = [item for item in items if item not in slow]


def _long_first(items: list[pytest.Item]) -> None:
    """Order the work as xdist hands it out (scripts/test keeps this order, ``--no-loadscope-reorder``):
    the tests marked ``long`` (and so their harness groups) first, then the other harness groups,
    then single tests, each in collection order.

    Longest first, so no 30-second test starts last and keeps one worker busy after the others
    have finished. (xdist's own reorder, by the number of tests in a group, started the long single
    tests only after every group.)
    """
    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("long") is not None:
            return 0
        return 1 if item.get_closest_marker("xdist_group") is not None else 2

    items.sort(key=rank)


def _group_module_harnesses(items: list[pytest.Item]) -> None:
    """Keep each module that shares a harness (a module-wide table, broker or browser) on one worker.

    Under ``--dist loadgroup`` (scripts/test), a module whose tests use one of the suite's own
    module- or session-wide fixtures runs on a single worker, so its processes start once rather
    than once on each worker that happens to draw one of its tests.
    """
    for item in items:
        infos = getattr(item, "_fixtureinfo", None)
        if infos is None:
            continue
        shared = any(defs and defs[-1].scope in WIDE_SCOPES and defs[-1].baseid.startswith("tests")
                     for defs in infos.name2fixturedefs.values())
        if shared and not any(True for _ in item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


# The test run ends with no process of its own left (issue 36, item 2). Every process the run starts carries
# RUN_MARK (set once, by the process that runs the session, and inherited by xdist's workers and all they
# start) and TEST_MARK, the test that was running when it was started: after the session, whatever still
# carries this run's mark is named, with its test, the run fails, and the processes are ended.
RUN_MARK = "TABLECTL_TEST_RUN"
TEST_MARK = "TABLECTL_TEST_NODE"
SURVIVOR_GRACE = 15.0  # seconds (scaled) for a process that is ending as the session ends: a wait on its end


def pytest_configure(config: pytest.Config) -> None:
    """The run's mark, set by the session's own process (an xdist worker inherits it); every game loaded."""
    if not hasattr(config, "workerinput"):
        os.environ[RUN_MARK] = new_mark()
    # Every installed game's engine, and the event decoder's union over them, made before any test freezes the clock:
    # the registry makes a game's on first use (issue 36) and the decoder is rebuilt then, and pydantic cannot build a
    # schema while freezegun's FakeDatetime stands for datetime (tests/journal/test_any_date.py failed run alone). The
    # tests that check what a start loads use fresh processes.
    from controller import event_codec, registry

    registry.load_all()
    event_codec.event_classes()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Each process a test starts (its fixtures' too) carries the test's id."""
    os.environ[TEST_MARK] = item.nodeid
    return (yield)


LEFT = pytest.StashKey[list[str]]()


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None, object, object]:
    """After the session (xdist's workers are gone by then): fail the run on a survivor, and end it."""
    result = yield
    if hasattr(session.config, "workerinput"):
        return result
    mark = os.environ.get(RUN_MARK)
    if not mark:
        return result
    left = survivors(RUN_MARK, mark, SURVIVOR_GRACE, exclude={os.getpid(), os.getppid()})
    if left:
        lines = [f"{p}\n    started during {env_of(p.pid, TEST_MARK) or '(the session itself)'}" for p in left]
        kill_all(left, RUN_MARK, mark)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        session.config.stash[LEFT] = lines
        if session.config.pluginmanager.get_plugin("terminalreporter") is None:
            print("\n".join(lines))
    return result


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The survivors, named with the test that started each (printed after the session, before the totals)."""
    lines = config.stash.get(LEFT, [])
    if lines:
        terminalreporter.section("processes left by the test run (a failure: now ended)", sep="=", red=True)
        for line in lines:
            terminalreporter.write_line(line, red=True)
