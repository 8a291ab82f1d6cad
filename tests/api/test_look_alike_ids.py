"""Look-alike ids and blank names (issue 37): one rule for a person's id, where ids enter the table.

``dеaler1`` with a Cyrillic ``е`` looked like ``dealer1`` on every screen and was another dealer; a bet with a
player's name of spaces was taken. The rule (controller.ids) takes an id as its NFKC form, stripped, and
refuses a blank one and one whose letters mix scripts; the API's actions, the badge reader and the console's
badge path use it. A journal that holds such an id already (written before the rule) still replays.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from controller import events as ev
from controller.ids import BadId, person_id
from controller.journal import JournalReader
from display.console import BadgeReader, ConsoleAction, ConsoleKind
from tablectl.console_actions import handle_console_action
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY
from tests.support.inprocess import InProcessTable, call
from tests.support.journals import T0, open_authority

LOOK_ALIKE = "d\u0435aler1"  # a Cyrillic е (U+0435) among Latin letters


def test_the_rule_normalises_and_refuses_mixed_scripts_and_blanks() -> None:
    assert person_id("\uff44\uff45\uff41\uff4c\uff45\uff52\uff11") == "dealer1"  # full-width: the same id
    assert person_id("  Ann  ") == "Ann"
    for taken in ("Zoë Ørsted 王", "山田 たろう", "Иван-2", "Ωμέγα", "D-1042"):
        assert person_id(taken)
    with pytest.raises(BadId, match=r"mixes scripts \(Latin and Cyrillic\)"):
        person_id(LOOK_ALIKE)
    with pytest.raises(BadId, match="mixes scripts"):
        person_id("\u0391nn")  # a Greek capital alpha before Latin letters
    for blank in (" ", "\u3000", "\u00a0\t"):
        with pytest.raises(BadId):
            person_id(blank)


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=7) as t:
        yield t


@pytest.mark.anyio
async def test_the_api_refuses_a_look_alike_dealer_and_a_blank_player(table: InProcessTable) -> None:
    r = await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": "dealer_in", "dealer": LOOK_ALIKE})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == "dealer_in.dealer" and "mixes scripts" in r.json()["error"]["message"]
    for name in ("   ", "\u3000"):
        r = await call(table.api, "POST", "/api/actions", DEALER_KEY,
                       json={"type": "bet", "box": 1, "amount": 10, "player": name})
        assert r.status_code == 422, r.text
        assert r.json()["error"]["field"] == "bet.player" and "blank" in r.json()["error"]["message"]
    r = await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY,
                   json={"type": "dealer_in", "dealer": "\uff24-\uff17"})  # full-width D-7
    assert r.status_code == 200, r.text
    assert table.service.table.dealer_on_duty == "D-7"


@pytest.mark.anyio
async def test_the_badge_reader_and_the_console_refuse_a_look_alike_badge(table: InProcessTable) -> None:
    reader = BadgeReader(check=person_id)
    assert reader.feed(LOOK_ALIKE + "\n", 1.0) == []
    assert [a.badge for a in reader.feed("dealer1\n", 2.0)] == ["dealer1"]
    # The console's path refuses it too, whatever reader typed it.
    handle_console_action(ConsoleAction(ConsoleKind.BADGE, badge=LOOK_ALIKE), table.service)
    handle_console_action(ConsoleAction(ConsoleKind.BADGE, badge="dealer1"), table.service)
    await asyncio.sleep(0.05)
    await table.settled()
    dealers = [e.event.dealer for e in JournalReader(table.journal).entries() if isinstance(e.event, ev.DealerIn)]
    assert dealers == ["dealer1"]


def test_a_journal_holding_a_look_alike_id_still_replays(tmp_path: Path) -> None:
    """Written before the rule (an event made in the process is not validated), the row is read as it was."""
    db = tmp_path / "old.sqlite"
    authority = open_authority(db)
    authority.submit(ev.DealerIn(dealer=LOOK_ALIKE), T0 + timedelta(seconds=1))
    authority.submit(ev.Shuffle(shoe_id="S1"), T0 + timedelta(seconds=2))
    authority.submit(ev.PlaceBet(box=1, amount=10, player=" "), T0 + timedelta(seconds=3))
    authority.journal.close()
    reopened = open_authority(db)
    assert reopened.table.dealer_on_duty == LOOK_ALIKE
    events = [e.event for e in JournalReader(db).entries()]
    assert isinstance(events[1], ev.DealerIn) and events[1].dealer == LOOK_ALIKE
    assert isinstance(events[3], ev.PlaceBet) and events[3].player == " "
    reopened.journal.close()
