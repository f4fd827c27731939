"""How well photos are read into hands, over scenes with known truth.

    python -m vision.evaluate_read SCENES_DIR [--models DIR] [--perfect]
    python -m vision.evaluate_read --generate 1000 [--seed 0]

SCENES_DIR holds `truth/NAME.json` (from `python -m datasets.synth`) beside
`images/`.  `--perfect` reads the truth boxes as detections (no model): the
layout reader alone is measured.  `--generate N` plans N random scenes in memory
(`datasets.scene.plan_scene` over `datasets.hands.random_hand`, no pixels) and
reads their truth boxes, which is the same measure without a folder.

A hand is read exactly when its melds, standing tiles (as a multiset), winning
tile and flower count equal the truth.  A score is right when its total equals
the truth's.  Failures are listed by cause: detection (the tiles found differ
from the tiles laid out), winning tile (it was not found, or is wrong), layout
(everything else: rows, groups, set types).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scoring.hand import Hand, HandError
from tileset.classes import CLASS_ID
from vision.detections import Detections, Detector
from vision.read import ReadResult, read_detections
from vision.settings import DEFAULT_SETTINGS, LayoutSettings, with_overrides

CAUSES = ("detection", "winning tile", "layout")
SCENE_SIZE = (1280, 960)


@dataclass(frozen=True)
class Scene:
    name: str
    hand: Hand
    expected_total: int | None
    truth_tiles: tuple[tuple[str, tuple[float, ...]], ...]  # (class, xyxy)
    image: Path | None


@dataclass(frozen=True)
class Outcome:
    name: str
    exact: bool
    score_right: bool | None  # None when the truth has no total
    cause: str | None  # one of CAUSES when not exact
    issues: tuple[str, ...]
    detail: str = ""  # for detection failures: the tiles missed and the extra ones


def hand_key(hand: Hand) -> tuple[Any, ...]:
    """What "read exactly" compares: melds and standing tiles as multisets, winning tile, flowers."""
    melds = sorted((m.kind.value, tuple(sorted(m.tiles)), m.concealed) for m in hand.validate().melds)
    return (tuple(melds), tuple(sorted(hand.concealed)), hand.win_tile, hand.context.flowers)


def truth_detections(scene: Scene, box_noise: float = 0.0, rng: np.random.Generator | None = None) -> Detections:
    """The truth boxes as detections; `box_noise` moves every box edge by up to that share of the tile's size."""
    dets = Detections.from_lists(
        [box for _, box in scene.truth_tiles], [1.0] * len(scene.truth_tiles), [CLASS_ID[c] for c, _ in scene.truth_tiles]
    )
    if box_noise <= 0 or len(dets) == 0:
        return dets
    rng = rng or np.random.default_rng(0)
    size = dets.wh.max(axis=1, keepdims=True)
    moved = dets.xyxy + (rng.uniform(-box_noise, box_noise, dets.xyxy.shape) * size).astype(np.float32)
    return Detections(moved, dets.confidence, dets.class_id)


def judge(scene: Scene, result: ReadResult) -> Outcome:
    exact = result.hand is not None and hand_key(result.hand) == hand_key(scene.hand)
    score_right = None
    if scene.expected_total is not None:
        score_right = result.score is not None and result.score.total == scene.expected_total
    cause = None
    detail = ""
    if not exact:
        seen = Counter(result.detections.class_names)
        laid = Counter(c for c, _ in scene.truth_tiles)
        if seen != laid:
            cause = "detection"
            detail = _difference(laid, seen)
        elif _winning_tile_missed(scene, result):
            cause = "winning tile"
        else:
            cause = "layout"
    return Outcome(scene.name, exact, score_right, cause, tuple(map(str, result.issues)), detail)


def _difference(laid: Counter[str], seen: Counter[str]) -> str:
    missed = " ".join(sorted((laid - seen).elements()))
    extra = " ".join(sorted((seen - laid).elements()))
    return f"missed: {missed or '-'}; extra: {extra or '-'}"


def _winning_tile_missed(scene: Scene, result: ReadResult) -> bool:
    if result.hand is None:
        return result.layout is not None and result.layout.win is None
    return result.hand.win_tile != scene.hand.win_tile


# --- scene sources -------------------------------------------------------------------


