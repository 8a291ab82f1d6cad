"""Blackjack's section of the dispute record (the registry's ``dispute`` part): each box's insurance, beside its hands.

The shared record (`controller.dispute`, `tablectl/dispute/record.html.j2`) draws what every game has: the cards,
stakes, decisions, hands and settlement. A box's insurance is blackjack's own, drawn as rows of the box's hands'
table, in its columns: what it is, cards, stake, outcome, the player's net the engine computes, and what the round's
record kept as paid.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def _of_box(record: Mapping[str, Any] | None, box: int) -> list[Mapping[str, Any]]:
    return [i for i in (record or {}).get("insurance") or [] if isinstance(i, Mapping) and i.get("box") == box]


@dataclass(frozen=True)
class BlackjackDispute:
    """Blackjack's rows of a box in the dispute record (`tablectl.parts.DisputePart`)."""

    def box_rows(self, box: int, engine: Mapping[str, Any], recorded: Mapping[str, Any] | None) -> list[list[str]]:
        """The box's insurance, as the engine settles it (``engine``: its round record) and as the round's record
        kept it (``recorded``; None when no record was kept)."""
        kept = _of_box(recorded, box)
        return [["insurance", "", str(i.get("amount", "")), "", str(i.get("net", "")),
                 str(kept[0].get("net", "")) if kept else "not recorded"] for i in _of_box(engine, box)]


DISPUTE = BlackjackDispute()
