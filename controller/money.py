"""Money as the table counts and writes it: whole cents inside, decimals at the boundaries.

The engine keeps every amount as an integer number of cents, exact and fast; amounts
cross the boundaries (the session format, the journal, the API, round records,
snapshots) as decimals with at most two places. `money` writes cents the way the
session format does: ``'10'``, ``'-7.5'``, ``'12.35'``, ``'0'``.
"""

from __future__ import annotations

from decimal import Decimal

CENTS = 100


# The amounts seen, by value: a table takes the same few bet sizes all day (a simulation one, twice a round),
# and a decimal's product and comparison cost more than a look-up. Bounded: any further amount is worked out.
_CENTS: dict[Decimal | int, int | None] = {}
_CENTS_KEPT = 256


def to_cents(amount: Decimal | int) -> int | None:
    """An amount in whole cents, or None when it holds a fraction of a cent."""
    try:
        known = _CENTS.get(amount, -1)  # (equal amounts, 10 and 10.00, have the same cents)
    except TypeError:  # a signalling NaN has no hash: the product below says what is wrong with it
        known = -1
    if known != -1:
        return known
    c = amount * CENTS
    i = int(c)
    cents = i if i == c else None
    if len(_CENTS) < _CENTS_KEPT:
        _CENTS[amount] = cents
    return cents


def from_cents(cents: int) -> Decimal:
    """Cents as a decimal amount (exact)."""
    return Decimal(cents).scaleb(-2)


def money(cents: int) -> str:
    """Cents as the session format writes an amount: '10', '-7.5', '12.35', '0'."""
    whole, part = divmod(abs(cents), CENTS)
    sign = "-" if cents < 0 else ""
    if not part:
        return f"{sign}{whole}"
    if part % 10 == 0:
        return f"{sign}{whole}.{part // 10}"
    return f"{sign}{whole}.{part:02d}"


def wire_amount(amount: Decimal) -> int | str:
    """An amount in an event's JSON: a whole number stays a number, anything else the decimal as given."""
    return int(amount) if amount == amount.to_integral_value() else str(amount)


def house_text(amount: int) -> str:
    """A round's result for the house (cents), signed, as the dealer's lines write it: '+5', '-15', '0'."""
    text = money(amount)
    return text if amount <= 0 else "+" + text


def dealer_words(amount: int) -> str:
    """What the dealer does with a box's money (the players' net, cents): 'pays 15', 'takes 20', 'push'."""
    if amount > 0:
        return f"pays {money(amount)}"
    if amount < 0:
        return f"takes {money(-amount)}"
    return "push"
