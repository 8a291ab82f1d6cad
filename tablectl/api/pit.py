"""The pit's business (issue 41): the rating slips the table measured (`GET /api/ratings`), the shift report a
supervisor signs (`GET /api/shift/report`) and its alerts' log (`GET /api/shift/alerts`).

A supervisor's read, as the players' evidence is: it names players and what they won and lost. The journal is
replayed off the event loop, one report at a time on the table (`tables.one_report`).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from controller.journal import JournalError
from tablectl.web.auth import Supervisor
from tablectl.web.errors import ERRORS, ApiError, ErrorResponse

from .deps import Service
from .tables import _BUSY, _safe, one_report

router = APIRouter()


class RatingModel(BaseModel):
    """One player's session, as `tablectl ratings export` writes it (docs/ratings.md): money as decimal strings
    (the house's side: positive is the house's win), times UTC ISO-8601."""

    format: int
    table: str
    player: str = Field(description="the player's name or card id; 'Player on box N' when anonymous")
    named: bool
    box: int
    card: str | None
    start: str | None
    end: str | None
    open: bool = Field(description="still seated (no unseat yet): the end is the last round played")
    minutes: float = Field(description="time played, pauses excluded")
    paused_minutes: float
    rounds: int
    hands: int
    decisions: int = Field(description="the player's own decisions: hit, stand, double, split, surrender")
    mistakes: int = Field(description="decisions that were not basic strategy's")
    decisions_per_hour: float | None = Field(description="hands decided per hour played (the pit's 60/h)")
    average_bet: str | None
    largest_bet: str | None
    wagered: str | None
    actual: str | None
    edge_pct: float | None = Field(description="the house's edge under basic strategy, per cent (exact analyser)")
    measured_edge_pct: float | None = Field(description="the house's edge under the player's measured play")
    theo: str | None = Field(description="wagered x the edge of basic strategy, plus each mistake's cost")
    thumb_theo: str | None = Field(description="average bet x hours x 60 decisions an hour x the edge")
    mistake_cost: str | None


class RatingsModel(BaseModel):
    """The sessions of the last ``hours``, one per player's sitting."""

    hours: float
    sessions: list[RatingModel]


@router.get("/api/ratings", tags=["read"], responses={**ERRORS, **_BUSY}, response_model=RatingsModel)
async def get_ratings(who: Supervisor, service: Service, request: Request,
                      hours: Annotated[float, Query(gt=0, le=24)] = 8) -> dict[str, Any]:
    """Supervisor: each player's rating slip over the last ``hours`` (sessions that ended in it or are open)."""
    since = service.clock() - timedelta(hours=hours)
    table = service.settings.table.name

    def read() -> dict[str, Any]:
        from tablectl.ratings import rows

        with service.reader() as journal:
            return {"hours": hours, "sessions": rows(journal, table, since)}

    return await one_report(request, read)


class LoggedAlertModel(BaseModel):
    """An alert of the shift, as the shift report lists it: who acknowledged it, when, how long it waited."""

    id: int
    kind: str
    level: str
    message: str
    raised_at: str | None
    acknowledged_by: str | None = Field(description="the key's holder (supervisor:NAME), or who ended its cause; "
                                                    "null while nobody has")
    acknowledged_at: str | None
    waited_seconds: float | None = Field(description="from raised to acknowledged")


class ShiftAlertsModel(BaseModel):
    """Every alert raised in the last ``hours``, oldest first: the dashboard's shift log."""

    hours: float
    alerts: list[LoggedAlertModel]


@router.get("/api/shift/alerts", tags=["read"], responses={**ERRORS, **_BUSY}, response_model=ShiftAlertsModel)
async def get_shift_alerts(who: Supervisor, service: Service, request: Request,
                           hours: Annotated[float, Query(gt=0, le=24)] = 8) -> dict[str, Any]:
    """Supervisor: every alert raised in the last ``hours`` with who acknowledged it, when and how long it waited
    (the shift report's alerts, replayed from the newest state kept before the window): the dashboard's shift log,
    which a reload or the service's restart finds again. One report at a time on the table, off the event loop."""
    end = service.clock()
    start = end - timedelta(hours=hours)

    def read() -> dict[str, Any]:
        from tablectl.shift import alert_log

        with service.reader() as journal:
            return {"hours": hours, "alerts": alert_log(journal, start, end)}

    return await one_report(request, read)


