"""The zoomed strip of tiles under the photo (appui.photo_zoom): reading order, cells a fingertip wide on a
phone, a tap on a cell picking its tile, the doubted and picked tiles marked."""

from __future__ import annotations

import numpy as np
import pytest

from appui.photo_zoom import DOUBT_RED, SELECTED_BLUE, ZoomStrip, draw_strip, reading_order
from appui.settings import DEFAULT_APP_SETTINGS

# two rows as a photo shows them: melds above (y 10-50), the standing tiles below (y 100-140), given out of order
BOXES = [(300, 100, 330, 140), (10, 12, 40, 52), (100, 98, 130, 138), (50, 10, 80, 50), (200, 102, 230, 142)]


def test_tiles_are_read_row_by_row_left_to_right():
    assert reading_order(BOXES) == [1, 3, 2, 4, 0]
    assert reading_order([]) == []


def test_on_a_phone_every_cell_is_a_fingertip_wide():
    settings = DEFAULT_APP_SETTINGS
    strip = ZoomStrip.of(BOXES * 3, settings.zoom_columns, settings.zoom_cell_px)
    phone_content_px = 390 - 2 * 16  # the page's side padding on a phone
    assert strip.shown_cell_width(phone_content_px) >= settings.touch_target_px
    assert strip.rows == 3 and strip.size == (settings.zoom_columns * 96, 3 * 128)


@pytest.mark.parametrize("x, y, tile", [
    (5, 5, 1),  # first cell, first row
    (60, 70, 3),  # second cell
    (60 * 4 + 10, 10, 0),  # fifth cell: the last tile
    (60 * 5 + 10, 10, None),  # a cell without a tile
    (5, 90, None),  # the second row is empty
])
def test_a_tap_picks_the_tile_in_its_cell(x, y, tile):
    strip = ZoomStrip.of(BOXES, 6, 96)  # shown 360 px wide: cells 60 x 80
    assert strip.tile_at({"x": x, "y": y, "width": 360, "height": 80}) == tile


def test_a_tap_that_is_not_one_picks_nothing():
    strip = ZoomStrip.of(BOXES, 6, 96)
    assert strip.tile_at(None) is None and strip.tile_at({"x": 1}) is None and strip.tile_at({"x": 1, "y": 1, "width": 0}) is None


def test_the_doubted_tile_is_framed_red_and_the_picked_one_blue():
    image = np.full((200, 400, 3), 90, np.uint8)
    strip = ZoomStrip.of(BOXES, 6, 96)
    drawn = draw_strip(image, BOXES, ["meld0", "meld0", "hand", "meld0", "hand"], strip, doubted=[2], selected=0)
    assert drawn.shape == (128, 576, 3)
    cell = {index: n for n, index in enumerate(strip.order)}

    def frame_colour(index: int) -> tuple[int, ...]:
        left = cell[index] * 96
        return tuple(int(v) for v in drawn[64, left + 2])  # the cell's left edge, half way down

    assert frame_colour(2) == DOUBT_RED and frame_colour(0) == SELECTED_BLUE
    assert frame_colour(4) not in (DOUBT_RED, SELECTED_BLUE)
    assert (drawn[:, 5 * 96 + 10:] == 255).all()  # the empty cell stays white
