"""Panel lag, reading rates and tiles read right on the live page as a player meets it: the app in Chromium,
its fake camera playing real photos (or rendered rows of 13 standing tiles), the shipped models reading them.

    .venv/bin/python benchmarks/live_browser.py --real DIR [--real DIR ...] [--real-limit 6]
                                                [--fps 15] [--view-seconds 2] [--seconds 60] [--json]
    .venv/bin/python benchmarks/live_browser.py [--fps 15] [--view-seconds 4] [--seconds 60] [--json]

`--real DIR`: a folder of labelled photos (YOLO labels in DIR/../labels, canonical class ids), e.g. the
japanese-layout frames and chinese-v4's test photos; the photos whose tiles stand in one row
(`live_scenes.standing_rows`, a player's standing hand) are the views, at most `--real-limit` a
folder, in turn, each for `--view-seconds`, scaled to one size.  Without `--real` the video shows a row
of 13 standing tiles, an empty table and another row of 13 in the gl-mahjongtile artwork
(`tests/live_scenes.py`; needs the shared art folder, given by `--art`).  The page is watched for
`--seconds` the way `tests/test_app_live_browser.py` watches it.

Reported: the panel lag of each view (from the first changed frame reaching the server to the browser
showing its reading), the views the video played while watched, those the panel saw and those it
showed tiles for; the status line's rates (analysed frames/s: read, or a still view kept;
readings/s: the detector run) and the video's frame rate as the server counts it; the camera's frame
size as the server got it; the load of the machine (`uptime`: other work on shared cores slows every
figure).  With `--real`, per photo: the tiles its last reading shown got right, wrong and missed
against the labels, whether it was sure, and the most any single frame fused into it got right.

Needs Chromium (scripts/install_browser.sh) and Playwright (the dev extra).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from live_browser_support import lag_report, live_page, panel_text, views_read, wait_for_panel
from live_scenes import (
    Scene,
    empty_scene,
    in_scene_pixels,
    real_scene,
    row_scene,
    scene_of,
    standing_rows,
    tiles_right,
    write_video,
)

from appui.settings import LIVE_FRAMES_ENV
from vision.settings import MODELS_DIR

READY = "1234m456p789sEEE"  # 13 standing tiles, waiting on 1m 4m (the browser test's row)
OTHER_READY = "23456p77s345678m"  # 13 standing tiles, waiting on 1p 4p 7p
REAL_SIZE = (640, 640)  # the real photos' size (the japanese-layout frames, chinese-v4): a square camera


def real_plan(folders: list[Path], limit: int, seconds: float) -> list[tuple[Scene, float]]:
    scenes = []
    for folder in folders:
        for image in standing_rows(folder)[:limit]:
            scene = real_scene(image)
            h, w = scene.image_bgr.shape[:2]
            if (w, h) != REAL_SIZE:
                sx, sy = REAL_SIZE[0] / w, REAL_SIZE[1] / h
                scene = Scene(scene.name, cv2.resize(scene.image_bgr, REAL_SIZE, interpolation=cv2.INTER_AREA),
                              tuple((c, (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy)) for c, b in scene.tiles))
            scenes.append((scene, seconds))
    return scenes


def rendered_plan(art_dir: Path, seconds: float) -> list[tuple[Scene, float]]:
    from datasets.art import load_art

    art = next(a for a in load_art(art_dir, only=["gl-mahjongtile"]) if a.name == "gl-mahjongtile")
    return [(row_scene("ready", READY, art, (44, 62)), seconds), (empty_scene(), seconds),
            (row_scene("other", OTHER_READY, art, (44, 62)), seconds), (empty_scene(), seconds)]


def read_right(views: list[dict], scenes: list[Scene]) -> list[dict]:
    """Per view shown: its photo, the tiles its last reading got right / wrong / missed, sure or not, and the
    best of the single frames fused into it."""
    out = []
    for view in views:
        frame = view.get("frame") or "x".join(map(str, REAL_SIZE))
        read = in_scene_pixels(view["read"], frame, scenes[0])  # the scenes are one size
        scene = scene_of(read, scenes)
        if scene is None:
            continue
        right, wrong, missed = tiles_right(read, scene.tiles)
        singles = [tiles_right(in_scene_pixels(single, frame, scene), scene.tiles)[0] for single in view.get("frames") or []]
        out.append({"photo": scene.name[:24], "frame": frame, "labelled": len(scene.tiles), "right": right, "wrong": wrong,
                    "missed": missed, "sure": view.get("sure"), "fused": view.get("fused"),
                    "best_single_frame_right": max(singles, default=None)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--real", type=Path, action="append", default=[], metavar="DIR",
                        help="a folder of labelled photos to play as views (repeatable); see above")
    parser.add_argument("--real-limit", type=int, default=6, help="photos a folder at most (default 6)")
    parser.add_argument("--art", type=Path, default=None, help="artwork folder for the rendered rows (without --real)")
    parser.add_argument("--fps", type=int, default=15, help="frame rate of the fake camera's video (default 15)")
    parser.add_argument("--view-seconds", type=float, default=None,
                        help="seconds each view is shown (default 2 with --real, else 4)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds the page is watched (default 60)")
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args(argv)
    view_seconds = args.view_seconds or (2.0 if args.real else 4.0)
    if args.fps < 1 or view_seconds <= 0 or args.seconds <= 0 or args.real_limit < 1:
        parser.error("--fps and --real-limit must be >= 1, --view-seconds and --seconds > 0")
    if not (MODELS_DIR / "detector.onnx").exists():
        print(f"no shipped model in {MODELS_DIR}", file=sys.stderr)
        return 2
    if args.real:
        plan = real_plan(args.real, args.real_limit, view_seconds)
        if not plan:
            print(f"no labelled photos of one standing row in {', '.join(map(str, args.real))}", file=sys.stderr)
            return 2
    elif args.art is None or not args.art.is_dir():
        print("give --real DIR (labelled photos) or --art DIR (the tile artwork to render rows in)", file=sys.stderr)
        return 2
    else:
        plan = rendered_plan(args.art, view_seconds)
    from playwright.sync_api import sync_playwright

    video = Path(tempfile.mkdtemp(prefix="mcr-live-bench-")) / "table.y4m"
    loop_s = write_video(video, plan, fps=args.fps)
    views_with_waits: set[str] = set()  # views whose panel showed a ready hand's waits
    with sync_playwright() as playwright, live_page(playwright, video, {LIVE_FRAMES_ENV: "1"}) as (page, _):
        if not args.real:
            wait_for_panel(page, r"Tiles in view: 13", timeout_ms=120_000)
        first_view = page.evaluate("+document.querySelector('[data-live-view]').dataset.liveView")
        page.evaluate("window.__live.rates = []")  # from here on
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            view = page.evaluate("document.querySelector('[data-live-view]')?.dataset.liveView")
            if view is not None and "Unseen" in panel_text(page):
                views_with_waits.add(view)
            page.wait_for_timeout(200)
        # the view shown when watching began came before it: its lag is not counted
        page.evaluate("v => { for (const k in window.__live.views) if (+k <= v) delete window.__live.views[k]; }", first_view)
        report = lag_report(page)
        shown = views_read(page)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    result = {"views": "real photos" if args.real else "rendered rows", "video_fps": args.fps,
              "view_seconds": view_seconds, "video_loop_s": round(loop_s, 1), "watched_s": args.seconds,
              "views_played": int(args.seconds // view_seconds), "cpus": os.cpu_count(), "uptime": uptime, **report}
    if args.real:
        per_view = read_right(shown, [scene for scene, _ in plan])
        result["per_view"] = per_view
        result["tiles_right_total"] = sum(v["right"] for v in per_view)
        result["tiles_labelled_total"] = sum(v["labelled"] for v in per_view)
        result["views_at_least_best_single_frame"] = sum(
            v["best_single_frame_right"] is not None and v["right"] >= v["best_single_frame_right"] for v in per_view)
        lags = sorted(v["shown"] - v["changed"] for v in shown if v.get("changed"))
        result["panel_lag_s_p90"] = round(lags[int(0.9 * (len(lags) - 1))], 3) if lags else None
        result["panel_lag_s_mean"] = round(statistics.mean(lags), 3) if lags else None
    else:
        tiles_shown = [v["tiles"] for v in shown]
        result["views_13_tiles"] = sum(n == 13 for n in tiles_shown)
        result["views_other_counts"] = sorted(n for n in tiles_shown if n != 13)
        result["views_with_waits"] = len({v for v in views_with_waits if int(v) > first_view})
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"live page in Chromium, fake camera at {args.fps} fps playing {result['views']}, shipped models, "
          f"{result['cpus']} cpus:")
    for key, value in result.items():
        if key == "per_view":
            for row in value:
                print(f"    {row}")
        else:
            print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
