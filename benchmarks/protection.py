"""Game protection's measured rates: false alarms on fair shoes, detection of each way a dealer shuffles badly.

    .venv/bin/python benchmarks/protection.py [--fair N] [--bad N] [--seed S] [--only CLASS] [--workers W]
    .venv/bin/python benchmarks/protection.py --null N [--seed S] [--slug-only | --score-only] [--workers W]

The shoes come from ``tests/support/casino.py``, a generator of casino procedures written apart from the
project's own shuffles (``simulators/shuffles.py``): each trial plays a fair shoe as rounds at a table of one to
seven boxes (splits and doubles included) to its cut card (ru-standard: 200 to 220 cards), gathers the discards
as a dealer may (third or first base first, the dealer's hand first or last, a split box's hands as they lie or as
played, the tray turned over or not, the unplayed cards on top or under), shuffles that pile by the class's
procedure, and plays the new shoe to its cut card. The table's own code then reads both shoes as the protection
report does (``controller.protection.shoes``: the slug watch over every order, the shuffle score).

Classes (``--only``, repeatable): ``fair``; ``slug:20`` and ``slug:14`` from the discards gathered in each way
(``third-base``, ``first-base``, ``dealer-first``, ``dealer-first-first-base``, ``split-as-played``: the pick-up;
``turned``: the slug turned over; ``dealt``: a slug of the dealt order); ``riffle:1`` to ``riffle:3``, ``strip``
``zone`` (the A/B grab shuffle) and ``zone-kept`` (deck by deck, the decks in order), each followed by a player's
cut at a random place, and ``zone-uncut``.
Per class: the slug alarms and weak-shuffle notices, each with its 95 % Wilson interval (and the rule of three's
bound where none of 300 or more was seen), "found" (either), and for slugs the slug's card on which the alarm
rang (median, largest, and how many by its 7th and 10th card). Then the slug watch's cost per card and the
shuffle score's per shoe (CPU time).

``--null N``: N pairs of fair shoes at a full table (seven boxes, cut at 75 %: the most orders and cards, so
the most chances of a false run): the longest run per key over every order the watch follows, the shoes each
key's threshold would alarm on, and each statistic's and the combined p's tail (what the thresholds are set
from; docs/protection.md). ``--slug-only`` leaves the shuffle score out (a third of the time), ``--score-only``
the slug watch.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

sys.path.append(os.path.join(os.path.dirname(__file__), ".."))

from controller.protection.findings import Key  # noqa: E402
from controller.protection.quality import WEAK_SHUFFLE_P  # noqa: E402
from controller.protection.shoes import ShoeCards, previous_orders, score  # noqa: E402
from controller.protection.slug import SlugThresholds, SlugWatch  # noqa: E402
from tests.support import casino  # noqa: E402

G = casino.Gathering
PICK_UPS = {
    "third-base": G(),
    "first-base": G(from_third_base=False),
    "dealer-first": G(dealer_first=True),
    "dealer-first-first-base": G(from_third_base=False, dealer_first=True),
    "split-as-played": G(split_as_played=True),
}


@dataclass(frozen=True)
class Class:
    """One class of shoes: the procedure and how the pile was gathered."""

    name: str
    kind: str
    how: casino.Gathering | None = None  # None: any gathering, at random
    slug_turned: bool | None = False
    slug_from_dealt: bool = False
    cut: bool = True


def classes() -> list[Class]:
    """Every class the benchmark knows, in the order it prints them."""
    out = [Class("fair", "fair")]
    for size in (20, 14):
        for name, how in PICK_UPS.items():
            out.append(Class(f"slug:{size} {name}", f"slug:{size}", how))
        out.append(Class(f"slug:{size} turned", f"slug:{size}", None, slug_turned=True))
        out.append(Class(f"slug:{size} dealt", f"slug:{size}", None, slug_from_dealt=True))
    out += [Class(f"riffle:{k}", f"riffle:{k}") for k in (1, 2, 3)]
    out += [Class("strip", "strip"), Class("zone", "zone"), Class("zone-uncut", "zone", cut=False),
            Class("zone-kept", "zone-kept")]
    return out


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


def shoe_cards(name: str, seen: casino.TableRecord, decks: int) -> ShoeCards:
    """The table's book of one shoe, from the generator's record."""
    return ShoeCards(name, None, decks, 52, len(seen.dealt), list(seen.dealt), list(seen.burnt), None,
                     [list(map(list, hands)) for hands in seen.rounds], [list(b) for b in seen.boxes], [], True)


@dataclass
class Outcome:
    """What the table found in one trial's new shoe."""

    alarm: bool
    weak: bool
    slug_card: int | None  # the slug's card (1 = its first) on which the alarm rang
    watch_seconds: float
    cards: int
    score_seconds: float


