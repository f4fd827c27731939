"""MCR settlement per seat."""

from __future__ import annotations

import pytest

from scoring.payments import SEATS, PaymentError, payments


@pytest.mark.parametrize(
    ("total", "self_drawn", "winner", "discarder", "expected"),
    [
        (8, True, "E", None, {"E": 48, "S": -16, "W": -16, "N": -16}),
        (27, True, "N", None, {"E": -35, "S": -35, "W": -35, "N": 105}),
        (8, False, "E", "S", {"E": 32, "S": -16, "W": -8, "N": -8}),
        (88, False, "W", "E", {"E": -96, "S": -8, "W": 112, "N": -8}),
        (0, False, "S", "N", {"E": -8, "S": 24, "W": -8, "N": -8}),
    ],
)
def test_settlement(total: int, self_drawn: bool, winner: str, discarder: str | None, expected: dict[str, int]) -> None:
    result = payments(total, self_drawn, winner, discarder)
    assert result == expected
    assert list(result) == list(SEATS)
    assert sum(result.values()) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((10, True, "X", None), "winner seat"),
        ((10, False, "E", None), "discarder"),
        ((10, False, "E", "E"), "discarder"),
        ((10, True, "E", "S"), "no discarder"),
        ((-1, True, "E", None), "negative"),
    ],
)
def test_bad_settlement_is_refused(args: tuple, message: str) -> None:
    with pytest.raises(PaymentError, match=message):
        payments(*args)
