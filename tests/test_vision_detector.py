"""Runtime tile detector: letterbox, NMS, head decoding, box mapping, class-table checks, CLI lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
import vision_fake_models as fakes
from detector_support import (
    BACK_TILE,
    BLUE_TILE,
    FINDER_SIZE,
    IMG_H,
    IMG_W,
    RED_TILE,
    in_network_pixels,
    make_models,
    scene,
)

import vision.detector
from tileset.classes import CLASS_ID, CLASS_NAMES, FACE_NAMES, ClassTableMismatch
from vision.boxes import Found, decode_yolo_output, decode_yolo_scores, letterbox, nms
from vision.detector import TileDetector
from vision.images import decode_image
from vision.models import ModelLoadError
from vision.rules import confirmed_in_mirror
from vision.settings import DetectorSettings, with_overrides

REPO = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------- pure functions


@pytest.mark.parametrize("h, w, size", [(100, 200, 64), (300, 120, 96), (64, 64, 64), (10, 500, 128)])
def test_letterbox_round_trip_maps_points_back(h, w, size):
    image = np.zeros((h, w, 3), np.uint8)
    canvas, fit = letterbox(image, size)
    assert canvas.shape == (size, size, 3)
    corners = np.array([[0, 0, w, h]], np.float32)
    in_net = corners.copy()
    in_net[:, [0, 2]] = in_net[:, [0, 2]] * fit.scale + fit.pad_x
    in_net[:, [1, 3]] = in_net[:, [1, 3]] * fit.scale + fit.pad_y
    np.testing.assert_allclose(fit.to_image(in_net), corners, atol=1e-3)
    # the picture sits inside the canvas, grey elsewhere
    assert in_net[0, 2] <= size + 0.5 and in_net[0, 3] <= size + 0.5


def test_letterbox_pads_with_grey_around_content():
    image = np.full((50, 100, 3), 255, np.uint8)
    canvas, fit = letterbox(image, 100)
    assert fit.scale == 1.0 and fit.pad_y == 25 and fit.pad_x == 0
    assert (canvas[:25] == 114).all() and (canvas[75:] == 114).all() and (canvas[25:75] == 255).all()


@pytest.mark.parametrize("h, w, canvas_hw", [(480, 640, (384, 512)), (640, 480, (512, 384)), (512, 512, (512, 512)),
                                             (165, 2483, (64, 512)), (720, 1280, (288, 512))])
def test_a_finder_that_takes_any_size_gets_a_canvas_only_as_large_as_the_photo(h, w, canvas_hw):
    image = np.full((h, w, 3), 255, np.uint8)
    canvas, fit = letterbox(image, 512, stride=32)
    assert canvas.shape[:2] == canvas_hw
    assert canvas_hw[0] % 32 == 0 and canvas_hw[1] % 32 == 0
    corners = np.array([[0, 0, w, h]], np.float32)
    in_net = corners.copy()
    in_net[:, [0, 2]] = in_net[:, [0, 2]] * fit.scale + fit.pad_x
    in_net[:, [1, 3]] = in_net[:, [1, 3]] * fit.scale + fit.pad_y
    np.testing.assert_allclose(fit.to_image(in_net), corners, atol=1e-3)
    # the photo centred, grey only in the padding the stride asks for
    white = np.argwhere((canvas == 255).all(axis=2))
    (top, left), (bottom, right) = white.min(axis=0), white.max(axis=0) + 1
    assert (top, left) == (round(fit.pad_y), round(fit.pad_x))
    assert abs(top - (canvas_hw[0] - bottom)) <= 1 and abs(left - (canvas_hw[1] - right)) <= 1
    assert max(bottom - top, right - left) == 512


def test_nms_keeps_best_of_overlapping_and_all_disjoint():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60], [0, 0, 10, 10.5]], np.float32)
    scores = np.array([0.8, 0.9, 0.5, 0.7], np.float32)
    keep = nms(boxes, scores, iou_threshold=0.5, max_keep=10)
    assert keep.tolist() == [1, 2]
    assert nms(boxes, scores, iou_threshold=0.5, max_keep=1).tolist() == [1]
    assert nms(np.zeros((0, 4), np.float32), np.zeros(0), 0.5, 10).tolist() == []


def test_touching_tiles_survive_nms():
    # two tiles side by side share an edge: IoU 0, both kept
    boxes = np.array([[0, 0, 30, 40], [30, 0, 60, 40]], np.float32)
    assert sorted(nms(boxes, np.array([0.9, 0.8]), 0.6, 10).tolist()) == [0, 1]


def test_decode_yolo_output_thresholds_and_converts_to_xyxy():
    raw = fakes.raw_head([(20, 30, 10, 20), (50, 50, 8, 8)], [[0.9, 0.1], [0.05, 0.2]])
    xyxy, conf, cls = decode_yolo_output(raw, conf_threshold=0.25, iou_threshold=0.6, max_keep=100)
    assert xyxy.tolist() == [[15, 20, 25, 40]]
    assert conf.tolist() == pytest.approx([0.9]) and cls.tolist() == [0]


def test_decode_yolo_scores_gives_every_class_score_of_each_box_kept():
    """The box NMS keeps carries its own scores: here the surer of two overlapping boxes, and a back."""
    raw = fakes.raw_head([(20, 30, 10, 20), (21, 30, 10, 20), (60, 60, 8, 8)],
                         [[0.6, 0.03], [0.9, 0.02], [0.1, 0.7]])
    xyxy, conf, cls, scores = decode_yolo_scores(raw, conf_threshold=0.25, iou_threshold=0.6, max_keep=100)
    assert cls.tolist() == [0, 1] and conf.tolist() == pytest.approx([0.9, 0.7])
    assert scores.ravel().tolist() == pytest.approx([0.9, 0.02, 0.1, 0.7])
    assert [a.tolist() for a in decode_yolo_output(raw, 0.25, 0.6, 100)] == [a.tolist() for a in (xyxy, conf, cls)]


def test_found_boxes_keep_their_class_scores_when_chosen_and_joined():
    boxes = np.float32([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14]])
    found = Found(boxes, np.float32([0.9, 0.3, 0.6]), np.int64([0, 0, 1]), np.float32([[0.9, 0.0], [0.3, 0.2], [0.1, 0.6]]))
    unsure = found[found.conf < 0.5]
    assert unsure.xyxy.tolist() == [[20, 0, 30, 14]] and unsure.score_of(1).tolist() == pytest.approx([0.2])
    both = found[[2]].joined(unsure)
    assert both.conf.tolist() == pytest.approx([0.6, 0.3]) and both.score_of(1).tolist() == pytest.approx([0.6, 0.2])
    # a stand-in finder's boxes know no class scores: none are made up, joined or asked for
    plain = Found(boxes[:1], np.float32([0.8]), np.int64([0]))
    assert plain.score_of(1).tolist() == [0.0] and found.joined(plain).class_scores.shape == (4, 0)
    assert len(found[:0]) == 0 and found[:0].class_scores.shape == (0, 2)
    with pytest.raises(ValueError):
        Found(boxes, np.float32([0.9]), np.int64([0]))


def test_a_stretched_photo_read_in_a_copy_keeps_each_boxs_class_scores():
    """The copy read in takes its boxes from the copy whose finder found the most: their scores (the back rule's,
    rule `backs_as_faces`) come with them, scaled boxes and all."""
    from vision.settings import UnstretchSettings
    from vision.unstretch import unstretched

    fake = _SeesOnlyTileShapedBoxes(0.2)

    def find(image_bgr: np.ndarray) -> Found:
        found = fake(image_bgr)
        back = np.linspace(0.0, 0.5, len(found), dtype=np.float32)
        return Found(found.xyxy, found.conf, found.classes, np.stack([found.conf, back], axis=1))

    copy = unstretched(np.zeros((400, 240, 3), np.uint8), find, lambda classes: classes == 0, UnstretchSettings())
    assert copy.image_bgr.shape[:2] != (400, 240) and len(copy.found) == 12
    assert copy.found.score_of(1).tolist() == pytest.approx(np.linspace(0.0, 0.5, 12).tolist())



@pytest.mark.parametrize(("standing", "resized"), [(4, False), (1, True)])
def test_a_table_seen_from_low_is_read_as_it_is_though_most_of_its_faces_lie_flat(standing: int, resized: bool) -> None:
    """Tiles lying in front of standing ones, seen from a low webcam, are boxes three times wider than tall:
    with a quarter of the faces tile-shaped the photo is not taken for a stretched export (the finder runs
    once); with one face of ten it still is, as a squeezed screenshot's are all flat."""
    from vision.settings import UnstretchSettings
    from vision.unstretch import unstretched

    flat = [[40.0 * i, 300.0, 40.0 * i + 105.0, 330.0] for i in range(10 - standing)]  # 3.5 : 1
    upright = [[30.0 * i, 100.0, 30.0 * i + 30.0, 140.0] for i in range(standing)]  # 0.75 : 1
    boxes = np.float32(flat + upright)
    runs: list[tuple[int, int]] = []

    def find(image_bgr: np.ndarray) -> Found:
        runs.append(image_bgr.shape[:2])
        return Found(boxes, np.full(len(boxes), 0.9, np.float32), np.zeros(len(boxes), np.int64))

    photo = np.zeros((480, 640, 3), np.uint8)
    copy = unstretched(photo, find, lambda classes: classes == 0, UnstretchSettings())
    assert (len(runs) > 1) is resized
    assert (copy.image_bgr is not photo) is resized


