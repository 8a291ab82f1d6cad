"""A reader that comes back (SSE `Last-Event-ID`) is served from the journal, not from a copy kept in memory.

The service kept the last 10,000 stream items for such a reader: 12 MiB of a table's RSS after about 550
rounds (issue 36). Now `TableService.catch_up` rebuilds what the reader missed from the journal, replaying
its rows from the newest snapshot at or before where the reader stopped; what it gives must be exactly
what was streamed live, closed cards masked alike.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

import tablectl.service as service_module
from tablectl.api.stream import events
from tablectl.service import CatchUp, StreamItem
from tests.support.harness import SNAPSHOT_EVERY_ROUNDS
from tests.support.inprocess import InProcessTable, play_rounds

pytestmark = pytest.mark.anyio

ROUNDS = 2 * SNAPSHOT_EVERY_ROUNDS + 2  # two snapshots taken, and rows after the newest


async def rebuilt(catch: CatchUp, size: int = 7) -> list[StreamItem]:
    """Every item a catch-up gives, read as the stream route reads it (in a worker thread, a chunk at a time)."""
    assert await asyncio.to_thread(catch.open)
    got: list[StreamItem] = []
    while batch := await asyncio.to_thread(catch.chunk, size):
        got += batch
    return got


def snapshot_rows(journal: Path) -> list[int]:
    """The rows the journal's snapshots were taken at, oldest first."""
    con = sqlite3.connect(journal)
    try:
        return [seq for (seq,) in con.execute("SELECT seq FROM snapshots ORDER BY seq")]
    finally:
        con.close()


async def played(t: InProcessTable, rounds: int) -> list[StreamItem]:
    """Play `rounds` rounds (a us-holecard table: a hole card in each) and return every item streamed live."""
    async with t.service.subscribe(maxsize=1_000_000) as items:
        await play_rounds(t, rounds, seed=2)
        items.close()  # what was queued is still taken
        return [item async for item in items]


async def test_what_a_reader_missed_is_rebuilt_from_the_journal_exactly_as_it_was_streamed(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path, seed=4, profile="us-holecard", decks=1) as t:
        first = t.service.head()[0]
        live = await played(t, ROUNDS)
        head = t.service.head()[0]
        older, newer = snapshot_rows(t.journal)  # the journal keeps the two newest
        assert first < older < newer < head
        assert any(i.closed_card for i in live)  # hole cards: the masks are compared too
        rows_after = {after: [i for i in live if i.seq > after] for after in (first, older + 3, newer, newer + 5)}
        for after, expected in rows_after.items():
            catch = t.service.catch_up(after)
            assert await rebuilt(catch) == expected, after
        # Each started from the newest snapshot at or before where its reader stopped, not the journal's first row.
        catch = t.service.catch_up(newer + 5)
        await rebuilt(catch)
        assert catch.replayed <= head - newer
        assert await rebuilt(t.service.catch_up(head)) == []


async def test_the_journal_keeps_a_snapshot_every_snapshot_every_rounds(tmp_path: Path) -> None:
    """Every snapshot stays (issue 37): a reader coming back starts at most that many rounds before its row."""
    async with InProcessTable(tmp_path, seed=4) as t:
        await play_rounds(t, 3 * SNAPSHOT_EVERY_ROUNDS, seed=2)
        kept = snapshot_rows(t.journal)
        rounds = dict(sqlite3.connect(t.journal).execute("SELECT seq, number FROM rounds").fetchall())
        assert [rounds[seq] for seq in kept] == [SNAPSHOT_EVERY_ROUNDS, 2 * SNAPSHOT_EVERY_ROUNDS,
                                                 3 * SNAPSHOT_EVERY_ROUNDS]


async def test_a_reader_too_far_behind_is_told_to_reload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with InProcessTable(tmp_path, seed=4) as t:
        first = t.service.head()[0]
        await play_rounds(t, 3 * SNAPSHOT_EVERY_ROUNDS, seed=2)
        older = snapshot_rows(t.journal)[0]
        # Before the older snapshot the rows are replayed from the journal's first: bounded by CATCH_UP_ROWS.
        monkeypatch.setattr(service_module, "CATCH_UP_ROWS", t.service.head()[0] - 1)
        catch = t.service.catch_up(first)
        assert not await asyncio.to_thread(catch.open)
        catch.close()
        assert await rebuilt(t.service.catch_up(older))  # from a snapshot it is still served


async def body(stream: object, parts: int) -> list[bytes]:
    """The first `parts` pieces of a streaming response's body."""
    it = stream.body_iterator  # type: ignore[attr-defined]
    return [await asyncio.wait_for(anext(it), 10) for _ in range(parts)]


async def test_the_stream_route_resumes_from_the_journal_with_cards_masked_below_supervisor(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path, seed=4, profile="us-holecard", decks=1) as t:
        first = t.service.head()[0]
        live = await played(t, 2)
        hole = next(i for i in live if i.closed_card)
        after = hole.seq - 1
        wanted = len([i for i in live if i.seq > after])
        viewer, supervisor = SimpleNamespace(sees_closed_cards=False), SimpleNamespace(sees_closed_cards=True)
        seen = {}
        for who in (viewer, supervisor):
            response = await events(request=None, who=who, service=t.service,  # type: ignore[arg-type]
                                    last_event_id=str(after))
            got = await body(response, 1 + wanted)
            assert got[0] == b"retry: 1000\n\n"
            assert got[1].startswith(f"id: {hole.seq}\nevent: table\n".encode())
            seen[who.sees_closed_cards] = got[1]
            await response.body_iterator.aclose()
        assert b'"card":"XX"' in seen[False] and hole.event["card"].encode() not in seen[False]
        assert f'"card":"{hole.event["card"]}"'.encode() in seen[True]
        assert first < after


async def test_a_reader_from_beyond_the_head_is_told_to_reload_and_then_hears_the_table(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path, seed=4) as t:
        head = t.service.head()[0]
        response = await events(request=None, who=SimpleNamespace(sees_closed_cards=False),  # type: ignore[arg-type]
                                service=t.service, last_event_id=str(head + 1000))
        got = await body(response, 2)
        assert got == [b"retry: 1000\n\n", b"event: reset\ndata: {}\n\n"]
        await play_rounds(t, 1, seed=2)  # what comes next reaches it, though its seqs are below the id it gave
        assert (await body(response, 1))[0].startswith(f"id: {head + 1}\nevent: table\n".encode())
        await response.body_iterator.aclose()
