"""Issue 23, first bullet, on the floor: a tile's level is its most urgent open alert's, and a table
whose only alert is a notice (a due shuffle, every shoe) is not counted "with alerts" nor drawn red."""

from __future__ import annotations

import json

from tests.support.floor import NOW, api_client, floor_service, state


def _state(table: str, *kinds: str, level: str | None = None) -> bytes:
    alerts = [{"id": i + 1, "kind": k, "message": k, "raised_at": "2027-01-15T08:00:00+00:00",
               **({"level": level} if level is not None else {})} for i, k in enumerate(kinds)]
    return json.dumps({"table": table, "view": {"phase": "betting", "alerts": alerts}}).encode()


KEYS = {t: bytes([i]) * 32 for i, t in enumerate(("t1", "t2", "t3", "t4"), 1)}  # a table without one waits (no_key)


def test_a_due_shuffle_is_a_notice_and_not_counted_with_alerts(tmp_path):
    floor = floor_service(tmp_path, KEYS)
    floor.handle([state("t1", _state("t1", "shuffle_due")), state("t2", _state("t2", "shuffle_due", "call_pit")),
                  state("t3", _state("t3", "integrity", "shuffle_due")), state("t4", _state("t4"))], now=NOW)
    assert floor.tile("t1", NOW)["level"] == "notice"
    assert floor.tile("t1", NOW)["alerts"][0]["level"] == "notice"
    assert floor.tile("t2", NOW)["level"] == "action"
    assert floor.tile("t3", NOW)["level"] == "alarm"
    assert floor.tile("t4", NOW)["level"] is None
    body = api_client(floor).get("/api/floor").json()
    assert body["with_alerts"] == 2  # t2 and t3: the due shuffle alone needs nobody
    # Alarms, then the tables waiting, then the rest by name: a due shuffle does not push a table up.
    assert [t["id"] for t in body["tables"]] == ["t3", "t2", "t1", "t4"]
    floor.handle([state("t4", _state("t4", "shuffle_due")), state("t1", _state("t1"))], now=NOW)
    assert [t["id"] for t in api_client(floor).get("/api/floor").json()["tables"]] == ["t3", "t2", "t1", "t4"]


def test_the_floor_reads_the_engines_level_and_an_unknown_kind_is_an_alarm(tmp_path):
    """The level of a known kind is the engine's table, whatever a table sends; a kind the floor does
    not know (a newer table) keeps the level it was sent, and with none it is an alarm, never routine."""
    floor = floor_service(tmp_path, KEYS)
    floor.handle([state("t1", _state("t1", "shuffle_due", level="alarm")),
                  state("t2", _state("t2", "storage_full", level="notice")),
                  state("t3", _state("t3", "storage_full"))], now=NOW)
    assert [floor.tile(t, NOW)["level"] for t in ("t1", "t2", "t3")] == ["notice", "notice", "alarm"]
