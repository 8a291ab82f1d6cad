"""The table's inventory (issue 41, part 3): opener, fills and credits with two signatures, closer, drop.

The engine keeps only the slips that wait for signatures (`Slip`: a fill or credit asked for, and who has signed);
the figures are made from the journal by `InventoryBook`, fed the table's record in order (each accepted event
with the engine's effects). One `Period` per opener: its opener, the fills and credits completed in it, its
closer, the drop the count room entered for it, and beside the inventory's figure the table's own:

* **win/loss** = closer - opener + credits - fills + drop (the house's side, cents);
* **hold** = win / drop;
* **the table's figure**: the house's net of every round settled in the period, from the settlements;
* **expected drop**: the cash and markers bought in during the period (`buy_in`): what the drop box should hold.

With every chip accounted for, the two figures agree: the tray loses the chips sold for the drop box's cash and
markers, and gains or loses what the house wins or pays. A difference is flagged when it is over the tolerance
(`Period.flagged`): a miscount, a fill or credit not entered, chips walked from the tray.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from . import events as ev
from .effects import Effect, RoundSettled
from .money import to_cents

SIGNER_ROLES = {"dealer": "dealer", "supervisor": "supervisor", "admin": "supervisor"}


def chips_value(chips: dict[str, int]) -> int:
    """What chips by denomination are worth, in cents."""
    return sum((to_cents(Decimal(name)) or 0) * count for name, count in chips.items())


def signer(actor: str | None) -> tuple[str, str] | None:
    """The part a key signs for (``dealer`` or ``supervisor``) and the person, from the journal's actor
    (``role:name``, as the API names a key's holder); None for an actor that is no key's."""
    if actor is None or ":" not in actor:
        return None
    role, _, name = actor.partition(":")
    part = SIGNER_ROLES.get(role)
    return (part, name) if part is not None and name else None


@dataclass
class Slip:
    """A fill or credit slip: its number, kind, chips, when it was asked for, and its signatures (part -> person)."""

    id: int
    kind: str  # "fill" or "credit"
    chips: dict[str, int]
    requested_at: datetime | None
    signed: dict[str, str] = field(default_factory=dict)
    completed_at: datetime | None = None

    @property
    def value(self) -> int:
        """What the slip's chips are worth (cents)."""
        return chips_value(self.chips)

    @property
    def complete(self) -> bool:
        """A dealer and a supervisor have signed."""
        return {"dealer", "supervisor"} <= set(self.signed)


@dataclass
class Period:
    """One inventory period: from an opener to its closer (and the drop entered for it)."""

    opened_at: datetime | None
    opener: int
    opened_by: str | None
    closed_at: datetime | None = None
    closer: int | None = None
    closed_by: str | None = None
    drop: int | None = None
    drop_by: str | None = None
    slips: list[Slip] = field(default_factory=list)
    table_win: int = 0  # the house's net of the rounds settled in the period
    rounds: int = 0
    expected_drop: int = 0  # cash and markers bought in during the period

    def total(self, kind: str) -> int:
        """The completed fills or credits (cents)."""
        return sum(s.value for s in self.slips if s.kind == kind and s.complete)

    @property
    def win(self) -> int | None:
        """closer - opener + credits - fills + drop (None until the closer and the drop are in)."""
        if self.closer is None or self.drop is None:
            return None
        return self.closer - self.opener + self.total("credit") - self.total("fill") + self.drop

    @property
    def hold(self) -> float | None:
        """win / drop (None without a drop)."""
        win = self.win
        return win / self.drop if win is not None and self.drop else None

    @property
    def difference(self) -> int | None:
        """The inventory's win less the table's own figure."""
        win = self.win
        return win - self.table_win if win is not None else None

    def flagged(self, tolerance: int = 0) -> bool:
        """The inventory's figure and the table's differ by more than ``tolerance`` cents."""
        difference = self.difference
        return difference is not None and abs(difference) > tolerance


@dataclass
class Watch:
    """What the engine keeps of an inventory period to compare its two figures the moment both are in (issue 41):
    the opener, the table's own figure (the house's net of the rounds settled since), the fill and credit slips
    asked for in it (still waiting for signatures; the completed ones' net), the closer and the drop. Cents."""

    opener: int
    table_win: int = 0
    slips_net: int = 0  # completed credits less completed fills
    pending: dict[int, int] = field(default_factory=dict)  # slip -> its signed value (+ credit, - fill)
    closer: int | None = None
    drop: int | None = None

    @property
    def difference(self) -> int | None:
        """The inventory's win less the table's own figure, once the closer and the drop are both in
        (`Period.difference`, kept as the events come)."""
        if self.closer is None or self.drop is None:
            return None
        return self.closer - self.opener + self.slips_net + self.drop - self.table_win

    def completed(self, slip: int) -> None:
        """A slip asked for in this period has both its signatures: it counts."""
        value = self.pending.pop(slip, None)
        if value is not None:
            self.slips_net += value


@dataclass(frozen=True)
class LimitChange:
    """A change of the table's limits (minimum, maximum as the session format writes amounts): when, by whom."""

    at: datetime | None
    by: str | None
    before: tuple[str, str]
    after: tuple[str, str]


class InventoryBook:
    """Books the journal, in order, into inventory periods (`Period`) and the rules' limit changes."""

    def __init__(self) -> None:
        """An empty book."""
        self.periods: list[Period] = []
        self.slips: dict[int, Slip] = {}
        self.next_slip = 1
        self.limits: list[LimitChange] = []  # each change of the table's limits
        self._limits: tuple[str, str] | None = None

    @property
    def current(self) -> Period | None:
        """The period open now (an opener without its closer), if any."""
        last = self.periods[-1] if self.periods else None
        return last if last is not None and last.closer is None else None

    def event(self, event: ev.Event, effects: Sequence[Effect], limits: tuple[str, str] | None = None) -> None:
        """An accepted ``event`` with its effects; ``limits``: the table's minimum and maximum after it."""
        at, actor = event.at, event.actor
        period = self.current
        if isinstance(event, ev.Opener):
            self.periods.append(Period(at, chips_value(event.chips), actor))
        elif isinstance(event, ev.Closer):
            if period is None:  # a closer with no opener: a period of its own, its opener unknown (0)
                period = Period(None, 0, None)
                self.periods.append(period)
            period.closed_at, period.closer, period.closed_by = at, chips_value(event.chips), actor
        elif isinstance(event, (ev.FillRequest, ev.CreditRequest)):
            kind = "fill" if isinstance(event, ev.FillRequest) else "credit"
            slip = Slip(self.next_slip, kind, dict(event.chips), at)
            self.next_slip += 1
            self.slips[slip.id] = slip
            if period is not None:
                period.slips.append(slip)
        elif isinstance(event, ev.SignSlip):
            found = self.slips.get(event.slip)
            who = signer(actor)
            if found is not None and who is not None:
                found.signed[who[0]] = who[1]
                if found.complete:
                    found.completed_at = at
        elif isinstance(event, ev.Drop):
            target = next((p for p in reversed(self.periods) if p.closer is not None and p.drop is None), None)
            target = target or period
            if target is not None:
                target.drop, target.drop_by = to_cents(event.amount) or 0, actor
        elif isinstance(event, ev.BuyIn) and period is not None and event.method in ("cash", "marker"):
            period.expected_drop += to_cents(event.amount) or 0
        if period is not None:
            for effect in effects:
                if isinstance(effect, RoundSettled) and not effect.round.voided:
                    period.table_win -= effect.round.net()
                    period.rounds += 1
        if limits is not None and limits != self._limits:
            if self._limits is not None:
                self.limits.append(LimitChange(at, actor, self._limits, limits))
            self._limits = limits
