"""The live page in Chromium with a fake camera: a looping video of a ready row of 13 standing tiles,
an empty table, 9 standing tiles, a finished hand whose winning tile some readings misread, tiles in many
groups and scattered tiles.

The server's detector knows the scenes (`live_scenes.SceneDetector`: the boxes of the scene a frame
looks most like), so the whole live loop runs (thumbnails, reader thread, votes, layout reader,
analysis, panel) without a model on two shared cores; `benchmarks/live.py` (in process) and
`benchmarks/live_browser.py` (this page in Chromium) time the real models.
The panel lag (from the first changed frame reaching the server to the browser showing the new
reading) and the analysed rates are printed (`-s`), never asserted.

Screenshots go to docs/ when MCR_UPDATE_SCREENSHOTS=1, to a temporary folder otherwise.
Skipped, with the reason, when Chromium (scripts/install_browser.sh) or Playwright is missing.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import cv2
import numpy as np
import pytest
from browser_support import REPO, require_browser, small_png
from live_browser_support import TIMEOUT_MS, lag_report, live_page, panel_text, wait_for_panel
from live_scenes import (
    empty_scene,
    finished_scene,
    groups_scene,
    row_scene,
    scattered_scene,
    write_scenes,
    write_video,
)

import vision.read  # noqa: F401 - the pages import it lazily and show a message if they cannot: fail here instead
from appui.overlay import GROUP_COLOURS
from scoring import parse_hand, score
from scoring.notation import parse_tiles

pytestmark = pytest.mark.slow
DOCS = REPO / "docs" if os.environ.get("MCR_UPDATE_SCREENSHOTS") == "1" else Path(tempfile.mkdtemp(prefix="mcr-shots-"))
READY = "1234m456p789sEEE"  # waits on 1m and 4m
NINE = "123m456p7sEW"  # two steps from ready (read as a hand with a meld out of view)
FINISHED = "23m789m123p789p99s +4m flowers=4"  # read as won on a 1m in two readings of three: Outside Hand
AS_READ = FINISHED.replace("+4m", "+1m")
SCATTERED = "13579m2468p159sESWNCF"  # 18 tiles lying apart
GROUPS = ["12m", "5p", "EE", "9s", "C", "7m", "2s"]  # seven meld groups: meld0..meld6
SCENES = [
    (row_scene("ready", READY), 5.0),
    (empty_scene(), 2.5),
    (row_scene("nine", NINE), 5.0),
    (finished_scene("finished", FINISHED, unsure=("s1",), misread_win=("1m", 3)), 8.0),  # a flower read unsure too
    (groups_scene("groups", GROUPS, "3p4p6s"), 4.0),
    (scattered_scene("scattered", SCATTERED), 4.0),
]
VIDEO_FPS = 8  # Chromium plays the file a frame per tick: on busy shared cores a loop takes longer than its seconds
LOOP_MS = 1000 * sum(s for _, s in SCENES)
WAIT_MS = 8 * LOOP_MS  # a state comes round once a loop
FACE_BGR = np.array((214, 236, 244))  # the glyph tiles' cream face


@pytest.fixture(scope="module")
def playwright():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def live(tmp_path_factory, playwright):
    """The live page with the camera started on the scene video: (page, server log path)."""
    folder = tmp_path_factory.mktemp("live")
    write_scenes(folder / "scenes", [scene for scene, _ in SCENES])
    write_video(folder / "table.y4m", SCENES, fps=VIDEO_FPS)
    env = {
        "MCR_DETECTOR": "live_scenes:scene_detector",
        "MCR_LIVE_SCENES": str(folder / "scenes"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "tests"), os.environ.get("PYTHONPATH")])),
    }
    with live_page(playwright, folder / "table.y4m", env) as opened:
        yield opened


def test_a_row_of_13_standing_tiles_shows_its_waits(live):
    page, _ = live
    wait_for_panel(page, r"Tiles in view: 13[\s\S]*Unseen", timeout_ms=WAIT_MS)
    table = page.locator("[data-testid=stTable]", has_text="Unseen").first.inner_text()
    rows = [line for line in table.splitlines() if re.search(r"\b[1-9][mps]\b", line)]
    assert [re.search(r"\b([1-9][mps])\b", r).group(1) for r in rows][:2] == ["1m", "4m"], table
    screenshot_when_the_video_shows_a_row(page, DOCS / "live.png")


def screenshot_when_the_video_shows_a_row(page, path: Path, tries: int = 40) -> None:  # type: ignore[no-untyped-def]
    """The README's picture: the page once the video, too, shows the standing row (on busy cores the
    video the browser plays can trail the panel)."""
    page.mouse.move(5, 5)  # no video controls over the picture
    video = page.frame_locator("iframe[title*=webrtc]").first.locator("video")
    for _ in range(tries):
        image = cv2.imdecode(np.frombuffer(video.screenshot(timeout=TIMEOUT_MS), np.uint8), cv2.IMREAD_COLOR)
        faces = (np.abs(image.astype(int) - FACE_BGR).sum(axis=2) < 60)
        height = image.shape[0]
        if faces.sum() > 500 and faces[int(0.38 * height):int(0.62 * height)].sum() > 0.95 * faces.sum() and "Unseen" in panel_text(page):
            small_png(page.screenshot(), path)
            return
        page.wait_for_timeout(150)
    small_png(page.screenshot(), path)


LAYOUT_ERRORS = ("the group", "has 1 tiles", "not a chow", "winning tile is", "tiles plus the winning tile")


def test_nine_tiles_show_the_shanten_and_no_layout_error(live):
    page, _ = live
    wait_for_panel(page, r"Tiles in view: 9\b[\s\S]*From ready\s*2", timeout_ms=WAIT_MS)
    text = panel_text(page)
    assert not any(e in text.lower() for e in LAYOUT_ERRORS), text
    assert page.locator("[data-testid=stException]").count() == 0


def test_a_finished_hand_shows_no_total_before_won_by(live):
    page, _ = live
    expected = score(parse_hand(AS_READ + " seat=E")).total
    for _ in range(4):  # the hand is in view 8 s of each loop of the video: a click may come as it leaves
        wait_for_panel(page, r"How was it won", timeout_ms=WAIT_MS)
        assert "Total" not in page.locator("[data-testid=stMetric]").all_inner_texts().__str__()
        try:
            page.locator(".st-key-live-won_by").get_by_text("Discard", exact=True).click(timeout=3_000)
            wait_for_panel(page, rf"Total\s*{expected}\b", timeout_ms=6_000)
            return
        except Exception:
            continue
    pytest.fail(f"no total {expected} after answering Won by; the page showed {panel_text(page)[-800:]!r}")


def overlay_and_face_pixels(png: bytes) -> tuple[int, int]:
    """(pixels in a box colour, pixels of a tile's cream face) of a video screenshot, its banner left out."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).astype(int)
    image = image[int(0.12 * image.shape[0]):]
    boxes = sum(int((np.abs(image - np.array(c)).sum(axis=2) < 40).sum()) for c in set(GROUP_COLOURS.values()))
    faces = int((np.abs(image - FACE_BGR).sum(axis=2) < 60).sum())
    return boxes, faces


def test_a_change_of_view_clears_the_old_boxes(live):
    """Every frame of the empty table the video shows has no box on it, from its first frame on."""
    page, _ = live
    video = page.frame_locator("iframe[title*=webrtc]").first.locator("video")
    empty_frames, boxed_frames = 0, 0
    deadline = page.evaluate("Date.now()") + WAIT_MS
    while page.evaluate("Date.now()") < deadline and (empty_frames < 5 or boxed_frames < 5):
        shot = video.screenshot(timeout=TIMEOUT_MS)
        boxes, faces = overlay_and_face_pixels(shot)
        if faces < 30:  # the empty table
            empty_frames += 1
            if boxes:
                (DOCS.parent if DOCS.name == "docs" else DOCS).joinpath("boxes-on-empty.png").write_bytes(shot)
            assert boxes == 0, f"{boxes} box pixels drawn on the empty table (boxes-on-empty.png in {DOCS})"
        elif boxes > 200:
            boxed_frames += 1
    assert empty_frames >= 5 and boxed_frames >= 5, (empty_frames, boxed_frames)


def test_tiles_in_many_groups_and_scattered_raise_nothing(live):
    """The groups scene's single tiles and pairs are no melds: shown with the standing tiles, none as 'meld n'."""
    page, log = live
    in_groups = sum(len(parse_tiles(g)) for g in GROUPS) + 3
    wait_for_panel(page, rf"Tiles in view: {in_groups}\b", timeout_ms=WAIT_MS)
    assert not re.search(r"meld \d", panel_text(page)), panel_text(page)
    wait_for_panel(page, rf"Tiles in view: {len(parse_tiles(SCATTERED))}\b", timeout_ms=WAIT_MS)  # the scattered tiles
    assert page.locator("[data-testid=stException]").count() == 0
    server = log.read_text(errors="replace")
    assert "Traceback" not in server, server[-3000:]


def test_panel_lag_and_rates_are_reported(live):
    """Printed for the closing note: the lag of each new reading and the analysed rates."""
    page, _ = live
    page.wait_for_timeout(2_000)
    report = lag_report(page)
    print("\nlive page, fake camera, scene detector:", json.dumps(report))
    assert report["views_shown"] and report["analysed_frames_per_s_median"] is not None, report


def test_the_misread_winning_tile_is_the_doubt_with_its_total_and_a_flowers_fix_offers_flowers(live):
    """The finished hand held (the toggle): the winning tile most readings took for a 1m is the doubt beside the
    total, with the total as a 4m; the flower read unsurely is none.  The flower's fix offers flowers; the
    winning tile's one-tap 4m gives that total and the hand is kept while the video moves on; the big total;
    the fix undone (docs/live-fix.png, docs/live-big.png)."""
    page, _ = live
    misread, right = (score(parse_hand(h + " seat=E")).total for h in (AS_READ, FINISHED))
    assert misread != right
    hold = page.get_by_text("Hold this reading", exact=True).first
    for _ in range(6):  # the hand is in view 8 s of each loop: the hold may catch the next view
        wait_for_panel(page, r"A finished hand[\s\S]*read so in", timeout_ms=WAIT_MS)
        hold.click()
        wait_for_panel(page, r"Held:", timeout_ms=10_000)
        page.wait_for_timeout(1_000)  # the panel redrawn with the reading held
        if re.search(r"A finished hand[\s\S]*read so in", panel_text(page)):
            break
        hold.click()
        wait_for_panel(page, r"^(?![\s\S]*Held:)", timeout_ms=10_000)
    else:
        pytest.fail(f"never held the finished hand; the page showed {panel_text(page)[-800:]!r}")
    if "How was it won" in panel_text(page):
        page.locator(".st-key-live-won_by").get_by_text("Discard", exact=True).click()
    wait_for_panel(page, rf"Total\s*{misread}\b[\s\S]*Check the 1 character 一万 \(winning tile\), read so in \d+ of \d+ "
                         rf"frames: as 4 characters 四万 the total is {right} \({right - misread}\)", timeout_ms=10_000)
    text = panel_text(page)
    assert "Spring" not in text.split("Check the")[1].split("Fix a tile")[0], text  # the flower is no doubt
    page.locator("[class*=st-key-live_tile_]").get_by_role("button", name="Spring", exact=True).first.click(timeout=10_000)
    editor = page.locator(".st-key-live_editor")
    editor.get_by_text("It may be:").wait_for(timeout=10_000)
    one_tap = editor.locator("[class*=st-key-live-fix-]")  # the one-tap faces (keys live.fix.<face>)
    one_tap.first.wait_for(timeout=10_000)
    offered = [b.strip() for b in one_tap.all_inner_texts()]
    flowers = {"Plum", "Orchid", "Mum", "Bam fl.", "Summer", "Autumn", "Winter"}
    assert len(offered) == 4 and set(offered) <= flowers, offered
    editor.get_by_role("button", name="Close", exact=True).click()
    winning = page.locator("[class*=st-key-live_doubt_]").get_by_role("button", name="1 Char", exact=True).first
    winning.click(timeout=10_000)  # framed as doubted, in the fix panel open for the doubt
    wait_for_panel(page, r"Fix this tile: 1 character 一万[\s\S]*It may be:", timeout_ms=10_000)
    editor.get_by_role("button", name="4 Char", exact=True).wait_for(timeout=10_000)
    page.mouse.move(5, 5)
    page.set_viewport_size({"width": 1300, "height": 1900})  # the panel whole: total, doubt, tiles, editor
    page.wait_for_timeout(500)
    small_png(page.screenshot(), DOCS / "live-fix.png")
    page.set_viewport_size({"width": 1300, "height": 1000})
    editor.get_by_role("button", name="4 Char", exact=True).click(timeout=10_000)
    wait_for_panel(page, r"4 Char ✎", timeout_ms=10_000)
    page.wait_for_timeout(3_000)  # the video goes on to other views: the panel keeps the fixed hand
    text = panel_text(page)
    assert "4 Char ✎" in text and re.search(rf"Total\s*{right}\b", text) and "1 correction(s) made" in text, text
    assert "Check the" not in text  # the tile the reader doubted is the player's now
    page.get_by_text("Big total for the table", exact=True).first.click()
    big = page.locator("[data-testid=live-big-total]").first
    big.wait_for(timeout=10_000)
    assert big.inner_text().strip() == str(right)
    small_png(page.screenshot(), DOCS / "live-big.png")
    page.get_by_text("Big total for the table", exact=True).first.click()
    big.wait_for(state="detached", timeout=10_000)
    page.get_by_role("button", name="Undo all corrections").first.click(timeout=10_000)
    wait_for_panel(page, r"^(?![\s\S]*✎)", timeout_ms=10_000)
    assert "1 Char" in panel_text(page)
    hold.click()


def test_live_page_with_the_shipped_model(tmp_path, playwright):
    """The real models on a row of standing tiles in another artwork (gl-mahjongtile, Unlicense): the
    waits, docs/live-model.png, and the lag and rates with the models on these cores."""
    from vision.settings import MODELS_DIR

    if not (MODELS_DIR / "detector.onnx").exists():
        pytest.skip(f"no shipped model in {MODELS_DIR}")
    art_root = REPO.parent / "shared" / "datasets" / "art"
    if not art_root.is_dir():
        pytest.skip(f"no tile artwork at {art_root} to render a scene the model can read")
    from datasets.art import load_art

    art = next(a for a in load_art(art_root, only=["gl-mahjongtile"]) if a.name == "gl-mahjongtile")
    plan = [(row_scene("ready", READY, art, (44, 62)), 6.0), (empty_scene(), 2.5),
            (row_scene("nine", NINE, art, (44, 62)), 5.0)]
    write_video(tmp_path / "table.y4m", plan, fps=VIDEO_FPS)
    with live_page(playwright, tmp_path / "table.y4m", {}) as (page, _):
        wait_for_panel(page, r"Tiles in view: 13[\s\S]*Unseen", timeout_ms=WAIT_MS)
        table = page.locator("[data-testid=stTable]", has_text="Unseen").first.inner_text()
        assert re.search(r"\b1m\b", table) and re.search(r"\b4m\b", table), table
        page.mouse.move(5, 5)  # no video controls over the picture
        page.wait_for_timeout(500)
        small_png(page.screenshot(), DOCS / "live-model.png")
        wait_for_panel(page, r"Tiles in view: 9\b", timeout_ms=WAIT_MS)
        wait_for_panel(page, r"Tiles in view: 13\b", timeout_ms=WAIT_MS)
        print("\nlive page, fake camera, shipped models:", json.dumps(lag_report(page)))
