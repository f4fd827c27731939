"""The labeling page through Streamlit's AppTest: fix a face, mark a back, delete, add, review, switch models."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tileset.classes import BACK_ID, CLASS_ID
from tileset.labelfiles import (
    LabelBox,
    LabelFileError,
    LabelMeta,
    Photo,
    PhotoLabels,
    history_paths,
    list_photos,
    read_labels,
)
from vision.registry import Registry

REPO = Path(__file__).resolve().parent.parent
PAGE = str(REPO / "appui" / "pages" / "labeling.py")
W, H = 400, 300


@pytest.fixture(autouse=True)
def repo_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """`streamlit run app.py` puts the repository on sys.path; AppTest of a page script does not."""
    monkeypatch.syspath_prepend(str(REPO))


@pytest.fixture(autouse=True)
def data_root_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page opens only folders inside the data root (appui.dataroot)."""
    monkeypatch.setenv("MCR_DATA", str(tmp_path))


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    photos = tmp_path / "photos"
    (photos / "images").mkdir(parents=True)
    for name in ("sure", "unsure"):
        cv2.imwrite(str(photos / "images" / f"{name}.jpg"), np.full((H, W, 3), 90, np.uint8))
    boxes = (LabelBox.from_xyxy(CLASS_ID["1m"], (10, 10, 50, 70), W, H),
             LabelBox.from_xyxy(CLASS_ID["2m"], (60, 10, 100, 70), W, H),
             LabelBox.from_xyxy(CLASS_ID["3m"], (110, 10, 150, 70), W, H))
    sure, unsure = list_photos(photos)
    sure.save(PhotoLabels(boxes, LabelMeta("prelabel", False, "m", (0.99, 0.98, 0.97))))
    unsure.save(PhotoLabels(boxes, LabelMeta("prelabel", False, "m", (0.95, 0.30, 0.90))))
    return photos


def open_page(folder: Path, models_root: Path) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["label.models_root"] = str(models_root)
    at.run()
    at.text_input(key="label.folder").input(str(folder)).run()
    assert not at.exception, at.exception
    return at


def labels_of(folder: Path, name: str) -> PhotoLabels:
    return next(p for p in list_photos(folder) if p.name == name).load()


def test_walks_least_sure_first_and_saves_each_edit(folder: Path, tmp_path: Path) -> None:
    at = open_page(folder, tmp_path / "models")
    assert "unsure.jpg" in at.subheader[0].value, "the photo with the least sure box comes first"
    before = labels_of(folder, "unsure")

    at.multiselect(key="label.box").set_value([2]).run()  # box numbers as on the photo: 1 2 3 left to right
    at.selectbox(key="label.class").set_value(CLASS_ID["5p"]).run()
    at.button(key="label.set").click().run()
    assert labels_of(folder, "unsure").boxes[1].class_id == CLASS_ID["5p"]

    at.multiselect(key="label.box").set_value([3]).run()
    at.button(key="label.back").click().run()
    assert labels_of(folder, "unsure").boxes[2].class_id == BACK_ID

    at.multiselect(key="label.box").set_value([1]).run()
    at.button(key="label.delete").click().run()
    after_delete = labels_of(folder, "unsure")
    assert [b.class_id for b in after_delete.boxes] == [CLASS_ID["5p"], BACK_ID]

    for key, value in zip(("label.x1", "label.y1", "label.x2", "label.y2"), (200, 20, 240, 80), strict=False):
        at.number_input(key=key).set_value(value)
    at.selectbox(key="label.add_class").set_value(CLASS_ID["E"])
    at.button(key="label.add").click().run()
    final = labels_of(folder, "unsure")
    assert not at.exception, at.exception
    assert [b.class_id for b in final.boxes] == [CLASS_ID["5p"], BACK_ID, CLASS_ID["E"]]
    assert final.boxes[2].xyxy(W, H) == pytest.approx((200, 20, 240, 80))
    assert final.boxes[0].xyxy(W, H) == pytest.approx(before.boxes[1].xyxy(W, H)), "fixing a face keeps the box"
    assert not final.meta.reviewed and len(final.meta.confidences) == 3, "edits alone do not make it reviewed"
    photo = next(p for p in list_photos(folder) if p.name == "unsure")
    assert read_labels(history_paths(photo.label_path)[0]) == before.boxes, "the first version is kept"


