"""The dealer's console: gpiozero inputs turned into typed ConsoleActions.

Debounce and long-press are ours, against an injected clock (gpiozero's mock pins
do not debounce, and its hold timer runs on wall-clock threads):

* debounce: a level counts only once it has been stable for ``debounce`` seconds
  (30 ms by default); chatter shorter than that is ignored, whatever its length.
  A press is stamped with the time of its first edge.
* long press: CALL PIT fires only when held ``call_pit_hold`` seconds (1.5 s by
  default, 0 = on press), so a brush against it does not summon the pit. It fires
  while still held, when the hold time is reached.
* box selection: a box button emits ``SELECT_BOX(box)`` at once (during betting the
  service reads it as "toggle this box's bet") and selects that box for the next
  SURRENDER or INSURANCE within ``selection_timeout`` seconds, which then carries
  ``box``. Without a selection they carry ``box=None``: "the box in play". Any other
  action button clears the selection, so a stale one never lands on a later action.
  DOUBLE takes a selection too: in the club games a box doubles (or, with SURRENDER,
  folds) on a spent pack, and redoubles after the banker's contra, by its number.

Threads: edges arrive on gpiozero's callback thread (lgpio's on a Pi; the thread
calling ``drive_low`` on mock pins); debounce and hold deadlines are met by the
console's own ticker thread. ``on_action`` is called from either, one call at a
time, and must be quick: hand it to asyncio with :func:`asyncio_action_sink`.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from gpiozero import DigitalInputDevice
from gpiozero.pins import Factory

from display.clock import Clock

log = logging.getLogger(__name__)


class ConsoleKind(enum.Enum):
    """What the dealer asked for."""

    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    INSURANCE = "insurance"
    CONTINUE = "continue"  # close insurance, confirm
    CALL_PIT = "call_pit"
    SELECT_BOX = "select_box"
    BADGE = "badge"  # a dealer's badge was read (BadgeReader): the id in ``badge``


@dataclass(frozen=True, slots=True)
class ConsoleAction:
    """One dealer action from the console; ``at`` is the clock time of the press.

    ``box`` is set for SELECT_BOX, and for DOUBLE/SURRENDER/INSURANCE after a box selection;
    None elsewhere (the hand in play). ``badge`` is the id a BADGE action read.
    """

    kind: ConsoleKind
    box: int | None = None
    at: float = 0.0
    badge: str | None = None


class BadgeReader:
    """The console's badge input: the characters a badge reader sends, one id per line, as BADGE actions.

    Pure, so any reader plugs in: a keyboard-wedge (HID) reader or a serial one types the id and a
    line end; whatever reads the device hands its text to `feed`. An id is 1-64 printable characters
    (as the table's `dealer_in` takes it); a longer line or one with a control character is dropped and
    logged, never passed on: a reader's noise must not sign anyone in.
    """

    MAX_ID = 64

    def __init__(self, check: Callable[[str], str] | None = None) -> None:
        """``check``: the table's rule for an id (``controller.ids.person_id``, given by the composition root:
        this package imports no other), returning the id as kept or raising ValueError; a line it refuses is
        dropped and logged with its reason."""
        self._line: list[str] = []
        self._overflow = False
        self._check = check

    def feed(self, text: str, at: float) -> list[ConsoleAction]:
        """Take what the reader sent; a BADGE action for each whole line that is an id."""
        out = []
        for ch in text:
            if ch in "\r\n":
                line, overflow = "".join(self._line).strip(), self._overflow
                self._line, self._overflow = [], False
                if overflow or not line.isprintable():
                    log.warning("badge reader: a line that is not a badge id was dropped")
                elif line:
                    try:
                        badge = self._check(line) if self._check is not None else line
                    except ValueError as exc:
                        log.warning("badge reader: a badge id was refused: %s", exc)
                        continue
                    out.append(ConsoleAction(ConsoleKind.BADGE, at=at, badge=badge))
            elif len(self._line) < self.MAX_ID:
                self._line.append(ch)
            else:
                self._overflow = True
        return out


class FunctionButton(enum.Enum):
    """The console's buttons other than the box buttons."""

    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    INSURANCE = "insurance"
    CONTINUE = "continue"
    CALL_PIT = "call_pit"


_KIND_OF = {
    FunctionButton.STAND: ConsoleKind.STAND,
    FunctionButton.DOUBLE: ConsoleKind.DOUBLE,
    FunctionButton.SPLIT: ConsoleKind.SPLIT,
    FunctionButton.SURRENDER: ConsoleKind.SURRENDER,
    FunctionButton.INSURANCE: ConsoleKind.INSURANCE,
    FunctionButton.CONTINUE: ConsoleKind.CONTINUE,
    FunctionButton.CALL_PIT: ConsoleKind.CALL_PIT,
}
_TAKES_BOX = {FunctionButton.DOUBLE, FunctionButton.SURRENDER, FunctionButton.INSURANCE}

