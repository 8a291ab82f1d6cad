"""The floor on a real broker: N virtual tables at live pace through Mosquitto to the floor's store.

    .venv/bin/python benchmarks/fleet.py [--tables 10,50,100] [--seconds 60] [--pace live|fast] [--flood RATE]

For each N: a fresh Mosquitto (Debian's, loopback, persistence on), `tablectl floor`
and `tablectl fleet-sim --tables N` as separate processes. After a warm-up, over
`--seconds`, it prints rows per second stored by the floor (every row went
table -> broker -> floor), the lag from a row's arrival at its table (stamped
just before its journal commit) to the floor's commit of it, p50 and p99, and the
floor's RSS and CPU (and fleet-sim's CPU, for scale). Every run is bounded in time.

With `--flood RATE`, each N is measured twice in the same run, side by side: as above,
then while an anonymous client (the dev broker lets anyone in) sends RATE malformed
messages a second: garbage, rows of unknown tables, rows with a false MAC far ahead,
states of the wrong shape, under the real tables' topics and others.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tests.support.broker import Mosquitto  # noqa: E402
from tests.support.harness import free_port  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _pct(values: list[float], q: float) -> float:
    # "inclusive": a percentile of the lags measured, never extrapolated past the largest one
    # (the default method printed a p99 above the max on a short run).
    if len(values) < 2:
        return (values or [0.0])[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1]


def _malformed(i: int) -> tuple[str, bytes]:
    """The i-th hostile message: (topic, payload), cycling through the kinds the floor must shrug off."""
    table = f"table-{1 + i % 5:03d}"
    kinds = [
        (f"tablectl/{table}/ledger", b"not json at all"),
        (f"tablectl/ghost-{i % 1000}/ledger", json.dumps({"table": f"ghost-{i % 1000}", "seq": 1}).encode()),
        (f"tablectl/{table}/ledger", json.dumps({
            "table": table, "seq": 2 ** 40 + i, "kind": "bet", "received_at": "2026-12-01T20:00:00+00:00",
            "body": "{}", "shoe_id": None, "position": None, "code": None, "message": None,
            "mac": "0" * 64, "masked": False}).encode()),
        (f"tablectl/{table}/state", json.dumps({"view": {"alerts": 7}, "head": "x"}).encode()),
        (f"tablectl/{table}/ledger", b"[" * 5000),
    ]
    return kinds[i % len(kinds)]


class Flood:
    """An anonymous client sending `rate` malformed messages a second until stopped (its own thread)."""

    def __init__(self, url: str, rate: float) -> None:
        self.url, self.rate, self.sent = url, rate, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def __enter__(self) -> "Flood":
        if self.rate > 0:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)

    async def _run(self) -> None:
        from tablectl.fleet import broker as mqtt
        from tablectl.fleet.settings import BrokerSettings

        async with mqtt.connect(BrokerSettings(url=self.url), "bench-intruder") as conn:
            start = time.monotonic()
            while not self._stop.is_set():
                due = int((time.monotonic() - start) * self.rate)
                while self.sent < due:
                    topic, payload = _malformed(self.sent)
                    await conn.publish(topic, payload, qos=0)
                    self.sent += 1
                await asyncio.sleep(0.01)


def run_one(tables: int, seconds: float, pace: str, warmup: float, processes: int = 1,
            flood: float = 0.0) -> dict[str, float]:
    """One measurement: N tables for `seconds` after `warmup` (and `flood` malformed messages a second)."""
    work = Path(tempfile.mkdtemp(prefix=f"bench-fleet-{tables}-"))
    broker = Mosquitto(work / "broker").start()
    store = work / "floor.sqlite"
    cfg = work / "floor.toml"
    cfg.write_text(f'[floor]\nstore = "{store}"\nkeys_dir = "{work / "sim" / "keys"}"\nlog_level = "WARNING"\n'
                   f'[broker]\nurl = "{broker.url}"\n[api]\nport = {free_port()}\nopen_reads_on_loopback = true\n')
    floor = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "floor", "--config", str(cfg)],
                             stdout=subprocess.PIPE, stderr=open(work / "floor.log", "wb"))
    assert floor.stdout is not None and floor.stdout.readline().startswith(b"{"), (work / "floor.log").read_text()
    sims = []
    share = [tables // processes + (1 if i < tables % processes else 0) for i in range(processes)]
    first = 1
    for i, n in enumerate(s for s in share if s):
        sims.append(subprocess.Popen(
            [sys.executable, "-m", "tablectl.cli", "fleet-sim", "--tables", str(n), "--first", str(first),
             "--broker", broker.url, "--pace", pace, "--rounds", "1000000", "--dir", str(work / "sim"),
             "--drain-seconds", "5"], stdout=subprocess.PIPE, stderr=open(work / f"sim-{i}.log", "wb")))
        first += n
    try:
        for i, sim in enumerate(sims):
            assert sim.stdout is not None and sim.stdout.readline().startswith(b"{"), \
                (work / f"sim-{i}.log").read_text()
        time.sleep(warmup)
        with Flood(broker.url, flood) as intruder:
            t0, f0, s0 = time.time(), _cpu(floor.pid), sum(_cpu(s.pid) for s in sims)
            rss_max = 0.0
            end = t0 + seconds
            while time.time() < end:
                time.sleep(1.0)
                rss_max = max(rss_max, _rss_mb(floor.pid))
                if any(s.poll() is not None for s in sims) or floor.poll() is not None:
                    raise RuntimeError(f"a process ended early; see {work}")
            t1, f1, s1 = time.time(), _cpu(floor.pid), sum(_cpu(s.pid) for s in sims)
            rss_end = _rss_mb(floor.pid)
        malformed = intruder.sent
    finally:
        for sim in sims:
            sim.terminate()
        for sim in sims:
            try:
                sim.wait(30)
            except subprocess.TimeoutExpired:
                sim.kill()
        floor.terminate()
        floor.wait(10)
        broker.stop()
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    lags: list[float] = []
    for received_at, stored_at in db.execute("SELECT received_at, stored_at FROM rows WHERE stored_at BETWEEN ? AND ?",
                                             (t0, t1)):
        lags.append((stored_at - datetime.fromisoformat(received_at).timestamp()) * 1000)
    db.close()
    return {"tables": tables, "processes": len(sims), "seconds": round(t1 - t0, 1), "rows": len(lags),
            "malformed_per_s": round(malformed / (t1 - t0), 1),
            "rows_per_s": round(len(lags) / (t1 - t0), 1),
            "lag_p50_ms": round(_pct(lags, 50), 1), "lag_p99_ms": round(_pct(lags, 99), 1),
            "lag_max_ms": round(max(lags), 1) if lags else 0.0,
            "floor_cpu_pct": round(100 * (f1 - f0) / (t1 - t0), 1), "floor_rss_mb": round(rss_end, 1),
            "floor_rss_max_mb": round(rss_max, 1), "sim_cpu_pct": round(100 * (s1 - s0) / (t1 - t0), 1)}


def main() -> int:
    """Run the measurements and print one line per N, then the lot as JSON."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", default="10,50,100", help="comma-separated table counts")
    p.add_argument("--seconds", type=float, default=60.0, help="measured seconds per count (after the warm-up)")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    p.add_argument("--pace", choices=("live", "fast"), default="live")
    p.add_argument("--processes", type=int, default=1,
                   help="split the tables over this many fleet-sim processes (each real table is its own Pi)")
    p.add_argument("--flood", type=float, default=0.0,
                   help="also measure each N while an anonymous client sends this many malformed messages a second")
    args = p.parse_args()
    results = []
    runs = [(int(x), rate) for x in args.tables.split(",") for rate in ((0.0, args.flood) if args.flood else (0.0,))]
    for n, rate in runs:
        r = run_one(n, min(args.seconds, 600), args.pace, args.warmup, max(1, args.processes), rate)
        results.append(r)
        print(f"{n:>4} tables, {r['malformed_per_s']:>6} malformed/s: {r['rows_per_s']:>7} rows/s through the "
              f"broker; lag p50 {r['lag_p50_ms']} ms, "
              f"p99 {r['lag_p99_ms']} ms (max {r['lag_max_ms']}); floor CPU {r['floor_cpu_pct']} %, "
              f"RSS {r['floor_rss_mb']} MB; fleet-sim CPU {r['sim_cpu_pct']} %", flush=True)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
