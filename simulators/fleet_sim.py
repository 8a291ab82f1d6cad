"""N virtual tables in one process against a broker: each a real TableService, journal and publisher.

Every table is what runs under a real table: the same ordered path, journal,
engine and fleet publisher; only its shoe is virtual and in memory
(`MemoryShoe`, the link's interface, no serial link, no pty) and its dealer
plays basic strategy in-process (`InProcessDealer`, the virtual dealer's
decisions, acting through `TableService.submit`). A table restarted on its
directory carries on with the same shoe where its journal left it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

import firmware_bridge as fb
from controller.engine import IllegalAction
from controller.events import BadEvent, parse_event
from controller.view import table_view
from simulators.shoe.deck import shuffled_shoe
from simulators.strategy import strategy_for
from simulators.virtual_dealer import VirtualDealer

log = logging.getLogger(__name__)

PACES = {"live": 1.0, "fast": 0.0}  # mean seconds between a dealer's steps (a card, a bet, a decision)
_STOP = object()


class MemoryShoe:
    """A virtual shoe cabled to the service in memory: `ShoeLink`'s interface, no serial link.

    It releases a card only when the previous one was acknowledged and its gate
    is open, as the real shoe's firmware does with a window of one.
    """

    def __init__(self, name: str, seed: int, decks: int) -> None:
        self.name, self.seed, self.decks = name, seed, decks
        self.shoe_number = 0
        self.shoe_id = ""
        self.cards: list[str] = []
        self.position = 0
        self.cut_at = 0
        self.cut_card_out = False
        self.locked = False
        self.unacked: fb.Card | None = None
        self._queue: asyncio.Queue[Any] | None = None

    def resume(self, shoe_id: str | None, position: int, cut_card_out: bool) -> None:
        """Carry on with the shoe a restarted table's journal had in play."""
        if not shoe_id or not shoe_id.startswith(self.name + "."):
            return
        try:
            n = int(shoe_id.rsplit(".", 1)[1])
        except ValueError:
            return
        self.shoe_number, self.shoe_id = n, shoe_id
        self.cards = shuffled_shoe(self.seed, n, self.decks)
        self.position = position
        self.cut_at = round(len(self.cards) * 0.75)
        self.cut_card_out = cut_card_out

    # --- the link's interface (what TableService uses) ---------------------------------
    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """The cable is plugged in: the link comes up."""
        self._queue = asyncio.Queue()
        self._queue.put_nowait(fb.LinkUp(fb.HelloInfo("memory", 1, "fleet-sim", self.name, 1, True, True)))

    def stop(self) -> None:
        """The link is stopped: no more messages."""
        if self._queue is not None:
            self._queue.put_nowait(_STOP)

    async def messages(self) -> AsyncIterator[fb.ShoeMessage]:
        """Every message until stopped."""
        assert self._queue is not None
        while True:
            msg = await self._queue.get()
            if msg is _STOP:
                return
            yield msg

    def ack(self, shoe_id: str, position: int) -> None:
        """The service stored the card."""
        if self.unacked is not None and (self.unacked.shoe_id, self.unacked.position) == (shoe_id, position):
            self.unacked = None

    def lock(self) -> None:
        """Hold the gate shut."""
        self.locked = True

    def unlock(self) -> None:
        """Release the gate."""
        self.locked = False

    # --- the dealer's side ----------------------------------------------------------------
    def load(self) -> None:
        """A freshly shuffled shoe."""
        self.shoe_number += 1
        self.shoe_id = f"{self.name}.{self.shoe_number}"
        self.cards = shuffled_shoe(self.seed, self.shoe_number, self.decks)
        self.position = 0
        self.cut_at = round(len(self.cards) * 0.75)
        self.cut_card_out = False
        self._put(fb.ShoeLoaded(self.shoe_id, len(self.cards)))

    def deal(self) -> bool:
        """Release the next card; False if the gate is shut, a card is in flight, or the shoe is empty."""
        if self.locked or self.unacked is not None or not self.cards or self.position >= len(self.cards):
            return False
        self.position += 1
        card = fb.Card(self.shoe_id, self.position, self.cards[self.position - 1])
        self.unacked = card
        self._put(card)
        if self.position + 1 == self.cut_at and not self.cut_card_out:
            self.cut_card_out = True
            self._put(fb.CutCard(self.shoe_id, self.cut_at))
        return True

    def _put(self, msg: Any) -> None:
        if self._queue is not None:
            self._queue.put_nowait(msg)


