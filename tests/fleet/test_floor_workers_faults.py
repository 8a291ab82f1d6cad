"""Several floor workers (`tablectl floor --worker N`, one `[floor] shared_group`) on one PostgreSQL store and a
real Mosquitto, with simulated tables (issue 28, parts 2 and 4): the broker deals each table's rows to every
worker; one worker is killed (SIGKILL) mid-run and started again, then the database is restarted, then the broker.
Afterwards every table's rows on the floor equal its own journal (count, MACs, bodies), each verified, none
doubled, and the floor's export is the table's own, as every worker's API reads the one store.

Mosquitto 2.0 does not keep a shared subscription over its own restart (docs/floor.md, "Several workers"): the
rows a table publishes after the broker is back and before a worker has subscribed again reach no worker. The
floor asks the tables' APIs for them (`[[floor.tables]]`, as a floor of several workers on Mosquitto is to be
configured), so the tables play on well after the floor has caught up with them.

Two sizes of the one scenario: two workers and three fast tables in the default suite; four workers and a
hundred tables at a third of a second a step (about 330 rows a second, a third of a 1,000-table floor at live
pace, on this 2-core machine shared with the simulator) with `-m slow`.
"""

from __future__ import annotations

import contextlib
import socket
import time
from dataclasses import dataclass

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.fleet import FleetSimProcess, FloorProcess, journal_ledger, until_true, write_floor_config
from tests.support.floor import PostgresAt
from tests.support.harness import SUPERVISOR_KEY, tablectl

AUTH = {"Authorization": f"Bearer {SUPERVISOR_KEY}"}


@dataclass(frozen=True)
class Size:
    """How big a run of the scenario is."""

    tables: int
    workers: int
    rounds: int  # the faults come in the first half or so; the tables' APIs answer until the last round
    step_seconds: float  # a dealer's mean step at each table
    exports: int  # tables whose `floor export` is compared with `journal export` (a process each)


SMALL = Size(tables=3, workers=2, rounds=50, step_seconds=0.03, exports=3)
AT_SCALE = Size(tables=100, workers=4, rounds=40, step_seconds=0.3, exports=5)


def _free_ports(n: int) -> int:
    """A port p with p + 1 .. p + n - 1 free too: worker N listens on [api] port + N - 1, table i on --api-port + i - 1."""
    for _ in range(50):
        with contextlib.ExitStack() as held:
            first = held.enter_context(socket.socket())
            first.bind(("127.0.0.1", 0))
            port = first.getsockname()[1]
            try:
                for k in range(1, n):
                    held.enter_context(socket.socket()).bind(("127.0.0.1", port + k))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no {n} free ports side by side")


def _get(api: str, path: str, **params: object) -> dict:
    try:
        r = httpx.get(api + path, params=params, headers=AUTH, timeout=scaled(10))
    except httpx.HTTPError:
        return {}
    return r.json() if r.status_code == 200 else {}


def _tiles(api: str) -> dict[str, dict]:
    return {t["id"]: t for t in _get(api, "/api/floor").get("tables", [])}


def _heads(api: str) -> dict[str, int]:
    return {tid: t["head_seq"] for tid, t in _tiles(api).items()}


def _past(api: str, tables: int, beyond: dict[str, int]) -> bool:
    """Every table is on the floor with its rows, without a hole, past `beyond` (0 where not given). Not "up to
    its head": a busy table's head, in the state every worker takes, is often a row ahead of the row itself."""
    tiles = _tiles(api)
    return len(tiles) == tables and all(t["contiguous"] > beyond.get(t["id"], 0) for t in tiles.values())


def _floor_rows(api: str, table: str) -> list[dict]:
    out: list[dict] = []
    while True:
        page = _get(api, f"/api/tables/{table}/rows", after=out[-1]["seq"] if out else 0, limit=1000)["rows"]
        if not page:
            return out
        out += page


@pytest.mark.long
def test_two_workers_share_the_rows_and_lose_nothing_when_a_worker_the_database_or_the_broker_restarts(
        tmp_path, broker, postgres):
    _faults(tmp_path, broker, postgres, SMALL)


@pytest.mark.slow
def test_four_workers_and_a_hundred_tables_lose_nothing_when_a_worker_the_database_or_the_broker_restarts(
        tmp_path, broker, postgres):
    _faults(tmp_path, broker, postgres, AT_SCALE)


