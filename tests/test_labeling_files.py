"""Label files: atomic writes with history, crash safety, pre-label -> edit -> save -> reload."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.label import detections_to_labels, prelabel_folder
from tileset.classes import BACK_ID, CLASS_ID
from tileset.labelfiles import (
    LabelBox,
    LabelFileError,
    LabelMeta,
    PhotoLabels,
    history_paths,
    list_photos,
    read_labels,
    review_order,
    write_labels,
)
from vision.detections import Detections

REPO = Path(__file__).resolve().parent.parent


def make_photos(folder: Path, names: list[str], size: tuple[int, int] = (320, 240)) -> None:
    (folder / "images").mkdir(parents=True)
    for i, name in enumerate(names):
        image = np.full((size[1], size[0], 3), 40 + 30 * i, np.uint8)
        cv2.imwrite(str(folder / "images" / f"{name}.jpg"), image)


class FakeDetector:
    """Returns fixed detections per call, in pixels, like TileDetector.detect."""

    def __init__(self, per_image: list[Detections]) -> None:
        self.per_image = list(per_image)

    def detect(self, image_bgr: np.ndarray) -> Detections:
        return self.per_image.pop(0)


def read_bgr(path: Path) -> np.ndarray:
    image = cv2.imread(str(path))
    if image is None:
        raise ValueError(f"unreadable {path}")
    return image


BOXES = (LabelBox(CLASS_ID["5m"], 0.25, 0.5, 0.1, 0.2), LabelBox(CLASS_ID["E"], 0.123456789012345, 0.6, 0.05, 0.3))


def test_write_then_read_is_exact(tmp_path: Path) -> None:
    path = tmp_path / "labels" / "a.txt"
    write_labels(path, BOXES)
    assert read_labels(path) == BOXES


def test_each_save_keeps_the_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    write_labels(path, BOXES[:1])
    write_labels(path, BOXES)
    write_labels(path, BOXES[1:])
    history = history_paths(path)
    assert [read_labels(p) for p in history] == [BOXES[:1], BOXES]
    assert read_labels(path) == BOXES[1:]


def test_crash_during_replace_leaves_previous_file_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.txt"
    write_labels(path, BOXES)
    before = path.read_bytes()

    def crash(*args: object) -> None:
        raise KeyboardInterrupt("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_labels(path, BOXES[:1], keep_history=False)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob(".*.tmp")), "the temporary file is cleaned up"


def test_killed_writer_process_leaves_previous_file_intact(tmp_path: Path) -> None:
    """A process killed (SIGKILL: no cleanup) halfway through writing never tears the label file."""
    path = tmp_path / "a.txt"
    write_labels(path, BOXES)
    before = path.read_bytes()
    script = textwrap.dedent(f"""
        import os, signal
        import tileset.labelfiles as lf
        real_fsync = os.fsync
        def die_after_partial_write(fd):
            os.kill(os.getpid(), signal.SIGKILL)  # data written to the temp file, not yet replaced
        os.fsync = die_after_partial_write
        lf.write_labels(lf.Path({str(path)!r}), [lf.LabelBox(3, 0.5, 0.5, 0.2, 0.2)] * 1000)
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, check=False)
    assert result.returncode == -9
    assert path.read_bytes() == before
    assert read_labels(path) == BOXES


def test_bad_label_file_gives_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("5 0.5 0.5 0.1\n")
    with pytest.raises(LabelFileError, match="line 1"):
        read_labels(path)
    path.write_text("99 0.5 0.5 0.1 0.1\n")
    with pytest.raises(LabelFileError, match="class id 99"):
        read_labels(path)


def test_no_photos_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LabelFileError, match="no photos"):
        list_photos(tmp_path)


