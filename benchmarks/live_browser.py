"""Panel lag and reading rates of the live page as a player meets them: the app in Chromium, its fake
camera playing rows of 13 standing tiles, the shipped models reading them.

    .venv/bin/python benchmarks/live_browser.py [--fps 15] [--view-seconds 4] [--seconds 60] [--json]

The video (Y4M at `--fps`, Chromium's `--use-file-for-fake-video-capture`) shows in turn a row of 13
standing tiles, an empty table and another row of 13, each for `--view-seconds`, in the shared
gl-mahjongtile artwork (`tests/live_scenes.py`); the page is watched for `--seconds` the way
`tests/test_app_live_browser.py` watches it.  Reported: the panel lag of each view that reached the
panel (from the first changed frame reaching the server to the browser showing its steady reading),
the status line's rates (analysed frames/s: read, or a still view kept; readings/s: the detector
run), the video's frame rate as the server counts it, how often the 13-tile row's waits showed, and
the load of the machine (other work on shared cores slows every figure).

Needs Chromium (scripts/install_browser.sh) and Playwright (the dev extra).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from live_browser_support import lag_report, live_page, panel_text, wait_for_panel
from live_scenes import empty_scene, row_scene, write_video

from vision.settings import MODELS_DIR

ART = REPO.parent / "shared" / "datasets" / "art"
READY = "1234m456p789sEEE"  # 13 standing tiles, waiting on 1m 4m (the browser test's row)
OTHER_READY = "23456p77s345678m"  # 13 standing tiles, waiting on 1p 4p 7p


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fps", type=int, default=15, help="frame rate of the fake camera's video (default 15)")
    parser.add_argument("--view-seconds", type=float, default=4.0, help="seconds each view is shown (default 4)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds the page is watched (default 60)")
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args(argv)
    if args.fps < 1 or args.view_seconds <= 0 or args.seconds <= 0:
        parser.error("--fps must be >= 1, --view-seconds and --seconds > 0")
    if not (MODELS_DIR / "detector.onnx").exists():
        print(f"no shipped model in {MODELS_DIR}", file=sys.stderr)
        return 2
    if not ART.is_dir():
        print(f"no tile artwork at {ART} to render rows the model can read", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    from datasets.art import load_art

    art = next(a for a in load_art(ART, only=["gl-mahjongtile"]) if a.name == "gl-mahjongtile")
    plan = [(row_scene("ready", READY, art, (44, 62)), args.view_seconds), (empty_scene(), args.view_seconds),
            (row_scene("other", OTHER_READY, art, (44, 62)), args.view_seconds), (empty_scene(), args.view_seconds)]
    video = Path(tempfile.mkdtemp(prefix="mcr-live-bench-")) / "table.y4m"
    write_video(video, plan, fps=args.fps)
    views_with_waits: set[str] = set()  # views whose panel showed a ready hand's waits
    with sync_playwright() as playwright, live_page(playwright, video, {}) as (page, _):
        wait_for_panel(page, r"Tiles in view: 13", timeout_ms=120_000)
        first_view = page.evaluate("+document.querySelector('[data-live-view]').dataset.liveView")
        page.evaluate("window.__live.rates = []")  # from the first steady row on
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            view = page.evaluate("document.querySelector('[data-live-view]')?.dataset.liveView")
            if view is not None and "Unseen" in panel_text(page):
                views_with_waits.add(view)
            page.wait_for_timeout(200)
        # the view shown when watching began came before it: its lag is not counted
        page.evaluate("v => { for (const k in window.__live.views) if (+k <= v) delete window.__live.views[k]; }", first_view)
        report = lag_report(page)
        tiles_shown = page.evaluate("Object.values(window.__live.views).filter(v => v.shown).map(v => v.tiles)")
    result = {"video_fps": args.fps, "view_seconds": args.view_seconds, "watched_s": args.seconds,
              "cpus": os.cpu_count(),
              "views_13_tiles": sum(n == 13 for n in tiles_shown), "views_other_counts": sorted(n for n in tiles_shown if n != 13),
              "views_with_waits": len({v for v in views_with_waits if int(v) > first_view}), **report}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"live page in Chromium, fake camera at {args.fps} fps, rows of 13 standing tiles, shipped models, "
          f"{result['cpus']} cpus:")
    for key, value in result.items():
        print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
