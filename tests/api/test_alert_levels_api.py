"""Issue 23: every alert in the table's view carries its level (the engine's ALERT_LEVEL), through the API."""

from __future__ import annotations

import pytest
from tests.support.harness import DEALER_KEY, VIEWER_KEY
from tests.support.inprocess import call

from controller.alerts import ALERT_LEVEL, AlertKind

pytestmark = pytest.mark.anyio


async def test_an_alert_in_the_view_carries_its_level(table):
    r = await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "call_pit"})
    assert r.status_code == 200, r.text
    alerts = (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()["alerts"]
    assert [(a["kind"], a["level"]) for a in alerts] == [("call_pit", ALERT_LEVEL[AlertKind.CALL_PIT].value)]
