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
from tileset.classes import CLASS_ID, CLASS_NAMES
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
    for a, b in zip(got, want, strict=False):
        assert a.class_id == b.class_id
        assert (a.cx, a.cy, a.w, a.h) == pytest.approx((b.cx, b.cy, b.w, b.h), rel=1e-6, abs=1e-12)


def label_studio_json_export(tasks: list[dict]) -> list[dict]:
    """What Label Studio exports after a person accepts every prediction (uploads renamed with a hash; the
    task's other data, our mcr_* fields, kept as Label Studio keeps them)."""
    exported = []
    for task_id, task in enumerate(tasks, start=1):
        task = copy.deepcopy(task)
        task["id"] = task_id
        task["data"] = {**task["data"], "image": f"/data/upload/1/{task_id:08x}-{task['data']['mcr_photo']}"}
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


def two_folders_of_one_name(root: Path) -> tuple[Path, Path]:
    """twoA/images/hand.jpg and twoB/images/hand.jpg: two photos of one file name, each with its own labels."""
    folders = []
    for grey, name in ((60, "twoA"), (200, "twoB")):
        folder = root / name
        (folder / "images").mkdir(parents=True)
        cv2.imwrite(str(folder / "images" / "hand.jpg"), np.full((300, 400, 3), grey, np.uint8))
        (photo,) = list_photos(folder)
        face = "1m" if name == "twoA" else "9p"
        photo.save(PhotoLabels((LabelBox(CLASS_ID[face], 0.5, 0.5, 0.1, 0.2),), LabelMeta("human", False)))
        folders.append(folder)
    return folders[0], folders[1]


def submitted(tasks: list[dict]) -> list[dict]:
    """Our tasks after Label Studio: each prediction submitted as the annotation, the task data kept."""
    for task in tasks:
        task["annotations"] = [{"id": 1, "result": task.pop("predictions")[0]["result"]}]
    return tasks


def test_a_photo_of_the_same_name_in_another_folder_is_never_overwritten(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture) -> None:
    """The export of twoB read into twoA: hand.jpg is another photo there (its content differs); twoA keeps its
    labels, not reviewed, and the refusal names the photo."""
    from datasets.labelstudio import export_tasks, import_export

    two_a, two_b = two_folders_of_one_name(tmp_path)
    export = tmp_path / "twoB-export.json"
    export.write_text(json.dumps(submitted(export_tasks(two_b, "/data/local-files/?d=twoB/"))))
    before = (two_a / "labels" / "hand.txt").read_bytes()
    report = import_export(export, two_a)
    assert report.photos == 0 and (two_a / "labels" / "hand.txt").read_bytes() == before
    (refusal,) = report.refused
    assert "made from another photo than hand.jpg (the content differs), not imported" in refusal
    assert not list_photos(two_a)[0].load().meta.reviewed
    assert "matched wrongly or ambiguously" in report.why_nothing()
    assert label_main(["import-ls", str(export), str(two_a)]) == 1
    said = capsys.readouterr().err
    assert "(the content differs), not imported" in said and "nothing imported: 1 were matched wrongly" in said
    report = import_export(export, two_b)  # into its own folder: matched by content, reviewed
    assert report.photos == 1 and not report.refused and not report.by_name_only
    assert list_photos(two_b)[0].load().meta.reviewed


