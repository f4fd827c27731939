"""The classifier's .pt fine-tuned on a calibration's crops (`calibrate --method finetune|both`):
mixed with labeled crops of the base train photos, time-boxed, with ultralytics on the CPU, exported as
`training.adapt` exports (an ensemble keeps its other members)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from training.augment import LearningCrops, labeled_base_crops
from training.calibration_photos import CalibrationError
from training.head import Embedder
from training.onnx_graph import ensemble_members, member_graph, onnx_metadata
from vision.settings import CalibrateSettings, DetectorSettings


def write_crop_folder(folder: Path, names: Sequence[str], splits: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
    """FOLDER/{split}/<face name>/*.png, the layout ultralytics classifies from; every face gets a folder,
    and a split without a crop of a face borrows one from another split (its figures mean nothing)."""
    from tileset.classes import CLASS_NAMES

    for split, (crops, labels) in splits.items():
        for name in names:
            (folder / split / name).mkdir(parents=True, exist_ok=True)
        for k, (crop, label) in enumerate(zip(crops, labels, strict=False)):
            cv2.imwrite(str(folder / split / CLASS_NAMES[int(label)] / f"{k:06d}.png"), crop)
    for name in names:
        for split in splits:
            if not any((folder / split / name).iterdir()):
                donor = next((f for other in splits for f in sorted((folder / other / name).glob("*.png"))), None)
                if donor is None:
                    raise CalibrationError(f"no crop of {name} to fine-tune with (neither the photo nor the base data)")
                shutil.copy(donor, folder / split / name / f"lent_{donor.name}")




@dataclass(frozen=True)
class FineTune:
    onnx: Path  # the fine-tuned classifier, an ensemble again when the source was one
    checkpoint: Path
    epochs: int
    batches: int  # training steps run (a busy CPU ends the epoch running at the time box)
    train_crops: int  # the photo's crops
    base_crops: int  # labeled base crops mixed in
    seconds: float
    check_accuracy: float  # held-out copies of the photo, crop by crop, with the fine-tuned classifier alone
    classifier_check_accuracy: float  # ... with the classifier it started from


def finetune_classifier(work: Path, weights: Path, source_onnx: Path, names: Sequence[str], imgsz: int,
                        train: tuple[np.ndarray, np.ndarray], check: tuple[np.ndarray, np.ndarray],
                        base: tuple[np.ndarray, np.ndarray], settings: CalibrateSettings, seed: int,
                        log: Callable[[str], None]) -> FineTune:
    """Fine-tune `weights` (the version in use's classifier .pt, the largest member of an ensemble) on the
    photo's crops (canonical ids) mixed with labeled base crops, time-boxed, with ultralytics on the CPU;
    export it the way `training.adapt` does; an ensemble's other members are kept as they were."""
    from training.adapt import DEFAULT as ADAPT
    from training.export import _add_metadata, export_checkpoint, merge_classifiers
    from training.train import _ultralytics_environment, train_time_boxed, ultralytics_on_stderr

    started = time.monotonic()
    data = work / "crops"
    write_crop_folder(data, names, {"train": (np.concatenate([train[0], base[0]]), np.concatenate([train[1], base[1]])),
                                    "val": check})
    _ultralytics_environment()
    from ultralytics import YOLO

    with ultralytics_on_stderr():  # ultralytics keeps a frozen layer's BatchNorm statistics too
        run_done = train_time_boxed(
            YOLO(str(weights)), settings.finetune_seconds, settings.finetune_threads,
            data=str(data), epochs=settings.finetune_epochs,
            imgsz=imgsz, batch=settings.finetune_batch, device="cpu", workers=0, amp=False,
            optimizer=ADAPT.optimizer, lr0=settings.finetune_lr0, warmup_epochs=0, seed=seed,
            deterministic=True, project=str(work.resolve()), name="finetune", exist_ok=True, plots=False,
            patience=settings.finetune_epochs + 1, verbose=False, freeze=settings.finetune_freeze or None,
            fliplr=0.0, erasing=0.1, scale=0.1)  # as training.adapt: tiles are not mirror-symmetric
        run = work / "finetune" / "weights"
        checkpoint = run / "best.pt" if (run / "best.pt").is_file() else run / "last.pt"
        if not checkpoint.is_file():
            raise CalibrationError(f"fine-tuning the classifier left no checkpoint in {run}")
        epochs = run_done.epochs
        tuned = export_checkpoint(checkpoint, work / "finetuned_member.onnx", "classifier")
        members = ensemble_members(source_onnx)
        if members > 1:  # the .pt is member 0 (the largest input); the others stay as shipped
            others = [member_graph(source_onnx, k, work / f"member{k}.onnx") for k in range(1, members)]
            tuned = merge_classifiers([tuned, *others], work / "finetuned.onnx",
                                      [str(checkpoint), *(f"{source_onnx.name} member {k}" for k in range(1, members))])
            _add_metadata(tuned, {key: value for key, value in onnx_metadata(source_onnx).items()
                                  if key == "mcr_ensemble"})  # the kept members take the input at its size
    check_ids = check[1]
    accuracy = []
    for onnx_path in (source_onnx, tuned):
        embedder = Embedder(onnx_path, settings.finetune_threads)
        probs, _ = embedder(check[0])
        accuracy.append(float((embedder.to_canonical[probs.argmax(axis=1)] == check_ids).mean()))
    log(f"  fine-tuned {epochs} epoch(s) on {len(train[1])} crops of the photo + {len(base[1])} base crops "
        f"({time.monotonic() - started:.0f} s); held-out copies {accuracy[0]:.2%} -> {accuracy[1]:.2%} read right")
    return FineTune(tuned, checkpoint, epochs, run_done.batches, len(train[1]), len(base[1]), time.monotonic() - started,
                    accuracy[1], accuracy[0])




def tune_classifier_for(work: Path, weights: Path, source_onnx: Path, names: Sequence[str], imgsz: int,
                        crops: LearningCrops, base_train: Sequence[Path], detector_settings: DetectorSettings,
                        settings: CalibrateSettings, seed: int, step: Callable[[float, str], None],
                        log: Callable[[str], None]) -> FineTune:
    """The classifier fine-tuned on a calibration's crops and labeled crops of `base_train`
    (`finetune_base_images` of the base train photos), said on `step`."""
    labeled = labeled_base_crops(base_train, imgsz, detector_settings, seed)
    step(0.5, f"[calibrate 3/5] fine-tuning {weights.name} on {len(crops.train)} crops of the photo(s) + "
              f"{len(labeled[1])} labeled crops of {len(base_train)} base photos "
              f"(time box {settings.finetune_seconds:.0f} s)")
    return finetune_classifier(work, weights, source_onnx, names, imgsz, (crops.train, crops.train_labels),
                               (crops.check, crops.check_labels), labeled, settings, seed, log)
