"""Bad label files and folders, interrupted saves and two writers at once: a clear message, nothing lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.label import main as label_main
from datasets.label import prelabel_folder
from tileset.atomic_files import STALE_TEMP_AGE_S
from tileset.classes import CLASS_ID
from tileset.labelfiles import (
    LabelBox,
    LabelFileError,
    LabelMeta,
    PhotoLabels,
    history_paths,
    list_photos,
    read_labels,
    read_meta,
    review_order,
)
from vision.detections import Detections

REPO = Path(__file__).resolve().parent.parent
W, H = 320, 240
BOXES = (LabelBox(CLASS_ID["1m"], 0.2, 0.5, 0.1, 0.2), LabelBox(CLASS_ID["2m"], 0.4, 0.5, 0.1, 0.2),
         LabelBox(CLASS_ID["3m"], 0.6, 0.5, 0.1, 0.2))


def photos_folder(folder: Path, names: tuple[str, ...] = ("a.jpg", "b.jpg")) -> Path:
    (folder / "images").mkdir(parents=True)
    for i, name in enumerate(names):
        cv2.imwrite(str(folder / "images" / name), np.full((H, W, 3), 50 + 40 * i, np.uint8))
    return folder


def prelabeled(folder: Path) -> Path:
    photos_folder(folder)
    for photo in list_photos(folder):
        photo.save(PhotoLabels(BOXES, LabelMeta("prelabel", False, "m", (0.9, 0.8, 0.95))))
    return folder


class FixedDetector:
    """Finds one 9p in every photo."""

    def detect(self, image_bgr: np.ndarray) -> Detections:
        return Detections.from_lists([[10, 10, 60, 80]], [0.7], [CLASS_ID["9p"]])


# --- photos that share a stem -------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["images", "flat"])
def test_photos_sharing_a_stem_are_refused_naming_both(tmp_path: Path, layout: str,
                                                       capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "photos"
    where = folder / "images" if layout == "images" else folder
    where.mkdir(parents=True)
    cv2.imwrite(str(where / "hand.jpg"), np.zeros((H, W, 3), np.uint8))
    cv2.imwrite(str(where / "hand.png"), np.zeros((H, W, 3), np.uint8))
    with pytest.raises(LabelFileError, match=r"hand\.jpg and hand\.png .*share one label file.*labels/hand\.txt"):
        list_photos(folder)
    assert label_main(["order", str(folder)]) == 2
    assert "hand.jpg and hand.png" in capsys.readouterr().err
    assert not (folder / "labels" / "hand.txt").exists(), "nothing written for either"


# --- label metadata -----------------------------------------------------------------------------


@pytest.mark.parametrize(("meta", "message"), [
    ({"confidences": ["x"]}, '"confidences" item 1 must be a number 0 to 1, not "x"'),
    ({"confidences": 5}, '"confidences" must be a list of numbers 0 to 1, not 5'),
    ({"confidences": [0.5, 7]}, '"confidences" item 2 must be a number 0 to 1, not 7'),
    ({"reviewed": "false"}, '"reviewed" must be true or false, not "false"'),
    ({"origin": "robot"}, '"origin" must be one of prelabel, human, import, not "robot"'),
    ({"model": ["m"]}, '"model" must be text, not a list'),
    ([1, 2], "expected a JSON object, not a list"),
])
def test_bad_meta_is_a_clear_message_and_read_as_unreviewed(tmp_path: Path, meta: object, message: str,
                                                            capsys: pytest.CaptureFixture) -> None:
    folder = prelabeled(tmp_path / "photos")
    photo = list_photos(folder)[1]
    photo.meta_path.write_text(json.dumps(meta))
    with pytest.raises(LabelFileError, match="b.meta.json: " + message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[")):
        read_meta(photo.meta_path)
    labels, problems = photo.load_checked()
    assert labels.boxes == BOXES
    assert not labels.meta.reviewed and labels.confidences() == (0.0, 0.0, 0.0), "unknown: looked at first"
    assert len(problems) == 1 and message in problems[0]
    assert [p.name for p in review_order(list_photos(folder))] == ["b", "a"]
    assert label_main(["order", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "0.000\thuman\tb.jpg" and message in err and "Traceback" not in err


def test_fewer_confidences_than_boxes_are_unknown_not_sure(tmp_path: Path) -> None:
    folder = prelabeled(tmp_path / "photos")
    photo = list_photos(folder)[0]
    meta = json.loads(photo.meta_path.read_text())
    photo.meta_path.write_text(json.dumps(meta | {"confidences": [0.9, 0.8]}))
    labels, problems = photo.load_checked()
    assert labels.confidences() == (0.0, 0.0, 0.0) and labels.least_confidence == 0.0
    assert "2 confidences for 3 boxes" in problems[0]


# --- a save cut short between the label file and its metadata ------------------------------------


def test_an_edit_cut_short_before_its_meta_is_kept_by_prelabel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = prelabeled(tmp_path / "photos")
    photo = list_photos(folder)[0]
    import tileset.labelfiles as lf

    real_write = lf.atomic_write_text

    def crash_on_meta(path: Path, text: str) -> None:
        if path.name.endswith(".meta.json"):
            raise KeyboardInterrupt("power cut")
        real_write(path, text)

    monkeypatch.setattr(lf, "atomic_write_text", crash_on_meta)
    with pytest.raises(KeyboardInterrupt):
        photo.update(lambda labels: labels.with_class(0, CLASS_ID["5p"]))
    monkeypatch.setattr(lf, "atomic_write_text", real_write)
    edited = read_labels(photo.label_path)
    assert edited[0].class_id == CLASS_ID["5p"] and read_meta(photo.meta_path).origin == "prelabel"

    labels, problems = photo.load_checked()
    assert labels.made_by_person and not labels.meta.reviewed and "changed after" in problems[0]
    report = prelabel_folder(folder, FixedDetector(), "m2", read_image=lambda p: np.zeros((H, W, 3), np.uint8))
    assert report.skipped_reviewed == 1 and report.labeled == 1
    assert read_labels(photo.label_path) == edited, "the person's edit survives pre-labeling"
    assert [b.class_id for b in list_photos(folder)[1].load().boxes] == [CLASS_ID["9p"]]


def test_prelabel_keeps_edited_unreviewed_and_meta_less_label_files(tmp_path: Path) -> None:
    folder = prelabeled(tmp_path / "photos")
    first, second = list_photos(folder)
    first.update(lambda labels: labels.without(2))  # edited, not yet "looks right"
    second.meta_path.unlink()  # labels from elsewhere, no metadata
    kept = {p.name: read_labels(p.label_path) for p in (first, second)}
    report = prelabel_folder(folder, FixedDetector(), "m2", read_image=lambda p: np.zeros((H, W, 3), np.uint8))
    assert (report.labeled, report.skipped_reviewed) == (0, 2)
    assert {p.name: read_labels(p.label_path) for p in (first, second)} == kept


# --- kill -9 during saves -------------------------------------------------------------------------


def test_temp_files_of_a_killed_save_are_cleaned_up(tmp_path: Path) -> None:
    folder = prelabeled(tmp_path / "photos")
    labels_dir = folder / "labels"
    script = textwrap.dedent(f"""
        import os, signal
        from tileset.labelfiles import list_photos
        os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)  # dies with the temp file written
        photo = list_photos({str(folder)!r})[0]
        photo.update(lambda labels: labels.without(0))
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, check=False)
    assert result.returncode == -9
    left = list(labels_dir.rglob("*.tmp"))
    assert left, "the killed save left a temporary file behind"
    old = labels_dir / ".a.txt.abcd1234.tmp"  # an older program's temp file, no pid in the name
    old.write_text("x")
    os.utime(old, (time.time() - STALE_TEMP_AGE_S - 5,) * 2)
    fresh = labels_dir / ".b.txt.ef567890.tmp"
    fresh.write_text("y")

    photo = list_photos(folder)[0]
    assert not list(labels_dir.rglob(".a.*.tmp")), "listing the folder removes the dead writers' files"
    assert fresh.exists(), "a fresh file of unknown writer may be a save in flight: kept"
    photo.update(lambda labels: labels.without(0))
    assert len(read_labels(photo.label_path)) == 2