def scenes_from_dir(folder: Path) -> Iterator[Scene]:
    truth_dir = folder / "truth"
    files = sorted(truth_dir.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no truth/*.json in {folder}: make scenes with `python -m datasets.synth`")
    for path in files:
        data = json.loads(path.read_text())
        yield Scene(
            path.stem,
            Hand.from_json(data["hand"]),
            data.get("expected_total"),
            tuple((t["cls"], tuple(t["xyxy"])) for t in data["tiles"]),
            folder / data["image"],
        )


def generated_scenes(n: int, seed: int, with_totals: bool) -> Iterator[Scene]:
    from datasets.hands import random_hand
    from datasets.scene import plan_scene

    rng = random.Random(seed)
    for k in range(n):
        hand = random_hand(rng)
        tiles = plan_scene(hand, rng, *SCENE_SIZE)
        total = None
        if with_totals:
            from vision.read import score_hand

            result, _ = score_hand(hand)
            total = result.total if result is not None else None
        yield Scene(f"generated-{seed}-{k}", hand, total, tuple((t.cls, tuple(t.xyxy)) for t in tiles), None)


# --- running -------------------------------------------------------------------------


def evaluate(
    scenes: Iterator[Scene], read: Callable[[Scene], ReadResult]
) -> list[Outcome]:
    return [judge(scene, read(scene)) for scene in scenes]


def photo_reader(detector: Detector, settings: LayoutSettings = DEFAULT_SETTINGS.layout,
                 with_score: bool = True) -> Callable[[Scene], ReadResult]:
    """A scene read from its photo, as `vision read` reads one: `detector`'s tiles, then the layout and score."""
    from vision.read import detect_file

    def read(scene: Scene) -> ReadResult:
        if scene.image is None:
            raise ValueError(f"scene {scene.name} has no image to detect on")
        dets = detect_file(detector, str(scene.image))
        return read_detections(dets, scene.hand.context, settings, with_score=with_score)

    return read


def summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    n = len(outcomes)
    scored = [o for o in outcomes if o.score_right is not None]
    causes = Counter(o.cause for o in outcomes if o.cause)
    return {
        "scenes": n,
        "hands_exact": sum(o.exact for o in outcomes),
        "hands_exact_share": round(sum(o.exact for o in outcomes) / n, 4) if n else None,
        "exact_with_issues": sum(o.exact and bool(o.issues) for o in outcomes),
        "scores_right": sum(bool(o.score_right) for o in scored),
        "scores_right_share": round(sum(bool(o.score_right) for o in scored) / len(scored), 4) if scored else None,
        "failures": {c: causes.get(c, 0) for c in CAUSES},
    }


def format_report(outcomes: Sequence[Outcome], show: int) -> str:
    s = summary(outcomes)
    lines = [
        f"scenes: {s['scenes']}",
        f"hands read exactly: {s['hands_exact']}/{s['scenes']} ({s['hands_exact_share']:.1%})" if s["scenes"] else "hands read exactly: -",
        f"of those, read with issues raised anyway: {s['exact_with_issues']}",
        f"scores right: {s['scores_right']} ({s['scores_right_share']:.1%} of scenes with a truth total)"
        if s["scores_right_share"] is not None else "scores right: no truth totals",
        "failures by cause: " + ", ".join(f"{c} {n}" for c, n in s["failures"].items()),
    ]
    for o in [o for o in outcomes if not o.exact][:show]:
        lines.append(f"  {o.name} [{o.cause}]: " + (f"({o.detail}) " if o.detail else "") + " | ".join(o.issues))
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m vision.evaluate_read",
        description="Share of hands read exactly and of scores right over scenes with known truth.",
    )
    p.add_argument("scenes", nargs="?", type=Path, help="folder from `python -m datasets.synth` (truth/*.json, images/)")
    p.add_argument("--generate", type=int, metavar="N", help="plan N random scenes in memory instead (implies --perfect)")
    p.add_argument("--seed", type=int, default=0, help="seed of --generate (default 0)")
    p.add_argument("--perfect", action="store_true", help="use the truth boxes as detections (no model)")
    p.add_argument("--box-noise", type=float, default=0.0, metavar="F",
                   help="with truth boxes: move each box edge by up to F x the tile size (detector-like error)")
    p.add_argument("--models", "--model", dest="model", type=Path, default=None,
                   help="models folder: its version in use is read (default: the repository's models/)")
    p.add_argument("--no-score", action="store_true", help="skip scoring (layout only)")
    p.add_argument("--show", type=int, default=20, help="failures to list (default 20)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="overrides",
                   help="change one detector setting, e.g. mirror.sure_conf=0.8, or a layout reader's, "
                        "e.g. layout.tidy_breaches=false (repeatable)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    layout_prefix = "layout."
    try:
        detector_settings = with_overrides(
            DEFAULT_SETTINGS.detector, [o for o in args.overrides if not o.startswith(layout_prefix)])
        settings: LayoutSettings = with_overrides(
            DEFAULT_SETTINGS.layout, [o.removeprefix(layout_prefix) for o in args.overrides if o.startswith(layout_prefix)])
    except ValueError as error:
        parser.error(str(error))
    if (args.scenes is None) == (args.generate is None):
        print("give either SCENES_DIR or --generate N", file=sys.stderr)
        return 2
    with_totals = not args.no_score
    if args.generate is not None:
        scenes: Iterator[Scene] = generated_scenes(args.generate, args.seed, with_totals)
        perfect = True
    else:
        if not args.scenes.is_dir():
            print(f"not a folder: {args.scenes}", file=sys.stderr)
            return 2
        scenes = scenes_from_dir(args.scenes)
        perfect = args.perfect

    noise_rng = np.random.default_rng(args.seed)

    def read_truth(scene: Scene) -> ReadResult:
        dets = truth_detections(scene, args.box_noise, noise_rng)
        return read_detections(dets, scene.hand.context, settings, with_score=with_totals)

    read: Callable[[Scene], ReadResult] = read_truth
    if not perfect:
        from vision.read import load_detector

        try:
            from vision.registry import active_dir

            read = photo_reader(load_detector(active_dir(args.model), detector_settings), settings, with_totals)
        except Exception as exc:
            print(f"cannot load the tile detector: {exc}", file=sys.stderr)
            return 2
    try:
        outcomes = evaluate(scenes, read)
    except (FileNotFoundError, HandError, KeyError, ValueError) as exc:
        print(f"cannot evaluate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary(outcomes)))
    else:
        print(format_report(outcomes, args.show))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
