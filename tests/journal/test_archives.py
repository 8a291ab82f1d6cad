"""Archives (issue 42): at the first input of a gaming day (or past a size) the writer archives the live file and
starts a new one, whose first row is the archive's last with its MAC and whose state there is kept; the chain runs
across the files, each verifies alone, a start replays the live file alone, and the readers read across them.
Kills at each step of an archiving resume exactly."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from controller.authority import TableAuthority, check_round_records, export_session
from controller.journal import (History, JournalReader, JournalTampered, Rotation, archive_folder, archives, key_beside,
                                manifest_current)
from tests.support.journals import T0, key_for, open_authority, play_rounds

ROTATION = Rotation(zone=timezone.utc, starts=time(6, 0))
ROOT = Path(__file__).resolve().parents[2]


def _days(path: Path, days: int, rounds: int = 3) -> TableAuthority:
    """`days` gaming days of `rounds` rounds each (rounds at 20:00 UTC, so each day's first input is after 06:00),
    the authority archiving at each new day as the service's writer does; the authority is left open."""
    authority = open_authority(path, snapshot_every_rounds=2)
    for day in range(days):
        start = T0 + timedelta(days=day)
        authority.rotate_if_due(ROTATION, start)
        play_rounds(authority, rounds, shoe_id=f"S{day}", start=start)
    return authority


def test_the_chain_runs_across_a_gaming_day_and_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    authority = _days(path, 3)
    head = authority.journal.head()
    authority.journal.close()
    files = archives(path)
    assert [f.name for f in files] == ["000000001-2026-11-30.sqlite", f"{files[1].name[:9]}-2026-12-01.sqlite"]
    assert manifest_current(path)
    with JournalReader(path, key_for(path)) as live:
        assert live.base == int(files[1].name[:9]) + 0 or live.base > 1
        assert live.verify().head_seq == head[0]  # the live file verifies alone, from its first row
    history = History(path, key_for(path))
    replayed: list[int] = []  # rounds each file's check replays: none in an archive (its tally is at its last row)
    verified = history.verify(lambda reader, _: replayed.append(check_round_records(reader)))
    assert replayed[:2] == [0, 0]
    assert (verified.head_seq, verified.head_mac, verified.rows, verified.rounds) == (*head, head[0], 9)
    # A restart replays the live file alone, from the state kept at its first row, to the same table.
    again = open_authority(path, snapshot_every_rounds=2)
    assert again.replayed <= 3 * 7 + 1 and again.journal.head() == head
    play_rounds(again, 1, shoe_id="S9", start=T0 + timedelta(days=2, hours=1))
    again.journal.close()
    assert History(path, key_for(path)).verify().rounds == 10


def test_readers_read_across_the_archives(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    history = History(path, key_for(path))
    seqs = [e.seq for e in history.entries()]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1 and len(seqs) == history.verify().rows
    with JournalReader(path, key_for(path)) as live:
        rows = live.ledger_rows(0, 10_000)  # (the floor's gap reads and the fleet publisher: by row, any file)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1)) and len(rows) == len(seqs)
    lines = list(export_session(history))
    assert [line["type"] for line in lines].count("shuffle") == 3


def test_a_missing_archive_or_a_foreign_one_is_named(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    first, second = archives(path)
    os.chmod(second, 0o640)
    hidden = second.rename(tmp_path / second.name)
    with pytest.raises(JournalTampered, match="missing or not its own"):
        History(path, key_for(path)).verify()
    hidden.rename(second)
    first.rename(tmp_path / first.name)
    with pytest.raises(JournalTampered, match="archives before it are missing"):
        History(path, key_for(path)).verify()


STEPS = ("made", "closed", "archived", "switched", "listed")

_KILLER = """
import os, sys
from datetime import timedelta
sys.path.insert(0, {root!r})
from tests.journal.test_archives import ROTATION
from tests.support.journals import T0, open_authority
from pathlib import Path
from typing import Any
authority = open_authority(Path({path!r}), snapshot_every_rounds=2)
def hook(step):
    if step == {step!r}:
        os._exit(9)
authority.journal._rotation_hook = hook
authority.rotate_if_due(ROTATION, T0 + timedelta(days=1))
os._exit(0)
"""


@pytest.mark.parametrize("step", STEPS)
def test_a_kill_at_each_step_of_an_archiving_resumes_exactly(tmp_path: Path, step: str) -> None:
    path = tmp_path / "j.sqlite"
    authority = open_authority(path, snapshot_every_rounds=2)
    play_rounds(authority, 3)
    head = authority.journal.head()
    authority.journal.close()
    code = subprocess.run([sys.executable, "-c", _KILLER.format(root=str(ROOT), path=str(path), step=step)],
                          cwd=ROOT, timeout=120).returncode
    assert code == 9
    if step == "switched":  # (archived and renamed, not listed yet: the history verifies, the MANIFEST a step behind)
        history = History(path, key_for(path))
        history.verify()
        assert len(history.notes) == 1 and "not in the MANIFEST yet" in history.notes[0]
    again = open_authority(path, snapshot_every_rounds=2)  # resumes: the live file is whole either way
    assert again.journal.head() == head
    archived = step in ("switched", "listed")
    assert len(archives(path)) == (1 if archived else 0)
    assert not path.with_name(path.name + ".next").exists()
    again.rotate_if_due(ROTATION, T0 + timedelta(days=1))  # (done again where it was undone; nothing to do else)
    play_rounds(again, 1, shoe_id="S2", start=T0 + timedelta(days=1))
    again.journal.close()
    assert len(archives(path)) == 1 and manifest_current(path)
    verified = History(path, key_for(path)).verify(lambda reader, _: check_round_records(reader))
    assert verified.rounds == 4 and verified.rows == head[0] + 8  # (a shuffle and a round of 7 rows)


def test_an_archive_is_read_only_and_named_by_its_first_row_and_gaming_day(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _days(path, 2).journal.close()
    (archive,) = archives(path)
    assert archive.parent == archive_folder(path)
    assert not os.stat(archive).st_mode & 0o222


def test_the_gaming_day_starts_at_its_hour_in_the_tables_zone() -> None:
    from zoneinfo import ZoneInfo

    rotation = Rotation(zone=ZoneInfo("Europe/Moscow"), starts=time(6, 0))
    # 02:59 UTC is 05:59 in Moscow: still the gaming day before; 03:00 UTC is 06:00, the next.
    assert str(rotation.gaming_day(datetime(2026, 12, 7, 2, 59, tzinfo=timezone.utc))) == "2026-12-06"
    assert str(rotation.gaming_day(datetime(2026, 12, 7, 3, 0, tzinfo=timezone.utc))) == "2026-12-07"


def test_the_tools_read_a_history_with_archives(tmp_path: Path) -> None:
    """verify (every file and link), export (the whole history), status (from the live file, with its key and
    without), and a dispute record of a round in an archive."""
    import json

    from tests.support.harness import tablectl

    path = tmp_path / "j.sqlite"
    authority = _days(path, 3)
    head = authority.journal.head()
    state = authority.table.snapshot()
    authority.journal.close()
    verify = tablectl("journal", "verify", "--db", str(path), "--json")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    doc = json.loads(verify.stdout)
    assert (doc["head_seq"], doc["head_mac"], doc["rows"], doc["rounds"]) == (*head, head[0], 9)
    export = tablectl("journal", "export", "--db", str(path))
    assert export.returncode == 0 and len(export.stdout.splitlines()) == head[0], export.stderr
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(path, alone / path.name)  # (the live file alone, no key beside it: read NOT verified)
    for db in (path, alone / path.name):
        status = tablectl("status", "--db", str(db), "--json")
        assert status.returncode == 0 and "Traceback" not in status.stderr, status.stdout + status.stderr
        assert json.loads(status.stdout)["phase"] == state["phase"]
    dispute = tablectl("dispute", "--db", str(path), "--round", "2", "--format", "json")
    assert dispute.returncode == 0, dispute.stderr
    assert json.loads(dispute.stdout)["round"] == 2


def test_a_backup_copies_each_archive_once(tmp_path: Path) -> None:
    from tests.support.harness import tablectl

    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    to = tmp_path / "stick"
    to.mkdir()
    first = tablectl("journal", "backup", "--to", str(to), "--db", str(path))
    assert first.returncode == 0 and "2 new archives copied" in first.stdout, first.stdout + first.stderr
    assert sorted(p.name for p in (to / "j.archive").iterdir()) == [a.name for a in archives(path)]
    import time as clock

    clock.sleep(1.1)  # (a copy is named by its second: two in one second are refused, as documented)
    again = tablectl("journal", "backup", "--to", str(to), "--db", str(path))
    assert again.returncode == 0 and "archives copied" not in again.stdout, again.stdout + again.stderr


def test_the_rotation_and_the_readers_make_nothing_beside_an_archive(tmp_path: Path) -> None:
    """An archive is a closed file, read ``immutable``: the rotation's MANIFEST, `verify`, the reads by row and
    time, and a dispute record of an archived round leave no ``-wal`` or ``-shm`` beside it (``mode=ro`` made
    both beside every archive it read)."""
    from tests.support.harness import tablectl

    path = tmp_path / "j.sqlite"
    authority = _days(path, 3)
    assert sorted(p.name for p in archive_folder(path).iterdir()) == [*(a.name for a in archives(path)), "MANIFEST"]
    authority.journal.close()
    history = History(path, key_for(path))
    history.verify()
    assert history.notes == []
    assert len(list(history.entries())) > 0 and history.holding_round(2) == archives(path)[0]
    with JournalReader(path, key_for(path)) as live:
        live.ledger_rows(0, 10_000)
    assert tablectl("dispute", "--db", str(path), "--round", "2", "--format", "json").returncode == 0
    assert sorted(p.name for p in archive_folder(path).iterdir()) == [*(a.name for a in archives(path)), "MANIFEST"]


def _verify(path: Path) -> tuple[int, list[str], str]:
    from tests.support.harness import tablectl

    done = tablectl("journal", "verify", "--db", str(path))
    return done.returncode, done.stdout.splitlines(), done.stderr


def test_verify_names_a_stray_file_beside_an_archive_and_refuses_writes_to_one(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    first = archives(path)[0]
    wal, shm = (first.with_name(first.name + side) for side in ("-wal", "-shm"))
    wal.touch()
    shm.write_bytes(bytes(32768))
    code, out, err = _verify(path)
    assert code == 0 and out[0].startswith("verified:"), (out, err)
    assert f"note: {wal} is a stray file beside the archive {first.name}" in err
    assert f"note: {shm} is a stray file" in err
    wal.write_bytes(b"\x37\x7f\x06\x82" + bytes(28))  # (a WAL's header: writes made to the archive after it closed)
    code, out, err = _verify(path)
    assert code == 1 and len(out) == 1, (out, err)
    assert out[0].startswith(f"NOT VERIFIED: journal {path}: {wal} beside the archive {first.name} holds 32 bytes")


def _edit_manifest(path: Path, edit: object, key: bool = False) -> None:
    """Change the MANIFEST's body by `edit` (a function of its dict); with `key`, MAC it again with the table's key
    (what only the key's holder can do: the entries are then checked against the archives themselves)."""
    import json

    from controller.journal import _mac

    where = archive_folder(path) / "MANIFEST"
    body = json.loads(where.read_text())
    mac = body.pop("mac")
    edit(body)  # type: ignore[operator]
    if key:
        mac = _mac(key_for(path).secret, "manifest\n" + json.dumps(body, sort_keys=True, separators=(",", ":")))
    where.write_text(json.dumps({**body, "mac": mac}))


def _rename_second(path: Path) -> None:
    second = archives(path)[1]
    second.rename(second.with_name(second.name.replace("2026-12-01", "2026-12-02")))


def _remove_second(path: Path) -> None:
    os.chmod(archives(path)[1], 0o640)
    archives(path)[1].unlink()


TAMPERINGS = {
    "an entry's last row edited": (lambda p: _edit_manifest(p, lambda b: b["archives"][0].update(last_seq=22)),
                                   "MANIFEST .* does not verify against the key"),
    "the entries reordered": (lambda p: _edit_manifest(p, lambda b: b["archives"].reverse()),
                              "MANIFEST .* does not verify against the key"),
    "an entry removed": (lambda p: _edit_manifest(p, lambda b: b["archives"].pop()),
                         "MANIFEST .* does not verify against the key"),
    "not JSON": (lambda p: (archive_folder(p) / "MANIFEST").write_text("{"), "MANIFEST .* is not one tablectl wrote"),
    "an archive renamed": (_rename_second, "MANIFEST lists 000000023-2026-12-01.sqlite as archive 2, .* holds "
                                           "000000023-2026-12-02.sqlite there: an archive was renamed"),
    "an archive removed": (_remove_second, "does not start at the last row of the file before it"),
    "a first time edited, MAC'd with the key": (
        lambda p: _edit_manifest(p, lambda b: b["archives"][1].update(first_at="2026-12-01T06:00:00+00:00"), key=True),
        "MANIFEST says the archive 000000023-2026-12-01.sqlite holds first_at '2026-12-01T06:00:00\\+00:00', the "
        "archive holds first_at '2026-11-30T20:00:21\\+00:00'"),
    "an archive added to the list, MAC'd with the key": (
        lambda p: _edit_manifest(p, lambda b: b["archives"].append({**b["archives"][1], "file": "000000045-x.sqlite"}),
                                 key=True),
        "MANIFEST lists the archive 000000045-x.sqlite, which is not in"),
}


@pytest.mark.parametrize("tampering", TAMPERINGS)
def test_a_tampered_manifest_or_archive_folder_fails_verify_in_one_line(tmp_path: Path, tampering: str) -> None:
    """`journal verify` checks the MANIFEST's MAC, then each entry against the archive verified: a MANIFEST edited,
    reordered, cut or forged, or an archive renamed or removed, is NOT VERIFIED in one line, exit 1."""
    import re

    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    change, says = TAMPERINGS[tampering]
    change(path)
    code, out, err = _verify(path)
    assert code == 1 and len(out) == 1 and out[0].startswith("NOT VERIFIED: "), (out, err)
    assert re.search(says, out[0]), out[0]


# ---------------------------------------------------------------- the readers by round and by time, across archives

def _across_the_day(path: Path) -> None:
    """Two rounds before the gaming day's start (12-01 05:00, gaming day 11-30) and two after it (06:30): the first
    two in the archive, the last two in the live file; a shift of 8 hours at 07:00 holds all four."""
    authority = open_authority(path, snapshot_every_rounds=2)
    play_rounds(authority, 2, shoe_id="S0", start=datetime(2026, 12, 1, 5, 0, tzinfo=timezone.utc))
    late = datetime(2026, 12, 1, 6, 30, tzinfo=timezone.utc)
    authority.rotate_if_due(ROTATION, late)
    play_rounds(authority, 2, shoe_id="S1", start=late)
    authority.journal.close()
    assert len(archives(path)) == 1


def test_the_round_history_pages_read_into_the_archives(tmp_path: Path) -> None:
    """`GET /api/rounds` and `/api/rounds/N` (the live file's reader: `rounds`, `round_count`, `round`,
    `round_times`): the rounds archived are found, pages newest first across the files."""
    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    with JournalReader(path, key_for(path)) as live:
        assert live.round_count() == 9
        assert [r["number"] for r in live.rounds(0, 20)] == list(range(9, 0, -1))
        assert [r["number"] for r in live.rounds(4, 3)] == [5, 4, 3]  # (a page across the two archives)
        assert [r["number"] for r in live.rounds(8, 5)] == [1]
        assert live.round(2) is not None and live.round(2)["number"] == 2  # type: ignore[index]
        times = live.round_times([2, 5, 8])
        assert sorted(times) == [2, 5, 8] and times[2].startswith("2026-11-30")


def test_the_shift_figures_read_into_the_archive(tmp_path: Path) -> None:
    """`GET /api/figures` (the pit's shift figures, and the floor's): a window that crosses the gaming day's start
    holds the rounds and the bets archived at it."""
    from tablectl.figures import figures

    path = tmp_path / "j.sqlite"
    _across_the_day(path)
    with JournalReader(path, key_for(path)) as live:
        found = figures(live, datetime(2026, 12, 1, 7, 0, tzinfo=timezone.utc), 8)
    assert found["rounds"] == 4 and [b["rounds"] for b in found["boxes"]] == [4]
    assert [(p["rounds"], p["bets"]) for p in found["players"]] == [(4, "40")]


def test_the_floors_public_rounds_read_into_the_archive(tmp_path: Path) -> None:
    """The publisher's `settled_after` (the floor's public feed of settled rounds) and `last_round_number`: the
    rounds settled after the last published are found in the archive too, none twice."""
    from types import SimpleNamespace

    from tablectl.fleet.source import ServiceSource

    path = tmp_path / "j.sqlite"
    _across_the_day(path)
    with JournalReader(path, key_for(path)) as live:
        source = ServiceSource.__new__(ServiceSource)  # (its reads alone: no service, no broker)
        source.service = SimpleNamespace(authority=SimpleNamespace(journal=SimpleNamespace(generation=0)))  # type: ignore[assignment]
        source._reader, source._generation = live, 0
        after = source.settled_after(0)
        assert [n for n, _, _ in after] == [1, 2, 3, 4] and all(at for _, _, at in after)
        assert source.last_round_number() == 4


def _tool(*args: str) -> tuple[int, Any]:
    import json

    from tests.support.harness import tablectl

    done = tablectl(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.returncode, json.loads(done.stdout)


def test_the_protection_reports_read_into_the_archives(tmp_path: Path) -> None:
    """`protect players` (from the state kept before its window, wherever it is; and the whole history),
    `protect report` and `protect dealers` (from the history's first row): the archived rounds and shoes are
    found, and the rows read are verified across the files."""
    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    db = str(path)
    _, windowed = _tool("protect", "players", "--db", db, "--since", "2026-12-01T19:00:00Z", "--json")
    assert [p["rounds"] for p in windowed["players"]] == [6]  # (the second day's archive and the live file)
    _, whole = _tool("protect", "players", "--db", db, "--json")
    assert [p["rounds"] for p in whole["players"]] == [9]
    _, report = _tool("protect", "report", "--db", db, "--json")
    assert [s["shoe"] for s in report["shoes"]] == ["S0", "S1", "S2"]
    _, dealers = _tool("protect", "dealers", "--db", db, "--since", "2026-11-30T00:00:00Z", "--json")
    assert sum(d["rounds"] for d in dealers["dealers"]) == 9


def test_the_ratings_and_the_shift_report_read_into_the_archives(tmp_path: Path) -> None:
    """`ratings export` (each player's sessions) and `shift report` of an archived gaming day."""
    import json

    from tests.support.harness import tablectl

    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    ratings = tablectl("ratings", "export", "--db", str(path), "--format", "json")
    assert ratings.returncode == 0, ratings.stderr
    assert [json.loads(line)["rounds"] for line in ratings.stdout.splitlines()] == [3, 3, 3]
    _, shift = _tool("shift", "report", "--db", str(path), "--from", "2026-12-01T16:00:00Z", "--to",
                     "2026-12-02T00:00:00Z", "--format", "json")
    assert shift["report"]["rounds"] == 3


# ---------------------------------------------------------------- a dispute record of an archived round

def test_a_dispute_record_of_an_archived_round_is_verified_on_to_the_journals_head(tmp_path: Path) -> None:
    """The record of a round in an archive is made from its archive (which verifies alone) and the chain followed on
    across each later file to the live file's head, by the tool and by the service's reader (the API's)."""
    import json

    from controller.dispute import DisputeOptions
    from tablectl.dispute import make_record
    from tests.support.harness import tablectl

    path = tmp_path / "j.sqlite"
    _days(path, 3).journal.close()
    with JournalReader(path, key_for(path)) as live:
        head = live.head()
        record = make_record(live, DisputeOptions(round_number=2, table="t", exported_by="test",
                                                  exported_at=T0 + timedelta(days=3)))
    assert (record.verification.head_seq, record.verification.head_mac) == head
    assert "across the 2 later file(s) of the journal" in record.verification.note
    done = tablectl("dispute", "--db", str(path), "--round", "2", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verification"]["head_seq"] == head[0]
    middle = archives(path)[1]  # a file between the round's archive and the head, replaced by a foreign one
    os.chmod(middle, 0o640)
    foreign = tmp_path / "other.sqlite"  # (another journal of the same key: each of its files verifies alone)
    shutil.copyfile(key_beside(path), key_beside(foreign))
    _days(foreign, 2, rounds=4).journal.close()
    shutil.copyfile(archives(foreign)[0], middle)
    done = tablectl("dispute", "--db", str(path), "--round", "2", "--format", "json")
    assert done.returncode == 3 and "does not start at the last row of the file before it" in done.stderr, done.stderr
