"""What each of the reader's rules (`vision.rules.RULES`) earns on real photos: every rule switched off in turn
(`DetectorSettings.rules_off`), the photos read again, the figures compared with every rule on.

    .venv/bin/python benchmarks/reader_rules.py [--models DIR ...] [--data NAME=DATASET[:SPLIT] ...] [--json]

DIR: a models folder (its version in use is read; default: the shipped `models/`, and `/tmp/jlmodels` where it
exists, a version calibrated on the japanese-layout collage). DATASET: a data YAML or a folder of `images/` and
`labels/` (default: chinese-v4's val and test, copied to /tmp/cv4, and the four japanese-layout frames, /tmp/jl).
For each models folder and dataset, one line with every rule on, then one per rule off: read accuracy, recall,
false boxes, images read exactly, and the change of each against every rule on. Rules that act only with a
calibrated classifier are skipped for a folder without one. The models are loaded once per folder, and each
photo decoded once per dataset.
"""

from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[1]))

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from training.evaluate import dataset_images, evaluate
from vision.detections import Detections
from vision.detector import TileDetector
from vision.images import DecodedImage, decode_image
from vision.registry import active_dir
from vision.rules import RULES
from vision.settings import MODELS_DIR

DEFAULT_DATA = ("chinese-v4-val=/tmp/cv4/data.yaml:val", "chinese-v4-test=/tmp/cv4/data.yaml:test", "japanese-layout=/tmp/jl")
CALIBRATED_ON_THE_LAYOUT = Path("/tmp/jlmodels")
FIGURES = ("read_accuracy", "recall", "false_boxes", "images_read_exactly")


class DecodedOnce:
    """A detector that reads each photo decoded once (`detect_file`, as `training.evaluate.evaluate` calls it)."""

    def __init__(self, detector: TileDetector, decoded: dict[Path, DecodedImage]) -> None:
        self.detector, self.decoded = detector, decoded

    def detect_file(self, source: Path) -> tuple[Detections, tuple[int, int]]:
        if source not in self.decoded:
            self.decoded[source] = decode_image(source, self.detector.settings,
                                                reduce_to=self.detector.settings.decode_long_side)
        decoded = self.decoded[source]
        return self.detector.detect_decoded(decoded), decoded.original_wh


def figures(detector: TileDetector, images: list[Path], decoded: dict[Path, DecodedImage]) -> dict[str, Any]:
    summary = evaluate(DecodedOnce(detector, decoded), images).summary()
    return {name: summary[name] for name in FIGURES}


def ablation(models: Path, data: list[tuple[str, Path, str]]) -> list[dict[str, Any]]:
    """One row per dataset with every rule on, then one per rule off."""
    detector = TileDetector.load(active_dir(models))
    calibrated = detector.classifier is not None and detector.classifier.has_fewshot_head
    rules = [entry.name for entry in RULES if calibrated or not entry.calibrated_only]
    rows = []
    for name, dataset, split in data:
        images = dataset_images(dataset, split)
        decoded: dict[Path, DecodedImage] = {}
        every = figures(detector, images, decoded)
        rows.append({"models": str(models), "data": name, "off": None, **every})
        print(_line(rows[-1], every), flush=True)
        for rule_name in rules:
            off = detector.with_settings(replace(detector.settings, rules_off=frozenset({rule_name})))
            row = {"models": str(models), "data": name, "off": rule_name, **figures(off, images, decoded)}
            rows.append(row)
            print(_line(row, every), flush=True)
    return rows


def _line(row: dict[str, Any], every: dict[str, Any]) -> str:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:6.2f}"

    def delta(name: str, scale: float) -> str:
        a, b = row[name], every[name]
        return "" if row["off"] is None or a is None or b is None else f" ({scale * (a - b):+.2f})"

    return (f"{Path(row['models']).name:>10} {row['data']:>16} {row['off'] or '(every rule on)':>20}  "
            f"read {pct(row['read_accuracy'])}{delta('read_accuracy', 100)}  "
            f"recall {pct(row['recall'])}{delta('recall', 100)}  "
            f"false boxes {row['false_boxes']:3d}{delta('false_boxes', 1)}  "
            f"exact {pct(row['images_read_exactly'])}{delta('images_read_exactly', 100)}")


def _data(text: str) -> tuple[str, Path, str]:
    name, _, where = text.partition("=")
    path, _, split = where.rpartition(":") if where.count(":") and not Path(where).exists() else (where, "", "")
    return name, Path(path), split or "val"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, action="append", default=None, help="models folder (repeatable)")
    parser.add_argument("--data", action="append", default=None, metavar="NAME=DATASET[:SPLIT]",
                        help="a labeled dataset (repeatable; default chinese-v4 val and test, japanese-layout)")
    parser.add_argument("--json", action="store_true", help="print every row as one JSON list at the end")
    args = parser.parse_args(argv)
    models = args.models or [MODELS_DIR] + ([CALIBRATED_ON_THE_LAYOUT] if CALIBRATED_ON_THE_LAYOUT.is_dir() else [])
    data = [_data(text) for text in (args.data or DEFAULT_DATA)]
    missing = [str(path) for _, path, _ in data if not path.exists()] + [str(m) for m in models if not m.is_dir()]
    if missing:
        print(f"not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    rows = [row for folder in models for row in ablation(folder, data)]
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
