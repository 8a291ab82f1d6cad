"""The pit's books as JSON (issue 41): a period of the table's inventory and a person's gaming day of buy-ins, as
`tablectl inventory`, `tablectl mtl` and the shift report write them. Pure: from the books alone, below the command
lines and the table's API alike."""

from __future__ import annotations

from datetime import timezone
from typing import Any

from controller.inventory import Period
from controller.money import money
from controller.mtl import PersonDay

__all__ = ["iso", "period_json", "person_json"]


def iso(at: Any) -> str | None:
    """A time as UTC ISO 8601 with a Z (None stays None)."""
    return at.astimezone(timezone.utc).isoformat().replace("+00:00", "Z") if at is not None else None


def _m(cents: int | None) -> str | None:
    return money(cents) if cents is not None else None


def period_json(p: Period, tolerance: int) -> dict[str, Any]:
    """One period as JSON: money as decimal strings (the house's side), times UTC."""
    return {
        "opened_at": iso(p.opened_at), "opened_by": p.opened_by, "opener": money(p.opener),
        "closed_at": iso(p.closed_at), "closed_by": p.closed_by, "closer": _m(p.closer),
        "fills": money(p.total("fill")), "credits": money(p.total("credit")),
        "slips": [{"slip": s.id, "kind": s.kind, "amount": money(s.value), "chips": s.chips,
                   "requested_at": iso(s.requested_at), "signed": s.signed, "complete": s.complete,
                   "completed_at": iso(s.completed_at)} for s in p.slips],
        "drop": _m(p.drop), "drop_by": p.drop_by, "expected_drop": money(p.expected_drop),
        "win": _m(p.win), "hold_pct": None if p.hold is None else round(100 * p.hold, 2),
        "rounds": p.rounds, "table_win": money(p.table_win), "difference": _m(p.difference),
        "flagged": p.flagged(tolerance),
    }


def person_json(p: PersonDay) -> dict[str, Any]:
    """One person's gaming day as JSON: money as decimal strings, times UTC."""
    return {
        "person": p.person, "cash": money(p.total("cash")), "marker": money(p.total("marker")),
        "chips": money(p.total("chips")),
        "buy_ins": [{"at": iso(e.at), "box": e.box, "method": e.method, "amount": money(e.amount),
                     "entered_by": e.entered_by} for e in p.entries],
        "alerts": [{"id": a.id, "kind": a.kind, "message": a.message, "raised_at": iso(a.raised_at),
                    "acknowledged_by": a.acknowledged_by, "acknowledged_at": iso(a.acknowledged_at),
                    "waited_seconds": a.waited_seconds} for a in p.alerts],
    }
