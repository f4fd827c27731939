"""Reading the calibration layout: every tile named by its row and place, or a problem that says where."""

from __future__ import annotations

import random

import numpy as np
import pytest

from datasets.scene import plan_calibration
from tileset.calibration import LayoutSpecError, calibration_rows, parse_bonus
from tileset.classes import CLASS_ID
from vision.calibration_layout import read_layout
from vision.detections import Detections


def planned(seed: int, rows=None, **variation) -> tuple[list[str], np.ndarray]:
    """Names and boxes of a calibration layout as the scene planner places it (camera tilt, turn)."""
    plan = plan_calibration(rows or calibration_rows(), random.Random(seed), 1600, 1200, **variation)
    return [t.cls for t in plan.tiles], np.array([t.xyxy for t in plan.tiles], np.float32)


def detections(names: list[str], boxes: np.ndarray) -> Detections:
    return Detections.from_lists(boxes, [0.9] * len(names), [CLASS_ID[n] for n in names])


def without(names: list[str], boxes: np.ndarray, drop: str) -> tuple[list[str], np.ndarray]:
    keep = [i for i, n in enumerate(names) if n != drop]
    return [names[i] for i in keep], boxes[keep]


@pytest.mark.parametrize("seed", range(12))
def test_every_tile_is_named_by_its_place_under_any_camera(seed):
    names, boxes = planned(seed)
    reading = read_layout(detections(names, boxes))
    assert reading.ok, reading.problems
    assert len(reading.tiles) == 42
    assert reading.read_accuracy == 1.0
    by_place = {(t.row, t.place): t.expected for t in reading.tiles}
    assert by_place[(1, 1)] == "1m" and by_place[(2, 9)] == "9p" and by_place[(4, 5)] == "C"
    assert by_place[(5, 8)] == "s4"


def test_names_come_from_places_not_from_readings():
    names, boxes = planned(3)
    misread = ["1m" if n == "4m" else n for n in names]  # the models read 4m as 1m
    reading = read_layout(detections(misread, boxes))
    assert reading.ok
    tile = next(t for t in reading.tiles if (t.row, t.place) == (1, 4))
    assert (tile.expected, tile.read_as) == ("4m", "1m")
    assert reading.misread == ["row 1 place 4: 4m read as 1m"]


def test_a_missing_tile_is_named_by_row_and_place():
    names, boxes = planned(5)
    reading = read_layout(detections(*without(names, boxes, "6s")))
    assert not reading.ok
    assert any("row 3" in p and "place 6 (6s) missing" in p for p in reading.problems), reading.problems


def test_an_extra_tile_is_named_by_row_and_place():
    names, boxes = planned(6, row_gap=0.3)
    k = names.index("4p")
    shift = (boxes[k, 2] - boxes[k, 0]) * 0.5
    moved = boxes.copy()
    for i, n in enumerate(names):  # make room: 5p..9p move right by a tile and a half
        if n.endswith("p") and int(n[0]) >= 5:
            moved[i, [0, 2]] += 3 * shift
    extra = moved[k].copy()
    extra[[0, 2]] += 2.6 * shift
    reading = read_layout(detections([*names, "3p"], np.vstack([moved, extra])))
    assert not reading.ok
    assert any("row 2" in p and "extra" in p and "place 5" in p for p in reading.problems), reading.problems


@pytest.mark.parametrize("seed", range(4))
def test_unsure_boxes_beside_the_layout_are_read_past_when_the_sure_ones_show_it(seed):
    """A paper or a patterned table beside the layout: five boxes the finder was unsure of (0.08), in a
    column to the left. With every box the layout does not fit; without the least sure five it does, and
    those boxes are named nowhere. A box as sure as the tiles is still an extra tile."""
    from dataclasses import replace

    from vision.settings import LayoutSettings

    names, boxes = planned(seed)
    w, h = np.median(boxes[:, 2] - boxes[:, 0]), np.median(boxes[:, 3] - boxes[:, 1])
    x0 = boxes[:, 0].min() - 6 * w
    column = np.array([[x0 + k * 0.3 * w, y, x0 + k * 0.3 * w + w, y + h]
                       for k, y in enumerate(np.linspace(boxes[:, 1].min() + h, boxes[:, 3].max() - h, 5))], np.float32)
    ids = [CLASS_ID[n] for n in names] + [CLASS_ID["P"]] * 5
    unsure = Detections.from_lists(np.concatenate([boxes, column]), [0.9] * len(names) + [0.08] * 5, ids)
    every_box = read_layout(unsure, settings=replace(LayoutSettings(), calibration_doubtful=0))
    assert not every_box.ok
    reading = read_layout(unsure)
    assert reading.ok and len(reading.tiles) == 42 and reading.read_accuracy == 1.0
    sure = Detections.from_lists(np.concatenate([boxes, column]), [0.9] * (len(names) + 5), ids)
    assert not read_layout(sure).ok


