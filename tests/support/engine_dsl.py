"""A compact way to write sessions in tests: one short step per event.

`play("bet 1 10", "card TS", ...)` builds the JSON Lines session and runs it
through `replay_lines`, the same code path as `tablectl replay`. The club games'
steps: 'banker_stand', 'contra', 'recontra 2', 'double 2' (a box's double: on a
spent pack), 'fold 2', 'dark' / 'dark 2', 'withdraw 2', 'open_bank 500', 'close_bank', 'deal_in 2' (club-21-36),
'shuffle S2 36' (a shuffle with the shoe's card count).
"""

from __future__ import annotations

import json
from typing import Any

from controller.cards import ALL_CARDS, PACK_RANKS
from controller.replay import ReplayResult, replay_lines


def step(text: str) -> dict[str, Any]:
    """Translate one step, e.g. 'bet 1 10', 'card AS', 'ins 2 5', 'surrender 3', into an event."""
    word, *args = text.split()
    if word == "bet":
        d: dict[str, Any] = {"type": "bet", "box": int(args[0]), "amount": args[1]}
        if len(args) > 2:
            d["player"] = args[2]
        return d
    if word == "card":
        return {"type": "card", "card": args[0]}
    if word == "cards":
        raise ValueError("use cards() to expand several cards")
    if word == "ins":
        return {"type": "insurance", "box": int(args[0]), "amount": args[1]}
    if word == "even":
        return {"type": "even_money", "box": int(args[0])}
    if word == "surrender":
        return {"type": "surrender", **({"box": int(args[0])} if args else {})}
    if word == "shuffle":
        return {"type": "shuffle", **({"shoe_id": args[0]} if args else {}),
                **({"card_count": int(args[1])} if len(args) > 1 else {})}
    if word in ("double", "dark"):
        return {"type": word, **({"box": int(args[0])} if args else {})}
    if word in ("fold", "recontra", "withdraw"):
        return {"type": word, "box": int(args[0])}
    if word == "deal_in":
        return {"type": "deal_in", "box": int(args[0]), **({"player": args[1]} if len(args) > 1 else {})}
    if word == "open_bank":
        return {"type": "open_bank", "amount": args[0]}
    if word == "close":
        return {"type": "close_insurance"}
    if word == "cut":
        return {"type": "cut_card"}
    if word == "discard":
        return {"type": "discard_card"}
    if word == "void":
        return {"type": "void_round"}
    if word == "reserve":
        return {"type": "reserve", "box": int(args[0]), "player": args[1], "at": args[2]}
    if word == "tick":
        return {"type": "tick", "at": args[0]}
    return {"type": word}


def session(*steps: str, profile: str = "ru-standard", shuffle: bool = True, **options: Any) -> list[str]:
    """The JSON Lines of a session: a rules line, a shuffle (unless told not), then the steps.

    A step 'cards A B C' expands into one card event per code.
    """
    lines = [json.dumps({"type": "rules", "profile": profile, "options": options})]
    if shuffle:
        lines.append(json.dumps({"type": "shuffle", "shoe_id": "S1"}))
    for s in steps:
        if s.startswith("cards "):
            lines.extend(json.dumps({"type": "card", "card": c}) for c in s.split()[1:])
        else:
            lines.append(json.dumps(step(s)))
    return lines


def play(*steps: str, profile: str = "ru-standard", shuffle: bool = True, **options: Any) -> ReplayResult:
    """Run the steps through the replay path and return the result."""
    return replay_lines(session(*steps, profile=profile, shuffle=shuffle, **options))


def hands(result: ReplayResult, round_index: int = -1) -> list[tuple[int, str, str, str]]:
    """(box, cards, outcome, net) of each hand of a settled round."""
    r = result.rounds[round_index]
    return [(h["box"], " ".join(h["cards"]), h["outcome"], h["net"]) for h in r["hands"]]


def rest_of_pack(size: int, *used: str) -> list[str]:
    """The codes of one pack (52 cards, or 36: six to ace) not in ``used``, in the pack's order."""
    taken = list(used)
    out = []
    for card in ALL_CARDS:
        if card.rank not in PACK_RANKS[size]:
            continue
        if card.code in taken:
            taken.remove(card.code)
        else:
            out.append(card.code)
    return out
