"""Crop geometry shared by classifier training and the runtime."""

from __future__ import annotations

import numpy as np
import pytest

from vision.crops import cut_tile, cut_tiles, grow_box, pad_to_square
from vision.settings import DetectorSettings

PAD = DetectorSettings().crop_pad_value
NO_MARGIN = DetectorSettings(crop_margin=0.0)


def test_grow_box_adds_margin_and_clips_to_image():
    grown = grow_box(np.array([[10, 20, 30, 60]]), 0.1, width=100, height=100)[0]
    np.testing.assert_allclose(grown, [8, 16, 32, 64])
    clipped = grow_box(np.array([[0, 0, 100, 50]]), 0.2, width=100, height=55)[0]
    np.testing.assert_allclose(clipped, [0, 0, 100, 55])


def test_pad_to_square_keeps_aspect_and_centres():
    patch = np.full((40, 20, 3), 200, np.uint8)  # portrait 1:2
    square = pad_to_square(patch, 32, PAD)
    assert square.shape == (32, 32, 3)
    # content 16 wide x 32 tall in the middle, grey on both sides
    assert (square[:, 8:24] == 200).all()
    assert (square[:, :8] == PAD).all() and (square[:, 24:] == PAD).all()


def test_portrait_tile_fills_height_of_crop():
    image = np.zeros((100, 100, 3), np.uint8)
    image[20:80, 30:60] = (0, 0, 255)  # a 30x60 red tile
    crop = cut_tile(image, [30, 20, 60, 80], 64, NO_MARGIN)
    red = (crop[..., 2] > 200) & (crop[..., 0] < 50)
    rows, cols = np.nonzero(red)
    assert rows.min() <= 1 and rows.max() >= 62  # full height
    assert 30 <= cols.max() - cols.min() + 1 <= 34  # half width: aspect 1:2 kept


def test_sideways_tile_is_turned_upright():
    image = np.zeros((100, 100, 3), np.uint8)
    image[40:60, 10:50] = (255, 0, 0)  # a 40x20 blue tile lying sideways
    image[40:60, 10:14] = (0, 255, 0)  # green mark on its left end
    crop = cut_tile(image, [10, 40, 50, 60], 64, NO_MARGIN)
    blue = crop[..., 0] > 200
    rows, cols = np.nonzero(blue)
    assert rows.max() - rows.min() > cols.max() - cols.min()  # now taller than wide
    green_rows = np.nonzero(crop[..., 1] > 200)[0]
    assert green_rows.mean() < 16  # turned clockwise: the left end is now at the top


def test_square_tile_is_not_rotated():
    image = np.zeros((50, 50, 3), np.uint8)
    image[10:40, 10:40] = 255
    image[10:14, 10:40] = (0, 255, 0)  # green top edge
    crop = cut_tile(image, [10, 10, 40, 40], 30, NO_MARGIN)
    green = (crop[..., 1] > 200) & (crop[..., 2] < 50)
    assert np.nonzero(green)[0].max() < 6  # the green edge stays at the top


def test_box_outside_image_gives_grey_crop_and_batch_shape():
    image = np.zeros((20, 20, 3), np.uint8)
    assert (cut_tile(image, [50, 50, 60, 70], 16) == PAD).all()
    batch = cut_tiles(image, np.array([[0, 0, 10, 20], [5, 5, 15, 15]], np.float32), 16)
    assert batch.shape == (2, 16, 16, 3) and batch.dtype == np.uint8
    assert cut_tiles(image, np.zeros((0, 4)), 16).shape == (0, 16, 16, 3)


@pytest.mark.parametrize("margin", [0.0, 0.06, 0.2])
def test_margin_shrinks_tile_inside_crop(margin):
    image = np.zeros((200, 200, 3), np.uint8)
    image[50:150, 75:125] = 255
    crop = cut_tile(image, [75, 50, 125, 150], 100, DetectorSettings(crop_margin=margin))
    white_rows = np.nonzero((crop > 200).all(axis=2).any(axis=1))[0]
    assert white_rows.max() - white_rows.min() + 1 == pytest.approx(100 / (1 + 2 * margin), abs=2)


def test_a_tile_stretched_far_taller_than_any_tile_is_widened_back():
    image = np.zeros((200, 100, 3), np.uint8)
    image[10:190, 45:55] = (0, 0, 255)  # 10 wide x 180 tall: a photo stretched on export
    crop = cut_tile(image, [45, 10, 55, 190], 64, NO_MARGIN)
    rows, cols = np.nonzero((crop[..., 2] > 200) & (crop[..., 0] < 50))
    assert rows.min() <= 1 and rows.max() >= 62
    width = cols.max() - cols.min() + 1
    assert width == pytest.approx(64 / DetectorSettings().max_crop_aspect, abs=2)  # not a 4-pixel sliver
