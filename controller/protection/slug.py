"""The slug watch: is the new shoe dealing a run of the previous shoe's order again?

A false shuffle leaves a block of cards (a *slug*) in the order they had before; a spotter who
wrote down the discards knows what comes next. The watch keeps, for each order of the previous
shoe (as dealt, and as picked up into the discard tray) and each key (rank and suit, rank,
value), the longest run of consecutive cards this shoe shares with it, where it starts in both
shoes. It is fed the new shoe's cards one at a time and raises the alarm on the card that makes a
run reach its threshold, while the slug is still being dealt, so the pit can stop the game.

It is a dynamic programme over the previous positions that keeps only the runs still alive; a card
costs the places in the previous order where its key follows the last card's key (a few), not
every place of its key (dozens by value in six decks): the live table feeds it every card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.cards import RANKS, Card, pack_values
from controller.protection.findings import Key, Reference, SlugAlarm


@dataclass(frozen=True, slots=True)
class SlugThresholds:
    """The run lengths that raise the alarm, per key (docs/protection.md gives their null).

    Between two fair 6-deck shoes dealt to a 75 % cut (the longer of the runs against the dealt
    and the discard order), 20,000 seeded pairs gave by rank and suit median 3, 99th percentile 4,
    longest 5; by rank 4, 6, 8; by value 6, 8, 11. Each step beyond the 99th percentile is several
    times rarer than the one before: together these defaults raise about 1 false alarm in 50,000
    fair shoes (``benchmarks/protection.py --null``).
    """

    rank_and_suit: int = 7
    rank: int = 10
    value: int = 12

    def of(self, key: Key) -> int:
        """The threshold of ``key``."""
        if key is Key.RANK_AND_SUIT:
            return self.rank_and_suit
        return self.rank if key is Key.RANK else self.value


@dataclass(frozen=True, slots=True)
class CommonRun:
    """The longest run this shoe shares with one order of the previous shoe by one key.

    Positions count from 1; ``length`` 0 means no card matched at all (then the starts are 0).
    """

    reference: Reference
    key: Key
    length: int
    new_start: int
    previous_start: int


@dataclass(frozen=True, slots=True)
class SlugSummary:
    """The watch at the end of a shoe: the longest runs and the alarms raised."""

    cards: int
    runs: tuple[CommonRun, ...]
    alarms: tuple[SlugAlarm, ...]


def key_of(key: Key, pack: int = 52) -> tuple[int, ...]:
    """Each card's key (by Card.index) as a small integer: two cards match when their keys are equal."""
    if key is Key.RANK_AND_SUIT:
        return tuple(range(52))
    if key is Key.RANK:
        return tuple(RANKS.index(rank) for rank in RANKS for _ in range(4))
    return pack_values(pack)


class _Track:
    """One (reference, key) pair: the runs of two or more cards alive at the last card, and the longest so far.

    A run of two or more can end at previous position ``j`` only where the previous order has the
    last card's key at ``j - 1`` and this card's key at ``j``; ``follows`` lists those positions for
    each pair of keys, so a card costs the few positions of its pair of keys, not every position of
    its key (a run of one is any position of its key: ``where``, never kept one by one).
    """

    __slots__ = ("reference", "key", "threshold", "keys", "where", "follows", "last", "runs", "best")

    def __init__(self, reference: Reference, key: Key, threshold: int, previous: Sequence[Card], pack: int) -> None:
        self.reference = reference
        self.key = key
        self.threshold = threshold
        self.keys = key_of(key, pack)
        order = [self.keys[card.index] for card in previous]
        # where each key stands in the previous order (0-based positions, ascending)
        self.where: dict[int, list[int]] = {}
        # key pair (as before * _PAIR + after) -> the positions j with ``before`` at j - 1 and ``after`` at j
        self.follows: dict[int, list[int]] = {}
        for j, k in enumerate(order):
            self.where.setdefault(k, []).append(j)
            if j:
                self.follows.setdefault(order[j - 1] * _PAIR + k, []).append(j)
        self.last = -1  # the last card's key (none yet)
        self.runs: dict[int, int] = {}  # previous position -> length (2 or more) of the run ending there and at the last card
        self.best = CommonRun(reference, key, 0, 0, 0)

    def push(self, card: Card, position: int) -> CommonRun | None:
        """Extend the runs with this shoe's card number ``position``. The longest run ending here (the one
        starting earliest in the previous order among the longest) when it is the longest so far or reaches
        the threshold, else None: the watch needs it only then."""
        k = self.keys[card.index]
        last, self.last = self.last, k
        runs = self.runs
        now = {j: runs.get(j - 1, 1) + 1 for j in self.follows.get(last * _PAIR + k, ())} if last >= 0 else {}
        self.runs = now
        if now:
            length = max(now.values())
        elif k in self.where:
            length = 1
        else:
            return None
        if length <= self.best.length and length < self.threshold:
            return None
        j = min(j for j, n in now.items() if n == length) if now else self.where[k][0]
        run = CommonRun(self.reference, self.key, length, position - length + 1, j - length + 2)
        if length > self.best.length:
            self.best = run
        return run


_PAIR = 64  # more than any key (52 cards): a pair of keys as one int, before * _PAIR + after


class SlugWatch:
    """Watches one new shoe against the previous shoe's dealt order and its discard order.

    ``previous_dealt`` is the previous shoe's cards in the order it dealt them (only the cards
    it read: none from behind the cut card); ``previous_discards`` the same cards in the order
    the dealer picked them up (``discards.discard_order``), or None when it is not known.
    """

    def __init__(self, previous_dealt: Sequence[Card], previous_discards: Sequence[Card] | None = None, *,
                 thresholds: SlugThresholds = SlugThresholds(), pack: int = 52) -> None:
        self.thresholds = thresholds
        references = [(Reference.DEALT, previous_dealt)]
        if previous_discards is not None:
            references.append((Reference.DISCARDS, previous_discards))
        self._tracks = [_Track(reference, key, thresholds.of(key), cards, pack)
                        for reference, cards in references for key in Key]
        self._alarmed: dict[Key, SlugAlarm] = {}
        self.cards = 0

    def push(self, card: Card) -> list[SlugAlarm]:
        """The shoe dealt ``card``: the alarms it raises (at most one per key per shoe).

        An alarm is raised on the card that makes a run reach its key's threshold; a run that
        goes on growing raises nothing more (the summary gives its final length).
        """
        self.cards += 1
        raised: list[SlugAlarm] = []
        for track in self._tracks:
            run = track.push(card, self.cards)
            if run is None or run.length < track.threshold or track.key in self._alarmed:
                continue
            alarm = SlugAlarm(track.key, track.reference, run.length, run.new_start, run.previous_start, self.cards)
            self._alarmed[track.key] = alarm
            raised.append(alarm)
        return raised

    def longest(self, reference: Reference, key: Key) -> CommonRun:
        """The longest run so far this shoe shares with ``reference`` by ``key``."""
        for track in self._tracks:
            if track.reference is reference and track.key is key:
                return track.best
        raise KeyError(f"the watch has no {reference.value} order of the previous shoe")

    def summary(self) -> SlugSummary:
        """The longest runs and the alarms of the shoe so far (call it when the shoe ends)."""
        return SlugSummary(self.cards, tuple(track.best for track in self._tracks), tuple(self._alarmed.values()))
