"""The club-21 banker's best play from what he can see: draw another card, or stand (issue 27, part 4).

A real banker does not stand at a fixed total. When his turn comes he sees his own cards (he
draws face up), the bottom card, every card turned since the pack was shuffled (each settled
round is shown, and so is each box's two-card 21), and, for each box still in play, how many
cards it holds. He never sees a box's closed cards. :func:`decide` gives the draw or stand that
maximises his expectation from that sight alone, under a stated model of how the players draw:

* **The boxes.** A box that holds ``n`` cards is taken to have played ``players``' rule (by
  default the simulator's sighted ``below-17``: draw while the best total is below 17): its
  total is the distribution of the totals of ``n``-card hands that the rule stops at exactly
  ``n`` cards, the cards drawn without replacement from the cards the banker has not seen,
  less the two-card 21s (a natural is shown at once). A count the rule cannot produce (a box
  that stood where the rule draws) falls back to any ``n`` cards. A split or doubled pair's
  face-up cards are known; a doubled pair's one card after them is any card.
* **The approximations** (stated, because the exact posterior of several closed hands sharing
  one pack is not worth its cost): the boxes are independent of each other, each drawn from the
  whole unseen pack; the banker's next card is drawn from the unseen pack (which still holds
  the boxes' closed cards), depleted by his own draws; and the boxes' totals are not revised by
  the cards he draws while he looks ahead (they are at his next decision, which is made afresh).
* **The payoffs** (rules.md, club-21, settlement): banker at 21 or less, a box over 21 or lower
  loses its stake, a higher one wins 1:1, equal totals push (``ties=banker``: the banker wins
  them); banker over 21, a box at 21 or less is paid ``banker_bust_pays`` (2:1) and a box over
  21 takes its stake back. Each box counts by its stake.
* **The house's binding rules** are obeyed: below ``banker_draws_to`` he draws, at or above
  ``banker_stands_on`` he stands, on 21 or over he stops, and he cannot draw from a spent pack.

A small dynamic programme over the banker's cards (each of his draws taken from the unseen
pack, without replacement) then compares standing now with drawing and playing on at best.
Everything here is pure and cached: the same sight gives the same decision at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from controller.cards import ALL_CARDS, PACK_RANKS

if TYPE_CHECKING:
    from controller.game import TableOps
    from ..club.game import ClubHand
    from .rules import Club21Rules

BUST = 22  # a total over 21, as one outcome: what it is no longer matters
# A multiset of card values as one int key: 5 bits a value (at most 31 of one value in a hand, or drawn by the
# banker), the ace's lowest. Value v (1..10) is index v - 1.
_BITS = 5
_MASK = (1 << _BITS) - 1
_SHIFTS = tuple(_BITS * i for i in range(10))
_STEPS = tuple(1 << shift for shift in _SHIFTS)


class DrawRule(Protocol):
    """How a box draws: another card at ``card_count`` cards and best ``total``? (Hashable: decisions are cached.)"""

    def draws(self, card_count: int, total: int | None = None) -> bool:
        """Does the box take another card?"""
        ...  # pragma: no cover

    def __hash__(self) -> int:
        """A rule is part of a cached decision's key."""
        ...  # pragma: no cover


@dataclass(frozen=True, slots=True)
class SightedPlayers:
    """The players' model for the croupier's advice: each box draws while its best total is below ``draw_below``
    (the simulator's sighted rule, ``below-17``: a seated player looks at his own cards)."""

    draw_below: int = 17

    def draws(self, card_count: int, total: int | None = None) -> bool:
        """Another card while the best total is below ``draw_below``."""
        return total is not None and total < self.draw_below


ADVICE_PLAYERS = SightedPlayers(17)


