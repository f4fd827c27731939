"""A phone at the table: the app started in LAN mode (`python -m appui.lan serve`, what
`scripts/app.sh --lan` runs), opened over HTTPS by headless Chromium with a phone's viewport
(390x844) and a fake camera playing a rendered scene.  Traffic goes to 127.0.0.1 only.

Refused without the access code, opened with it, a photo scored (the context asked first), a tile
fixed right under its row, the live page reading the hand from the camera.  Screenshots for the
README go to docs/phone-*.png when MCR_UPDATE_SCREENSHOTS=1, to a temporary folder otherwise.
"""

import os
import tempfile
from pathlib import Path

import cv2
import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    FAKE_CAMERA_ARGS,
    REPO,
    app_log_path,
    require_browser,
    small_png,
    start_camera_until,
    streamlit_process,
    wait_for_app,
    write_y4m,
)

from appui.demo_scene import demo_scene, write_truth
from scoring import parse_hand, score

DOCS = REPO / "docs" if os.environ.get("MCR_UPDATE_SCREENSHOTS") == "1" else Path(tempfile.mkdtemp(prefix="mcr-phone-"))
HAND = "[123m] [EEE] (5555p) 78s11p +9s flowers=2"
CODE = "482913"
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 60_000


# the text of buttons and labels wider than its box (cut or ellipsised); icons are not text
CUT_TEXT_JS = """() => [...document.querySelectorAll(
        '[data-testid=stMain] button, [data-testid=stMain] button p, [data-testid=stMain] label, '
        + '[data-testid=stMain] label p')]
    .filter(e => e.offsetParent !== null && e.innerText.trim() && !e.closest('[data-testid=stIconMaterial]'))
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.innerText)"""


def enter_code(page, code: str) -> None:  # type: ignore[no-untyped-def]
    page.locator("input[type=password]").fill(code)
    page.get_by_role("button", name="Enter").click()
    wait_for_app(page, TIMEOUT_MS)


def total_on_page(page) -> int:  # type: ignore[no-untyped-def]
    values = page.get_by_test_id("stMetricValue").all_inner_texts()
    assert len(values) == 1, values
    return int(values[0])


