"""The control channel: JSON lines a virtual dealer (or a test) sends to the shoe.

Every request is one JSON object with a ``"cmd"`` key, on one line; every
answer is one JSON object on one line with ``"ok": true`` or
``"ok": false, "error": "..."``. The commands are listed in
docs/shoe-protocol.md ("The virtual shoe's control channel").
"""

from __future__ import annotations

import json
from typing import Any, Callable, Protocol

from simulators.shoe.core import DealRefused, Released, ShoeCore, ShoeFault

Reply = dict[str, Any]
MAX_STACK = 8 * 52  # a stack is at most a whole shoe of eight decks (and the cards left in this one)


class ControlTarget(Protocol):
    """What the control channel needs from the running simulator."""

    core: ShoeCore

    @property
    def connected(self) -> bool:
        """True while a host is synced on the current cable."""
        ...

    @property
    def device(self) -> str | None:
        """The current pty slave path."""
        ...

    def deal(self) -> Released | DealRefused:
        """Release the next card (logged)."""
        ...

    def unplug(self, seconds: float) -> None:
        """Pull the cable for ``seconds``."""
        ...

    def request_stop(self) -> None:
        """Stop the simulator after answering."""
        ...


class BadRequest(Exception):
    """The request cannot be carried out; the message goes back to the client."""


def _deal(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    result = sim.deal()
    if isinstance(result, DealRefused):
        return {"ok": False, "error": result.value}
    reply: Reply = {"ok": True, "card": result.card, "position": result.position, "shoe_id": result.shoe_id}
    if result.unreadable:
        reply["unreadable"] = True
    if result.cut_card_next:
        reply["cut_card"] = True
    return reply


def _shuffle(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    shoe_id = req.get("shoe_id")
    if shoe_id is not None and (not isinstance(shoe_id, str) or not shoe_id or len(shoe_id.encode()) > 64):
        raise BadRequest("shoe_id must be a non-empty string of at most 64 bytes")
    pack, decks = req.get("pack"), req.get("decks")
    for name, value in (("pack", pack), ("decks", decks)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise BadRequest(f"{name} must be a whole number")
    if decks is not None and not 1 <= decks <= 8:
        raise BadRequest("decks must be from 1 to 8")
    keep = req.get("keep")
    if keep is not None and (not isinstance(keep, list) or len(keep) > 64 or not all(
            isinstance(k, list) and len(k) == 2 and isinstance(k[0], str) and isinstance(k[1], int)
            and not isinstance(k[1], bool) for k in keep)):
        raise BadRequest("keep must be a list of at most 64 [shoe_id, position] pairs")
    core = sim.core
    try:
        new_id = core.load(shoe_id, pack=pack, decks=decks, keep=[(k[0], k[1]) for k in keep or []])
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return {"ok": True, "shoe_id": new_id, "cards": len(core.cards), "cut_at": core.cut_at,
            "pack": core.config.pack, "decks": core.config.decks}


def _status(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    core = sim.core
    return {
        "ok": True,
        "shoe_id": core.shoe_id,
        "shoe_number": core.shoe_number,
        "pack": core.config.pack,
        "decks": core.config.decks,
        "position": core.position,
        "cards_left": core.cards_left,
        "cut_at": core.cut_at,
        "cut_card_out": core.cut_card_out,
        "locked": core.locked,
        "jammed": core.jammed,
        "lid_open": core.lid_open,
        "unacked": core.unacked,
        "connected": sim.connected,
        "device": sim.device,
    }


def _button(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    name = req.get("name")
    if not isinstance(name, str) or not name or len(name.encode()) > 64:
        raise BadRequest("button needs a \"name\": a non-empty string of at most 64 bytes")
    sim.core.press_button(name)
    return {"ok": True}


def _fault(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    try:
        kind = ShoeFault(req.get("kind"))
    except ValueError:
        raise BadRequest(f"fault \"kind\" must be one of {', '.join(k.value for k in ShoeFault)}") from None
    sim.core.fault(kind)
    return {"ok": True}


def _clear(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    sim.core.clear_faults()
    return {"ok": True}


def _unplug(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    seconds = req.get("seconds", 0.3)
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= 60:
        raise BadRequest("\"seconds\" must be a number from 0 to 60")
    sim.unplug(float(seconds))
    return {"ok": True}


def _stack(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    cards = req.get("cards")
    # At most a whole shoe (8 decks): the request is bounded by what a shoe can hold, and by the cards left in it.
    if (not isinstance(cards, list) or not cards or len(cards) > MAX_STACK
            or not all(isinstance(c, str) and 1 <= len(c) <= 2 for c in cards)):
        raise BadRequest(f"stack needs \"cards\": a list of 1 to {MAX_STACK} card codes (AS) or ranks (A)")
    core = sim.core
    if len(cards) > core.cards_left:
        raise BadRequest(f"only {core.cards_left} cards are left in the shoe")
    try:
        return {"ok": True, "cards": core.stack(cards)}
    except ValueError as exc:
        raise BadRequest(str(exc)) from None


def _misbehave(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    """Firmware faults: ``skip`` (count) positions, ``repeat`` the last position with another
    ``card``, ``garble`` the next card's frame body."""
    how = req.get("how")
    core = sim.core
    try:
        if how == "skip":
            count = req.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool):
                raise BadRequest("skip needs a whole \"count\"")
            core.skip(count)
        elif how == "repeat":
            card = req.get("card")
            if not isinstance(card, str) or len(card) != 2:
                raise BadRequest("repeat needs a two-character \"card\" code")
            core.repeat_position(card)
        elif how == "garble":
            core.garble_next()
        else:
            raise BadRequest("misbehave \"how\" must be skip, repeat or garble")
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return {"ok": True, "position": core.position}


def _quit(sim: ControlTarget, req: dict[str, Any]) -> Reply:
    sim.request_stop()
    return {"ok": True}


COMMANDS: dict[str, Callable[[ControlTarget, dict[str, Any]], Reply]] = {
    "deal": _deal,
    "shuffle": _shuffle,
    "status": _status,
    "button": _button,
    "fault": _fault,
    "clear": _clear,
    "unplug": _unplug,
    "stack": _stack,
    "misbehave": _misbehave,
    "quit": _quit,
}


def handle_line(line: bytes, sim: ControlTarget) -> Reply:
    """Parse one request line and carry it out; never raises on bad input."""
    try:
        request = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        return {"ok": False, "error": f"bad JSON: {exc}"}
    if not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
        return {"ok": False, "error": 'a request is a JSON object with a "cmd" string'}
    handler = COMMANDS.get(request["cmd"])
    if handler is None:
        return {"ok": False, "error": f"unknown cmd {request['cmd']!r} (known: {', '.join(COMMANDS)})"}
    try:
        return handler(sim, request)
    except BadRequest as exc:
        return {"ok": False, "error": str(exc)}
