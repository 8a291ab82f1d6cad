"""Writes: a dealer's or supervisor's action, and the supervisor's hold on the shoe's gate."""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Union, cast

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field

from controller import events as ev
from controller import registry
from controller.engine import IllegalAction

from tablectl.config import Role
from tablectl.service import TableService, TableStopped
from tablectl.web.auth import Dealer, Supervisor
from tablectl.web.errors import ERRORS, ApiError, ErrorResponse, error_response

from .deps import Service

__all__ = ["action_events", "install_foreign_decisions", "make_router"]


def action_events() -> Any:
    """The events a person may send, as the request body's type: the table's own (`controller.events.PERSON_EVENTS`:
    cards, ticks and link events come only from the shoe and the clock) and every loaded game's decisions (the
    table's own, and those of any game this process loaded). A table refuses a decision of another loaded game than
    its own (409), as it refuses any decision that is not its game's; one of a game not loaded is not an event (422)."""
    classes = (*ev.PERSON_EVENTS, *registry.event_classes())
    return Annotated[cast(Any, Union)[classes], Field(discriminator="type")]


class ActionResult(BaseModel):
    """An accepted action: its journal sequence and the table's phase after it."""

    seq: int
    phase: str


class LockRequest(BaseModel):
    """Supervisor: hold the shoe's gate shut, or release it."""

    locked: bool


async def post_action(event: ev.Event, who: Dealer, service: Service) -> ActionResult:
    """A dealer's or supervisor's action, in the session vocabulary (bet, stand, double, ...)."""
    kind = event.type
    # Only a supervisor may take the table's own supervisor actions and each game's (a club game's withdraw, its
    # bank); every other action needs at least a dealer key.
    if kind in registry.supervisor_actions() and not who.may(Role.SUPERVISOR):
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
    if isinstance(event, ev.BuyIn):
        if event.method == "marker" and not who.may(Role.SUPERVISOR):
            raise ApiError(403, "forbidden", "a marker is credit: it needs a supervisor key")
        for name in ("gaming_day", "mtl_notice", "mtl_action"):
            if getattr(event, name) is not None:
                # The gaming day and the log's thresholds are the table's (its clock and config): a person's would
                # move a buy-in out of the day it counts in, or past the threshold it crosses.
                raise ApiError(422, "invalid_request", f"{name} is given by the table, not by a person",
                               f"buy_in.{name}")
    if isinstance(event, (ev.Closer, ev.Drop)) and event.tolerance is not None:
        # The table's config, as the MTL's thresholds: a person's would let a count short pass the board unseen.
        raise ApiError(422, "invalid_request", "tolerance is given by the table, not by a person",
                       f"{event.type}.tolerance")
    event.at = None  # the service stamps the time it received the action
    try:
        seq, phase = await service.act(event, who.actor)
    except IllegalAction as exc:
        raise ApiError(409, exc.code, _reason(exc, kind, service)) from None
    except TableStopped as exc:
        raise ApiError(503, "table_stopped", str(exc)) from None
    return ActionResult(seq=seq, phase=phase)


def install_foreign_decisions(app: FastAPI) -> None:
    """A decision of a game this table's app does not know is refused in words (409 ``unknown_event``).

    The body's union holds the games loaded when the app is made: the table's own (issue 36: the other engines are not
    loaded). A decision of another installed game then failed the union as if it were no event at all (422, its tag
    among the expected ones), where a decision of a loaded one reaches the engine and is refused in words: both are
    now refused in words. A type no game knows stays the union's 422, and a known one's fields are checked as before."""
    shared = app.exception_handlers[RequestValidationError]
    known = {ev.wire_type(cls) for cls in (*ev.PERSON_EVENTS, *registry.event_classes())}  # (the union's, as made)

    async def _validation(request: Request, exc: Exception) -> Response:
        body = getattr(exc, "body", None)
        kind = body.get("type") if isinstance(body, dict) else None
        if (request.url.path == "/api/actions" and isinstance(kind, str) and len(kind) <= 64 and kind not in known
                and kind in _any_games_decisions()):
            rules = request.app.state.service.table.rules
            return error_response(409, "unknown_event",
                                  f"'{kind}' is not a decision of {rules.game} (this table plays {rules.name})")
        answer = shared(request, exc)  # (the shared envelope's handler: a coroutine)
        return await answer if inspect.isawaitable(answer) else answer

    app.add_exception_handler(RequestValidationError, _validation)


def _any_games_decisions() -> set[str]:
    """The wire types of every installed game's events: its engines loaded for it, on this path only (a client that
    sends another game's decision; a type no game knows stays the union's 422)."""
    return {ev.wire_type(cls) for e in registry.load_all() for cls in e.game.dispatch}


def _reason(exc: IllegalAction, kind: str, service: TableService) -> str:
    """The engine's reason; for a decision of another game, said in words rather than as the event's repr."""
    if exc.code == "unknown_event":
        rules = service.table.rules
        return f"'{kind}' is not a decision of {rules.game} (this table plays {rules.name})"
    return exc.message


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


def make_router() -> APIRouter:
    """The write routes, built when the app is made: the action's body is the union of every event a person may
    send, the loaded games' included (the table's own game is loaded by then: its rules name it)."""
    router = APIRouter()
    post_action.__annotations__["event"] = action_events()  # (FastAPI reads the body's type from the signature)
    router.post("/api/actions", response_model=ActionResult, tags=["write"],
                responses={**ERRORS, 409: {"model": ErrorResponse, "description": "illegal now; the engine's reason"},
                           503: {"model": ErrorResponse,
                                 "description": "the table has stopped (its journal failed)"}})(post_action)
    router.post("/api/shoe/lock", response_model=ActionResult, tags=["write"],
                responses={**ERRORS, 409: {"model": ErrorResponse,
                                           "description": "no hold to release, or held already"},
                           503: {"model": ErrorResponse,
                                 "description": "the table has stopped (its journal failed)"}})(post_lock)
    return router

