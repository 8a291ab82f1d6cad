"""The floor's HTTP API and dashboard, with the key roles, error envelope and edge of the shared web layer.

Reads only: nothing here reaches a table. Viewers see the tiles, gaps and
incidents; the rows themselves and a table's session export need a
supervisor key (surveillance).
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from pathlib import Path as FsPath
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Path, Query, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from tablectl.fleet.wire import TABLE_ID
from tablectl.web.auth import KeyRing, Supervisor, Viewer
from tablectl.web.errors import ERRORS, ApiError, ErrorResponse, error_response, install_error_handlers
from tablectl.web.guard import edge_app

from . import ExportError, StoreError
from .export import export_text
from .service import EXPORT_WAIT, FloorService, pits, totals, with_alerts

log = logging.getLogger("tablectl.floor")
STATIC = FsPath(__file__).with_name("static")
STORE_RETRY_SECONDS = 5  # Retry-After of a 503 while the store's database is away
TableId = Annotated[str, Path(pattern=TABLE_ID)]
NOT_FOUND = {**ERRORS, 404: {"model": ErrorResponse, "description": "no such table on the floor"}}

router = APIRouter()


async def _floor(request: Request) -> FloorService:
    floor: FloorService = request.app.state.floor
    # With several workers: what the others stored too (at most REFRESH_SECONDS old), if the store answers in
    # time; the store is read on its own thread, so a database that stalls stalls no route (store_thread.py).
    await floor.refreshed()
    return floor


def _known(floor: FloorService, table: str) -> None:
    if table not in floor.store.tracks or not floor.is_known(table):
        raise ApiError(404, "unknown_table", f"the floor has heard nothing from table {table!r}")


async def _open_gaps(floor: FloorService) -> list[dict[str, Any]]:
    return [g for g in await floor.read(floor.store.open_gaps) if floor.is_known(g["table"])]


@router.get("/healthz", tags=["health"])
async def healthz(request: Request) -> dict[str, Any]:
    """Is the floor connected to the broker, does its store answer? (no key needed)

    Never waits on the store: everything here is what this process holds (issue 37: with the database stalled
    this route hung with it). `ok`: connected and the store answering."""
    floor: FloorService = request.app.state.floor
    tables = floor.tables()
    tracks = floor.store.tracks
    store = floor.store_status()
    return {"ok": floor.connected and store["available"], "broker": floor.connected,
            "store": "ok" if store["available"] else "unavailable", "store_since": store["since"],
            "tables": len(tables), "open_gaps": sum(len(t.gaps) for tid in tables if (t := tracks.get(tid))),
            "messages": floor.messages, "ledger_rows": floor.ledger_rows, "dropped": floor.dropped,
            "client_id": floor.settings.floor.client_id, "shared_group": floor.shared_group or None}


@router.get("/api/floor", tags=["read"], responses=ERRORS)
async def get_floor(who: Viewer, request: Request) -> dict[str, Any]:
    """Every table's tile (alarms first, then the tables waiting, then by name), the floor's totals, and the
    tables grouped by pit."""
    floor = await _floor(request)
    tiles = floor.tiles()
    # `store`: whether the store answers; while it does not, the tiles are as last read (`read_at`), and the page
    # says so.
    return {"floor": floor.settings.floor.name, "connected": floor.connected, "store": floor.store_status(),
            "tables": tiles, "with_alerts": with_alerts(tiles), "totals": totals(tiles), "pits": pits(tiles)}


@router.get("/api/tables/{table}", tags=["read"], responses=NOT_FOUND)
async def get_table(who: Viewer, request: Request, table: TableId) -> dict[str, Any]:
    """One table's tile, its open gaps and its retained state as published."""
    floor = await _floor(request)
    _known(floor, table)
    state = floor.store.tracks[table].state
    tile = floor.tile(table)
    return {**tile, "open_gaps": await floor.read(floor.store.open_gaps, table),
            "state": state.as_published() if state is not None else None}


@router.get("/api/gaps", tags=["read"], responses=ERRORS)
async def get_gaps(who: Viewer, request: Request) -> dict[str, Any]:
    """Every gap not (yet) filled, on any table."""
    return {"gaps": await _open_gaps(await _floor(request))}


