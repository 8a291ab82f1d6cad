"""The pit dashboard: one page served by the service itself (no build step, nothing from a CDN).

`mount_dashboard(app, service)` serves the page at `/`, its files under
`/dashboard/...`, and two read endpoints the page needs beyond the API:

- `GET /api/export?round=N` or `?shoe=ID`: the session-format JSON Lines of one
  shoe (the rules in force, the shuffle, and every accepted event until the next
  shuffle), cut after round N's settlement for a round, so `tablectl replay`
  replays it on its own. A replay numbers rounds from that shuffle, so round N
  comes out with the same cards and settlement under its number within the shoe.
- `GET /api/figures?hours=H`: rounds and hands per hour and the table's result,
  with a series over the shift for the page's small chart.
"""

from __future__ import annotations

import hmac
import json
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Header, Query, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from controller.events import SetRules, Shuffle, dump_event

if TYPE_CHECKING:  # pragma: no cover
    from tablectl.service import TableService

STATIC = Path(__file__).with_name("static")


def session_lines(journal: Any, *, round_number: int | None = None, shoe_id: str | None = None) -> list[str] | None:
    """The session-format lines of one shoe (cut after `round_number`'s settlement), or None if unknown.

    Built like `controller.authority.export_session` (accepted events, dumped the same way),
    starting at the rules line in force and the shoe's shuffle so the file replays alone.
    """
    end_seq: int | None = None
    if round_number is not None:
        record = journal.round(round_number)
        if record is None:
            return None
        shoe_id = record.get("shoe_id")
        row = journal.db.execute("SELECT seq FROM rounds WHERE number = ?", (round_number,)).fetchone()
        end_seq = row[0]
    rules_line: dict[str, Any] | None = None
    out: list[str] | None = None
    for entry in journal.entries():
        if end_seq is not None and entry.seq > end_seq:
            break
        if entry.refused:
            continue
        event = entry.event
        if isinstance(event, SetRules):
            rules_line = dump_event(event)
        if isinstance(event, Shuffle):
            if out is not None and event.shoe_id != shoe_id:
                if end_seq is None:
                    break  # the next shoe
                out = None  # (a round number names its shoe: keep looking)
            if event.shoe_id == shoe_id and out is None:
                out = [_line(rules_line)] if rules_line is not None else []
        if out is not None:
            out.append(_line(dump_event(event)))
    return out


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), default=str)


def figures(journal: Any, now: datetime, hours: float) -> dict[str, Any]:
    """Rounds and hands per hour and the table's result over the last `hours`, with a series for a chart."""
    since = (now - timedelta(hours=hours)).astimezone(timezone.utc).isoformat()
    rows = journal.db.execute(
        "SELECT e.received_at, r.record FROM rounds r JOIN events e ON e.seq = r.seq "
        "WHERE e.received_at >= ? ORDER BY r.number", (since,)).fetchall()
    points: list[dict[str, Any]] = []
    house = Decimal(0)
    bets = Decimal(0)
    hands = 0
    for at, body in rows:
        record = json.loads(body)
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


def mount_dashboard(app: FastAPI, service: "TableService") -> None:
    """Serve the pit dashboard at `/`, its files under `/dashboard/`, and its export and figures endpoints."""
    from tablectl.api import ERRORS, ApiError, _loopback  # late: api.py calls this at the end of create_app
    from tablectl.config import ApiKey

    settings = service.settings.api

    def reader(request: Request, authorization: str | None, x_api_key: str | None) -> None:
        key = x_api_key
        if key is None and authorization and authorization.lower().startswith("bearer "):
            key = authorization[7:].strip()
        if key is None:
            if settings.open_reads_on_loopback and _loopback(request):
                return
            raise ApiError(401, "no_key", "an API key is needed (Authorization: Bearer KEY)")
        digest = ApiKey.hash(key)
        found = False
        for k in settings.keys:  # every key compared, in constant time
            found = hmac.compare_digest(k.sha256, digest) or found
        if not found:
            raise ApiError(401, "bad_key", "this API key is not known")

    app.mount("/dashboard", StaticFiles(directory=STATIC), name="dashboard")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/export", tags=["read"], responses={**ERRORS, 404: {"description": "no such round or shoe"}},
             response_class=Response)
    async def export(request: Request, round: Annotated[int | None, Query(ge=1)] = None,
                     shoe: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
                     authorization: Annotated[str | None, Header()] = None,
                     x_api_key: Annotated[str | None, Header()] = None) -> Response:
        """One round (`?round=N`) or one shoe (`?shoe=ID`) as a session file (JSON Lines) that replays alone."""
        reader(request, authorization, x_api_key)
        if (round is None) == (shoe is None):
            raise ApiError(422, "invalid_request", "give exactly one of round or shoe", "query.round")
        lines = session_lines(service.authority.journal, round_number=round, shoe_id=shoe)
        if not lines:
            what = f"round {round} has not been settled" if round is not None else f"shoe {shoe!r} is not in the journal"
            raise ApiError(404, "not_found", what)
        name = f"round-{round}" if round is not None else f"shoe-{_safe(shoe or '')}"
        table = _safe(service.settings.table.name)
        return Response("\n".join(lines) + "\n", media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{table}-{name}.jsonl"'})

    @app.get("/api/figures", tags=["read"], responses=ERRORS)
    async def get_figures(request: Request, hours: Annotated[float, Query(gt=0, le=24)] = 8,
                          authorization: Annotated[str | None, Header()] = None,
                          x_api_key: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        """Rounds and hands per hour and the table's result (house side) over the last hours, with a series."""
        reader(request, authorization, x_api_key)
        return figures(service.authority.journal, service.clock(), hours)


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:64] or "table"


__all__ = ["mount_dashboard", "session_lines", "figures"]

