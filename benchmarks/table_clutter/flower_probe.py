"""Can a linear probe on the shipped classifier's pooled features tell a box counted as a flower that is none (a
die, a patch of cloth) from a real flower of a set it never saw? Model card, stop 41: no.

    .venv/bin/python benchmarks/table_clutter/flower_probe.py TRAIN_SCENES TRAIN_BARE SETDIR [SETDIR ...]

TRAIN_SCENES, TRAIN_BARE: `datasets.synth` folders of training artwork (hand scenes, and `--empty 1` bare tables
with their clutter). Every face box of the shipped finder down to 0.01 is mined there: a tile where it overlaps a
labeled tile by 0.5 or more, false under 0.05. SETDIR: a set folder of `benchmarks/calibration_round.sh` (scn/,
models/), whose calibrated version reads each scene; the boxes it counts as flowers are false where they overlap
no labeled tile by 0.3. The probe (PCA to 64, then logistic regression by Newton steps, classes weighed alike) is
fitted on the training boxes alone and scored on the counted flowers. Prints the false boxes' scores, the real
flowers' highest, and what a threshold at the highest real flowers would catch and lose.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import json
import sys
from pathlib import Path

import numpy as np

from vision.boxes import box_iou
from vision.calibrate import Embedder
from vision.crops import cut_tiles
from vision.evaluate_read import scenes_from_dir
from vision.images import decode_image
from vision.read import HandReader, load_detector
from vision.registry import active_dir

SHIPPED = Path(__file__).resolve().parents[2] / "models"


def unit(features: np.ndarray) -> np.ndarray:
    features = features.astype(np.float32)
    return features / np.linalg.norm(features, axis=1, keepdims=True)


def training_boxes(folder: Path, detector, embed: Embedder) -> tuple[np.ndarray, np.ndarray]:
    """Features and is-false of every face box of the shipped finder down to 0.01, on a tile or on none."""
    features, false = [], []
    for truth_file in sorted((folder / "truth").glob("*.json")):
        truth = json.loads(truth_file.read_text())
        bgr = decode_image(str(folder / truth["image"]), detector.settings).bgr
        xyxy, _, classes = detector.find_tiles(bgr, 0.01)
        xyxy = xyxy[detector.finder.is_face(classes)]
        if not len(xyxy):
            continue
        labeled = np.array([t["xyxy"] for t in truth["tiles"]], np.float32).reshape(-1, 4)
        overlap = box_iou(xyxy, labeled).max(axis=1) if len(labeled) else np.zeros(len(xyxy))
        clear = (overlap >= 0.5) | (overlap < 0.05)
        features.append(embed(cut_tiles(bgr, xyxy[clear], detector.classifier.imgsz, detector.settings))[1])
        false.append(overlap[clear] < 0.05)
    return unit(np.concatenate(features)), np.concatenate(false)


def counted_flowers(set_dir: Path, embed: Embedder) -> tuple[np.ndarray, np.ndarray]:
    """Features (by the shipped classifier) and is-false of the boxes a calibrated version counts as flowers."""
    detector = load_detector(active_dir(set_dir / "models"))
    reader = HandReader(detector)
    features, false = [], []
    for scene in scenes_from_dir(set_dir / "scn"):
        bgr = decode_image(str(scene.image), detector.settings).bgr
        result = reader.read(bgr)
        if result.layout is None or not result.layout.flowers:
            continue
        xyxy = result.detections.xyxy[[t.index for t in result.layout.flowers]]
        labeled = np.array([box for _, box in scene.truth_tiles], np.float32).reshape(-1, 4)
        features.append(embed(cut_tiles(bgr, xyxy, detector.classifier.imgsz, detector.settings))[1])
        false.append(box_iou(xyxy, labeled).max(axis=1) < 0.3)
    return unit(np.concatenate(features)), np.concatenate(false)


def fit_probe(x: np.ndarray, y: np.ndarray, dims: int = 64, l2: float = 1.0):
    mean = x.mean(axis=0)
    axes = np.linalg.svd(x - mean, full_matrices=False)[2][:dims].T

    def design(z: np.ndarray) -> np.ndarray:
        return np.hstack([(z - mean) @ axes, np.ones((len(z), 1))])

    d = design(x)
    weight = np.where(y, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    w = np.zeros(d.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-np.clip(d @ w, -30, 30)))
        hessian = (d * (weight * p * (1 - p))[:, None]).T @ d + l2 * np.eye(len(w))
        w -= np.linalg.solve(hessian, d.T @ (weight * (p - y)) + l2 * w)
    return lambda z: design(z) @ w


def main() -> None:
    train_dirs, set_dirs = [Path(a) for a in sys.argv[1:3]], [Path(a) for a in sys.argv[3:]]
    shipped = load_detector(SHIPPED)
    embed = Embedder(SHIPPED / "classifier.onnx", threads=2)
    mined = [training_boxes(folder, shipped, embed) for folder in train_dirs]
    x, y = np.vstack([m[0] for m in mined]), np.concatenate([m[1] for m in mined])
    print(f"training boxes: {len(y)}, false {int(y.sum())}")
    probe = fit_probe(x, y)
    counted = [counted_flowers(d, embed) for d in set_dirs]
    scores = np.concatenate([probe(c[0]) for c in counted])
    false = np.concatenate([c[1] for c in counted])
    real = np.sort(scores[~false])[::-1]
    print(f"counted as flowers: {len(false)}, false {int(false.sum())}")
    print("false boxes' scores:", " ".join(f"{s:.1f}" for s in np.sort(scores[false])[::-1]))
    print("real flowers' highest:", " ".join(f"{s:.1f}" for s in real[:8]))
    for k in (0, 1, 3, 7):
        if k < len(real):
            print(f"threshold {real[k]:.1f}: false caught {int((scores[false] > real[k]).sum())} of {int(false.sum())}, "
                  f"real flowers lost {k}")


if __name__ == "__main__":
    main()
