"""Flower and season captions: the rules from OCR text to a class, the bands read, the reader
itself on drawn captions, and the detector using it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import vision_fake_models as fakes

from tileset.classes import CLASS_ID, FACE_NAMES
from vision.flowers import FLOWER_WORDS, caption_bands, read_caption, reading_from_texts
from vision.ocr import TextLineReader
from vision.ranks import (
    FIRST_ROUND,
    LEFT,
    MIDDLE,
    RIGHT,
    WHOLE,
    CornerCount,
    corner_bands,
    corner_rank,
    index_bands,
    index_reads,
    numeral_corner,
    other_rank_share,
    own_numerals,
    printed_corner,
    rank_from_texts,
)
from vision.settings import FlowerSettings, RankSettings


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


SIX_LIKELY = [0.0, 0.0, 0.0, 0.0, 0.0, 0.3, 0.0, 0.0, 0.7]  # the classifier's chance of 1..9: a nine, perhaps a six
SIX_UNLIKELY = [0.001, 0.001, 0.001, 0.001, 0.001, 0.01, 0.001, 0.001, 0.98]


@pytest.mark.parametrize(
    "texts, shares, expected",
    [
        ([("6", 0.99)], SIX_LIKELY, "6"),
        ([("6", 0.99), ("6", 0.93), ("开", 0.9)], SIX_LIKELY, "6"),  # text that is no digit says nothing
        ([("6.", 0.95)], SIX_LIKELY, "6"),  # a mark beside it
        ([("9", 1.0)], SIX_LIKELY, "9"),  # the rank it read anyway
        ([("6", 0.99)], SIX_UNLIKELY, None),  # a rank the classifier all but rules out
        ([("7", 1.0)], SIX_LIKELY, None),  # ... or gives no chance at all: a stick read as a 7
        ([("7", 1.0), ("6", 0.99)], SIX_LIKELY, "6"),  # only digits naming a possible rank must agree
        ([("6", 0.99), ("9", 0.98)], SIX_LIKELY, None),  # possible ranks that disagree
        ([("6", 0.8)], SIX_LIKELY, None),  # not sure enough
        ([("69", 1.0)], SIX_LIKELY, None),  # two digits: not an index numeral
        ([("(6", 0.99)], SIX_LIKELY, "6"),
        ([("開6", 0.99)], SIX_LIKELY, None),  # a character beside it: sticks read as text
        ([("6a", 0.99)], SIX_LIKELY, None),
        ([], SIX_LIKELY, None),
    ],
)
def test_rank_from_texts(texts, shares, expected):
    reading = rank_from_texts(texts, shares, RankSettings(min_digit_score=0.9, min_share=0.02))
    assert (reading.name if reading else None) == expected


def test_index_bands_are_the_top_its_halves_and_the_middle():
    tile = np.arange(100 * 60 * 3, dtype=np.uint32).reshape(100, 60, 3).astype(np.uint8)
    bands = index_bands(tile, RankSettings(band_shares=(0.3,), middle_share=0.2))
    assert [where for where, _ in bands] == [WHOLE, LEFT, RIGHT, MIDDLE]
    (_, top), (_, left), (_, right), (_, middle) = bands
    np.testing.assert_array_equal(top, tile[:30])
    np.testing.assert_array_equal(left, tile[:30, :30])
    np.testing.assert_array_equal(right, tile[:30, 30:])
    np.testing.assert_array_equal(middle, tile[40:60])


def test_index_bands_come_at_each_depth_the_middle_after_the_first():
    tile = np.arange(100 * 60 * 3, dtype=np.uint32).reshape(100, 60, 3).astype(np.uint8)
    bands = index_bands(tile, RankSettings(band_shares=(0.3, 0.35), middle_share=0.2))
    assert [b.shape[:2] for _, b in bands] == [(30, 60), (30, 30), (30, 30), (20, 60), (35, 60), (35, 30), (35, 30)]
    assert [where for where, _ in bands] == [WHOLE, LEFT, RIGHT, MIDDLE, WHOLE, LEFT, RIGHT]
    assert FIRST_ROUND == 4  # the first depth and the middle are read first
    np.testing.assert_array_equal(bands[6][1], tile[:35, 30:])


def test_index_bands_leave_the_crop_margin_out_of_the_halves():
    tile = np.arange(100 * 60 * 3, dtype=np.uint32).reshape(100, 60, 3).astype(np.uint8)
    (_, top), (_, left), (_, right), _ = index_bands(tile, RankSettings(band_shares=(0.3,)), margin=0.1)
    np.testing.assert_array_equal(top, tile[:30])  # the whole band still: a numeral may sit at the very edge
    np.testing.assert_array_equal(left, tile[:30, 6:30])
    np.testing.assert_array_equal(right, tile[:30, 30:54])


def _reads(*pairs: tuple[str, str]) -> list[tuple[str, tuple[str, float]]]:
    return [(where, (text, 0.99)) for where, text in pairs]


@pytest.mark.parametrize(
    "reads, beside, corner, kept",
    [
        # a set printing top right: the left neighbour's numeral shows in the left strip
        ([(LEFT, "5"), (RIGHT, "6")], {LEFT: 5}, RIGHT, ["6"]),
        ([(WHOLE, "5"), (LEFT, "5"), (RIGHT, "6")], {LEFT: 5}, RIGHT, ["6"]),
        ([(WHOLE, "5")], {LEFT: 5}, RIGHT, []),
        ([(RIGHT, "6")], {RIGHT: 6}, RIGHT, ["6"]),  # in the corner's half: the tile's own, a pung
        ([(LEFT, "6"), (RIGHT, "6")], {LEFT: 6, RIGHT: 6}, RIGHT, ["6", "6"]),
        ([(LEFT, "5"), (MIDDLE, "5")], {LEFT: 5}, RIGHT, ["5", "5"]),  # no neighbour reaches the middle
        ([(LEFT, "6")], {LEFT: 5}, RIGHT, ["6"]),
        ([(LEFT, "开")], {LEFT: 5}, RIGHT, ["开"]),
        # top left: the mirror
        ([(RIGHT, "5"), (LEFT, "6")], {RIGHT: 5}, LEFT, ["6"]),
        ([(LEFT, "5")], {LEFT: 5}, LEFT, ["5"]),
        # no corner known: nothing is left out
        ([(LEFT, "5"), (RIGHT, "6")], {LEFT: 5}, None, ["5", "6"]),
    ],
)
def test_own_numerals(reads, beside, corner, kept):
    assert [text for text, _ in own_numerals(_reads(*reads), beside, corner)] == kept


def test_other_rank_share_is_the_largest_chance_left_to_another_rank():
    shares = np.array([0.01, 0.0, 0.0, 0.0, 0.0, 0.03, 0.0, 0.0, 0.96])
    assert other_rank_share(shares, 9) == pytest.approx(0.03)
    assert other_rank_share(shares, 6) == pytest.approx(0.96)
    assert other_rank_share(np.eye(9)[0], 1) == 0.0


def test_numeral_corner_is_where_digits_naming_no_neighbour_were_read_in_one_half():
    top_right = (_reads((RIGHT, "6"), (LEFT, "开")), {LEFT: 3})
    neighbours = (_reads((LEFT, "3")), {LEFT: 3})  # the left neighbour's: no evidence either way
    both_halves = (_reads((LEFT, "7"), (RIGHT, "7")), {})
    weak = ([(LEFT, ("4", 0.5))], {})
    assert numeral_corner([top_right, neighbours, both_halves, weak], min_score=0.9) == RIGHT
    top_left = (_reads((LEFT, "2")), {RIGHT: 9})
    assert numeral_corner([top_right, top_left, (_reads((LEFT, "8")), {})], min_score=0.9) == LEFT
    assert numeral_corner([top_right, top_left], min_score=0.9) is None
    assert numeral_corner([], min_score=0.9) is None


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
    a_wrong_digit = most_top_right + [tile(5, right=["3"])]
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
def reader() -> TextLineReader:
    return TextLineReader()


def test_reader_reads_a_caption_at_the_bottom(reader):
    reading = read_caption(reader, _tile_with("WINTER", at_top=False), "1p")
    assert reading is not None and reading.name == "s4"


def test_reader_reads_a_number_upside_down(reader):
    tile = _tile_with("2", at_top=True, scale=1.1)
    assert read_caption(reader, np.ascontiguousarray(tile[::-1, ::-1]), "f3").name == "f2"


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


def _rank_read(reader, tile, shares):
    """The rank the index bands of an upright tile name, as the detector decides it for a lone tile."""
    return rank_from_texts([text for _, text in index_reads(reader, tile, RankSettings())], shares, RankSettings())


def test_reader_reads_an_index_numeral_in_the_corner(reader):
    reading = _rank_read(reader, _suited_tile("6"), SIX_LIKELY)
    assert reading is not None and reading.name == "6"


def test_reader_reads_an_index_numeral_in_the_middle(reader):
    eight_likely = [0.0, 0.0, 0.0, 0.0, 0.7, 0.0, 0.0, 0.3, 0.0]
    reading = _rank_read(reader, _suited_tile("8", at_middle=True), eight_likely)
    assert reading is not None and reading.name == "8"


def _suited_tile_beside(numeral: str, neighbours: str) -> np.ndarray:
    """`_suited_tile(numeral)` with the left neighbour's numeral showing in the strip at its top left."""
    tile = _suited_tile(numeral)
    tile[:, :14] = 250  # the neighbour's face
    cv2.putText(tile, neighbours, (0, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (30, 30, 200), 2, cv2.LINE_AA)
    return tile


def test_reader_reads_the_bands_where_a_neighbours_numeral_shows_and_its_own(reader):
    five_or_six = [0.0, 0.0, 0.0, 0.0, 0.3, 0.3, 0.0, 0.0, 0.4]
    above_the_sticks = RankSettings(band_shares=(0.25,))  # the drawn sticks' tops read as "_" beside a digit
    reads = index_reads(reader, _suited_tile_beside("6", "5"), above_the_sticks)
    assert rank_from_texts([text for _, text in reads], five_or_six, above_the_sticks) is None  # 5 and 6 disagree
    own = own_numerals(reads, {LEFT: 5}, corner=RIGHT)
    assert rank_from_texts(own, five_or_six, above_the_sticks).name == "6"


def test_reader_finds_no_rank_without_a_numeral(reader):
    assert _rank_read(reader, _suited_tile(""), SIX_LIKELY) is None


def test_reader_finds_nothing_on_a_plain_face(reader):
    assert read_caption(reader, np.full((160, 120, 3), 235, np.uint8), "f1") is None


# ---------------------------------------------------------------- in the detector

IMG_W, IMG_H, FINDER_SIZE = 400, 200, 64
TILE = (140, 20, 260, 180)


def _models_reading_every_face_as_1p_with_some_chance_of_f1(folder, first: str = "1p"):
    folder.mkdir(parents=True, exist_ok=True)
    scale = FINDER_SIZE / IMG_W
    x1, y1, x2, y2 = (v * scale for v in TILE)
    y1, y2 = y1 + 16, y2 + 16  # the 400x200 image letterboxed into 64x64: 16 px of grey above
    raw = fakes.raw_head([((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)], [[0.9, 0.0]])
    fakes.fake_finder(folder / "detector.onnx", raw, imgsz=FINDER_SIZE)
    names = list(FACE_NAMES)
    weights = np.zeros((3, len(names)), np.float32)
    weights[:, names.index(first)] = 2.0  # a light face: 1p about 0.7, f1 about 0.2
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


def test_a_face_read_surely_is_not_read_from_its_caption(tmp_path):
    from dataclasses import replace

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    models = _models_reading_every_face_as_1p_with_some_chance_of_f1(tmp_path / "m")  # 1p, at 0.3-0.5
    surely = replace(DetectorSettings(), flowers=FlowerSettings(max_confidence=0.3))
    assert TileDetector.load(models, surely).detect(_scene("SPRING")).class_names == ["1p"]
    unsure = replace(DetectorSettings(), flowers=FlowerSettings(max_confidence=0.5))
    assert TileDetector.load(models, unsure).detect(_scene("SPRING")).class_names == ["s1"]


def test_a_classifier_with_a_few_shot_head_has_its_sure_faces_read_from_their_caption_only_when_asked(tmp_path):
    """A calibrated classifier is sure from one photo's prototypes; its sure faces skip the caption (which flower
    it is scores nothing) unless `sure_fewshot_skips` is off."""
    from dataclasses import replace

    import onnx

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    models = _models_reading_every_face_as_1p_with_some_chance_of_f1(tmp_path / "m")  # 1p, at 0.3-0.5
    classifier = onnx.load(str(models / "classifier.onnx"))
    classifier.metadata_props.append(onnx.StringStringEntryProto(key="mcr_fewshot", value="prototypes"))
    onnx.save(classifier, str(models / "classifier.onnx"))
    read_again = replace(DetectorSettings(), flowers=FlowerSettings(max_confidence=0.3, sure_fewshot_skips=False))
    assert TileDetector.load(models, read_again).detect(_scene("SPRING")).class_names == ["s1"]
    trusted = replace(DetectorSettings(), flowers=FlowerSettings(max_confidence=0.3))
    assert TileDetector.load(models, trusted).detect(_scene("SPRING")).class_names == ["1p"]


def test_detector_without_rapidocr_warns_once_and_keeps_the_classifier_reading(tmp_path, monkeypatch):
    import sys

    from vision.detector import TileDetector

    monkeypatch.setitem(sys.modules, "rapidocr", None)  # import fails as if not installed
    detector = TileDetector.load(_models_reading_every_face_as_1p_with_some_chance_of_f1(tmp_path / "m"))
    with pytest.warns(UserWarning, match="rapidocr is not installed"):
        assert detector.detect(_scene("SPRING")).class_names == ["1p"]
    assert detector.detect(_scene("SPRING")).class_names == ["1p"]  # no second try, no second warning


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


def _models_sure_of_9s_leaving_6s_a_chance(folder, tile=TILE):
    """9s at about 0.96, past the index numerals' `max_confidence`; 6s at about 0.035, past `corner_min_share`."""
    return _models_reading_every_face_as_9s_with_some_chance_of_6s(folder, six_weight=3.3, tile=tile, first_weight=5.0)


def _suited_scene(tile_bgr: np.ndarray, box=TILE) -> np.ndarray:
    image = np.full((IMG_H, IMG_W, 3), 60, np.uint8)
    x1, y1, x2, y2 = box
    image[y1:y2, x1:x2] = cv2.resize(tile_bgr, (x2 - x1, y2 - y1))
    return image


def test_detector_takes_the_rank_of_the_index_numeral_and_keeps_the_classifier_reading_second(tmp_path):
    from vision.detector import TileDetector

    detector = TileDetector.load(_models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "m"))
    dets = detector.detect(_suited_scene(_suited_tile("6")))
    assert dets.class_names == ["6s"] and dets.runner_up.tolist() == [CLASS_ID["9s"]]
    assert detector.detect(_suited_scene(_suited_tile(""))).class_names == ["9s"]


@pytest.mark.parametrize("any_suit, read", [(True, "6s"), (False, "8p")])
def test_detector_puts_the_numerals_rank_in_the_suit_the_classifier_gives_it_most(tmp_path, any_suit, read):
    """Read as a pin eight, with some chance of a bamboo six and next to none of a pin six: the 6
    names the bamboo six (with `any_suit` off, only a pin six, which the classifier rules out)."""
    from dataclasses import replace

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    models = _models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "m", first="8p")
    settings = replace(DetectorSettings(), ranks=RankSettings(any_suit=any_suit))
    dets = TileDetector.load(models, settings).detect(_suited_scene(_suited_tile("6")))
    assert dets.class_names == [read]


