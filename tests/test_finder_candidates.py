"""benchmarks/finder_candidates.py: the hands column reads the scenes photo to score as `vision.evaluate_read` does.

tests/data/hand_scenes/ holds three finished hands rendered from CC0 artwork (fluffystuff-riichi), truth and all:

    python -m datasets.synth --art shared/datasets/art --out tests/data/hand_scenes --n 3 --seed 7300 --only fluffystuff-riichi
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchmark_support import load_benchmark

from training import evaluate_read

REPO = Path(__file__).resolve().parent.parent
SCENES = REPO / "tests" / "data" / "hand_scenes"


@pytest.mark.skipif(not (REPO / "models" / "detector.onnx").is_file(), reason="no shipped models")
def test_the_hands_column_is_what_evaluate_read_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures_file = tmp_path / "figures.json"
    candidates = load_benchmark("finder_candidates")
    assert candidates.main(["--out", str(tmp_path / "work"), "--candidate", f"shipped={REPO / 'models'}",
                            "--data", f"photos={SCENES}", "--hands", f"hands={SCENES}",
                            "--json", str(figures_file)]) == 0
    table = capsys.readouterr().out
    assert evaluate_read.main([str(SCENES), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    hands = json.loads(figures_file.read_text())["shipped"]["hands"]
    assert (hands["scenes"], hands["hands_exact"], hands["scores_right"]) == (3, expected["hands_exact"], expected["scores_right"])
    assert hands["hands_exact"] >= 2  # the shipped models read these hands (3 of 3 when they were rendered)
    assert f"| {hands['hands_exact']}/3, {hands['scores_right']} |" in table
    assert "hands: hands exact, scores right" in table.splitlines()[0]


@pytest.mark.skipif(not (REPO / "models" / "detector.onnx").is_file(), reason="no shipped models")
def test_the_groups_table_gives_each_capture_group_of_each_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("split,image,source_root,group\n"
                        "val,00007300_fluffystuff-riichi.jpg,a,first\nval,00007301_fluffystuff-riichi.jpg,b,first\n")
    figures_file = tmp_path / "figures.json"
    candidates = load_benchmark("finder_candidates")
    assert candidates.main(["--out", str(tmp_path / "work"), "--candidate", f"shipped={REPO / 'models'}",
                            "--data", f"photos={SCENES}", "--groups", str(manifest), "--json", str(figures_file)]) == 0
    table = capsys.readouterr().out
    photos = json.loads(figures_file.read_text())["shipped"]["photos"]
    groups = photos["by_group"]
    assert sorted(groups) == ["(not in the manifest)", "first"]
    assert (groups["first"]["images"], groups["(not in the manifest)"]["images"]) == (2, 1)
    assert sum(part["labeled_tiles"] for part in groups.values()) == photos["labeled_tiles"]
    first = groups["first"]
    assert (f"| photos: first (2, {first['labeled_tiles']}) | {100 * first['read_accuracy']:.2f} %, "
            f"{first['false_boxes']} |") in table


def test_a_set_with_no_photo_in_the_manifest_has_no_group_rows(capsys: pytest.CaptureFixture[str]) -> None:
    candidates = load_benchmark("finder_candidates")
    part = {"images": 1, "labeled_tiles": 9, "read_accuracy": 1.0, "false_boxes": 0}
    figures = {"a": {"real": {"by_group": {"IMG_1": part}}, "renders": {"by_group": {"(not in the manifest)": part}}}}
    candidates.print_groups(figures, ["real", "renders"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| real") or line.startswith("| renders")]
    assert rows == ["| real: IMG_1 (1, 9) | 100.00 %, 0 |"]
