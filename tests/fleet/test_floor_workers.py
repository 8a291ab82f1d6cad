"""Several floor workers on one PostgreSQL store (issue 28, part 2): a table's rows reach them in no particular
order (Mosquitto hands a shared subscription's messages round-robin), and the store they share must end exactly
as one store fed the same rows alone; a batch waits for the lock of a table another worker is writing; each
worker's API reads what the others stored; an SQLite store refuses a shared group."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
import time

import httpx
import pytest
from tests.support.deadlines import scaled, wait_steady
from tests.support.floor import NOW, PostgresAt, api_client, floor_service, ledger, state
from tests.support.fleet import make_rows, until_true, wire
from tests.support.harness import tablectl

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.floor import ExportError, FloorConfigError
from tablectl.floor.export import export_table
from tablectl.floor.settings import floor_settings, worker_settings
from tablectl.floor.store import FloorStore
from tablectl.fleet.wire import ledger_payload

KEY = bytes.fromhex("5a" * 32)
TABLES = ("t1", "t2")


def _deliveries(seed: int) -> list[list]:
    """Two tables' rows as a broker hands them out over a run: in order, with a round's rows first published
    masked (a card face down) and then final, a forged version of one row, and every tenth row sent again; cut
    into batches of 1 to 6 messages and mixed, as several workers' batches interleave."""
    rng = random.Random(seed)
    out = []
    for table in TABLES:
        rows = make_rows(KEY, 40)
        forged = make_rows(bytes(32), 40)
        msgs = []
        for r in rows:
            if 20 <= r.seq <= 24:  # seq 20 holds the hole card; 21..24 go without their MACs until it is turned
                msgs.append(wire(table, r, mask_card=r.seq == 20, withhold_mac=True))
            else:
                msgs.append(wire(table, r))
            if r.seq == 25:  # the card turned: the final forms of 20..24 go before any later row
                msgs[-1:-1] = [wire(table, rows[s - 1]) for s in range(20, 25)]
            if r.seq % 10 == 0:
                msgs.append(wire(table, r))  # at least once: a row again
        msgs.insert(8, wire(table, forged[12]))  # someone on an open broker, before the table's own row 13
        out.append(msgs)
    batches = []
    for msgs in out:
        i = 0
        while i < len(msgs):
            n = rng.randint(1, 6)
            batches.append(msgs[i:i + n])
            i += n
    # Mix the tables' batches, and let neighbouring batches overtake each other (two workers' commits).
    rng.shuffle(batches)
    return batches


def _picture(store: FloorStore) -> dict:
    """What a store holds of each table, to compare stores: rows as stored, counts, gaps, masked rows."""
    out = {}
    for table in TABLES:
        t = store.tracks[table]
        out[table] = {
            "rows": [(r.seq, r.body, r.mac, r.masked, r.verified) for r in store.iter_rows(table)],
            "counts": (t.rows, t.contiguous, t.max_seq, t.verified_upto, t.verified_mac, t.bad_macs, t.conflicts),
            "missing": store.missing(table), "masked": sorted(t.masked), "alternates": sorted(t.alternates),
            "open_gaps": [(g["first"], g["last"]) for g in store.open_gaps(table)],
            "conflicts": store.conflict_seqs(table),
        }
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_one_tables_rows_spread_over_two_workers_leave_what_one_worker_leaves(postgres, seed):
    at = PostgresAt(postgres, postgres.database())
    alone = at.fresh()  # the same rows, in the same order, through one store
    one = alone.open({t: KEY for t in TABLES})
    a, b = at.open({t: KEY for t in TABLES}), at.open({t: KEY for t in TABLES})
    try:
        batches = _deliveries(seed)
        for i, batch in enumerate(batches):
            one.ingest(batch, NOW + i)
            (a if i % 2 == 0 else b).ingest(batch, NOW + i)  # round-robin, as Mosquitto deals them
        a.refresh()
        b.refresh()
        want = _picture(one)
        assert want["t1"]["counts"][:4] == (40, 40, 40, 40)  # every row, verified (the forgery refused)
        assert _picture(a) == want and _picture(b) == want
        again = at.open({t: KEY for t in TABLES})  # and as a floor started afterwards reads it back
        assert _picture(again) == want
        again.close()
    finally:
        for s in (one, a, b):
            s.close()
        postgres.drop(at.database)


