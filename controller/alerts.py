"""Latched alerts: raised by the engine, cleared only when resolved and acknowledged.

The board is bounded, because the table's state (published to the floor, retained by the broker)
holds it: an alert whose cause is raised again while it is on the board is counted on it
(`Alert.count`; `call_pit` while one is open is that alert), and each kind holds at most
`MAX_ALERTS_PER_KIND` alerts, the last of which counts every further one (`overflow_message`):
the journal keeps each event that raised them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum


class AlertKind(str, Enum):
    """What went wrong; the kind decides the bell pattern and whether the shoe locks."""

    UNEXPECTED_CARD = "unexpected_card"
    INTEGRITY = "integrity"
    SHOE_FAULT = "shoe_fault"
    LINK_DOWN = "link_down"
    SHUFFLE_DUE = "shuffle_due"
    CALL_PIT = "call_pit"
    SHOE_EMPTY = "shoe_empty"
    SLUG = "slug"  # a run of the previous shoe's order is being dealt again (controller.protection)
    WEAK_SHUFFLE = "weak_shuffle"  # the shoe that ended was shuffled weakly (controller.protection)
    MTL_NOTICE = "mtl_notice"  # a person's cash in a gaming day reached the log's notice threshold (issue 41)
    MTL_ACTION = "mtl_action"  # ... reached its action threshold: the casino's report is due
    # A bet above its spot's usual size on a side spot whose exact expectation for the round is positive (a game's
    # own watch, e.g. baccarat's Dragon 7 short of 8s and 9s): surveillance's, so it rings no bell at the table.
    SIDE_BET_EDGE = "side_bet_edge"
    # The inventory's win (closer - opener + credits - fills + drop) differs from the table's own figure (the
    # rounds settled in the period) by more than `[inventory] tolerance` (issue 41): a miscount, a slip not entered.
    INVENTORY_DIFFERENCE = "inventory_difference"


class AlertLevel(str, Enum):
    """How much an alert asks of people; the bell, the banner, the floor's tile and count follow it."""

    NOTICE = "notice"  # routine: shown, no bell, not red (a due shuffle, an empty shoe)
    ACTION = "action"  # the table waits for the dealer or the pit (a held card, a jam, a call)
    ALARM = "alarm"  # the pit must come (integrity, a lost link)

    @property
    def rank(self) -> int:
        """Higher is more urgent: the highest level open on a table is the table's."""
        return _LEVEL_ORDER.index(self)


_LEVEL_ORDER = (AlertLevel.NOTICE, AlertLevel.ACTION, AlertLevel.ALARM)

# The level of each kind of alert: the one table the bell, the banner, the floor's tile colour and
# its "with alerts" count read (docs/service.md, "Alert levels"). A due shuffle comes every shoe,
# so it must not sound like a stopped table; a jam or a held card waits for a person; integrity
# and a lost link may cost money, so the pit must come.
ALERT_LEVEL: dict[AlertKind, AlertLevel] = {
    AlertKind.SHUFFLE_DUE: AlertLevel.NOTICE,
    AlertKind.SHOE_EMPTY: AlertLevel.NOTICE,
    AlertKind.UNEXPECTED_CARD: AlertLevel.ACTION,
    AlertKind.SHOE_FAULT: AlertLevel.ACTION,
    AlertKind.CALL_PIT: AlertLevel.ACTION,
    AlertKind.INTEGRITY: AlertLevel.ALARM,
    AlertKind.LINK_DOWN: AlertLevel.ALARM,
    AlertKind.WEAK_SHUFFLE: AlertLevel.NOTICE,
    AlertKind.SLUG: AlertLevel.ALARM,
    AlertKind.MTL_NOTICE: AlertLevel.NOTICE,
    AlertKind.MTL_ACTION: AlertLevel.ACTION,
    AlertKind.SIDE_BET_EDGE: AlertLevel.NOTICE,
    AlertKind.INVENTORY_DIFFERENCE: AlertLevel.ACTION,  # money unaccounted for: the pit looks before the shift ends
}


def level_of(kind: AlertKind) -> AlertLevel:
    """The level of an alert of `kind` (from ALERT_LEVEL)."""
    return ALERT_LEVEL[kind]


def age_text(seconds: float) -> str:
    """How long an alert has been open (or took to be acknowledged), in whole units: ``45 s``,
    ``3 min 05 s``, ``2 h 07 min``; never negative (a clock set back)."""
    whole = max(int(seconds), 0)
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


