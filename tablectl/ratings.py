"""Rating slips from a table's journal (issue 41): `tablectl ratings export`, `GET /api/ratings`, the floor's push.

The journal is replayed through the engine into `controller.ratings.RatingBook`, which the exact analyser and
basic strategy price: the edge of basic strategy off the top of the profile's shoe (`simulators.exact`, the
table's own figure, docs/house-edge.md) and the cost of each decision that was not basic strategy's
(`simulators.strategy.BasicStrategy.action_evs`: the expectations the strategy's tables were built from, so a
basic-strategy decision costs exactly 0). The columns, their units and time zone: docs/ratings.md.

Decided: a mistake is priced off the top of the shoe (the strategy's own expectations, total-dependent), not at
the composition of the moment: the exact analyser takes about a second per composition to build a six-deck
shoe's values, far too slow for every decision of a shift; off the top is what basic strategy itself is, and
the error (the count's effect on one decision's cost) averages out over a session's decisions.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from controller.engine import IllegalAction, Table
from controller.journal import JournalEntry, JournalReader
from controller.legality import Action
from controller.ratings import Cost, RatingBook, Session, Situation, feed
from controller.event_codec import dump_event
from controller.replay import session_rules
from controller.rules import Rules, build_rules

FORMAT = 1  # the export's version: a column's meaning changes only with a new number (docs/ratings.md)

COLUMNS = (
    "format", "table", "player", "named", "box", "card", "start", "end", "open", "minutes", "paused_minutes",
    "rounds", "hands", "decisions", "mistakes", "decisions_per_hour", "average_bet", "largest_bet", "wagered",
    "actual", "edge_pct", "measured_edge_pct", "theo", "thumb_theo", "mistake_cost",
)


@lru_cache(maxsize=8)
def basic_edge(rules: Rules) -> float | None:
    """The house's edge under basic strategy off the top of the profile's shoe (a fraction), from the exact
    analyser; None for a game without one (only blackjack has it)."""
    if rules.game != "blackjack":
        return None
    from simulators.exact import ShoeError, analyse, full_shoe

    try:
        return analyse(rules, full_shoe(rules.decks), "basic").house_edge  # type: ignore[arg-type]
    except ShoeError:
        return None


def blackjack_cost(rules: Rules) -> Cost | None:
    """The price of a decision against basic strategy at this table's rules (`controller.ratings.Cost`)."""
    if rules.game != "blackjack":
        return None
    from simulators.strategy import strategy_for

    strategy = strategy_for(rules)  # a blackjack table's rules are its terms (a RuleProfile)

    def cost(s: Situation, action: Action) -> float | None:
        best = strategy.decide(list(s.values), s.up, can_double=s.can_double, can_split=s.can_split,
                               can_surrender=s.can_surrender, hands_in_box=s.hands_in_box,
                               is_split_hand=s.is_split_hand)
        if action is best:
            return 0.0
        evs = strategy.action_evs(s.values, s.up, hands_in_box=s.hands_in_box, is_split_hand=s.is_split_hand)
        if best not in evs or action not in evs:
            return None
        return max(evs[best] - evs[action], 0.0)

    return cost


def rating_book(reader: JournalReader, since: datetime | None = None, until: datetime | None = None) -> RatingBook:
    """The journal (up to ``until``) replayed into a RatingBook priced for its rules; the sessions that overlap
    ``since``..``until`` are its report."""
    entries = reader.entries()
    first = next(entries, None)
    if first is None:
        return RatingBook(since=since, until=until)
    profile, options = session_rules([json.dumps(dump_event(first.event))])  # its first row's, as replay reads them
    table = Table(build_rules(profile, options), shoes_watched=0)
    book = RatingBook(basic_edge(table.rules), blackjack_cost(table.rules), since, until)
    rules = table.rules
    for entry in _chain([first], entries):
        if until is not None and entry.received_at >= until:
            break
        try:
            feed(book, table, entry.event, entry.received_at)
        except IllegalAction:
            continue  # a verified journal's accepted rows replay; nothing is booked for one that does not
        if table.rules is not rules:  # new rules: the edge and the prices are theirs from now on
            rules = table.rules
            book.edge, book.cost = basic_edge(rules), blackjack_cost(rules)
    return book