# --- two programs saving one photo at once --------------------------------------------------------

WRITER = textwrap.dedent("""
    import sys
    from tileset.labelfiles import LabelBox, PhotoLabels, LabelMeta, list_photos
    folder, writer, edits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    photo = list_photos(folder)[0]
    for n in range(edits):
        box = LabelBox(writer, (n + 1) / (edits + 2), 0.5, 0.001, 0.001)
        if n % 2:  # a whole new label set (what an import or another session's save does) ...
            photo.save(PhotoLabels((box,), LabelMeta("human", False, "", (1.0,))))
        else:  # ... or one edit on what is there now (the Label page)
            photo.update(lambda labels: labels.with_added(box))
""")


def test_two_programs_saving_one_photo_lose_no_edit(tmp_path: Path) -> None:
    folder = photos_folder(tmp_path / "photos", ("a.jpg",))
    edits = 200
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(folder), str(w), str(edits)], cwd=REPO,
                                stderr=subprocess.PIPE, text=True) for w in (0, 1)]
    errors = [w.communicate(timeout=300)[1] for w in writers]
    assert [w.returncode for w in writers] == [0, 0], errors
    photo = list_photos(folder)[0]
    versions = [read_labels(p) for p in history_paths(photo.label_path)] + [read_labels(photo.label_path)]
    seen = {(b.class_id, round(b.cx * (edits + 2))) for version in versions for b in version}
    assert seen == {(w, n + 1) for w in (0, 1) for n in range(edits)}, "every edit is in the file or its history"
    labels, problems = photo.load_checked()
    assert problems == () and len(labels.meta.confidences) == len(labels.boxes)
    assert not list((folder / "labels").rglob("*.tmp"))


