"""Clicks and waiting per fix on the Label page, today's page against the one before issue 22, in headless Chromium.

    .venv/bin/python benchmarks/labeling.py [--before-commit c5b3866] [--work DIR]

One pre-labeled photo (1000 x 700) the way `prelabel` leaves a club's photo: a row of 7 tiles with 2 wrong
faces, 5 false boxes on the tablecloth (confidence 0.10-0.25), 1 tile missed.  A scripted person makes
the same fixes on both pages, the way each page allows:

- before: pick the box in its list, pick the face, "Set face"; pick, "Delete box" per false box; the add
  expander, 4 pixel corners typed, the face, "Add box";
- now: click the box on the photo, type the face's name, "Set face"; "Delete all boxes below 0.30"; type
  the face, drag the box on the photo.

A "click" is a mouse click or an Enter that picks from a list (typing a name is not counted); the wait of
an action is from its last click until the page is idle again.  Prints one JSON object; both runs must
leave the same boxes on disk.  Needs Chromium (scripts/install_browser.sh) and Playwright (dev extra).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from browser_support import CHROMIUM, CHROMIUM_ARGS, streamlit_server, wait_for_app

from tileset.classes import CLASS_ID
from tileset.labelfiles import LabelBox, LabelMeta, PhotoLabels, list_photos

W, H = 1000, 700
ROW = [(100 + 75 * i, 250, 165 + 75 * i, 350) for i in range(8)]  # the 8th is the tile prelabel missed
TRUE_FACES = ["1m", "2m", "3m", "s2", "5p", "f1", "E", "4m"]
READ_FACES = ["1m", "2m", "3m", "3m", "5p", "f2", "E"]  # two wrong: summer read as 3m, plum as orchid
CONFIDENCES = [0.95, 0.93, 0.90, 0.40, 0.91, 0.45, 0.97]
FALSE = [(120 + 160 * i, 520, 160 + 160 * i, 570) for i in range(5)]
FALSE_CONF = [0.10, 0.15, 0.20, 0.25, 0.12]
TIMEOUT_MS = 60_000


def prelabeled(folder: Path) -> Path:
    (folder / "images").mkdir(parents=True)
    image = np.full((H, W, 3), 100, np.uint8)
    for x1, y1, x2, y2 in ROW:
        cv2.rectangle(image, (x1, y1), (x2, y2), (235, 235, 235), -1)
    cv2.imwrite(str(folder / "images" / "hand.jpg"), image)
    (photo,) = list_photos(folder)
    boxes = [LabelBox.from_xyxy(CLASS_ID[f], c, W, H) for f, c in zip(READ_FACES, ROW, strict=False)]
    boxes += [LabelBox.from_xyxy(CLASS_ID["9p"], c, W, H) for c in FALSE]
    photo.save(PhotoLabels(tuple(boxes), LabelMeta("prelabel", False, "shipped", tuple(CONFIDENCES + FALSE_CONF))))
    return folder


class Person:
    """Clicks, Enters and the wait after each action."""

    def __init__(self, page) -> None:  # type: ignore[no-untyped-def]
        self.page, self.clicks, self.waits = page, 0, []

    def idle(self) -> None:
        start = time.perf_counter()
        wait_for_app(self.page, TIMEOUT_MS)
        self.waits.append(time.perf_counter() - start - 0.6)  # wait_for_app itself pauses 2 x 0.3 s

    def click(self, name: str) -> None:
        self.page.get_by_role("button", name=name).first.click()
        self.clicks += 1
        self.idle()

    def choose(self, label: str, typed: str, exact: bool = False) -> None:
        self.page.get_by_role("combobox", name=label, exact=exact).click()
        self.page.keyboard.type(typed)
        self.page.keyboard.press("Enter")
        self.clicks += 2
        self.idle()

    def type_number(self, label: str, value: int, expander: str) -> None:
        """A pixel corner typed into the old page's add form; its expander closes on each rerun."""
        field = self.page.get_by_role("spinbutton", name=label)
        if not field.is_visible():
            self.page.get_by_text(expander).click()
            self.clicks += 1
            field.wait_for(state="visible", timeout=TIMEOUT_MS)
        field.click()
        field.fill(str(value))
        field.press("Tab")
        self.clicks += 1
        self.idle()

    def on_photo(self, x: float, y: float) -> tuple[float, float]:
        frame = self.page.locator("iframe[title*=streamlit_image_coordinates]")
        frame.evaluate("e => e.scrollIntoView({block: 'start'})")
        frame.element_handle().content_frame().wait_for_function(
            "() => { const i = document.getElementById('image'); return i && i.complete && i.width > 0; }",
            timeout=TIMEOUT_MS)
        box = self.page.frame_locator("iframe[title*=streamlit_image_coordinates]").locator("img").bounding_box()
        scale = box["width"] / W
        return box["x"] + x * scale, box["y"] + y * scale

    def click_photo(self, corners: tuple[int, int, int, int]) -> None:
        self.page.mouse.click(*self.on_photo((corners[0] + corners[2]) / 2, (corners[1] + corners[3]) / 2))
        self.clicks += 1
        self.idle()

    def drag_photo(self, corners: tuple[int, int, int, int]) -> None:
        self.page.mouse.move(*self.on_photo(*corners[:2]))
        self.page.mouse.down()
        self.page.mouse.move(*self.on_photo(*corners[2:]), steps=5)
        self.page.mouse.up()
        self.clicks += 1
        self.idle()


