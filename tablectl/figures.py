"""The shift's figures for the pit: rounds and hands per hour and the table's result, house side; and each
dealer's figures per shift (`dealer_book`: `tablectl protect dealers` and the supervisor's panel).

Per box from the round records; per player from the accepted bets between two settlements
(a round's bets are those placed after the previous round settled; a void of bets not yet
dealt on returns them), a shared box's result split among its players by stake.

From the table's journal alone: the table's API serves them (`GET /api/figures`) and its publisher
(`tablectl.fleet`) sends them to the floor, so they sit below both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from controller import registry
from controller.effects import Effect, RoundSettled
from controller.engine import Table
from controller.events import Shuffle
from controller.event_codec import dump_event
from controller.journal import REFUSAL, JournalEntry, JournalReader
from controller.money import money, to_cents
from controller.protection.advantage import AdvantageBook, Signal, SubjectReport, feed
from controller.protection.dealers import DealerBook, DealerShift
from controller.protection.shoes import examine
from controller.replay import session_rules
from controller.rules import Rules, build_rules

# A game's own evidence from its settled rounds: (rules, [(cards left by rank before the round, its record)]) ->
# player -> signals (`tablectl.parts.SpotOddsPart.signals`); `evidence_of` gives it for a game, or None.
Evidence = Callable[[Rules, list[tuple[dict[str, int], dict[str, Any]]]], dict[str, list[Signal]]]


def figures(journal: JournalReader, now: datetime, hours: float) -> dict[str, Any]:
    """Rounds and hands per hour and the table's result over the last `hours`, with a series for a chart."""
    points: list[dict[str, Any]] = []
    house = Decimal(0)
    bets = Decimal(0)
    hands = 0
    since = now - timedelta(hours=hours)
    settled = journal.settled_with_seq_since(since)
    by_box: dict[int, dict[str, Any]] = {}
    for _, at, record in settled:
        n = len(record.get("hands", []))
        hands += n
        house -= Decimal(str(record.get("net", "0")))
        bets += sum((Decimal(str(h.get("bet", "0"))) for h in record.get("hands", [])), Decimal(0))
        points.append({"at": at, "round": record["number"], "hands": n, "house": str(house)})
        for number, net in _box_nets(record).items():
            b = by_box.setdefault(number, {"box": number, "rounds": 0, "hands": 0, "house": Decimal(0)})
            b["rounds"] += 1
            b["hands"] += sum(1 for h in record["hands"] if h["box"] == number)
            b["house"] -= net
    last_hour = (now - timedelta(hours=1)).astimezone(timezone.utc).isoformat()
    recent = [p for p in points if p["at"] >= last_hour]
    span_h = hours
    if points:  # a shift younger than the window: rate over the time actually played
        first = datetime.fromisoformat(points[0]["at"])
        span_h = max((now - first).total_seconds() / 3600, 1 / 60)
        span_h = min(span_h, hours)
    return {
        "hours": hours,
        "rounds": len(points),
        "hands": hands,
        "bets": str(bets),
        "house_result": str(house),
        "rounds_per_hour": round(len(points) / span_h, 1) if points else 0.0,
        "hands_per_hour": round(hands / span_h, 1) if points else 0.0,
        "rounds_last_hour": len(recent),
        "hands_last_hour": sum(p["hands"] for p in recent),
        "boxes": [{**b, "house": str(b["house"])} for _, b in sorted(by_box.items())],
        "players": _players(journal, since, settled),
        "series": _buckets(points, now, hours),
    }


def _box_nets(record: dict[str, Any]) -> dict[int, Decimal]:
    """Each box's players' net in a round record: its hands and its insurance."""
    nets: dict[int, Decimal] = {}
    for h in record.get("hands", []):
        nets[h["box"]] = nets.get(h["box"], Decimal(0)) + Decimal(str(h["net"]))
    for i in record.get("insurance", []):
        nets[i["box"]] = nets.get(i["box"], Decimal(0)) + Decimal(str(i["net"]))
    return nets


