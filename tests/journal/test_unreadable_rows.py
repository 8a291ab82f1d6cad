"""A ledger row that verifies but that this release cannot read is refused, naming it (issue 21).

Such a row was written by a newer release (deploy/README's rollback keeps the journal as it is)
or by someone who holds the key. An unknown event type made `status`, `run` and `run --check`
exit 1 with a BadEvent traceback, a body nested 200,000 deep a RecursionError traceback in
`status`, `export` and `run`: an older release meeting a newer event type restart-looped under
systemd. Each is now refused with exit 3 and a message naming the row, its type, and the
release that last wrote the journal (recorded in it by every release from this one on).
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from controller.journal import RELEASE, Journal, JournalKey, LedgerRow, UnreadableRow, row_mac
from tests.support.harness import tablectl
from tests.support.journals import T0, key_for, open_authority, play_rounds

DEEP = 200_000
BODIES = {
    "unknown type": ('{"amount":5,"type":"chip_count"}', "chip_count"),
    "unknown field": ('{"amount":10,"box":1,"colour":"red","type":"bet"}', "bet"),
    "nested 200,000 deep": ('{"type":"bet","x":' + "[" * DEEP + "]" * DEEP + "}", "bet"),
    "not JSON": ("chip_count 5", None),
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def forged(tmp_path: Path, body: str, release: str | None = None) -> tuple[Path, int]:
    """A journal of two rounds, then a row with `body` chained with the table's own key (as a
    newer release, or anyone holding the key, would write it); `release`: the release it names."""
    path = tmp_path / "j.sqlite"
    a = open_authority(path)
    play_rounds(a, 2)
    seq, mac = a.journal.head()
    a.journal.close()
    row = LedgerRow(seq + 1, "event", "2026-11-30T21:00:00+00:00", body, None, None, None, None, "")
    con = sqlite3.connect(path)
    con.execute("INSERT INTO ledger VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row.seq, row.kind, row.received_at, row.body, None, None, None, None,
                 row_mac(key_for(path).secret, mac, row)))
    if release is not None:
        con.execute("INSERT OR REPLACE INTO meta VALUES ('release', ?)", (release,))
    con.commit()
    con.close()
    return path, seq + 1


def config(tmp_path: Path, path: Path) -> Path:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{path}"\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n')
    return cfg


@pytest.mark.parametrize("kind", list(BODIES))
def test_every_command_refuses_the_row_with_exit_3_naming_it(tmp_path: Path, kind: str) -> None:
    body, event_type = BODIES[kind]
    path, seq = forged(tmp_path, body, release="9.4.0")
    before = digest(path)
    cfg = str(config(tmp_path, path))
    for args in (["status", "--db", str(path)], ["journal", "export", "--db", str(path)],
                 ["run", "--config", cfg, "--check"], ["run", "--config", cfg, "--no-gpio", "--no-api"]):
        out = tablectl(*args, timeout=120)
        assert out.returncode == 3, (args, out.stderr[-2000:])
        assert "Traceback" not in out.stderr, (args, out.stderr[-2000:])
        assert f"ledger row {seq}" in out.stderr, out.stderr
        if event_type is not None:
            assert f"'{event_type}'" in out.stderr, out.stderr
        assert "tablectl 9.4.0" in out.stderr and RELEASE in out.stderr  # the release that wrote it, and this one
    assert digest(path) == before


def test_without_a_recorded_release_the_message_says_who_can_have_written_it(tmp_path: Path) -> None:
    path, seq = forged(tmp_path, BODIES["unknown type"][0])
    out = tablectl("status", "--db", str(path))
    assert out.returncode == 3 and "Traceback" not in out.stderr
    assert f"ledger row {seq} ('chip_count')" in out.stderr and "newer release" in out.stderr


def test_the_verify_tool_still_checks_the_macs_of_such_a_row(tmp_path: Path) -> None:
    """The row verifies: it is not tampering, and verify does not say it is."""
    path, seq = forged(tmp_path, BODIES["unknown type"][0])
    con = sqlite3.connect(path)
    con.execute("UPDATE ledger SET body = replace(body, '5', '6') WHERE seq = ?", (seq,))
    con.commit()
    con.close()
    out = tablectl("journal", "verify", "--db", str(path), "--key", str(path.with_name("j.sqlite.key")))
    assert out.returncode == 1 and f"ledger row {seq} does not verify" in out.stdout


def test_in_process_the_reader_raises_unreadable_row_with_the_row_and_type(tmp_path: Path) -> None:
    path, seq = forged(tmp_path, BODIES["nested 200,000 deep"][0])
    journal = Journal(path, key_for(path))  # opening verifies the MACs: the row is the key's
    with pytest.raises(UnreadableRow) as caught:
        list(journal.entries())
    journal.close()
    assert (caught.value.table, caught.value.row, caught.value.event_type) == ("ledger", seq, "bet")


def test_each_release_that_writes_a_row_records_itself(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    a = open_authority(path)
    a.journal.close()
    con = sqlite3.connect(path)
    assert dict(con.execute("SELECT key, value FROM meta"))["release"] == RELEASE  # made by this release
    con.execute("UPDATE meta SET value = '0.0.1' WHERE key = 'release'")  # as if an older one wrote last
    con.commit()
    con.close()
    a = open_authority(path)
    with sqlite3.connect(path) as con:
        assert dict(con.execute("SELECT key, value FROM meta"))["release"] == "0.0.1"  # opening writes nothing
    play_rounds(a, 1, start=T0)
    a.journal.close()
    con = sqlite3.connect(path)
    assert dict(con.execute("SELECT key, value FROM meta"))["release"] == RELEASE
    con.close()
    assert JournalKey.load(path.with_name("j.sqlite.key"))


def test_verify_says_it_cannot_check_the_round_records_past_such_a_row(tmp_path: Path) -> None:
    """Its MACs verify, but the replay that finds every settled round's record cannot pass it: exit 2."""
    path, seq = forged(tmp_path, BODIES["unknown type"][0])
    out = tablectl("journal", "verify", "--db", str(path), "--key", str(path.with_name("j.sqlite.key")))
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stdout + out.stderr
    assert "every MAC verifies" in out.stderr and f"ledger row {seq} ('chip_count')" in out.stderr
