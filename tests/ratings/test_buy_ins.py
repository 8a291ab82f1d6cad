"""Buy-ins and the multiple transaction log (issue 41, part 2).

Through the engine: a buy-in names its player or box; cash is summed per person and gaming day, and crossing the
stamped notice or action threshold raises that alert once (the higher when one buy-in crosses both); markers and
chips are logged, not summed; a new gaming day starts the sums again; the sums survive a snapshot. Through the
journal: `tablectl mtl --day` lists each person's buy-ins and the log's alerts with who acknowledged them and
after how long.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from controller import events as ev
from controller.alerts import AlertKind
from controller.engine import IllegalAction, Table
from tablectl import mtl_cli
from tests.support.journals import T0, open_authority

DAY = date(2026, 12, 7)
T = datetime(2026, 12, 7, 21, 0, tzinfo=timezone.utc)


def _buy(amount: int, player: str | None = "Ivan", method: str = "cash", day: date = DAY, box: int | None = None,
         at: datetime | None = None, by: str | None = None) -> ev.BuyIn:
    return ev.BuyIn(amount=Decimal(amount), player=player, method=method, box=box,  # type: ignore[arg-type]
                    gaming_day=day, mtl_notice=Decimal(3000), mtl_action=Decimal(10000), at=at, actor=by)


def _mtl_alerts(table: Table) -> list[tuple[AlertKind, str]]:
    return [(a.kind, a.message) for a in table.alerts if a.kind in (AlertKind.MTL_NOTICE, AlertKind.MTL_ACTION)]


def test_cash_is_summed_per_person_and_day_and_each_threshold_rings_once() -> None:
    table = Table()
    with pytest.raises(IllegalAction) as caught:
        table.apply(ev.BuyIn(amount=Decimal(100)))
    assert caught.value.code == "who_buys_in"
    table.apply(_buy(2000))
    table.apply(_buy(5000, method="marker"))  # credit: logged, not cash
    table.apply(_buy(900, method="chips"))
    table.apply(_buy(2000, player="Olga"))
    assert table.cash_today == {"Ivan": 200000, "Olga": 200000} and _mtl_alerts(table) == []
    table.apply(_buy(1000))  # Ivan reaches 3,000: the notice
    [(kind, message)] = _mtl_alerts(table)
    assert kind is AlertKind.MTL_NOTICE and "Ivan" in message and "3000" in message and "2026-12-07" in message
    table.apply(_buy(500))  # past the notice, short of the action: nothing more
    assert len(_mtl_alerts(table)) == 1
    table.apply(_buy(12000, player="Olga"))  # Olga crosses both at once: the action alone
    assert [k for k, _ in _mtl_alerts(table)] == [AlertKind.MTL_NOTICE, AlertKind.MTL_ACTION]
    table.apply(_buy(100, day=DAY + timedelta(days=1)))  # a new gaming day: the sums start again
    assert table.cash_today == {"Ivan": 10000}


def test_an_anonymous_buy_in_is_the_seated_players_or_the_boxs_and_the_sums_survive_a_snapshot() -> None:
    table = Table()
    table.apply(ev.Seat(box=3, player="Olga"))
    table.apply(_buy(1000, player=None, box=3))
    table.apply(_buy(1000, player=None, box=5))
    assert table.cash_today == {"Olga": 100000, "Player on box 5": 100000}
    again = Table.from_snapshot(table.snapshot())
    assert (again.mtl_day, again.cash_today) == (table.mtl_day, table.cash_today)
    again.apply(_buy(2000, player="Olga"))
    assert [k for k, _ in _mtl_alerts(again)] == [AlertKind.MTL_NOTICE]


def test_tablectl_mtl_lists_the_days_buy_ins_and_alerts_with_who_acknowledged_them(tmp_path: Path) -> None:
    db = tmp_path / "bj-7.sqlite"
    authority = open_authority(db)
    authority.submit(_buy(2500, by="dealer D-7", box=2), T0 + timedelta(minutes=1))
    _, effects = authority.submit(_buy(600, by="dealer D-7", box=2), T0 + timedelta(minutes=20))
    [alert] = [a for a in authority.table.alerts if a.kind is AlertKind.MTL_NOTICE]
    authority.submit(ev.AcknowledgeAlert(alert_id=alert.id, actor="supervisor S-1"), T0 + timedelta(minutes=23))
    authority.submit(_buy(5000, method="marker", by="supervisor S-1"), T0 + timedelta(minutes=30))
    authority.submit(_buy(50, player="Olga", day=DAY - timedelta(days=1)), T0 + timedelta(minutes=31))
    authority.journal.close()
    parser = argparse.ArgumentParser()
    mtl_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert mtl_cli.run(parser.parse_args(["--db", str(db), "--day", "2026-12-07", "--json"])) == 0
    log = json.loads(out.getvalue())
    [ivan] = log["people"]
    assert (ivan["person"], ivan["cash"], ivan["marker"], ivan["chips"]) == ("Ivan", "3100", "5000", "0")
    assert [(b["method"], b["amount"], b["box"], b["entered_by"]) for b in ivan["buy_ins"]] == [
        ("cash", "2500", 2, "dealer D-7"), ("cash", "600", 2, "dealer D-7"), ("marker", "5000", None, "supervisor S-1")]
    [notice] = ivan["alerts"]
    assert notice["kind"] == "mtl_notice" and notice["acknowledged_by"] == "supervisor S-1"
    assert notice["waited_seconds"] == 180.0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert mtl_cli.run(parser.parse_args(["--db", str(db), "--day", "2026-12-06"])) == 0
    assert "Olga: cash 50" in out.getvalue()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert mtl_cli.run(parser.parse_args(["--db", str(db), "--day", "7 Dec"])) == 2
    assert err.getvalue().count("\n") == 1


def test_the_gaming_day_starts_at_its_hour_in_the_tables_zone() -> None:
    from tablectl.config import TableSettings

    moscow = TableSettings(time_zone="Europe/Moscow", gaming_day_starts="06:00")  # UTC+3 all year
    assert moscow.gaming_day(datetime(2026, 12, 7, 2, 59, tzinfo=timezone.utc)) == date(2026, 12, 6)  # 05:59 local
    assert moscow.gaming_day(datetime(2026, 12, 7, 3, 0, tzinfo=timezone.utc)) == date(2026, 12, 7)  # 06:00 local
    assert TableSettings().gaming_day(datetime(2026, 12, 7, 5, 0, tzinfo=timezone.utc)) == date(2026, 12, 6)
    with pytest.raises(ValueError):
        TableSettings(gaming_day_starts="6am")