def _players(journal: JournalReader, since: datetime, settled: list[tuple[int, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per player: rounds, bets and the house's result, from the bets placed before each settled round; at a table
    that takes commission, the commission each paid and still owes (`Commission`)."""
    collects = registry.collect_events()
    events = journal.bets_and_voids_since(since, collects)
    out: dict[str, dict[str, Any]] = {}
    commission = Commission()
    i = 0
    for seq, _, record in settled:
        stakes: dict[int, dict[str, Decimal]] = {}
        while i < len(events) and events[i][0] < seq:
            event = events[i][1]
            i += 1
            if event["type"] in collects:
                commission.collect(event)
                continue
            if event["type"] == "void_round":
                stakes = {}  # bets not yet dealt on go back (a voided round's nets are nil anyway)
                continue
            box = stakes.setdefault(int(event["box"]), {})
            player = str(event.get("player") or (next(iter(box)) if box else f"box{event['box']}"))
            box[player] = box.get(player, Decimal(0)) + Decimal(str(event["amount"]))
        for number, net in _box_nets(record).items():
            players = stakes.get(number)
            if not players:
                continue  # the bets were placed before the window opened
            total = sum(players.values(), Decimal(0))
            for player, stake in players.items():
                p = out.setdefault(player, {"player": player, "rounds": 0, "bets": Decimal(0), "house": Decimal(0)})
                p["rounds"] += 1
                p["bets"] += stake
                p["house"] -= (net * stake / total).quantize(Decimal("0.01"))
        commission.settled(record)
    for _, event in events[i:]:  # collected after the last round settled
        if event["type"] in collects:
            commission.collect(event)
    rows = [{**p, "bets": _money(p["bets"]), "house": _money(p["house"])} for p in sorted(out.values(),
            key=lambda p: p["player"])]
    if commission.taken:
        for row in rows:
            row.update(commission.of(row["player"]))
    return rows


class Commission:
    """The commission each player paid and owes over the shift, from the round records and the collections.

    A record's hand with a ``commission`` was either taken at once (paid) or, marked ``commission_owed``, kept in
    the box's commission box until a game's collect event (`controller.registry.collect_events`: baccarat's
    ``collect_commission``) takes it (paid then). What was owed from before the window and collected in it is not
    known here: it is counted neither paid nor owed. ``taken``: whether any round of the window took commission
    (a table that takes none, EZ Baccarat or blackjack, shows no commission figures)."""

    def __init__(self) -> None:
        self.taken = False
        self.paid: dict[str, int] = {}  # player -> cents paid
        self.owed: dict[int, dict[str, int]] = {}  # box -> player -> cents owed now

    def settled(self, record: dict[str, Any]) -> None:
        """A settled round's record."""
        for h in record.get("hands", []):
            if "commission" not in h:
                continue
            self.taken = True
            cents = to_cents(Decimal(str(h["commission"]))) or 0
            player = str(h["player"])
            if h.get("commission_owed"):
                box = self.owed.setdefault(int(h["box"]), {})
                box[player] = box.get(player, 0) + cents
            else:
                self.paid[player] = self.paid.get(player, 0) + cents

    def collect(self, event: dict[str, Any]) -> None:
        """A collect event: the box's player (or every player of the box) pays what they owe."""
        box = self.owed.get(int(event["box"]), {})
        for player in [event["player"]] if event.get("player") else list(box):
            self.paid[player] = self.paid.get(player, 0) + box.pop(player, 0)

    def of(self, player: str) -> dict[str, str]:
        """The player's ``commission_paid`` and ``commission_owed`` (money)."""
        owed = sum(box.get(player, 0) for box in self.owed.values())
        return {"commission_paid": money(self.paid.get(player, 0)), "commission_owed": money(owed)}


def _money(d: Decimal) -> str:
    # A share of a box's result is quantized to the cent above, so it is always whole cents.
    return money(to_cents(d) or 0)


def _buckets(points: list[dict[str, Any]], now: datetime, hours: float, count: int = 48) -> list[dict[str, Any]]:
    """The shift cut in `count` slices: rounds and hands in each, and the house result at its end."""
    start = now - timedelta(hours=hours)
    if points:
        start = max(start, datetime.fromisoformat(points[0]["at"]))
    width = max((now - start).total_seconds() / count, 1.0)
    out = []
    house = "0"
    i = 0
    for k in range(count):
        end = start + timedelta(seconds=width * (k + 1))
        rounds = hands = 0
        while i < len(points) and datetime.fromisoformat(points[i]["at"]) <= end:
            rounds += 1
            hands += points[i]["hands"]
            house = points[i]["house"]
            i += 1
        out.append({"end": end.astimezone(timezone.utc).isoformat(), "rounds": rounds, "hands": hands,
                    "house": house})
    return out


@dataclass(frozen=True)
class Window:
    """Which part of a journal a protection report reads (``--since``, ``--until``, ``--rounds A-B``).

    The journal is always replayed from its first row (the count, the dealer on duty and the previous shoe
    are known from before the window); it is read up to ``until`` (rows received before it) and up to the
    settlement of round ``last_round``: "flagged by round 200" is the report of the journal as it stood
    then. ``since`` and ``first_round`` say where the booking starts. Round numbers are the table's, as
    `tablectl dispute --round N` and the replay number them.
    """

    since: datetime | None = None
    until: datetime | None = None
    first_round: int | None = None
    last_round: int | None = None

    def replay(self, entries: Iterable[JournalEntry], apply: Any) -> Iterator[tuple[JournalEntry, list[Effect]]]:
        """Apply (``apply(event)``, the effects) each entry the window reaches, in order; yield it with its effects."""
        settled = 0
        for entry in entries:
            if self.until is not None and entry.received_at >= self.until:
                return
            if self.last_round is not None and settled >= self.last_round:
                return
            effects = apply(entry.event)
            for effect in effects:
                if isinstance(effect, RoundSettled):
                    settled = max(settled, effect.round.number)
            yield entry, effects


def dealer_book(reader: JournalReader, since: datetime | None = None, window: Window | None = None) -> DealerBook:
    """Replay the whole journal (the dealer on duty at ``since`` is known from before it) into a DealerBook.

    Each accepted event is applied to a table whose effects the book reads; each refused action is booked
    at its time; at the end every shoe's shuffle score goes to the dealer who shuffled it in. ``window``
    (``--until``, a round range) cuts the journal where it ends and starts the booking with its first round.
    """
    window = window or Window(since=since)
    entries = list(reader.entries())
    refusals = _refusal_rows(reader)
    # booking starts at ``since``, or (a round range) when round ``first_round`` starts: until then, at no time
    waiting = window.first_round is not None
    book = DealerBook(_NEVER if waiting else window.since)
    if not entries:
        return book
    table = Table(_journal_rules(entries), shoes_watched=None)
    r = 0
    cut = False  # the window ended before the journal did: the refusals after it are not booked
    for entry in entries:
        if window.until is not None and entry.received_at >= window.until:
            cut = True
            break
        if waiting and table.round is None and table.rounds_played + 1 >= (window.first_round or 0) \
                and entry.event.type in ("bet", "card"):  # round ``first_round``'s first bet or card
            waiting = False
            book.since = max(entry.received_at, window.since) if window.since else entry.received_at
        while r < len(refusals) and refusals[r][0] < entry.seq:
            book.refused(refusals[r][1])
            r += 1
        effects = table.apply(entry.event)
        shoe_in = table.shoe.shoe_id if isinstance(entry.event, Shuffle) and table.shoe is not None else None
        book.event(entry.received_at, effects, shoe_in)
        if window.last_round is not None and any(
                isinstance(e, RoundSettled) and e.round.number >= window.last_round for e in effects):
            cut = True
            break
    for _, at in refusals[r:] if not cut else ():
        book.refused(at)
    for shoe in examine(table.shoe_watch.book.shoes):
        book.shoe_scored(shoe.shoe, shoe.quality.p, shoe.quality.weak)
    return book


_NEVER = datetime.max.replace(tzinfo=timezone.utc)  # a booking not started yet (a round range's first round)


def _journal_rules(entries: list[JournalEntry]) -> Rules:
    """The rules a journal's replay starts with: its first row's, as `tablectl replay` reads a session's."""
    profile, options = session_rules([json.dumps(dump_event(entries[0].event))])
    return build_rules(profile, options)


def _refusal_rows(reader: JournalReader) -> list[tuple[int, datetime]]:
    """The refused actions a dealer answers for: each refusal row but a supervisor's own (issue 41: a
    supervisor's refused click is theirs, never the dealer's on duty)."""
    out: list[tuple[int, datetime]] = []
    after = 0
    while rows := reader.ledger_rows(after, 1000):
        out += [(row.seq, datetime.fromisoformat(row.received_at)) for row in rows
                if row.kind == REFUSAL and not _a_supervisors(row.body)]
        after = rows[-1].seq
    return out


def _a_supervisors(body: str) -> bool:
    """The refused action was a supervisor's (or an admin's) key's: its actor is ``supervisor:NAME``."""
    try:
        actor = json.loads(body).get("actor")
    except (ValueError, AttributeError):
        return False
    return isinstance(actor, str) and actor.partition(":")[0] in ("supervisor", "admin")


def _rounded(x: float | None, digits: int = 1) -> float | None:
    return None if x is None else round(x, digits)


def dealer_json(line: DealerShift) -> dict[str, Any]:
    """One dealer's shift as JSON (what `protect dealers --json` and the API give)."""
    return {
        "dealer": line.dealer, "shift": line.shift, "rounds": line.rounds, "hands": line.hands,
        "dealing_hours": round(line.dealing_hours, 3), "shuffle_minutes": round(line.shuffle_seconds / 60, 1),
        "idle_minutes": round(line.idle_seconds / 60, 1),
        "rounds_per_hour": _rounded(line.rounds_per_hour), "hands_per_hour": _rounded(line.hands_per_hour),
        "boxes_per_round": _rounded(line.boxes_per_round, 2),
        "published_rounds_per_hour": _rounded(line.published_rounds_per_hour),
        "per_100_rounds": {"refused": _rounded(line.per_100_rounds(line.refused), 2),
                           "held_cards": _rounded(line.per_100_rounds(line.held_cards), 2),
                           "voids": _rounded(line.per_100_rounds(line.voids), 2)},
        "refused": line.refused, "held_cards": line.held_cards, "voids": line.voids,
        "shoes": len(line.shoe_ps), "weak_shoes": line.weak_shoes,
        "median_shoe_p": None if line.median_shoe_p is None else round(line.median_shoe_p, 4),
    }


def player_book(reader: JournalReader, since: datetime | None = None, window: Window | None = None,
                evidence_of: Callable[[Rules], Evidence | None] | None = None) -> AdvantageBook:
    """Each player's and box's advantage-play evidence from ``since`` on (docs/protection.md), the journal's rows
    streamed through the engine into an AdvantageBook; ``window`` (``--until``, a round range) cuts the journal
    where it ends and books only its rounds.

    The book's count is the one the players keep, from the shuffle of the shoe in play at ``since``: with only
    ``since``, the replay starts from the newest state the table kept (a snapshot, its MAC checked) at or before
    that shuffle, the shuffle resets the count, and every round from ``since`` on is booked exactly as a replay
    from the first row books it, in work bounded by the window, not the journal (issue 37). Otherwise, or with
    no state kept before it, the journal is read from its first row.

    ``evidence_of(rules)``: the game's own evidence, if it has any (the caller's, from the game's parts: baccarat's
    side bets at a positive expectation); each settled round the window books is kept with the cards left before
    its first card, and what the evidence gives each player is added to their signals.
    """
    window = window or Window(since=since)
    start = _start_before(reader, window.since) if window.since is not None and window.first_round is None else None
    if start is not None:
        table, after = start
    else:
        first = next(reader.entries(), None)
        if first is None:
            return AdvantageBook(since=window.since)
        table, after = Table(_journal_rules([first])), 0
    rules = table.rules
    book = AdvantageBook(decks=rules.decks, pack=rules.pack, since=window.since, first_round=window.first_round)
    book.replayed_from = after
    evidence = evidence_of(rules) if evidence_of is not None else None
    rounds = _RoundsWithShoe(window) if evidence is not None else None
    step = (lambda event: feed(book, table, event)) if rounds is None else (lambda event: rounds.feed(book, table, event))
    for _ in window.replay(reader.entries(after), step):  # (a cursor: a row at a time)
        pass
    if evidence is not None and rounds is not None and rounds.kept:
        book.extra_signals = evidence(table.rules, rounds.kept)
    return book


class _RoundsWithShoe:
    """For a game with its own evidence: each round the window books, settled, with the cards left in the shoe
    before its first card (what the game's evidence is taken from)."""

    def __init__(self, window: Window) -> None:
        self.window = window
        self.kept: list[tuple[dict[str, int], dict[str, Any]]] = []
        self._before: tuple[int, dict[str, int]] | None = None  # (round about to start, cards left before it)

    def feed(self, book: AdvantageBook, table: Table, event: Any) -> list[Effect]:
        """`feed` the event; keep the cards left before a round's first card, and the round once settled."""
        shoe = table.shoe
        left = shoe.remaining_by_rank() if shoe is not None and table.round is None else None
        effects = feed(book, table, event)
        if left is not None and table.round is not None:
            self._before = (table.round.number, left)
        for effect in effects:
            if isinstance(effect, RoundSettled) and self._before is not None:
                number, before = self._before
                r = effect.round
                w = self.window
                if (r.number == number and (w.first_round is None or r.number >= w.first_round)
                        and (w.since is None or (r.started_at is not None and r.started_at >= w.since))):
                    self.kept.append((before, r.record))
                self._before = None
        return effects


def _start_before(reader: JournalReader, since: datetime) -> tuple[Table, int] | None:
    """The table as the newest state kept before the shuffle of the shoe in play at ``since`` restores it, and
    that state's row; None when there is no such shuffle or state (or it cannot be restored)."""
    from controller.errors import SnapshotError  # (the snapshot's own error: only here)

    boundary = reader.first_seq_at(since)
    shuffle = reader.last_row_before(boundary, "shuffle", within=boundary)
    if shuffle is None:
        return None
    snapshot = reader.snapshot_at_or_before(shuffle.seq - 1)
    if snapshot is None:
        return None
    try:
        return Table.from_snapshot(snapshot[1]), snapshot[0]
    except SnapshotError:
        return None


def _p(p: float | None) -> float | None:
    return None if p is None else float(f"{p:.3g}")


def signal_json(signal: Signal) -> dict[str, Any]:
    """One signal as JSON."""
    return {"name": signal.name, "statistic": signal.statistic, "n": signal.n, "p": _p(signal.p),
            "explanation": signal.explanation}


def player_json(report: SubjectReport) -> dict[str, Any]:
    """One player's (or box's) evidence as JSON (what `protect players --json` and the API give)."""
    return {"subject": report.subject, "kind": "box" if report.subject.startswith("box ") else "player",
            "rounds": report.rounds, "tested": report.tested, "combined_p": _p(report.combined_p),
            "flagged": report.flagged, "signals": [signal_json(s) for s in report.signals]}
