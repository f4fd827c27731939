"""Differential test: our scorer against the reference calculator (PyPI pymahjonggb, the C++
fan calculator of ChineseOfficialMahjongHelper) on 10,000 seeded random hands of every shape
and every fan (a quarter of them aimed at a random fan).  Total and every fan must agree.

A failure names the chunk seed, the index and the hand's notation, so it reproduces:
    random_hands(seed, CHUNK)[index]
A second test gives 1,000 hands random flags, contradictions included: both calculators
must ignore the same ones (ours with a warning).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

pytest.importorskip("MahjongGB", reason="the reference calculator pymahjonggb is a dev dependency")

import contextlib

from mcr_reference import reference_score

from datasets.hands import random_hands
from scoring.fans import FANS
from scoring.hand import Hand
from scoring.notation import format_hand
from scoring.scorer import score

CHUNK = 1000
SEEDS = range(20260001, 20260011)  # 10 chunks: 10,000 hands
FAN_IDS_BY_NAME = {f.name_en: f.id for f in FANS}


def _fans_text(fans: dict[int, int]) -> str:
    return ", ".join(f"{i} {FANS[i - 1].name_en}" + (f" x{n}" if n > 1 else "") for i, n in sorted(fans.items()))


def _disagreement(seed: int, index: int, hand: Hand) -> str | None:
    ours = score(hand)
    ref = reference_score(hand, FAN_IDS_BY_NAME)
    our_fans = {fc.fan.id: fc.count for fc in ours.fans}
    if ours.total == ref.total and our_fans == ref.fans:
        return None
    return (
        f"seed={seed} index={index} hand={format_hand(hand)!r}\n"
        f"    ours {ours.total}: {_fans_text(our_fans)}\n"
        f"    ref  {ref.total}: {_fans_text(ref.fans)}"
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_scores_agree_with_the_reference(seed: int) -> None:
    problems = [p for i, h in enumerate(random_hands(seed, CHUNK)) if (p := _disagreement(seed, i, h))]
    assert not problems, f"{len(problems)} of {CHUNK} hands disagree:\n" + "\n".join(problems[:15])


def test_contradictory_flags_are_ignored_as_the_reference_does() -> None:
    """Any combination of the five flags: both drop the ones the tiles contradict."""
    seed, flags = 20260099, ("self_drawn", "last_tile", "last_of_wall", "kong_replacement", "robbing_kong")
    rng = random.Random(seed)
    hands = [
        replace(h, context=replace(h.context, **{f: rng.random() < 0.35 for f in flags}))
        for h in random_hands(seed, CHUNK)
    ]
    problems = [p for i, h in enumerate(hands) if (p := _disagreement(seed, i, h))]
    assert not problems, f"{len(problems)} of {CHUNK} hands disagree:\n" + "\n".join(problems[:15])


def test_reference_adapter_maps_every_fan() -> None:
    """The targeted hands make the reference name every one of the 81 fans, all mapped to our ids."""
    seen: set[int] = set()
    for fan_id in range(1, 82):
        for hand in random_hands(fan_id, 10, target_fan=fan_id):
            seen |= set(reference_score(hand, FAN_IDS_BY_NAME).fans)
    assert seen == set(range(1, 82))


def test_waits_agree_with_the_reference() -> None:
    """For ready hands (generated hands less their winning tile): the same winning tiles, and the
    same discard score for each, as the reference reports tile by tile."""
    from mcr_reference import ReferenceRefused

    from scoring.tiles import ALL_TILES
    from scoring.waits import waits

    seed = 20260098
    for index, hand in enumerate(random_hands(seed, 300)):
        context = replace(hand.context, self_drawn=False, last_tile=False, last_of_wall=False,
                          kong_replacement=False, robbing_kong=False)
        ours = {w.tile: w.discard.total for w in waits(hand.melds, hand.concealed, context) if w.discard}
        held = hand.tile_counts()
        held[hand.win_tile] -= 1
        ref = {}
        for tile in ALL_TILES:
            if held[tile] < 4:
                with contextlib.suppress(ReferenceRefused):
                    ref[tile] = reference_score(replace(hand, win_tile=tile, context=context), FAN_IDS_BY_NAME).total
        assert ours == ref, f"seed={seed} index={index} hand={format_hand(hand)!r}"
