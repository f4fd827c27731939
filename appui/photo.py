"""Photo page: read a hand from one photo, correct it, score it, record it in the match, save it for training.

Made for a phone at the table (390 CSS px wide): the first view after a photo holds the few taps the
total needs (with a match open: who won and how; without: seat wind, prevalent wind and how), the
total with its 8-fan check, and the tiles the reader doubts, named and drawn red on the photo.  A tap
on a tile (on the photo or its button) opens its editor right under the photo, with the faces that
make the hand win as one-tap fixes; a fix closes it and the new total stands above, with the change.
The whole hand as read, tile by tile, and saving for training come further down.

The page is in parts by job: `photo_read` (the photo in, read, shown to tap; the session keys),
`photo_doubts` (what the reader doubts), `photo_fix` (the tile editor, the hand tile by tile),
`photo_score` (the questions and the total) and `photo_record` (recording the win, saving for
training). This module lays them out and keeps the names other pages use.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from .i18n import t
from .photo_doubts import (
    checks,
    doubt_texts,
    doubted_tiles,
    issue_text,
    open_doubts,
    other_winning_faces,
    settled_doubts,
    winning_hints,
)
from .photo_fix import editor, group_label, legend, more_panel, strip
from .photo_match import OpenDeal
from .photo_read import (
    FIX_FROM,
    MATCH_CURRENT,
    MESSAGE,
    PHOTO,
    SELECTED,
    SELECTED_AT,
    SETTINGS,
    SHOWN_TOTAL,
    PhotoRead,
    current,
    photo_input,
    read_photo,
    tap_photo,
    zoom_panel,
)
from .photo_record import deal_in_match, record_panel, record_status, record_tap, refusal_text, save_panel
from .photo_score import Scored, hand_facts, match_questions, remember_context, score_photo, start_context, table_questions, total_panel
from .widgets import show_fans


def _style() -> None:
    """Touch targets a finger can hit on a phone; doubted strip tiles framed red."""
    size = SETTINGS.touch_target_px
    st.html(f"""<style>
.st-key-photo_page button, .st-key-photo_page [data-baseweb=select] > div,
.st-key-photo_page [data-testid=stExpander] summary {{ min-height: {size}px; }}
.st-key-photo_page button {{ min-width: {size}px; }}
.st-key-photo_page [data-testid=stCheckbox] label {{ min-height: {size}px; align-items: center; }}
.st-key-photo_page [class*=st-key-photo_tile_] button, .st-key-photo_page [class*=st-key-photo_doubt_] button
  {{ padding: 0 2px; font-size: 0.8rem; }}
.st-key-photo_page [class*=st-key-photo_doubt_] button {{ border: 2px solid #e62828; }}
.st-key-photo_total {{ scroll-margin-top: 4rem; }}
.st-key-photo_tap {{ max-width: {SETTINGS.tap_view_max_css_px}px; }}
.st-key-photo_page h1 {{ font-size: 1.75rem; padding-top: 0; }}
[data-testid=stMainBlockContainer]:has(.st-key-photo_page) {{ padding-top: 3.5rem; }}
</style>""")


def render() -> None:
    _style()
    with st.container(key="photo_page"):
        _page()


def _page() -> None:
    st.title(t("page_photo"))
    result_box, input_box, details_box = st.container(), st.container(), st.container()
    with input_box:
        image_bytes = photo_input()
    if image_bytes is None:
        with result_box:
            st.caption(t("photo_intro"))
        return
    with result_box:
        deal = deal_in_match()
    key = hashlib.sha1(image_bytes).hexdigest()
    photo = current()
    if photo is None or photo.key != key:
        with result_box, st.spinner(t("reading_photo")):
            read = read_photo(image_bytes, key)
        if isinstance(read, str):
            with result_box:
                st.error(read)
            st.session_state.pop(PHOTO, None)  # try again on the next run (a model may have been added)
            return
        photo = read
        st.session_state[PHOTO] = photo
        st.session_state.pop(SELECTED, None)
        for name in (MESSAGE, FIX_FROM, SHOWN_TOTAL):
            st.session_state[name] = None
        start_context(deal)
    if not photo.reading.tiles and not photo.original.tiles:
        with result_box:
            st.warning(t("no_tiles_hint"))
        return
    with result_box:
        scored, doubted = _result(photo, deal)
    with details_box:
        _details(photo, scored, doubted)


def _result(photo: PhotoRead, deal: OpenDeal | None) -> tuple[Scored | None, list[int]]:
    """What the first screen shows: the questions, the total, the tiles to check, the photo to tap.
    Returns the hand scored (None until the questions are answered) and the doubted tiles."""
    facts, flowers = hand_facts(photo.reading), photo.reading.flower_count
    questions, below = st.container(), st.container()
    cases_box = st.container()
    with questions:
        asked = (match_questions(deal, facts, flowers, cases_box) if deal is not None
                 else table_questions(facts, flowers, cases_box))
    remember_context()
    open_, settled = open_doubts(photo.original, photo.reading, photo.issues)  # once a run: settling a doubt tries every face in the hand
    doubted = doubted_tiles(open_)
    with below:
        scored = score_photo(photo, asked.context) if asked.context is not None else None
        if scored is not None:
            total_panel(scored, doubted, sum(1 for _, _, named in open_ if not named))
            if deal is not None:
                record_panel(photo, deal, asked, scored)
        checks(photo, open_, doubted)
        tap_photo(photo, doubted)
        doubt_texts(open_, photo.reading, asked.context)
        selected = st.session_state.get(SELECTED)
        if selected is not None and st.session_state.get(SELECTED_AT, "photo") == "photo":
            editor(photo, selected)
        zoom_panel(photo, doubted)  # under the editor: a tile picked there opens its editor just above
    if scored is not None:
        show_fans(scored.result, scored.hand.context, asked.discarder_seat)
    settled_doubts(settled)
    return scored, doubted


def _details(photo: PhotoRead, scored: Scored | None, doubted: list[int]) -> None:
    """Below the next photo's input: the hand tile by tile, adding a missed tile, saving for training."""
    strip(photo, set(doubted), None if scored is None else scored.result.total)
    more_panel(photo)
    height, width = photo.image_bgr.shape[:2]
    st.caption(photo.version)
    st.caption(t("photo_size", w=width, h=height) + f" · {t('model')}: {photo.model}")
    st.markdown(legend(photo.reading), unsafe_allow_html=True)
    if st.session_state.get(MATCH_CURRENT) is None:
        st.caption(t("keep_a_match"))
    save_panel(photo)


__all__ = [
    "PhotoRead",
    "deal_in_match",
    "doubted_tiles",
    "group_label",
    "issue_text",
    "open_doubts",
    "other_winning_faces",
    "record_status",
    "record_tap",
    "refusal_text",
    "render",
    "winning_hints",
]
