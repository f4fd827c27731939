"""CI-sized smoke test of the whole model pipeline: synthetic scenes -> train both models one tiny
epoch -> export ONNX -> the runtime loads them (class table checked) and reads an image.

Scenes come from `datasets.synth` on the drawn-from-scratch art of `datasets.fake_art`, plus one
"catalogue" picture holding every face once, so the classifier sees all 42 classes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tileset.classes import CLASS_ID, CLASS_NAMES, FACE_NAMES

pytest.importorskip("ultralytics", reason="ultralytics is in the train extra")

REPO = Path(__file__).resolve().parent.parent


def _run(args: list[str], env: dict[str, str], timeout: int = 600) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO, env=env,
                            timeout=timeout)
    assert result.returncode == 0, f"{args[:3]} failed:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    return result


def _catalogue(art: Path, out_images: Path, out_labels: Path, name: str) -> None:
    """All 42 fake faces in a grid on a table colour, with YOLO labels."""
    tile_w, tile_h, cols = 56, 80, 7
    rows = -(-len(FACE_NAMES) // cols)
    canvas = np.full((rows * (tile_h + 12) + 12, cols * (tile_w + 12) + 12, 3), (40, 110, 40), np.uint8)
    mapping = {}
    for line in (art / "gl-mahjongtile" / "mapping.tsv").read_text().splitlines()[1:]:
        fields = line.split("\t")
        mapping[fields[1]] = art / "gl-mahjongtile" / fields[2]
    lines = []
    H, W = canvas.shape[:2]
    for i, cls in enumerate(FACE_NAMES):
        face = cv2.imread(str(mapping[cls]), cv2.IMREAD_COLOR)
        face = cv2.resize(face, (tile_w, tile_h))
        x, y = 12 + (i % cols) * (tile_w + 12), 12 + (i // cols) * (tile_h + 12)
        canvas[y : y + tile_h, x : x + tile_w] = face
        lines.append(f"{CLASS_ID[cls]} {(x + tile_w / 2) / W:.6f} {(y + tile_h / 2) / H:.6f} {tile_w / W:.6f} "
                     f"{tile_h / H:.6f}")
    cv2.imwrite(str(out_images / f"{name}.jpg"), canvas)
    (out_labels / f"{name}.txt").write_text("\n".join(lines) + "\n")


@pytest.mark.slow
def test_train_export_and_run_tiny_models(tmp_path):
    from datasets.fake_art import write_fake_art

    env = dict(os.environ, YOLO_OFFLINE="1", YOLO_CONFIG_DIR=str(tmp_path / "yolo"), OMP_NUM_THREADS="2",
               PYTHONPATH=str(REPO))
    art = write_fake_art(tmp_path / "art")
    for split, n, seed in (("train", 4, 0), ("val", 1, 100)):
        _run(["-m", "datasets.synth", "--art", str(art), "--out", str(tmp_path / "synth" / split), "--n", str(n),
              "--seed", str(seed)], env)
        _catalogue(art, tmp_path / "synth" / split / "images", tmp_path / "synth" / split / "labels", "catalogue")
    names = "\n".join(f"  {i}: '{n}'" for i, n in enumerate(CLASS_NAMES))
    data = tmp_path / "data.yaml"
    data.write_text(f"path: {tmp_path / 'synth'}\ntrain: train/images\nval: val/images\nnames:\n{names}\n")

    work = tmp_path / "work"
    common = ["--data", str(data), "--work", str(work), "--epochs", "1", "--workers", "0", "--device", "cpu"]
    _run(["-m", "training.train", "detector", *common, "--imgsz", "128", "--batch", "4"], env)
    _run(["-m", "training.train", "classifier", *common, "--imgsz", "32", "--batch", "16"], env)
    derived = (work / "detector_data" / "labels" / "train").glob("*.txt")
    assert {line.split()[0] for f in derived for line in f.read_text().splitlines()} <= {"0", "1"}
    crops = work / "classifier_data" / "train"
    assert sorted(p.name for p in crops.iterdir() if p.is_dir()) == sorted(FACE_NAMES)
    assert cv2.imread(str(next((crops / "5m").glob("*.jpg")))).shape == (32, 32, 3)

    models = tmp_path / "models"
    _run(["-m", "training.export", "--detector", str(work / "detector" / "weights" / "best.pt"),
          "--classifier", str(work / "classifier" / "weights" / "best.pt"), "--out", str(models)], env)
    assert (models / "detector.onnx").is_file() and (models / "classifier.onnx").is_file()

    from vision.detector import TileDetector
    from vision.models import read_metadata

    detector = TileDetector.load(models)
    assert detector.model_info.detector_names == ("tile", "back")
    assert detector.model_info.detector_imgsz == 128 and detector.model_info.classifier_imgsz == 32
    assert read_metadata(detector.classifier.session)["mcr_role"] == "classifier"
    image = next((tmp_path / "synth" / "val" / "images").glob("0*.jpg"))
    result = _run(["-m", "vision", "detect", "--model", str(models), str(image)], env)
    line = json.loads(result.stdout)
    h, w = cv2.imread(str(image)).shape[:2]
    assert (line["width"], line["height"]) == (w, h)
    for tile in line["tiles"]:  # one epoch finds little; whatever it finds is well formed
        assert tile["cls"] in CLASS_NAMES and 0 <= tile["conf"] <= 1
        x1, y1, x2, y2 = tile["xyxy"]
        assert 0 <= x1 <= x2 <= w and 0 <= y1 <= y2 <= h

    # resuming a finished run is refused with a clear message, not silently retrained
    resumed = subprocess.run([sys.executable, "-m", "training.train", "classifier", *common, "--imgsz", "32", "--resume"],
                             capture_output=True, text=True, cwd=REPO, env=env, timeout=300)
    assert resumed.returncode == 2 and "nothing to resume" in resumed.stderr and "Traceback" not in resumed.stderr


def test_time_box_is_fitted_to_the_deadline_after_set_up():
    import time
    from types import SimpleNamespace

    from training.train import _fit_time_box_to_deadline

    trainer = SimpleNamespace(args=SimpleNamespace(time=1.0))
    _fit_time_box_to_deadline(time.time() + 400, reserve_s=40)(trainer)
    assert trainer.args.time * 3600 == pytest.approx(360, abs=2)
    _fit_time_box_to_deadline(time.time() - 5, reserve_s=40)(trainer)  # already late: a short box, not a negative one
    assert trainer.args.time * 3600 == pytest.approx(30, abs=1)


def test_auto_optimizer_is_sgd_on_a_cpu_and_left_to_ultralytics_on_a_gpu():
    from training.train import build_parser, optimizer_for

    assert optimizer_for("cpu", "auto") == "SGD"  # ultralytics' auto would pick MuSGD: ~10x slower per step on a CPU
    assert optimizer_for("0", "auto") == "auto"
    assert optimizer_for("cpu", "AdamW") == "AdamW"
    args = build_parser().parse_args(["detector", "--data", "d.yaml", "--optimizer", "MuSGD", "--warmup-epochs", "0"])
    assert (args.optimizer, args.warmup_epochs) == ("MuSGD", 0.0)