# ---------------------------------------------------------------- with tiny ONNX models

class _FinderSeeingTheMirrorDifferently:
    """Stands in for the finder's network: `original` for the photo's canvas, `mirrored` for any other
    (its mirror image); counts the runs."""

    def __init__(self, photo: np.ndarray, original: np.ndarray, mirrored: np.ndarray) -> None:
        self.canvas = letterbox(photo, FINDER_SIZE)[0]
        self.original, self.mirrored = original, mirrored
        self.runs: list[str] = []

    def __call__(self, canvas_bgr: np.ndarray) -> np.ndarray:
        if np.array_equal(canvas_bgr, self.canvas):
            self.runs.append("photo")
            return self.original
        assert np.array_equal(canvas_bgr, self.canvas[:, ::-1]), "the finder ran on something else"
        self.runs.append("mirror")
        return self.mirrored


def _mirrored_head_box(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    cx, cy, w, h = in_network_pixels(box)
    return FINDER_SIZE - cx, cy, w, h


@pytest.mark.parametrize("mirror_conf, kept", [(0.6, True), (0.2, False), (None, False)])
def test_a_box_the_finder_is_unsure_of_is_kept_only_when_the_mirror_image_shows_it_too(
        tmp_path, monkeypatch, mirror_conf, kept):
    detector = TileDetector.load(make_models(tmp_path / "models"))
    photo = scene()
    original = fakes.raw_head([in_network_pixels(b) for b in (RED_TILE, BLUE_TILE, BACK_TILE)],
                              [[0.9, 0.0], [0.5, 0.0], [0.0, 0.8]])
    seen = [] if mirror_conf is None else [_mirrored_head_box(BLUE_TILE)]
    mirrored = fakes.raw_head([*seen, _mirrored_head_box(RED_TILE)], ([[mirror_conf, 0.0]] if seen else []) + [[0.9, 0.0]])
    finder = _FinderSeeingTheMirrorDifferently(photo, original, mirrored)
    monkeypatch.setattr(detector.finder, "run", finder)
    shrunk = []
    monkeypatch.setattr(vision.detector, "letterbox", lambda *a, **k: shrunk.append(1) or letterbox(*a, **k))
    dets = detector.detect(photo)
    assert finder.runs == ["photo", "mirror"]
    assert len(shrunk) == 1  # the mirror image is the canvas turned over: a big photo is shrunk once
    assert sorted(dets.class_names) == (["1p", "C", "back"] if kept else ["C", "back"])
    # the boxes kept keep their class scores through the check, as the finder gave them, in its order
    found = detector.find_boxes(photo)
    confirmed = confirmed_in_mirror(photo, found, detector.settings.mirror, detector)
    assert len(confirmed) == (3 if kept else 2)
    np.testing.assert_allclose(confirmed.class_scores, found.class_scores[kept | ~np.isclose(found.conf, 0.5, atol=1e-3)])


def test_no_second_run_when_the_finder_is_sure_of_every_box_or_the_check_is_off(tmp_path, monkeypatch):
    detector = TileDetector.load(make_models(tmp_path / "models"))
    photo = scene()
    original = fakes.raw_head([in_network_pixels(b) for b in (RED_TILE, BLUE_TILE)], [[0.9, 0.0], [0.7, 0.0]])
    finder = _FinderSeeingTheMirrorDifferently(photo, original, fakes.raw_head([(1, 1, 1, 1)], [[0.0, 0.0]]))
    monkeypatch.setattr(detector.finder, "run", finder)
    assert len(detector.detect(photo)) == 2 and finder.runs == ["photo"]
    unsure = fakes.raw_head([in_network_pixels(b) for b in (RED_TILE, BLUE_TILE)], [[0.9, 0.0], [0.3, 0.0]])
    off = detector.with_settings(with_overrides(detector.settings, ["mirror.sure_conf=0.25"]))
    finder = _FinderSeeingTheMirrorDifferently(photo, unsure, fakes.raw_head([(1, 1, 1, 1)], [[0.0, 0.0]]))
    monkeypatch.setattr(off.finder, "run", finder)
    assert len(off.detect(photo)) == 2 and finder.runs == ["photo"]


def test_the_mirror_rule_switched_off_by_name_keeps_the_box_the_mirror_image_does_not_show(tmp_path, monkeypatch):
    photo = scene()
    original = fakes.raw_head([in_network_pixels(b) for b in (RED_TILE, BLUE_TILE)], [[0.9, 0.0], [0.5, 0.0]])
    nothing_mirrored = fakes.raw_head([(1, 1, 1, 1)], [[0.0, 0.0]])
    counts = {}
    for rules_off in ("", "mirror"):
        detector = TileDetector.load(make_models(tmp_path / "models"),
                                     with_overrides(DetectorSettings(), [f"rules_off={rules_off}"]))
        finder = _FinderSeeingTheMirrorDifferently(photo, original, nothing_mirrored)
        monkeypatch.setattr(detector.finder, "run", finder)
        counts[rules_off] = (len(detector.detect(photo)), len(finder.runs))
    assert counts == {"": (1, 2), "mirror": (2, 1)}
    with pytest.raises(ValueError, match="no rule named glare"):
        TileDetector.load(tmp_path / "models", with_overrides(DetectorSettings(), ["rules_off=glare"]))


def test_a_frame_of_seven_standing_tiles_none_of_them_sure_is_read(tmp_path, monkeypatch):
    """A webcam at the table sees part of a hand: seven tiles in a row that the finder is unsure of (0.4-0.6),
    found again in the mirror image, are seven tiles. No count of boxes decides whether a photo shows tiles."""
    detector = TileDetector.load(make_models(tmp_path / "models"))
    photo = np.full((IMG_H, IMG_W, 3), 90, np.uint8)
    row = [(10 + 26 * k, 25, 30 + 26 * k, 75) for k in range(7)]
    for k, (x1, y1, x2, y2) in enumerate(row):
        photo[y1:y2, x1:x2] = (0, 0, 255) if k % 2 == 0 else (255, 0, 0)
    unsure = [[0.4 + 0.03 * k, 0.0] for k in range(7)]
    original = fakes.raw_head([in_network_pixels(b) for b in row], unsure)
    mirrored = fakes.raw_head([_mirrored_head_box(b) for b in row], [[0.6, 0.0]] * 7)
    monkeypatch.setattr(detector.finder, "run", _FinderSeeingTheMirrorDifferently(photo, original, mirrored))
    dets = detector.detect(photo)
    assert len(dets) == 7 and max(dets.confidence) < detector.settings.mirror.sure_conf
    order = np.argsort(dets.xyxy[:, 0])
    assert [dets.class_names[i] for i in order] == ["C", "1p", "C", "1p", "C", "1p", "C"]


def test_detect_maps_boxes_to_original_pixels_and_names_faces(tmp_path):
    detector = TileDetector.load(make_models(tmp_path / "models"))
    dets = detector.detect(scene())
    order = np.argsort(dets.xyxy[:, 0])
    names = [dets.class_names[i] for i in order]
    assert names == ["C", "1p", "back"]
    np.testing.assert_allclose(dets.xyxy[order], [RED_TILE, BLUE_TILE, BACK_TILE], atol=1.0)
    conf = dets.confidence[order]
    assert conf[0] == pytest.approx(0.9, abs=0.02) and conf[2] == pytest.approx(0.7, abs=1e-4)
    assert detector.model_info.classifier_imgsz == 32 and detector.model_info.detector_imgsz == FINDER_SIZE


def test_each_face_keeps_its_second_reading(tmp_path):
    folder = make_models(tmp_path / "models")
    names = list(reversed(FACE_NAMES))
    weights = fakes.colour_classifier_weights(names, "C", "1p")
    weights[:, names.index("7s")] = [30.0, -20.0, -20.0]  # red crops: C first, 7s second
    weights[:, names.index("9m")] = [-20.0, -20.0, 30.0]  # blue crops: 1p first, 9m second
    fakes.fake_classifier(folder / "classifier.onnx", names, weights)
    dets = TileDetector.load(folder).detect(scene())
    order = np.argsort(dets.xyxy[:, 0])
    assert [dets.class_names[i] for i in order] == ["C", "1p", "back"]
    assert dets.runner_up[order].tolist() == [CLASS_ID["7s"], CLASS_ID["9m"], -1]  # a back has none
    assert dets[order[:1]].runner_up.tolist() == [CLASS_ID["7s"]]
    assert dets.scaled(2, 2).runner_up.tolist() == dets.runner_up.tolist()
    swapped = dets.with_class(int(order[0]), CLASS_ID["7s"])
    assert swapped.class_names[order[0]] == "7s" and swapped.runner_up[order[0]] == CLASS_ID["C"]


def test_a_face_read_as_a_flower_has_a_tile_as_its_second_reading(tmp_path):
    """Which flower a tile is never changes a score: a flower's second reading is the best tile face."""
    folder = make_models(tmp_path / "models")
    names = list(reversed(FACE_NAMES))
    weights = fakes.colour_classifier_weights(names, "f1", "1p")
    weights[:, names.index("f2")] = [35.0, -20.0, -20.0]  # red crops: f1, f2, then 7s
    weights[:, names.index("7s")] = [30.0, -20.0, -20.0]
    weights[:, names.index("s1")] = [-20.0, -20.0, 35.0]  # blue crops: 1p, then the season s1
    fakes.fake_classifier(folder / "classifier.onnx", names, weights)
    dets = TileDetector.load(folder).detect(scene())
    order = np.argsort(dets.xyxy[:, 0])
    assert [dets.class_names[i] for i in order] == ["f1", "1p", "back"]
    assert dets.runner_up[order].tolist() == [CLASS_ID["7s"], CLASS_ID["s1"], -1]


def test_detect_file_on_reduced_jpeg_reports_original_pixels(tmp_path):
    detector = TileDetector.load(make_models(tmp_path / "models"))
    big = cv2.resize(scene(), (IMG_W * 8, IMG_H * 8), interpolation=cv2.INTER_NEAREST)
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), big, [cv2.IMWRITE_JPEG_QUALITY, 95])
    decoded = decode_image(path, reduce_to=400)
    assert decoded.bgr.shape[:2] == (IMG_H * 2, IMG_W * 2)  # 1/4 scale straight from the JPEG decoder
    dets, (w, h) = detector.detect_file(path)
    assert (w, h) == (IMG_W * 8, IMG_H * 8)
    order = np.argsort(dets.xyxy[:, 0])
    np.testing.assert_allclose(dets.xyxy[order], np.array([RED_TILE, BLUE_TILE, BACK_TILE]) * 8, atol=10)
    assert [dets.class_names[i] for i in order] == ["C", "1p", "back"]


