"""int8 copies of a models folder's finder and classifier, for small CPUs (onnxruntime static quantization).

    python -m training.quantize --models models --art ART --out DIR [--scenes 40] [--seed 4900] [--keep-float PREFIX ...]
                                [--members] [--classifier]

ART: an artwork folder in the form of the one `datasets/fake_art.py` writes (`datasets.art`: one folder per set with
its mapping.tsv).

Writes DIR: every file of the models folder, with `detector.onnx` replaced by an int8 copy (with `--members`
the classifier's members alone too, `classifier_small.onnx` and `classifier_large.onnx`, which the runtime reads
with when the version is not calibrated; with `--classifier` `classifier.onnx` too). QDQ: int8 weights per output channel, uint8 activations whose
ranges are taken from `--scenes` synthetic photos of `datasets.synth` drawn from `--seed` (and `--photos`):
the central `--percentile` % of each activation's values (100: min to max); the finder sees their
letterboxed canvases, the classifier the crops the runtime cuts from the finder's boxes. The tail of each
graph, every node with no convolution after it, stays float: the finder's last convolutions and box
decoding (one scale cannot carry box corners in pixels and class scores in [0, 1]: quantized, every score
read 0) and the classifier's pooling, linear layer, softmax and ensemble mean. The classifier is float
by default because `vision calibrate` bakes a club's few-shot head into its float graph. The metadata is
kept, with `mcr_quantized` added; the pair is loaded by `vision.detector.TileDetector` before the command
reports success.

The shipped finder and members are this command's output for the export of `models/detector.pt` (`python -m
training.export --detector models/detector.pt --out M`, `classifier.onnx` copied beside it and its float members
written by `python -m training.export --members --out M`), with `--keep-float /model.0/ --members`,
`--art` the training artwork (`docs/synthetic-data.md`), `--photos` every 8th photo of chinese-v4's train split
(the real photos named in `models/base/README.md`), the first 24, and the defaults; its figures are in
models/MODEL_CARD.md.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from vision.settings import DetectorSettings

QUANTIZED_METADATA = "mcr_quantized"
CROP_BATCH = 32  # crops a calibration batch of the classifier holds
SETTINGS = DetectorSettings()


class QuantizeError(RuntimeError):
    """A models folder that cannot be quantized, said plainly."""


def float_tail(graph: Any) -> list[str]:
    """Names of the nodes with no convolution after them (the convolutions last in their path included)."""
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    conv_after: dict[str, bool] = {}

    def has_conv_after(node: Any) -> bool:
        if node.name not in conv_after:
            nexts = [n for out in node.output for n in consumers.get(out, [])]
            conv_after[node.name] = any(n.op_type == "Conv" or has_conv_after(n) for n in nexts)
        return conv_after[node.name]

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph.node)))
    return [node.name for node in graph.node if not has_conv_after(node)]


def kept_float(graph: Any, prefixes: tuple[str, ...]) -> list[str]:
    """Names of the nodes that start with one of `prefixes`; a prefix that names no node is refused."""
    names = [node.name for node in graph.node]
    for prefix in prefixes:
        if not any(name.startswith(prefix) for name in names):
            raise QuantizeError(f"--keep-float {prefix}: no node of the graph is named so (e.g. {names[0]})")
    return [name for name in names if name.startswith(prefixes)]


class _Batches:
    """onnxruntime's CalibrationDataReader over a list of input arrays."""

    def __init__(self, input_name: str, batches: list[np.ndarray]) -> None:
        self._items = iter([{input_name: b} for b in batches])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._items, None)

    def __iter__(self) -> Any:
        return self

    def __next__(self) -> dict[str, np.ndarray]:
        item = self.get_next()
        if item is None:
            raise StopIteration
        return item


def quantize_model(source: Path, target: Path, batches: list[np.ndarray], percentile: float | None = None,
                   keep_float: tuple[str, ...] = ()) -> None:
    """`source` as an int8 QDQ copy at `target`, activations calibrated on `batches`, its tail float (and every
    node whose name starts with one of `keep_float`); each activation's range min to max, or with `percentile`
    its central `percentile` % (outliers clipped)."""
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        model = onnx.load(str(prepared))
        quantize_static(str(prepared), str(target), _Batches(model.graph.input[0].name, batches),  # type: ignore[arg-type]
                        quant_format=QuantFormat.QDQ, per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax if percentile is None else CalibrationMethod.Percentile,
                        extra_options={} if percentile is None else {"CalibPercentile": percentile},
                        nodes_to_exclude=float_tail(model.graph) + kept_float(model.graph, keep_float))
    quantized, original = onnx.load(str(target)), onnx.load(str(source))
    del quantized.metadata_props[:]
    for prop in original.metadata_props:
        quantized.metadata_props.add(key=prop.key, value=prop.value)
    quantized.metadata_props.add(key=QUANTIZED_METADATA, value=f"int8 QDQ, activations from {len(batches)} batches")
    onnx.save(quantized, str(target))


