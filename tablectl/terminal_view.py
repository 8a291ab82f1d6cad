"""The table drawn in a terminal for the demo: boxes, cards, totals, dealer, shoe, and each settled round.

Amounts are the house's: ``pays 15`` / ``takes 20`` for a box, ``house +5`` for a round
(the point of view the dealer's displays and the pit dashboard take too). The table is drawn from its
view, the same for every game; a settled round's line is the game's own (its registry part ``terminal``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controller.alerts import age_text
from controller.engine import Round

from .parts import terminal_part


def _totals(totals: list[int], done: bool = False) -> str:
    if not totals:
        return ""
    return str(max(totals)) if done else "/".join(str(t) for t in totals)


def round_line(r: Round, game: str, dealer_title: str = "Dealer") -> str:
    """One line for a settled round of ``game``, in the game's own words (its registry part ``terminal``): the
    dealer (``dealer_title``, the game's: `Game.dealer_title`), every hand with its marks, the house's result."""
    return terminal_part(game).round_line(r, dealer_title)


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
            flags = " ".join(f for f, on in (("BJ", hand.get("blackjack")), ("double", hand.get("doubled")),
                                             ("split", hand.get("split"))) if on)
            lines.append(f" {mark}box {box['box']}{'.' + str(i + 1) if len(box['hands']) > 1 else '  '}  "
                         f"{' '.join(hand['cards']):<24} {_totals(hand['totals'], hand['done']):<6} "
                         f"bet {hand['bet']:<5} {flags}")
    previous = table.previous
    if view["round"] is None and previous is not None:  # between rounds: the settled round stays on show
        lines.append("  last " + round_line(previous, table.rules.game, view["dealer_title"]))
    if view["alerts"]:
        lines.append("  open alerts:")
        lines.extend("    " + alert_line(alert, now) for alert in view["alerts"])
    return "\n".join(lines)
