"""Reads: the table now, its rules, the settled rounds, the shoe, the alerts, the shift's figures, exports.

Every handler is ``async`` so it runs on the event loop, between two inputs of
the service's single ordered path: a read never sees half an input applied.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from datetime import timedelta, timezone
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, Field

from controller.authority import export_shoe
from controller.journal import JournalError
from controller import registry
from controller.rules import DEFAULT_GAME
from controller.view import head_view, table_view

from tablectl.web.auth import Supervisor, Viewer
from tablectl.parts import public_part, public_parts, static_dir
from tablectl.zones import zone_of
from tablectl.web.errors import ERRORS, ApiError, ErrorResponse

from .deps import Service
from .models import (AlertModel, DealersModel, EdgeModel, FiguresModel, PlayersModel, RulesModel, ShoeStatus,
                     record_model, rounds_page_model, table_model)

router = APIRouter()
T = TypeVar("T")

# Every number a route takes is bounded, so nothing out of range reaches SQLite or the engine.
RoundNumber = Annotated[int, Path(ge=1, le=2**62)]


# A report replays rows of the journal (a dispute record, the players' evidence, the dealers' figures, an export):
# one at a time on a table (issue 37), in a worker thread with its own SQLite connection, never on the event loop
# where the card path runs. Another asked meanwhile is answered 429 `busy` with Retry-After, at once.
REPORT_RETRY_AFTER_S = 5
_BUSY: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorResponse, "description": "another report is being made on this table: ask again after "
                                                 "Retry-After seconds"}}


async def one_report(request: Request, work: Callable[[], T]) -> T:
    """Run ``work`` in a worker thread, the table's one report at a time; ApiError 429 while another runs.

    The gate is a thread lock released by the worker itself, so a client that goes away does not free it while
    its report still runs."""
    lock: threading.Lock = request.app.state.report_lock
    if not lock.acquire(blocking=False):
        raise ApiError(429, "busy", "another report is being made on this table (a dispute record, the players' or "
                       f"dealers' figures, an export): ask again in {REPORT_RETRY_AFTER_S} seconds",
                       headers={"Retry-After": str(REPORT_RETRY_AFTER_S)})
    started = threading.Event()

    def run() -> T:
        started.set()
        try:
            return work()
        finally:
            lock.release()

    try:
        return await asyncio.to_thread(run)
    except BaseException:
        if not started.is_set():  # (never handed to a thread: nobody else will release it)
            lock.release()
        raise


def _as_read(record: dict[str, Any], settled_at: str | None) -> dict[str, Any]:
    """A kept round record as the API reads it out: when it was settled, and who dealt it as its game names
    him (``dealer_title``; a record of a game this release does not play names the dealer)."""
    name = record.get("game", DEFAULT_GAME)  # (a record without its game's name is the first game's: blackjack)
    title = registry.game(name).dealer_title if registry.is_game(name) else "Dealer"
    return {**record, "settled_at": settled_at, "dealer_title": title}


class Health(BaseModel):
    """Whether the parts of the table are well."""

    ok: bool
    shoe_link: bool
    journal: bool
    engine: bool
    phase: str
    last_error: str | None = None
    outputs_failed: dict[str, str] = Field(default_factory=dict)


@router.get("/healthz", response_model=Health, tags=["health"])
async def healthz(service: Service) -> Health:
    """Is the shoe link up, the journal writable and the engine well? (no key needed)"""
    h = service.health
    return Health(ok=h.link_up and h.journal_ok and h.engine_ok, shoe_link=h.link_up, journal=h.journal_ok,
                  engine=h.engine_ok, phase=service.table.phase.value, last_error=h.last_error,
                  outputs_failed=h.outputs_failed)


class Language(BaseModel):
    """The pit's language (`[table] language`)."""

    language: str = Field(description="en or ru: the pages' words, numbers, money and times, unless a browser chose "
                                      "its own")


@router.get("/api/language", response_model=Language, tags=["public"])
async def language(service: Service) -> Language:
    """The table's language, for the pages a table-side screen shows without a key (the baccarat scoreboard);
    the dashboard has it in /api/table. (no key needed)"""
    return Language(language=service.settings.table.language)


