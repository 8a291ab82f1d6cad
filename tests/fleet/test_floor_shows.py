"""Issue 23, "a floor that shows what matters", on the floor service and its API: an offline table is an alarm
(since the floor's last message from it), a table the floor has no key for waits for a person, the header's
totals, the tables grouped by pit and sorted (alarms, then waiting, then by name), and the evidence in words'
terms. The floor's clock is passed in (NOW)."""

from __future__ import annotations

import json

import pytest
from tests.support.floor import NOW, api_client, floor_service, state, status

from tablectl.config import ConfigError, settings_from_dict
from tablectl.floor.service import pits, totals

KEY = bytes.fromhex("44" * 32)


def _state(table: str, *, name: str | None = None, pit: str | None = None, alerts: tuple[str, ...] = (),
           rph: float | None = None, result: str | None = None, seq: int = 0) -> bytes:
    body: dict = {"table": table, "name": name or table, "view": {"phase": "betting", "alerts": [
        {"id": i + 1, "kind": k, "message": k, "raised_at": "2027-01-15T08:00:00+00:00"} for i, k in enumerate(alerts)]},
        "head": {"seq": seq, "mac": None}}
    if pit is not None:
        body["pit"] = pit
    if rph is not None or result is not None:
        body["figures"] = {"rounds_per_hour": rph, "hands_per_hour": None, "house_result": result}
    return json.dumps(body).encode()


def test_an_offline_table_is_an_alarm_since_the_floors_last_message_from_it(tmp_path):
    floor = floor_service(tmp_path, {"t1": KEY, "t2": KEY})
    floor.handle([status("t1", b"online"), state("t1", _state("t1", rph=293.9, result="610")),
                  status("t2", b"online"), state("t2", _state("t2"))], now=NOW)
    floor.handle([state("t1", _state("t1", rph=293.9, result="610"))], now=NOW + 30)  # its last word
    floor.handle([status("t1", b"offline")], now=NOW + 75)  # the broker's last will, 45 s later
    t1 = floor.tile("t1", NOW + 630)
    assert (t1["offline"], t1["online"], t1["level"]) == (True, False, "alarm")
    assert t1["offline_since"] == NOW + 30 and t1["heard_at"] == NOW + 30
    assert [(a["kind"], a["level"], a["since"], a["age_s"]) for a in t1["floor_alerts"]] == [
        ("offline", "alarm", NOW + 30, 600.0)]
    assert t1["rounds_per_hour"] == 293.9  # kept as last known: the page greys it
    t2 = floor.tile("t2", NOW + 630)
    assert (t2["offline"], t2["level"], t2["floor_alerts"], t2["offline_since"]) == (False, None, [], None)
    body = api_client(floor).get("/api/floor").json()
    assert [t["id"] for t in body["tables"]] == ["t1", "t2"]  # the alarm first
    assert body["with_alerts"] == 1
    assert {k: body["totals"][k] for k in ("tables", "online", "offline", "alarms", "waiting")} == {
        "tables": 2, "online": 1, "offline": 1, "alarms": 1, "waiting": 0}


def test_when_every_table_goes_offline_the_header_counts_every_one_as_an_alarm(tmp_path):
    tables = [f"table-{i:03d}" for i in range(1, 11)]
    floor = floor_service(tmp_path, {t: KEY for t in tables})
    floor.handle([m for t in tables for m in (status(t, b"online"), state(t, _state(t, rph=60.0, result="10")))],
                 now=NOW)
    floor.handle([status(t, b"offline") for t in tables], now=NOW + 5)
    body = api_client(floor).get("/api/floor").json()
    assert body["totals"] == {"tables": 10, "online": 0, "offline": 10, "rounds_per_hour": 0, "house_result": "100",
                              "alarms": 10, "waiting": 0}
    assert body["with_alerts"] == 10  # was "0 online · 0 with alerts"