def one(cls: Class, rng: random.Random, decks: int) -> Outcome:
    """One trial of ``cls``, read by the table's own code."""
    t = casino.trial(cls.kind, rng, decks=decks, how=cls.how, slug_from_dealt=cls.slug_from_dealt,
                     slug_turned=cls.slug_turned, cut=cls.cut)
    before, after = shoe_cards("1", t.previous, decks), shoe_cards("2", t.new, decks)
    started = time.process_time()
    watch = SlugWatch(previous_orders(before), pack=52)
    first = None
    for card in after.dealt:
        if watch.push(card) and first is None:
            first = watch.cards
    watched = time.process_time() - started
    started = time.process_time()
    quality = score(after, before)
    scored = time.process_time() - started
    slug_card = first - t.slug_at if first is not None and t.slug_at is not None else None
    return Outcome(first is not None, quality.weak, slug_card, watched, len(after.dealt), scored)


@dataclass
class Tally:
    """One class's counts."""

    n: int = 0
    alarms: int = 0
    weak: int = 0
    found: int = 0
    slug_cards: list[int] = field(default_factory=list)
    watch_seconds: float = 0.0
    cards: int = 0
    score_seconds: list[float] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.n += 1
        self.alarms += o.alarm
        self.weak += o.weak
        self.found += o.alarm or o.weak
        if o.slug_card is not None:
            self.slug_cards.append(o.slug_card)
        self.watch_seconds += o.watch_seconds
        self.cards += o.cards
        self.score_seconds.append(o.score_seconds)


def run_class(job: tuple[Class, int, int, int, int]) -> Tally:
    """``n`` trials of a class from its own seeded stream (chunk ``part`` of it)."""
    cls, n, seed, decks, part = job
    rng = random.Random(f"{seed}:{cls.name}:{part}")
    tally = Tally()
    for _ in range(n):
        tally.add(one(cls, rng, decks))
    return tally


def merge(tallies: list[Tally]) -> Tally:
    out = Tally()
    for t in tallies:
        out.n += t.n
        out.alarms += t.alarms
        out.weak += t.weak
        out.found += t.found
        out.slug_cards += t.slug_cards
        out.watch_seconds += t.watch_seconds
        out.cards += t.cards
        out.score_seconds += t.score_seconds
    return out


def chunks(n: int, size: int) -> Iterator[int]:
    while n > 0:
        yield min(n, size)
        n -= size


def line(cls: Class, t: Tally) -> str:
    """One class's line."""
    text = f"{cls.name:>26}: n {t.n}; slug alarm {rate(t.alarms, t.n)}; weak {rate(t.weak, t.n)}"
    if cls.kind != "fair":
        text += f"; found {rate(t.found, t.n)}"
    if cls.kind.startswith("slug"):
        rung = sorted(t.slug_cards)
        if rung:
            text += (f"; alarm on the slug's card: median {rung[len(rung) // 2]}, largest {rung[-1]}, "
                     f"by its 7th {rate(sum(c <= 7 for c in rung), t.n)}, by its 10th {rate(sum(c <= 10 for c in rung), t.n)}")
    return text


def null(pairs: int, seed: int, decks: int, workers: int, slug: bool, quality: bool, parts_file: str | None = None) -> None:
    """Fair pairs at a full table, cut at 75 %: the longest runs per key and the score's tails (see the docstring).

    ``parts_file``: each part of 2,000 pairs is appended there as a JSON line as it finishes, and the parts already
    there (the same seed and statistics) are not run again: a long run can be stopped and resumed."""
    size = 2000
    jobs = [(n, seed, decks, part, slug, quality) for part, n in enumerate(chunks(pairs, size))]
    lengths: dict[Key, Counter[int]] = {key: Counter() for key in Key}
    alarms: Counter[str] = Counter()
    each: dict[str, Counter[int]] = {}
    combined: Counter[int] = Counter()
    orders: Counter[int] = Counter()

    def add(part: dict[str, Any]) -> None:
        for key in Key:
            lengths[key].update({int(k): v for k, v in part["lengths"][key.value].items()})
        alarms.update(part["alarms"])
        for name, tail in part["each"].items():
            each.setdefault(name, Counter()).update({int(k): v for k, v in tail.items()})
        combined.update({int(k): v for k, v in part["combined"].items()})
        orders.update({int(k): v for k, v in part["orders"].items()})

    done: set[int] = set()
    if parts_file and os.path.exists(parts_file):
        with open(parts_file, encoding="utf-8") as f:
            for line in f:
                part = json.loads(line)
                if (part["seed"], part["decks"], part["slug"], part["quality"]) == (seed, decks, slug, quality) \
                        and part["part"] < len(jobs) and part["part"] not in done:
                    done.add(part["part"])
                    add(part)
    with ProcessPoolExecutor(workers) as pool:
        for future in as_completed([pool.submit(null_part, job) for job in jobs if job[3] not in done]):
            part = future.result()
            add(part)
            if parts_file:
                with open(parts_file, "a", encoding="utf-8") as f:
                    f.write(json.dumps(part) + "\n")
    thresholds = SlugThresholds()
    print(f"{pairs} pairs of fair {decks}-deck shoes at seven boxes, cut at 75 %; seed {seed}")
    if slug:
        print(f"orders followed per shoe: {dict(sorted(orders.items()))}")
        for key in Key:
            runs = sorted(lengths[key].elements())
            print(f"{key.value:>14}: median {runs[len(runs) // 2]}, 99th percentile {runs[int(0.99 * len(runs))]}, "
                  f"longest {runs[-1]}; {dict(sorted(lengths[key].items()))}; "
                  f"at or over its threshold {thresholds.of(key)}: {rate(alarms[key.value], pairs)}")
        print(f"slug alarm (any key at its threshold): {rate(alarms['any'], pairs)}")
    if quality:
        levels = LEVELS
        for name, tail in each.items():
            print(f"{name} p: " + ", ".join(f"below {levels[i]:g} {tail[i]}" for i in range(len(levels))))
        print(f"combined p (weak below {WEAK_SHUFFLE_P:g}): "
              + ", ".join(f"below {levels[i]:g} {combined[i]}" for i in range(len(levels))))


