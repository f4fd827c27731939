"""Photo page: read a hand from one photo, correct it, score it, save it for training."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import streamlit as st

from tileset.classes import CLASS_NAMES
from scoring.hand import HandError, WinContext
from scoring.tiles import Tile

from .correction import FLOWERS, GROUPS, HAND, MELD_GROUPS, UNPLACED, WIN, CorrectionError, Reading
from .glyphs import tile_label
from .i18n import lang, t, translator
from .models import get_detector, model_label
from .overlay import crop, draw_boxes, fit, group_colour
from .saving import SaveError, photo_name, save_for_training
from .settings import DEFAULT_APP_SETTINGS
from .widgets import context_form, score_and_show
from .winctx import HandFacts

PREFIX = "photo."
PHOTO = PREFIX + "photo"  # the PhotoRead of the current photo
SELECTED = PREFIX + "selected"
MESSAGE = PREFIX + "message"
EDIT_FACE, EDIT_GROUP = PREFIX + "edit_face", PREFIX + "edit_group"
ADD_FACE, ADD_GROUP = PREFIX + "add_face", PREFIX + "add_group"
SAVE_DIR = PREFIX + "save_dir"
SETTINGS = DEFAULT_APP_SETTINGS


@dataclass
class PhotoRead:
    """One photo as read and as corrected so far (kept in session state)."""

    key: str
    image_bytes: bytes
    image_bgr: np.ndarray | None
    original: Reading
    reading: Reading
    issues: tuple[str, ...]
    error: str | None = None
    model: str = ""


def group_label(group: str, language: str | None = None) -> str:
    if group in MELD_GROUPS:
        return t("group_meld", language, n=MELD_GROUPS.index(group) + 1)
    return t(f"group_{group}", language)


def group_labeler() -> Callable[[str], str]:
    """group_label bound to this run's language (a widget format_func)."""
    language = lang()
    return lambda group: group_label(group, language)


def _read_photo(image_bytes: bytes, key: str) -> PhotoRead:
    empty = Reading(())
    try:
        from vision.detector import ImageError, load_image
        from vision.read import read_detections
    except ImportError as exc:
        return PhotoRead(key, image_bytes, None, empty, empty, (), t("no_models", msg=str(exc)))
    try:
        image = load_image(image_bytes)
    except ImageError as exc:
        return PhotoRead(key, image_bytes, None, empty, empty, (), t("bad_image", msg=str(exc)))
    detector, why = get_detector()
    if detector is None:
        return PhotoRead(key, image_bytes, image, empty, empty, (), t("no_models", msg=why))
    try:
        result = read_detections(detector.detect(image), WinContext(), with_score=False)
    except Exception as exc:  # a broken model must give a message, not a traceback
        return PhotoRead(key, image_bytes, image, empty, empty, (), t("detector_failed", msg=f"{type(exc).__name__}: {exc}"))
    reading = Reading.from_tiles(result.tiles)
    return PhotoRead(key, image_bytes, image, reading, reading, tuple(result.issues), model=model_label(detector))


def _current() -> PhotoRead | None:
    return st.session_state.get(PHOTO)


def _edit(change: Any) -> None:
    photo = _current()
    if photo is None:
        return
    try:
        photo.reading = change(photo.reading)
        st.session_state[MESSAGE] = None
    except CorrectionError as exc:
        st.session_state[MESSAGE] = str(exc)


def _select(index: int) -> None:
    photo = _current()
    if photo is None or index >= len(photo.reading.tiles):
        return
    st.session_state[SELECTED] = index
    st.session_state[EDIT_FACE] = photo.reading.tiles[index].cls
    st.session_state[EDIT_GROUP] = photo.reading.tiles[index].group


def _apply() -> None:
    index = st.session_state.get(SELECTED)
    if index is None:
        return
    face, group = st.session_state[EDIT_FACE], st.session_state[EDIT_GROUP]

    def change(reading: Reading) -> Reading:
        tile = reading.tiles[index]
        if face != tile.cls:
            reading = reading.with_face(index, face)
        if group != tile.group:
            reading = reading.with_group(index, group)
        return reading

    _edit(change)


def _remove() -> None:
    index = st.session_state.pop(SELECTED, None)
    if index is not None:
        _edit(lambda r: r.without(index))


def _mark_win() -> None:
    index = st.session_state.get(SELECTED)
    if index is not None:
        _edit(lambda r: r.with_win(index))
        st.session_state[EDIT_GROUP] = WIN


def _add() -> None:
    _edit(lambda r: r.with_added(st.session_state[ADD_FACE], st.session_state[ADD_GROUP]))


