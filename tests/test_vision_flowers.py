"""Where a set prints its suited ranks (`vision.ranks`, read on its calibration photo), and the second reading
of a face read by a calibrated set's few-shot head."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import vision_fake_models as fakes

from tileset.classes import CLASS_ID, FACE_NAMES
from vision.ocr import TextLineReader
from vision.ranks import LEFT, RIGHT, CornerCount, corner_bands, corner_rank, printed_corner
from vision.settings import RankSettings

IMG_W, IMG_H, FINDER_SIZE = 400, 200, 64
TILE = (140, 20, 260, 180)


def test_corner_bands_are_that_corners_half_of_each_top_band():
    tile = np.arange(100 * 60 * 3, dtype=np.uint32).reshape(100, 60, 3)
    settings = RankSettings(band_shares=(0.3, 0.35))
    right = corner_bands(tile, RIGHT, settings, margin=0.1)
    left = corner_bands(tile, LEFT, settings, margin=0.1)
    np.testing.assert_array_equal(right[0], tile[:30, 30:54])
    np.testing.assert_array_equal(right[1], tile[:35, 30:54])
    np.testing.assert_array_equal(left[0], tile[:30, 6:30])
    assert [band.shape for band in left] == [band.shape for band in right]


@pytest.mark.parametrize(
    "texts, min_reads, expected",
    [
        ([("6", 0.99)], 1, "6"),
        ([("6", 0.99), ("6", 0.95), ("", 0.0)], 2, "6"),
        ([("-7", 0.95)], 1, "7"),  # a mark beside the digit
        ([("6", 0.5)], 1, None),  # not sure enough
        ([("1", 0.94), ("1", 0.88)], 2, None),  # a small 4 read once as a 1
        ([("1", 0.94), ("1", 0.88)], 1, "1"),
        ([("6", 0.99), ("9", 0.99)], 1, None),  # two ways up of a sideways tile that disagree
        ([("开", 0.99), ("16", 0.99)], 1, None),  # no digit alone
        ([], 1, None),
    ],
)
def test_corner_rank_is_the_digit_read_surely_in_the_corner_when_all_agree(texts, min_reads, expected):
    reading = corner_rank(texts, min_score=0.9, min_reads=min_reads)
    assert (reading and reading.name) == expected


def test_printed_corner_is_where_enough_tiles_read_their_own_rank_and_none_another():
    def tile(rank, right=(), left=()):
        return rank, {RIGHT: [(text, 0.99) for text in right], LEFT: [(text, 0.99) for text in left]}

    most_top_right = [tile(r, right=[str(r)]) for r in range(1, 8)] + [tile(8), tile(9, left=["开"])]
    corner, counts = printed_corner(most_top_right, min_score=0.9, min_share=0.5)
    assert corner == RIGHT
    assert counts == {LEFT: CornerCount(0, 0, 9), RIGHT: CornerCount(7, 0, 9)}
    a_wrong_digit = [*most_top_right, tile(5, right=["3"])]
    assert printed_corner(a_wrong_digit, 0.9, 0.5)[0] is None  # a digit that names another rank: not to be trusted
    assert printed_corner(most_top_right, 0.9, 0.8)[0] is None  # too few read
    no_numerals = [tile(r) for r in range(1, 10)]
    assert printed_corner(no_numerals, 0.9, 0.5) == (None, {LEFT: CornerCount(0, 0, 9), RIGHT: CornerCount(0, 0, 9)})
    assert printed_corner([], 0.9, 0.5)[0] is None


def test_a_small_calibration_photo_whose_numerals_read_on_a_few_tiles_still_tells_the_corner():
    """Calibration's share (`CalibrateSettings.numeral_share`): a photo whose tiles are small reads its printed ranks
    on only a few of its 27 suited tiles (round 29's kde-traditional: 6, none another), and a set without index
    numerals on one at most; a stray wrong digit still rules the corner out."""
    from vision.settings import CalibrateSettings

    share = CalibrateSettings().numeral_share

    def photo(own_ranks: int, wrong: int = 0, stray_own: int = 0) -> list:
        tiles = []
        for k in range(27):
            rank = k % 9 + 1
            right = [str(rank)] if k < own_ranks else [str(rank % 9 + 1)] if k < own_ranks + wrong else []
            left = [str(rank)] if k < stray_own else []
            tiles.append((rank, {RIGHT: [(text, 0.99) for text in right], LEFT: [(text, 0.99) for text in left]}))
        return tiles

    assert printed_corner(photo(6), 0.9, share)[0] == RIGHT
    assert printed_corner(photo(6, wrong=1), 0.9, share)[0] is None
    assert printed_corner(photo(1), 0.9, share)[0] is None  # a set without numerals: one digit read by chance
    assert printed_corner(photo(0, stray_own=1), 0.9, share)[0] is None


@pytest.fixture(scope="module")
def reader() -> TextLineReader:
    return TextLineReader()


def _suited_tile(numeral: str, at_middle: bool = False) -> np.ndarray:
    """A bamboo tile drawn like some sets: sticks in columns, the rank in the top right corner
    (or between two rows of sticks)."""
    tile = np.full((160, 120, 3), 235, np.uint8)
    rows = (16, 108) if at_middle else (46, 82, 118)
    for x in (22, 52):
        for y in rows:
            cv2.rectangle(tile, (x, y), (x + 10, y + 30), (40, 140, 40), -1)
    if numeral:
        where = (48, 92) if at_middle else (84, 34)
        cv2.putText(tile, numeral, where, cv2.FONT_HERSHEY_SIMPLEX, 1.0, (30, 30, 200), 2, cv2.LINE_AA)
    return tile


def test_the_calibration_photo_tells_where_the_set_prints_its_ranks(reader):
    """`training.numerals.printed_numerals` on a layout of a set drawn with its rank in the top right corner, and of
    the same set without numerals (ranks known by their places)."""
    from scoring.tiles import Tile
    from training.numerals import printed_numerals
    from vision.calibration_layout import LaidTile, LayoutReading
    from vision.settings import DetectorSettings

    class Recognizer:  # the part of the detector `printed_numerals` uses
        def text_reader(self):
            return reader

    def layout(numerals: bool):
        picture = np.full((3 * 180, 9 * 130, 3), 60, np.uint8)
        tiles = []
        for row, suit in enumerate("mps"):
            for rank in range(1, 10):
                x, y = (rank - 1) * 130 + 5, row * 180 + 10
                picture[y : y + 160, x : x + 120] = _suited_tile(str(rank) if numerals else "")
                name = Tile.suited(rank, suit).name
                tiles.append(LaidTile(row + 1, rank, name, name, 0.9, (x, y, x + 120, y + 160)))
        honour = LaidTile(4, 1, "E", "E", 0.9, (0, 0, 120, 160))  # not suited: not read
        return picture, LayoutReading((*tuple(tiles), honour), ())

    corner, counts = printed_numerals(Recognizer(), [layout(True)], DetectorSettings())
    assert corner == RIGHT and counts[RIGHT].tiles == 27 and counts[RIGHT].own >= 14 and counts[RIGHT].other == 0
    assert counts[LEFT].own == 0
    corner, counts = printed_numerals(Recognizer(), [layout(False)], DetectorSettings())
    assert corner is None and counts[RIGHT].own == 0


def _models_reading_every_face_as_9s_with_some_chance_of_6s(folder, six_weight: float = 1.5, tile=TILE, first="9s",
                                                           first_weight: float = 2.0, bamboo_weight: float = 0.0):
    folder.mkdir(parents=True, exist_ok=True)
    scale = FINDER_SIZE / IMG_W
    x1, y1, x2, y2 = (v * scale for v in tile)
    y1, y2 = y1 + 16, y2 + 16
    raw = fakes.raw_head([((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)], [[0.9, 0.0]])
    fakes.fake_finder(folder / "detector.onnx", raw, imgsz=FINDER_SIZE)
    names = list(FACE_NAMES)
    weights = np.zeros((3, len(names)), np.float32)
    weights[:, [names.index(f"{rank}s") for rank in range(1, 9)]] = bamboo_weight  # the other bamboos
    weights[:, names.index(first)] = first_weight  # a light face: 9s about 0.7, 6s about 0.2 (or 0.003 at weight 0)
    weights[:, names.index("6s")] = six_weight
    fakes.fake_classifier(folder / "classifier.onnx", names, weights)
    return folder


def _suited_scene(tile_bgr: np.ndarray, box=TILE) -> np.ndarray:
    image = np.full((IMG_H, IMG_W, 3), 60, np.uint8)
    x1, y1, x2, y2 = box
    image[y1:y2, x1:x2] = cv2.resize(tile_bgr, (x2 - x1, y2 - y1))
    return image


def _calibrated(models, corner: str | None):
    """`models` with its classifier marked as carrying a few-shot head, and where its calibration photo showed the
    set prints its ranks (`training.fewshot.bake` writes both)."""
    import onnx

    classifier = onnx.load(str(models / "classifier.onnx"))
    marks = {"mcr_fewshot": "prototypes", **({"mcr_numeral_corner": corner} if corner else {})}
    classifier.metadata_props.extend(onnx.StringStringEntryProto(key=k, value=v) for k, v in marks.items())
    onnx.save(classifier, str(models / "classifier.onnx"))
    return models


@pytest.mark.parametrize("calibrated, runner_up", [
    (True, "6s"),  # a photo of the set: the likeliest face that is no flower
    (False, "s2"),  # without a head the classifier's second reading stands
])
def test_a_face_of_a_calibrated_set_takes_no_flower_as_its_second_reading(tmp_path, calibrated, runner_up):
    from vision.detector import TileDetector

    models = tmp_path / "m"
    _models_reading_every_face_as_9s_with_some_chance_of_6s(models, six_weight=0.5)
    names = list(FACE_NAMES)
    weights = np.zeros((3, len(names)), np.float32)
    weights[:, names.index("9s")], weights[:, names.index("s2")], weights[:, names.index("6s")] = 2.0, 1.5, 0.5
    fakes.fake_classifier(models / "classifier.onnx", names, weights)  # 9s, then s2, then 6s
    if calibrated:
        _calibrated(models, None)
    dets = TileDetector.load(models).detect(_suited_scene(_suited_tile("")))
    assert dets.class_names == ["9s"] and dets.runner_up.tolist() == [CLASS_ID[runner_up]]
