"""The finder (`models/detector.pt`) fine-tuned with every layer trainable (stop 30: tried, not kept), on the
data `finder_negatives.py` writes (real train photos, rendered bare tables full of dice and other things,
rendered scenes), optionally with the real train photos listed `--real-copies` times. Each epoch's checkpoint
is exported to OUT/models_ep<epoch> beside the shipped classifier, for `vision.evaluate --models`.

    YOLO_OFFLINE=1 .venv/bin/python benchmarks/table_clutter/finder_full.py DATA_YAML OUT --epochs 3 --lr0 0.0003 --keep-batchnorm
    YOLO_OFFLINE=1 .venv/bin/python benchmarks/table_clutter/finder_full.py DATA_YAML OUT --epochs 2 --lr0 0.0003 --keep-batchnorm --real-copies 2

DATA_YAML: the `data/data.yaml` a `finder_negatives.py REAL OUT 400 2 0.0003 SCENES` run wrote (stop 29's B).
Stop 30's runs (model card, "Stop 30"): D `--epochs 6 --lr0 0.002 --mosaic 1 --warmup 1 --close-mosaic 2 --lrf 0.1`
(stopped after 3), E `--epochs 4 --lr0 0.0001` (stopped after 1), F `--epochs 3 --lr0 0.0003 --keep-batchnorm`,
G as F with `--real-copies 2 --epochs 2`; R, the control, F's recipe for 2 epochs on a data.yaml that lists
the real train photos alone. SGD throughout; ultralytics accumulates batches of 16 to 64.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[2]))


import argparse
import shutil
import time
from pathlib import Path
from typing import Any

import yaml

from benchmarks.table_clutter.finder_negatives import export_beside_shipped_classifier
from vision.train import _ultralytics_environment

REPO = Path(__file__).resolve().parents[2]


def with_real_copies(data_yaml: Path, out: Path, copies: int) -> Path:
    """A copy of the dataset (links) whose train split lists each real photo (`real*`) `copies` times."""
    source = yaml.safe_load(data_yaml.read_text())
    root = Path(source["path"])
    data = out / "data"
    for split in ("train", "val"):
        for kind in ("images", "labels"):
            (data / split / kind).mkdir(parents=True, exist_ok=True)
        for image in sorted((root / split / "images").iterdir()):
            label = root / split / "labels" / (image.stem + ".txt")
            times = copies if split == "train" and image.name.startswith("real") else 1
            for k in range(times):
                name = ("x" * k) + image.stem
                target = data / split / "images" / (name + image.suffix)
                if not target.exists():
                    target.symlink_to(image.resolve())
                shutil.copy2(label, data / split / "labels" / (name + ".txt"))
    (data / "data.yaml").write_text(yaml.safe_dump({**source, "path": str(data.resolve())}))
    return data / "data.yaml"


def main(argv: "list[str] | None" = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_yaml", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr0", type=float, default=0.0003)
    parser.add_argument("--lrf", type=float, default=1.0)
    parser.add_argument("--warmup", type=float, default=0.0)
    parser.add_argument("--mosaic", type=float, default=0.0)
    parser.add_argument("--close-mosaic", type=int, default=0)
    parser.add_argument("--keep-batchnorm", action="store_true", help="every BatchNorm layer in eval mode")
    parser.add_argument("--real-copies", type=int, default=1)
    args = parser.parse_args(argv)
    data_yaml = args.data_yaml if args.real_copies == 1 else with_real_copies(args.data_yaml, args.out, args.real_copies)
    _ultralytics_environment()
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(2)
    model = YOLO(str(REPO / "models" / "detector.pt"))
    model.add_callback("on_train_epoch_start", lambda trainer: torch.set_num_threads(2))
    started = time.time()

    def export_epoch(trainer: Any) -> None:
        target = args.out / f"models_ep{trainer.epoch}"
        export_beside_shipped_classifier(Path(trainer.last), target)
        print(f"exported {target} at {time.time() - started:.0f} s", flush=True)

    model.add_callback("on_model_save", export_epoch)
    if args.keep_batchnorm:
        def keep_batchnorm(trainer: Any) -> None:
            for module in trainer.model.modules():
                if isinstance(module, torch.nn.BatchNorm2d):
                    module.eval()

        model.add_callback("on_train_batch_start", keep_batchnorm)
    model.train(data=str(data_yaml), epochs=args.epochs, imgsz=512, batch=16, device="cpu", workers=0, amp=False,
                optimizer="SGD", lr0=args.lr0, lrf=args.lrf, warmup_epochs=args.warmup, mosaic=args.mosaic,
                close_mosaic=args.close_mosaic, degrees=5.0, seed=0, deterministic=True,
                project=str(args.out.resolve()), name="run", exist_ok=True, plots=False, val=False, verbose=False)
    print(f"trained in {time.time() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