@dataclass(frozen=True, slots=True)
class BoxSight:
    """One hand still in play against the banker, as he sees it.

    ``card_count``: the cards it holds; ``stake``: what rides on it (any unit, the same for every box);
    ``shown``: the values of its face-up cards, in order (a split or doubled pair shows its pair; a plain
    hand none); ``natural_possible``: an original hand, whose two-card 21 would have been shown (a split
    hand's is no natural); ``capped``: a doubled pair, whose card after the pair was its only one.
    """

    card_count: int
    stake: int
    shown: tuple[int, ...] = ()
    natural_possible: bool = True
    capped: bool = False


@dataclass(frozen=True, slots=True)
class BankerTerms:
    """What settles the banker's hand and what binds him, from the table's options (``terms_of``)."""

    ties_banker: bool = False
    bust_pays: tuple[int, int] = (2, 1)
    draws_to: int | None = None
    stands_on: int | None = None


@dataclass(frozen=True, slots=True)
class BankerSight:
    """Everything the banker's decision rests on: what he can see, and nothing closed.

    ``unseen``: by value 1..10 (index 0 is the ace), the cards he has not seen: the pack still to deal and
    every closed card on the table; ``banker``: the values of his own cards; ``boxes``: the hands in play
    against him; ``cards_left``: the cards the pack still holds (he cannot draw on a spent pack).
    """

    unseen: tuple[int, ...]
    banker: tuple[int, ...]
    boxes: tuple[BoxSight, ...]
    cards_left: int


@dataclass(frozen=True, slots=True)
class Decision:
    """The banker's best play: ``draw`` or stand, with his expectation each way, in stake units (+ the house's).

    ``draw_value`` is None where he may not draw; ``bound`` says he had no choice (he must draw below
    ``banker_draws_to``, or may not draw: on 21, at ``banker_stands_on``, on a spent pack).
    """

    draw: bool
    stand_value: float
    draw_value: float | None
    bound: bool


def best_total(hard: int, has_ace: bool) -> int:
    """The total a hand plays at: an ace counts 11 where that does not pass 21; over 21 is ``BUST``."""
    if hard > 21:
        return BUST
    return hard + 10 if has_ace and hard <= 11 else hard


# ---------------------------------------------------------------------------- the boxes' totals
def box_totals(unseen: tuple[int, ...], players: DrawRule, box: BoxSight) -> tuple[tuple[int, float], ...]:
    """The distribution of the box's total (2..21, or ``BUST``) given what the banker sees of it.

    Its closed cards are drawn without replacement from ``unseen``; the hand took each of them because
    ``players``' rule drew, and stopped at ``card_count`` because it stood (see the module's docstring).
    Empty only if ``unseen`` cannot hold the box's closed cards.
    """
    return _box_totals(unseen, players, box.card_count, box.shown, box.natural_possible, box.capped)


@lru_cache(maxsize=4096)
def _box_totals(unseen: tuple[int, ...], players: DrawRule, n: int, shown: tuple[int, ...], natural_possible: bool,
                capped: bool) -> tuple[tuple[int, float], ...]:
    found = _totals(unseen, players, n, shown, natural_possible, capped, follow_rule=True)
    if not found:  # the rule cannot explain the count (a box stood where it draws): any n cards
        found = _totals(unseen, players, n, shown, natural_possible, capped, follow_rule=False)
    mass = sum(found.values())
    return tuple(sorted((total, p / mass) for total, p in found.items())) if mass > 0 else ()


