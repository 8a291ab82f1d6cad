"""Log lines about the table carry the round and the shoe in play."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from decimal import Decimal

from controller import events as ev
from controller.cards import parse_card
from tablectl.config import settings_from_dict
from tablectl.logs import KeyValueFormatter
from tablectl.run import TableContext
from tablectl.service import TableService


def test_every_line_names_the_round_and_shoe(tmp_path):
    settings = settings_from_dict({"journal": {"path": str(tmp_path / "j.sqlite")},
                                   "shoe": {"port": str(tmp_path / "none")}})
    service = TableService(settings)
    now = datetime.now(timezone.utc)
    service.authority.submit(ev.Shuffle(shoe_id="S7"), now)
    service.authority.submit(ev.PlaceBet(box=1, amount=Decimal(10)), now)
    service.authority.submit(ev.CardDrawn(card=parse_card("9S")), now)
    record = logging.LogRecord("tablectl.service", logging.INFO, __file__, 1, "card dealt", (), None)
    assert TableContext(service).filter(record)
    line = KeyValueFormatter().format(record)
    assert line.endswith("tablectl.service: card dealt round=1 shoe=S7")