async def get_table(who: Viewer, service: Service) -> dict[str, Any]:
    """The table now: phase, boxes and hands, dealer, whose turn, shoe, alerts, the journal's head.

    `head.mac` is null below supervisor while a card is face down: every MAC from its row on is
    chained over the card, so a copy of the table's key would find it in 52 tries.
    """
    view = table_view(service.table, reveal_closed=who.sees_closed_cards)
    view["table"] = service.settings.table.name
    head = head_view(service.head(), service.masked_seqs(), who.sees_closed_cards)
    view["last_seq"] = head["seq"]
    view["head"] = head  # its MAC withheld below supervisor while a card is face down (head_view says why)
    duty, since, minutes = view["dealer_on_duty"], service.table.dealer_since, service.settings.table.dealer_break_minutes
    if duty is not None:  # dealer rotation: when he is due for a break, from his sign-in (the dashboard counts to it)
        duty["break_due_at"] = (since + timedelta(minutes=minutes)).isoformat() if since is not None and minutes \
            else None
    view["demo_pace"] = service.settings.table.demo_pace or None  # a demo's dealer deals faster than a real one
    view["language"] = service.settings.table.language  # the pit's language, unless a browser chose its own
    status = service.last_status  # the shoe's own heartbeat: a jam or an open lid outlives its alert
    view["shoe_device"] = {"link_up": service.health.link_up,
                           "gate_locked": status.locked if status is not None else None,
                           "jammed": bool(status and status.jammed), "lid_open": bool(status and status.lid_open)}
    return view


@router.get("/api/rules", tags=["read"], responses=ERRORS, response_model=RulesModel,
            response_model_exclude_unset=True)
async def get_rules(who: Viewer, service: Service) -> dict[str, Any]:
    """The rule profile in force and every option's value."""
    rules = service.table.rules
    return {"profile": rules.name, "options": rules.options()}


async def get_rounds(who: Viewer, service: Service, page: Annotated[int, Query(ge=1, le=10**9)] = 1,
                     size: Annotated[int, Query(ge=1, le=200)] = 20) -> dict[str, Any]:
    """Settled rounds, newest first, each with every card and its settlement."""
    with service.reader() as journal:
        rounds = journal.rounds((page - 1) * size, size)
        times = journal.round_times([r["number"] for r in rounds])
        return {"page": page, "size": size, "total": journal.round_count(),
                "rounds": [_as_read(r, times.get(r["number"])) for r in rounds]}


async def get_round(number: RoundNumber, who: Viewer, service: Service) -> dict[str, Any]:
    """One settled round."""
    with service.reader() as journal:
        record = journal.round(number)
        settled_at = journal.round_times([number]).get(number)
    if record is None:
        raise ApiError(404, "no_such_round", f"round {number} has not been settled")
    return _as_read(record, settled_at)


@router.get("/api/shoe", tags=["read"], responses=ERRORS, response_model=ShoeStatus,
            response_model_exclude_unset=True)
async def get_shoe(who: Viewer, service: Service) -> dict[str, Any]:
    """The shoe: id, cards dealt, penetration, cut card, and cards remaining by rank."""
    view = table_view(service.table)
    return {"shoe": view["shoe"], "shuffle_due": view["shuffle_due"], "right_to_cut": view["right_to_cut"],
            "shoe_figures": view["shoe_figures"], "locked": view["locked"]}


@router.get("/api/alerts", tags=["read"], responses=ERRORS, response_model=list[AlertModel],
            response_model_exclude_unset=True)
async def get_alerts(who: Viewer, service: Service) -> list[dict[str, Any]]:
    """Open alerts, oldest first."""
    return [a.as_dict(who.sees_closed_cards) for a in service.table.open_alerts()]


@router.get("/api/export", tags=["read"], responses={**ERRORS, **_BUSY, 404: {"description": "no such round or shoe"}},
            response_class=Response)
