"""The floor's MQTT input fed random and hostile payloads (Hypothesis), at its input function (`handle`).

Whatever arrives, mixed with two tables' real rows in any order and batches: no floor route answers 500, the
tile, rows and export of a table nothing hostile was sent to are unchanged, nothing is marked verified or
exported for a keyed table that is not the table's own row, and a table without a key on the floor never has
its own rows replaced in its export (a row only added past them can go unnoticed there: that is what a key is
for, docs/floor.md).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.floor import NOW, Message, api_client, floor_service, ledger, state, status

from controller.event_codec import dump_event, parse_event
from tablectl.floor.service import FloorService
from tablectl.fleet.wire import LedgerRow, body_json, ledger_payload, row_mac

KEYS = {"v1": bytes.fromhex("77" * 32), "t1": bytes.fromhex("88" * 32)}  # t2 is known without a key


def _events(n: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "rules", "profile": "ru-standard"},
                                    {"type": "shuffle", "shoe_id": "S1", "at": "2026-11-30T20:00:00Z"}]
    while len(events) < n:
        events += [{"type": "card", "card": "TS"}, {"type": "bet", "box": 1, "amount": 10, "player": "Anna"}]
    return events[:n]


def _chain(key: bytes, events: list[dict[str, Any]]) -> list[LedgerRow]:
    rows, prev = [], ""
    for seq, event in enumerate(events, 1):
        bare = LedgerRow(seq, "event", f"2026-11-30T20:00:{seq:02d}+00:00", body_json(event), "S1", seq, None, None,
                         "")
        prev = row_mac(key, prev, bare)
        rows.append(replace(bare, mac=prev))
    return rows


REAL = {"v1": _chain(KEYS["v1"], _events(8)), "t1": _chain(KEYS["t1"], _events(12)),
        "t2": _chain(bytes.fromhex("99" * 32), _events(12))}
EXPORT = {t: [json.dumps(dump_event(parse_event(json.loads(r.body))), separators=(",", ":")) for r in rows]
          for t, rows in REAL.items()}


def _good_state(table: str) -> dict[str, Any]:
    return {"table": table, "name": f"Table {table}", "game": "blackjack", "profile": "ru-standard",
            "view": {"phase": "players", "round": 2, "rounds_played": 1,
                     "alerts": [{"id": 1, "kind": "call_pit", "message": "pit", "raised_at": "2026-01-01T00:00:00Z",
                                 "active": True, "acknowledged": False}],
                     "shoe": {"id": "S1", "penetration": 0.25}},
            "figures": {"rounds_per_hour": 50.0, "hands_per_hour": 120.0, "house_result": "10"},
            "head": {"seq": 8, "mac": None}, "dashboard_url": "http://127.0.0.1:8101/"}


# ------------------------------------------------------------------------------------------------ strategies
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=16)
# Tables a hostile message may be on: the two under test, unknown ones, never v1 (whose tile must not move).
hostile_tables = st.sampled_from(["t1", "t2", "zz", "table-999"])
named_tables = st.sampled_from(["t1", "t2", "v1", "zz"])  # what a payload may name, v1 included
seqs = st.sampled_from([0, -1, 1, 5, 12, 13, 14, 40, 100_000, 2**62, 2**63]) | st.integers(1, 20)
hexes = st.text("0123456789abcdef", min_size=64, max_size=64)


@st.composite
def hostile_row(draw: st.DrawFn) -> Message:
    """A real row of t1 or t2 (or of v1) with some of its fields changed, on some table's ledger topic."""
    source = draw(st.sampled_from(["t1", "t2", "v1"]))
    base = draw(st.sampled_from(REAL[source]))
    fields = json.loads(ledger_payload(source, base, mask_card=draw(st.booleans()), withhold_mac=draw(st.booleans())))
    forged = {"type": "bet", "box": 1, "amount": draw(st.integers(0, 10**6)), "player": "Anna"}
    changes = {
        "seq": seqs, "table": named_tables, "kind": st.sampled_from(["event", "refusal", "x"]),
        "body": st.sampled_from([body_json(forged), "[" * 3000, "{}", '{"type":"card"}']) | json_values.map(json.dumps),
        "mac": st.none() | hexes | st.just("0" * 64) | st.text(max_size=70), "masked": st.booleans() | json_values,
        "shoe_id": st.none() | st.text(max_size=70), "position": st.none() | st.integers(-5, 20_000),
        "received_at": st.text(max_size=50)}
    for name in draw(st.lists(st.sampled_from(sorted(changes)), max_size=4, unique=True)):
        fields[name] = draw(changes[name])
    if draw(st.booleans()):
        fields["body"], fields["mac"] = body_json(forged), draw(hexes)  # a well-formed forgery of that row
    topic_table = source if source != "v1" and draw(st.booleans()) else draw(hostile_tables)
    return ledger(topic_table, json.dumps(fields).encode())


