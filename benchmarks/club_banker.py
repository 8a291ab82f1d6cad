"""How long the club-21 banker's best play takes to decide: cold (nothing cached) and from the cache.

    .venv/bin/python benchmarks/club_banker.py [--sights N] [--seed S]

Draws N random sights from a two-deck pack (0 to 90 cards already shown; the banker on two or three
cards; one to three boxes of two to five cards each, stakes 1 to 3), decides each with the
sighted and the blind players' model (games.club_21.banker.decide), with every cache
cleared first, then again from the cache, and prints the median, 90th percentile and slowest
time of each, with the machine's load beside (the figures move with it).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.append(os.path.join(os.path.dirname(__file__), ".."))  # after PYTHONPATH: a compiled build wins

from games.club_21 import banker as model  # noqa: E402
from simulators.club_strategy import BLIND_PLAYERS  # noqa: E402

FULL = [8] * 9 + [32]  # two 52-card decks by value, the ace first


def _sight(rng: random.Random) -> model.BankerSight:
    pack = list(FULL)

    def take() -> int:
        i = rng.choices(range(10), weights=pack)[0]
        pack[i] -= 1
        return i + 1

    for _ in range(rng.randrange(0, 91)):
        take()
    banker = [take(), take()]
    while sum(banker) < 12 and rng.random() < 0.5:
        banker.append(take())
    boxes = tuple(model.BoxSight(rng.randrange(2, 6), rng.randrange(1, 4)) for _ in range(rng.randrange(1, 4)))
    return model.BankerSight(tuple(pack), tuple(banker), boxes, cards_left=sum(pack) - 3)


def _clear() -> None:
    model.decide.cache_clear()
    model._box_totals.cache_clear()


def _line(name: str, times: list[float]) -> str:
    times = sorted(times)
    p90 = times[int(0.9 * (len(times) - 1))]
    return (f"{name:28s} median {statistics.median(times) * 1e3:7.3f} ms  p90 {p90 * 1e3:7.3f} ms  "
            f"slowest {times[-1] * 1e3:7.3f} ms")


def main() -> None:
    """Time every sight cold and cached, for each players' model, and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sights", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if args.sights < 1:
        parser.error("--sights must be at least 1")
    rng = random.Random(args.seed)
    sights = [_sight(rng) for _ in range(args.sights)]
    terms = model.BankerTerms()
    print(f"{args.sights} sights; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for name, players in (("sighted below-17", model.ADVICE_PLAYERS), ("blind cards-3", BLIND_PLAYERS)):
        cold, cached = [], []
        for sight in sights:
            _clear()
            started = time.perf_counter()
            model.decide(sight, terms, players)
            cold.append(time.perf_counter() - started)
            started = time.perf_counter()
            model.decide(sight, terms, players)
            cached.append(time.perf_counter() - started)
        print(_line(f"{name}, cold", cold))
        print(_line(f"{name}, cached", cached))


if __name__ == "__main__":
    main()
