"""The event decoder is built once per set of event classes, not once per change of the registry: a game registered
and taken off again (a test's), or one that brings no event of its own, leaves the table's decoder as it was, so
the next event is not read by a decoder built wherever it happens to be (under a frozen clock pydantic cannot build
a schema of datetime fields: tests/journal/test_any_date.py failed so after the conformance suite's test game)."""

from __future__ import annotations

from freezegun import freeze_time

from controller import registry
from controller.event_codec import _decoder, parse_event
from tests.games.high_card import ENTRY as HIGH_CARD


def test_a_game_registered_and_taken_off_leaves_the_decoder_as_it_was() -> None:
    before, _ = _decoder()
    with registry.registered(HIGH_CARD):
        assert _decoder()[0] is before  # high card brings no event of its own
    assert _decoder()[0] is before


def test_after_a_test_game_an_event_is_read_under_a_frozen_clock() -> None:
    parse_event({"type": "stand"})
    with registry.registered(HIGH_CARD):
        parse_event({"type": "stand"})
    with freeze_time("2100-01-01T00:00:00Z", ignore=["_pytest"]):
        assert parse_event({"type": "stand", "at": "2100-01-01T00:00:00+00:00"}).type == "stand"
