"""Issue 25, "Where it shows": the table itself raises the slug alarm while the slug is dealt.

The engine feeds its protection watch every card it places (controller.protection.live): a run of
the previous shoe's order reaching the threshold is a `slug` alert (level alarm) on the card that
makes it, journalled as the card's row is (so it survives a restart and replays identically), and
a shoe shuffled weakly is a `weak_shuffle` notice when the next shoe is shuffled in. A fair shoe
raises neither; an alarm that would name a closed card waits until it is turned.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta
from collections.abc import Callable
from pathlib import Path

from controller import events as ev
from controller.event_codec import dump_event
from controller.closed import closed_cards
from controller.effects import AlertCleared, AlertRaised, CardPlaced, HoleCardTurned, RoundSettled, ShoeLock
from controller.engine import Table
from controller.rules import build_rules
from controller.view import table_view
from tests.support.journals import T0, open_authority
from simulators.shuffles import riffle
from tests.support.shoes_dealt import deal_shoe, fresh_shoe, with_slug

SLUG_AT = 40  # the slug follows the new shoe's 40th card: its 7th card is the shoe's 47th


def _kinds(table: Table) -> list[str]:
    return [a.kind.value for a in table.alerts]


def test_the_alarm_rings_on_the_slugs_seventh_card_and_survives_a_restart(tmp_path: Path) -> None:
    rng = random.Random(25)
    authority = open_authority(tmp_path / "t.sqlite")
    table = authority.table
    first = deal_shoe(table, lambda e: authority.submit(e, e.at), "S1", fresh_shoe(rng), T0)
    second = with_slug(fresh_shoe(rng), first, 60, 20, at=SLUG_AT)
    raised_at: list[int] = []

    def after(n: int) -> None:
        if "slug" in _kinds(table) and not raised_at:
            raised_at.append(n)

    deal_shoe(table, lambda e: authority.submit(e, e.at), "S2", second, T0 + timedelta(hours=1), after)
    # The run by rank and suit reaches 7 on the slug's 7th card (the shoe's 47th), while it is dealt.
    assert raised_at == [SLUG_AT + 7]
    [alarm] = [a for a in table_view(table)["alerts"] if a["kind"] == "slug"]
    assert alarm["level"] == "alarm" and "cards 41-47 of this shoe" in alarm["message"]
    assert "from its card 61" in alarm["message"]
    # Journalled with the card that raised it: a restart (snapshot or not) has it on the board.
    authority.journal.close()
    again = open_authority(tmp_path / "t.sqlite")
    assert [a["message"] for a in table_view(again.table)["alerts"] if a["kind"] == "slug"] == [alarm["message"]]


def test_fair_shoes_raise_nothing_live() -> None:
    rng = random.Random(7)
    table = Table(build_rules("ru-standard"))
    for n in range(4):
        deal_shoe(table, table.apply, f"S{n + 1}", fresh_shoe(rng), T0 + timedelta(hours=n))
    assert not {"slug", "weak_shuffle"} & set(_kinds(table))


def test_a_shoe_dealt_in_order_is_a_weak_shuffle_notice_at_the_next_shuffle() -> None:
    rng = random.Random(3)
    table = Table(build_rules("ru-standard"))
    deal_shoe(table, table.apply, "S1", fresh_shoe(rng), T0)
    ordered = sorted(fresh_shoe(rng), key=lambda c: c.index)  # a new pack's order: never shuffled
    deal_shoe(table, table.apply, "S2", ordered, T0 + timedelta(hours=1))
    assert "weak_shuffle" not in _kinds(table)  # judged when the shoe ends
    table.apply(ev.Shuffle(shoe_id="S3", at=T0 + timedelta(hours=2)))
    [notice] = [a for a in table_view(table)["alerts"] if a["kind"] == "weak_shuffle"]
    assert notice["level"] == "notice" and notice["message"].startswith("weak shuffle: ")


def test_three_riffles_of_the_previous_shoe_are_a_weak_shuffle_notice() -> None:
    """Issue 25's aim, through the real table: the previous shoe's cards (dealt order, the rest on top)
    riffled three times are a weak shuffle, named by its rising sequences, when the next shoe comes in."""
    rng = random.Random(33)
    table = Table(build_rules("ru-standard"))
    first = fresh_shoe(rng)
    dealt = deal_shoe(table, table.apply, "S1", first, T0)
    pile = dealt + first[len(dealt):]
    for _ in range(3):
        pile = riffle(pile, rng)
    deal_shoe(table, table.apply, "S2", pile, T0 + timedelta(hours=1))
    table.apply(ev.Shuffle(shoe_id="S3", at=T0 + timedelta(hours=2)))
    [notice] = [a for a in table_view(table)["alerts"] if a["kind"] == "weak_shuffle"]
    assert notice["level"] == "notice" and "mostly rising sequences" in notice["message"]


def test_the_watch_survives_a_snapshot_in_the_middle_of_the_slug() -> None:
    """State saved explicitly: a table restored between the slug's 3rd and 4th card rings on the same card."""
    rng = random.Random(25)
    first_table = Table(build_rules("ru-standard"))
    first = deal_shoe(first_table, first_table.apply, "S1", fresh_shoe(rng), T0)
    second = with_slug(fresh_shoe(rng), first, 60, 20, at=SLUG_AT)
    tables = [first_table]
    raised_at: list[int] = []

    def submit(e: ev.Event) -> object:
        effects = tables[-1].apply(e)
        if isinstance(e, ev.CardDrawn) and e.position == SLUG_AT + 3:
            tables.append(Table.from_snapshot(tables[-1].snapshot()))  # what a restart from a snapshot reads
        return effects

    def after(n: int) -> None:
        if "slug" in _kinds(tables[-1]) and not raised_at:
            raised_at.append(n)

    deal_shoe(lambda: tables[-1], submit, "S2", second, T0 + timedelta(hours=1), after)
    assert len(tables) == 2 and raised_at == [SLUG_AT + 7]