def test_single_43_class_detector_needs_no_classifier(tmp_path):
    folder = make_models(tmp_path / "m43", finder_names=CLASS_NAMES, classifier_names=False)
    dets = TileDetector.load(folder).detect(scene())
    assert sorted(dets.class_names) == sorted(["5m", "E", "back"])


@pytest.mark.parametrize(
    "finder_names, classifier_names, message",
    [
        (("tile", "back"), list(FACE_NAMES[:-1]), "41 classes, expected 42"),
        (("tile", "back"), [*list(FACE_NAMES[:-1]), "joker"], "joker"),
        ((*tuple(CLASS_NAMES[:-1]), "blank"), False, "blank"),
        (("tile", "face-down"), None, "43"),
    ],
)
def test_class_table_mismatch_fails_loudly(tmp_path, finder_names, classifier_names, message):
    folder = make_models(tmp_path / "bad", finder_names=finder_names, classifier_names=classifier_names)
    with pytest.raises(ClassTableMismatch, match=message):
        TileDetector.load(folder)


def test_missing_models_are_reported(tmp_path):
    with pytest.raises(ModelLoadError, match="no detector model"):
        TileDetector.load(tmp_path)
    folder = make_models(tmp_path / "only_finder", classifier_names=False)
    with pytest.raises(ModelLoadError, match="classifier"):
        TileDetector.load(folder)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "detector.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelLoadError, match="cannot load"):
        TileDetector.load(tmp_path / "broken")


