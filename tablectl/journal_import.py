"""`tablectl journal import`: a session file, or a recorded shoe sequence with its rounds, as a keyed journal.

Surveillance receives shoes from elsewhere: another table system's export, a recorder, a test bench. The offline
tools (`protect report|players|dealers`, `dispute`, `replay`) read journals, so the import writes one, through the
same authority as the service (each event decided by the engine, written, applied; a snapshot every 50 rounds),
under a new key, with its provenance as its second row (`imported`: the file's name, what the person said of it,
its SHA-256, when): every tool that reads the journal says it is imported, and the service refuses to run on it.

Two inputs (docs/session-format.md, "Importing"):

* a **session file** (what `journal export` writes and `replay` reads): each event submitted in order, received at
  its own ``at`` (the time of the event before it where it has none);
* a **recorded shoe sequence** (``{"recorded": "shoes", "version": 1, ...}`` then one line per shoe: its cards in
  the order the shoe read them and its rounds, each box's bet and hands): the importer deals the cards in the
  shoe's order as the table asks for them and takes each decision from the hands recorded (a hand with more cards
  hits, one split into two splits, a hand marked doubled doubles, the rest stand), then checks every hand the
  table dealt against the record.

Nothing is written over anything: the journal is made beside its final name and renamed into place only once every
row is in; on any error the partial file is removed and the line that stopped it is named (exit 2).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import Card, parse_card
from controller.effects import Effect, RoundSettled
from controller.engine import IllegalAction, Table
from controller.event_codec import parse_event, parse_event_line
from controller.journal import JournalKey, journal_exists, key_beside, sidecars
from controller.legality import Action
from controller.phase import Phase
from controller.rules import build_rules

MAX_BYTES = 64 * 1024 * 1024  # an input bigger than this is refused before it is read (a shift is a few MB)
MAX_LINE = 1024 * 1024  # one line (a shoe with its rounds is some tens of kB)


class ImportError_(ValueError):
    """The input cannot be imported: ``line`` (from 1) and what is wrong, in one sentence."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line


@dataclass(frozen=True)
class Imported:
    """What an import made."""

    db: Path
    rows: int
    rounds: int
    shoes: int
    head_mac: str
    format: str
    sha256: str


