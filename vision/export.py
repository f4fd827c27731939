"""Export trained checkpoints to the ONNX files the runtime loads.

    python -m vision.export --detector WORK/detector/weights/best.pt \
                            --classifier WORK/classifier/weights/best.pt --out models/

Writes OUT/detector.onnx (fixed batch 1, its training input size) and
OUT/classifier.onnx (dynamic batch, so all crops of a photo run at once).
ultralytics stores `names`, `imgsz`, `task`, `version` and `date` in the ONNX
metadata; this adds `mcr_role` and `mcr_source` (the checkpoint it came from),
then loads the pair with `vision.detector.TileDetector` to check the class
table before reporting success.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from datasets.classes import ClassTableMismatch
from vision.detector import ModelLoadError, TileDetector
from vision.settings import DetectorSettings

SETTINGS = DetectorSettings()


class ExportError(RuntimeError):
    """A checkpoint that cannot be exported."""


def _add_metadata(onnx_path: Path, extra: dict[str, str]) -> None:
    import onnx

    model = onnx.load(str(onnx_path))
    present = {p.key: p for p in model.metadata_props}
    for key, value in extra.items():
        prop = present.get(key) or model.metadata_props.add()
        prop.key, prop.value = key, value
    onnx.save(model, str(onnx_path))


def export_checkpoint(checkpoint: Path, target: Path, role: str, dynamic: bool) -> Path:
    """One ultralytics checkpoint -> ONNX at `target` at its training input size (CPU, simplified)."""
    from vision.train import _ultralytics_environment

    if not checkpoint.is_file():
        raise ExportError(f"no checkpoint at {checkpoint}")
    _ultralytics_environment()
    from ultralytics import YOLO

    # ultralytics writes the ONNX beside the checkpoint: export from a private copy, so that exporting
    # models/detector.pt elsewhere never overwrites the models/detector.onnx shipped next to it
    with tempfile.TemporaryDirectory(prefix="mcr_export_") as scratch:
        private = Path(scratch) / f"{role}.pt"
        shutil.copyfile(checkpoint, private)
        written = Path(YOLO(str(private)).export(format="onnx", dynamic=dynamic, simplify=True, device="cpu", batch=1))
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.partial")
        shutil.copyfile(written, partial)
        _add_metadata(partial, {"mcr_role": role, "mcr_source": str(checkpoint)})
        os.replace(partial, target)
    print(f"{role}: {checkpoint} -> {target} ({target.stat().st_size / 1e6:.1f} MB)", flush=True)
    return target


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision.export", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--detector", type=Path, help="tile-finder (or 43-class detector) checkpoint .pt")
    parser.add_argument("--classifier", type=Path, help="face classifier checkpoint .pt")
    parser.add_argument("--out", type=Path, default=Path("models"), help="folder for detector.onnx/classifier.onnx")
    parser.add_argument("--no-check", action="store_true", help="skip loading the result with the runtime")
    return parser


def main(argv: "list[str] | None" = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.detector and not args.classifier:
        print("error: give --detector and/or --classifier", file=sys.stderr)
        return 2
    try:
        if args.detector:
            export_checkpoint(args.detector, args.out / SETTINGS.detector_file, "detector", dynamic=False)
        if args.classifier:
            export_checkpoint(args.classifier, args.out / SETTINGS.classifier_file, "classifier", dynamic=True)
        if not args.no_check:
            info = TileDetector.load(args.out).model_info
            print(f"runtime check passed: {info.to_json()}", flush=True)
    except (ExportError, ClassTableMismatch, ModelLoadError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