def fix_before(person: Person) -> None:
    """The page before issue 22: boxes picked in a list by their index (file order)."""
    for index, face in ((3, "s2"), (5, "f1")):
        person.choose("Box", f"{index}:")
        person.choose("Correct face", face)
        person.click("Set face")
    for _ in FALSE:  # the false boxes follow the 7 tiles; each delete renumbers the rest
        person.choose("Box", "7:")
        person.click("Delete box")
    for label, value in zip(("x1", "y1", "x2", "y2"), ROW[7], strict=False):
        person.type_number(label, value, "Add a box (pixel corners)")
    if not person.page.get_by_role("button", name="Add box").is_visible():
        person.page.get_by_text("Add a box (pixel corners)").click()
        person.clicks += 1
    person.choose("Face", "4m", exact=True)
    if not person.page.get_by_role("button", name="Add box").is_visible():
        person.page.get_by_text("Add a box (pixel corners)").click()
        person.clicks += 1
    person.click("Add box")


def fix_now(person: Person) -> None:
    for corners, face in ((ROW[3], "summer"), (ROW[5], "plum")):
        person.click_photo(corners)
        person.choose("Correct face", face)
        person.click("Set face")
    person.click("Delete all 5 boxes below it")
    person.choose("Correct face", "4m")
    person.drag_photo(ROW[7])


def run(name: str, script: Path, folder: Path, fix) -> dict:  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    with streamlit_server({"MCR_DATA": str(folder.parent)}, script) as url, sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = chromium.new_page(viewport={"width": 1366, "height": 768})
        page.goto(url)
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_role("textbox", name="Photo folder").fill(str(folder))
        page.keyboard.press("Enter")
        wait_for_app(page, TIMEOUT_MS)
        person = Person(page)
        start = time.perf_counter()
        fix(person)
        person.click("Looks right: mark reviewed ▶")
        seconds = time.perf_counter() - start
        chromium.close()
    labels = list_photos(folder)[0].load()
    boxes = sorted((b.class_name, *(round(v) for v in b.xyxy(W, H))) for b in labels.boxes)
    fixes = 2 + len(FALSE) + 1
    return {"page": name, "clicks": person.clicks, "fixes": fixes, "clicks_per_fix": round(person.clicks / fixes, 2),
            "actions": len(person.waits), "wait_s_median": round(float(np.median(person.waits)), 3),
            "wait_s_max": round(max(person.waits), 3), "seconds_total": round(seconds, 1),
            "reviewed": labels.meta.reviewed, "boxes": boxes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-commit", default="c5b3866", help="the commit whose appui/labeling.py is 'before'")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="mcr-bench-label-"))
    old = subprocess.run(["git", "show", f"{args.before_commit}:appui/labeling.py"], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout
    if importlib.util.find_spec("vision.images"):  # decoding moved out of vision.detector after that commit
        old = old.replace("from vision.detector import ImageError, load_image",
                          "from vision.images import ImageError, load_image")
    (work / "oldpage").mkdir(parents=True, exist_ok=True)
    (work / "oldpage" / "old_labeling.py").write_text(old)
    (work / "oldpage" / "page.py").write_text(
        f"import sys\nsys.path[:0] = [{str(REPO)!r}, {str(work / 'oldpage')!r}]\n"
        "import old_labeling\nold_labeling.render()\n")
    (work / "nowpage.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPO)!r})\nfrom appui.labeling import render\nrender()\n")
    results = [run("before", work / "oldpage" / "page.py", prelabeled(work / "before" / "club"), fix_before),
               run("now", work / "nowpage.py", prelabeled(work / "now" / "club"), fix_now)]
    expected = sorted((f, *c) for f, c in zip(TRUE_FACES, ROW, strict=False))
    for result in results:
        result["boxes_as_expected"] = all(
            got[0] == want[0] and max(abs(a - b) for a, b in zip(got[1:], want[1:], strict=False)) <= 3
            for got, want in zip(result.pop("boxes"), expected, strict=False))
    print(json.dumps({"photo": f"{W}x{H}", "row": len(ROW), "wrong_faces": 2, "false_boxes": len(FALSE),
                      "missed": 1, "runs": results}, indent=1))


if __name__ == "__main__":
    main()
