"""`python -m datasets.label prelabel` with a real TileDetector (hand-built ONNX models, tests/adapt_world.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adapt_world import colour_reader, constant_tile_finder, write_photos

from datasets.label import main as label_main
from tileset.labelfiles import list_photos, read_labels


def models_reading(root: Path, artwork: str) -> Path:
    constant_tile_finder(root / "detector.onnx")
    colour_reader(root / "classifier.onnx", artwork)
    return root


def test_prelabel_writes_the_models_reading_with_confidences(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    photos = tmp_path / "photos"
    write_photos(photos, 3, "A", seed=1)
    truth = {p.name: p.load().boxes for p in list_photos(photos)}
    for photo in list_photos(photos):  # start from unlabeled photos
        photo.label_path.unlink()
        photo.meta_path.unlink()
    models = models_reading(tmp_path / "models", "A")

    assert label_main(["prelabel", str(photos), "--model", str(models)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {"labeled": 3, "kept_reviewed": 0, "boxes": 18, "failed": []}
    for photo in list_photos(photos):
        labels = photo.load()
        assert [b.class_id for b in labels.boxes] == [b.class_id for b in truth[photo.name]]
        for got, want in zip(labels.boxes, truth[photo.name], strict=False):
            assert (got.cx, got.cy, got.w, got.h) == pytest.approx((want.cx, want.cy, want.w, want.h), abs=0.02)
        assert labels.meta.origin == "prelabel" and not labels.meta.reviewed
        assert len(labels.meta.confidences) == 6 and all(0 < c <= 1 for c in labels.meta.confidences)
        assert labels.meta.model == "models"


def test_prelabel_boxes_a_few_tiles_the_finder_is_unsure_of(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Six boxes none of which the finder is sure of are read as six tiles, and pre-labeling boxes them for a
    person to review."""
    from vision.detector import TileDetector
    from vision.images import load_image

    photos = tmp_path / "photos"
    write_photos(photos, 1, "A", seed=3)
    models = tmp_path / "models"
    constant_tile_finder(models / "detector.onnx", conf=0.6)
    colour_reader(models / "classifier.onnx", "A")
    (photo,) = list_photos(photos)
    truth = photo.load().boxes
    photo.label_path.unlink()
    photo.meta_path.unlink()
    assert len(TileDetector.load(models).detect(load_image(photo.image))) == 6

    assert label_main(["prelabel", str(photos), "--model", str(models)]) == 0
    assert json.loads(capsys.readouterr().out)["boxes"] == 6
    assert [b.class_id for b in photo.load().boxes] == [b.class_id for b in truth]


def test_prelabel_keeps_reviewed_files_unless_asked(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    photos = tmp_path / "photos"
    write_photos(photos, 2, "A", seed=2)  # reviewed by a person (write_photos marks them so)
    before = {p.name: read_labels(p.label_path) for p in list_photos(photos)}
    models = models_reading(tmp_path / "models", "B")  # reads every face wrong

    assert label_main(["prelabel", str(photos), "--model", str(models)]) == 0
    assert json.loads(capsys.readouterr().out)["kept_reviewed"] == 2
    assert {p.name: read_labels(p.label_path) for p in list_photos(photos)} == before

    assert label_main(["prelabel", str(photos), "--model", str(models), "--overwrite-reviewed"]) == 0
    for photo in list_photos(photos):
        assert read_labels(photo.label_path) != before[photo.name]
        history = sorted((photo.labels_dir / ".history").glob(f"{photo.name}.*.txt"))
        assert read_labels(history[-1]) == before[photo.name], "the person's labels are kept in the history"


def test_prelabel_without_models_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    photos = tmp_path / "photos"
    write_photos(photos, 1, "A", seed=3)
    assert label_main(["prelabel", str(photos), "--model", str(tmp_path / "empty")]) == 2
    assert "no detector model" in capsys.readouterr().err
