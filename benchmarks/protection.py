"""Game protection's measured rates: false alarms on fair shoes, detection of each bad shuffle.

    .venv/bin/python benchmarks/protection.py [--fair N] [--bad N] [--seed S] [--boxes B] [--decks D] [--only SPEC]
    .venv/bin/python benchmarks/protection.py --null N [--score-only]  # the slug watch's and each shuffle p's null


Each trial deals a fairly shuffled shoe into blackjack rounds at B boxes up to the cut card
(75 %), gathers the discards (third base first, the dealer's hand last), puts the unplayed cards
on top, shuffles that pile with the shuffle under test, and deals the new shoe to its cut card
through the slug watch and the shuffle-quality statistics. Prints, per shuffle, the rate of slug
alarms and of weak-shuffle notices with a 95 % (Wilson) interval (and the rule of three's bound
when none), the shoes the rising sequences alone flag (p below the weak threshold), and for false
slugs the slug's card on which the alarm fired; then the shuffle score's time per shoe. The aims
(issue 25): at most 1 false alarm in 10,000 fair shoes, a 20-card slug caught in at least 99 % of
shoes before its 10th card, 1 to 3 riffles flagged weak in at least 95 %.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

sys.path.append(os.path.join(os.path.dirname(__file__), ".."))

from controller.cards import ALL_CARDS, Card  # noqa: E402
from controller.protection.discards import PickUp, discard_order, other_discard_orders  # noqa: E402
from controller.protection.findings import Key, Reference  # noqa: E402
from controller.protection.quality import WEAK_SHUFFLE_P, shuffle_quality  # noqa: E402
from controller.protection.slug import SlugThresholds, SlugWatch  # noqa: E402
from simulators.shuffles import ShuffleKind, false_slug, parse_shuffle, play_rounds, shuffle  # noqa: E402

SHUFFLES = ("fair", "false-slug:20", "false-slug:10", "riffle:1", "riffle:2", "riffle:3", "riffle:4", "riffle:5",
            "strip", "zone")
RISING = "rising sequences"
# The piles a dealer may gather (--pile): the discards by each pick-up order (the table's is third base
# first), the dealt order (what the virtual shoe riffles), the table's discard pile turned over.
PILES = tuple(p.value for p in PickUp) + ("dealt", "turned")


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson interval of a rate k / n."""
    if n == 0:
        return 0.0, 1.0
    z = 1.959964
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> str:
    """k / n as a percentage with its interval (none of 300 or more: also the rule of three's 95 % bound, 3 / n)."""
    low, high = wilson(k, n)
    text = f"{k}/{n} = {100 * k / n:.2f} % [{100 * low:.2f}, {100 * high:.2f}]"
    return text + (f" (rule of three: < 1 in {n // 3:,})" if k == 0 and n >= 300 else "")


@dataclass(frozen=True)
class Trial:
    """One shoe after one shuffle: what the watch and the score found, and the score's time (CPU seconds)."""

    alarm: bool
    slug_card: int | None  # the slug's card on which the alarm fired (false slugs)
    weak: bool
    rising_weak: bool  # the rising sequences' p alone below the weak threshold
    evidence: float  # the rising sequences' evidence, decimal digits
    seconds: float


def gathered(pile_kind: str, rounds: list[list[list[Card]]], dealt: list[Card], rest: list[Card]) -> list[Card]:
    """The pile the dealer shuffles: the discards as ``pile_kind`` gathers them (or the dealt order, as the
    virtual shoe has it), the unplayed cards on top; ``turned``: the table's discard pile turned over."""
    if pile_kind == "dealt":
        return dealt + rest
    if pile_kind == "turned":
        return (discard_order(rounds) + rest)[::-1]
    return discard_order(rounds, PickUp(pile_kind)) + rest


def trial(spec_text: str, rng: random.Random, boxes: int, decks: int, pile_kind: str = PILES[0]) -> Trial:
    """One shoe after one shuffle of the pile ``pile_kind`` names; the table knows its discards as third base first."""
    spec = parse_shuffle(spec_text)
    shoe: list[Card] = [card for card in ALL_CARDS for _ in range(decks)]
    rng.shuffle(shoe)
    cut = round(len(shoe) * 0.75)
    rounds, dealt_count = play_rounds(shoe, boxes, cut)
    dealt = shoe[:dealt_count]
    discards = discard_order(rounds)
    pile = gathered(pile_kind, rounds, dealt, shoe[dealt_count:])
    slug_at = -1
    if spec.kind is ShuffleKind.FALSE_SLUG:
        new, slug_at = false_slug(pile, discards, spec.amount, rng, within=cut - 1)
    else:
        new = shuffle(spec, pile, rng, discards=discards)
    _, new_count = play_rounds(new, boxes, cut)
    watch = SlugWatch(dealt, discards)
    first: int | None = None
    for card in new[:new_count]:
        if watch.push(card) and first is None:
            first = watch.cards
    started = time.process_time()
    quality = shuffle_quality(new[:new_count], previous_dealt=dealt, previous_discards=discards,
                              other_discards=other_discard_orders(rounds), decks=decks)
    seconds = time.process_time() - started
    slug_card = first - slug_at if first is not None and slug_at >= 0 else None
    rising = next(s for s in quality.statistics if s.name == RISING)
    return Trial(first is not None, slug_card, quality.weak, rising.p < WEAK_SHUFFLE_P, rising.observed, seconds)