# --- Label Studio imports -------------------------------------------------------------------------


def _task(x: object) -> dict:
    value = {"x": x, "y": 10, "width": 5, "height": 8, "rotation": 0, "rectanglelabels": ["5m"]}
    return {"data": {"image": "/data/upload/1/0a1b2c3d-a.jpg"},
            "annotations": [{"result": [{"type": "rectanglelabels", "value": value}]}]}


@pytest.mark.parametrize(("export", "code", "says"), [
    ([1, 2, 3], 1, "task 1: not a Label Studio task (int), skipped"),
    ([_task("left")], 1, "skipped a 5m box whose x, y, width, height are not all numbers"),
    ([_task(None)], 1, "a: not imported, its labels are kept: 1 box(es) of the export could not be read"),
    ([_task(20), {"data": "a.jpg"}], 0, "1 photos, 1 boxes imported"),
    ([{"data": {"image": "a.jpg"}, "predictions": [{"result": []}]}], 1,
     "1 of 1 tasks have no submitted annotation (predictions alone are not imported"),
    ({"not": "tasks"}, 1, "nothing imported: 1 match no photo of the folder by file name"),
    (7, 2, "expected a list of Label Studio tasks, not a int"),
])
def test_import_ls_of_odd_exports_says_what_it_did(tmp_path: Path, export: object, code: int, says: str,
                                                  capsys: pytest.CaptureFixture) -> None:
    folder = photos_folder(tmp_path / "photos")
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    assert label_main(["import-ls", str(path), str(folder)]) == code
    out, err = capsys.readouterr()
    assert says in out + err and "Traceback" not in err


def test_import_ls_keeps_a_photo_whose_export_has_an_unreadable_box(tmp_path: Path) -> None:
    folder = prelabeled(tmp_path / "photos")
    before = list_photos(folder)[0].load().boxes
    good = _task(20)["annotations"][0]["result"][0]
    bad = _task("left")
    bad["annotations"][0]["result"].append(good)
    path = tmp_path / "export.json"
    path.write_text(json.dumps([bad]))
    assert label_main(["import-ls", str(path), str(folder)]) == 1
    assert list_photos(folder)[0].load().boxes == before, "half an annotation does not replace the labels"


def test_a_first_save_cut_short_leaves_no_label_file_without_metadata(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import tileset.labelfiles as lf

    folder = photos_folder(tmp_path / "photos", ("a.jpg",))
    (photo,) = list_photos(folder)
    real_write = lf.atomic_write_text

    def crash_on_labels(path: Path, text: str) -> None:
        if path.suffix == ".txt" and path.parent.name == "labels":
            raise KeyboardInterrupt("power cut")
        real_write(path, text)

    monkeypatch.setattr(lf, "atomic_write_text", crash_on_labels)
    with pytest.raises(KeyboardInterrupt):
        photo.save(PhotoLabels(BOXES, LabelMeta("prelabel", False, "m", (0.9, 0.8, 0.95))))
    monkeypatch.setattr(lf, "atomic_write_text", real_write)
    assert photo.meta_path.exists() and not photo.label_path.exists(), "the metadata goes first for a new photo"
    labels = photo.load()
    assert labels.boxes == () and not labels.meta.reviewed
    report = prelabel_folder(folder, FixedDetector(), "m2", read_image=lambda p: np.zeros((H, W, 3), np.uint8))
    assert report.labeled == 1, "nothing to keep: pre-labeling goes ahead"


def test_a_label_file_made_elsewhere_counts_as_checked(tmp_path: Path) -> None:
    folder = photos_folder(tmp_path / "photos", ("a.jpg",))
    (photo,) = list_photos(folder)
    photo.label_path.parent.mkdir()
    photo.label_path.write_text("0 0.5 0.5 0.1 0.1\n")  # a YOLO label file from another tool, no meta.json
    labels, problems = photo.load_checked()
    assert labels.meta.reviewed and labels.made_by_person and problems == ()
