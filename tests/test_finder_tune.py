"""The tile finder fine-tuned during calibration when it boxed tiles of the photo only below its threshold."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.calibrate_support import SIZE, layout_boxes, run, tiny_classifier, write_photo
from tests.vision_fake_models import centred, fake_finder, raw_head
from tileset.classes import BACK_ID, CLASS_ID
from training.finder_tune import (
    FinderCheck,
    LaidPhoto,
    copies_of,
    finder_is_better,
    missed_by_finder,
    write_finder_data,
)
from vision.settings import CalibrateSettings


def test_the_finder_s_data_names_faces_tiles_and_backs_backs_and_bare_tables_nothing(tmp_path: Path) -> None:
    picture = np.full((120, 160, 3), 90, np.uint8)
    copy = (picture, np.array([[10, 20, 30, 50]], np.float32), np.array([[100, 20, 120, 50]], np.float32))
    base_image = tmp_path / "base.jpg"
    cv2.imwrite(str(base_image), picture)
    base_label = tmp_path / "base.txt"
    base_label.write_text(f"{CLASS_ID['5m']} 0.5 0.5 0.1 0.2\n{BACK_ID} 0.2 0.2 0.1 0.2\n", encoding="utf-8")
    data = write_finder_data(tmp_path / "data", [copy], [(base_image, base_label)], [picture], [copy])
    labels = {p.stem: p.read_text(encoding="utf-8").split("\n")[:-1] for p in (data.parent / "train" / "labels").iterdir()}
    assert [line.split()[0] for line in labels["copy0000"]] == ["0", "1"]
    cx, cy, w, h = (float(v) for v in labels["copy0000"][0].split()[1:])
    assert (cx, cy, w, h) == pytest.approx((20 / 160, 35 / 120, 20 / 160, 30 / 120), abs=1e-5)
    assert labels["base0000"] == ["0 0.5 0.5 0.1 0.2", "1 0.2 0.2 0.1 0.2"]
    assert labels["table0000"] == []
    assert {p.name for p in (data.parent / "train" / "images").iterdir()} == {"copy0000.jpg", "base0000.jpg",
                                                                             "table0000.jpg"}
    assert "names" in data.read_text(encoding="utf-8") and "tile" in data.read_text(encoding="utf-8")


def test_copies_carry_every_tile_with_them() -> None:
    picture = np.full((300, 400, 3), 120, np.uint8)
    faces = np.array([[100, 100, 140, 156], [150, 100, 190, 156]], np.float32)
    backs = np.array([[200, 100, 240, 156]], np.float32)
    copies = copies_of([LaidPhoto(picture, faces, backs)], 3, random.Random(0), CalibrateSettings())
    assert len(copies) == 3
    for copy, moved_faces, moved_backs in copies:
        assert moved_faces.shape == (2, 4) and moved_backs.shape == (1, 4)
        h, w = copy.shape[:2]
        assert (moved_faces[:, 2] > moved_faces[:, 0]).all() and moved_faces[:, 2].max() <= w + 1
        assert moved_faces[:, 3].max() <= h + 1


def test_a_fine_tuned_finder_is_kept_only_when_it_finds_more_with_no_more_false_boxes_and_base_no_worse() -> None:
    old = FinderCheck(tiles=100, found=80, false_boxes=3)
    base = {"box_precision": 0.98, "recall": 0.99}
    assert finder_is_better(old, FinderCheck(100, 95, 3), base, base)[0]
    assert finder_is_better(old, FinderCheck(100, 95, 2), None, None)[0]
    assert not finder_is_better(old, FinderCheck(100, 80, 0), base, base)[0]  # finds no more
    kept, why = finder_is_better(old, FinderCheck(100, 99, 4), base, base)  # recall bought with false boxes
    assert not kept and "false boxes" in why
    kept, why = finder_is_better(old, FinderCheck(100, 99, 3), base, {"box_precision": 0.97, "recall": 0.99})
    assert not kept and "box_precision" in why
    assert not finder_is_better(old, FinderCheck(100, 99, 3), base, {"box_precision": 0.99, "recall": 0.98})[0]


def half_sure_finder(path: Path, unsure: tuple[str, ...]) -> Path:
    """A fake finder boxing the whole layout, the tiles `unsure` at 0.05 (below its threshold), the rest at 0.9."""
    tiles = layout_boxes()
    boxes = centred([box for _, box in tiles])
    scores = [[0.05 if name in unsure else 0.9, 0.0] for name, _ in tiles]
    fake_finder(path, raw_head(boxes, scores, anchors=64), imgsz=SIZE)
    return path


@pytest.fixture
def half_sure(tmp_path: Path) -> Path:
    root = tmp_path / "models"
    root.mkdir()
    half_sure_finder(root / "detector.onnx", ("3p", "f2"))
    tiny_classifier(root / "classifier.onnx")
    return root


def test_missed_counts_the_tiles_the_finder_boxes_nowhere_at_its_threshold(tmp_path: Path, half_sure: Path) -> None:
    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    detector = TileDetector.load(half_sure, DetectorSettings())
    picture = np.zeros((SIZE, SIZE, 3), np.uint8)
    every = np.array([box for _, box in layout_boxes()], np.float32)
    assert missed_by_finder(detector, picture, every) == 2
    assert missed_by_finder(detector, picture, every[:3]) == 0


def test_calibration_reads_tiles_found_only_below_the_threshold_and_tries_the_finder(tmp_path: Path,
                                                                                     half_sure: Path) -> None:
    """3p and f2 are boxed at 0.05 only: the layout is read with them (unsure boxes), the finder's fine-tune
    is asked for, and here, with no detector.pt beside the finder, the card and the issues say why it was
    not run. Nothing is promoted: the new version does not find 3p and f2 either."""
    photo = write_photo(tmp_path / "layout.png", layout_boxes())
    result = run(photo, half_sure)
    assert result.before["read_accuracy"] < 0.5  # the layout was read: 42 tiles in place
    assert not result.promoted
    assert any("missed 2 tile(s)" in issue and "detector.pt" in issue for issue in result.issues), result.issues
    card = json.loads((half_sure / "versions" / result.version / "card.json").read_text())
    assert card["finder"]["missed"] == 2 and not card["finder"]["kept"] and "detector.pt" in card["finder"]["reason"]
    again = run(photo, half_sure, finder="never")
    card = json.loads((half_sure / "versions" / again.version / "card.json").read_text())
    assert card["finder"] is None and not again.issues


def test_a_finder_fine_tune_asked_on_every_calibration_that_cannot_run_says_why_in_the_card_only(
        tmp_path: Path) -> None:
    """`--finder always` with a finder that boxed every tile and no detector.pt: nothing the player must act on
    (no issue), the card says the finder was not fine-tuned and why."""
    root = tmp_path / "models"
    root.mkdir()
    half_sure_finder(root / "detector.onnx", ())
    tiny_classifier(root / "classifier.onnx")
    result = run(write_photo(tmp_path / "layout.png", layout_boxes()), root, finder="always")
    card = json.loads((root / "versions" / result.version / "card.json").read_text())
    assert card["finder"]["missed"] == 0 and not card["finder"]["kept"]
    assert "not fine-tuned" in card["finder"]["reason"] and "detector.pt" in card["finder"]["reason"]
    assert not any("finder" in issue for issue in result.issues), result.issues


def test_a_short_real_fine_tune_of_a_tiny_finder_exports_a_finder_the_runtime_loads(tmp_path: Path) -> None:
    pytest.importorskip("ultralytics", reason="ultralytics is in the train extra")
    from training.finder_tune import finetune_finder
    from training.train import _ultralytics_environment
    from vision.models import TileFinder, open_session
    from vision.settings import DetectorSettings

    picture = np.full((256, 256, 3), (60, 120, 60), np.uint8)
    faces = np.array([[40 + 50 * k, 100, 80 + 50 * k, 156] for k in range(4)], np.float32)
    for x0, y0, x1, y1 in faces.astype(int):
        cv2.rectangle(picture, (x0, y0), (x1, y1), (235, 235, 230), -1)
    photo = LaidPhoto(picture, faces, np.zeros((0, 4), np.float32))
    settings = replace(CalibrateSettings(), finder_epochs=1, finder_batch=4, finder_freeze=0, min_scale=0.8)
    copies = copies_of([photo], 4, random.Random(0), settings)
    data = write_finder_data(tmp_path / "data", copies, [], [np.full((256, 256, 3), 60, np.uint8)], copies[:1])
    _ultralytics_environment()
    from ultralytics import YOLO

    YOLO("yolo11n.yaml").train(data=str(data), epochs=1, imgsz=64, batch=4, device="cpu", workers=0, plots=False,
                               amp=False, verbose=False, project=str(tmp_path / "runs"), name="pre", val=False)
    weights = tmp_path / "detector.pt"
    weights.write_bytes((tmp_path / "runs" / "pre" / "weights" / "last.pt").read_bytes())
    lines: list[str] = []
    tune = finetune_finder(tmp_path / "work", weights, data, 64, settings, 0, lines.append, len(copies), 0, 1)
    assert tune.epochs == 1 and tune.batches >= 1 and tune.onnx.is_file()
    finder = TileFinder(open_session(tune.onnx, DetectorSettings()), str(tune.onnx))
    assert finder.names == ("tile", "back") and finder.imgsz == 64
    assert any("finder fine-tuned 1 epoch" in line for line in lines)