def test_cli_detect_one_line_per_image_and_goes_on_after_bad_files(tmp_path):
    models = make_models(tmp_path / "models")
    good = tmp_path / "scene.png"
    cv2.imwrite(str(good), scene())
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    text = tmp_path / "notes.jpg"
    text.write_text("hello")
    result = subprocess.run(
        [sys.executable, "-m", "vision", "detect", "--model", str(models), str(good), str(empty),
         str(tmp_path / "missing.jpg"), str(text), str(good)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["image"] for line in lines] == [str(good), str(empty), str(tmp_path / "missing.jpg"), str(text),
                                                 str(good)]
    assert lines[0] == lines[4]
    assert (lines[0]["width"], lines[0]["height"]) == (IMG_W, IMG_H)
    assert sorted(t["cls"] for t in lines[0]["tiles"]) == ["1p", "C", "back"]
    assert set(lines[0]["tiles"][0]) == {"cls", "xyxy", "conf"}
    assert lines[1] == {"image": str(empty), "error": "empty file"}
    assert "no such file" in lines[2]["error"] and "not an image" in lines[3]["error"]
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_cli_detect_with_mismatched_model_exits_with_message(tmp_path):
    models = make_models(tmp_path / "bad", finder_names=("tile", "face-down"))
    result = subprocess.run([sys.executable, "-m", "vision", "detect", "--model", str(models), "x.jpg"],
                            capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 2 and "class names differ" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


class _SeesOnlyTileShapedBoxes:
    """Stands in for `TileDetector.find_boxes`: a 3x4 grid of tiles 0.75 as wide as tall in the
    undistorted photo; in an image stretched by more than 2x it finds only one of them, boxed
    too wide (as the real finder boxes slivers). With `natural_finds`, a copy whose tiles have
    about their natural shape shows only that many of the 12 (a long thin copy shrinks in the
    real finder's square input)."""

    def __init__(self, photo_stretch_x: float, natural_finds: int = 12, conf: float = 0.9) -> None:
        self.photo_stretch_x = photo_stretch_x  # how much the photo was widened against its height
        self.natural_finds = natural_finds
        self.conf = conf
        self.calls: list[tuple[int, int]] = []

    def __call__(self, image_bgr: np.ndarray) -> Found:
        h, w = image_bgr.shape[:2]
        self.calls.append((w, h))
        undistorted_w = 1200 * self.photo_stretch_x  # the test photo is 1200 x 400 before stretching
        sx = w / undistorted_w * self.photo_stretch_x  # image x pixels per undistorted pixel, relative to y
        sy = h / 400
        if not 0.5 < sx / sy < 2:
            width = 75 * sx * 1.5
            boxes = [[100 * sx, 50 * sy, 100 * sx + width, 150 * sy]]
        else:
            boxes = [[(100 + 100 * i) * sx, (50 + 120 * j) * sy, (175 + 100 * i) * sx, (150 + 120 * j) * sy]
                     for i in range(4) for j in range(3)]
            if 0.8 < sx / sy < 1.25:
                boxes = boxes[: self.natural_finds]
        return Found(np.float32(boxes), np.full(len(boxes), self.conf, np.float32), np.zeros(len(boxes), np.int64))


def test_a_stretched_photo_of_unsure_boxes_is_resized_back_before_the_mirror_check(tmp_path, monkeypatch):
    """The mirror check runs once, on the copy read: checked in the stretched photo, its unsure slivers
    would leave no box to judge the stretch by (a real val photo read no tile so)."""
    detector = TileDetector.load(make_models(tmp_path / "models"))
    fake = _SeesOnlyTileShapedBoxes(0.2, conf=0.4)
    monkeypatch.setattr(detector, "find_boxes", fake)
    checked: list[tuple[int, int]] = []

    def confirm_all(image_bgr, xyxy, floor):
        checked.append(image_bgr.shape[:2][::-1])
        return np.ones(len(xyxy), np.float32)

    monkeypatch.setattr(detector, "confidence_in_mirror", confirm_all)
    assert len(detector.detect(np.zeros((400, 240, 3), np.uint8))) == 12
    assert len(fake.calls) >= 2 and checked == [fake.calls[-1]]


@pytest.mark.parametrize("photo_stretch_x", [0.2, 0.12])
def test_a_stretched_photo_is_read_again_resized_back(tmp_path, monkeypatch, photo_stretch_x):
    detector = TileDetector.load(make_models(tmp_path / "models"))
    fake = _SeesOnlyTileShapedBoxes(photo_stretch_x)
    monkeypatch.setattr(detector, "find_boxes", fake)
    w, h = round(1200 * photo_stretch_x), 400
    dets = detector.detect(np.zeros((h, w, 3), np.uint8))
    assert len(dets) == 12 and len(fake.calls) >= 2
    assert all(abs(cw * ch - w * h) / (w * h) < 0.02 for cw, ch in fake.calls)  # same pixel count
    # boxes come back in the stretched photo's pixels: thin again
    aspect = (dets.xyxy[:, 2] - dets.xyxy[:, 0]) / (dets.xyxy[:, 3] - dets.xyxy[:, 1])
    np.testing.assert_allclose(aspect, 0.75 * photo_stretch_x, rtol=0.05)
    assert dets.xyxy[:, 2].max() <= w + 1


def test_faces_of_a_stretched_photo_are_read_at_their_natural_shape_from_the_copy_finding_most(
        tmp_path, monkeypatch):
    """The first resize, judged on one box drawn too wide, leaves the tiles 1.5x too wide: crops
    that shape would be turned on their side. The photo is resized again until the tiles have
    their natural shape, and the faces are read there, though that copy shows fewer tiles."""
    detector = TileDetector.load(make_models(tmp_path / "models"))
    fake = _SeesOnlyTileShapedBoxes(0.12, natural_finds=9)
    monkeypatch.setattr(detector, "find_boxes", fake)
    read_in: list[tuple[tuple[int, ...], np.ndarray]] = []
    classify = detector.classify_faces

    def spy(image_bgr, boxes_xyxy):
        read_in.append((image_bgr.shape, boxes_xyxy.copy()))
        return classify(image_bgr, boxes_xyxy)

    monkeypatch.setattr(detector, "classify_faces", spy)
    dets = detector.detect(np.zeros((400, 144, 3), np.uint8))
    assert len(fake.calls) == 3  # as it is, 1.5x too wide, natural
    assert len(dets) == 12  # every tile the second copy found
    ((shape, boxes),) = read_in
    assert (shape[1], shape[0]) == fake.calls[-1]
    aspect = (boxes[:, 2] - boxes[:, 0]) / (boxes[:, 3] - boxes[:, 1])
    np.testing.assert_allclose(aspect, 0.75, rtol=0.05)


def test_a_photo_with_tile_shaped_boxes_is_read_once(tmp_path, monkeypatch):
    detector = TileDetector.load(make_models(tmp_path / "models"))
    fake = _SeesOnlyTileShapedBoxes(1.0)
    monkeypatch.setattr(detector, "find_boxes", fake)
    assert len(detector.detect(np.zeros((400, 1200, 3), np.uint8))) == 12 and len(fake.calls) == 1
