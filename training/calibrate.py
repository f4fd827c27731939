"""Learn a club's tile set from one photo of its calibration layout: no labeling.

    python -m vision calibrate PHOTO... [--models DIR] [--bonus LIST] [--base-val DATA]

The photo shows one tile of each face in rows (`docs/spec/calibration-layout.md`,
`tileset.calibration`). Steps, each reported on stderr:

1. Find the tiles with the version in use of DIR, group them into rows (`vision.rows`) and name
   each by its row and place. A row or tile missing or extra: an error naming the row and place,
   exit status 1, nothing written.
2. Cut crops of every tile from augmented copies of the photo (smaller, turned up to 15 degrees,
   tilted, sideways, other light, glare, blur, noise, JPEG), boxed by the tile finder on each
   copy and cut exactly as the runtime cuts them (`vision.crops`).
3. Few-shot head (`training.fewshot`): each face's prototype is the mean pooled feature of its
   crops; the blend with the classifier (temperature and share) is chosen on further copies,
   never worse crop by crop on the base val data than the classifier alone.
   `--method finetune`: instead, the classifier's .pt is fine-tuned on the crops mixed with labeled
   crops of the base train photos (ultralytics on the CPU, time-boxed) and exported as `training.adapt`
   does (an ensemble keeps its other members); `--method both`: the head on the fine-tuned classifier.
   `--method auto`: the fine-tune, kept when it would be promoted (step 4); else the
   few-shot head on the version in use, from the same crops, judged by the same rule. Without the .pt
   or ultralytics (the train extra): the few-shot head.
   The default is `--method fewshot`: the fine-tune read no measured set better than the head, and takes
   a minute more.
4. Write a version of DIR (`vision.registry`): the classifier with the head inside, its card
   (photos, command, figures before and after). It becomes the version in use only when it reads
   the calibration photos exactly and reads the base val photos no worse than the version in use.

Prints one JSON line last on stdout: {"version", "promoted", "seconds", "before", "after", "issues", "reason",
"method" (the one kept), "method_asked"}.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tileset.calibration import LayoutSpecError, parse_bonus
from training.augment import LearningCrops, learning_crops
from training.calibration_photos import CalibrationError, LayoutProblem, Pictures, read_photos
from training.classifier_tune import FineTune, tune_classifier_for
from training.fewshot import PROTOTYPES_FILE, FewShotHead, bake
from training.finder_tune import finder_for_version, missed_by_finder
from training.head import BlendChoice, Embedder, HeadData, learn_head
from training.promotion import BasePhotos, Verdict, base_figures, base_photos, base_train_photos, figures_before_after, judge
from training.version_card import VersionMade, calibration_card, write_card
from vision.calibration_layout import LaidTile, LayoutReading
from vision.detector import TileDetector
from vision.registry import EARLIER_SET_CLASSIFIER, Registry, RegistryError
from vision.settings import BASE_PHOTOS_DIR, MODELS_DIR, CalibrateSettings, DetectorSettings, with_overrides

DEFAULT = CalibrateSettings()
DEFAULT_BASE_VAL = BASE_PHOTOS_DIR
BASE_CLASSIFIER = DetectorSettings.base_classifier_file  # a calibrated version keeps the classifier it was made from
PHOTOS_DIR = "photos"
# --method: the few-shot head, a fine-tuned classifier, the head on the fine-tuned classifier, or auto (the module
# doc); why the head is the default: docs/notebook.md
METHODS = ("auto", "fewshot", "finetune", "both")
DEFAULT_METHOD = "fewshot"
# fine-tune the finder on every calibration, only when it missed tiles of the photos, or never
FINDER_CHOICES = ("always", "missed", "never")


@dataclass(frozen=True)
class CalibrationResult:
    version: str
    promoted: bool
    reason: str
    seconds: float
    before: dict[str, Any]
    after: dict[str, Any]
    issues: tuple[str, ...] = field(default=())
    method: str = "fewshot"  # the one the version was made with
    method_asked: str = ""  # auto: the fine-tune or, when it would not be promoted, the few-shot head
    tiles: tuple[tuple[dict[str, Any], ...], ...] = ()  # per photo: `tile_readings`

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "promoted": self.promoted, "seconds": round(self.seconds, 1),
                "before": self.before, "after": self.after, "issues": list(self.issues), "reason": self.reason,
                "method": self.method, "method_asked": self.method_asked or self.method,
                "tiles": [list(photo) for photo in self.tiles]}


def tile_readings(before: Sequence[LayoutReading], after: Sequence[LayoutReading]
                  ) -> tuple[tuple[dict[str, Any], ...], ...]:
    """Per photo, each tile of the layout: its row, place and face, and the face the version in use (`before`)
    and the new version (`after`) read on it, each with its confidence. The new version reads the same tiles
    (`vision.calibration_layout.reread`), in the same order."""
    return tuple(tuple({"row": old.row, "place": old.place, "expected": old.expected,
                        "before": old.read_as, "before_confidence": round(old.confidence, 4),
                        "after": new.read_as, "after_confidence": round(new.confidence, 4),
                        "xyxy": [round(v, 1) for v in old.xyxy]}
                       for old, new in zip(first.tiles, second.tiles, strict=True))
                 for first, second in zip(before, after, strict=True))


def calibrate(photos: Sequence[Path], *, models_root: Path = MODELS_DIR, bonus: tuple[str, ...] | None = None,
              base_val: Path | None = DEFAULT_BASE_VAL, settings: CalibrateSettings = DEFAULT,
              detector_settings: DetectorSettings = DetectorSettings(), name: str = "calibrated", seed: int = 0,
              command: str = "", log: Callable[[str], None] = print,
              progress: Callable[[float, str], None] | None = None,
              layouts: Sequence[LayoutReading] | None = None, method: str = DEFAULT_METHOD,
              finder: str = "missed") -> CalibrationResult:
    """Learn the set shown in `photos` (see the module doc); raises LayoutProblem before writing anything
    when a photo does not show the layout. `layouts`: each photo's tiles as a person confirmed them (e.g.
    `read_unordered`), instead of reading the layout. `method` (METHODS): the few-shot head on the
    classifier, the classifier's .pt fine-tuned on the crops, the head on the fine-tuned classifier, or
    auto: the fine-tune when it would be promoted, else the few-shot head (one version is written).
    `finder` (FINDER_CHOICES): fine-tune the finder too (`training.finder_tune`, on copies of the photos and
    scenes of their tiles at play, kept only when it finds more with no more false boxes) on every calibration,
    or only when it boxed some tiles of the photos only below its threshold, or never."""
    started = time.monotonic()
    step = _reporter(started, log, progress)
    _check_choices(photos, method, finder)
    registry = Registry(models_root)
    parent, parent_dir = registry.active_name(), registry.active_dir()
    detector = _detector_with_classifier(parent, parent_dir, detector_settings)
    pictures = read_photos(detector, photos, bonus, layouts)
    before = [reading for _, reading in pictures]
    before_accuracy = float(np.mean([r.read_accuracy for r in before]))
    missed = sum(missed_by_finder(detector, picture, _boxes(reading.tiles)) for picture, reading in pictures)
    step(0.1, _photos_report(len(photos), before, before_accuracy, missed, parent))
    source = _classifier_source(parent_dir, detector_settings)
    embedder = Embedder(source, detector_settings.intra_op_threads)
    crops = learning_crops(detector, pictures, settings, seed, step)
    step(0.5, _crops_report(crops))
    issues: list[str] = []
    base = base_photos(base_val, settings, issues)
    weights = parent_dir / (Path(detector_settings.classifier_file).stem + ".pt")
    kept, why = _method_to_run(method, weights, parent)
    with tempfile.TemporaryDirectory(prefix="mcr_calibrate_") as scratch:
        run = _Run(parent, parent_dir, pictures, source, crops, base, detector_settings, settings, seed, step,
                   Path(scratch), HeadData(crops, parent_dir, base.thresholds, detector_settings,
                                           detector.face_classifier.imgsz))
        tune = None if kept == "fewshot" else _classifier_tuned(run, method, weights, embedder.names, issues, log)
        head = _head_learned(run, kept, tune, embedder)
        version_dir = registry.new_version_dir(name)
        try:
            _write_models(run, version_dir, head, tune, kept, photos)
            base_old = base_figures(registry, parent_dir, detector, base.checked, detector_settings)
            finder_card = (finder_for_version(run.work, parent_dir, detector, pictures, missed, base, base_old, settings,
                                              seed, issues, step, version_dir)
                           if finder == "always" or (finder == "missed" and missed) else None)
            made = VersionMade(kept, why, _judge(run, version_dir, base_old), None if head is None else head.choice,
                               None if head is None else head.head, tune=tune)
            made = _settled(run, made, method, version_dir, base_old, embedder)
            figures = figures_before_after(before_accuracy, made.verdict, base_old)
            seconds = time.monotonic() - started
            write_card(version_dir, calibration_card(
                name=version_dir.name, parent=parent, command=command, seconds=seconds, photos=photos, bonus=bonus,
                before=before, figures=figures, method_asked=method, made=made, crops=crops, settings=settings,
                weights=f"{parent}/{weights.name}", finder=finder_card, base=base,
                base_old=base_old, issues=issues))
        except BaseException:
            shutil.rmtree(version_dir, ignore_errors=True)  # a half-made version is never listed
            raise
    verdict = made.verdict
    if verdict.promote:
        registry.activate(version_dir.name)
    step(1.0, f"[calibrate 5/5] {'promoted' if verdict.promote else 'not promoted'}: {verdict.reason}; version "
              f"{version_dir.name}, method {made.kept}{f' ({made.why})' if method == 'auto' else ''}")  # `step` adds the time
    return CalibrationResult(version_dir.name, verdict.promote, verdict.reason, seconds, *figures, tuple(issues),
                             made.kept, method, tile_readings(before, verdict.after))


@dataclass(frozen=True)
class _Run:
    """What the steps of one calibration read."""

    parent: str  # the version in use
    parent_dir: Path
    pictures: Pictures
    source: Path  # the classifier the version in use was made from (its own without a head)
    crops: LearningCrops
    base: BasePhotos
    detector_settings: DetectorSettings
    settings: CalibrateSettings
    seed: int
    step: Callable[[float, str], None]
    work: Path  # scratch, gone when the calibration ends
    head_data: HeadData


class _Head(NamedTuple):
    choice: BlendChoice
    head: FewShotHead
    baked: Path  # the classifier with the head inside


def _reporter(started: float, log: Callable[[str], None],
              progress: Callable[[float, str], None] | None) -> Callable[[float, str], None]:
    """A step's line to `log` with the seconds since `started`, and its share of the work to `progress`."""
    def step(share: float, text: str) -> None:
        first, _, rest = text.partition("\n")
        log(f"{first} ({time.monotonic() - started:.0f} s)" + (f"\n{rest}" if rest else ""))
        if progress is not None:
            progress(share, text)

    return step