def test_detector_ignores_a_numeral_naming_a_rank_the_classifier_rules_out(tmp_path):
    from vision.detector import TileDetector

    models = _models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "m", six_weight=0.0)
    assert TileDetector.load(models).detect(_suited_scene(_suited_tile("6"))).class_names == ["9s"]


SIDEWAYS = (120, 40, 280, 160)  # wider than tall: a tile lying on its side, turned upright one way or the other


@pytest.mark.parametrize("quarter_turns", [1, -1])
def test_detector_reads_a_sideways_tile_both_ways_up(tmp_path, quarter_turns):
    from vision.detector import TileDetector

    models = _models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "m", tile=SIDEWAYS)
    turned = np.ascontiguousarray(np.rot90(_suited_tile("6"), quarter_turns))
    assert TileDetector.load(models).detect(_suited_scene(turned, SIDEWAYS)).class_names == ["6s"]


def test_detector_keeps_the_classifier_reading_when_the_two_ways_up_disagree(tmp_path):
    from vision.detector import TileDetector

    models = _models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "m", tile=SIDEWAYS)
    six_one_way_nine_the_other = np.concatenate([_suited_tile("6")[:80], _suited_tile("9")[::-1, ::-1][80:]])
    turned = np.ascontiguousarray(np.rot90(six_one_way_nine_the_other, 1))
    assert TileDetector.load(models).detect(_suited_scene(turned, SIDEWAYS)).class_names == ["9s"]


