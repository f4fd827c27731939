"""MCR settlement: who pays the winner how much.

Chinese Official rules: every player pays the winner a base of 8; the hand's total is paid
by the discarder alone, or by each of the three others when the winner drew it.

- self-drawn: each of the three others pays 8 + total (the winner gets 3 x (8 + total));
- on a discard: the discarder pays 8 + total, the other two pay 8 each.
"""

from __future__ import annotations

SEATS = ("E", "S", "W", "N")
BASE = 8


class PaymentError(ValueError):
    """Seats that cannot settle a hand (unknown seat, discarder missing or the winner)."""


def payments(total: int, self_drawn: bool, winner: str, discarder: str | None = None) -> dict[str, int]:
    """Points won (+) and paid (-) per seat E S W N; the four values sum to zero."""
    if winner not in SEATS:
        raise PaymentError(f"winner seat must be one of {' '.join(SEATS)}, not {winner!r}")
    if total < 0:
        raise PaymentError(f"a hand total cannot be negative, got {total}")
    others = [s for s in SEATS if s != winner]
    if self_drawn:
        if discarder is not None:
            raise PaymentError("a self-drawn hand has no discarder")
        owed = {s: BASE + total for s in others}
    else:
        if discarder not in others:
            raise PaymentError(
                f"a hand won on a discard needs the discarder's seat, one of {' '.join(others)}, not {discarder!r}"
            )
        owed = {s: BASE + total if s == discarder else BASE for s in others}
    result = {s: -owed[s] for s in others}
    result[winner] = sum(owed.values())
    return {s: result[s] for s in SEATS}