def test_tasks_without_our_hash_are_matched_by_folder_and_name_alone_is_not_reviewed(tmp_path: Path) -> None:
    from datasets.labelstudio import import_export

    two_a, _ = two_folders_of_one_name(tmp_path)
    box = {"type": "rectanglelabels", "original_width": 400, "original_height": 300,
           "value": {"x": 10, "y": 10, "width": 20, "height": 30, "rectanglelabels": ["E"]}}

    def task(image: str, **extra: object) -> dict:
        return {"data": {"image": image}, "annotations": [{"result": [dict(box, **extra)]}]}

    def imported(*tasks: dict, by_name: bool = False):  # type: ignore[no-untyped-def]
        export = tmp_path / "export.json"
        export.write_text(json.dumps(list(tasks)))
        return import_export(export, two_a, by_name=by_name)

    report = imported(task("/data/local-files/?d=twoB/images/hand.jpg"))
    assert report.photos == 0 and "in folder twoB/images" in report.refused[0]
    report = imported(task("/data/upload/7/0a1b2c3d-hand.jpg", original_width=640, original_height=480))
    assert report.photos == 0 and "its image is 640x480, hand.jpg is 400x300" in report.refused[0]
    report = imported(task("/data/upload/7/0a1b2c3d-hand.jpg"))
    assert report.photos == 0 and "by file name alone" in report.refused[0], "a person's labels stay"
    assert [b.class_name for b in list_photos(two_a)[0].load().boxes] == ["1m"]
    report = imported(task("/data/upload/7/0a1b2c3d-hand.jpg"), by_name=True)
    labels = list_photos(two_a)[0].load()
    assert report.by_name_only == ("hand.jpg",) and [b.class_name for b in labels.boxes] == ["E"]
    assert not labels.meta.reviewed, "a name alone is not a reviewed match"
    report = imported(task(f"/data/local-files/?d={tmp_path.name}/twoA/images/hand.jpg"))
    assert report.photos == 1 and list_photos(two_a)[0].load().meta.reviewed, "its folders match: reviewed"


def test_two_tasks_for_one_photo_are_ambiguous_and_neither_is_imported(tmp_path: Path) -> None:
    from datasets.labelstudio import export_tasks, import_export

    two_a, _ = two_folders_of_one_name(tmp_path)
    tasks = submitted(export_tasks(two_a, "/data/local-files/?d=twoA/"))
    second = copy.deepcopy(tasks[0])
    second["annotations"][0]["result"][0]["value"]["rectanglelabels"] = ["C"]
    export = tmp_path / "export.json"
    export.write_text(json.dumps([*tasks, second]))
    before = (two_a / "labels" / "hand.txt").read_bytes()
    report = import_export(export, two_a)
    assert report.photos == 0 and (two_a / "labels" / "hand.txt").read_bytes() == before
    assert "hand.jpg: 2 tasks of the export match it" in report.refused[0] and "ambiguous" in report.refused[0]


def test_a_renamed_photo_is_found_by_its_content(tmp_path: Path) -> None:
    from datasets.labelstudio import export_tasks, import_export

    two_a, _ = two_folders_of_one_name(tmp_path)
    export = tmp_path / "export.json"
    export.write_text(json.dumps(submitted(export_tasks(two_a, "/data/local-files/?d=twoA/"))))
    (photo,) = list_photos(two_a)
    photo.label_path.rename(photo.labels_dir / "table-3.txt")
    photo.meta_path.rename(photo.labels_dir / "table-3.meta.json")
    photo.image.rename(photo.image.with_name("table-3.jpg"))
    report = import_export(export, two_a)
    assert report.photos == 1 and list_photos(two_a)[0].load().meta.reviewed


def test_a_yolo_export_with_its_images_is_matched_by_content(tmp_path: Path) -> None:
    from datasets.labelstudio import import_export

    two_a, two_b = two_folders_of_one_name(tmp_path)
    export = tmp_path / "yolo"
    (export / "labels").mkdir(parents=True)
    (export / "images").mkdir()
    (export / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")
    (export / "labels" / "0a1b2c3d-hand.txt").write_text(f"{CLASS_ID['W']} 0.5 0.5 0.1 0.2\n")
    (export / "images" / "0a1b2c3d-hand.jpg").write_bytes((two_b / "images" / "hand.jpg").read_bytes())
    report = import_export(export, two_a)
    assert report.photos == 0 and "the content differs" in report.refused[0]
    report = import_export(export, two_b)
    labels = list_photos(two_b)[0].load()
    assert report.photos == 1 and [b.class_name for b in labels.boxes] == ["W"] and labels.meta.reviewed