def _three_touching_tiles(folder):
    """5s 6s 6s side by side, ranks printed top right; the finder's boxes reach 30 px into the tile
    on their left (as a box taking in a tile's edge does), so each crop shows its left neighbour's
    numeral. The classifier reads the reddish 5s surely, the others as 9s or 5s with some chance of 6s."""

    def face(numeral: str, tint: tuple[int, int, int] = (235, 235, 235)) -> np.ndarray:
        tile = np.full((140, 100, 3), tint, np.uint8)
        for x in (18, 48):
            for y in (60, 92):
                cv2.rectangle(tile, (x, y), (x + 9, y + 26), (40, 140, 40), -1)
        cv2.putText(tile, numeral, (70, 32), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (30, 30, 200), 2, cv2.LINE_AA)
        return tile

    image = np.full((IMG_H, IMG_W, 3), 60, np.uint8)
    image[30:170, 40:140] = face("5", tint=(150, 150, 235))
    image[30:170, 140:240] = face("6")
    image[30:170, 240:340] = face("6")
    folder.mkdir(parents=True, exist_ok=True)
    scale = FINDER_SIZE / IMG_W
    boxes = [(40, 30, 140, 170), (110, 30, 240, 170), (210, 30, 340, 170)]
    raw = fakes.raw_head([((x1 + x2) / 2 * scale, (y1 + y2) / 2 * scale + 16, (x2 - x1) * scale, (y2 - y1) * scale)
                          for x1, y1, x2, y2 in boxes], [[0.9, 0.0]] * 3)
    fakes.fake_finder(folder / "detector.onnx", raw, imgsz=FINDER_SIZE)
    names = list(FACE_NAMES)
    weights = np.zeros((3, len(names)), np.float32)
    weights[:, names.index("9s")] = 2.0
    weights[:, names.index("6s")] = 1.5
    weights[:, names.index("5s")] = np.array([1.5, 1.5, 1.5]) + [40.0, -20.0, -20.0]  # red crops: surely 5s
    fakes.fake_classifier(folder / "classifier.onnx", names, weights)
    return folder, image


