"""A dispute record and the players' evidence cost what the round (or the window) holds, not the journal (issue 37).

On a 10^6-row journal one dispute record took the table from 66 MB to 1.02 GB, and the players' evidence 406 MB:
every row was verified and replayed, the rows of a round's window kept without bound, the whole journal listed.
Here the same journal is read at 250 rounds (about 5,000 rows) and at 2,000 (about 40,000): the work of a record,
counted in SQLite's own steps (a progress handler: deterministic, unlike time), and its memory (tracemalloc, in
this process) are the same at both lengths; so are the players' evidence of the last hour; a window of 30,000
rows between two rounds is listed in part and held in bounded memory; and what is verified is said, and checked.
"""

from __future__ import annotations

import shutil
import sqlite3
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

import pytest

from controller import events as ev
from controller.cards import parse_card
from controller.dispute import DisputeOptions, DisputeRecord
from controller.engine import IllegalAction, Table
from controller.journal import JournalKey, JournalReader, JournalTampered, key_beside
from controller.protection.advantage import AdvantageBook, feed
from tablectl.dispute import make_record
from tablectl.figures import player_book, player_json
from tests.support.journals import T0, open_authority, play_many

pytestmark = pytest.mark.long
T = TypeVar("T")


@dataclass
class Cost:
    """What one call cost: SQLite's virtual machine steps (in thousands) and the peak of Python's allocations."""

    steps_k: int
    peak_bytes: int


def measured(path: Path, work: Callable[[JournalReader], T]) -> tuple[T, Cost]:
    """``work`` on a reader of ``path`` with its key, with its cost."""
    with JournalReader(path, JournalKey.load(key_beside(path))) as reader:
        steps = [0]

        def step() -> int:
            steps[0] += 1
            return 0

        reader.db.set_progress_handler(step, 1000)
        tracemalloc.start()
        try:
            result = work(reader)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        return result, Cost(steps[0], peak)


