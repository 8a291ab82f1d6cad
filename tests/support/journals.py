"""Journals for tests: a keyed journal beside its key file, and a few rounds played into it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.authority import SNAPSHOT_EVERY_ROWS, TableAuthority
from controller.cards import parse_card
from controller.journal import JournalKey, key_beside
from controller.rules import build_rules

T0 = datetime(2026, 11, 30, 20, 0, tzinfo=timezone.utc)

# One round on box 1: 10 bet, T-9 against the dealer's 6, stand, the dealer draws T then 2 (18).
ROUND_STEPS: tuple[tuple[str, str | None], ...] = (
    ("bet", None), ("card", "TS"), ("card", "6D"), ("card", "9C"), ("stand", None), ("card", "TD"), ("card", "2H"))


def key_for(journal: Path) -> JournalKey:
    """The key beside `journal` (`journal.key`, as the service looks for it), made if missing."""
    path = key_beside(journal)
    return JournalKey.load(path) if path.exists() else JournalKey.generate(path)


def open_authority(journal: Path, profile: str = "ru-standard", snapshot_every_rounds: int = 50,
                   snapshot_every_rows: int = SNAPSHOT_EVERY_ROWS) -> TableAuthority:
    """The authority over a keyed journal at `journal` (created where nothing is)."""
    return TableAuthority.open(journal, key_for(journal), build_rules(profile), snapshot_every_rounds, now=T0,
                               snapshot_every_rows=snapshot_every_rows)


def play_rounds(authority: TableAuthority, n: int, shoe_id: str = "S1", start: datetime = T0) -> datetime:
    """Shuffle, then play `n` identical rounds with numbered card positions; returns the last time used."""
    t = start
    authority.submit(ev.Shuffle(shoe_id=shoe_id), t)
    position = 0
    for _ in range(n):
        for kind, code in ROUND_STEPS:
            t += timedelta(seconds=1)
            if kind == "bet":
                authority.submit(ev.PlaceBet(box=1, amount=10), t)
            elif kind == "stand":
                authority.submit(ev.Stand(), t)
            else:
                position += 1
                authority.submit(ev.CardDrawn(card=parse_card(code), position=position), t,
                                 shoe_id=shoe_id, position=position)
    return t


def play_many(journal: Path, rounds: int, *, seed: int = 37, snapshot_every_rounds: int = 50,
              copies: dict[int, Path] | None = None) -> None:
    """A journal of ``rounds`` rounds of realistic play (a counter, a casual player, a flat bettor and a parlay
    bettor at boxes 1, 2, 3 and 5, through the engine and the journal's authority, 2 s an event), committed
    every 200 rounds; ``copies``: after that many rounds, a copy of the journal (and its key) at that path."""
    import random
    import shutil

    from games.blackjack.advantage_players import play_session, seat

    authority = open_authority(journal, snapshot_every_rounds=snapshot_every_rounds)
    clock = [T0]

    def submit(event: ev.Event) -> list[Any]:
        clock[0] += timedelta(seconds=2)
        return authority.submit(event, clock[0])[1]

    rng = random.Random(seed)
    session = seat(authority.table.rules, {1: "counter", 2: "casual", 3: "flat", 5: "parlay"}, rng,
                   table=authority.table, submit=submit)
    journal_ = authority.journal
    journal_.db.execute("PRAGMA synchronous=OFF")  # (a test's journal: the disk's durability is not what is tested)
    done = 0
    while done < rounds:
        step = min(200, rounds - done, *(n - done for n in (copies or {}) if n > done))
        with journal_.transaction():
            play_session(session, step, rng)
        done += step
        if copies and done in copies:
            journal_.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            shutil.copyfile(journal, copies[done])
            shutil.copy(key_beside(journal), key_beside(copies[done]))  # (its mode too: 0600)
    journal_.close()
