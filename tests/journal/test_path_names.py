"""A journal's path is a file name, never URI syntax (issue 21).

SQLite reads a ``file:`` URI: an unescaped ``#`` ends the path (and drops the ``?mode=ro``
after it), a ``?`` starts the query, and ``%XX`` is decoded. So ``journal verify --db
'z.sqlite#'`` checked ``z.sqlite`` and vouched for a tampered ``z.sqlite#``, and ``status
--db 'x.sqlite#'`` opened ``x.sqlite`` read-write and folded (deleted) its WAL. Each tool is run
here on names with ``#``, ``?``, ``%`` and spaces beside a *decoy*: the journal those names
would have opened, which must be left exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.support.harness import free_port, tablectl
from tests.support.journals import open_authority, play_rounds
from controller.journal import key_beside

# Each name, and the name SQLite opens for it when it is put into a URI unescaped.
NAMES = {
    "z.sqlite#": "z.sqlite",
    "z.sqlite#?mode=ro": "z.sqlite",
    "z.sqlite?mode=rw": "z.sqlite",
    "z%2Esqlite": "z.sqlite",
    "z %23.sqlite": "z #.sqlite",
    "a b#c?d%20e.sqlite": "a b",
}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def journal(path: Path, rounds: int) -> Path:
    """A closed journal of `rounds` rounds at `path`, its key beside it."""
    a = open_authority(path)
    play_rounds(a, rounds)
    a.journal.close()
    return path


def copy_journal(src: Path, dst: Path) -> Path:
    shutil.copy(src, dst)
    shutil.copy(key_beside(src), key_beside(dst))
    return dst


def key_of(path: Path) -> str:
    return str(key_beside(path))


@pytest.mark.parametrize("name", list(NAMES))
def test_verify_checks_the_file_it_is_given(tmp_path: Path, name: str) -> None:
    (tmp_path / "made").mkdir()
    good = journal(tmp_path / "made" / "j.sqlite", 2)
    decoy = copy_journal(good, tmp_path / NAMES[name])
    target = copy_journal(good, tmp_path / name)
    con = sqlite3.connect(target)
    con.execute("UPDATE ledger SET body = replace(body, '\"TS\"', '\"AS\"') WHERE seq = 4")
    con.commit()
    con.close()
    before = digest(decoy)
    out = tablectl("journal", "verify", "--db", str(target), "--key", key_of(target), "--json")
    assert "Traceback" not in out.stderr
    assert out.returncode == 1, out.stdout + out.stderr
    assert json.loads(out.stdout)["row"] == 4
    assert digest(decoy) == before


def live_copy(tmp_path: Path, dst: Path, rounds: int) -> Path:
    """A journal whose rows are still in its WAL (copied while its writer holds it), at `dst`."""
    src = tmp_path / "live" / "j.sqlite"
    src.parent.mkdir()
    a = open_authority(src)
    play_rounds(a, rounds)
    copy_journal(src, dst)
    shutil.copy(src.with_name("j.sqlite-wal"), dst.with_name(dst.name + "-wal"))
    a.journal.close()
    return dst


@pytest.mark.parametrize("name", list(NAMES))
def test_status_and_export_read_the_file_they_are_given_and_leave_the_decoy_alone(tmp_path: Path, name: str) -> None:
    decoy = live_copy(tmp_path, tmp_path / NAMES[name], 2)
    decoy_wal = decoy.with_name(decoy.name + "-wal")
    target = journal(tmp_path / name, 3)
    before = {p: digest(p) for p in (decoy, decoy_wal, target)}
    status = tablectl("status", "--db", str(target), "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["rounds_played"] == 3  # the target's rounds, not the decoy's 2
    export = tablectl("journal", "export", "--db", str(target))
    assert export.returncode == 0, export.stderr
    assert sum(json.loads(line)["type"] == "stand" for line in export.stdout.splitlines()) == 3
    assert decoy_wal.exists(), "the decoy's WAL (its rows) was folded or deleted"
    assert {p: digest(p) for p in before} == before


@pytest.mark.parametrize("name", ["t#.sqlite", "t?.sqlite", "t%41.sqlite", "t 1.sqlite"])
def test_the_service_makes_and_reopens_its_journal_at_the_name_it_is_given(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    path = folder / name
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = {json.dumps(str(path))}\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n'
                   f'[api]\nport = {free_port()}\n')  # (a taken port fails `run --check`; 8080 may be)
    made = tablectl("journal", "init", "--config", str(cfg), timeout=60)  # (`run --check` makes nothing)
    assert made.returncode == 0, made.stderr
    for _ in range(2):  # reopened and verified, twice
        out = tablectl("run", "--config", str(cfg), "--check", "--no-gpio", timeout=60)
        assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted([name, name + ".key"])