def test_a_batch_waits_for_a_table_another_worker_is_writing_and_then_reads_its_rows(postgres):
    at = PostgresAt(postgres, postgres.database())
    a, b = at.open({"t1": KEY}), at.open({"t1": KEY})
    rows = [wire("t1", r) for r in make_rows(KEY, 10)]
    done = threading.Event()
    try:
        with a.batch({"t1"}):
            a.ingest(rows[:5], NOW)
            worker = threading.Thread(target=lambda: (b.ingest(rows[5:], NOW), done.set()))
            worker.start()
            _until_waiting_for_a_lock(at)  # b's batch waits for t1's lock, which a holds until it commits
            assert not done.is_set()
        worker.join(scaled(30))
        assert done.is_set()
        t = b.tracks["t1"]  # b read a's rows back under the lock: one table, no gap, nothing counted twice
        assert (t.rows, t.contiguous, t.verified_upto, t.duplicates) == (10, 10, 10, 0)
        assert b.open_gaps() == []
    finally:
        a.close()
        b.close()
        postgres.drop(at.database)


def _until_waiting_for_a_lock(at: PostgresAt, timeout: float = 30.0) -> None:
    import psycopg

    end = time.monotonic() + scaled(timeout)
    with psycopg.connect(at.server.dsn(at.database), autocommit=True) as conn:
        while time.monotonic() < end:
            found = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND "
                                 "wait_event_type = 'Lock' AND wait_event = 'advisory'", (at.database,)).fetchone()
            if found and found[0]:
                return
            time.sleep(0.02)
    raise AssertionError("no batch waited for the table's lock")


def test_each_workers_api_reads_what_the_other_stored(tmp_path, postgres):
    at = PostgresAt(postgres, postgres.database())
    floors = [floor_service(tmp_path / f"w{n}", {"t1": KEY}, store=at, shared_group="floor", client_id=f"floor-{n}")
              for n in (1, 2)]
    try:
        rows = make_rows(KEY, 6)
        payload = ('{"table":"t1","name":"Table 1","head":{"seq":6,"mac":"%s"}}' % rows[-1].mac).encode()
        # Each worker takes every other row, as the broker deals them; both take the retained state.
        floors[0].handle([ledger("t1", ledger_payload("t1", r)) for r in rows[0::2]] + [state("t1", payload)], NOW)
        floors[1].handle([ledger("t1", ledger_payload("t1", r)) for r in rows[1::2]] + [state("t1", payload)], NOW)
        for floor in floors:
            tile = api_client(floor).get("/api/tables/t1").json()
            assert (tile["name"], tile["rows"], tile["contiguous"], tile["gaps"]) == ("Table 1", 6, 6, 0)
            assert tile["evidence"]["state"] == "verified"
            export = api_client(floor).get("/api/tables/t1/export")
            assert export.status_code == 200 and len(export.text.splitlines()) == 6
        health = api_client(floors[0]).get("/healthz").json()
        assert (health["client_id"], health["shared_group"], health["ledger_rows"]) == ("floor-1", "floor", 3)
    finally:
        for floor in floors:
            floor.store.close()
        postgres.drop(at.database)


def test_a_shared_group_needs_postgresql_and_a_worker_a_shared_group(tmp_path):
    with pytest.raises(FloorConfigError, match=r"shared_group: .*store = \"postgresql\""):
        floor_settings({"floor": {"shared_group": "floor"}})  # SQLite, the default
    with pytest.raises(FloorConfigError, match="shared_group"):
        floor_settings({"floor": {"shared_group": "a/b", "store": "postgresql"}})  # a topic level, not a name
    shared = floor_settings({"floor": {"shared_group": "floor", "store": "postgresql", "client_id": "fl"},
                             "api": {"port": 8090}})
    second = worker_settings(shared, 2)
    assert (second.floor.client_id, second.api.port, second.floor.shared_group) == ("fl-2", 8091, "floor")
    with pytest.raises(FloorConfigError, match="1 to 64"):
        worker_settings(shared, 0)
    cfg = tmp_path / "floor.toml"
    cfg.write_text(f'[floor]\nkeys_dir = "{tmp_path}"\n[floor.sqlite]\npath = "{tmp_path / "f.sqlite"}"\n')
    result = tablectl("floor", "--config", str(cfg), "--worker", "2")
    assert result.returncode == 2 and "--worker needs [floor] shared_group" in result.stderr
    assert not (tmp_path / "f.sqlite").exists()  # refused before anything was made


