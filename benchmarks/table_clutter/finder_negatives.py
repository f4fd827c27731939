"""The finder (`models/detector.pt`) fine-tuned on the real train photos, rendered bare tables full of things
that are not tiles (half of them dice) and, optionally, rendered scenes; backbone frozen (10 layers), every
BatchNorm layer kept in eval mode, SGD at a constant rate, no mosaic; each epoch's checkpoint exported to
OUT/models_<epoch> beside the shipped classifier (model card, stop 29: tried, not kept).

    YOLO_OFFLINE=1 .venv/bin/python benchmarks/table_clutter/finder_negatives.py REAL OUT NEGATIVES EPOCHS LR0 [SCENES]

REAL: `python -m datasets.build REAL --real shared/datasets/real/chinese-v4 --real-test --label-fixes
datasets/label_fixes/chinese-v4.csv --link --seed 0`. SCENES: a `datasets.synth` folder. Stop 29 ran
`... 400 3 0.001` (A) and `... 400 2 0.0003 SP` (B; SP: `datasets.synth --n 400 --seed 29300000 --hold-out
kde-traditional --hold-out gnome-smooth --tables train --empty 0.1`), and B's again with REAL built with
`--squeezed-copies 0.3` too (C), then `vision.evaluate` on each.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import random
import shutil
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import yaml

REPO = Path(__file__).resolve().parents[2]


from datasets.render import CLUTTER, draw_table, photo_effects  # noqa: E402
from datasets.tables import TRAIN_FAMILIES, table_source  # noqa: E402
from vision.export import export_checkpoint  # noqa: E402
from vision.finder_tune import _finder_label  # noqa: E402
from vision.train import _ultralytics_environment  # noqa: E402


def write_data(real: Path, data: Path, negatives: int, scenes: "Path | None") -> Path:
    for split in ("train", "val"):
        for kind in ("images", "labels"):
            (data / split / kind).mkdir(parents=True, exist_ok=True)

    def add(split: str, image: Path, label_text: str, name: str) -> None:
        target = data / split / "images" / (name + image.suffix.lower())
        if not target.exists():
            target.symlink_to(image.resolve())
        (data / split / "labels" / (name + ".txt")).write_text(label_text)

    for split in ("train", "val"):
        for k, image in enumerate(sorted((real / "images" / split).iterdir())):
            add(split, image, _finder_label(real / "labels" / split / (image.stem + ".txt")), f"real{k:05d}")
    if scenes is not None:
        for k, image in enumerate(sorted((scenes / "images").iterdir())):
            add("train", image, _finder_label(scenes / "labels" / (image.stem + ".txt")), f"synth{k:05d}")
    rng, nrng = random.Random(29290000), np.random.default_rng(29290000)
    families = table_source(TRAIN_FAMILIES, negatives=0.7)
    die = next(draw for draw in CLUTTER if draw.__name__ == "_die")
    for k in range(negatives):  # half the hand scenes' own tables, half the training families
        w, h = 1280, 960
        unit = min(w, h) / rng.uniform(12, 26)
        image = draw_table(rng, nrng, w, h) if k % 2 == 0 else families(rng, w, h, unit)
        for _ in range(rng.randint(2, 7)):
            draw = die if rng.random() < 0.5 else rng.choice(CLUTTER)
            draw(rng, image, (rng.randrange(w), rng.randrange(h)), unit * rng.uniform(0.8, 1.5))
        image = photo_effects(rng, image, [])
        cv2.imwrite(str(data / "train" / "images" / f"neg{k:04d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (data / "train" / "labels" / f"neg{k:04d}.txt").write_text("")
    (data / "data.yaml").write_text(yaml.safe_dump({"path": str(data.resolve()), "train": "train/images",
                                                    "val": "val/images", "names": {0: "tile", 1: "back"}}))
    print("data ready", len(list((data / "train" / "images").iterdir())), "train images", flush=True)
    return data / "data.yaml"


def main(real: Path, out: Path, negatives: int, epochs: int, lr0: float, scenes: "Path | None") -> None:
    data_yaml = write_data(real, out / "data", negatives, scenes)
    _ultralytics_environment()
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(2)

    def keep_batchnorm(trainer):  # type: ignore[no-untyped-def]
        for module in trainer.model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.eval()

    model = YOLO(str(REPO / "models" / "detector.pt"))
    model.add_callback("on_train_batch_start", keep_batchnorm)
    model.add_callback("on_train_epoch_start", lambda trainer: torch.set_num_threads(2))
    started = time.time()
    model.train(data=str(data_yaml), epochs=epochs, imgsz=512, batch=8, device="cpu", workers=0, amp=False,
                optimizer="SGD", lr0=lr0, lrf=1.0, warmup_epochs=0, freeze=10, mosaic=0.0, close_mosaic=0,
                degrees=5.0, seed=0, deterministic=True, project=str(out.resolve()), name="run", exist_ok=True,
                plots=False, val=False, save_period=1, verbose=False)
    print(f"trained in {time.time() - started:.0f} s", flush=True)
    for checkpoint in sorted((out / "run" / "weights").glob("*.pt")):
        target = out / f"models_{checkpoint.stem}"
        export_beside_shipped_classifier(checkpoint, target)
        print("exported", target, flush=True)


def export_beside_shipped_classifier(checkpoint: Path, target: Path) -> None:
    """A models folder for `vision.evaluate --models`: the finder `checkpoint` in ONNX, the shipped classifier."""
    target.mkdir(parents=True, exist_ok=True)
    for name in ("classifier.onnx", "classifier.pt", "MODEL_CARD.md"):
        shutil.copy2(REPO / "models" / name, target / name)
    export_checkpoint(checkpoint, target / "detector.onnx", "detector", dynamic=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
         Path(sys.argv[6]) if len(sys.argv) > 6 else None)
