"""Read-accuracy bookkeeping of `training.evaluate`: pairing, the figures, class restriction, datasets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from detector_support import BLUE_TILE, IMG_H, IMG_W, RED_TILE, make_models, scene

from tileset.classes import BACK_ID, CLASS_ID
from training.evaluate import (
    DatasetError,
    Evaluation,
    LabeledTiles,
    dataset_images,
    match_tiles,
    read_truth,
    restrict_to_classes,
)
from vision.detections import Detections

REPO = Path(__file__).resolve().parent.parent
C = CLASS_ID


def truth(boxes, names) -> LabeledTiles:
    return LabeledTiles(np.asarray(boxes, np.float32).reshape(-1, 4), np.array([C[n] for n in names], np.int64))


def dets(boxes, names, conf=None) -> Detections:
    return Detections.from_lists(boxes, conf or [0.9] * len(names), [C[n] for n in names])


ROW = [[0, 0, 10, 14], [10, 0, 20, 14], [20, 0, 30, 14], [30, 0, 40, 14]]


def test_perfect_read():
    match = match_tiles(truth(ROW, ["1m", "2m", "3m", "E"]), dets(ROW, ["1m", "2m", "3m", "E"]))
    assert match.correct == 4 and match.exact


def test_wrong_class_is_found_but_not_read():
    evaluation = Evaluation()
    evaluation.add(match_tiles(truth(ROW, ["1m", "2m", "3m", "E"]), dets(ROW, ["1m", "2m", "3s", "E"])))
    s = evaluation.summary()
    assert s["read_accuracy"] == 0.75 and s["recall"] == 1.0 and s["precision"] == 0.75
    assert s["images_read_exactly"] == 0.0
    assert s["top_confusions"] == [{"true": "3m", "read": "3s", "count": 1}]
    assert s["per_class_accuracy"]["3m"] == 0.0 and s["per_class_accuracy"]["E"] == 1.0


def test_missed_extra_and_shifted_boxes():
    shifted = [[0, 0, 10, 14], [16, 0, 26, 14]]  # second box overlaps its tile with IoU 4*14/(16*14) = 0.25
    extra = [[0, 0, 10, 14], [10, 0, 20, 14], [100, 100, 110, 114]]
    evaluation = Evaluation()
    evaluation.add(match_tiles(truth(ROW[:2], ["1m", "2m"]), dets(shifted, ["1m", "2m"])))
    evaluation.add(match_tiles(truth(ROW[:2], ["1m", "2m"]), dets(extra, ["1m", "2m", "P"])))
    s = evaluation.summary()
    assert s["labeled_tiles"] == 4 and s["detections"] == 5
    assert s["read_accuracy"] == 0.75 and s["recall"] == 0.75 and s["precision"] == 0.6
    assert s["images_read_exactly"] == 0.0


def test_images_with_the_most_tiles_not_found_come_first():
    evaluation = Evaluation()
    evaluation.add(match_tiles(truth(ROW, ["1m", "2m", "3m", "4m"]), dets(ROW[:1], ["1m"])), "three_missed.jpg")
    evaluation.add(match_tiles(truth(ROW, ["1m", "2m", "3m", "4m"]), dets(ROW, ["1m", "2m", "3m", "5m"])), "all_found.jpg")
    evaluation.add(match_tiles(truth(ROW[:2], ["1m", "2m"]), dets(ROW[:1], ["1m"])), "one_missed.jpg")
    assert evaluation.summary()["most_tiles_missed"] == [
        {"image": "three_missed.jpg", "missed": 3}, {"image": "one_missed.jpg", "missed": 1}]
    assert evaluation.summary(top_missed=1)["most_tiles_missed"] == [{"image": "three_missed.jpg", "missed": 3}]


def test_each_detection_pairs_with_one_tile_only():
    # one big detection covering two labeled tiles pairs with at most one of them
    match = match_tiles(truth(ROW[:2], ["1m", "1m"]), dets([[0, 0, 16, 14]], ["1m"]))
    assert len(match.pairs) == 1 and match.correct == 1 and not match.exact


def test_restrict_to_classes_drops_tiles_a_peer_cannot_name():
    t = truth(ROW, ["1m", "f1", "s2", "back"])
    d = dets(ROW, ["1m", "2m", "s2", "back"])
    riichi = set(range(34))
    t2, d2 = restrict_to_classes(t, d, riichi)
    assert t2.class_id.tolist() == [C["1m"]]
    # the 2m read on the flower tile is neither right nor a false detection
    assert d2.class_id.tolist() == [C["1m"]]


def test_read_truth_and_dataset_folder(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.zeros((100, 200, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "images" / "b.png"), np.zeros((10, 10, 3), np.uint8))
    (tmp_path / "labels" / "a.txt").write_text(f"{C['5p']} 0.5 0.5 0.1 0.2\n{BACK_ID} 0.25 0.25 0.1 0.1\n")
    images = dataset_images(tmp_path, "val")
    assert [p.name for p in images] == ["a.jpg", "b.png"]
    a = read_truth(images[0], 200, 100)
    np.testing.assert_allclose(a.xyxy, [[90, 40, 110, 60], [40, 20, 60, 30]])
    assert a.class_id.tolist() == [C["5p"], BACK_ID]
    assert len(read_truth(images[1], 10, 10).xyxy) == 0  # no label file: no tiles
    (tmp_path / "labels" / "b.txt").write_text(f"{C['5p']} 0.5 0.5 0.1\n")
    with pytest.raises(DatasetError, match=r"b\.txt line 1: expected 'class cx cy w h'"):
        read_truth(images[1], 10, 10)  # read by tileset.labelfiles: a broken line is named, not skipped


def test_yaml_dataset_split(tmp_path):
    for split in ("train", "val"):
        (tmp_path / "images" / split).mkdir(parents=True)
        cv2.imwrite(str(tmp_path / "images" / split / f"{split}.jpg"), np.zeros((8, 8, 3), np.uint8))
    (tmp_path / "data.yaml").write_text("path: .\ntrain: images/train\nval: images/val\nnames: {0: 1m}\n")
    assert [p.name for p in dataset_images(tmp_path / "data.yaml", "val")] == ["val.jpg"]
    assert [p.name for p in dataset_images(tmp_path, "train")] == ["train.jpg"]


def test_cli_reports_missing_dataset_without_traceback(tmp_path):
    result = subprocess.run([sys.executable, "-m", "training.evaluate", str(tmp_path / "nothing")],
                            capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 2 and "not a dataset" in result.stderr and "Traceback" not in result.stderr


def test_cli_json_on_fake_models(tmp_path):

    models = make_models(tmp_path / "models")
    (tmp_path / "data" / "images").mkdir(parents=True)
    (tmp_path / "data" / "labels").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "data" / "images" / "s.png"), scene())

    def yolo(box, name):
        x1, y1, x2, y2 = box
        return f"{C[name]} {(x1 + x2) / 2 / IMG_W} {(y1 + y2) / 2 / IMG_H} {(x2 - x1) / IMG_W} {(y2 - y1) / IMG_H}"

    # the fake reads red as C and blue as 1p; label blue as 2p so one tile is misread
    (tmp_path / "data" / "labels" / "s.txt").write_text(yolo(RED_TILE, "C") + "\n" + yolo(BLUE_TILE, "2p") + "\n")
    result = subprocess.run(
        [sys.executable, "-m", "training.evaluate", str(tmp_path / "data"), "--models", str(models), "--json"],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["read_accuracy"] == 0.5 and summary["recall"] == 1.0
    assert summary["backs_ignored"] == 1  # no back labels in this dataset: the back found is set aside
    assert summary["top_confusions"] == [{"true": "2p", "read": "1p", "count": 1}]
    assert summary["most_tiles_missed"] == []
    assert "by_group" not in summary
    (tmp_path / "manifest.csv").write_text("split,image,source_root,group\nval,s.png,s,IMG_1\n")
    result = subprocess.run(
        [sys.executable, "-m", "training.evaluate", str(tmp_path / "data"), "--models", str(models), "--json",
         "--groups", str(tmp_path / "manifest.csv")], capture_output=True, text=True, cwd=REPO, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["by_group"] == {"IMG_1": {
        "images": 1, "labeled_tiles": 2, "read_accuracy": 0.5, "recall": 1.0, "false_boxes": 0, "images_read_exactly": 0.0}}


def test_photos_stretched_by_a_labeling_tool_are_told_apart():
    from training.evaluate import format_summary, is_stretched

    flat = [[0, 0, 120, 10], [120, 0, 240, 10], [240, 0, 360, 10]]  # tiles 12 times wider than tall
    assert not is_stretched(truth(ROW, ["1m", "2m", "3m", "4m"]))
    assert not is_stretched(truth([[0, 0, 14, 10]], ["1m"]))  # a tile on its side
    assert is_stretched(truth(flat, ["1m", "2m", "3m"]))
    assert is_stretched(truth([[0, 0, 10, 120]], ["1m"]))
    assert not is_stretched(truth([], []))

    ev = Evaluation()
    ev.add_photo(match_tiles(truth(ROW, ["1m", "2m", "3m", "4m"]), dets(ROW, ["1m", "2m", "3m", "4m"])), "clear", False)
    ev.add_photo(match_tiles(truth(flat, ["1m", "2m", "3m"]), dets(flat, ["9m", "9m", "3m"])), "squashed", True)
    summary = ev.summary()
    assert summary["read_accuracy"] == round(5 / 7, 4)
    assert summary["stretched_images"] == ["squashed"]
    assert summary["without_stretched_images"] == {"images": 1, "labeled_tiles": 4, "read_accuracy": 1.0,
                                                   "recall": 1.0, "precision": 1.0}
    assert "without the 1 photo(s) stretched beyond 4:1" in format_summary(summary)

    plain = Evaluation()
    plain.add_photo(match_tiles(truth(ROW, ["1m"] * 4), dets(ROW, ["1m"] * 4)), "clear", False)
    assert plain.summary()["without_stretched_images"] is None and "stretched" not in format_summary(plain.summary())


def test_cli_set_changes_a_detector_setting_and_rejects_an_unknown_one(tmp_path):

    models = make_models(tmp_path / "models")
    (tmp_path / "data" / "images").mkdir(parents=True)
    (tmp_path / "data" / "labels").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "data" / "images" / "s.png"), scene())
    x1, y1, x2, y2 = RED_TILE
    h, w = scene().shape[:2]
    (tmp_path / "data" / "labels" / "s.txt").write_text(
        f"{C['C']} {(x1 + x2) / 2 / w} {(y1 + y2) / 2 / h} {(x2 - x1) / w} {(y2 - y1) / h}\n")

    def run(*extra):
        return subprocess.run([sys.executable, "-m", "training.evaluate", str(tmp_path / "data"), "--models", str(models),
                               "--json", *extra], capture_output=True, text=True, cwd=REPO, timeout=120)

    assert json.loads(run().stdout)["recall"] == 1.0
    assert json.loads(run("--set", "conf_threshold=0.99").stdout)["recall"] == 0.0  # the fake finder scores 0.9
    bad = run("--set", "mirror.nope=1")
    assert bad.returncode == 2 and "MirrorSettings has no setting 'nope'" in bad.stderr and "Traceback" not in bad.stderr
    no_rule = run("--set", "rules_off=mirror,glare")
    assert no_rule.returncode == 2 and "no rule named glare" in no_rule.stderr and "Traceback" not in no_rule.stderr
    assert json.loads(run("--set", "rules_off=mirror,unstretch", "--set", "mirror.sure_conf=0.5").stdout)["recall"] == 1.0


def test_capture_groups_name_each_photo_by_the_manifest_and_copies_by_their_source(tmp_path):
    from training.evaluate import NOT_IN_MANIFEST, capture_groups

    manifest = tmp_path / "manifest.csv"
    manifest.write_text("split,image,source_root,group\nval,a.jpg,a,IMG_1\ntest,b.jpg,b,fbid_n\n")
    group_of = capture_groups(manifest)
    assert [group_of(name) for name in ("a.jpg", "real_test_b.jpg", "c.jpg", "real_val_c.jpg")] == [
        "IMG_1", "fbid_n", NOT_IN_MANIFEST, NOT_IN_MANIFEST]
    (tmp_path / "bad.csv").write_text("split,image\nval,a.jpg\n")
    with pytest.raises(DatasetError, match="needs the columns image and group"):
        capture_groups(tmp_path / "bad.csv")
    with pytest.raises(DatasetError, match="cannot read the manifest"):
        capture_groups(tmp_path / "missing.csv")


def test_each_capture_group_is_counted_apart_and_the_groups_sum_to_the_whole():
    from training.evaluate import format_summary

    result = Evaluation()
    four = ["1m", "2m", "3m", "E"]
    result.add_photo(match_tiles(truth(ROW, four), dets(ROW, four)), "a.jpg", False, "IMG_1")
    result.add_photo(match_tiles(truth(ROW, four), dets([*ROW[:3], [60, 0, 70, 14]], ["1m", "2m", "4m", "E"])),
                     "b.jpg", False, "fbid_n")
    result.add_photo(match_tiles(truth(ROW[:2], ["5p", "6p"]), dets(ROW[:2], ["5p", "6p"])), "c.jpg", False, "fbid_n")
    summary = result.summary()
    assert summary["by_group"] == {
        "IMG_1": {"images": 1, "labeled_tiles": 4, "read_accuracy": 1.0, "recall": 1.0, "false_boxes": 0,
                  "images_read_exactly": 1.0},
        "fbid_n": {"images": 2, "labeled_tiles": 6, "read_accuracy": 0.6667, "recall": 0.8333, "false_boxes": 1,
                   "images_read_exactly": 0.5},
    }
    assert sum(part["labeled_tiles"] for part in summary["by_group"].values()) == summary["labeled_tiles"]
    assert "  fbid_n: 2 photos, 6 tiles: read accuracy 66.67%  recall 83.33%  false boxes 1" in format_summary(summary)
    assert "by_group" not in Evaluation().summary()
