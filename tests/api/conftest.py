"""Fixtures for the API tests: a whole table in this process (the service, a virtual shoe on an in-memory
wire, the app through httpx's ASGITransport; tests.support.inprocess), fresh for each test.

The tests that need the processes (the live stream, the service's log) keep their own tables of
`tests.support.harness.Table` in test_server_process.py; test_edge.py and test_tls.py are real by nature.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.inprocess import InProcessTable


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    """A ru-standard table, its shoe seeded with 3."""
    async with InProcessTable(tmp_path, seed=3) as t:
        yield t
