"""What the technician's bring-up shows and listens for (pure: no clock, no pin; `tablectl bringup` runs it).

* Displays: each display in chain order (the module nearest the Pi first) shows its own name,
  ``bo   3`` for box 3 and ``dEALEr`` for the dealer, the others dark, so a module wired out of
  order or a box label on the wrong module is seen at once; then the lamp test, every segment
  and decimal point of every display lit (``8.8.8.8.8.8.8.8.``), so a dead segment is seen too.
* Bell: every pattern, highest priority first, each named before it rings.
* Console: every button, each echoed as the service will read it, until all have been pressed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from display.bell import BellSignal, Pulse
from display.console import ButtonId, ConsoleAction, ConsoleKind, FunctionButton
from display.render import DEALER_DISPLAY_ID, fit, pad_right_aligned

BOX_MARK = "bo"  # "box" as a 7-segment display can draw it (there is no x)


def display_label(display_id: str, digits: int) -> str:
    """What a display shows as its own name: ``bo      3`` (box 3) or ``dEALEr``, in `digits` cells."""
    if display_id == DEALER_DISPLAY_ID:
        return pad_right_aligned(fit(["dEALEr", "dEAL", "dL"], digits), digits)
    number = display_id.removeprefix("box")
    return BOX_MARK + pad_right_aligned(number, digits - len(BOX_MARK)) if digits > len(BOX_MARK) + len(number) \
        else pad_right_aligned(number, digits)


@dataclass(frozen=True)
class DisplayStep:
    """One step of the display bring-up: what to say, and every display's text while it lasts."""

    say: str
    texts: dict[str, str]


def display_steps(chain: Sequence[str], digits: int) -> list[DisplayStep]:
    """Each display alone with its name, in chain order; the lamp test; then all dark."""
    dark = {d: "" for d in chain}
    steps = [DisplayStep(f"display {n} of {len(chain)} in the chain ({d}) shows {display_label(d, digits).strip()!r}, "
                         "the others dark", {**dark, d: display_label(d, digits)})
             for n, d in enumerate(chain, start=1)]
    steps.append(DisplayStep("lamp test: every segment and point of every display lit",
                             {d: "8." * digits for d in chain}))
    steps.append(DisplayStep("all dark", dark))
    return steps


_BELL_SOUNDS = {
    BellSignal.ATTENTION: "the pit must come now (an alarm: integrity, link down)",
    BellSignal.FAULT: "the table waits for the dealer or the pit (an action: held card, shoe fault)",
    BellSignal.CALL_PIT: "the dealer calls the pit",
    BellSignal.SHUFFLE_DUE: "a shuffle is due",
}


def bell_steps(patterns: Mapping[BellSignal, Sequence[Pulse]]) -> list[tuple[BellSignal, str]]:
    """Every signal, highest priority first, and what to say before it rings."""
    out = []
    for signal in BellSignal:
        pulses = patterns[signal]
        rings = sum(on + off for on, off in pulses)
        out.append((signal, f"bell: {signal.value}, {_BELL_SOUNDS[signal]}: {len(pulses)} ring(s) in {rings:.1f} s"))
    return out


def _button_of(action: ConsoleAction) -> ButtonId:
    if action.kind is ConsoleKind.SELECT_BOX:
        assert action.box is not None  # (SELECT_BOX always names its box)
        return action.box
    return FunctionButton(action.kind.value)


def button_name(button: ButtonId) -> str:
    """A button as the console's wiring names it (``stand``, ``box 3``)."""
    return f"box {button}" if isinstance(button, int) else button.value


@dataclass
class ConsoleChecklist:
    """The console's buttons still to be pressed; `record` echoes each action as the service reads it."""

    pins: Mapping[ButtonId, int]
    seen: set[ButtonId] = field(default_factory=set)

    def record(self, action: ConsoleAction) -> str:
        """One line for `action`: the button, its pin, what the service reads, and how many are left."""
        button = _button_of(action)
        self.seen.add(button)
        left = self.remaining()
        reads = action.kind.value + (f" box {action.box}" if action.box is not None else "")
        tail = "every button answered" if not left else f"{len(left)} to go: {', '.join(map(button_name, left))}"
        return f"console: {button_name(button)} (GPIO{self.pins[button]}) -> {reads}; {tail}"

    def remaining(self) -> list[ButtonId]:
        """The buttons not pressed yet, in the wiring's order."""
        return [b for b in self.pins if b not in self.seen]

    @property
    def done(self) -> bool:
        """Every button has been pressed."""
        return not self.remaining()
