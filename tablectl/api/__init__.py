"""The local HTTP API: the pit, the dealer's panel and the virtual dealer speak to the table here.

A package of routers in FastAPI's "bigger applications" layout: `tables` (reads),
`ledger` (the rows as the floor gets them), `actions` (writes), `stream` (the live
event stream), `dashboard` (the pit's page). The shared web layer, `tablectl.web`,
gives the one gate for keys (`auth`), the edge (`guard`) and, in `errors`, one
documented shape for every answer of every route, the framework's own included. Writes go
through the service's single ordered path and the journal, with the caller as
actor. A closed card (a hole card, a club game's closed card) is shown only to a supervisor until
it is turned (`controller.closed`).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI

from tablectl.web.auth import KeyRing
from tablectl.web.errors import ERRORS, ApiError, ErrorBody, ErrorResponse, install_error_handlers
from tablectl.web.guard import edge_app

from . import actions, dashboard, ledger, pit, stream, tables

if TYPE_CHECKING:  # pragma: no cover
    from tablectl.metrics import TableMetrics
    from tablectl.service import TableService

__all__ = ["create_app", "ApiError", "ERRORS", "ErrorBody", "ErrorResponse"]


def create_app(service: "TableService", *, metrics: "TableMetrics | None" = None, edge: Any = None) -> FastAPI:
    """The FastAPI application for one table service; with `metrics` (wired into the service by the
    composition root, `tablectl.metrics.wire_metrics`), GET /metrics serves them; with `edge` (an object
    with `latest`, `tablectl.edge.EdgeWorker`), the supervisor's GET /api/edge serves its figure."""

    settings = service.settings.api
    app = FastAPI(title="tablectl", version="0.1.0", description="Local API of one blackjack table controller.")
    edge_app(app, settings)  # the body bounded (size and time) before it is read and the key checked; the Host
    app.state.service = service
    app.state.edge = edge
    app.state.keys = KeyRing(service.settings.api)
    app.state.report_lock = threading.Lock()  # one report at a time (tables.one_report)
    install_error_handlers(app)
    actions.install_foreign_decisions(app)  # (another game's decision: in words, whatever its body)
    for router in (tables.make_router(), tables.router, ledger.router, actions.make_router(), stream.router,
                   dashboard.router, pit.router):
        app.include_router(router)
    dashboard.mount_static(app)
    if metrics is not None:
        from tablectl.metrics import mount_metrics

        mount_metrics(app, metrics)
    return app