def _check_choices(photos: Sequence[Path], method: str, finder: str) -> None:
    if not photos:
        raise CalibrationError("no photo given")
    if method not in METHODS:
        raise CalibrationError(f"unknown method {method!r}: one of {', '.join(METHODS)}")
    if finder not in FINDER_CHOICES:
        raise CalibrationError(f"unknown finder choice {finder!r}: one of {', '.join(FINDER_CHOICES)}")


def _detector_with_classifier(parent: str, parent_dir: Path, settings: DetectorSettings) -> TileDetector:
    detector = TileDetector.load(parent_dir, settings)
    if detector.model_info.classifier_imgsz is None:
        raise CalibrationError(f"{parent} has no face classifier (a single 43-class detector): nothing to calibrate")
    return detector


def _boxes(tiles: Sequence[LaidTile]) -> np.ndarray:
    return np.array([t.xyxy for t in tiles], np.float32).reshape(-1, 4)


def _classifier_source(parent_dir: Path, settings: DetectorSettings) -> Path:
    base = parent_dir / BASE_CLASSIFIER
    return base if base.is_file() else parent_dir / settings.classifier_file


def _photos_report(photos: int, before: Sequence[LayoutReading], accuracy: float, missed: int, parent: str) -> str:
    return (f"[calibrate 1/5] {photos} photo(s), {sum(len(r.tiles) for r in before)} tiles in place"
            f"{f' ({missed} of them boxed by the finder only below its threshold)' if missed else ''}; "
            f"version in use ({parent}) reads {accuracy:.2%} of them right"
            + "".join(f"\n  {line}" for r in before for line in r.misread))


