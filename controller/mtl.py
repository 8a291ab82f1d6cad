"""The multiple transaction log, from the table's record (issue 41, part 2). Pure: the journal in order, a log out.

Every buy-in is journalled with the gaming day and the thresholds the service stamped on it
(`controller.events.BuyIn`); the engine sums a person's cash of the day and raises the notice or action alert as
it crosses one. `MtlBook` is fed the table's record as the engine applies it and answers, per gaming day and
person: every buy-in (time, box, method, amount, who entered it), the cash, marker and chips totals, and the
log's alerts with who acknowledged each and how long it waited. Evidence, as the journal is: nothing here is
kept anywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from . import events as ev
from .alerts import AlertKind
from .effects import AlertRaised, Effect
from .money import to_cents

MTL_KINDS = frozenset({AlertKind.MTL_NOTICE, AlertKind.MTL_ACTION})


@dataclass
class Entry:
    """One buy-in: when, where, how, how much (cents), who entered it."""

    at: datetime | None
    box: int | None
    method: str
    amount: int
    entered_by: str | None


@dataclass
class MtlAlert:
    """One of the log's alerts: its id on the board, level word, message, and who acknowledged it when."""

    id: int
    kind: str
    message: str
    raised_at: datetime | None
    acknowledged_by: str | None = None
    acknowledged_at: datetime | None = None

    @property
    def waited_seconds(self) -> float | None:
        """How long it waited for a supervisor's look (None: not acknowledged)."""
        if self.acknowledged_at is None or self.raised_at is None:
            return None
        return max((self.acknowledged_at - self.raised_at).total_seconds(), 0.0)


@dataclass
class PersonDay:
    """One person's gaming day at the table."""

    person: str
    entries: list[Entry] = field(default_factory=list)
    alerts: list[MtlAlert] = field(default_factory=list)

    def total(self, method: str) -> int:
        """The cents bought in by ``method`` (cash, marker, chips)."""
        return sum(e.amount for e in self.entries if e.method == method)


class MtlBook:
    """Books buy-ins and the log's alerts by gaming day and person."""

    def __init__(self) -> None:
        """An empty log."""
        self.days: dict[str, dict[str, PersonDay]] = {}
        self.alerts: dict[int, MtlAlert] = {}

    def event(self, event: ev.Event, effects: Sequence[Effect], person: str | None = None) -> None:
        """An accepted ``event`` with its effects; ``person``: whose buy-in it is (`Table.buyer`)."""
        if isinstance(event, ev.BuyIn) and person is not None:
            day = event.gaming_day.isoformat() if event.gaming_day is not None else "(no gaming day)"
            line = self.days.setdefault(day, {}).setdefault(person, PersonDay(person))
            line.entries.append(Entry(event.at, event.box, event.method, to_cents(event.amount) or 0, event.actor))
            for effect in effects:
                if isinstance(effect, AlertRaised) and effect.alert.kind in MTL_KINDS:
                    alert = MtlAlert(effect.alert.id, effect.alert.kind.value, effect.said or effect.alert.message,
                                     effect.alert.raised_at)
                    self.alerts[alert.id] = alert
                    line.alerts.append(alert)
        elif isinstance(event, ev.AcknowledgeAlert):
            seen = self.alerts.get(event.alert_id)
            if seen is not None and seen.acknowledged_at is None:
                seen.acknowledged_by, seen.acknowledged_at = event.actor, event.at

    def day(self, day: str) -> list[PersonDay]:
        """The log of gaming day ``day`` (YYYY-MM-DD), by person."""
        return sorted(self.days.get(day, {}).values(), key=lambda p: p.person)


def feed(book: MtlBook, table: Any, event: ev.Event) -> list[Effect]:
    """Apply ``event`` to ``table`` and book it (IllegalAction passes through, nothing booked)."""
    effects: list[Effect] = table.apply(event)
    book.event(event, effects, table.buyer(event) if isinstance(event, ev.BuyIn) else None)
    return effects
