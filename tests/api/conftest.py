"""Fixtures for the API tests: a whole table (virtual shoe and service as processes, real uvicorn)."""

from __future__ import annotations


import pytest

from tests.support.harness import Table


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("table"), seed=3) as t:
        yield t


@pytest.fixture(scope="module")
def holecard_table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("holecard"), seed=4, profile="us-holecard", decks=1) as t:
        yield t
