"""Configuration mistakes and untrustworthy journals stop `tablectl run` with a clear message."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from tests.support.harness import tablectl
from tests.support.journals import open_authority, play_rounds

from tablectl.config import ConfigError, load_settings, settings_from_dict
from controller.journal import key_beside


@pytest.mark.parametrize("data, named", [
    ({"table": {"profile": "macau"}}, "unknown rule profile 'macau'"),
    ({"table": {"options": {"decks": 12}}}, "'decks'"),
    ({"table": {"options": {"double": "sometimes"}}}, "'double'"),
    ({"shoe": {"codec": "morse"}}, "shoe.codec"),
    ({"shoe": {"baudrate": 7}}, "shoe.baudrate"),
    ({"api": {"port": 70000}}, "api.port"),
    ({"api": {"keys": [{"name": "x", "role": "boss", "sha256": "0" * 64}]}}, "api.keys.0.role"),
    ({"api": {"keys": [{"name": "x", "role": "dealer", "sha256": "plain-key"}]}}, "api.keys.0.sha256"),
    ({"gpio": {"bell_pin": 40}}, "gpio.bell_pin"),
    ({"journal": {"snapshot_every_rounds": 0}}, "journal.snapshot_every_rounds"),
    ({"tabel": {}}, "tabel: unknown setting"),
    ({"log_level": "LOUD"}, "log_level"),
])
def test_each_kind_of_mistake_names_the_setting(data, named):
    with pytest.raises(ConfigError, match=None) as exc:
        settings_from_dict(data)
    assert named in str(exc.value)


def test_defaults_are_embedded_and_valid():
    settings = load_settings(None)
    assert settings.api.host == "127.0.0.1"
    assert settings.table.rules().name == "ru-standard"


def test_run_refuses_a_bad_config_file_without_a_traceback(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[shoe]\ncodec = 'morse'\n")
    out = tablectl("run", "--config", str(cfg), timeout=60)
    assert out.returncode == 2
    assert "shoe.codec" in out.stderr and "Traceback" not in out.stderr
    cfg.write_text("[shoe\n")
    out = tablectl("run", "--config", str(cfg), timeout=60)
    assert out.returncode == 2 and "not valid TOML" in out.stderr
    out = tablectl("run", "--config", str(tmp_path / "missing.toml"), timeout=60)
    assert out.returncode == 2 and "cannot read config" in out.stderr


@pytest.mark.parametrize("kind", ["foreign", "garbage", "empty", "altered", "keyless"])
def test_run_refuses_a_journal_it_cannot_trust(tmp_path, kind):
    db = tmp_path / "journal.sqlite"
    if kind == "foreign":
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE accounts (id INTEGER)")
        con.commit()
        con.close()
    elif kind == "garbage":
        db.write_bytes(b"\x00\x01 not sqlite " * 200)
    elif kind == "empty":
        db.touch()
    else:
        a = open_authority(db)
        play_rounds(a, 1)
        a.journal.close()
        if kind == "keyless":
            key_beside(db).unlink()
        else:
            con = sqlite3.connect(db)
            con.execute("DELETE FROM ledger WHERE seq = 2")
            con.commit()
            con.close()
    before = digest(db)
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{db}"\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n')
    out = tablectl("run", "--config", str(cfg), "--no-gpio", "--no-api", timeout=60)
    assert out.returncode == 3, out.stderr  # refused: a person must look (the unit does not restart it)
    assert "journal" in out.stderr and "Traceback" not in out.stderr
    assert digest(db) == before  # never a fresh start, never a byte changed
    if kind == "altered":
        assert "row 2" in out.stderr


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def holecard_journal(db: Path) -> None:
    from datetime import datetime, timezone

    from controller import events as ev
    from controller.cards import parse_card
    a = open_authority(db, "us-holecard")
    now = datetime.now(timezone.utc)
    for e in (ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10), *(ev.CardDrawn(card=parse_card(c)) for c in
              ("TS", "9D", "8C", "8H")), ev.Stand()):
        a.submit(e, now)
    a.journal.close()


def test_status_and_export_read_the_journal_without_the_service(tmp_path):
    db = tmp_path / "j.sqlite"
    holecard_journal(db)
    out = tablectl("status", "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert "phase betting" in out.stdout and "rules us-holecard" in out.stdout and "TS 8C" in out.stdout
    out = tablectl("journal", "export", "--db", str(db))
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert json.loads(lines[0])["profile"] == "us-holecard"
    assert [json.loads(x)["type"] for x in lines[1:]] == ["shuffle", "bet", "card", "card", "card", "card", "stand"]
    missing = tablectl("status", "--db", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "no journal" in missing.stderr


def test_status_and_export_never_change_a_byte_of_what_they_read(tmp_path):
    db = tmp_path / "j.sqlite"
    holecard_journal(db)
    foreign = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE accounts (id INTEGER)")
    con.commit()
    con.close()
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    for path in (db, foreign, empty):
        before = digest(path)
        tablectl("status", "--db", str(path))
        tablectl("status", "--db", str(path), "--json")
        tablectl("journal", "export", "--db", str(path), "--out", str(tmp_path / "out.jsonl"))
        assert digest(path) == before, path
    con = sqlite3.connect(foreign)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL
    con.close()
    assert empty.stat().st_size == 0  # no schema written into it


def test_export_refuses_to_write_over_the_journal(tmp_path):
    db = tmp_path / "j.sqlite"
    holecard_journal(db)
    before = digest(db)
    for target in (db, db.with_name("j.sqlite-wal"), db.with_name("j.sqlite.key")):
        out = tablectl("journal", "export", "--db", str(db), "--out", str(target))
        assert out.returncode == 2 and "refusing to write over it" in out.stderr
    assert digest(db) == before


def test_verify_names_the_first_row_that_fails_or_gives_the_head(tmp_path):
    db = tmp_path / "j.sqlite"
    holecard_journal(db)
    key = str(db.with_name("j.sqlite.key"))
    ok = tablectl("journal", "verify", "--db", str(db), "--key", key, "--json")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["ok"] and doc["rows"] == doc["head_seq"] == 8 and len(doc["head_mac"]) == 64
    con = sqlite3.connect(db)
    con.execute("UPDATE ledger SET body = replace(body, '\"8C\"', '\"AC\"') WHERE seq = 6")
    con.commit()
    con.close()
    bad = tablectl("journal", "verify", "--db", str(db), "--key", key, "--json")
    assert bad.returncode == 1 and json.loads(bad.stdout)["row"] == 6


def test_a_port_in_use_names_the_api_setting_without_a_traceback(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cfg = tmp_path / "c.toml"
        cfg.write_text(f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n[shoe]\nport = "{tmp_path / "none"}"\n'
                       f'[api]\nport = {port}\n')
        out = tablectl("run", "--config", str(cfg), "--no-gpio", timeout=60)
    assert out.returncode == 6, out.stderr
    assert f"[api] host = '127.0.0.1', port = {port}" in out.stderr and "Traceback" not in out.stderr


def test_a_config_nested_thousands_deep_is_a_clear_error(tmp_path):
    cfg = tmp_path / "deep.toml"
    cfg.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    out = tablectl("run", "--config", str(cfg), timeout=60)
    assert out.returncode == 2 and "nested too deeply" in out.stderr and "Traceback" not in out.stderr


def test_a_session_file_that_is_not_utf8_names_its_line(tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_bytes(b'{"type": "rules"}\n\xff\xfe not text\n')
    out = tablectl("replay", str(session), "--json", timeout=60)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert json.loads(out.stdout)["error"] == {"line": 2, "code": "bad_text",
                                                "message": f"line 2 of {session} is not UTF-8 text"}


def test_the_log_gives_the_journal_head_at_start_and_at_stop(tmp_path):
    """A copy of the log taken off the table later proves whether rows were cut from the journal's tail."""
    import re

    from tests.support.harness import DEALER_KEY, Table
    from tests.support.client import call

    with Table(tmp_path, seed=5) as t:
        assert call(t.api, "POST", "/api/actions", DEALER_KEY, json={"type": "bet", "box": 1, "amount": 10}).status_code == 200
    log = (tmp_path / "service.log").read_text()
    heads = re.findall(r"journal head (\d+) ([0-9a-f]{64})", log)
    assert len(heads) >= 2 and "stopped: journal head" in log
    key = str(key_beside(t.journal))
    out = tablectl("journal", "verify", "--db", str(t.journal), "--key", key, "--json")
    doc = json.loads(out.stdout)
    assert heads[-1] == (str(doc["head_seq"]), doc["head_mac"])
    assert tablectl("journal", "verify", "--db", str(t.journal), "--key", key, "--head",
                    ":".join(heads[0])).returncode == 0  # the start's head is still in the journal
