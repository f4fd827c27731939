"""The photo page on a phone (390x844 CSS px, touch) in Debian's Chromium, driven by Playwright.

The scene is drawn with `appui.demo_scene`; the truth detector replays its boxes, with the winning 9
dots misread as a 6 dots the reader is unsure of (0.2), as a phone photo of the table might be read.
Checked, at the page's first view without scrolling: the total, the 8-fan check, the doubt beside it;
one tap on the tile in the photo opens its editor, one tap on the face that makes the hand win fixes
it, and the new total is on the screen.  With a match open, the deal's winds are used and the win is
recorded with one tap.  The photo goes in through the uploader the page marks `capture` (a phone
opens its own camera) at full resolution.  Screenshots go to docs/phone-result.png and
docs/phone-fix.png when MCR_UPDATE_SCREENSHOTS=1, to a temporary folder otherwise.
Skipped, with the reason, when Chromium (scripts/install_browser.sh) or Playwright is missing.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import cv2
import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, REPO, require_browser, small_png, streamlit_server, wait_for_app

from appui.demo_scene import demo_scene, write_truth
from appui.phototap import View
from appui.settings import DEFAULT_APP_SETTINGS
from ledger.match import Match, draw
from scoring import parse_hand, score

DOCS = REPO / "docs" if os.environ.get("MCR_UPDATE_SCREENSHOTS") == "1" else Path(tempfile.mkdtemp(prefix="mcr-phone-"))
PHONE = {"width": 390, "height": 844}
TRUTH = "[EEE] [123p] 456p 78p 11s +9p"  # a pure straight in dots; read with +6p it is 5 fan
MISREAD, UNSURE = "6p", 0.2
PHONE_PHOTO = (3264, 2448)  # an 8-megapixel phone photo
TIMEOUT_MS = 60_000

# visible controls in the page smaller than a fingertip (icons inside a control and hover help are not controls)
SMALL_TARGETS_JS = """(size) => [...document.querySelectorAll(
        '[data-testid=stMain] button, [data-testid=stMain] [data-baseweb=select] > div, '
        + '[data-testid=stMain] [data-testid=stCheckbox] label, [data-testid=stMain] details > summary')]
    .filter(e => e.offsetParent !== null && !e.closest('[data-testid=stTooltipIcon]'))
    .map(e => [e.innerText.trim() || e.getAttribute('aria-label') || e.tagName, e.getBoundingClientRect()])
    .filter(([, r]) => r.width < size - 0.5 || r.height < size - 0.5)
    .map(([name, r]) => `${name}: ${Math.round(r.width)}x${Math.round(r.height)}`)"""


# the words an element shows: its text where its font is not shrunk to nothing (icons' ligatures left out),
# and the ::after content of the elements whose own text is hidden that way
SHOWN_TEXT_JS = """e => {
    const shown = [];
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (getComputedStyle(parent).fontSize !== '0px' && !parent.closest('[data-testid=stIconMaterial]'))
            shown.push(node.textContent.trim());
    }
    for (const hidden of e.querySelectorAll('p, span'))
        if (getComputedStyle(hidden).fontSize === '0px') shown.push(getComputedStyle(hidden, '::after').content);
    return shown.filter(Boolean).join(' | ');
}"""


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def photo(tmp_path_factory) -> tuple[Path, Path, tuple[float, ...]]:
    """(a phone-sized photo of TRUTH, its truth file with the misread, the misread tile's box in the view
    the page shows and that view's width, photo pixels)."""
    folder = tmp_path_factory.mktemp("phone")
    scene = demo_scene(parse_hand(TRUTH), seed=1)
    write_truth(scene, folder / "truth.json")
    truth = json.loads((folder / "truth.json").read_text())
    (win,) = [tile for tile in truth["tiles"] if tile["group"] == "win"]
    assert win["cls"] == "9p"
    win.update(cls=MISREAD, conf=UNSURE)
    (folder / "truth.json").write_text(json.dumps(truth))
    cv2.imwrite(str(folder / "phone.jpg"), cv2.resize(scene.image_bgr, PHONE_PHOTO, interpolation=cv2.INTER_CUBIC),
                [cv2.IMWRITE_JPEG_QUALITY, 90])
    scale = PHONE_PHOTO[0] / truth["width"]
    box = tuple(v * scale for v in win["xyxy"])
    boxes = [tuple(v * scale for v in tile["xyxy"]) for tile in truth["tiles"]]
    view = View.around(boxes, PHONE_PHOTO, DEFAULT_APP_SETTINGS.tap_view_margin)
    in_view = (box[0] - view.x0, box[1] - view.y0, box[2] - view.x0, box[3] - view.y0, float(view.width))
    return folder / "phone.jpg", folder / "truth.json", in_view


def env_for(truth: Path, data: Path) -> dict[str, str]:
    return {"MCR_DATA": str(data), "MCR_DETECTOR": "appui.demo_scene:truth_detector", "MCR_DEMO_TRUTH": str(truth)}


def new_phone(chromium):  # type: ignore[no-untyped-def]
    context = chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    return context, context.new_page()


def upload(page, image: Path) -> None:  # type: ignore[no-untyped-def]
    """Through the Camera source's uploader: its input asks a phone for the camera."""
    page.locator(".st-key-photo_shoot input[type=file][capture=environment]").set_input_files(str(image))
    page.get_by_test_id("stMetricValue").or_(page.get_by_text("to see the total")).first.wait_for(timeout=TIMEOUT_MS)
    wait_for_app(page, TIMEOUT_MS)


def tap(page, key: str, option: str) -> None:  # type: ignore[no-untyped-def]
    """Tap `option` of the segmented control with widget key `key`."""
    page.locator(f".st-key-{key.replace('.', '-')}").get_by_role("radio", name=option, exact=True).tap()
    wait_for_app(page, TIMEOUT_MS)


def to_top(page) -> None:  # type: ignore[no-untyped-def]
    page.evaluate("() => { window.scrollTo(0, 0); document.querySelectorAll('*').forEach(e => { if (e.scrollTop) e.scrollTop = 0; }); }")
    page.wait_for_timeout(300)


def on_screen(locator) -> bool:  # type: ignore[no-untyped-def]
    """The element lies wholly inside the phone's screen as it is scrolled now."""
    box = locator.bounding_box()
    return (box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
            and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"])


def until_on_screen(page, locator, timeout_ms: int = 5000) -> bool:  # type: ignore[no-untyped-def]
    """The element comes wholly onto the screen within `timeout_ms` (the page scrolls by itself)."""
    for _ in range(timeout_ms // 100):
        if locator.count() and on_screen(locator):
            return True
        page.wait_for_timeout(100)
    return False


def total(page) -> int:  # type: ignore[no-untyped-def]
    (value,) = page.get_by_test_id("stMetricValue").all_inner_texts()
    return int(value)


def tap_tile_on_photo(page, where: tuple[float, ...]) -> None:  # type: ignore[no-untyped-def]
    """Tap the photo (streamlit-image-coordinates' picture) at the middle of the misread tile."""
    x1, y1, x2, y2, view_width = where
    image = page.frame_locator(".st-key-photo_tap iframe").locator("img")
    scale = image.bounding_box()["width"] / view_width
    image.tap(position={"x": (x1 + x2) / 2 * scale, "y": (y1 + y2) / 2 * scale})
    page.locator(".st-key-photo_editor").wait_for(timeout=TIMEOUT_MS)
    wait_for_app(page, TIMEOUT_MS)


@pytest.mark.slow
def test_phone_result_first_a_tap_on_the_photo_fixes_the_doubted_tile(browser, photo, tmp_path):
    image, truth, where = photo
    with streamlit_server(env_for(truth, tmp_path / "data")) as url:
        context, page = new_phone(browser)
        page.goto(url)
        wait_for_app(page, TIMEOUT_MS)
        upload(page, image)
        assert page.get_by_test_id("stMetricValue").count() == 0  # the winds and the way of winning first
        tap(page, "photo.seat", "S 南")
        tap(page, "photo.prevalent", "E 东")
        tap(page, "photo.won_by", "Self-drawn")
        misread = score(parse_hand(TRUTH.replace("+9p", f"+{MISREAD}") + " self-drawn seat=S prevalent=E")).total
        assert total(page) == misread

        to_top(page)  # the first view: total, 8-fan check, the doubt beside it and the tile to check
        for shown in (page.get_by_test_id("stMetricValue"), page.get_by_text("Under the 8-fan minimum"),
                      page.get_by_text("Rests on 1 tile(s) in doubt"),
                      page.get_by_role("button", name="1 · 6 Dot")):
            assert on_screen(shown), shown
        assert page.get_by_text("Check this tile, red on the photo").count() == 1
        small = page.evaluate(SMALL_TARGETS_JS, DEFAULT_APP_SETTINGS.touch_target_px)
        assert small == [], small
        assert page.get_by_text(f"Photo {PHONE_PHOTO[0]} × {PHONE_PHOTO[1]} px").count() == 1  # full resolution
        assert page.locator(".st-key-photo_shoot input[type=file][capture=environment]").count() == 1  # the next photo too
        small_png(page.screenshot(), DOCS / "phone-result.png", max_width=PHONE["width"])

        tap_tile_on_photo(page, where)  # one tap on the tile in the photo: its editor, the faces that win
        fix = page.locator(".st-key-photo_fixes").get_by_role("button", name="9 Dot", exact=True)
        assert until_on_screen(page, fix), "the editor opened below the screen"  # the page scrolls to it
        page.locator(".st-key-photo_total").evaluate("e => e.scrollIntoView({block: 'start'})")  # total on top
        page.wait_for_timeout(300)
        assert on_screen(fix) and on_screen(page.get_by_test_id("stMetricValue"))  # the fix a screen below it
        small_png(page.screenshot(), DOCS / "phone-fix.png", max_width=PHONE["width"])
        fix.tap()
        wait_for_app(page, TIMEOUT_MS)
        page.wait_for_timeout(500)  # the page brings the total back into view after a fix
        right = score(parse_hand(TRUTH + " self-drawn seat=S prevalent=E")).total
        assert total(page) == right != misread
        assert on_screen(page.get_by_test_id("stMetricValue"))  # the new total in view, no scrolling
        assert page.get_by_test_id("stMetricDelta").inner_text().strip().endswith(str(right - misread))
        assert page.get_by_text("Rests on").count() == 0 and page.locator(".st-key-photo_editor").count() == 0
        context.close()


@pytest.mark.slow
def test_phone_with_a_match_open_takes_the_deal_winds_and_records_the_win(browser, photo, tmp_path, monkeypatch):
    from ledger.store import LedgerStore

    image, truth, _ = photo
    monkeypatch.setenv("MCR_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MCR_DATABASE_URL", raising=False)
    players = ("Ann", "Bob", "Cat", "Dan")
    with LedgerStore() as store:  # deals 1-4 drawn: deal 5, the South round, Bob deals
        match_id = store.create_match(Match(players))
        for number in range(1, 5):
            store.add_deal(match_id, draw(number), seen=store.ledger(match_id).revision)
    seats = dict(zip(players, Match(players).seat_winds(5), strict=False))
    with streamlit_server(env_for(truth, tmp_path / "data")) as url:
        context, page = new_phone(browser)
        page.goto(f"{url}/match")  # the Match page opens the match for this session
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_text("Deal 5 of 16").first.wait_for(timeout=TIMEOUT_MS)
        page.get_by_test_id("stExpandSidebarButton").or_(page.get_by_test_id("stSidebarCollapsedControl")).first.tap()
        page.get_by_test_id("stSidebarNavLink").filter(has_text="Score a photo").tap()
        wait_for_app(page, TIMEOUT_MS)
        if page.locator("[data-testid=stSidebar][data-collapsed=false]").count():  # a phone's sidebar covers the page
            page.get_by_test_id("stSidebarCollapseButton").locator("button").click(force=True)
            page.wait_for_timeout(500)
        upload(page, image)
        page.get_by_text(f"Match #{match_id} · deal 5 of 16 · S 南 round · dealer Bob").wait_for(timeout=TIMEOUT_MS)
        assert page.locator(".st-key-photo-seat, .st-key-photo-prevalent").count() == 0  # the ledger knows them
        tap(page, "photo.winner", f"Cat · {seats['Cat']} 北")
        tap(page, "photo.won_by", "Self-drawn")
        small = page.evaluate(SMALL_TARGETS_JS, DEFAULT_APP_SETTINGS.touch_target_px)
        assert small == [], small

        page.get_by_role("button", name="1 · 6 Dot").tap()  # the doubted tile's button: its editor
        page.locator(".st-key-photo_fixes").get_by_role("button", name="9 Dot", exact=True).tap()
        wait_for_app(page, TIMEOUT_MS)
        page.wait_for_timeout(500)
        expected = score(parse_hand(f"{TRUTH} self-drawn seat={seats['Cat']} prevalent=S")).total
        assert expected != score(parse_hand(f"{TRUTH} self-drawn seat=E prevalent=E")).total
        assert total(page) == expected
        record = page.get_by_role("button", name=f"Record deal 5: Cat wins · {expected} fan")
        assert on_screen(record) and on_screen(page.get_by_test_id("stMetricValue"))  # in view after the fix
        record.tap()
        page.get_by_text(f"Recorded as deal 5 of match #{match_id}: Cat {expected} fan").wait_for(timeout=TIMEOUT_MS)
        context.close()
    with LedgerStore() as store:
        deal = store.deals(match_id)[-1]
    assert (deal.number, deal.winner, deal.discarder, deal.total) == (5, "Cat", None, expected)


def zoom_cells(page) -> tuple[float, float, list[float]]:  # type: ignore[no-untyped-def]
    """(the zoomed strip's shown width, a cell's width, its left and top on the screen), CSS px."""
    strip = page.frame_locator(".st-key-photo_zoom iframe").locator("img")
    box = strip.bounding_box()
    cell = box["width"] / DEFAULT_APP_SETTINGS.zoom_columns
    return box["width"], cell, [box["x"], box["y"]]


@pytest.mark.slow
def test_phone_every_tile_is_a_fingertip_wide_under_the_photo_and_opens_its_editor(browser, photo, tmp_path):
    """The tiles on the photo are 17-41 px wide on a phone; the zoomed strip under it gives each one a cell of
    at least 44 px, and a tap on the misread tile's cell opens its editor, scrolled into view."""
    image, truth, _ = photo
    with streamlit_server(env_for(truth, tmp_path / "data")) as url:
        context, page = new_phone(browser)
        page.goto(url)
        wait_for_app(page, TIMEOUT_MS)
        upload(page, image)
        tap(page, "photo.seat", "S 南")
        tap(page, "photo.prevalent", "E 东")
        tap(page, "photo.won_by", "Self-drawn")
        strip = page.locator(".st-key-photo_zoom")
        strip.scroll_into_view_if_needed()
        width, cell, (left, top) = zoom_cells(page)
        assert cell >= DEFAULT_APP_SETTINGS.touch_target_px, (width, cell)
        truth_tiles = json.loads(truth.read_text())["tiles"]
        from appui.photo_zoom import reading_order

        order = reading_order([tuple(t["xyxy"]) for t in truth_tiles])
        misread = next(i for i, t in enumerate(truth_tiles) if t["group"] == "win")
        n = order.index(misread)
        row, column = divmod(n, DEFAULT_APP_SETTINGS.zoom_columns)
        cell_height = cell * 4 / 3
        small_png(page.screenshot(), DOCS / "phone-zoom.png", max_width=PHONE["width"])
        page.mouse.click(left + (column + 0.5) * cell, top + (row + 0.5) * cell_height)  # the tap on its cell
        page.locator(".st-key-photo_editor").wait_for(timeout=TIMEOUT_MS)
        wait_for_app(page, TIMEOUT_MS)
        assert "6 dots" in page.locator(".st-key-photo_editor").inner_text()  # the misread 9 dots, read 6
        fix = page.locator(".st-key-photo_fixes").get_by_role("button", name="9 Dot", exact=True)
        assert until_on_screen(page, fix)
        fix.tap()
        wait_for_app(page, TIMEOUT_MS)
        assert total(page) == score(parse_hand(TRUTH + " self-drawn seat=S prevalent=E")).total
        context.close()


@pytest.mark.slow
def test_phone_in_chinese_the_uploader_speaks_chinese(browser, photo, tmp_path):
    _, truth, _ = photo
    with streamlit_server(env_for(truth, tmp_path / "data")) as url:
        context, page = new_phone(browser)
        page.goto(url)
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_test_id("stExpandSidebarButton").or_(page.get_by_test_id("stSidebarCollapsedControl")).first.tap()
        page.get_by_role("radio", name="中文").tap()
        wait_for_app(page, TIMEOUT_MS)
        page.get_by_test_id("stSidebarCollapseButton").locator("button").click(force=True)
        page.wait_for_timeout(500)
        page.get_by_role("heading", name="拍照算番").wait_for(timeout=TIMEOUT_MS)
        dropzone = page.locator(".st-key-photo_shoot [data-testid=stFileUploaderDropzone]")
        shown = dropzone.evaluate(SHOWN_TEXT_JS)
        assert "拍照" in shown and "最大 50 MB" in shown, shown
        assert "Upload" not in shown and "per file" not in shown, shown
        assert dropzone.locator("button").bounding_box()["height"] >= DEFAULT_APP_SETTINGS.touch_target_px - 4
        small_png(page.screenshot(), DOCS / "phone-upload-zh.png", max_width=PHONE["width"])
        context.close()
