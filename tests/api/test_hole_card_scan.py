"""The hole card by every GET route (issue 12): no answer to a viewer, a dealer or the floor's key holds it
while it is down.

A us-holecard round is dealt, in-process (tests.support.inprocess), to the point where the dealer's second
card lies face down; then every GET route the API documents (and the two it serves outside the schema) is
scanned for that card's code. The supervisor's answers are the control: they do hold it, so the scan is
not looking in the wrong place. The event stream and the service's log, which need the real processes,
are scanned in test_server_process.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.club import holds
from tests.support.harness import DEALER_KEY, FLOOR_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import InProcessTable, call, hole_card_down

pytestmark = pytest.mark.anyio

# Served outside the OpenAPI schema: scanned too, so a new page cannot slip past the list.
UNDOCUMENTED_GETS = ("/", "/favicon.ico")


@pytest.fixture
async def hole_down(tmp_path: Path) -> AsyncIterator[tuple[InProcessTable, str, int]]:
    """A table whose first round stands with the hole card face down; yields (table, hole, first seq)."""
    async with hole_card_down(tmp_path) as down:
        yield down


async def get_routes(api: httpx.AsyncClient) -> list[str]:
    """Every GET path of the running API, its parameters filled with values that exist."""
    schema: dict[str, Any] = (await call(api, "GET", "/openapi.json")).json()
    shoe_id = (await call(api, "GET", "/api/table", SUPERVISOR_KEY)).json()["shoe"]["id"]
    fill = {"/api/rounds/{number}": ["/api/rounds/1"],
            "/api/export": ["/api/export?round=1", f"/api/export?shoe={shoe_id}"]}
    paths = [p for p, ops in schema["paths"].items() if "get" in ops]
    assert "/api/export" in paths and "/api/table" in paths
    return [url for p in paths for url in fill.get(p, [p])] + list(UNDOCUMENTED_GETS)


async def test_no_get_route_shows_the_hole_card_to_a_viewer_a_dealer_or_the_floor(hole_down):
    t, hole, _ = hole_down
    routes = await get_routes(t.api) + ["/api/ledger?limit=500"]
    for key in (VIEWER_KEY, DEALER_KEY, FLOOR_KEY):
        for url in routes:
            if url == "/api/events":
                continue  # a stream that never ends: scanned in test_server_process.py
            r = await call(t.api, "GET", url, key)
            assert r.status_code < 500, url
            assert not holds(r.text, hole), f"{url} shows the hole card {hole} to a key below supervisor"
    # The control: the supervisor sees it where it is.
    assert (await call(t.api, "GET", "/api/table", SUPERVISOR_KEY)).json()["dealer"]["cards"][1] == hole
    shoe_id = (await call(t.api, "GET", "/api/table", SUPERVISOR_KEY)).json()["shoe"]["id"]
    assert holds((await call(t.api, "GET", f"/api/export?shoe={shoe_id}", SUPERVISOR_KEY)).text, hole)
