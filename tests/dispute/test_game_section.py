"""The dispute record's game section comes from the game's folder (its registry part ``dispute``): the shared
template draws what every game has and names no game's own bets; blackjack's part adds each box's insurance."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from importlib import resources
from pathlib import Path

from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import parse_card
from controller.dispute import DisputeOptions
from controller.event_codec import parse_event
from controller.journal import JournalKey, JournalReader
from controller.rules import build_rules
from tablectl.dispute import make_record, to_html

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=timezone.utc)


def test_the_shared_template_names_no_games_own_bet() -> None:
    template = resources.files("tablectl.dispute").joinpath("record.html.j2").read_text()
    assert not re.search(r"insurance|blackjack|club|banker|bank\b", template, re.IGNORECASE)


def test_blackjacks_section_shows_a_boxs_insurance_as_settled_and_as_recorded(tmp_path: Path) -> None:
    key = JournalKey.generate(tmp_path / "k")
    live = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("ru-standard", {"burn_cards": 0}), now=T0)
    events: list[ev.Event] = [ev.Shuffle(shoe_id="s1", card_count=312), ev.PlaceBet(box=1, amount=Decimal(20))]
    events += [ev.CardDrawn(card=parse_card(c)) for c in ("9S", "AH", "8D")]  # the dealer's ace: insurance
    events += [parse_event({"type": "insurance", "box": 1, "amount": "10"}), parse_event({"type": "close_insurance"}),
               parse_event({"type": "stand"}), ev.CardDrawn(card=parse_card("KC"))]  # the dealer's blackjack
    try:
        for i, e in enumerate(events):
            live.submit(e, T0 + timedelta(seconds=i))
    finally:
        live.journal.close()
    with JournalReader(tmp_path / "j.sqlite", key) as reader:
        record = make_record(reader, DisputeOptions(round_number=1, table="t", exported_by="test",
                                                    exported_at=T0 + timedelta(days=1)))
    page = to_html(record)
    row = re.search(r"<tr><td>insurance</td>.*?</tr>", page)
    assert row is not None, "no insurance row in the box's hands"
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(0))
    assert cells == ["insurance", "", "10", "", "20", "20"]  # staked 10, paid 2:1 by the engine and as recorded
