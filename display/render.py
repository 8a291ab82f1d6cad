"""Pure rendering: from the table view to the text each 7-segment display shows.

Every function returns a text of exactly ``digits`` cells (see :mod:`display.glyphs`
for how a ``.`` folds into the cell before it), padded with blanks, using only
characters of the glyph table. What each state looks like is documented in
docs/display.md; the choices, in short:

* totals are right-aligned like a calculator; words from messages are centred;
* a soft total reads ``7-17`` ("7 or 17") until the hand is done, then its best total;
* a lit decimal point after a hand's text marks the hand in play (``17.``);
* when text does not fit, each state falls back through shorter forms it owns
  (``bUSt`` -> ``bU``, ``7-17`` -> ``17``); only as a last resort is the shortest
  form cut, from the right;
* a settled box shows what the dealer pays it (``P 15``), takes from it (``-20``) or
  neither (``PUSH``); the dealer's display shows the round's total the same way;
* the club games: a closed hand shows that it has cards and how many (``-- 3``), never a
  total; a settled box shows its total before the amount (``19 P 10``); a closed banker
  shows ``--`` and his card count; the bank's balance (``b 500``) sits left of his total;
  the advice to the banker in his turn (club-21, where the house turns it on) too: ``hIt 16``,
  ``StAnd 18``, or nothing where it does not fit beside the total (under 6 cells).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from display.glyphs import cell_count
from display.model import (
    BankerAdvice,
    BoxView,
    DealerView,
    Duel,
    HandOutcome,
    HandView,
    MessageScope,
    TableMessage,
    TableView,
)

DEALER_DISPLAY_ID = "dealer"
MIN_DIGITS = 2
MAX_DIGITS = 8

# Each message's forms, longest first; the last one is used next to a dealer total.
MESSAGE_TEXTS: dict[TableMessage, tuple[str, ...]] = {
    TableMessage.TABLE_STOPPED: ("StOPPEd", "StOP"),
    TableMessage.ATTENTION: ("Attn",),
    TableMessage.SHOE_FAULT: ("SHOE Err", "S.Err", "Err"),
    TableMessage.LINK_DOWN: ("LInE OFF", "LInE"),
    TableMessage.PIT_CALLED: ("CALL PIt", "CALL"),
    TableMessage.CUT_CARD_OUT: ("Cut CArd", "Cut"),
    TableMessage.SHUFFLE_DUE: ("ShuFFLE", "SHUF"),
    TableMessage.PLACE_BETS: ("bEtS",),
}

OUTCOME_TEXTS: dict[HandOutcome, tuple[str, str]] = {
    HandOutcome.WIN: ("PAId", "Pd"),
    HandOutcome.LOSE: ("LOSt", "Lo"),
    HandOutcome.PUSH: ("PUSH", "PU"),
}

# The advice to the banker, longest first: each form is at least three cells, so that the two words need the same
# room and neither is shown where the other could not be (a lone "S" would read as a 5).
ADVICE_TEXTS: dict[BankerAdvice, tuple[str, ...]] = {
    BankerAdvice.DRAW: ("hIt",),
    BankerAdvice.STAND: ("StAnd", "Std"),
}

NO_CARDS = "--"
CLOSED_MARK = "--"  # a closed hand: it has cards, its total is not told
BANK_MARK = "b"  # the bank's balance (club-21-36): b 500
IN_PLAY_MARK = "."
PAY_MARK = "P"  # "the dealer pays": P 15; a minus sign means he takes: -20


def amount_text(amount: Decimal) -> str:
    """An amount as the display writes it: ``15``, ``2.5``, ``1500`` (never an exponent)."""
    amount = abs(amount)
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


def payout_candidates(amount: Decimal, zero: Sequence[str] = ("PUSH", "PU")) -> list[str]:
    """A settled amount's texts, longest first: pay ``P 15``, take ``-20``, neither ``PUSH``.

    When the amount does not fit, the word remains (``PAId``, ``LOSt``), so a display
    never shows a number the dealer could misread as another amount.
    """
    if amount > 0:
        a = amount_text(amount)
        return [f"{PAY_MARK} {a}", f"{PAY_MARK}{a}", "PAId", "Pd"]
    if amount < 0:
        return [f"-{amount_text(amount)}", "LOSt", "Lo"]
    return list(zero)


def box_display_id(number: int) -> str:
    """The display id of box ``number`` (``"box1"``...), as drivers and the wiring name it."""
    return f"box{number}"


def display_ids(box_count: int) -> list[str]:
    """Every display id of a table with ``box_count`` boxes: boxes in order, then the dealer."""
    return [box_display_id(n) for n in range(1, box_count + 1)] + [DEALER_DISPLAY_ID]


def _check_digits(digits: int) -> None:
    if not MIN_DIGITS <= digits <= MAX_DIGITS:
        raise ValueError(f"digits must be in {MIN_DIGITS}..{MAX_DIGITS}, got {digits}")


def _cut(text: str, width: int) -> str:
    """The longest prefix of ``text`` that fits ``width`` cells (dots stay with their cell)."""
    for end in range(len(text), -1, -1):
        if cell_count(text[:end]) <= width:
            # Keep a dot that belongs to the last kept character.
            if end < len(text) and text[end] == "." and cell_count(text[: end + 1]) <= width:
                end += 1
            return text[:end]
    return ""  # pragma: no cover - the empty prefix always fits


def fit(candidates: Sequence[str], width: int) -> str:
    """The first candidate that fits ``width`` cells, else the last one cut to fit."""
    for text in candidates:
        if cell_count(text) <= width:
            return text
    return _cut(candidates[-1], width)


def pad_right_aligned(text: str, width: int) -> str:
    """``text`` right-aligned in exactly ``width`` cells."""
    return " " * (width - cell_count(text)) + text


def pad_centred(text: str, width: int) -> str:
    """``text`` centred in exactly ``width`` cells (an odd spare blank goes right)."""
    spare = width - cell_count(text)
    left = spare // 2
    return " " * left + text + " " * (spare - left)


def _total_forms(hard: int, soft: int | None, done: bool) -> list[str]:
    if soft is None:
        return [str(hard)]
    if done or soft == 21:
        return [str(soft)]
    return [f"{hard}-{soft}", str(soft)]


def hand_candidates(hand: HandView) -> list[str]:
    """A hand's texts, most informative first, without the in-play mark."""
    if hand.closed:
        # The count, so the croupier sees each card landed; the total stays a secret.
        return [f"{CLOSED_MARK} {hand.card_count}", f"{CLOSED_MARK}{hand.card_count}", CLOSED_MARK]
    if hand.surrendered:
        return ["SUrr", "Sr"]
    if hand.is_blackjack:
        return ["bJ"]
    if hand.is_bust:
        return ["bUSt", "bU"]
    if hand.card_count == 0:
        return [NO_CARDS]
    if hand.outcome is not None:
        word, short = OUTCOME_TEXTS[hand.outcome]
        return [f"{hand.best_total} {word}", word, short]
    totals = _total_forms(hand.hard_total, hand.soft_total, hand.done)
    if hand.doubled:
        return [f"d {t}" for t in totals] + [f"d{t}" for t in totals] + totals
    return totals