@pytest.mark.parametrize("leave_out_neighbours, middle", [(True, "6s"), (False, "5s")])
def test_detector_leaves_out_a_neighbours_numeral_once_the_corner_is_known(tmp_path, leave_out_neighbours, middle):
    """The middle tile's crop shows the 5 of its left neighbour and its own 6. The 6, read in its right
    half only and naming no neighbour, shows that the set prints top right, so the 5 is the
    neighbour's. Without the rule the two disagree and the classifier's reading stays (5s: the crop
    takes in some of the reddish tile)."""
    from dataclasses import replace

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    models, image = _three_touching_tiles(tmp_path / "m")
    settings = replace(DetectorSettings(), ranks=RankSettings(leave_out_neighbours=leave_out_neighbours))
    dets = TileDetector.load(models, settings).detect(image)
    assert [dets.class_names[i] for i in np.argsort(dets.xyxy[:, 0])] == ["5s", middle, "6s"]


def test_detector_without_rank_reading_keeps_the_classifier_reading(tmp_path):
    from dataclasses import replace

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    settings = replace(DetectorSettings(), ranks=RankSettings(enabled=False))
    detector = TileDetector.load(_models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "m"), settings)
    assert detector.detect(_suited_scene(_suited_tile("6"))).class_names == ["9s"]


