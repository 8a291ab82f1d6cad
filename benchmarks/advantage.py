"""Advantage-play evidence, measured: how soon each signal separates a counter from a flat bettor, and how
often ordinary players are flagged (issue 26, part 2).

    PYTHONPATH=. .venv/bin/python benchmarks/advantage.py [--sessions N] [--rounds R] [--seed S] [--look K]

Each session is one table played through the real engine (`games.blackjack.advantage_players`), every event
booked by `controller.protection.advantage.AdvantageBook` as a journal replay books it. Two tables:

* ru-standard (6 decks, no hole card): box 1 a Hi-Lo counter (1-12 spread, index plays), box 2 a wonger
  (1-8, in at +1, out under 0), box 3 a basic-strategy flat bettor, box 4 a casual player (wandering bets,
  5 % random plays, breaks), box 5 a parlay bettor (doubles after a win);
* us-holecard (1 deck, hole card): box 1 an edge sorter (bets big when its first card is an ace or a
  ten), box 2 a hole-carder, box 3 a flat bettor, box 4 a casual player.

The book is asked every K rounds (a *look*, as surveillance would look at a screen). Per signal and per
cheat: the rounds until the signal's p first falls below 0.001 (median over the sessions; ">R" where
fewer than half got there), and the share of sessions where it did within 200 rounds. Then the same for
the combined rule (flagged: Bonferroni over the signals, `FLAG_ALPHA` = 0.001). Then each honest
player's false-flag rate: sessions flagged at any look within R rounds, with a 95 % Wilson interval.
The aims: a counter flagged within 200 rounds in at least 90 % of sessions; flat bettors in at most 0.1 %.
A basic-strategy flat bettor cannot be flagged at all (its bet never moves, so no bet signal has a test;
it never changes play, so the index plays' p is 1; it never sits out), so ``--null N`` plays N more tables
of ordinary players whose bets and plays do move (two casual, two parlay and a flat bettor each) for the
rate that matters, each box a session (the boxes of one table share its cards).
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

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller.protection.advantage import FLAG_ALPHA, AdvantageBook  # noqa: E402
from controller.rules import build_rules  # noqa: E402
from games.blackjack.rules import RuleProfile  # noqa: E402
from games.blackjack.advantage_players import play_session, seat  # noqa: E402

from benchmarks.protection import wilson  # noqa: E402  (the same 95 % interval as the protection benchmark's)

TABLES: dict[str, tuple[str, dict[int, str], tuple[str, ...], tuple[str, ...]]] = {
    # name: (profile, seats, cheats, honest players)
    "shoe": ("ru-standard", {1: "counter", 2: "wonger", 3: "flat", 4: "casual", 5: "parlay"},
             ("counter", "wonger"), ("flat", "casual", "parlay")),
    "hole": ("us-holecard", {1: "edge-sorter", 2: "hole-carder", 3: "flat", 4: "casual"},
             ("edge-sorter", "hole-carder"), ("flat", "casual")),
}
# --null: ordinary players only, two of each kind whose bets move (a flat bettor cannot be flagged: see main)
NULL_SEATS = {1: "casual", 2: "parlay", 3: "casual", 4: "parlay", 5: "flat"}
ORDER = ("bet_vs_true_count", "bet_vs_shoe_edge", "first_bet_after_shuffle", "bet_change_after_push", "index_plays",
         "wonging", "first_card", "hole_card")  # the book's order
WITHIN = 200  # the horizon: a counter flagged within 200 rounds
SEPARATE = 0.001  # a signal separates at p below this


def session(rules: RuleProfile, seats: dict[int, str], rounds: int, look: int, seed: str
            ) -> tuple[dict[tuple[str, str], int], dict[str, int], set[tuple[str, str]]]:
    """One session: per (player, signal) the first look with p < 0.001; per seat (box) the first look flagged;
    the (player, signal) pairs that ever had a p-value."""
    rng = random.Random(seed)
    book = AdvantageBook(decks=rules.decks, pack=rules.pack)
    table = seat(rules, seats, rng, book)
    first: dict[tuple[str, str], int] = {}
    flagged: dict[str, int] = {}
    tested: set[tuple[str, str]] = set()

    def looked(n: int) -> None:
        if n % look:
            return
        for box, player in seats.items():
            subject = f"box {box}"  # the box: two players of a kind at one table are two boxes
            if subject not in book.subjects:
                continue
            report = book.subject_report(subject)
            for signal in report.signals:
                if signal.p is not None:
                    tested.add((player, signal.name))
                    if signal.p < SEPARATE:
                        first.setdefault((player, signal.name), n)
            if report.flagged:
                flagged.setdefault(subject, n)

    play_session(table, rounds, rng, looked)
    return first, flagged, tested


def median_rounds(firsts: list[int | None], rounds: int) -> str:
    """The median of the rounds to separation, ">R" when fewer than half of the sessions separated."""
    reached = sorted(f if f is not None else math.inf for f in firsts)
    m = statistics.median(reached)
    return f">{rounds}" if math.isinf(m) else f"{m:.0f}"


def main() -> None:
    """Play the sessions and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=60, help="sessions per table (default 60)")
    parser.add_argument("--rounds", type=int, default=400, help="rounds per session (default 400)")
    parser.add_argument("--look", type=int, default=10, help="look at the book every K rounds (default 10)")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--tables", default="shoe,hole", help="which tables: shoe, hole (default both)")
    parser.add_argument("--null", type=int, default=0, metavar="N",
                        help="then N more ru-standard tables of ordinary players only (two casual, two parlay, one "
                             "flat), for a tighter false-flag rate")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"{args.sessions} sessions of {args.rounds} rounds a table, a look every {args.look} rounds; seed {args.seed}; "
          f"flagged: Bonferroni over the signals at {FLAG_ALPHA}")
    for name in args.tables.split(","):
        profile, seats, cheats, honest = TABLES[name]
        rules = build_rules(profile)
        assert isinstance(rules, RuleProfile)
        signal_firsts: dict[tuple[str, str], list[int | None]] = defaultdict(list)
        flag_firsts: dict[str, list[int | None]] = defaultdict(list)
        signals: list[str] = []
        ever: set[tuple[str, str]] = set()
        for i in range(args.sessions):
            first, flagged, tested = session(rules, seats, args.rounds, args.look, f"advantage:{args.seed}:{name}:{i}")
            ever |= tested
            for key in sorted(tested):
                if key[1] not in signals:
                    signals.append(key[1])
            for box, player in seats.items():
                flag_firsts[player].append(flagged.get(f"box {box}"))
            for key, n in first.items():
                signal_firsts[key].append(n)
        for key, firsts in signal_firsts.items():
            firsts.extend([None] * (args.sessions - len(firsts)))
        print(f"\n{profile}: " + ", ".join(f"box {b} {k}" for b, k in seats.items()))
        print(f"  {'signal':26}" + "".join(f"{c + ': median, within ' + str(WITHIN):>36}" for c in cheats))
        for signal in sorted(signals, key=ORDER.index):
            cells = []
            for cheat in cheats:
                if (cheat, signal) not in ever:
                    cells.append("no test")
                    continue
                firsts = signal_firsts.get((cheat, signal), [None] * args.sessions)
                within = sum(1 for f in firsts if f is not None and f <= WITHIN)
                cells.append(f"{median_rounds(firsts, args.rounds)} rounds, {100 * within / args.sessions:5.1f} %")
            print(f"  {signal:26}" + "".join(f"{c:>36}" for c in cells))
        cells = []
        for cheat in cheats:
            firsts = flag_firsts[cheat]
            within = sum(1 for f in firsts if f is not None and f <= WITHIN)
            low, high = wilson(within, args.sessions)
            cells.append(f"{median_rounds(firsts, args.rounds)} rounds, {100 * within / args.sessions:5.1f} %"
                         f" [{100 * low:.0f}, {100 * high:.0f}]")
        print(f"  {'FLAGGED (combined)':26}" + "".join(f"{c:>36}" for c in cells))
        for player in honest:
            k = sum(1 for f in flag_firsts[player] if f is not None)
            low, high = wilson(k, args.sessions)
            print(f"  false flags, {player:7}: {k}/{args.sessions} = {100 * k / args.sessions:.2f} % "
                  f"[{100 * low:.2f}, {100 * high:.2f}] (flagged at any look within {args.rounds} rounds)")
    if args.null:
        rules = build_rules("ru-standard")
        assert isinstance(rules, RuleProfile)
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for i in range(args.null):
            _, flagged, _ = session(rules, NULL_SEATS, args.rounds, args.look, f"advantage:{args.seed}:null:{i}")
            for box, player in NULL_SEATS.items():
                counts[player][0] += f"box {box}" in flagged
                counts[player][1] += 1
        print(f"\nru-standard, ordinary players only: {args.null} tables of " +
              ", ".join(f"box {b} {k}" for b, k in NULL_SEATS.items()))
        for player, (k, n) in counts.items():
            low, high = wilson(k, n)
            print(f"  false flags, {player:7}: {k}/{n} = {100 * k / n:.2f} % [{100 * low:.2f}, {100 * high:.2f}] "
                  f"(flagged at any look within {args.rounds} rounds)")
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
