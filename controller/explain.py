"""A pydantic ValidationError said in one line, each fault naming where it is.

The engine's rule options, events and snapshots, the service's config and the floor's wire
messages are all checked by pydantic models; whoever reads the refusal (a dealer, an operator,
the floor's log) gets one line that names the field, never pydantic's report. Each caller says
its faults in its own words (`explain`'s ``say``); where they are and what is wrong is read here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pydantic import ValidationError


@dataclass(frozen=True, slots=True)
class Fault:
    """One thing pydantic found wrong."""

    where: str  # the dotted path to it (``boxes.0.amount``), or the whole input's name when it is the input
    kind: str  # pydantic's error type: ``missing``, ``extra_forbidden``, ``enum``, ``value_error``...
    message: str  # pydantic's message, without the "Value error, " a validator's ValueError gets
    loc: tuple[int | str, ...]  # pydantic's own location, whole
    input: Any  # what was there (None when not asked for)
    ctx: dict[str, Any]  # pydantic's context: the allowed values of an enum, a union's tag...


def faults(exc: ValidationError, whole: str, prefix: tuple[str, ...] = (), skip: int = 0,
           inputs: bool = True) -> list[Fault]:
    """Every fault of ``exc``, in pydantic's order. ``where`` is ``prefix`` and the location after its
    first ``skip`` parts (a tagged union's tag), or ``whole``; ``inputs`` False leaves the inputs out."""
    found = []
    for err in exc.errors(include_url=False, include_input=inputs):
        loc = tuple(err["loc"])
        where = ".".join(str(p) for p in (*prefix, *loc[skip:])) or whole
        found.append(Fault(where, err["type"], err["msg"].removeprefix("Value error, "), loc, err.get("input"),
                           dict(err.get("ctx", {}))))
    return found


def plainly(fault: Fault) -> str:
    """A fault as ``where: what is wrong``."""
    return f"{fault.where}: {fault.message}"


def explain(exc: ValidationError, whole: str, *, prefix: tuple[str, ...] = (), say: Callable[[Fault], str] = plainly,
            first: int | None = None, more: str = "; and {} more", inputs: bool = True) -> str:
    """``exc`` in one line: each fault (the ``first`` few, or all) said by ``say``, joined by "; ", then
    ``more`` with the number left unsaid. ``whole``, ``prefix`` and ``inputs``: as for `faults`."""
    found = faults(exc, whole, prefix, inputs=inputs)
    said = found if first is None else found[:first]
    left = len(found) - len(said)
    return "; ".join(say(f) for f in said) + (more.format(left) if left > 0 else "")