class InProcessDealer(VirtualDealer):
    """The virtual dealer's decisions (basic strategy, seeded bets), acting in-process, never blocking."""

    def __init__(self, service: Any, shoe: MemoryShoe, seed: int, max_boxes: int = 4) -> None:
        super().__init__("http://in-process", "", "", seed=seed, max_boxes=max_boxes)
        self.service, self.shoe = service, shoe
        self._rules = service.table.rules
        self._strategy = strategy_for(self._rules)

    def table(self) -> dict[str, Any]:
        """The table as a viewer sees it."""
        view = table_view(self.service.table, reveal_hole=False)
        view["last_seq"] = self.service.authority.journal.last_seq
        return view

    def act(self, event: dict[str, Any]) -> bool:
        """Submit one action through the service's ordered path."""
        self.stats.actions += 1
        try:
            self.service.submit(parse_event(event), "dealer:fleet-sim")
        except (IllegalAction, BadEvent) as exc:
            self.stats.refused += 1
            log.debug("refused %s: %s", event, exc)
            return False
        return True

    def _deal(self, t: dict[str, Any]) -> None:
        if self.shoe.deal():
            self.stats.cards += 1

    def step(self, t: dict[str, Any]) -> None:
        """Take the one action the table waits for now (no waiting: the caller paces)."""
        phase = t["phase"]
        if phase == "attention":  # the sim's supervisor: the held card out, the alerts acknowledged
            if t["held_cards"]:
                self.act({"type": "discard_card"})
            for a in t["alerts"]:
                if not a["acknowledged"]:
                    self.act({"type": "ack_alert", "alert_id": a["id"]})
            return
        if phase == "waiting_for_shuffle":
            shoe = t["shoe"] or {}
            if self.shoe.shoe_id == shoe.get("id") or not self.shoe.shoe_id:
                self.shoe.load()
            return
        if phase == "insurance":
            self.act({"type": "close_insurance"})
            return
        if phase in ("betting", "settled") and t["round"] is None:
            missing = self._missing_bets(t)
            if missing:
                box, amount = missing[0]
                self.act({"type": "bet", "box": box, "amount": str(amount)})
                return
        if t["legal_actions"] and t["turn"] and phase in ("players", "surrender"):
            self._decide(t)
            return
        if t["next_card"]:
            self._deal(t)


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


def table_id(index: int) -> str:
    """The id of the index-th virtual table."""
    return f"table-{index:03d}"


