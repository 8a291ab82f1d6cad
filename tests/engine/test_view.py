"""The table view hides the hole card from everyone but a supervisor, in every field."""

from __future__ import annotations

import json

from tests.support.engine_dsl import play

from controller.view import table_view


def test_hole_card_cannot_be_read_or_deduced_before_it_is_turned():
    r = play("bet 1 10", "cards 9S TD 9C 7H", profile="us-holecard")  # hole card 7H, dealer 10 up
    viewer = table_view(r.table)
    assert viewer["dealer"]["cards"] == ["TD", "XX"] and viewer["dealer"]["totals"] == [10]
    assert "7H" not in json.dumps(viewer)
    # the counts by rank show the 7 as still in the shoe: only the visible cards are out
    assert viewer["shoe"]["remaining_by_rank"]["7"] == 4
    assert viewer["shoe"]["remaining_by_rank"]["9"] == 2
    supervisor = table_view(r.table, reveal_closed=True)
    assert supervisor["dealer"]["cards"] == ["TD", "7H"]
    assert supervisor["shoe"]["remaining_by_rank"]["7"] == 3
    turned = play("bet 1 10", "cards 9S TD 9C 7H", "stand", profile="us-holecard")
    assert table_view(turned.table)["last_round"]["dealer"]["cards"] == ["TD", "7H"]
