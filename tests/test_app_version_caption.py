"""The photo and live pages name the model version they read with (issue 17): shipped, calibrated or adapted."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import vision.read  # noqa: F401 - the pages import it lazily and show a message if they cannot: fail here instead
from appui.demo_scene import TruthDetector, demo_scene
from appui.models import DETECTOR_OVERRIDE_KEY
from scoring import parse_hand
from vision.registry import Registry

APP = str(Path(__file__).resolve().parent.parent / "app.py")
HAND = "[123m] [EEE] (5555p) 78s11p +9s self-drawn seat=S prevalent=W flowers=2"
CALIBRATED = "20261201-155235-calibrated"
ADAPTED = "20261130-101500-adapted"


@pytest.fixture(scope="module")
def scene():
    return demo_scene(parse_hand(HAND), seed=1)


@pytest.fixture
def models(tmp_path, monkeypatch) -> Registry:
    """A models folder with one calibrated and one adapted version (cards only: the detector is a stand-in)."""
    cards = {
        CALIBRATED: {"name": CALIBRATED, "kind": "calibration", "created": "2026-12-01T15:52:35Z",
                     "photos": [{"path": "/somewhere/layout.jpg", "sha256": "0" * 64}]},
        ADAPTED: {"name": ADAPTED, "created": "2026-11-30T10:15:00Z"},
    }
    for name, card in cards.items():
        folder = tmp_path / "versions" / name
        folder.mkdir(parents=True)
        (folder / "card.json").write_text(json.dumps(card))
    monkeypatch.setattr("vision.settings.MODELS_DIR", tmp_path)
    return Registry(tmp_path)


def captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


def photo_page_read(scene) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[DETECTOR_OVERRIDE_KEY] = TruthDetector(scene)
    at.run()
    at.file_uploader(key="photo.upload").upload("scene.jpg", scene.jpeg(), "image/jpeg").run()
    assert not at.exception, at.exception
    return at


def test_photo_page_names_the_shipped_models(models, scene):
    assert "Read with: shipped models" in captions(photo_page_read(scene))


def test_photo_page_names_the_calibrated_version_and_its_photo(models, scene):
    models.activate(CALIBRATED)
    shown = captions(photo_page_read(scene))
    assert f"Read with: {CALIBRATED} (calibrated from 1 photo, 2026-12-01)" in shown
    assert not any("shipped models" in c for c in shown)


def test_photo_page_names_an_adapted_version(models, scene):
    models.activate(ADAPTED)
    assert f"Read with: {ADAPTED} (adapted from labeled photos, 2026-11-30)" in captions(photo_page_read(scene))


def test_a_photo_keeps_the_version_it_was_read_with(models, scene):
    """Switching versions later does not relabel a reading made before (a new photo is read with the new one)."""
    at = photo_page_read(scene)
    models.activate(CALIBRATED)
    at.run()
    assert "Read with: shipped models" in captions(at)


def test_live_page_names_the_version_in_use(models, scene):
    models.activate(CALIBRATED)
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[DETECTOR_OVERRIDE_KEY] = TruthDetector(scene)
    at.run()
    at.switch_page("appui/pages/live.py").run()
    assert not at.exception, at.exception
    assert f"Read with: {CALIBRATED} (calibrated from 1 photo, 2026-12-01)" in captions(at)
