"""The floor at scale on a real broker: N virtual tables at live pace, through Mosquitto, to 1, 2 or 4 floor
workers on SQLite or PostgreSQL, every combination side by side in one run.

    .venv/bin/python benchmarks/fleet.py [--tables 100,300,1000] [--stores sqlite,postgresql] [--workers 1,2,4]
        [--seconds 30] [--warmup 15] [--pace live|fast] [--per-sim 100] [--sim-dir DIR] [--flood RATE]

For each N, store and worker count (SQLite takes one worker: it is one file with one writer): a fresh
Mosquitto (Debian's, loopback, persistence as shipped in deploy/mosquitto/tablectl.conf), the floor as
`tablectl floor` processes (one, or `--worker 1..K` on a shared group), and the tables as
`tablectl fleet-sim` processes of `--per-sim` tables each (a real table is its own Pi; one process's event
loop serialises its tables). PostgreSQL is Debian's, started once for the run with fsync and synchronous
commits on (a floor's evidence must outlive a power cut), a fresh database per measurement; SQLite is
WAL with synchronous=FULL, as the floor ships.

Measured over `--seconds` after a warm-up, for the rows the tables journalled in that window:
- rows/s the tables journalled (the offered load: about one a table a second at live pace) and rows/s
  the floor stored; `behind`, the rows journalled in the window that the floor had not stored by its end;
- the lag from a row's arrival at its table (stamped before its journal commit) to the floor's commit
  of it, p50 and p99 (rows still missing after the drain count as lost, not as a lag);
- CPU (% of one core) and RSS of each floor worker, the broker, PostgreSQL's processes and the
  simulators, and each one's CPU milliseconds per row stored: the inputs of the capacity model in
  docs/floor.md "Scale".

Where the simulators' CPU plus the floor's approach the machine's cores, the simulator, not the floor, is
the limit: the line says so. The tables' journals go to `--sim-dir` (tmpfs by default: their fsyncs are
each Pi's own, not the floor's). With `--flood RATE`, every setting is measured again while an anonymous
client sends RATE malformed messages a second. Every run is bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import math
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tests.support.broker import Mosquitto  # noqa: E402
from tests.support.harness import free_port  # noqa: E402
from tests.support.postgres import PostgresServer  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def _cpu(pid: int, children: bool = False) -> float:
    """CPU seconds of a process (and, with `children`, of the children it has waited for)."""
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    used = int(fields[11]) + int(fields[12])
    if children:
        used += int(fields[13]) + int(fields[14])
    return used / TICK


def _descendants(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                for child in f.read().split():
                    out.append(int(child))
                    out.extend(_descendants(int(child)))
    except OSError:
        pass
    return out


def _tree_cpu(pid: int) -> float:
    """CPU seconds of a server and all its processes, those that ended included (PostgreSQL's backends)."""
    return _cpu(pid, children=True) + sum(_cpu(c) for c in _descendants(pid))


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _pct(values: list[float], q: float) -> float:
    # "inclusive": a percentile of the lags measured, never extrapolated past the largest one.
    if len(values) < 2:
        return (values or [0.0])[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1]


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


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


class Probe:
    """A subscriber beside the floor, taking every ledger row as the broker hands it out (its own thread): when
    each (table, seq) first left the broker, so that the floor's own lag (from there to its commit) is told
    apart from the tables' (from a row's arrival at its table to the broker), which a busy simulator stretches."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.seen: dict[tuple[str, int], float] = {}
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    def __enter__(self) -> "Probe":
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the probe could not subscribe")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    async def _run(self) -> None:
        import aiomqtt

        host, port = self.url.removeprefix("mqtt://").rsplit(":", 1)
        async with aiomqtt.Client(host, int(port), identifier="bench-probe",
                                  protocol=aiomqtt.ProtocolVersion.V5) as client:
            await client.subscribe("tablectl/+/ledger", qos=0)
            self._ready.set()
            messages = aiter(client.messages)
            while not self._stop.is_set():
                try:
                    m = await asyncio.wait_for(anext(messages), 0.5)
                except asyncio.TimeoutError:
                    continue
                at = time.time()
                try:
                    key = (str(m.topic).split("/")[1], int(json.loads(m.payload)["seq"]))
                except (ValueError, KeyError, TypeError):
                    continue
                self.seen.setdefault(key, at)


def _broker_config(port: int, directory: Path) -> str:
    """Mosquitto on loopback with the shipped config's persistence and queues (deploy/mosquitto/tablectl.conf),
    without its TLS and ACL: what the broker writes and keeps is what a floor's broker does."""
    return (f"listener {port} 127.0.0.1\nuser {getpass.getuser()}\nallow_anonymous true\n"
            f"persistence true\npersistence_location {directory}/\nautosave_interval 60\n"
            "persistent_client_expiration 14d\nmax_queued_messages 0\nmax_queued_bytes 2000000000\n"
            "max_inflight_messages 0\nmessage_size_limit 262144\n"
            f"log_dest file {directory / 'mosquitto.log'}\nlog_type error\nlog_type warning\n")


@dataclass(frozen=True)
class Setting:
    """One measurement's shape."""

    tables: int
    store: str  # "sqlite" or "postgresql"
    workers: int
    flood: float = 0.0

    @property
    def name(self) -> str:
        return f"{self.tables} tables, {self.store}, {self.workers} worker{'s' if self.workers > 1 else ''}"


class Floor:
    """The floor's worker processes for one measurement (started before the tables: a shared group's
    rows published before any worker subscribed would reach none)."""

    def __init__(self, work: Path, setting: Setting, broker_url: str, keys: Path, dsn: str | None) -> None:
        self.work = work
        port = free_port()
        lines = ["[floor]", f'keys_dir = "{keys}"', 'log_level = "WARNING"', 'client_id = "bench-floor"']
        if setting.store == "postgresql":
            lines += ['store = "postgresql"'] + (['shared_group = "floor"'] if setting.workers > 1 else [])
            lines += ["[floor.postgresql]", f'dsn = "{dsn}"']
        else:
            lines += ["[floor.sqlite]", f'path = "{work / "floor.sqlite"}"']
        lines += ["[broker]", f'url = "{broker_url}"', "[api]", f"port = {port}", "open_reads_on_loopback = true"]
        self.config = work / "floor.toml"
        self.config.write_text("\n".join(lines) + "\n")
        self.procs: list[subprocess.Popen[bytes]] = []
        for n in range(1, setting.workers + 1):
            argv = [sys.executable, "-m", "tablectl.cli", "floor", "--config", str(self.config)]
            if setting.workers > 1:
                argv += ["--worker", str(n)]
            log = open(work / f"floor-{n}.log", "wb")
            self.procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log))
        for n, proc in enumerate(self.procs, 1):
            assert proc.stdout is not None
            if not proc.stdout.readline().startswith(b"{"):
                raise RuntimeError(f"floor worker {n} did not start: {(work / f'floor-{n}.log').read_text()[-2000:]}")

    def stop(self) -> None:
        """SIGTERM each worker (each finishes its batch) and wait."""
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _start_sims(setting: Setting, per_sim: int, broker_url: str, sim_dir: Path, work: Path, pace: str,
                nice: int) -> list[subprocess.Popen[bytes]]:
    """The tables, `per_sim` to a fleet-sim process, at `nice` (they stand in for other machines: the floor,
    the broker and the database go first on this one)."""
    processes = max(1, math.ceil(setting.tables / per_sim))
    share = [setting.tables // processes + (1 if i < setting.tables % processes else 0) for i in range(processes)]
    sims, first = [], 1
    for i, n in enumerate(share):
        sims.append(subprocess.Popen(
            ["nice", "-n", str(nice), sys.executable, "-m", "tablectl.cli", "fleet-sim", "--tables", str(n), "--first", str(first),
             "--broker", broker_url, "--pace", pace, "--rounds", "0", "--dir", str(sim_dir),
             "--drain-seconds", "10", "--log-level", "WARNING"],
            stdout=subprocess.PIPE, stderr=open(work / f"sim-{i}.log", "wb")))
        first += n
    for i, sim in enumerate(sims):
        assert sim.stdout is not None
        if not sim.stdout.readline().startswith(b"{"):
            raise RuntimeError(f"fleet-sim {i} did not start: {(work / f'sim-{i}.log').read_text()[-2000:]}")
    return sims


def _journalled(sim_dir: Path, t0: float, t1: float) -> dict[tuple[str, int], float]:
    """Every row the tables journalled in [t0, t1]: (table, seq) -> when it arrived at its table."""
    out: dict[tuple[str, int], float] = {}
    for journal in sorted(sim_dir.glob("table-*/journal.sqlite")):
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
        try:
            for seq, received in db.execute("SELECT seq, received_at FROM ledger ORDER BY seq DESC"):
                at = _epoch(received)
                if at < t0:
                    break
                if at <= t1:
                    out[(journal.parent.name, seq)] = at
        finally:
            db.close()
    return out


def _stored(setting: Setting, work: Path, dsn: str | None, since: float) -> dict[tuple[str, int], float]:
    """When the floor committed each row it stored from `since` on: (table, seq) -> stored_at."""
    query = "SELECT table_id, seq, stored_at FROM rows WHERE stored_at >= "
    if setting.store == "postgresql":
        import psycopg

        with psycopg.connect(dsn or "") as conn:
            return {(t, s): at for t, s, at in conn.execute(query + "%s", (since,))}
    db = sqlite3.connect(f"file:{work / 'floor.sqlite'}?mode=ro", uri=True)
    try:
        return {(t, s): at for t, s, at in db.execute(query + "?", (since,))}
    finally:
        db.close()


def _wait_caught_up(setting: Setting, work: Path, dsn: str | None, since: float, want: set[tuple[str, int]],
                    timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if want <= set(_stored(setting, work, dsn, since)):
            return
        time.sleep(1.0)


def _parts(prefix: str, setting: Setting, args: argparse.Namespace, pg: PostgresServer | None
           ) -> tuple[Path, Path, Mosquitto, str | None, str | None]:
    """A measurement's folders, its fresh broker, and its fresh database (PostgreSQL) with the dsn to it."""
    work = Path(tempfile.mkdtemp(prefix=f"{prefix}{setting.tables}-{setting.store}-{setting.workers}-"))
    sim_dir = Path(tempfile.mkdtemp(prefix="bench-fleet-sim-", dir=args.sim_dir))
    port = free_port()
    broker = Mosquitto(work / "broker", port=port, config=_broker_config(port, work / "broker")).start()
    database = pg.database() if pg else None
    return work, sim_dir, broker, database, pg.dsn(database) if pg and database else None


def _dismantle(floor: Floor | None, broker: Mosquitto, pg: PostgresServer | None, database: str | None,
               sim_dir: Path) -> None:
    """What `_parts` made, and the floor's workers, stopped and removed (the work folder is the caller's)."""
    if floor:
        floor.stop()
    broker.stop()
    if pg and database:
        pg.drop(database)
    shutil.rmtree(sim_dir, ignore_errors=True)


def run_one(setting: Setting, args: argparse.Namespace, pg: PostgresServer | None) -> dict[str, Any]:
    """One measurement: `setting` for `args.seconds` after `args.warmup`."""
    work, sim_dir, broker, database, dsn = _parts("bench-fleet-", setting, args, pg)
    floor = sims = None
    probe = Probe(broker.url).__enter__()
    try:
        floor = Floor(work, setting, broker.url, sim_dir / "keys", dsn)
        sims = _start_sims(setting, args.per_sim, broker.url, sim_dir, work, args.pace, args.nice)
        time.sleep(args.warmup)
        broker_pid = broker.proc.pid if broker.proc else 0
        postmaster = int((pg.data / "postmaster.pid").read_text().split()[0]) if pg else None
        with Flood(broker.url, setting.flood) as intruder:
            def sample() -> dict[str, Any]:
                return {"workers": [_cpu(p.pid) for p in floor.procs], "broker": _cpu(broker_pid),
                        "db": _tree_cpu(postmaster) if postmaster else 0.0, "sims": sum(_cpu(s.pid) for s in sims)}
            t0, c0 = time.time(), sample()
            rss = [0.0] * len(floor.procs)
            broker_rss = 0.0
            end = t0 + args.seconds
            while time.time() < end:
                time.sleep(1.0)
                rss = [max(r, _rss_mb(p.pid)) for r, p in zip(rss, floor.procs)]
                broker_rss = max(broker_rss, _rss_mb(broker_pid))
                if any(s.poll() is not None for s in sims) or any(p.poll() is not None for p in floor.procs):
                    raise RuntimeError(f"a process ended early; see {work}")
            t1, c1 = time.time(), sample()
            load = os.getloadavg()[0]
        malformed = intruder.sent
        for sim in sims:  # the tables stop; the floor goes on until it holds every row of the window
            sim.terminate()
        for sim in sims:
            try:
                sim.wait(60)
            except subprocess.TimeoutExpired:
                sim.kill()
        journalled = _journalled(sim_dir, t0, t1)
        _wait_caught_up(setting, work, dsn, t0 - 600, set(journalled), timeout=args.drain)
        stored = _stored(setting, work, dsn, t0 - 600)
    finally:
        probe.__exit__()
        for sim in sims or []:
            if sim.poll() is None:
                sim.kill()
        _dismantle(floor, broker, pg, database, sim_dir)
    span = t1 - t0
    lags = [(stored[k] - at) * 1000 for k, at in journalled.items() if k in stored]
    floor_lags = [(stored[k] - probe.seen[k]) * 1000 for k in journalled if k in stored and k in probe.seen]
    behind = sum(1 for k in journalled if k not in stored or stored[k] > t1)
    in_window = sum(1 for at in stored.values() if t0 <= at <= t1)

    def pct(a: str) -> float:
        return round(100 * (c1[a] - c0[a]) / span, 1)

    def ms_per_row(seconds: float) -> float:
        return round(1000 * seconds / in_window, 3) if in_window else 0.0

    worker_cpu = [round(100 * (b - a) / span, 1) for a, b in zip(c0["workers"], c1["workers"])]
    sims_pct = pct("sims")
    total = sum(worker_cpu) + pct("broker") + pct("db") + sims_pct
    shutil.rmtree(work, ignore_errors=True)
    return {
        "tables": setting.tables, "store": setting.store, "workers": setting.workers, "seconds": round(span, 1),
        "malformed_per_s": round(malformed / span, 1),
        "offered_rows_per_s": round(len(journalled) / span, 1), "stored_rows_per_s": round(in_window / span, 1),
        "behind": behind, "lost": sum(1 for k in journalled if k not in stored),
        "lag_p50_ms": round(_pct(lags, 50), 1), "lag_p99_ms": round(_pct(lags, 99), 1),
        "lag_max_ms": round(max(lags), 1) if lags else 0.0,
        "floor_lag_p50_ms": round(_pct(floor_lags, 50), 1), "floor_lag_p99_ms": round(_pct(floor_lags, 99), 1),
        "probed": len(floor_lags),
        "worker_cpu_pct": worker_cpu, "worker_rss_mb": [round(r, 1) for r in rss],
        "broker_cpu_pct": pct("broker"), "broker_rss_mb": round(broker_rss, 1), "db_cpu_pct": pct("db"),
        "sim_cpu_pct": sims_pct, "sim_processes": len(sims or []), "machine_cpu_pct": round(total, 1),
        "load": round(load, 1),
        "worker_ms_per_row": ms_per_row(sum(c1["workers"]) - sum(c0["workers"])),
        "broker_ms_per_row": ms_per_row(c1["broker"] - c0["broker"]),
        "db_ms_per_row": ms_per_row(c1["db"] - c0["db"]), "sim_ms_per_row": ms_per_row(c1["sims"] - c0["sims"]),
    }


def run_saturated(setting: Setting, args: argparse.Namespace, pg: PostgresServer | None) -> dict[str, Any]:
    """The floor flat out, with no simulator beside it: the workers subscribe and stop; the tables play
    `args.seconds` at live pace while the broker queues their rows and states for the workers' sessions; the
    tables stop; the workers start again, and the time they take to store every row is measured. Rows per
    second of that is what the floor can take on this machine, the simulators' CPU left out."""
    work, sim_dir, broker, database, dsn = _parts("bench-fleet-sat-", setting, args, pg)
    floor = None
    try:
        Floor(work, setting, broker.url, sim_dir / "keys", dsn).stop()  # the sessions, subscribed
        sims = _start_sims(setting, args.per_sim, broker.url, sim_dir, work, args.pace, 0)
        time.sleep(args.seconds)
        for sim in sims:
            sim.terminate()
        for sim in sims:
            sim.wait(120)  # each sends the broker the rest of its rows first
        journalled = _journalled(sim_dir, 0.0, time.time())
        postmaster = int((pg.data / "postmaster.pid").read_text().split()[0]) if pg else None
        t0 = time.time()
        db0 = _tree_cpu(postmaster) if postmaster else 0.0
        floor = Floor(work, setting, broker.url, sim_dir / "keys", dsn)
        want = set(journalled)
        cpu: list[float] = [0.0] * len(floor.procs)
        rss = [0.0] * len(floor.procs)
        end = t0 + args.drain * 5
        while time.time() < end:
            cpu = [_cpu(p.pid) for p in floor.procs]  # up to the last look before the end
            rss = [max(r, _rss_mb(p.pid)) for r, p in zip(rss, floor.procs)]
            if want <= set(_stored(setting, work, dsn, 0.0)):
                break
            time.sleep(0.5)
        t1 = time.time()
        db1 = _tree_cpu(postmaster) if postmaster else 0.0
        stored = _stored(setting, work, dsn, 0.0)
    finally:
        _dismantle(floor, broker, pg, database, sim_dir)
        shutil.rmtree(work, ignore_errors=True)
    last = max((stored[k] for k in journalled if k in stored), default=t0)
    span = max(last - t0, 1e-3)  # from the workers' start to the last row's commit (their start-up counted)
    return {"tables": setting.tables, "store": setting.store, "workers": setting.workers, "rows": len(journalled),
            "missing": sum(1 for k in journalled if k not in stored), "seconds": round(span, 1),
            "rows_per_s": round(len(journalled) / span, 1),
            "worker_cpu_pct": [round(100 * c / (t1 - t0), 1) for c in cpu],
            "worker_rss_mb": [round(r, 1) for r in rss], "db_cpu_pct": round(100 * (db1 - db0) / (t1 - t0), 1)}


def _limit(r: dict[str, Any], live_rows_per_table_s: float) -> str:
    """What held a measurement back, if anything. The floor: rows lost, or its own lag (from the broker to its
    commit) over 250 ms at p99. The simulators: the tables offered less than live pace, or their own part of
    the lag (from a row's arrival at its table to the broker) took the whole over 250 ms; "the machine full"
    where every core was busy, so that either would have gone faster on a machine of its own."""
    full = " (the machine full)" if r["machine_cpu_pct"] >= 0.9 * 100 * CORES else ""
    if r["lost"] or r["floor_lag_p99_ms"] > 250:
        return "the floor" + full
    if r["offered_rows_per_s"] < 0.95 * r["tables"] * live_rows_per_table_s or r["lag_p99_ms"] > 250:
        return "the simulators" + full
    return "-"


def main() -> int:
    """Measure every setting, print one line each as it ends, then the table and the lot as JSON."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", default="100,300,1000", help="comma-separated table counts")
    p.add_argument("--stores", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql")
    p.add_argument("--workers", default="1,2,4", help="comma-separated worker counts (PostgreSQL; SQLite takes 1)")
    p.add_argument("--seconds", type=float, default=30.0, help="measured seconds per setting (after the warm-up)")
    p.add_argument("--warmup", type=float, default=15.0, help="seconds before measuring")
    p.add_argument("--drain", type=float, default=60.0, help="at most this long for the floor to catch up after")
    p.add_argument("--pace", choices=("live", "fast"), default="live")
    p.add_argument("--per-sim", type=int, default=100, help="tables per fleet-sim process (at most 500)")
    p.add_argument("--nice", type=int, default=10, help="the simulators' niceness (they stand in for other machines)")
    p.add_argument("--sim-dir", default="/dev/shm" if os.path.isdir("/dev/shm") else None,
                   help="where the tables' journals go (default: tmpfs, each Pi's fsyncs being its own)")
    p.add_argument("--saturate", action="store_true",
                   help="instead: how many rows a second each setting's floor takes flat out, no simulator beside it")
    p.add_argument("--flood", type=float, default=0.0,
                   help="also measure each setting while an anonymous client sends this many malformed messages a s")
    args = p.parse_args()
    stores = [s for s in args.stores.split(",") if s]
    if set(stores) - {"sqlite", "postgresql"}:
        p.error("--stores takes sqlite and postgresql")
    settings = [Setting(int(n), store, w, rate)
                for n in args.tables.split(",")
                for store in stores
                for w in ([1] if store == "sqlite" else [int(x) for x in args.workers.split(",")])
                for rate in ((0.0, args.flood) if args.flood else (0.0,))]
    pg = None
    if "postgresql" in stores:
        pg = PostgresServer(durable=True).start()
    results = []
    if args.saturate:
        try:
            for s in settings:
                r = run_saturated(s, args, pg)
                results.append(r)
                print(f"{s.name}, flat out: {r['rows']} rows queued ({args.seconds:.0f} s of live play) stored in "
                      f"{r['seconds']} s: {r['rows_per_s']} rows/s ({r['missing']} missing); workers CPU "
                      f"{r['worker_cpu_pct']} %, RSS {r['worker_rss_mb']} MB; database {r['db_cpu_pct']} %",
                      flush=True)
        finally:
            if pg:
                pg.stop()
        print(json.dumps(results))
        return 0
    try:
        for s in settings:
            r = run_one(s, args, pg)
            r["limit"] = _limit(r, 1.0 if args.pace == "live" else 0.0)
            results.append(r)
            flood = f", {r['malformed_per_s']} malformed/s" if s.flood else ""
            print(f"{s.name}{flood}: "
                  f"offered {r['offered_rows_per_s']} rows/s, stored {r['stored_rows_per_s']}, behind {r['behind']}, "
                  f"lost {r['lost']}; lag p50 {r['lag_p50_ms']} ms, p99 {r['lag_p99_ms']} ms "
                  f"(max {r['lag_max_ms']}), the floor's own p50 {r['floor_lag_p50_ms']} ms, "
                  f"p99 {r['floor_lag_p99_ms']} ms; workers CPU {r['worker_cpu_pct']} %, RSS {r['worker_rss_mb']} MB; "
                  f"broker {r['broker_cpu_pct']} %, database {r['db_cpu_pct']} %, {r['sim_processes']} fleet-sims "
                  f"{r['sim_cpu_pct']} % (machine {r['machine_cpu_pct']} % of {100 * CORES}); limit: {r['limit']}",
                  flush=True)
    finally:
        if pg:
            pg.stop()
    print()
    print("| tables | store | workers | offered rows/s | stored rows/s | lag p50 / p99 | the floor's lag p50 / p99 | "
          "behind | CPU per worker | RSS per worker | broker CPU | database CPU | fleet-sim CPU | limit |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        print(f"| {r['tables']} | {r['store']} | {r['workers']} | {r['offered_rows_per_s']} | "
              f"{r['stored_rows_per_s']} | {r['lag_p50_ms']} / {r['lag_p99_ms']} ms | "
              f"{r['floor_lag_p50_ms']} / {r['floor_lag_p99_ms']} ms | {r['behind']} | "
              f"{' / '.join(f'{c} %' for c in r['worker_cpu_pct'])} | "
              f"{' / '.join(f'{m:.0f}' for m in r['worker_rss_mb'])} MB | {r['broker_cpu_pct']} % | "
              f"{r['db_cpu_pct']} % | {r['sim_cpu_pct']} % | {r['limit']} |")
    print()
    print("CPU ms per row stored (the capacity model's inputs): worker, broker, database, fleet-sim")
    for r in results:
        print(f"  {r['tables']:>5} {r['store']:<10} {r['workers']} worker(s): {r['worker_ms_per_row']}, "
              f"{r['broker_ms_per_row']}, {r['db_ms_per_row']}, {r['sim_ms_per_row']}")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
