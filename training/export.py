"""Export trained checkpoints to the ONNX files the runtime loads.

    python -m training.export --detector WORK/detector/weights/best.pt \
                            --classifier WORK/classifier/weights/best.pt --out models/

Writes OUT/detector.onnx (any canvas size: a photo runs on a canvas of its own shape, its long side the
training input size) and OUT/classifier.onnx (any batch, so all crops of a photo run at once).
ultralytics stores `names`, `imgsz`, `task`, `version` and `date` in the ONNX
metadata; this adds `mcr_role` and `mcr_source` (the checkpoint it came from),
then loads the pair with `vision.detector.TileDetector` to check the class
table before reporting success.

`--classifier` given more than once exports an ensemble as one classifier.onnx:
the crop comes in at the largest member's input size, is resized inside the
graph for smaller members, and the members' class probabilities are averaged,
so the runtime loads it like any classifier. Its smallest member is also written
alone, OUT/classifier_small.onnx, which the runtime reads every crop with first,
and for an ensemble of two the other one, OUT/classifier_large.onnx, which reads
the crops the small one is unsure of (`--members` writes them for an ensemble
exported before).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from tileset.classes import ClassTableMismatch
from vision.detector import TileDetector
from vision.models import ModelLoadError, class_names_of, input_size_of, open_session, read_metadata
from vision.settings import DetectorSettings

SETTINGS = DetectorSettings()


class ExportError(RuntimeError):
    """A checkpoint that cannot be exported."""


def _set_metadata(model: Any, extra: dict[str, str]) -> None:
    """Set (or add) metadata entries of an ONNX ModelProto."""
    present = {p.key: p for p in model.metadata_props}
    for key, value in extra.items():
        prop = present.get(key) or model.metadata_props.add()
        prop.key, prop.value = key, value


def _add_metadata(onnx_path: Path, extra: dict[str, str]) -> None:
    import onnx

    model = onnx.load(str(onnx_path))
    _set_metadata(model, extra)
    onnx.save(model, str(onnx_path))


def export_checkpoint(checkpoint: Path, target: Path, role: str) -> Path:
    """One ultralytics checkpoint -> ONNX at `target` (CPU, simplified), its input size free: a classifier reads a
    photo's crops in one batch, a finder runs on a canvas only as large as the photo (`vision.boxes.letterbox`);
    the training input size stays in its metadata (`imgsz`)."""
    from training.train import _ultralytics_environment

    if not checkpoint.is_file():
        raise ExportError(f"no checkpoint at {checkpoint}")
    _ultralytics_environment()
    from ultralytics import YOLO

    # ultralytics writes the ONNX beside the checkpoint: export from a private copy, so that exporting
    # models/detector.pt elsewhere never overwrites the models/detector.onnx shipped next to it
    with tempfile.TemporaryDirectory(prefix="mcr_export_") as scratch:
        private = Path(scratch) / f"{role}.pt"
        shutil.copyfile(checkpoint, private)
        written = Path(YOLO(str(private)).export(format="onnx", dynamic=True, simplify=True, device="cpu", batch=1))
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.partial")
        shutil.copyfile(written, partial)
        _add_metadata(partial, {"mcr_role": role, "mcr_source": str(checkpoint)})
        os.replace(partial, target)
    print(f"{role}: {checkpoint} -> {target} ({target.stat().st_size / 1e6:.1f} MB)", flush=True)
    return target


def merge_classifiers(members: list[Path], target: Path, sources: list[str]) -> Path:
    """One ONNX classifier averaging the class probabilities of `members` (same class table)."""
    import onnx
    from onnx import TensorProto, compose, helper, numpy_helper

    models = [onnx.load(str(m)) for m in members]
    # read as the runtime reads them, so the ensemble is checked by the runtime's own rules
    sessions = [open_session(m, SETTINGS) for m in members]
    metas = [read_metadata(session) for session in sessions]
    if any(class_names_of(meta, str(m)) != class_names_of(metas[0], str(members[0])) for meta, m in zip(metas, members, strict=False)):
        raise ExportError("the classifiers of an ensemble must have the same class table in the same order")
    sizes = [input_size_of(meta, session, str(m)) for meta, session, m in zip(metas, sessions, members, strict=False)]
    size = max(sizes)
    opset = max(op.version for m in models for op in m.opset_import if op.domain in ("", "ai.onnx"))
    nodes, initializers, outputs = [], [], []
    for k, (model, member_size) in enumerate(zip(models, sizes, strict=False)):
        graph = compose.add_prefix(model, f"m{k}_").graph
        if member_size == size:
            nodes.append(helper.make_node("Identity", ["images"], [graph.input[0].name]))
        else:
            scale = numpy_helper.from_array(np.array([1, 1, member_size / size, member_size / size], np.float32),
                                            f"m{k}_scales")
            initializers.append(scale)
            nodes.append(helper.make_node("Resize", ["images", "", scale.name], [graph.input[0].name],
                                          mode="linear", antialias=1))
        nodes.extend(graph.node)
        initializers.extend(graph.initializer)
        outputs.append(graph.output[0].name)
    nodes.append(helper.make_node("Mean", outputs, ["output0"]))
    initializers, casts = _stored_as_half(initializers)
    classes = models[0].graph.output[0].type.tensor_type.shape.dim[-1].dim_value
    merged = helper.make_model(
        helper.make_graph(
            casts + nodes, "classifier_ensemble",
            [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
            [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", classes])],
            initializer=initializers,
        ),
        opset_imports=[helper.make_opsetid("", max(opset, 18))],  # Resize antialias needs opset 18
    )
    merged.ir_version = models[0].ir_version
    onnx.checker.check_model(merged)
    meta = {p.key: p.value for p in models[sizes.index(size)].metadata_props}
    meta.update({"imgsz": f"[{size}, {size}]", "mcr_role": "classifier",
                 "mcr_source": " + ".join(sources), "mcr_ensemble": " + ".join(f"{n} px" for n in sizes)})
    _set_metadata(merged, meta)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    onnx.save(merged, str(partial))
    os.replace(partial, target)
    print(f"classifier ensemble ({meta['mcr_ensemble']}) -> {target} ({target.stat().st_size / 1e6:.1f} MB)", flush=True)
    return target


def _stored_as_half(initializers: list[Any], min_size: int = 16) -> tuple[list[Any], list[Any]]:
    """Float weights stored as float16 with a Cast back to float32 in front.

    Halves the file (an ultralytics checkpoint holds its weights in float16 anyway, so nothing is
    lost against it); onnxruntime folds the casts when the session starts, so inference runs in
    float32 as before.
    """
    from onnx import TensorProto, helper, numpy_helper

    kept, casts = [], []
    for init in initializers:
        if init.data_type != TensorProto.FLOAT or int(np.prod(init.dims)) < min_size:
            kept.append(init)
            continue
        half = numpy_helper.from_array(numpy_helper.to_array(init).astype(np.float16), f"{init.name}_fp16")
        kept.append(half)
        casts.append(helper.make_node("Cast", [half.name], [init.name], to=TensorProto.FLOAT))
    return kept, casts


def export_classifiers(checkpoints: list[Path], target: Path) -> Path:
    """One checkpoint exported as is; several exported each and merged into one ensemble."""
    if len(checkpoints) == 1:
        return export_checkpoint(checkpoints[0], target, "classifier")
    with tempfile.TemporaryDirectory(prefix="mcr_ensemble_") as scratch:
        members = [export_checkpoint(c, Path(scratch) / f"member{k}.onnx", "classifier")
                   for k, c in enumerate(checkpoints)]
        merged = merge_classifiers(members, target, [str(c) for c in checkpoints])
    write_members(merged)
    return merged


def write_members(classifier: Path) -> list[Path]:
    """The ensemble's members alone beside it (`DetectorSettings.small_classifier_file`, and for an ensemble of
    two `large_classifier_file`); the files written."""
    from training.onnx_graph import members_alone

    names = [SETTINGS.small_classifier_file, SETTINGS.large_classifier_file]
    partials = members_alone(classifier, *(classifier.with_name(f".{name}.partial") for name in names))
    written = []
    for partial in partials:
        final = partial.with_name(partial.name[1:].removesuffix(".partial"))
        os.replace(partial, final)
        print(f"member alone -> {final}", flush=True)
        written.append(final)
    return written


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.export", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--detector", type=Path, help="tile-finder (or 43-class detector) checkpoint .pt")
    parser.add_argument("--classifier", type=Path, action="append",
                        help="face classifier checkpoint .pt; repeat it to ship an ensemble of classifiers")
    parser.add_argument("--out", type=Path, default=Path("models"), help="folder for detector.onnx/classifier.onnx")
    parser.add_argument("--members", action="store_true",
                        help="write OUT/classifier_small.onnx and OUT/classifier_large.onnx from the ensemble "
                             "OUT/classifier.onnx (done with every ensemble export): the runtime reads crops with them")
    parser.add_argument("--no-check", action="store_true", help="skip loading the result with the runtime")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.detector and not args.classifier and not args.members:
        print("error: give --detector, --classifier and/or --members", file=sys.stderr)
        return 2
    try:
        if args.detector:
            export_checkpoint(args.detector, args.out / SETTINGS.detector_file, "detector")
        if args.classifier:
            export_classifiers(args.classifier, args.out / SETTINGS.classifier_file)
        elif args.members:
            write_members(args.out / SETTINGS.classifier_file)
        if not args.no_check:
            info = TileDetector.load(args.out).model_info
            print(f"runtime check passed: {info.to_json()}", flush=True)
    except (ExportError, ClassTableMismatch, ModelLoadError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
