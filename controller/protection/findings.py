"""What the protection room reports: a level and one line a pit supervisor understands."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar


class Level(str, Enum):
    """How urgent a finding is; the table's alert path has the same words."""

    ALARM = "alarm"  # stop the game: a slug is being dealt now
    NOTICE = "notice"  # look at it: the shoe was shuffled weakly


class Key(str, Enum):
    """What two cards must share to count as the same card in a run."""

    RANK_AND_SUIT = "rank and suit"
    RANK = "rank"
    VALUE = "value"


class Reference(str, Enum):
    """Which kind of order of the previous shoe a run is found in (``Order.reference``)."""

    DEALT = "dealt"  # as the previous shoe dealt its cards
    DISCARDS = "discards"  # as the dealer picked them up into the discard tray


@dataclass(frozen=True, slots=True)
class Order:
    """One order of the previous shoe a false shuffle may keep (``discards.slug_orders``).

    ``gathered``: ``dealt``, or the ``PickUp`` the discards were gathered in (``third-base-first`` ...);
    ``split_as_played``: a split box's hands gathered in the order they were played; ``turned``: the
    stack turned over, so the order runs backwards.
    """

    gathered: str
    turned: bool = False
    split_as_played: bool = False

    @property
    def reference(self) -> Reference:
        """Dealt or discards."""
        return Reference.DEALT if self.gathered == "dealt" else Reference.DISCARDS

    @property
    def name(self) -> str:
        """``dealt``, ``discards third-base-first``, ... with ``, split hands as played`` and ``, turned over``."""
        words = ["dealt" if self.gathered == "dealt" else f"discards {self.gathered}"]
        if self.split_as_played:
            words.append("split hands as played")
        if self.turned:
            words.append("turned over")
        return ", ".join(words)

    def describe(self) -> str:
        """The order in the pit's words: ``dealt order``, ``discards (gathered first base first), turned over``."""
        if self.gathered == "dealt":
            text = "dealt order"
        else:
            text = f"discards (gathered {self.gathered.replace('-', ' ')}"
            text += ", split hands as played)" if self.split_as_played else ")"
        return text + (", turned over" if self.turned else "")


@dataclass(frozen=True, slots=True)
class SlugAlarm:
    """A run of the previous shoe's order came out again, long enough to be a slug (a false shuffle).

    Positions count from 1, as the shoe numbers its cards: ``new_start`` in this shoe,
    ``previous_start`` in the previous shoe's ``order`` as it was gathered (a turned-over order's run
    goes backwards from there); ``at_card`` is the card of this shoe that made the run reach
    ``length`` (the threshold) and raised the alarm.
    """

    key: Key
    order: Order
    length: int
    new_start: int
    previous_start: int
    at_card: int
    level: ClassVar[Level] = Level.ALARM

    @property
    def reference(self) -> Reference:
        """Dealt or discards (the order's kind)."""
        return self.order.reference

    @property
    def message(self) -> str:
        """One line for the pit."""
        way = "backwards " if self.order.turned else ""
        return (f"possible slug: cards {self.new_start}-{self.at_card} of this shoe repeat the previous shoe's "
                f"{self.order.describe()} by {self.key.value} {way}from its card {self.previous_start} "
                f"({self.length} in a row); stop the deal and call surveillance")


@dataclass(frozen=True, slots=True)
class WeakShuffle:
    """The shoe's shuffle-quality statistics, taken together, are unlikely under a fair shuffle.

    ``p`` is the combined p-value (docs/protection.md), ``worst`` the statistic furthest from its null.
    """

    cards: int
    p: float
    worst: str
    level: ClassVar[Level] = Level.NOTICE

    @property
    def message(self) -> str:
        """One line for the pit."""
        return (f"weak shuffle: this shoe's order ({self.cards} cards) is unlikely after a fair shuffle "
                f"(p = {self.p:.1e}, mostly {self.worst}); watch the next shuffle and review the procedure")


Finding = SlugAlarm | WeakShuffle