@router.get("/api/incidents", tags=["read"], responses=ERRORS)
async def get_incidents(who: Viewer, request: Request,
                        limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """What the floor reported (gaps, bad MACs, conflicts, dropped messages), newest first."""
    floor = await _floor(request)
    return {"incidents": await floor.read(floor.store.incidents, limit)}


@router.get("/api/tables/{table}/rows", tags=["read"], responses=NOT_FOUND)
async def get_rows(who: Supervisor, request: Request, table: TableId,
                   after: Annotated[int, Query(ge=0, le=2**62)] = 0,
                   limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """A table's ledger rows after seq `after`, as the floor holds them, with their MAC check."""
    floor = await _floor(request)
    _known(floor, table)
    return {"table": table, "rows": [r.as_dict() for r in await floor.read(floor.store.rows, table, after, limit)]}


@router.get("/api/tables/{table}/export", tags=["read"], responses={**NOT_FOUND, 409: {"model": ErrorResponse}})
async def get_export(who: Supervisor, request: Request, table: TableId) -> Response:
    """The table's session file (JSON Lines) for `tablectl replay`; 409 if any row of it is not the table's for sure.

    `X-Tablectl-Verified: yes` when every row verified against the table's key, `no-key` when the floor has none.
    """
    floor = await _floor(request)
    _known(floor, table)
    try:
        text = await floor.read(export_text, floor.store, table, wait=EXPORT_WAIT)
    except ExportError as exc:
        raise ApiError(409, "incomplete", str(exc)) from None
    # Whether every row verified against the table's key, or the floor had none to check them with.
    verified = "yes" if table in floor.keys else "no-key"
    return Response(text, media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{table}.jsonl"',
                             "X-Tablectl-Verified": verified})


@router.get("/api/ratings", tags=["read"], responses=ERRORS)
async def get_ratings(who: Supervisor, request: Request,
                      table: Annotated[str | None, Query(pattern=TABLE_ID)] = None,
                      since: Annotated[datetime | None, Query()] = None,
                      limit: Annotated[int, Query(ge=1, le=10_000)] = 1000) -> dict[str, Any]:
    """The players' rating slips the tables pushed (docs/ratings.md): each ended session once, the export's line,
    oldest end first; of one table, ended at or after `since`. A supervisor's: it names players and their money."""
    floor = await _floor(request)
    after = None
    if since is not None:
        at = since if since.tzinfo is not None else since.replace(tzinfo=timezone.utc)
        after = at.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return {"sessions": await floor.read(floor.store.ratings, table, after, limit)}


@router.get("/", include_in_schema=False)
async def index() -> FileResponse:
    """The floor dashboard's page."""
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


def create_floor_app(floor: FloorService) -> FastAPI:
    """The FastAPI application of one floor service."""
    app = FastAPI(title="tablectl floor", version="0.1.0", description="The casino floor: every table at once.",
                  max_body_size=floor.settings.api.max_body_bytes)
    edge_app(app, floor.settings.api)
    app.state.floor = floor
    app.state.keys = KeyRing(floor.settings.api)
    install_error_handlers(app)

    async def store_unavailable(request: Request, exc: Exception) -> Response:
        # The database away (a PostgreSQL restart, a network cut; SQLite's file unreadable) is the store's state,
        # not a bug: the routes that read rows say so, in the error envelope, and when to ask again.
        log.warning("floor store unreadable answering %s: %s", request.url.path, str(exc).strip()[:300])
        return error_response(503, "store_unavailable", "the floor's store cannot be read just now (its database "
                              "is away); the dashboard shows what was last read; ask again shortly",
                              headers={"Retry-After": str(STORE_RETRY_SECONDS)})

    unavailable: tuple[type[Exception], ...] = (StoreError, *floor.store.db.errors)  # StoreError: no reconnection yet
    for error in unavailable:
        app.add_exception_handler(error, store_unavailable)
    app.include_router(router)
    app.mount("/floor-static", StaticFiles(directory=STATIC), name="floor-static")
    return app