async def export(who: Viewer, service: Service, request: Request,
                 round: Annotated[int | None, Query(ge=1, le=2**62)] = None,
                 shoe: Annotated[str | None, Query(min_length=1, max_length=64)] = None) -> Response:
    """One round (`?round=N`) or one shoe (`?shoe=ID`) as a session file (JSON Lines) that replays alone."""
    if (round is None) == (shoe is None):
        raise ApiError(422, "invalid_request", "give exactly one of round or shoe", "query.round")
    masked = () if who.sees_closed_cards else service.masked_seqs()

    def read() -> list[dict[str, Any]] | None:  # the whole journal is read: off the event loop
        with service.reader() as journal:
            return export_shoe(journal, round_number=round, shoe_id=shoe, masked=masked)

    lines = await one_report(request, read)
    if not lines:
        what = f"round {round} has not been settled" if round is not None else f"shoe {shoe!r} is not in the journal"
        raise ApiError(404, "not_found", what)
    name = f"round-{round}" if round is not None else f"shoe-{_safe(shoe or '')}"
    table = _safe(service.settings.table.name)
    body = "".join(json.dumps(line, separators=(",", ":"), default=str) + "\n" for line in lines)
    return Response(body, media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{table}-{name}.jsonl"'})


@router.get("/api/figures", tags=["read"], responses=ERRORS, response_model=FiguresModel)
async def get_figures(who: Viewer, service: Service,
                      hours: Annotated[float, Query(gt=0, le=24)] = 8) -> dict[str, Any]:
    """Rounds and hands per hour, the table's result (house side) in all, per box and per player, with a series."""
    now = service.clock()

    def read() -> dict[str, Any]:  # a shift of rounds is read: off the event loop, where the writer runs
        from tablectl.figures import figures  # (loaded with the first figures asked for: see get_dispute)

        with service.reader() as journal:
            return figures(journal, now, hours)

    return await asyncio.to_thread(read)


@router.get("/api/edge", tags=["read"], responses=ERRORS, response_model=EdgeModel)
async def get_edge(who: Supervisor, request: Request) -> dict[str, Any]:
    """Supervisor: the exact edge of the next round from the cards left (the newest the worker computed),
    beside the Hi-Lo count and its rule-of-thumb estimate; at a game with exact odds per spot (baccarat), every
    spot's (``spots``). Surveillance's figure: never in the table's view."""
    edge = request.app.state.edge
    latest = edge.latest if edge is not None else None
    spots = edge.latest_spots if edge is not None and latest is None else None
    if spots is not None:  # a game with exact odds per spot (baccarat's): every spot's, for the coup about to be dealt
        return {"available": True, "shoe": spots["shoe"], "cards_out": spots["cards_out"],
                "spots": {name: {"player_edge_pct": round(100 * float(e), 4), "house_edge_pct": round(-100 * float(e), 4)}
                          for name, e in spots["expectations"].items()}}
    if latest is None:
        reason = ("the exact edge is off ([table] exact_edge) or not this game's" if edge is None
                  else "not yet: it is computed after the first round of a shoe, and between rounds")
        return {"available": False, "reason": reason}
    return {"available": True, **latest}


@router.get("/api/dealers", tags=["read"], responses={**ERRORS, **_BUSY}, response_model=DealersModel)
async def get_dealers(who: Supervisor, service: Service, request: Request,
                      hours: Annotated[float, Query(gt=0, le=24)] = 8) -> dict[str, Any]:
    """Supervisor: each dealer's pace, corrections and shoes per shift over the last ``hours``.

    The supervisor's, not the floor's viewers': a dealer's figures are a personnel matter. The journal is
    replayed from its start (who was on duty before the window is known from it), off the event loop.
    """
    since = service.clock() - timedelta(hours=hours)

    def read() -> dict[str, Any]:
        from tablectl.figures import dealer_book, dealer_json

        with service.reader() as journal:
            return {"hours": hours, "dealers": [dealer_json(line) for line in dealer_book(journal, since).report()]}

    return await one_report(request, read)


@router.get("/api/rounds/{number}/dispute", tags=["read"], response_class=Response,
            responses={**ERRORS, **_BUSY, 200: {"content": {"text/html": {}, "application/pdf": {}, "application/json": {}},
                                       "description": "the record, in the format asked for"},
                       404: {"model": ErrorResponse, "description": "the journal holds no such round"},
                       409: {"model": ErrorResponse, "description": "the round is not settled yet, or a card of it is "
                                                                    "still face down at the table"},
                       500: {"model": ErrorResponse, "description": "the table's journal does not verify"},
                       503: {"model": ErrorResponse, "description": "no PDF can be made on this table (no pango): "
                                                                    "ask for html or json"}})
async def get_dispute(number: RoundNumber, who: Supervisor, service: Service, request: Request,
                      format: Annotated[Literal["html", "pdf", "json"], Query()] = "html") -> Response:
    """Supervisor: the record of a disputed round (docs/dispute.md), the pit's copy (no count).

    The journal is verified with the table's key as the record is made, and the round replayed from the
    journal's first row: off the event loop. The dashboard's round rows link here; `tablectl dispute` makes
    the same record (and surveillance's copy, with the count at each bet) from a copy of the journal.
    """
    settings = service.settings
    zone_name = settings.table.time_zone or None
    exported_at = service.clock()

    def make() -> tuple[bytes, str]:
        # The record's code is loaded with the first record asked for, in this thread (a disputed round is
        # rare), as the figures' with the first figures: a table nobody watches deals its shift without them
        # (1.3 MiB of its RSS; benchmarks/soak.py), and a first import never holds the writer's loop.
        from controller.dispute import Copy, DisputeOptions, NoSuchRound, RoundNotSettled, RoundStillClosed
        from tablectl.dispute import MEDIA_TYPES, PdfUnavailable, make_record, render

        options = DisputeOptions(
            round_number=number, table=settings.table.name, exported_by=who.actor, exported_at=exported_at,
            time_zone=zone_of(zone_name) if zone_name else timezone.utc, time_zone_name=zone_name,
            camera=settings.dispute.camera or None, recorder_offset_s=settings.dispute.recorder_offset_s,
            copy=Copy.PIT)
        try:
            with service.reader() as journal:
                record = make_record(journal, options)
            return render(record, format), MEDIA_TYPES[format]  # (a PDF takes a second or two: off the loop too)
        except NoSuchRound as exc:
            raise ApiError(404, "no_such_round", str(exc)) from None
        except RoundNotSettled as exc:
            raise ApiError(409, "not_settled", str(exc)) from None
        except RoundStillClosed as exc:
            raise ApiError(409, "card_still_closed", str(exc)) from None
        except PdfUnavailable as exc:
            raise ApiError(503, "pdf_unavailable", str(exc)) from None

    try:
        data, media_type = await one_report(request, make)
    except JournalError as exc:
        raise ApiError(500, "journal_refused", str(exc)) from None
    name = f"{_safe(settings.table.name)}-round-{number}-dispute.{format}"
    headers = {"Content-Disposition": f'{"inline" if format == "html" else "attachment"}; filename="{name}"'}
    if format == "html":
        # The page is self-contained: nothing on it may load or run anything (its values are escaped already).
        headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
    return Response(data, media_type=media_type, headers=headers)


@router.get("/api/players", tags=["read"], responses={**ERRORS, **_BUSY}, response_model=PlayersModel)
async def get_players(who: Supervisor, service: Service, request: Request,
                      hours: Annotated[float, Query(gt=0, le=24)] = 8) -> dict[str, Any]:
    """Supervisor: each player's and box's advantage-play evidence over the last ``hours`` (evidence, not a verdict).

    The supervisor's (and surveillance's, with the journal's key: `tablectl protect players`), never the
    dealer's or a viewer's: it speaks of the count, and names players. The journal is replayed from its
    start (the count of the shoe in play when the window opens is known from it), off the event loop.
    """
    since = service.clock() - timedelta(hours=hours)

    def read() -> dict[str, Any]:
        from controller.protection.advantage import FLAG_ALPHA
        from tablectl.figures import player_book, player_json
        from tablectl.parts import game_evidence

        with service.reader() as journal:
            reports = player_book(journal, since, evidence_of=game_evidence).report()
        return {"hours": hours, "note": "advantage-play evidence, not a verdict", "flag_alpha": FLAG_ALPHA,
                "players": [player_json(r) for r in reports]}

    return await one_report(request, read)


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:64] or "table"


