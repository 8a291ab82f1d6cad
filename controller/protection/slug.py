"""The slug watch: is the new shoe dealing a run of the previous shoe's order again?

A false shuffle leaves a block of cards (a *slug*) in the order they had before; a spotter who
wrote down the discards knows what comes next. The watch follows every order the previous shoe's
cards may lie in (``discards.slug_orders``: as dealt, as gathered into the tray by each pick-up a
dealer may use, each as it lies and turned over) and, by each key (rank and suit, rank, value),
keeps the longest run of consecutive cards this shoe shares with any of them and where it starts in
both shoes. It is fed the new shoe's cards one at a time and raises the alarm on the card that
makes a run reach its threshold, while the slug is still being dealt, so the pit can stop the game.

It is a dynamic programme over the previous positions that keeps only the runs still alive. The
orders are laid end to end, one sequence per key, so a card costs one look-up: the places where its
key follows the last card's key inside one order (a few by rank and suit, some dozens by value over
every order), not every place of its key; the live table feeds it every card
(``benchmarks/protection.py`` prints the cost per card).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.cards import RANKS, Card, pack_values
from controller.protection.findings import Key, Order, SlugAlarm


@dataclass(frozen=True, slots=True)
class SlugThresholds:
    """The run lengths that raise the alarm, per key (docs/protection.md gives their null).

    Set from the null over every order the watch follows (``discards.slug_orders``): fair 6-deck
    shoes dealt to a 75 % cut at tables of one to seven boxes (``benchmarks/protection.py --null``,
    docs/protection.md): together these defaults raise far fewer than the aim's 1 false alarm in
    10,000 fair shoes, and a slug is still caught on its 7th card, by rank and suit.
    """

    rank_and_suit: int = 7
    rank: int = 11
    value: int = 14

    def of(self, key: Key) -> int:
        """The threshold of ``key``."""
        if key is Key.RANK_AND_SUIT:
            return self.rank_and_suit
        return self.rank if key is Key.RANK else self.value


@dataclass(frozen=True, slots=True)
class CommonRun:
    """The longest run this shoe shares with an order of the previous shoe by one key.

    Positions count from 1 (``previous_start`` in ``order`` as gathered: a turned-over order's run goes
    backwards from it); ``length`` 0 means no card matched at all (then the starts are 0 and ``order`` None).
    """

    order: Order | None
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
    """One key over every order laid end to end: the runs of two or more cards alive at the last card, and the
    longest so far.

    A run of two or more can end at position ``j`` only where an order has the last card's key at ``j - 1``
    and this card's key at ``j`` (both in the same order); ``follows`` lists those positions for each pair of
    keys, so a card costs the few positions of its pair of keys, not every position of its key (a run of one
    is any position of its key: ``first``, never kept one by one).
    """

    __slots__ = ("key", "threshold", "keys", "first", "follows", "origin", "last", "runs", "best")

    def __init__(self, key: Key, threshold: int, orders: Sequence[tuple[Order, Sequence[Card]]], pack: int) -> None:
        self.key = key
        self.threshold = threshold
        self.keys = key_of(key, pack)
        self.first: dict[int, int] = {}  # key -> its first position (end to end)
        # key pair (as before * _PAIR + after) -> the positions j with ``before`` at j - 1 and ``after`` at j
        self.follows: dict[int, list[int]] = {}
        self.origin: list[tuple[int, int]] = []  # position end to end -> (order, 0-based position in it)
        for o, (_, cards) in enumerate(orders):
            before = -1
            for j, card in enumerate(cards):
                k = self.keys[card.index]
                position = len(self.origin)
                self.first.setdefault(k, position)
                if j:
                    self.follows.setdefault(before * _PAIR + k, []).append(position)
                self.origin.append((o, j))
                before = k
        self.last = -1  # the last card's key (none yet)
        self.runs: dict[int, int] = {}  # position -> length (2 or more) of the run ending there and at the last card
        self.best = (0, 0, 0)  # the longest so far: length, start in the new shoe, start end to end (1-based)

    def push(self, card: Card, position: int) -> tuple[int, int, int] | None:
        """Extend the runs with this shoe's card number ``position``. The longest run ending here (the one
        starting earliest end to end among the longest) as (length, new start, start end to end) when it is
        the longest so far or reaches the threshold, else None: the watch needs it only then."""
        k = self.keys[card.index]
        last, self.last = self.last, k
        runs = self.runs
        now = {j: runs.get(j - 1, 1) + 1 for j in self.follows.get(last * _PAIR + k, ())} if last >= 0 else {}
        self.runs = now
        if now:
            length = max(now.values())
        elif k in self.first:
            length = 1
        else:
            return None
        if length <= self.best[0] and length < self.threshold:
            return None
        j = min(j for j, n in now.items() if n == length) if now else self.first[k]
        run = (length, position - length + 1, j - length + 2)
        if length > self.best[0]:
            self.best = run
        return run


_PAIR = 64  # more than any key (52 cards): a pair of keys as one int, before * _PAIR + after


class SlugWatch:
    """Watches one new shoe against every order of the previous shoe (``discards.slug_orders``).

    ``orders``: each order's name and the previous shoe's cards in it (only the cards it read: none from
    behind the cut card).
    """

    def __init__(self, orders: Sequence[tuple[Order, Sequence[Card]]], *,
                 thresholds: SlugThresholds = SlugThresholds(), pack: int = 52) -> None:
        self.thresholds = thresholds
        self.orders = [(order, list(cards)) for order, cards in orders]
        self._tracks = [_Track(key, thresholds.of(key), self.orders, pack) for key in Key]
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
            if run is None or run[0] < track.threshold or track.key in self._alarmed:
                continue
            common = self._common(track, run)
            assert common.order is not None
            alarm = SlugAlarm(track.key, common.order, common.length, common.new_start, common.previous_start,
                              self.cards)
            self._alarmed[track.key] = alarm
            raised.append(alarm)
        return raised

    def _common(self, track: _Track, run: tuple[int, int, int]) -> CommonRun:
        length, new_start, start = run
        if length == 0:
            return CommonRun(None, track.key, 0, 0, 0)
        o, j = track.origin[start - 1]
        order, cards = self.orders[o]
        # a turned-over order is named by its place as gathered: the run goes backwards from it
        previous_start = len(cards) - j if order.turned else j + 1
        return CommonRun(order, track.key, length, new_start, previous_start)

    def longest(self, key: Key) -> CommonRun:
        """The longest run so far this shoe shares with any order by ``key``."""
        track = next(t for t in self._tracks if t.key is key)
        return self._common(track, track.best)

    def summary(self) -> SlugSummary:
        """The longest runs and the alarms of the shoe so far (call it when the shoe ends)."""
        return SlugSummary(self.cards, tuple(self.longest(key) for key in Key), tuple(self._alarmed.values()))