def _lines_read(detector, image) -> list[int]:
    """How many bands each recognizer run of `detector.detect(image)` read."""
    reader = detector.text_reader()
    runs: list[int] = []
    read_lines = reader.read_lines

    def counting(lines, min_width=None):
        runs.append(len(lines))
        return read_lines(lines, min_width)

    reader.read_lines = counting
    detector.detect(image)
    return [n for n in runs if n]


@pytest.mark.parametrize("read_as, caption, runs, share", [("s1", "SPRING", [2], 0.3), ("1p", "SPRING", [2, 3], 0.1),
                                                           ("1p", "SPRING", [2], 0.3), ("s1", "", [2, 3], 0.3),
                                                           ("s1", "WINTER", [2, 3], 0.3)])
def test_detector_reads_turned_over_and_middle_bands_only_where_the_upright_ones_do_not_confirm_the_reading(
        tmp_path, read_as, caption, runs, share):
    """A tile read as s1 whose upright bands read SPRING surely stays s1 whatever the other bands say:
    they are not read. Read as 1p (f1 at about 0.2), every band is read only where that share reaches
    `second_round_share`; with no caption or another one, every band is read."""
    from dataclasses import replace

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    models = _models_reading_every_face_as_1p_with_some_chance_of_f1(tmp_path / "m", first=read_as)
    detector = TileDetector.load(models, replace(DetectorSettings(), flowers=FlowerSettings(second_round_share=share)))
    assert _lines_read(detector, _scene(caption)) == runs
    assert detector.detect(_scene(caption)).class_names == [{"SPRING": "s1", "WINTER": "s4"}.get(caption, read_as)]


