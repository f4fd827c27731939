"""Photo page, reading: the photo in (the phone's camera at full resolution, a file, the in-page camera),
read into tiles, and shown to tap: the tiles' part of it, each tile outlined, the doubted ones red.

Also the page's session keys and the tile selection, which every part of the page shares.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import streamlit as st

from scoring.hand import WinContext

from .correction import Reading
from .doubts import with_runner_ups
from .i18n import lang, pick, t, translator
from .models import get_detector, model_label, read_with
from .overlay import draw_checks
from .photo_zoom import ZoomStrip, draw_strip
from .phototap import View, tile_at
from .settings import DEFAULT_APP_SETTINGS

PREFIX = "photo."
PHOTO = PREFIX + "photo"  # the PhotoRead of the current photo
SELECTED = PREFIX + "selected"
SELECTED_AT = PREFIX + "selected_at"  # where the tile was tapped: "photo" (editor under the photo) or "strip"
MESSAGE = PREFIX + "message"
EDIT_FACE, EDIT_GROUP = PREFIX + "edit_face", PREFIX + "edit_group"
ADD_FACE, ADD_GROUP = PREFIX + "add_face", PREFIX + "add_group"
SAVE_DIR = PREFIX + "save_dir"
TAP = PREFIX + "tap"  # streamlit-image-coordinates' answer: the last tap on the photo
ZOOM_TAP = PREFIX + "zoom_tap"  # ... and on the zoomed strip of tiles under it
OPENED = PREFIX + "opened"  # tiles picked so far: a new pick scrolls its editor into view once
SHOWN_TOTAL = PREFIX + "shown_total"  # (total, context) as last shown: a fix says what it changed
FIX_FROM = PREFIX + "fix_from"  # the shown total when the last fix was made
FIXED = PREFIX + "fixed"  # fixes made from an editor; a new one scrolls the total into view once
SCROLLED_FOR = PREFIX + "scrolled_for"  # the fix the total was last scrolled into view for
CONTEXT_SEEN = PREFIX + "context_seen"  # the context as the page last showed it
RECORDED = PREFIX + "recorded"  # match id -> {hand fingerprint: deal number} recorded from this page
RECORD_MESSAGE = PREFIX + "record_message"  # (fingerprint, kind, (label, values)) of the last tap on "Record"
WINNER, DISCARDER_PLAYER = PREFIX + "winner", PREFIX + "discarder_player"  # with a match open
SOURCES = ("upload", "files", "camera")  # the phone's camera (full resolution), a photo file, the in-page camera
IMAGE_TYPES = ["jpg", "jpeg", "png", "webp", "bmp", "heic", "heif"]  # HEIC: an iPhone's photos (pillow-heif)
MATCH_CURRENT = "match.current"  # appui.match.CURRENT: the match this session has open (read, not imported)
SETTINGS = DEFAULT_APP_SETTINGS


@dataclass
class PhotoRead:
    """One photo as read and as corrected so far (kept in session state)."""

    key: str
    image_bytes: bytes
    image_bgr: np.ndarray
    original: Reading
    reading: Reading
    issues: tuple[Any, ...]  # vision.issues.ReaderIssue
    model: str = ""
    version: str = ""  # appui.models.read_with(): the model version it was read with


def current() -> PhotoRead | None:
    return st.session_state.get(PHOTO)


def read_photo(image_bytes: bytes, key: str) -> PhotoRead | str:
    """The photo read, or why it could not be read."""
    try:
        from vision.images import ImageError, load_image
        from vision.read import read_detections
    except ImportError as exc:
        return t("no_models", msg=str(exc))
    try:
        image = load_image(image_bytes)
    except ImageError as exc:
        return t("bad_image", msg=str(exc))
    detector, why = get_detector()
    if detector is None:
        return t("no_models", msg=why)
    try:
        result = read_detections(detector.detect(image), WinContext(), with_score=False)
    except Exception as exc:  # a broken model must give a message, not a traceback
        return t("detector_failed", msg=f"{type(exc).__name__}: {exc}")
    reading = Reading.from_tiles(with_runner_ups(result.tiles, result.detections))
    return PhotoRead(key, image_bytes, image, reading, reading, tuple(result.issues), model=model_label(detector),
                     version=read_with())


def select(index: int, where: str = "photo") -> None:
    photo = current()
    if photo is None or index >= len(photo.reading.tiles):
        return
    st.session_state[SELECTED] = index
    st.session_state[SELECTED_AT] = where
    st.session_state[OPENED] = int(st.session_state.get(OPENED) or 0) + 1
    st.session_state[EDIT_FACE] = photo.reading.tiles[index].cls
    st.session_state[EDIT_GROUP] = photo.reading.tiles[index].group


def on_tap() -> None:
    """A tap on the photo picks the tile under the finger (or the nearest within reach)."""
    photo = current()
    if photo is None:
        return
    index = tile_at([tile.xyxy for tile in photo.reading.tiles], view_of(photo), st.session_state.get(TAP),
                    SETTINGS.tap_reach_px)
    if index is not None:
        select(index, "photo")


def on_zoom_tap() -> None:
    """A tap on the zoomed strip picks the tile in the cell under the finger."""
    photo = current()
    if photo is None:
        return
    index = zoom_of(photo).tile_at(st.session_state.get(ZOOM_TAP))
    if index is not None:
        select(index, "photo")


# --- the photo: from the phone's camera at full resolution --------------------------------------

# Streamlit's file uploader cannot ask for the camera: this sets `capture` on the uploader's file input
# in the page (and again whenever Streamlit draws it anew), so a phone opens its own camera and sends
# the full photo; a computer ignores it and asks for a file.
CAPTURE_JS = """<script>
(() => {
  const mark = () => document.querySelectorAll('.st-key-photo_shoot input[type=file]').forEach(input => {
    if (input.getAttribute('capture') !== 'environment') input.setAttribute('capture', 'environment');
  });
  mark();
  if (!window.mcrCaptureObserver) {
    window.mcrCaptureObserver = new MutationObserver(mark);
    window.mcrCaptureObserver.observe(document.body, {childList: true, subtree: true});
  }
})();
</script>"""


def photo_input() -> bytes | None:
    st.session_state.setdefault(PREFIX + "source", SOURCES[0])
    source = st.segmented_control(
        t("source"), SOURCES, required=True, format_func=translator("source_"), key=PREFIX + "source"
    )
    if source == "camera":
        shot = st.camera_input(t("camera"), key=PREFIX + "camera", help=t("camera_small"))
    elif source == "files":
        with st.container(key="photo_files"):
            shot = st.file_uploader(t("upload"), type=IMAGE_TYPES, key=PREFIX + "files", help=t("upload_limit"))
    else:
        with st.container(key="photo_shoot"):
            shot = st.file_uploader(t("shoot"), type=IMAGE_TYPES, key=PREFIX + "upload",
                                    help=t("shoot_help") + " " + t("upload_limit"))
            st.html(CAPTURE_JS, unsafe_allow_javascript=True)
    st.html(uploader_words_css())
    return shot.getvalue() if shot is not None else None


_UPLOADER_WORDS: dict[str, tuple[str, str]] = {
    "shoot_button": ("Take a photo", "拍照"),
    "files_button": ("Choose a photo", "选择照片"),
    "limit": ("Up to {mb} MB: JPG, PNG, WEBP, BMP, HEIC", "最大 {mb} MB：JPG、PNG、WEBP、BMP、HEIC"),
}


def uploader_words_css(language: str | None = None) -> str:
    """Streamlit's uploader says "Upload" and "50MB per file • JPG, ..." in English whatever the page's language:
    its words replaced, in the page's language, by CSS (the widget takes no texts of its own)."""
    language = language or lang()
    limit = pick(_UPLOADER_WORDS, "limit", language, mb=st.get_option("server.maxUploadSize"))
    rules = []
    for box, key in (("photo_shoot", "shoot_button"), ("photo_files", "files_button")):
        button = f".st-key-{box} [data-testid=stFileUploaderDropzone] button [data-testid=stMarkdownContainer] p"
        rules.append(f"{button} {{ font-size: 0; }}")
        rules.append(f"{button}::after {{ content: {json.dumps(pick(_UPLOADER_WORDS, key, language), ensure_ascii=False)}; "
                     "font-size: 1rem; }")
        words = f".st-key-{box} [data-testid=stFileUploaderDropzoneInstructions] span"
        rules.append(f"{words} {{ font-size: 0; }}")
        rules.append(f"{words}::after {{ content: {json.dumps(limit, ensure_ascii=False)}; font-size: 0.875rem; }}")
    return "<style>" + "\n".join(rules) + "</style>"


