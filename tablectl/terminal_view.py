"""The table drawn in a terminal for the demo: boxes, cards, totals, dealer, shoe and displays."""

from __future__ import annotations

from typing import Any

from display.render import render_table

from .outputs import display_view


def _totals(totals: list[int]) -> str:
    return "/".join(str(t) for t in totals) if totals else ""


def draw(view: dict[str, Any], table: Any, digits: int = 8) -> str:
    """Lines showing the table as a dealer sees it, with what each 7-segment display shows."""
    shoe = view["shoe"] or {}
    lines = [
        f"round {view['round'] or view['rounds_played']:<5} phase {view['phase']:<20} "
        f"shoe {shoe.get('id', '-')} {shoe.get('dealt', 0)}/{shoe.get('size', 0)} "
        f"({100 * shoe.get('penetration', 0):.0f}%){'  CUT CARD OUT' if shoe.get('cut_card_out') else ''}",
    ]
    d = view["dealer"]
    lines.append(f"  dealer   {' '.join(d['cards']):<24} {_totals(d['totals'])}")
    for box in view["boxes"]:
        if box.get("next_round"):
            lines.append(f"  box {box['box']}    bet {sum(float(v) for v in box['bets'].values()):g} for the next round")
            continue
        for i, hand in enumerate(box["hands"]):
            mark = ">" if hand["in_play"] else " "
            outcome = f"{hand['outcome']} {hand['net']}" if hand["outcome"] else ""
            lines.append(f" {mark}box {box['box']}{'.' + str(i + 1) if len(box['hands']) > 1 else '  '}  "
                         f"{' '.join(hand['cards']):<24} {_totals(hand['totals']):<6} bet {hand['bet']:<5} {outcome}")
    last = view["last_round"]
    if view["round"] is None and last is not None:  # between rounds: the settled round stays on show
        lines.append(f"  last round {last['number']}: dealer {' '.join(last['dealer']['cards'])} "
                     f"({last['dealer']['total']})")
        for h in last["hands"]:
            lines.append(f"    box {h['box']}  {' '.join(h['cards']):<24} {h['outcome']:<12} {h['net']}")
    texts = render_table(display_view(table), digits)
    lines.append("  displays " + " ".join(f"{k}[{v}]" for k, v in texts.items()))
    for alert in view["alerts"]:
        lines.append(f"  ALERT {alert['kind']}: {alert['message']}")
    return "\n".join(lines)
