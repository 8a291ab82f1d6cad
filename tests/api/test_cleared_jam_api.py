"""Issue 23, second bullet, through the service and the API: after the shoe's `clear` its heartbeat says
`jammed:false`; the table now unlocks by itself and its alert says the cause is gone, without a supervisor.
Before, the table stayed locked and the alert active ("cause active") until someone acknowledged it."""

from __future__ import annotations

import pytest
from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import call, eventually

pytestmark = pytest.mark.anyio


async def test_a_cleared_jam_unlocks_the_table_and_its_alert_stays_with_its_cause_gone(table):
    async def view():
        return (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()

    async def jam_alert():
        v = await view()
        return next((a for a in v["alerts"] if a["kind"] == "shoe_fault"), None) if v["locked"] else None

    await eventually(lambda: _is(view, lambda v: v["shoe_device"]["link_up"]), "the shoe's link")
    assert table.shoe.request("fault", kind="jam")["ok"]
    alert = await eventually(jam_alert, "the jam's alert and the lock")
    assert alert["active"] and alert["level"] == "action"

    assert table.shoe.request("clear")["ok"]  # the dealer clears the jam at the shoe
    v = await eventually(lambda: _is(view, lambda v: not v["locked"]), "the gate opening by itself")
    [after] = [a for a in v["alerts"] if a["kind"] == "shoe_fault"]
    assert (after["id"], after["active"], after["acknowledged"]) == (alert["id"], False, False)
    assert v["shoe_device"]["jammed"] is False

    r = await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": "ack_alert", "alert_id": alert["id"]})
    assert r.status_code == 200, r.text
    assert not [a for a in (await view())["alerts"] if a["kind"] == "shoe_fault"]


async def _is(view, test):
    v = await view()
    return v if test(v) else None
