"""A 200 x 100 picture of three tiles (red, blue, a tile back) and tiny ONNX models that read it
(tests/test_vision_detector.py, tests/test_vision_evaluate.py): the finder boxes the three, the classifier
reads red as `red` and blue as `blue`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import vision_fake_models as fakes

from tileset.classes import BACK_ID, CLASS_ID, FACE_NAMES

IMG_W, IMG_H, FINDER_SIZE = 200, 100, 64
RED_TILE = (20, 20, 50, 80)
BLUE_TILE = (120, 10, 150, 70)
BACK_TILE = (160, 30, 190, 90)


def in_network_pixels(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """A box of the picture as the finder's head gives it: centre, width, height in its letterboxed input."""
    scale = FINDER_SIZE / IMG_W  # 0.32; the 200x100 picture becomes 64x32, padded 16 above
    x1, y1, x2, y2 = (v * scale for v in box)
    y1, y2 = y1 + 16, y2 + 16
    return ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)


def scene() -> np.ndarray:
    """The picture: the three tiles on grey."""
    image = np.full((IMG_H, IMG_W, 3), 90, np.uint8)
    for box, bgr in ((RED_TILE, (0, 0, 255)), (BLUE_TILE, (255, 0, 0)), (BACK_TILE, (0, 120, 0))):
        x1, y1, x2, y2 = box
        image[y1:y2, x1:x2] = bgr
    return image


def make_models(folder: Path, finder_names=("tile", "back"), classifier_names=None, red="C", blue="1p") -> Path:
    """A models folder: a finder with `finder_names` (two: tile/back; else one class a face) boxing the three
    tiles, and a classifier of `classifier_names` (False: none) reading red as `red`, blue as `blue`."""
    folder.mkdir(parents=True, exist_ok=True)
    raw = fakes.raw_head(
        [in_network_pixels(RED_TILE), in_network_pixels(BLUE_TILE), in_network_pixels(BACK_TILE)],
        [[0.9, 0.0], [0.8, 0.1], [0.1, 0.7]] if len(finder_names) == 2 else
        [np.eye(len(finder_names))[i] * 0.9 for i in (CLASS_ID["5m"], CLASS_ID["E"], BACK_ID)],
    )
    fakes.fake_finder(folder / "detector.onnx", raw, names=finder_names, imgsz=FINDER_SIZE)
    if classifier_names is not False:
        names = list(classifier_names or reversed(FACE_NAMES))  # not canonical order: mapped by name
        fakes.fake_classifier(folder / "classifier.onnx", names, fakes.colour_classifier_weights(names, red, blue))
    return folder