# Kinds that stop the game until a supervisor has looked: the shoe stays locked.
LOCKING_KINDS = frozenset({AlertKind.UNEXPECTED_CARD, AlertKind.INTEGRITY, AlertKind.SHOE_FAULT})
# Alerts of one kind on the board at most: the last one counts every further alert of the kind.
MAX_ALERTS_PER_KIND = 8
# The supervisor's detail of a repeated alert gathers each repeat's, up to this many characters.
MAX_SECRET_CHARS = 500


def overflow_message(kind: AlertKind) -> str:
    """The text of the alert that counts the alerts of `kind` beyond what the board holds."""
    return f"more {kind.value.replace('_', ' ')} alerts than the board holds: each is in the journal"


# Kinds whose cause the supervisor who acknowledges them resolves. The others (an unexpected
# card, a lost link, a due shuffle) are resolved only by what ends their cause.
# A slug or a weak shuffle is a finding about cards already dealt: the supervisor who has looked ends it.
RESOLVED_BY_ACKNOWLEDGEMENT = frozenset({AlertKind.SHOE_FAULT, AlertKind.INTEGRITY, AlertKind.CALL_PIT,
                                         AlertKind.SLUG, AlertKind.WEAK_SHUFFLE, AlertKind.MTL_NOTICE,
                                         AlertKind.MTL_ACTION, AlertKind.SIDE_BET_EDGE,
                                         AlertKind.INVENTORY_DIFFERENCE})


@dataclass(slots=True)
class Alert:
    """One alert. It stays open while its cause is active or until a supervisor acknowledges it."""

    id: int
    kind: AlertKind
    message: str
    raised_at: datetime | None
    active: bool = True
    acknowledged: bool = False
    acknowledged_by: str | None = None
    # When the supervisor's acknowledgement was journalled (its event's time, as `raised_at` is the
    # raising event's): the dashboard says how long the alert waited for a look.
    acknowledged_at: datetime | None = None
    # What only a supervisor may read (a face-down card's code): never in `message`.
    secret: str | None = None
    # How many times it was raised while on the board (a repeat asks for a new look).
    count: int = 1

    @property
    def level(self) -> AlertLevel:
        """How much it asks of people (ALERT_LEVEL)."""
        return ALERT_LEVEL[self.kind]

    @property
    def open(self) -> bool:
        """Still shown: the cause persists or nobody has acknowledged it yet."""
        return self.active or not self.acknowledged

    def resolve(self, acknowledged_by: str | None = None, at: datetime | None = None) -> None:
        """Its cause is gone; resolved by a person's act (``acknowledged_by``, at ``at``), it is acknowledged too."""
        self.active = False
        if acknowledged_by is not None:
            self.acknowledged = True
            self.acknowledged_by = acknowledged_by
            self.acknowledged_at = at

    def repeat(self, secret: str | None) -> None:
        """Its cause is raised again: counted here, active again, to be acknowledged again."""
        self.count += 1
        self.active = True
        self.acknowledged = False
        self.acknowledged_by = None
        self.acknowledged_at = None
        if secret is not None:
            if self.secret is None:
                self.secret = secret[:MAX_SECRET_CHARS]
            elif secret not in self.secret and len(self.secret) + len(secret) + 2 <= MAX_SECRET_CHARS:
                self.secret = f"{self.secret}; {secret}"

    def acknowledge(self, by: str | None, at: datetime | None = None) -> None:
        """A supervisor has seen it (the event journalled at ``at``); that resolves the kinds a supervisor resolves."""
        self.acknowledged = True
        self.acknowledged_by = by
        self.acknowledged_at = at
        if self.kind in RESOLVED_BY_ACKNOWLEDGEMENT:
            self.active = False

    def as_dict(self, reveal: bool = False) -> dict[str, object]:
        """JSON-ready form for replay output, status and the API; `reveal` adds the supervisor's detail."""
        out: dict[str, object] = {
            "id": self.id,
            "kind": self.kind.value,
            "level": self.level.value,
            "message": self.message,
            "raised_at": self.raised_at.isoformat() if self.raised_at else None,
            "active": self.active,
            "acknowledged": self.acknowledged,
            "acknowledged_by": self.acknowledged_by,
            "acknowledged_at": self.acknowledged_at.isoformat() if self.acknowledged_at else None,
            "count": self.count,
        }
        if reveal and self.secret is not None:
            out["detail"] = self.secret
        return out
