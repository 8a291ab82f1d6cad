"""The club games (003) in tests: a shoe link the test drives itself, and scripted rounds.

`ScriptedShoe` stands where the service's shoe link stands: it delivers the messages the
test gives it (`load`, `deal`) through the service's own ordered path, records the gate
and the acks, and never touches the journal. Its cards are chosen, so a test knows every
closed card and can say what each display and each reader must (and must not) show.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any, AsyncIterator, Callable

import httpx

import firmware_bridge as fb

from tests.support.client import call
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY

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


# ---------------------------------------------------------------------------- a club round through the API
def _wait(predicate: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """Poll until ``predicate()`` is truthy (its value is returned), or fail naming what never came."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"{what}: not reached in {timeout} s")
        time.sleep(0.01)


class ClubCroupier:
    """Plays club rounds at a real service (`tests.support.harness.Table`) through its API and its shoe,
    as the contract's "How a virtual dealer plays a club-21 round" says: the shoe's cards, the
    dealer key's decisions, chosen with the supervisor's view (the cards are closed to others)."""

    def __init__(self, table: Any) -> None:
        self.t = table

    def view(self, key: str = SUPERVISOR_KEY) -> dict[str, Any]:
        """The table as ``key`` sees it."""
        r = call(self.t.api, "GET", "/api/table", key)
        assert r.status_code == 200, r.text
        return r.json()

    def act(self, body: dict[str, Any], key: str = DEALER_KEY) -> dict[str, Any]:
        """An action that must be accepted."""
        r = call(self.t.api, "POST", "/api/actions", key, json=body)
        assert r.status_code == 200, (body, r.status_code, r.text)
        return r.json()

    def deal(self) -> dict[str, Any]:
        """One card from the shoe, once its gate is open; returns once the table has journalled it."""
        _wait(lambda: not self.view()["locked"], "the shoe's gate open")
        seq = self.view()["last_seq"]
        answer = self.t.shoe.request("deal")
        assert answer["ok"], answer
        _wait(lambda: self.view()["last_seq"] > seq, "the card journalled")
        return answer

    def ready(self) -> dict[str, Any]:
        """Between rounds with a bottom card in place (shuffling again on an ace at the bottom)."""
        for _ in range(20):
            v = self.view()
            if v["phase"] == "waiting_for_shuffle":
                seq = v["last_seq"]
                assert self.t.shoe.request("shuffle")["ok"]
                _wait(lambda: self.view()["last_seq"] > seq, "the shuffle journalled")
            elif v["next_card"] == "bottom":
                self.deal()
            else:
                return v
        raise AssertionError("no bottom card after 20 shuffles")

    def deal_round(self, bets: dict[int, int]) -> dict[str, Any]:
        """Bets, then the deal; returns the view once the boxes play (or the deal settled the round)."""
        self.ready()
        for box, amount in bets.items():
            self.act({"type": "bet", "box": box, "amount": amount})
        dealt = False
        while True:
            v = self.view()
            if dealt and v["round"] is None:
                return v  # settled in the deal (a natural)
            if v["phase"] not in ("betting", "dealing", "contra") or v["next_card"] is None:
                return v
            self.deal()
            dealt = True

    def finish_round(self, draw_below: int = 17) -> dict[str, Any]:
        """Play the round to its settlement: each box draws below ``draw_below``, then the banker does."""
        while True:
            v = self.view()
            if v["round"] is None:
                return v
            phase = v["phase"]
            if phase == "players":
                box = next(b for b in v["boxes"] if b["box"] == v["turn"]["box"])
                hand = box["hands"][v["turn"]["hand"]]
                if len(hand["cards"]) < 2 or _best(hand["totals"]) < draw_below:
                    self.deal()
                else:
                    self.act({"type": "stand"})
            elif phase == "dealer":
                if "hit" in v["legal_actions"] and _best(v["dealer"]["totals"]) < draw_below:
                    self.deal()
                else:
                    self.act({"type": "banker_stand"})
            elif phase == "pack_out":
                box = next(b for b in v["boxes"] if b["choice"] is None and any(h["outcome"] is None for h in b["hands"]))
                self.act({"type": "double", "box": box["box"]})
            elif phase == "contra":
                self.deal()  # no contra: the next card closes the window
            else:
                raise AssertionError(f"the round stopped in {phase}: {v['alerts']}")


def _best(totals: list[int]) -> int:
    """The total a hand plays at (99 over 21), from a view's totals."""
    under = [t for t in totals if t <= 21]
    return max(under) if under else (99 if totals else 0)


def sse_until(api: str, key: str, after: int, last: int, timeout: float = 20) -> list[dict[str, Any]]:
    """The live stream's entries after ``after`` up to ``last`` (the journal sequence), as ``key`` gets them."""
    headers = {"Authorization": f"Bearer {key}", "Last-Event-ID": str(after)}
    got: list[dict[str, Any]] = []
    if last <= after:
        return got
    with httpx.stream("GET", api + "/api/events", headers=headers, timeout=timeout) as resp:
        assert resp.status_code == 200
        current: dict[str, Any] = {}
        for line in resp.iter_lines():
            if line.startswith("id: "):
                current["id"] = int(line[4:])
            elif line.startswith("data: ") and "id" in current:
                current["data"] = json.loads(line[6:])
                got.append(current)
                if current["id"] >= last:
                    break
                current = {}
    return got


CARD_STRING = re.compile(r'"((?:10|[2-9TJQKA])[SHDC])"')


def card_strings(text: str) -> set[str]:
    """Every card code written as a whole quoted string in ``text`` (JSON, JSON Lines, Prometheus labels)."""
    return set(CARD_STRING.findall(text))
