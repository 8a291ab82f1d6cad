"""The virtual dealer's decisions at a blackjack table, from the dealer key's view alone (pure).

The dealer places seeded bets, closes insurance (basic strategy never insures), deals when the
table waits for a card, and decides for the players by basic strategy, now and then (a share
``random_choice`` of the decisions) by a random legal choice instead. :func:`blackjack_move`
reads one table view and says the one thing to do next, as :func:`games.club.dealer.club_move`
does for the club games; no clock, no socket: the virtual dealer carries the move out over the
API and the shoe's control channel, the in-process dealer through the service.
"""

from __future__ import annotations

from typing import Any

from controller.cards import parse_card
from controller.rules import Rules
from simulators.dealer_moves import DEAL, RANDOM_CHOICE, SHUFFLE, WAIT, Move, act, bets_to_place, seeded
from simulators.strategy import BasicStrategy, strategy_for

from .rules import RuleProfile

__all__ = ["DEALER", "RANDOM_CHOICE", "BlackjackDealer", "blackjack_move", "players_choice"]


def players_choice(t: dict[str, Any], strategy: BasicStrategy, seed: int, random_choice: float = RANDOM_CHOICE) -> str:
    """The decision for the hand in turn (``hit``, ``stand``, ``double``, ``split``, ``surrender``): basic
    strategy, or a random legal one, drawn from the seed and the hand (round, box, hand, cards held)."""
    turn = t["turn"]
    box = next(b for b in t["boxes"] if b["box"] == turn["box"] and not b.get("next_round"))
    hand = box["hands"][turn["hand"]]
    legal = t["legal_actions"]
    rng = seeded(seed, "play", t["round"], turn["box"], turn["hand"], len(hand["cards"]))
    if rng.random() < random_choice:
        return str(rng.choice(legal))
    values = [parse_card(c).value for c in hand["cards"]]
    up = parse_card(t["dealer"]["cards"][0]).value
    action = strategy.decide(values, up, can_double="double" in legal, can_split="split" in legal,
                             can_surrender="surrender" in legal, hands_in_box=len(box["hands"]),
                             is_split_hand=hand["split"])
    choice = action.value
    return "stand" if choice == "hit" and "hit" not in legal else choice


def blackjack_move(t: dict[str, Any], strategy: BasicStrategy, seed: int, random_choice: float = RANDOM_CHOICE,
                   max_boxes: int | None = None) -> Move:
    """The dealer's next move at a blackjack table, from ``t`` (a table view as the dealer's key sees it).

    ``wait`` in attention (a supervisor must resolve it) and when the table waits for nothing the
    dealer does; ``shuffle`` when the table waits for a new shoe; one bet a move between rounds (after
    a restart the rest still follow); a card (``deal``) for a hit or when the table waits for one.
    """
    phase = t["phase"]
    if phase == "attention":
        return WAIT
    if phase == "waiting_for_shuffle":
        return SHUFFLE
    if phase == "insurance":
        return act({"type": "close_insurance"})  # basic strategy never insures
    if phase in ("betting", "settled") and t["round"] is None:
        missing = bets_to_place(t, strategy.rules, seed, max_boxes)
        if missing:
            box, amount = missing[0]
            return act({"type": "bet", "box": box, "amount": str(amount)})
    if t["legal_actions"] and t["turn"] and phase in ("players", "surrender"):
        choice = players_choice(t, strategy, seed, random_choice)
        return DEAL if choice == "hit" else act({"type": choice})
    if t["next_card"]:
        return DEAL
    return WAIT


class _BlackjackPlay:
    """The dealer's play at one blackjack table: `blackjack_move` with the profile's basic strategy."""

    def __init__(self, strategy: BasicStrategy, seed: int, random_choice: float, max_boxes: int | None) -> None:
        self.strategy, self.seed, self.random_choice, self.max_boxes = strategy, seed, random_choice, max_boxes

    def move(self, t: dict[str, Any]) -> Move:
        """The next move from the view."""
        return blackjack_move(t, self.strategy, self.seed, self.random_choice, self.max_boxes)

    def dealt(self, t: dict[str, Any], shoe_id: str, position: int) -> None:
        """Nothing to keep: the dealer may look at every card the view shows."""

    def keep(self, t: dict[str, Any]) -> list[tuple[str, int]]:
        """A new shoe is whole: nothing on the table is left out of it."""
        return []


class BlackjackDealer:
    """Blackjack's virtual dealer (the registry's ``dealer`` part, `simulators.parts.DealerMoves`)."""

    needs_supervisor = False  # no bank: the dealer's key does it all
    loads_packs = False  # the shoe keeps the decks it was started with
    in_memory = True  # the fleet's in-process dealer drives it

    def play(self, rules: Rules, seed: int, random_choice: float, max_boxes: int | None) -> _BlackjackPlay:
        """The dealer's play at a table of these (blackjack's) rules."""
        assert isinstance(rules, RuleProfile)  # (the registry hands this part blackjack's tables only)
        return _BlackjackPlay(strategy_for(rules), seed, random_choice, max_boxes)


DEALER = BlackjackDealer()