@pytest.mark.parametrize("first, numeral, runs", [("9s", "9", [4]), ("9s", "6", [4, 3]), ("9s", "", [4, 3])])
def test_detector_reads_the_deeper_index_bands_only_where_the_first_do_not_confirm_the_rank(
        tmp_path, first, numeral, runs):
    from dataclasses import replace

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    no_captions = replace(DetectorSettings(), flowers=FlowerSettings(enabled=False))
    models = _models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "m", first=first)
    detector = TileDetector.load(models, no_captions)
    assert _lines_read(detector, _suited_scene(_suited_tile(numeral))) == runs


def test_detector_reads_no_numeral_where_no_other_rank_has_a_chance(tmp_path):
    from dataclasses import replace

    from vision.detector import TileDetector
    from vision.settings import DetectorSettings

    models = _models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "m", six_weight=-20.0)
    detector = TileDetector.load(models, replace(DetectorSettings(), flowers=FlowerSettings(enabled=False)))
    assert _lines_read(detector, _suited_scene(_suited_tile("6"))) == []


def _calibrated(models, corner: "str | None"):
    """`models` with its classifier marked as carrying a few-shot head, and where its calibration photo showed the
    set prints its ranks (`training.fewshot.bake` writes both)."""
    import onnx

    classifier = onnx.load(str(models / "classifier.onnx"))
    marks = {"mcr_fewshot": "prototypes", **({"mcr_numeral_corner": corner} if corner else {})}
    classifier.metadata_props.extend(onnx.StringStringEntryProto(key=k, value=v) for k, v in marks.items())
    onnx.save(classifier, str(models / "classifier.onnx"))
    return models


