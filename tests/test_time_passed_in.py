"""Time is passed in: nothing under the core packages reads the wall clock, read from the source.

The engine, the journal, the shoe link, the displays and the simulators take the time they need
from their caller (``tablectl``'s service clock, a test's fixed instant), so a journal replays to
the same table and a test passes on any date and in any time zone. This scans every module of
``controller``, ``firmware_bridge``, ``display`` and ``simulators`` with ``ast`` for a read of the
wall clock (``datetime.now``, ``time.time``, ``date.today``, …), whether called or passed on.

The monotonic clock (``time.monotonic``, ``time.perf_counter``) says how long, never when: it may
only appear in the modules listed in ``MONOTONIC_EDGES``, the I/O loops that still live inside
these packages (each names why), and nowhere in the engine.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ("controller", "firmware_bridge", "display", "simulators", "games")

WALL_CLOCK = {
    ("datetime", "now"), ("datetime", "utcnow"), ("datetime", "today"), ("date", "today"),
    ("time", "time"), ("time", "time_ns"), ("time", "localtime"), ("time", "gmtime"), ("time", "ctime"),
    ("time", "asctime"), ("time", "strftime"),
}
MONOTONIC = {("time", "monotonic"), ("time", "monotonic_ns"), ("time", "perf_counter"),
             ("time", "perf_counter_ns"), ("time", "process_time")}

# Module -> why it may read the monotonic clock (a duration, never a time of day).
MONOTONIC_EDGES = {
    "firmware_bridge/link.py": "the serial port's reader thread: retransmit and heartbeat deadlines",
    "simulators/shoe/server.py": "the virtual shoe's pty loop: its pace and the replug delay",
    "simulators/virtual_dealer.py": "the virtual dealer's HTTP loop: pace and wait timeouts",
    "games/blackjack/simulate.py": "prints rounds per second of a simulation run",
    "games/club/simulate.py": "the default timer of the rounds-per-second figure (injectable)",
    "games/baccarat/simulate.py": "prints coups per second of a simulation run",
    "simulators/strategy_cli.py": "prints how long the strategy tables took to build",
    "display/chain.py": "the default of its injected clock, and a close() timeout",
    "display/factory.py": "the default of the injected clock it hands the display chain",
    "display/console.py": "the default of the console's injected clock (debounce, long press)",
    "display/bell.py": "the default of the bell's injected clock (its patterns)",
}


def _reads(path: Path, names: set[tuple[str, str]]) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line}" for line in _reads_in(path.read_text(), names)]


def _reads_in(source: str, names: set[tuple[str, str]]) -> list[str]:
    """Each `module.name` reference (called or passed on) and `from module import name` of `names`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            # `datetime.now` and `datetime.datetime.now` alike: the name just left of the attribute.
            owner = node.value
            left = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            if (left, node.attr) in names:
                found.append(f"{node.lineno}: {left}.{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            found += [f"{node.lineno}: from {node.module} import {alias.name}"
                      for alias in node.names if (node.module, alias.name) in names]
    return found


def _core_modules() -> list[Path]:
    return sorted(p for package in CORE for p in (ROOT / package).rglob("*.py"))


def test_the_core_reads_no_wall_clock() -> None:
    reads = [line for path in _core_modules() for line in _reads(path, WALL_CLOCK)]
    assert reads == [], "time is passed in; these read the wall clock:\n" + "\n".join(reads)


def test_only_the_io_edges_read_the_monotonic_clock() -> None:
    reads = [line for path in _core_modules() if str(path.relative_to(ROOT)) not in MONOTONIC_EDGES
             for line in _reads(path, MONOTONIC)]
    assert reads == [], "durations are passed in too; these read the monotonic clock:\n" + "\n".join(reads)


@pytest.mark.parametrize("module", sorted(MONOTONIC_EDGES))
def test_each_listed_edge_exists_and_still_needs_its_place(module: str) -> None:
    """A stale entry would let a new clock read in unnoticed: each listed module reads the clock."""
    assert _reads(ROOT / module, MONOTONIC), f"{module} reads no clock now: take it off MONOTONIC_EDGES"


def test_the_scan_finds_every_spelling_of_a_clock_read() -> None:
    source = ("import datetime, time\nfrom time import time as now\nfrom datetime import date\n"
              "a = datetime.datetime.now\nb = datetime.now()\nc = date.today()\nd = time.monotonic\n")
    assert [line.split(":")[0] for line in _reads_in(source, WALL_CLOCK)] == ["2", "4", "5", "6"]
    assert [line.split(":")[0] for line in _reads_in(source, MONOTONIC)] == ["7"]
