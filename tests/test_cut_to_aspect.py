"""benchmarks/cut_to_aspect.py: labeled photos cut to 4:3 around their tiles keep every tile where it was."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from benchmark_support import load_benchmark

from training.evaluate import dataset_images, read_truth

REPO = Path(__file__).resolve().parent.parent
SCENES = REPO / "tests" / "data" / "vision_scenes"


def test_a_frame_holds_every_tile_with_its_margin_or_is_refused() -> None:
    frame_around = load_benchmark("cut_to_aspect").frame_around
    tiles = np.array([[250, 300, 290, 350], [300, 280, 340, 330]], np.float32)
    x0, y0, w, h = frame_around(tiles, 640, 640, 4 / 3, 8)
    assert (w, h) == (640, 480) and x0 == 0
    assert y0 + 8 <= 280 and y0 + h - 8 >= 350
    tall = np.array([[300, 10, 340, 60], [300, 580, 340, 630]], np.float32)  # too far apart for 640x480
    assert frame_around(tall, 640, 640, 4 / 3, 8) == (80, 0, 480, 640)  # the portrait frame holds them
    assert frame_around(np.array([[5, 5, 40, 40], [600, 600, 635, 635]], np.float32), 640, 640, 4 / 3, 8) is None


def test_the_cut_photos_show_the_same_tiles_at_the_same_places(tmp_path: Path) -> None:
    assert load_benchmark("cut_to_aspect").main([str(tmp_path / "cut"), f"{SCENES}:val", "--aspect", "1:1"]) == 0
    originals = {image.stem: image for image in dataset_images(SCENES, "val")}
    cut = list(dataset_images(tmp_path / "cut", "val"))
    assert cut
    for image in cut:
        original = originals[image.stem.rsplit("_", 1)[0]]
        whole, piece = cv2.imread(str(original)), cv2.imread(str(image))
        h, w = piece.shape[:2]
        assert w == h
        before = read_truth(original, whole.shape[1], whole.shape[0])
        after = read_truth(image, w, h)
        shift = before.xyxy[0] - after.xyxy[0]
        np.testing.assert_allclose(before.xyxy - after.xyxy, np.tile(shift, (len(before.xyxy), 1)), atol=0.05)
        np.testing.assert_array_equal(before.class_id, after.class_id)
        x0, y0 = round(float(shift[0])), round(float(shift[1]))
        assert np.abs(whole[y0:y0 + h, x0:x0 + w].astype(int) - piece.astype(int)).mean() < 3  # JPEG again
