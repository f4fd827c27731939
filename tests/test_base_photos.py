"""The shipped base photos (`models/base/`) and `python -m training.base_photos`, which makes them from a dataset in
the form of chinese-v4."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tileset.classes import CLASS_ID, CLASS_NAMES, FACE_NAMES
from training.base_photos import faces_on, main, pick_train
from training.evaluate import dataset_images
from vision.settings import BASE_PHOTOS_DIR, CalibrateSettings


def test_the_shipped_base_photos_hold_every_face_and_their_attribution() -> None:
    """Calibration reads all of them (its check: `base_check_images` val photos; its gate: `base_crops_images` train
    photos), teaching mixes in train photos holding every face, and the licence's attribution ships with them."""
    settings = CalibrateSettings()
    val, train = dataset_images(BASE_PHOTOS_DIR, "val"), dataset_images(BASE_PHOTOS_DIR, "train")
    assert len(val) == settings.base_check_images and len(train) >= settings.base_crops_images
    assert set().union(*(faces_on(image) for image in train)) == set(FACE_NAMES)
    readme = (BASE_PHOTOS_DIR / "README.md").read_text(encoding="utf-8")
    assert '"Chinese Mahjong Detection" v4 by Roboflow user riichimahjongdetection' in readme
    assert "CC BY 4.0" in readme and "Creative Commons Attribution 4.0" in (BASE_PHOTOS_DIR / "LICENSE.md").read_text()
    assert sum(p.stat().st_size for p in BASE_PHOTOS_DIR.rglob("*") if p.is_file()) < 10_000_000


def source_dataset(root: Path, train_faces: list[list[str]], val: int) -> Path:
    """A dataset in the form of chinese-v4: data.yaml, images/ and labels/ by split, LICENSE.md, README.md."""
    for split, photos in (("train", train_faces), ("val", [["1m"]] * val)):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        for k, faces in enumerate(photos):
            cv2.imwrite(str(root / "images" / split / f"{split}{k:03d}.jpg"), np.full((64, 96, 3), 90 + k, np.uint8))
            (root / "labels" / split / f"{split}{k:03d}.txt").write_text(
                "".join(f"{CLASS_ID[face]} 0.5 0.5 0.1 0.2\n" for face in faces))
    (root / "data.yaml").write_text("path: .\ntrain: images/train\nval: images/val\n")
    (root / "LICENSE.md").write_text("# License notice\nCC BY 4.0\n")
    (root / "README.md").write_text("# a source\n\n> \"A set\" by someone, licensed under CC BY 4.0.\n")
    return root


def test_the_picks_spread_over_the_train_split_and_top_up_the_rare_faces(tmp_path: Path) -> None:
    train = [["1m", "2m"]] * 18 + [["f4"], ["f4", "1m"]]  # f4 only on the last two photos
    source = source_dataset(tmp_path / "src", train, val=5)
    images = dataset_images(source, "train")
    picked, per_face = pick_train(images, 4, min_per_face=2)
    assert images[0] in picked and images[5] in picked, "every 5th photo first"
    assert images[18] in picked and images[19] in picked and per_face["f4"] == 2, "then the photos holding f4"
    assert per_face["9s"] == 0


def test_the_command_writes_the_base_photos_with_their_attribution(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = source_dataset(tmp_path / "src", [["1m"], ["2p", "E"], ["s4"]], val=4)
    out = tmp_path / "base"
    assert main([str(source), "--out", str(out), "--val", "3", "--train", "2", "--min-photos-per-face", "1"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["val"], summary["train"]) == (3, 3) and "9m" in summary["faces_missing"]
    assert [p.name for p in dataset_images(out, "val")] == ["val000.jpg", "val001.jpg", "val002.jpg"]
    assert (out / "images" / "train" / "train002.jpg").read_bytes() == (source / "images" / "train" / "train002.jpg").read_bytes()
    assert (out / "labels" / "train" / "train001.txt").read_text() == f"{CLASS_ID['2p']} 0.5 0.5 0.1 0.2\n{CLASS_ID['E']} 0.5 0.5 0.1 0.2\n"
    assert '> "A set" by someone, licensed under CC BY 4.0.' in (out / "README.md").read_text()
    assert "python -m training.base_photos SOURCE --out" in (out / "README.md").read_text(), "no machine path"
    assert (out / "LICENSE.md").read_text() == (source / "LICENSE.md").read_text()
    assert f"  {len(CLASS_NAMES) - 1}: back" in (out / "data.yaml").read_text()


def test_a_source_without_splits_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "flat").mkdir()
    assert main([str(tmp_path / "flat"), "--out", str(tmp_path / "base")]) == 2
    assert capsys.readouterr().err.startswith(f"error: {tmp_path / 'flat'}: ")
    assert main([str(tmp_path / "none"), "--out", str(tmp_path / "base")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert not (tmp_path / "base").exists()
