"""deploy/mosquitto: the example broker as shipped (TLS with client certificates, the access rules of
`tablectl broker access` in Mosquitto's dynamic-security plugin) on a real Mosquitto: each table publishes only
under its own prefix and reads nothing, the floor reads the ledger, states and statuses, each reader its tier, a
subscription beyond a client's rights is refused when it is made, and a client without a certificate from the
floor's CA is refused."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from pathlib import Path

import aiomqtt
import pytest
from tests.support.deadlines import scaled, until
from tests.support.broker import Mosquitto
from tests.support.mqtt_tls import identity

from tablectl.fleet import BrokerUnavailable
from tablectl.fleet_sim import SimTable, SimTableConfig
from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings


FLOOR_FILTERS = ["tablectl/+/ledger", "tablectl/+/state", "tablectl/+/status"]


def _identity(b: Mosquitto, d: Path, name: str) -> BrokerSettings:
    return identity(b, d, name)


def test_the_example_broker_config_and_acl(tls_broker):
    b, d = tls_broker
    url = f"mqtts://127.0.0.1:{b.port}"

    def who(name: str) -> BrokerSettings:
        return _identity(b, d, name)

    async def forge(topic: str, name: str = "table-001") -> None:
        # Mosquitto refuses a publish outside the client's rights; with MQTT 5 it may also drop the client.
        try:
            async with mqtt.connect(who(name), "table-001-forger") as conn:
                await conn.publish(topic, b"forged")
        except BrokerUnavailable:
            pass

    refused: dict[str, list[int]] = {}

    async def scenario() -> tuple[list[str], list[str]]:
        floor_got: list[str] = []
        table_got: list[str] = []
        async with mqtt.connect(who("floor"), "tablectl-floor") as floor, \
                mqtt.connect(who("table-001"), "table-001") as table:
            assert await floor.subscribe(FLOOR_FILTERS) == [1, 1, 1]
            refused["floor"] = await floor.subscribe(["tablectl/#", "#", "tablectl/table-001/surveillance"])
            refused["table"] = await table.subscribe(["tablectl/#", "tablectl/table-001/ledger"])  # reads nothing

            async def collect(conn: mqtt.Connection, into: list[str]) -> None:
                async for m in conn.messages():
                    into.append(f"{m.topic}={m.payload.decode()}")

            tasks = [asyncio.create_task(collect(floor, floor_got)), asyncio.create_task(collect(table, table_got))]
            await table.publish("tablectl/table-001/ledger", b"mine")
            await table.publish("tablectl/table-001/status", b"online", retain=True)
            await forge("tablectl/table-002/ledger")  # another table's prefix
            await forge("tablectl/table-001/commands")  # not a table's topic
            # A certificate of the floor's CA that the access rules do not name may do nothing, not even publish
            # under its own name: a table is on the floor once `tablectl broker access` names it.
            await forge("tablectl/table-999/ledger", "stranger")
            await until(lambda: len(floor_got) >= 2, 20, "the table's own messages at the floor")
            await asyncio.sleep(1.0)  # room for a forged one to arrive, were the rules to let it through
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return floor_got, table_got

    floor_got, table_got = asyncio.run(scenario())
    assert floor_got == ["tablectl/table-001/ledger=mine", "tablectl/table-001/status=online"]
    assert table_got == []
    assert refused == {"floor": [0x87] * 3, "table": [0x87] * 2}  # beyond its rights: refused when asked

    async def anonymous() -> None:
        # Refused at the TLS handshake, the client only gives up at its timeout: 3 s, not the default 10.
        async with mqtt.connect(BrokerSettings(url=url, ca_file=str(d / "ca.crt")), "intruder", timeout=scaled(3)):
            pass

    with pytest.raises(BrokerUnavailable):
        asyncio.run(anonymous())


def test_a_table_certificate_cannot_take_the_floor_or_another_table_s_client_id(tls_broker):
    """Issue 21: with the floor away and rows queued for it, table-002's certificate connected as
    client id `tablectl-floor` with a clean start and session expiry 0, and the broker dropped the
    floor's session and its queued rows for good; the same kicked a live floor or table off. Under
    the shipped config a client's id is its certificate's name, whatever id it asks for."""
    b, d = tls_broker

    def who(name: str) -> BrokerSettings:
        return _identity(b, d, name)

    async def claim(identifier: str) -> None:
        """table-002's certificate asks for someone else's client id, with a clean start."""
        try:
            async with mqtt.connect(who("table-002"), identifier, clean_start=True, session_expiry=0):
                await asyncio.sleep(0.2)
        except BrokerUnavailable:
            pass

    async def receive(floor: mqtt.Connection, want: int, into: list[str]) -> None:
        async for m in floor.messages():
            into.append(m.payload.decode())
            if len(into) == want:
                return

    async def scenario() -> tuple[list[str], list[str]]:
        durable = {"clean_start": False, "session_expiry": 3600}
        async with mqtt.connect(who("floor"), "tablectl-floor", **durable) as floor:
            assert await floor.subscribe(FLOOR_FILTERS) == [1, 1, 1]
        async with mqtt.connect(who("table-001"), "table-001") as table:  # the floor is away: rows queue
            for n in (5, 6, 7):
                await table.publish("tablectl/table-001/ledger", str(n).encode(), qos=1)
        await claim("tablectl-floor")
        queued: list[str] = []
        live: list[str] = []
        async with mqtt.connect(who("floor"), "tablectl-floor", **durable) as floor:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(receive(floor, 3, queued), scaled(5))
            await claim("tablectl-floor")  # a live floor is not kicked off either
            async with mqtt.connect(who("table-001"), "table-001") as table:
                await claim("table-001")  # nor a live table
                await table.publish("tablectl/table-001/ledger", b"8", qos=1)
            with contextlib.suppress(TimeoutError, aiomqtt.MqttError):
                await asyncio.wait_for(receive(floor, 1, live), scaled(5))
        return queued, live

    queued, live = asyncio.run(scenario())
    assert queued == ["5", "6", "7"]  # the floor's queued rows survived the claim on its id
    assert live == ["8"]  # and both the floor and the table stayed connected through the claims


LEAVES = ("ledger", "state", "status", "surveillance", "public/round")


def test_each_audience_reads_only_its_feed(tls_broker, tmp_path):
    """Issue 26, feeds by audience: a real table publishes through the shipped broker config and ACL, and
    three identities subscribed to everything get what their tier allows: surveillance all of it (the count
    and findings included), the pit the state and status only (no count in the state, no ledger, whose cards
    would give it), the public each box's result only, without cards, totals or money."""
    b, d = tls_broker

    def who(name: str) -> BrokerSettings:
        return _identity(b, d, name)

    got: dict[str, list[tuple[str, bytes]]] = {"surveillance": [], "pit": [], "public": [], "floor": []}
    codes: dict[str, list[int]] = {}

    async def scenario() -> None:
        identity = {"ca_file": str(d / "ca.crt"), "cert_file": str(d / "table-001.crt"),
                    "key_file": str(d / "table-001.key")}
        sim = SimTable(SimTableConfig(1, tmp_path / "tables", f"mqtts://127.0.0.1:{b.port}", "tablectl", 4,
                                      "ru-standard", None, broker_identity=identity))
        async with contextlib.AsyncExitStack() as stack:
            listeners = []
            for name in got:
                conn = await stack.enter_async_context(mqtt.connect(who(name), f"tablectl-{name}"))
                # Each asks for every leaf a table publishes: what it may not read is refused then and there.
                codes[name] = await conn.subscribe([f"tablectl/+/{leaf}" for leaf in LEAVES])

                async def collect(conn: mqtt.Connection = conn, into: list = got[name]) -> None:
                    async for m in conn.messages():
                        into.append((str(m.topic), m.payload))

                listeners.append(asyncio.create_task(collect()))
            await sim.run(rounds=4, pace=0.0, stop=asyncio.Event())
            await until(lambda: all({t.split("/", 2)[2] for t, _ in got[name]} >= want for name, want in FEEDS.items())
                        and sum(t.endswith("/public/round") for t, _ in got["public"]) >= 4,
                        30, "each audience's feeds, and the four rounds")
            for t in listeners:
                t.cancel()
            await asyncio.gather(*listeners, return_exceptions=True)

    asyncio.run(scenario())
    granted = {name: {leaf for leaf, c in zip(LEAVES, cs) if c < 0x80} for name, cs in codes.items()}
    assert granted == {"surveillance": set(LEAVES), "floor": {"ledger", "state", "status"},
                       "pit": {"state", "status"}, "public": {"public/round"}}
    assert all(c in (1, 0x87) for cs in codes.values() for c in cs)
    assert {name: {t.split("/", 2)[2] for t, _ in msgs} for name, msgs in got.items()} == FEEDS
    count = [json.loads(p)["count"] for t, p in got["surveillance"] if t.endswith("/surveillance")]
    assert count[-1] is not None and {"running", "true", "cards_left"} <= set(count[-1])
    for t, p in got["pit"]:
        if t.endswith("/state"):
            state = json.loads(p)
            shoe = state["view"]["shoe"]
            assert shoe is None or "remaining_by_rank" not in shoe
            assert "count" not in state
    rounds = [json.loads(p) for _, p in got["public"]]
    assert [r["number"] for r in rounds] == [1, 2, 3, 4]
    # Issue 37: the public feed (version 2) carries each box's result and nothing a count is made of: no card, no
    # total, no outcome name, no money, no name, in any message.
    for r in rounds:
        assert r["version"] == 2 and set(r) <= {"version", "number", "game", "shoe_id", "boxes", "void",
                                                 "void_reason", "settled_at"}
        assert r["boxes"] and all(set(b) == {"box", "result"} and b["result"] in {"won", "lost", "even", "void"}
                                  for b in r["boxes"])
    text = b"\n".join(p for _, p in got["public"]).decode()
    assert not re.search(r'"(10|[2-9TJQKA])[SHDC]"|"XX"|cards|total|outcome|dealer|bet|net|player', text), text


