"""Card latency: from a CARD frame on the line to the displays, stage by stage, beside its floor.

    .venv/bin/python benchmarks/latency.py [--cards 2000] [--gc on|off] [--edge]

With ``--edge`` it measures twice in one run, without and with the exact-edge worker
(`tablectl/edge.py`, a process computing the next round's exact edge after every round), side by side.

A real `TableService` (its one writer, a real SQLite journal with synchronous=FULL and the HMAC
chain, the shoe link's port thread on real pyserial) reads a virtual shoe on a pseudo-terminal;
the shoe runs in its own process, as the real one is its own device (in the service's process
its thread would compete for the interpreter's lock and its tail would be counted as ours).
A driver thread (not the service's event loop, so the measure adds no work to it) bets, asks
the shoe for a card, and waits for the display output to receive it. For every card it notes:

    written   the last byte of the frame written to the pty (the shoe's process; the two processes
              share the clock: perf_counter is CLOCK_MONOTONIC)
    read      the port thread's read returned it
    taken     the writer took the card from its queue
    committed the journal's commit returned (the card is durable)
    shown     the display output received the new table

and prints p50/p99 of each stage and of the whole, beside the floor this machine allows: the
frame's time on a 115,200-baud line (a pty has none, so the figure is conservative) plus the
p99 of one `synchronous=FULL` commit of the same journal row, measured in the same run.

Start-up time and memory are `benchmarks/writes.py`'s.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller import events as ev  # noqa: E402
from games.blackjack.events import CloseInsurance
from controller.cards import parse_card  # noqa: E402
from controller.engine import IllegalAction, Phase  # noqa: E402
from controller.journal import Journal, JournalKey  # noqa: E402
from firmware_bridge import port as port_module  # noqa: E402
from firmware_bridge.framing import encode_frame  # noqa: E402
from firmware_bridge.messages import Card, ShoeMessage  # noqa: E402
from simulators.shoe.client import ShoeControl  # noqa: E402
from simulators.shoe.core import ShoeConfig  # noqa: E402
from simulators.shoe.server import ShoeSimulator, SimOptions  # noqa: E402
from tablectl.config import settings_from_dict  # noqa: E402
from tablectl.edge import EdgeWorker  # noqa: E402
from tablectl.run import SWITCH_INTERVAL_SECONDS  # noqa: E402
from tablectl.service import TableService  # noqa: E402

BAUD = 115_200
STAGES = ("written", "read", "taken", "committed", "shown")


def p99(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * 0.99))]


def commit_p99(directory: Path, n: int = 1000) -> tuple[float, float]:
    """p50 and p99 of one card row appended and committed (the real journal, synchronous=FULL).

    The commits are spaced as cards are (a few milliseconds apart): back to back, each fsync
    queues behind the last and the figure is the disk's queue, not one commit.
    """
    journal = Journal(directory / "floor.sqlite", JournalKey.generate(directory / "floor.key"), create=True,
                      now=datetime.now(timezone.utc), first=ev.SetRules())
    t0 = datetime(2026, 12, 1, tzinfo=timezone.utc)
    times = []
    for i in range(n):
        start = time.perf_counter()
        with journal.transaction():
            journal.append_event(ev.CardDrawn(card=parse_card("7H"), position=i + 1), t0 + timedelta(seconds=i),
                                 shoe_id="S1", position=i + 1)
        times.append(time.perf_counter() - start)
        time.sleep(0.003)
    journal.close()
    return statistics.median(times), p99(times)


class Marks:
    """The instant each stage saw the card in flight (one card is in flight at a time)."""

    def __init__(self) -> None:
        self.now: dict[str, float] = {}
        self.shown = threading.Event()

    def mark(self, stage: str) -> None:
        self.now.setdefault(stage, time.perf_counter())


class DisplayProbe:
    """A display output that notes when a new card reaches it."""

    def __init__(self, marks: Marks) -> None:
        self.marks = marks

    def handle(self, effects, table) -> None:  # noqa: ANN001 - the Output protocol
        if any(type(e).__name__ == "CardPlaced" for e in effects):
            self.marks.mark("shown")
            self.marks.shown.set()

    def committed(self, seconds: float) -> None:
        """The journal committed (the service tells its outputs that time commits)."""
        if "taken" in self.marks.now:
            self.marks.mark("committed")


def shoe_process(directory: Path) -> None:
    """`--as-shoe DIR`: the virtual shoe, noting when each write to the pty returned (one line each)."""
    sim = ShoeSimulator(ShoeConfig(seed=5, decks=6), SimOptions(link_path=str(directory / "shoe"),
                                                                control_path=str(directory / "shoe.ctl")))
    real_write = sim.pty.write
    log = open(directory / "writes.log", "w", buffering=1)

    def timed_write(data: bytes) -> None:
        real_write(data)
        log.write(f"{time.perf_counter()!r} {data.hex()}\n")

    sim.pty.write = timed_write  # type: ignore[method-assign]
    sim.open()
    print("ready", flush=True)
    sim.run()


def written_at(directory: Path, code: str, before: float) -> float | None:
    """When the last frame holding `code` was written, no later than `before`."""
    wanted = code.encode().hex()
    found = None
    with open(directory / "writes.log") as f:
        for line in f:
            t, _, data = line.partition(" ")
            if wanted in data and float(t) <= before:
                found = float(t)
    return found


def run(directory: Path, cards: int, edge: bool = False) -> list[dict[str, float]]:
    marks = Marks()
    shoe = subprocess.Popen([sys.executable, __file__, "--as-shoe", str(directory)], stdout=subprocess.PIPE, text=True)
    assert shoe.stdout is not None and shoe.stdout.readline().strip() == "ready"
    real_read = port_module.Port.read

    def timed_read(self) -> bytes:  # noqa: ANN001
        data = real_read(self)
        if data and "asked" in marks.now:
            marks.mark("read")
        return data

    port_module.Port.read = timed_read  # type: ignore[method-assign]
    settings = settings_from_dict({"shoe": {"port": str(directory / "shoe")},
                                   "journal": {"path": str(directory / "latency.sqlite")}})
    worker = EdgeWorker() if edge else None
    service = TableService(settings, outputs=[DisplayProbe(marks), *([worker] if worker is not None else [])])
    real_on_shoe_message = service.on_shoe_message

    def timed_on_shoe_message(msg: ShoeMessage) -> None:
        if isinstance(msg, Card):
            marks.mark("taken")
        real_on_shoe_message(msg)

    service.on_shoe_message = timed_on_shoe_message  # type: ignore[method-assign]

    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    started = threading.Event()

    async def serve() -> None:
        started.set()
        await service.run(stop)

    service_thread = threading.Thread(target=lambda: loop.run_until_complete(serve()), daemon=True)
    service_thread.start()
    started.wait()

    def act(event: ev.Event) -> None:
        try:
            asyncio.run_coroutine_threadsafe(service.act(event, "bench"), loop).result(10)
        except IllegalAction:
            pass

    ctl = ShoeControl(str(directory / "shoe.ctl"))
    deadline = time.monotonic() + 20
    while not (service.health.link_up and service.table.phase in (Phase.BETTING, Phase.WAITING_FOR_SHUFFLE)):
        if time.monotonic() > deadline:
            raise SystemExit("the shoe link did not come up")
        time.sleep(0.01)
    samples: list[dict[str, float]] = []
    while len(samples) < cards:
        table = service.table
        phase = table.phase
        if phase is Phase.WAITING_FOR_SHUFFLE:
            ctl.request("shuffle")
            while service.table.phase is Phase.WAITING_FOR_SHUFFLE:
                time.sleep(0.002)
            continue
        if phase is Phase.BETTING and not table.pending:
            for box in range(1, 8):
                act(ev.PlaceBet(box=box, amount=Decimal(10)))
            continue
        if phase is Phase.ATTENTION:
            act(ev.DiscardCard())
            continue
        if phase is Phase.INSURANCE:
            act(CloseInsurance())
            continue
        if phase is Phase.PLAYERS and "hit" not in table.legal_actions() and table.legal_actions():
            act(ev.Stand())
            continue
        if table.locked:
            time.sleep(0.002)
            continue
        time.sleep(0.003)  # let the heartbeat and the last ACK pass: one frame in flight, the card's
        marks.now = {"asked": time.perf_counter()}
        marks.shown.clear()
        answer = ctl.request("deal")
        if not answer.get("ok"):
            marks.now = {}
            time.sleep(0.002)
            continue
        if not marks.shown.wait(10):
            raise SystemExit(f"a card never reached the display (marks {sorted(marks.now)})")
        written = written_at(directory, answer["card"], marks.now["shown"])
        if written is not None and written <= marks.now.get("read", 0):
            samples.append({**marks.now, "written": written})
        marks.now = {}
    ctl.request("quit")
    ctl.close()
    shoe.wait(10)
    loop.call_soon_threadsafe(stop.set)
    service_thread.join(10)
    port_module.Port.read = real_read  # type: ignore[method-assign]
    if worker is not None:
        print(f"  (the edge worker's last figure: {worker.latest}; failures {worker.failures})")
        worker.close()
    return samples


def _busy() -> None:
    while True:
        sum(i * i for i in range(10_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--as-shoe", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--busy", action="store_true",
                        help="a thread in the service's process computes all along (as an export or a big "
                             "table view does in the API's thread pool)")
    parser.add_argument("--switch-ms", type=float,
                        help="the interpreter's thread switch interval, milliseconds (default: tablectl run's)")
    parser.add_argument("--edge", action="store_true",
                        help="measure twice in one run: without and with the exact-edge worker")
    parser.add_argument("--gc", choices=("on", "off"), default="on",
                        help="off: collect and freeze the heap first, then no cyclic GC (to see its share of the tail)")
    args = parser.parse_args()
    if args.as_shoe is not None:
        return shoe_process(args.as_shoe)
    if args.cards < 100:
        parser.error("--cards must be at least 100")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        line = len(encode_frame(bytes(16))) * 10 / BAUD  # a CARD frame's size (docs/shoe-protocol.md)
        commit50, commit99 = commit_p99(directory)
        # As `tablectl run` sets it, unless told otherwise.
        sys.setswitchinterval(SWITCH_INTERVAL_SECONDS if args.switch_ms is None else args.switch_ms / 1000)
        if args.busy:
            threading.Thread(target=_busy, daemon=True).start()
        if args.gc == "off":
            gc.collect()
            gc.freeze()
            gc.disable()
        runs = []
        for edge in ((False, True) if args.edge else (False,)):
            (directory / str(edge)).mkdir()
            runs.append((edge, run(directory / str(edge), args.cards, edge)))
    floor = line + commit99
    for edge, samples in runs:
        worker = ", the exact-edge worker on" if edge else (", no exact-edge worker" if args.edge else "")
        print(f"card latency over {len(samples)} cards (gc {args.gc}, switch interval "
              f"{sys.getswitchinterval() * 1000:g} ms{', a busy thread' if args.busy else ''}{worker}), milliseconds:")
        print(f"  {'stage':<28} {'p50':>7} {'p99':>7}")
        for a, b in zip(STAGES, STAGES[1:]):
            d = [(s[b] - s[a]) * 1000 for s in samples]
            print(f"  {a + ' -> ' + b:<28} {statistics.median(d):7.2f} {p99(d):7.2f}")
        total = [(s["shown"] - s["written"]) * 1000 for s in samples]
        print(f"  {'written -> shown (all)':<28} {statistics.median(total):7.2f} {p99(total):7.2f}")
    print(f"floor: {line * 1000:.2f} ms on the line + {commit99 * 1000:.2f} ms (p99 of one commit; p50 "
          f"{commit50 * 1000:.2f}) = {floor * 1000:.2f} ms; p99 / floor = {p99(total) / 1000 / floor:.2f}")


if __name__ == "__main__":
    main()
