"""Flower and season captions: the rules from OCR text to a class, the bands read, the reader
itself on drawn captions, and the detector using it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.classes import CLASS_ID, FACE_NAMES
from vision.flowers import FLOWER_WORDS, FlowerReader, caption_bands, reading_from_texts
from vision.settings import FlowerSettings

fakes = pytest.importorskip("vision_fake_models")


@pytest.mark.parametrize(
    "texts, guess, expected",
    [
        ([("PLUM", 1.0)], "1p", "f1"),  # a name decides, whatever the classifier read
        ([("Plum", 0.9)], "s2", "f1"),
        ([("1 PLUM", 0.97)], "f3", "f1"),
        ([("SUMM", 0.93)], "s3", "s2"),  # a stroke read as one more letter
        ([("CHRYS", 0.95)], "f4", "f3"),
        ([("3、秋", 0.93)], "f1", "s3"),
        ([("兰、2", 0.85)], "f1", "f2"),
        ([("蘭", 0.9), ("2", 1.0)], "s2", "f2"),  # the name wins over the number
        ([("2", 1.0)], "f3", "f2"),  # a lone number picks inside the classifier's group
        ([("4", 0.99)], "s1", "s4"),
        ([("2", 1.0)], "2m", None),  # ... and never makes a flower of a suited tile (corner numbers)
        ([("2", 0.9)], "f3", None),  # not sure enough
        ([("2", 1.0), ("3", 0.99)], "f1", None),  # numbers that disagree
        ([("12", 1.0)], "f1", None),
        ([("7", 1.0)], "s1", None),
        ([("PLUM", 0.5)], "f2", None),
        ([("梅", 0.9), ("冬", 0.95)], "f1", None),  # names that disagree
        ([("WEST", 1.0)], "W", None),  # a wind, not WINTER
        ([("NIM", 0.97)], "s4", None),  # WIN upside down
        ([("SUMMERTIME", 0.99)], "s1", None),
        ([("前3", 0.9)], "f3", None),  # a misread character beside the number: not alone
        ([], "f1", None),
    ],
)
def test_reading_from_texts(texts, guess, expected):
    reading = reading_from_texts(texts, guess, FlowerSettings())
    assert (reading.name if reading else None) == expected


def test_every_name_maps_to_a_flower_or_season():
    assert set(FLOWER_WORDS.values()) == {"f1", "f2", "f3", "f4", "s1", "s2", "s3", "s4"}


def test_caption_bands_are_top_bottom_turned_over_and_middle():
    tile = np.arange(100 * 60 * 3, dtype=np.uint32).reshape(100, 60, 3).astype(np.uint8)
    top, bottom, top_over, bottom_over, middle = caption_bands(tile, FlowerSettings(band_share=0.3, middle_share=0.5))
    np.testing.assert_array_equal(top, tile[:30])
    np.testing.assert_array_equal(bottom, tile[70:])
    np.testing.assert_array_equal(top_over, np.rot90(tile[:30], 2))
    np.testing.assert_array_equal(bottom_over, np.rot90(tile[70:], 2))
    np.testing.assert_array_equal(middle, tile[25:75])


def _tile_with(text: str, at_top: bool, scale: float = 0.75) -> np.ndarray:
    tile = np.full((160, 120, 3), 235, np.uint8)
    cv2.circle(tile, (60, 80), 28, (40, 140, 40), -1)  # a picture
    cv2.putText(tile, text, (8, 36 if at_top else 148), cv2.FONT_HERSHEY_SIMPLEX, scale, (30, 30, 160), 2, cv2.LINE_AA)
    return tile


@pytest.fixture(scope="module")
def reader() -> FlowerReader:
    return FlowerReader()


def test_reader_reads_a_caption_at_the_bottom(reader):
    reading = reader.read(_tile_with("WINTER", at_top=False), "1p")
    assert reading is not None and reading.name == "s4"


def test_reader_reads_a_number_upside_down(reader):
    tile = _tile_with("2", at_top=True, scale=1.1)
    assert reader.read(np.ascontiguousarray(tile[::-1, ::-1]), "f3").name == "f2"


def test_reader_finds_nothing_on_a_plain_face(reader):
    assert reader.read(np.full((160, 120, 3), 235, np.uint8), "f1") is None


# ---------------------------------------------------------------- in the detector

IMG_W, IMG_H, FINDER_SIZE = 400, 200, 64
TILE = (140, 20, 260, 180)


def _models_reading_every_face_as_1p_with_some_chance_of_f1(folder):
    folder.mkdir(parents=True, exist_ok=True)
    scale = FINDER_SIZE / IMG_W
    x1, y1, x2, y2 = (v * scale for v in TILE)
    y1, y2 = y1 + 16, y2 + 16  # the 400x200 image letterboxed into 64x64: 16 px of grey above
    raw = fakes.raw_head([((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)], [[0.9, 0.0]])
    fakes.fake_finder(folder / "detector.onnx", raw, imgsz=FINDER_SIZE)
    names = list(FACE_NAMES)
    weights = np.zeros((3, len(names)), np.float32)
    weights[:, names.index("1p")] = 2.0  # a light face: 1p about 0.7, f1 about 0.2
    weights[:, names.index("f1")] = 1.5
    fakes.fake_classifier(folder / "classifier.onnx", names, weights)
    return folder


def _scene(caption: str) -> np.ndarray:
    image = np.full((IMG_H, IMG_W, 3), 60, np.uint8)
    x1, y1, x2, y2 = TILE
    image[y1:y2, x1:x2] = _tile_with(caption, at_top=False)
    return image


def test_detector_names_a_flower_by_its_caption_and_keeps_the_classifier_reading_second(tmp_path):
    from vision.detector import TileDetector

    detector = TileDetector.load(_models_reading_every_face_as_1p_with_some_chance_of_f1(tmp_path / "m"))
    dets = detector.detect(_scene("SPRING"))
    assert dets.class_names == ["s1"] and dets.runner_up.tolist() == [CLASS_ID["1p"]]
    assert dets.confidence[0] > 0.85  # finder 0.9 x the caption's score, not the classifier's 0.7


def test_detector_without_the_reader_keeps_the_classifier_reading(tmp_path):
    from dataclasses import replace

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    settings = replace(DetectorSettings(), flowers=FlowerSettings(enabled=False))
    detector = TileDetector.load(_models_reading_every_face_as_1p_with_some_chance_of_f1(tmp_path / "m"), settings)
    assert detector.detect(_scene("SPRING")).class_names == ["1p"]


def test_detector_without_rapidocr_warns_once_and_keeps_the_classifier_reading(tmp_path, monkeypatch):
    import sys

    from vision.detector import TileDetector

    monkeypatch.setitem(sys.modules, "rapidocr", None)  # import fails as if not installed
    detector = TileDetector.load(_models_reading_every_face_as_1p_with_some_chance_of_f1(tmp_path / "m"))
    with pytest.warns(UserWarning, match="rapidocr is not installed"):
        assert detector.detect(_scene("SPRING")).class_names == ["1p"]
    assert detector.detect(_scene("SPRING")).class_names == ["1p"]  # no second try, no second warning