def _crops_report(crops: LearningCrops) -> str:
    return f"[calibrate 2/5] {len(crops.train)} crops to learn from, {len(crops.check)} to choose the blend with"


def _method_to_run(method: str, weights: Path, parent: str) -> tuple[str, str]:
    """The method to make the version with, and why: auto tries the fine-tune where it can run."""
    if method != "auto":
        return method, f"--method {method}"
    if not weights.is_file():
        return "fewshot", f"no fine-tune: {parent} has no {weights.name}; the few-shot head"
    if importlib.util.find_spec("ultralytics") is None:
        return "fewshot", "no fine-tune: ultralytics (the train extra) is not installed; the few-shot head"
    return "finetune", ""


def _classifier_tuned(run: _Run, method: str, weights: Path, names: Sequence[str], issues: list[str],
                      log: Callable[[str], None]) -> FineTune:
    if not weights.is_file():
        raise CalibrationError(f"--method {method} fine-tunes the classifier's PyTorch weights: {run.parent} "
                               f"has no {weights.name}")
    base_train = base_train_photos(run.base, run.settings.finetune_base_images, issues, "the fine-tune")
    return tune_classifier_for(run.work, weights, run.source, names, run.head_data.crop_size, run.crops, base_train,
                               run.detector_settings, run.settings, run.seed, run.step, log)