def ensure_key(path: Path) -> None:
    """Create a table key (32 random bytes, hex) readable by its owner alone, if there is none."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32) + "\n")


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
        self.settings = settings_from_dict({
            "table": {"name": f"Table {cfg.index}", "profile": cfg.profile},
            "shoe": {"port": "memory"},
            "journal": {"path": str(tdir / "journal.sqlite"), "key_file": str(key), "snapshot_every_rounds": 25},
            "api": {"port": cfg.api_port or 8080, "open_reads_on_loopback": True},
            "clock": {"tick_seconds": 30},
            "fleet": {"enabled": cfg.fleet, "table_id": self.id, "topic_prefix": cfg.prefix, "dashboard_url": url,
                      "broker": {"url": cfg.broker}},
        })
        self.rounds_done = 0
        self.service: Any = None
        self.publisher: Any = None

    async def run(self, rounds: int, pace: float, stop: asyncio.Event, drain_timeout: float = 30.0) -> dict[str, Any]:
        """Play until the table has `rounds` rounds (or `stop`), then publish the rest and stop."""
        from tablectl.fleet import publisher as fleet
        from tablectl.service import TableService

        decks = self._decks()
        shoe = MemoryShoe(self.id, self.cfg.seed * 1000 + self.cfg.index, decks)
        service = self.service = TableService(self.settings, link=shoe)
        last = service.stored
        t = service.table
        shoe.resume(t.shoe.shoe_id if t.shoe else None, last.position if last and t.shoe and
                    last.shoe_id == t.shoe.shoe_id else 0, bool(t.shoe and t.shoe.cut_card_out))
        dealer = InProcessDealer(service, shoe, seed=self.cfg.seed * 1000 + self.cfg.index)
        started = fleet.start(service)
        self.publisher = started[0] if started else None
        service_stop = asyncio.Event()
        runner = asyncio.create_task(service.run(service_stop), name=f"{self.id}-service")
        api = await self._start_api(service)
        rng = random.Random(f"pace:{self.id}")
        began = time.monotonic()
        start_rounds = t.rounds_played
        try:
            await asyncio.sleep(0)  # the link comes up
            while not stop.is_set():
                table = service.table
                if table.rounds_played >= rounds and table.round is None:
                    break
                if runner.done():
                    raise RuntimeError(f"{self.id}: the service stopped: {runner.exception()!r}")
                dealer.step(dealer.table())
                await asyncio.sleep(pace * rng.uniform(0.5, 1.5) if pace else 0)
            if started is not None and not stop.is_set():  # everything committed reaches the broker
                publisher = started[0]
                end = time.monotonic() + drain_timeout
                while time.monotonic() < end and not stop.is_set() and (
                        publisher.acked < service.authority.journal.last_seq or publisher.published_masked):
                    await asyncio.sleep(0.05)
        finally:
            await fleet.stop(started)
            service_stop.set()
            await asyncio.gather(runner, return_exceptions=True)
            if api is not None:
                api.should_exit = True
                await asyncio.sleep(0)
        self.rounds_done = service.table.rounds_played
        return {"table": self.id, "rounds": self.rounds_done, "played_now": self.rounds_done - start_rounds,
                "last_seq": service.authority.journal.last_seq, "cards": dealer.stats.cards,
                "seconds": round(time.monotonic() - began, 1)}

    def _decks(self) -> int:
        return self.settings.table.rules().decks

    async def _start_api(self, service: Any) -> Any:
        if not self.cfg.api_port:
            return None
        import uvicorn

        from tablectl.api import create_app

        config = uvicorn.Config(create_app(service), host="127.0.0.1", port=self.cfg.api_port, log_level="warning",
                                lifespan="off", access_log=False)
        server = uvicorn.Server(config)
        server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        asyncio.create_task(server.serve(), name=f"{self.id}-api")
        return server


async def run_fleet(tables: int, broker: str, *, first: int = 1, pace: str = "live", rounds: int = 20, directory: Path,
                    prefix: str = "tablectl", seed: int = 1, profile: str = "ru-standard",
                    api_port: int | None = None, stop: asyncio.Event | None = None,
                    drain_seconds: float = 30.0, step_seconds: float | None = None) -> list[dict[str, Any]]:
    """Play `tables` virtual tables to `rounds` rounds each against `broker`; one summary per table."""
    stop = stop or asyncio.Event()
    sims = [SimTable(SimTableConfig(i, directory, broker, prefix, seed, profile,
                                    api_port + i - first if api_port else None)) for i in range(first, first + tables)]
    step = PACES[pace] if step_seconds is None else step_seconds
    return list(await asyncio.gather(*(s.run(rounds, step, stop, drain_seconds) for s in sims)))
