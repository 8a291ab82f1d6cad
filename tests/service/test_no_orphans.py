"""No process outlives its parent (issue 36, item 2), whatever kills the parent.

`tablectl run`, `tablectl demo`, `tablectl floor`, `tablectl fleet-sim` and `tablectl simulate` are each SIGKILLed mid-play
(as a watchdog, the OOM killer or a power cut of the process does), and nothing of their trees may be
left after a short grace. Each tree is found by a mark in its environment, which every child inherits
and keeps when it is orphaned (tests.support.processes). Before the fix, the exact-edge worker (a
multiprocessing spawn child, ~65 MB) and multiprocessing's resource tracker outlived a killed service,
adopted by init, and the demo's virtual shoe outlived a killed demo.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from simulators.virtual_dealer import VirtualDealer
from tests.support.broker import Mosquitto
from tests.support.client import call
from tests.support.deadlines import scaled, wait_until
from tests.support.fleet import FleetSimProcess, FloorProcess, write_floor_config
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, Table, free_port
from tests.support.processes import Proc, kill_all, marked, new_mark, survivors

TREE = "TABLECTL_TEST_TREE"  # the mark of the tree under test
GRACE = 20.0  # seconds (scaled) a child is given to end after its parent is killed: a wait, not a measure


def _none_left(mark: str, killed: int) -> None:
    left = survivors(TREE, mark, GRACE)
    kill_all(left, TREE, mark)  # (not left behind by this test either)
    assert left == [], f"still running after their parent (pid {killed}) was SIGKILLed:\n" + "\n".join(map(str, left))


def _tree(mark: str, at_least: int, what: str) -> list[Proc]:
    def found() -> list[Proc] | None:
        tree = marked(TREE, mark)
        return tree if len(tree) >= at_least else None

    return wait_until(found, 120, what)


def test_a_killed_table_service_leaves_no_process(tmp_path: Path) -> None:
    mark = new_mark()
    table = Table(tmp_path, seed=5)
    table.service.env = {**os.environ, TREE: mark}
    with table:
        VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=5, max_boxes=2).run(2, timeout=scaled(120))
        # The exact-edge worker has answered: the service has its child.
        wait_until(lambda: call(table.api, "GET", "/api/edge", SUPERVISOR_KEY).json()["available"], 120,
                   "the exact edge of the next round")
        assert table.service.proc is not None
        service = table.service.proc.pid
        tree = marked(TREE, mark)
        assert any(p.pid == service for p in tree) and any(p.ppid == service for p in tree), tree
        table.service.kill()
        _none_left(mark, service)


def test_a_killed_demo_leaves_no_process(tmp_path: Path) -> None:
    """The demo's tree: the demo (service, API and virtual dealer in one process), its virtual shoe and the
    service's exact-edge worker."""
    mark = new_mark()
    env = {**os.environ, TREE: mark, "TMPDIR": str(tmp_path)}
    with open(tmp_path / "demo.out", "wb") as out:
        demo = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "demo", "--rounds", "0", "--pace", "fast"],
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    try:
        wait_until(lambda: (tmp_path / "demo.out").read_text().count("\nround ") >= 2, 120, "two rounds played")
        tree = _tree(mark, 3, "the demo, its virtual shoe and the exact-edge worker")
        assert {p.ppid for p in tree if p.pid != demo.pid} == {demo.pid}, tree
        demo.send_signal(signal.SIGKILL)
        demo.wait()
        _none_left(mark, demo.pid)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()


def test_a_killed_floor_and_fleet_sim_leave_no_process(tmp_path: Path) -> None:
    """The floor (with gap recovery from a table's API configured) and fleet-sim's tables, killed while the
    tables play."""
    mark = new_mark()
    with Mosquitto(tmp_path / "broker") as broker:
        url = f"mqtt://127.0.0.1:{broker.port}"
        table_api, key_file = free_port(), tmp_path / "floor.key"
        key_file.write_text("a-floor-key\n")
        recovery = (f'[[floor.tables]]\nid = "table-001"\napi_url = "http://127.0.0.1:{table_api}"\n'
                    f'api_key_file = "{key_file}"\n')
        floor = FloorProcess(write_floor_config(tmp_path, url, free_port(), tmp_path / "sim" / "keys", extra=recovery),
                             tmp_path / "floor.log")
        floor.env = {**os.environ, TREE: mark}
        sim = FleetSimProcess(tmp_path, url, 2, 0, "--pace", "fast", "--api-port", str(table_api),
                              "--floor-key-file", str(key_file))
        sim.env = {**os.environ, TREE: mark}
        try:
            floor.start()
            sim.start()
            wait_until(lambda: call(floor.api, "GET", "/healthz", SUPERVISOR_KEY).json()["ledger_rows"] > 50, 120,
                       "the tables' rows on the floor")
            assert floor.proc is not None and sim.proc is not None
            pids = (floor.proc.pid, sim.proc.pid)
            assert {p.pid for p in marked(TREE, mark)} >= set(pids)
            floor.kill()
            sim.kill()
            _none_left(mark, pids[0])
        finally:
            floor.stop()
            sim.stop()


def test_a_killed_simulation_leaves_no_worker(tmp_path: Path) -> None:
    """`tablectl simulate --workers 2`: its forked workers wait for chunks on a pipe they hold both ends of,
    so without the parent-death signal they waited forever once it was killed."""
    mark = new_mark()
    sim = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "simulate", "--rules", "ru-standard", "--rounds",
                            "100000000", "--seed", "1", "--workers", "2", "--json"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env={**os.environ, TREE: mark})
    try:
        _tree(mark, 3, "the simulation and its two workers")
        sim.send_signal(signal.SIGKILL)
        sim.wait()
        _none_left(mark, sim.pid)
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait()
