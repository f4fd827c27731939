"""Judge tile-finder candidates side by side, real photos first: each candidate's finder with the shipped classifier.

    python benchmarks/finder_candidates.py --out WORK \\
        --candidate shipped=models/detector.pt --candidate run=runs/finder/finder/weights/epoch2.pt \\
        --data test=DATA/data.yaml:test --data val51=VAL51 --data frames=FRAMES --data rooms=ROOMS \\
        --hands hands=HANDS

A candidate is a finder checkpoint (`.pt`, exported float to WORK/NAME with `training.export`) or a models
folder read as it is (the shipped int8 finder: `--candidate int8=models`). Every other file of the models
folder comes from `--models` (default: the repository's `models/`). A set is a folder or data YAML with an
optional `:split`, read by `vision.evaluate`'s code with backs kept (`--set FIELD=VALUE`: a detector setting changed
for every candidate). One markdown row per candidate:
read accuracy, recall and false boxes of each set, then, for each `--hands` folder of `datasets.synth` scenes,
the hands read exactly and the scores right (`vision.evaluate_read`'s code: photo to score, unseen artwork
when the scenes are drawn with `--only` a held-out set); `--json FILE` keeps every figure. With `--groups MANIFEST`
(chinese-v4's manifest.csv) a second table gives each set's capture groups, a row each: read accuracy and false
boxes of every candidate.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))


def models_for(name: str, source: Path, work: Path, shipped: Path) -> Path:
    """A models folder holding `source`'s finder (exported float when it is a checkpoint) and `shipped`'s rest."""
    if source.is_dir():
        return source
    target = work / name
    if not (target / "detector.onnx").is_file():
        target.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "training.export", "--detector", str(source), "--out", str(target), "--no-check"]
        if subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, check=False).returncode != 0:
            raise SystemExit(f"error: exporting {source} failed")
    for file in shipped.iterdir():
        if file.is_file() and file.suffix == ".onnx" and file.name != "detector.onnx":
            shutil.copy2(file, target / file.name)
    return target


def judge(models: Path, dataset: str, overrides: Sequence[str] = (), manifest: Path | None = None) -> dict:
    from training.evaluate import capture_groups, dataset_images, evaluate
    from vision.detector import TileDetector
    from vision.registry import active_dir
    from vision.settings import DetectorSettings, with_overrides

    path, _, split = dataset.partition(":")
    images = dataset_images(Path(path), split or "val")
    detector = TileDetector.load(active_dir(models), with_overrides(DetectorSettings(), list(overrides)))
    group_of = capture_groups(manifest) if manifest else None
    return evaluate(detector, images, keep_backs=True, progress=False, group_of=group_of).summary()


def judge_hands(models: Path, scenes: Path, overrides: Sequence[str] = ()) -> dict:
    from training.evaluate_read import evaluate, photo_reader, scenes_from_dir, summary
    from vision.detector import TileDetector
    from vision.registry import active_dir
    from vision.settings import DetectorSettings, with_overrides

    detector = TileDetector.load(active_dir(models), with_overrides(DetectorSettings(), list(overrides)))
    return summary(evaluate(scenes_from_dir(scenes), photo_reader(detector)))


def percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.2f} %"


def print_groups(figures: dict[str, dict[str, dict]], sets: list[str]) -> None:
    """Each set's capture groups, a row each: every candidate's read accuracy and false boxes."""
    from training.evaluate import NOT_IN_MANIFEST

    names = list(figures)
    print("\n| set: capture group (photos, tiles) | " + " | ".join(f"{name}: read, false boxes" for name in names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for set_name in sets:
        groups = figures[names[0]][set_name].get("by_group", {})
        if set(groups) <= {NOT_IN_MANIFEST}:  # renders, or photos of another source: no groups to tell apart
            continue
        for group, part in groups.items():
            cells = [f"{percent(figures[name][set_name]['by_group'][group]['read_accuracy'])}, "
                     f"{figures[name][set_name]['by_group'][group]['false_boxes']}" for name in names]
            print(f"| {set_name}: {group} ({part['images']}, {part['labeled_tiles']}) | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidate", action="append", required=True, metavar="NAME=CHECKPOINT_OR_MODELS")
    parser.add_argument("--data", action="append", required=True, dest="sets", metavar="NAME=DATASET[:SPLIT]")
    parser.add_argument("--hands", action="append", default=[], metavar="NAME=SCENES",
                        help="a folder of datasets.synth scenes read photo to score (repeatable)")
    parser.add_argument("--out", type=Path, required=True, help="work folder for the exported candidates")
    parser.add_argument("--models", type=Path, default=REPO_ROOT / "models", help="where the classifier comes from")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    parser.add_argument("--set", action="append", default=[], dest="overrides", metavar="FIELD=VALUE",
                        help="change one detector setting for every candidate, e.g. conf_threshold=0.15 (repeatable)")
    parser.add_argument("--groups", type=Path, default=None, metavar="MANIFEST",
                        help="also each capture group's figures (a manifest.csv with columns image, group)")
    args = parser.parse_args(argv)
    sets = dict(item.split("=", 1) for item in args.sets)
    hands = dict(item.split("=", 1) for item in args.hands)
    figures: dict[str, dict[str, dict]] = {}
    print("| finder | " + " | ".join(f"{name}: read, recall, false boxes" for name in sets)
          + "".join(f" | {name}: hands exact, scores right" for name in hands) + " |", flush=True)
    print("|---" * (len(sets) + len(hands) + 1) + "|", flush=True)
    for item in args.candidate:
        name, source = item.split("=", 1)
        models = models_for(name, Path(source), args.out, args.models)
        figures[name] = {set_name: judge(models, dataset, args.overrides, args.groups) for set_name, dataset in sets.items()}
        cells = [f"{percent(s['read_accuracy'])}, {percent(s['recall'])}, {s['false_boxes']}" for s in figures[name].values()]
        for set_name, scenes in hands.items():
            figures[name][set_name] = read = judge_hands(models, Path(scenes), args.overrides)
            cells.append(f"{read['hands_exact']}/{read['scenes']}, {read['scores_right']}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    if args.groups:
        print_groups(figures, list(sets))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=str) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
