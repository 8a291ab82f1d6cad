"""What every game's simulation shares: a shoe shuffled as it is dealt, and chunks of rounds played by several processes.

Each game's simulation (its folder's ``simulate.py``, the registry's ``simulate`` part) plays its rounds
through the authoritative engine in chunks, each seeded from (seed, chunk number), and adds the chunks'
sums in chunk order: the result for a seed is the same whether one process plays every chunk or several
share them.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterator, Protocol, TypeVar

from controller.cards import Card

from .lifeline import end_with_parent


class ShuffledAsDealt:
    """A simulated shoe shuffled as it is dealt, the one card draw of every simulation.

    Each card is drawn uniformly from those not dealt yet (a Fisher-Yates shuffle done one
    step per card), which deals exactly as a shoe shuffled in full would, but costs only the
    cards actually dealt. Shuffling is gathering every card back: ``next = 0``.
    """

    def __init__(self, cards: list[Card], rng: random.Random) -> None:
        self.cards = cards
        self.rng = rng
        self.next = 0  # the cards before it are dealt

    def draw(self) -> Card:
        """The next card out of the shoe."""
        cards, i = self.cards, self.next
        if i >= len(cards):
            raise RuntimeError("the simulated shoe ran past its last card: the engine should have stopped it")
        j = i + int(self.rng.random() * (len(cards) - i))
        cards[i], cards[j] = cards[j], cards[i]
        self.next = i + 1
        return cards[i]


def default_workers() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Chunk(Protocol):
    """What every simulator's chunk of rounds counts: the rounds it played."""

    rounds: int


J = TypeVar("J")
C = TypeVar("C", bound=Chunk)


def play_chunks(play: Callable[[J], C], jobs: list[J], workers: int,
                progress: Callable[[int], None] | None) -> list[C]:
    """Play the chunks' ``jobs`` with ``play``, in this process (``workers`` 1) or in forked ones, and
    return the chunks in job order (so the sums do not depend on ``workers``); ``progress`` is told the
    rounds played so far after each chunk."""
    chunks: list[C] = []
    results: Iterator[C]
    # Every round leaves cycles (a hand names its box, the box its hands), so the collector runs every few
    # rounds, and its older generations' passes walked every object made before the rounds began (the strategy
    # tables, the rules' models, the modules): about 8 % of the compiled engine's samples (perf). Frozen (before
    # the workers fork: they share those pages) they are left out of its passes; the rounds' own garbage is
    # collected as before, and what was frozen is thawed after, so nothing escapes a later collection.
    gc.freeze()
    pool = None
    try:
        if workers == 1:
            results = map(play, jobs)
        else:
            # Each worker ends with this process, a SIGKILL of it too (a forked worker waiting for its next
            # chunk holds its own end of the pool's pipe, so it would wait forever, adopted by init).
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                       initializer=end_with_parent, initargs=(os.getpid(),))
            results = pool.map(play, jobs)  # in chunk order, whoever played them
        for chunk in results:
            chunks.append(chunk)
            if progress is not None:
                progress(sum(c.rounds for c in chunks))
    finally:
        gc.unfreeze()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return chunks
