"""The photo as the phone shows it: cut to the tiles, and a tap on it turned into the tile it hit (pure).

A phone shows the photo about 360 CSS px wide; a whole table photo would make each tile a few
pixels, so the view is the part of the photo that holds the tiles.  A tap is answered by
streamlit-image-coordinates in CSS pixels of the image as shown; `tile_at` takes the tile whose
box holds the point, else the nearest one within a finger's reach (`reach_css_px`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class View:
    """The part of the photo shown: its corner and size in photo pixels."""

    x0: int
    y0: int
    width: int
    height: int

    @staticmethod
    def around(boxes: Sequence[Box], image_wh: tuple[int, int], margin: float) -> View:
        """The boxes' bounding rectangle grown by `margin` of its larger side, inside the image;
        the whole image when there are no boxes."""
        w, h = image_wh
        if not boxes:
            return View(0, 0, w, h)
        x1, y1 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x2, y2 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        pad = margin * max(x2 - x1, y2 - y1)
        left, top = max(0, int(x1 - pad)), max(0, int(y1 - pad))
        right, bottom = min(w, int(x2 + pad + 1)), min(h, int(y2 + pad + 1))
        if right <= left or bottom <= top:
            return View(0, 0, w, h)
        return View(left, top, right - left, bottom - top)

    def to_photo(self, x: float, y: float, shown_width: float) -> tuple[float, float]:
        """A point in CSS pixels of the view as shown `shown_width` wide -> photo pixels."""
        scale = self.width / shown_width
        return self.x0 + x * scale, self.y0 + y * scale


def tap_point(value: object) -> tuple[float, float, float] | None:
    """(x, y, shown width) of streamlit-image-coordinates' answer, None when it is not a tap."""
    if not isinstance(value, dict):
        return None
    try:
        x, y, width = float(value["x"]), float(value["y"]), float(value["width"])
    except (KeyError, TypeError, ValueError):
        return None
    return (x, y, width) if width > 0 else None


def tile_at(boxes: Sequence[Box], view: View, value: object, reach_css_px: float) -> int | None:
    """The index of the tile a tap on the shown view hit: the box holding the point (the smallest one
    when boxes overlap), else the box whose edge is nearest within `reach_css_px` on the screen."""
    tap = tap_point(value)
    if tap is None:
        return None
    x, y, shown_width = tap
    px, py = view.to_photo(x, y, shown_width)
    inside = [i for i, (x1, y1, x2, y2) in enumerate(boxes) if x1 <= px <= x2 and y1 <= py <= y2]
    if inside:
        return min(inside, key=lambda i: (boxes[i][2] - boxes[i][0]) * (boxes[i][3] - boxes[i][1]))
    reach = reach_css_px * view.width / shown_width
    best: tuple[float, int] | None = None
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        dx, dy = max(x1 - px, 0.0, px - x2), max(y1 - py, 0.0, py - y2)
        distance = (dx * dx + dy * dy) ** 0.5
        if distance <= reach and (best is None or distance < best[0]):
            best = (distance, i)
    return None if best is None else best[1]