def _faults(tmp_path, broker, postgres, size: Size) -> None:
    at = PostgresAt(postgres, postgres.database())
    keys = tmp_path / "sim" / "keys"
    floor_key = tmp_path / "floor-key"
    floor_key.write_text("the-floor-key-of-this-test\n")
    tables_port = _free_ports(size.tables)
    # (the floor's wait for a table's answer, in this test a bound like any other: scaled)
    recovery = f"[floor.recovery]\ntimeout_seconds = {scaled(5.0)}\nbackoff_max_seconds = 2.0\n" + "".join(
        f'[[floor.tables]]\nid = "table-{i:03d}"\napi_url = "http://127.0.0.1:{tables_port + i - 1}"\n'
        f'api_key_file = "{floor_key}"\n' for i in range(1, size.tables + 1))
    cfg = write_floor_config(tmp_path, broker.url, _free_ports(size.workers), keys, store=at,
                             extra='shared_group = "floor"\n' + recovery)
    workers = [FloorProcess(cfg, tmp_path / f"worker-{n}.log", "--worker", str(n)) for n in range(1, size.workers + 1)]
    for w in workers:
        w.start()
    one, two = workers[0], workers[1]
    assert int(two.api.rsplit(":", 1)[1]) == int(one.api.rsplit(":", 1)[1]) + 1
    args = ("--rules", "us-holecard", "--step-seconds", str(size.step_seconds), "--seed", "5",
            "--api-port", str(tables_port), "--floor-key-file", str(floor_key))
    sim = FleetSimProcess(tmp_path, broker.url, size.tables, size.rounds, *args).start()
    ahead = 10  # rows each table deals past a fault before the next
    try:
        until_true(lambda: _past(one.api, size.tables, {}), 300, "rows from every table")

        # 1. Worker 2 dies mid-run; the broker keeps dealing it its share, queued for its session; it returns.
        until_true(lambda: _get(two.api, "/healthz").get("ledger_rows", 0) >= 20, 60, "rows through worker 2")
        two.kill()
        time.sleep(1.0)
        before = _heads(one.api)
        two.start()
        until_true(lambda: _past(two.api, size.tables, {t: h + ahead for t, h in before.items()}), 300,
                   "rows after worker 2 came back")

        # 2. The database restarts under every worker: a batch it broke is not acknowledged, and comes again.
        before = _heads(one.api)
        postgres.restart()
        until_true(lambda: _past(one.api, size.tables, {t: h + ahead for t, h in before.items()}), 300,
                   "rows after the database came back")

        # 3. The broker stops and starts again (its store kept): every worker's session, and the tables, reconnect.
        broker.stop()
        time.sleep(1.0)
        broker.start()
        before = _heads(one.api)
        until_true(lambda: _past(two.api, size.tables, {t: h + 4 * ahead for t, h in before.items()}), 300,
                   "every table's rows up to its head, well after the broker came back")
        summary = sim.wait(timeout=600)  # each table ends after its last round: no card left face down
        assert summary["tables"] == size.tables and all(t["rounds"] == size.rounds for t in summary["per_table"])

        for n, t in enumerate(summary["per_table"]):
            tid = t["table"]
            journal = journal_ledger(tmp_path / "sim" / tid / "journal.sqlite", keys / f"{tid}.key")
            until_true(lambda: (_tiles(one.api).get(tid) or {}).get("contiguous") == len(journal)
                       and _tiles(one.api)[tid]["masked"] == 0, 60, f"{tid} complete on the floor")
            for w in workers:  # every worker's API: the one store
                rows = _floor_rows(w.api, tid)
                assert [r["seq"] for r in rows] == [r.seq for r in journal]  # none missing, none doubled
                assert [r["mac"] for r in rows] == [r.mac for r in journal]
                assert [r["body"] for r in rows] == [r.body for r in journal]
                assert {r["verified"] for r in rows} == {"ok"}
            tile = _tiles(two.api)[tid]
            assert (tile["mac"], tile["gaps"], tile["conflicts"], tile["status"]) == ("ok", 0, 0, "offline")

            if n < size.exports:
                mine, theirs = tmp_path / f"{tid}-floor.jsonl", tmp_path / f"{tid}-journal.jsonl"
                assert tablectl("floor", "--config", str(cfg), "export", "--table", tid,
                                "--out", str(mine)).returncode == 0
                assert tablectl("journal", "export", "--db", str(tmp_path / "sim" / tid / "journal.sqlite"),
                                "--out", str(theirs)).returncode == 0
                assert mine.read_text() == theirs.read_text()

        # The rows were shared: each worker stored some of them (worker 2 counts since its restart).
        assert all(_get(w.api, "/healthz")["ledger_rows"] > 0 for w in workers)
        incidents = _get(one.api, "/api/incidents", limit=1000)["incidents"]
        assert not [i for i in incidents if i["kind"] in ("bad_mac", "conflict", "bad_message")], incidents
    finally:
        sim.stop()
        for w in workers:
            w.stop()
        postgres.drop(at.database)
