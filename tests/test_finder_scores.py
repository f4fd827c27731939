"""benchmarks/finder_scores.py: each labeled tile's best finder score, and the finder's boxes on no label."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from benchmark_support import load_benchmark

from tileset.classes import CLASS_NAMES

REPO = Path(__file__).resolve().parent.parent
SCENES = REPO / "tests" / "data" / "hand_scenes"
PHOTO = "00007301_fluffystuff-riichi"


@pytest.mark.skipif(not (REPO / "models" / "detector.onnx").is_file(), reason="no shipped models")
def test_a_tile_that_is_not_there_scores_0_and_a_tile_left_unlabeled_is_a_box_on_no_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenes = tmp_path / "scenes"
    shutil.copytree(SCENES, scenes)
    scores = load_benchmark("finder_scores")
    assert scores.main([str(scenes), "--models", str(REPO / "models"), "--json"]) == 0
    before = json.loads(capsys.readouterr().out)[str(REPO / "models")]
    assert 0.5 < before["median"] <= 1.0  # the shipped finder boxes these rendered hands surely

    label = scenes / "labels" / f"{PHOTO}.txt"
    lines = label.read_text().splitlines()
    made_up = f"{CLASS_NAMES.index('5m')} 0.03 0.05 0.04 0.06"  # a 5m on bare table
    label.write_text("\n".join([*lines[1:], made_up]) + "\n")  # and the first tile left unlabeled
    assert scores.main([str(scenes), "--models", str(REPO / "models"), "--json"]) == 0
    after = json.loads(capsys.readouterr().out)[str(REPO / "models")]
    assert after["tiles"] == before["tiles"]
    assert after["weakest"][0] == [0.0, "5m", f"{PHOTO}.jpg"]
    assert after["boxes_on_no_label"] >= before["boxes_on_no_label"] + 1
    assert after["photos_with_most_boxes_on_no_label"][f"{PHOTO}.jpg"] >= 1


def test_a_path_with_no_photos_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert load_benchmark("finder_scores").main([str(tmp_path), "--models", str(REPO / "models")]) == 2
    assert "error:" in capsys.readouterr().err
