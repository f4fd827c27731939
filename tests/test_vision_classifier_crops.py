"""Classifier training crops: turned copies boxed as a detector boxes a turned tile, train-only."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tileset.classes import BACK_ID, CLASS_NAMES, FACE_NAMES
from training.train import prepare_classifier_data, turn_image


@pytest.mark.parametrize("degrees", [-50, -30, -15, 0, 20, 45, 90])
def test_turned_boxes_are_the_upright_boxes_of_the_turned_tiles(degrees: float) -> None:
    image = np.zeros((240, 320, 3), np.uint8)
    boxes = np.array([[40, 30, 100, 110], [200, 120, 250, 200]], np.float32)
    for x1, y1, x2, y2 in boxes.astype(int):
        image[y1:y2, x1:x2] = 255
    turned, turned_boxes = turn_image(image, boxes, degrees)
    rad = np.radians(degrees)
    cos, sin = abs(np.cos(rad)), abs(np.sin(rad))
    assert turned.shape[:2] == pytest.approx((240 * cos + 320 * sin, 320 * cos + 240 * sin), abs=1.5)
    for (x1, y1, x2, y2), (u1, v1, u2, v2) in zip(boxes, turned_boxes, strict=False):
        w, h = x2 - x1, y2 - y1
        assert (u2 - u1, v2 - v1) == pytest.approx((w * cos + h * sin, w * sin + h * cos), abs=0.5)
        # the box centre is where the tile centre went: the image centre turned by `degrees` counter-clockwise
        dx, dy = (x1 + x2) / 2 - 160, (y1 + y2) / 2 - 120
        expected = (turned.shape[1] / 2 + dx * np.cos(rad) + dy * np.sin(rad),
                    turned.shape[0] / 2 - dx * np.sin(rad) + dy * np.cos(rad))
        assert ((u1 + u2) / 2, (v1 + v2) / 2) == pytest.approx(expected, abs=1.5)
        assert (turned[int((v1 + v2) / 2), int((u1 + u2) / 2)] == 255).all()


def _write_split(root: Path, split: str, images: int) -> None:
    (root / "images" / split).mkdir(parents=True)
    (root / "labels" / split).mkdir(parents=True)
    tile_w, tile_h, cols = 30, 40, 11
    classes = [*range(len(FACE_NAMES)), BACK_ID]
    for n in range(images):
        canvas = np.full((4 * 60 + 20, cols * 45 + 20, 3), (40, 110, 40), np.uint8)
        height, width = canvas.shape[:2]
        lines = []
        for i, cls in enumerate(classes):
            x, y = 10 + (i % cols) * 45, 10 + (i // cols) * 60
            canvas[y : y + tile_h, x : x + tile_w] = (cls * 5 % 255, 200, 250)
            lines.append(f"{cls} {(x + tile_w / 2) / width} {(y + tile_h / 2) / height} {tile_w / width} {tile_h / height}")
        cv2.imwrite(str(root / "images" / split / f"{split}{n}.jpg"), canvas)
        (root / "labels" / split / f"{split}{n}.txt").write_text("\n".join(lines) + "\n")


def test_turned_crops_are_added_to_train_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _write_split(data, "train", 2)
    _write_split(data, "val", 1)
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES))
    (data / "data.yaml").write_text(f"path: {data}\ntrain: images/train\nval: images/val\nnc: 43\nnames:\n{names}\n")
    crops = prepare_classifier_data(data / "data.yaml", tmp_path / "work", 32, workers=1, seed=0, turned_share=1.0)
    train = sorted((crops / "train").rglob("*.jpg"))
    val = sorted((crops / "val").rglob("*.jpg"))
    assert len([p for p in train if p.stem.endswith("_t")]) == len([p for p in train if not p.stem.endswith("_t")])
    assert len(train) == 2 * 2 * len(FACE_NAMES)  # two images, each face once upright and once turned; no back
    assert len(val) == len(FACE_NAMES) and not any(p.stem.endswith("_t") for p in val)
    assert not (crops / "train" / CLASS_NAMES[BACK_ID]).exists()
    assert cv2.imread(str(train[0])).shape == (32, 32, 3)
    again = prepare_classifier_data(data / "data.yaml", tmp_path / "work", 32, workers=1, seed=0, turned_share=0.0)
    assert not any(p.stem.endswith("_t") for p in (again / "train").rglob("*.jpg"))  # options changed: cut again
