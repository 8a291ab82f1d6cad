"""Money as the table writes it: one definition of how an amount is shown and carried.

Amounts cross the boundaries (the session format, the journal, the API, round
records) as decimals with at most two places; `money` writes them the way the
session format does: ``'10'``, ``'-7.5'``, ``'12.35'``, ``'0'``.
"""

from __future__ import annotations

from decimal import Decimal

ZERO = Decimal(0)


def money(amount: Decimal) -> str:
    """A decimal amount as the session format writes it: '10', '-7.5', '0'."""
    if amount == amount.to_integral_value():
        return str(int(amount))
    return str(amount.normalize())


def wire_amount(amount: Decimal) -> int | str:
    """An amount in an event's JSON: a whole number stays a number, anything else the decimal as given."""
    return int(amount) if amount == amount.to_integral_value() else str(amount)
