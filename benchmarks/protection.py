"""Game protection's measured rates: false alarms on fair shoes, detection of each bad shuffle.

    .venv/bin/python benchmarks/protection.py [--fair N] [--bad N] [--seed S] [--boxes B] [--decks D]
    .venv/bin/python benchmarks/protection.py --null N    # the slug watch's and the combined p's null


Each trial deals a fairly shuffled shoe into blackjack rounds at B boxes up to the cut card
(75 %), gathers the discards (third base first, the dealer's hand last), puts the unplayed cards
on top, shuffles that pile with the shuffle under test, and deals the new shoe to its cut card
through the slug watch and the shuffle-quality statistics. Prints, per shuffle, the rate of slug
alarms and of weak-shuffle notices with a 95 % (Wilson) interval, and for false slugs the slug's
card on which the alarm fired. The aims (issue 25): at most 1 false alarm in 10,000 fair shoes, a
20-card slug caught in at least 99 % of shoes before its 10th card, 1 to 3 riffles flagged weak
in at least 95 %.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from collections import Counter

sys.path.append(os.path.join(os.path.dirname(__file__), ".."))

from controller.cards import ALL_CARDS, Card  # noqa: E402
from controller.protection.discards import discard_order  # noqa: E402
from controller.protection.findings import Key, Reference  # noqa: E402
from controller.protection.quality import shuffle_quality  # noqa: E402
from controller.protection.slug import SlugThresholds, SlugWatch  # noqa: E402
from simulators.shuffles import ShuffleKind, false_slug, parse_shuffle, play_rounds, shuffle  # noqa: E402

SHUFFLES = ("fair", "false-slug:20", "false-slug:10", "riffle:1", "riffle:2", "riffle:3", "riffle:4", "strip",
            "zone")


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
    """k / n as a percentage with its interval."""
    low, high = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.2f} % [{100 * low:.2f}, {100 * high:.2f}]"


def trial(spec_text: str, rng: random.Random, boxes: int, decks: int) -> tuple[bool, int | None, bool, int]:
    """One shoe after one shuffle: (slug alarm?, slug card of the alarm, weak?, where the slug starts)."""
    spec = parse_shuffle(spec_text)
    shoe: list[Card] = [card for card in ALL_CARDS for _ in range(decks)]
    rng.shuffle(shoe)
    cut = round(len(shoe) * 0.75)
    rounds, dealt_count = play_rounds(shoe, boxes, cut)
    dealt = shoe[:dealt_count]
    discards = discard_order(rounds)
    pile = discards + shoe[dealt_count:]
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
    quality = shuffle_quality(new[:new_count], previous_dealt=dealt, previous_discards=discards, decks=decks)
    slug_card = first - slug_at if first is not None and slug_at >= 0 else None
    return first is not None, slug_card, quality.weak, slug_at


def null(pairs: int, seed: int, boxes: int, decks: int) -> None:
    """The longest run per key between pairs of fair shoes (against the longer of the two orders), and the
    combined shuffle-quality p-values of the new shoes: what the thresholds are set from."""
    rng = random.Random(f"null:{seed}")
    lengths: dict[Key, Counter[int]] = {key: Counter() for key in Key}
    ps: list[float] = []
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
        watch = SlugWatch(shoe[:dealt_count], discards, thresholds=never)
        for card in new[:new_count]:
            watch.push(card)
        for key in Key:
            lengths[key][max(watch.longest(reference, key).length for reference in Reference)] += 1
        ps.append(shuffle_quality(new[:new_count], previous_dealt=shoe[:dealt_count], previous_discards=discards,
                                  decks=decks).p)
    print(f"{pairs} pairs of fair {decks}-deck shoes cut at 75 %, {boxes} boxes; seed {seed}")
    for key in Key:
        runs = sorted(lengths[key].elements())
        print(f"{key.value:>14}: median {runs[len(runs) // 2]}, 99th percentile {runs[int(0.99 * len(runs))]}, "
              f"longest {runs[-1]}; {dict(sorted(lengths[key].items()))}")
    print("combined p: " + ", ".join(f"below {level:g} {sum(p < level for p in ps)}" for level in (1e-5, 1e-4, 1e-3, 0.05)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fair", type=int, default=3000, help="fair shoes (default 3000)")
    parser.add_argument("--bad", type=int, default=600, help="shoes of each bad shuffle (default 600)")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--boxes", type=int, default=5)
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--only", action="append", help="only these shuffles (repeatable), e.g. riffle:2")
    parser.add_argument("--null", type=int, metavar="N", help="measure the null on N pairs of fair shoes instead")
    args = parser.parse_args()
    if args.null:
        null(args.null, args.seed, args.boxes, args.decks)
        return
    print(f"{args.decks} decks, cut at 75 %, {args.boxes} boxes; seed {args.seed}")
    for spec_text in args.only or SHUFFLES:
        n = args.fair if spec_text == "fair" else args.bad
        rng = random.Random(f"{args.seed}:{spec_text}")
        alarms = weak = 0
        slug_cards: Counter[int] = Counter()
        for _ in range(n):
            alarm, slug_card, is_weak, _ = trial(spec_text, rng, args.boxes, args.decks)
            alarms += alarm
            weak += is_weak
            if slug_card is not None:
                slug_cards[slug_card] += 1
        line = f"{spec_text:>14}: slug alarm {rate(alarms, n)}; weak shuffle {rate(weak, n)}"
        if spec_text.startswith("false-slug"):
            size = parse_shuffle(spec_text).amount
            fired = sorted(slug_cards.elements())
            early = sum(1 for c in fired if 1 <= c <= 9)
            median = fired[len(fired) // 2] if fired else None
            line += (f"; alarm on the slug's card: median {median}, max {max(fired) if fired else None}"
                     f"; before its 10th card {rate(early, n)}; inside the {size}-card slug "
                     f"{rate(sum(1 for c in fired if 1 <= c <= size), n)}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
