"""High card's view and round record as the readers validate them: the table's shared models, nothing added."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.view_model import GameView, RoundRecord


class HighCardView(GameView):
    """A high card table: boxes of one hand of one card, the dealer's card (the shared shapes)."""

    game: Literal["high-card"]
    view_kind: Literal["generic"]


@dataclass(frozen=True)
class HighCardViewPart:
    """High card's models for the readers (`tablectl.parts.ViewPart`)."""

    model: type[GameView] = HighCardView
    record: type[RoundRecord] = RoundRecord


VIEW = HighCardViewPart()