@st.composite
def forged_row(draw: st.DrawFn) -> Message:
    """A well-formed final row for t1 or t2 at a seq near theirs, with its own content and any MAC."""
    table = draw(st.sampled_from(["t1", "t2"]))
    seq = draw(st.sampled_from([13, 13, 12, 1, 7, 14]) | st.integers(1, 16))  # mostly just past their last row
    event = draw(st.sampled_from([{"type": "bet", "box": 1, "amount": draw(st.integers(1, 10**6)), "player": "Eve"},
                                  {"type": "card", "card": draw(st.sampled_from(["AS", "KD", "2C"]))}]))
    row = LedgerRow(seq, "event", f"2026-11-30T20:00:{seq % 60:02d}+00:00", body_json(event), "S1", seq, None, None,
                    draw(hexes | st.just("0" * 64)))
    return ledger(table, ledger_payload(table, row, withhold_mac=draw(st.sampled_from([False, False, False, True]))))


@st.composite
def hostile_state(draw: st.DrawFn) -> Message:
    """A good state with some part replaced by anything JSON, on some table's state topic."""
    table = draw(hostile_tables)
    data = _good_state(draw(st.sampled_from([table, table, "v1"])))
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from([("name",), ("view", "alerts"), ("view", "shoe"), ("view", "phase"), ("head",),
                                     ("figures", "rounds_per_hour"), ("dashboard_url",), ("view",), ("extra",),
                                     ("view", "alerts", 0, "raised_at")]))
        value = draw(json_values | st.sampled_from(["javascript:alert(1)", "yesterday", [1], "x" * 300]))
        where: Any = data
        try:
            for step in path[:-1]:
                where = where[step]
            where[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            pass
    return state(table, json.dumps(data).encode())


raw = st.builds(lambda topic, payload: Message(topic, payload),
                st.sampled_from(["tablectl/t1/ledger", "tablectl/t2/state", "tablectl/t1/status", "tablectl/zz/ledger",
                                 "tablectl/t1/cmd", "other/t1/ledger", "tablectl/t1/ledger/x", "tablectl//ledger"])
                | st.text(max_size=40),
                st.binary(max_size=200) | st.sampled_from([b"[" * 100_000, b"online", b"offline", b"", b"null"]))
hostile = st.lists(st.one_of(forged_row(), forged_row(), hostile_row(), hostile_state(), raw,
                             st.builds(status, hostile_tables, st.binary(max_size=10))), max_size=25)


# ------------------------------------------------------------------------------------------------ the property
# On both engines of the store; fewer examples on PostgreSQL, where each costs a new schema and its round trips.
EXAMPLES = {"sqlite": 150, "postgresql": 15}


def test_hostile_input_never_500s_never_moves_another_tile_and_never_exports_what_does_not_verify(
        tmp_path_factory, floor_db):
    @settings(max_examples=EXAMPLES[floor_db.kind], deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(hostile, st.randoms(use_true_random=False))
    def check(attack: list[Message], rnd: random.Random) -> None:
        floor = floor_service(tmp_path_factory.mktemp("floor"), KEYS, store=floor_db.fresh(), known_tables=["t2"],
                              max_seq_jump=1000)
        try:
            attacked(floor, attack, rnd)
        finally:
            floor.store.close()

    check()


def attacked(floor: FloorService, attack: list[Message], rnd: random.Random) -> None:
    """One example: a victim table's rows, then the attack mixed with two tables' real rows, then every route."""
    floor.handle([ledger("v1", ledger_payload("v1", r)) for r in REAL["v1"]]
                 + [state("v1", json.dumps(_good_state("v1")).encode()), status("v1", b"online")], now=NOW)
    victim = floor.tile("v1", NOW)

    feed: list[Message] = [*attack] + [ledger(t, ledger_payload(t, r)) for t in ("t1", "t2") for r in REAL[t]]
    rnd.shuffle(feed)
    cuts = sorted(rnd.sample(range(len(feed) + 1), min(3, len(feed) + 1)))
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(feed)])):
        floor.handle(feed[a:b], now=NOW + 1 + i)

    api = api_client(floor)
    paths = ["/healthz", "/api/floor", "/api/gaps", "/api/incidents?limit=1000"]
    for t in ("v1", "t1", "t2", "zz", "table-999"):
        paths += [f"/api/tables/{t}", f"/api/tables/{t}/rows?limit=1000", f"/api/tables/{t}/export"]
    answers = dict(zip(paths, api.get_all(paths)))
    assert all(r.status_code < 500 for r in answers.values()), {p: r.status_code for p, r in answers.items()}
    assert {t["id"] for t in answers["/api/floor"].json()["tables"]} <= {"v1", "t1", "t2"}

    # The table nothing hostile was sent to: its tile, rows and export as before.
    assert floor.tile("v1", NOW) == victim
    assert answers["/api/tables/v1/export"].text.splitlines() == EXPORT["v1"]

    # A keyed table: nothing verified or exported that is not the table's own row.
    mine = {r.seq: r for r in REAL["t1"]}
    for row in answers["/api/tables/t1/rows?limit=1000"].json()["rows"]:
        if row["verified"] == "ok":
            assert row["seq"] in mine and (row["body"], row["mac"]) == (mine[row["seq"]].body, mine[row["seq"]].mac)
    t1 = answers["/api/tables/t1/export"]
    assert t1.status_code == 409 or t1.text.splitlines() == EXPORT["t1"], t1.text

    # A table without a key: its own rows are never replaced in the export (the first is kept, or it refuses).
    t2 = answers["/api/tables/t2/export"]
    assert t2.status_code == 409 or t2.text.splitlines()[:len(EXPORT["t2"])] == EXPORT["t2"], t2.text
