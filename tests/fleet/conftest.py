"""Fixtures of the fleet tests: a real Mosquitto on a free loopback port, stopped afterwards; and the floor's
store on each engine, SQLite's file and a real PostgreSQL (one server a test session, a database a test)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from tests.support.broker import Mosquitto
from tests.support.floor import PostgresAt, SqliteAt, StoreAt
from tests.support.mqtt_tls import start_tls_broker
from tests.support.postgres import PostgresServer


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A running broker (fails, never skips, if mosquitto is missing)."""
    b = Mosquitto(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


@pytest.fixture
def tls_broker(tmp_path: Path) -> Iterator[tuple[Mosquitto, Path]]:
    """The shipped broker (deploy/mosquitto: TLS, the access rules of `tablectl broker access`), and the folder of
    its CA and every identity's certificate (tests/support/mqtt_tls.py)."""
    b, d = start_tls_broker(tmp_path)
    yield b, d
    b.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A running PostgreSQL server, for the whole session (fails, never skips, if PostgreSQL is missing)."""
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def floor_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreAt]:
    """Where the test's floor keeps its store: the test runs once on each engine, the same test for both."""
    if request.param == "sqlite":
        yield SqliteAt(tmp_path / "floor.sqlite")
        return
    server: PostgresServer = request.getfixturevalue("postgres")  # started only when a test needs it
    database = server.database()
    yield PostgresAt(server, database)
    server.drop(database)
