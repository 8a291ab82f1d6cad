"""What a blackjack player's decision may be, where it stands: every check returns a Refusal or None.

Checks never change anything (python-chess's ``is_legal`` before ``push``): `Blackjack` asks them
before it applies a decision, and the table asks them before it journals one.
"""

from __future__ import annotations

from controller.cards import Card
from controller.hand import BoxInPlay, Hand
from controller.legality import Action, GameAction, Refusal
from controller.money import money
from controller.phase import PLAY, Phase
from controller.round import DEALER, Round

from .actions import BlackjackAction
from .rules import DoubleRule, InsuranceAmount, RuleProfile, SplitBy, SurrenderRule

# Refusals whose words never change are made once: the checks run on every decision.
_NO_DOUBLE_ON_SPLIT_ACES = Refusal("double_not_allowed", "split aces take one card only: no double")
_NO_RESPLIT_OF_ACES = Refusal("split_limit", "split aces may not be split again at this table")
_DOUBLE_FIRST_TWO_ONLY = Refusal("double_not_allowed", "double only on the first two cards of a hand")
_NO_DOUBLE_AFTER_SPLIT = Refusal("double_not_allowed", "no double after a split at this table")
_NO_DOUBLING = Refusal("double_not_allowed", "no doubling at this table")
_SPLIT_TWO_CARDS_ONLY = Refusal("split_not_allowed", "split only a pair of two cards")
_NO_SURRENDER_HERE = Refusal("surrender_not_allowed", "surrender is not offered at this table")
_SURRENDER_WINDOW_CLOSED = Refusal("surrender_closed", "surrender is closed: a player has already drawn a card")
_SURRENDER_FIRST_DECISION_ONLY = Refusal("surrender_not_allowed", "surrender only as the box's first decision on two cards")
_NO_SURRENDER_V_ACE = Refusal("surrender_not_allowed", "no surrender against a dealer ace")
_INSURANCE_NOT_OFFERED = Refusal("insurance_closed", "insurance is offered only against a dealer ace, before play")
_INSURANCE_WHOLE_CENTS = Refusal("bad_amount", "insurance is an amount in whole cents")
_EVEN_MONEY_NOT_OFFERED = Refusal("even_money_closed", "even money is offered only on a blackjack against a dealer ace")
_INSURANCE_NOT_OPEN = Refusal("insurance_closed", "insurance is not open")


