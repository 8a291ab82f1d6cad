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
from collections.abc import AsyncIterator, Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

import firmware_bridge as fb

from tests.support.client import call, sse_read
from tests.support.deadlines import wait_until
from tests.support.harness import DEALER_KEY, FLOOR_KEY, SUPERVISOR_KEY, tablectl_in_process

from controller.replay import replay_lines

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

    def status(self, *, cut_card_out: bool = False) -> None:
        """The shoe's heartbeat, as it stands."""
        self._queue.put_nowait(fb.Status(self.shoe_id, self.position, None, bool(self.locked), cut_card_out,
                                         False, False, 0))

    def deal(self, code: str) -> int:
        """The next card leaves the shoe; returns its position."""
        self.position += 1
        self._queue.put_nowait(fb.Card(self.shoe_id, self.position, code))
        return self.position


# ---------------------------------------------------------------------------- a club round through the API
# A croupier's play is written once, as a generator of the moves it makes at the table (each answered by
# the table); `ClubCroupier` carries the moves out at a real service, `tests.support.inprocess.AsyncClubCroupier`
# at one in this process, awaited. The decisions live here alone.
T = TypeVar("T")


@dataclass(frozen=True)
class View:
    """Read the table as ``key`` sees it; answered with the view."""

    key: str = SUPERVISOR_KEY


@dataclass(frozen=True)
class Act:
    """An action with ``key`` that must be accepted; answered with the API's result."""

    body: dict[str, Any]
    key: str = DEALER_KEY


@dataclass(frozen=True)
class Deal:
    """One card from the shoe, once its gate is open; answered (with the shoe's answer) once journalled."""


@dataclass(frozen=True)
class Shuffle:
    """A fresh pack in the shoe; answered once the journal has moved past ``after`` (its last sequence)."""

    after: int


Move = View | Act | Deal | Shuffle
Play = Generator[Move, Any, T]


def ready_play() -> Play[dict[str, Any]]:
    """Between rounds with a bottom card in place (shuffling again on an ace at the bottom)."""
    for _ in range(20):
        v = yield View()
        if v["phase"] == "waiting_for_shuffle":
            yield Shuffle(v["last_seq"])
        elif v["next_card"] == "bottom":
            yield Deal()
        else:
            return v
    raise AssertionError("no bottom card after 20 shuffles")


def open_bank_play(amount: int = 500) -> Play[None]:
    """club-21-36: the supervisor puts up a bank, unless one is open."""
    bank = (yield View()).get("bank")
    if bank is not None and not bank["open"]:
        yield Act({"type": "open_bank", "amount": amount}, SUPERVISOR_KEY)


def deal_round_play(bets: dict[int, int]) -> Play[dict[str, Any]]:
    """Bets, then the deal; returns the view once the boxes play (or the deal settled the round)."""
    yield from ready_play()
    yield from open_bank_play()
    for box, amount in bets.items():
        yield Act({"type": "bet", "box": box, "amount": amount})
    dealt = False
    while True:
        v = yield View()
        if dealt and v["round"] is None:
            return v  # settled in the deal (a natural)
        if v["phase"] not in ("betting", "dealing", "contra") or v["next_card"] is None:
            return v
        yield Deal()
        dealt = True


def deal_until_players_play(bets: dict[int, int], tries: int = 10) -> Play[tuple[int, dict[str, Any]]]:
    """Deal rounds of ``bets`` until one leaves its boxes to play on closed cards (a round the deal
    settled, a natural, is finished and dealt again), at most ``tries`` times. Returns the journal's
    last sequence before that round, and the view once its boxes play (or the last one tried)."""
    for _ in range(tries):
        start = (yield from ready_play())["last_seq"]
        v = yield from deal_round_play(bets)
        if v["phase"] == "players":
            break
        yield from finish_round_play()
    return start, v


def finish_round_play(draw_below: int = 17) -> Play[dict[str, Any]]:
    """Play the round to its settlement: each box draws below ``draw_below``, then the banker does."""
    while True:
        v = yield View()
        if v["round"] is None:
            return v
        phase = v["phase"]
        if phase == "players":
            box = next(b for b in v["boxes"] if b["box"] == v["turn"]["box"])
            hand = box["hands"][v["turn"]["hand"]]
            if (len(hand["cards"]) < 2 or _best(hand["totals"]) < draw_below) and "hit" in v["legal_actions"]:
                yield Deal()
            else:
                yield Act({"type": "stand"})
        elif phase == "dealer":
            if "hit" in v["legal_actions"] and _best(v["dealer"]["totals"]) < draw_below:
                yield Deal()
            else:
                yield Act({"type": "banker_stand"})
        elif phase == "pack_out":
            box = next(b for b in v["boxes"] if b["choice"] is None and any(h["outcome"] is None for h in b["hands"]))
            yield Act({"type": "double", "box": box["box"]})
        elif phase == "contra":
            yield Deal()  # no contra: the next card closes the window
        elif phase == "dealing":
            yield Deal()  # club-21-36: the banker's new card for the next duel
        else:
            raise AssertionError(f"the round stopped in {phase}: {v['alerts']}")


