"""Property tests of the two entry points: any input gives a Hand or a HandError, never a crash;
valid hands survive a round trip through the notation and through JSON."""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datasets.hands import random_hand
from scoring.hand import Hand, HandError
from scoring.notation import format_hand, parse_hand

_FIELDS = ("melds", "hand", "win_tile", "self_drawn", "flowers", "seat_wind", "prevalent_wind",
           "last_tile", "last_of_wall", "kong_replacement", "robbing_kong")
_TILE_NAMES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP")
_NOTATION_WORDS = st.sampled_from(
    ["self-drawn", "last-tile", "last-of-wall", "kong-replacement", "robbing-kong", "seat=S", "seat=X",
     "prevalent=W", "flowers=3", "flowers=99", "flowers=x", "foo=1", "+", "+9s", "+9s9s", "[", "]", "(", ")"]
)
_NOTATION_TEXT = st.lists(
    st.one_of(st.text(alphabet="123456789mpsESWNCFPxz[]()+= -", max_size=20), _NOTATION_WORDS), max_size=12
).map(" ".join)

_JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.text(max_size=5),
    st.sampled_from([*_TILE_NAMES, "chow", "pung", "kong", "E", "X", ""]),
)
_JSON_VALUES = st.recursive(
    _JSON_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=15),
        st.dictionaries(st.sampled_from(["kind", "tiles", "concealed", "x", *list(_FIELDS)]), children, max_size=6),
    ),
    max_leaves=15,
)


def _hand_from_seed(seed: int) -> Hand:
    return random_hand(random.Random(seed))


@settings(max_examples=400, deadline=None)
@given(st.one_of(_NOTATION_TEXT, st.text(max_size=60)))
def test_parse_hand_returns_a_hand_or_raises_hand_error(text: str) -> None:
    try:
        hand = parse_hand(text)
    except HandError as exc:
        assert str(exc)
    else:
        assert hand.validate() == hand
        assert parse_hand(format_hand(hand)) == hand


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_JSON_VALUES, st.dictionaries(st.sampled_from(_FIELDS), _JSON_VALUES, max_size=11)))
def test_from_json_returns_a_hand_or_raises_hand_error(data: Any) -> None:
    for form in (data, json.dumps(data)):
        try:
            hand = Hand.from_json(form)
        except HandError as exc:
            assert str(exc)
        else:
            assert Hand.from_json(hand.to_json()) == hand


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from(_FIELDS), _JSON_VALUES)
def test_a_valid_hand_with_one_field_changed_never_crashes(seed: int, key: str, value: Any) -> None:
    data = _hand_from_seed(seed).to_json()
    data[key] = value
    try:
        Hand.from_json(data)
    except HandError as exc:
        assert str(exc)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40), st.binary(max_size=30))
def test_from_json_of_raw_text_and_bytes(text: str, blob: bytes) -> None:
    for form in (text, blob):
        with contextlib.suppress(HandError):
            Hand.from_json(form)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32))
def test_generated_hands_round_trip(seed: int) -> None:
    hand = _hand_from_seed(seed)
    assert parse_hand(format_hand(hand)) == hand
    assert Hand.from_json(json.dumps(hand.to_json())) == hand


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=80), _JSON_VALUES.map(json.dumps), st.integers(0, 2**32)))
def test_a_jsonl_line_gives_a_result_or_an_error_never_an_exception(line: str | int) -> None:
    from scoring.__main__ import score_json_line

    if isinstance(line, int):  # a valid hand, sometimes with its winning tile swapped: may not win
        data = _hand_from_seed(line).to_json()
        data["win_tile"] = data["hand"][0]
        line = json.dumps(data)
    result = score_json_line(line)
    assert set(result) == {"error"} or {"total", "meets_minimum", "fans", "warnings"} <= set(result)
    if "error" in result:
        assert result["error"] and not result["error"].startswith("internal error"), result