def render_hand(hand: HandView, width: int) -> str:
    """One hand in ``width`` cells (unpadded), with the in-play mark when it is in play."""
    text = fit(hand_candidates(hand), width)
    if hand.in_play and text:
        text += IN_PLAY_MARK
    return text


def _slot_widths(hands: Sequence[HandView], digits: int) -> list[int] | None:
    """Widths of the hands' slots separated by one blank, or None when that leaves < 2 each.

    Cells left over after an even split go to the hand in play (it is the one whose
    soft total matters now), else to the first hand.
    """
    n = len(hands)
    usable = digits - (n - 1)
    base, extra = divmod(usable, n)
    if base < 2:
        return None
    widths = [base] * n
    favoured = next((i for i, h in enumerate(hands) if h.in_play), 0)
    widths[favoured] += extra
    return widths


def render_box(box: BoxView, digits: int) -> str:
    """What a box's display shows, in exactly ``digits`` cells.

    Inactive: blank. Active without hands: ``--``. One hand: that hand right-aligned.
    Split hands: side by side in slots separated by a blank, first hand on the left;
    with too many hands for slots of two cells, slots of ``digits // n`` cells with
    no gap, and when even that is under two cells, the hand in play alone (or
    ``SPL<n>`` when no hand is in play).
    """
    _check_digits(digits)
    if not box.active:
        return " " * digits
    if box.payout is not None:
        pay = payout_candidates(box.payout)
        if box.settled_total is not None:
            # Shown at last (club games): the total first, then what to pay or take; the amount alone if both do not fit.
            pay = [f"{box.settled_total} {p}" for p in pay[:2]] + pay
        return pad_right_aligned(fit(pay, digits), digits)
    hands = box.hands
    if not hands:
        return pad_right_aligned(NO_CARDS, digits)
    if len(hands) == 1:
        return pad_right_aligned(render_hand(hands[0], digits), digits)
    widths = _slot_widths(hands, digits)
    if widths is not None:
        slots = [pad_right_aligned(render_hand(h, w), w) for h, w in zip(hands, widths)]
        return " ".join(slots)
    width = digits // len(hands)
    if width >= 2:
        slots = [pad_right_aligned(render_hand(h, width), width) for h in hands]
        return pad_right_aligned("".join(slots), digits)
    in_play = next((h for h in hands if h.in_play), None)
    if in_play is not None:
        return pad_right_aligned(render_hand(in_play, digits), digits)
    return pad_right_aligned(fit([f"SPL{len(hands)}", "SP"], digits), digits)


