"""A table in memory for simulations: a shoe with the link's interface, and a dealer acting in-process.

`MemoryShoe` stands where the serial link stands (no pty, no port): the service
reads its messages and acknowledges its cards exactly as it does a real shoe's.
`InProcessDealer` makes the virtual dealer's decisions (the game's own dealer, the
registry's ``dealer`` part, the same as the virtual dealer's) and hands them to the
service's ordered path. `tablectl fleet-sim` plays
a floor of such tables (`tablectl/fleet_sim.py`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, AsyncIterator, Protocol

import firmware_bridge as fb
from controller.engine import IllegalAction
from controller.events import BadEvent
from controller.event_codec import parse_event
from controller.view import table_view
from simulators.dealer_moves import RANDOM_CHOICE
from simulators.parts import dealer_moves
from simulators.shoe.deck import shuffled_shoe
from simulators.virtual_dealer import DealerStats

log = logging.getLogger(__name__)

_STOP = object()


class MemoryShoe:
    """A virtual shoe cabled to the service in memory: `ShoeLink`'s interface, no serial link.

    It releases a card only when the previous one was acknowledged and its gate
    is open, as the real shoe's firmware does with a window of one.
    """

    def __init__(self, name: str, seed: int, decks: int, pack: int = 52) -> None:
        self.name, self.seed, self.decks, self.pack = name, seed, decks, pack
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
        self.cards = shuffled_shoe(self.seed, n, self.decks, self.pack)
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
        self.cards = shuffled_shoe(self.seed, self.shoe_number, self.decks, self.pack)
        self.position = 0
        self.cut_at = round(len(self.cards) * 0.75)
        self.cut_card_out = False
        self._put(fb.ShoeLoaded(self.shoe_id, len(self.cards), self.pack))

    @property
    def empty(self) -> bool:
        """Every card of the loaded shoe has been released."""
        return bool(self.cards) and self.position >= len(self.cards)

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


class DealersShoe(Protocol):
    """What the in-process dealer does with a shoe: a `MemoryShoe`, or a test's wired virtual shoe."""

    @property
    def shoe_id(self) -> str: ...  # the shoe loaded now
    @property
    def empty(self) -> bool: ...  # every card of the loaded shoe released
    def load(self) -> None: ...  # a freshly shuffled shoe
    def deal(self) -> bool: ...  # the next card, if the gate lets it out


class InProcessDealer:
    """The virtual dealer's decisions (the game's dealer: `simulators.parts.DealerMoves`), acting in-process,
    never blocking."""

    def __init__(self, service: Any, shoe: DealersShoe, seed: int, max_boxes: int = 4) -> None:
        self.service, self.shoe = service, shoe
        self.seed, self.max_boxes = seed, max_boxes
        self.stats = DealerStats()
        self.pending: list[Any] = []  # actions step() chose, for flush() to hand to the service
        rules = service.table.rules
        self._play = dealer_moves(rules.game).play(rules, seed, RANDOM_CHOICE, max_boxes)

    def table(self) -> dict[str, Any]:
        """The table as a viewer sees it."""
        view = table_view(self.service.table, reveal_closed=False)
        view["last_seq"] = self.service.head()[0]
        return view

    def act(self, event: dict[str, Any]) -> bool:
        """Queue one action for the service's ordered path (`flush` hands them over and awaits each)."""
        self.stats.actions += 1
        try:
            self.pending.append(parse_event(event))
        except BadEvent as exc:
            self.stats.refused += 1
            log.debug("not an action %s: %s", event, exc)
            return False
        return True

    async def flush(self) -> None:
        """Hand the queued actions to the service's writer, one after another, each awaited."""
        while self.pending:
            event = self.pending.pop(0)
            try:
                await self.service.act(event, "dealer:fleet-sim")
            except IllegalAction as exc:
                self.stats.refused += 1
                log.debug("refused %s: %s", event.type, exc)

    def _deal(self, t: dict[str, Any]) -> None:
        if self.shoe.empty:
            # The pack ran out mid-round (one deck goes in a few rounds): as the table's alert says,
            # a new shoe goes in and the round goes on with its cards.
            self.shoe.load()
            return
        if self.shoe.deal():
            self.stats.cards += 1

    def step(self, t: dict[str, Any]) -> None:
        """Take the one action the table waits for now (no waiting: the caller paces)."""
        if t["phase"] == "attention":  # the sim's supervisor: the held card out, the alerts acknowledged
            if t["held_cards"]:
                self.act({"type": "discard_card"})
            for a in t["alerts"]:
                if not a["acknowledged"]:
                    self.act({"type": "ack_alert", "alert_id": a["id"]})
            return
        move = self._play.move(t)
        if move.kind == "shuffle":
            shoe = t["shoe"] or {}
            if self.shoe.shoe_id == shoe.get("id") or not self.shoe.shoe_id:
                self.shoe.load()
        elif move.kind == "deal":
            self._deal(t)
        elif move.kind == "act":
            assert move.event is not None
            self.act(move.event)
