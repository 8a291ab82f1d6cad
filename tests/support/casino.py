"""A second, independent generator of casino procedures, to test game protection against (issue 38).

Written apart from ``simulators/shuffles.py`` and the benchmark (it imports nothing of the project but
card codes at its edge), so a detector is measured on shoes its authors' own model did not make:

* a shoe is **played as rounds** at a table of one to seven occupied boxes, European style (the
  dealer's second card comes after the players'), players hitting to a threshold of their own,
  doubling 10 and 11, splitting aces and eights (so a box may hold two hands), a burn card or not;
* the cards are **gathered** into the discard tray as a dealer may: from third base or from first base,
  the dealer's hand first or last, a split box's hands as they lie or in the order they were played
  (``Gathering``); burnt cards first; the tray may be **turned over** before it is shuffled, and the
  cards left behind the cut card go on top of it or under it;
* the pile is then **shuffled**: fairly; falsely, a **slug** of 14 or 20 consecutive cards of the tray
  (or of the dealt order) kept together, as it lay or turned over, and put where it will be dealt; by 1
  to 3 **riffles** done as a dealer does with a six-deck pile (split in two, grabs of about half a deck
  from each half riffled together, packets of one to four cards falling); by a **strip** (packets of 4
  to 15 off the top); or by a **zone shuffle** (the A/B grab shuffle: a grab from each half riffled,
  stripped and riffled again, the zones in order), or deck by deck (``zone-kept``: each 52 cards mixed on their
  own, the decks in order). Every shuffle but the slug's ends with a **player's
  cut** at a random place (15 % to 85 % of the shoe) and the cut card placed where the rules put it.

What the table knows of a shoe is ``TableRecord``: the cards read in order, the burnt cards, each
round's hands in table order (box 1 up, a split box's hands in playing order, the dealer's last) and
each hand's box: the same facts the engine books (``controller.protection.shoes.ShoeCards``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.cards import Card, parse_card

RANKS, SUITS = "A23456789TJQK", "SHDC"


def _value(code: str) -> int:
    rank = code[0]
    return 1 if rank == "A" else 10 if rank in "TJQK" else int(rank)


def _total(cards: Sequence[str]) -> int:
    hard = sum(_value(c) for c in cards)
    return hard + 10 if hard <= 11 and any(c[0] == "A" for c in cards) else hard


def new_shoe(rng: random.Random, decks: int = 6) -> list[str]:
    """``decks`` packs, fairly mixed (the generator's own: a draw without replacement, card by card)."""
    cards = [r + s for r in RANKS for s in SUITS] * decks
    return [cards.pop(rng.randrange(len(cards))) for _ in range(len(cards))]


@dataclass
class Hand:
    """One hand on the layout: its box (0: the dealer's) and its cards in the order they were dealt."""

    box: int
    cards: list[str] = field(default_factory=list)
    doubled: bool = False


@dataclass
class PlayedShoe:
    """A shoe as it was played: its order, the cut card, the burn, the rounds (hands in table order, dealer last)."""

    order: list[str]
    cut_card: int  # cards dealt before the cut card comes out
    burnt: list[str]
    rounds: list[list[Hand]]
    dealt: list[str]  # every card read, in order: the burn, then the rounds'

    @property
    def rest(self) -> list[str]:
        """The cards never dealt (behind the cut card and after the last round)."""
        return self.order[len(self.dealt):]


def play(order: list[str], rng: random.Random, *, cut_card: int, burn: int = 0, boxes: Sequence[int] = (1, 2, 3, 4, 5),
         thresholds: dict[int, int] | None = None) -> PlayedShoe:
    """Deal ``order`` as rounds at the occupied ``boxes`` until the round in which the cut card came out ends.

    European: a card to each box, one to the dealer, a second to each box; each box plays (split a pair of
    aces or eights once, double on 10 or 11, hit below its own threshold), then the dealer draws to 17.
    """
    thresholds = thresholds or {b: rng.choice((12, 13, 15, 16, 17)) for b in boxes}
    at = 0

    def draw() -> str:
        nonlocal at
        at += 1
        return order[at - 1]

    burnt = [draw() for _ in range(burn)]
    rounds: list[list[Hand]] = []
    while at < cut_card and at + 40 < len(order):
        hands = [Hand(b) for b in boxes]
        dealer = Hand(0)
        for hand in hands:
            hand.cards.append(draw())
        dealer.cards.append(draw())
        for hand in hands:
            hand.cards.append(draw())
        played: list[Hand] = []
        for hand in hands:
            first, second = hand.cards
            if first[0] == second[0] and first[0] in "A8":  # split once: each hand takes its second card
                other = Hand(hand.box, [second])
                hand.cards = [first, draw()]
                other.cards.append(draw())
                split = [hand, other]
            else:
                split = [hand]
            for h in split:
                if len(split) > 1 and h.cards[0][0] == "A":
                    continue  # split aces take one card each
                if _total(h.cards) in (10, 11) and h.cards[0][0] != "A":
                    h.cards.append(draw())  # doubled: one card
                    h.doubled = True
                    continue
                while _total(h.cards) < thresholds[h.box]:
                    h.cards.append(draw())
            played += split
        if any(_total(h.cards) <= 21 for h in played):
            while _total(dealer.cards) < 17:
                dealer.cards.append(draw())
        rounds.append(played + [dealer])
    return PlayedShoe(order, cut_card, burnt, rounds, order[:at])


# ------------------------------------------------------------------ gathering the discards
@dataclass(frozen=True)
class Gathering:
    """How the dealer picks the hands up into the tray.

    ``from_third_base``: from the dealer's right (the last box) to his left, else from first base;
    ``dealer_first``: the dealer's own hand before the players', else after; ``split_as_played``: a split
    box's two hands in the order they were played whatever the direction, else as they lie (the first
    played on the dealer's left); ``turned``: the tray turned over before the shuffle.
    """

    from_third_base: bool = True
    dealer_first: bool = False
    split_as_played: bool = False
    turned: bool = False

    @property
    def name(self) -> str:
        """A short name for a test's or the benchmark's line."""
        side = "third base" if self.from_third_base else "first base"
        words = [f"dealer first, {side}" if self.dealer_first else f"{side} first"]
        if self.split_as_played:
            words.append("splits as played")
        if self.turned:
            words.append("turned over")
        return ", ".join(words)


ALL_GATHERINGS = tuple(Gathering(third, dealer, split, turned) for turned in (False, True) for third in (True, False)
                       for dealer in (False, True) for split in (False, True))


def tray(shoe: PlayedShoe, how: Gathering) -> list[str]:
    """The discards in the order they went into the tray (the first at the bottom), as ``how`` gathers them."""
    out = list(shoe.burnt)
    for hands in shoe.rounds:
        *players, dealer = hands
        boxes: dict[int, list[Hand]] = {}
        for hand in players:
            boxes.setdefault(hand.box, []).append(hand)
        order = sorted(boxes, reverse=how.from_third_base)
        gathered: list[Hand] = []
        for box in order:
            its = boxes[box]
            gathered += its if how.split_as_played or not how.from_third_base else its[::-1]
        gathered = [dealer, *gathered] if how.dealer_first else [*gathered, dealer]
        for hand in gathered:
            out += hand.cards
    return out


def pile(shoe: PlayedShoe, how: Gathering, rng: random.Random) -> tuple[list[str], list[str]]:
    """The pile the dealer shuffles (the first card of the list is the one that would be dealt first) and the
    tray as it lies in it: the tray, turned over or not, with the cards left in the shoe on top or under it."""
    discards = tray(shoe, how)
    laid = discards[::-1] if how.turned else discards
    rest = shoe.rest
    return (rest + laid if rng.random() < 0.5 else laid + rest), laid


# ------------------------------------------------------------------ shuffles, as a dealer does them
def _drop(left: list[str], right: list[str], rng: random.Random) -> list[str]:
    """Riffle two packets together: packets of one to four cards fall from alternate sides (a dealer's hands)."""
    out: list[str] = []
    i = j = 0
    side = rng.random() < 0.5
    while i < len(left) or j < len(right):
        n = rng.choice((1, 1, 1, 2, 2, 3, 4))
        if side and i < len(left) or j >= len(right):
            out += left[i:i + n]
            i += n
        else:
            out += right[j:j + n]
            j += n
        side = not side
    return out


def riffle_pass(cards: list[str], rng: random.Random) -> list[str]:
    """One riffle of a six-deck pile: split near the middle, grabs of 20 to 32 cards from the top of each half
    riffled together, each riffled grab put on the new pile (so the grabs come out in the order taken)."""
    cut = len(cards) // 2 + rng.randint(-12, 12)
    left, right = cards[:cut], cards[cut:]
    out: list[str] = []
    while left or right:
        a, b = rng.randint(20, 32), rng.randint(20, 32)
        out += _drop(left[:a], right[:b], rng)
        left, right = left[a:], right[b:]
    return out


def strip(cards: list[str], rng: random.Random) -> list[str]:
    """One strip: packets of 4 to 15 cards off the top, each put on the new pile (their order reversed)."""
    packets: list[list[str]] = []
    i = 0
    while i < len(cards):
        n = rng.randint(4, 15)
        packets.append(cards[i:i + n])
        i += n
    return [c for p in reversed(packets) for c in p]


def zone_shuffle(cards: list[str], rng: random.Random) -> list[str]:
    """The A/B grab shuffle: the pile split in two; a grab of 22 to 30 cards from each half riffled, stripped,
    split and riffled again, and put on the new pile; zone after zone (the cards stay in their zone)."""
    cut = len(cards) // 2 + rng.randint(-8, 8)
    left, right = cards[:cut], cards[cut:]
    out: list[str] = []
    while left or right:
        a, b = rng.randint(22, 30), rng.randint(22, 30)
        zone = _drop(left[:a], right[:b], rng)
        left, right = left[a:], right[b:]
        zone = strip(zone, rng)
        half = len(zone) // 2 + rng.randint(-3, 3)
        out += _drop(zone[:half], zone[half:], rng)
    return out


def zone_kept(cards: list[str], rng: random.Random) -> list[str]:
    """Deck by deck: each 52 cards of the pile mixed on their own (four riffles, a strip between), the decks kept
    in order: every card stays in its zone however well each zone is mixed (what shuffle trackers follow)."""
    out: list[str] = []
    for start in range(0, len(cards), 52):
        deck = cards[start:start + 52]
        for i in range(4):
            half = len(deck) // 2 + rng.randint(-3, 3)
            deck = _drop(deck[:half], deck[half:], rng)
            if i == 1:
                deck = strip(deck, rng)
        out += deck
    return out


def player_cut(cards: list[str], rng: random.Random) -> list[str]:
    """A player cuts the shoe at a random place, 15 % to 85 % in: the cards above go under."""
    at = rng.randint(round(0.15 * len(cards)), round(0.85 * len(cards)))
    return cards[at:] + cards[:at]


def false_slug(cards: list[str], source: list[str], size: int, rng: random.Random, *, turned: bool,
               deal_by: int) -> tuple[list[str], int]:
    """A false shuffle: ``size`` consecutive cards of ``source`` (the tray, or the dealt order) kept as a block
    (turned over or not), the rest mixed; the block put where its last card is dealt by card ``deal_by``.
    Returns the new order and where the block starts in it (0-based)."""
    start = rng.randrange(len(source) - size + 1)
    block = source[start:start + size]
    rest = list(cards)
    for card in block:
        rest.remove(card)
    rest = [rest.pop(rng.randrange(len(rest))) for _ in range(len(rest))]
    if turned:
        block = block[::-1]
    at = rng.randint(8, deal_by - size)
    return rest[:at] + block + rest[at:], at


# ------------------------------------------------------------------ a trial: two shoes, as the table sees them
@dataclass
class TableRecord:
    """What the table books of a shoe (controller.protection.shoes.ShoeCards's facts), as Cards."""

    dealt: list[Card]
    burnt: list[Card]
    rounds: list[list[list[Card]]]  # each round's hands in table order, the dealer's last
    boxes: list[list[int]]  # each hand's box (0: the dealer's), as ``rounds``


def record(shoe: PlayedShoe) -> TableRecord:
    """The table's record of a played shoe."""
    return TableRecord([parse_card(c) for c in shoe.dealt], [parse_card(c) for c in shoe.burnt],
                       [[[parse_card(c) for c in h.cards] for h in hands] for hands in shoe.rounds],
                       [[h.box for h in hands] for hands in shoe.rounds])


@dataclass
class Trial:
    """A previous shoe and the new one after a procedure: what the table saw of both, and where a slug lies."""

    kind: str
    previous: TableRecord
    new: TableRecord
    slug_at: int | None = None  # 0-based position in the new shoe of a slug's first card
    slug_size: int = 0
    previous_shoe: PlayedShoe | None = None
    new_shoe: PlayedShoe | None = None


KINDS = ("fair", "slug:14", "slug:20", "riffle:1", "riffle:2", "riffle:3", "strip", "zone", "zone-kept")


def trial(kind: str, rng: random.Random, *, decks: int = 6, how: Gathering | None = None,
          slug_from_dealt: bool = False, slug_turned: bool | None = None, cut: bool = True,
          cut_zone: tuple[int, int] = (200, 220), boxes: int | None = None) -> Trial:
    """A previous shoe played at a table of ``boxes`` occupied boxes (of seven; None: one to seven, at random),
    gathered ``how`` (random when None), and the new shoe after ``kind`` (``KINDS``), played to its cut card.
    ``cut``: the player's cut after a riffle, strip or zone; ``cut_zone``: the cards dealt before the cut card, in
    a 312-card shoe (ru-standard's 200 to 220), scaled to ``decks``."""
    how = how or rng.choice(ALL_GATHERINGS)
    scale = decks * 52 / 312
    zone = (round(cut_zone[0] * scale), round(cut_zone[1] * scale))

    def table_boxes() -> list[int]:
        return sorted(rng.sample(range(1, 8), boxes or rng.randint(1, 7)))

    first = play(new_shoe(rng, decks), rng, cut_card=rng.randint(*zone), burn=rng.choice((0, 1)), boxes=table_boxes())
    gathered, laid = pile(first, how, rng)
    slug_at = None
    size = 0
    if kind == "fair":
        order = new_shoe(rng, decks)
    elif kind.startswith("slug:"):
        size = int(kind.partition(":")[2])
        source = first.dealt[len(first.burnt):] if slug_from_dealt else tray(first, how)
        turned = rng.random() < 0.5 if slug_turned is None else slug_turned
        order, slug_at = false_slug(gathered, source, size, rng, turned=turned, deal_by=zone[0] - 10)
    else:
        order = list(gathered)
        if kind.startswith("riffle:"):
            for _ in range(int(kind.partition(":")[2])):
                order = riffle_pass(order, rng)
        elif kind == "strip":
            order = strip(order, rng)
        elif kind == "zone":
            order = zone_shuffle(order, rng)
        elif kind == "zone-kept":
            order = zone_kept(order, rng)
        else:
            raise ValueError(f"no such procedure {kind!r}: one of {', '.join(KINDS)}")
        if cut:
            order = player_cut(order, rng)
    # the burn is the new order's first card: a slug's place counts it, as the shoe numbers its cards
    second = play(order, rng, cut_card=rng.randint(*zone), burn=rng.choice((0, 1)), boxes=table_boxes())
    return Trial(kind, record(first), record(second), slug_at, size, first, second)


# ------------------------------------------------------------------ as a recorded shoe sequence (docs/session-format.md)
def recorded_shoes(shoes: Sequence[PlayedShoe], *, rules: str = "ru-standard", start: str = "2026-12-01T20:00:00+00:00",
                   bet: str = "10", players: dict[int, str] | None = None) -> list[str]:
    """The shoes as a recorded shoe sequence (`tablectl journal import`): a header, then one line per shoe with the
    cards it read and its rounds: shuffled at ``start``, a round a minute after it, five minutes for each shuffle;
    the cut card where it came out."""
    import json
    from datetime import datetime, timedelta

    at = datetime.fromisoformat(start)
    lines = [json.dumps({"recorded": "shoes", "version": 1, "rules": rules, "source": "tests/support/casino.py"})]
    for n, shoe in enumerate(shoes, 1):
        shuffled_at = at
        rounds = []
        for hands in shoe.rounds:
            at += timedelta(minutes=1)
            *boxes, dealer = hands
            by_box: dict[int, list[Hand]] = {}
            for hand in boxes:
                by_box.setdefault(hand.box, []).append(hand)
            rounds.append({"at": at.isoformat(), "dealer": dealer.cards, "boxes": [
                {"box": box, "bet": bet, **({"player": players[box]} if players and box in players else {}),
                 "hands": [h.cards for h in its], "doubled": [h.doubled for h in its]}
                for box, its in sorted(by_box.items())]})
        cut = shoe.cut_card if shoe.cut_card <= len(shoe.dealt) else None
        lines.append(json.dumps({"shoe": f"S{n}", "at": shuffled_at.isoformat(),
                                 "cards": shoe.dealt, **({"cut_card": cut} if cut else {}), "rounds": rounds}))
        at += timedelta(minutes=5)  # the shuffle
    return lines
