"""`tablectl hash-key`: the printed lines paste into a config that validates."""

from __future__ import annotations

import hashlib
import io
import tomllib

import pytest

from tablectl.cli import main
from tablectl.config import Role, settings_from_dict


def test_hash_of_stdin_key(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret-key\n"))
    assert main(["hash-key"]) == 0
    out = capsys.readouterr().out
    assert out == f'sha256 = "{hashlib.sha256(b"s3cret-key").hexdigest()}"\n'


def test_new_key_goes_to_stderr_and_entry_validates(capsys):
    assert main(["hash-key", "--new", "--name", 'pit "A"', "--role", "supervisor"]) == 0
    captured = capsys.readouterr()
    key = captured.err.strip().rsplit(" ", 1)[-1]
    assert len(key) >= 40
    assert key not in captured.out  # appending stdout to the config never stores the key
    settings = settings_from_dict(tomllib.loads("[api]\n" + captured.out))
    (entry,) = settings.api.keys
    assert entry.name == 'pit "A"' and entry.role is Role.SUPERVISOR
    assert entry.sha256 == hashlib.sha256(key.encode()).hexdigest()


@pytest.mark.parametrize("argv", [["hash-key"], ["hash-key", "--name", "x"]])
def test_refuses_empty_key_or_half_an_entry(monkeypatch, capsys, argv):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    assert main(argv) == 2
    assert "tablectl hash-key:" in capsys.readouterr().err
