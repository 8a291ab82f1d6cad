"""Writes: a dealer's or supervisor's action, and the supervisor's hold on the shoe's gate."""

from __future__ import annotations

from typing import Annotated, Union

from fastapi import APIRouter
from pydantic import BaseModel, Field

from controller import events as ev
from controller.engine import IllegalAction

from .auth import Dealer, Supervisor
from .deps import Service
from tablectl.service import TableStopped

from .errors import ERRORS, ApiError, ErrorResponse

router = APIRouter()

# The events a person may send; cards, ticks and link events come only from the shoe and the clock.
ActionEvent = Annotated[
    Union[ev.PlaceBet, ev.Stand, ev.Double, ev.Split, ev.Surrender, ev.Insure, ev.EvenMoney, ev.CloseInsurance,
          ev.Shuffle, ev.CallPit, ev.Reserve, ev.CutCardOut, ev.VoidRound, ev.DiscardCard, ev.AcknowledgeAlert],
    Field(discriminator="type"),
]

# Actions only a supervisor may take (every other action needs at least a dealer key).
SUPERVISOR_ACTIONS = {"void_round", "discard_card", "ack_alert"}


class ActionResult(BaseModel):
    """An accepted action: its journal sequence and the table's phase after it."""

    seq: int
    phase: str


class LockRequest(BaseModel):
    """Supervisor: hold the shoe's gate shut, or release it."""

    locked: bool


@router.post("/api/actions", response_model=ActionResult, tags=["write"],
             responses={**ERRORS, 409: {"model": ErrorResponse, "description": "illegal now; the engine's reason"},
                        503: {"model": ErrorResponse, "description": "the table has stopped (its journal failed)"}})
async def post_action(event: ActionEvent, who: Dealer, service: Service) -> ActionResult:
    """A dealer's or supervisor's action, in the session vocabulary (bet, stand, double, ...)."""
    kind = event.type
    if kind in SUPERVISOR_ACTIONS and not who.sees_hole_card:
        raise ApiError(403, "forbidden", f"'{kind}' needs a supervisor key")
    event.at = None  # the service stamps the time it received the action
    try:
        seq, phase = await service.act(event, who.actor)
    except IllegalAction as exc:
        raise ApiError(409, exc.code, exc.message) from None
    except TableStopped as exc:
        raise ApiError(503, "table_stopped", str(exc)) from None
    return ActionResult(seq=seq, phase=phase)


@router.post("/api/shoe/lock", response_model=ActionResult, tags=["write"], responses=ERRORS)
async def post_lock(body: LockRequest, who: Supervisor, service: Service) -> ActionResult:
    """Supervisor: hold the shoe's gate shut, or release it (until the table's own state changes it)."""
    (service.link.lock if body.locked else service.link.unlock)()
    return ActionResult(seq=service.authority.journal.last_seq, phase=service.table.phase.value)
