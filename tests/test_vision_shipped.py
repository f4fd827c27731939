"""The shipped models (`models/detector.onnx` + `models/classifier.onnx`) read generated scenes.

The scenes in tests/data/vision_scenes/ were rendered by `python -m datasets.synth` from the
permissively licensed artwork only (gl-mahjongtile: Unlicense, fluffystuff-riichi: CC0), so
they can live in the repository:

    python -m datasets.synth --art shared/datasets/art --out /tmp/s --n 2 --seed 7100 --only gl-mahjongtile
    python -m datasets.synth --art shared/datasets/art --out /tmp/s2 --n 2 --seed 7200 --only fluffystuff-riichi
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from datasets.classes import CLASS_NAMES
from vision.detector import TileDetector
from vision.evaluate import Evaluation, dataset_images, match_tiles, read_truth
from vision.settings import MODELS_DIR

SCENES = Path(__file__).resolve().parent / "data" / "vision_scenes"
SHIPPED = (MODELS_DIR / "detector.onnx").is_file() and (MODELS_DIR / "classifier.onnx").is_file()

pytestmark = pytest.mark.skipif(not SHIPPED, reason="no shipped models in models/ yet")


@pytest.fixture(scope="module")
def detector() -> TileDetector:
    return TileDetector.load(MODELS_DIR)


def test_shipped_models_carry_the_canonical_class_table(detector):
    info = detector.model_info
    assert info.detector_names in (("tile", "back"), CLASS_NAMES)
    assert info.detector_imgsz >= 256


def test_shipped_models_read_generated_scenes_mostly_right(detector):
    evaluation = Evaluation()
    for image in dataset_images(SCENES, "val"):
        dets, (w, h) = detector.detect_file(image)
        evaluation.add(match_tiles(read_truth(image, w, h), dets))
    summary = evaluation.summary()
    assert summary["labeled_tiles"] >= 50
    assert summary["recall"] >= 0.95, json.dumps(summary)
    assert summary["read_accuracy"] >= 0.9, json.dumps(summary)