def test_mark_reviewed_moves_to_the_next_photo(folder: Path, tmp_path: Path) -> None:
    at = open_page(folder, tmp_path / "models")
    at.button(key="label.reviewed").click().run()
    assert labels_of(folder, "unsure").meta.reviewed
    assert labels_of(folder, "unsure").boxes == labels_of(folder, "sure").boxes
    assert "sure.jpg" in at.subheader[0].value and "unsure" not in at.subheader[0].value


def test_bad_folder_is_a_message_not_a_crash(tmp_path: Path) -> None:
    at = open_page(tmp_path / "missing", tmp_path / "models")
    assert "is not a folder" in at.error[0].value


def test_a_folder_outside_the_data_root_is_refused(tmp_path: Path) -> None:
    outside = tmp_path.parent / "not-the-data-root"
    at = open_page(outside, tmp_path / "models")
    assert "outside the data folder" in at.error[0].value
    assert not outside.exists()


def test_lan_mode_asks_the_code_again_to_switch_models(folder: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MCR_LAN", "1")
    monkeypatch.setenv("MCR_ACCESS_CODE", "482913")
    at = open_page(folder, tmp_path / "models")
    assert not [b for b in at.button if b.key == "label.use"]
    at.text_input(key="label.model_code").input("000000").run()
    assert not [b for b in at.button if b.key == "label.use"]
    at.text_input(key="label.model_code").input("482913").run()
    assert [b for b in at.button if b.key == "label.use"]


def test_lan_mode_asks_the_code_again_to_teach_the_model(folder: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MCR_LAN", "1")
    monkeypatch.setenv("MCR_ACCESS_CODE", "650218")
    at = open_page(folder, tmp_path / "models")
    assert not [b for b in at.button if b.key == "label.teach"]
    at.text_input(key="label.teach_code").input("650218").run()
    assert [b for b in at.button if b.key == "label.teach"]


def test_switch_model_version_and_go_back(folder: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    registry = Registry(models)
    registry.new_version_dir("club-set")
    new_name = registry.versions()[1].name
    at = open_page(folder, models)
    at.selectbox(key="label.version").set_value(new_name).run()
    at.button(key="label.use").click().run()
    assert registry.active_name() == new_name
    at.button(key="label.goback").click().run()
    assert registry.active_name() == "shipped"
    assert [s.value for s in at.success] == ["Now using shipped."]
    assert not at.exception, at.exception


def test_a_folder_in_the_data_root_can_be_picked(folder: Path, tmp_path: Path) -> None:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["label.models_root"] = str(tmp_path / "models")
    at.run()
    assert "photos" in at.selectbox(key="label.folder.pick").options
    at.selectbox(key="label.folder.pick").set_value("photos").run()
    assert not at.exception, at.exception
    assert at.text_input(key="label.folder").value == "photos"
    assert "unsure.jpg" in at.subheader[0].value


def test_a_run_reads_each_label_file_once(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = open_page(folder, tmp_path / "models")
    read: list[str] = []
    real = Photo.load_checked

    def counted(photo: Photo) -> tuple[PhotoLabels, tuple[str, ...]]:
        read.append(photo.name)
        return real(photo)

    monkeypatch.setattr(Photo, "load_checked", counted)
    at.run()
    assert not at.exception, at.exception
    assert sorted(read) == ["sure", "unsure"]
    assert "3 boxes" in " ".join(m.value for m in at.markdown), "the photo shown is still read"


def test_unreadable_photo_is_a_message_not_a_crash(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "broken.jpg").write_bytes(b"not a jpeg")
    at = open_page(photos, tmp_path / "models")
    assert "broken.jpg" in at.error[0].value


def test_a_corrupt_label_file_does_not_block_the_folder(folder: Path, tmp_path: Path) -> None:
    photo = next(p for p in list_photos(folder) if p.name == "unsure")
    photo.label_path.write_text("this is not a label file\n")
    at = open_page(folder, tmp_path / "models")
    assert "unsure.jpg" in at.subheader[0].value and "unsure.txt" in at.error[0].value
    at.button(key="label.next").click().run()
    assert "sure.jpg" in at.subheader[0].value and "unsure" not in at.subheader[0].value
    assert not at.exception and not at.error


def test_bad_meta_is_a_warning_not_a_crash(folder: Path, tmp_path: Path) -> None:
    photo = next(p for p in list_photos(folder) if p.name == "sure")
    photo.meta_path.write_text('{"confidences": ["x"], "reviewed": "false"}')
    at = open_page(folder, tmp_path / "models")
    assert "sure.jpg" in at.subheader[0].value and "unsure" not in at.subheader[0].value, "looked at first"
    assert '"reviewed" must be true or false, not "false"' in at.warning[0].value
    assert not at.exception, at.exception


def test_bulk_fixes_undo_and_reviewed_only_by_looks_right(folder: Path, tmp_path: Path) -> None:
    at = open_page(folder, tmp_path / "models")  # "unsure": confidences 0.95, 0.30, 0.90
    at.button(key="label.delete").click().run()
    assert "Pick a box first" in at.warning[0].value, "delete with nothing picked says so"

    at.number_input(key="label.below").set_value(0.5).run()
    at.button(key="label.delbelow").click().run()
    assert [b.class_id for b in labels_of(folder, "unsure").boxes] == [CLASS_ID["1m"], CLASS_ID["3m"]]
    assert "1 boxes below 0.50 deleted" in at.success[0].value

    at.multiselect(key="label.box").set_value([3, 1]).run()  # box 2 is gone: 1 and 3 stay
    at.text_input(key="label.row").input("春 summer").run()
    at.button(key="label.setrow").click().run()
    assert [b.class_id for b in labels_of(folder, "unsure").boxes] == [CLASS_ID["s1"], CLASS_ID["s2"]]

    at.button(key="label.undo").click().run()
    assert [b.class_id for b in labels_of(folder, "unsure").boxes] == [CLASS_ID["1m"], CLASS_ID["3m"]]
    assert not labels_of(folder, "unsure").meta.reviewed

    at.selectbox(key="label.class").set_value(CLASS_ID["9s"]).run()
    at.button(key="label.reviewed").click().run()
    assert labels_of(folder, "unsure").meta.reviewed
    assert at.selectbox(key="label.class").value is None, "the last face does not carry over to the next photo"
    assert not at.multiselect(key="label.box").value
    at.button(key="label.reviewed").click().run()
    assert any("All 2 photos are reviewed" in s.value for s in at.success)
    assert not at.exception, at.exception


def test_face_picker_finds_faces_by_english_and_chinese_names() -> None:
    from appui.label_boxes import class_label, parse_faces

    assert "summer" in class_label(CLASS_ID["s2"]) and "夏" in class_label(CLASS_ID["s2"])
    assert parse_faces("f1 兰 chrysanthemum 竹 s1") == [CLASS_ID[n] for n in ("f1", "f2", "f3", "f4", "s1")]
    assert parse_faces("梅兰菊竹") == [CLASS_ID[n] for n in ("f1", "f2", "f3", "f4")]
    with pytest.raises(LabelFileError, match="'dragon' is not a face"):
        parse_faces("dragon")


def test_boxes_are_numbered_in_reading_order() -> None:
    from tileset.labelfiles import reading_order

    boxes = (LabelBox(0, 0.7, 0.21, 0.1, 0.2), LabelBox(0, 0.2, 0.6, 0.1, 0.2), LabelBox(0, 0.3, 0.19, 0.1, 0.2))
    assert reading_order(boxes) == [2, 0, 1], "top row left to right, then the next row"


def test_page_is_translated_in_chinese(folder: Path, tmp_path: Path) -> None:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["label.models_root"] = str(tmp_path / "models")
    at.session_state["lang"] = "zh"
    at.run()
    at.text_input(key="label.folder").input(str(folder)).run()
    assert at.header[0].value == "标注照片"
    assert at.button(key="label.reviewed").label.startswith("看过了")
    assert not at.exception, at.exception


def test_a_click_on_the_photo_picks_the_box_under_it_and_a_drag_draws_one() -> None:
    from appui.label_boxes import canvas_action

    labels = PhotoLabels((LabelBox.from_xyxy(CLASS_ID["1m"], (10, 10, 50, 70), W, H),
                          LabelBox.from_xyxy(CLASS_ID["2m"], (60, 10, 100, 70), W, H),
                          LabelBox.from_xyxy(CLASS_ID["3m"], (20, 20, 30, 30), W, H)))
    shown_half = {"width": W / 2, "height": H / 2}  # the photo shown at half size
    assert canvas_action(labels, shown_half | {"x1": 40, "y1": 20, "x2": 41, "y2": 21}, W, H) == ("pick", 1)
    assert canvas_action(labels, shown_half | {"x1": 12, "y1": 12, "x2": 12, "y2": 12}, W, H) == ("pick", 2), \
        "the smallest box under the click: a box inside another can be picked"
    assert canvas_action(labels, shown_half | {"x1": 150, "y1": 100, "x2": 150, "y2": 100}, W, H) is None
    assert canvas_action(labels, shown_half | {"x1": 120, "y1": 50, "x2": 100, "y2": 10}, W, H) == \
        ("draw", (200.0, 20.0, 240.0, 100.0)), "corners in photo pixels, in order"
    assert canvas_action(labels, shown_half | {"x1": 150, "y1": 100, "x2": 400, "y2": -5}, W, H) == \
        ("draw", (300.0, 0.0, 400.0, 200.0)), "clipped to the photo"
    assert canvas_action(labels, None, W, H) is None
    assert canvas_action(labels, {"width": 0, "x": 1, "y": 1}, W, H) is None


def test_photos_added_from_the_app_never_share_a_label_file(tmp_path: Path) -> None:
    from appui.labeling import add_photos

    folder = tmp_path / "club"
    jpeg = cv2.imencode(".jpg", np.full((20, 30, 3), 90, np.uint8))[1].tobytes()
    assert add_photos(folder, [("hand.jpg", jpeg), ("hand.png", jpeg), ("../a b.jpg", jpeg)]) == \
        ["hand.jpg", "hand-2.png", "a_b.jpg"]
    assert add_photos(folder, [("hand.JPG", jpeg)]) == ["hand-3.jpg"]
    assert [p.image.name for p in list_photos(folder)] == ["a_b.jpg", "hand-2.png", "hand-3.jpg", "hand.jpg"]
    with pytest.raises(LabelFileError, match=r"notes.txt: not a photo"):
        add_photos(folder, [("notes.txt", b"x")])


def test_prelabel_from_the_page_with_a_progress_bar(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    from adapt_world import colour_reader, constant_tile_finder, write_photos

    photos = tmp_path / "photos"
    write_photos(photos, 2, "A", seed=4)
    for photo in list_photos(photos):  # unlabeled photos, as a club brings them
        photo.label_path.unlink()
        photo.meta_path.unlink()
    models = tmp_path / "models"
    models.mkdir()
    constant_tile_finder(models / "detector.onnx")
    colour_reader(models / "classifier.onnx", "A")
    at = open_page(photos, models)
    at.button(key="label.prelabel").click().run()
    assert not at.exception, at.exception
    for photo in list_photos(photos):
        labels = photo.load()
        assert len(labels.boxes) == 6 and labels.meta.origin == "prelabel" and not labels.meta.reviewed
    assert at.subheader[0].value.startswith("1 / 2")


REFUSED = {"version": "v3", "promoted": False, "old": {"read_accuracy": 0.8}, "new": {"read_accuracy": 0.95},
           "reason": "its precision on the base val photos is lower (97.94% -> 82.74%: more false boxes or misreads); "
                     "the model in use is kept"}


def stand_in_adapt(tmp_path: Path, body: str) -> list[str]:
    """A command standing in for `python -m vision.adapt`: a Python script of `body`."""
    import sys

    script = tmp_path / "adapt.py"
    script.write_text(body)
    return [sys.executable, str(script)]


def ended(at: AppTest, data_root: Path, timeout_s: float = 20.0) -> AppTest:
    """Wait until the teaching run ends, then run the page again (as its panel does every second)."""
    import time

    from appui import jobs

    deadline = time.monotonic() + timeout_s
    while (state := jobs.status(data_root, "learn")) is not None and state.running:
        assert time.monotonic() < deadline, "the stand-in run did not end"
        time.sleep(0.1)
    return at.run()


def teach_page(folder: Path, tmp_path: Path, command: list[str]) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["label.models_root"] = str(tmp_path / "models")
    at.session_state["label.adapt_command"] = command
    at.run()
    at.text_input(key="label.folder").input(str(folder)).run()
    return at


@pytest.mark.parametrize("result, kind, shown", [
    ({"version": "v2", "promoted": True, "old": {"read_accuracy": 0.8}, "new": {"read_accuracy": 0.95}},
     "success", "New version v2 in use"),
    (REFUSED, "warning", "Version v3 is not used (80.0 % -> 95.0 % on the held-back photos): its precision on the base val"),
])
def test_teach_the_model_shows_progress_and_the_before_after_figures(
    folder: Path, tmp_path: Path, result: dict, kind: str, shown: str
) -> None:
    """Promoted, or refused with the reason adapt gives: a version that reads better but adds false
    boxes must not read as "not better", and a run not kept is no success."""
    import json

    command = stand_in_adapt(tmp_path, "print('[adapt 1/5] reading the held-back photos', flush=True)\n"
                                       f"print({json.dumps(json.dumps(result))})\n")
    at = teach_page(folder, tmp_path, command)
    assert at.button(key="label.teach").disabled, "nothing reviewed yet: nothing to teach"
    at.button(key="label.reviewed").click().run()
    at.button(key="label.teach").click().run()
    ended(at, tmp_path)
    assert not at.exception, at.exception
    boxes = {"success": at.success, "warning": at.warning}
    assert any(shown in s.value and "80.0 % -> 95.0 %" in s.value for s in boxes[kind]), [s.value for s in boxes[kind]]
    other = at.warning if kind == "success" else at.success
    assert not any("v2" in s.value or "v3" in s.value for s in other), "one verdict, in its own kind of box"


def test_while_teaching_runs_every_tab_keeps_the_photo_and_editor(folder: Path, tmp_path: Path) -> None:
    """A run started in one tab: a tab opened on the page meanwhile shows one bar (its step, the time left at most)
    and the log folded away, and below it the photo, the box editor and "Looks right" as ever; once the run ends,
    its verdict."""
    import json

    answer = {"version": "v2", "promoted": True, "old": {"read_accuracy": 0.8}, "new": {"read_accuracy": 0.95}}
    log = "".join(f"print('epoch {k}: loss 0.{k}', flush=True)\n" for k in range(300))  # a training log's length
    command = stand_in_adapt(tmp_path, "import time\n"
                                       "print('[adapt 3/5] fine-tuning classifier on 4 photos x4', flush=True)\n"
                                       f"{log}time.sleep(2.5)\nprint({json.dumps(json.dumps(answer))})\n")
    first = teach_page(folder, tmp_path, command)
    first.button(key="label.reviewed").click().run()
    first.button(key="label.teach").click().run()

    other = teach_page(folder, tmp_path, command)  # another tab, while the run goes on
    assert not other.exception, other.exception
    bars = other.get("progress")
    assert len(bars) == 1
    assert "step 3 of 5: fine-tuning classifier on 4 photos x4" in bars[0].proto.text
    assert "min left" in bars[0].proto.text
    (log_part,) = [e for e in other.expander if e.label.startswith("Teaching log (301 lines")]
    assert "epoch 299" in log_part.code[0].value and "epoch 200" not in log_part.code[0].value
    assert not other.text, "no raw log lines on the page"
    assert other.multiselect(key="label.box").options, "the box editor is there"
    assert not other.button(key="label.reviewed").disabled and other.subheader[0].value.startswith("1 / 2")
    assert other.button(key="label.teach").disabled

    ended(other, tmp_path)
    assert any("New version v2 in use" in s.value for s in other.success), [s.value for s in other.success]
    assert not other.get("progress")


def test_a_failed_run_says_why_in_words(folder: Path, tmp_path: Path) -> None:
    """A run that stops says the reason its log gives, not only its exit status."""
    command = stand_in_adapt(tmp_path, "import sys\nprint('[adapt 3/5] fine-tuning classifier', flush=True)\n"
                                       "print(\"error: no training crops for classes ['1p', 's4']: the classifier needs "
                                       "every face class\", file=sys.stderr)\nsys.exit(2)\n")
    at = teach_page(folder, tmp_path, command)
    at.button(key="label.reviewed").click().run()
    at.button(key="label.teach").click().run()
    ended(at, tmp_path)
    assert [e.value for e in at.error] == [
        "Teaching stopped: no training crops for classes ['1p', 's4']: the classifier needs every face class. "
        "The model in use is unchanged (exit status 2)."]
    assert not at.success


def test_teaching_progress_and_failure_reason_from_the_log() -> None:
    from appui.labeling import failure_reason, teach_progress

    lines = ["[adapt 1/5] 6 reviewed photos", "[adapt 2/5] model in use", "  classifier: 700 s of the 15-minute budget"]
    share, step, text, left = teach_progress(lines, elapsed_s=90.0, minutes=15)
    assert (step, text) == (2, "model in use") and share == pytest.approx(0.2) and left == pytest.approx(810.0)
    share, step, _, left = teach_progress([*lines, "[adapt 3/5] fine-tuning"], elapsed_s=600.0, minutes=15)
    assert step == 3 and share == pytest.approx(600 / 900) and left == pytest.approx(300.0)
    assert teach_progress([], elapsed_s=2000.0, minutes=15)[0] == 0.99 and teach_progress([], 2000.0)[3] == 0.0
    assert failure_reason(["[adapt 1/5] x", "error: 2 labeled photos: label at least 4"]) == "2 labeled photos: label at least 4"
    assert failure_reason(["Traceback (most recent call last):", '  File "x.py"', "MemoryError"]) == "MemoryError"
    assert failure_reason(["[adapt 1/5] x", "Killed"]) is None


def test_a_drag_with_no_face_picked_picks_the_boxes_inside() -> None:
    from appui.label_boxes import boxes_inside

    labels = PhotoLabels((LabelBox.from_xyxy(CLASS_ID["1m"], (10, 10, 50, 70), W, H),
                          LabelBox.from_xyxy(CLASS_ID["2m"], (60, 10, 100, 70), W, H),
                          LabelBox.from_xyxy(CLASS_ID["3m"], (300, 200, 340, 260), W, H)))
    assert boxes_inside(labels, (0, 0, 120, 100), W, H) == [0, 1]
    assert boxes_inside(labels, (0, 0, 70, 100), W, H) == [0], "a box counts when its centre is inside"


def test_two_tabs_a_stale_edit_is_refused_and_never_changes_the_wrong_box(folder: Path, tmp_path: Path) -> None:
    """Tab A picks box 3 and a face; tab B deletes box 1; A's "Set face" is refused with what changed, and A
    then shows the labels as they are; picked again, box 3 (not the box now at its old place) gets the face."""
    first = open_page(folder, tmp_path / "models")
    second = open_page(folder, tmp_path / "models")
    first.multiselect(key="label.box").set_value([3]).run()
    first.selectbox(key="label.class").set_value(CLASS_ID["E"]).run()
    second.multiselect(key="label.box").set_value([1]).run()
    second.button(key="label.delete").click().run()
    assert [b.class_name for b in labels_of(folder, "unsure").boxes] == ["2m", "3m"]

    first.button(key="label.set").click().run()
    assert not first.exception, first.exception
    (refused,) = [e.value for e in first.error]
    assert "Not saved: unsure.jpg was changed in another tab or program at " in refused
    assert "box 1 (1m) deleted" in refused
    assert [b.class_name for b in labels_of(folder, "unsure").boxes] == ["2m", "3m"], "nothing changed"
    assert "2 boxes" in " ".join(m.value for m in first.markdown), "the page shows the labels as they are now"
    assert first.multiselect(key="label.box").options == ["2: 2m 二万 (0.30)", "3: 3m 三万 (0.90)"]
    assert not first.multiselect(key="label.box").value, "the picks go with the refused edit"

    first.button(key="label.undo").click().run()  # A now shows the current labels: its undo is its own to make
    assert [b.class_name for b in labels_of(folder, "unsure").boxes] == ["1m", "2m", "3m"]
    second.button(key="label.reviewed").click().run()  # B still shows two boxes: it must not review three
    assert "box 1 (1m) added" in second.error[0].value
    assert not labels_of(folder, "unsure").meta.reviewed
    second.multiselect(key="label.box").set_value([3]).run()
    second.selectbox(key="label.class").set_value(CLASS_ID["E"]).run()
    second.button(key="label.set").click().run()
    assert [b.class_name for b in labels_of(folder, "unsure").boxes] == ["1m", "2m", "E"]


def test_a_refused_edit_is_said_in_chinese_too(tmp_path: Path) -> None:
    from appui.labeling import stale_message
    from tileset.labelfiles import StaleLabels

    photo = Photo(tmp_path / "hand.jpg", tmp_path / "labels")
    seen = PhotoLabels(tuple(LabelBox(CLASS_ID[f], x, 0.5, 0.05, 0.2) for f, x in (("1m", 0.1), ("2m", 0.4))))
    now = seen.with_classes((1,), CLASS_ID["E"]).marked_reviewed()
    error = StaleLabels(photo, now, None)
    assert stale_message(error, seen, "en") == (
        "Not saved: hand.jpg was changed in another tab or program (box 2 2m → E; marked reviewed). Nothing was "
        "changed here; the labels are shown as they are now: pick the boxes again.")
    assert stale_message(error, seen, "zh").startswith("未保存: hand.jpg 的标注已在另一个标签页或程序中修改 (框 2 2m → E; 已标为已审核)")
    assert "its files were saved again" in stale_message(StaleLabels(photo, seen, None), seen, "en")


def test_teach_the_model_runs_once_while_learning_runs(folder: Path, tmp_path: Path) -> None:
    """Teaching started from another tab is running: a click here starts nothing, watches it and shows its
    result; while a tile set is being learned (Teach my tiles), teaching waits, said so, its button held back."""
    import json
    import sys

    from appui import jobs

    starts = tmp_path / "starts.txt"
    stand_in = tmp_path / "adapt.py"
    answer = {"version": "v2", "promoted": True, "old": {"read_accuracy": 0.8}, "new": {"read_accuracy": 0.95}}
    stand_in.write_text(f"import time\nopen({str(starts)!r}, 'a').write('start\\n')\n"
                        "print('[adapt 1/5] reading the held-back photos', flush=True)\ntime.sleep(1.5)\n"
                        f"print({json.dumps(json.dumps(answer))})\n")
    command = [sys.executable, str(stand_in)]
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["label.models_root"] = str(tmp_path / "models")
    at.session_state["label.adapt_command"] = command
    at.run()
    at.text_input(key="label.folder").input(str(folder)).run()
    at.button(key="label.reviewed").click().run()
    jobs.start(tmp_path, "learn", "adapt", command)  # the other tab's click (MCR_DATA is tmp_path)
    at.button(key="label.teach").click().run()
    assert not at.exception, at.exception
    ended(at, tmp_path)
    assert starts.read_text() == "start\n", "one teaching run"
    assert any("New version v2 in use" in s.value for s in at.success), [s.value for s in at.success]
    assert not at.button(key="label.teach").disabled

    jobs.start(tmp_path, "learn", "calibrate", [sys.executable, "-c", "import time; time.sleep(3)"])
    at.run()
    assert any(i.value.startswith("A tile set is being learned on the Teach my tiles page") for i in at.info)
    assert at.button(key="label.teach").disabled
    assert starts.read_text() == "start\n"


def test_a_pick_whose_box_another_tab_replaced_is_dropped(folder: Path, tmp_path: Path) -> None:
    """Tab B deletes box 3 and draws a new box, which takes the free number 3; tab A had picked the old box 3:
    on A's next run the pick goes, said so, and "Set face" changes nothing."""
    first = open_page(folder, tmp_path / "models")
    second = open_page(folder, tmp_path / "models")
    first.multiselect(key="label.box").set_value([3]).run()
    second.multiselect(key="label.box").set_value([3]).run()
    second.button(key="label.delete").click().run()
    for key, value in zip(("label.x1", "label.y1", "label.x2", "label.y2"), (300, 150, 340, 210), strict=False):
        second.number_input(key=key).set_value(value)
    second.selectbox(key="label.add_class").set_value(CLASS_ID["C"])
    second.button(key="label.add").click().run()
    assert labels_of(folder, "unsure").ids() == (1, 2, 3) and labels_of(folder, "unsure").boxes[2].class_name == "C"

    first.selectbox(key="label.class").set_value(CLASS_ID["E"]).run()  # any rerun shows the labels as they are
    assert "Box 3 changed in another tab or program since it was picked: picked no more." in [i.value for i in first.info]
    assert not first.multiselect(key="label.box").value
    first.button(key="label.set").click().run()
    assert "Pick a box first" in first.warning[0].value
    assert [b.class_name for b in labels_of(folder, "unsure").boxes] == ["1m", "2m", "C"]
