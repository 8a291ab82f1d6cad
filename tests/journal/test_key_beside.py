"""`journal verify` finds the key beside the journal as `status` and `export` do, and a missing key is met with
where the journal's own key is kept, never with advice to make a new one (issue 23): a new key verifies no row
written before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.journal import key_beside
from tablectl.exits import EXIT_CANNOT, EXIT_OK
from tests.support.harness import tablectl_in_process
from tests.support.journals import open_authority, play_rounds


def _journal(tmp_path: Path) -> Path:
    path = tmp_path / "table-7.sqlite"
    a = open_authority(path)  # its key beside it, as a new table's
    play_rounds(a, 2)
    a.journal.close()
    assert key_beside(path).exists()
    return path


def test_verify_without_key_uses_the_key_beside_the_journal(tmp_path):
    db = _journal(tmp_path)
    out = tablectl_in_process("journal", "verify", "--db", str(db))
    assert out.returncode == EXIT_OK, out.stderr
    assert out.stdout.startswith("verified: "), out.stdout
    status = tablectl_in_process("status", "--db", str(db))  # the one key both find
    assert status.returncode == EXIT_OK and "NOT verified" not in status.stderr


@pytest.mark.parametrize("how", ["--key names a missing file", "no key beside the journal"])
def test_a_missing_key_says_only_the_key_that_signed_the_journal_verifies_it(tmp_path, how):
    db = _journal(tmp_path)
    if how == "no key beside the journal":
        key_beside(db).unlink()
        args = ["journal", "verify", "--db", str(db)]
    else:
        args = ["journal", "verify", "--db", str(db), "--key", str(tmp_path / "missing.key")]
    out = tablectl_in_process(*args)
    assert out.returncode == EXIT_CANNOT, out
    assert out.stdout == ""
    message = out.stderr.strip()
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    assert "only with the key that signed it" in message, message
    assert "/etc/tablectl/journal.key" in message and "TABLE_ID.key" in message, message
    assert "keygen" not in message, message


@pytest.mark.parametrize("tool", [["journal", "export"], ["status"], ["journal", "backup", "--to", "{tmp}"]])
def test_every_tool_given_a_missing_key_says_the_same(tmp_path, tool):
    db = _journal(tmp_path)
    words = [str(tmp_path) if word == "{tmp}" else word for word in tool]
    out = tablectl_in_process(*words, "--db", str(db), "--key", str(tmp_path / "missing.key"))
    assert out.returncode == EXIT_CANNOT, out
    assert "only with the key that signed it" in out.stderr and "keygen" not in out.stderr, out.stderr