def test_leaving_out_unsure_boxes_never_leaves_out_the_flowers_row():
    """Row 5's tiles all read unsurely and one of them missing: with every box the layout does not fit, and
    leaving out the unsure tiles must not read it as a set without flowers."""
    names, boxes = planned(2)
    names, boxes = without(names, boxes, "s3")
    confidence = [0.3 if name in ("f1", "f2", "f3", "f4", "s1", "s2", "s4") else 0.9 for name in names]
    reading = read_layout(Detections.from_lists(boxes, confidence, [CLASS_ID[n] for n in names]))
    assert not reading.ok
    assert any("row 5" in p and "place 7 (s3) missing" in p for p in reading.problems), reading.problems


def test_a_box_before_row_4_with_its_white_dragon_read_as_a_back_is_no_optional_back():
    """Row 4 as E S W N C F P with a false box before E and the white dragon read as a back: eight boxes
    ending in a back. Taken as the optional back, every tile of the row would be named one place off
    (the false box as E, E as S, ..., P as the back). The reads fit one place on, so the false box is the
    extra tile; when the finder was unsure of it, it is left out and the row reads right."""
    names, boxes = planned(4)
    row4 = [i for i, n in enumerate(names) if n in ("E", "S", "W", "N", "C", "F", "P")]
    first = boxes[row4[0]]
    width = first[2] - first[0]
    false_box = first - np.array([width * 1.05, 0, width * 1.05, 0], np.float32)
    read = ["back" if n == "P" else n for n in names] + ["E"]
    all_boxes = np.concatenate([boxes, false_box[None]])
    for confidence, reads_right in ((0.9, False), (0.3, True)):
        dets = Detections.from_lists(all_boxes, [0.9] * len(names) + [confidence], [CLASS_ID[n] for n in read])
        reading = read_layout(dets)
        assert reading.ok == reads_right, reading.problems
        if reads_right:
            by_place = {(t.row, t.place): t for t in reading.tiles}
            assert [by_place[(4, k)].expected for k in range(1, 8)] == ["E", "S", "W", "N", "C", "F", "P"]
            assert by_place[(4, 7)].read_as == "back" and (4, 8) not in by_place
        else:
            assert any("row 4" in p and "extra" in p for p in reading.problems), reading.problems


@pytest.mark.parametrize("seed", range(4))
def test_tiles_the_finder_scored_below_its_threshold_fill_their_places_and_table_boxes_stay_out(seed):
    """A busy cloth: the finder kept 1p, 9p, 1s and E below its threshold (among its unsure boxes, with
    more of them on the table around the layout). With the sure boxes alone places are missing; the
    unsure tiles fill them, and the table's boxes, unsure too, are named nowhere."""
    names, boxes = planned(seed)
    low = [i for i, n in enumerate(names) if n in ("1p", "9p", "1s", "E")]
    sure = [i for i in range(len(names)) if i not in low]
    found = Detections.from_lists(boxes[sure], [0.9] * len(sure), [CLASS_ID[names[i]] for i in sure])
    w, h = np.median(boxes[:, 2] - boxes[:, 0]), np.median(boxes[:, 3] - boxes[:, 1])
    x0, y0 = boxes[:, 0].min(), boxes[:, 1].min()
    table = np.array([[x0 - 3 * w, y0 - 3 * h, x0 - 2 * w, y0 - 2 * h],
                      [x0 - 3 * w, y0 + 4 * h, x0 - 2 * w, y0 + 5 * h],
                      [boxes[:, 2].max() + 2 * w, y0, boxes[:, 2].max() + 3 * w, y0 + h]], np.float32)
    unsure = Detections.from_lists(np.concatenate([table[:2], boxes[low], table[2:]]),
                                   [0.05, 0.04, 0.03, 0.02, 0.06, 0.02, 0.03],
                                   [CLASS_ID["P"]] * 2 + [CLASS_ID[names[i]] for i in low] + [CLASS_ID["P"]])
    alone = read_layout(found)
    assert not alone.ok and any("place 1 (1p) missing" in p for p in alone.problems), alone.problems
    reading = read_layout(found, unsure=unsure)
    assert reading.ok, reading.problems
    assert len(reading.tiles) == 42 and reading.read_accuracy == 1.0
    placed = {tuple(np.round(t.xyxy, 1)) for t in reading.tiles}
    assert not any(tuple(np.round(box, 1)) in placed for box in table)


