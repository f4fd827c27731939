"""The Label page's refusals in Chinese: each sentence made here by the real code (tileset.labelfiles,
appui.labeling), translated whole by appui.i18n.message_text, with what it names kept."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from filelock import FileLock

import tileset.labelfiles
from appui.i18n import message_text
from appui.label_boxes import parse_faces
from appui.labeling import add_photos
from tileset.classes import CLASS_ID
from tileset.labelfiles import LabelBox, LabelFileError, LabelMeta, PhotoLabels, list_photos, parse_meta

ONE_BOX = PhotoLabels((LabelBox(CLASS_ID["5m"], 0.5, 0.5, 0.1, 0.2),), LabelMeta("human", False, "", ()))


def a_photo(folder: Path) -> Path:
    (folder / "images").mkdir(parents=True)
    cv2.imwrite(str(folder / "images" / "table.jpg"), np.full((60, 80, 3), 90, np.uint8))
    return folder


def saved_while_another_program_holds_the_lock(folder: Path) -> object:
    (photo,) = list_photos(a_photo(folder))
    with photo.lock():
        pass  # the lock file exists
    with FileLock(photo.lock_path):
        return photo.save(ONE_BOX)


REFUSALS: dict[str, tuple[Callable[[Path], object], list[str]]] = {
    "a row word that is no face": (lambda tmp: parse_faces("plum dragon"), ["'dragon'", "梅, 春"]),
    "nothing to undo": (lambda tmp: list_photos(a_photo(tmp))[0].undo(), ["table.jpg", "没有可撤销"]),
    "a box number no box has": (lambda tmp: ONE_BOX.indices_of([1, 7]), ["编号为 7 的框"]),
    "a folder that is not one": (lambda tmp: list_photos(tmp / "nowhere"), ["nowhere 不是文件夹"]),
    "an upload that is no photo": (lambda tmp: add_photos(tmp, [("notes.txt", b"x")]), ["notes.txt: 不是照片"]),
    "a lock held by another program": (saved_while_another_program_holds_the_lock, ["table.jpg 的标注", "请重试"]),
    "a broken meta file": (lambda tmp: parse_meta(b"{", tmp / "table.meta.json"), ["无法读取", "table.meta.json"]),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_each_refusal_of_the_label_page_reads_in_chinese_naming_what_it_refused(case: str, tmp_path: Path,
                                                                                 monkeypatch) -> None:
    monkeypatch.setattr(tileset.labelfiles, "LOCK_TIMEOUT_S", 0.2)
    make, kept = REFUSALS[case]
    with pytest.raises(LabelFileError) as refused:
        make(tmp_path)
    english = str(refused.value)
    chinese = message_text(english, "zh")
    assert re.search(r"[\u4e00-\u9fff]", chinese) and not re.search(r"\b(?:is|not|the|no|cannot)\b", chinese), chinese
    assert all(part in chinese for part in kept), (chinese, kept)
    assert message_text(english, "en") == english
