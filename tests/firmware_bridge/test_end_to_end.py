"""A full shoe through a hostile cable, between two real processes on a real pty."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

from simulators.shoe.process import SimProcess
from tests.support.deadlines import scaled


def test_full_six_deck_shoe_arrives_exactly_once_in_order_despite_faults(
    start_sim: Callable[..., SimProcess], tmp_path: Path
) -> None:
    shoe_log = tmp_path / "released.jsonl"
    sim = start_sim(
        "--seed", "7", "--decks", "6", "--auto-deal", "100", "--cards", "312",
        "--corrupt", "0.05", "--drop", "0.02", "--duplicate", "0.02",
        "--disconnect-every", "100", "--wait-for-host", "--log", str(shoe_log), "--verbose",
    )  # fmt: skip
    monitor = subprocess.run(
        [sys.executable, "-m", "tablectl.cli", "shoe-monitor", "--port", sim.link, "--count", "312", "--json"],
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert monitor.returncode == 0, monitor.stderr
    printed = [json.loads(line) for line in monitor.stdout.splitlines()]
    cards = [(m["shoe_id"], m["position"], m["code"]) for m in printed if m["type"] == "card"]
    released = [json.loads(line) for line in shoe_log.read_text().splitlines()]
    assert len(released) == 312
    assert cards == [(r["shoe_id"], r["position"], r["card"]) for r in released]
    assert [p for _, p, _ in cards] == list(range(1, 313))
    assert sorted(code for _, _, code in cards) == sorted(r["card"] for r in released)
    assert sum(m["type"] == "cut_card" for m in printed) == 1

    # The faults really happened: frames were spoilt and the cable was pulled three times.
    stats = re.search(r"bad frames (\d+), duplicates (\d+), NAKs (\d+), link-ups (\d+)", monitor.stderr)
    assert stats is not None, monitor.stderr
    bad, duplicates, naks, link_ups = map(int, stats.groups())
    assert bad > 0 and duplicates > 0 and naks > 0
    sim.stop()
    assert sim.stderr_path.read_text().count("unplugged") >= 3
    # Two pulls may merge into one outage on a slow machine, never fewer than two.
    assert link_ups >= 3, monitor.stderr
    assert monitor.stderr.count("link_down") >= 2
