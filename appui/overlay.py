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
    for i, (box, label, group) in enumerate(zip(boxes, labels, groups)):
        x1, y1, x2, y2 = (int(round(v)) for v in box)
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
