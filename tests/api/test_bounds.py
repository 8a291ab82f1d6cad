"""Every number any route takes is bounded: out of range is a 422 naming the field, never a 500.

The routes and fields come from the app's own OpenAPI document, so a new route or field is
covered without touching this test: each integer or number in a path, a query or an action's
body is sent far past 64 bits, negative, and (for query numbers) not finite. In-process
(tests.support.inprocess): the bounds are the routes' own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.harness import SUPERVISOR_KEY
from tests.support.inprocess import call

pytestmark = pytest.mark.anyio

HUGE = 2**63  # one past SQLite's largest integer: what overflowed before


def _numbers(doc: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(path, where, name) of every numeric path or query parameter."""
    for path, ops in doc["paths"].items():
        for op in ops.values():
            for p in op.get("parameters", []):
                schema = p.get("schema", {})
                kinds = {schema.get("type")} | {s.get("type") for s in schema.get("anyOf", [])}
                if kinds & {"integer", "number"}:
                    yield path, p["in"], p["name"]


def _action_numbers(doc: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(action type, field) of every integer field of a postable action."""
    schemas = doc["components"]["schemas"]
    body = doc["paths"]["/api/actions"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    for ref in body["discriminator"]["mapping"].values():
        model = schemas[ref.rsplit("/", 1)[1]]
        kind = model["properties"]["type"]["const"]
        for name, prop in model["properties"].items():
            kinds = {prop.get("type")} | {s.get("type") for s in prop.get("anyOf", [])}
            if "integer" in kinds:
                yield kind, name


async def test_every_number_out_of_range_is_a_422(table):
    doc = (await table.api.get("/openapi.json")).json()
    params = list(_numbers(doc))
    assert ("/api/rounds/{number}", "path", "number") in params and ("/api/export", "query", "round") in params
    for path, where, name in params:
        for value in (str(HUGE), str(-HUGE), "-1") + (("nan", "inf") if where == "query" else ()):
            url = path.replace("{" + name + "}", value) if where == "path" else path
            query = {name: value} if where == "query" else None
            r = await call(table.api, "GET", url, SUPERVISOR_KEY, params=query)
            assert r.status_code == 422, (path, name, value, r.status_code, r.text)
            assert r.json()["error"]["field"] == f"{where}.{name}", r.text
    fields = list(_action_numbers(doc))
    assert ("ack_alert", "alert_id") in fields and ("bet", "box") in fields
    for kind, name in fields:
        for value in (HUGE, -HUGE, 0):
            r = await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": kind, name: value})
            assert r.status_code == 422, (kind, name, value, r.status_code, r.text)
