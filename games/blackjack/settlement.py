"""Pure blackjack settlement: the dealer's drawing rule, what each hand is paid, original bet only.

Nothing here changes anything: each function answers from the round and the rules,
and the engine applies the answer. Every payout of the rules is written here once.
"""

from __future__ import annotations

from controller.hand import BoxInPlay, GameOutcome, Hand, Outcome
from controller.round import Round

from .outcomes import BlackjackOutcome
from .rules import DealerBlackjackTakes, Peek, RuleProfile

# Amounts are whole cents; rules.md's "Money, to the cent" keeps every payout below exact.
HandResult = tuple[Hand, GameOutcome, int]
InsuranceResult = tuple[BoxInPlay, int]


# ---------------------------------------------------------------------------- the dealer
def dealer_must_draw(dealer: Hand, rules: RuleProfile) -> bool:
    """The dealer's drawing rule: he draws on 16 or less and stands on 17 or more.

    rules.md: the dealer stands on soft 17 (A-6, A-5-A) in every built-in profile; a house that
    hits soft 17 sets ``dealer_hits_soft17``.
    """
    total = dealer.total
    return total < 17 or (total == 17 and rules.dealer_hits_soft17 and dealer.soft == 17)


def dealer_needs_card(r: Round, rules: RuleProfile) -> bool:
    """Whether the dealer takes another card now.

    rules.md, shared: he draws only while a bet still depends on his hand; when the only bets
    left waiting are player blackjacks and insurance, he takes his second card and stops there.
    """
    dealer = r.dealer
    second = len(dealer.cards) >= 2
    if second and not dealer_must_draw(dealer, rules):
        return False
    waiting_bj = False
    for box in r.boxes:
        if box.insurance is not None and box.insurance_net is None:
            waiting_bj = True
        for hand in box.hands:
            if hand.outcome is None:
                if not hand.is_blackjack:
                    return True  # a live hand: he draws by his rule
                waiting_bj = True
    # Only blackjacks and insurance wait: his second card settles them, and he stops there.
    return waiting_bj and not second


def dealer_peeks(up: int, rules: RuleProfile) -> bool:
    """A hole-card dealer checks for blackjack before play on this up card (ace = 1)."""
    if not rules.hole_card:
        return False
    peek = rules.peek
    return (peek is Peek.ACE and up == 1) or (peek is Peek.ACE_TEN and up in (1, 10))


def blackjack_may_come(r: Round) -> bool:
    """The dealer may still make blackjack: an ace or ten up that no peek has cleared."""
    return r.dealer.cards[0].value in (1, 10) and not r.peeked


# ---------------------------------------------------------------------------- payouts
def blackjack_net(stake: int, rules: RuleProfile) -> int:
    """A blackjack's win: the stake times ``blackjack_pays`` (3:2 in every built-in profile)."""
    num, den = rules.blackjack_parts
    return stake * num // den


def surrender_net(stake: int) -> int:
    """A surrendered hand keeps half its stake."""
    return -(stake // 2)


def insurance_net(amount: int, dealer_blackjack: bool) -> int:
    """Insurance pays 2:1 on a dealer blackjack and is lost otherwise."""
    return amount * 2 if dealer_blackjack else -amount


def settled_at_once(hand: Hand, rules: RuleProfile) -> tuple[GameOutcome, int] | None:
    """What a hand that has just taken a card is paid at once, if anything: a bust or three sevens.

    rules.md, shared: over 21 loses at once. ru-standard (decided): a box's first three cards all
    sevens are paid 3:1, or 5:1 when of one suit, on the original hand only, settled at once.
    """
    if hand.hard > 21:
        return BlackjackOutcome.BUST, -hand.stake
    cards = hand.cards
    if (rules.three_sevens and len(cards) == 3 and not hand.from_split
            and cards[0].rank == cards[1].rank == cards[2].rank == "7"):
        suited = cards[0].suit == cards[1].suit == cards[2].suit
        num, den = rules.three_sevens_suited_parts if suited else rules.three_sevens_parts
        return BlackjackOutcome.THREE_SEVENS, hand.stake * num // den
    return None


# ---------------------------------------------------------------------------- the round
def settle_round(r: Round, rules: RuleProfile) -> tuple[list[HandResult], list[InsuranceResult]]:
    """The result of every hand and insurance still open, once the dealer has finished."""
    dealer = r.dealer
    dealer_bj = dealer.is_blackjack
    insurance = [(box, insurance_net(box.insurance, dealer_bj))
                 for box in r.boxes if box.insurance is not None and box.insurance_net is None]
    if dealer_bj:
        return against_dealer_blackjack(r, rules), insurance
    dealer_total = dealer.total if dealer.hard <= 21 else 0
    results: list[HandResult] = []
    for box in r.boxes:
        for hand in box.hands:
            if hand.settled:
                continue
            if hand.is_blackjack:
                results.append((hand, BlackjackOutcome.BLACKJACK, blackjack_net(hand.stake, rules)))
            else:
                total = hand.total
                if total > dealer_total:
                    results.append((hand, Outcome.WIN, hand.stake))
                elif total == dealer_total:
                    results.append((hand, Outcome.PUSH, 0))
                else:
                    results.append((hand, Outcome.LOSE, -hand.stake))
    return results, insurance


def original_bet_only(r: Round, rules: RuleProfile) -> bool:
    """A dealer blackjack takes only the original bets: after a peek, or by ``dealer_bj_takes``."""
    return r.peeked or rules.dealer_bj_takes is DealerBlackjackTakes.ORIGINAL


def against_dealer_blackjack(r: Round, rules: RuleProfile) -> list[HandResult]:
    """Every open hand against a dealer blackjack: blackjacks push, the rest lose.

    rules.md: by default ("lose all") doubles and splits lose too. Original bet only
    (decided): the box loses at most its original bet in all, busted hands counted first,
    and the rest comes back.
    """
    original_only = original_bet_only(r, rules)
    results: list[HandResult] = []
    for box in r.boxes:
        can_lose = box.bet - sum(-h.net for h in box.hands if h.outcome is BlackjackOutcome.BUST and h.net is not None)
        for hand in box.hands:
            if hand.settled:
                continue
            if hand.is_blackjack:
                results.append((hand, Outcome.PUSH, 0))
            elif not original_only:
                results.append((hand, Outcome.LOSE, -hand.stake))
            else:
                loss = min(hand.stake, max(can_lose, 0))
                can_lose -= loss
                results.append((hand, Outcome.LOSE if loss else Outcome.PUSH, -loss))
    return results