# --- the photo to tap: the tiles' part of it, the doubted tiles red and numbered ----------------


def view_of(photo: PhotoRead) -> View:
    height, width = photo.image_bgr.shape[:2]
    return View.around([tile.xyxy for tile in photo.reading.tiles], (width, height), SETTINGS.tap_view_margin)


def tap_photo(photo: PhotoRead, doubted: list[int]) -> None:
    """The tiles' part of the photo, each tile outlined, the doubted ones red with their number; a tap
    on a tile opens its editor (a still picture where streamlit-image-coordinates is missing)."""
    view = view_of(photo)
    drawn = draw_checks(photo.image_bgr, [tile.xyxy for tile in photo.reading.tiles],
                        [tile.group for tile in photo.reading.tiles], doubted, st.session_state.get(SELECTED),
                        (view.x0, view.y0, view.width, view.height), SETTINGS.phone_width_px)
    scale = SETTINGS.tap_view_max_side / max(drawn.shape[:2])
    if scale < 1:
        drawn = cv2.resize(drawn, (round(drawn.shape[1] * scale), round(drawn.shape[0] * scale)),
                           interpolation=cv2.INTER_AREA)
    rgb = cv2.cvtColor(drawn, cv2.COLOR_BGR2RGB)
    try:
        from streamlit_image_coordinates import streamlit_image_coordinates
    except ImportError:
        st.image(rgb)
        return
    with st.container(key="photo_tap"):
        streamlit_image_coordinates(rgb, key=TAP, use_column_width="always", image_format="JPEG", jpeg_quality=85,
                                    cursor="pointer", on_click=on_tap)
    st.caption(t("tap_photo"))