# What each audience hears: a table's feeds under its prefix.
FEEDS = {"surveillance": {"ledger", "state", "status", "surveillance", "public/round"},
         "pit": {"state", "status"}, "public": {"public/round"}, "floor": {"ledger", "state", "status"}}


def test_two_floor_workers_share_the_ledger_under_the_shipped_acl(tls_broker):
    """Issue 28: two floor workers, each with its own certificate (CN tablectl-floor-N, its client id under the
    shipped config), subscribe to the ledger through one shared subscription; the ACL lets both read it, and the
    broker deals the rows between them, each row to one."""
    b, d = tls_broker
    group = "$share/floor/tablectl/+/ledger"

    async def scenario() -> dict[str, list[str]]:
        got: dict[str, list[str]] = {"floor-1": [], "floor-2": []}
        async with contextlib.AsyncExitStack() as stack:
            readers = []
            for name, into in got.items():
                conn = await stack.enter_async_context(mqtt.connect(_identity(b, d, name), f"tablectl-{name}"))
                await conn.subscribe([group])

                async def collect(conn: mqtt.Connection = conn, into: list[str] = into) -> None:
                    async for m in conn.messages():
                        into.append(m.payload.decode())

                readers.append(asyncio.create_task(collect()))
            async with mqtt.connect(_identity(b, d, "table-001"), "table-001") as table:
                for n in range(6):
                    await table.publish("tablectl/table-001/ledger", str(n).encode(), qos=1)
            await until(lambda: sum(map(len, got.values())) >= 6, 20, "the six rows at the workers")
            for r in readers:
                r.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
        return got

    got = asyncio.run(scenario())
    assert got["floor-1"] and got["floor-2"]  # both took rows
    assert sorted(got["floor-1"] + got["floor-2"]) == [str(n) for n in range(6)]  # each row once
