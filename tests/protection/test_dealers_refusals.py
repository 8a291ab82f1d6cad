"""A supervisor's refused click never counts against the dealer on duty (issue 41, the dashboard for a shift).

The dealers' book counts the actions the table refused while a dealer dealt (corrections per 100 rounds): a
refusal of the dealer's key, or the console's, is the dealer's; one of a supervisor's key is the supervisor's own.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from datetime import timedelta
from pathlib import Path

import pytest

from controller import events as ev
from controller.engine import IllegalAction
from tablectl import protect_cli
from tests.support.journals import T0, open_authority, play_rounds


def test_only_the_dealers_own_refusals_count_against_them(tmp_path: Path) -> None:
    db = tmp_path / "table-3.sqlite"
    authority = open_authority(db)
    authority.submit(ev.DealerIn(dealer="D-1", actor="supervisor:S-1"), T0)
    at = play_rounds(authority, 3, start=T0 + timedelta(seconds=1))
    for n, actor in enumerate(("supervisor:S-1", "admin:A-1", "dealer:D-1", "console")):
        with pytest.raises(IllegalAction):  # nothing is held: nothing to discard, and no round to stand in
            event = ev.DiscardCard(actor=actor) if actor != "dealer:D-1" else ev.Stand(actor=actor)
            authority.submit(event, at + timedelta(seconds=n + 1))
    authority.journal.close()
    parser = argparse.ArgumentParser()
    protect_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert protect_cli.run(parser.parse_args(["dealers", "--db", str(db), "--json"])) == 0
    [line] = [d for d in json.loads(out.getvalue())["dealers"] if d["dealer"] == "D-1"]
    assert line["refused"] == 2  # the dealer's own and the console's; not the supervisor's nor the admin's