def test_mosquitto_keeps_a_workers_share_for_its_session_and_forgets_shared_subscriptions_when_restarted(broker):
    """What docs/floor.md says of Mosquitto (2.0 here) and several workers, on the real broker: the rows in flight
    to a worker that goes away come back to it, not to another; the broker goes on dealing it its share while it is
    away, queued for its session; after a restart of the broker no shared subscription is left until the workers
    subscribe again, and what was published meanwhile reached none of them."""
    settings = BrokerSettings(url=broker.url)
    group = "$share/floor/tablectl/+/ledger"

    async def scenario() -> None:
        async with contextlib.AsyncExitStack() as stack:
            pub = await stack.enter_async_context(mqtt.connect(settings, "publisher"))

            async def publish(*payloads: str) -> None:
                for p in payloads:
                    await pub.publish("tablectl/t1/ledger", p.encode())

            async with _Member.joined(settings, "worker-1", group) as one, _Member.joined(settings, "worker-2", group) as two:
                await publish(*map(str, range(6)))
                await _collect([one, two], 6, ack={two})  # worker 1 acknowledges nothing
                in_flight, acked = set(one.got), set(two.got)
            assert in_flight and not in_flight & acked
            async with _Member.joined(settings, "worker-2", group) as two:  # worker 1 stays away
                await publish(*map(str, range(6, 10)))
                async with _Member.joined(settings, "worker-1", None) as one:  # back, without subscribing again
                    await _collect([one, two], len(in_flight) + 4, ack={one, two})
            assert in_flight <= set(one.got) and not in_flight & set(two.got)  # redelivered to it alone
            assert set(one.got) & {"6", "7", "8", "9"}  # dealt to it while it was away
            assert acked | set(one.got) | set(two.got) == set(map(str, range(10)))
        broker.stop()  # both workers away, their sessions saved
        broker.start()
        async with mqtt.connect(settings, "publisher") as pub:
            await pub.publish("tablectl/t1/ledger", b"10")  # no worker subscribed yet: lost
            async with _Member.joined(settings, "worker-1", group) as one, \
                    _Member.joined(settings, "worker-2", group) as two:
                await pub.publish("tablectl/t1/ledger", b"11")
                await pub.publish("tablectl/t1/ledger", b"12")
                await _collect([one, two], 2, ack={one, two})
                # One each; a "10" queued for either would have come to it first, at its reconnection.
                assert sorted(one.got + two.got) == ["11", "12"]

    asyncio.run(scenario())


class _Member:
    """A worker's MQTT session (persistent, manual acknowledgements): what it received, in order."""

    def __init__(self, conn: mqtt.Connection) -> None:
        self.conn = conn
        self.got: list[str] = []
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for m in self.conn.messages():
            self.inbox.put_nowait(m)

    @classmethod
    @contextlib.asynccontextmanager
    async def joined(cls, settings: BrokerSettings, client_id: str, group: str | None):
        async with mqtt.connect(settings, client_id, clean_start=False, session_expiry=3600, manual_ack=True) as conn:
            if group is not None:
                await conn.subscribe([group])
            member = cls(conn)
            try:
                yield member
                # The broker answers a QoS 1 publish after what came before it on this connection, so this
                # waits until it has taken our acknowledgements: a disconnect may otherwise overtake the
                # last of them, and the broker keeps those messages in flight for the session (seen here).
                await conn.publish(f"test/settled/{client_id}", b"")
            finally:
                member.reader.cancel()
                await asyncio.gather(member.reader, return_exceptions=True)


async def _collect(members: list[_Member], total: int, ack: set, timeout: float = 20.0) -> None:
    """Take messages from the members until `total` have come (those of the members in `ack` acknowledged)."""
    end = time.monotonic() + scaled(timeout)
    while sum(len(m.got) for m in members) < total:
        if time.monotonic() > end:
            raise AssertionError(f"{[m.got for m in members]}: fewer than {total} messages came")
        for m in members:
            while not m.inbox.empty():
                message = m.inbox.get_nowait()
                m.got.append(message.payload.decode())
                if m in ack:
                    m.conn.ack(message)
        await asyncio.sleep(0.01)


