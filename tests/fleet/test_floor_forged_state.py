"""A forged state cannot pin a table's tile (issue 37, medium), on the real store (SQLite and PostgreSQL).

A state naming head 10^9 was kept over every later one on the workers (a state "older" by head was never kept),
while the table played on at row 334: its evidence read "missing: 999999998". A state is now bounded as a row is
(`max_seq_jump` beyond the table's highest row on the floor), one published far ahead of the floor's clock or
naming a head MAC that the verified chain contradicts is refused, and, where several workers share the store,
states are ordered by what the rows confirm, so the table's next state takes the place of any forged one.
"""

from __future__ import annotations

import json

from tests.support.floor import NOW, floor_service, ledger, state
from tests.support.fleet import make_rows

from tablectl.fleet.wire import ledger_payload

KEY = bytes.fromhex("73" * 32)
ISO_NOW = "2027-01-15T08:00:00+00:00"  # NOW, 1_800_000_000, in ISO


def _state(head: int, name: str, *, mac: str | None = None, published: str = ISO_NOW) -> bytes:
    return json.dumps({"table": "t1", "name": name, "head": {"seq": head, "mac": mac},
                       "published_at": published}).encode()


def _floor(tmp_path, floor_db):  # noqa: ANN001
    # On PostgreSQL as a worker of a shared group (the store orders states there); on SQLite the one floor.
    shared = {"shared_group": "floor"} if floor_db.kind == "postgresql" else {}
    return floor_service(tmp_path, {"t1": KEY}, store=floor_db, **shared)


def _show(floor) -> tuple[str, int, dict]:  # noqa: ANN001
    tile = floor.tile("t1", NOW)
    return tile["name"], tile["head_seq"], tile["evidence"]


def test_a_state_naming_a_head_far_beyond_the_rows_is_refused(tmp_path, floor_db):
    rows = make_rows(KEY, 340)
    floor = _floor(tmp_path, floor_db)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows[:334]] + [state("t1", _state(334, "Table 1"))],
                 now=NOW)
    floor.handle([state("t1", _state(10**9, "forged"))], now=NOW + 1)
    name, head, evidence = _show(floor)
    assert (name, head) == ("Table 1", 334) and evidence["missing"] == 0
    assert any(i["kind"] == "seq_jump" and "a state naming head 1000000000" in i["detail"]
               for i in floor.store.incidents())
    # The table plays on: its next state is kept, as every later one.
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows[334:]] + [state("t1", _state(340, "Table 1"))],
                 now=NOW + 2)
    assert _show(floor)[:2] == ("Table 1", 340)


def test_a_forged_state_within_the_bound_gives_way_to_the_table_s_next_state(tmp_path, floor_db):
    """Within max_seq_jump a forged head passes the bound; no row confirms it, and the table's next state whose
    head its rows reach takes its place (on the workers it held every later state off for good)."""
    rows = make_rows(KEY, 340)
    floor = _floor(tmp_path, floor_db)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows[:334]] + [state("t1", _state(334, "Table 1"))],
                 now=NOW)
    floor.handle([state("t1", _state(334 + 50_000, "forged"))], now=NOW + 1)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows[334:]] + [state("t1", _state(340, "Table 1"))],
                 now=NOW + 2)
    name, head, evidence = _show(floor)
    assert (name, head) == ("Table 1", 340) and (evidence["missing"], evidence["total"]) == (0, 340)


def test_a_state_from_the_future_or_with_a_head_mac_the_chain_contradicts_is_refused(tmp_path, floor_db):
    rows = make_rows(KEY, 10)
    floor = _floor(tmp_path, floor_db)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows] +
                 [state("t1", _state(10, "Table 1", mac=rows[-1].mac))], now=NOW)
    floor.handle([state("t1", _state(10, "from 2099", published="2099-01-01T00:00:00+00:00"))], now=NOW + 1)
    floor.handle([state("t1", _state(10, "wrong MAC", mac="ab" * 32))], now=NOW + 70)  # past the report's window
    assert _show(floor)[:2] == ("Table 1", 10)
    kinds = [i["detail"] for i in floor.store.incidents() if i["kind"] == "bad_state"]
    assert len(kinds) == 2 and any("ahead of the floor's clock" in d for d in kinds)
    assert any(f"which is not the MAC of the table's row 10 on the floor (verified: {rows[-1].mac})" in d
               for d in kinds)
    floor.handle([state("t1", _state(10, "Table 1 (later)", mac=rows[-1].mac,
                                     published="2027-01-15T08:01:15+00:00"))], now=NOW + 76)
    assert _show(floor)[:2] == ("Table 1 (later)", 10)


def test_a_state_that_comes_with_its_rows_in_one_batch_is_kept(tmp_path, floor_db):
    """States are kept after their batch's rows: a state published with rows still in flight is not taken for a
    forged one when they come together."""
    rows = make_rows(KEY, 20)
    floor = _floor(tmp_path, floor_db)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows[:10]] + [state("t1", _state(10, "Table 1"))],
                 now=NOW)
    floor.handle([state("t1", _state(20, "Table 1 (20)"))] + [ledger("t1", ledger_payload("t1", r))
                                                              for r in rows[10:]], now=NOW + 1)
    assert _show(floor)[:2] == ("Table 1 (20)", 20)


def test_a_forged_head_stored_by_an_earlier_build_is_dropped_at_start(tmp_path, floor_db):
    rows = make_rows(KEY, 5)
    floor = _floor(tmp_path, floor_db)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows] + [state("t1", _state(5, "Table 1"))], now=NOW)
    floor.store.close()
    forged = json.loads(_state(10**9, "forged"))
    floor_db.sql("UPDATE tables SET state = ? WHERE table_id = 't1'", (json.dumps(forged),))
    again = _floor(tmp_path, floor_db)
    try:
        assert again.store.tracks["t1"].state is None
        assert any(i["kind"] == "bad_state" and "head 1000000000" in i["detail"] for i in again.store.incidents())
    finally:
        again.store.close()
