"""The default model everywhere (CLI, reader, app) is the version in use, not always the shipped one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import vision.settings
from vision.detector import TileDetector
from vision.registry import Registry
from vision.settings import MODELS_DIR

MODEL_FILES = ("detector.onnx", "classifier.onnx")


@pytest.fixture
def models_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if not all((MODELS_DIR / name).is_file() for name in MODEL_FILES):
        pytest.skip("shipped models are not in models/")
    for name in MODEL_FILES:
        shutil.copy(MODELS_DIR / name, tmp_path / name)
    version = tmp_path / "versions" / "club-set"
    version.mkdir(parents=True)
    for name in MODEL_FILES:
        shutil.copy(MODELS_DIR / name, version / name)
    (version / "card.json").write_text('{"name": "club-set"}')
    monkeypatch.setattr(vision.settings, "MODELS_DIR", tmp_path)
    return tmp_path


def test_without_a_folder_the_shipped_models_load(models_root: Path) -> None:
    assert TileDetector.load().model_info.detector_path == str(models_root / "detector.onnx")


def test_an_activated_version_is_what_loads_by_default(models_root: Path) -> None:
    Registry(models_root).activate("club-set")
    assert TileDetector.load().model_info.detector_path == str(models_root / "versions" / "club-set" / "detector.onnx")
    Registry(models_root).back()
    assert TileDetector.load().model_info.detector_path == str(models_root / "detector.onnx")
