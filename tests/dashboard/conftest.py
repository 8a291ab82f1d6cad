"""Fixtures for the dashboard tests: a whole table (virtual shoe and `tablectl run` as processes, real uvicorn)
with reads open on loopback, as the demo runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.harness import Table

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output"
SCREENSHOTS = OUTPUT / "screenshots"


def open_reads(t: Table) -> Table:
    """Rewrite the harness's config so reads need no key from 127.0.0.1 (the demo's setting)."""
    text = t.config.read_text()
    head = f"[api]\nport = {t.port}\n"
    assert head in text
    t.config.write_text(text.replace(head, head + "open_reads_on_loopback = true\n", 1))
    return t


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with open_reads(Table(tmp_path_factory.mktemp("dash"), seed=5)) as t:
        yield t