def read_lines(path: Path) -> tuple[list[str], str]:
    """The file's lines and its SHA-256, bounded (``MAX_BYTES``, ``MAX_LINE``)."""
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise ImportError_(None, f"{path} is {size:,} bytes: more than the {MAX_BYTES:,} an import reads")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportError_(None, f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            raise ImportError_(number, f"{len(line):,} characters: more than the {MAX_LINE:,} a line may have")
    return lines, hashlib.sha256(data).hexdigest()


def kind_of(lines: list[str]) -> str:
    """``recorded-shoes`` when the first line is a recorded-shoes header, else ``session``."""
    first = next((line for line in lines if line.strip()), "")
    try:
        head = json.loads(first)
    except ValueError:
        return "session"
    return "recorded-shoes" if isinstance(head, dict) and head.get("recorded") == "shoes" else "session"


def import_file(source: Path, db: Path, key_path: Path, *, said: str | None, now: datetime,
                profile: str | None = None) -> Imported:
    """Import ``source`` into a new journal at ``db`` signed with the key at ``key_path`` (made when missing).

    ``said``: what the person says of the file (its origin); ``now``: the import's time (passed in). Raises
    ImportError_ (the input), ValueError (the target) or the journal's errors; nothing is left behind on failure.
    """
    if journal_exists(db) or db.exists():
        raise ValueError(f"{db} exists: an import makes a new journal and never writes into one")
    lines, digest = read_lines(source)
    kind = kind_of(lines)
    key = JournalKey.load(key_path) if key_path.exists() else None
    made_key = key is None
    work = db.with_name(db.name + ".importing")
    for leftover in (work, *sidecars(work)):
        if leftover.exists():
            raise ValueError(f"{leftover} exists (an import that was stopped?): remove it first")
    if key is None:
        key = JournalKey.generate(key_path)
    try:
        rules, first_at, feed = _session(lines) if kind == "session" else _recorded(lines)
        if profile is not None:
            rules = (profile, rules[1])
        authority = TableAuthority.open(work, key, build_rules(*rules), now=first_at or now)
        try:
            origin = f"{source.name}" + (f": {said}" if said else "")
            mark = ev.Imported(source=origin[:500], format="session" if kind == "session" else "recorded-shoes",
                               sha256=digest, at=now)
            authority.submit(mark, first_at or now)
            feed(_Driver(authority, first_at or now))
            table = authority.table
            rows, mac = authority.journal.head()
            made = Imported(db, rows, table.rounds_played, table.shoes_loaded, mac, kind, digest)
        finally:
            authority.journal.close()
        os.replace(work, db)
    except BaseException:
        for path in (work, *sidecars(work)):
            path.unlink(missing_ok=True)
        if made_key:
            key_path.unlink(missing_ok=True)
        raise
    return made


class _Driver:
    """Submits events to the import's authority, each received at its own time (never before the last)."""

    def __init__(self, authority: TableAuthority, at: datetime) -> None:
        self.authority = authority
        self.at = at
        self.line: int | None = None

    @property
    def table(self) -> Table:
        return self.authority.table

    def submit(self, event: ev.Event) -> list[Effect]:
        if event.at is not None and event.at > self.at:
            self.at = event.at
        where: dict[str, Any] = {}
        if isinstance(event, ev.CardDrawn):  # the journal indexes a card by its shoe and position, as the service does
            where = {"shoe_id": self.table.shoe.shoe_id if self.table.shoe else None, "position": event.position}
        try:
            return self.authority.submit(event, self.at, **where)[1]
        except IllegalAction as exc:
            raise ImportError_(self.line, f"the table refused {event.type} ({exc.code}): {exc.message}") from None


Rules = tuple[str, dict[str, Any]]
Parsed = tuple[Rules, datetime | None, Callable[[_Driver], None]]


def _session(lines: list[str]) -> Parsed:
    """A session file: its rules, its first time, and what submits each event as it stands."""
    parsed: list[tuple[int, ev.Event]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            parsed.append((number, parse_event_line(line)))
        except ev.BadEvent as exc:
            raise ImportError_(number, f"{exc.code}: {exc.message}") from None
    rules: tuple[str, dict[str, Any]] = ("ru-standard", {})
    if parsed and isinstance(parsed[0][1], ev.SetRules):
        first = parsed.pop(0)[1]
        assert isinstance(first, ev.SetRules)
        rules = (first.profile, dict(first.options))
    first_at = next((e.at for _, e in parsed if e.at is not None), None)

    def feed(driver: _Driver) -> None:
        for number, event in parsed:
            driver.line = number
            if isinstance(event, ev.Imported):
                raise ImportError_(number, "the session is itself an import (an `imported` row): import the file "
                                           f"it came from ({event.source}), so its provenance is one line")
            driver.submit(event)

    return rules, first_at, feed


# ------------------------------------------------------------------ recorded shoes
def _recorded(lines: list[str]) -> Parsed:
    """A recorded shoe sequence: deal each shoe's cards as the table asks, each decision from the hands recorded."""
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not numbered:
        raise ImportError_(None, "the file is empty")
    head_line, head = numbered[0][0], _object(*numbered[0])
    if head.get("version") != 1:
        raise ImportError_(head_line, f"recorded shoes version {head.get('version')!r}: this release reads version 1")
    _known(head_line, head, {"recorded", "version", "rules", "options", "table", "source"})
    options = head.get("options", {})
    if not isinstance(options, dict):
        raise ImportError_(head_line, "options must be an object of rule options")
    shoes = [(n, _object(n, line)) for n, line in numbered[1:]]
    first_at = next((_time(n, s["at"]) for n, s in shoes if s.get("at")), None)

    def feed(driver: _Driver) -> None:
        for number, shoe in shoes:
            driver.line = number
            _deal_shoe(driver, number, shoe)

    return (str(head.get("rules", "ru-standard")), dict(options)), first_at, feed


def _object(number: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError as exc:
        raise ImportError_(number, f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ImportError_(number, "each line is one JSON object")
    return value


def _known(number: int, value: dict[str, Any], fields: set[str], what: str = "") -> None:
    unknown = sorted(set(value) - fields)
    if unknown:
        raise ImportError_(number, f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}{what} "
                                   f"(known: {', '.join(sorted(fields))})")


def _time(number: int, text: Any) -> datetime:
    if not isinstance(text, str):
        raise ImportError_(number, f"a time is an ISO-8601 string, got {text!r}")
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise ImportError_(number, f"{text!r} is not an ISO-8601 time") from None
    if at.tzinfo is None:
        raise ImportError_(number, f"{text!r} names no time zone (e.g. 2026-12-01T20:00:00Z)")
    return at


def _cards(number: int, codes: Any, what: str) -> list[Card]:
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise ImportError_(number, f"{what} is a list of card codes (AS, TD, 7H)")
    try:
        return [parse_card(c) for c in codes]
    except ValueError as exc:
        raise ImportError_(number, f"{what}: {exc}") from None


@dataclass
class _Box:
    box: int
    bet: Decimal
    player: str | None
    hands: list[list[Card]]
    doubled: list[bool]
    insurance: Decimal | None
    surrender: bool


def _round(number: int, i: int, data: Any) -> tuple[datetime | None, list[_Box], list[Card] | None]:
    what = f" in round {i + 1}"
    if not isinstance(data, dict):
        raise ImportError_(number, f"round {i + 1} is an object with boxes")
    _known(number, data, {"at", "boxes", "dealer"}, what)
    at = _time(number, data["at"]) if data.get("at") else None
    boxes: list[_Box] = []
    for b in data.get("boxes") or []:
        if not isinstance(b, dict):
            raise ImportError_(number, f"a box{what} is an object")
        _known(number, b, {"box", "bet", "player", "hands", "doubled", "insurance", "surrender"}, what)
        try:
            bet = Decimal(str(b["bet"]))
            insurance = Decimal(str(b["insurance"])) if b.get("insurance") is not None else None
        except (KeyError, InvalidOperation):
            raise ImportError_(number, f"each box{what} has a bet (a number)") from None
        hands = b.get("hands")
        if not isinstance(hands, list) or not 1 <= len(hands) <= 4:
            raise ImportError_(number, f"box {b.get('box')}{what}: hands is a list of one to four hands")
        doubled = b.get("doubled") or [False] * len(hands)
        if not isinstance(doubled, list) or len(doubled) != len(hands):
            raise ImportError_(number, f"box {b.get('box')}{what}: doubled gives one true or false per hand")
        if not isinstance(b.get("box"), int) or isinstance(b.get("box"), bool):
            raise ImportError_(number, f"a box{what} has a box number")
        boxes.append(_Box(b["box"], bet, b.get("player"),
                          [_cards(number, h, f"box {b['box']}'s hand{what}") for h in hands],
                          [bool(d) for d in doubled], insurance, bool(b.get("surrender"))))
    if not boxes:
        raise ImportError_(number, f"round {i + 1} has no box")
    dealer = _cards(number, data["dealer"], f"the dealer's hand{what}") if data.get("dealer") is not None else None
    return at, sorted(boxes, key=lambda x: x.box), dealer


def _deal_shoe(driver: _Driver, number: int, shoe: dict[str, Any]) -> None:
    _known(number, shoe, {"shoe", "at", "cards", "cut_card", "rounds"})
    name = shoe.get("shoe")
    if not isinstance(name, str) or not name:
        raise ImportError_(number, "each shoe line has its shoe id (\"shoe\")")
    cards = _cards(number, shoe.get("cards"), f"shoe {name}'s cards")
    cut = shoe.get("cut_card")
    if cut is not None and (not isinstance(cut, int) or isinstance(cut, bool) or not 1 <= cut <= len(cards)):
        raise ImportError_(number, f"shoe {name}: cut_card is how many cards came out before the cut card "
                                   f"(1 to {len(cards)})")
    at = _time(number, shoe["at"]) if shoe.get("at") else None
    rounds = [_round(number, i, r) for i, r in enumerate(shoe.get("rounds") or [])]
    driver.submit(ev.Shuffle(shoe_id=name, at=at))
    dealt = 0

    def draw(when: datetime | None) -> list[Effect]:
        nonlocal dealt
        if dealt >= len(cards):
            raise ImportError_(number, f"shoe {name}: the table asks for card {dealt + 1}, the record has "
                                       f"{len(cards)}")
        dealt += 1
        effects = driver.submit(ev.CardDrawn(card=cards[dealt - 1], position=dealt, at=when))
        if cut is not None and dealt == cut:
            effects += driver.submit(ev.CutCardOut(position=cut + 1, at=when))
        return effects

    table = driver.table
    while table.burn_left:
        draw(at)
    for i, (when, boxes, dealer) in enumerate(rounds):
        for box in boxes:
            driver.submit(ev.PlaceBet(box=box.box, amount=box.bet, player=box.player, at=when))
        by_number = {b.box: b for b in boxes}
        settled: RoundSettled | None = None
        for _ in range(10_000):  # a round is a few dozen steps; a bound so a bad record never loops
            phase = table.phase
            if phase is Phase.ATTENTION:
                raise ImportError_(number, f"shoe {name}, round {i + 1}: the table held a card "
                                           f"({'; '.join(table.lock_reasons())})")
            effects = _step(driver, table, by_number, draw, when, name, i, number)
            settled = next((e for e in effects if isinstance(e, RoundSettled)), None)
            if settled is not None:
                break
        else:
            raise ImportError_(number, f"shoe {name}, round {i + 1} never settled")
        _check_round(number, name, i, settled, by_number, dealer)
    if dealt < len(cards):
        raise ImportError_(number, f"shoe {name}: {len(cards) - dealt} of its {len(cards)} cards were never dealt in "
                                   "its rounds (cards lists the cards the shoe read, in order)")


def _step(driver: _Driver, table: Table, boxes: dict[int, _Box], draw: Callable[[datetime | None], list[Effect]],
          when: datetime | None, name: str, i: int, number: int) -> list[Effect]:
    """One step of a round: the card the table waits for, or the decision the record shows."""
    phase = table.phase
    r = table.round
    if phase is Phase.INSURANCE:
        effects: list[Effect] = []
        for box in boxes.values():
            if box.insurance is not None:
                effects += driver.submit(parse_event({"type": "insure", "box": box.box, "amount": box.insurance, "at": when}))
                box.insurance = None
        return effects + driver.submit(parse_event({"type": "close_insurance", "at": when}))
    if phase is Phase.SURRENDER:
        for box in boxes.values():
            if box.surrender:
                box.surrender = False
                return driver.submit(ev.Surrender(box=box.box, at=when))
    if phase is Phase.PLAYERS and r is not None and r.box_i < len(r.boxes):
        hand = r.hand
        number_of = hand.box.number if hand.box is not None else 0
        record = boxes.get(number_of)
        if record is not None and len(hand.cards) >= 2:
            h = r.hand_i
            wanted = record.hands[h] if h < len(record.hands) else []
            in_play = [x for x in r.boxes if x.number == number_of]
            split_so_far = sum(len(x.hands) for x in in_play)
            if record.surrender and len(hand.cards) == 2:
                record.surrender = False
                return driver.submit(ev.Surrender(box=number_of, at=when))
            if len(record.hands) > split_so_far and Action.SPLIT in table.legal_actions():
                return driver.submit(ev.Split(box=number_of, at=when))
            if len(wanted) > len(hand.cards):
                if hand.doubled:
                    return draw(when)  # the doubled hand's one card
                if record.doubled[h] and len(hand.cards) == 2:
                    return driver.submit(ev.Double(box=number_of, at=when))
                return draw(when)
            return driver.submit(ev.Stand(box=number_of, at=when))
    if table.next_card() is not None:
        return draw(when)
    raise ImportError_(number, f"shoe {name}, round {i + 1}: the table waits in {phase.value} and the record says "
                               "nothing it can do")


def _check_round(number: int, name: str, i: int, settled: RoundSettled, boxes: dict[int, _Box],
                 dealer: list[Card] | None) -> None:
    record = settled.result
    dealt: dict[int, list[list[str]]] = {}
    for hand in record["hands"]:
        dealt.setdefault(hand["box"], []).append(list(hand["cards"]))
    for box in boxes.values():
        wanted = [[c.code for c in h] for h in box.hands]
        if dealt.get(box.box) != wanted:
            raise ImportError_(number, f"shoe {name}, round {i + 1}: dealt in the table's order, box {box.box} got "
                                       f"{dealt.get(box.box)}, the record says {wanted}")
    if dealer is not None and list(record["dealer"]["cards"]) != [c.code for c in dealer]:
        raise ImportError_(number, f"shoe {name}, round {i + 1}: the dealer got {record['dealer']['cards']} in the "
                                   f"table's order, the record says {[c.code for c in dealer]}")


def describe(made: Imported) -> str:
    """The import's one line for the person."""
    return (f"imported {made.format} into {made.db}: {made.rows} rows, {made.shoes} shoes, {made.rounds} rounds; "
            f"head MAC {made.head_mac}; marked imported (sha256 {made.sha256[:16]}...), so every tool says so")


__all__ = ["ImportError_", "Imported", "import_file", "describe", "key_beside"]
