"""Crop geometry shared by classifier training and the runtime.

A tile box is grown by a small margin, cut from the full-resolution image,
turned upright when it lies sideways (tiles are taller than wide), widened
when it is far thinner than any tile (a photo stretched on export), scaled so
its long side fills the classifier input and padded to a square with grey.
Training crops and runtime crops go through the same function, so the
classifier sees at run time exactly what it was trained on.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.settings import DetectorSettings
from vision.timing import CROPS, stage

DEFAULT = DetectorSettings()


def crop_geometry(settings: DetectorSettings = DEFAULT) -> dict[str, float]:
    """The settings that decide what a crop looks like: crops cut under other values must be cut again."""
    return {"margin": settings.crop_margin, "pad": settings.crop_pad_value,
            "sideways_ratio": settings.sideways_ratio, "max_aspect": settings.max_crop_aspect}


def grow_box(xyxy: np.ndarray, margin: float, width: int, height: int) -> np.ndarray:
    """Boxes (N,4) grown by `margin` x their size on each side, clipped to the image."""
    boxes = np.asarray(xyxy, np.float32).reshape(-1, 4)
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    grown = boxes + np.stack([-w * margin, -h * margin, w * margin, h * margin], axis=1)
    grown[:, [0, 2]] = grown[:, [0, 2]].clip(0, width)
    grown[:, [1, 3]] = grown[:, [1, 3]].clip(0, height)
    return grown


def pad_to_square(patch: np.ndarray, size: int, pad_value: int) -> np.ndarray:
    """Scale `patch` so its long side is `size` (aspect kept), centre it on a grey square."""
    h, w = patch.shape[:2]
    scale = size / max(h, w)
    new_w, new_h = max(1, round(w * scale)), max(1, round(h * scale))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(patch, (new_w, new_h), interpolation=interpolation)
    square = np.full((size, size, 3), pad_value, np.uint8)
    top, left = (size - new_h) // 2, (size - new_w) // 2
    square[top : top + new_h, left : left + new_w] = resized
    return square


def margin_share(settings: DetectorSettings = DEFAULT) -> float:
    """The share of a `cut_upright` crop's width (or height) that lies beyond the tile's box on each
    side, before clipping at the image's edge."""
    return settings.crop_margin / (1 + 2 * settings.crop_margin)


def cut_upright(
    image_bgr: np.ndarray, xyxy: np.ndarray | list[float], settings: DetectorSettings = DEFAULT
) -> np.ndarray | None:
    """The tile at `xyxy` (pixels of `image_bgr`), grown by the margin, turned upright, at its own
    resolution; None when the box lies outside the image."""
    with stage(CROPS):
        return _cut_upright(image_bgr, xyxy, settings)


def _cut_upright(image_bgr: np.ndarray, xyxy: np.ndarray | list[float], settings: DetectorSettings) -> np.ndarray | None:
    height, width = image_bgr.shape[:2]
    x1, y1, x2, y2 = grow_box(np.asarray(xyxy), settings.crop_margin, width, height)[0]
    x1, y1 = int(np.floor(x1)), int(np.floor(y1))
    x2, y2 = max(int(np.ceil(x2)), x1 + 1), max(int(np.ceil(y2)), y1 + 1)
    patch = image_bgr[y1:y2, x1:x2]
    if patch.size == 0:
        return None
    if patch.shape[1] > patch.shape[0] * settings.sideways_ratio:
        patch = cv2.rotate(patch, cv2.ROTATE_90_CLOCKWISE)
    height, width = patch.shape[:2]
    if height > width * settings.max_crop_aspect:
        patch = cv2.resize(patch, (round(height / settings.max_crop_aspect), height), interpolation=cv2.INTER_LINEAR)
    return patch


def cut_tile(
    image_bgr: np.ndarray, xyxy: np.ndarray | list[float], size: int, settings: DetectorSettings = DEFAULT
) -> np.ndarray:
    """One classifier input (size, size, 3) uint8 BGR for the tile at `xyxy` (pixels of `image_bgr`)."""
    patch = cut_upright(image_bgr, xyxy, settings)
    if patch is None:  # box fully outside the image
        return np.full((size, size, 3), settings.crop_pad_value, np.uint8)
    return pad_to_square(patch, size, settings.crop_pad_value)


def cut_tiles(
    image_bgr: np.ndarray, boxes_xyxy: np.ndarray, size: int, settings: DetectorSettings = DEFAULT
) -> np.ndarray:
    """A batch (N, size, size, 3) of classifier inputs, one per box."""
    if len(boxes_xyxy) == 0:
        return np.zeros((0, size, size, 3), np.uint8)
    with stage(CROPS):
        return np.stack([cut_tile(image_bgr, box, size, settings) for box in boxes_xyxy])
