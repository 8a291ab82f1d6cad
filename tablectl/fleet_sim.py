"""N virtual tables in one process against a broker: each a real TableService, journal and publisher.

Every table is what runs under a real table: the same ordered path, journal,
engine and fleet publisher; only its shoe is virtual and in memory
(`simulators.memory_table.MemoryShoe`, the link's interface, no serial link,
no pty) and its dealer plays basic strategy in-process
(`simulators.memory_table.InProcessDealer`, acting through the service's
writer). A table restarted on its directory carries on with the same shoe
where its journal left it. This is composition (services, publishers, APIs),
so it lives in the composition root.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from controller.journal import JournalKey
from simulators.memory_table import InProcessDealer, MemoryShoe

log = logging.getLogger(__name__)

PACES = {"live": 1.0, "fast": 0.0}  # mean seconds between a dealer's steps (a card, a bet, a decision)


@dataclass
class SimTableConfig:
    """Where one virtual table keeps its files and how it reaches the broker."""

    index: int
    directory: Path
    broker: str
    prefix: str
    seed: int
    profile: str
    api_port: int | None
    fleet: bool = True  # False: the same table without [fleet] (a baseline)
    floor_key_sha256: str = ""  # the floor's key (hashed) that the table's API answers GET /api/ledger for
    dashboard_url: str | None = None  # what the table publishes as its dashboard (None: its API's address)
    pit: str = ""  # the pit the table says it is in ([fleet] pit; empty: none)
    broker_identity: dict[str, str] = field(default_factory=dict)  # [fleet.broker] ca_file, cert_file, key_file...


def table_id(index: int) -> str:
    """The id of the index-th virtual table."""
    return f"table-{index:03d}"


def ensure_key(path: Path) -> None:
    """Create a table key (the journal's key file) readable by its owner alone, if there is none."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    JournalKey.generate(path)


class SimTable:
    """One virtual table: service, memory shoe, in-process dealer, publisher (and optionally its API)."""

    def __init__(self, cfg: SimTableConfig) -> None:
        from tablectl.config import settings_from_dict

        self.cfg = cfg
        self.id = table_id(cfg.index)
        tdir = cfg.directory / self.id
        tdir.mkdir(parents=True, exist_ok=True)
        key = cfg.directory / "keys" / f"{self.id}.key"
        ensure_key(key)
        url = f"http://127.0.0.1:{cfg.api_port}/" if cfg.api_port else ""
        if cfg.dashboard_url is not None:
            url = cfg.dashboard_url
        keys = [{"name": "floor", "role": "floor", "sha256": cfg.floor_key_sha256}] if cfg.floor_key_sha256 else []
        self.settings = settings_from_dict({
            "table": {"name": f"Table {cfg.index}", "profile": cfg.profile},
            "shoe": {"port": "memory"},
            "journal": {"path": str(tdir / "journal.sqlite"), "key_file": str(key), "snapshot_every_rounds": 25},
            "api": {"port": cfg.api_port or 8080, "open_reads_on_loopback": True, "keys": keys},
            "clock": {"tick_seconds": 30},
            "fleet": {"enabled": cfg.fleet, "table_id": self.id, "topic_prefix": cfg.prefix, "dashboard_url": url,
                      "pit": cfg.pit, "broker": {"url": cfg.broker, **cfg.broker_identity}},
        })
        self.rounds_done = 0
        self.service: Any = None
        self.publisher: Any = None

    async def run(self, rounds: int, pace: float, stop: asyncio.Event, drain_timeout: float = 30.0) -> dict[str, Any]:
        """Play until the table has `rounds` rounds (0: until `stop`), then publish the rest and stop."""
        await self.start()
        try:
            await self.play(rounds, pace, stop)
            if not stop.is_set():  # everything committed reaches the broker
                await self.drain(drain_timeout, stop)
        finally:
            await self.close()
        return self.summary()

    async def start(self) -> None:
        """Start the table on its directory: its service, its publisher, and its API (listening on return)."""
        from tablectl.fleet import publisher as fleet
        from tablectl.service import TableService

        decks = self._decks()
        shoe = MemoryShoe(self.id, self.cfg.seed * 1000 + self.cfg.index, decks, pack=self.settings.table.rules().pack)
        service = self.service = TableService(self.settings, link=shoe)
        last = service.stored
        t = service.table
        shoe.resume(t.shoe.shoe_id if t.shoe else None, last.position if last and t.shoe and
                    last.shoe_id == t.shoe.shoe_id else 0, bool(t.shoe and t.shoe.cut_card_out))
        self._dealer = InProcessDealer(service, shoe, seed=self.cfg.seed * 1000 + self.cfg.index)
        self._started = fleet.start(service)
        self.publisher = self._started[0] if self._started else None
        self._service_stop = asyncio.Event()
        self._runner = asyncio.create_task(service.run(self._service_stop), name=f"{self.id}-service")
        self._api = await self._start_api(service)
        self._rng = random.Random(f"pace:{self.id}")
        self._began = time.monotonic()
        self._start_rounds = t.rounds_played
        await asyncio.sleep(0)  # the link comes up

    async def play(self, rounds: int, pace: float, stop: asyncio.Event | None = None,
                   until: Callable[[], bool] | None = None) -> None:
        """Deal until the table has `rounds` rounds (earlier runs counted; 0: no such end) and none in play,
        or `until()` holds, or `stop` is set; a step every `pace` seconds on average."""
        service, dealer = self.service, self._dealer
        while not (stop is not None and stop.is_set()):
            table = service.table
            if (rounds and table.rounds_played >= rounds and table.round is None) or (until is not None and until()):
                break
            if self._runner.done():
                raise RuntimeError(f"{self.id}: the service stopped: {self._runner.exception()!r}")
            dealer.step(dealer.table())
            await dealer.flush()
            await asyncio.sleep(pace * self._rng.uniform(0.5, 1.5) if pace else 0)

    async def drain(self, timeout: float, stop: asyncio.Event | None = None) -> None:
        """Wait (up to `timeout` seconds) until the broker has every committed row in its final form."""
        publisher = self.publisher
        if publisher is None:
            return
        end = time.monotonic() + timeout
        while time.monotonic() < end and not (stop is not None and stop.is_set()) and (
                publisher.acked < self.service.head()[0] or publisher.published_masked):
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        """Stop the publisher (it says offline and records its outbox mark), the service and the API."""
        from tablectl.fleet import publisher as fleet

        try:
            await fleet.stop(self._started)
        finally:
            self._service_stop.set()
            await asyncio.gather(self._runner, return_exceptions=True)
            if self._api is not None:
                self._api.should_exit = True
                await asyncio.sleep(0)
            self.rounds_done = self.service.table.rounds_played

    def summary(self) -> dict[str, Any]:
        """What the last run did."""
        return {"table": self.id, "rounds": self.rounds_done, "played_now": self.rounds_done - self._start_rounds,
                "last_seq": self.service.head()[0], "cards": self._dealer.stats.cards,
                "seconds": round(time.monotonic() - self._began, 1)}

    def _decks(self) -> int:
        return self.settings.table.rules().decks

    async def _start_api(self, service: Any) -> Any:
        if not self.cfg.api_port:
            return None
        import uvicorn

        from tablectl.api import create_app
        from tablectl.metrics import wire_metrics

        app = create_app(service, metrics=wire_metrics(service))  # as `tablectl run` wires them
        config = uvicorn.Config(app, host="127.0.0.1", port=self.cfg.api_port, log_level="warning",
                                lifespan="off", access_log=False)
        server = uvicorn.Server(config)
        # uvicorn before 0.29 called this hook; later ones have no such method (they use capture_signals).
        server.install_signal_handlers = lambda: None  # type: ignore[attr-defined]  # uvicorn < 0.29 only
        task = asyncio.create_task(server.serve(), name=f"{self.id}-api")
        end = time.monotonic() + 10
        while not server.started and not task.done() and time.monotonic() < end:
            await asyncio.sleep(0.01)  # listening before the table plays: a floor may ask it for rows at once
        if not server.started:
            log.warning("%s: the API did not start on port %d; the table plays without it", self.id,
                        self.cfg.api_port)
        return server


async def run_fleet(tables: int, broker: str, *, first: int = 1, pace: str = "live", rounds: int = 20, directory: Path,
                    prefix: str = "tablectl", seed: int = 1, profile: str = "ru-standard",
                    api_port: int | None = None, stop: asyncio.Event | None = None,
                    drain_seconds: float = 30.0, step_seconds: float | None = None,
                    floor_key_sha256: str = "", pit: str = "") -> list[dict[str, Any]]:
    """Play `tables` virtual tables to `rounds` rounds each (0: until `stop`) against `broker`; one summary per
    table. Every table runs in this process (no child process): when `stop` is set, each says offline, records
    its outbox mark and closes its journal and API before this returns."""
    stop = stop or asyncio.Event()
    sims = [SimTable(SimTableConfig(i, directory, broker, prefix, seed, profile,
                                    api_port + i - first if api_port else None, floor_key_sha256=floor_key_sha256,
                                    pit=pit))
            for i in range(first, first + tables)]
    step = PACES[pace] if step_seconds is None else step_seconds
    return list(await asyncio.gather(*(s.run(rounds, step, stop, drain_seconds) for s in sims)))
