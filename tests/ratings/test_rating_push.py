"""What the table pushes over the floor (issue 41): `tablectl.ratings.RatingFollower` answers each session once it
has ended, and never again; a player no `unseat` ends (anonymous play) has ended once `LEFT_AFTER` passes without
a round of theirs. The broker's part: tests/fleet/test_floor_ratings.py."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from controller import events as ev
from controller.journal import JournalReader
from controller.ratings import LEFT_AFTER
from tablectl.ratings import RatingFollower, rows, session_row
from tests.support.journals import key_for, open_authority, play_rounds


def test_anonymous_play_is_pushed_once_its_player_has_left_and_a_seated_one_at_the_unseat(tmp_path: Path) -> None:
    db = tmp_path / "bj-7.sqlite"
    authority = open_authority(db)
    authority.submit(ev.Seat(box=2, player="Olga"), authority.table.now)  # seated, plays nothing yet
    last = play_rounds(authority, 3)  # anonymous bets on box 1
    authority.journal.close()
    follower = RatingFollower()
    with JournalReader(db, key_for(db)) as reader:
        follower.follow(reader.entries())
        assert follower.ended(last + LEFT_AFTER) == []  # box 1's player may come back yet; Olga sits
        [left] = follower.ended(last + LEFT_AFTER + timedelta(seconds=1))
        assert (left.player, left.rounds, left.open) == ("Player on box 1", 3, False)
        assert follower.ended(last + timedelta(hours=5)) == []  # answered once
        exported = rows(reader, "bj-7")
    # The export's own line, but ended: the export, which looks at no clock, still calls it open.
    [line] = [r for r in exported if r["player"] == "Player on box 1"]
    assert session_row("bj-7", left) == {**line, "open": False}
    authority = open_authority(db)
    authority.submit(ev.Unseat(box=2), last + timedelta(hours=1))
    authority.journal.close()
    with JournalReader(db, key_for(db)) as reader:
        follower.follow(reader.entries(follower.seq))
    [olga] = follower.ended(last + timedelta(hours=1))
    assert (olga.player, olga.seated, olga.open) == ("Olga", True, False)