_SHIFT_MEDIA = {"html": "text/html; charset=utf-8", "pdf": "application/pdf", "json": "application/json"}
SHIFT_MAX = timedelta(hours=24)  # a shift, or at most a gaming day: the report replays the journal for it


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


@router.get("/api/shift/report", tags=["read"], response_class=Response,
            responses={**ERRORS, **_BUSY,
                       200: {"content": {"text/html": {}, "application/pdf": {}, "application/json": {}},
                             "description": "the report, in the format asked for"},
                       500: {"model": ErrorResponse, "description": "the table's journal does not verify"},
                       503: {"model": ErrorResponse, "description": "no PDF can be made on this table (no pango): "
                                                                    "ask for html or json"}})
async def get_shift_report(
        who: Supervisor, service: Service, request: Request,
        format: Annotated[Literal["html", "pdf", "json"], Query()] = "html",
        lang: Annotated[Literal["en", "ru"], Query(description="the report's language")] = "en",
        start: Annotated[datetime | None, Query(alias="from", description="the shift's start, ISO-8601 (UTC unless "
                                                                          "zoned); with `to`")] = None,
        end: Annotated[datetime | None, Query(alias="to", description="the shift's end, ISO-8601")] = None,
        hours: Annotated[float, Query(gt=0, le=24, description="without from/to: the last hours")] = 8) -> Response:
    """Supervisor: the shift report (docs/pit.md, "The shift report"), as `tablectl shift report` makes it.

    The window is ``from``..``to`` (at most 24 hours) or the last ``hours``; the journal is verified with the
    table's key and replayed from its first row, off the event loop, one report at a time on the table. JSON is
    ``{report, digest, signatures}``: the digest a supervisor signs (`sign_shift` with the same from and to), and
    each signature of that window checked against the journal."""
    if (start is None) != (end is None):
        raise ApiError(422, "invalid_request", "give both from and to, or neither (the last `hours`)", "query.from")
    if start is None or end is None:
        end = service.clock()
        start = end - timedelta(hours=hours)
    start, end = _utc(start), _utc(end)
    if not timedelta(0) < end - start <= SHIFT_MAX:
        raise ApiError(422, "invalid_request", "`to` must be after `from`, by at most 24 hours", "query.to")
    table = service.settings.table.name

    def make() -> bytes:
        from tablectl.shift import PdfUnavailable, digest, make_report, to_html, to_pdf, verify

        try:
            with service.reader() as journal:
                journal.verify()
                signed = verify(journal, start, end, table)
                report = make_report(journal, start, end, table)
            if format == "json":
                return json.dumps({"report": report, "digest": digest(report), "signatures": signed},
                                  ensure_ascii=False).encode()
            if format == "html":
                return to_html(report, lang, signed).encode()
            return to_pdf(report, lang, signed)  # (a PDF takes a second or two: off the loop too)
        except PdfUnavailable as exc:
            raise ApiError(503, "pdf_unavailable", str(exc)) from None

    try:
        data = await one_report(request, make)
    except JournalError as exc:
        raise ApiError(500, "journal_refused", str(exc)) from None
    stamp = start.strftime("%Y%m%dT%H%M")
    name = f"{_safe(table)}-shift-{stamp}.{format}"
    headers = {"Content-Disposition": f'{"inline" if format == "html" else "attachment"}; filename="{name}"'}
    if format == "html":
        # The page is self-contained (shift.to_html): nothing on it may load or run anything.
        headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
    return Response(data, media_type=_SHIFT_MEDIA[format], headers=headers)
