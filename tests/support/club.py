"""The club games (003) in tests: a shoe link the test drives itself, and scripted rounds.

`ScriptedShoe` stands where the service's shoe link stands: it delivers the messages the
test gives it (`load`, `deal`) through the service's own ordered path, records the gate
and the acks, and never touches the journal. Its cards are chosen, so a test knows every
closed card and can say what each display and each reader must (and must not) show.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

import firmware_bridge as fb

# club-21, two boxes: the bottom card, then box 1, box 2, banker, box 1, box 2, banker.
# Box 1: T 9 = 19 (stands); box 2: 8 7 = 15, draws 2 = 17 (stands); the banker: 6 Q = 16, draws 2 = 18.
# Box 1 wins its 10, box 2 loses its 20: the players' net is -10.
CLUB21_BOTTOM = "5C"
CLUB21_DEAL = ["TH", "8D", "6H", "9S", "7C", "QS"]
CLUB21_BOX2_DRAW = "2D"
CLUB21_BANKER_DRAW = "2C"


class ScriptedShoe:
    """A shoe link whose messages the test sends: SHOE_LOADED and cards, each acknowledged once stored."""

    def __init__(self) -> None:
        self.locked: bool | None = None
        self.acked: list[tuple[str, int]] = []
        self.shoe_id = "CLUB-1"
        self.position = 0
        self._queue: asyncio.Queue[Any] = asyncio.Queue()  # (Python 3.10+: bound to a loop on first use)
        self._queue.put_nowait(fb.LinkUp(hello=None))  # type: ignore[arg-type]

    # ---- the link's interface, as the service uses it
    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Nothing to open: the test is the shoe."""

    def stop(self) -> None:
        """Nothing to close."""

    def lock(self) -> None:
        self.locked = True

    def unlock(self) -> None:
        self.locked = False

    def ack(self, shoe_id: str, position: int) -> None:
        self.acked.append((shoe_id, position))

    async def messages(self) -> AsyncIterator[Any]:
        while True:
            yield await self._queue.get()

    # ---- the test's side
    def load(self, card_count: int, shoe_id: str | None = None) -> None:
        """A freshly shuffled pack of ``card_count`` cards is in the shoe."""
        self.shoe_id = shoe_id or self.shoe_id
        self.position = 0
        self._queue.put_nowait(fb.ShoeLoaded(self.shoe_id, card_count))

    def deal(self, code: str) -> int:
        """The next card leaves the shoe; returns its position."""
        self.position += 1
        self._queue.put_nowait(fb.Card(self.shoe_id, self.position, code))
        return self.position
