"""Boxes and labels drawn over a photo or video frame, coloured by group; tile crops for the strip."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

# BGR, one colour per group of the layout
GROUP_COLOURS: dict[str, tuple[int, int, int]] = {
    "hand": (60, 180, 75),
    "win": (0, 140, 255),
    "meld0": (230, 50, 50),
    "meld1": (200, 80, 200),
    "meld2": (200, 160, 0),
    "meld3": (120, 60, 200),
    "flowers": (180, 30, 160),
    "": (200, 200, 200),
}


def group_colour(group: str) -> tuple[int, int, int]:
    return GROUP_COLOURS.get(group, GROUP_COLOURS[""])


def draw_boxes(
    image_bgr: np.ndarray,
    boxes: Sequence[tuple[float, float, float, float]],
    labels: Sequence[str],
    groups: Sequence[str],
    *,
    highlight: int | None = None,
) -> np.ndarray:
    """A copy of the image with every box drawn in its group's colour and its label above it."""
    out = image_bgr.copy()
    side = max(out.shape[:2])
    thickness = max(1, round(side / 500))
    scale = max(0.35, side / 1600)
    for i, (box, label, group) in enumerate(zip(boxes, labels, groups, strict=False)):
        x1, y1, x2, y2 = (round(v) for v in box)
        colour = group_colour(group)
        width = thickness * 3 if i == highlight else thickness
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, width)
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
        top = max(0, y1 - th - base - 2)
        cv2.rectangle(out, (x1, top), (x1 + tw + 2, top + th + base + 2), colour, -1)
        cv2.putText(out, label, (x1 + 1, top + th + 1), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thickness, cv2.LINE_AA)
    return out


def crop(image_bgr: np.ndarray, box: tuple[float, float, float, float], height: int) -> np.ndarray:
    """The tile's box cut out (a little margin) and scaled to `height` pixels."""
    h, w = image_bgr.shape[:2]
    x1, y1, x2, y2 = box
    mx, my = 0.05 * (x2 - x1), 0.05 * (y2 - y1)
    a, b = max(0, int(x1 - mx)), max(0, int(y1 - my))
    c, d = min(w, int(np.ceil(x2 + mx))), min(h, int(np.ceil(y2 + my)))
    if c <= a or d <= b:
        return np.full((height, max(1, height * 3 // 4), 3), 200, np.uint8)
    part = image_bgr[b:d, a:c]
    scale = height / part.shape[0]
    return cv2.resize(part, (max(1, round(part.shape[1] * scale)), height), interpolation=cv2.INTER_AREA)


def fit(image_bgr: np.ndarray, max_side: int) -> np.ndarray:
    """The image shrunk so that its longest side is at most `max_side` (never enlarged)."""
    h, w = image_bgr.shape[:2]
    scale = max_side / max(h, w)
    if scale >= 1:
        return image_bgr
    return cv2.resize(image_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)


DOUBT_COLOUR = (40, 40, 230)  # BGR red: a tile to check
SELECTED_COLOUR = (255, 255, 255)


def draw_checks(
    image_bgr: np.ndarray,
    boxes: Sequence[tuple[float, float, float, float]],
    groups: Sequence[str],
    doubted: Sequence[int],
    selected: int | None,
    view: tuple[int, int, int, int],
    shown_css_px: int,
) -> np.ndarray:
    """The part `view` (x0, y0, width, height) of the photo, each tile outlined thinly in its group's
    colour, the `doubted` ones thick red with their number (1, 2, ... in that order), the `selected`
    one in white; line widths are in CSS pixels of the view shown `shown_css_px` wide."""
    x0, y0, width, height = view
    out = image_bgr[y0:y0 + height, x0:x0 + width].copy()
    px = max(1.0, width / shown_css_px)  # photo pixels per CSS pixel
    thin, thick = max(1, round(1.5 * px)), max(2, round(3.5 * px))
    numbers = {index: n + 1 for n, index in enumerate(doubted)}
    order = sorted(range(len(boxes)), key=lambda i: (i in numbers, i == selected))  # marked ones drawn last
    for i in order:
        x1, y1, x2, y2 = (round(v) for v in (boxes[i][0] - x0, boxes[i][1] - y0, boxes[i][2] - x0, boxes[i][3] - y0))
        if i == selected:
            cv2.rectangle(out, (x1 - thick, y1 - thick), (x2 + thick, y2 + thick), (0, 0, 0), thick)
            cv2.rectangle(out, (x1, y1), (x2, y2), SELECTED_COLOUR, thick)
        elif i in numbers:
            cv2.rectangle(out, (x1, y1), (x2, y2), DOUBT_COLOUR, thick)
        else:
            cv2.rectangle(out, (x1, y1), (x2, y2), group_colour(groups[i]), thin)
        if i in numbers:
            _badge(out, str(numbers[i]), (x1 + x2) // 2, y1, px)
    return out


def _badge(image: np.ndarray, text: str, cx: int, top: int, px: float) -> None:
    """A red disc with a white number, centred on (cx, top): a doubt's number, readable on a phone."""
    radius = max(6, round(9 * px))
    cy = max(radius, top)
    cv2.circle(image, (cx, cy), radius, DOUBT_COLOUR, -1, cv2.LINE_AA)
    scale = radius / 14
    weight = max(1, round(radius / 6))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, weight)
    cv2.putText(image, text, (cx - tw // 2, cy + th // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), weight,
                cv2.LINE_AA)
