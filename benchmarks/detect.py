"""Speed and read accuracy of `vision detect` against the PyPI peer `mahjong-detector`, same images, same run.

    .venv/bin/python benchmarks/detect.py FOLDER [--split S] [--models DIR] [--limit N] [--resize 4032x3024]
                                             [--no-peer] [--no-cli] [--runs N] [--set FIELD=VALUE] [--json]

FOLDER holds images, or a YOLO dataset (`images/` + `labels/`, or a data YAML
with `--split`).  For every image both detectors read the file from disk and
return boxes in original pixels (decode included in the time).  Reported:
median, p90, max and mean milliseconds per image, images/s, the time of the whole
`python -m vision detect FOLDER/*` command and of the peer's loop over the same
images (the fastest of `--runs`, the two commands taking turns) and on one image
(the fastest of three; model loading and start-up included), our stage profile
(`vision.timing`: where a photo's time goes, and what `vision read` spends after
detection), and, where labels exist, both read accuracies on the 34 classes the
peer knows (tiles of other classes count neither way; see
`training.evaluate.restrict_to_classes`).

`--resize WxH` first writes every image, scaled up with its aspect kept and
set on a synthetic table surface, as a WxH JPEG (quality 92) to a temp folder:
the large-phone-photo case.  Goal (issue 49): our median and p90 at most the
peer's in the same run, on every real val and test photo and at 4032x3024, and
the whole command over a folder no slower than the peer's.  The
peer is the `dev` extra's `mahjong-detector`; where it is not installed, it is
installed with pip into a cache folder (`--no-deps`: it needs only numpy, Pillow
and onnxruntime); if that fails (no network) the report says so and goes on
with ours alone.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tileset.classes import CLASS_ID
from tileset.labelfiles import IMAGE_SUFFIXES
from training.evaluate import (
    Evaluation,
    dataset_images,
    label_path_for,
    match_tiles,
    read_truth,
    restrict_to_classes,
)
from vision.detections import Detections
from vision.read import read_detections
from vision.timing import STAGES, StageTimes, recording

OTHER = "other"  # the pipeline's own work between the stages (box decoding, NMS, the rules)

PEER_PACKAGE = "mahjong-detector==0.0.6"
PEER_DIR = Path(tempfile.gettempdir()) / "mcr_bench_peer"
PEER_NAMES = {"chun": "C", "haku": "P", "hatsu": "F", "nan": "S", "pe": "N", "sha": "W", "tou": "E"}
RIICHI_CLASSES = set(range(34))


def load_peer() -> tuple[Callable[[Path], Detections] | None, str]:
    """The peer's detector as path -> Detections (canonical ids), or None and why not."""
    if str(PEER_DIR) not in sys.path:
        sys.path.insert(0, str(PEER_DIR))
    try:
        peer = importlib.import_module("mahjong_detector")
    except ImportError:
        install = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(PEER_DIR), PEER_PACKAGE],
            capture_output=True, text=True,
        )
        if install.returncode != 0:
            return None, f"could not install {PEER_PACKAGE}: {install.stderr.strip().splitlines()[-1:]}"
        importlib.invalidate_caches()
        try:
            peer = importlib.import_module("mahjong_detector")
        except ImportError as error:
            return None, f"{PEER_PACKAGE} installed but does not import: {error}"
    from PIL import Image

    predict = importlib.import_module("mahjong_detector.predict")
    preprocess = importlib.import_module("mahjong_detector.preprocess")
    names = [PEER_NAMES.get(n, n) for n in predict.CLASS_NAMES]

    def detect(path: Path) -> Detections:
        image, padding = preprocess.preprocess_image(Image.open(path))
        found = predict.predict(image, padding)
        return Detections.from_lists(
            [[d.x1, d.y1, d.x2, d.y2] for d in found], [d.confidence for d in found],
            [CLASS_ID[names[d.class_id]] for d in found],
        )

    return detect, f"{PEER_PACKAGE} ({Path(peer.__file__).parent})"


def collect_images(folder: Path, split: str, limit: int | None) -> list[Path]:
    try:
        images = dataset_images(folder, split)
    except ValueError:
        images = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    return images[:limit] if limit else images


