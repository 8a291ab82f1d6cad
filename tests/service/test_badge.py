"""The console's badge input (issue 26, part 1): a dealer's badge read at the table signs them in.

The reader's text becomes BADGE actions (one id per line; noise dropped), and each goes down the
service's ordered path as `dealer_in`, or `dealer_out` for the badge of the dealer on duty.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.events import DealerIn, DealerOut
from controller.journal import JournalReader
from display.console import BadgeReader, ConsoleAction, ConsoleKind
from tablectl.console_actions import handle_console_action
from tests.support.deadlines import until
from tests.support.inprocess import InProcessTable


def test_the_reader_gives_one_id_per_line_and_drops_noise() -> None:
    reader = BadgeReader()
    assert reader.feed("D-10", 1.0) == []  # not a whole line yet
    assert reader.feed("42\r\n", 2.0) == [ConsoleAction(ConsoleKind.BADGE, at=2.0, badge="D-1042")]
    assert reader.feed("\n\n", 3.0) == []  # empty lines
    assert reader.feed("x" * 65 + "\n", 4.0) == []  # longer than an id: dropped whole, not cut
    assert reader.feed("D-\x1b[2J7\n", 5.0) == []  # a control character
    assert [a.badge for a in reader.feed("D-7\nD-8\n", 6.0)] == ["D-7", "D-8"]


@pytest.mark.anyio
async def test_a_badge_signs_its_dealer_in_and_the_same_badge_signs_them_out(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path) as t:
        for badge, on_duty in (("D-1042", "D-1042"), ("D-7", "D-7"), ("D-7", None)):
            handle_console_action(ConsoleAction(ConsoleKind.BADGE, badge=badge), t.service)
            # the next badge is read against this one's outcome: wait for it, on the table itself
            await until(lambda: t.service.table.dealer_on_duty == on_duty, what=f"{on_duty} on duty")
        await t.settled()
        assert t.service.table.dealer_on_duty is None
    events = [e.event for e in JournalReader(t.journal).entries() if isinstance(e.event, (DealerIn, DealerOut))]
    assert [(type(e).__name__, e.dealer, e.actor) for e in events] == [
        ("DealerIn", "D-1042", "console"), ("DealerIn", "D-7", "console"), ("DealerOut", "D-7", "console")]