def calibration_inputs(photos: list[np.ndarray], models: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The finder's input canvases of `photos` and the classifier's input batches of the crops the runtime cuts
    from the finder's face boxes (the float models of `models` find them)."""
    from vision.boxes import letterbox, to_network_input
    from vision.crops import cut_tiles
    from vision.detector import TileDetector

    detector = TileDetector.load(models, SETTINGS)
    canvases = [to_network_input(letterbox(photo, detector.finder.imgsz)[0][None]) for photo in photos]
    crops = []
    if detector.classifier is not None:
        for photo in photos:
            found = detector.find_boxes(photo)
            faces = found.xyxy[detector.is_face(found.classes)]
            crops.append(cut_tiles(photo, faces, detector.classifier.imgsz, SETTINGS))
    all_crops = np.concatenate(crops) if crops else np.zeros((0, 1, 1, 3), np.uint8)
    whole = max(len(all_crops) // CROP_BATCH * CROP_BATCH, len(all_crops) if len(all_crops) < CROP_BATCH else 0)
    # batches of one size: onnxruntime's percentile calibration stacks them (the last crops of a short batch are left)
    batches = [to_network_input(all_crops[i : i + CROP_BATCH]) for i in range(0, whole, CROP_BATCH)]
    return canvases, batches


def synthetic_photos(art: Path, scenes: int, seed: int, standing: int = 0) -> list[np.ndarray]:
    """`scenes` synthetic photos of finished hands (`datasets.synth.make_scene`), scene i from `seed` + i, and
    `standing` webcam photos of standing tiles (`datasets.synth.make_standing_scene`) from the seeds after them."""
    from datasets.art import load_art
    from datasets.synth import _hand_source, _scorer, make_scene, make_standing_scene

    sets = load_art(art)
    source, scorer = _hand_source(), _scorer()
    return ([make_scene(i, seed, sets, source, scorer).image for i in range(scenes)]
            + [make_standing_scene(scenes + i, seed, sets, source).image for i in range(standing)])


def quantize_folder(models: Path, out: Path, photos: list[np.ndarray], classifier_too: bool = False,
                    percentile: float | None = None, keep_float: tuple[str, ...] = (), members_too: bool = False,
                    ) -> list[Path]:
    """DIR `out` as a copy of `models` with its finder (with `members_too` the classifier's members alone beside it,
    with `classifier_too` its classifier) quantized on `photos`, the finder's nodes named by `keep_float` left
    float; the files written."""
    from vision.detector import TileDetector
    from vision.models import FEWSHOT_METADATA, read_metadata

    finder = models / SETTINGS.detector_file
    classifier = models / SETTINGS.classifier_file
    if not finder.is_file():
        raise QuantizeError(f"no finder at {finder}")
    if out.resolve() == models.resolve():
        raise QuantizeError("--out must be another folder than --models (the float models are kept)")
    if keep_float:
        import onnx

        kept_float(onnx.load(str(finder), load_external_data=False).graph, keep_float)  # a wrong name, before the calibration
    canvases, crop_batches = calibration_inputs(photos, models)
    out.mkdir(parents=True, exist_ok=True)
    for item in models.iterdir():
        if item.is_file():
            shutil.copy2(item, out / item.name)
    written = [out / finder.name]
    quantize_model(finder, out / finder.name, canvases, percentile, keep_float)
    members = [models / name for name in (SETTINGS.small_classifier_file, SETTINGS.large_classifier_file)]
    if members_too and not any(member.is_file() for member in members):
        raise QuantizeError(f"--members: no {members[0].name} or {members[1].name} in {models}")
    for member in members if members_too and crop_batches else []:
        if member.is_file():
            quantize_model(member, out / member.name, crop_batches, percentile)
            written.append(out / member.name)
    if classifier_too and classifier.is_file() and crop_batches:
        import onnxruntime as ort

        if FEWSHOT_METADATA in read_metadata(ort.InferenceSession(str(classifier), providers=["CPUExecutionProvider"])):
            print(f"{classifier.name} has a few-shot head: copied as it is", file=sys.stderr)
        else:
            quantize_model(classifier, out / classifier.name, crop_batches, percentile)
            written.append(out / classifier.name)
    TileDetector.load(out, SETTINGS)  # the class tables and input sizes still check
    return written


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.quantize", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, required=True, help="the models folder (detector.onnx, classifier.onnx)")
    parser.add_argument("--out", type=Path, required=True, help="folder the int8 copy is written to")
    parser.add_argument("--art", type=Path, required=True,
                        help="ART: the artwork folder the calibration scenes are drawn with (the form of "
                             "datasets/fake_art.py's)")
    parser.add_argument("--scenes", type=int, default=40, help="synthetic calibration photos (default 40)")
    parser.add_argument("--standing", type=int, default=0,
                        help="synthetic webcam photos of standing tiles added (default 0)")
    parser.add_argument("--percentile", type=float, default=99.99,
                        help="each activation's range: its central share in %% (default 99.99; 100: min to max)")
    parser.add_argument("--classifier", action="store_true",
                        help="quantize the classifier too (a version calibrated from it cannot bake its head: "
                             "`vision calibrate` needs the float classifier)")
    parser.add_argument("--members", action="store_true",
                        help="quantize the classifier's members alone too (what reads an uncalibrated version's "
                             "crops; calibration bakes its head into the float classifier.onnx, kept float)")
    parser.add_argument("--keep-float", action="append", default=[], metavar="PREFIX",
                        help="the finder's nodes whose names start with PREFIX stay float (e.g. /model.23/, the "
                             "detection head; /model.0/, the first convolution); repeatable")
    parser.add_argument("--seed", type=int, default=4900, help="scene i is drawn from seed + i (default 4900)")
    parser.add_argument("--photos", type=Path, nargs="*", default=[],
                        help="real photos added to the calibration (e.g. models/base/images/train/*.jpg)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from vision.images import ImageError, load_image

    try:
        photos = synthetic_photos(args.art, args.scenes, args.seed, args.standing)
        photos += [load_image(p) for p in args.photos]
        written = quantize_folder(args.models, args.out, photos, args.classifier,
                                  None if args.percentile >= 100 else args.percentile, tuple(args.keep_float),
                                  args.members)
    except (QuantizeError, ImageError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"int8 copies from {len(photos)} calibration photos: " + ", ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