def zoom_panel(photo: PhotoRead, doubted: list[int]) -> None:
    """Every tile cut out and zoomed, a fingertip wide each (the photo shows them 17-41 px on a phone), in rows
    under the photo; a tap on one opens its editor."""
    try:
        from streamlit_image_coordinates import streamlit_image_coordinates
    except ImportError:
        return
    st.caption(pick(_ZOOM_WORDS, "tap_strip"))
    zoom = zoom_of(photo)
    strip = draw_strip(photo.image_bgr, [tile.xyxy for tile in photo.reading.tiles],
                       [tile.group for tile in photo.reading.tiles], zoom, doubted, st.session_state.get(SELECTED))
    st.html(f"<style>.st-key-photo_zoom {{ max-width: {SETTINGS.zoom_max_css_px}px; }}</style>")
    with st.container(key="photo_zoom"):
        streamlit_image_coordinates(cv2.cvtColor(strip, cv2.COLOR_BGR2RGB), key=ZOOM_TAP, use_column_width="always",
                                    image_format="JPEG", jpeg_quality=85, cursor="pointer", on_click=on_zoom_tap)


_ZOOM_WORDS: dict[str, tuple[str, str]] = {
    "tap_strip": ("Every tile, a fingertip wide: tap one to fix it.", "每张牌放大显示：点击即可修正。"),
}


def zoom_of(photo: PhotoRead) -> ZoomStrip:
    """The zoomed strip of the photo's tiles, in reading order, rows of `zoom_columns`."""
    return ZoomStrip.of([tile.xyxy for tile in photo.reading.tiles], SETTINGS.zoom_columns, SETTINGS.zoom_cell_px)