def test_a_tile_missing_from_the_table_is_not_filled_by_a_box_on_the_cloth():
    """6s is not on the table; the finder's unsure boxes lie on the cloth beside the layout. Nothing they
    add makes the layout fit, so the problem still names the place."""
    names, boxes = planned(5)
    names, boxes = without(names, boxes, "6s")
    w, h = np.median(boxes[:, 2] - boxes[:, 0]), np.median(boxes[:, 3] - boxes[:, 1])
    x0, y0 = boxes[:, 0].min(), boxes[:, 1].min()
    cloth = np.array([[x0 - 3 * w, y0 + k * 2 * h, x0 - 2 * w, y0 + (2 * k + 1) * h] for k in range(4)], np.float32)
    unsure = Detections.from_lists(cloth, [0.05] * 4, [CLASS_ID["6s"]] * 4)
    reading = read_layout(detections(names, boxes), unsure=unsure)
    assert not reading.ok
    assert any("row 3" in p and "place 6 (6s) missing" in p for p in reading.problems), reading.problems


@pytest.mark.parametrize("seed", range(3))
def test_more_false_boxes_than_the_old_eight_are_left_out_one_by_one(seed):
    """A checked cloth: eleven unsure white squares around the layout, some in rows of their own and two
    at the ends of rows 1 and 2. Each left out leaves one misfit less; a tile of the layout never does."""
    names, boxes = planned(seed)
    w, h = np.median(boxes[:, 2] - boxes[:, 0]), np.median(boxes[:, 3] - boxes[:, 1])
    x0, y0, y1 = boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 3].max()
    row_1, row_2 = boxes[[names.index("9m")]], boxes[[names.index("9p")]]
    cloth = np.concatenate([
        [[x0 + k * 1.1 * w, y0 - 2.5 * h, x0 + k * 1.1 * w + w, y0 - 1.5 * h] for k in range(4)],
        [[x0 + k * 1.1 * w, y1 + 1.5 * h, x0 + k * 1.1 * w + w, y1 + 2.5 * h] for k in range(5)],
        row_1 + np.array([1.5 * w, 0, 1.5 * w, 0]), row_2 + np.array([1.5 * w, 0, 1.5 * w, 0])]).astype(np.float32)
    dets = Detections.from_lists(np.concatenate([boxes, cloth]), [0.9] * len(names) + [0.05 + 0.01 * k for k in range(11)],
                                 [CLASS_ID[n] for n in names] + [CLASS_ID["P"]] * 11)
    reading = read_layout(dets)
    assert reading.ok, reading.problems
    assert len(reading.tiles) == 42 and reading.read_accuracy == 1.0
    placed = {tuple(np.round(t.xyxy, 1)) for t in reading.tiles}
    assert not any(tuple(np.round(box, 1)) in placed for box in cloth)


def test_a_false_box_is_left_out_and_a_tile_the_finder_scored_low_added_in_one_reading():
    """A false box at the start of row 2 and the white dragon found only among the unsure boxes: neither
    leaving out nor adding alone fits the layout; both, one after the other, do."""
    names, boxes = planned(7)
    w = float(np.median(boxes[:, 2] - boxes[:, 0]))
    p_at = names.index("P")
    sure = [i for i in range(len(names)) if i != p_at]
    false_box = boxes[[names.index("1p")]] - [1.5 * w, 0, 1.5 * w, 0]
    found = Detections.from_lists(np.concatenate([boxes[sure], false_box]), [0.9] * len(sure) + [0.2],
                                  [CLASS_ID[names[i]] for i in sure] + [CLASS_ID["P"]])
    unsure = Detections.from_lists(boxes[[p_at]], [0.1], [CLASS_ID["P"]])
    assert not read_layout(found).ok
    reading = read_layout(found, unsure=unsure)
    assert reading.ok, reading.problems
    assert reading.read_accuracy == 1.0
    assert {t.expected: t.xyxy for t in reading.tiles}["P"] == tuple(float(v) for v in boxes[p_at])
    assert tuple(float(v) for v in false_box[0]) not in {t.xyxy for t in reading.tiles}


