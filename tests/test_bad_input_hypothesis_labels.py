"""Fuzzing label metadata, label files and Label Studio imports: a LabelFileError with a message, or
a result; never another exception."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datasets.labelstudio import import_export
from tileset.classes import CLASS_NAMES
from tileset.labelfiles import LabelFileError, LabelMeta, list_photos

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=6),
                     st.sampled_from(["prelabel", "human", "import", "false", "true", "x", "1m", "IMG.jpg", "5"]))
_KEYS = ["origin", "reviewed", "model", "confidences", "labels_sha1", "ids", "data", "image", "mcr_photo",
         "annotations",
         "result", "value", "x", "y", "width", "height", "rotation", "rectanglelabels", "type", "was_cancelled",
         "label", "predictions", "updated_at"]
_JSON = st.recursive(_SCALARS, lambda c: st.one_of(st.lists(c, max_size=6),
                                                   st.dictionaries(st.sampled_from(_KEYS), c, max_size=6)),
                     max_leaves=25)
_BOX_VALUE = st.fixed_dictionaries({
    "x": st.one_of(st.floats(-50, 150), st.text(max_size=3), st.none()), "y": st.floats(0, 100),
    "width": st.one_of(st.floats(-5, 100), st.just("x")), "height": st.floats(0, 100),
    "rectanglelabels": st.one_of(st.lists(st.sampled_from([*list(CLASS_NAMES), "nope"]), max_size=2), _SCALARS),
    "rotation": st.one_of(st.just(0), st.floats(), st.text(max_size=2)),
})
_TASK = st.fixed_dictionaries({
    "data": st.one_of(st.fixed_dictionaries({"image": st.sampled_from(["/data/upload/1/0000abcd-a.jpg", "b.jpg",
                                                                          "c.jpg"])}), _SCALARS),
    "annotations": st.one_of(st.lists(st.fixed_dictionaries({
        "result": st.one_of(st.lists(st.one_of(st.fixed_dictionaries({"type": st.just("rectanglelabels"),
                                                                     "value": _BOX_VALUE}), _JSON), max_size=4),
                            _SCALARS),
        "was_cancelled": st.booleans()}), max_size=2), _SCALARS),
})


@pytest.fixture(scope="module")
def folder() -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "photos"
        (root / "images").mkdir(parents=True)
        for name in ("a", "b"):
            cv2.imwrite(str(root / "images" / f"{name}.jpg"), np.zeros((30, 40, 3), np.uint8))
        yield root


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of saves: the disk flush is not what is tested here."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(meta=st.one_of(_JSON, st.dictionaries(st.sampled_from(["origin", "reviewed", "model", "confidences", "ids",
                                                               "labels_sha1"]), _JSON, max_size=5)),
       label_text=st.one_of(st.just("0 0.5 0.5 0.1 0.1\n1 0.2 0.2 0.1 0.1\n"),
                            st.text(alphabet="0123456789 .-e\nnaif", max_size=40)))
def test_any_meta_and_label_file_load_or_say_what_is_wrong(folder: Path, meta: Any, label_text: str) -> None:
    photo = list_photos(folder)[0]
    photo.meta_path.parent.mkdir(exist_ok=True)
    photo.meta_path.write_text(json.dumps(meta))
    photo.label_path.write_text(label_text)
    try:
        labels, problems = photo.load_checked()
    except LabelFileError as error:
        assert str(photo.label_path) in str(error)
        return
    assert len(labels.confidences()) == len(labels.boxes) == len(set(labels.ids()))
    assert all(0 <= c <= 1 for c in labels.confidences())
    try:
        LabelMeta.from_json(meta)
    except LabelFileError:
        assert problems and not labels.meta.reviewed


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(export=st.one_of(st.lists(st.one_of(_TASK, _JSON), max_size=4), _JSON))
def test_any_label_studio_export_imports_or_says_what_is_wrong(folder: Path, export: Any) -> None:
    shutil.rmtree(folder / "labels", ignore_errors=True)  # a fresh folder each time, no history piling up
    path = folder.parent / "export.json"
    path.write_text(json.dumps(export))
    try:
        report = import_export(path, folder)
    except LabelFileError as error:
        assert str(error)
        return
    assert report.photos <= 2 and (report.photos or report.why_nothing())
    for photo in list_photos(folder):
        labels = photo.load()
        assert all(b.w > 0 and b.h > 0 for b in labels.boxes)