def _reset() -> None:
    photo = _current()
    if photo is not None:
        photo.reading = photo.original
        st.session_state.pop(SELECTED, None)


def _photo_input() -> bytes | None:
    st.session_state.setdefault(PREFIX + "source", "upload")
    source = st.segmented_control(
        t("source"), ["upload", "camera"], required=True, format_func=translator(), key=PREFIX + "source"
    )
    if source == "camera":
        shot = st.camera_input(t("camera"), key=PREFIX + "camera")
    else:
        shot = st.file_uploader(t("upload"), type=["jpg", "jpeg", "png", "webp", "bmp"], key=PREFIX + "upload")
    return shot.getvalue() if shot is not None else None


def _annotated(photo: PhotoRead) -> np.ndarray:
    reading = photo.reading
    labels = [f"{i + 1}:{tile.cls}" for i, tile in enumerate(reading.tiles)]
    image = draw_boxes(
        photo.image_bgr, [t.xyxy for t in reading.tiles], labels, [t.group for t in reading.tiles],
        highlight=st.session_state.get(SELECTED),
    )
    return fit(image, SETTINGS.display_max_side)


STRIP_ROWS: tuple[tuple[str, ...], ...] = ((HAND, WIN), MELD_GROUPS, (FLOWERS, UNPLACED))
STRIP_MIN_COLUMNS = 12
GAP_WIDTH = 0.35


def _strip(photo: PhotoRead) -> None:
    """The tiles as read, one row per layout row, groups apart; a click on a tile selects it."""
    st.markdown(f"**{t('as_read')}**")
    members = photo.reading.group_members()
    for row in STRIP_ROWS:
        groups = [(g, members[g]) for g in row if g in members]
        if not groups:
            continue
        widths: list[float] = []
        cells: list[tuple[str, int] | None] = []
        for n, (group, indices) in enumerate(groups):
            if n:
                widths.append(GAP_WIDTH)
                cells.append(None)
            widths.extend([1.0] * len(indices))
            cells.extend((group if k == 0 else "", i) for k, i in enumerate(indices))
        widths.extend([1.0] * max(0, STRIP_MIN_COLUMNS - len(cells)))
        for col, cell in zip(st.columns(widths, gap="small"), cells):
            if cell is not None:
                with col:
                    _strip_tile(photo, *cell)


def _strip_tile(photo: PhotoRead, caption_group: str, index: int) -> None:
    tile = photo.reading.tiles[index]
    st.caption(group_label(caption_group) if caption_group else "\u00a0")
    st.image(crop(photo.image_bgr, tile.xyxy, SETTINGS.crop_height), channels="BGR")
    st.button(
        f"{index + 1}:{tile.cls}" + ("*" if tile.edited else ""), key=f"{PREFIX}tile.{index}",
        on_click=_select, args=(index,), type="primary" if st.session_state.get(SELECTED) == index else "secondary",
        help=f"{tile_label(tile.cls)} · {tile.conf:.2f}",
        icon=":material/warning:" if index in _flagged(photo) else None,
    )


def _legend(reading: Reading) -> str:
    """Coloured swatches naming the groups drawn on the photo."""
    present = reading.group_members()
    items = []
    for group in GROUPS:
        if group in present:
            b, g, r = group_colour(group)
            items.append(
                f"<span style='display:inline-block;width:0.8em;height:0.8em;background:rgb({r},{g},{b});"
                f"margin:0 4px 0 10px;vertical-align:middle'></span>{escape(group_label(group))}"
            )
    return f"<div style='font-size:0.8em'>{''.join(items)}</div>"


def _issues(photo: PhotoRead) -> None:
    """The reader's issues, each with buttons for the tiles it names (a click selects the tile)."""
    st.markdown(f"**{t('issues')}**")
    if not photo.issues:
        st.caption(t("no_issues"))
        return
    for n, issue in enumerate(photo.issues):
        st.warning(issue)
        named = photo.reading.tiles_named_in(issue)
        if named:
            cols = st.columns(max(len(named), 6), gap="small")
            for col, index in zip(cols, named):
                col.button(f"{index + 1}:{photo.reading.tiles[index].cls}", key=f"{PREFIX}issue.{n}.{index}",
                           on_click=_select, args=(index,), type="tertiary", icon=":material/warning:")


def _flagged(photo: PhotoRead) -> set[int]:
    return {i for issue in photo.issues for i in photo.reading.tiles_named_in(issue)}


