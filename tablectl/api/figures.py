"""The shift's figures for the pit: rounds and hands per hour and the table's result, house side."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from controller.journal import JournalReader


def figures(journal: JournalReader, now: datetime, hours: float) -> dict[str, Any]:
    """Rounds and hands per hour and the table's result over the last `hours`, with a series for a chart."""
    points: list[dict[str, Any]] = []
    house = Decimal(0)
    bets = Decimal(0)
    hands = 0
    for at, record in journal.rounds_settled_since(now - timedelta(hours=hours)):
        n = len(record.get("hands", []))
        hands += n
        house -= Decimal(record.get("net", "0"))
        bets += sum((Decimal(h.get("bet", "0")) for h in record.get("hands", [])), Decimal(0))
        points.append({"at": at, "round": record["number"], "hands": n, "house": str(house)})
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
        "series": _buckets(points, now, hours),
    }


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
