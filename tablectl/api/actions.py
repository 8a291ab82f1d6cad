"""Writes: a dealer's or supervisor's action, and the supervisor's hold on the shoe's gate."""

from __future__ import annotations

from typing import Annotated, Union

from fastapi import APIRouter
from pydantic import BaseModel, Field

from controller import events as ev
from controller.engine import IllegalAction
from controller.legality import SUPERVISOR_ACTIONS

from tablectl.config import Role
from tablectl.service import TableService, TableStopped
from tablectl.web.auth import Dealer, Supervisor
from tablectl.web.errors import ERRORS, ApiError, ErrorResponse

from .deps import Service

router = APIRouter()

# The events a person may send; cards, ticks and link events come only from the shoe and the clock.
# The club games' decisions (banker_stand ... withdraw) are in the same list: the engine of a
# blackjack table refuses them (409), as it refuses any decision that is not its game's.
ActionEvent = Annotated[
    Union[ev.PlaceBet, ev.Stand, ev.Double, ev.Split, ev.Surrender, ev.Insure, ev.EvenMoney, ev.CloseInsurance,
          ev.Shuffle, ev.CallPit, ev.Reserve, ev.CutCardOut, ev.VoidRound, ev.DiscardCard, ev.AcknowledgeAlert,
          ev.BankerStand, ev.Fold, ev.Contra, ev.Recontra, ev.Withdraw, ev.OpenBank, ev.CloseBank, ev.Dark,
          ev.DealIn, ev.DealerIn, ev.DealerOut],
    Field(discriminator="type"),
]

# SUPERVISOR_ACTIONS (imported above) is the engine's list of the actions only a supervisor may take
# (withdraw, open_bank, close_bank among them); every other action needs at least a dealer key.
__all__ = ["router", "ActionEvent", "SUPERVISOR_ACTIONS"]


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
    if kind in SUPERVISOR_ACTIONS and not who.may(Role.SUPERVISOR):
        raise ApiError(403, "forbidden", f"'{kind}' needs a supervisor key")
    if isinstance(event, ev.Shuffle) and event.shoe_id is not None:
        # A new shoe's id is the shoe's to give: a person naming one could end the card count of the shoe.
        raise ApiError(422, "invalid_request", "shoe_id is given by the shoe, not by a person", "shuffle.shoe_id")
    if isinstance(event, ev.Shuffle) and event.card_count is not None:
        # The cards loaded are the shoe's to count: a person's count would hide a short pack from the integrity check.
        raise ApiError(422, "invalid_request", "card_count is given by the shoe, not by a person",
                       "shuffle.card_count")
    if isinstance(event, ev.CutCardOut) and service.table.link_up:
        # The smart shoe reports its own cut card (CUT_CARD, docs/shoe-protocol.md 7) and owns its shoes: a
        # person's would end the shoe early. Refused here, not by the engine, which cannot tell it from the
        # shoe's own caught up from its heartbeat, and which must replay the journals that hold one already.
        raise ApiError(409, "shoe_owns_cut_card", "the smart shoe reports its own cut card: it comes out when the "
                       "shoe deals it, and ends the shoe then")
    event.at = None  # the service stamps the time it received the action
    try:
        seq, phase = await service.act(event, who.actor)
    except IllegalAction as exc:
        raise ApiError(409, exc.code, _reason(exc, kind, service)) from None
    except TableStopped as exc:
        raise ApiError(503, "table_stopped", str(exc)) from None
    return ActionResult(seq=seq, phase=phase)


def _reason(exc: IllegalAction, kind: str, service: TableService) -> str:
    """The engine's reason; for a decision of another game, said in words rather than as the event's repr."""
    if exc.code == "unknown_event":
        rules = service.table.rules
        return f"'{kind}' is not a decision of {rules.game} (this table plays {rules.name})"
    return exc.message


@router.post("/api/shoe/lock", response_model=ActionResult, tags=["write"],
             responses={**ERRORS, 409: {"model": ErrorResponse, "description": "no hold to release, or held already"},
                        503: {"model": ErrorResponse, "description": "the table has stopped (its journal failed)"}})
async def post_lock(body: LockRequest, who: Supervisor, service: Service) -> ActionResult:
    """Supervisor: hold the shoe's gate shut, or release that hold (the table's own reasons still lock it).

    Journalled as a `shoe_gate` event with the supervisor as actor; `GET /api/table` shows
    `gate_held` and every `lock_reasons`.
    """
    try:
        seq, phase = await service.act(ev.ShoeGate(locked=body.locked), who.actor)
    except IllegalAction as exc:
        raise ApiError(409, exc.code, exc.message) from None
    except TableStopped as exc:
        raise ApiError(503, "table_stopped", str(exc)) from None
    return ActionResult(seq=seq, phase=phase)
