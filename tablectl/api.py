"""The local HTTP API: the pit, the dealer's panel and the virtual dealer speak to the table here.

Reads show the table, the rounds, the shoe and the alerts; writes are the
dealer's and supervisor's actions in the session vocabulary, each through the
service's single ordered path and the journal, with the caller as actor. A
hole card is shown only to a supervisor until the dealer turns it.
"""



import asyncio
import hmac
import ipaddress
import json
from typing import Annotated, Any, AsyncIterator, Union

from fastapi import Depends, FastAPI, Header, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from controller import events as ev
from controller.engine import IllegalAction
from controller.view import HIDDEN, table_view

from .api_models import AlertModel, RoundRecord, RoundsPage, RulesModel, ShoeStatus, TableModel
from .config import ApiKey, Role
from .service import StreamItem, TableService

# The events a person may send; cards, ticks and link events come only from the shoe and the clock.
ActionEvent = Annotated[
    Union[ev.PlaceBet, ev.Stand, ev.Double, ev.Split, ev.Surrender, ev.Insure, ev.EvenMoney, ev.CloseInsurance,
          ev.Shuffle, ev.CallPit, ev.Reserve, ev.CutCardOut, ev.VoidRound, ev.DiscardCard, ev.AcknowledgeAlert],
    Field(discriminator="type"),
]

_RANK = {Role.VIEWER: 0, Role.DEALER: 1, Role.SUPERVISOR: 2, Role.ADMIN: 3}

# Actions only a supervisor may take (every other action needs at least a dealer key).
SUPERVISOR_ACTIONS = {"void_round", "discard_card", "ack_alert"}


class Caller(BaseModel):
    """Who is calling: the key's holder and role (or an anonymous loopback reader)."""

    name: str
    role: Role


class ErrorBody(BaseModel):
    """Every error answer: a machine code and a message a person can act on."""

    code: str
    message: str
    field: str | None = None


class ErrorResponse(BaseModel):
    """The envelope of an error answer."""

    error: ErrorBody


class ActionResult(BaseModel):
    """An accepted action: its journal sequence and the table's phase after it."""

    seq: int
    phase: str


class LockRequest(BaseModel):
    """Supervisor: hold the shoe's gate shut, or release it."""

    locked: bool


class Health(BaseModel):
    """Whether the parts of the table are well."""

    ok: bool
    shoe_link: bool
    journal: bool
    engine: bool
    phase: str
    last_error: str | None = None
    outputs_failed: dict[str, str] = Field(default_factory=dict)


ERRORS = {
    401: {"model": ErrorResponse, "description": "no API key, or an unknown one"},
    403: {"model": ErrorResponse, "description": "the key's role may not do this"},
    422: {"model": ErrorResponse, "description": "the request is malformed; `field` names what is wrong"},
}


def _error(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"error": {"code": code, "message": message, "field": field}})


