"""Card latency, startup time on a long journal, and the service's memory.

    .venv/bin/python benchmarks/latency.py [--cards N] [--rounds R]

1. Card latency: from the moment the last byte of a CARD frame is written to the
   virtual shoe's pty to the moment the display output receives the new table
   (the service journals the card with synchronous=FULL in between), p50/p99 over
   N cards, beside the floor this machine allows: the frame's time on a 115,200-baud
   line plus one measured SQLite commit with synchronous=FULL.
2. Startup: the time `TableAuthority.open` takes on a journal of R rounds
   (integrity check, newest snapshot, replay of the tail), in a fresh process.
3. RSS of a running `tablectl run` (API, shoe link, journal) after that startup.
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
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller import events as ev  # noqa: E402
from controller.engine import IllegalAction, Phase  # noqa: E402
from firmware_bridge.framing import encode_frame  # noqa: E402
from simulators.shoe.client import ShoeControl  # noqa: E402
from simulators.shoe.core import ShoeConfig  # noqa: E402
from simulators.shoe.server import ShoeSimulator, SimOptions  # noqa: E402
from tablectl.config import settings_from_dict  # noqa: E402
from tablectl.service import TableService  # noqa: E402

BAUD = 115_200


def commit_floor(directory: Path, n: int = 200) -> float:
    """Median time of one small committed insert with WAL and synchronous=FULL."""
    db = sqlite3.connect(directory / "floor.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (x TEXT)")
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t VALUES (?)", ('{"type":"card","card":"7H","position":%d}' % i,))
        db.execute("COMMIT")
        times.append(time.perf_counter() - t0)
    db.close()
    return statistics.median(times)


class DisplayProbe:
    """A display output that notes when each new table reaches it."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def handle(self, effects, table) -> None:  # noqa: ANN001 - the Output protocol
        if any(type(e).__name__ == "CardPlaced" for e in effects):
            self.times.append(time.perf_counter())


async def card_latency(directory: Path, cards: int) -> list[float]:
    writes: list[tuple[float, bytes]] = []
    sim = ShoeSimulator(ShoeConfig(seed=5, decks=6), SimOptions(link_path=str(directory / "shoe"),
                                                                control_path=str(directory / "shoe.ctl")))
    real_write = sim.pty.write

    def timed_write(data: bytes) -> None:
        real_write(data)
        writes.append((time.perf_counter(), data))  # just after the last byte left for the line

    sim.pty.write = timed_write  # type: ignore[method-assign]
    sim.open()
    shoe_thread = threading.Thread(target=sim.run, daemon=True)
    shoe_thread.start()
    settings = settings_from_dict({"shoe": {"port": str(directory / "shoe")},
                                   "journal": {"path": str(directory / "latency.sqlite")}})
    probe = DisplayProbe()
    service = TableService(settings, outputs=[probe])
    stop = asyncio.Event()
    runner = asyncio.create_task(service.run(stop))
    loop = asyncio.get_running_loop()
    ctl = ShoeControl(str(directory / "shoe.ctl"))
    while not (service.health.link_up and service.table.phase is Phase.BETTING):
        await asyncio.sleep(0.01)
    latencies: list[float] = []
    last_progress = time.monotonic()
    while len(latencies) < cards:
        table = service.table
        if time.monotonic() - last_progress > 5:
            print(f"stuck? phase {table.phase.value} locked {table.locked} legal {table.legal_actions()} "
                  f"held {table.held} cards {len(latencies)}", file=sys.stderr)
            last_progress = time.monotonic()
        if table.phase is Phase.WAITING_FOR_SHUFFLE:
            await loop.run_in_executor(None, lambda: ctl.request("shuffle"))
            while service.table.phase is Phase.WAITING_FOR_SHUFFLE:
                await asyncio.sleep(0.005)
            continue
        if table.phase is Phase.BETTING and not table.pending:
            for box in range(1, 8):
                service.submit(ev.PlaceBet(box=box, amount=Decimal(10)), "bench")
            continue
        if table.phase is Phase.ATTENTION:
            print(f"attention: {[a.message for a in table.open_alerts()]}", file=sys.stderr)
            service.submit(ev.DiscardCard(), "bench")
            continue
        if table.phase is Phase.INSURANCE:
            service.submit(ev.CloseInsurance(), "bench")
            continue
        if table.phase is Phase.PLAYERS and "hit" not in table.legal_actions() and table.legal_actions():
            try:
                service.submit(ev.Stand(), "bench")
            except IllegalAction:
                pass
            continue
        if table.locked:
            await asyncio.sleep(0.005)
            continue
        seen = len(probe.times)
        answer = await loop.run_in_executor(None, lambda: ctl.request("deal"))
        if not answer.get("ok"):
            await asyncio.sleep(0.005)
            continue
        code = answer["card"].encode()
        while len(probe.times) == seen:
            await asyncio.sleep(0)
        shown = probe.times[seen]
        written = [t for t, data in writes if code in data and t <= shown]
        if written:
            latencies.append(shown - written[-1])
            last_progress = time.monotonic()
    stop.set()
    await runner
    ctl.request("quit")
    ctl.close()
    return latencies


