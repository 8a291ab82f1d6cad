"""What a person may send (issue 21): a player's name is one line of printable characters, and the log
escapes what it quotes; a smart shoe's cut card is the shoe's to report, not a person's.

Against the real service, with the virtual shoe connected as a smart shoe.
"""

from __future__ import annotations

import logging
import re

import pytest

from tablectl.logs import KeyValueFormatter
from tests.support.client import call
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY, Table

FORGED = "2026-12-01T20:00:00 ERROR tablectl.run: journal head 1 0"  # a name fits 64 characters


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("person"), seed=13) as t:
        yield t


def _post(t: Table, body: dict, key: str = DEALER_KEY):
    return call(t.api, "POST", "/api/actions", key, json=body)


@pytest.mark.parametrize("name", ["ann\n" + FORGED, "ann\r" + FORGED, "ann\u2028" + FORGED, "ann\x1b[2J", "ann\tbob"])
def test_a_name_that_is_not_one_printable_line_is_refused(table, name):
    for body in ({"type": "reserve", "box": 1, "player": name}, {"type": "bet", "box": 2, "amount": 10, "player": name}):
        r = _post(table, body)
        assert r.status_code == 422, r.text
        assert r.json()["error"]["field"] == f"{body['type']}.player"


def test_a_refused_bet_cannot_forge_a_line_of_the_log(table):
    # Before the name rule, the reserve went in and the refused bet quoted its name, newline and all.
    _post(table, {"type": "reserve", "box": 3, "player": "ann\n" + FORGED})
    _post(table, {"type": "bet", "box": 3, "amount": 10, "player": "bob"})
    log = (table.directory / "service.log").read_text()
    assert not any(line.startswith(FORGED) for line in log.splitlines())


def test_names_in_any_script_are_taken(table):
    r = _post(table, {"type": "reserve", "box": 4, "player": "Zoë Ørsted 王"})
    assert r.status_code == 200, r.text


def test_the_log_escapes_what_it_quotes():
    record = logging.LogRecord("controller.engine", logging.INFO, __file__, 1, "refused bet: reserved for %s",
                               ("ann\n" + FORGED + "\u2028\x1b[2J",), None)
    record.shoe = "S1\nforged"
    line = KeyValueFormatter().format(record)
    assert "\n" not in line and "\u2028" not in line and "\x1b" not in line
    assert "ann\\n" + FORGED in line and "shoe=S1\\nforged" in line


def test_a_persons_cut_card_is_refused_while_the_smart_shoe_reports_its_own(table):
    view = call(table.api, "GET", "/api/table", VIEWER_KEY).json()
    assert view["shoe_device"]["link_up"] and view["shoe"] is not None and not view["shoe"]["cut_card_out"]
    for key in (DEALER_KEY, SUPERVISOR_KEY):
        r = _post(table, {"type": "cut_card"}, key)
        assert r.status_code == 409, r.text
        error = r.json()["error"]
        assert error["code"] == "shoe_owns_cut_card" and re.search(r"shoe reports its own cut card", error["message"])
    after = call(table.api, "GET", "/api/table", VIEWER_KEY).json()
    assert not after["shoe"]["cut_card_out"] and after["phase"] == view["phase"]  # the shoe's shoe goes on