def _correction_panel(photo: PhotoRead) -> None:
    st.markdown(f"**{t('correct')}**")
    index = st.session_state.get(SELECTED)
    if index is not None and index < len(photo.reading.tiles):
        st.caption(f"{t('pick_tile')} #{index + 1}")
        c1, c2 = st.columns(2)
        c1.selectbox(t("face"), CLASS_NAMES, format_func=tile_label, key=EDIT_FACE)
        c2.selectbox(t("group"), GROUPS, format_func=group_labeler(), key=EDIT_GROUP)
        b1, b2, b3 = st.columns(3)
        b1.button(t("apply"), key=PREFIX + "apply", on_click=_apply, type="primary")
        b2.button(t("mark_win"), key=PREFIX + "mark_win", on_click=_mark_win)
        b3.button(t("remove"), key=PREFIX + "remove", on_click=_remove)
    with st.expander(t("add_tile")):
        st.session_state.setdefault(ADD_GROUP, HAND)
        c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
        c1.selectbox(t("face"), CLASS_NAMES, format_func=tile_label, key=ADD_FACE)
        c2.selectbox(t("group"), GROUPS, format_func=group_labeler(), key=ADD_GROUP)
        c3.button(t("add"), key=PREFIX + "add", on_click=_add)
    if photo.reading.edits or len(photo.reading.tiles) != len(photo.original.tiles):
        st.caption(t("corrected", n=photo.reading.edits))
        st.button(t("reset"), key=PREFIX + "reset", on_click=_reset)
    if st.session_state.get(MESSAGE):
        st.error(st.session_state[MESSAGE])


def _facts(reading: Reading) -> HandFacts:
    wins = [tile.cls for tile in reading.tiles if tile.group == WIN and tile.cls in _TILE_NAMES]
    win = Tile.parse(wins[0]) if len(wins) == 1 else None
    standing = [Tile.parse(tile.cls) for tile in reading.tiles if tile.group == HAND and tile.cls in _TILE_NAMES]
    meld_tiles = [Tile.parse(tile.cls) for tile in reading.tiles if tile.group in MELD_GROUPS and tile.cls in _TILE_NAMES]
    has_kong = any(
        sum(tile.group == g for tile in reading.tiles) == 4 for g in MELD_GROUPS
    )
    return HandFacts(
        has_kong=has_kong,
        win_tile=win,
        standing_copies_of_win=sum(x == win for x in standing) if win else 0,
        meld_copies_of_win=sum(x == win for x in meld_tiles) if win else 0,
    )


_TILE_NAMES = frozenset(CLASS_NAMES[:34])


def _save_panel(photo: PhotoRead) -> None:
    with st.expander(t("save")):
        st.session_state.setdefault(SAVE_DIR, str(SETTINGS.labeled_dir))
        st.text_input(t("save_dir"), key=SAVE_DIR)
        if st.button(t("save"), key=PREFIX + "save"):
            folder = Path(st.session_state[SAVE_DIR]).expanduser()
            try:
                image_path, label_path = save_for_training(
                    photo.image_bgr, photo.reading, folder, photo_name(photo.image_bytes), model=photo.model
                )
            except SaveError as exc:
                st.error(t("save_failed", msg=str(exc)))
            else:
                st.success(t("saved", image=str(image_path), labels=str(label_path)))


def render() -> None:
    st.title(t("page_photo"))
    st.caption(t("photo_intro"))
    image_bytes = _photo_input()
    if image_bytes is None:
        return
    key = hashlib.sha1(image_bytes).hexdigest()
    photo = _current()
    if photo is None or photo.key != key:
        with st.spinner("…"):
            photo = _read_photo(image_bytes, key)
        st.session_state[PHOTO] = photo
        st.session_state.pop(SELECTED, None)
    if photo.error:
        st.error(photo.error)
        st.session_state.pop(PHOTO, None)  # try again on the next run (a model may have been added)
        return
    if not photo.reading.tiles and not photo.original.tiles:
        st.warning(t("no_tiles"))
        return
    left, right = st.columns([3, 2])
    with left:
        st.image(_annotated(photo), channels="BGR", caption=t("tiles_found", n=len(photo.reading.tiles)))
        st.markdown(_legend(photo.reading), unsafe_allow_html=True)
        st.caption(f"{t('model')}: {photo.model}")
    with right:
        _issues(photo)
        _correction_panel(photo)
    _strip(photo)
    flowers = photo.reading.flower_count
    context, discarder = context_form(PREFIX, _facts(photo.reading), flowers_read=flowers)
    try:
        hand = photo.reading.to_hand(context)
    except HandError as exc:
        st.warning(t("cannot_score", msg=str(exc)))
    else:
        score_and_show(hand, discarder)
    _save_panel(photo)
