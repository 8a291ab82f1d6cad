"""The floor's store on either engine (issue 28): chosen in `[floor] store`, its settings checked as the others,
a database the floor cannot use a message and exit 2, and what differs between the engines kept out of the store.
"""

from __future__ import annotations

import pytest
from tests.support.floor import PostgresAt
from tests.support.fleet import make_rows, wire
from tests.support.harness import free_port, tablectl

from tablectl.floor import FloorConfigError, StoreError
from tablectl.floor.settings import floor_settings
from tablectl.floor.store import OK
from tablectl.fleet.wire import WireRow

KEY = bytes.fromhex("77" * 32)


def test_the_store_setting_names_the_engine_and_a_path_there_is_still_read_as_the_sqlite_file(tmp_path):
    assert floor_settings({}).floor.store == "sqlite"
    older = floor_settings({"floor": {"store": str(tmp_path / "floor.sqlite")}}).floor  # as configs said before
    assert (older.store, older.sqlite.path) == ("sqlite", tmp_path / "floor.sqlite")
    with pytest.raises(FloorConfigError, match="floor.store"):
        floor_settings({"floor": {"store": "postgres"}})  # a word that is neither engine is not taken for a file
    with pytest.raises(FloorConfigError, match=r"\[floor.sqlite\] path"):
        floor_settings({"floor": {"store": "/var/f.sqlite", "sqlite": {"path": "/var/g.sqlite"}}})
    pg = floor_settings({"floor": {"store": "postgresql", "postgresql": {"host": "db.casino.example"}}}).floor
    assert pg.describe_store() == "postgresql://tablectl_floor@db.casino.example:5432/tablectl_floor"


@pytest.mark.parametrize("postgresql, wrong", [
    ({"dsn": "postgresql://floor:secret@db/floor"}, "no password in the dsn"),
    ({"dsn": "postgresql://floor@db/floor?password=secret"}, "no password in the dsn"),
    ({"dsn": "mysql://floor@db/floor"}, "postgresql://"),
    ({"dsn": "postgresql://floor@db/floor", "host": "db2"}, "not both"),
    ({"sslmode": "sometimes"}, "sslmode"),
    ({"port": 0}, "port"),
    ({"user": "floor user"}, "user"),
    ({"passwrd_file": "/etc/x"}, "passwrd_file"),
], ids=["password in the URI", "password as a parameter", "not PostgreSQL", "dsn and host", "sslmode", "port",
        "user", "a misspelt setting"])
def test_postgresql_settings_are_checked_and_a_password_is_never_in_the_config(postgresql, wrong):
    with pytest.raises(FloorConfigError, match="floor.postgresql") as found:
        floor_settings({"floor": {"store": "postgresql", "postgresql": postgresql}})
    assert wrong in str(found.value)


def test_a_floor_that_cannot_use_its_database_says_why_and_exits_2(tmp_path):
    cfg = tmp_path / "floor.toml"
    nothing_there = free_port()
    cfg.write_text(f'[floor]\nstore = "postgresql"\nkeys_dir = "{tmp_path}"\n[floor.postgresql]\nport = {nothing_there}\n'
                   f'connect_timeout_seconds = 2\n[api]\nport = {free_port()}\n')
    result = tablectl("floor", "--config", str(cfg))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"cannot connect to the floor store postgresql://tablectl_floor@127.0.0.1:{nothing_there}/" in result.stderr
    cfg.write_text(f'[floor]\nstore = "postgresql"\n[floor.postgresql]\npassword_file = "{tmp_path / "nope"}"\n')
    result = tablectl("floor", "--config", str(cfg), "export", "--table", "t1")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "[floor.postgresql] password_file" in result.stderr and "No such file" in result.stderr


def test_the_export_from_a_database_without_a_store_says_so_and_makes_none(tmp_path, postgres):
    at = PostgresAt(postgres, postgres.database())
    cfg = tmp_path / "floor.toml"
    cfg.write_text(f'[floor]\n{at.toml()}keys_dir = "{tmp_path}"\n')
    result = tablectl("floor", "--config", str(cfg), "export", "--table", "t1")
    assert result.returncode == 2 and f"no floor store at {at.settings()['postgresql']['dsn']}" in result.stderr
    with pytest.raises(StoreError, match="no floor store"):  # still none: the export created nothing
        at.open({}, create=False)
    postgres.drop(at.database)