def build_journal(path: Path, rounds: int) -> None:
    """A journal of `rounds` simulated rounds (written fast: this is setup, not the measure)."""
    from datetime import datetime, timezone

    import simulators.simulate as sim_module
    from controller.authority import TableAuthority
    from controller.rules import build_rules

    authority = TableAuthority.open(path, build_rules("ru-standard"), snapshot_every_rounds=50)
    authority.journal.db.execute("PRAGMA synchronous=OFF")
    now = datetime.now(timezone.utc)
    # Reuse the simulator's players and shoe, but route every event through the authority.
    original = sim_module.Table
    sim_module.Table = lambda rules: _Routed(authority, now)  # type: ignore[assignment]
    try:
        sim_module.simulate(build_rules("ru-standard"), rounds, seed=1, boxes=3)
    finally:
        sim_module.Table = original
    authority.journal.close()


class _Routed:
    """Looks like a Table to the simulator; every apply goes through the journal."""

    def __init__(self, authority, now) -> None:  # noqa: ANN001
        self._authority = authority
        self._now = now

    def apply(self, event):  # noqa: ANN001, ANN201
        return self._authority.submit(event, self._now)[1]

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self._authority.table, name)


def startup_time(path: Path) -> float:
    code = ("import time,sys; t=time.perf_counter(); from controller.authority import TableAuthority; "
            "from controller.rules import build_rules; a=TableAuthority.open(sys.argv[1], build_rules()); "
            "print(time.perf_counter()-t, a.replayed, a.table.rounds_played)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True,
                         cwd=os.path.join(os.path.dirname(__file__), ".."))
    seconds, replayed, rounds = out.stdout.split()
    print(f"startup on a journal of {rounds} rounds: {float(seconds):.3f} s ({replayed} events replayed "
          "after the newest snapshot; includes imports and the integrity check)")
    return float(seconds)


def service_rss(directory: Path, journal: Path) -> int:
    cfg = directory / "rss.toml"
    cfg.write_text(f'[journal]\npath = "{journal}"\n[shoe]\nport = "{directory / "none"}"\n[api]\nport = 18931\n')
    proc = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "run", "--config", str(cfg)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            cwd=os.path.join(os.path.dirname(__file__), ".."))
    assert proc.stdout is not None
    proc.stdout.readline()
    time.sleep(1.0)
    rss_kb = 0
    with open(f"/proc/{proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
    proc.terminate()
    proc.wait(10)
    return rss_kb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        frame = encode_frame(bytes(16))  # a CARD frame's size, order of magnitude (see docs/shoe-protocol.md)
        line_time = len(frame) * 10 / BAUD
        commit = commit_floor(directory)
        floor = line_time + commit
        lat = asyncio.run(card_latency(directory, args.cards))
        lat.sort()
        p50 = lat[len(lat) // 2]
        p99 = lat[int(len(lat) * 0.99) - 1]
        print(f"card latency over {len(lat)} cards: p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms")
        print(f"floor: {line_time * 1000:.2f} ms on the line ({len(frame)} bytes at {BAUD} baud) + "
              f"{commit * 1000:.2f} ms per commit = {floor * 1000:.2f} ms; p99 / floor = {p99 / floor:.2f}")
        journal = directory / "long.sqlite"
        t0 = time.perf_counter()
        build_journal(journal, args.rounds)
        print(f"(built a journal of {args.rounds} rounds in {time.perf_counter() - t0:.1f} s, "
              f"{journal.stat().st_size / 1e6:.1f} MB)")
        startup_time(journal)
        rss = service_rss(directory, journal)
        print(f"service RSS after startup: {rss / 1024:.1f} MB")


if __name__ == "__main__":
    main()
