"""Each dealer's game, per shift: pace, the table's corrections, and the shuffles of their shoes (issue 26).

Pure, as the rest of the room: `DealerBook` is fed the journal in order, each accepted event with the
effects the engine gave it and each refused action with its time, and answers one `DealerShift` per
dealer and shift. The time is the journal's, never a clock.

What counts (docs/protection.md, "Dealers"):
- **Pace** is Zender's game-pace audit: rounds and hands per hour of *dealing time*, hands counting
  the dealer's own hand. Dealing time is the time on duty less the shuffles (from the moment a shuffle
  is due to the shuffle that puts the new shoe in play) and less any silence of more than
  ``IDLE_AFTER`` with nothing journalled (an empty table is not a slow dealer).
- **The published pace** beside it: rounds per hour of about 418 / (boxes played + 1) (Kilby, Fox and
  MacDonald's operator tables: 52-54 at seven boxes, 209 heads-up).
- **Per 100 rounds**: actions the table refused, cards it held (unexpected), and rounds voided.
- **Shoes**: the shuffle-quality p-values of the shoes shuffled in while the dealer was on duty.

A dealer's id is what `dealer_in` gave; the time nobody was signed in is booked to `NOBODY`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..effects import CardPlaced, DealerChanged, Effect, PhaseChanged, RoundSettled
from ..phase import Phase
from .shoes import shift_of

NOBODY = "(no dealer signed in)"
IDLE_AFTER = timedelta(minutes=5)  # a longer silence is an idle table, not dealing time (decided)
PUBLISHED_PACE = 418.0  # rounds per hour x (boxes + 1): Kilby/Fox and MacDonald's operator tables


@dataclass
class DealerShift:
    """One dealer's figures over one shift."""

    dealer: str
    shift: str
    on_duty_seconds: float = 0.0
    shuffle_seconds: float = 0.0
    idle_seconds: float = 0.0
    rounds: int = 0
    boxes: int = 0  # boxes played, summed over the rounds
    hands: int = 0  # every hand dealt, the dealer's own included
    refused: int = 0
    held_cards: int = 0
    voids: int = 0
    shoe_ps: list[float] = field(default_factory=list)  # shuffle-quality p-value of each shoe they shuffled in
    weak_shoes: int = 0

    @property
    def dealing_hours(self) -> float:
        """Hours on duty less shuffles and idle silences."""
        return max(self.on_duty_seconds - self.shuffle_seconds - self.idle_seconds, 0.0) / 3600

    @property
    def rounds_per_hour(self) -> float | None:
        """Rounds per hour of dealing time (None before any)."""
        return self.rounds / self.dealing_hours if self.dealing_hours > 0 else None

    @property
    def hands_per_hour(self) -> float | None:
        """Hands per hour of dealing time, the dealer's hand included."""
        return self.hands / self.dealing_hours if self.dealing_hours > 0 else None

    @property
    def boxes_per_round(self) -> float | None:
        """The mean boxes played a round."""
        return self.boxes / self.rounds if self.rounds else None

    @property
    def published_rounds_per_hour(self) -> float | None:
        """What the operator tables give for this many boxes: 418 / (boxes + 1)."""
        boxes = self.boxes_per_round
        return PUBLISHED_PACE / (boxes + 1) if boxes is not None else None

    def per_100_rounds(self, count: int) -> float | None:
        """``count`` per 100 rounds dealt (None before any round)."""
        return 100 * count / self.rounds if self.rounds else None

    @property
    def median_shoe_p(self) -> float | None:
        """The median shuffle-quality p-value of their shoes (about 0.5 for fair shuffles)."""
        return statistics.median(self.shoe_ps) if self.shoe_ps else None


class DealerBook:
    """Books the journal, in order, to the dealer on duty and the shift."""

    def __init__(self, since: datetime | None = None) -> None:
        """Count from ``since`` on (the dealer on duty before it is still followed); None: everything."""
        self.since = since
        self.dealer: str | None = None
        self.shuffling = True  # a table waits for its first shuffle
        self.last_at: datetime | None = None
        self.shifts: dict[tuple[str, str], DealerShift] = {}
        self.shoe_dealers: dict[str, tuple[str, str]] = {}  # shoe id -> (dealer, shift) who shuffled it in

    def _now(self, at: datetime | None) -> DealerShift | None:
        """Book the time since the last row to whoever was on duty then; the line ``at`` counts in."""
        if at is None:
            return None
        last, self.last_at = self.last_at, at
        line = self._line(at)
        if line is None:
            return None
        if last is not None and at > last and (self.since is None or last >= self.since):
            before = self._line(last) or line
            gap = (at - last).total_seconds()
            before.on_duty_seconds += gap
            if self.shuffling:
                before.shuffle_seconds += gap
            elif at - last > IDLE_AFTER:
                before.idle_seconds += gap
        return line

    def _line(self, at: datetime) -> DealerShift | None:
        if self.since is not None and at < self.since:
            return None
        key = (self.dealer or NOBODY, shift_of(at))
        line = self.shifts.get(key)
        if line is None:
            line = self.shifts[key] = DealerShift(*key)
        return line

    def event(self, at: datetime | None, effects: Iterable[Effect], shoe_in: str | None = None) -> None:
        """An accepted event at ``at`` and its effects; ``shoe_in``: the id of a shoe it shuffled in."""
        line = self._now(at)
        for effect in effects:
            if isinstance(effect, DealerChanged):
                self.dealer = effect.dealer
                line = self._line(at) if at is not None else None
            elif isinstance(effect, PhaseChanged):
                self.shuffling = effect.new is Phase.WAITING_FOR_SHUFFLE
            elif line is None:
                continue
            elif isinstance(effect, RoundSettled):
                r = effect.round
                if r.voided:
                    line.voids += 1
                else:
                    line.rounds += 1
                    line.boxes += len(r.boxes)
                    line.hands += sum(len(box.hands) for box in r.boxes) + 1  # and the dealer's
            elif isinstance(effect, CardPlaced) and effect.to == "held":
                line.held_cards += 1
        if shoe_in is not None and line is not None:
            self.shoe_dealers[shoe_in] = (line.dealer, line.shift)

    def refused(self, at: datetime) -> None:
        """An action the table refused at ``at``."""
        line = self._now(at)
        if line is not None:
            line.refused += 1

    def shoe_scored(self, shoe: str, p: float, weak: bool) -> None:
        """The shuffle-quality score of ``shoe``, for the dealer who shuffled it in (ignored if not booked)."""
        key = self.shoe_dealers.get(shoe)
        if key is None:
            return
        line = self.shifts[key]
        line.shoe_ps.append(p)
        line.weak_shoes += weak

    def report(self) -> list[DealerShift]:
        """Every dealer's line per shift, by dealer then shift (a dealer just signed in too); nobody's only if
        something happened while nobody was signed in."""
        lines = (line for line in self.shifts.values() if line.dealer != NOBODY or line.rounds or line.voids
                 or line.refused or line.held_cards or line.on_duty_seconds or line.shoe_ps)
        return sorted(lines, key=lambda line: (line.dealer, line.shift))