def _deal_two(rules_name: str, at: int, submit_of: Callable[[Table], Callable[[ev.Event], object]]) -> Table:
    rng = random.Random(11)
    table = Table(build_rules(rules_name, {"decks": 6}))
    first = deal_shoe(table, table.apply, "S1", fresh_shoe(rng), T0)
    deal_shoe(table, submit_of(table), "S2", with_slug(fresh_shoe(rng), first, 60, 20, at=at), T0 + timedelta(hours=1))
    return table


def test_an_alarm_that_would_name_the_hole_card_waits_until_it_is_turned() -> None:
    """us-holecard: when the slug's 7th card is the dealer's hole card, the alarm rings as it is turned, not before.

    An alarm at the moment the hole card is dealt would tell whoever kept the previous shoe's order
    what the hole card is (the guide: closed cards reach no role by any path, side channels included).
    """
    for at in range(30, 70):  # where the slug must start for its 7th card to be a hole card
        placed: list[CardPlaced] = []
        _deal_two("us-holecard", at, lambda t: lambda e: placed.extend(
            f for f in t.apply(e) if isinstance(f, CardPlaced) and f.to != "discard"))
        if placed[at + 6].face_down:
            break
    else:
        raise AssertionError("no slug start puts its 7th card on a hole card")
    log: list[tuple[str, bool, bool, bool]] = []  # (event, a card closed, slug on the board, the hole card turned)

    def recorder(t: Table) -> Callable[[ev.Event], object]:
        def submit(e: ev.Event) -> object:
            effects = t.apply(e)
            log.append((e.type, bool(closed_cards(t)), "slug" in _kinds(t),
                        any(isinstance(f, HoleCardTurned) for f in effects)))
            return effects
        return submit

    _deal_two("us-holecard", at, recorder)
    first_alarm = next(i for i, entry in enumerate(log) if entry[2])
    assert log[first_alarm][3], "the alarm rings with the event that turns the hole card"
    assert not any(closed and alarmed for _, closed, alarmed, _ in log[:first_alarm + 1])


def test_a_table_watching_no_shoes_plays_the_slug_alike_and_rings_nothing() -> None:
    """`shoes_watched=0` (the simulations': a fair shoe by construction) turns the watch off and nothing else:
    the same events give the same effects but for the alarm's own."""
    rng = random.Random(25)
    watched, unwatched = Table(build_rules("ru-standard")), Table(build_rules("ru-standard"), shoes_watched=0)
    first = fresh_shoe(rng)
    second = fresh_shoe(rng)
    effects: dict[int, list[object]] = {id(watched): [], id(unwatched): []}
    for table in (watched, unwatched):
        def submit(e: ev.Event, table: Table = table) -> object:
            out = table.apply(e)
            effects[id(table)].extend(out)
            return out
        dealt = deal_shoe(table, submit, "S1", list(first), T0)
        deal_shoe(table, submit, "S2", with_slug(list(second), dealt, 60, 20, at=SLUG_AT), T0 + timedelta(hours=1))
    assert "slug" in _kinds(watched) and "slug" not in _kinds(unwatched)
    def played(table: Table) -> list[object]:  # a settled round by its record (the Round itself is the table's)
        return [f.round.record if isinstance(f, RoundSettled) else f for f in effects[id(table)]
                if not isinstance(f, (AlertRaised, AlertCleared, ShoeLock))]

    assert played(unwatched) == played(watched)
    assert unwatched.rounds_played == watched.rounds_played


def test_a_long_replay_lists_every_weak_shuffle_notice_the_board_could_not_hold() -> None:
    """Twelve shoes each riffled once from the one before, nobody acknowledging: the board holds at most 8 alerts of a
    kind (the last counting the rest), but `replay --json` lists each notice in its own words among its incidents,
    notices included (issue 38: a long replay dropped weak-shuffle notices)."""
    from controller.replay import replay_lines

    rng = random.Random(38)
    table = Table(build_rules("ru-standard"))
    lines: list[str] = []

    def submit(event: ev.Event) -> object:
        lines.append(json.dumps(dump_event(event)))
        return table.apply(event)

    shoe = fresh_shoe(rng)
    deal_shoe(table, submit, "S1", shoe, T0)
    for n in range(2, 14):
        shoe = riffle(shoe, rng)  # the whole previous shoe, as it lay, riffled once
        deal_shoe(table, submit, f"S{n}", shoe, T0 + timedelta(hours=n))
    submit(ev.Shuffle(shoe_id="S14", at=T0 + timedelta(hours=15)))
    weak_on_board = [a for a in table.alerts if a.kind.value == "weak_shuffle"]
    assert len(weak_on_board) == 8 and weak_on_board[-1].count > 1  # the board counts the rest on its last
    doc = replay_lines(lines).as_dict()
    notices = [i for i in doc["incidents"] if i["alert"] == "weak_shuffle"]
    assert len(notices) == 12 and all(i["level"] == "notice" and i["text"].startswith("weak shuffle: this shoe")
                                      for i in notices)
    assert len({i["text"] for i in notices}) == 12  # each in its own words, none the board's count