def duel_candidates(duel: Duel) -> list[str]:
    """Two hands' points, each after its mark (``P7 b6``; a hand with no card yet is left out), and once decided the
    result's mark after them (``P7 b6 P``); most informative first, down to four cells."""
    left = "" if duel.left_points is None else f"{duel.left}{duel.left_points}"
    right = "" if duel.right_points is None else f"{duel.right}{duel.right_points}"
    hands = [" ".join(x for x in (left, right) if x), left + right]
    if duel.result is None:
        return hands
    points = f"{duel.left_points if duel.left_points is not None else ''}-{duel.right_points if duel.right_points is not None else ''}"
    return [f"{h} {duel.result}" for h in hands] + [f"{points} {duel.result}", duel.result]


def dealer_candidates(dealer: DealerView) -> list[str]:
    """The dealer's texts, most informative first; empty before the deal."""
    if dealer.duel is not None:
        return duel_candidates(dealer.duel)
    if dealer.payout is not None:
        return payout_candidates(dealer.payout, zero=("0",))
    if dealer.card_count == 0:
        return [""]
    if dealer.closed:
        return [f"{CLOSED_MARK} {dealer.card_count}", f"{CLOSED_MARK}{dealer.card_count}", CLOSED_MARK]
    if dealer.hole_card_hidden:
        assert dealer.up_card is not None  # checked by DealerView
        soft = 11 if dealer.up_card == 1 else None
        return _total_forms(dealer.up_card, soft, done=False)
    if dealer.is_blackjack:
        return ["bJ"]
    if dealer.is_bust:
        return ["bUSt", "bU"]
    return _total_forms(dealer.hard_total, dealer.soft_total, dealer.done)


def render_message(message: TableMessage, digits: int) -> str:
    """A table message alone on a display of ``digits`` cells, centred."""
    _check_digits(digits)
    return pad_centred(fit(MESSAGE_TEXTS[message], digits), digits)


def render_dealer(dealer: DealerView, digits: int, message: TableMessage | None = None) -> str:
    """What the dealer's display shows, in exactly ``digits`` cells.

    A message of scope ALL replaces everything. A dealer-scope message is shown alone
    while the dealer has no cards; with cards, its short form sits on the left of the
    total when both fit with a blank between, else the total alone wins (the total is
    what the display is for). The advice to the banker sits there the same way when no
    message stands (a message is the more urgent: it takes the place first).
    """
    _check_digits(digits)
    if message is not None and message.scope is MessageScope.ALL:
        return render_message(message, digits)
    total = fit(dealer_candidates(dealer), digits)
    if message is None:
        if dealer.advice is not None:
            return _beside(ADVICE_TEXTS[dealer.advice], dealer_candidates(dealer), digits)
        if dealer.bank is not None and dealer.payout is None:
            return _with_bank(dealer.bank, dealer_candidates(dealer), digits)
        return pad_right_aligned(total, digits)
    if not total:
        return render_message(message, digits)
    short = MESSAGE_TEXTS[message][-1]
    gap = digits - cell_count(short) - cell_count(total)
    if gap >= 1:
        return short + " " * gap + total
    return pad_right_aligned(total, digits)


def _beside(words: Sequence[str], totals: Sequence[str], digits: int) -> str:
    """A word left of the hand's total when both fit with a blank between (the total in its most informative
    form that leaves room for a word, the word in its longest that fits), else the total alone."""
    for total in totals:
        for word in words:
            gap = digits - cell_count(word) - cell_count(total)
            if gap >= 1:
                return word + " " * gap + total
    return pad_right_aligned(fit(totals, digits), digits)


def _with_bank(bank: Decimal, totals: Sequence[str], digits: int) -> str:
    """The bank's balance left of the banker's hand when both fit with a blank between (each in its
    longest form that does), else the hand alone: it is what the display is for. No hand: the bank."""
    banks = [f"{BANK_MARK} {amount_text(bank)}", f"{BANK_MARK}{amount_text(bank)}"]
    if not any(totals):
        return pad_right_aligned(fit(banks + [BANK_MARK], digits), digits)
    for total in totals:
        for text in banks:
            gap = digits - cell_count(text) - cell_count(total)
            if gap >= 1:
                return text + " " * gap + total
    return pad_right_aligned(fit(totals, digits), digits)


def render_table(view: TableView, digits: int) -> dict[str, str]:
    """Every display's text: ``box1``..``boxN`` and ``dealer``, each ``digits`` cells."""
    _check_digits(digits)
    message = view.top_message
    texts: dict[str, str] = {}
    for box in view.boxes:
        if message is not None and message.scope is MessageScope.ALL:
            texts[box_display_id(box.number)] = render_message(message, digits)
        else:
            texts[box_display_id(box.number)] = render_box(box, digits)
    texts[DEALER_DISPLAY_ID] = render_dealer(view.dealer, digits, message)
    return texts