def test_a_database_that_is_not_a_floor_store_is_refused_untouched(floor_db):
    floor_db.sql("CREATE TABLE journal (seq INTEGER PRIMARY KEY, body TEXT)")
    with pytest.raises(StoreError, match="not a floor store"):
        floor_db.open({})
    floor_db.sql("INSERT INTO journal VALUES (1, 'kept')")  # the table it found is still there, and only it


def test_a_row_with_a_nul_character_is_refused_on_both_engines_and_the_rows_after_it_are_stored(floor_db):
    # PostgreSQL's text cannot hold U+0000: neither engine keeps such a row, so both hold the same rows.
    store = floor_db.open({"t1": KEY})
    rows = [wire("t1", r) for r in make_rows(KEY, 4)]
    nul = WireRow.model_validate({**rows[1].model_dump(), "message": "a\x00b"})
    res = store.ingest([rows[0], nul, *rows[2:]])
    assert (res.refused, res.inserted) == (1, 3)
    assert store.missing("t1") == [(2, 2)] and store.incidents(1)[0]["kind"] == "bad_message"
    store.ingest([rows[1]])
    assert [r.verified for r in store.rows("t1")] == [OK] * 4
    store.close()


def test_the_store_carries_on_after_its_postgresql_server_restarts(postgres):
    at = PostgresAt(postgres, postgres.database())
    store = at.open({"t1": KEY})
    rows = [wire("t1", r) for r in make_rows(KEY, 10)]
    store.ingest(rows[:5])
    postgres.restart()  # every connection cut; what was committed stays
    store.ingest(rows[5:])  # the next batch opens a new connection, nothing lost or done twice
    t = store.tracks["t1"]
    assert (t.rows, t.contiguous, t.verified_upto, t.duplicates) == (10, 10, 10, 0)
    store.close()
    again = at.open({"t1": KEY})
    assert [r.seq for r in again.rows("t1")] == list(range(1, 11)) and again.tracks["t1"].verified_upto == 10
    again.close()
    postgres.drop(at.database)


def test_a_postgresql_floor_without_psycopg_is_told_what_to_install(monkeypatch):
    import sys

    from tablectl.floor.database import PostgresDatabase

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as on a machine where it was never installed
    settings = floor_settings({"floor": {"store": "postgresql"}}).floor.postgresql
    with pytest.raises(StoreError, match=r"pip install 'tablectl\[postgresql\]'.*libpq5"):
        PostgresDatabase(settings)


def test_a_database_password_file_others_may_read_is_taken_with_a_warning_as_the_journal_key_is(tmp_path, postgres):
    """Issue 37 (low): a world-readable password file was taken without a word, where the journal key gets a
    warning; now the same warning (mode, what it lets a reader do, the chmod)."""
    at = PostgresAt(postgres, postgres.database())
    secret = tmp_path / "db-password"
    secret.write_text("not-needed-with-trust\n")
    cfg = tmp_path / "floor.toml"
    dsn = at.settings()["postgresql"]["dsn"]
    cfg.write_text(f'[floor]\nstore = "postgresql"\nkeys_dir = "{tmp_path}"\n[floor.postgresql]\ndsn = "{dsn}"\n'
                   f'password_file = "{secret}"\n')
    try:
        at.open({}).close()  # a store to export from
        for mode, warned in ((0o644, True), (0o640, True), (0o600, False)):
            secret.chmod(mode)
            result = tablectl("floor", "--config", str(cfg), "export", "--table", "t1")
            said = f"[floor.postgresql] password_file {secret} has mode {mode:04o}: whoever it lets read it can log in"
            assert (said in result.stderr) is warned, result.stderr
            assert f"chmod 600 {secret}" in result.stderr or not warned
    finally:
        postgres.drop(at.database)


def test_a_table_s_api_key_file_others_may_read_is_taken_with_a_warning(tmp_path, caplog):
    import logging

    from tests.support.floor import floor_service

    key = tmp_path / "t1.key"
    key.write_text("k" * 43 + "\n")
    key.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="tablectl.floor.database"):
        floor = floor_service(tmp_path, {}, known_tables=["t1"], tables=[
            {"id": "t1", "api_url": "http://127.0.0.1:1", "api_key_file": str(key)}])
    floor.store.close()
    assert any(f"api_key_file {key} has mode 0644" in r.getMessage() for r in caplog.records)