def _head_learned(run: _Run, kept: str, tune: FineTune | None, embedder: Embedder) -> _Head | None:
    """The few-shot head, unless the method is the fine-tune alone: on the fine-tuned classifier (both), else
    on the version in use's."""
    if kept == "finetune":
        return None
    classifier = run.source if tune is None else tune.onnx
    if tune is not None and kept == "both":  # the head reads the fine-tuned classifier's features
        embedder = Embedder(tune.onnx, run.detector_settings.intra_op_threads)
    return _head_baked(run, embedder, classifier, "[calibrate 3/5]")


def _head_baked(run: _Run, embedder: Embedder, classifier: Path, label: str) -> _Head:
    """The few-shot head on `classifier` (read by `embedder`), baked into a copy of it."""
    choice, head = learn_head(embedder, run.head_data, run.settings, run.seed, run.step, label)
    target = run.work / "with_head.onnx"
    bake(classifier, head, target, base_output=classifier == run.source)  # the graph reads other sets as before
    return _Head(choice, head, target)


def _write_models(run: _Run, version_dir: Path, head: _Head | None, tune: FineTune | None, kept: str,
                  photos: Sequence[Path]) -> None:
    """The version in use's models but its classifiers, the classifier it was made from, the new classifier
    (the fine-tuned one, or with the head inside), the head, and the photos."""
    files = run.detector_settings
    for model_file in sorted(run.parent_dir.glob("*.onnx")) + sorted(run.parent_dir.glob("*.pt")):
        if model_file.name not in (BASE_CLASSIFIER, files.classifier_file, EARLIER_SET_CLASSIFIER):
            shutil.copy2(model_file, version_dir / model_file.name)
    shutil.copy2(run.source, version_dir / BASE_CLASSIFIER)
    if head is not None:
        classifier = head.baked
    else:
        classifier = run.source if tune is None else tune.onnx
    shutil.copy2(classifier, version_dir / files.classifier_file)
    if head is not None:
        head.head.save(version_dir / PROTOTYPES_FILE)
    (version_dir / PHOTOS_DIR).mkdir()
    for index, photo in enumerate(photos):
        shutil.copy2(photo, version_dir / PHOTOS_DIR / f"{index + 1:02d}_{Path(photo).name}")


def _judge(run: _Run, version_dir: Path, base_old: dict[str, Any] | None) -> Verdict:
    return judge(version_dir, run.pictures, run.detector_settings, run.base, base_old, run.step)


def _settled(run: _Run, made: VersionMade, method: str, version_dir: Path, base_old: dict[str, Any] | None,
             source_embedder: Embedder) -> VersionMade:
    """The version as it stays: auto's fine-tune when it would be promoted, else the few-shot head."""
    if method != "auto" or made.kept != "finetune":
        return made
    if made.verdict.promote:
        return replace(made, why="the fine-tune would be promoted")
    return _head_instead_of_fine_tune(run, made, version_dir, base_old, source_embedder)


