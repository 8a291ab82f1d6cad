"""What the controller knows of the shoe: which cards have left it, and whether that is possible."""

from __future__ import annotations

from .cards import ALL_CARDS, PACK_RANKS, Card, pack_members


class ShoeTracker:
    """Counts the cards dealt from one shuffled shoe and checks them against its make-up.

    A card can never be refused (it exists once it has left the shoe), so an
    impossible card is reported as an integrity problem, not rejected. The make-up is
    ``decks`` packs of ``pack`` cards (52, or the club games' 36: six to ace); ``size`` is
    how many cards this load holds (the whole make-up, unless a pack is shuffled in while
    cards of the round are still on the table). In the club games the first card read after
    the shuffle may be the pack's bottom card (``bottom_due``, then ``bottom``); an ace there
    means the pack is shuffled again (``must_shuffle``).
    """

    __slots__ = ("shoe_id", "decks", "pack", "size", "dealt", "counts", "burned", "cut_card_out",
                 "cut_card_position", "repeats", "last_position", "members", "bottom", "bottom_due",
                 "must_shuffle")

    def __init__(self, shoe_id: str, decks: int, repeats: int = 0, pack: int = 52, size: int | None = None) -> None:
        self.shoe_id = shoe_id
        self.decks = decks
        self.pack = pack
        self.size = size if size is not None else pack * decks
        self.dealt = 0
        self.counts = [0] * 52  # by Card.index
        self.burned = 0
        self.cut_card_out = False
        self.cut_card_position: int | None = None
        self.repeats = repeats  # how many times this shuffle has been repeated on request
        self.last_position: int | None = None  # the highest position the shoe has reported a card at
        # Which cards belong to the pack, by Card.index (None: every card, a 52-card deck).
        self.members: tuple[bool, ...] | None = None if pack == 52 else pack_members(pack)
        self.bottom: Card | None = None
        self.bottom_due = False
        self.must_shuffle = False

    def position_problem(self, position: int, card: Card) -> tuple[str, bool] | None:
        """Check the shoe's count (1, 2, 3, ...): (the problem in words, whether the card went back), or None.

        A position skipped means cards the table never saw; a position already dealt means the
        shoe went back (an identical resend never gets here: the service drops it).
        """
        expected = (self.last_position or 0) + 1
        if position == expected:
            self.last_position = position
            return None
        if position > expected:
            missing = f"card {expected}" if position == expected + 1 else f"cards {expected} to {position - 1}"
            self.last_position = position
            return (f"{missing} of shoe {self.shoe_id} never reached the table: the shoe's count jumped "
                    f"from {expected - 1} to {position}"), False
        return (f"card {position} of shoe {self.shoe_id} came again ({card.code}) after the shoe had counted "
                f"{expected - 1}: the shoe went back"), True

    @property
    def spent(self) -> bool:
        """Every card of the shoe has been dealt."""
        return self.dealt >= self.size

    def in_pack(self, card: Card) -> bool:
        """The card belongs to this shoe's pack (a 2 to 5 does not belong to a 36-card pack)."""
        members = self.members
        return members is None or members[card.index]

    def take(self, card: Card) -> str | None:
        """Count a card out of the shoe; return an integrity problem in words, or None."""
        self.dealt += 1
        counts = self.counts
        n = counts[card.index] + 1
        counts[card.index] = n
        members = self.members
        if members is not None and not members[card.index]:
            return f"{card.code} is not a card of the {self.pack}-card pack of shoe {self.shoe_id}"
        if n > self.decks:
            return (f"{card.code} seen {n} times in shoe {self.shoe_id}, "
                    f"but {self.decks} deck(s) hold only {self.decks}")
        if self.dealt > self.size:
            return f"{self.dealt} cards dealt from shoe {self.shoe_id}, which holds only {self.size}"
        return None

    @property
    def by_code(self) -> dict[str, int]:
        """How many of each card have left the shoe (cards not seen left out), in card order."""
        return {card.code: n for card, n in zip(ALL_CARDS, self.counts) if n}

    @property
    def penetration(self) -> float:
        """Fraction of the shoe dealt."""
        return self.dealt / self.size

    def remaining_by_rank(self) -> dict[str, int]:
        """Cards of each rank of the pack still in the shoe (never below zero)."""
        ranks = PACK_RANKS[self.pack]
        seen = dict.fromkeys(ranks, 0)
        for card, n in zip(ALL_CARDS, self.counts):
            if card.rank in seen:
                seen[card.rank] += n
        full = 4 * self.decks
        return {r: max(0, full - seen[r]) for r in ranks}
