"""Bad input to the fleet's commands and settings: a clear message, never a traceback."""

from __future__ import annotations

import re

import pytest
from tests.support.harness import tablectl

from tablectl.config import ConfigError, settings_from_dict


@pytest.mark.parametrize("fleet, where", [
    ({"table_id": "table 1"}, "fleet.table_id"),
    ({"topic_prefix": "a/+/b"}, "fleet.topic_prefix"),
    ({"broker": {"url": "tcp://x:1"}}, "fleet.broker.url"),
    ({"broker": {"url": "mqtt://x:99999"}}, "fleet.broker.url"),
    ({"dashboard_url": "javascript:alert(1)"}, "fleet.dashboard_url"),
    ({"pit": "A\nB"}, "fleet.pit"),
    ({"state_every_seconds": 0}, "fleet.state_every_seconds"),
    ({"brokr": {}}, "fleet.brokr"),
])
def test_a_wrong_fleet_setting_names_itself(fleet, where):
    with pytest.raises(ConfigError, match=where.replace(".", r"\.")):
        settings_from_dict({"fleet": fleet})


def test_fleet_sim_refuses_bad_arguments(tmp_path):
    r = tablectl("fleet-sim", "--tables", "0", "--broker", "mqtt://127.0.0.1:1", "--dir", str(tmp_path))
    assert r.returncode == 2 and "--tables" in r.stderr
    r = tablectl("fleet-sim", "--tables", "2", "--broker", "http://127.0.0.1:1", "--dir", str(tmp_path))
    assert r.returncode == 2 and "--broker" in r.stderr and "Traceback" not in r.stderr
    r = tablectl("fleet-sim", "--tables", "1", "--broker", "mqtt://127.0.0.1:1", "--dir", str(tmp_path),
                 "--pit", "A\tB")
    assert r.returncode == 2 and "--pit: printable characters only" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "two-words").write_text("two words\n")
    for key_file in (tmp_path / "missing", tmp_path / "two-words"):
        r = tablectl("fleet-sim", "--tables", "1", "--broker", "mqtt://127.0.0.1:1", "--dir", str(tmp_path),
                     "--api-port", "1", "--floor-key-file", str(key_file))
        assert r.returncode == 2 and "--floor-key-file" in r.stderr and "Traceback" not in r.stderr


def test_the_floor_example_config_validates_and_shows_every_default():
    import tomllib
    from pathlib import Path

    from tablectl.floor.settings import floor_settings, load_floor_settings

    path = Path(__file__).resolve().parents[2] / "deploy" / "floor.example.toml"
    load_floor_settings(path)
    data = tomllib.loads(path.read_text())
    defaults = floor_settings({}).model_dump(mode="json")

    def shown(values: dict, data: dict, where: str) -> None:
        for key, value in values.items():
            if key in {"keys", "tls_certfile", "tls_keyfile", "tables", "dsn"}:
                continue  # shown commented out: no default that means anything
            if isinstance(value, dict):
                shown(value, data[key], f"{where}.{key}")  # a subsection ([floor.recovery], [floor.postgresql])
            else:
                assert data[key] == value, f"{where}.{key}"

    for section, values in defaults.items():
        shown(values, data[section], section)
    # The commented examples validate too.
    uncommented = re.sub(r"(?m)^# ((?:\[.*\])|(?:[a-z_0-9]+ = .*))$", r"\1", path.read_text())
    examples = floor_settings(tomllib.loads(uncommented))
    assert [t.id for t in examples.floor.tables] == ["table-1"] and examples.api.keys[0].role.value == "supervisor"
    # And the PostgreSQL URI shown in place of the fields (indented: it goes without them).
    dsn = re.search(r'(?m)^#\s+dsn = "(.*)"$', path.read_text())
    assert dsn is not None
    assert floor_settings({"floor": {"store": "postgresql", "postgresql": {"dsn": dsn[1]}}}).floor.postgresql.dsn
