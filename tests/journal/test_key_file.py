"""The journal's key file is a small regular file, readable by the service alone (issue 21).

A key file that was a FIFO hung `run --check` (open() waits for a writer); one symlinked to
/dev/zero was read until MemoryError; a world-readable one got no word. Anything that is not a
regular file of a key's size is refused with a message naming it (exit 3 from `run`, 2 from the
tools), and a mode wider than 0600 is warned about. Every run here is bounded in memory
(`prlimit --as`), so a key read without end fails fast instead of eating the machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import JournalKey, JournalKeyError
from tests.support.deadlines import scaled
from tests.support.harness import free_port
from tests.support.journals import open_authority, play_rounds

LIMIT = ["prlimit", "--as=2147483648"] if shutil.which("prlimit") else []


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*LIMIT, sys.executable, "-m", "tablectl.cli", *args], capture_output=True, text=True,
                          timeout=scaled(60), stdin=subprocess.DEVNULL)


def journal(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "j.sqlite"
    a = open_authority(path)
    play_rounds(a, 1)
    a.journal.close()
    return path, path.with_name("j.sqlite.key")


def config(tmp_path: Path, path: Path, key: Path) -> Path:
    cfg = tmp_path / "c.toml"
    # A free API port: `run --check` fails (exit 6) where the port is taken, and 8080 may be.
    cfg.write_text(f'[journal]\npath = "{path}"\nkey_file = "{key}"\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n'
                   f'[api]\nport = {free_port()}\n')
    return cfg


def bad_keys(tmp_path: Path, good: Path) -> dict[str, Path]:
    """Each kind of key file that must be refused, by name."""
    fifo = tmp_path / "fifo.key"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.key"
    zero.symlink_to("/dev/zero")
    big = tmp_path / "big.key"
    big.write_text(good.read_text().strip() * 20_000 + "\n")  # a megabyte of valid-looking hex
    folder = tmp_path / "folder.key"
    folder.mkdir()
    return {"fifo": fifo, "/dev/zero": zero, "too large": big, "a folder": folder}


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "too large", "a folder"])
def test_a_key_that_is_not_a_small_regular_file_is_refused_by_the_service(tmp_path: Path, kind: str) -> None:
    path, good = journal(tmp_path)
    key = bad_keys(tmp_path, good)[kind]
    out = cli("run", "--config", str(config(tmp_path, path, key)), "--check")
    assert out.returncode == 3, out.stderr  # the key is wrong: a person must look, systemd does not restart
    assert str(key) in out.stderr and "Traceback" not in out.stderr and "MemoryError" not in out.stderr
    assert "regular file" in out.stderr or "bytes" in out.stderr


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "too large", "a folder"])
def test_a_key_that_is_not_a_small_regular_file_is_refused_by_the_tools(tmp_path: Path, kind: str) -> None:
    path, good = journal(tmp_path)
    key = bad_keys(tmp_path, good)[kind]
    for args in (["journal", "verify", "--db", str(path), "--key", str(key)],
                 ["status", "--db", str(path), "--key", str(key)],
                 ["journal", "export", "--db", str(path), "--key", str(key)]):
        out = cli(*args)
        assert out.returncode == 2, out.stderr
        assert str(key) in out.stderr and "Traceback" not in out.stderr


def test_a_key_symlinked_to_a_regular_key_file_is_read(tmp_path: Path) -> None:
    path, good = journal(tmp_path)
    link = tmp_path / "link.key"
    link.symlink_to(good)
    assert JournalKey.load(link) == JournalKey.load(good)
    out = cli("journal", "verify", "--db", str(path), "--key", str(link))
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o700])
def test_a_key_readable_or_runnable_beyond_its_owner_is_warned_about(tmp_path: Path, mode: int) -> None:
    path, good = journal(tmp_path)
    good.chmod(mode)
    out = cli("journal", "verify", "--db", str(path), "--key", str(good))
    assert out.returncode == 0, out.stderr  # still the key: warned, not refused
    assert f"mode {mode:04o}" in out.stderr and str(good) in out.stderr and "chmod 600" in out.stderr
    check = cli("run", "--config", str(config(tmp_path, path, good)), "--check")
    assert check.returncode == 0, check.stderr
    assert f"mode {mode:04o}" in check.stderr


@pytest.mark.parametrize("mode", [0o600, 0o400])
def test_a_key_kept_by_its_owner_alone_gets_no_warning(tmp_path: Path, mode: int) -> None:
    path, good = journal(tmp_path)
    good.chmod(mode)
    out = cli("journal", "verify", "--db", str(path), "--key", str(good))
    assert out.returncode == 0 and out.stderr == "", out.stderr


@pytest.mark.parametrize("text", ["ab" * 32, "ab" * 32 + "\n", "ab" * 32 + "\r\n"])
def test_a_key_of_64_hex_digits_and_a_line_end_is_read(tmp_path: Path, text: str) -> None:
    key = tmp_path / "k"
    key.write_text(text, newline="")
    key.chmod(0o600)
    assert JournalKey.load(key).secret == bytes.fromhex("ab" * 32)


@pytest.mark.parametrize("text", ["ab" * 31, "ab" * 33, "zz" * 32, ""])
def test_a_key_of_the_wrong_length_or_text_is_refused(tmp_path: Path, text: str) -> None:
    key = tmp_path / "k"
    key.write_text(text)
    with pytest.raises(JournalKeyError, match=str(key)):
        JournalKey.load(key)
