"""Fuzzing the scoring entry points as a user reaches them: the command line (notation, flags) and one
--jsonl line.  Any input ends in a result or a one-line error, never an uncaught exception."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.__main__ import main, score_json_line

_WORDS = ["self-drawn", "last-tile", "last-of-wall", "kong-replacement", "robbing-kong", "seat=S", "seat=",
          "prevalent=W", "flowers=3", "flowers=²", "flowers=٣", "flowers=" + "9" * 5000, "flowers=-1", "=", "+",
          "+9s", "[123m]", "[EEE]", "(5555p)", "123m456m789m123p5p", "+5p", "[", "(", "]", ")", "１２３ｍ", "⑨s"]
_NOTATION = st.lists(st.one_of(st.sampled_from(_WORDS), st.text(max_size=12)), max_size=8).map(" ".join)
_FLAGS = st.lists(st.sampled_from(["--json", "--waits", "--self-drawn", "--seat-wind", "S", "--flowers", "٣", "2",
                                   "--discarder", "W", "--last-tile", "--jsonl", "-x"]), max_size=3)
_TILES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + list("ESWNCFP")
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=4),
                     st.sampled_from([*_TILES, "chow", "pung", "kong", "²", "٣"]))
_VALUES = st.recursive(_SCALARS, lambda c: st.one_of(st.lists(c, max_size=14), st.dictionaries(
    st.sampled_from(["melds", "hand", "win_tile", "self_drawn", "flowers", "seat_wind", "prevalent_wind", "kind",
                     "tiles", "concealed"]), c, max_size=8)), max_leaves=20)
_GOOD = {"melds": [], "hand": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5p"],
         "win_tile": "5p", "self_drawn": False, "flowers": 0, "seat_wind": "E", "prevalent_wind": "E"}


def _run_cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 2
    return code, err.getvalue()


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_NOTATION, _FLAGS)
def test_command_line_never_raises(notation: str, flags: list[str]) -> None:
    if "--jsonl" in flags:
        flags.remove("--jsonl")  # would read the test runner's stdin
    code, err = _run_cli([notation, *flags])
    assert code in (0, 2)
    if code == 2:
        assert err.startswith("error: ") and err.count("\n") == 1, err


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_VALUES, st.builds(lambda k, v: _GOOD | {k: v}, st.sampled_from(sorted(_GOOD)), _VALUES),
                 st.text(max_size=40)))
def test_a_jsonl_line_gives_a_result_or_an_error(data: Any) -> None:
    line = data if isinstance(data, str) else json.dumps(data)
    result = score_json_line(line)
    assert ("error" in result) != ("total" in result)
    if "error" in result:
        assert not result["error"].startswith("internal error"), result["error"]
