"""Whether a calibrated version becomes the version in use: it must read the calibration photos exactly and
the base val photos no worse than the version in use. Also which base photos check it and which set the
few-shot head's thresholds (never the same ones)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

import vision
from tileset.atomic_files import atomic_write_text
from training import evaluate as evaluation
from training.calibration_photos import Pictures
from training.train import spread
from vision.calibration_layout import LayoutReading, reread
from vision.detector import TileDetector
from vision.registry import Registry
from vision.settings import CalibrateSettings, DetectorSettings


@dataclass(frozen=True)
class BasePhotos:
    """The labeled base photos (another set, other tables) a calibration reads."""

    data: Path | None  # the dataset, when it is there
    val: list[Path]
    checked: list[Path]  # the promotion check reads them
    thresholds: list[Path]  # their crops set the few-shot head's and the table's thresholds


def base_photos(base_val: Path | None, settings: CalibrateSettings, issues: list[str]) -> BasePhotos:
    """The base photos of `base_val`; none, with an issue said, when it is not there."""
    val: list[Path] = []
    if base_val is not None and Path(base_val).exists():
        val = evaluation.dataset_images(Path(base_val), "val")
    elif base_val is not None:
        issues.append(f"no base val data at {base_val}: the base check was skipped")
    data = Path(base_val) if val and base_val is not None else None
    thresholds = threshold_photos(data, val, settings) if data is not None else []
    return BasePhotos(data, val, val[: settings.base_check_images], thresholds)


def threshold_photos(base_val: Path, base_images: Sequence[Path], settings: CalibrateSettings) -> list[Path]:
    """The base photos whose crops set the few-shot head's and the table's thresholds: none of the
    `base_check_images` the promotion check reads (a check on the photos that set the thresholds passes
    by construction). `threshold_split` train: `base_crops_images` photos spread over the base train
    split (else the val photos after the checked ones)."""
    if settings.threshold_split == "train":
        try:
            train = evaluation.dataset_images(base_val, "train")
        except Exception:  # a base dataset without a train split
            train = []
        if train:
            return spread(train, settings.base_crops_images)
    return list(base_images[settings.base_check_images: settings.base_check_images + settings.base_crops_images])


def base_train_photos(base: BasePhotos, count: int, issues: list[str], tuned: str) -> list[Path]:
    """`count` photos spread over the base train split, to mix into `tuned` (a fine-tune); none, with an
    issue said, without that split."""
    train: list[Path] = []
    if base.data is not None:
        try:
            train = evaluation.dataset_images(base.data, "train")
        except Exception as error:  # a base dataset without a train split: the photos' crops alone
            issues.append(f"no base train photos to mix into {tuned}: {error}")
    return spread(train, count)


def base_figures(registry: Registry, parent_dir: Path, detector: Any, images: Sequence[Path],
                 settings: DetectorSettings) -> dict[str, Any] | None:
    """The version in use's figures on the base val photos `images` (None without any), computed once per
    version, photos, settings and runtime code (kept in versions/.cache/): every calibration from it needs them."""
    if not images:
        return None
    stamp = [(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in sorted(parent_dir.glob("*.onnx"))]
    code_files = [f for folder in (Path(vision.__file__).parent, Path(__file__).parent) for f in sorted(folder.glob("*.py"))]
    code = hashlib.sha256(b"".join(f.read_bytes() for f in code_files)).hexdigest()
    key = hashlib.sha256(json.dumps([str(parent_dir.resolve()), stamp, [str(i) for i in images], asdict(settings),
                                     code], default=str).encode()).hexdigest()[:20]
    path = registry.versions_dir / ".cache" / f"base-{key}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    figures = evaluation.evaluate(detector, list(images)).summary()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(figures, default=str))
    return figures


@dataclass(frozen=True)
class Verdict:
    """How a new version reads the calibration photos and the base val photos, and whether it is promoted."""

    promote: bool
    reason: str
    after: tuple[LayoutReading, ...]
    accuracy: float  # of the calibration photos' tiles
    base_new: dict[str, Any] | None


def judge(folder: Path, pictures: Pictures, detector_settings: DetectorSettings, base: BasePhotos,
          base_old: dict[str, Any] | None, step: Callable[[float, str], None]) -> Verdict:
    """How the version in `folder` reads the calibration photos and the base val photos, and whether it
    would become the version in use."""
    new_detector = TileDetector.load(folder, detector_settings)
    after = tuple(reread(new_detector, picture, reading) for picture, reading in pictures)
    exact = all(r.ok and r.read_accuracy == 1.0 for r in after)
    accuracy = float(np.mean([r.read_accuracy for r in after]))
    step(0.8, f"[calibrate 4/5] the new version reads the calibration photo(s) {accuracy:.2%} right"
              + "".join(f"\n  {line}" for r in after for line in r.misread + list(r.problems)))
    base_new = None
    if base_old is not None:
        base_new = evaluation.evaluate(new_detector, base.checked).summary()
        step(0.95, f"  base val ({len(base.checked)} photos of {base.data}): read accuracy "
                   f"{base_old['read_accuracy']:.2%} -> {base_new['read_accuracy']:.2%}, "
                   f"precision {base_old['precision']:.2%} -> {base_new['precision']:.2%}")
    if not exact:
        return Verdict(False, "it does not read the calibration photo(s) exactly", after, accuracy, base_new)
    if base_old is not None and base_new is not None and (
            base_new["read_accuracy"] < base_old["read_accuracy"] or base_new["precision"] < base_old["precision"]):
        return Verdict(False, "it reads the base val photos worse than the version in use", after, accuracy, base_new)
    return Verdict(True, "it reads the calibration photo(s) exactly and the base val photos no worse", after,
                   accuracy, base_new)


def figures_before_after(before_accuracy: float, verdict: Verdict,
                         base_old: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The read accuracy of the calibration photos, and of the base val photos where checked, before and after."""
    before = {"read_accuracy": round(before_accuracy, 6)}
    after = {"read_accuracy": round(verdict.accuracy, 6)}
    if base_old is not None and verdict.base_new is not None:
        before["base_read_accuracy"] = round(base_old["read_accuracy"], 6)
        after["base_read_accuracy"] = round(verdict.base_new["read_accuracy"], 6)
    return before, after
