"""The table's inventory (issue 41, part 3): opener, fills and credits with two signatures, closer, drop.

A fill or credit is complete only when a dealer's key and a supervisor's key, two people's, have signed its slip
(the engine refuses a second signature of a part, the same person twice, an actor that is no key's). A shift is
played through the journal's authority with a chip tray kept as a real one is (chips sold for cash go out, the
house's wins come in, its payouts go out, fills in, credits out); `tablectl inventory` from the journal alone
gives win/loss = closer - opener + credits - fills + drop equal to the table's own figure from the settlements,
hold = win / drop, and flags a tray one chip short. A limit change is listed with who and when.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from controller import events as ev
from controller.alerts import AlertKind, AlertLevel
from controller.effects import RoundSettled
from controller.engine import IllegalAction, Table
from controller.rules import build_rules
from games.blackjack.advantage_players import play_session, seat
from tablectl import inventory_cli
from tests.support.journals import T0, open_authority


def _refused(table: Table, event: ev.Event) -> str:
    with pytest.raises(IllegalAction) as caught:
        table.apply(event)
    return caught.value.code


def test_a_slip_needs_a_dealers_and_a_supervisors_signature_two_people() -> None:
    table = Table()
    table.apply(ev.CreditRequest(chips={"100": 10}))
    assert _refused(table, ev.SignSlip(slip=1, actor="console")) == "signature_needs_key"
    assert _refused(table, ev.SignSlip(slip=2, actor="dealer:D-7")) == "no_such_slip"
    table.apply(ev.SignSlip(slip=1, actor="dealer:D-7"))
    assert _refused(table, ev.SignSlip(slip=1, actor="dealer:D-8")) == "already_signed"
    assert _refused(table, ev.SignSlip(slip=1, actor="supervisor:D-7")) == "same_signer"
    assert 1 in Table.from_snapshot(table.snapshot()).slips  # waiting, through a snapshot
    table.apply(ev.SignSlip(slip=1, actor="supervisor:S-1"))
    assert table.slips == {}  # complete
    assert _refused(table, ev.SignSlip(slip=1, actor="supervisor:S-2")) == "no_such_slip"


def _inventory(db: Path, *extra: str) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    inventory_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert inventory_cli.run(parser.parse_args(["--db", str(db), "--json", *extra])) == 0
    return json.loads(out.getvalue())


def _shift(db: Path, short: int = 0, tolerance: Decimal | None = None) -> None:
    """A shift with a real tray: opener 20,000 in 5s; two players buy in cash; a fill and a credit mid-shift; the
    closer counted from the tray (``short`` chips of 5 missing); the drop is the cash. ``tolerance``: stamped on
    the closer and the drop as the service stamps `[inventory] tolerance`."""
    authority = open_authority(db)
    clock = [T0]
    tray = [2_000_000]  # cents

    def submit(event: ev.Event) -> list[Any]:
        clock[0] += timedelta(seconds=3)
        effects = authority.submit(event, clock[0])[1]
        for effect in effects:
            if isinstance(effect, RoundSettled):
                tray[0] -= effect.round.net()  # the players' net leaves the tray, the house's comes in
        return effects

    def chips() -> dict[str, int]:
        assert tray[0] % 500 == 0
        return {"5": tray[0] // 500}

    submit(ev.Opener(chips=chips(), actor="supervisor:S-1"))
    for box, player, cash in ((2, "Olga", 1000), (3, "Ivan", 500)):
        submit(ev.Seat(box=box, player=player))
        submit(ev.BuyIn(amount=Decimal(cash), player=player, actor="dealer:D-7"))
        tray[0] -= cash * 100  # chips sold: out of the tray, the cash into the drop box
    rng = random.Random(43)
    session = seat(build_rules("ru-standard"), {2: "flat", 3: "flat"}, rng, table=authority.table, submit=submit)
    session.seats[2].name, session.seats[3].name = "Olga", "Ivan"

    def mid_shift(rounds: int) -> None:
        if rounds != 40:
            return
        submit(ev.FillRequest(chips={"5": 400}, actor="dealer:D-7"))
        submit(ev.SignSlip(slip=1, actor="dealer:D-7"))
        submit(ev.SignSlip(slip=1, actor="supervisor:S-1"))
        tray[0] += 200_000
        submit(ev.CreditRequest(chips={"5": 100}, actor="dealer:D-7"))
        submit(ev.SignSlip(slip=2, actor="dealer:D-7"))
        submit(ev.SignSlip(slip=2, actor="supervisor:S-1"))
        tray[0] -= 50_000
        submit(ev.FillRequest(chips={"5": 1000}, actor="dealer:D-7"))  # asked for, never signed: not counted
        submit(ev.SetRules(profile="ru-standard", options={"table_max": 2000}, actor="supervisor:S-1"))

    play_session(session, 80, rng, mid_shift)  # (one call: one shoe's order throughout)
    tray[0] -= short * 500
    submit(ev.Closer(chips=chips(), actor="supervisor:S-1", tolerance=tolerance))
    submit(ev.Drop(amount=Decimal(1500), actor="supervisor:S-2", tolerance=tolerance))
    authority.journal.close()


def test_win_and_hold_from_the_inventory_agree_with_the_tables_own_figure(tmp_path: Path) -> None:
    db = tmp_path / "bj-7.sqlite"
    _shift(db)
    data = _inventory(db)
    [period] = data["periods"]
    assert (period["opener"], period["fills"], period["credits"], period["drop"]) == ("20000", "2000", "500", "1500")
    assert period["expected_drop"] == "1500" and period["rounds"] == 80
    assert [(s["kind"], s["complete"]) for s in period["slips"]] == [("fill", True), ("credit", True), ("fill", False)]
    assert period["slips"][0]["signed"] == {"dealer": "D-7", "supervisor": "S-1"}
    win = Decimal(period["win"])
    assert win == Decimal(period["closer"]) - 20000 + 500 - 2000 + 1500
    assert period["win"] == period["table_win"] and period["difference"] == "0" and not period["flagged"]
    assert period["hold_pct"] == round(float(100 * win / 1500), 2)
    [change] = data["limit_changes"]
    assert change["by"] == "supervisor:S-1" and change["from"][1] != change["to"][1] == "2000"


def test_a_tray_a_chip_short_is_flagged_beyond_the_tolerance(tmp_path: Path) -> None:
    db = tmp_path / "bj-7.sqlite"
    _shift(db, short=1)
    [period] = _inventory(db)["periods"]
    assert period["difference"] == "-5" and period["flagged"]
    [period] = _inventory(db, "--tolerance", "5")["periods"]
    assert not period["flagged"]


def _differences(table: Table) -> list[Any]:
    return [a for a in table.alerts if a.kind is AlertKind.INVENTORY_DIFFERENCE]


@pytest.mark.parametrize(("short", "tolerance", "raised"), [(1, Decimal(0), True), (1, Decimal(5), False),
                                                             (0, Decimal(0), False), (3, Decimal(10), True)])
def test_the_inventory_s_difference_over_the_tolerance_is_an_alert_on_the_board_journalled(
        tmp_path: Path, short: int, tolerance: Decimal, raised: bool) -> None:
    db = tmp_path / "bj-7.sqlite"
    _shift(db, short=short, tolerance=tolerance)
    authority = open_authority(db)  # the journal replayed: the alert is the events', not a memory of the process
    try:
        found = _differences(authority.table)
        assert bool(found) == raised
        if raised:
            [alert] = found
            assert alert.level is AlertLevel.ACTION and alert.active
            assert f"{5 * short} short" in alert.message and f"tolerance is {tolerance}" in alert.message
            # A supervisor acknowledges it, like any other: off the board.
            authority.submit(ev.AcknowledgeAlert(alert_id=alert.id, actor="supervisor:S-1"), T0 + timedelta(hours=9))
            assert _differences(authority.table) == []
    finally:
        authority.journal.close()


def test_the_drop_entered_before_the_closer_and_a_snapshot_between_still_compare_the_period() -> None:
    """Pure, through the engine alone: a fill signed, a drop counted before the closer, and the table restored from
    a snapshot mid-period (as the service restarts) still make the figure; one without a stamped tolerance (a
    journal written before the setting) raises nothing."""
    for tolerance, raised in ((Decimal(0), True), (None, False)):
        table = Table()
        table.apply(ev.Opener(chips={"100": 100}))
        table.apply(ev.FillRequest(chips={"100": 10}))
        table.apply(ev.SignSlip(slip=1, actor="dealer:D-7"))
        table = Table.from_snapshot(json.loads(json.dumps(table.snapshot())))  # as the journal keeps it: JSON
        table.apply(ev.SignSlip(slip=1, actor="supervisor:S-1"))
        table.apply(ev.Drop(amount=Decimal(300), tolerance=tolerance))
        table = Table.from_snapshot(json.loads(json.dumps(table.snapshot())))
        assert _differences(table) == []  # the closer is still to come
        # No round played: the table's figure is 0; the inventory's 10,800 - 10,000 - 1,000 + 300 = 100 over.
        table.apply(ev.Closer(chips={"100": 108}, tolerance=tolerance))
        found = _differences(table)
        assert bool(found) == raised
        if raised:
            assert "100 over" in found[0].message


def test_the_inventory_tolerance_setting_is_an_amount_in_cents_not_below_zero() -> None:
    from tablectl.config import ConfigError, settings_from_dict

    assert settings_from_dict({"inventory": {"tolerance": 5}}).inventory.tolerance_amount() == Decimal("5.00")
    assert settings_from_dict({}).inventory.tolerance_amount() == 0  # default: any difference is an alert
    for bad in (-1, 0.005, "many"):
        with pytest.raises(ConfigError):
            settings_from_dict({"inventory": {"tolerance": bad}})