#: A button is a FunctionButton or a box number (1..N).
ButtonId = FunctionButton | int


class ButtonEvent(enum.Enum):
    """A debounced button's news."""

    PRESSED = "pressed"
    RELEASED = "released"
    HELD = "held"


# Times are floats summed from a clock; a deadline reached "exactly" may land a hair short.
_EPS = 1e-9


class DebouncedButton:
    """Debounce and hold detection for one contact (pure; times are passed in)."""

    def __init__(self, debounce: float = 0.03, hold: float | None = None) -> None:
        self.debounce = debounce
        self.hold = hold
        self.pressed = False  # the debounced level
        self._candidate = False
        self._candidate_since = 0.0
        self._pressed_at = 0.0
        self._held_fired = False

    def _check_hold(self, now: float, events: list[tuple[ButtonEvent, float]]) -> None:
        if self.pressed and self.hold is not None and not self._held_fired:
            # A release edge already seen ends the hold at that edge.
            held_until = now if self._candidate else self._candidate_since
            if held_until - self._pressed_at >= self.hold - _EPS:
                self._held_fired = True
                events.append((ButtonEvent.HELD, self._pressed_at + self.hold))

    def _settle(self, now: float) -> list[tuple[ButtonEvent, float]]:
        events: list[tuple[ButtonEvent, float]] = []
        # The hold is judged before a release settles (it happened first) and again
        # after a press settles (a late tick may find both due).
        self._check_hold(now, events)
        if self._candidate != self.pressed and now - self._candidate_since >= self.debounce - _EPS:
            self.pressed = self._candidate
            if self.pressed:
                self._pressed_at = self._candidate_since
                self._held_fired = False
                events.append((ButtonEvent.PRESSED, self._candidate_since))
                self._check_hold(now, events)
            else:
                events.append((ButtonEvent.RELEASED, self._candidate_since))
        return events

    def edge(self, pressed: bool, now: float) -> list[tuple[ButtonEvent, float]]:
        """A raw edge at ``now``; returns the debounced events it settles."""
        events = self._settle(now)
        if pressed != self._candidate:
            self._candidate = pressed
            self._candidate_since = now
        return events

    def tick(self, now: float) -> list[tuple[ButtonEvent, float]]:
        """Time has reached ``now`` with no edge; returns the events due."""
        return self._settle(now)

    def next_deadline(self) -> float | None:
        """When :meth:`tick` may next have something to say, or None."""
        if self._candidate != self.pressed:
            return self._candidate_since + self.debounce
        if self.pressed and self.hold is not None and not self._held_fired:
            return self._pressed_at + self.hold
        return None


class ConsoleLogic:
    """Turns debounced button events into ConsoleActions (pure; times are passed in)."""

    def __init__(
        self,
        boxes: int,
        *,
        debounce: float = 0.03,
        call_pit_hold: float = 1.5,
        selection_timeout: float = 10.0,
    ) -> None:
        self.selection_timeout = selection_timeout
        self.buttons: dict[ButtonId, DebouncedButton] = {}
        for fb in FunctionButton:
            hold = call_pit_hold if fb is FunctionButton.CALL_PIT and call_pit_hold > 0 else None
            self.buttons[fb] = DebouncedButton(debounce, hold)
        for n in range(1, boxes + 1):
            self.buttons[n] = DebouncedButton(debounce)
        self.selected: tuple[int, float] | None = None  # (box, when)

    def _actions(self, button: ButtonId, events: list[tuple[ButtonEvent, float]]) -> list[ConsoleAction]:
        out: list[ConsoleAction] = []
        for event, at in events:
            if isinstance(button, int):
                if event is ButtonEvent.PRESSED:
                    self.selected = (button, at)
                    out.append(ConsoleAction(ConsoleKind.SELECT_BOX, box=button, at=at))
                continue
            fires = ButtonEvent.HELD if self.buttons[button].hold is not None else ButtonEvent.PRESSED
            if event is not fires:
                continue
            box = None
            if button in _TAKES_BOX and self.selected is not None:
                selected_box, when = self.selected
                if at - when <= self.selection_timeout + _EPS:
                    box = selected_box
            self.selected = None
            out.append(ConsoleAction(_KIND_OF[button], box=box, at=at))
        return out

    def edge(self, button: ButtonId, pressed: bool, now: float) -> list[ConsoleAction]:
        """A raw edge of ``button``; returns the actions it completes (in time order)."""
        out = self.tick(now)
        out += self._actions(button, self.buttons[button].edge(pressed, now))
        return out

    def tick(self, now: float) -> list[ConsoleAction]:
        """Time has reached ``now``; returns the actions whose debounce or hold ran out."""
        pending: list[tuple[float, ButtonId, list[tuple[ButtonEvent, float]]]] = []
        for button, db in self.buttons.items():
            events = db.tick(now)
            if events:
                pending.append((events[0][1], button, events))
        out: list[ConsoleAction] = []
        for _, button, events in sorted(pending, key=lambda p: p[0]):
            out += self._actions(button, events)
        return out

    def next_deadline(self) -> float | None:
        """The earliest time :meth:`tick` may emit something."""
        deadlines = [d for d in (b.next_deadline() for b in self.buttons.values()) if d is not None]
        return min(deadlines) if deadlines else None


