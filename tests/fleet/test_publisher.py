"""The table's publisher against a real Mosquitto: every row in order, the hole card never before it is
turned, retained state and status, and a table whose broker is down plays on exactly as without [fleet]."""

from __future__ import annotations

import asyncio
import json
import logging

from tests.support.deadlines import scaled, until
from tests.support.fleet import journal_ledger
from tests.support.harness import free_port

from tablectl.fleet_sim import SimTable, SimTableConfig
from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet.wire import parse_ledger, parse_state, row_mac


def test_rows_in_order_and_the_hole_card_masked_until_turned(tmp_path, broker):
    asyncio.run(_hole_card(tmp_path, broker.url))


async def _hole_card(tmp_path, url: str) -> None:
    sim = SimTable(SimTableConfig(1, tmp_path, url, "tablectl", 5, "us-holecard", None))
    finals: dict[int, dict] = {}
    masked_seen: set[int] = set()
    states: list[dict] = []
    statuses: list[bytes] = []
    leaks: list[str] = []
    public: list[dict] = []
    surveillance: list[dict] = []
    subscribed = asyncio.Event()

    async def listen() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "test-listener") as conn:
            await conn.subscribe(["tablectl/table-001/#"])
            subscribed.set()
            async for m in conn.messages():
                leaf = str(m.topic).rsplit("/", 1)[1]
                service = sim.service
                hidden = service is not None and service.table.dealer_card_closed
                hole = service.table.round.dealer.cards[1].code if hidden else None
                if leaf == "status":
                    statuses.append(m.payload)
                elif leaf == "state":
                    parse_state(m.payload, "table-001")  # it validates as the floor reads it
                    state = json.loads(m.payload)
                    states.append(state)
                    if hidden:
                        # A state made before the hole card was dealt may arrive after it: judge each
                        # by its own head, and never let the card itself through.
                        hole_row = min(sim.publisher.source.masked_seqs())
                        dealer = state["view"]["dealer"]["cards"]
                        late = state["head"]["seq"] >= hole_row
                        if hole in dealer or (late and (state["head"]["mac"] is not None or dealer[1:2] != ["XX"])):
                            leaks.append(f"state while hidden: {state['view']['dealer']} head {state['head']}")
                elif leaf == "surveillance":
                    surveillance.append(json.loads(m.payload))
                elif leaf == "round":  # the public feed: a round only once it is settled
                    settled = json.loads(m.payload)
                    in_play = service.table.round if service is not None else None
                    if in_play is not None and settled["number"] >= in_play.number:
                        leaks.append(f"public round {settled['number']} while round {in_play.number} is in play")
                    public.append(settled)
                else:
                    row = parse_ledger(m.payload, "table-001")
                    if row.masked:
                        assert row.mac is None
                        masked_seen.add(row.seq)
                        continue
                    if hidden and row.seq >= min(sim.publisher.source.masked_seqs()):
                        # Nothing final at or after the hidden hole card's row may reach the floor.
                        leaks.append(f"final row {row.seq} while the hole card {hole} is down")
                    if row.seq in finals:
                        assert finals[row.seq] == row.model_dump()  # at least once: the same row again
                    finals[row.seq] = row.model_dump()

    listener = asyncio.create_task(listen())
    await asyncio.wait_for(subscribed.wait(), scaled(10))
    await sim.run(rounds=8, pace=0.02, stop=asyncio.Event())  # slow enough for rows to go out mid-round
    ledger = journal_ledger(tmp_path / "table-001" / "journal.sqlite", tmp_path / "keys" / "table-001.key")
    await until(lambda: set(finals) >= {r.seq for r in ledger}, 30, "every row of the journal at the listener")
    listener.cancel()
    await asyncio.gather(listener, return_exceptions=True)

    assert not leaks, leaks[:5]
    assert sorted(finals) == [r.seq for r in ledger]  # every row, final
    assert [finals[r.seq]["mac"] for r in ledger] == [r.mac for r in ledger]
    assert [finals[r.seq]["body"] for r in ledger] == [r.body for r in ledger]  # byte for byte
    assert masked_seen, "a hole-card game masks rows"
    holes = [s for s in masked_seen if json.loads(next(r.body for r in ledger if r.seq == s)).get("card")]
    assert holes
    key = bytes.fromhex((tmp_path / "keys" / "table-001.key").read_text().strip())
    prev = ""
    for r in ledger:  # the published chain verifies with the table's key
        assert row_mac(key, prev, r) == r.mac
        prev = r.mac
    assert statuses[0] == b"online" and statuses[-1] == b"offline"
    last = states[-1]
    assert last["head"] == {"seq": ledger[-1].seq, "mac": ledger[-1].mac}
    assert last["profile"] == "us-holecard" and last["view"]["rounds_played"] == 8
    assert {"rounds_per_hour", "hands_per_hour", "house_result"} <= set(last["figures"])
    assert "remaining_by_rank" not in last["view"]["shoe"]  # the pit's feed: no count, nor what gives it
    assert [r["number"] for r in public] == list(range(1, 9))  # each round once, whole, after settlement
    # The public feed (version 2): each box's result, no card, total or money (issue 37).
    assert all(r["version"] == 2 and "hands" not in r and "dealer" not in r and r["boxes"] for r in public)
    assert surveillance and surveillance[-1]["count"]["shoe"] == last["view"]["shoe"]["id"]


def _rounds(sim: SimTable) -> list[tuple]:
    from controller.journal import JournalReader

    out = []
    with JournalReader(sim.settings.journal.path) as journal:
        records = journal.rounds(0, 1000)
    for r in records:
        out.append((r["number"], tuple(r["dealer"]["cards"]),
                    tuple((h["box"], tuple(h["cards"]), h["outcome"], h["net"]) for h in r["hands"]), r["net"]))
    return sorted(out)


def test_a_table_whose_broker_is_down_plays_the_same_rounds_as_one_without_fleet(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="tablectl.fleet")
    dead = f"mqtt://127.0.0.1:{free_port()}"  # nothing listens there

    async def both() -> tuple[SimTable, SimTable]:
        with_fleet = SimTable(SimTableConfig(1, tmp_path / "a", dead, "tablectl", 9, "ru-standard", None))
        without = SimTable(SimTableConfig(1, tmp_path / "b", dead, "tablectl", 9, "ru-standard", None, fleet=False))
        await asyncio.gather(with_fleet.run(12, 0.0, asyncio.Event(), drain_timeout=0.5),
                             without.run(12, 0.0, asyncio.Event(), drain_timeout=0.5))
        return with_fleet, without

    with_fleet, without = asyncio.run(both())
    assert with_fleet.publisher is not None and without.publisher is None
    assert with_fleet.service.table.rounds_played == without.service.table.rounds_played == 12
    assert _rounds(with_fleet) == _rounds(without)
    unreachable = [r for r in caplog.records if "broker unreachable" in r.getMessage()]
    assert len(unreachable) == 1  # logged once per outage, not once per retry
    assert with_fleet.publisher.published == 0 and with_fleet.publisher.outages == 1
