"""The table drawn in a terminal for the demo: boxes, cards, totals, dealer, shoe, and each settled round.

Amounts are the house's: ``pays 15`` / ``takes 20`` for a box, ``house +5`` for a round
(the point of view the dealer's displays and the pit dashboard take too).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controller.alerts import age_text
from controller.engine import Round, money
from controller.hand import Hand, Outcome
from controller.round import VOID_REASON_TEXT


def _totals(totals: list[int], done: bool = False) -> str:
    if not totals:
        return ""
    return str(max(totals)) if done else "/".join(str(t) for t in totals)


def _house(amount: int) -> str:
    """A round's result for the house (cents), signed: +5, -15, 0."""
    text = money(amount)
    return text if amount <= 0 else "+" + text


def _dealer_words(amount: int) -> str:
    """What the dealer does with a box's money (cents): pays 15, takes 20, push."""
    if amount > 0:
        return f"pays {money(amount)}"
    if amount < 0:
        return f"takes {money(-amount)}"
    return "push"


# The club games' outcomes in their own words (the amount follows: pays / takes).
_CLUB_MARKS = {Outcome.NATURAL: "natural", Outcome.BANKER_BUST: "banker bust", Outcome.FOLD: "fold",
               Outcome.WITHDRAWN: "withdrawn", Outcome.RETURNED: "returned", Outcome.BUST: "bust",
               Outcome.SURRENDER: "surrender"}


def _is_club(r: Round) -> bool:
    """A club round (003): its hands know which of their cards are closed."""
    return hasattr(r.dealer, "closed")


def _marks(hand: Hand, club: bool = False) -> list[str]:
    if club:
        return ["double"] * hand.doubled + ([_CLUB_MARKS[hand.outcome]] if hand.outcome in _CLUB_MARKS else [])
    marks = []
    if hand.is_blackjack:
        marks.append("BJ")
    if hand.doubled:
        marks.append("double")
    if hand.outcome is Outcome.SURRENDER:
        marks.append("surrender")
    elif hand.outcome is Outcome.EVEN_MONEY:
        marks.append("even money")
    elif hand.outcome is Outcome.BUST:
        marks.append("bust")
    elif hand.outcome is Outcome.THREE_SEVENS:
        marks.append("three sevens")
    return marks


def _club_total(hand: Hand) -> str:
    """A club hand's total by its pack's values, or ``bust`` over 21."""
    return "bust" if hand.hard > 21 else str(hand.total)


def _duels(r: Round) -> bool:
    """A round of duels (club-21-36): each box keeps the banker's hand of its own duel."""
    return any(getattr(box, "banker", None) is not None for box in r.boxes)


def round_line(r: Round, dealer_title: str = "Dealer") -> str:
    """One line for a settled round: the dealer (``dealer_title``, the game's: `Game.dealer_title`), every
    hand with its marks, and the house's result.

    ``round 7: dealer AS KD (BJ); box 2 9H 9D split: 9H 2C double takes 20 | 9D TS pays 10;
    box 3 insured 5 pays 10; house +10``. In a round of duels each box shows the banker's cards of its
    own duel and their total (``box 1 9S TS vs banker KS 9H (19) takes 10``), never his cards of every
    duel run together; a void round says why (``round 8 (VOID: the pack ran out): ...``).
    """
    d = r.dealer
    club = _is_club(r)
    duels = _duels(r)
    title = dealer_title.lower()
    if club:
        dealer_total = _club_total(d)
    elif d.is_blackjack:
        dealer_total = "BJ"
    elif d.is_bust:
        dealer_total = "bust"
    else:
        dealer_total = str(d.total)
    void = ""
    if r.voided:
        reason = r.void_reason
        void = f" (VOID: {VOID_REASON_TEXT[reason]})" if reason is not None else " (VOID)"
    # A round of duels has no one hand of the banker's to head it: each duel shows its own below.
    parts = [f"round {r.number}{void}"] if duels else \
        [f"round {r.number}{void}: {title} {' '.join(c.code for c in d.cards)} ({dealer_total})"]
    for box in r.boxes:
        hands = []
        for hand in box.hands:
            net = hand.net if hand.net is not None else 0
            words = [" ".join(c.code for c in hand.cards), *_marks(hand, club), _dealer_words(net)]
            duel = getattr(box, "banker", None)  # club-21-36: the banker's hand in this box's duel
            if duel is not None and duel.cards:
                words.insert(1, f"vs {title} {' '.join(c.code for c in duel.cards)} ({_club_total(duel)})")
            hands.append(" ".join(w for w in words if w))
        text = f"box {box.number} " + (("split: " + " | ".join(hands)) if len(box.hands) > 1 else hands[0])
        if box.insurance is not None:
            text += f"; insured {money(box.insurance)} {_dealer_words(box.insurance_net or 0)}"
        if r.voided:
            text += " (void)"
        parts.append(text)
    parts.append(f"house {_house(-r.net())}")
    if duels:
        return parts[0] + ": " + "; ".join(parts[1:])
    return "; ".join(parts)


