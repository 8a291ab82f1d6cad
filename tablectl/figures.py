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
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

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
    """Per player: rounds, bets and the house's result, from the bets placed before each settled round."""
    events = journal.bets_and_voids_since(since)
    out: dict[str, dict[str, Any]] = {}
    i = 0
    for seq, _, record in settled:
        stakes: dict[int, dict[str, Decimal]] = {}
        while i < len(events) and events[i][0] < seq:
            event = events[i][1]
            i += 1
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
    return [{**p, "bets": _money(p["bets"]), "house": _money(p["house"])} for p in sorted(out.values(),
            key=lambda p: p["player"])]


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


def dealer_book(reader: JournalReader, since: datetime | None = None) -> DealerBook:
    """Replay the whole journal (the dealer on duty at ``since`` is known from before it) into a DealerBook.

    Each accepted event is applied to a table whose effects the book reads; each refused action is booked
    at its time; at the end every shoe's shuffle score goes to the dealer who shuffled it in.
    """
    entries = list(reader.entries())
    refusals = _refusal_rows(reader)
    book = DealerBook(since)
    if not entries:
        return book
    table = Table(_journal_rules(entries), shoes_watched=None)
    r = 0
    for entry in entries:
        while r < len(refusals) and refusals[r][0] < entry.seq:
            book.refused(refusals[r][1])
            r += 1
        effects = table.apply(entry.event)
        shoe_in = table.shoe.shoe_id if isinstance(entry.event, Shuffle) and table.shoe is not None else None
        book.event(entry.received_at, effects, shoe_in)
    for _, at in refusals[r:]:
        book.refused(at)
    for shoe in examine(table.shoe_watch.book.shoes):
        book.shoe_scored(shoe.shoe, shoe.quality.p, shoe.quality.weak)
    return book


def _journal_rules(entries: list[JournalEntry]) -> Rules:
    """The rules a journal's replay starts with: its first row's, as `tablectl replay` reads a session's."""
    profile, options = session_rules([json.dumps(dump_event(entries[0].event))])
    return build_rules(profile, options)


def _refusal_rows(reader: JournalReader) -> list[tuple[int, datetime]]:
    out: list[tuple[int, datetime]] = []
    after = 0
    while rows := reader.ledger_rows(after, 1000):
        out += [(row.seq, datetime.fromisoformat(row.received_at)) for row in rows if row.kind == REFUSAL]
        after = rows[-1].seq
    return out


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


def player_book(reader: JournalReader, since: datetime | None = None) -> AdvantageBook:
    """Replay the whole journal (the count of the shoe in play at ``since`` is known from before it) into an
    AdvantageBook: each player's and box's advantage-play evidence from ``since`` on (docs/protection.md)."""
    entries = list(reader.entries())
    if not entries:
        return AdvantageBook(since=since)
    rules = _journal_rules(entries)
    book = AdvantageBook(decks=rules.decks, pack=rules.pack, since=since)
    table = Table(rules)  # the live table's watch of two shoes: the book needs none of it
    for entry in entries:
        feed(book, table, entry.event)
    return book


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
