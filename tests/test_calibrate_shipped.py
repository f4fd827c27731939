"""Calibration end to end on the shipped models (the classifier with its small and large members beside it) and the
shipped base photos (`models/base/`): the base crops that gate the few-shot head are recorded whichever session
reads them; a layout of a set no model has seen (`tests/held_out_art.py`) is learned, promoted and reads that set's
hands better; the same layout learned without gating crops reads the base photos worse and is refused."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tileset.classes import BACK_ID
from training import evaluate as evaluation
from vision.settings import BASE_PHOTOS_DIR, MODELS_DIR, CalibrateSettings, DetectorSettings

SHIPPED = all((MODELS_DIR / name).is_file() for name in ("detector.onnx", "classifier.onnx", "classifier_small.onnx",
                                                          "classifier_large.onnx"))
pytestmark = pytest.mark.skipif(not SHIPPED, reason="the shipped models and their members are not in models/")


def _shipped_copy(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for model in MODELS_DIR.glob("*.onnx"):
        shutil.copy2(model, folder / model.name)
    return folder


def test_the_threshold_crops_are_every_crop_the_shipped_members_read() -> None:
    """The version in use reads with its members alone (the small one first, the large one on the crops it is unsure
    of), never running the ensemble's own graph: the base crops are still recorded, one per crop it read."""
    from training.head import Embedder, base_crops
    from vision.detector import TileDetector

    settings = DetectorSettings()
    detector = TileDetector.load(MODELS_DIR, settings)
    classifier = detector.face_classifier
    assert classifier.small_member is not None and classifier.large_member is not None  # the shipped structure
    photos = evaluation.dataset_images(BASE_PHOTOS_DIR, "train")[:3]
    faces = sum(int((detector.detect_file(photo)[0].class_id != BACK_ID).sum()) for photo in photos)
    recorded = base_crops(Embedder(MODELS_DIR / settings.classifier_file, settings.intra_op_threads), MODELS_DIR,
                          photos, settings)
    assert recorded is not None, "no base crop recorded: every face of a calibrated set would stay ungated"
    probs, features = recorded
    assert len(probs) == len(features) >= faces > 0
    assert probs.shape[1] == len(classifier.names) and features.shape[1] > 0


@pytest.fixture(scope="module")
def held_out(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """One calibration photo of the held-out set and six hands of it (their own seeds)."""
    from tests.held_out_art import render, write_held_out_art

    root = tmp_path_factory.mktemp("held_out")
    art = write_held_out_art(root / "art")
    layout = render(art, root / "layout", 1, 7, "--layout", "calibration")
    scenes = render(art, root / "scenes", 6, 700)
    return next((layout / "images").glob("*.jpg")), evaluation.dataset_images(scenes, "val")


def _read_accuracy(models: Path, images: list[Path]) -> float:
    """How the version in use of the models folder `models` reads the labeled `images`."""
    from vision.detector import TileDetector
    from vision.registry import Registry

    detector = TileDetector.load(Registry(models).active_dir())
    return float(evaluation.evaluate(detector, images).summary()["read_accuracy"])


def test_a_held_out_set_is_learned_promoted_and_read_better(tmp_path: Path, held_out) -> None:
    """With the shipped base photos by default: the head is gated by every base crop, the version reads its photo
    exactly and the base val photos as before, is promoted and reads the set's hands better."""
    from training.calibrate import calibrate
    from vision.registry import Registry

    photo, scenes = held_out
    models = _shipped_copy(tmp_path / "models")
    result = calibrate([photo], models_root=models, log=lambda line: None)
    version = Registry(models).path_of(result.version)
    card = json.loads((version / "card.json").read_text())
    assert card["head"]["base_crops_unchanged"] > 0
    assert result.promoted, result.reason
    assert result.after["read_accuracy"] == 1.0 > result.before["read_accuracy"]
    assert result.after["base_read_accuracy"] >= result.before["base_read_accuracy"]
    before, after = _read_accuracy(MODELS_DIR, scenes), _read_accuracy(models, scenes)
    assert after > before + 0.03, (before, after)


def test_the_same_layout_learned_without_gating_crops_reads_the_base_worse_and_is_refused(
    tmp_path: Path, held_out
) -> None:
    """No threshold photo (`base_crops_images=0`): the head acts on every crop, reads the base val photos' tiles as
    the held-out set's, and the promotion check refuses it; the version in use stays."""
    from training.calibrate import calibrate
    from vision.registry import Registry

    photo, _ = held_out
    models = _shipped_copy(tmp_path / "models")
    result = calibrate([photo], models_root=models, settings=replace(CalibrateSettings(), base_crops_images=0),
                       log=lambda line: None)
    assert not result.promoted
    assert result.reason == "it reads the base val photos worse than the version in use"
    assert result.after["read_accuracy"] == 1.0  # it does read its own photo: the base check alone refuses it
    assert result.after["base_read_accuracy"] < result.before["base_read_accuracy"]
    assert Registry(models).active_name() == "shipped"
