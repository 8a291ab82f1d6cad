"""The interface every display back end implements (synchronous; may block and may raise)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

MIN_BRIGHTNESS = 0
MAX_BRIGHTNESS = 15  # the MAX7219's 16 intensity steps; other back ends scale to it


def check_brightness(level: int) -> int:
    """Validate a brightness level (0..15) and return it."""
    if not MIN_BRIGHTNESS <= level <= MAX_BRIGHTNESS:
        raise ValueError(f"brightness must be in {MIN_BRIGHTNESS}..{MAX_BRIGHTNESS}, got {level}")
    return level


@runtime_checkable
class DisplayDriver(Protocol):
    """A set of 7-segment displays addressed by id (``box1``.. and ``dealer``).

    Calls come from one thread at a time (the DisplayChain worker). Any method may
    raise on an I/O failure; the caller reports it and retries.
    """

    digits: int

    @property
    def display_ids(self) -> Sequence[str]:
        """The ids of the displays, in chain order (read-only here, so a driver may keep a list)."""

    def write(self, texts: Mapping[str, str]) -> None:
        """Show each rendered text on its display; displays not named keep their text."""

    def set_brightness(self, level: int) -> None:
        """Set every display's brightness, 0 (dimmest, still lit) to 15."""

    def set_blanked(self, blanked: bool) -> None:
        """Darken every display (True) or light them again with their texts (False)."""

    def reinitialise(self) -> None:
        """Re-send all configuration and every display's text (after a glitch or brown-out)."""

    def close(self) -> None:
        """Release the hardware."""


def check_texts(texts: Mapping[str, str], display_ids: Sequence[str]) -> None:
    """Raise KeyError naming any display id this driver does not have."""
    unknown = sorted(set(texts) - set(display_ids))
    if unknown:
        raise KeyError(f"unknown display id(s) {unknown}; known: {list(display_ids)}")