def test_a_table_the_floor_has_no_key_for_waits_for_a_person(tmp_path):
    """A ghost of a persistent broker, or a table in known_tables without its key: its rows cannot be verified."""
    floor = floor_service(tmp_path, {"t1": KEY}, known_tables=["ghost"])
    floor.handle([status("t1", b"online"), state("t1", _state("t1")), state("ghost", _state("ghost", seq=276)),
                  status("ghost", b"online")], now=NOW)
    ghost = floor.tile("ghost", NOW)
    assert ghost["level"] == "action" and ghost["mac"] == "no_key"
    assert [(a["kind"], a["level"], a["message"]) for a in ghost["floor_alerts"]] == [
        ("no_key", "action", "no key for this table: its evidence cannot be verified")]
    assert floor.tile("t1", NOW)["floor_alerts"] == []
    body = api_client(floor).get("/api/floor").json()
    assert body["totals"]["waiting"] == 1 and body["with_alerts"] == 1
    # Gone offline (a retained status of an earlier run), it is an alarm, still without a key.
    floor.handle([status("ghost", b"offline")], now=NOW + 1)
    assert [a["kind"] for a in floor.tile("ghost", NOW + 1)["floor_alerts"]] == ["offline", "no_key"]
    assert floor.tile("ghost", NOW + 1)["level"] == "alarm"


def test_the_header_totals_tables_open_their_pace_and_the_shifts_house_result(tmp_path):
    keys = {t: KEY for t in ("t1", "t2", "t3", "t4")}
    floor = floor_service(tmp_path, keys)
    floor.handle([status("t1", b"online"), state("t1", _state("t1", rph=293.9, result="610")),
                  status("t2", b"online"), state("t2", _state("t2", rph=58.2, result="-150.5", alerts=("call_pit",))),
                  status("t3", b"online"), state("t3", _state("t3", result="NaN", alerts=("integrity",))),
                  status("t4", b"online"), state("t4", _state("t4", rph=40.0, result="25"))], now=NOW)
    floor.handle([status("t4", b"offline")], now=NOW + 1)
    got = api_client(floor).get("/api/floor").json()["totals"]
    # Rounds an hour of the tables open; the shift's result of every table, the one gone offline included;
    # what is not an amount (a newer or broken table) is left out, never a NaN in the floor's total.
    assert got == {"tables": 4, "online": 3, "offline": 1, "rounds_per_hour": 352, "house_result": "484.5",
                   "alarms": 2, "waiting": 1}
    assert totals([]) == {"tables": 0, "online": 0, "offline": 0, "rounds_per_hour": 0, "house_result": "0",
                          "alarms": 0, "waiting": 0}


def test_tiles_are_grouped_by_pit_and_sorted_alarms_first_then_waiting_then_by_name(tmp_path):
    names = {"a10": ("Table 10", "A", ()), "a2": ("Table 2", "A", ()), "a9": ("Table 9", "A", ("shuffle_due",)),
             "a5": ("Table 5", "A", ("call_pit",)), "a7": ("Table 7", "A", ("integrity",)),
             "b1": ("Table 1", "B", ()), "n1": ("Table 3", None, ()), "p10": ("Table 4", "Pit 10", ()),
             "p9": ("Table 6", "Pit 9", ())}
    floor = floor_service(tmp_path, {t: KEY for t in names})
    floor.handle([m for t, (name, pit, alerts) in names.items()
                  for m in (status(t, b"online"), state(t, _state(t, name=name, pit=pit, alerts=alerts)))], now=NOW)
    body = api_client(floor).get("/api/floor").json()
    assert [(g["pit"], g["tables"], g["alarms"], g["waiting"]) for g in body["pits"]] == [
        ("A", ["a7", "a5", "a2", "a9", "a10"], 1, 1),  # alarm, waiting, then by name (2 before 10; a notice too)
        ("B", ["b1"], 0, 0),
        ("Pit 9", ["p9"], 0, 0), ("Pit 10", ["p10"], 0, 0),  # pits by name as a person orders them
        (None, ["n1"], 0, 0)]  # "No pit" last
    # Not grouped: the same order across the floor (Table 1 is "b1", Table 3 "n1", Table 4 "p10").
    assert [t["id"] for t in body["tables"]] == ["a7", "a5", "b1", "a2", "n1", "p10", "p9", "a9", "a10"]
    assert floor.tile("a2", NOW)["pit"] == "A" and floor.tile("n1", NOW)["pit"] is None
    assert pits([]) == []