@pytest.mark.parametrize("corner, overrides, read", [
    (RIGHT, [], "6s"),  # read in the corner the calibration photo showed (in both bands), however sure the classifier
    (LEFT, [], "9s"),  # the other corner reads nothing
    (None, [], "9s"),  # a set without index numerals: ranks are read only where the classifier is unsure
    (RIGHT, ["ranks.calibrated_corner=false"], "9s"),
    (RIGHT, ["ranks.corner_reads=3"], "9s"),  # only two bands to read it in
    (RIGHT, ["ranks.corner_min_share=0.05"], "9s"),  # 6s's chance (about 0.035) too small to read the corner
])
def test_a_calibrated_set_printing_its_ranks_in_a_corner_has_its_sure_suited_tiles_read_there(tmp_path, corner,
                                                                                             overrides, read):
    from vision.detector import TileDetector
    from vision.settings import DetectorSettings, with_overrides

    models = _calibrated(_models_sure_of_9s_leaving_6s_a_chance(tmp_path / "m"), corner)
    settings = with_overrides(DetectorSettings(), overrides)
    dets = TileDetector.load(models, settings).detect(_suited_scene(_suited_tile("6")))
    assert dets.class_names == [read]
    if read == "6s":
        assert dets.runner_up.tolist() == [CLASS_ID["9s"]]


def test_an_unsure_tile_of_a_calibrated_set_is_read_by_its_index_numerals_as_before(tmp_path):
    """The corner reads the tiles the classifier is sure of; one it is unsure of keeps the index numerals'
    reading, which also looks between the rows of sticks, where the corner does not."""
    from vision.detector import TileDetector

    unsure = _calibrated(_models_reading_every_face_as_9s_with_some_chance_of_6s(tmp_path / "u"), RIGHT)
    assert TileDetector.load(unsure).detect(_suited_scene(_suited_tile("6", at_middle=True))).class_names == ["6s"]
    sure = _calibrated(_models_sure_of_9s_leaving_6s_a_chance(tmp_path / "s"), RIGHT)
    assert TileDetector.load(sure).detect(_suited_scene(_suited_tile("6", at_middle=True))).class_names == ["9s"]


@pytest.mark.parametrize("min_share, read", [(1e-12, "9s"), (0.0, "6s")])
def test_a_calibrated_corner_is_not_read_where_the_head_leaves_no_other_rank_a_chance(tmp_path, min_share, read):
    """A face the head reads as 9s with no chance left for 6s keeps 9s, whatever its corner prints: a digit read there
    could only be a misread one. `corner_min_share=0` reads every suited face's corner (stop 40)."""
    from vision.detector import TileDetector
    from vision.settings import DetectorSettings, with_overrides

    models = _calibrated(_models_reading_every_face_as_9s_with_some_chance_of_6s(  # 1s-8s at about 1e-19
        tmp_path / "m", six_weight=-20.0, bamboo_weight=-20.0), RIGHT)
    settings = with_overrides(DetectorSettings(), [f"ranks.corner_min_share={min_share}", "flowers.enabled=false"])
    detector = TileDetector.load(models, settings)
    assert detector.detect(_suited_scene(_suited_tile("6"))).class_names == [read]
    assert _lines_read(detector, _suited_scene(_suited_tile("6"))) == ([] if read == "9s" else [1, 1])


