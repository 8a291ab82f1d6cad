"""The virtual dealer: plays a table through its API and the shoe's control channel, as a person would.

This module is the dealer's I/O: it reads the table over HTTP, sends the actions, and works
the virtual shoe (a card when the table waits for one, a shuffle when it says so). What to do
next is decided from the view alone, with no I/O, by the game's own dealer, the registry's
``dealer`` part (`simulators.parts.DealerMoves`): blackjack's plays seeded bets, basic strategy
and now and then a random legal choice; a club game's croupier banks and plays every box by
the blind players' rule, and the dealer loads the shoe with the game's packs. Every random
choice is drawn from the seed and the table's own state (round, box, hand, cards), so after the
service restarts the dealer makes the same decisions again: an interrupted session settles the
same rounds as an uninterrupted one.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable

from controller.rules import build_rules

from .dealer_moves import RANDOM_CHOICE, Move, seeded
from .parts import DealerMoves, TablePlay, dealer_moves
from .shoe.client import ShoeControl

log = logging.getLogger(__name__)

PACES = {"fast": 0.0, "live": 1.2}


class TableUnavailable(Exception):
    """The API or the shoe does not answer (yet): a refused or dropped connection, a cut-off
    answer, or a 5xx while the service restarts. The dealer waits and tries again."""


class DealerStopped(Exception):
    """The dealer was told to stop (its ``stop`` event was set)."""


@dataclass
class DealerStats:
    """What the virtual dealer did."""

    actions: int = 0
    cards: int = 0
    refused: int = 0
    waits: int = 0


class VirtualDealer:
    """Drives one table until it has played `rounds` rounds."""

    def __init__(self, api: str, key: str, shoe_control: str, *, seed: int = 1, pace: float = 0.0,
                 random_choice: float = RANDOM_CHOICE, max_boxes: int | None = None,
                 on_step: Callable[[dict[str, Any]], None] | None = None,
                 stop: threading.Event | None = None, supervisor_key: str | None = None) -> None:
        self.api = api.rstrip("/")
        self.key = key
        self.shoe_control = shoe_control
        self.seed = seed
        self.pace = pace
        self.random_choice = random_choice
        self.max_boxes = max_boxes
        self.on_step = on_step
        self.stats = DealerStats()
        self.stop = stop or threading.Event()
        self._rules: Any = None  # the table's rules object, once read from /api/rules
        self._part: DealerMoves | None = None  # the game's dealer
        self._play: TablePlay | None = None  # its play at this table
        # A game's bank is opened and closed by the pit: with no supervisor key the dealer waits for it.
        self.supervisor_key = supervisor_key

    def _sleep(self, seconds: float) -> None:
        """Wait, but wake at once (and stop) when told to stop."""
        if self.stop.wait(seconds):
            raise DealerStopped()

    # ------------------------------------------------------------------ I/O
    def _http(self, method: str, path: str, body: dict[str, Any] | None = None,
              key: str | None = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.api + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {key or self.key}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            if exc.code >= 500:  # the service is stopping or restarting: not an answer to act on
                raise TableUnavailable(f"{method} {path} answered {exc.code}") from None
            try:
                return exc.code, json.loads(exc.read() or b"null")
            except (ValueError, http.client.HTTPException, OSError) as inner:
                raise TableUnavailable(f"{method} {path}: a cut-off answer ({inner})") from None
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError, OSError,
                ValueError) as exc:  # refused, dropped, IncompleteRead, a cut-off JSON body
            raise TableUnavailable(f"{method} {path}: {type(exc).__name__}: {exc}") from None

    def _shoe(self, cmd: str, **fields: Any) -> dict[str, Any]:
        try:
            with ShoeControl(self.shoe_control) as ctl:
                return ctl.request(cmd, **fields)
        except (OSError, ValueError) as exc:
            raise TableUnavailable(f"shoe control: {exc}") from None

    def table(self) -> dict[str, Any]:
        """The table as the API shows it to this key."""
        status, body = self._http("GET", "/api/table")
        if status != 200:
            raise TableUnavailable(f"GET /api/table answered {status}: {body}")
        return body

    def act(self, event: dict[str, Any]) -> bool:
        """Send one action; False (and logged) if the table refused it."""
        return self._post_action(event, None)

    def _post_action(self, event: dict[str, Any], key: str | None) -> bool:
        """POST one action with ``key`` (None: the dealer's own); counted, and logged when refused."""
        status, body = self._http("POST", "/api/actions", event, key=key)
        self.stats.actions += 1
        if status != 200:
            self.stats.refused += 1
            log.info("refused %s: %s", event, body)
            return False
        return True

    # ------------------------------------------------------------------ carrying out the decisions
    def _load_rules(self) -> None:
        status, body = self._http("GET", "/api/rules")
        if status != 200:
            raise TableUnavailable(f"GET /api/rules answered {status}")
        self._rules = build_rules(body["profile"], body["options"])
        self._part = dealer_moves(self._rules.game)
        self._play = self._part.play(self._rules, self.seed, self.random_choice, self.max_boxes)

    def step(self, t: dict[str, Any]) -> None:
        """Take the one action the table waits for now: the game's dealer says which (after the shoe's packs,
        between rounds, where the game loads its own)."""
        if self._play is None:
            self._load_rules()
        assert self._part is not None and self._play is not None
        if self._part.loads_packs and t["round"] is None and t["phase"] in ("betting", "settled") \
                and self._shoe_wrong(t):
            self._shuffle(t)
            return
        self._carry_out(t, self._play.move(t))

    def supervise(self, event: dict[str, Any]) -> bool:
        """Send one of the pit's actions (a game's bank) with the supervisor key; False if refused."""
        if self.supervisor_key is None:
            self.stats.waits += 1
            log.info("waiting for the pit: %s needs a supervisor key", event["type"])
            self._sleep(0.2)
            return False
        return self._post_action(event, self.supervisor_key)

    def _carry_out(self, t: dict[str, Any], move: Move) -> None:
        if move.kind == "deal":
            self._deal(t)
        elif move.kind == "act":
            assert move.event is not None
            self.act(move.event)
        elif move.kind == "supervise":
            assert move.event is not None
            self.supervise(move.event)
        elif move.kind == "shuffle":
            self._shuffle(t)
        else:
            self.stats.waits += 1
            self._sleep(0.01 if t["phase"] != "attention" else 0.05)  # attention: the supervisor's to resolve

    def _shoe_wrong(self, t: dict[str, Any]) -> bool:
        """Between rounds, before a card of it is dealt: does the shoe hold other packs than the game's?"""
        shoe = t["shoe"] or {}
        if shoe.get("dealt", 0) > 0:
            return False
        status = self._shoe("status")
        rules = self._rules
        return (status.get("pack", 52), status.get("decks")) != (rules.pack, rules.decks)

    def _shuffle(self, t: dict[str, Any]) -> None:
        """Have the shoe shuffled for the table waiting for it, unless the new shoe is on its way: where the game
        loads its own packs (36 or 52, ``decks`` of them), those, less the cards still on the table."""
        assert self._part is not None and self._play is not None
        table_shoe = (t["shoe"] or {}).get("id")
        status = self._shoe("status")
        if not self._part.loads_packs:
            if status.get("shoe_id") == table_shoe or status.get("position", 0) > 0:
                self._shoe("shuffle")  # else the new shoe is loaded and on its way to the table
            self._wait_for(lambda x: x["phase"] != "waiting_for_shuffle")
            return
        rules = self._rules
        right = (status.get("pack", 52), status.get("decks")) == (rules.pack, rules.decks)
        if status.get("shoe_id") == table_shoe or status.get("position", 0) > 0 or not right:
            fields: dict[str, Any] = {"pack": rules.pack, "decks": rules.decks}
            keep = self._play.keep(t)
            if keep:  # a pack spent in the round: the new pack is what is not on the table
                fields["keep"] = [list(k) for k in keep]
            self._shoe("shuffle", **fields)
        shuffled_from = table_shoe
        self._wait_for(lambda x: x["phase"] != "waiting_for_shuffle" and (x["shoe"] or {}).get("id") != shuffled_from)

    def _deal(self, t: dict[str, Any]) -> None:
        status = self._shoe("status")
        shoe = t["shoe"] or {}
        in_flight = status.get("unacked", 0) and not (
            status.get("shoe_id") == shoe.get("id") and status.get("position", 0) <= shoe.get("dealt", 0))
        if in_flight or not status.get("connected", True):
            self.stats.waits += 1
            self._sleep(0.005)  # a released card has not reached the table yet (e.g. it was restarting)
            return
        answer = self._shoe("deal")
        if answer.get("error") == "empty":
            # The pack ran out mid-round: a new shoe goes in and the round goes on with its cards.
            self._shoe("shuffle")
            return
        if not answer.get("ok"):
            self.stats.waits += 1
            self._sleep(0.02)  # locked, or the lid is open
            return
        assert self._play is not None
        self._play.dealt(t, str(answer.get("shoe_id")), int(answer.get("position", 0)))
        self.stats.cards += 1
        seq = t.get("last_seq", 0)
        self._wait_for(lambda x: x.get("last_seq", 0) > seq)

    def _wait_for(self, done: Callable[[dict[str, Any]], bool], timeout: float = 5.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if done(self.table()):
                    return
            except TableUnavailable:
                pass
            self._sleep(0.005)

    def run(self, rounds: int, timeout: float | None = None) -> dict[str, Any]:
        """Play until `rounds` rounds have been played and settled; returns the last table view.

        A table that does not answer (a restart, a dropped connection, a 5xx) is retried with
        back-off from 50 ms to 2 s; DealerStopped ends the run early when ``stop`` is set.
        """
        end = time.monotonic() + timeout if timeout else None
        backoff = 0.05
        while True:
            if self.stop.is_set():
                raise DealerStopped()
            if end is not None and time.monotonic() > end:
                raise TimeoutError(f"{rounds} rounds not played in {timeout} s")
            try:
                t = self.table()
                if t["rounds_played"] >= rounds and t["round"] is None:
                    return t
                if self.on_step is not None:
                    self.on_step(t)
                self.step(t)
            except TableUnavailable as exc:
                log.debug("table unavailable (retry in %.2f s): %s", backoff, exc)
                self._sleep(backoff)
                backoff = min(backoff * 2, 2.0)
                continue
            backoff = 0.05
            if self.pace:
                self._sleep(self.pace * seeded(self.seed, "pace", time.monotonic()).uniform(0.5, 1.5))