def test_prelabel_edit_save_reload_keeps_every_box(tmp_path: Path) -> None:
    make_photos(tmp_path, ["p1", "p2"])
    dets_p1 = Detections.from_lists([[10, 20, 50, 80], [60, 20, 100, 80], [110, 20, 150, 80]],
                                    [0.9, 0.4, 0.95], [CLASS_ID["1m"], CLASS_ID["2m"], CLASS_ID["3m"]])
    dets_p2 = Detections.from_lists([[10, 20, 50, 80], [-5, 0, 30, 60]], [0.99, 0.97], [CLASS_ID["C"], CLASS_ID["F"]])
    report = prelabel_folder(tmp_path, FakeDetector([dets_p1, dets_p2]), "test-model", read_image=read_bgr)
    assert (report.labeled, report.boxes) == (2, 5)

    # Review order: p1 holds the least sure box (0.4).
    assert [p.name for p in review_order(list_photos(tmp_path))] == ["p1", "p2"]

    photo = list_photos(tmp_path)[0]
    labels = photo.load()
    assert labels.meta.confidences == pytest.approx((0.9, 0.4, 0.95))
    assert labels.boxes[0].xyxy(320, 240) == pytest.approx((10, 20, 50, 80))
    # Human edits: fix a face, mark a back, delete nothing, add a box.
    added = LabelBox.from_xyxy(CLASS_ID["4m"], (160, 20, 200, 80), 320, 240)
    edited = (labels.boxes[0], labels.boxes[1].with_class(CLASS_ID["5m"]), labels.boxes[2].with_class(BACK_ID), added)
    photo.save(PhotoLabels(edited, LabelMeta("human", True, "test-model", (0.9, 1.0, 1.0, 1.0))))

    reloaded = list_photos(tmp_path)[0].load()
    assert reloaded.boxes == edited
    assert reloaded.meta.reviewed
    assert [p.name for p in review_order(list_photos(tmp_path))] == ["p2", "p1"], "reviewed photos go last"
    assert read_labels(history_paths(photo.label_path)[0]) == labels.boxes

    # A second pre-label run keeps the reviewed photo and re-labels the other.
    again = prelabel_folder(tmp_path, FakeDetector([dets_p2]), "test-model", read_image=read_bgr)
    assert (again.labeled, again.skipped_reviewed) == (1, 1)
    assert list_photos(tmp_path)[0].load().boxes == edited


def test_prelabel_clips_boxes_to_the_image() -> None:
    dets = Detections.from_lists([[-10, -10, 20, 30], [330, 0, 400, 10]], [0.8, 0.8], [0, 1])
    labels = detections_to_labels(dets, 320, 240, "m")
    assert len(labels.boxes) == 1, "a box wholly outside the image is dropped"
    assert labels.boxes[0].xyxy(320, 240) == pytest.approx((0, 0, 20, 30))


def test_unreadable_photo_is_reported_not_raised(tmp_path: Path) -> None:
    make_photos(tmp_path, ["good"])
    (tmp_path / "images" / "broken.jpg").write_bytes(b"not a jpeg")
    dets = Detections.from_lists([[10, 20, 50, 80]], [0.9], [0])
    report = prelabel_folder(tmp_path, FakeDetector([dets]), "m", read_image=read_bgr)
    assert report.labeled == 1
    assert len(report.failed) == 1 and "broken.jpg" in report.failed[0]


def test_undo_walks_back_the_history_with_confidences_and_keeps_what_it_undid(tmp_path: Path) -> None:
    make_photos(tmp_path, ["a"])
    (photo,) = list_photos(tmp_path)
    photo.save(PhotoLabels(BOXES, LabelMeta("prelabel", False, "m", (0.4, 0.9))))
    photo.update(lambda labels: labels.with_class(0, CLASS_ID["9p"]))
    photo.update(lambda labels: labels.without(1).marked_reviewed())
    assert photo.undo().boxes == (BOXES[0].with_class(CLASS_ID["9p"]), BOXES[1])
    restored = photo.undo()
    assert restored.boxes == BOXES and restored.meta.confidences == (0.4, 0.9)
    assert restored.meta.origin == "prelabel" and not restored.meta.reviewed
    assert photo.load_checked() == (restored, ())
    with pytest.raises(LabelFileError, match="nothing to undo"):
        photo.undo()
    undone = sorted(p.name for p in (tmp_path / "labels" / ".history").glob("a.undone.*.txt"))
    assert undone == ["a.undone.1.txt", "a.undone.2.txt"], "nothing undone is lost"


def test_box_numbers_stay_with_their_boxes_across_edits(tmp_path: Path) -> None:
    make_photos(tmp_path, ["a"])
    (photo,) = list_photos(tmp_path)
    row = tuple(LabelBox(CLASS_ID["1m"], x, 0.5, 0.05, 0.2) for x in (0.7, 0.1, 0.4))  # file order != reading order
    photo.save(PhotoLabels(row, LabelMeta("prelabel", False, "m", (0.9, 0.9, 0.9))))
    assert photo.load().ids() == (3, 1, 2), "numbered in reading order at first"
    photo.update(lambda labels: labels.without(1))  # box number 1 deleted
    assert photo.load().ids() == (3, 2), "the others keep their numbers"
    photo.update(lambda labels: labels.with_added(LabelBox(CLASS_ID["E"], 0.2, 0.5, 0.05, 0.2)))
    assert photo.load().ids() == (3, 2, 4), "a new box gets the next number, none is reused"
    photo.update(lambda labels: labels.with_class(0, CLASS_ID["9m"]).marked_reviewed())
    assert photo.load().ids() == (3, 2, 4)
    assert photo.undo().ids() == (3, 2, 4) and photo.undo().ids() == (3, 2)