LEVELS = (1e-7, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 1e-3, 0.01, 0.05)


def null_part(job: tuple[int, int, int, int, bool, bool]) -> dict[str, Any]:
    n, seed, decks, part, slug, quality = job
    rng = random.Random(f"null:{seed}:{part}")
    never = SlugThresholds(10_000, 10_000, 10_000)
    thresholds = SlugThresholds()
    lengths: dict[Key, Counter[int]] = {key: Counter() for key in Key}
    alarms: Counter[str] = Counter()
    each: dict[str, Counter[int]] = {}
    combined: Counter[int] = Counter()
    orders: Counter[int] = Counter()
    for _ in range(n):
        t = casino.trial("fair", rng, decks=decks, boxes=7, cut_zone=(234, 234))
        before, after = shoe_cards("1", t.previous, decks), shoe_cards("2", t.new, decks)
        if slug:
            named = previous_orders(before)
            orders[len(named)] += 1
            watch = SlugWatch(named, thresholds=never)
            for card in after.dealt:
                watch.push(card)
            rung = False
            for key in Key:
                length = watch.longest(key).length
                lengths[key][length] += 1
                if length >= thresholds.of(key):
                    alarms[key.value] += 1
                    rung = True
            alarms["any"] += rung
        if quality:
            q = score(after, before)
            for stat in q.statistics:
                tail = each.setdefault(stat.name, Counter())
                tail.update(i for i, level in enumerate(LEVELS) if stat.p < level)
            combined.update(i for i, level in enumerate(LEVELS) if q.p < level)
    return {"seed": seed, "decks": decks, "part": part, "n": n, "slug": slug, "quality": quality,
            "lengths": {key.value: dict(lengths[key]) for key in Key}, "alarms": dict(alarms),
            "each": {name: dict(tail) for name, tail in each.items()}, "combined": dict(combined),
            "orders": dict(orders)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fair", type=int, default=2000, help="fair shoes (default 2000)")
    parser.add_argument("--bad", type=int, default=200, help="shoes of each bad class (default 200)")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--only", action="append", help="only these classes (repeatable), e.g. 'slug:20 turned'")
    parser.add_argument("--null", type=int, metavar="N", help="measure the null on N pairs of fair shoes instead")
    parser.add_argument("--slug-only", action="store_true", help="with --null: the slug watch's null only")
    parser.add_argument("--score-only", action="store_true", help="with --null: the shuffle score's null only")
    parser.add_argument("--parts", metavar="FILE", help="with --null: keep each finished part in FILE and resume from it")
    args = parser.parse_args()
    if args.null:
        null(args.null, args.seed, args.decks, args.workers, not args.score_only, not args.slug_only, args.parts)
        return
    known = {c.name: c for c in classes()}
    unknown = [name for name in args.only or () if name not in known]
    if unknown:
        parser.error(f"no class {', '.join(map(repr, unknown))}: one of {', '.join(known)}")
    chosen = [known[name] for name in args.only] if args.only else list(known.values())
    print(f"{args.decks} decks, ru-standard's cut (200-220 of 312 cards), one to seven boxes; seed {args.seed}; "
          f"weak below {WEAK_SHUFFLE_P:g}; slug thresholds {SlugThresholds()}; generator tests/support/casino.py")
    everything = Tally()
    with ProcessPoolExecutor(args.workers) as pool:
        for cls in chosen:
            n = args.fair if cls.kind == "fair" else args.bad
            jobs = [(cls, k, args.seed, args.decks, part) for part, k in enumerate(chunks(n, 100))]
            tally = merge(list(pool.map(run_class, jobs)))
            everything = merge([everything, tally])
            print(line(cls, tally), flush=True)
    times = sorted(everything.score_seconds)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"slug watch per card (every order and key, CPU time): {1e6 * everything.watch_seconds / everything.cards:.1f} "
          f"us over {everything.cards} cards; shuffle score per shoe: median {1000 * times[len(times) // 2]:.1f} ms, "
          f"99th percentile {1000 * times[int(0.99 * len(times))]:.1f} ms over {len(times)} shoes; load average "
          f"{load:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
