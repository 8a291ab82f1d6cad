"""Fuzz the API from its own OpenAPI schema (schemathesis): no input ever gets a 5xx.

Runs against the app of a whole table in this process (tests.support.inprocess), served by
schemathesis's ASGI transport, which runs the table for as long as it serves the app; with a
supervisor key (so writes reach the engine) and without a key (so the auth path is fuzzed too).
The SSE stream is left out: it never ends by design. Every operation gets its own examples,
generated from the schema.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.python.asgi import shutdown_lifespans

from tests.support.deadlines import scaled
from tests.support.harness import SUPERVISOR_KEY
from tests.support.inprocess import InProcessTable


def test_no_request_gets_a_server_error(tmp_path):
    table = InProcessTable(tmp_path, seed=3)
    schema = schemathesis.openapi.from_asgi("/openapi.json", table.served_app())
    fuzzed = []
    try:
        for result in schema.get_all_operations():
            operation = result.ok()
            if operation.path == "/api/events":
                continue
            fuzzed.append(f"{operation.method.upper()} {operation.path}")

            @given(case=operation.as_strategy())
            @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            def check(case) -> None:
                for headers in ({"Authorization": f"Bearer {SUPERVISOR_KEY}"}, {}):
                    response = case.call(headers=headers, timeout=scaled(10))
                    assert response.status_code < 500, (case.method, case.path, case.body, response.text[:300])
                    if response.status_code >= 400 and response.status_code != 405:
                        assert "error" in response.json()  # every error has the documented body

            check()
    finally:
        shutdown_lifespans()  # the table stops: its service, in the transport's event loop
    assert "POST /api/actions" in fuzzed and "GET /api/table" in fuzzed
