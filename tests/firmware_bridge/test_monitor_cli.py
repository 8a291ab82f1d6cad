"""`tablectl shoe-monitor` as a technician runs it: a separate process on a real port."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tty
from pathlib import Path
from typing import Callable

from simulators.shoe.process import SimProcess
from tests.support.deadlines import scaled


def monitor(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "tablectl.cli", "shoe-monitor", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(timeout), stdin=subprocess.DEVNULL)


def test_a_port_that_cannot_be_opened_is_a_clear_error(tmp_path: Path) -> None:
    result = monitor("--port", str(tmp_path / "no-such-tty"), "--json")
    assert result.returncode == 1
    assert result.stderr.startswith(f"shoe-monitor: cannot open {tmp_path / 'no-such-tty'}: ")
    assert "No such file" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_an_unknown_codec_is_a_clear_error() -> None:
    result = monitor("--port", "/dev/null", "--codec", "morse")
    assert result.returncode == 2 and "unknown codec 'morse'" in result.stderr and "Traceback" not in result.stderr


def test_monitor_acks_and_prints_json_then_exits_after_count(start_sim: Callable[..., SimProcess]) -> None:
    sim = start_sim("--decks", "1", "--auto-deal", "200", "--cards", "20", "--wait-for-host")
    result = monitor("--port", sim.link, "--count", "20", "--json")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [m["position"] for m in lines if m["type"] == "card"] == list(range(1, 21))
    assert [m["type"] for m in lines if m["type"] != "status"][0] == "shoe_loaded"
    assert "link_up" in result.stderr
    # Everything was acknowledged (the last ACK is flushed on exit): the shoe keeps nothing.
    deadline = time.monotonic() + scaled(10)
    while (status := sim.request("status"))["unacked"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert status["position"] == 20 and status["unacked"] == 0


def test_monitor_reads_a_line_reader(tmp_path: Path) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        os.write(master, b"")
        proc = subprocess.Popen(
            [sys.executable, "-m", "tablectl.cli", "shoe-monitor", "--port", os.ttyname(slave),
             "--codec", "lines", "--count", "2", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert proc.stderr is not None
        assert "link_up" in proc.stderr.readline()  # the port is open: the reader may talk
        os.write(master, b"QS\nbad line\n2C\n")
        out, err = proc.communicate(timeout=scaled(30))
        assert proc.returncode == 0, err
        printed = [json.loads(line) for line in out.splitlines()]
        assert printed[0] == {"type": "card", "shoe_id": "lines", "position": 1, "code": "QS"}
        assert printed[1]["type"] == "fault" and printed[1]["kind"] == "bad_data"
        assert printed[2] == {"type": "card", "shoe_id": "lines", "position": 2, "code": "2C"}
    finally:
        os.close(master)
        os.close(slave)


def test_a_port_in_use_by_another_program_is_refused_not_shared(start_sim: Callable[..., SimProcess]) -> None:
    from firmware_bridge import LinkUp, ShoeLink

    sim = start_sim()
    owner = ShoeLink(sim.link)
    owner.start()
    try:
        assert isinstance(owner.get_blocking(15), LinkUp)
        result = monitor("--port", sim.link, "--count", "1")
        assert result.returncode == 1
        assert result.stderr == f"shoe-monitor: cannot open {sim.link}: the port is in use by another program\n"
    finally:
        owner.stop()
