"""Photo page, fixing: a tapped tile's editor (the faces that make the hand win as one-tap fixes, any
face and group), the hand as read tile by tile, adding a missed tile, undoing every fix.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

import streamlit as st

from scoring.hand import WinContext
from tileset.classes import CLASS_NAMES

from .correction import FLOWERS, GROUPS, HAND, MELD_GROUPS, UNPLACED, WIN, CorrectionError, Reading
from .doubts import fix_choices
from .glyphs import tile_label
from .i18n import lang, t, tile_short, tile_words
from .overlay import crop, group_colour
from .photo_read import (
    ADD_FACE,
    ADD_GROUP,
    EDIT_FACE,
    EDIT_GROUP,
    FIX_FROM,
    FIXED,
    MESSAGE,
    OPENED,
    PREFIX,
    SELECTED,
    SELECTED_AT,
    SETTINGS,
    SHOWN_TOTAL,
    PhotoRead,
    current,
    select,
)

SCROLLED_TO_EDITOR = PREFIX + "scrolled_to_editor"  # the pick (appui.photo_read.OPENED) its editor was shown for
# a tile just picked: its editor scrolled into view, the least scroll that shows it (a pick's number makes each script new)
SCROLL_TO_EDITOR_JS = """<script>/* pick PICK */
setTimeout(() => document.querySelector('.st-key-photo_editor')?.scrollIntoView({block: 'nearest'}), 300);
</script>"""


def group_label(group: str, language: str | None = None) -> str:
    if group in MELD_GROUPS:
        return t("group_meld", language, n=MELD_GROUPS.index(group) + 1)
    return t(f"group_{group}", language)


def group_labeler() -> Callable[[str], str]:
    """group_label bound to this run's language (a widget format_func)."""
    language = lang()
    return lambda group: group_label(group, language)


def edit(change: Any, close: bool = False) -> bool:
    """Apply `change` to the reading; True when it was made.  `close`: the editor closes on success
    (a fix done: the page shrinks back and the new total stands above)."""
    photo = current()
    if photo is None:
        return False
    try:
        photo.reading = change(photo.reading)
    except CorrectionError as exc:
        st.session_state[MESSAGE] = str(exc)
        return False
    st.session_state[MESSAGE] = None
    st.session_state[FIX_FROM] = st.session_state.get(SHOWN_TOTAL)
    if close:
        st.session_state.pop(SELECTED, None)
        st.session_state[FIXED] = int(st.session_state.get(FIXED) or 0) + 1
    return True


def fix_face(index: int, face: str) -> None:
    """One tap: tile `index` is `face`."""
    edit(lambda r: r.with_face(index, face), close=True)


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

    edit(change, close=True)


def _remove() -> None:
    index = st.session_state.pop(SELECTED, None)
    if index is not None:
        edit(lambda r: r.without(index))


def _mark_win() -> None:
    index = st.session_state.get(SELECTED)
    if index is not None:
        edit(lambda r: r.with_win(index), close=True)


def _add() -> None:
    edit(lambda r: r.with_added(st.session_state[ADD_FACE], st.session_state[ADD_GROUP]))


def _close() -> None:
    st.session_state.pop(SELECTED, None)


def _reset() -> None:
    photo = current()
    if photo is not None:
        photo.reading = photo.original
        st.session_state.pop(SELECTED, None)


# --- the hand as read: tile pictures in compact rows, the editor under the tapped tile's row ----


STRIP_ROWS: tuple[tuple[str, ...], ...] = ((HAND, WIN), MELD_GROUPS, (FLOWERS, UNPLACED))
_ORDER = {name: i for i, name in enumerate(CLASS_NAMES)}


def _in_order(photo: PhotoRead, group: str, indices: list[int]) -> list[int]:
    """Standing tiles and flowers sorted as a player sorts them; melds left to right as laid."""
    if group in (HAND, FLOWERS, UNPLACED):
        return sorted(indices, key=lambda i: (_ORDER.get(photo.reading.tiles[i].cls, 99), i))
    return indices


def strip(photo: PhotoRead, flagged: set[int], total: int | None) -> None:
    """The tiles as read, one row per layout row, groups apart, wrapping on a narrow screen; the
    `flagged` ones (named by an open doubt) framed red."""
    st.markdown(f"**{t('as_read')}**")
    st.caption(t("tiles_found", n=len(photo.reading.tiles)) + " · " + t("tap_tile"))
    members = photo.reading.group_members()
    selected = st.session_state.get(SELECTED) if st.session_state.get(SELECTED_AT) == "strip" else None
    for n, row in enumerate(STRIP_ROWS):
        groups = [(g, members[g]) for g in row if g in members]
        if not groups:
            continue
        with st.container(horizontal=True, gap="medium", key=f"photo_row{n}"):
            for group, indices in groups:
                with st.container(gap=None, width="content"):
                    st.caption(group_label(group))
                    with st.container(horizontal=True, gap="xsmall"):
                        for index in _in_order(photo, group, indices):
                            strip_tile(photo, index, index in flagged)
        if selected is not None and any(selected in indices for _, indices in groups):
            editor(photo, selected, total)


