"""An in-process floor for tests of its input and API: messages handed to `FloorService.handle` as the broker
hands them, and the floor's HTTP API through a test client (no broker, no sockets); and where a test's floor
keeps its store, SQLite's file or a PostgreSQL database (the `floor_db` fixture runs a test on both)."""

from __future__ import annotations

import asyncio
import itertools
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY
from tests.support.postgres import PostgresServer

from tablectl.config import ApiKey
from tablectl.floor.api import create_floor_app
from tablectl.floor.service import FloorService
from tablectl.floor.settings import floor_settings
from tablectl.floor.store import FloorStore, open_store

_numbers = itertools.count(1)


class StoreAt:
    """Where a test's floor keeps its store: the `[floor]` settings that name it, and a way to open it."""

    kind = ""

    def settings(self) -> dict[str, Any]:
        """The keys of `[floor]` that name this store."""
        raise NotImplementedError

    def toml(self) -> str:
        """The same as lines of a `[floor]` section."""
        return "".join(f"{key} = {json.dumps(value) if isinstance(value, str) else _inline(value)}\n"
                       for key, value in self.settings().items())

    def open(self, keys: dict[str, bytes] | None = None, **kw: Any) -> FloorStore:
        """The store, as a floor with these settings opens it."""
        return open_store(floor_settings({"floor": self.settings()}).floor, keys, **kw)

    def sql(self, statement: str, args: tuple[Any, ...] = ()) -> None:
        """One statement (`?` marking each argument) run on the store's database by hand, committed."""
        raise NotImplementedError

    def fresh(self) -> "StoreAt":
        """Another store of the same engine, empty."""
        raise NotImplementedError


def _inline(table: dict[str, Any]) -> str:
    return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in table.items()) + " }"


class SqliteAt(StoreAt):
    """A file."""

    kind = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path

    def settings(self) -> dict[str, Any]:
        """store = "sqlite" and the file."""
        return {"store": "sqlite", "sqlite": {"path": str(self.path)}}

    def sql(self, statement: str, args: tuple[Any, ...] = ()) -> None:
        """Through Python's sqlite3."""
        db = sqlite3.connect(self.path)
        db.execute(statement, args)
        db.commit()
        db.close()

    def fresh(self) -> "SqliteAt":
        """A new file beside."""
        return SqliteAt(self.path.with_name(f"{self.path.stem}-{next(_numbers)}.sqlite"))


class PostgresAt(StoreAt):
    """A database of the tests' PostgreSQL server (and a schema in it, for `fresh`)."""

    kind = "postgresql"

    def __init__(self, server: PostgresServer, database: str, schema: str | None = None) -> None:
        self.server, self.database, self.schema = server, database, schema

    def settings(self) -> dict[str, Any]:
        """store = "postgresql" and its dsn."""
        return {"store": "postgresql", "postgresql": {"dsn": self.server.dsn(self.database, self.schema)}}

    def sql(self, statement: str, args: tuple[Any, ...] = ()) -> None:
        """Through psycopg."""
        import psycopg

        with psycopg.connect(self.server.dsn(self.database, self.schema), autocommit=True) as conn:
            conn.execute(statement.replace("?", "%s"), args)

    def fresh(self) -> "PostgresAt":
        """A new schema in the same database (far cheaper than a database, for many stores in one test)."""
        schema = f"s_{next(_numbers)}"
        self.server.admin(f"CREATE SCHEMA {schema}", self.database)
        return PostgresAt(self.server, self.database, schema)

# A fixed clock: the tiles' ages and the store's times do not depend on when the test runs.
NOW = 1_800_000_000.0


@dataclass(frozen=True)
class Message:
    """What the floor reads of a broker message: its topic and its payload."""

    topic: str
    payload: bytes


def floor_service(directory: Path, keys: dict[str, bytes], *, store: StoreAt | None = None,
                  **floor: Any) -> FloorService:
    """A floor whose keys folder is in `directory`, with `keys` written there as TABLE_ID.key; its store `store`,
    or `directory`/floor.sqlite."""
    keys_dir = directory / "keys"
    keys_dir.mkdir(parents=True, exist_ok=True)
    for table, key in keys.items():
        (keys_dir / f"{table}.key").write_text(key.hex() + "\n")
    where = store if store is not None else SqliteAt(directory / "floor.sqlite")
    settings = floor_settings({
        "floor": {**where.settings(), "keys_dir": str(keys_dir), **floor},
        "api": {"keys": [{"name": "surveillance", "role": "supervisor", "sha256": ApiKey.hash(SUPERVISOR_KEY)},
                         {"name": "pit", "role": "viewer", "sha256": ApiKey.hash(VIEWER_KEY)}]},
    })
    return FloorService(settings)


class ApiClient:
    """The floor's HTTP API in process (through httpx's ASGI transport), with the supervisor's key."""

    def __init__(self, floor: FloorService) -> None:
        self.app = create_floor_app(floor)

    def get(self, path: str) -> httpx.Response:
        """One GET."""
        return self.get_all([path])[0]

    def get_all(self, paths: list[str]) -> list[httpx.Response]:
        """A GET of each path, in one event loop."""
        async def go() -> list[httpx.Response]:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url="http://127.0.0.1:8090",
                                         headers={"Authorization": f"Bearer {SUPERVISOR_KEY}"}) as client:
                return [await client.get(p) for p in paths]

        return asyncio.run(go())


def api_client(floor: FloorService) -> ApiClient:
    """The floor's API, with the supervisor's key (it may read every route)."""
    return ApiClient(floor)


def ledger(table: str, payload: bytes, prefix: str = "tablectl") -> Message:
    """A ledger message on `table`'s topic."""
    return Message(f"{prefix}/{table}/ledger", payload)


def state(table: str, payload: bytes, prefix: str = "tablectl") -> Message:
    """A retained state message on `table`'s topic."""
    return Message(f"{prefix}/{table}/state", payload)


def status(table: str, payload: bytes, prefix: str = "tablectl") -> Message:
    """A retained status message on `table`'s topic."""
    return Message(f"{prefix}/{table}/status", payload)
