"""Label Studio round trip: export -> (Label Studio) -> JSON or YOLO export -> import, losslessly."""

from __future__ import annotations

import copy
import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.label import main as label_main
from datasets.labelstudio import labeling_config
from tileset.classes import CLASS_NAMES
from tileset.labelfiles import LabelBox, LabelMeta, PhotoLabels, list_photos


def labeled_folder(folder: Path, seed: int = 3) -> dict[str, tuple[LabelBox, ...]]:
    rng = random.Random(seed)
    (folder / "images").mkdir(parents=True)
    truth = {}
    for n, (w, h) in enumerate([(640, 480), (300, 500), (1001, 333)]):
        name = f"IMG_{n:04d}"
        cv2.imwrite(str(folder / "images" / f"{name}.jpg"), np.zeros((h, w, 3), np.uint8))
        boxes = tuple(
            LabelBox(rng.randrange(len(CLASS_NAMES)), rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9),
                     rng.uniform(0.01, 0.2), rng.uniform(0.01, 0.2))
            for _ in range(rng.randint(1, 14))
        )
        truth[name] = boxes
    for photo in list_photos(folder):
        boxes = truth[photo.name]
        photo.save(PhotoLabels(boxes, LabelMeta("prelabel", False, "m1", tuple(rng.random() for _ in boxes))))
    return truth


def assert_same_boxes(got: tuple[LabelBox, ...], want: tuple[LabelBox, ...]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.class_id == b.class_id
        assert (a.cx, a.cy, a.w, a.h) == pytest.approx((b.cx, b.cy, b.w, b.h), rel=1e-6, abs=1e-12)


def label_studio_json_export(tasks: list[dict]) -> list[dict]:
    """What Label Studio exports after a person accepts every prediction (uploads renamed with a hash)."""
    exported = []
    for task_id, task in enumerate(tasks, start=1):
        task = copy.deepcopy(task)
        task["id"] = task_id
        task["data"] = {"image": f"/data/upload/1/{task_id:08x}-{task['data']['mcr_photo']}"}
        task["annotations"] = [
            {"id": 1, "was_cancelled": True, "result": [], "updated_at": "2026-01-01T00:00:00Z"},
            {"id": 2, "was_cancelled": False, "result": task.pop("predictions")[0]["result"],
             "updated_at": "2026-01-02T00:00:00Z"},
        ]
        exported.append(task)
    return exported


def test_config_pins_every_class_to_its_canonical_id() -> None:
    labels = ET.fromstring(labeling_config()).find("RectangleLabels").findall("Label")
    assert [(label.get("value"), int(label.get("category"))) for label in labels] == [(n, i) for i, n in enumerate(CLASS_NAMES)]


def test_export_writes_percent_boxes_with_sizes_and_scores(tmp_path: Path) -> None:
    truth = labeled_folder(tmp_path / "photos")
    out = tmp_path / "tasks.json"
    assert label_main(["export-ls", str(tmp_path / "photos"), str(out)]) == 0
    tasks = json.loads(out.read_text())
    assert (tmp_path / "tasks.config.xml").read_text() == labeling_config()
    second = tasks[1]
    result = second["predictions"][0]["result"][0]
    box = truth["IMG_0001"][0]
    assert (result["original_width"], result["original_height"]) == (300, 500)
    assert result["value"]["x"] == pytest.approx((box.cx - box.w / 2) * 100)
    assert result["value"]["width"] == pytest.approx(box.w * 100)
    assert result["value"]["rectanglelabels"] == [CLASS_NAMES[box.class_id]]
    assert 0 <= result["score"] <= 1
    assert second["predictions"][0]["score"] == min(r["score"] for r in second["predictions"][0]["result"])


def test_json_export_import_is_lossless(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    truth = labeled_folder(photos)
    out = tmp_path / "tasks.json"
    label_main(["export-ls", str(photos), str(out)])
    export = tmp_path / "export.json"
    export.write_text(json.dumps(label_studio_json_export(json.loads(out.read_text()))))
    for photo in list_photos(photos):  # forget the labels: the import must bring them back
        photo.label_path.unlink()
    assert label_main(["import-ls", str(export), str(photos)]) == 0
    for photo in list_photos(photos):
        labels = photo.load()
        assert_same_boxes(labels.boxes, truth[photo.name])
        assert labels.meta.reviewed and labels.meta.origin == "import"


def test_yolo_export_is_remapped_by_name(tmp_path: Path) -> None:
    """A YOLO export whose classes.txt is in another order (alphabetical) still maps to our ids."""
    photos = tmp_path / "photos"
    truth = labeled_folder(photos)
    export = tmp_path / "yolo-export"
    (export / "labels").mkdir(parents=True)
    their_order = sorted(CLASS_NAMES)
    (export / "classes.txt").write_text("\n".join(their_order) + "\n")
    for i, (name, boxes) in enumerate(truth.items()):
        lines = [f"{their_order.index(CLASS_NAMES[b.class_id])} {b.cx} {b.cy} {b.w} {b.h}" for b in boxes]
        (export / "labels" / f"{i:08x}-{name}.txt").write_text("\n".join(lines) + "\n")
    assert label_main(["import-ls", str(export), str(photos)]) == 0
    for photo in list_photos(photos):
        assert_same_boxes(photo.load().boxes, truth[photo.name])


def test_import_of_unknown_photos_and_bad_files_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    photos = tmp_path / "photos"
    labeled_folder(photos)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert label_main(["import-ls", str(bad), str(photos)]) == 2
    assert "cannot read" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"data": {"image": "nobody.jpg"}, "annotations": [{"result": []}]}]))
    assert label_main(["import-ls", str(other), str(photos)]) == 1
    assert "nobody.jpg" in capsys.readouterr().err


def test_json_min_export_is_read_too(tmp_path: Path) -> None:
    """Label Studio's JSON-MIN export: one flat object per task, boxes under "label"."""
    photos = tmp_path / "photos"
    truth = labeled_folder(photos)
    out = tmp_path / "tasks.json"
    label_main(["export-ls", str(photos), str(out)])
    flat = []
    for task in json.loads(out.read_text()):
        boxes = [{**r["value"], "original_width": r["original_width"], "original_height": r["original_height"]}
                 for r in task["predictions"][0]["result"]]
        flat.append({"image": task["data"]["image"], "id": 1, "label": boxes})
    export = tmp_path / "min.json"
    export.write_text(json.dumps(flat))
    assert label_main(["import-ls", str(export), str(photos)]) == 0
    for photo in list_photos(photos):
        assert_same_boxes(photo.load().boxes, truth[photo.name])
