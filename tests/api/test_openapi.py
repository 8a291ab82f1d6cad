"""The OpenAPI document is complete and checked in: a change to the API shows up as a diff.

Regenerate after a deliberate change with:  TABLECTL_UPDATE_OPENAPI=1 ./scripts/test tests/api/test_openapi.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from controller import registry

from tablectl.api import create_app
from tablectl.config import settings_from_dict
from tablectl.service import TableService

SNAPSHOT = Path(__file__).with_name("openapi.json")


def _openapi(tmp_path) -> dict:
    # Every installed game's views and decisions (a table's app knows the games loaded: its own, and those every
    # other test of this process loaded; the document is the same whatever ran before).
    registry.load_all()
    settings = settings_from_dict({"journal": {"path": str(tmp_path / "j.sqlite")},
                                   "shoe": {"port": str(tmp_path / "none")}})
    return create_app(TableService(settings)).openapi()


def test_openapi_matches_the_snapshot(tmp_path):
    doc = _openapi(tmp_path)
    if os.environ.get("TABLECTL_UPDATE_OPENAPI"):
        SNAPSHOT.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    assert doc == json.loads(SNAPSHOT.read_text())


def test_every_operation_documents_its_errors_and_every_model_is_named(tmp_path):
    doc = _openapi(tmp_path)
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            codes = set(op["responses"])
            assert "200" in codes, (method, path)
            if path.startswith("/api/") and "public" not in op.get("tags", []):  # (a game's public read: no key)
                assert {"401", "403", "422"} <= codes, (method, path, codes)
            if method == "post" and path == "/api/actions":
                assert "409" in codes
    schemas = doc["components"]["schemas"]
    assert {"ErrorResponse", "ErrorBody", "ActionResult", "Health", "LockRequest"} <= schemas.keys()
    assert {"PlaceBet", "Stand", "Insure", "VoidRound", "AcknowledgeAlert"} <= schemas.keys()  # the actions' bodies
    assert "CardDrawn" not in schemas and "Tick" not in schemas  # a card or a tick cannot be posted