def test_a_calibration_photo_is_read_again_with_the_unsure_boxes_only_when_it_does_not_fit():
    """`read_layout_photo` asks the detector for its boxes below the threshold (the same models under a
    lower `conf_threshold`) only when the sure boxes do not show the layout, and keeps those that lie on
    no sure box."""
    from dataclasses import replace

    from vision.calibration_layout import read_layout_photo
    from vision.settings import DetectorSettings

    names, boxes = planned(1)
    low = [i for i, n in enumerate(names) if n in ("f1", "5m")]
    sure = [i for i in range(len(names)) if i not in low]

    class Finder:
        def __init__(self, settings):
            self.settings, self.calls = settings, []

        def with_settings(self, settings):
            # every unsure box is kept: none is checked in the mirror image
            assert settings.mirror.sure_conf == 0.0
            twin = Finder(settings)
            twin.calls = self.calls
            return twin

        def detect(self, picture):
            self.calls.append(self.settings.conf_threshold)
            keep = range(len(names)) if self.settings.conf_threshold < 0.1 else sure
            keep = list(keep) if self.settings.conf_threshold < 0.1 else keep
            conf = [0.9 if i in sure else 0.03 for i in keep]
            return Detections.from_lists(boxes[keep], conf, [CLASS_ID[names[i]] for i in keep])

    finder = Finder(DetectorSettings())
    reading = read_layout_photo(finder, np.zeros((8, 8, 3), np.uint8))
    assert reading.ok and len(reading.tiles) == 42
    assert finder.calls == [DetectorSettings().conf_threshold, 0.01]
    whole = Finder(replace(DetectorSettings(), conf_threshold=0.05))
    assert read_layout_photo(whole, np.zeros((8, 8, 3), np.uint8)).ok and whole.calls == [0.05]


def test_an_unsure_box_the_size_of_two_tiles_never_takes_a_place():
    """Row 5's s3 and s4 were boxed only below the threshold, and so was a box over two tiles at the row's
    right end, surer than both. Taken first it would end the row in the wrong place; it is not a tile's size."""
    names, boxes = planned(3)
    gone = [names.index("s3"), names.index("s4")]
    sure = [i for i in range(len(names)) if i not in gone]
    s4 = boxes[names.index("s4")]
    width = s4[2] - s4[0]
    double = np.array([[s4[0] + 0.6 * width, s4[1], s4[2] + 1.6 * width, s4[3]]], np.float32)
    unsure = Detections.from_lists(np.concatenate([double, boxes[gone]]), [0.2, 0.05, 0.04],
                                   [CLASS_ID["2s"], CLASS_ID["F"], CLASS_ID["F"]])
    reading = read_layout(Detections.from_lists(boxes[sure], [0.9] * len(sure), [CLASS_ID[names[i]] for i in sure]),
                          unsure=unsure)
    assert reading.ok, reading.problems
    by_place = {(t.row, t.place): t.xyxy for t in reading.tiles}
    assert by_place[(5, 8)] == tuple(float(v) for v in s4)


def test_of_two_boxes_that_would_fit_a_row_the_one_its_reads_call_extra_is_left_out():
    """Row 1 holds a second box on 8m (NMS kept both) and the 5m, misread as 9m, is the least sure box of
    the row. Leaving out either fits the row; leaving out the 5m would name 6m, 7m, 8m one place off."""
    names, boxes = planned(2)
    five, eight = names.index("5m"), names.index("8m")
    h = boxes[eight, 3] - boxes[eight, 1]
    second = boxes[[eight]] + np.array([0, 0.25 * h, 0, 0.25 * h], np.float32)
    confidence = [0.9] * len(names)
    confidence[five] = 0.43
    read = [CLASS_ID[n] for n in names]
    read[five] = CLASS_ID["9m"]
    reading = read_layout(Detections.from_lists(np.concatenate([boxes, second]), [*confidence, 0.54],
                                                [*read, CLASS_ID["8m"]]))
    assert reading.ok, reading.problems
    by_place = {(t.row, t.place): t for t in reading.tiles}
    assert by_place[(1, 5)].xyxy == tuple(float(v) for v in boxes[five])
    assert [by_place[(1, k)].read_as for k in (6, 7, 8)] == ["6m", "7m", "8m"]