ActionCallback = Callable[[ConsoleAction], None]


class DealerConsole:
    """The console's buttons on gpiozero inputs (wired to ground, internal pull-ups) and its logic.

    ``pins`` maps each button to its BCM pin. With ``start=False`` no ticker thread
    runs and the owner calls :meth:`tick` after moving the clock (tests).
    """

    def __init__(
        self,
        pins: Mapping[ButtonId, int],
        on_action: ActionCallback,
        *,
        boxes: int,
        pin_factory: Factory | None = None,
        clock: Clock = time.monotonic,
        debounce: float = 0.03,
        call_pit_hold: float = 1.5,
        selection_timeout: float = 10.0,
        start: bool = True,
    ) -> None:
        self.logic = ConsoleLogic(
            boxes, debounce=debounce, call_pit_hold=call_pit_hold, selection_timeout=selection_timeout
        )
        missing = [b for b in self.logic.buttons if b not in pins]
        if missing:
            raise ValueError(f"no pin for console button(s) {missing}")
        self._on_action = on_action
        self._clock = clock
        self._cond = threading.Condition()
        self._closed = False
        # Plain inputs, not gpiozero's Button: holds are timed by our logic, and a Button starts a hold
        # thread of its own for each pin (14 threads on a 7-box table, for nothing).
        self.buttons: dict[ButtonId, DigitalInputDevice] = {}
        try:
            for button_id in self.logic.buttons:
                # pull_up: wired to ground, so pressed is low (active). bounce_time=None: debouncing is
                # ours, so it is the same on every pin factory.
                btn = DigitalInputDevice(pins[button_id], pull_up=True, bounce_time=None, pin_factory=pin_factory)
                btn.when_activated = self._edge_handler(button_id, True)
                btn.when_deactivated = self._edge_handler(button_id, False)
                self.buttons[button_id] = btn
        except Exception:
            self.close()
            raise
        self._thread: threading.Thread | None = None
        if start:
            self._thread = threading.Thread(target=self._run, name="dealer-console", daemon=True)
            self._thread.start()

    def _edge_handler(self, button_id: ButtonId, pressed: bool) -> Callable[[], None]:
        def handler() -> None:
            with self._cond:
                self._emit(self.logic.edge(button_id, pressed, self._clock()))
                self._cond.notify_all()

        return handler

    def _emit(self, actions: list[ConsoleAction]) -> None:
        for action in actions:
            log.info("console: %s%s", action.kind.name, f" box {action.box}" if action.box else "")
            try:
                self._on_action(action)
            except Exception:  # a consumer's bug must not kill gpiozero's callback thread
                log.exception("console action callback failed for %s", action)

    def tick(self) -> None:
        """Emit what the clock's current time makes due (debounce settled, hold reached)."""
        with self._cond:
            self._emit(self.logic.tick(self._clock()))

    def pin(self, button_id: ButtonId) -> object:
        """The gpiozero pin of a button (a MockPin on the mock factory, for tests to drive)."""
        return self.buttons[button_id].pin

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                self._emit(self.logic.tick(self._clock()))
                deadline = self.logic.next_deadline()
                timeout = None if deadline is None else max(0.001, deadline - self._clock())
                self._cond.wait(timeout)

    def close(self) -> None:
        """Stop the ticker and release the pins."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        thread = getattr(self, "_thread", None)
        if thread is not None:
            thread.join(timeout=5.0)
        for btn in self.buttons.values():
            btn.close()


def asyncio_action_sink(
    loop: asyncio.AbstractEventLoop,
    target: asyncio.Queue[ConsoleAction] | Callable[[ConsoleAction], Awaitable[object] | object],
) -> ActionCallback:
    """An ``on_action`` callback that hands each action to ``loop``, from any thread.

    ``target`` is an :class:`asyncio.Queue` (the action is put into it), a coroutine
    function (it is scheduled as a task) or a plain function (called on the loop).
    Scheduling uses ``loop.call_soon_threadsafe``, so gpiozero's thread never waits.
    """

    def deliver(action: ConsoleAction) -> None:
        if isinstance(target, asyncio.Queue):
            target.put_nowait(action)
            return
        result = target(action)
        if asyncio.iscoroutine(result):
            loop.create_task(result)

    def sink(action: ConsoleAction) -> None:
        if loop.is_closed():
            log.warning("console action %s dropped: the event loop is closed", action)
            return
        loop.call_soon_threadsafe(deliver, action)

    return sink