def _head_instead_of_fine_tune(run: _Run, made: VersionMade, version_dir: Path, base_old: dict[str, Any] | None,
                               source_embedder: Embedder) -> VersionMade:
    """The few-shot head on the version in use, from the same crops, judged by the same rule."""
    refused = made.verdict
    run.step(0.85, f"[calibrate 4/5] the fine-tune would not be promoted ({refused.reason}): "
                   f"the few-shot head on {run.parent}'s classifier instead")
    head = _head_baked(run, source_embedder, run.source, "[calibrate 4/5]")
    shutil.copy2(head.baked, version_dir / run.detector_settings.classifier_file)
    head.head.save(version_dir / PROTOTYPES_FILE)
    return VersionMade("fewshot", f"the fine-tune would not be promoted: {refused.reason}",
                       _judge(run, version_dir, base_old), head.choice, head.head, made.tune, refused)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision calibrate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("photos", nargs="+", type=Path, metavar="PHOTO", help="photos of the calibration layout")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default: %(default)s)")
    parser.add_argument("--bonus", default=None, metavar="LIST",
                        help="the bonus tiles of row 5 when the set has only some (e.g. f1,f2,f3,f4), or none")
    parser.add_argument("--base-val", type=Path, default=DEFAULT_BASE_VAL,
                        help="labeled dataset of another set (train and val splits) whose val photos the new version "
                             "must read no worse and whose train photos' crops gate the head (default: the shipped "
                             "%(default)s; skipped, with an issue said, when absent)")
    parser.add_argument("--tiles", type=Path, default=None, metavar="JSON",
                        help="the tiles of each photo as a person confirmed them (the app's one-of-each fallback): "
                             "a JSON list, per photo, of {row, place, expected, read_as, confidence, xyxy}")
    parser.add_argument("--views", type=int, default=DEFAULT.views, help="augmented copies per photo to learn from")
    parser.add_argument("--method", choices=METHODS, default=DEFAULT_METHOD,
                        help="fewshot: a few-shot head baked into the classifier; finetune: the classifier's .pt "
                             "fine-tuned on the photo's crops mixed with base data (ultralytics, time-boxed); both: "
                             "the head on the fine-tuned classifier; auto: the fine-tune when it "
                             "would be promoted, else the few-shot head (default: %(default)s)")
    parser.add_argument("--finder", choices=FINDER_CHOICES, default="missed",
                        help="fine-tune the tile finder too when it boxed tiles of the photos only below its "
                             "threshold (kept only when it then finds more with no more false boxes), or never")
    parser.add_argument("--name", default="calibrated", help="label in the new version's name")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="overrides",
                        help="a calibration setting for this run (vision.settings.CalibrateSettings, e.g. "
                             "finetune_freeze=8); repeatable")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = "python -m vision calibrate " + " ".join(sys.argv[2:] if argv is None else argv)
    try:
        bonus = parse_bonus(args.bonus)
    except LayoutSpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        settings = with_overrides(replace(DEFAULT, views=args.views), args.overrides)
    except ValueError as error:
        print(f"error: --set {error}", file=sys.stderr)
        return 2
    if settings.views < 1:  # --views, or --set views=
        print("error: --views must be at least 1", file=sys.stderr)
        return 2
    layouts = None
    if args.tiles is not None:
        try:
            layouts = [LayoutReading(tuple(LaidTile(int(t["row"]), int(t["place"]), str(t["expected"]),
                                                    str(t["read_as"]), float(t["confidence"]),
                                                    tuple(float(v) for v in t["xyxy"]))  # type: ignore[arg-type]
                                           for t in photo), ())
                       for photo in json.loads(args.tiles.read_text(encoding="utf-8"))]
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"error: --tiles {args.tiles}: {error}", file=sys.stderr)
            return 2
    try:
        result = calibrate(args.photos, models_root=args.models, bonus=bonus, base_val=args.base_val,
                           settings=settings, name=args.name, seed=args.seed,
                           command=command, log=lambda line: print(line, file=sys.stderr, flush=True),
                           layouts=layouts, method=args.method, finder=args.finder)
    except LayoutProblem as error:
        print(f"error: {error.photo} does not show the calibration layout; nothing was written:", file=sys.stderr)
        for problem in error.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    except (CalibrationError, RegistryError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        if type(error).__name__ in ("ModelLoadError", "ClassTableMismatch", "ImageError", "DatasetError",
                                    "FewShotError", "ExportError"):
            print(f"error: {error}", file=sys.stderr)
            return 2
        raise
    print(json.dumps(result.to_json(), ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