@pytest.mark.parametrize("places_on, taken", [(1.0, True), (2.2, False)])
def test_a_back_is_row_4_s_optional_back_only_one_place_after_the_white_dragon(places_on, taken):
    """A back right after P is the set's back; one further on is a square of the cloth read as a back."""
    names, boxes = planned(4)
    p = boxes[names.index("P")]
    step = p[2] - p[0]
    back = (p + np.array([places_on * step * 1.08, 0, places_on * step * 1.08, 0], np.float32))[None]
    reading = read_layout(detections([*names, "back"], np.concatenate([boxes, back])))
    assert reading.ok == taken, reading.problems
    if taken:
        assert {(t.row, t.place): t.expected for t in reading.tiles}[(4, 8)] == "back"
    else:
        assert any("row 4" in p and "extra" in p for p in reading.problems), reading.problems


def test_a_missing_row_is_named():
    names, boxes = planned(7)
    for face in [f"{r}p" for r in range(1, 10)]:
        names, boxes = without(names, boxes, face)
    reading = read_layout(detections(names, boxes))
    assert not reading.ok
    assert any(p.startswith("row 2 (dots) missing") for p in reading.problems), reading.problems


def test_row_5_is_optional_and_a_back_may_end_row_4():
    names, boxes = planned(8, rows=calibration_rows((), back=True))
    reading = read_layout(detections(names, boxes))
    assert reading.ok, reading.problems
    assert len(reading.tiles) == 35
    assert reading.tiles[-1].expected == "back" and (reading.tiles[-1].row, reading.tiles[-1].place) == (4, 8)


def test_four_bonus_tiles():
    bonus = parse_bonus("f1,f2,f3,f4")
    names, boxes = planned(9, rows=calibration_rows(bonus))
    assert read_layout(detections(names, boxes), bonus).ok
    reading = read_layout(detections(names, boxes))  # all eight expected: four missing
    assert not reading.ok and sum("row 5" in p and "missing" in p for p in reading.problems) == 4


def test_bad_bonus_lists_are_refused():
    with pytest.raises(LayoutSpecError, match="x9"):
        parse_bonus("f1,x9")
    assert parse_bonus("none") == () and parse_bonus(None) is None
    assert parse_bonus("s2,f1") == ("f1", "s2")


def test_synth_renders_calibration_photos_with_labels(tmp_path):
    import json

    from datasets.fake_art import write_fake_art
    from datasets.synth import main

    art = write_fake_art(tmp_path / "art")
    out = tmp_path / "out"
    assert main(["--layout", "calibration", "--art", str(art), "--out", str(out), "--n", "2", "--seed", "3",
                 "--only", "gl-mahjongtile", "--back", "1"]) == 0
    truths = sorted((out / "truth").glob("*.json"))
    assert len(truths) == 2
    truth = json.loads(truths[0].read_text())
    assert truth["layout"] == "calibration" and truth["rows"] == [list(r) for r in calibration_rows(back=True)]
    assert [t["cls"] for t in truth["tiles"]] == [n for row in reversed(truth["rows"]) for n in row]
    assert {t["group"] for t in truth["tiles"]} == {f"row{k}" for k in range(1, 6)}
    labels = (out / "labels" / (truths[0].stem + ".txt")).read_text().split("\n")
    assert len([line for line in labels if line]) == 43
    # the layout the renderer placed reads back by place
    boxes = np.array([t["xyxy"] for t in truth["tiles"]], np.float32)
    reading = read_layout(detections([t["cls"] for t in truth["tiles"]], boxes))
    assert reading.ok and reading.read_accuracy == 1.0
    assert main(["--layout", "calibration", "--art", str(art), "--out", str(out), "--n", "1", "--bonus", "x9"]) == 2
