"""Evidence on read-only media (issue 21): a journal on a write-protected card is checkable.

A WAL journal needs its ``-shm`` index to be read, and SQLite makes one beside the file: on
read-only media (or in a folder the reader may not write) ``verify``, ``status`` and ``export``
failed with 'unable to open database file' or 'attempt to write a readonly database'. Read-only
is made honestly here: as root (CI), a read-only bind mount, which refuses root too; as anyone
else, file modes. A machine that can do neither skips with that reason. The tool run by a user who
may not write the folder runs as `nobody` when the suite runs as root (tests.support.nobody), never skipped.

Each way a journal can be found on a card is checked: closed cleanly (no WAL), pulled from a
running table (its WAL and -shm beside it), and copied with its WAL but without the -shm. The
tools must give exactly what they give for the same files on writable media, and change nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.deadlines import scaled
from tests.support import nobody
from tests.support.harness import tablectl
from tests.support.journals import open_authority, play_rounds
from controller.journal import key_beside


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_only(folder: Path) -> None:
    """Make `folder` and what it holds read-only for this process, root included."""
    if os.geteuid() != 0:
        for p in folder.iterdir():
            p.chmod(0o444)
        folder.chmod(0o555)
        return
    for args in (["mount", "--bind", str(folder), str(folder)], ["mount", "-o", "remount,bind,ro", str(folder)]):
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            subprocess.run(["umount", str(folder)], capture_output=True)
            pytest.skip(f"this machine cannot make a read-only bind mount: {done.stderr.strip()}")


def writable_again(folder: Path) -> None:
    if os.geteuid() != 0:
        folder.chmod(0o755)
        for p in folder.iterdir():
            p.chmod(0o644)
    else:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.fixture
def card(tmp_path: Path) -> Iterator[Path]:
    """A folder standing for the card; made read-only by the test, writable again afterwards."""
    folder = tmp_path / "card"
    folder.mkdir()
    yield folder
    if not os.access(folder, os.W_OK):
        writable_again(folder)


def journal_on(card: Path, tmp_path: Path, how: str) -> Path:
    """A journal of a few rounds in `card`, as it would be found there (`how`)."""
    src = tmp_path / "table" / "journal.sqlite"
    src.parent.mkdir()
    a = open_authority(src, snapshot_every_rounds=2)
    play_rounds(a, 3)
    a.journal.close()
    a = open_authority(src, snapshot_every_rounds=2)
    play_rounds(a, 2, shoe_id="S2")  # these rows are in the WAL alone while the table runs
    names = {"closed": [], "running": ["-wal", "-shm"], "wal-only": ["-wal"]}[how]
    if how == "closed":
        a.journal.close()
    for suffix in ["", ".key", *names]:
        shutil.copy(src.with_name(src.name + suffix), card / ("journal.sqlite" + suffix))
    if how != "closed":
        a.journal.close()
    return card / "journal.sqlite"


def tools(journal: Path) -> dict[str, object]:
    key = str(key_beside(journal))
    verify = tablectl("journal", "verify", "--db", str(journal), "--key", key, "--json")
    status = tablectl("status", "--db", str(journal), "--json")
    export = tablectl("journal", "export", "--db", str(journal))
    for out in (verify, status, export):
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stdout + out.stderr
    return {"verify": json.loads(verify.stdout), "status": json.loads(status.stdout), "export": export.stdout}


@pytest.mark.parametrize("how", ["closed", "running", "wal-only"])
def test_a_journal_on_read_only_media_is_checked_as_on_a_writable_copy(tmp_path: Path, card: Path, how: str) -> None:
    journal = journal_on(card, tmp_path, how)
    writable = tmp_path / "copy"
    shutil.copytree(card, writable)
    expected = tools(writable / "journal.sqlite")
    assert expected["verify"]["rows"] == 38  # every row, those in the WAL too
    before = {p.name: digest(p) for p in card.iterdir()}
    read_only(card)
    try:
        got = tools(journal)
    finally:
        writable_again(card)
    assert got == expected
    assert {p.name: digest(p) for p in card.iterdir()} == before  # nothing made, nothing changed


@pytest.fixture(scope="module")
def cli() -> Iterator[list[str]]:
    """The command that runs this project's CLI as an unprivileged user.

    As root: as `nobody`, with Debian's interpreter in an environment it may read (tests.support.nobody;
    the suite's own may sit where `nobody` cannot reach it, a pyenv or a checkout under /root) on a copy of
    the sources it may read. As anyone else, this user: the folder's mode is what stops the writes.
    """
    if os.geteuid() != 0:
        yield [sys.executable, "-m", "tablectl.cli"]
        return
    copy = nobody.sources()
    try:
        yield nobody.as_nobody(nobody.python(), copy)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


@pytest.mark.parametrize("how", ["closed", "running", "wal-only"])
def test_a_user_who_may_not_write_the_folder_checks_the_journal(tmp_path: Path, how: str, cli: list[str]) -> None:
    """The issue as reported: a non-root user verifying a journal in a folder he cannot write."""
    shared = Path(tempfile.mkdtemp(prefix="tablectl-ro-"))  # (tmp_path's parents are closed to others)
    card = shared / "card"
    try:
        shared.chmod(0o755)
        card.mkdir()
        journal = journal_on(card, tmp_path, how)
        shutil.copytree(card, tmp_path / "copy")
        expected = tools(tmp_path / "copy" / "journal.sqlite")  # (as root, on a copy: the reference)
        for p in card.iterdir():
            p.chmod(0o644)  # readable by all, the key too: this test is about the folder
        before = {p.name: digest(p) for p in card.iterdir()}
        card.chmod(0o555)  # nobody (or this user, when not root) may not write the folder
        key = str(key_beside(journal))
        runs = {name: subprocess.run([*cli, *args], capture_output=True, text=True, cwd="/", timeout=scaled(120))
                for name, args in (("verify", ["journal", "verify", "--db", str(journal), "--key", key, "--json"]),
                                   ("status", ["status", "--db", str(journal), "--json"]),
                                   ("export", ["journal", "export", "--db", str(journal)]))}
        for out in runs.values():
            assert out.returncode == 0 and "Traceback" not in out.stderr, out.stdout + out.stderr
        got = {"verify": json.loads(runs["verify"].stdout), "status": json.loads(runs["status"].stdout),
               "export": runs["export"].stdout}
        assert got == expected
        assert {p.name: digest(p) for p in card.iterdir()} == before
    finally:
        if card.exists():
            card.chmod(0o755)
        shutil.rmtree(shared, ignore_errors=True)


@pytest.mark.parametrize("command", [["--check"], ["--no-gpio", "--no-api"]])
def test_a_read_only_folder_with_the_key_and_no_journal_stops_with_exit_4_naming_it(
        tmp_path: Path, card: Path, command: list[str]) -> None:
    """As deploy/install.sh leaves a table (the key in place, no journal yet), on a folder mounted read-only.

    Exit 4 (storage) names the read-only path; exit 1, a traceback, was not in the unit's
    RestartPreventExitStatus either, and systemd restarted it every 5 s without a word.
    """
    key = card / "journal.sqlite.key"
    open_authority(tmp_path / "elsewhere.sqlite")  # (makes a key beside it: copied into place)
    shutil.copy(tmp_path / "elsewhere.sqlite.key", key)
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{card / "journal.sqlite"}"\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n')
    read_only(card)
    try:
        out = tablectl("run", "--config", str(cfg), *command, timeout=60)
    finally:
        writable_again(card)
    assert out.returncode == 4, out.stderr
    assert "the journal is read-only" in out.stderr and str(card / "journal.sqlite") in out.stderr
    assert "Traceback" not in out.stderr
    assert sorted(p.name for p in card.iterdir()) == [key.name]
