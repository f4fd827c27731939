"""The random hand generator: legal hands, consistent flags, every shape, every fan reachable."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from datasets.hands import SHAPES, TEMPLATES, random_hand, random_hands
from scoring.hand import Hand, MeldKind
from scoring.notation import format_hand, parse_hand
from scoring.tiles import ALL_TILES


def _flag_problems(hand: Hand) -> list[str]:
    c = hand.context
    in_melds = sum(t == hand.win_tile for m in hand.melds for t in m.tiles)
    in_standing = hand.win_tile in hand.concealed
    problems = []
    if c.kong_replacement and not (c.self_drawn and any(m.kind is MeldKind.KONG for m in hand.melds)):
        problems.append("kong replacement without self-drawn kong")
    if c.robbing_kong and (c.self_drawn or in_melds or in_standing):
        problems.append("robbing a kong of a tile the hand holds, or self-drawn")
    if c.last_tile and in_standing:
        problems.append("last tile while the standing tiles hold another copy")
    if in_melds == 3 and not c.last_tile:
        problems.append("melds show three copies but last_tile is off")
    if c.last_of_wall and c.robbing_kong:
        problems.append("last of wall with robbing the kong")
    return problems


def test_same_seed_same_hands() -> None:
    assert random_hands(7, 50) == random_hands(7, 50)
    assert random_hands(7, 50) != random_hands(8, 50)


def test_hands_are_legal_and_flags_consistent() -> None:
    for i, hand in enumerate(random_hands(1, 3000)):
        assert hand.validate() == hand, i
        assert max(hand.tile_counts().values()) <= 4
        assert len(hand.concealed) == 13 - 3 * len(hand.melds)
        assert 0 <= hand.context.flowers <= 8
        assert _flag_problems(hand) == [], (i, format_hand(hand))
        assert parse_hand(format_hand(hand)) == hand


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape(shape: str) -> None:
    hands = random_hands(3, 200, shape=shape)
    for hand in hands:
        assert _flag_problems(hand) == []
        if shape != "standard" and shape != "knitted_straight":
            assert hand.melds == ()
            assert len(set(hand.concealed_with_win)) in {
                "seven_pairs": range(1, 8),
                "thirteen_orphans": (13,),
                "honors_knitted": (14,),
            }[shape]


def test_knitted_shapes_have_their_variants() -> None:
    honors_counts = Counter(sum(t.is_honor for t in h.concealed_with_win) for h in random_hands(4, 200, shape="honors_knitted"))
    assert set(honors_counts) == {5, 6, 7}  # lesser (5 or 6 honors) and greater (all 7) honors and knitted tiles
    straights = random_hands(4, 200, shape="knitted_straight")
    assert 0 < sum(len(h.melds) == 1 for h in straights) < len(straights)  # the set melded or concealed
    assert all(len(h.melds) <= 1 for h in straights)


def test_random_mix_covers_shapes_melds_and_flags() -> None:
    hands = random_hands(5, 3000)
    kinds = Counter(
        ("concealed kong" if m.concealed else m.kind.value) for h in hands for m in h.melds
    )
    assert min(kinds[k] for k in ("chow", "pung", "kong", "concealed kong")) > 50
    assert {h.context.flowers for h in hands} == set(range(9))
    assert {str(h.context.seat_wind) for h in hands} == set("ESWN")
    assert {str(h.context.prevalent_wind) for h in hands} == set("ESWN")
    for flag in ("self_drawn", "last_tile", "last_of_wall", "kong_replacement", "robbing_kong"):
        assert 0 < sum(getattr(h.context, flag) for h in hands) < len(hands), flag
    assert any(len(set(h.concealed_with_win)) == 13 and not h.melds for h in hands)  # thirteen orphans
    used = Counter(t for h in hands for t in h.all_tiles)
    assert set(used) == set(ALL_TILES)


def test_unknown_shape_or_fan_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown shape"):
        random_hand(random.Random(0), shape="pinwheel")
    with pytest.raises(ValueError, match="unknown fan"):
        random_hand(random.Random(0), target_fan=82)


@pytest.mark.parametrize("fan_id", sorted(TEMPLATES))
def test_every_target_fan_gives_legal_hands(fan_id: int) -> None:
    assert sorted(TEMPLATES) == list(range(1, 82))
    for hand in random_hands(fan_id, 30, target_fan=fan_id):
        assert hand.validate() == hand
        assert _flag_problems(hand) == [], format_hand(hand)


def test_target_fan_appears_in_the_score_of_most_draws() -> None:
    """Each template builds its fan; now and then a bigger fan excludes it (e.g. a closed wait
    that also reads as a single wait), so most draws, not all."""
    from scoring.scorer import score

    misses = {}
    for fan_id in sorted(TEMPLATES):
        hands = random_hands(100 + fan_id, 25, target_fan=fan_id)
        missed = [format_hand(h) for h in hands if fan_id not in {fc.fan.id for fc in score(h).fans}]
        if len(missed) > 5:
            misses[fan_id] = missed[:3]
    assert misses == {}


def test_command_line_prints_the_seeded_hands() -> None:
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "datasets.hands", "--seed", "9", "--n", "5", "--target-fan", "7"],
                         capture_output=True, text=True, check=True)
    hands = [Hand.from_json(line) for line in out.stdout.splitlines()]
    assert hands == random_hands(9, 5, target_fan=7)
    notation = subprocess.run([sys.executable, "-m", "datasets.hands", "--seed", "9", "--n", "5", "--notation"],
                              capture_output=True, text=True, check=True)
    assert [parse_hand(line) for line in notation.stdout.splitlines()] == random_hands(9, 5)
    assert json.loads(json.dumps(hands[0].to_json()))["melds"] == []