def _table(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A plausible table surface: smooth colour blotches plus sensor grain (JPEG size like a photo's)."""
    small = rng.integers(60, 160, (height // 64 + 2, width // 64 + 2, 3)).astype(np.uint8)
    surface = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC).astype(np.int16)
    surface += rng.integers(-6, 7, surface.shape, dtype=np.int16)
    return surface.clip(0, 255).astype(np.uint8)


def resized_copies(images: list[Path], size: tuple[int, int], out: Path) -> list[Path]:
    """Each image scaled up uniformly (aspect kept) into a WxH photo, the rest table; labels moved along.

    Stretching to a new aspect would make tiles wider than they are; padding keeps them as shot.
    """
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    width, height = size
    rng = np.random.default_rng(0)
    copies = []
    for i, image in enumerate(images):
        pixels = cv2.imread(str(image), cv2.IMREAD_COLOR)
        h, w = pixels.shape[:2]
        scale = min(width / w, height / h)
        new_w, new_h = round(w * scale), round(h * scale)
        left, top = (width - new_w) // 2, (height - new_h) // 2
        canvas = _table(width, height, rng)
        canvas[top : top + new_h, left : left + new_w] = cv2.resize(pixels, (new_w, new_h),
                                                                     interpolation=cv2.INTER_CUBIC)
        target = out / "images" / f"{i:04d}_{image.stem}.jpg"
        cv2.imwrite(str(target), canvas, [cv2.IMWRITE_JPEG_QUALITY, 92])
        label = label_path_for(image)
        if label.is_file():
            lines = []
            for row in label.read_text().splitlines():
                parts = row.split()
                if len(parts) < 5:
                    continue
                cx, cy, bw, bh = (float(v) for v in parts[1:5])
                lines.append(f"{parts[0]} {(left + cx * new_w) / width:.6f} {(top + cy * new_h) / height:.6f} "
                             f"{bw * new_w / width:.6f} {bh * new_h / height:.6f}")
            (out / "labels" / f"{target.stem}.txt").write_text("\n".join(lines) + "\n")
        copies.append(target)
    return copies


def _percentile(values: list[float], share: float) -> float:
    """The value below which `share` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered)) - 1))]


Detect = Callable[[Path], "tuple[Detections, tuple[int, int]]"]


class Timed:
    """One detector's times, reading and (`profile`) stage profile over the images it was given."""

    def __init__(self, name: str, detect: Detect, labeled: bool, profile: bool = False) -> None:
        self.name, self.detect, self.labeled, self.profile = name, detect, labeled, profile
        self.times: list[float] = []
        self.evaluation = Evaluation()
        self.detect_stages: list[StageTimes] = []
        self.read_stages: list[StageTimes] = []

    def read(self, image: Path) -> None:
        with recording() as stages:
            started = time.perf_counter()
            dets, (width, height) = self.detect(image)
            self.times.append(time.perf_counter() - started)
        if self.profile:
            stages.add(OTHER, self.times[-1] - stages.total())
            self.detect_stages.append(stages)
            with recording() as after:  # what `vision read` does next; not in the time compared with the peer
                read_detections(dets)
            self.read_stages.append(after)
        if self.labeled:
            truth, dets = restrict_to_classes(read_truth(image, width, height), dets, RIICHI_CLASSES)
            self.evaluation.add(match_tiles(truth, dets))

    def result(self) -> dict[str, Any]:
        times = self.times
        result: dict[str, Any] = {
            "detector": self.name,
            "images": len(times),
            "median_ms": round(1000 * statistics.median(times), 1),
            "p90_ms": round(1000 * _percentile(times, 0.9), 1),
            "max_ms": round(1000 * max(times), 1),
            "mean_ms": round(1000 * statistics.fmean(times), 1),
            "fastest_ms": round(1000 * min(times), 1),  # closest to an unloaded machine when the CPU is shared
            "images_per_s": round(len(times) / sum(times), 2),
        }
        if self.labeled:
            summary = self.evaluation.summary()
            result.update({f"{k}_34": summary[k] for k in ("read_accuracy", "recall", "precision")})
            result["labeled_tiles_34"] = summary["labeled_tiles"]
        if self.profile:
            result["stages"] = stage_profile(self.detect_stages, times)
            result["stages_after_detection"] = stage_profile(self.read_stages)
        return result


def run_detectors(timed: list[Timed], images: list[Path]) -> list[dict[str, Any]]:
    """Every detector on every image, taking turns image by image (the first one first on even images): on a
    shared machine the load changes within seconds, and each image's times meet the same load."""
    for t in timed:
        t.detect(images[0])  # warm-up: first-run allocations are not what a user waits for per photo
    for i, image in enumerate(images):
        for t in timed if i % 2 == 0 else timed[::-1]:
            t.read(image)
    results = [t.result() for t in timed]
    if len(timed) == 2:
        ratios = [a / b for a, b in zip(timed[0].times, timed[1].times, strict=False)]
        results[0]["median_ratio_per_image"] = round(statistics.median(ratios), 2)
    return results


def stage_profile(per_photo: list[StageTimes], photo_seconds: list[float] | None = None) -> list[dict[str, Any]]:
    """Per stage (`vision.timing.STAGES` order, then any other the pipeline named, then `OTHER`): milliseconds
    a photo (median, p90, max and mean over all photos, 0 where it did not run), the photos it ran in, its
    runs a photo, and its share of the mean photo time."""
    named = list(dict.fromkeys(n for t in per_photo for n in t.seconds))
    names = [n for n in STAGES if n in named] + [n for n in named if n not in STAGES and n != OTHER]
    names += [OTHER] if OTHER in named else []
    mean_photo = statistics.fmean(photo_seconds) if photo_seconds else None
    rows = []
    for name in names:
        ms = [1000 * t.seconds.get(name, 0.0) for t in per_photo]
        rows.append({
            "stage": name,
            "median_ms": round(statistics.median(ms), 1),
            "p90_ms": round(_percentile(ms, 0.9), 1),
            "max_ms": round(max(ms), 1),
            "mean_ms": round(statistics.fmean(ms), 1),
            "photos": sum(name in t.seconds for t in per_photo),
            "runs_per_photo": round(statistics.fmean(t.calls.get(name, 0) for t in per_photo), 2),
            "share": None if mean_photo is None else round(statistics.fmean(ms) / 1000 / mean_photo, 3),
        })
    return rows


# the peer's whole command over many photos: its own `python -m mahjong_detector` reads one photo a run
PEER_COMMAND = "import sys\nfrom mahjong_detector import detect_tiles\nfor p in sys.argv[1:]:\n    print(detect_tiles(p))"


def our_command(images: list[Path], models: Path | None) -> list[str]:
    return [sys.executable, "-m", "vision", "detect", *(["--model", str(models)] if models else []), *map(str, images)]


def peer_command(images: list[Path]) -> list[str]:
    return [sys.executable, "-c", PEER_COMMAND, *map(str, images)]


def wall_time(command: list[str]) -> float | None:
    """Seconds the whole command takes, start-up included; None when it fails."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(PEER_DIR)])})
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        print(f"warning: {' '.join(command[:4])} ... failed: {done.stderr.decode(errors='replace')[-300:]}",
              file=sys.stderr)
        return None
    return seconds


def whole_commands(commands: list[tuple[list[str], list[str]]], all_runs: int = 2,
                   one_runs: int = 3) -> list[tuple[float | None, float | None]]:
    """For each (command on all images, command on one image): the fastest of `all_runs` and of `one_runs`
    runs, the commands taking turns run by run (the load meets them alike)."""
    def fastest(which: int, runs: int) -> list[float | None]:
        best: list[float | None] = [None] * len(commands)
        failed = [False] * len(commands)
        for _ in range(runs):
            for k, pair in enumerate(commands):
                if failed[k]:
                    continue
                seconds = wall_time(pair[which])
                failed[k] = seconds is None
                best[k] = None if seconds is None else min(seconds, best[k] or seconds)
        return [None if b is None else round(b, 2) for b in best]

    return list(zip(fastest(0, all_runs), fastest(1, one_runs), strict=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="images, a YOLO dataset folder or a data YAML")
    parser.add_argument("--split", default="val", help="split of a YOLO dataset (default val)")
    parser.add_argument("--models", type=Path, default=None, help="models folder, its version in use (default models/)")
    parser.add_argument("--limit", type=int, default=None, help="first N images only")
    parser.add_argument("--resize", default=None, help="WxH: time on JPEGs of this size (e.g. 4032x3024)")
    parser.add_argument("--no-peer", action="store_true", help="skip mahjong-detector")
    parser.add_argument("--no-cli", action="store_true", help="skip timing the whole commands (`python -m vision detect`, the peer's loop)")
    parser.add_argument("--runs", type=int, default=2,
                        help="runs of each whole command over all images, taking turns; the fastest counts (default 2)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="change one detector setting for this run (e.g. mirror.sure_conf=0.8); repeatable")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs} (--no-cli skips the whole commands)")

    from vision.detector import TileDetector
    from vision.registry import active_dir
    from vision.settings import MODELS_DIR, DetectorSettings, with_overrides

    load_before = [round(v, 2) for v in os.getloadavg()]
    images = collect_images(args.folder, args.split, args.limit)
    if not images:
        print(f"error: no images in {args.folder}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        if args.resize:
            w, h = (int(v) for v in args.resize.lower().split("x"))
            images = resized_copies(images, (w, h), Path(tmp) / "resized")
        labeled = any(read_truth(p, 1, 1).class_id.size for p in images[:50])
        try:
            settings = with_overrides(DetectorSettings(), args.set)
        except ValueError as error:
            parser.error(str(error))
        ours = TileDetector.load(active_dir(args.models or MODELS_DIR), settings)  # the folder's version in use
        timed = [Timed("vision detect (this project)", ours.detect_file, labeled, profile=True)]
        commands = [(our_command(images, args.models), our_command(images[:1], args.models))]
        peer_note = "skipped (--no-peer)"
        if not args.no_peer:
            peer, peer_note = load_peer()
            if peer is not None:
                def peer_detect(path: Path) -> tuple[Detections, tuple[int, int]]:
                    from PIL import Image

                    with Image.open(path) as im:
                        size = im.size
                    return peer(path), size

                timed.append(Timed(peer_note, peer_detect, labeled))
                commands.append((peer_command(images), peer_command(images[:1])))
        results = run_detectors(timed, images)
        if not args.no_cli:
            for result, seconds in zip(results, whole_commands(commands, args.runs), strict=False):
                result["cli_wall_s_all_images"], result["cli_wall_s_one_image"] = seconds
    report = {"folder": str(args.folder), "resize": args.resize, "images": len(images), "labeled": labeled,
              "peer": peer_note, "results": results, "load_average": load_before}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{len(images)} images from {args.folder}" + (f" resized to {args.resize}" if args.resize else "")
          + f"; load average before: {report['load_average']}")
    print(f"peer: {peer_note}")
    keys = ["median_ms", "p90_ms", "max_ms", "mean_ms", "fastest_ms", "images_per_s"] + (["read_accuracy_34", "recall_34", "precision_34"]
                                                     if labeled else [])
    print(f"{'detector':<32}" + "".join(f"{k:>{max(9, len(k) + 1)}}" for k in keys))
    for r in results:
        print(f"{r['detector'][:31]:<32}" + "".join(f"{r.get(k)!s:>{max(9, len(k) + 1)}}" for k in keys))
    if len(results) == 2:
        ours, peer = results
        print("ours / peer: " + ", ".join(f"{k} {ours[k] / peer[k]:.2f}" for k in ("median_ms", "p90_ms", "max_ms"))
              + f", median of the per-image ratios {ours['median_ratio_per_image']}")
    for r in results:
        if r.get("cli_wall_s_all_images") is not None:
            print(f"{r['detector'][:31]}: whole command on all images {r['cli_wall_s_all_images']} s, "
                  f"on one image {r.get('cli_wall_s_one_image')} s (start-up and model load included)")
    if len(results) == 2 and all(r.get("cli_wall_s_all_images") for r in results):
        print(f"whole command, ours / peer: {results[0]['cli_wall_s_all_images'] / results[1]['cli_wall_s_all_images']:.2f}")
    print_profile("stages of a photo (ours, in the time above)", results[0]["stages"])
    print_profile("after detection: what `vision read` does next (not in the time above)",
                  results[0]["stages_after_detection"])
    return 0


def print_profile(title: str, rows: list[dict[str, Any]]) -> None:
    """The profile's rows as a table; stages under 0.1 ms on every photo are counted, not shown."""
    keys = ["median_ms", "p90_ms", "max_ms", "mean_ms", "share", "photos", "runs_per_photo"]
    shown = [row for row in rows if row["max_ms"] >= 0.1]
    print(f"\n{title}" + (f"; {len(rows) - len(shown)} stages under 0.1 ms left out" if len(shown) < len(rows) else ""))
    print(f"{'stage':<22}" + "".join(f"{k:>{len(k) + 2}}" for k in keys))
    for row in shown:
        print(f"{row['stage'][:21]:<22}" + "".join(f"{row[k]!s:>{len(k) + 2}}" for k in keys))


if __name__ == "__main__":
    sys.exit(main())
