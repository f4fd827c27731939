"""The Label page in a real browser, the way a club labels a pre-labeled photo: pick a box by clicking it
on the photo, fix its face, take back a slip with Undo, delete the false boxes in one action, redraw a
box whose outline is off, draw the missing box, say "Looks right" with its key (L); the files on disk
then hold exactly the expected boxes.
Skipped, with the reason, when Chromium (scripts/install_browser.sh) or Playwright is missing."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, require_browser, streamlit_server, wait_for_app

from tileset.classes import CLASS_ID
from tileset.labelfiles import LabelBox, LabelMeta, PhotoLabels, list_photos

W, H = 800, 600
TIMEOUT_MS = 60_000
ROW = {"A": (100, 200, 160, 300), "B": (170, 200, 230, 300), "C": (240, 200, 300, 300)}
FALSE = {"D": (500, 450, 540, 500), "E": (600, 450, 640, 500)}
MISSING = (330, 200, 390, 300)
A_AS_READ = (115, 212, 178, 318)  # the tile finder's box of A is off: redrawn on the photo


def prelabeled_folder(root: Path) -> Path:
    folder = root / "club"
    (folder / "images").mkdir(parents=True)
    image = np.full((H, W, 3), 110, np.uint8)
    for x1, y1, x2, y2 in [*ROW.values(), MISSING]:
        cv2.rectangle(image, (x1, y1), (x2, y2), (235, 235, 235), -1)
    cv2.imwrite(str(folder / "images" / "hand1.jpg"), image)
    (photo,) = list_photos(folder)
    faces = (("A", "1m"), ("B", "2m"), ("C", "3m"))
    boxes = [LabelBox.from_xyxy(CLASS_ID[face], A_AS_READ if key == "A" else ROW[key], W, H) for key, face in faces]
    boxes += [LabelBox.from_xyxy(CLASS_ID["9p"], corners, W, H) for corners in FALSE.values()]
    photo.save(PhotoLabels(tuple(boxes), LabelMeta("prelabel", False, "shipped", (0.95, 0.40, 0.90, 0.10, 0.15))))
    return folder


def on_photo(page, corners: tuple[float, float]) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Page coordinates of a point given in photo pixels, on the photo as the page shows it."""
    frame = page.locator("iframe[title*=streamlit_image_coordinates]")
    frame.wait_for(timeout=TIMEOUT_MS)
    frame.evaluate("e => e.scrollIntoView({block: 'start'})")  # the mouse acts on the visible page only
    image = page.frame_locator("iframe[title*=streamlit_image_coordinates]").locator("img")
    image.wait_for(timeout=TIMEOUT_MS)
    content = frame.element_handle().content_frame()
    assert content is not None
    content.wait_for_function("() => { const i = document.getElementById('image');"
                              " return i && i.complete && i.naturalWidth > 0 && i.width > 0; }", timeout=TIMEOUT_MS)
    box = image.bounding_box()  # in the page's coordinates, iframe included
    assert box is not None
    scale = box["width"] / W
    return box["x"] + corners[0] * scale, box["y"] + corners[1] * scale


def centre(corners: tuple[int, int, int, int]) -> tuple[float, float]:
    return (corners[0] + corners[2]) / 2, (corners[1] + corners[3]) / 2


def picked(page, face: str) -> None:  # type: ignore[no-untyped-def]
    """Until the box list shows the box just clicked as picked."""
    page.locator("[data-testid=stMultiSelect]", has_text=face).wait_for(timeout=TIMEOUT_MS)


def drag(page, corners: tuple[int, int, int, int]) -> None:  # type: ignore[no-untyped-def]
    start, end = on_photo(page, corners[:2]), on_photo(page, corners[2:])
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=5)
    page.mouse.up()
    wait_for_app(page, TIMEOUT_MS)


def pick_face(page, typed: str) -> None:  # type: ignore[no-untyped-def]
    picker = page.get_by_role("combobox", name="Correct face")
    picker.click()
    page.keyboard.type(typed)
    page.keyboard.press("Enter")
    wait_for_app(page, TIMEOUT_MS)