def _wait(predicate: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """Poll until ``predicate()`` is truthy (its value is returned), or fail naming what never came."""
    return wait_until(predicate, timeout, what, interval=0.01)


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

    def shuffle(self, after: int) -> None:
        """A fresh pack in the shoe; returns once the table has journalled it."""
        assert self.t.shoe.request("shuffle")["ok"]
        _wait(lambda: self.view()["last_seq"] > after, "the shuffle journalled")

    def ready(self) -> dict[str, Any]:
        """`ready_play`."""
        return self._play(ready_play())

    def open_bank(self, amount: int = 500) -> None:
        """`open_bank_play`."""
        self._play(open_bank_play(amount))

    def deal_round(self, bets: dict[int, int]) -> dict[str, Any]:
        """`deal_round_play`."""
        return self._play(deal_round_play(bets))

    def deal_until_players(self, bets: dict[int, int], tries: int = 10) -> tuple[int, dict[str, Any]]:
        """`deal_until_players_play`."""
        return self._play(deal_until_players_play(bets, tries))

    def finish_round(self, draw_below: int = 17) -> dict[str, Any]:
        """`finish_round_play`."""
        return self._play(finish_round_play(draw_below))

    def _play(self, play: Play[T]) -> T:
        answer: Any = None
        while True:
            try:
                move = play.send(answer)
            except StopIteration as end:
                return end.value
            if isinstance(move, View):
                answer = self.view(move.key)
            elif isinstance(move, Act):
                answer = self.act(move.body, move.key)
            elif isinstance(move, Deal):
                answer = self.deal()
            else:
                self.shuffle(move.after)
                answer = None


def _best(totals: list[int]) -> int:
    """The total a hand plays at (99 over 21), from a view's totals."""
    under = [t for t in totals if t <= 21]
    return max(under) if under else (99 if totals else 0)


def assert_journal_replays(t: Any, rounds: list[dict[str, Any]]) -> None:
    """The table's journal, exported by ``tablectl journal export``, replays to ``rounds`` (the API's
    ``/api/rounds``, newest first; their ``settled_at`` and ``dealer_title`` are the API's own and are dropped)."""
    export = tablectl_in_process("journal", "export", "--db", str(t.journal))
    assert export.returncode == 0, export.stderr
    replayed = replay_lines(export.stdout.splitlines())
    assert replayed.error is None
    for r in rounds:
        r.pop("settled_at")
        assert r.pop("dealer_title") == "Banker"
    assert replayed.rounds == list(reversed(rounds))


def sse_until(api: str, key: str, after: int, last: int, timeout: float = 20) -> list[dict[str, Any]]:
    """The live stream's entries after ``after`` up to ``last`` (the journal sequence), as ``key`` gets them."""
    if last <= after:
        return []
    return sse_read(api, key, after, lambda got: got[-1]["id"] >= last, timeout)


CARD_STRING = re.compile(r'"((?:10|[2-9TJQKA])[SHDC])"')


def card_strings(text: str) -> set[str]:
    """Every card code written as a whole quoted string in ``text`` (JSON, JSON Lines, Prometheus labels)."""
    return set(CARD_STRING.findall(text))


def holds(text: str, card: str) -> bool:
    """True where ``text`` names ``card`` (its code as a word of its own, quoted or not: a log line too)."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(card)}(?![A-Za-z0-9])", text) is not None


# ---------------------------------------------------------------------------- what a viewer must never receive
def closed_cards(sup: dict[str, Any], viewer: dict[str, Any]) -> set[str]:
    """The cards the supervisor's view shows where the viewer's shows XX."""
    secret: set[str] = set()
    pairs = [(sh, vh) for sb, vb in zip(sup["boxes"], viewer["boxes"]) for sh, vh in zip(sb["hands"], vb["hands"])]
    pairs.append((sup["dealer"], viewer["dealer"]))
    for sh, vh in pairs:
        secret |= {s for s, v in zip(sh["cards"], vh["cards"]) if v == "XX"}
    return secret


def get_routes(api: str) -> list[str]:
    """Every GET address the service answers, from its own OpenAPI document, plus those it leaves out of it."""
    doc = call(api, "GET", "/openapi.json").json()
    shoe = call(api, "GET", "/api/table", SUPERVISOR_KEY).json()["shoe"]["id"]
    routes = ["/", "/metrics", "/dashboard/app.js"]
    for path, ops in doc["paths"].items():
        if "get" not in ops or path == "/api/events":
            continue  # the stream is read on its own (it never ends)
        if path == "/api/export":
            routes += [f"/api/export?shoe={shoe}", "/api/export?round=1"]
        else:
            routes.append(path.replace("{number}", "1"))
    return routes


def assert_no_closed_card_leaks(t: Any, start: int, keys: tuple[str, ...]) -> set[str]:
    """Scan every GET route and the live stream (from ``start``) as each of ``keys``: no closed card of the
    round in play may be in any of them, nor a closed hand's total. Returns the closed cards (a test checks
    they are many: an empty scan proves nothing)."""
    sup = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()
    viewer = call(t.api, "GET", "/api/table", keys[0]).json()
    secret = closed_cards(sup, viewer)
    assert secret and secret <= card_strings(json.dumps(sup))  # the pit sees them
    # What a viewer may know of the cards: the bottom card, the cards face up, every round settled before.
    public = {sup["bottom_card"]} | card_strings(json.dumps(viewer["boxes"])) | card_strings(json.dumps(viewer["dealer"]))
    for page in call(t.api, "GET", "/api/rounds", SUPERVISOR_KEY, params={"size": 200}).json()["rounds"]:
        public |= card_strings(json.dumps(page))
    hidden = secret - public
    assert hidden, "every closed card is also public: choose another seed"
    last = sup["last_seq"]
    for key in keys:
        table = call(t.api, "GET", "/api/table", key).json()
        for box in table["boxes"]:
            for hand in box["hands"]:
                if hand["closed"]:
                    assert hand["totals"] == [] and not hand["blackjack"] and not hand["bust"], hand
                    assert hand["card_count"] == len(hand["cards"])
        if table["dealer"]["closed"]:
            assert table["dealer"]["totals"] == []
        # A closed card is still "in the shoe" for a viewer: the counts say nothing of it.
        by_rank: dict[str, int] = {}
        for sb, vb in zip(sup["boxes"], table["boxes"]):
            for sh, vh in zip(sb["hands"], vb["hands"]):
                for s, v in zip(sh["cards"], vh["cards"]):
                    if v == "XX":
                        by_rank[s[0]] = by_rank.get(s[0], 0) + 1
        for s, v in zip(sup["dealer"]["cards"], table["dealer"]["cards"]):
            if v == "XX":
                by_rank[s[0]] = by_rank.get(s[0], 0) + 1
        for rank, n in table["shoe"]["remaining_by_rank"].items():
            assert n == sup["shoe"]["remaining_by_rank"][rank] + by_rank.get(rank, 0), (key, rank)
        for route in get_routes(t.api):
            r = call(t.api, "GET", route, key)
            # The floor's route (scanned as the floor's key below), the supervisor's dealer figures, players'
            # evidence, exact edge, rating slips and dispute records refuse these keys; every other answers.
            supervisors = ("/api/ledger", "/api/dealers", "/api/edge", "/api/players", "/api/ratings",
                           "/api/shift/report", "/api/shift/alerts")
            want = (403,) if route in supervisors or route.endswith("/dispute") else (200, 404)
            assert r.status_code in want, (route, r.status_code, r.text[:300])
            leaked = card_strings(r.text) & hidden
            assert not leaked, (key, route, leaked)
        stream = sse_until(t.api, key, start, last)
        assert stream and stream[-1]["id"] == last
        leaked = card_strings(json.dumps(stream)) & hidden
        assert not leaked, (key, "/api/events", leaked)
    # The floor's key reads the whole ledger as published: every closed card's row masked.
    ledger = call(t.api, "GET", "/api/ledger?limit=500", FLOOR_KEY)
    assert ledger.status_code == 200 and ledger.text.count("\n") == last
    assert not card_strings(ledger.text) & hidden, ("/api/ledger", card_strings(ledger.text) & hidden)
    # The supervisor's stream has every card as it is.
    assert secret <= card_strings(json.dumps(sse_until(t.api, SUPERVISOR_KEY, start, last)))
    return secret