@pytest.mark.parametrize("pit", ["A\nB", " A", "A ", "x" * 25, "\u0007"])
def test_a_pit_that_is_not_short_printable_text_is_refused_by_the_table_and_by_the_floor(tmp_path, pit):
    with pytest.raises(ConfigError, match=r"fleet\.pit"):
        settings_from_dict({"fleet": {"pit": pit}})
    floor = floor_service(tmp_path, {"t1": KEY})
    floor.handle([state("t1", _state("t1", pit="A"))], now=NOW)
    floor.handle([state("t1", _state("t1", pit=pit))], now=NOW + 1)
    assert floor.tile("t1", NOW)["pit"] == "A"  # the last state that validated stays
    incident = floor.store.incidents(1)[0]
    assert (incident["kind"], incident["table"]) == ("bad_message", "t1") and "pit" in incident["detail"]


@pytest.mark.parametrize("pit", ["A", "Pit 3", "Salon privé", "x" * 24, ""])
def test_a_short_printable_pit_is_taken(tmp_path, pit):
    assert settings_from_dict({"fleet": {"pit": pit}}).fleet.pit == pit
    floor = floor_service(tmp_path, {"t1": KEY})
    floor.handle([state("t1", _state("t1", pit=pit))], now=NOW)
    assert floor.tile("t1", NOW)["pit"] == (pit or None)


def test_a_table_publishes_its_pit_with_its_state(tmp_path):
    from simulators.memory_table import MemoryShoe
    from tablectl.fleet.source import ServiceSource
    from tablectl.fleet_sim import SimTable, SimTableConfig
    from tablectl.service import TableService

    for pit, index in (("B", 1), ("", 2)):
        sim = SimTable(SimTableConfig(index, tmp_path / "sim", "mqtt://127.0.0.1:1", "tablectl", 1, "ru-standard",
                                      None, pit=pit))
        rules = sim.settings.table.rules()
        service = TableService(sim.settings, link=MemoryShoe(sim.id, 1, rules.decks, pack=rules.pack))
        source = ServiceSource(service)
        published = source.state(sim.id, "", service.head())
        source.close()
        assert published.get("pit") == (pit or None)  # no pit: not in the state at all


def test_the_evidence_in_one_word_and_its_numbers(tmp_path):
    from tests.support.fleet import make_rows
    from tests.support.floor import ledger

    from tablectl.fleet.wire import ledger_payload

    rows = make_rows(KEY, 42)
    floor = floor_service(tmp_path, {"t1": KEY, "t2": KEY}, known_tables=["t3", "t4"])
    floor.handle([state(t, _state(t, seq=42)) for t in ("t1", "t2", "t3", "t4")], now=NOW)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows], now=NOW)
    floor.handle([ledger("t2", ledger_payload("t2", r)) for r in rows[:40]], now=NOW)
    floor.handle([ledger("t3", ledger_payload("t3", r)) for r in rows], now=NOW)
    ev = {t: floor.tile(t, NOW)["evidence"] for t in ("t1", "t2", "t3", "t4")}
    assert ev["t1"] == {"state": "verified", "received": 42, "total": 42, "missing": 0, "past_gap": 0,
                        "verified": True, "key": True}
    assert (ev["t2"]["state"], ev["t2"]["received"], ev["t2"]["missing"]) == ("missing", 40, 2)
    assert (ev["t3"]["state"], ev["t3"]["key"]) == ("no_key", False)
    assert (ev["t4"]["state"], ev["t4"]["received"], ev["t4"]["total"]) == ("missing", 0, 42)
