"""Configuration mistakes and untrustworthy journals stop `tablectl run` with a clear message."""

from __future__ import annotations

import sqlite3

import pytest
from tests.support.harness import tablectl

from tablectl.config import ConfigError, load_settings, settings_from_dict


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


@pytest.mark.parametrize("kind", ["foreign", "garbage", "altered"])
def test_run_refuses_a_journal_it_cannot_trust(tmp_path, kind):
    db = tmp_path / "journal.sqlite"
    if kind == "foreign":
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE accounts (id INTEGER)")
        con.commit()
        con.close()
    elif kind == "garbage":
        db.write_bytes(b"\x00\x01 not sqlite " * 200)
    else:
        from datetime import datetime, timezone

        from controller import events as ev
        from controller.authority import TableAuthority
        from controller.rules import build_rules
        a = TableAuthority.open(db, build_rules())
        a.submit(ev.Shuffle(shoe_id="S1"), datetime.now(timezone.utc))
        a.journal.close()
        con = sqlite3.connect(db)
        con.execute("DELETE FROM events WHERE seq = 1")
        con.commit()
        con.close()
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{db}"\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n')
    out = tablectl("run", "--config", str(cfg), "--no-gpio", "--no-api", timeout=60)
    assert out.returncode == 2, out.stderr
    assert "journal" in out.stderr and "Traceback" not in out.stderr
    assert db.stat().st_size > 0  # never a silent fresh start over the old file


def test_status_and_export_read_the_journal_without_the_service(tmp_path):
    from datetime import datetime, timezone

    from controller import events as ev
    from controller.authority import TableAuthority
    from controller.cards import parse_card
    from controller.rules import build_rules
    db = tmp_path / "j.sqlite"
    a = TableAuthority.open(db, build_rules("us-holecard"))
    now = datetime.now(timezone.utc)
    for e in (ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10), *(ev.CardDrawn(card=parse_card(c)) for c in
              ("TS", "9D", "8C", "8H")), ev.Stand()):
        a.submit(e, now)
    a.journal.close()
    out = tablectl("status", "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert "phase betting" in out.stdout and "rules us-holecard" in out.stdout and "TS 8C" in out.stdout
    out = tablectl("journal", "export", "--db", str(db))
    assert out.returncode == 0
    import json
    lines = out.stdout.splitlines()
    assert json.loads(lines[0])["profile"] == "us-holecard"
    assert [json.loads(x)["type"] for x in lines[1:]] == ["shuffle", "bet", "card", "card", "card", "card", "stand"]
    missing = tablectl("status", "--db", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "no journal" in missing.stderr
