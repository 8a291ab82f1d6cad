"""Rating slips, measured: the theo by measured play against the rule of thumb's, and against what the players
really lost, over simulated shifts (issue 41).

    PYTHONPATH=. .venv/bin/python benchmarks/ratings.py [--shifts N] [--hours H] [--seed S]

Each shift is two ru-standard tables played through the real engine (`games.blackjack.advantage_players`),
every event booked by `controller.ratings.RatingBook` as a journal replay books it, with the journal's times:
a full table (box 1 a basic-strategy flat bettor, 2 a parlay bettor, 3 a casual player with 5 % random plays
and breaks, 4 a Hi-Lo counter, 5 a never-bust player) and a heads-up table (one flat bettor). The pace is a
real table's: the dealer takes 2 s a card, the player 3 s a decision, 10 s between rounds (bets, payout,
gathering), 90 s a shuffle.

Per kind of player, over the N shifts (H hours each): hands per hour played; the rule of thumb's theo (average
bet x hours x 60 x the basic-strategy edge) and the theo by measured play, each as a multiple of the measured;
the measured edge (theo / wagered); and the real loss per unit wagered over all shifts with its standard error
(the sd of a session's result per unit wagered, over the sessions, / sqrt N). The rule of thumb is off by the
table's real pace and by the player's mistakes; the measured theo should agree with the real loss within its
error for every player but the counter (whose edge is the count's, which a basic-strategy theo does not see).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller import events as ev  # noqa: E402
from controller.effects import Effect, RoundSettled  # noqa: E402
from controller.engine import Table  # noqa: E402
from controller.ratings import RatingBook, Session, feed  # noqa: E402
from controller.rules import build_rules  # noqa: E402
from games.blackjack.advantage_players import play_session, seat  # noqa: E402
from tablectl.ratings import basic_edge, blackjack_cost  # noqa: E402

T0 = datetime(2026, 12, 7, 18, 0, tzinfo=timezone.utc)
FULL = {1: "flat", 2: "parlay", 3: "casual", 4: "counter", 5: "never-bust"}
HEADS_UP = {1: "flat"}


class _ShiftOver(Exception):
    """The shift's hours are played."""


def _shift(kinds: dict[int, str], hours: float, seed: int) -> list[tuple[str, Session]]:
    rules = build_rules("ru-standard")
    rng = random.Random(seed)
    table = Table(rules, shoes_watched=0)
    book = RatingBook(basic_edge(rules), blackjack_cost(rules))
    clock = [T0]

    def submit(e: ev.Event) -> list[Effect]:
        step = {ev.CardDrawn: 2.0, ev.PlaceBet: 0.0, ev.Shuffle: 90.0}.get(type(e), 3.0)
        clock[0] += timedelta(seconds=step)
        e.at = clock[0]
        effects = feed(book, table, e)
        if any(isinstance(x, RoundSettled) for x in effects):
            clock[0] += timedelta(seconds=10)
        return effects

    for box, kind in kinds.items():
        submit(ev.Seat(box=box, player=kind))
    session = seat(rules, kinds, rng, table=table, submit=submit)
    end = T0 + timedelta(hours=hours)

    def after_round(_: int) -> None:
        if clock[0] >= end:
            raise _ShiftOver

    try:
        play_session(session, 1_000_000, rng, after_round)  # one shoe's order throughout: ended by the clock
    except _ShiftOver:
        pass
    for box in kinds:
        submit(ev.Unseat(box=box))
    return [(s.player, s) for s in book.report()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shifts", type=int, default=30)
    parser.add_argument("--hours", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    started = time.perf_counter()
    by_kind: dict[str, list[Session]] = defaultdict(list)
    for n in range(args.shifts):
        for table, kinds in (("full", FULL), ("heads-up", HEADS_UP)):
            for name, s in _shift(kinds, args.hours, args.seed * 1000 + n * 2 + (table == "heads-up")):
                by_kind[f"{name} ({table})"].append(s)
    edge = basic_edge(build_rules("ru-standard"))
    assert edge is not None
    print(f"ru-standard, basic-strategy edge {100 * edge:.3f} %; {args.shifts} shifts of {args.hours:g} h per "
          f"table; {time.perf_counter() - started:.0f} s")
    print(f"{'player':<22}{'n':>4}{'hands/h':>9}{'thumb/measured':>16}{'measured edge':>15}"
          f"{'real loss':>11}{'± se':>8}{'(loss-theo)/se':>16}")
    for kind, sessions in sorted(by_kind.items()):
        pace = statistics.mean(s.decisions_per_hour or 0 for s in sessions)
        thumb = sum(s.thumb_theo or 0 for s in sessions)
        theo = sum(s.theo or 0 for s in sessions)
        wagered = sum(s.wagered for s in sessions)
        losses = [s.actual / s.wagered for s in sessions if s.wagered]
        loss = sum(s.actual for s in sessions) / wagered
        se = statistics.stdev(losses) / math.sqrt(len(losses)) if len(losses) > 1 else float("nan")
        measured = theo / wagered
        print(f"{kind:<22}{len(sessions):>4}{pace:>9.1f}{thumb / theo:>16.2f}{100 * measured:>14.2f}%"
              f"{100 * loss:>10.2f}%{100 * se:>7.2f}%{(loss - measured) / se:>16.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