def _public_read(name: str) -> Any:
    async def read(service: Service) -> dict[str, Any]:
        game = service.table.rules.game
        found = public_part(game)
        if found is None or name not in found.reads:
            raise ApiError(404, "not_this_game", f"the game played at this table ({game}) has no {name}")
        return found.reads[name](service.table)
    read.__doc__ = f"The table's {name} (no key: public at the table; a game's public read, docs/games.md)."
    return read


def _public_page(name: str) -> Any:
    async def page(service: Service) -> FileResponse:
        game = service.table.rules.game
        found = public_part(game)
        if found is None or name not in found.pages:
            raise ApiError(404, "not_this_game", f"the game played at this table ({game}) has no {name} page")
        return FileResponse(static_dir(game) / found.pages[name], headers={"Cache-Control": "no-cache"})
    return page


def make_router() -> APIRouter:
    """The reads whose answers are each game's own (the table, its rounds), built when the app is made from the
    loaded games' view models (the table's own game is loaded by then: its rules name it); and every
    registered game's public reads and pages (`tablectl.parts.PublicPart`, a light part, loaded without its engine:
    a table of another game answers 404 not_this_game), each name once."""
    games = APIRouter()
    reads: set[str] = set()
    pages: set[str] = set()
    for _, public in public_parts():
        for name in public.reads:
            if name not in reads:
                reads.add(name)
                games.get(f"/api/{name}", tags=["read", "public"],
                          responses={404: {"model": ErrorResponse}})(_public_read(name))
        for name in public.pages:
            if name not in pages:
                pages.add(name)
                games.get(f"/{name}", include_in_schema=False)(_public_page(name))
    games.get("/api/table", tags=["read"], responses=ERRORS, response_model=table_model(),
              response_model_exclude_unset=True)(get_table)
    games.get("/api/rounds", tags=["read"], responses=ERRORS, response_model=rounds_page_model(),
              response_model_exclude_unset=True)(get_rounds)
    games.get("/api/rounds/{number}", tags=["read"], responses={**ERRORS, 404: {"model": ErrorResponse}},
              response_model=record_model(), response_model_exclude_unset=True)(get_round)
    return games

