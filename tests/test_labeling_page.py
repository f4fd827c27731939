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
    LabelMeta,
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

    at.selectbox(key="label.box").set_value(1).run()
    at.selectbox(key="label.class").set_value(CLASS_ID["5p"]).run()
    at.button(key="label.set").click().run()
    assert labels_of(folder, "unsure").boxes[1].class_id == CLASS_ID["5p"]

    at.selectbox(key="label.box").set_value(2).run()
    at.button(key="label.back").click().run()
    assert labels_of(folder, "unsure").boxes[2].class_id == BACK_ID

    at.selectbox(key="label.box").set_value(0).run()
    at.button(key="label.delete").click().run()
    after_delete = labels_of(folder, "unsure")
    assert [b.class_id for b in after_delete.boxes] == [CLASS_ID["5p"], BACK_ID]

    for key, value in zip(("label.x1", "label.y1", "label.x2", "label.y2"), (200, 20, 240, 80)):
        at.number_input(key=key).set_value(value)
    at.selectbox(key="label.add_class").set_value(CLASS_ID["E"]).run()
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
    assert not at.exception, at.exception


def test_unreadable_photo_is_a_message_not_a_crash(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "broken.jpg").write_bytes(b"not a jpeg")
    at = open_page(photos, tmp_path / "models")
    assert "broken.jpg" in at.error[0].value
