"""A driver that records every call, for tests (and a null driver for "none")."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from display.drivers.base import check_brightness, check_texts


@dataclass(frozen=True)
class Update:
    """One recorded call: ``kind`` is write/brightness/blanked/reinitialise."""

    kind: str
    texts: dict[str, str] | None = None
    value: int | bool | None = None


class RecordingDisplay:
    """Keeps what every display shows and the history of calls.

    ``fail_with`` makes the next calls raise (a dead display) until cleared.
    Thread-safe reads, so a test may inspect it while the chain's worker runs.
    """

    def __init__(self, display_ids: Sequence[str], digits: int = 8) -> None:
        self.display_ids = list(display_ids)
        self.digits = digits
        self.current: dict[str, str] = {d: " " * digits for d in self.display_ids}
        self.brightness: int | None = None
        self.blanked = False
        self.updates: list[Update] = []
        self.fail_with: Exception | None = None
        self.closed = False
        self._lock = threading.Lock()

    def _maybe_fail(self) -> None:
        if self.fail_with is not None:
            raise self.fail_with

    def write(self, texts: Mapping[str, str]) -> None:
        """Record the texts and apply them to ``current``."""
        check_texts(texts, self.display_ids)
        with self._lock:
            self._maybe_fail()
            self.current.update(texts)
            self.updates.append(Update("write", texts=dict(texts)))

    def set_brightness(self, level: int) -> None:
        """Record a brightness change."""
        check_brightness(level)
        with self._lock:
            self._maybe_fail()
            self.brightness = level
            self.updates.append(Update("brightness", value=level))

    def set_blanked(self, blanked: bool) -> None:
        """Record blanking or unblanking."""
        with self._lock:
            self._maybe_fail()
            self.blanked = blanked
            self.updates.append(Update("blanked", value=blanked))

    def reinitialise(self) -> None:
        """Record a reinitialisation."""
        with self._lock:
            self._maybe_fail()
            self.updates.append(Update("reinitialise"))

    def close(self) -> None:
        """Mark closed."""
        self.closed = True

    def snapshot(self) -> dict[str, str]:
        """A copy of what every display shows now."""
        with self._lock:
            return dict(self.current)

    def writes(self) -> list[dict[str, str]]:
        """The texts of every write call, in order."""
        with self._lock:
            return [u.texts for u in self.updates if u.kind == "write" and u.texts is not None]


class NullDisplay:
    """Driver "none": accepts everything, shows nothing (a table without displays)."""

    def __init__(self, display_ids: Sequence[str], digits: int = 8) -> None:
        self.display_ids = list(display_ids)
        self.digits = digits

    def write(self, texts: Mapping[str, str]) -> None:
        """Check the ids, show nothing."""
        check_texts(texts, self.display_ids)

    def set_brightness(self, level: int) -> None:
        """Check the level, do nothing."""
        check_brightness(level)

    def set_blanked(self, blanked: bool) -> None:
        """Do nothing."""

    def reinitialise(self) -> None:
        """Do nothing."""

    def close(self) -> None:
        """Do nothing."""