def test_a_worker_that_leaves_its_group_stores_the_rows_queued_for_it_and_is_dealt_no_more(tmp_path, broker, postgres):
    at = PostgresAt(postgres, postgres.database())
    settings = BrokerSettings(url=broker.url)
    group = "$share/floor/tablectl/+/ledger"
    rows = make_rows(KEY, 10)
    leaving = floor_service(tmp_path, {"t1": KEY}, store=at, shared_group="floor", client_id="floor-2")
    leaving.settings.broker = settings

    async def scenario() -> tuple[list[str], int]:
        async with mqtt.connect(settings, "publisher") as pub:
            async def publish(chosen: list) -> None:
                for r in chosen:
                    await pub.publish("tablectl/t1/ledger", ledger_payload("t1", r))

            async with _Member.joined(settings, "floor-2", group):
                pass  # worker 2 joined the group, and is away
            async with _Member.joined(settings, "floor-1", group) as one:
                await publish(rows[:6])  # dealt between them: worker 2's share queued for its session
                stored = await leaving.leave(idle=1.0)  # worker 2 comes back only to leave
                await publish(rows[6:])  # all to worker 1 now: worker 2 is dealt nothing more
                await _collect([one], 6 - stored + 4, ack={one})
                return one.got, stored

    got, stored = asyncio.run(scenario())
    store = at.open({"t1": KEY})
    try:
        mine = [r.seq for r in store.iter_rows("t1")]
        assert stored == len(mine) > 0  # its share of the first six, stored on its way out
        theirs = sorted(json.loads(p)["seq"] for p in got)
        assert sorted(mine + theirs) == list(range(1, 11))  # every row once, the last four all worker 1's
        assert set(range(7, 11)) <= set(theirs)
    finally:
        store.close()
        postgres.drop(at.database)


def test_an_export_from_a_worker_whose_view_is_a_moment_old_still_refuses_a_missing_row(postgres):
    at = PostgresAt(postgres, postgres.database())
    a, b = at.open({"t1": KEY}), at.open({"t1": KEY})
    rows = make_rows(KEY, 6)
    try:
        a.ingest([wire("t1", r) for r in rows[:3]])
        b.refresh()  # b's view: rows 1..3, no gap
        a.ingest([wire("t1", r) for r in rows[4:]])  # another worker: 5 and 6, row 4 still on its way
        with pytest.raises(ExportError, match="rows 4..4 are missing"):
            list(export_table(b, "t1"))
    finally:
        a.close()
        b.close()
        postgres.drop(at.database)


def _state_of(table: str, seq: int, name: str = "Table 1") -> bytes:
    return json.dumps({"table": table, "name": name, "head": {"seq": seq, "mac": "ab" * 32}}).encode()


def test_a_state_that_reaches_a_worker_after_a_newer_one_was_stored_is_not_kept(tmp_path, postgres):
    at = PostgresAt(postgres, postgres.database())
    floors = [floor_service(tmp_path / f"w{n}", {"t1": KEY}, store=at, shared_group="floor", client_id=f"floor-{n}")
              for n in (1, 2)]
    try:
        # The broker dealt state 7 to worker 2 and state 6 to worker 1, which stored its own last.
        floors[1].handle([state("t1", _state_of("t1", 7, "Table 1 (later)"))], NOW)
        floors[0].handle([state("t1", _state_of("t1", 6, "Table 1 (earlier)"))], NOW + 1)
        for floor in floors:
            tile = api_client(floor).get("/api/tables/t1").json()
            assert (tile["name"], tile["head_seq"]) == ("Table 1 (later)", 7)
        floors[0].handle([state("t1", _state_of("t1", 8, "Table 1 (last)"))], NOW + 2)  # a newer one is kept
        floors[1].refresh(max_age=0)  # its dashboard's next look (at most every half second)
        assert api_client(floors[1]).get("/api/tables/t1").json()["name"] == "Table 1 (last)"
    finally:
        for floor in floors:
            floor.store.close()
        postgres.drop(at.database)


