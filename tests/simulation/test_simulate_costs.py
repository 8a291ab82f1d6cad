"""What the simulate path does to be fast, and that it changes no figure (issue 42, item 3)."""

from __future__ import annotations

import gc
from decimal import Decimal

from controller.money import _CENTS_KEPT, to_cents
from simulators.simulation import play_chunks


class _Played:
    def __init__(self, rounds: int) -> None:
        self.rounds = rounds


def test_the_objects_made_before_the_rounds_are_frozen_while_they_play_and_thawed_after() -> None:
    seen: list[int] = []

    def play(rounds: int) -> _Played:
        seen.append(gc.get_freeze_count())
        return _Played(rounds)

    before = gc.get_freeze_count()
    assert [c.rounds for c in play_chunks(play, [3, 4], 1, None)] == [3, 4]
    assert all(n > before for n in seen), seen  # the collector's passes skip them while the rounds play
    assert gc.get_freeze_count() == before


def test_to_cents_is_the_same_for_equal_amounts_and_past_the_amounts_it_keeps() -> None:
    assert to_cents(Decimal("10")) == to_cents(Decimal("10.00")) == to_cents(10) == 1000
    assert to_cents(Decimal("0.005")) is None
    assert to_cents(Decimal("0.005")) is None  # a fraction remembered is still a fraction
    for k in range(_CENTS_KEPT + 50):  # more amounts than it keeps: the rest are worked out each time
        assert to_cents(Decimal(k) / 4) == 25 * k
        assert to_cents(Decimal(k) / 1000) == (k // 10 if k % 10 == 0 else None)
