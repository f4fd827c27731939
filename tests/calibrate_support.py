"""The calibration's tests on tiny models (tests/test_calibrate*.py, test_finder_tune.py, test_registry_models.py):
a photo of the calibration layout painted in flat colours, a classifier graph too small to read it well, and a
fake finder that boxes the layout's tiles."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from tests.vision_fake_models import _save, centred, fake_finder, raw_head
from tileset.calibration import calibration_rows
from tileset.classes import FACE_NAMES
from vision.settings import CalibrateSettings

SIZE = 640  # the photo and the finder's input: no letterboxing
TILE_W, TILE_H, STEP_X, STEP_Y, LEFT, TOP = 40, 56, 46, 80, 90, 60
# few, mild copies: the tiny classifier's features (a crop's colours at 8 x 8) are the point, not its robustness
QUICK = replace(CalibrateSettings(), views=8, check_views=2, min_scale=0.8, sideways_share=0.0, max_turn_deg=5.0,
                base_crops_images=0, base_check_images=0)


def hue_colour(hue: int) -> tuple[int, int, int]:
    return tuple(int(v) for v in cv2.cvtColor(np.uint8([[[hue, 255, 230]]]), cv2.COLOR_HSV2BGR)[0, 0])


def face_colours(index: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Each face's top and bottom colours: 7 x 6 pairs of well-separated hues."""
    return hue_colour(index % 7 * 180 // 7), hue_colour((index // 7) * 180 // 6 + 13)


def layout_boxes(rows=None) -> list[tuple[str, tuple[int, int, int, int]]]:
    out = []
    for r, row in enumerate(rows or calibration_rows()):
        for k, name in enumerate(row):
            x, y = LEFT + k * STEP_X, TOP + r * STEP_Y
            out.append((name, (x, y, x + TILE_W, y + TILE_H)))
    return out


def write_photo(path: Path, tiles, table: np.ndarray | None = None) -> Path:
    image = np.full((SIZE, SIZE, 3), 90, np.uint8) if table is None else table.copy()
    for name, (x0, y0, x1, y1) in tiles:
        cv2.rectangle(image, (x0, y0), (x1, y1), (235, 235, 235), -1)
        top, bottom = face_colours(FACE_NAMES.index(name))
        cv2.rectangle(image, (x0 + 6, y0 + 8), (x1 - 6, (y0 + y1) // 2), top, -1)
        cv2.rectangle(image, (x0 + 6, (y0 + y1) // 2), (x1 - 6, y1 - 8), bottom, -1)
        cv2.rectangle(image, (x0 + 6, y0 + 8), (x0 + 16, y0 + 20), (20, 20, 20), -1)  # which way up it lies
    cv2.imwrite(str(path), image)
    return path


def tiny_classifier(path: Path, seed: int = 0) -> Path:
    """A YOLO-classifier-shaped graph (pooling, Flatten -> Gemm, softmax) with small random weights: it
    reads these tiles badly and unsurely, but its pooled features (the crop at 8 x 8, centred on grey)
    tell their colours apart."""
    rng = np.random.default_rng(seed)
    nodes = [
        helper.make_node("Sub", ["images", "grey"], ["centred"]),
        helper.make_node("AveragePool", ["centred"], ["pooled"], kernel_shape=[4, 4], strides=[4, 4]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_classifier",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", len(FACE_NAMES)])],
        initializer=[
            numpy_helper.from_array(np.array(0.45, np.float32), "grey"),
            numpy_helper.from_array(rng.normal(0, 0.05, (len(FACE_NAMES), 192)).astype(np.float32), "fc_w"),
            numpy_helper.from_array(np.zeros(len(FACE_NAMES), np.float32), "fc_b"),
        ],
    )
    return _save(graph, path, list(FACE_NAMES), 32, "classify")


def layout_finder(path: Path, tiles=None, tile_confidence: float = 0.9) -> Path:  # type: ignore[no-untyped-def]
    """A fake tile finder for SIZE photos that boxes `tiles` (default: the whole layout) as face-up tiles
    with `tile_confidence`, whatever the photo shows."""
    boxes = centred([box for _, box in (layout_boxes() if tiles is None else tiles)])
    fake_finder(path, raw_head(boxes, [[tile_confidence, 0.0]] * len(boxes), anchors=64), imgsz=SIZE)
    return path


def layout_models(root: Path) -> Path:
    """A models folder at `root` whose finder boxes every tile of the layout photo and whose classifier is tiny."""
    root.mkdir()
    layout_finder(root / "detector.onnx")
    tiny_classifier(root / "classifier.onnx")
    return root


def run(photo: Path, models: Path, **options):
    from training.calibrate import calibrate

    options = {"settings": QUICK, **options}
    return calibrate([photo], models_root=models, base_val=None,
                     log=lambda line: None, **options)
