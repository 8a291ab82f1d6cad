"""What every game's rule options are built from: the `Rules` every game's options extend, ratios, whole cents,
the table's limits.

Each game's options model lives in its folder (``games/<game>/rules.py``); this module holds the parts
they share and imports no game, so every game's rules can import it.
"""

from __future__ import annotations

from abc import abstractmethod
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING, Any

CENT = Decimal("0.01")


def ratio(text: str) -> Decimal:
    """A payout ratio such as ``3:2`` as a number (1.5)."""
    a, b = text.split(":")
    return Decimal(a) / Decimal(b)


def parts(text: str) -> tuple[int, int]:
    """A payout ratio such as ``3:2`` as its two whole numbers."""
    a, b = text.split(":")
    return int(a), int(b)


class TableLimits:
    """The table's limits in whole cents, as the engine counts them: one definition for every game's rules.

    A plain mixin, not a model: the fields (``chip_unit``, ``table_min``, ``table_max``) stay where
    each game's rules declare them, so the rules' JSON keeps its order.
    """

    if TYPE_CHECKING:  # declared by each game's rules: annotations here would make them fields first
        chip_unit: Decimal
        table_min: Decimal
        table_max: Decimal

    @cached_property
    def chip_cents(self) -> int:
        """The chip unit in cents."""
        return int(self.chip_unit * 100)

    @cached_property
    def table_min_cents(self) -> int:
        """The table minimum, the least stake, in cents (rounded up to a whole cent)."""
        return -int(-self.table_min * 100 // 1)

    @cached_property
    def table_max_cents(self) -> int:
        """The table maximum, the greatest stake, in cents (rounded down to a whole cent)."""
        return int(self.table_max * 100 // 1)


class Rules(TableLimits):
    """What the table's shared machinery reads of any game's rules: each game's options model extends this
    (with pydantic's ``BaseModel``) and declares each of these as a field or a property of its own.

    Declared for the type checker only, like `TableLimits`' fields: a declaration here would make a field of
    it first in every game's rules and change the order their options are written in.
    """

    if TYPE_CHECKING:
        name: str
        """The profile the options started from."""
        game: str
        """The game played: a registered game's name."""
        decks: int
        reshuffle_every_round: bool
        repeat_shuffles: int
        dealer_may_shuffle: bool
        boxes: int
        players_per_box: int
        reservation_minutes: int

        @property
        @abstractmethod
        def pack(self) -> int:
            """Cards in one pack: 52, or 36 (6 to ace)."""

        @property
        @abstractmethod
        def shoe_size(self) -> int:
            """Cards in the whole shoe (every pack shuffled together)."""

        @property
        @abstractmethod
        def burn_cards(self) -> int:
            """Cards burnt after each shuffle."""

        @abstractmethod
        def cut_card_zone(self, size: int) -> list[int]:
            """Where the rules place the cut card in a shoe of ``size`` cards ([first, last]; [] without one)."""

        @abstractmethod
        def options(self) -> dict[str, Any]:
            """Every option as JSON-ready data (what a session's ``rules`` line carries)."""


def fractions_of_a_cent(chip: Decimal, ratios: list[tuple[str, str]]) -> list[str]:
    """rules.md, Money, to the cent (decided): each payout ratio the options allow, times the chip."""
    out = []
    for name, text in ratios:
        paid = chip * ratio(text)
        if paid != paid.quantize(CENT):
            out.append(f"chip_unit {chip} x {name} {text} = {paid.normalize()}")
    return out


def none_word(value: Any) -> Any:
    """An option that may be unset: the words none, null or nothing mean None."""
    # ``--set banker_draws_to=none`` arrives as a word: it means the option does not bind.
    if isinstance(value, str) and value.strip().lower() in ("", "none", "null"):
        return None
    return value