def test_workers_share_the_states_and_each_learns_the_retained_state_of_a_quiet_table(tmp_path, broker, postgres):
    """Each state is stored by one worker, as rows are (every worker taking every state made four workers cost
    four times one: benchmarks/fleet.py), and a worker that starts after a table went quiet still shows it."""
    from tests.support.fleet import FloorProcess, write_floor_config
    from tests.support.harness import SUPERVISOR_KEY

    from tablectl.fleet_sim import ensure_key

    at = PostgresAt(postgres, postgres.database())
    keys = tmp_path / "keys"
    quiet = ["table-001", "table-002", "table-003"]
    for tid in quiet:
        ensure_key(keys / f"{tid}.key")
    settings = BrokerSettings(url=broker.url)

    async def publish(*states: tuple[str, bytes]) -> None:
        async with mqtt.connect(settings, "tables") as pub:
            for tid, payload in states:
                await pub.publish(f"tablectl/{tid}/state", payload, retain=True)

    asyncio.run(publish(*[(tid, _state_of(tid, 3, f"Quiet {tid}")) for tid in quiet]))  # then nothing more
    from tests.fleet.test_floor_workers_faults import _free_ports

    cfg = write_floor_config(tmp_path, broker.url, _free_ports(2), keys, store=at, extra='shared_group = "floor"\n')
    workers = [FloorProcess(cfg, tmp_path / f"worker-{n}.log", "--worker", str(n)).start() for n in (1, 2)]
    auth = {"Authorization": f"Bearer {SUPERVISOR_KEY}"}
    try:
        def names(api: str) -> dict[str, str]:
            r = httpx.get(api + "/api/floor", headers=auth, timeout=scaled(10))
            return {t["id"]: t["name"] for t in r.json()["tables"]} if r.status_code == 200 else {}

        def messages() -> list[int]:
            return [httpx.get(w.api + "/healthz", timeout=scaled(10)).json()["messages"] for w in workers]

        want = {tid: f"Quiet {tid}" for tid in quiet}
        until_true(lambda: all(names(w.api) == want for w in workers), 30, "the quiet tables' retained states")
        # Each has every retained state at least once: Mosquitto 2.0 sends them on the shared subscription too,
        # which MQTT 5 leaves to a non-shared one (3.3.1.3); the plain subscription taken and dropped brings them
        # on any broker, and a state taken twice is stored once.
        until_true(lambda: all(n >= len(quiet) for n in messages()), 10, "each worker's retained states")
        before = wait_steady(messages, 1.0, 30, "the retained states")
        asyncio.run(publish(*[("table-001", _state_of("table-001", seq)) for seq in range(4, 24)]))
        until_true(lambda: sum(messages()) - sum(before) >= 20, 30, "the 20 new states")
        after = wait_steady(messages, 1.0, 30, "the new states")  # and no more: each went to one worker
        assert sum(after) - sum(before) == 20 and all(a > b for a, b in zip(after, before))
        until_true(lambda: all(names(w.api)["table-001"] == "Table 1" for w in workers), 10, "the last state")
        assert all(httpx.get(w.api + "/api/tables/table-001", headers=auth, timeout=scaled(10)).json()["head_seq"] == 23
                   for w in workers)
    finally:
        for w in workers:
            w.stop()
        postgres.drop(at.database)


def test_the_api_answers_503_while_the_database_is_away_and_the_rows_when_it_is_back(tmp_path, postgres):
    at = PostgresAt(postgres, postgres.database())
    floor = floor_service(tmp_path, {"t1": KEY}, store=at, shared_group="floor", client_id="floor-1")
    client = api_client(floor)
    try:
        floor.handle([ledger("t1", ledger_payload("t1", r)) for r in make_rows(KEY, 3)], NOW)
        assert len(client.get("/api/tables/t1/rows").json()["rows"]) == 3
        # This database alone goes away: its connections ended, new ones refused (the server serves other tests).
        postgres.admin(f"ALTER DATABASE {at.database} ALLOW_CONNECTIONS false")
        postgres.admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{at.database}'")
        for path in ("/api/tables/t1/rows", "/api/incidents", "/api/tables/t1/export"):
            r = client.get(path)
            assert r.status_code == 503, (path, r.text)
            assert r.json()["error"]["code"] == "store_unavailable" and r.headers["Retry-After"] == "5"
        assert client.get("/api/floor").status_code == 200  # the tiles as last read
        postgres.admin(f"ALTER DATABASE {at.database} ALLOW_CONNECTIONS true")
        until_true(lambda: client.get("/api/tables/t1/rows").status_code == 200, 30, "the rows again")
        assert len(client.get("/api/tables/t1/rows").json()["rows"]) == 3
    finally:
        postgres.admin(f"ALTER DATABASE {at.database} ALLOW_CONNECTIONS true")
        floor.store.close()
        postgres.drop(at.database)
