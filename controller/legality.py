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


class Action(str, Enum):
    """A decision the table may offer (``legal_actions``); a hit is the next card arriving."""

    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    INSURANCE = "insurance"
    EVEN_MONEY = "even_money"
    CLOSE_INSURANCE = "close_insurance"
    # the club games (003)
    BANKER_STAND = "banker_stand"
    FOLD = "fold"
    CONTRA = "contra"
    RECONTRA = "recontra"
    BET = "bet"  # club-21-36: the box whose duel it is raises its stake before it draws
    DARK = "dark"
    OPEN_BANK = "open_bank"
    CLOSE_BANK = "close_bank"


# The actions (session-format ``type``) only a supervisor may take, in every game; every other
# action a person sends needs at least a dealer's key. club-21-36's bank is the house's money put up
# and taken down (a fill and a credit the pit signs for): opening and closing it is the pit's. Who
# deals is the pit's to say too (dealer_in/out): a dealer's key must not put another dealer's name on rounds.
SUPERVISOR_ACTIONS = frozenset({"void_round", "discard_card", "ack_alert", "shoe_gate", "withdraw",
                                "open_bank", "close_bank", "dealer_in", "dealer_out"})


def named_box_refusal(phase: Phase, r: Round | None, number: int | None) -> Refusal | None:
    """A decision that names its box (``stand``, ``split``) names the box in turn: the dealer meant that box,
    and the table must not apply it to another. No box named, or no box in turn: nothing to check here."""
    if number is None or r is None or phase not in PLAY or r.box_i >= len(r.boxes):
        return None
    box = r.boxes[r.box_i]
    if number != box.number:
        return Refusal("not_your_turn", f"it is box {box.number}'s turn, not box {number}'s")
    return None
