"""The engine's errors: one root, each also a builtin category (as gpiozero does)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why an action is refused where it stands: ``code`` for machines, ``message`` for the dealer.

    (Here, below every engine module, so that any of them may raise the engine's errors.)
    """

    code: str
    message: str


class EngineError(Exception):
    """Root of every error the round engine raises."""


class IllegalAction(EngineError, ValueError):
    """A person's action refused where it stands; ``code`` for machines, ``message`` for the dealer.

    The table is left exactly as it was. ``refusal`` is the `Refusal` that `Table.refusal` gives.
    """

    def __init__(self, code: str | Refusal, message: str | None = None) -> None:
        refusal = code if isinstance(code, Refusal) else Refusal(code, message or code)
        super().__init__(refusal.message)
        self.refusal = refusal
        self.code = refusal.code
        self.message = refusal.message


class SnapshotError(EngineError, ValueError):
    """A snapshot that cannot be restored: malformed, of another format, or inconsistent."""