class RatingFollower:
    """The table's live book for the floor's push (docs/ratings.md, "Pushed over the floor"): fed the journal's
    accepted events in order as they are committed, it answers each session once it has ended (an ``unseat``, a
    player who left: `RatingBook.expire`), once. Its own engine replays the rows: the service's is not touched."""

    def __init__(self) -> None:
        self.table: Table | None = None
        self.book = RatingBook()
        self.seq = 0  # the last journal row fed
        self._sent: set[int] = set()  # the sessions already answered, by their place in the book

    def follow(self, entries: Iterable[JournalEntry]) -> None:
        """Feed these entries (after `seq`, in order)."""
        for entry in entries:
            if self.table is None:
                profile, options = session_rules([json.dumps(dump_event(entry.event))])
                self.table = Table(build_rules(profile, options), shoes_watched=0)
                self.book.edge, self.book.cost = basic_edge(self.table.rules), blackjack_cost(self.table.rules)
            rules = self.table.rules
            try:
                feed(self.book, self.table, entry.event, entry.received_at)
            except IllegalAction:
                pass  # an accepted row replays; nothing is booked for one that does not
            if self.table.rules is not rules:
                self.book.edge, self.book.cost = basic_edge(self.table.rules), blackjack_cost(self.table.rules)
            self.seq = entry.seq

    def ended(self, now: datetime) -> list[Session]:
        """The sessions ended since the last call (those a player left by ``now`` included), oldest first."""
        self.book.expire(now)
        out = []
        for i, session in enumerate(self.book.sessions):
            if not session.open and i not in self._sent and session.start is not None and session.end is not None:
                self._sent.add(i)
                if session.rounds or session.seated:
                    out.append(session)
        return out


def _chain(*parts: Iterable[Any]) -> Iterable[Any]:
    for part in parts:
        yield from part


def _iso(at: datetime | None) -> str | None:
    return at.astimezone(timezone.utc).isoformat().replace("+00:00", "Z") if at is not None else None


def _cents(x: float | None) -> str | None:
    """Cents as a decimal amount with two places ('12.35'); None stays None."""
    if x is None:
        return None
    whole = round(x)
    sign = "-" if whole < 0 else ""
    return f"{sign}{abs(whole) // 100}.{abs(whole) % 100:02d}"


def _pct(x: float | None) -> float | None:
    return None if x is None else round(100 * x, 4)


def session_row(table: str, s: Session) -> dict[str, Any]:
    """One session as the export's row (docs/ratings.md): money as decimal strings, times UTC ISO-8601."""
    return {
        "format": FORMAT, "table": table, "player": s.player, "named": s.named, "box": s.box, "card": s.card,
        "start": _iso(s.start), "end": _iso(s.end), "open": s.open, "minutes": round(s.seconds / 60, 2),
        "paused_minutes": round(s.paused_seconds / 60, 2), "rounds": s.rounds, "hands": s.hands,
        "decisions": s.decisions, "mistakes": s.mistakes,
        "decisions_per_hour": None if s.decisions_per_hour is None else round(s.decisions_per_hour, 1),
        "average_bet": _cents(s.average_bet), "largest_bet": _cents(s.largest_bet), "wagered": _cents(s.wagered),
        "actual": _cents(s.actual), "edge_pct": _pct(s.edge), "measured_edge_pct": _pct(s.measured_edge),
        "theo": _cents(s.theo), "thumb_theo": _cents(s.thumb_theo), "mistake_cost": _cents(s.mistake_cost),
    }


def rows(reader: JournalReader, table: str, since: datetime | None = None, until: datetime | None = None
         ) -> list[dict[str, Any]]:
    """Every session of the journal within the window, as export rows."""
    return [session_row(table, s) for s in rating_book(reader, since, until).report()]


def to_csv(data: list[dict[str, Any]]) -> str:
    """The rows as CSV with a header line (an empty field for a missing value)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in data:
        writer.writerow({k: ("" if v is None else str(v).lower() if isinstance(v, bool) else v)
                         for k, v in row.items()})
    return out.getvalue()


def to_json_lines(data: list[dict[str, Any]]) -> str:
    """The rows as JSON Lines: one object a session."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in data)