def _totals(unseen: tuple[int, ...], players: DrawRule, n: int, shown: tuple[int, ...], natural_possible: bool,
            capped: bool, follow_rule: bool) -> dict[int, float]:
    """Unnormalised P(total, and the hand holds exactly ``n`` cards) over its closed cards, layer by layer: each
    layer maps the closed cards drawn so far (a multiset, as a key) to its chance and the hand's hard total."""
    start = len(shown)
    ace0 = 1 in shown
    pool = sum(unseen)
    draws: dict[tuple[int, int], bool] = {}  # the rule, asked once per (cards, total)
    found: dict[int, float] = {}
    layer: dict[int, tuple[float, int, bool]] = {0: (1.0, sum(shown), ace0)}
    for k in range(start, n + 1):  # k: the cards the hand holds in this layer
        following: dict[int, tuple[float, int, bool]] = {}
        left = pool - (k - start)
        for key, (mass, hard, ace) in layer.items():
            total = hard + 10 if ace and hard <= 11 else (hard if hard <= 21 else BUST)
            if k == 2 and total == 21 and natural_possible:
                continue  # a natural is shown and settled at once: this box holds none
            if k >= 2 and (follow_rule or k < n):
                rule = draws.get((k, total))
                if rule is None:
                    rule = draws[(k, total)] = players.draws(k, total)
            else:
                rule = True
            if k == n:
                if capped or not follow_rule or not rule:
                    found[total] = found.get(total, 0.0) + mass
                continue
            if follow_rule and not rule:
                continue  # it would have stood here, with fewer cards than it holds
            for i in range(10):
                have = unseen[i] - ((key >> _SHIFTS[i]) & _MASK)
                if have > 0:
                    child = key + _STEPS[i]
                    p = mass * have / left
                    old = following.get(child)
                    following[child] = (p + old[0], old[1], old[2]) if old else (p, hard + i + 1, ace or i == 0)
        layer = following
    return found


# ---------------------------------------------------------------------------- the banker's hand
def _stand_values(unseen: tuple[int, ...], players: DrawRule, boxes: tuple[BoxSight, ...],
                  terms: BankerTerms) -> tuple[float, ...]:
    """The banker's expectation standing on each total 0..21, and over 21 (index ``BUST``), in stake units."""
    num, den = terms.bust_pays
    out = [0.0] * (BUST + 1)
    for box in boxes:
        dist = box_totals(unseen, players, box)
        if not dist:
            continue
        stake = box.stake
        over = sum(p for total, p in dist if total == BUST)
        out[BUST] -= stake * (1.0 - over) * num / den  # he passed 21: a box at 21 or less is paid 2:1
        for banker in range(BUST):
            value = over  # a box over 21 loses to a banker at 21 or less
            for total, p in dist:
                if total == BUST:
                    continue
                if total < banker or (total == banker and terms.ties_banker):
                    value += p
                elif total > banker:
                    value -= p
            out[banker] += stake * value
    return tuple(out)


@lru_cache(maxsize=4096)
def decide(sight: BankerSight, terms: BankerTerms, players: DrawRule = ADVICE_PLAYERS) -> Decision:
    """The banker's best play from ``sight`` under ``terms``, the boxes taken to play ``players``' rule."""
    unseen = sight.unseen
    stand = _stand_values(unseen, players, sight.boxes, terms)
    over = stand[BUST]
    pool = sum(unseen)
    last = min(sight.cards_left, pool)  # he may draw while drawn < last
    stands_on = min(terms.stands_on, 21) if terms.stands_on is not None else 21  # never a card on 21
    draws_to = terms.draws_to if terms.draws_to is not None else 0
    drawn_counts = [0] * 10
    memo: dict[int, float] = {}

    def drawing(key: int, hard: int, ace: bool, drawn: int) -> float:
        """His expectation if he draws one more card now and plays on at best."""
        acc = 0.0
        for i in range(10):
            have = unseen[i] - drawn_counts[i]
            if have <= 0:
                continue
            if hard + i + 1 > 21:
                acc += have * over  # (an ace counts 1 in ``hard``: past 21 hard is past 21)
                continue
            drawn_counts[i] += 1
            acc += have * value(key + _STEPS[i], hard + i + 1, ace or i == 0, drawn + 1)
            drawn_counts[i] -= 1
        return acc / (pool - drawn)

    def value(key: int, hard: int, ace: bool, drawn: int) -> float:
        """His best expectation holding this hand (``key``: the cards he has drawn since the decision)."""
        got = memo.get(key)
        if got is not None:
            return got
        total = hard + 10 if ace and hard <= 11 else hard
        if total >= stands_on or drawn >= last:
            got = stand[total]
        else:
            draw = drawing(key, hard, ace, drawn)
            got = draw if total < draws_to else max(stand[total], draw)
        memo[key] = got
        return got

    hard0 = sum(sight.banker)
    total = best_total(hard0, 1 in sight.banker)
    standing = stand[total]
    if total >= stands_on or last <= 0:
        return Decision(False, standing, None, bound=True)
    draw = drawing(0, hard0, 1 in sight.banker, 0)
    if total < draws_to:
        return Decision(True, standing, draw, bound=True)
    return Decision(draw > standing, standing, draw, bound=False)


