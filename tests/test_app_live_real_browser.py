"""The live page in Chromium with a fake camera playing real photos of standing tiles, the shipped models
reading them: each still view is read frame after frame and the frames fused, so its reading gets at least as
many tiles right as the best single frame fused into it; the camera's square picture arrives whole; a tile the
frames read as two faces is the doubt.

The views: two japanese-layout frames (a real webcam, a set the models never saw) and a chinese-v4 test photo
of one standing row, each held for `VIEW_S` seconds; the labels judge the tiles.  The panel lag and rates are
printed (`-s`), never asserted (`benchmarks/live_browser.py --real` measures them).
Skipped, with the reason, without Chromium, Playwright, the shipped models or the shared real photos.
"""

from __future__ import annotations

import json
import os

import cv2
import pytest
from browser_support import REPO, require_browser
from live_browser_support import lag_report, live_page, views_read, wait_for_panel
from live_scenes import Scene, in_scene_pixels, real_scene, scene_of, standing_rows, tiles_right, write_video

from appui.settings import LIVE_FRAMES_ENV

pytestmark = pytest.mark.slow
REAL = REPO.parent / "shared" / "datasets" / "real"
VIEW_S = 10.0
VIDEO_FPS = 8  # Chromium plays the file a frame per tick: on busy shared cores a loop takes longer than its seconds


@pytest.fixture(scope="module")
def real_views():
    from vision.settings import MODELS_DIR

    if not (MODELS_DIR / "detector.onnx").exists():
        pytest.skip(f"no shipped model in {MODELS_DIR}")
    frames, photos = REAL / "japanese-layout" / "images", REAL / "chinese-v4" / "images" / "test"
    if not frames.is_dir() or not photos.is_dir():
        pytest.skip(f"the real photos are not at {REAL} (shared/datasets/real)")
    return [real_scene(p) for p in (*standing_rows(frames)[:2], *standing_rows(photos)[:1])]


def test_a_still_real_view_reads_at_least_as_many_tiles_right_as_its_best_single_frame(real_views, tmp_path):
    require_browser()
    from playwright.sync_api import sync_playwright

    plan = [(scene, VIEW_S) for scene in real_views]
    loop_s = write_video(tmp_path / "table.y4m", plan, fps=VIDEO_FPS)
    with sync_playwright() as playwright, live_page(playwright, tmp_path / "table.y4m", {LIVE_FRAMES_ENV: "1"}) as (page, _):
        wait_for_panel(page, r"Tiles in view: [1-9]", timeout_ms=120_000)
        page.wait_for_timeout(int(2.2 * loop_s * 1000))  # every view held whole at least once
        report = lag_report(page)
        shown = views_read(page)
    print("\nlive page, fake camera, real photos, shipped models:", json.dumps(report), "load", os.getloadavg())
    width, height = (int(v) for v in report["camera_frame"].split("x"))
    assert width == height, report["camera_frame"]  # the square camera's whole picture, not a 4:3 crop of it
    judged = []
    for view in shown:
        if view["last"] - view["shown"] < 0.6 * VIEW_S or not view.get("frames"):
            continue  # a view caught as the video moved on: not held long enough to judge
        read = in_scene_pixels(view["read"], view["frame"], real_views[0])  # the photos are one size
        scene = scene_of(read, real_views)
        assert scene is not None, view["read"]
        right = tiles_right(read, scene.tiles)[0]
        singles = [tiles_right(in_scene_pixels(f, view["frame"], scene), scene.tiles)[0] for f in view["frames"]]
        judged.append((scene.name, right, max(singles), len(view["frames"])))
    assert {name for name, *_ in judged} == {scene.name for scene in real_views}, judged
    assert all(right >= best for _, right, best, _ in judged), judged
    assert all(fused > 1 for *_, fused in judged), judged  # many frames fused, not one


def test_a_real_tile_misread_in_some_frames_shows_as_a_doubt(real_views, tmp_path):
    """The japanese-layout row of dots held still, its 5 dots covered by the set's own East in one frame of three
    (as a hand passing over it, or a reflection, would make the reader see another face): the panel reads the 5
    dots, as most frames do, and says the frames disagree on a tile. (Covering the 9 dots, as this test did before
    `cut_by_edge`, made a doubt only with the false box of the tile the frame's edge cuts beside the row: 1p-8p with
    9p or E are both one from ready.)"""
    require_browser()
    from playwright.sync_api import sync_playwright

    frames = REAL / "japanese-layout" / "images"
    row = {scene.tiles[0][0]: scene for scene in (real_scene(p) for p in standing_rows(frames))}
    dots, honours = row["1p"], row["F"]
    x1, y1, x2, y2 = (round(v) for v in next(b for c, b in dots.tiles if c == "5p"))
    e1, f1, e2, f2 = (round(v) for v in next(b for c, b in honours.tiles if c == "E"))
    covered = dots.image_bgr.copy()
    covered[y1:y2, x1:x2] = cv2.resize(honours.image_bgr[f1:f2, e1:e2], (x2 - x1, y2 - y1), interpolation=cv2.INTER_AREA)
    other = Scene("dots-covered", covered, dots.tiles)
    plan = [(frame, 1 / VIDEO_FPS) for _ in range(round(VIEW_S * VIDEO_FPS / 3)) for frame in (dots, dots, other)]
    write_video(tmp_path / "table.y4m", plan, fps=VIDEO_FPS)
    with sync_playwright() as playwright, live_page(playwright, tmp_path / "table.y4m", {}) as (page, _):
        wait_for_panel(page, r"the frames disagree on[\s\S]*4p\n五\n筒\n5p\n六", timeout_ms=120_000)
        print("\nlive page, a real tile misread in one frame of three:", json.dumps(lag_report(page)))
