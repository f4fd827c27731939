"""The photo as a phone shows it (appui.phototap, appui.overlay.draw_checks) and tile names short enough for a
tile-wide button (appui.i18n.tile_short)."""

import numpy as np
import pytest

from appui.i18n import tile_short
from appui.overlay import DOUBT_COLOUR, draw_checks
from appui.phototap import View, tap_point, tile_at
from tileset.classes import CLASS_NAMES

BOXES = [(100.0, 200.0, 140.0, 256.0), (142.0, 200.0, 182.0, 256.0), (400.0, 500.0, 440.0, 556.0)]


def test_the_view_is_the_tiles_area_with_a_margin_inside_the_image():
    view = View.around(BOXES, (1000, 800), margin=0.1)
    assert (view.x0, view.y0) == (64, 164)  # 340 px wide and 356 high: a margin of 35.6 px
    assert (view.x0 + view.width, view.y0 + view.height) == (476, 592)
    assert View.around(BOXES, (450, 560), margin=1.0) == View(0, 0, 450, 560)  # clipped to the image
    assert View.around([], (640, 480), margin=0.1) == View(0, 0, 640, 480)


def test_a_tap_picks_the_tile_under_it_or_the_nearest_within_reach():
    view = View(0, 0, 1000, 800)  # shown 500 CSS px wide: 2 photo px per CSS px
    tap = {"x": 60, "y": 110, "width": 500, "height": 400}  # photo (120, 220): the first box
    assert tile_at(BOXES, view, tap, reach_css_px=22) == 0
    beside = {"x": 195, "y": 240, "width": 500, "height": 400}  # photo (390, 480): 10 CSS px off the third box
    assert tile_at(BOXES, view, beside, reach_css_px=22) == 2
    assert tile_at(BOXES, view, beside, reach_css_px=5) is None
    far = {"x": 400, "y": 50, "width": 500, "height": 400}
    assert tile_at(BOXES, view, far, reach_css_px=22) is None


def test_a_tap_on_a_cut_view_is_counted_from_the_view_corner():
    view = View(100, 200, 100, 60)  # shown 300 CSS px wide: 1/3 photo px per CSS px
    tap = {"x": 150, "y": 30, "width": 300, "height": 180}  # photo (150, 210): the second box
    assert tile_at(BOXES, view, tap, reach_css_px=22) == 1


@pytest.mark.parametrize("value", [None, {}, {"x": 1}, {"x": "a", "y": 2, "width": 3}, {"x": 1, "y": 2, "width": 0},
                                   {"x1": 1, "y1": 2, "x2": 3, "y2": 4, "width": 10}])
def test_what_is_not_a_tap_picks_nothing(value):
    assert tap_point(value) is None
    assert tile_at(BOXES, View(0, 0, 100, 100), value, 22) is None


def test_doubted_tiles_are_drawn_red_and_the_view_is_cut_out():
    image = np.full((800, 1000, 3), 128, np.uint8)
    view = View.around(BOXES, (1000, 800), margin=0.1)
    drawn = draw_checks(image, BOXES, ["hand", "hand", "win"], [2], None,
                        (view.x0, view.y0, view.width, view.height), shown_css_px=360)
    assert drawn.shape == (view.height, view.width, 3)
    red = np.all(drawn == np.array(DOUBT_COLOUR, np.uint8), axis=2)
    ys, xs = np.nonzero(red)
    assert red.sum() > 100
    assert xs.min() >= 400 - view.x0 - 20 and ys.max() <= 556 - view.y0 + 5  # around the third box only
    plain = draw_checks(image, BOXES, ["hand", "hand", "win"], [], None,
                        (view.x0, view.y0, view.width, view.height), shown_css_px=360)
    assert not np.all(plain == np.array(DOUBT_COLOUR, np.uint8), axis=2).any()


def test_every_tile_has_a_short_name_in_words_in_both_languages():
    english = [tile_short(name, "en") for name in CLASS_NAMES]
    chinese = [tile_short(name, "zh") for name in CLASS_NAMES]
    assert english[:3] == ["1 Char", "2 Char", "3 Char"] and tile_short("9s", "en") == "9 Bam"
    assert tile_short("F", "en") == "Green" and tile_short("back", "en") == "Back"
    assert tile_short("9s", "zh") == "九条" and tile_short("back", "zh") == "牌背"
    assert len(set(english)) == len(set(chinese)) == len(CLASS_NAMES)  # no two tiles named alike
    assert all(len(name) <= 7 for name in english)  # fits a tile-wide button
    assert not any(name in english for name in ("1m", "F", "back", "—"))  # words, not codes
