"""Baccarat's settled coup in one line, for the demo's terminal (the registry's ``terminal`` part), and in a few
for `tablectl replay` (its ``replay`` part).

``coup 7: player 2S KD 5D (7) banker 3H 4C (7): TIE; box 1 banker 100 push; box 3 tie 10 pays 80; house -80``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from controller.money import dealer_words, house_text, money
from controller.round import VOID_REASON_TEXT, Round

from . import settlement as pay
from .coup import Coup, SpotHand
from .tableau import points


class BaccaratTerminal:
    """Baccarat's coup lines."""

    def round_line(self, r: Round, dealer_title: str = "Banker") -> str:
        """One line for a settled coup: both hands and their points, the result, every bet, the house's result."""
        assert isinstance(r, Coup)
        void = ""
        if r.voided:
            void = f" (VOID: {VOID_REASON_TEXT[r.void_reason]})" if r.void_reason is not None else " (VOID)"
        p, b = r.punto.cards, r.banco.cards
        result = r.record.get("result")
        parts = [f"coup {r.number}{void}: player {' '.join(c.code for c in p)} ({points([c.value for c in p])}) "
                 f"banker {' '.join(c.code for c in b)} ({points([c.value for c in b])})"
                 + (f": {str(result).upper()}" if result else "")]
        for box in r.boxes:
            for h in box.hands:
                assert isinstance(h, SpotHand)
                words = f"box {box.number} {h.spot} {money(h.stake)} {dealer_words(h.net or 0)}"
                if h.commission:
                    words += f" (commission {money(h.commission)}{' owed' if h.owed else ''})"
                parts.append(words)
        parts.append(f"house {house_text(-r.net())}")
        return "; ".join(parts)


    def record_lines(self, record: Mapping[str, Any]) -> list[str]:
        """A settled coup as `tablectl replay` prints it (the registry's ``replay`` part,
        `controller.replay_cli.ReplayPart`): both hands, their points and the result, then each spot's bet and net
        (the player's: what the house pays is the round's last line), commission taken or owed."""
        p, b = record["player_hand"], record["dealer"]
        lines = [f"Player   {' '.join(p['cards']):<22} {p['total']:>3}",
                 f"Banker   {' '.join(b['cards']):<22} {b['total']:>3}"]
        result = record.get("result")
        if result:
            lines.append(f"Player {p['total']}, Banker {b['total']}: " + RESULT_WORDS.get(str(result), str(result)))
        for h in record["hands"]:
            commission = ""
            if h.get("commission"):
                commission = f"  commission {h['commission']}{' owed' if h.get('commission_owed') else ''}"
            # (a bet no player was named for is the box's own: "box3" says nothing the line does not)
            who = f"  ({h['player']})" if h.get("player") and h["player"] != f"box{h['box']}" else ""
            lines.append(f"box {h['box']:<4} {SPOT_WORDS.get(h['spot'], h['spot']):<12} bet {h['bet']:>6}  "
                         f"{h['outcome'] or '':<5} net {_signed(h['net'])}{commission}{who}")
        return lines


RESULT_WORDS = {"player": "Player wins", "banker": "Banker wins", "tie": "Tie"}
SPOT_WORDS = {pay.PLAYER: "Player", pay.BANKER: "Banker", pay.TIE: "Tie", pay.PLAYER_PAIR: "Player pair",
              pay.BANKER_PAIR: "Banker pair", pay.DRAGON7: "Dragon 7", pay.PANDA8: "Panda 8"}
"""A spot as the layout names it (a spot of another name reads as recorded)."""


def _signed(amount: str) -> str:
    """A player's net as the replay says it: ``+25``, ``-10``, ``0``."""
    value = Decimal(amount)
    return "0" if value == 0 else (f"+{amount}" if value > 0 else amount)


TERMINAL = BaccaratTerminal()