@pytest.mark.parametrize("calibrated, flower_seconds, runner_up", [
    (True, True, "s2"), (True, False, "6s"),  # a photo of the set: the likeliest face that is no flower, when asked
    (False, False, "s2"),  # without a head the classifier's second reading stands
])
def test_a_face_of_a_calibrated_set_takes_no_flower_as_its_second_reading_when_asked(tmp_path, calibrated,
                                                                                     flower_seconds, runner_up):
    from vision.detector import TileDetector
    from vision.settings import DetectorSettings, with_overrides

    models = tmp_path / "m"
    _models_reading_every_face_as_9s_with_some_chance_of_6s(models, six_weight=0.5)
    names = list(FACE_NAMES)
    weights = np.zeros((3, len(names)), np.float32)
    weights[:, names.index("9s")], weights[:, names.index("s2")], weights[:, names.index("6s")] = 2.0, 1.5, 0.5
    fakes.fake_classifier(models / "classifier.onnx", names, weights)  # 9s, then s2, then 6s
    if calibrated:
        _calibrated(models, None)
    settings = with_overrides(DetectorSettings(), [f"rules_off={'no_flower_seconds' if flower_seconds else ''}",
                                                   "flowers.enabled=false", "ranks.enabled=false"])
    dets = TileDetector.load(models, settings).detect(_suited_scene(_suited_tile("")))
    assert dets.class_names == ["9s"] and dets.runner_up.tolist() == [CLASS_ID[runner_up]]


@pytest.mark.parametrize("quarter_turns", [1, -1])
def test_a_sideways_tile_of_a_calibrated_set_is_read_in_its_corner_both_ways_up(tmp_path, quarter_turns):
    from vision.detector import TileDetector

    models = _calibrated(_models_sure_of_9s_leaving_6s_a_chance(tmp_path / "m", tile=SIDEWAYS), RIGHT)
    turned = np.ascontiguousarray(np.rot90(_suited_tile("6"), quarter_turns))
    assert TileDetector.load(models).detect(_suited_scene(turned, SIDEWAYS)).class_names == ["6s"]


def test_the_calibration_photo_tells_where_the_set_prints_its_ranks(reader):
    """`training.calibrate.printed_numerals` on a layout of a set drawn with its rank in the top right corner, and of
    the same set without numerals (ranks known by their places)."""
    from scoring.tiles import Tile
    from training.calibrate import printed_numerals
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
        return picture, LayoutReading(tuple(tiles) + (honour,), ())

    corner, counts = printed_numerals(Recognizer(), [layout(True)], DetectorSettings())
    assert corner == RIGHT and counts[RIGHT].tiles == 27 and counts[RIGHT].own >= 14 and counts[RIGHT].other == 0
    assert counts[LEFT].own == 0
    corner, counts = printed_numerals(Recognizer(), [layout(False)], DetectorSettings())
    assert corner is None and counts[RIGHT].own == 0


@pytest.mark.parametrize("numeral, runs", [("6", [1, 1]), ("9", [1]), ("", [1])])
def test_a_calibrated_corner_reads_its_deeper_band_only_where_the_first_names_another_rank(tmp_path, numeral, runs):
    from vision.detector import TileDetector
    from vision.settings import DetectorSettings, with_overrides

    models = _calibrated(_models_sure_of_9s_leaving_6s_a_chance(tmp_path / "m"), RIGHT)
    detector = TileDetector.load(models, with_overrides(DetectorSettings(), ["flowers.enabled=false"]))
    assert _lines_read(detector, _suited_scene(_suited_tile(numeral))) == runs
