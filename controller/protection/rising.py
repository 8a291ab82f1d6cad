"""Rising sequences: a riffled shoe is a few runs of the previous order dealt interleaved.

After K Gilbert–Shannon–Reeds riffles the new order is at most 2^K packets of the pile (each a
block of consecutive cards, in order) interleaved: every card but a packet's first is the card
that *followed*, in the pile, the packet's card dealt last. Relative to the pile the new order has
at most 2^K rising sequences (8 for three riffles), where a random 312-card order has about 156.
Three things blur that in a shoe: six copies of each card (a card dealt maps to any of its copies
in the previous order), only the dealt part is seen (and only the dealt part of the previous shoe
is known: its last quarter lies in an unknown order), and the pile's order is reconstructed from
the rounds (``discards``), so the dealt order is followed too.

**The forecaster.** Before each card it gives every card still in the shoe a chance

    (1 - beta) * fair(c) + beta * share(c)

* ``fair(c)``: copies of c left / cards left, the chance of c under a fair shuffle, exactly;
* ``share(c)``: the weight of the open sequences whose next card is c, over all open weight. An
  open sequence (a *head*) is a position in the reference; the card it expects next is the one
  that follows that position. A card that continues heads moves the heaviest of them one
  position on, at full weight (a rising sequence confirmed); a card that continues none may start
  a sequence at any of its copies in the reference, so each copy opens a head at ``SPAWN`` /
  copies (the copies share the doubt). Weights fade by ``DECAY`` a card, and only the ``CAP``
  heaviest heads are kept: a riffle's packets each give a card every few cards, a stale head is
  a guess that did not come true;
* ``beta``: the share of the cards so far that continued a head (Krichevsky–Trofimov,
  (hits + 1/2) / (cards + 1)): about 3 in 4 after three riffles, little on a fair shoe.

**The evidence** is the likelihood ratio of the forecaster against a fair shuffle: the product over
the dealt cards of forecast(card) / fair(card). Whatever the forecaster does, it uses only the cards
already dealt, so under a fair shuffle that product is a non-negative martingale with mean 1, and
by Ville's inequality it ever reaches 1/alpha with chance at most alpha: **p = min(1, 1 / its
highest value)** is a valid p-value, exactly, for any cut, make-up, reference or shoe length,
without an approximation to be wrong in its tail. Several references (the discard orders of each
pick-up, the dealt order, each turned over too: ``quality.shuffle_quality``): the average of their
ratios is again such a martingale, at a cost of at most a factor of the number of references. DECAY, SPAWN and CAP change only the power, never the null; they were
chosen on riffles of 3 and 4 (docs/protection.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from controller.cards import Card

DECAY = 0.98  # a head's weight per card it waits: a packet of 16 (four riffles) gives a card about every 16
SPAWN = 0.5  # the weight a card that continues nothing gives the sequences it may start, shared by its copies
CAP = 32  # heads kept: enough for 16 packets and their doubtful copies, few enough to keep the forecast sharp


@dataclass(frozen=True, slots=True)
class RisingEvidence:
    """What the forecaster found: the evidence (log10 of the highest likelihood ratio), its p-value and its hits.

    ``log10_final``: log10 of the ratio after the last card (its mean, not its log's, is 1 under a
    fair shuffle); ``continued``: per reference, how many dealt cards continued an open sequence.
    """

    log10_ratio: float
    p: float
    cards: int
    log10_final: float
    continued: tuple[int, ...]


class _Forecaster:
    """The open sequences against one reference order (see the module's docstring)."""

    def __init__(self, reference: Sequence[Card]) -> None:
        codes = [card.index for card in reference]
        # the card that follows each position; a head at the last position expects nothing
        self.follower = codes[1:]
        self.copies: dict[int, list[int]] = {}
        for j in range(len(self.follower)):  # heads only where a card follows
            self.copies.setdefault(codes[j], []).append(j)
        # position -> weight / DECAY^t (t: the card's number): fading every head each card is then free
        self.heads: dict[int, float] = {}
        self.hits = 0
        self.log_ratio = 0.0  # natural log

    def see(self, t: int, card: int, fair: float, left: Sequence[int], scale: float) -> None:
        """Forecast card ``t`` (the ``card`` that came, ``fair`` its fair chance), then move the heads on."""
        follower = self.follower
        open_weight = on_card = 0.0
        best, best_weight = -1, 0.0
        for position, weight in self.heads.items():
            expected = follower[position]
            if left[expected] <= 0:
                continue  # every copy of the card it expects is out: it forecasts nothing
            open_weight += weight
            if expected == card:
                on_card += weight
                if weight > best_weight:
                    best, best_weight = position, weight
        if open_weight > 0:
            beta = (self.hits + 0.5) / (t + 1)
            self.log_ratio += math.log(1 - beta + beta * on_card / (open_weight * fair))
        heads = self.heads
        if best >= 0:
            self.hits += 1
            del heads[best]
            if best + 1 < len(follower):
                heads[best + 1] = scale  # weight 1 now
        else:
            copies = self.copies.get(card, ())
            for position in copies:
                heads[position] = max(heads.get(position, 0.0), SPAWN * scale / len(copies))
        if len(heads) > CAP:
            for position in sorted(heads, key=heads.__getitem__)[:len(heads) - CAP]:
                del heads[position]


def rising_sequences(dealt: Sequence[Card], references: Sequence[Sequence[Card]],
                     counts: Sequence[int]) -> RisingEvidence | None:
    """The evidence that ``dealt`` is a few rising sequences of one of the ``references`` interleaved.

    ``counts``: the shoe's make-up (``quality.composition``). None with no reference or no card.
    A card the make-up has no copy left of ends the forecast there (not a shoe of this make-up).
    """
    forecasters = [_Forecaster(reference) for reference in references if len(reference) > 1]
    if not forecasters or not dealt:
        return None
    left = list(counts)
    cards_left = sum(left)
    best = mixed = 0.0  # log of the averaged ratio at its highest, and now; 0 before any card
    seen = 0
    for t, card in enumerate(dealt):
        code = card.index
        if cards_left <= 0 or left[code] <= 0:
            break
        fair = left[code] / cards_left
        scale = DECAY ** -t  # a shoe is a few hundred cards: far from overflowing (0.98^-500 is about 25,000)
        for forecaster in forecasters:
            forecaster.see(t, code, fair, left, scale)
        left[code] -= 1
        cards_left -= 1
        seen += 1
        top = max(f.log_ratio for f in forecasters)
        mixed = top + math.log(sum(math.exp(f.log_ratio - top) for f in forecasters) / len(forecasters))
        best = max(best, mixed)
    return RisingEvidence(best / math.log(10), math.exp(-best), seen, mixed / math.log(10),
                          tuple(f.hits for f in forecasters))
