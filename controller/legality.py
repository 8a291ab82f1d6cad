"""What a decision may be, in every game: the actions, who may take them, the box a decision names.

Checks never change anything, so the engine can ask ``Table.refusal(event)`` before it
journals an action and ``Table.apply`` runs the same checks before it changes the table
(python-chess's ``is_legal`` before ``push``). `Action` names the decisions, for consoles,
views and the simulated players alike; each game's own checks are in its folder
(blackjack's: `games.blackjack.legality`).
"""

from __future__ import annotations

from enum import Enum

from .errors import Refusal as Refusal  # (re-exported: the checks give Refusals; it is defined below every module)
from .phase import PLAY, Phase
from .round import Round


class GameAction(str, Enum):
    """A decision the table may offer (``legal_actions``), in any game: every game's actions extend this (it has
    no member of its own). The value is the decision's name (the session format's ``type``, or ``hit``)."""

    _value_: str


class Action(GameAction):
    """The decisions of a hand in turn that several games share and mean alike (blackjack's, the club games'):
    a hit is the next card arriving. The analysis of play (the strategies) reasons in these. Each game adds
    its own (blackjack's insurance, the club games' banker's stand...) in its folder's ``actions.py``."""

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"


def named_box_refusal(phase: Phase, r: Round | None, number: int | None) -> Refusal | None:
    """A decision that names its box (``stand``, ``split``) names the box in turn: the dealer meant that box,
    and the table must not apply it to another. No box named, or no box in turn: nothing to check here."""
    if number is None or r is None or phase not in PLAY or r.box_i >= len(r.boxes):
        return None
    box = r.boxes[r.box_i]
    if number != box.number:
        return Refusal("not_your_turn", f"it is box {box.number}'s turn, not box {number}'s")
    return None
