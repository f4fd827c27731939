"""The Teach my tiles page in a real browser (Chromium, Playwright) with the shipped models: two rendered
calibration photos of a set drawn by the tests (`tests/held_out_art.py`, two angles) are uploaded together and
every tile of each is named by its place. Learning is not clicked (it would write a version into the repository's
models/). The README's screenshot is refreshed with MCR_UPDATE_SCREENSHOTS=1; skipped, with the reason, without
Chromium."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import cv2
import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, REPO, require_browser, small_png, streamlit_server, wait_for_app

from vision.settings import MODELS_DIR

DOCS = REPO / "docs" if os.environ.get("MCR_UPDATE_SCREENSHOTS") == "1" else Path(tempfile.mkdtemp(prefix="mcr-shots-"))
TIMEOUT_MS = 120_000


@pytest.mark.slow
def test_teach_page_names_every_tile_of_a_calibration_photo(tmp_path: Path) -> None:
    require_browser()
    if not (MODELS_DIR / "detector.onnx").exists():
        pytest.skip(f"no shipped model in {MODELS_DIR}")
    import numpy as np
    from held_out_art import DRAWN_SEED, write_held_out_art
    from playwright.sync_api import sync_playwright

    from datasets.art import load_art
    from datasets.render import compose, draw_style
    from datasets.restyle import drawn_set
    from datasets.scene import plan_calibration
    from tileset.calibration import calibration_rows

    art = drawn_set(load_art(write_held_out_art(tmp_path / "art"), only=["gl-mahjongtile"])[0], DRAWN_SEED)
    photos = []
    for seed, rotation in ((5, 4), (6, -6)):  # two photos of the layout, as a club takes them: another angle
        rng = random.Random(seed)
        plan = plan_calibration(calibration_rows(()), rng, 1600, 1200, rotation_deg=rotation, tilt_deg=15)
        image = compose(plan, art, draw_style(art, rng), rng, np.random.default_rng(seed))
        photos.append(str(tmp_path / f"layout{seed}.jpg"))
        cv2.imwrite(photos[-1], image)
    with sync_playwright() as p, streamlit_server({"MCR_DATA": str(tmp_path / "data")}) as url:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1300, "height": 1900})
        page.goto(f"{url}/teach")
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_text("none (no row 5)").count()  # the bonus choice is there
        page.locator("input[type=file]").set_input_files(photos)
        page.get_by_text("Photo 2", exact=True).wait_for(timeout=TIMEOUT_MS)
        page.locator("text=tiles found in their places").or_(page.locator("text=does not show the layout")).first.wait_for(
            timeout=TIMEOUT_MS)
        wait_for_app(page, TIMEOUT_MS)
        small_png(page.screenshot(), DOCS / "teach.png")
        assert page.get_by_text("Photo 1", exact=True).count() == 1
        read = page.locator("text=tiles found in their places").count() + page.locator("text=does not show the layout").count()
        assert read == 2, f"each photo read and shown: {read} of 2"
        assert page.get_by_text("Learn this set").count() or page.get_by_text("does not show the layout").count()
        chromium.close()
