"""Closed cards: which ledger rows and which cards are face down, and how they are shown to whoever may not see them.

The one place every path out of the process asks (the authority's exports, the journal's head, the
table's view, the live stream, the fleet's wire): a card dealt face down (the dealer's hole card in a
hole-card game, the players' and the banker's closed cards in the club games) is shown as ``HIDDEN``
to every role below supervisor until it is turned, and so is every row that holds it.

`ClosedCards` follows the engine's effects, row by row:

- ``CardPlaced(face_down=True)``: the row holds a closed card;
- ``CardsTurned``: those cards of that box (None: the banker) are shown, the earliest row of each;
- ``HoleCardTurned``: the dealer turned his hole card (blackjack: the round's only closed card);
- ``RoundSettled``: a settled round keeps no secret, except a card carried beyond it (``CardCarried``:
  club-21-36's banker carries the card he kept into the next round of duels), which stays closed until it
  is turned (``CardsTurned``) like any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from .cards import HIDDEN
from .effects import CardCarried, CardPlaced, CardsTurned, Effect, HoleCardTurned, RoundSettled

if TYPE_CHECKING:
    from .cards import Card
    from .game import PlayingTable

__all__ = ["HIDDEN", "ClosedCards", "closed_cards", "mask_effects", "mask_event"]


class ClosedCards:
    """The ledger rows holding a card still closed, fed by the engine's effects (`track`)."""

    def __init__(self) -> None:
        """No row is closed yet."""
        self._cards: dict[int, tuple[int | None, str]] = {}  # seq -> (box, None for the dealer; card)
        self._carried: set[int] = set()  # rows whose card stays closed past its round's settlement

    @property
    def rows(self) -> frozenset[int]:
        """The rows holding a card not yet turned: masked for every role below supervisor."""
        return frozenset(self._cards)

    def is_closed(self, seq: int) -> bool:
        """True while row `seq` holds a card not yet turned."""
        return seq in self._cards

    def track(self, seq: int, effects: Iterable[Effect]) -> None:
        """Follow what row `seq` did: which card went face down, which were turned."""
        cards = self._cards
        for effect in effects:
            # type(effect) itself, not a local holding it: mypy narrows `effect` only on the former.
            if type(effect) is CardPlaced and effect.face_down:
                cards[seq] = (effect.box, effect.card)
            elif type(effect) is CardsTurned:
                for code in effect.cards:
                    row = self._row_of(effect.box, code)
                    if row is not None:
                        del cards[row]
                        self._carried.discard(row)
            elif type(effect) is CardCarried:
                self._carried.update(row for row, (box, _) in cards.items() if box == effect.box)
            elif type(effect) is HoleCardTurned:
                cards.clear()
                self._carried.clear()
            elif type(effect) is RoundSettled:
                for row in [row for row in cards if row not in self._carried]:
                    del cards[row]

    def _row_of(self, box: int | None, code: str) -> int | None:
        # The earliest row holding that card of that box (two packs may hold two of a card).
        return next((row for row in sorted(self._cards) if self._cards[row] == (box, code)), None)


def closed_cards(table: PlayingTable) -> list[Card]:
    """Every card on the table still face down (the game says which): left out of the shoe's counts shown."""
    return table.game.hidden_cards(table)


def mask_event(data: dict[str, Any]) -> dict[str, Any]:
    """A dumped event (session format) with its card hidden; the dict given is left as it was."""
    return {**data, "card": HIDDEN} if "card" in data else dict(data)


def mask_effects(effects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Dumped effects with the card each places hidden (the row's closed card); the others as they are."""
    return [{**e, "card": HIDDEN} if e.get("effect") == "CardPlaced" else e for e in effects]