def record_of(number: int) -> Callable[[JournalReader], DisputeRecord]:
    return lambda reader: make_record(reader, DisputeOptions(
        round_number=number, table="t", exported_by="test", exported_at=datetime(2027, 1, 1, tzinfo=timezone.utc)))


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same play at 250 rounds and at 2,000."""
    folder = tmp_path_factory.mktemp("bounded")
    play_many(folder / "long.sqlite", 2000, copies={250: folder / "short.sqlite"})
    return folder / "short.sqlite", folder / "long.sqlite"


def test_a_record_costs_the_same_in_a_journal_eight_times_longer(journals: tuple[Path, Path]) -> None:
    short, long = journals
    for number in (3, 200, 240):
        a, cost_a = measured(short, record_of(number))
        b, cost_b = measured(long, record_of(number))
        assert a.rows == b.rows and a.settlement == b.settlement and a.recall == b.recall
        assert b.verification.head_seq > 7 * a.verification.head_seq  # the journal is eight times as long ...
        # ... and the record reads the same rows: the chain to the head goes by the checkpoints
        assert cost_b.steps_k <= cost_a.steps_k * 1.3 + 5, (number, cost_a, cost_b)
        assert cost_b.peak_bytes <= cost_a.peak_bytes * 1.5 + 200_000, (number, cost_a, cost_b)
    assert b.verification.replayed_from > 0  # from a kept state, not the first row


def test_the_record_says_what_it_verified_and_a_forgery_on_its_way_is_named(journals: tuple[Path, Path],
                                                                             tmp_path: Path) -> None:
    _, long = journals
    record, _ = measured(long, record_of(240))
    v = record.verification
    assert f"the state the table kept after row {v.replayed_from}" in v.note
    assert f"on to the head, row {v.head_seq}" in v.note and "checkpoints" in v.note
    assert "`tablectl journal verify` checks every row" in v.note
    copy = tmp_path / "copy.sqlite"
    # A row of the round, a checkpoint between the round and the head: each is named.
    for table, where in (("ledger", f"UPDATE ledger SET body = replace(body, '\"box\":1', '\"box\":2') WHERE seq = "
                                    f"(SELECT MIN(seq) FROM ledger WHERE seq > {v.first_seq} AND body LIKE '%\"box\":1%')"),
                         ("checkpoints", "UPDATE checkpoints SET mac = 'ab' || substr(mac, 3) WHERE seq = (SELECT MAX(seq) "
                                         "FROM checkpoints)")):
        shutil.copy(long, copy)
        shutil.copy(key_beside(long), key_beside(copy))
        con = sqlite3.connect(copy)
        con.execute(where)
        con.commit()
        con.close()
        with pytest.raises(JournalTampered) as found:
            measured(copy, record_of(240))
        assert found.value.table == table


def test_a_window_of_thirty_thousand_rows_between_rounds_is_held_in_bounded_memory(tmp_path: Path) -> None:
    """The rows between two rounds have no bound (refused actions here; a reserved box's ticks, a flapping link):
    the record lists the last MAX_WINDOW_ROWS of them, counts the rest, and holds no more."""
    costs = []
    for refusals in (3_000, 30_000):
        db = tmp_path / f"idle-{refusals}.sqlite"
        authority = open_authority(db)
        t = T0
        authority.journal.db.execute("PRAGMA synchronous=OFF")
        with authority.journal.transaction():
            authority.submit(ev.Shuffle(shoe_id="S1"), t)
            for _ in range(refusals):
                t += timedelta(seconds=1)
                with pytest.raises(IllegalAction):
                    authority.submit(ev.Stand(), t)  # no round: refused, and kept as a row
            for kind, code in (("bet", None), ("card", "TS"), ("card", "6D"), ("card", "9C"), ("stand", None),
                               ("card", "TD"), ("card", "2H")):
                t += timedelta(seconds=1)
                authority.submit(ev.PlaceBet(box=1, amount=10) if kind == "bet" else ev.Stand() if kind == "stand"
                                 else ev.CardDrawn(card=parse_card(str(code))), t)
        authority.journal.close()
        record, cost = measured(db, record_of(1))
        (box,) = [b for b in record.boxes if b.box == 1]
        assert record.settlement.agrees and box.stakes[0].amount == "10"
        assert record.verification.rows_left_out == refusals + 9 - 2000  # the rules, the shuffle, 7 of the round
        costs.append(cost)
    assert costs[1].peak_bytes <= costs[0].peak_bytes * 1.5 + 500_000, costs


def _full_replay(reader: JournalReader, since: datetime) -> list[dict[str, Any]]:
    """The players' evidence as a replay from the journal's first row books it (the reference)."""
    entries: Iterator[Any] = reader.entries()
    first = next(entries)
    from controller.replay import session_rules
    from controller.rules import build_rules
    import json
    from controller.event_codec import dump_event

    rules = build_rules(*session_rules([json.dumps(dump_event(first.event))]))
    table = Table(rules)
    book = AdvantageBook(decks=rules.decks, pack=rules.pack, since=since)
    feed(book, table, first.event)
    for entry in entries:
        feed(book, table, entry.event)
    return [player_json(r) for r in book.report()]


def test_the_players_evidence_of_an_hour_costs_the_hour_and_equals_a_replay_from_the_first_row(
        journals: tuple[Path, Path]) -> None:
    short, long = journals
    costs = []
    for path in (short, long):
        with JournalReader(path) as reader:
            end = datetime.fromisoformat(reader.db.execute("SELECT MAX(received_at) FROM ledger").fetchone()[0])
        since = end - timedelta(hours=1)
        reports, cost = measured(path, lambda r: [player_json(x) for x in player_book(r, since).report()])
        assert reports and reports == measured(path, lambda r: _full_replay(r, since))[0]
        costs.append(cost)
    assert costs[1].steps_k <= costs[0].steps_k * 1.3 + 5, costs
    assert costs[1].peak_bytes <= costs[0].peak_bytes * 1.5 + 500_000, costs
