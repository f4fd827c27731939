"""The 999 hands of scored-hands-sample.jsonl, scored by the reference calculator: every total and fan must agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import Hand, score

SAMPLE = Path(__file__).parent / "data" / "scored-hands-sample.jsonl"
ROWS = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_sample_has_999_hands() -> None:
    assert len(ROWS) == 999


@pytest.mark.parametrize("row", ROWS, ids=[f"hand{i}" for i in range(len(ROWS))])
def test_sample_hand_scores_like_the_reference(row: dict) -> None:
    result = score(Hand.from_json(row["hand"]))
    got = {fc.fan.id: fc.points_total for fc in result.fans}
    expected = {f["id"]: f["points_total"] for f in row["expected_fans"]}
    assert got == expected, result.decomposition
    assert result.total == row["expected_total"]
    assert result.total == sum(fc.points_total for fc in result.fans)
