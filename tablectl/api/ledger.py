"""The table's ledger as the floor gets it: `GET /api/ledger`, for a floor filling a gap by itself.

Nothing flows from the broker into a table, so a floor that lost rows the broker had acknowledged
(its session dropped, the broker's store lost) asks the table's API for them. It gets exactly what
the publisher puts on the broker: each row its ledger message, byte for byte
(`tablectl.fleet.wire.published_form`, the publisher's own rule), a row holding a face-down card
masked and every row after it without its MAC until the card is turned. So the floor's key, next to
the table's journal key the floor holds, learns nothing the broker would not have told it.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from tablectl.web.auth import Floor
from tablectl.web.errors import ERRORS

from .deps import Service

router = APIRouter()

MAX_ROWS = 500  # a page: at most 500 ledger messages of at most 16 KiB each


@router.get("/api/ledger", tags=["read"], response_class=Response,
            responses={**ERRORS, 200: {"description": "one ledger message a line, as the table publishes it",
                                       "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}})
async def get_ledger(who: Floor, service: Service, after: Annotated[int, Query(ge=0, le=2**62)] = 0,
                     limit: Annotated[int, Query(ge=1, le=MAX_ROWS)] = 100) -> Response:
    """Floor (or supervisor): the ledger rows after seq `after`, at most `limit`, as the publisher publishes them.

    JSON Lines, one ledger message a line (docs/floor.md, "The wire format"): a row holding a card
    face down comes with the card as `XX` and `mac: null`, and every row after it with `mac: null`,
    until the card is turned; then they come final. Nothing after the head: an empty answer.
    """
    # The head and the face-down rows at one instant, on the event loop between two inputs: every row up
    # to that head was written by then, and a row only ever leaves `masked` (turned), never joins it later,
    # so the rows read below, however late, are given out no more final than they were at this instant.
    head = service.head()[0]
    masked = frozenset(service.masked_seqs())
    table = service.settings.fleet.table_id
    take = min(limit, max(0, head - after))

    def read() -> bytes:  # SQLite and JSON off the event loop, where the writer runs
        # (Imported here, at a floor's first ask: the wire's pydantic models cost every table's service
        # 0.4 MB of RSS from its start, benchmarks/rss.py, and most tables are never asked.)
        from tablectl.fleet.wire import published_form

        if not take:
            return b""
        with service.reader() as journal:
            rows = journal.ledger_rows(after, take)
        return b"".join(line + b"\n" for line in published_form(table, rows, masked))

    return Response(await asyncio.to_thread(read), media_type="application/x-ndjson")
