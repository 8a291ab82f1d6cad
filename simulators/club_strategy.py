"""The stated strategies of the club games (document 003): how the boxes play, how the banker draws.

These are rules, not optimal play: the house edge that `tablectl simulate --rules club-21`
reports holds for them only (docs/house-edge.md). Each rule is pure: it decides from the
numbers its role may know.

* **The players' rule** has two forms. *Sighted* (``below-N``, default ``below-17``): the
  player looks at his own cards, as a seated player does, and draws while his best total is
  below N; on a spent pack he doubles at ``pack_out_double_from`` (15) to 21 and folds
  otherwise. *Blind* (``cards-N``): the box draws until it holds N cards, whatever they are,
  and on a spent pack doubles while it is still on its first two cards and folds once it has
  drawn. The virtual dealer plays for the players with the blind rule, because the dealer's
  key sees the players' cards closed (``XX``): it decides from what is public, the number of
  cards a box holds. No box splits, doubles a pair, surrenders or redoubles.
* **The banker's rule**: he draws below his *standing total* and stops at it or above. Where
  the house binds him (``banker_draws_to``: must draw below it) he stands at that total, the
  least the house allows; where the house only caps him (``banker_stands_on``: may not draw at
  or above it) he draws below the cap; where neither is set he stands at 17 or more **(our
  default)**. He decides from his own cards, which the view shows once he draws (the
  ``dealer`` phase), never from the boxes' closed cards. He never calls contra.
  **The optimal banker** (``--banker optimal``, club-21): his best play from what he sees
  (:mod:`games.club_21.banker`), within what the house binds him to. In
  ``club-21-36`` the profile's own options bind him (``banker_draws_to`` 16: he must draw on 15
  or less; ``banker_stands_on`` 17): by the rule above he stands at 16, as soon as he may.
* **club-21-36's boxes, blind**: a box that draws without looking goes ``dark`` first (it loses
  nothing by saying so: a dark box wins ties and, by default, a double bust). No box raises its
  stake. **The bank**: the banker opens one of ten times the bank minimum (within the limits)
  and closes it as soon as he may (after the rounds the table sets, or once it has multiplied).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

DEFAULT_BANKER_STANDS_AT = 17
_RULE_RE = re.compile(r"(below|cards)-(\d{1,2})")


@dataclass(frozen=True, slots=True)
class PlayersRule:
    """How every box plays: sighted (draw below ``draw_below``) or blind (draw to ``cards`` cards)."""

    draw_below: int | None = 17
    cards: int | None = None
    pack_out_double_from: int = 15

    def __post_init__(self) -> None:
        if (self.draw_below is None) == (self.cards is None):
            raise ValueError("a players' rule is either sighted (draw_below) or blind (cards), not both")
        if self.draw_below is not None and not 2 <= self.draw_below <= 22:
            raise ValueError(f"a sighted players' rule draws below 2 to 22, got {self.draw_below}")
        if self.cards is not None and not 2 <= self.cards <= 11:
            raise ValueError(f"a blind players' rule draws to 2 to 11 cards, got {self.cards}")

    @property
    def sighted(self) -> bool:
        """True if the rule looks at the box's own cards (a blind rule never does)."""
        return self.draw_below is not None

    @property
    def name(self) -> str:
        """The rule as the command line names it: ``below-17`` or ``cards-3``."""
        return f"below-{self.draw_below}" if self.draw_below is not None else f"cards-{self.cards}"

    def draws(self, card_count: int, total: int | None = None) -> bool:
        """Does the box in turn take another card? ``total`` (its best total) only for a sighted rule."""
        if self.draw_below is not None:
            if total is None:
                raise ValueError("a sighted players' rule needs the box's total")
            return total < self.draw_below
        return card_count < self.cards  # type: ignore[operator]  # blind: __post_init__ made sure cards is set

    def doubles_on_spent_pack(self, card_count: int, drew: bool, total: int | None = None) -> bool:
        """On a spent pack: double (True) or fold (False)? A blind box doubles only on its first two cards."""
        if self.draw_below is not None:
            if total is None:
                raise ValueError("a sighted players' rule needs the box's total")
            return self.pack_out_double_from <= total <= 21
        return card_count == 2 and not drew


BLIND_PLAYERS = PlayersRule(draw_below=None, cards=3)
SIGHTED_PLAYERS = PlayersRule(draw_below=17)


def parse_players_rule(text: str) -> PlayersRule:
    """``below-N`` (sighted) or ``cards-N`` (blind); raises ValueError with the accepted forms."""
    match = _RULE_RE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"a players' rule is below-N (draw below total N) or cards-N (draw to N cards), "
                         f"got {text!r}")
    kind, number = match.group(1), int(match.group(2))
    if kind == "below":
        return PlayersRule(draw_below=number)
    return PlayersRule(draw_below=None, cards=number)


@dataclass(frozen=True, slots=True)
class BankerRule:
    """The banker draws below ``stands_at`` and stops at it or above (within what the house allows)."""

    stands_at: int = DEFAULT_BANKER_STANDS_AT

    def draws(self, total: int) -> bool:
        """Does the banker, at his best ``total``, take another card?"""
        return total < self.stands_at


@dataclass(frozen=True, slots=True)
class OptimalBanker:
    """The banker's best play from what he sees (``games.club_21.banker.decide``), club-21 only.

    ``players``: the rule he takes the boxes to play (None: the rule they do play, as if he knew it);
    ``memory``: ``pack`` (he counts every card shown since the shuffle, as the dealer's display's advice
    does) or ``round`` (he sees only this round's face-up cards and the bottom card).
    """

    players: PlayersRule | None = None
    memory: str = "pack"

    def __post_init__(self) -> None:
        if self.memory not in ("pack", "round"):
            raise ValueError(f"the optimal banker remembers the pack or the round, not {self.memory!r}")

    def name(self, played: PlayersRule) -> str:
        """The rule as the command line names it (``optimal``, ``optimal-round:below-17``)."""
        base = "optimal" if self.memory == "pack" else "optimal-round"
        return base if self.players is None or self.players == played else f"{base}:{self.players.name}"


_BANKER_RE = re.compile(r"optimal(-round)?(?::(.+))?")


def parse_banker_rule(text: str) -> OptimalBanker | None:
    """``options`` (None: the fixed rule the table's options give, ``banker_rule_for``) or
    ``optimal[-round][:PLAYERS]``; raises ValueError naming the accepted forms."""
    text = text.strip()
    if text == "options":
        return None
    match = _BANKER_RE.fullmatch(text)
    if match is None:
        raise ValueError(f"a banker's rule is options (the table's banker_* options; default: stand at 17) or "
                         f"optimal[-round][:below-N|cards-N], got {text!r}")
    players = parse_players_rule(match.group(2)) if match.group(2) else None
    return OptimalBanker(players, "round" if match.group(1) else "pack")


def banker_rule_for(rules: Any) -> BankerRule:
    """The banker's rule a table's options give (see the module's docstring)."""
    draws_to = getattr(rules, "banker_draws_to", None)
    stands_on = getattr(rules, "banker_stands_on", None)
    if draws_to is not None:
        return BankerRule(int(draws_to))
    if stands_on is not None:
        return BankerRule(int(stands_on))
    return BankerRule()


def best_total(totals: list[int]) -> int | None:
    """The best total of a view's ``totals`` (the highest not over 21, else the lowest), or None if hidden."""
    if not totals:
        return None
    good = [t for t in totals if t <= 21]
    return max(good) if good else min(totals)