def test_a_redrawn_box_keeps_its_face_and_number(tmp_path: Path) -> None:
    make_photos(tmp_path, ["a"])
    (photo,) = list_photos(tmp_path)
    photo.save(PhotoLabels(BOXES, LabelMeta("prelabel", False, "m", (0.4, 0.9))))
    moved = LabelBox(BOXES[0].class_id, 0.3, 0.5, 0.12, 0.2)
    labels = photo.update(lambda current: current.with_box(0, moved))
    assert labels.boxes == (moved, BOXES[1]) and labels.confidences() == (1.0, 0.9)
    assert labels.ids() == PhotoLabels(BOXES).ids() and not labels.meta.reviewed


def test_an_edit_from_a_stale_view_is_refused_and_names_what_changed(tmp_path: Path) -> None:
    """Two tabs on one photo: the second deletes a box; the first's "set face" on what it saw is refused,
    nothing is written, and the error holds the labels as they are now."""
    from tileset.labelfiles import LabelChange, StaleLabels, label_changes

    make_photos(tmp_path, ["a"])
    (photo,) = list_photos(tmp_path)
    row = tuple(LabelBox(CLASS_ID[face], x, 0.5, 0.05, 0.2) for face, x in (("1m", 0.1), ("2m", 0.4), ("3m", 0.7)))
    photo.save(PhotoLabels(row, LabelMeta("prelabel", False, "m", (0.9, 0.3, 0.9))))
    first_tab = photo.load()
    second_tab = photo.load()
    assert first_tab.revision and first_tab.revision == second_tab.revision
    photo.update(lambda labels: labels.without_all(labels.indices_of([1])), second_tab.revision)
    on_disk = (tmp_path / "labels" / "a.txt").read_bytes()
    with pytest.raises(StaleLabels, match=r"a.jpg were changed by another tab or program at ") as refused:
        photo.update(lambda labels: labels.with_classes(labels.indices_of([3]), CLASS_ID["E"]), first_tab.revision)
    assert (tmp_path / "labels" / "a.txt").read_bytes() == on_disk, "nothing written"
    assert refused.value.current.revision == photo.load().revision != first_tab.revision
    assert label_changes(first_tab, refused.value.current) == (LabelChange("deleted", 1, "1m"),)
    with pytest.raises(StaleLabels):
        photo.undo(first_tab.revision)  # a stale undo would take back the other tab's deletion unseen
    assert [b.class_name for b in photo.load().boxes] == ["2m", "3m"]
    now = photo.load()
    photo.update(lambda labels: labels.with_classes(labels.indices_of([3]), CLASS_ID["E"]), now.revision)
    assert [b.class_name for b in photo.load().boxes] == ["2m", "E"], "box 3 is the box numbered 3, not index 3"
    photo.undo(photo.load().revision)
    assert [b.class_name for b in photo.load().boxes] == ["2m", "3m"]


def test_label_changes_are_named_by_box_number() -> None:
    from tileset.labelfiles import LabelChange, label_changes

    row = PhotoLabels(tuple(LabelBox(CLASS_ID["1m"], x, 0.5, 0.05, 0.2) for x in (0.1, 0.4, 0.7)))
    edited = (row.without(0).with_classes((0,), CLASS_ID["9p"]).with_box(1, LabelBox(CLASS_ID["1m"], 0.72, 0.5, 0.05, 0.2))
              .with_added(LabelBox(CLASS_ID["E"], 0.9, 0.5, 0.05, 0.2)).marked_reviewed())
    assert label_changes(row, edited) == (
        LabelChange("deleted", 1, "1m"), LabelChange("face", 2, "1m", "9p"), LabelChange("redrawn", 3, "1m", "1m"),
        LabelChange("added", 4, "", "E"), LabelChange("reviewed"))
    assert label_changes(row, row) == ()
    with pytest.raises(LabelFileError, match="no box numbered 7"):
        row.indices_of([2, 7])


def test_the_revision_follows_the_files_not_the_clock(tmp_path: Path) -> None:
    """Saving the same labels again keeps the revision; marking reviewed (metadata only) changes it."""
    make_photos(tmp_path, ["a"])
    (photo,) = list_photos(tmp_path)
    photo.save(PhotoLabels(BOXES, LabelMeta("prelabel", False, "m", (0.4, 0.9))))
    first = photo.load().revision
    photo.save(photo.load())
    assert photo.load().revision == first
    photo.update(lambda labels: labels.marked_reviewed(), first)
    assert photo.load().revision != first
    assert PhotoLabels(BOXES).revision == "", "labels made in memory have no revision"
