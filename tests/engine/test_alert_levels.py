"""Issue 23, first bullet: every alert has a level (notice, action, alarm) from one table in the engine.

A due shuffle comes every shoe; it used to be an alert like a held card (the bell, a red tile, "with
alerts" on the floor). Its level, notice, now says it is routine.
"""

from __future__ import annotations

from tests.support.engine_dsl import play

from controller.alerts import ALERT_LEVEL, Alert, AlertKind, AlertLevel

CUT_CARD_OUT = ("bet 1 10", "cards TS 6D", "cut", "card 6C", "stand", "cards 5H 8H")


def test_every_kind_of_alert_has_a_level():
    """A kind added without a level would be a KeyError in the view: the table says what each kind is."""
    assert set(ALERT_LEVEL) == set(AlertKind)


def test_the_issues_levels():
    """The issue's table: routine events are notices, what waits for a person is action, integrity and link alarm.

    Issue 25 adds a weak shuffle (a notice) and a slug being dealt (an alarm); issue 41 the multiple transaction
    log's notice (a notice) and action (an action: the casino's report is due); issue 40 the side-bet watch (a
    notice: no bell, the player must not hear that they are seen).
    """
    assert {k for k, lv in ALERT_LEVEL.items() if lv is AlertLevel.NOTICE} == {
        AlertKind.SHUFFLE_DUE, AlertKind.SHOE_EMPTY, AlertKind.WEAK_SHUFFLE, AlertKind.MTL_NOTICE,
        AlertKind.SIDE_BET_EDGE}
    assert {k for k, lv in ALERT_LEVEL.items() if lv is AlertLevel.ALARM} == {
        AlertKind.INTEGRITY, AlertKind.LINK_DOWN, AlertKind.SLUG}
    assert AlertLevel.ALARM.rank > AlertLevel.ACTION.rank > AlertLevel.NOTICE.rank


def test_a_due_shuffle_is_a_notice_in_the_view():
    """The view (API, replay, the floor's published state) gives each alert its level."""
    r = play(*CUT_CARD_OUT)
    assert [(a["kind"], a["level"]) for a in r.as_dict()["alerts"]] == [("shuffle_due", "notice")]


def test_a_held_card_is_an_action():
    r = play("bet 1 10", "card 5S", shuffle=False)
    assert [(a["kind"], a["level"]) for a in r.as_dict()["alerts"]] == [("unexpected_card", "action")]


def test_the_level_follows_the_kind_on_every_alert():
    for kind in AlertKind:
        assert Alert(1, kind, "m", None).as_dict()["level"] == ALERT_LEVEL[kind].value