def strip_tile(photo: PhotoRead, index: int, flagged: bool) -> None:
    """A tile's picture over a button naming it in words ('9 Bam', '九条'); a doubted one framed red."""
    tile = photo.reading.tiles[index]
    key = f"photo_doubt_{index}" if flagged else f"photo_tile_{index}"
    with st.container(gap=None, width=SETTINGS.strip_tile_width, key=key):
        st.image(crop(photo.image_bgr, tile.xyxy, SETTINGS.crop_height), channels="BGR", width="stretch")
        st.button(
            tile_short(tile.cls) + (" ✎" if tile.edited else ""), key=f"{PREFIX}tile.{index}",
            on_click=select, args=(index, "strip"), width="stretch",
            type="primary" if st.session_state.get(SELECTED) == index else "secondary",
            help=f"{tile_words(tile.cls)} · {tile.conf:.2f}" + (f" · {t('in_doubt')}" if flagged else ""),
        )


def editor(photo: PhotoRead, index: int, total_now: int | None = None) -> None:
    """The tapped tile: the faces it may be, from its own group (flowers for a flower), as one-tap fixes, then
    any face and group.
    `total_now` (an editor far below the total) is shown in it."""
    if index >= len(photo.reading.tiles):
        return
    tile = photo.reading.tiles[index]
    opened = st.session_state.get(OPENED)
    if opened and st.session_state.get(SCROLLED_TO_EDITOR) != opened:  # just picked: it may open below the screen
        st.session_state[SCROLLED_TO_EDITOR] = opened
        st.html(SCROLL_TO_EDITOR_JS.replace("PICK", str(int(opened))), unsafe_allow_javascript=True)
    with st.container(border=True, key="photo_editor"):  # CSS class st-key-photo_editor
        with st.container(horizontal=True, vertical_alignment="center"):
            st.image(crop(photo.image_bgr, tile.xyxy, SETTINGS.crop_height), channels="BGR", width="content")
            st.markdown(f"**{t('editing')}**: {tile_words(tile.cls)}")
        if total_now is not None:
            st.caption(t("total_now", total=total_now))
        faces = fix_choices(photo.reading, index, WinContext(), SETTINGS.fix_suggestions)  # from the tile's own group
        if faces:
            st.caption(t("fix_choices"))
            with st.container(horizontal=True, gap="small", key="photo_fixes"):
                for face in faces:
                    st.button(tile_short(face), key=f"{PREFIX}fix.{face}", on_click=fix_face, args=(index, face),
                              type="primary", help=tile_words(face))
        st.selectbox(t("face"), CLASS_NAMES, format_func=tile_label, key=EDIT_FACE)
        st.selectbox(t("group"), GROUPS, format_func=group_labeler(), key=EDIT_GROUP)
        with st.container(horizontal=True, gap="small"):
            st.button(t("apply"), key=PREFIX + "apply", on_click=_apply, type="primary")
            st.button(t("mark_win"), key=PREFIX + "mark_win", on_click=_mark_win)
            st.button(t("remove"), key=PREFIX + "remove", on_click=_remove)
            st.button(t("close"), key=PREFIX + "close", on_click=_close, type="tertiary")
        if st.session_state.get(MESSAGE):
            st.error(st.session_state[MESSAGE])


def legend(reading: Reading) -> str:
    """Coloured swatches naming the groups drawn on the photo."""
    present = reading.group_members()
    items = []
    for group in GROUPS:
        if group in present:
            b, g, r = group_colour(group)
            items.append(
                f"<span style='display:inline-block;width:0.8em;height:0.8em;border:2px solid rgb({r},{g},{b});"
                f"margin:0 4px 0 10px;vertical-align:middle'></span>{escape(group_label(group))}"
            )
    return f"<div style='font-size:0.8em'>{''.join(items)}</div>"


def more_panel(photo: PhotoRead) -> None:
    """Add a missed tile, undo every correction."""
    with st.expander(t("add_tile")):
        st.session_state.setdefault(ADD_GROUP, HAND)
        c1, c2 = st.columns(2)
        c1.selectbox(t("face"), CLASS_NAMES, format_func=tile_label, key=ADD_FACE)
        c2.selectbox(t("group"), GROUPS, format_func=group_labeler(), key=ADD_GROUP)
        st.button(t("add"), key=PREFIX + "add", on_click=_add)
    if photo.reading.edits or len(photo.reading.tiles) != len(photo.original.tiles):
        st.caption(t("corrected", n=photo.reading.edits))
        st.button(t("reset"), key=PREFIX + "reset", on_click=_reset)
    if st.session_state.get(MESSAGE) and st.session_state.get(SELECTED) is None:
        st.error(st.session_state[MESSAGE])