def click(page, name: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("button", name=name).click()
    wait_for_app(page, TIMEOUT_MS)


@pytest.mark.slow
def test_a_club_labels_a_photo_in_the_browser(tmp_path: Path) -> None:
    require_browser()
    from playwright.sync_api import sync_playwright

    data = tmp_path / "data"
    folder = prelabeled_folder(data)
    with streamlit_server({"MCR_DATA": str(data)}) as url, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        page.goto(f"{url}/label")
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_role("textbox", name="Photo folder").fill(str(folder))
        page.keyboard.press("Enter")
        wait_for_app(page, TIMEOUT_MS)

        page.mouse.click(*on_photo(page, centre(ROW["B"])))  # pick B (read as 2m) by clicking it
        wait_for_app(page, TIMEOUT_MS)
        picked(page, "2: 2m")
        pick_face(page, "summer")
        click(page, "Set face")

        page.mouse.click(*on_photo(page, centre(ROW["C"])))  # a slip: C picked and marked as a back ...
        wait_for_app(page, TIMEOUT_MS)
        picked(page, "3: 3m")
        click(page, "Tile back")
        click(page, "↶ Undo")  # ... taken back

        click(page, "Delete all 2 boxes below it")  # D and E, the false boxes

        page.mouse.click(*on_photo(page, centre(A_AS_READ)))  # A picked, then its right outline dragged
        wait_for_app(page, TIMEOUT_MS)
        picked(page, "1: 1m")
        drag(page, ROW["A"])

        pick_face(page, "4m")
        drag(page, MISSING)  # the missing tile, drawn with nothing picked

        page.get_by_text("boxes, not reviewed yet").click()  # focus back on the page, out of the photo's frame
        page.keyboard.press("l")  # the keyboard shortcut of "Looks right"
        wait_for_app(page, TIMEOUT_MS)
        assert page.get_by_text("All 1 photos are reviewed").count() == 1
        chromium.close()

    labels = list_photos(folder)[0].load()
    got = sorted((box.class_name, *(round(v) for v in box.xyxy(W, H))) for box in labels.boxes)
    want = sorted([("1m", *ROW["A"]), ("s2", *ROW["B"]), ("3m", *ROW["C"]), ("4m", *MISSING)])
    assert [g[0] for g in got] == [w[0] for w in want]
    for g, w in zip(got, want, strict=False):
        assert g[1:] == pytest.approx(w[1:], abs=3), (g, w)  # a drawn box: within a screen pixel or two
    assert labels.meta.reviewed


@pytest.mark.slow
def test_two_tabs_on_one_photo_a_stale_edit_is_refused(tmp_path: Path) -> None:
    """Tab A picks box 3 and a face; tab B deletes box 4; A's "Set face" is refused, naming the deletion; A
    then shows the labels as they are, and box 3 picked again gets the face: never another box."""
    require_browser()
    from playwright.sync_api import sync_playwright

    data = tmp_path / "data"
    folder = prelabeled_folder(data)
    with streamlit_server({"MCR_DATA": str(data)}) as url, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        context = chromium.new_context(viewport={"width": 1366, "height": 768})
        tabs = [context.new_page(), context.new_page()]
        for page in tabs:
            page.goto(f"{url}/label")
            wait_for_app(page, TIMEOUT_MS)
            page.get_by_role("textbox", name="Photo folder").fill(str(folder))
            page.keyboard.press("Enter")
            wait_for_app(page, TIMEOUT_MS)
        first, second = tabs
        first.bring_to_front()
        first.mouse.click(*on_photo(first, centre(ROW["C"])))
        wait_for_app(first, TIMEOUT_MS)
        picked(first, "3: 3m")
        pick_face(first, "east")

        second.bring_to_front()
        second.mouse.click(*on_photo(second, centre(FALSE["D"])))
        wait_for_app(second, TIMEOUT_MS)
        picked(second, "4: 9p")
        second.get_by_role("button", name=re.compile(r"^Delete( Shortcut|$)")).click()  # not "Delete all ... below"
        wait_for_app(second, TIMEOUT_MS)

        first.bring_to_front()
        click(first, "Set face")
        refusal = first.get_by_text("was changed in another tab or program")
        refusal.wait_for(timeout=TIMEOUT_MS)
        assert "box 4 (9p) deleted" in refusal.inner_text()
        assert [b.class_name for b in list_photos(folder)[0].load().boxes] == ["1m", "2m", "3m", "9p"]

        first.mouse.click(*on_photo(first, centre(ROW["C"])))
        wait_for_app(first, TIMEOUT_MS)
        picked(first, "3: 3m")
        click(first, "Set face")
        first.get_by_text("box 3 now E").wait_for(timeout=TIMEOUT_MS)
        chromium.close()
    labels = list_photos(folder)[0].load()
    assert [b.class_name for b in labels.boxes] == ["1m", "2m", "E", "9p"]
    assert labels.boxes[2].xyxy(W, H) == pytest.approx(ROW["C"], abs=1e-6), "the face went to box C"
