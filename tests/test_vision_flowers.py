"""The second reading of a face read by a calibrated set's few-shot head: never a flower."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import vision_fake_models as fakes

from tileset.classes import CLASS_ID, FACE_NAMES

IMG_W, IMG_H, FINDER_SIZE = 400, 200, 64
TILE = (140, 20, 260, 180)


def _suited_tile() -> np.ndarray:
    """A bamboo tile: sticks in columns."""
    tile = np.full((160, 120, 3), 235, np.uint8)
    for x in (22, 52):
        for y in (46, 82, 118):
            cv2.rectangle(tile, (x, y), (x + 10, y + 30), (40, 140, 40), -1)
    return tile


def _models_reading_9s_then_s2_then_6s(folder, metadata: dict[str, str]):
    """A finder of one tile box (TILE) and a classifier reading any crop as 9s, then s2, then 6s, its graph
    carrying `metadata` (`training.fewshot.bake` marks a classifier with a few-shot head by `mcr_fewshot`)."""
    import onnx

    folder.mkdir(parents=True, exist_ok=True)
    scale = FINDER_SIZE / IMG_W
    x1, y1, x2, y2 = (v * scale for v in TILE)
    y1, y2 = y1 + 16, y2 + 16
    raw = fakes.raw_head([((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)], [[0.9, 0.0]])
    fakes.fake_finder(folder / "detector.onnx", raw, imgsz=FINDER_SIZE)
    names = list(FACE_NAMES)
    weights = np.zeros((3, len(names)), np.float32)
    weights[:, names.index("9s")], weights[:, names.index("s2")], weights[:, names.index("6s")] = 2.0, 1.5, 0.5
    fakes.fake_classifier(folder / "classifier.onnx", names, weights)
    classifier = onnx.load(str(folder / "classifier.onnx"))
    classifier.metadata_props.extend(onnx.StringStringEntryProto(key=k, value=v) for k, v in metadata.items())
    onnx.save(classifier, str(folder / "classifier.onnx"))
    return folder


def _suited_scene() -> np.ndarray:
    image = np.full((IMG_H, IMG_W, 3), 60, np.uint8)
    x1, y1, x2, y2 = TILE
    image[y1:y2, x1:x2] = cv2.resize(_suited_tile(), (x2 - x1, y2 - y1))
    return image


@pytest.mark.parametrize("metadata, runner_up", [
    ({"mcr_fewshot": "prototypes"}, "6s"),  # a photo of the set: the likeliest face that is no flower
    # a version calibrated when calibration also noted the corner a set prints its ranks in: read the same
    ({"mcr_fewshot": "prototypes", "mcr_numeral_corner": "right"}, "6s"),
    ({}, "s2"),  # without a head the classifier's second reading stands
])
def test_a_face_of_a_calibrated_set_takes_no_flower_as_its_second_reading(tmp_path, metadata, runner_up):
    from vision.detector import TileDetector

    models = _models_reading_9s_then_s2_then_6s(tmp_path / "m", metadata)
    dets = TileDetector.load(models).detect(_suited_scene())
    assert dets.class_names == ["9s"] and dets.runner_up.tolist() == [CLASS_ID[runner_up]]
