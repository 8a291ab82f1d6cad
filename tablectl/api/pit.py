"""The pit's business (issue 41): the rating slips the table measured (`GET /api/ratings`).

A supervisor's read, as the players' evidence is: it names players and what they won and lost. The journal is
replayed off the event loop, one report at a time on the table (`tables.one_report`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from tablectl.web.auth import Supervisor
from tablectl.web.errors import ERRORS

from .deps import Service
from .tables import _BUSY, one_report

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
