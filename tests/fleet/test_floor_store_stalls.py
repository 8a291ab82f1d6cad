"""A stalled database does not freeze the floor (issue 37, medium).

With its PostgreSQL stopped (SIGSTOP: connections open, every statement hanging) or a lock held for long,
`/healthz`, `/api/floor` and the dashboard timed out (24 s, 8 of 8 probes) where the docs promise 503
`store_unavailable`: the floor called its store on its event loop, and a statement that never returned
held everything. Now the store is called on a thread of its own: the health route never waits on it, the
tiles are served as last read and say the store is away, the routes that read the store answer 503 at once
while it is stalled, PostgreSQL bounds statements and lock waits, and SQLite's busy timeout bounds a lock.
Real processes: Mosquitto, the floor, PostgreSQL (stopped with SIGSTOP) or an SQLite file locked by another
connection. A deadline ends a hung request (it would hang for good without the fix); nothing measures speed.
"""

from __future__ import annotations

import asyncio
import sqlite3

import httpx
import pytest
from tests.support.fleet import FloorProcess, make_rows, until_true, write_floor_config
from tests.support.floor import PostgresAt, SqliteAt
from tests.support.harness import SUPERVISOR_KEY, free_port

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet.wire import ledger_payload

KEY = bytes.fromhex("5c" * 32)
AUTH = {"Authorization": f"Bearer {SUPERVISOR_KEY}"}
DEADLINE = 10.0  # seconds: a request that has not answered by then has hung (it answers at once when it works)


def _publish(url: str, rows) -> None:  # noqa: ANN001
    async def go() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "t1") as conn:
            for r in rows:
                await conn.publish("tablectl/t1/ledger", ledger_payload("t1", r))

    asyncio.run(go())


def _get(api: str, path: str) -> httpx.Response:
    return httpx.get(api + path, headers=AUTH, timeout=DEADLINE)


class _ShortLocks(PostgresAt):
    """The test's database, with a lock wait of 1 s (the default is 10 s): the held lock times a batch out soon."""

    def settings(self) -> dict:
        out = super().settings()
        out["postgresql"]["lock_timeout_seconds"] = 1
        return out


def _floor(tmp_path, broker, store) -> FloorProcess:  # noqa: ANN001
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "t1.key").write_text(KEY.hex() + "\n")
    if isinstance(store, PostgresAt):
        store = _ShortLocks(store.server, store.database)
    cfg = write_floor_config(tmp_path, broker.url, free_port(), keys, store=store)
    return FloorProcess(cfg, tmp_path / "floor.log").start()


def _tile(api: str) -> dict:
    try:
        return {t["id"]: t for t in _get(api, "/api/floor").json()["tables"]}.get("t1", {})
    except (httpx.HTTPError, KeyError, ValueError):
        return {}


def _stalled_floor_still_answers(api: str, stored: int) -> None:
    """While the store hangs: the health route and the tiles answer at once and say so; a route that reads
    the store answers 503 store_unavailable with Retry-After, never a hang."""
    until_true(lambda: _get(api, "/healthz").json().get("store") == "unavailable", 30, "the store said away")
    health = _get(api, "/healthz").json()
    assert health["broker"] is True and health["tables"] == 1
    floor = _get(api, "/api/floor").json()
    assert floor["store"]["available"] is False and floor["store"]["since"] is not None
    assert [(t["id"], t["contiguous"]) for t in floor["tables"]] == [("t1", stored)]  # as last read
    for path in ("/api/gaps", "/api/incidents", "/api/tables/t1/rows", "/api/tables/t1/export", "/api/tables/t1"):
        r = _get(api, path)
        assert r.status_code == 503 and r.json()["error"]["code"] == "store_unavailable", (path, r.text)
        assert r.headers["Retry-After"] == "5"


@pytest.mark.long
def test_a_postgresql_stopped_with_sigstop_leaves_the_floor_answering(tmp_path, broker, postgres):
    at = PostgresAt(postgres, postgres.database())
    rows = make_rows(KEY, 6)
    floor = _floor(tmp_path, broker, at)
    try:
        _publish(broker.url, rows[:3])
        until_true(lambda: _tile(floor.api).get("contiguous") == 3, 30, "the first rows stored")
        postgres.pause()
        try:
            _publish(broker.url, rows[3:4])  # its batch now waits on a database that does not answer
            _stalled_floor_still_answers(floor.api, 3)
        finally:
            postgres.resume()
        until_true(lambda: _tile(floor.api).get("contiguous") == 4, 60, "the row stored once the database is back")
        assert _get(floor.api, "/healthz").json()["store"] == "ok"
        assert _get(floor.api, "/api/floor").json()["store"]["available"] is True
    finally:
        floor.stop()
        postgres.drop(at.database)


@pytest.mark.long
def test_a_table_lock_held_for_long_leaves_the_floor_answering_and_the_batch_comes_again(tmp_path, broker, postgres):
    import psycopg

    from tablectl.floor.database import TABLE_LOCKS, table_key

    at = PostgresAt(postgres, postgres.database())
    rows = make_rows(KEY, 6)
    floor = _floor(tmp_path, broker, at)
    try:
        _publish(broker.url, rows[:3])
        until_true(lambda: _tile(floor.api).get("contiguous") == 3, 30, "the first rows stored")
        with psycopg.connect(at.server.dsn(at.database), autocommit=True) as holder:
            holder.execute("SELECT pg_advisory_lock(%s, %s)", (TABLE_LOCKS, table_key("t1")))  # as a stuck worker
            _publish(broker.url, rows[3:5])
            for _ in range(5):  # the health route and the tiles never wait for the lock
                assert _get(floor.api, "/healthz").status_code == 200
                assert _tile(floor.api).get("contiguous") == 3
            holder.execute("SELECT pg_advisory_unlock(%s, %s)", (TABLE_LOCKS, table_key("t1")))
        until_true(lambda: _tile(floor.api).get("contiguous") == 5, 60, "the rows stored once the lock is free")
    finally:
        floor.stop()
        postgres.drop(at.database)


@pytest.mark.long
def test_an_sqlite_store_locked_by_another_connection_leaves_the_floor_answering(tmp_path, broker):
    store = SqliteAt(tmp_path / "floor.sqlite")
    rows = make_rows(KEY, 6)
    floor = _floor(tmp_path, broker, store)
    try:
        _publish(broker.url, rows[:3])
        until_true(lambda: _tile(floor.api).get("contiguous") == 3, 30, "the first rows stored")
        holder = sqlite3.connect(store.path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process writing the file: the floor's batch must wait
        try:
            _publish(broker.url, rows[3:5])
            # The batch waits out SQLite's busy timeout on the store's thread, fails unacknowledged, and comes
            # again: meanwhile the health route answers, and says the store is not answering.
            until_true(lambda: _get(floor.api, "/healthz").json().get("store") == "unavailable", 30,
                       "the store said away while the file is locked")
            assert _tile(floor.api).get("contiguous") == 3
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        until_true(lambda: _tile(floor.api).get("contiguous") == 5, 60, "the rows stored once the file is free")
    finally:
        floor.stop()
