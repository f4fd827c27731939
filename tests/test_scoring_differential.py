"""Differential test: our scorer against the reference calculator (PyPI pymahjonggb, the C++
fan calculator of ChineseOfficialMahjongHelper) on 10,000 seeded random hands of every shape
and every fan (a quarter of them aimed at a random fan).  Total and every fan must agree.

A failure names the chunk seed, the index and the hand's notation, so it reproduces:
    random_hands(seed, CHUNK)[index]
"""

from __future__ import annotations

import pytest

pytest.importorskip("MahjongGB", reason="the reference calculator pymahjonggb is a dev dependency")

from mcr_reference import reference_score  # noqa: E402

from scoring.fans import FANS  # noqa: E402
from scoring.generate import random_hands  # noqa: E402
from scoring.notation import format_hand  # noqa: E402
from scoring.scorer import score  # noqa: E402

CHUNK = 1000
SEEDS = range(20260001, 20260011)  # 10 chunks: 10,000 hands
FAN_IDS_BY_NAME = {f.name_en: f.id for f in FANS}


def _fans_text(fans: dict[int, int]) -> str:
    return ", ".join(f"{i} {FANS[i - 1].name_en}" + (f" x{n}" if n > 1 else "") for i, n in sorted(fans.items()))


@pytest.mark.parametrize("seed", SEEDS)
def test_scores_agree_with_the_reference(seed: int) -> None:
    problems = []
    for index, hand in enumerate(random_hands(seed, CHUNK)):
        ours = score(hand)
        ref = reference_score(hand, FAN_IDS_BY_NAME)
        our_fans = {fc.fan.id: fc.count for fc in ours.fans}
        if ours.total != ref.total or our_fans != ref.fans:
            problems.append(
                f"seed={seed} index={index} hand={format_hand(hand)!r}\n"
                f"    ours {ours.total}: {_fans_text(our_fans)}\n"
                f"    ref  {ref.total}: {_fans_text(ref.fans)}"
            )
    assert not problems, f"{len(problems)} of {CHUNK} hands disagree:\n" + "\n".join(problems[:15])


def test_reference_adapter_maps_every_fan() -> None:
    """The targeted hands make the reference name every one of the 81 fans, all mapped to our ids."""
    seen: set[int] = set()
    for fan_id in range(1, 82):
        for hand in random_hands(fan_id, 10, target_fan=fan_id):
            seen |= set(reference_score(hand, FAN_IDS_BY_NAME).fans)
    assert seen == set(range(1, 82))
