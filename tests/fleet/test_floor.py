"""The floor service against a real Mosquitto: what it stores, drops, reports and serves, and a kill -9 (with its
store in SQLite and in PostgreSQL, `floor_db`: committed before acknowledged on both)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.fleet import FloorProcess, make_rows, until_true, write_floor_config
from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY, free_port, tablectl

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet.wire import MAX_LEDGER_BYTES, ledger_payload

KEY = bytes.fromhex("22" * 32)


def _publish(url: str, messages: list[tuple[str, bytes, bool]]) -> None:
    async def go() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "test-table") as conn:
            for topic, payload, retain in messages:
                await conn.publish(topic, payload, retain=retain)

    asyncio.run(go())


def _get(api: str, path: str, key: str | None = VIEWER_KEY) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.get(api + path, headers=headers, timeout=scaled(10))


def _floor(tmp_path, broker, store=None):  # noqa: ANN001, ANN202
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "t1.key").write_text(KEY.hex() + "\n")
    cfg = write_floor_config(tmp_path, broker.url, free_port(), keys, extra='known_tables = ["t2"]\n', store=store)
    proc = FloorProcess(cfg, tmp_path / "floor.log").start()
    yield proc
    proc.stop()


@pytest.fixture
def floor(tmp_path, broker):
    """A floor process, its store in SQLite."""
    yield from _floor(tmp_path, broker)


@pytest.fixture
def floor_on_each(tmp_path, broker, floor_db):
    """A floor process, its store on each engine."""
    yield from _floor(tmp_path, broker, floor_db)


def test_rows_state_and_status_reach_the_floor_and_bad_messages_are_dropped_and_reported(floor, broker):
    rows = make_rows(KEY, 6)
    msgs = [("tablectl/t1/ledger", ledger_payload("t1", r), False) for r in rows[:3]]
    msgs += [("tablectl/t1/ledger", ledger_payload("t1", rows[3], mask_card=True, withhold_mac=True), False),
             ("tablectl/t1/ledger", ledger_payload("t1", rows[4], withhold_mac=True), False),
             ("tablectl/t1/ledger", ledger_payload("t1", rows[1]), False),  # a duplicate
             ("tablectl/t1/ledger", b"{" * (MAX_LEDGER_BYTES + 10), False),  # too large
             ("tablectl/t1/ledger", b'{"seq": 1}', False),  # malformed
             ("tablectl/t2/ledger", ledger_payload("t1", rows[0]), False),  # another table's row
             ("tablectl/t1/state", json.dumps({"table": "t1", "name": "Table One", "game": "blackjack", "profile": "ru-standard",
                                               "view": {"phase": "players", "round": 3, "alerts": [
                                                   {"id": 1, "kind": "call_pit", "message": "pit!",
                                                    "raised_at": "2026-01-01T00:00:00+00:00", "active": True,
                                                    "acknowledged": False}], "shoe": {"penetration": 0.5},
                                                   "dealer_on_duty": {"dealer": "D-1042",
                                                                      "since": "2026-01-01T00:00:00+00:00"}},
                                               "figures": {"rounds_per_hour": 60.0}, "head": {"seq": 6, "mac": None},
                                               "dashboard_url": "http://127.0.0.1:1/"}).encode(), True),
             ("tablectl/t1/status", b"online", True)]
    msgs += [("tablectl/t1/ledger", ledger_payload("t1", r), False) for r in rows[3:]]
    _publish(broker.url, msgs)
    api = floor.api
    until_true(lambda: _get(api, "/api/tables/t1").json().get("contiguous") == 6, what="six rows on the floor")
    tile = _get(api, "/api/tables/t1").json()
    assert tile["name"] == "Table One" and tile["online"] and tile["mac"] == "ok" and tile["masked"] == 0
    assert tile["alerts"][0]["kind"] == "call_pit" and tile["alerts"][0]["age_s"] > 0
    assert tile["phase"] == "players" and tile["penetration"] == 0.5 and tile["gaps"] == 0
    assert tile["dealer_on_duty"] == "D-1042"  # issue 26: who deals, on the tile
    stored = _get(api, "/api/tables/t1/rows", SUPERVISOR_KEY).json()["rows"]
    assert [r["mac"] for r in stored] == [r.mac for r in rows] and {r["verified"] for r in stored} == {"ok"}
    kinds = [i["kind"] for i in _get(api, "/api/incidents").json()["incidents"]]
    # Three dropped, reported once a minute per table: t1's two as one incident, t2's as another.
    assert kinds.count("bad_message") == 2 and _get(api, "/healthz", None).json()["dropped"] == 3
    # The same key roles and error envelope as a table's API.
    assert _get(api, "/api/floor", None).status_code == 401
    denied = _get(api, "/api/tables/t1/rows", VIEWER_KEY)
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "forbidden"
    assert _get(api, "/api/tables/nope").json()["error"]["code"] == "unknown_table"
    assert _get(api, "/api/tables/a.b").json()["error"]["code"] == "invalid_request"
    assert _get(api, "/api/incidents?limit=0").json()["error"]["field"] == "query.limit"
    export = _get(api, "/api/tables/t1/export", SUPERVISOR_KEY)
    assert export.status_code == 200 and len(export.text.splitlines()) == 6
    assert _get(api, "/healthz", None).json()["broker"] is True


def test_a_floor_killed_and_restarted_loses_nothing(floor_on_each, broker, tmp_path):
    floor = floor_on_each
    rows = make_rows(KEY, 300)
    _publish(broker.url, [("tablectl/t1/ledger", ledger_payload("t1", r), False) for r in rows[:100]])
    until_true(lambda: _get(floor.api, "/api/tables/t1").json().get("contiguous") == 100, what="100 rows")
    floor.kill()
    # While the floor is down the broker keeps its session's queue.
    _publish(broker.url, [("tablectl/t1/ledger", ledger_payload("t1", r), False) for r in rows[100:]])
    floor.start()
    until_true(lambda: _get(floor.api, "/api/tables/t1").json().get("contiguous") == 300, what="300 rows")
    stored = _get(floor.api, "/api/tables/t1/rows?limit=1000", SUPERVISOR_KEY).json()["rows"]
    assert [r["seq"] for r in stored] == list(range(1, 301))
    assert _get(floor.api, "/api/tables/t1").json()["mac"] == "ok"


def test_a_bad_floor_config_is_a_message_not_a_traceback(tmp_path):
    cfg = tmp_path / "floor.toml"
    cfg.write_text('[floor]\ntopic_prefix = "a/#"\n[broker]\nurl = "http://x"\n[api]\nport = 0\n')
    result = tablectl("floor", "--config", str(cfg))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "floor.topic_prefix" in result.stderr and "broker.url" in result.stderr and "api.port" in result.stderr
    assert tablectl("floor", "--config", str(tmp_path / "missing.toml")).returncode == 2
    cfg.write_text(f'[floor]\nstore = "{tmp_path / "s.sqlite"}"\n')
    result = tablectl("floor", "export", "--config", str(cfg), "--table", "t1")
    assert result.returncode == 2 and "no floor store" in result.stderr
