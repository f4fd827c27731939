"""Frames per second of the live page's processing loop on 640x480 frames.

    .venv/bin/python benchmarks/live.py [--frames 150] [--detect-every N] [--models DIR] [--art DIR] [--truth] [--json]

Runs `appui.live_loop.LiveLoop.process` (the code the webcam's video thread runs: the detector on
one frame in `--detect-every`, the layout reader on its detections, boxes and frame rate drawn on
every frame) over `--frames` 640x480 frames of generated table scenes, one after another as fast
as it can, and reports frames/s of the whole loop, and milliseconds per detection frame and per
drawn-only frame.  Aim: >= 15 frames/s on the 2-core machine with the shipped models.

The scenes are rendered by `datasets.render` from the artwork in `--art` (default: the shared art
folder when present, else the procedural glyph faces of `appui.demo_scene`).  `--truth` replaces the
model by the scenes' known boxes: the loop's own cost (layout, drawing) without the network.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from appui.demo_scene import DemoScene, TruthDetector, demo_scene  # noqa: E402
from appui.live_loop import LiveLoop  # noqa: E402
from appui.settings import DEFAULT_APP_SETTINGS, AppSettings  # noqa: E402
from vision.settings import MODELS_DIR  # noqa: E402

SHARED_ART = REPO.parent / "shared" / "datasets" / "art"
WIDTH, HEIGHT = 640, 480
SCENES = 5


def make_scenes(art_dir: Path | None, seed: int) -> list[DemoScene]:
    from scoring.generate import random_hand

    rng = random.Random(seed)
    hands = [random_hand(rng) for _ in range(SCENES)]
    if art_dir is None:
        return [demo_scene(h, seed=seed + i, width=WIDTH, height=HEIGHT, effects=True) for i, h in enumerate(hands)]
    from datasets.art import load_art
    from datasets.render import render_scene

    sets = load_art(art_dir)
    scenes = []
    for i, hand in enumerate(hands):
        scene_rng = random.Random(seed + i)
        image, tiles = render_scene(hand, sets[i % len(sets)], scene_rng, WIDTH, HEIGHT)
        scenes.append(DemoScene(image, hand, tuple(tiles)))
    return scenes


class SceneSwitchingTruth:
    """The truth detector of whichever scene the frame shows (frames are the scenes' own images)."""

    def __init__(self, scenes: list[DemoScene]) -> None:
        self.current = scenes[0]

    def detect(self, image_bgr):  # type: ignore[no-untyped-def]
        return TruthDetector(self.current).detect(image_bgr)


def run(loop: LiveLoop, scenes: list[DemoScene], frames: int, truth: SceneSwitchingTruth | None) -> dict[str, float]:
    every = max(1, loop.settings.live_detect_every)
    detect_ms: list[float] = []
    draw_ms: list[float] = []
    per_scene = max(1, frames // len(scenes))
    start = time.perf_counter()
    for n in range(frames):
        scene = scenes[min(n // per_scene, len(scenes) - 1)]
        if truth is not None:
            truth.current = scene
        t0 = time.perf_counter()
        loop.process(scene.image_bgr)
        (detect_ms if n % every == 0 else draw_ms).append((time.perf_counter() - t0) * 1000)
    wall = time.perf_counter() - start
    snap = loop.snapshot()
    return {
        "frames": frames,
        "fps": round(frames / wall, 1),
        "detect_every": every,
        "ms_detection_frame_median": round(statistics.median(detect_ms), 1),
        "ms_drawn_frame_median": round(statistics.median(draw_ms), 2) if draw_ms else 0.0,
        "tiles_in_last_reading": len(snap.tiles),
        "error": snap.error,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=150, help="frames to process (default 150)")
    parser.add_argument("--detect-every", type=int, default=DEFAULT_APP_SETTINGS.live_detect_every,
                        help=f"run the detector on one frame in N (default {DEFAULT_APP_SETTINGS.live_detect_every})")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default models/)")
    parser.add_argument("--art", type=Path, default=SHARED_ART if SHARED_ART.is_dir() else None,
                        help="artwork folder for the scenes (default: the shared art folder if present)")
    parser.add_argument("--truth", action="store_true", help="use the scenes' known boxes instead of the model")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args(argv)
    if args.frames < 2 or args.detect_every < 1:
        parser.error("--frames must be >= 2 and --detect-every >= 1")

    scenes = make_scenes(args.art, args.seed)
    truth = SceneSwitchingTruth(scenes) if args.truth else None
    if truth is not None:
        detector, name = truth, "truth boxes (no model)"
    else:
        from vision.detector import ModelLoadError, TileDetector

        try:
            detector = TileDetector.load(args.models)
        except (ModelLoadError, OSError, ValueError) as exc:
            print(f"no usable model in {args.models}: {exc}\n(run with --truth to time the loop without a model)",
                  file=sys.stderr)
            return 2
        info = getattr(detector, "model_info", None)
        name = json.dumps(info.to_json()) if info is not None else str(args.models)
    loop = LiveLoop(detector, AppSettings(live_detect_every=args.detect_every))
    loop.process(scenes[0].image_bgr)  # warm-up (session start, first allocation)
    loop = LiveLoop(detector, AppSettings(live_detect_every=args.detect_every))
    result = run(loop, scenes, args.frames, truth)
    result.update({"detector": name, "frame": f"{WIDTH}x{HEIGHT}", "cpus": os.cpu_count(),
                   "art": str(args.art) if args.art else "demo glyphs"})
    if args.json:
        print(json.dumps(result))
    else:
        print(f"live loop on {WIDTH}x{HEIGHT} frames, detector: {name}")
        print(f"  {result['fps']} frames/s over {args.frames} frames (detector on 1 in {result['detect_every']})")
        print(f"  {result['ms_detection_frame_median']} ms per detection frame, "
              f"{result['ms_drawn_frame_median']} ms per drawn-only frame (medians)")
        print(f"  tiles in the last reading: {result['tiles_in_last_reading']}, cpus: {result['cpus']}")
        if result["error"]:
            print(f"  error: {result['error']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
