"""The pit's language over the API (issue 41, item 6): `[table] language` in /api/table for the dashboard, and
GET /api/language with no key for the table-side screens (the baccarat scoreboard). The pages: tests/dashboard/
test_languages.py, tests/games/baccarat/test_scoreboard_page.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.harness import VIEWER_KEY
from tests.support.inprocess import InProcessTable, call

pytestmark = pytest.mark.anyio


async def test_the_table_tells_its_language_to_the_dashboard_and_without_a_key(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path, seed=11) as table:
        assert (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()["language"] == "en"  # the default
        assert (await call(table.api, "GET", "/api/language")).json() == {"language": "en"}
        table.settings.table.language = "ru"  # as `[table] language = "ru"` configures it
        assert (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()["language"] == "ru"
        assert (await call(table.api, "GET", "/api/language")).json() == {"language": "ru"}