class ApiError(Exception):
    """An error answer raised from inside a handler."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        self.status, self.code, self.message, self.field = status, code, message, field


def create_app(service: TableService) -> FastAPI:
    """The FastAPI application for one table service."""
    settings = service.settings.api
    keys: list[ApiKey] = list(settings.keys)
    app = FastAPI(title="tablectl", version="0.1.0",
                  description="Local API of one blackjack table controller.")

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message, exc.field)

    from fastapi.exceptions import RequestValidationError

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        err = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        field = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body",)) or None
        return _error(422, "invalid_request", str(err.get("msg")), field)

    def caller(request: Request, authorization: Annotated[str | None, Header()] = None,
               x_api_key: Annotated[str | None, Header()] = None) -> Caller:
        key = x_api_key
        if key is None and authorization and authorization.lower().startswith("bearer "):
            key = authorization[7:].strip()
        if key is None:
            if settings.open_reads_on_loopback and _loopback(request):
                return Caller(name="loopback", role=Role.VIEWER)
            raise ApiError(401, "no_key", "an API key is needed (Authorization: Bearer KEY)")
        digest = ApiKey.hash(key)
        found = None
        for k in keys:  # every key compared, in constant time, whatever matches
            if hmac.compare_digest(k.sha256, digest):
                found = k
        if found is None:
            raise ApiError(401, "bad_key", "this API key is not known")
        return Caller(name=found.name, role=found.role)

    def need(role: Role):  # noqa: ANN202 - FastAPI dependency factory
        def check(who: Annotated[Caller, Depends(caller)]) -> Caller:
            if _RANK[who.role] < _RANK[role]:
                raise ApiError(403, "forbidden", f"a {role.value} key is needed; this key is {who.role.value}")
            return who
        return check

    Viewer = Annotated[Caller, Depends(need(Role.VIEWER))]
    Dealer = Annotated[Caller, Depends(need(Role.DEALER))]
    Supervisor = Annotated[Caller, Depends(need(Role.SUPERVISOR))]

    @app.get("/healthz", response_model=Health, tags=["health"])
    def healthz() -> Health:
        """Is the shoe link up, the journal writable and the engine well? (no key needed)"""
        h = service.health
        return Health(ok=h.link_up and h.journal_ok and h.engine_ok, shoe_link=h.link_up, journal=h.journal_ok,
                      engine=h.engine_ok, phase=service.table.phase.value, last_error=h.last_error,
                      outputs_failed=h.outputs_failed)

    @app.get("/api/table", tags=["read"], responses=ERRORS, response_model=TableModel,
             response_model_exclude_unset=True)
    def get_table(who: Viewer) -> dict[str, Any]:
        """The table now: phase, boxes and hands, dealer, whose turn, shoe, alerts."""
        view = table_view(service.table, reveal_hole=_RANK[who.role] >= _RANK[Role.SUPERVISOR])
        view["table"] = service.settings.table.name
        view["last_seq"] = service.authority.journal.last_seq
        return view

    @app.get("/api/rules", tags=["read"], responses=ERRORS, response_model=RulesModel,
             response_model_exclude_unset=True)
    def get_rules(who: Viewer) -> dict[str, Any]:
        """The rule profile in force and every option's value."""
        rules = service.table.rules
        return {"profile": rules.name, "options": rules.options()}

    @app.get("/api/rounds", tags=["read"], responses=ERRORS, response_model=RoundsPage,
             response_model_exclude_unset=True)
    def get_rounds(who: Viewer, page: Annotated[int, Query(ge=1, le=10**9)] = 1,
                   size: Annotated[int, Query(ge=1, le=200)] = 20) -> dict[str, Any]:
        """Settled rounds, newest first, each with every card and its settlement."""
        journal = service.authority.journal
        return {"page": page, "size": size, "total": journal.round_count(),
                "rounds": journal.rounds((page - 1) * size, size)}

    @app.get("/api/rounds/{number}", tags=["read"], responses={**ERRORS, 404: {"model": ErrorResponse}},
             response_model=RoundRecord,
             response_model_exclude_unset=True)
    def get_round(number: Annotated[int, Path(ge=1, le=2**62)], who: Viewer) -> dict[str, Any]:
        """One settled round."""
        record = service.authority.journal.round(number)
        if record is None:
            raise ApiError(404, "no_such_round", f"round {number} has not been settled")
        return record

    @app.get("/api/shoe", tags=["read"], responses=ERRORS, response_model=ShoeStatus,
             response_model_exclude_unset=True)
    def get_shoe(who: Viewer) -> dict[str, Any]:
        """The shoe: id, cards dealt, penetration, cut card, and cards remaining by rank."""
        view = table_view(service.table)
        return {"shoe": view["shoe"], "shuffle_due": view["shuffle_due"], "right_to_cut": view["right_to_cut"],
                "locked": view["locked"]}

    @app.get("/api/alerts", tags=["read"], responses=ERRORS, response_model=list[AlertModel],
             response_model_exclude_unset=True)
    def get_alerts(who: Viewer) -> list[dict[str, Any]]:
        """Open alerts, oldest first."""
        return [a.as_dict() for a in service.table.open_alerts()]

    @app.post("/api/actions", response_model=ActionResult, tags=["write"],
              responses={**ERRORS, 409: {"model": ErrorResponse, "description": "illegal now; the engine's reason"}})
    def post_action(event: ActionEvent, who: Dealer) -> ActionResult:
        """A dealer's or supervisor's action, in the session vocabulary (bet, stand, double, ...)."""
        kind = event.type
        if kind in SUPERVISOR_ACTIONS and _RANK[who.role] < _RANK[Role.SUPERVISOR]:
            raise ApiError(403, "forbidden", f"'{kind}' needs a supervisor key")
        event.at = None  # the service stamps the time it received the action
        try:
            seq, _ = service.submit(event, f"{who.role.value}:{who.name}")
        except IllegalAction as exc:
            raise ApiError(409, exc.code, exc.message) from None
        return ActionResult(seq=seq, phase=service.table.phase.value)

    @app.post("/api/shoe/lock", response_model=ActionResult, tags=["write"], responses=ERRORS)
    def post_lock(body: LockRequest, who: Supervisor) -> ActionResult:
        """Supervisor: hold the shoe's gate shut, or release it (until the table's own state changes it)."""
        (service.link.lock if body.locked else service.link.unlock)()
        return ActionResult(seq=service.authority.journal.last_seq, phase=service.table.phase.value)

    @app.get("/api/events", tags=["read"], responses=ERRORS,
             response_class=StreamingResponse)
    async def events(request: Request, who: Viewer,
                     last_event_id: Annotated[str | None, Header()] = None) -> StreamingResponse:
        """Server-Sent Events: every journalled input as it happens; the id is the journal sequence.

        Reconnect with `Last-Event-ID` to get everything after it (from the recent buffer).
        """
        reveal = _RANK[who.role] >= _RANK[Role.SUPERVISOR]
        try:
            after = int(last_event_id) if last_event_id else None
        except ValueError:
            raise ApiError(422, "bad_last_event_id", "Last-Event-ID must be a journal sequence number",
                           "Last-Event-ID") from None
        queue: asyncio.Queue[StreamItem] = asyncio.Queue()
        service.subscribers.add(queue)
        backlog = [i for i in service.recent if after is not None and i.seq > after]
        gap = after is not None and service.recent and service.recent[0].seq > after + 1

        async def stream() -> AsyncIterator[bytes]:
            try:
                yield b"retry: 1000\n\n"
                if gap:
                    yield b"event: reset\ndata: {}\n\n"  # too far behind: reload the table
                last = after or 0
                for item in backlog:
                    last = item.seq
                    yield _sse(item, reveal)
                while True:
                    try:
                        item = await asyncio.wait_for(queue.get(), timeout=15)
                    except asyncio.TimeoutError:
                        yield b": keep-alive\n\n"
                        if await request.is_disconnected():
                            return
                        continue
                    if item.seq > last:
                        last = item.seq
                        yield _sse(item, reveal)
            finally:
                service.subscribers.discard(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    from .dashboard import mount_dashboard
    from .metrics import mount_metrics

    mount_dashboard(app, service)
    mount_metrics(app, service)
    return app


def _sse(item: StreamItem, reveal: bool) -> bytes:
    event = item.event
    effects = item.effects
    if item.secret_card and not reveal:
        event = {**event, "card": HIDDEN}
        effects = [{**e, "card": HIDDEN} if e.get("effect") == "CardPlaced" else e for e in effects]
    data = json.dumps({"seq": item.seq, "event": event, "phase": item.phase, "effects": effects},
                      separators=(",", ":"), default=str)
    return f"id: {item.seq}\nevent: table\ndata: {data}\n\n".encode()


def _loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in ("testclient", "localhost")