def _shoe_text(view: dict[str, Any], shoe: dict[str, Any]) -> str:
    """The shoe's figures the game has (``shoe_figures``): ``shoe S1 40/312 (13%)  CUT CARD OUT`` at
    blackjack, ``shoe S2 12/36 24 left  bottom card 9H shown`` at a club table."""
    figures = set(view["shoe_figures"])
    dealt, size = shoe.get("dealt", 0), shoe.get("size", 0)
    text = f"shoe {shoe.get('id', '-')} {dealt}/{size}"
    if "left" in figures:
        text += f" {size - dealt} left"
    if "penetration" in figures:
        text += f" ({100 * shoe.get('penetration', 0):.0f}%)"
    if "bottom_card" in figures and view.get("bottom_card"):
        text += f"  bottom card {view['bottom_card']} shown"
    if "cut_card" in figures and shoe.get("cut_card_out"):
        text += "  CUT CARD OUT"
    return text


def alert_line(alert: dict[str, Any], now: datetime) -> str:
    """One open alert as the terminal shows it: its level, its message and how long it has been open.

    ``action  the shoe is jammed (3 min 05 s)``; the level is ALERT_LEVEL's (notice, action, alarm), in
    capitals for an alarm, so the one that needs the pit stands out.
    """
    level = str(alert.get("level", ""))
    text = f"{level.upper() if level == 'alarm' else level:<6}  {alert['message']}"
    if alert.get("count", 1) > 1:
        text += f" (x{alert['count']})"
    raised = alert.get("raised_at")
    if raised:
        text += f" (open {age_text((now - datetime.fromisoformat(raised)).total_seconds())})"
    return text


def draw(view: dict[str, Any], table: Any, now: datetime) -> str:
    """Lines showing the table as a dealer sees it (the displays are drawn by their own driver).

    ``now`` is the service's clock: the open alerts' ages are counted from it.
    """
    shoe = view["shoe"] or {}
    lines = [
        f"round {view['round'] or view['rounds_played']:<5} phase {view['phase']:<20} {_shoe_text(view, shoe)}",
    ]
    d = view["dealer"]
    lines.append(f"  {view['dealer_title'].lower():<9}{' '.join(d['cards']):<24} {_totals(d['totals'])}")
    for box in view["boxes"]:
        if box.get("next_round"):
            lines.append(f"  box {box['box']}    bet {sum(float(v) for v in box['bets'].values()):g} for the next round")
            continue
        for i, hand in enumerate(box["hands"]):
            mark = ">" if hand["in_play"] else " "
            flags = " ".join(f for f, on in (("BJ", hand["blackjack"]), ("double", hand["doubled"]),
                                             ("split", hand["split"])) if on)
            lines.append(f" {mark}box {box['box']}{'.' + str(i + 1) if len(box['hands']) > 1 else '  '}  "
                         f"{' '.join(hand['cards']):<24} {_totals(hand['totals'], hand['done']):<6} "
                         f"bet {hand['bet']:<5} {flags}")
    previous = table.previous
    if view["round"] is None and previous is not None:  # between rounds: the settled round stays on show
        lines.append("  last " + round_line(previous, view["dealer_title"]))
    if view["alerts"]:
        lines.append("  open alerts:")
        lines.extend("    " + alert_line(alert, now) for alert in view["alerts"])
    return "\n".join(lines)
