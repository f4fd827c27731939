"""Frames per second of the live page's processing loop on 640x480 frames.

    .venv/bin/python benchmarks/live.py [--frames 150] [--detect-every N] [--camera-fps 30]
                                        [--models DIR] [--art DIR] [--truth] [--json]

Times `appui.live_loop.LiveLoop.process`, the code the webcam's video thread runs, on 640x480
frames of generated table scenes, both ways the loop can read the table:

- inline: the detector and layout reader on one frame in `--detect-every`, inside the loop (that
  frame waits); frames fed as fast as the loop takes them.  Reported: frames/s of the whole loop,
  ms per detection frame and per drawn-only frame.
- background (the app's default): a reader thread reads the newest frame whenever it is free;
  frames fed at `--camera-fps` like a webcam.  Reported: frames/s delivered, readings/s, and the
  worst time a frame took in the loop.

Aim: >= 15 frames/s on the 2-core machine with the shipped models.

`--views` instead times what the player waits for: a camera at `--camera-fps` shows standing rows
(13 tiles, an empty table, 9 tiles; `tests/live_scenes.py`, in the shared gl-mahjongtile artwork
when present), each for `--view-seconds`, through the background reader and its fusion of frames.
Reported: per change of view, the time until the panel has the view's reading (reading lag) and that
plus half the panel's refresh period (the panel lag a player sees on average; transport left out),
the time until the reading is sure, ms per reading, readings/s until sure, and analysed frames/s once
it is still (a settled view's reading is kept for every frame).

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

from appui.demo_scene import DemoScene, TruthDetector, demo_scene
from appui.live_loop import LiveLoop
from appui.settings import DEFAULT_APP_SETTINGS, AppSettings
from vision.settings import MODELS_DIR

SHARED_ART = REPO.parent / "shared" / "datasets" / "art"
WIDTH, HEIGHT = 640, 480
SCENES = 5


def make_scenes(art_dir: Path | None, seed: int) -> list[DemoScene]:
    from datasets.hands import random_hand

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


def enter_scene(scenes: list[DemoScene], n: int, frames: int, truth: SceneSwitchingTruth | None) -> DemoScene:
    """The scene shown at frame `n` of `frames` (scenes in turn); the scoring truth follows it."""
    scene = scenes[min(n * len(scenes) // frames, len(scenes) - 1)]
    if truth is not None:
        truth.current = scene
    return scene


def run_inline(loop: LiveLoop, scenes: list[DemoScene], frames: int, truth: SceneSwitchingTruth | None) -> dict:
    every = max(1, loop.settings.live_detect_every)
    detect_ms: list[float] = []
    draw_ms: list[float] = []
    start = time.perf_counter()
    for n in range(frames):
        scene = enter_scene(scenes, n, frames, truth)
        t0 = time.perf_counter()
        loop.process(scene.image_bgr)
        (detect_ms if n % every == 0 else draw_ms).append((time.perf_counter() - t0) * 1000)
    wall = time.perf_counter() - start
    snap = loop.snapshot()
    return {
        "fps": round(frames / wall, 1),
        "detect_every": every,
        "ms_detection_frame_median": round(statistics.median(detect_ms), 1),
        "ms_drawn_frame_median": round(statistics.median(draw_ms), 2) if draw_ms else 0.0,
        "tiles_in_last_reading": len(snap.tiles),
        "error": snap.error,
    }


def run_background(loop: LiveLoop, scenes: list[DemoScene], frames: int, camera_fps: float,
                   truth: SceneSwitchingTruth | None) -> dict:
    period = 1.0 / camera_fps
    frame_ms: list[float] = []
    start = time.perf_counter()
    for n in range(frames):
        scene = enter_scene(scenes, n, frames, truth)
        due = start + n * period
        pause = due - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        t0 = time.perf_counter()
        loop.process(scene.image_bgr)
        frame_ms.append((time.perf_counter() - t0) * 1000)
    wall = time.perf_counter() - start
    snap = loop.snapshot()
    loop.close()
    return {
        "camera_fps": camera_fps,
        "fps": round(frames / wall, 1),
        "readings_per_s": round(snap.detections_run / wall, 1),
        "ms_frame_max": round(max(frame_ms), 1),
        "ms_frame_median": round(statistics.median(frame_ms), 2),
        "tiles_in_last_reading": len(snap.tiles),
        "error": snap.error,
    }


def view_scenes(art_dir: Path | None) -> list:  # live_scenes.Scene (tests/ goes on the path here)
    """The standing rows the --views mode shows in turn."""
    sys.path.insert(0, str(REPO / "tests"))
    from live_scenes import empty_scene, row_scene

    art = None
    if art_dir is not None:
        from datasets.art import load_art

        art = next((a for a in load_art(art_dir, only=["gl-mahjongtile"]) if a.name == "gl-mahjongtile"), None)
    size = (44, 62)
    rows = [row_scene("13 standing", "1234m456p789sEEE", art, size), empty_scene(),
            row_scene("9 standing", "123m456p7sEW", art, size), row_scene("13 other", "23456p77s345678m", art, size)]
    return rows


def run_views(loop: LiveLoop, scenes: list, seconds: float, camera_fps: float, cycles: int) -> dict:
    """Each scene for `seconds` at `camera_fps`, `cycles` times round: how soon each new view's reading reaches
    the panel, and how soon it is sure."""
    period = 1.0 / camera_fps
    frames_each = max(2, round(seconds * camera_fps))
    lags: list[float] = []
    sure_lags: list[float] = []
    unsettled = 0
    still_rates: list[float] = []
    settle_rates: list[float] = []
    worst_frame_ms = 0.0
    for _ in range(cycles):
        for scene in scenes:
            image = scene.image_bgr
            switched, switched_wall = time.perf_counter(), time.time()
            readings_before = loop.snapshot().detections_run
            settled_at = sure_at = None
            for n in range(frames_each):
                pause = switched + n * period - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
                t0 = time.perf_counter()
                loop.process(image)  # type: ignore[arg-type]
                worst_frame_ms = max(worst_frame_ms, (time.perf_counter() - t0) * 1000)
                snap = loop.snapshot()
                if settled_at is None and snap.shown_at is not None and snap.shown_at >= switched_wall:
                    settled_at = snap.shown_at - switched_wall
                if sure_at is None and snap.sure and snap.shown_at is not None and snap.shown_at >= switched_wall:
                    sure_at = time.time() - switched_wall
                    made = snap.detections_run - readings_before
                    settle_rates.append(made / max(time.perf_counter() - switched, 1e-3))
            if sure_at is not None:
                sure_lags.append(sure_at)
            if settled_at is None:
                unsettled += 1
            else:
                lags.append(settled_at)
                still_rates.append(loop.snapshot().analysed_per_s)
    loop.close()
    panel_half = loop.live.panel_every_s / 2
    return {
        "camera_fps": camera_fps,
        "views": len(lags) + unsettled,
        "views_never_read": unsettled,
        "views_sure": len(sure_lags),
        "sure_lag_s_median": round(statistics.median(sure_lags), 3) if sure_lags else None,
        "reading_lag_s_median": round(statistics.median(lags), 3) if lags else None,
        "reading_lag_s_max": round(max(lags), 3) if lags else None,
        "panel_lag_s_median_estimate": round(statistics.median(lags) + panel_half, 3) if lags else None,
        "readings_per_s_until_sure_median": round(statistics.median(settle_rates), 1) if settle_rates else None,
        "analysed_frames_per_s_once_still_median": round(statistics.median(still_rates), 1) if still_rates else None,
        "ms_frame_max": round(worst_frame_ms, 1),
    }


def time_readings(detector: object, scenes: list, repeats: int = 5) -> float:
    """Median ms of one reading of these scenes: the detector, the fusion (of that one frame) and the layout reader."""
    from appui.live_fusion import fuse
    from appui.live_loop import laid_out

    loop = LiveLoop(detector)  # type: ignore[arg-type]
    times = []
    for _ in range(repeats):
        for scene in scenes:
            t0 = time.perf_counter()
            read = loop._read(scene.image_bgr)
            if not isinstance(read, str):
                laid_out(fuse([read]))
            times.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(times), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=150, help="frames to process (default 150)")
    parser.add_argument("--detect-every", type=int, default=DEFAULT_APP_SETTINGS.live_detect_every,
                        help=f"run the detector on one frame in N (default {DEFAULT_APP_SETTINGS.live_detect_every})")
    parser.add_argument("--camera-fps", type=float, default=30.0,
                        help="frame rate of the simulated webcam for the background mode (default 30)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default models/)")
    parser.add_argument("--art", type=Path, default=SHARED_ART if SHARED_ART.is_dir() else None,
                        help="artwork folder for the scenes (default: the shared art folder if present)")
    parser.add_argument("--truth", action="store_true", help="use the scenes' known boxes instead of the model")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    parser.add_argument("--views", action="store_true",
                        help="time the player's wait: standing rows changing at --camera-fps (see above)")
    parser.add_argument("--view-seconds", type=float, default=3.0, help="seconds each view is shown (default 3)")
    parser.add_argument("--cycles", type=int, default=3, help="times round the views (default 3)")
    args = parser.parse_args(argv)
    if args.frames < 2 or args.detect_every < 1 or args.camera_fps <= 0:
        parser.error("--frames must be >= 2, --detect-every >= 1 and --camera-fps > 0")

    if args.views:
        return main_views(args)
    scenes = make_scenes(args.art, args.seed)
    truth = SceneSwitchingTruth(scenes) if args.truth else None
    if truth is not None:
        detector, name = truth, "truth boxes (no model)"
    else:
        from vision.detector import TileDetector
        from vision.models import ModelLoadError

        try:
            detector = TileDetector.load(args.models)
        except (ModelLoadError, OSError, ValueError) as exc:
            print(f"no usable model in {args.models}: {exc}\n(run with --truth to time the loop without a model)",
                  file=sys.stderr)
            return 2
        info = getattr(detector, "model_info", None)
        name = json.dumps(info.to_json()) if info is not None else str(args.models)
    settings = AppSettings(live_detect_every=args.detect_every)
    LiveLoop(detector, settings).process(scenes[0].image_bgr)  # warm-up: session start, first allocations
    inline = run_inline(LiveLoop(detector, settings), scenes, args.frames, truth)
    background = run_background(LiveLoop(detector, settings, background=True), scenes, args.frames,
                                args.camera_fps, truth)
    result = {"detector": name, "frame": f"{WIDTH}x{HEIGHT}", "frames": args.frames, "cpus": os.cpu_count(),
              "art": str(args.art) if args.art else "demo glyphs", "inline": inline, "background": background}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"live loop on {WIDTH}x{HEIGHT} frames, {args.frames} frames, {result['cpus']} cpus, detector: {name}")
    print(f"  inline (detector on 1 frame in {inline['detect_every']}): {inline['fps']} frames/s; "
          f"{inline['ms_detection_frame_median']} ms per detection frame, "
          f"{inline['ms_drawn_frame_median']} ms per drawn-only frame (medians); "
          f"{inline['tiles_in_last_reading']} tiles in the last reading")
    print(f"  background reader, camera at {args.camera_fps:g} fps: {background['fps']} frames/s delivered, "
          f"{background['readings_per_s']} readings/s, slowest frame {background['ms_frame_max']} ms; "
          f"{background['tiles_in_last_reading']} tiles in the last reading")
    for mode in (inline, background):
        if mode["error"]:
            print(f"  error: {mode['error']}")
    return 0


def main_views(args: argparse.Namespace) -> int:
    scenes = view_scenes(args.art)
    if args.truth:
        import tempfile

        from live_scenes import SceneDetector, write_scenes  # on the path since view_scenes

        folder = Path(tempfile.mkdtemp(prefix="mcr-live-views-"))
        write_scenes(folder, scenes)
        detector: object = SceneDetector(folder)
        name = "the scenes' known boxes (the loop's own cost, no model)"
    else:
        from vision.detector import TileDetector
        from vision.models import ModelLoadError

        try:
            detector = TileDetector.load(args.models)
        except (ModelLoadError, OSError, ValueError) as exc:
            print(f"no usable model in {args.models}: {exc}", file=sys.stderr)
            return 2
        info = getattr(detector, "model_info", None)
        name = json.dumps(info.to_json()) if info is not None else str(args.models)
    LiveLoop(detector)._read(scenes[0].image_bgr)  # type: ignore[arg-type]  # warm-up
    ms_reading = time_readings(detector, scenes)
    views = run_views(LiveLoop(detector, background=True), scenes, args.view_seconds, args.camera_fps,  # type: ignore[arg-type]
                      args.cycles)
    result = {"detector": name, "frame": f"{WIDTH}x{HEIGHT}", "cpus": os.cpu_count(),
              "load_average_1min": round(os.getloadavg()[0], 1), "ms_per_reading_median": ms_reading,
              "art": str(args.art) if args.art else "demo glyphs", **views}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"live views on {WIDTH}x{HEIGHT} frames, camera at {args.camera_fps:g} fps, {result['cpus']} cpus "
          f"(load {result['load_average_1min']}), detector: {name}")
    for key, value in result.items():
        if key not in ("detector", "frame", "cpus"):
            print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
