"""The live event stream (Server-Sent Events): every journalled input as it happens."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Annotated, AsyncIterator

from fastapi import APIRouter, Header, Request
from fastapi.responses import StreamingResponse

from controller import registry
from controller.closed import mask_effects, mask_event

from tablectl.web.auth import Viewer
from tablectl.web.errors import ERRORS, ApiError

from .deps import Service

from tablectl.service import SubscriberLagged

if TYPE_CHECKING:  # for annotations only
    from tablectl.service import StreamItem

router = APIRouter()


@router.get("/api/events", tags=["read"], responses=ERRORS, response_class=StreamingResponse)
async def events(request: Request, who: Viewer, service: Service,
                 last_event_id: Annotated[str | None, Header()] = None) -> StreamingResponse:
    """Server-Sent Events: every journalled input as it happens; the id is the journal sequence.

    Reconnect with `Last-Event-ID` to get everything after it (rebuilt from the journal; a reader further
    behind than the journal's older snapshot is sent `reset`: reload the table).
    """
    reveal = who.sees_closed_cards
    try:
        after = int(last_event_id) if last_event_id else None
    except ValueError:
        raise ApiError(422, "bad_last_event_id", "Last-Event-ID must be a journal sequence number",
                       "Last-Event-ID") from None
    # Subscribed and the catch-up's head taken with no await between: nothing committed falls in between.
    items = service.subscribe()
    missed = service.catch_up(after) if after is not None else None

    async def stream() -> AsyncIterator[bytes]:
        try:
            yield b"retry: 1000\n\n"
            last = after or 0
            if missed is not None:
                if after is not None and after > missed.head:
                    # A sequence this journal never reached (the reader followed another journal): start afresh.
                    yield b"event: reset\ndata: {}\n\n"
                    last = missed.head
                elif not await asyncio.to_thread(missed.open):
                    yield b"event: reset\ndata: {}\n\n"  # too far behind: reload the table
                else:
                    while batch := await asyncio.to_thread(missed.chunk):
                        for item in batch:
                            last = item.seq
                            yield _sse(item, reveal)
                    if missed.failed:
                        yield b"event: reset\ndata: {}\n\n"
            while True:
                try:
                    item = await asyncio.wait_for(anext(items), timeout=15)
                except asyncio.TimeoutError:
                    yield b": keep-alive\n\n"
                    if await request.is_disconnected():
                        return
                    continue
                except SubscriberLagged:
                    # A reader this far behind is let go: reload the table; the browser reconnects
                    # (after `retry`) with Last-Event-ID and resumes from the journal.
                    yield b"event: reset\ndata: {}\n\n"
                    return
                except StopAsyncIteration:
                    return
                if item.seq > last:
                    last = item.seq
                    yield _sse(item, reveal)
        finally:
            items.close()
            if missed is not None:
                missed.close()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _sse(item: StreamItem, reveal: bool) -> bytes:
    event = item.event
    effects = item.effects
    if item.closed_card and not reveal:
        event = mask_event(event)
        effects = mask_effects(effects)
    if not reveal and event.get("type") in registry.surveillance_events():
        # surveillance's figure (a game's exact odds): below supervisor, that it came and when, not what it says
        event = {k: event[k] for k in ("type", "at", "actor") if k in event}
    data = json.dumps({"seq": item.seq, "event": event, "phase": item.phase, "effects": effects},
                      separators=(",", ":"), default=str)
    return f"id: {item.seq}\nevent: table\ndata: {data}\n\n".encode()