# ---------------------------------------------------------------------------- from the table
def terms_of(rules: Club21Rules) -> BankerTerms:
    """The settlement and the binding rules the banker plays under at this table."""
    return BankerTerms(ties_banker=rules.ties.value == "banker", bust_pays=rules.banker_bust_parts,
                       draws_to=rules.banker_draws_to, stands_on=rules.banker_stands_on)


def pack_by_value(rules: Club21Rules) -> list[int]:
    """The whole pack (``decks`` packs of ``pack`` cards) by value 1..10 (index 0 the ace)."""
    counts = [0] * 10
    ranks = PACK_RANKS[rules.pack]
    for card in ALL_CARDS:
        if card.rank in ranks:
            counts[rules.values[card.index] - 1] += rules.decks
    return counts


def _box_sight(hand: ClubHand) -> BoxSight:
    values = hand.values
    shown: list[int] = []
    for card, up in zip(hand.cards, hand.up):
        if not up:
            break
        shown.append(values[card.index])
    return BoxSight(len(hand.cards), hand.stake, tuple(shown), natural_possible=not hand.from_split,
                    capped=hand.doubled and len(hand.cards) > 2)


def sight_of(t: TableOps, memory: str = "pack") -> BankerSight | None:
    """What the croupier, as banker, can see at a club-21 table in his turn (phase ``dealer``), or None.

    Read from the table without a closed card: a card counts as seen when it left the shoe and is not
    face down now (``memory="pack"``: every card since the shuffle, as each settled round was shown;
    ``"round"``: only the bottom card and this round's face-up cards, a banker who does not count).
    """
    from controller.phase import Phase  # (the table's phase: read only)
    from ..club.game import ClubRound, closed_cards

    r = t.round
    shoe = t.shoe
    if t.phase is not Phase.DEALER or not isinstance(r, ClubRound) or shoe is None:
        return None
    rules: Club21Rules = t.rules  # type: ignore[assignment]  # a club-21 table's rules
    values = rules.values
    unseen = pack_by_value(rules)
    if memory == "pack":
        seen = list(shoe.counts)
        for card in closed_cards(r):
            seen[card.index] -= 1
        for card in ALL_CARDS:
            unseen[values[card.index] - 1] -= seen[card.index]
    else:
        shown = [c for box in r.club_boxes for h in box.club_hands for c, up in zip(h.cards, h.up) if up]
        shown += r.banker.cards
        if shoe.bottom is not None:
            shown.append(shoe.bottom)
        for card in shown:
            unseen[values[card.index] - 1] -= 1
    boxes = tuple(_box_sight(h) for box in r.club_boxes for h in box.open_hands())
    banker = tuple(values[c.index] for c in r.banker.cards)
    return BankerSight(tuple(max(0, n) for n in unseen), banker, boxes, max(0, shoe.size - shoe.dealt))


def advice(t: TableOps, players: DrawRule = ADVICE_PLAYERS) -> bool | None:
    """In the banker's turn at a club-21 table: True to draw, False to stand; None when there is nothing to
    advise (not his turn, or no box left for his hand to decide). Reads only what he can see (``sight_of``)."""
    sight = sight_of(t)
    if sight is None or not sight.boxes:
        return None
    rules: Club21Rules = t.rules  # type: ignore[assignment]  # a club-21 table's rules (sight_of checked the round)
    return decide(sight, terms_of(rules), players).draw
