"""Scenes of a club's tiles at play, composed from its calibration photo (`training.play_scenes`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from training.play_scenes import KINDS, MIN_VISIBLE, compose, cut_tiles, scenes_of, table_of

TABLE_BGR = (40, 110, 30)


def layout_photo(tiles: int = 9) -> tuple[np.ndarray, np.ndarray]:
    """A green table with a row of white tiles, each with its own dark mark: the picture and the tiles' boxes."""
    picture = np.zeros((240, 480, 3), np.uint8)
    picture[:] = TABLE_BGR
    boxes = []
    for k in range(tiles):
        x1, y1 = 20 + 48 * k, 90
        picture[y1:y1 + 56, x1:x1 + 40] = 235
        picture[y1 + 10 + 3 * k:y1 + 20 + 3 * k, x1 + 10:x1 + 30] = 20 * k
        boxes.append((x1, y1, x1 + 40, y1 + 56))
    return picture, np.array(boxes, np.float32)


def test_the_table_is_the_photo_with_its_tiles_painted_out() -> None:
    picture, boxes = layout_photo()
    table = table_of(picture, boxes)
    assert table.shape == picture.shape
    tile_pixels = table[100:140, 30:50].reshape(-1, 3).astype(int)
    assert np.abs(tile_pixels - np.array(TABLE_BGR)).max() < 30  # the white tile is gone
    assert (table[5:20, 5:20] == picture[5:20, 5:20]).all()  # the table far from the tiles is left as it was


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_scene_boxes_its_tiles_inside_the_picture(kind: str) -> None:
    picture, boxes = layout_photo()
    faces = cut_tiles(picture, boxes)
    scene = compose(faces, [], table_of(picture, boxes), random.Random(3), (320, 240), kind)
    assert scene.kind == kind and scene.picture.shape == (240, 320, 3)
    assert len(scene.faces) >= (3 if kind == "scattered" else 5) and len(scene.backs) == 0
    x1, y1, x2, y2 = scene.faces.T
    assert (x1 >= 0).all() and (y1 >= 0).all() and (x2 <= 320).all() and (y2 <= 240).all()
    assert ((x2 - x1) >= 3).all() and ((y2 - y1) >= 3).all()
    for a, b, c, d in scene.faces.astype(int):  # a labeled tile shows tile pixels (bright), not the table alone
        assert scene.picture[b:d, a:c].mean() > np.mean(TABLE_BGR) + 20


def test_a_standing_row_lies_side_by_side_and_every_tile_in_it_is_labeled() -> None:
    picture, boxes = layout_photo()
    scene = compose(cut_tiles(picture, boxes), [], table_of(picture, boxes), random.Random(5), (640, 480), "standing_row")
    order = np.argsort(scene.faces[:, 0])
    left, right = scene.faces[order[:-1]], scene.faces[order[1:]]
    assert (right[:, 0] >= left[:, 2] - 0.1 * (left[:, 2] - left[:, 0])).all()  # touching, barely overlapping
    centres = (scene.faces[:, 1] + scene.faces[:, 3]) / 2
    assert np.ptp(centres) < np.median(scene.faces[:, 3] - scene.faces[:, 1])  # one row
    assert 5 <= len(scene.faces) <= 14


def test_a_tile_mostly_hidden_by_others_is_not_labeled() -> None:
    """Scattered tiles overlap: over many scenes some placed tiles are left unlabeled, and each labeled box is
    at least MIN_VISIBLE of a tile's size."""
    picture, boxes = layout_photo()
    faces, table = cut_tiles(picture, boxes), table_of(picture, boxes)
    rng = random.Random(11)
    labeled = [compose(faces, [], table, rng, (200, 160), "scattered").faces for _ in range(30)]
    sizes = np.concatenate([(b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) for b in labeled])
    assert sizes.min() > 0 and MIN_VISIBLE > 0
    assert min(len(b) for b in labeled) < 6 <= max(len(b) for b in labeled)  # at least 6 placed; some hidden


def test_scenes_of_a_photo_take_the_kinds_in_turn_and_are_the_same_for_one_seed() -> None:
    picture, boxes = layout_photo()
    first = scenes_of(picture, boxes, np.zeros((0, 4), np.float32), 8, random.Random(1))
    again = scenes_of(picture, boxes, np.zeros((0, 4), np.float32), 8, random.Random(1))
    assert [s.kind for s in first] == list(KINDS) * 2
    assert all((a.picture == b.picture).all() and (a.faces == b.faces).all() for a, b in zip(first, again, strict=False))
    assert scenes_of(picture, np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32), 4, random.Random(1)) == []