@pytest.mark.slow
def test_phone_over_lan_https_code_photo_fix_and_live(tmp_path):
    require_browser()
    from playwright.sync_api import sync_playwright

    scene = demo_scene(parse_hand(HAND), seed=1)
    (tmp_path / "scene.jpg").write_bytes(scene.jpeg())
    write_truth(scene, tmp_path / "truth.json")
    write_y4m(tmp_path / "scene.y4m", cv2.resize(scene.image_bgr, (640, 480), interpolation=cv2.INTER_AREA))
    env = {
        "MCR_DATA": str(tmp_path / "data"), "MCR_ACCESS_CODE": CODE,
        "MCR_DETECTOR": "appui.demo_scene:truth_detector", "MCR_DEMO_TRUTH": str(tmp_path / "truth.json"),
    }
    camera = [*FAKE_CAMERA_ARGS, f"--use-file-for-fake-video-capture={tmp_path / 'scene.y4m'}"]
    with streamlit_process(["lan"], env, https=True) as (port, terminal), sync_playwright() as p:
        assert f"Access code:  {CODE}" in terminal
        url = f"https://127.0.0.1:{port}"
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS + camera)
        context = chromium.new_context(viewport=PHONE, ignore_https_errors=True, is_mobile=True, has_touch=True)
        page = context.new_page()

        # refused without the code: no page, not even by its own URL
        page.goto(f"{url}/live")
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_text("Enter the access code").wait_for(timeout=TIMEOUT_MS)
        assert page.locator("input[type=file]").count() == 0 and page.locator("iframe").count() == 0
        enter_code(page, "000000")
        page.get_by_text("That is not the code").wait_for(timeout=TIMEOUT_MS)
        small_png(page.screenshot(), DOCS / "phone-code.png")

        page.goto(url)
        wait_for_app(page, TIMEOUT_MS)
        enter_code(page, CODE)
        page.get_by_role("heading", name="Score a photo").wait_for(timeout=TIMEOUT_MS)
        page.locator("input[type=file]").set_input_files(str(tmp_path / "scene.jpg"))
        page.get_by_text("to see the total", exact=False).wait_for(timeout=TIMEOUT_MS)
        wait_for_app(page, TIMEOUT_MS)
        assert page.get_by_test_id("stMetricValue").count() == 0  # the context comes before any total
        small_png(page.screenshot(), DOCS / "phone-context.png")

        for key, answer in (("photo-seat", "E 东"), ("photo-prevalent", "E 东"), ("photo-won_by", "Self-drawn")):
            page.locator(f".st-key-{key}").get_by_text(answer, exact=True).click()
            wait_for_app(page, TIMEOUT_MS)
        page.get_by_test_id("stMetricValue").wait_for(timeout=TIMEOUT_MS)
        wait_for_app(page, TIMEOUT_MS)
        assert total_on_page(page) == score(parse_hand(HAND + " self-drawn")).total
        assert page.evaluate(CUT_TEXT_JS) == []  # no button or label cut at 390 px
        # the result and the fix on a phone: tests/test_app_phone_browser.py (docs/phone-result.png, phone-fix.png)

        # the 7s won (closed wait), not the 9s: tap it, its editor opens right under the row
        page.get_by_role("button", name="7 Bam", exact=True).click()
        wait_for_app(page, TIMEOUT_MS)
        editor = page.locator(".st-key-photo_editor")
        editor.wait_for(timeout=TIMEOUT_MS)
        tile_box = page.get_by_role("button", name="7 Bam", exact=True).bounding_box()
        editor_box = editor.bounding_box()
        assert 0 <= editor_box["y"] - tile_box["y"] < PHONE["height"], (tile_box, editor_box)  # right there
        page.get_by_role("button", name="Make it the winning tile").click()
        wait_for_app(page, TIMEOUT_MS)
        corrected = "[123m] [EEE] (5555p) 89s11p +7s flowers=2 self-drawn"
        assert total_on_page(page) == score(parse_hand(corrected)).total

        # the live page from the phone's camera, over the LAN connection (no STUN/TURN)
        page.goto(f"{url}/live")
        wait_for_app(page, TIMEOUT_MS)
        assert page.locator("input[type=password]").count() == 0  # this browser entered the code: it keeps it

        def reopen() -> None:  # a reloaded page is a new session of the same browser: no code asked
            page.reload()
            wait_for_app(page, TIMEOUT_MS)

        start_camera_until(page, f"Tiles in view: {len(scene.tiles)}", app_log_path(port), timeout_ms=TIMEOUT_MS,
                           reopen=reopen)
        small_png(page.screenshot(), DOCS / "phone-live.png")
        chromium.close()


@pytest.mark.slow
def test_no_camera_gets_a_player_message(tmp_path):
    """Chromium without any camera: the live page says what to do in words, beside the component's
    own 'NotFoundError' (streamlit-webrtc prints that one raw; it is not among its translations)."""
    require_browser()
    from playwright.sync_api import sync_playwright

    scene = demo_scene(parse_hand(HAND), seed=1)
    write_truth(scene, tmp_path / "truth.json")
    env = {"MCR_DATA": str(tmp_path / "data"), "MCR_DETECTOR": "appui.demo_scene:truth_detector",
           "MCR_DEMO_TRUTH": str(tmp_path / "truth.json")}
    with streamlit_process([], env, https=False) as (port, _), sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport=PHONE)
        page.goto(f"http://127.0.0.1:{port}/live")
        wait_for_app(page, TIMEOUT_MS)
        frame = page.frame_locator("iframe").first
        frame.get_by_role("button", name="START").click(timeout=TIMEOUT_MS)
        frame.get_by_text("Requested device not found", exact=False).wait_for(timeout=TIMEOUT_MS)
        hint = page.get_by_text("No camera? Allow the camera", exact=False)
        assert hint.count() == 1 and hint.is_visible()
        assert "Score a photo" in hint.inner_text()
        chromium.close()