def money_half(cents: int) -> str:
    """Half an amount, as the dealer is told it."""
    return money(cents // 2) if cents % 2 == 0 else f"half of {money(cents)}"


# ---------------------------------------------------------------------------- split aces
# rules.md: split aces get exactly one card each; if that card is another ace it may be split
# again where the rules allow (ru: yes; us-holecard and single-deck-enhc: no). A split-aces hand
# never doubles, and one holding a second ace waits for the decision: split again or stand.

def is_pair_of_aces(hand: Hand) -> bool:
    """A split of this hand is a split of aces."""
    return hand.cards[0].value == 1


def awaiting_resplit(hand: Hand) -> bool:
    """A split ace that drew another ace, still in play: it splits again or stands, no card."""
    return hand.split_aces and len(hand.cards) == 2


def split_aces_complete(hand: Hand, card: Card, rules: RuleProfile) -> bool:
    """A split ace is complete with its one card, unless that card is an ace it may split again."""
    return not (card.value == 1 and rules.resplit_aces and len(hand.own_box.hands) < rules.max_hands)


def split_aces_refusal(hand: Hand, rules: RuleProfile, what: str) -> Refusal | None:
    """What split aces may not do: double, or split again where the rules say no."""
    if not hand.split_aces:
        return None
    if what == "double":
        return _NO_DOUBLE_ON_SPLIT_ACES
    if not rules.resplit_aces:
        return _NO_RESPLIT_OF_ACES
    return None


def hand_complete(hand: Hand, card: Card, rules: RuleProfile) -> bool:
    """Whether a hand that has just taken ``card`` (and was not settled by it) takes no more.

    rules.md, shared: a hand on 21 is complete; a double takes exactly one card; split aces above.
    """
    if hand.split_aces:
        return split_aces_complete(hand, card, rules)
    return hand.doubled or hand.total == 21


# ---------------------------------------------------------------------------- whose turn
def next_card(r: Round, phase: Phase) -> str | None:
    """Who takes the next card in this phase: 'box N', 'dealer', or None when none is expected.

    The one definition of where a card goes: the deal plan while dealing, the hand in turn while
    it may take one, the dealer in his turn.
    """
    if phase is Phase.DEALING:
        target = r.plan[r.dealt]
        return "dealer" if target == DEALER else f"box {r.boxes[target].number}"
    if phase in PLAY:
        return None if awaiting_resplit(r.hand) else f"box {r.boxes[r.box_i].number}"
    if phase is Phase.DEALER:
        return "dealer"
    return None


def turn_refusal(phase: Phase, r: Round | None, what: str) -> Refusal | None:
    """A decision needs a hand in turn that is not waiting for a card."""
    if phase not in PLAY or r is None:
        return Refusal("not_players_turn", f"cannot {what} now: no hand is in play ({phase.value})")
    hand = r.hand
    if len(hand.cards) < 2:
        return Refusal("needs_card", f"cannot {what}: the split hand needs its second card first")
    if hand.doubled:
        return Refusal("needs_card", f"cannot {what}: the doubled hand takes exactly one more card")
    return None


# ---------------------------------------------------------------------------- double
_DOUBLE_TOTALS = {
    DoubleRule.NINE_TO_ELEVEN: (9, 10, 11),
    DoubleRule.TEN_OR_ELEVEN: (10, 11),
    DoubleRule.ELEVEN: (11,),
    DoubleRule.NONE: (),
}


def _describe(hand: Hand) -> str:
    soft = hand.soft
    return f"soft {soft}" if soft is not None else f"hard {hand.hard}"


def double_refusal(hand: Hand, rules: RuleProfile) -> Refusal | None:
    """May this hand double (its first two cards, the table's double rule, after a split)?"""
    if len(hand.cards) != 2:
        return _DOUBLE_FIRST_TWO_ONLY
    refusal = split_aces_refusal(hand, rules, "double")
    if refusal is not None:
        return refusal
    if hand.from_split and not rules.double_after_split:
        return _NO_DOUBLE_AFTER_SPLIT
    rule = rules.double
    if rule is not DoubleRule.ANY:
        # Restricted doubling counts hard totals only: a soft hand cannot double.
        if hand.soft is not None or hand.hard not in _DOUBLE_TOTALS[rule]:
            if rule is DoubleRule.NONE:
                return _NO_DOUBLING
            return Refusal("double_not_allowed", f"double only on a hard {rule.value}; this hand is {_describe(hand)}")
    return None


# ---------------------------------------------------------------------------- split
def _is_pair(a: Card, b: Card, rules: RuleProfile) -> bool:
    """Two cards a box may split, by the table's rule (equal ranks, or equal values: a ten and a king)."""
    return a.rank == b.rank if rules.split_by is SplitBy.RANK else a.value == b.value


def split_refusal(hand: Hand, rules: RuleProfile) -> Refusal | None:
    """May this hand split (a pair by the table's rule, under the hand limit)?"""
    cards = hand.cards
    if len(cards) != 2:
        return _SPLIT_TWO_CARDS_ONLY
    a, b = cards
    if not _is_pair(a, b, rules):
        what = "rank" if rules.split_by is SplitBy.RANK else "value"
        return Refusal("split_unequal", f"{a.code} and {b.code} are not a pair of equal {what}")
    if len(hand.own_box.hands) >= rules.max_hands:
        return Refusal("split_limit", f"a box may play at most {rules.max_hands} hands")
    return split_aces_refusal(hand, rules, "split")


# ---------------------------------------------------------------------------- surrender
def _unplayed_two_cards(box: BoxInPlay) -> bool:
    hand = box.hands[0]
    return len(box.hands) == 1 and len(hand.cards) == 2 and not hand.done


def may_surrender_early(box: BoxInPlay) -> bool:
    """A box that may still surrender: one unsplit two-card hand not yet played.

    A blackjack is never surrendered (decided): it is paid, or waits done, before play.
    """
    return not box.acted and _unplayed_two_cards(box)


def surrendering_box(r: Round, number: int | None) -> BoxInPlay | None:
    """The box a surrender names: ``number``, or the box in turn."""
    return r.boxes[r.box_i] if number is None else r.box(number)


def surrender_refusal(phase: Phase, r: Round | None, rules: RuleProfile, number: int | None) -> Refusal | None:
    """May this box (or the box in turn) surrender now, under the table's surrender rule?"""
    mode = rules.surrender
    if mode is SurrenderRule.NONE:
        return _NO_SURRENDER_HERE
    if phase not in PLAY or r is None:
        return Refusal("surrender_closed", f"cannot surrender now ({phase.value})")
    if mode is SurrenderRule.BEFORE_FIRST_HIT:
        # ru-surrender: a table-wide window after the deal, closed once anyone has drawn.
        if r.anyone_drew:
            return _SURRENDER_WINDOW_CLOSED
        box = surrendering_box(r, number)
        if box is None:
            return Refusal("no_such_box", f"box {number} has no bet in this round")
        if not may_surrender_early(box):
            return Refusal("surrender_not_allowed",
                           f"box {box.number} cannot surrender: only a two-card hand not yet played")
        return None
    box = r.boxes[r.box_i]
    if number is not None and number != box.number:
        return Refusal("not_your_turn", f"it is box {box.number}'s turn, not box {number}'s")
    if not may_surrender_early(box):
        return _SURRENDER_FIRST_DECISION_ONLY
    if mode is SurrenderRule.EARLY_VS_2_10 and r.dealer.cards[0].value == 1:
        return _NO_SURRENDER_V_ACE
    return None


# ---------------------------------------------------------------------------- insurance
def _even_money_box(box: BoxInPlay) -> bool:
    hand = box.hands[0]
    return hand.is_blackjack and not hand.settled


def insurance_opens(r: Round, rules: RuleProfile) -> bool:
    """After the deal against a dealer ace: is an insurance phase opened?

    rules.md, Points decided: with insurance off, no insurance phase opens unless a box may take
    even money.
    """
    if r.dealer.cards[0].value != 1:
        return False
    return rules.insurance or (rules.even_money and any(_even_money_box(b) for b in r.boxes))


def _insurance_box(r: Round | None, number: int) -> tuple[Refusal | None, BoxInPlay | None]:
    box = r.box(number) if r is not None else None
    if box is None:
        return Refusal("no_such_box", f"box {number} has no bet in this round"), None
    return None, box


def insure_refusal(phase: Phase, r: Round | None, rules: RuleProfile, number: int,
                   amount: int | None) -> Refusal | None:
    """May this box insure this amount (in cents; None: a fraction of a cent) now?"""
    if phase is not Phase.INSURANCE or not rules.insurance:
        return _INSURANCE_NOT_OFFERED
    refusal, box = _insurance_box(r, number)
    if box is None:
        return refusal
    if rules.even_money and box.hands[0].is_blackjack:
        # Where even money is offered it is a blackjack's insurance; where it is not
        # (single-deck-enhc, 004: "on each box") a blackjack insures like any other box.
        return Refusal("insurance_not_allowed", f"box {box.number} has blackjack: it may take even money")
    if box.insurance is not None:
        return Refusal("insurance_not_allowed", f"box {box.number} is already insured")
    half = money_half(box.bet)
    if amount is None:
        return _INSURANCE_WHOLE_CENTS
    if amount * 2 > box.bet:
        return Refusal("insurance_too_large", f"insurance is at most half the bet: {half} on box {box.number}")
    if rules.insurance_amount is InsuranceAmount.HALF and amount * 2 != box.bet:
        return Refusal("insurance_not_half", f"insurance is exactly half the bet here: {half} on box {box.number}")
    return None


def even_money_refusal(phase: Phase, r: Round | None, rules: RuleProfile, number: int) -> Refusal | None:
    """May this box take even money now?"""
    if phase is not Phase.INSURANCE or not rules.even_money:
        return _EVEN_MONEY_NOT_OFFERED
    refusal, box = _insurance_box(r, number)
    if box is None:
        return refusal
    if not _even_money_box(box):
        return Refusal("even_money_not_allowed", f"box {box.number} has no blackjack to take even money on")
    return None


def close_insurance_refusal(phase: Phase) -> Refusal | None:
    """Insurance can be closed only while it is open."""
    if phase is not Phase.INSURANCE:
        return _INSURANCE_NOT_OPEN
    return None


# ---------------------------------------------------------------------------- what is offered
def _insurance_actions(r: Round, rules: RuleProfile) -> list[GameAction]:
    actions: list[GameAction] = []
    if rules.insurance and any(box.insurance is None and not (rules.even_money and box.hands[0].is_blackjack)
                               for box in r.boxes):
        actions.append(BlackjackAction.INSURANCE)
    if rules.even_money and any(_even_money_box(box) for box in r.boxes):
        actions.append(BlackjackAction.EVEN_MONEY)
    actions.append(BlackjackAction.CLOSE_INSURANCE)
    return actions


def legal_actions(phase: Phase, r: Round | None, rules: RuleProfile) -> list[GameAction]:
    """The decisions the table may take now: the hand in turn's, or those the insurance phase offers."""
    if phase not in PLAY or r is None:
        return _insurance_actions(r, rules) if phase is Phase.INSURANCE and r is not None else []
    hand = r.hand
    if len(hand.cards) < 2 or hand.doubled:
        return []  # the hand waits for a card: a split hand's second, or a double's one
    actions: list[GameAction] = [Action.STAND]
    if not awaiting_resplit(hand):
        actions.append(Action.HIT)
    if double_refusal(hand, rules) is None:
        actions.append(Action.DOUBLE)
    # The pair is tested first: most hands are not one, and split_refusal would word its refusal for nothing.
    cards = hand.cards
    if _is_pair(cards[0], cards[1], rules) and split_refusal(hand, rules) is None:
        actions.append(Action.SPLIT)
    if surrender_refusal(phase, r, rules, None) is None:
        actions.append(Action.SURRENDER)
    return actions
