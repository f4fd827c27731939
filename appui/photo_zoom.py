"""The zoomed tile strip under the photo: every tile cut out and laid in rows of cells wide enough for a
fingertip, a tap on a cell picking its tile (pure: numpy and OpenCV, no Streamlit).

On a phone the photo shows each tile 17-41 CSS px wide, under the 44 px a fingertip needs; the strip
shows the same tiles in the photo's reading order (row by row, left to right), each in its group's
colour, the doubted ones framed red with their number from the photo, the tile being fixed marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .overlay import crop, group_colour
from .phototap import Box, tap_point

DOUBT_RED = (40, 40, 230)  # BGR: the red of the doubted tiles on the photo
SELECTED_BLUE = (230, 120, 20)


def reading_order(boxes: Sequence[Box]) -> list[int]:
    """Tile indices row by row (a row: centres within half a tile's height), each row left to right."""
    if not boxes:
        return []
    heights = sorted(b[3] - b[1] for b in boxes)
    band = max(1.0, heights[len(heights) // 2] / 2)
    by_y = sorted(range(len(boxes)), key=lambda i: (boxes[i][1] + boxes[i][3]) / 2)
    rows: list[list[int]] = []
    row_y = None
    for i in by_y:
        y = (boxes[i][1] + boxes[i][3]) / 2
        if row_y is None or y - row_y > band:
            rows.append([])
            row_y = y
        rows[-1].append(i)
    return [i for row in rows for i in sorted(row, key=lambda i: boxes[i][0])]


@dataclass(frozen=True)
class ZoomStrip:
    """Tiles `order` laid `columns` to a row in cells `cell_w` x `cell_h` pixels of the strip's picture."""

    order: tuple[int, ...]
    columns: int
    cell_w: int
    cell_h: int

    @staticmethod
    def of(boxes: Sequence[Box], columns: int, cell_w: int) -> ZoomStrip:
        return ZoomStrip(tuple(reading_order(boxes)), max(1, columns), cell_w, cell_w * 4 // 3)

    @property
    def rows(self) -> int:
        return max(1, -(-len(self.order) // self.columns))

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the strip's picture, pixels."""
        return self.columns * self.cell_w, self.rows * self.cell_h

    def shown_cell_width(self, shown_width: float) -> float:
        """A cell's width on the screen when the picture is shown `shown_width` CSS px wide."""
        return shown_width / self.columns

    def tile_at(self, value: object) -> int | None:
        """The tile whose cell a tap (streamlit-image-coordinates' answer) hit; None off the tiles."""
        tap = tap_point(value)
        if tap is None:
            return None
        x, y, shown_width = tap
        scale = self.size[0] / shown_width
        column, row = int(x * scale // self.cell_w), int(y * scale // self.cell_h)
        cell = row * self.columns + column
        if not (0 <= column < self.columns and row >= 0 and cell < len(self.order)):
            return None
        return self.order[cell]


def draw_strip(image_bgr: np.ndarray, boxes: Sequence[Box], groups: Sequence[str], strip: ZoomStrip,
               doubted: Sequence[int] = (), selected: int | None = None) -> np.ndarray:
    """The strip's picture: each tile's crop fitted in its cell on white, framed in its group's colour; a
    doubted tile framed red with its number (1 = the first doubted, as on the photo), the selected one blue."""
    width, height = strip.size
    out = np.full((height, width, 3), 255, np.uint8)
    pad = max(2, strip.cell_w // 16)
    for cell, index in enumerate(strip.order):
        left, top = (cell % strip.columns) * strip.cell_w, (cell // strip.columns) * strip.cell_h
        tile = crop(image_bgr, boxes[index], strip.cell_h - 2 * pad)
        inner_w = strip.cell_w - 2 * pad
        if tile.shape[1] > inner_w:
            tile = cv2.resize(tile, (inner_w, max(1, round(tile.shape[0] * inner_w / tile.shape[1]))),
                              interpolation=cv2.INTER_AREA)
        th, tw = tile.shape[:2]
        x0, y0 = left + (strip.cell_w - tw) // 2, top + (strip.cell_h - th) // 2
        out[y0:y0 + th, x0:x0 + tw] = tile
        if index == selected:
            colour, thickness = SELECTED_BLUE, pad
        elif index in doubted:
            colour, thickness = DOUBT_RED, pad
        else:
            colour, thickness = group_colour(groups[index]), max(1, pad // 2)
        cv2.rectangle(out, (left + 1, top + 1), (left + strip.cell_w - 2, top + strip.cell_h - 2), colour, thickness)
        if index in doubted:
            label = str(list(doubted).index(index) + 1)
            scale = strip.cell_w / 110
            (lw, lh), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
            cv2.rectangle(out, (left + 1, top + 1), (left + lw + 8, top + lh + base + 6), DOUBT_RED, -1)
            cv2.putText(out, label, (left + 4, top + lh + 4), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 2,
                        cv2.LINE_AA)
    return out
