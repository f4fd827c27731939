"""benchmarks/finder_misses.py: each labeled tile in one kind, and "found" is `training.evaluate`'s recall."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from benchmark_support import load_benchmark

from tileset.classes import BACK_ID, CLASS_NAMES
from training.evaluate import LabeledTiles, dataset_images, evaluate
from vision.detector import TileDetector

REPO = Path(__file__).resolve().parent.parent
SCENES = REPO / "tests" / "data" / "hand_scenes"
FIVE_MAN = CLASS_NAMES.index("5m")


def tiles(*boxes: tuple[float, float, float, float], classes: list[int] | None = None) -> LabeledTiles:
    return LabeledTiles(np.asarray(boxes, np.float32), np.asarray(classes or [FIVE_MAN] * len(boxes), np.int64))


def test_every_labeled_tile_gets_the_first_kind_that_fits() -> None:
    misses = load_benchmark("finder_misses")
    truth = tiles(
        (0, 0, 40, 50),        # a face standing clear of the others
        (100, 0, 140, 50),     # a back
        (200, 0, 240, 8),      # a face lying flat seen from low: 40 px wide, 8 tall
        (300, 0, 340, 50),     # two leaning faces, each 40 % inside the other's box
        (320, 10, 360, 60),
        classes=[FIVE_MAN, BACK_ID, FIVE_MAN, FIVE_MAN, FIVE_MAN],
    )
    assert misses.tile_kinds(truth) == ["face", "back", "edge-on face", "covered face", "covered face"]


def test_a_thin_face_tall_enough_to_read_is_a_face_and_a_stretched_photo_is_its_own_kind() -> None:
    misses = load_benchmark("finder_misses")
    assert misses.tile_kinds(tiles((0, 0, 60, 20))) == ["face"]
    squeezed = tiles((0, 0, 8, 60), (20, 0, 28, 60), (40, 0, 48, 60))  # median 7.5 times taller than wide
    assert misses.tile_kinds(squeezed) == ["stretched photo"] * 3


@pytest.mark.skipif(not (REPO / "models" / "detector.onnx").is_file(), reason="no shipped models")
def test_a_tile_that_is_not_there_is_missed_and_found_is_evaluates_recall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenes = tmp_path / "scenes"
    shutil.copytree(SCENES, scenes)
    label = scenes / "labels" / "00007301_fluffystuff-riichi.txt"
    with label.open("a") as labels:  # a 5m in the top left corner, where the photo shows bare table
        labels.write(f"{FIVE_MAN} 0.03 0.05 0.04 0.06\n")
    assert load_benchmark("finder_misses").main([str(scenes), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    expected = evaluate(TileDetector.load(REPO / "models"), dataset_images(scenes, "val"), keep_backs=True).summary()
    assert summary["labeled_tiles"] == expected["labeled_tiles"]
    assert summary["found"] / summary["labeled_tiles"] == pytest.approx(expected["recall"], abs=1e-4)
    assert summary["found"] <= summary["labeled_tiles"] - 1
    assert summary["photos_with_most_misses"]["00007301_fluffystuff-riichi.jpg"] >= 1
    assert summary["missed_faces"]["5m"] >= 1
    kinds = summary["kinds"]
    assert sum(kinds[k]["labeled"] for k in kinds if not k.startswith("face ")) == summary["labeled_tiles"]
    assert sum(kinds[k]["labeled"] for k in kinds if k.startswith("face ")) == kinds["face"]["labeled"]


def test_a_path_with_no_photos_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert load_benchmark("finder_misses").main([str(tmp_path)]) == 2
    assert "error:" in capsys.readouterr().err
