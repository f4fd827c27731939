"""The app in a real browser: Debian's Chromium, headless and offline, driven by Playwright.

A `streamlit run app.py` subprocess serves the app; the detector is the truth detector of a
generated scene (`MCR_DETECTOR=appui.demo_scene:truth_detector`), so the photo flow runs end to
end without a trained model (the live page: tests/test_app_live_browser.py).  Screenshots go to docs/ for the README when
MCR_UPDATE_SCREENSHOTS=1, to a temporary folder otherwise.
Skipped, with the reason, when Chromium (scripts/install_browser.sh) or Playwright is missing.
"""

import os
import tempfile
from pathlib import Path

import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    REPO,
    require_browser,
    small_png,
    streamlit_server,
    wait_for_app,
)

import vision.read  # noqa: F401 - the pages import it lazily and show a message if they cannot: fail here instead
from appui.demo_scene import demo_scene, write_truth
from scoring import parse_hand, score

# The README's screenshots are refreshed only on request, so a test run leaves the tree clean:
#   MCR_UPDATE_SCREENSHOTS=1 .venv/bin/pytest tests/test_app_browser.py
DOCS = REPO / "docs" if os.environ.get("MCR_UPDATE_SCREENSHOTS") == "1" else Path(tempfile.mkdtemp(prefix="mcr-shots-"))
HAND = "[123m] [EEE] (5555p) 78s11p +9s flowers=2"
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


def launch(playwright, extra_args=()):  # type: ignore[no-untyped-def]
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS + list(extra_args))


def total_on_page(page) -> int:  # type: ignore[no-untyped-def]
    values = page.get_by_test_id("stMetricValue").all_inner_texts()
    assert len(values) == 1, values
    return int(values[0])


@pytest.fixture(scope="module")
def scene_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scene")
    scene = demo_scene(parse_hand(HAND), seed=1)
    (folder / "scene.jpg").write_bytes(scene.jpeg())
    write_truth(scene, folder / "truth.json")
    return folder


def upload_photo(chromium, url: str, photo: Path, height: int, ready: str):  # type: ignore[no-untyped-def]
    """A page of the photo page with `photo` uploaded, once the element `ready` picks is shown."""
    page = chromium.new_page(viewport={"width": 1300, "height": height})
    page.goto(url)  # the photo page is the start page
    wait_for_app(page, TIMEOUT_MS)
    page.locator("input[type=file]").set_input_files(str(photo))
    page.locator(ready).wait_for(timeout=TIMEOUT_MS)
    wait_for_app(page, TIMEOUT_MS)
    return page


def answer_won_by(page, answer: str) -> None:  # type: ignore[no-untyped-def]
    """The photo page asks the winds (East, East here) and how the hand was won before it shows a total."""
    for key in ("photo-seat", "photo-prevalent"):
        page.locator(f".st-key-{key}").get_by_text("E 东", exact=True).click()
        wait_for_app(page, TIMEOUT_MS)
    page.locator(".st-key-photo-won_by").get_by_text(answer, exact=True).click()
    wait_for_app(page, TIMEOUT_MS)


def truth_env(truth: Path) -> dict[str, str]:
    return {"MCR_DETECTOR": "appui.demo_scene:truth_detector", "MCR_DEMO_TRUTH": str(truth)}


@pytest.mark.slow
def test_manual_page_scores_a_typed_hand(browser):
    text = "[123m] [EEE] 456p 78s 11s +9s seat=S prevalent=W"
    with streamlit_server({}) as url:
        chromium = launch(browser)
        page = chromium.new_page(viewport={"width": 1300, "height": 2300})
        page.goto(f"{url}/manual")
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_role("textbox", name="Or type the hand in notation").fill(text)
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Load").click()
        page.get_by_test_id("stMetricValue").wait_for(timeout=TIMEOUT_MS)
        wait_for_app(page, TIMEOUT_MS)
        assert total_on_page(page) == score(parse_hand(text)).total
        page.get_by_test_id("stTable").first.scroll_into_view_if_needed()  # drawn once on screen
        page.get_by_text("Mixed Straight").first.wait_for(timeout=TIMEOUT_MS)
        small_png(page.screenshot(), DOCS / "manual.png")
        chromium.close()


@pytest.mark.slow
def test_photo_flow_upload_score_correct(browser, scene_files):
    with streamlit_server(truth_env(scene_files / "truth.json")) as url:
        chromium = launch(browser)
        page = upload_photo(chromium, url, scene_files / "scene.jpg", 2300, ready="text=to see the total")
        assert page.get_by_text("Tiles found: 17", exact=False).count() == 1
        answer_won_by(page, "Discard")
        assert total_on_page(page) == score(parse_hand(HAND)).total

        # the 7s was the winning tile (closed wait), not the 9s
        page.get_by_role("button", name="7 Bam", exact=True).first.click()
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_role("button", name="Make it the winning tile").click()
        wait_for_app(page, TIMEOUT_MS)
        corrected = "[123m] [EEE] (5555p) 89s11p +7s flowers=2"
        assert total_on_page(page) == score(parse_hand(corrected)).total != score(parse_hand(HAND)).total
        small_png(page.screenshot(), DOCS / "photo.png")
        chromium.close()


MODEL_HAND = "[123m] [EEE] 456p 78s 11s +9s"  # no flowers: gl-mahjongtile borrows some from other sets


@pytest.fixture
def model_scene():
    """render(width, height) -> (image, tiles) of MODEL_HAND for the shipped model; skips without model or artwork."""
    import random

    from vision.settings import MODELS_DIR

    if not (MODELS_DIR / "detector.onnx").exists():
        pytest.skip(f"no shipped model in {MODELS_DIR}")
    art_root = REPO.parent / "shared" / "datasets" / "art"
    if not art_root.is_dir():
        pytest.skip(f"no tile artwork at {art_root} to render a scene the model can read")
    from datasets.art import load_art
    from datasets.render import render_scene

    art = next(a for a in load_art(art_root) if a.name == "gl-mahjongtile")  # Unlicense artwork: the screenshot ships
    return lambda width, height: render_scene(parse_hand(MODEL_HAND), art, random.Random(3), width, height)


@pytest.mark.slow
def test_photo_flow_with_the_shipped_model(browser, tmp_path, model_scene):
    import cv2

    hand = parse_hand(MODEL_HAND)
    image, tiles = model_scene(1600, 1200)
    cv2.imwrite(str(tmp_path / "table.jpg"), image)
    with streamlit_server({}) as url:
        chromium = launch(browser)
        page = upload_photo(chromium, url, tmp_path / "table.jpg", 2000, ready="text=Tiles found")
        found = int(page.get_by_text("Tiles found").inner_text().split(": ")[1].split(" ")[0])
        assert found >= 0.8 * len(tiles), (found, len(tiles))
        answer_won_by(page, "Discard")
        if page.get_by_text("The reader is sure of every tile").count():
            assert total_on_page(page) == score(hand).total
        small_png(page.screenshot(), DOCS / "photo-model.png")
        chromium.close()
