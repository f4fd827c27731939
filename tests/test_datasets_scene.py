"""plan_scene: the photo layout of photo-layout.md holds for every seed."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from datasets.scene import GROUP_FLOWERS, GROUP_HAND, GROUP_WIN, PlacedTile, plan_layout, plan_scene
from scoring.hand import Hand
from scoring.notation import parse_hand
from tileset.classes import BACK, CLASS_ID, FLOWER_NAMES

HANDS = [
    "[123m] [EEE] (5555p) 78s11p +9s self-drawn seat=S prevalent=W flowers=2",
    "123m456p789s11sEE +E",
    "[4444s] [777p] [CCC] [234m] 9p +9p flowers=8",
    "(1111m) (9999p) [WWW] 23s55s +1s flowers=1",
    "1133557799m112p +2p",
]
SEEDS = range(12)
SIZES = [(1280, 960), (1600, 900), (960, 1280), (640, 480)]


def _cases():
    for i, text in enumerate(HANDS):
        for seed in SEEDS:
            yield text, seed, SIZES[(i + seed) % len(SIZES)]


def _by_group(tiles: list[PlacedTile]) -> dict[str, list[PlacedTile]]:
    groups: dict[str, list[PlacedTile]] = {}
    for t in tiles:
        groups.setdefault(t.group, []).append(t)
    return groups


def _edge(tile: PlacedTile, a: int, b: int) -> float:
    return math.dist(tile.corners[a], tile.corners[b])


@pytest.mark.parametrize(("text", "seed", "size"), list(_cases()))
def test_groups_hold_the_hand(text: str, seed: int, size: tuple[int, int]) -> None:
    hand = parse_hand(text)
    tiles = plan_scene(hand, random.Random(seed), *size)
    groups = _by_group(tiles)
    assert sorted(t.cls for t in groups[GROUP_HAND]) == sorted(str(t) for t in hand.concealed)
    assert [t.cls for t in groups[GROUP_WIN]] == [str(hand.win_tile)]
    flowers = groups.get(GROUP_FLOWERS, [])
    assert len(flowers) == hand.context.flowers
    assert len({t.cls for t in flowers}) == len(flowers) and all(t.cls in FLOWER_NAMES for t in flowers)
    meld_groups = sorted(g for g in groups if g.startswith("meld"))
    assert meld_groups == [f"meld{i}" for i in range(len(hand.melds))]
    shown = sorted(sorted(t.cls for t in groups[g]) for g in meld_groups)
    expected = sorted(
        sorted([BACK, BACK, str(m.tiles[0]), str(m.tiles[0])] if m.concealed else [str(t) for t in m.tiles])
        for m in hand.melds
    )
    assert shown == expected
    assert all(t.cls in CLASS_ID for t in tiles)


@pytest.mark.parametrize(("text", "seed", "size"), list(_cases()))
def test_boxes_lie_inside_the_image_and_match_corners(text: str, seed: int, size: tuple[int, int]) -> None:
    width, height = size
    for t in plan_scene(parse_hand(text), random.Random(seed), width, height):
        x0, y0, x1, y1 = t.xyxy
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
        corners = np.array(t.corners)
        assert corners.shape == (4, 2)
        assert np.allclose(corners.min(axis=0), (x0, y0)) and np.allclose(corners.max(axis=0), (x1, y1))


@pytest.mark.parametrize("seed", SEEDS)
def test_sideways_tiles_are_wider_than_deep_and_only_in_exposed_sets(seed: int) -> None:
    hand = parse_hand(HANDS[2])  # four exposed sets: sideways tiles appear for some seeds
    tiles = plan_scene(hand, random.Random(seed), 1280, 960, sideways_prob=1.0)
    sideways = [t for t in tiles if t.sideways]
    assert len(sideways) == 4  # one per exposed set
    for t in sideways:
        assert t.group.startswith("meld")
        assert _edge(t, 0, 1) > 1.1 * _edge(t, 1, 2)  # along the row > across it
        x0, y0, x1, y1 = t.xyxy
        assert x1 - x0 > y1 - y0
    for t in tiles:
        if not t.sideways:
            assert _edge(t, 0, 1) < _edge(t, 1, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_concealed_kong_shows_two_backs_outside(seed: int) -> None:
    hand = parse_hand(HANDS[3])
    groups = _by_group(plan_scene(hand, random.Random(seed), 1280, 960))
    kongs = [g for g in groups.values() if any(t.cls == BACK for t in g)]
    assert len(kongs) == 2
    for kong in kongs:
        along_row = sorted(kong, key=lambda t: np.mean(t.corners, axis=0) @ _row_direction(t))
        assert [t.cls == BACK for t in along_row] == [True, False, False, True]
        assert along_row[1].cls == along_row[2].cls != BACK


def _row_direction(t: PlacedTile) -> np.ndarray:
    d = np.subtract(t.corners[1], t.corners[0])
    return d / np.linalg.norm(d)


@pytest.mark.parametrize(("text", "seed", "size"), list(_cases()))
def test_winning_tile_is_set_apart_right_of_the_standing_row(text: str, seed: int, size: tuple[int, int]) -> None:
    groups = _by_group(plan_scene(parse_hand(text), random.Random(seed), *size))
    (win,) = groups[GROUP_WIN]
    right = _row_direction(win)
    last = max(groups[GROUP_HAND], key=lambda t: np.mean(t.corners, axis=0) @ right)
    gap = (np.array(win.corners[0]) - np.array(last.corners[1])) @ right
    tile_width = _edge(last, 0, 1)
    assert 0.4 * tile_width < gap < 1.8 * tile_width
    neighbours = sorted(groups[GROUP_HAND], key=lambda t: np.mean(t.corners, axis=0) @ right)
    for a, b in itertools.pairwise(neighbours):  # standing tiles touch or nearly touch
        assert (np.array(b.corners[0]) - np.array(a.corners[1])) @ right < 0.15 * _edge(a, 0, 1)


def test_no_gap_override_and_rows_order() -> None:
    hand = parse_hand(HANDS[0])
    plan = plan_layout(hand, random.Random(3), 1280, 960, win_gap=0.0, rotation_deg=0.0, tilt_deg=0.0)
    groups = _by_group(list(plan.tiles))
    (win,) = groups[GROUP_WIN]
    last = max(groups[GROUP_HAND], key=lambda t: t.xyxy[2])
    assert win.xyxy[0] - last.xyxy[2] < 0.1 * (last.xyxy[2] - last.xyxy[0])
    # the standing row is nearest the camera: below every meld in the image
    standing_top = min(t.xyxy[1] for t in groups[GROUP_HAND])
    assert all(t.xyxy[3] <= standing_top + 1 for g, ts in groups.items() if g.startswith("meld") for t in ts)


def test_far_tiles_are_smaller_when_the_camera_tilts() -> None:
    hand = parse_hand(HANDS[0])
    tiles = plan_scene(hand, random.Random(5), 1280, 960, tilt_deg=30.0, rotation_deg=0.0)
    groups = _by_group(tiles)
    near = np.mean([t.xyxy[2] - t.xyxy[0] for t in groups[GROUP_HAND]])
    far = np.mean([t.xyxy[2] - t.xyxy[0] for g, ts in groups.items() if g.startswith("meld") for t in ts if not t.sideways])
    assert far < 0.97 * near


def test_same_seed_same_plan_and_unknown_variation_is_refused() -> None:
    hand: Hand = parse_hand(HANDS[1])
    assert plan_scene(hand, random.Random(9), 800, 600) == plan_scene(hand, random.Random(9), 800, 600)
    assert plan_scene(hand, random.Random(9), 800, 600) != plan_scene(hand, random.Random(10), 800, 600)
    with pytest.raises(TypeError, match="unknown scene variation"):
        plan_scene(hand, random.Random(9), 800, 600, colour="red")
