"""A whole table in this process and one event loop, for the tests of the API's routes (issue 20).

`InProcessTable` is `tests.support.harness.Table` without its two child processes: the service
(`TableService`) on a journal in the test's directory, its shoe link a `WiredShoe` (the virtual
shoe's own firmware and the host's own link session, joined in memory where a pty joins them),
and the API (`create_app`) reached through httpx's `ASGITransport`, as FastAPI's "Async Tests"
guide does. Its `api` is an `httpx.AsyncClient` and its `shoe` answers `request` as the shoe's
control channel does, so with `call` and `deal` below (tests.support.client's, awaited) a test
reads like its real-process original.

What needs the processes stays on `Table`: the live stream (`ASGITransport` answers once the body
is complete, and `/api/events` never completes), uvicorn's own edge, TLS, signals, the service's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from fastapi import FastAPI

from firmware_bridge import LinkStats, LinkTiming, ShoeMessage, StoredPosition
from firmware_bridge.framed import FramedSession
from firmware_bridge.framing import FrameDecoder, encode_frame
from firmware_bridge.port import UNPLUGGED
from simulators.memory_table import InProcessDealer
from simulators.shoe.control import handle_line
from simulators.shoe.core import DealRefused, Released, ShoeConfig, ShoeCore
from tablectl.api import create_app
from tablectl.config import settings_from_dict
from tablectl.metrics import wire_metrics
from tablectl.service import TableService
from tests.support.client import TIMEOUT, authorized
from tests.support.deadlines import scaled
from tests.support.club import (
    Act,
    Deal,
    Play,
    View,
    deal_round_play,
    deal_until_players_play,
    finish_round_play,
    open_bank_play,
    ready_play,
)
from tests.support.harness import (
    DEALER_KEY,
    JOURNAL_FILE,
    SNAPSHOT_EVERY_ROUNDS,
    SUPERVISOR_KEY,
    TABLE_NAME,
    VIEWER_KEY,
    api_keys,
    until,
)

T = TypeVar("T")

# The Host the client names: a loopback name, which a table with open reads answers (and any other table too).
BASE_URL = "http://127.0.0.1"

# How often the wire is served without being asked: the shoe's STATUS heartbeat (1 s) and the host's ACK
# keepalive (1 s) come due between the moves of a test, and the host declares the link dead after 3 s.
_WIRE_TICK = 0.05


class WiredShoe:
    """The virtual shoe on an in-memory wire: the simulator's firmware (`ShoeCore`) and the service's side
    of the framed protocol (`FramedSession`), each byte passed from one to the other in the event loop.

    To the service it is a shoe link (its port, `tablectl.service.ShoeLinkPort`: `start`, `stop`, `messages`,
    `ack`, `lock`, `unlock`; and `stats`, `stored` as `firmware_bridge.ShoeLink` has them); to a test it is the virtual shoe's control channel
    (`request`, as `SimProcess.request`), whose commands the simulator's own handlers carry out. It deals
    what `tablectl shoe-sim --seed N --decks D --pack P` deals, shoe after shoe, so a seed chosen for a
    scenario on the real shoe (a hole card left down) holds here too.
    """

    def __init__(self, *, seed: int = 7, decks: int = 6, pack: int = 52) -> None:
        now = time.monotonic()
        config = ShoeConfig(seed=seed, decks=decks, pack=pack)
        self.core = ShoeCore(config, random.Random(f"unreadable:{seed}"), now)  # shoe-sim's fault seed: its seed
        self.core.load()  # as shoe-sim does when it starts: a shoe is loaded before any host connects
        self.session = FramedSession(None, LinkTiming(), "in memory")
        self._firmware_reader = FrameDecoder()  # the shoe's side reads frames as its firmware does
        self.plugged = True
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox: asyncio.Queue[ShoeMessage | None] | None = None
        self._ticker: asyncio.Task[None] | None = None

    # ---- the service's side: a shoe link
    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """The cable is plugged in: the host opens the link (RESUME, HELLO) in ``loop`` (default: the running one)."""
        self._loop = loop or asyncio.get_running_loop()
        self._inbox = asyncio.Queue()
        self._deliver(self.session.connected(time.monotonic()))
        self._pump()
        self._ticker = self._loop.create_task(self._tick(), name="wired-shoe")

    def stop(self, timeout: float = 2.0) -> None:
        """The link stops: no more messages (``timeout`` is ShoeLink's; nothing here takes time)."""
        if self._ticker is not None:
            self._ticker.cancel()
        if self._inbox is not None:
            self._inbox.put_nowait(None)

    async def messages(self) -> AsyncIterator[ShoeMessage]:
        """Every message from the shoe, in order, until the link is stopped."""
        assert self._inbox is not None, "start() the link first"
        while (message := await self._inbox.get()) is not None:
            yield message

    def ack(self, shoe_id: str, position: int) -> None:
        """The service stored card ``position`` of ``shoe_id``: the shoe may forget it."""
        self.session.ack(shoe_id, position)
        self._pump()

    def lock(self) -> None:
        """Shut the shoe's gate (LOCK on the wire)."""
        self.session.set_locked(True, time.monotonic())
        self._pump()

    def unlock(self) -> None:
        """Open the shoe's gate (UNLOCK on the wire)."""
        self.session.set_locked(False, time.monotonic())
        self._pump()

    @property
    def stats(self) -> LinkStats:
        """The host session's counters, as the service's metrics read a real link's."""
        return self.session.stats

    @property
    def stored(self) -> StoredPosition | None:
        """The last card the service acknowledged, in order."""
        return self.session.stored

    # ---- the test's side: the shoe's control channel
    def request(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """One control request (`deal`, `shuffle`, `status`, `stack`, `fault` ...), answered as the socket
        answers it; what the shoe sends because of it is on the wire when this returns."""
        reply = handle_line(json.dumps({"cmd": cmd, **fields}).encode(), self)
        self._pump()
        return reply

    # ---- what the control channel's handlers need (simulators.shoe.control.ControlTarget)
    @property
    def connected(self) -> bool:
        """True while a host is synced on the current cable."""
        return self.plugged and self.core.synced

    @property
    def device(self) -> str | None:
        """No device: the wire is in memory."""
        return None

    def deal(self) -> Released | DealRefused:
        """Release the next card (or say why not)."""
        return self.core.deal()

    def unplug(self, seconds: float) -> None:
        """Pull the cable for ``seconds``: the host reports the link down, then opens it again."""
        assert self._loop is not None, "start() the link first"
        self.plugged = False
        self.core.link_reset()
        self._deliver(self.session.port_lost(UNPLUGGED, time.monotonic(), "the in-memory wire is cut"))
        self._loop.call_later(seconds, self._replug)

    def request_stop(self) -> None:
        """Nothing to stop: the shoe lives as long as its table."""

    # ---- the wire
    def _replug(self) -> None:
        self.plugged = True
        self._firmware_reader.reset()
        self._deliver(self.session.connected(time.monotonic()))
        self._pump()

    def _pump(self) -> None:
        """Pass bytes both ways until neither side has more to say (ShoeLink's port thread does one turn of
        this per read; here every turn is taken at once)."""
        if not self.plugged or self._inbox is None:
            return
        now = time.monotonic()
        while True:
            to_shoe = self.session.take_output()
            for body in self._firmware_reader.feed(to_shoe):
                self.core.on_body(body, now)
            to_host = b"".join(encode_frame(body) for body in self.core.poll(now))
            # Received before the host's timers run: a loop held up by a test is not a silent shoe.
            self._deliver(self.session.receive(to_host, now) if to_host else [])
            self._deliver(self.session.tick(now))
            if not to_shoe and not to_host:
                return

    def _deliver(self, messages: list[ShoeMessage]) -> None:
        assert self._inbox is not None
        for message in messages:
            self._inbox.put_nowait(message)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(_WIRE_TICK)
            self._pump()


class InProcessTable:
    """A table in this process: the service on a journal in ``directory``, a `WiredShoe` seeded with ``seed``,
    and its API at ``api`` (an `httpx.AsyncClient` on the app). ``api_options`` are `[api]` settings
    beside the test keys (harness's `DEALER_KEY`, `SUPERVISOR_KEY`, `VIEWER_KEY`).

        async with InProcessTable(tmp_path, seed=3) as t:
            r = await call(t.api, "GET", "/api/table", VIEWER_KEY)

    Entered, the service runs in the current event loop until the block ends, and the table is ready:
    the link up, the shoe's first pack journalled.
    """

    def __init__(self, directory: Path, *, seed: int = 7, profile: str = "ru-standard", decks: int = 6,
                 pack: int = 52, api_options: dict[str, Any] | None = None) -> None:
        self.directory = directory
        self.shoe = WiredShoe(seed=seed, decks=decks, pack=pack)
        self.settings = settings_from_dict({
            "table": {"name": TABLE_NAME, "profile": profile},
            "shoe": {"port": "in memory"},  # never opened: the service is given its link
            "journal": {"path": str(directory / JOURNAL_FILE), "snapshot_every_rounds": SNAPSHOT_EVERY_ROUNDS},
            "api": {**(api_options or {}), "keys": api_keys()},
        }, "the in-process table")
        self.service = TableService(self.settings, link=self.shoe)
        # Before the service runs, its metrics wired, as `tablectl run` builds it.
        self.app: FastAPI = create_app(self.service, metrics=wire_metrics(self.service))
        self.api = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url=BASE_URL)
        self._running: contextlib.AbstractAsyncContextManager[InProcessTable] | None = None

    @property
    def journal(self) -> Path:
        """The journal's file."""
        return self.directory / JOURNAL_FILE

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[InProcessTable]:
        """Run the service in the current event loop until the block ends; the table is ready inside it."""
        stop = asyncio.Event()
        runner = asyncio.create_task(self.service.run(stop), name="in-process table")
        try:
            await until(lambda: runner.done() or (self.service.health.link_up and self.service.table.shoe is not None))
            if runner.done():
                runner.result()  # the service's own failure, not a wait that timed out
                raise AssertionError("the service stopped as it started")
            yield self
        finally:
            stop.set()
            await runner

    async def __aenter__(self) -> Self:
        self._running = self.running()
        await self._running.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.api.aclose()
        assert self._running is not None
        await self._running.__aexit__(exc_type, exc, tb)

    def served_app(self) -> FastAPI:
        """The table's app, running the table (in the app's own event loop) for as long as the app is served:
        its ASGI lifespan, for a client that serves an app itself, as schemathesis's ASGI transport does."""

        @contextlib.asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[None]:
            async with self.running():
                yield

        self.app.router.lifespan_context = lifespan
        return self.app

    async def settled(self, timeout: float = 20.0) -> None:
        """Wait until the shoe holds no event unstored: every card it released is journalled (the service
        acknowledges a card only once its row is committed)."""
        end = time.monotonic() + scaled(timeout)
        while self.shoe.core.unacked:
            if time.monotonic() > end:
                raise AssertionError(f"the shoe still holds {self.shoe.core.unacked} events after {scaled(timeout)} s")
            # What is waited for (the link's messages, the writer's commit, the ack) all runs in this loop:
            # a turn of the loop lets it on, where a timer would idle (`until` sleeps 10 ms a poll).
            await asyncio.sleep(0)


# ---------------------------------------------------------------------------- tests.support.client, awaited
async def call(api: httpx.AsyncClient, method: str, path: str, key: str | None = None, **kw: Any) -> httpx.Response:
    """One request to the in-process API as the holder of ``key`` (None: no key); `client.call`, awaited."""
    headers = authorized(key, kw.pop("headers", None))
    async with asyncio.timeout(TIMEOUT):
        return await api.request(method, path, headers=headers, **kw)


async def deal(api: httpx.AsyncClient, shoe: WiredShoe, key: str, cards: int) -> list[str]:
    """Have the shoe deal `cards` cards, each once the gate is open and the last one is journalled; returns
    the codes dealt, in order (`client.deal`, awaited)."""
    dealt = []
    for _ in range(cards):
        await eventually(lambda: _unlocked(api, key), "the gate to open")
        seq = (await call(api, "GET", "/api/table", key)).json()["last_seq"]
        end = time.monotonic() + scaled(20)
        # The view opens the gate at once; the shoe's own gate opens when its UNLOCK arrives.
        while (answer := shoe.request("deal")).get("error") == "locked" and time.monotonic() < end:
            await asyncio.sleep(0.02)
        assert answer["ok"], answer
        dealt.append(answer["card"])
        await eventually(lambda: _moved_on(api, key, seq), f"the card {answer['card']} journalled")
    return dealt


async def _unlocked(api: httpx.AsyncClient, key: str) -> bool:
    return not (await call(api, "GET", "/api/table", key)).json()["locked"]


async def _moved_on(api: httpx.AsyncClient, key: str, seq: int) -> bool:
    return bool((await call(api, "GET", "/api/table", key)).json()["last_seq"] != seq)


@contextlib.asynccontextmanager
async def hole_card_down(directory: Path) -> AsyncIterator[tuple[InProcessTable, str, int]]:
    """A us-holecard table whose first round stands with the hole card face down.

    Yields (table, the hole card, the last seq before the round). The shoe's seed 4 leaves the
    round in play after the fourth card, so every reader's view of a face-down card can be tested.
    """
    async with InProcessTable(directory, seed=4, profile="us-holecard", decks=1) as t:
        start = (await call(t.api, "GET", "/api/table", VIEWER_KEY)).json()["last_seq"]
        bet = {"type": "bet", "box": 1, "amount": 10}
        assert (await call(t.api, "POST", "/api/actions", DEALER_KEY, json=bet)).status_code == 200
        hole = (await deal(t.api, t.shoe, VIEWER_KEY, 4))[-1]  # box, dealer up, box, the hole card
        table = (await call(t.api, "GET", "/api/table", SUPERVISOR_KEY)).json()
        assert table["phase"] in ("players", "insurance"), f"seed 4 should leave the hole card down: {table['phase']}"
        yield t, hole, start


async def eventually(check: Callable[[], Awaitable[T]], what: str, timeout: float = 20.0) -> T:
    """Await ``check()`` until it is truthy (its value is returned), or fail naming what never came."""
    end = time.monotonic() + scaled(timeout)
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{what}: not reached in {scaled(timeout)} s")
        await asyncio.sleep(0.01)


# ---------------------------------------------------------------------------- players
class AsyncClubCroupier:
    """`tests.support.club.ClubCroupier` at an in-process table: the same plays, their moves awaited."""

    def __init__(self, table: InProcessTable) -> None:
        self.t = table

    async def view(self, key: str = SUPERVISOR_KEY) -> dict[str, Any]:
        """The table as ``key`` sees it."""
        r = await call(self.t.api, "GET", "/api/table", key)
        assert r.status_code == 200, r.text
        return r.json()

    async def act(self, body: dict[str, Any], key: str = DEALER_KEY) -> dict[str, Any]:
        """An action that must be accepted."""
        r = await call(self.t.api, "POST", "/api/actions", key, json=body)
        assert r.status_code == 200, (body, r.status_code, r.text)
        return r.json()

    async def deal(self) -> dict[str, Any]:
        """One card from the shoe, once its gate is open; returns once the table has journalled it."""
        await eventually(lambda: self._view_says(lambda v: not v["locked"]), "the shoe's gate open")
        seq = (await self.view())["last_seq"]
        answer = self.t.shoe.request("deal")
        assert answer["ok"], answer
        await eventually(lambda: self._view_says(lambda v: v["last_seq"] > seq), "the card journalled")
        return answer

    async def shuffle(self, after: int) -> None:
        """A fresh pack in the shoe; returns once the table has journalled it."""
        assert self.t.shoe.request("shuffle")["ok"]
        await eventually(lambda: self._view_says(lambda v: v["last_seq"] > after), "the shuffle journalled")

    async def ready(self) -> dict[str, Any]:
        """`club.ready_play`."""
        return await self._play(ready_play())

    async def open_bank(self, amount: int = 500) -> None:
        """`club.open_bank_play`."""
        await self._play(open_bank_play(amount))

    async def deal_round(self, bets: dict[int, int]) -> dict[str, Any]:
        """`club.deal_round_play`."""
        return await self._play(deal_round_play(bets))

    async def deal_until_players(self, bets: dict[int, int], tries: int = 10) -> tuple[int, dict[str, Any]]:
        """`club.deal_until_players_play`."""
        return await self._play(deal_until_players_play(bets, tries))

    async def finish_round(self, draw_below: int = 17) -> dict[str, Any]:
        """`club.finish_round_play`."""
        return await self._play(finish_round_play(draw_below))

    async def _view_says(self, test: Callable[[dict[str, Any]], bool]) -> bool:
        return test(await self.view())

    async def _play(self, play: Play[T]) -> T:
        answer: Any = None
        while True:
            try:
                move = play.send(answer)
            except StopIteration as end:
                return end.value
            if isinstance(move, View):
                answer = await self.view(move.key)
            elif isinstance(move, Act):
                answer = await self.act(move.body, move.key)
            elif isinstance(move, Deal):
                answer = await self.deal()
            else:
                await self.shuffle(move.after)
                answer = None


class _DealersHands:
    """The shoe as `InProcessDealer` handles a `MemoryShoe`, through the shoe's control channel."""

    def __init__(self, shoe: WiredShoe) -> None:
        self._shoe = shoe

    @property
    def shoe_id(self) -> str:
        """The shoe loaded now."""
        return self._shoe.core.shoe_id

    @property
    def empty(self) -> bool:
        """Every card of the loaded shoe released."""
        return self._shoe.core.cards_left <= 0

    def load(self) -> None:
        """A fresh shoe."""
        assert self._shoe.request("shuffle")["ok"]

    def deal(self) -> bool:
        """The next card, if the gate lets it out."""
        return bool(self._shoe.request("deal")["ok"])


async def play_rounds(t: InProcessTable, rounds: int, *, seed: int, max_boxes: int = 3,
                      timeout: float = 120.0) -> dict[str, Any]:
    """Play until ``rounds`` rounds are settled: the virtual dealer's decisions (basic strategy, seeded bets;
    `simulators.memory_table.InProcessDealer`) handed to the service, the cards from the shoe. Returns the
    table as a viewer sees it then."""
    dealer = InProcessDealer(t.service, _DealersHands(t.shoe), seed=seed, max_boxes=max_boxes)
    end = time.monotonic() + scaled(timeout)
    while True:
        view = dealer.table()
        if view["rounds_played"] >= rounds and view["round"] is None:
            return view
        if time.monotonic() > end:
            raise AssertionError(f"{rounds} rounds not played in {scaled(timeout)} s: {view['phase']}, {view['alerts']}")
        dealer.step(view)
        await dealer.flush()
        await t.settled()  # the card is on the table before the next decision, as the real dealer waits for it
        await asyncio.sleep(0)