def null(pairs: int, seed: int, boxes: int, decks: int, score_only: bool = False) -> None:
    """The longest run per key between pairs of fair shoes (against the longer of the two orders), and each
    shuffle-quality statistic's and the combined p-values of the new shoes: what the thresholds are set from.

    ``score_only`` leaves the slug watch out (half the time): the shoes are the same either way."""
    rng = random.Random(f"null:{seed}")
    lengths: dict[Key, Counter[int]] = {key: Counter() for key in Key}
    ps: list[float] = []
    each: dict[str, list[float]] = {}
    evidence: list[float] = []
    never = SlugThresholds(10_000, 10_000, 10_000)
    for _ in range(pairs):
        shoe = [card for card in ALL_CARDS for _ in range(decks)]
        rng.shuffle(shoe)
        cut = round(len(shoe) * 0.75)
        rounds, dealt_count = play_rounds(shoe, boxes, cut)
        discards = discard_order(rounds)
        new = [card for card in ALL_CARDS for _ in range(decks)]
        rng.shuffle(new)
        _, new_count = play_rounds(new, boxes, cut)
        if not score_only:
            watch = SlugWatch(shoe[:dealt_count], discards, thresholds=never)
            for card in new[:new_count]:
                watch.push(card)
            for key in Key:
                lengths[key][max(watch.longest(reference, key).length for reference in Reference)] += 1
        quality = shuffle_quality(new[:new_count], previous_dealt=shoe[:dealt_count], previous_discards=discards,
                                  other_discards=other_discard_orders(rounds), decks=decks)
        ps.append(quality.p)
        for stat in quality.statistics:
            each.setdefault(stat.name, []).append(stat.p)
            if stat.name == RISING:
                evidence.append(stat.observed)
    print(f"{pairs} pairs of fair {decks}-deck shoes cut at 75 %, {boxes} boxes; seed {seed}")
    for key in Key if not score_only else ():
        runs = sorted(lengths[key].elements())
        print(f"{key.value:>14}: median {runs[len(runs) // 2]}, 99th percentile {runs[int(0.99 * len(runs))]}, "
              f"longest {runs[-1]}; {dict(sorted(lengths[key].items()))}")
    levels = (1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 1e-3, 0.01, 0.05)
    for name, values in each.items():
        print(f"{name} p: " + ", ".join(f"below {level:g} {sum(p < level for p in values)}" for level in levels))
    print(f"{RISING} evidence (Ville: at most n / 10^d reach d digits): "
          + ", ".join(f"{d} digits {sum(e >= d for e in evidence)}" for d in range(1, 7)))
    print(f"combined p (weak below {WEAK_SHUFFLE_P:g}): "
          + ", ".join(f"below {level:g} {sum(p < level for p in ps)}" for level in levels))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fair", type=int, default=3000, help="fair shoes (default 3000)")
    parser.add_argument("--bad", type=int, default=600, help="shoes of each bad shuffle (default 600)")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--boxes", type=int, default=5)
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--only", action="append", help="only these shuffles (repeatable), e.g. riffle:2")
    parser.add_argument("--pile", choices=PILES, default=PILES[0],
                        help="the pile shuffled (default: the discards, third base first, as the table rebuilds them)")
    parser.add_argument("--null", type=int, metavar="N", help="measure the null on N pairs of fair shoes instead")
    parser.add_argument("--score-only", action="store_true", help="with --null: the shuffle score's null only")
    args = parser.parse_args()
    if args.null:
        null(args.null, args.seed, args.boxes, args.decks, args.score_only)
        return
    print(f"{args.decks} decks, cut at 75 %, {args.boxes} boxes; seed {args.seed}; weak below {WEAK_SHUFFLE_P:g}; "
          f"pile: {args.pile}")
    score_seconds: list[float] = []
    for spec_text in args.only or SHUFFLES:
        n = args.fair if spec_text == "fair" else args.bad
        rng = random.Random(f"{args.seed}:{spec_text}")
        alarms = weak = rising_weak = 0
        evidence: list[float] = []
        slug_cards: Counter[int] = Counter()
        for _ in range(n):
            found = trial(spec_text, rng, args.boxes, args.decks, args.pile)
            evidence.append(found.evidence)
            alarms += found.alarm
            weak += found.weak
            rising_weak += found.rising_weak
            score_seconds.append(found.seconds)
            if found.slug_card is not None:
                slug_cards[found.slug_card] += 1
        line = (f"{spec_text:>14}: slug alarm {rate(alarms, n)}; weak shuffle {rate(weak, n)}"
                f"; by the rising sequences alone {rate(rising_weak, n)}")
        if spec_text.startswith("riffle"):
            evidence.sort()
            line += f"; rising evidence: least {evidence[0]:.1f}, median {evidence[len(evidence) // 2]:.1f} digits"
        if spec_text.startswith("false-slug"):
            size = parse_shuffle(spec_text).amount
            fired = sorted(slug_cards.elements())
            early = sum(1 for c in fired if 1 <= c <= 9)
            median = fired[len(fired) // 2] if fired else None
            line += (f"; alarm on the slug's card: median {median}, max {max(fired) if fired else None}"
                     f"; before its 10th card {rate(early, n)}; inside the {size}-card slug "
                     f"{rate(sum(1 for c in fired if 1 <= c <= size), n)}")
        print(line, flush=True)
    score_seconds.sort()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"shuffle score per shoe (every statistic, CPU time): median {1000 * score_seconds[len(score_seconds) // 2]:.1f} ms, "
          f"99th percentile {1000 * score_seconds[int(0.99 * len(score_seconds))]:.1f} ms over {len(score_seconds)} shoes; "
          f"load average {load:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
