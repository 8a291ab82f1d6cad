"""A table's missing seqs as ranges: what a row's arrival changes costs the same however many gaps there are.

Pure bookkeeping, no I/O: `Gaps.add(seq)` says what changed (a gap opened, closed, shrank or split), and the
store writes just that to its ``gaps`` table. It replaces a scan of every row above the first gap on each
batch, which made the floor's cost per message grow with the number of gaps.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True)
class Opened:
    """A new gap: the rows `first`..`last` are missing (a row arrived beyond the highest)."""

    first: int
    last: int


@dataclass(frozen=True)
class Closed:
    """The gap that started at `first` is filled."""

    first: int


@dataclass(frozen=True)
class Resized:
    """The gap that started at `was_first` is now `first`..`last` (a row at one of its ends arrived)."""

    was_first: int
    first: int
    last: int


@dataclass(frozen=True)
class Split:
    """The gap that started at `first` now ends at `last`, and a second one, `second_first`..`second_last`,
    follows it (a row inside it arrived): the same rows, still missing since the gap was first noticed."""

    first: int
    last: int
    second_first: int
    second_last: int


Change = Opened | Closed | Resized | Split


class Gaps:
    """The seqs missing between 1 and the highest seq stored (`top`), as sorted, disjoint ranges."""

    def __init__(self, ranges: list[tuple[int, int]] | None = None, top: int = 0) -> None:
        ranges = sorted(ranges or [])
        self._firsts = [f for f, _ in ranges]
        self._lasts = [last for _, last in ranges]
        self.top = top

    def add(self, seq: int) -> Change | None:
        """A row `seq` not stored before has arrived: what that changes."""
        if seq > self.top:
            was = self.top
            self.top = seq
            if seq > was + 1:
                self._firsts.append(was + 1)
                self._lasts.append(seq - 1)
                return Opened(was + 1, seq - 1)
            return None
        i = bisect_right(self._firsts, seq) - 1
        if i < 0 or self._lasts[i] < seq:
            return None  # not missing (the store only calls this for a new row: it is not reached then)
        first, last = self._firsts[i], self._lasts[i]
        if first == last:
            del self._firsts[i], self._lasts[i]
            return Closed(first)
        if seq == first:
            self._firsts[i] = first + 1
            return Resized(first, first + 1, last)
        if seq == last:
            self._lasts[i] = last - 1
            return Resized(first, first, last - 1)
        self._lasts[i] = seq - 1
        self._firsts.insert(i + 1, seq + 1)
        self._lasts.insert(i + 1, last)
        return Split(first, seq - 1, seq + 1, last)

    @property
    def contiguous(self) -> int:
        """Every seq up to this one is stored."""
        return self._firsts[0] - 1 if self._firsts else self.top

    def ranges(self) -> list[tuple[int, int]]:
        """The missing ranges, in order."""
        return list(zip(self._firsts, self._lasts))

    def missing_count(self) -> int:
        """How many seqs below `top` are missing."""
        return sum(last - first + 1 for first, last in zip(self._firsts, self._lasts))

    def __len__(self) -> int:
        return len(self._firsts)
