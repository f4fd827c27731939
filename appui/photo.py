"""Photo page: read a hand from one photo, correct it, score it, record it in the match, save it for training.

Made for a phone at the table (390 CSS px wide): the first view after a photo holds the few taps the
total needs (with a match open: who won and how; without: seat wind, prevalent wind and how), the
total with its 8-fan check, and the tiles the reader doubts, named and drawn red on the photo.  A tap
on a tile (on the photo or its button) opens its editor right under the photo, with the faces that
make the hand win as one-tap fixes; a fix closes it and the new total stands above, with the change.
The whole hand as read, tile by tile, and saving for training come further down.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import cv2
import numpy as np
import streamlit as st

from scoring.hand import Hand, HandError, WinContext
from scoring.scorer import is_winning
from scoring.tiles import Tile
from tileset.classes import CLASS_NAMES

from .correction import FLOWERS, GROUPS, HAND, MELD_GROUPS, UNPLACED, WIN, CorrectionError, Reading
from .dataroot import OutsideDataRoot, data_root, relative_name, resolve_inside
from .glyphs import tile_label
from .i18n import lang, t, tile_short, tile_words, translator
from .models import get_detector, model_label, read_with
from .overlay import crop, draw_checks, group_colour
from .photo_match import MatchClosed, NotRecorded, OpenDeal, Recorded, open_deal, record_win
from .phototap import View, tile_at
from .saving import SaveError, photo_name, save_for_training
from .settings import DEFAULT_APP_SETTINGS
from .widgets import FLAG_NAMES, WIND_NAMES, data_folder_input, show_fans, wind_label
from .winctx import HandFacts, impossible_flags

PREFIX = "photo."
PHOTO = PREFIX + "photo"  # the PhotoRead of the current photo
SELECTED = PREFIX + "selected"
SELECTED_AT = PREFIX + "selected_at"  # where the tile was tapped: "photo" (editor under the photo) or "strip"
MESSAGE = PREFIX + "message"
EDIT_FACE, EDIT_GROUP = PREFIX + "edit_face", PREFIX + "edit_group"
ADD_FACE, ADD_GROUP = PREFIX + "add_face", PREFIX + "add_group"
SAVE_DIR = PREFIX + "save_dir"
TAP = PREFIX + "tap"  # streamlit-image-coordinates' answer: the last tap on the photo
SHOWN_TOTAL = PREFIX + "shown_total"  # (total, context) as last shown: a fix says what it changed
FIX_FROM = PREFIX + "fix_from"  # the shown total when the last fix was made
FIXED = PREFIX + "fixed"  # fixes made from an editor; a new one scrolls the total into view once
SCROLLED_FOR = PREFIX + "scrolled_for"  # the fix the total was last scrolled into view for
CONTEXT_SEEN = PREFIX + "context_seen"  # the context as the page last showed it
RECORDED = PREFIX + "recorded"  # match id -> {hand fingerprint: deal number} recorded from this page
RECORD_MESSAGE = PREFIX + "record_message"  # (fingerprint, kind, text) of the last tap on "Record"
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


def group_label(group: str, language: str | None = None) -> str:
    if group in MELD_GROUPS:
        return t("group_meld", language, n=MELD_GROUPS.index(group) + 1)
    return t(f"group_{group}", language)


def group_labeler() -> Callable[[str], str]:
    """group_label bound to this run's language (a widget format_func)."""
    language = lang()
    return lambda group: group_label(group, language)


def _read_photo(image_bytes: bytes, key: str) -> PhotoRead | str:
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
    reading = Reading.from_tiles(result.tiles)
    return PhotoRead(key, image_bytes, image, reading, reading, tuple(result.issues), model=model_label(detector),
                     version=read_with())


def _current() -> PhotoRead | None:
    return st.session_state.get(PHOTO)


def _edit(change: Any, close: bool = False) -> bool:
    """Apply `change` to the reading; True when it was made.  `close`: the editor closes on success
    (a fix done: the page shrinks back and the new total stands above)."""
    photo = _current()
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


def _select(index: int, where: str = "photo") -> None:
    photo = _current()
    if photo is None or index >= len(photo.reading.tiles):
        return
    st.session_state[SELECTED] = index
    st.session_state[SELECTED_AT] = where
    st.session_state[EDIT_FACE] = photo.reading.tiles[index].cls
    st.session_state[EDIT_GROUP] = photo.reading.tiles[index].group


def _fix_face(index: int, face: str) -> None:
    """One tap: tile `index` is `face`."""
    _edit(lambda r: r.with_face(index, face), close=True)


def _on_tap() -> None:
    """A tap on the photo picks the tile under the finger (or the nearest within reach)."""
    photo = _current()
    if photo is None:
        return
    index = tile_at([tile.xyxy for tile in photo.reading.tiles], _view(photo), st.session_state.get(TAP),
                    SETTINGS.tap_reach_px)
    if index is not None:
        _select(index, "photo")


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

    _edit(change, close=True)


def _remove() -> None:
    index = st.session_state.pop(SELECTED, None)
    if index is not None:
        _edit(lambda r: r.without(index))


def _mark_win() -> None:
    index = st.session_state.get(SELECTED)
    if index is not None:
        _edit(lambda r: r.with_win(index), close=True)


def _add() -> None:
    _edit(lambda r: r.with_added(st.session_state[ADD_FACE], st.session_state[ADD_GROUP]))


def _close() -> None:
    st.session_state.pop(SELECTED, None)


def _reset() -> None:
    photo = _current()
    if photo is not None:
        photo.reading = photo.original
        st.session_state.pop(SELECTED, None)


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


def _photo_input() -> bytes | None:
    st.session_state.setdefault(PREFIX + "source", SOURCES[0])
    source = st.segmented_control(
        t("source"), SOURCES, required=True, format_func=translator("source_"), key=PREFIX + "source"
    )
    if source == "camera":
        shot = st.camera_input(t("camera"), key=PREFIX + "camera", help=t("camera_small"))
    elif source == "files":
        shot = st.file_uploader(t("upload"), type=IMAGE_TYPES, key=PREFIX + "files", help=t("upload_limit"))
    else:
        with st.container(key="photo_shoot"):
            shot = st.file_uploader(t("shoot"), type=IMAGE_TYPES, key=PREFIX + "upload",
                                    help=t("shoot_help") + " " + t("upload_limit"))
            st.html(CAPTURE_JS, unsafe_allow_javascript=True)
    return shot.getvalue() if shot is not None else None


# --- the photo to tap: the tiles' part of it, the doubted tiles red and numbered ----------------


def _view(photo: PhotoRead) -> View:
    height, width = photo.image_bgr.shape[:2]
    return View.around([tile.xyxy for tile in photo.reading.tiles], (width, height), SETTINGS.tap_view_margin)


def _tap_photo(photo: PhotoRead, doubted: list[int]) -> None:
    """The tiles' part of the photo, each tile outlined, the doubted ones red with their number; a tap
    on a tile opens its editor (a still picture where streamlit-image-coordinates is missing)."""
    view = _view(photo)
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
                                    cursor="pointer", on_click=_on_tap)
    st.caption(t("tap_photo"))


# --- the win context: a tap each, asked again for every photo ------------------------------------


def _context_now() -> dict[str, object]:
    state = st.session_state
    names = ("won_by", "discarder", "seat", "prevalent", "winner", "discarder_player", *FLAG_NAMES)
    return {name: state.get(PREFIX + name) for name in names}


def _start_context(deal: OpenDeal | None) -> None:
    """A new photo: every question asked again, nothing kept from the last photo.

    A context another page put here since the photo page last showed it (the Match page's "Score a
    photo": the winner's seat, the round, how, the discarder's seat) is kept; with a match open it
    names the players sitting at those seats in this deal.
    """
    state = st.session_state
    now = _context_now()
    if now.get("won_by") is not None and now != state.get(CONTEXT_SEEN):
        if deal is not None:
            seat, discarding = now.get("seat"), now.get("discarder")
            state[WINNER] = deal.players[deal.seat_winds.index(seat)] if seat in deal.seat_winds else None
            state[DISCARDER_PLAYER] = (deal.players[deal.seat_winds.index(discarding)]
                                       if discarding in deal.seat_winds else None)
        return
    for name in ("won_by", "discarder", "seat", "prevalent", "winner", "discarder_player"):
        state[PREFIX + name] = None
    for name in FLAG_NAMES:
        state[PREFIX + name] = False


def _remember_context() -> None:
    st.session_state[CONTEXT_SEEN] = _context_now()


def _special_cases(facts: HandFacts, self_drawn: bool) -> dict[str, bool]:
    """Last tile, last of the wall, kong replacement, robbing the kong: folded away (rare), impossible
    ones disabled with the reason as help."""
    blocked = impossible_flags(facts, self_drawn=self_drawn)
    ticked = [name for name in FLAG_NAMES if st.session_state.get(PREFIX + name) and name not in blocked]
    flags: dict[str, bool] = {}
    with st.expander(t("special_cases") + (f" ({len(ticked)})" if ticked else "")):
        for name in FLAG_NAMES:
            reason = blocked.get(name)
            value = st.checkbox(t(name), key=PREFIX + name, disabled=reason is not None,
                                help=t(reason.key, **reason.params()) if reason else None)
            flags[name] = value and reason is None
    return flags


def _how_won() -> str | None:
    return st.segmented_control(t("win_by"), ["discard", "self_drawn"], format_func=translator(),
                                key=PREFIX + "won_by")


@dataclass(frozen=True)
class Asked:
    """The answers the total needs; `context` is None until every one is given."""

    context: WinContext | None
    discarder_seat: str | None = None
    winner: str | None = None  # with a match open: the player who won, and who discarded
    discarder: str | None = None


def _table_questions(facts: HandFacts, flowers: int, cases_box: Any) -> Asked:
    """No match open: the winner's seat wind, the prevalent wind, how it was won and who discarded."""
    state = st.session_state
    seat = st.segmented_control(t("seat_wind"), WIND_NAMES, format_func=wind_label, key=PREFIX + "seat")
    prevalent = st.segmented_control(t("prevalent_wind"), WIND_NAMES, format_func=wind_label,
                                     key=PREFIX + "prevalent")
    won_by = _how_won()
    discarder = None
    if won_by == "discard" and seat is not None:
        others = [w for w in WIND_NAMES if w != seat]
        if state.get(PREFIX + "discarder") not in others:
            state[PREFIX + "discarder"] = None  # asked, not guessed
        discarder = st.segmented_control(t("discarder"), others, format_func=wind_label, key=PREFIX + "discarder")
    with cases_box:  # drawn below the photo: rare, and the total comes first
        flags = _special_cases(facts, won_by == "self_drawn")
    if seat is None or prevalent is None:
        st.info(t("ask_winds"))
        return Asked(None)
    if won_by is None:
        st.info(t("ask_won_by"))
        return Asked(None)
    context = WinContext(self_drawn=won_by == "self_drawn", seat_wind=Tile.parse(seat),
                         prevalent_wind=Tile.parse(prevalent), flowers=flowers, last_tile=flags["last_tile"],
                         last_of_wall=flags["last_of_wall"], kong_replacement=flags["kong_replacement"],
                         robbing_kong=flags["robbing_kong"])
    return Asked(context, discarder)


def _match_questions(deal: OpenDeal, facts: HandFacts, flowers: int, cases_box: Any) -> Asked:
    """A match open: the deal's winds come from the ledger; asked are who won, how, and who discarded."""
    state = st.session_state
    round_name = wind_label(deal.prevalent) if lang() == "en" else wind_label(deal.prevalent).split()[-1]
    st.caption(t("deal_line", id=deal.match_id, n=deal.number, round=round_name, dealer=deal.dealer))
    if state.get(WINNER) not in deal.players:
        state[WINNER] = None
    winner = st.segmented_control(
        t("who_won"), list(deal.players), key=WINNER,
        format_func=lambda p: t("player_seat", player=p, wind=wind_label(deal.seat_of(p))),
    )
    won_by = _how_won()
    discarder = None
    if won_by == "discard" and winner is not None:
        others = [p for p in deal.players if p != winner]
        if state.get(DISCARDER_PLAYER) not in others:
            state[DISCARDER_PLAYER] = None
        discarder = st.segmented_control(
            t("discarder"), others, key=DISCARDER_PLAYER,
            format_func=lambda p: t("player_seat", player=p, wind=wind_label(deal.seat_of(p))),
        )
    with cases_box:
        flags = _special_cases(facts, won_by == "self_drawn")
    if winner is None:
        st.info(t("ask_winner"))
        return Asked(None)
    if won_by is None:
        st.info(t("ask_won_by"))
        return Asked(None)
    context = deal.context(winner, won_by == "self_drawn", WinContext(
        flowers=flowers, last_tile=flags["last_tile"], last_of_wall=flags["last_of_wall"],
        kong_replacement=flags["kong_replacement"], robbing_kong=flags["robbing_kong"]))
    return Asked(context, None if discarder is None else deal.seat_of(discarder), winner, discarder)


# --- the hand as read: tile pictures in compact rows, the editor under the tapped tile's row ----


STRIP_ROWS: tuple[tuple[str, ...], ...] = ((HAND, WIN), MELD_GROUPS, (FLOWERS, UNPLACED))
_ORDER = {name: i for i, name in enumerate(CLASS_NAMES)}


def _in_order(photo: PhotoRead, group: str, indices: list[int]) -> list[int]:
    """Standing tiles and flowers sorted as a player sorts them; melds left to right as laid."""
    if group in (HAND, FLOWERS, UNPLACED):
        return sorted(indices, key=lambda i: (_ORDER.get(photo.reading.tiles[i].cls, 99), i))
    return indices


def _strip(photo: PhotoRead, flagged: set[int], total: int | None) -> None:
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
                            _strip_tile(photo, index, index in flagged)
        if selected is not None and any(selected in indices for _, indices in groups):
            _editor(photo, selected, total)


def _strip_tile(photo: PhotoRead, index: int, flagged: bool) -> None:
    """A tile's picture over a button naming it in words ('9 Bam', '九条'); a doubted one framed red."""
    tile = photo.reading.tiles[index]
    key = f"photo_doubt_{index}" if flagged else f"photo_tile_{index}"
    with st.container(gap=None, width=SETTINGS.strip_tile_width, key=key):
        st.image(crop(photo.image_bgr, tile.xyxy, SETTINGS.crop_height), channels="BGR", width="stretch")
        st.button(
            tile_short(tile.cls) + (" ✎" if tile.edited else ""), key=f"{PREFIX}tile.{index}",
            on_click=_select, args=(index, "strip"), width="stretch",
            type="primary" if st.session_state.get(SELECTED) == index else "secondary",
            help=f"{tile_words(tile.cls)} · {tile.conf:.2f}" + (f" · {t('in_doubt')}" if flagged else ""),
        )


def _editor(photo: PhotoRead, index: int, total_now: int | None = None) -> None:
    """The tapped tile: the faces that make the hand win as one-tap fixes, then any face and group.
    `total_now` (an editor far below the total) is shown in it."""
    if index >= len(photo.reading.tiles):
        return
    tile = photo.reading.tiles[index]
    with st.container(border=True, key="photo_editor"):  # CSS class st-key-photo_editor
        with st.container(horizontal=True, vertical_alignment="center"):
            st.image(crop(photo.image_bgr, tile.xyxy, SETTINGS.crop_height), channels="BGR", width="content")
            st.markdown(f"**{t('editing')}**: {tile_words(tile.cls)}")
        if total_now is not None:
            st.caption(t("total_now", total=total_now))
        faces = list(other_winning_faces(photo.reading, index, WinContext()))[:SETTINGS.fix_suggestions]
        if faces and tile.group in (HAND, WIN, *MELD_GROUPS):
            st.caption(t("make_it"))
            with st.container(horizontal=True, gap="small", key="photo_fixes"):
                for face in faces:
                    st.button(tile_short(face), key=f"{PREFIX}fix.{face}", on_click=_fix_face, args=(index, face),
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


def _legend(reading: Reading) -> str:
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


# --- the reader's doubts, in player words --------------------------------------------------------


def issue_text(issue: Any, language: str | None = None) -> str:
    """A reader issue as a player reads it, in the page's language (the code's label, its values filled)."""
    code = str(getattr(issue, "code", ""))
    params = dict(getattr(issue, "params", {}) or {})
    key = f"issue_{code}"
    try:
        values = _issue_values(params, language)
        return t(key, language, **values)
    except (KeyError, IndexError, ValueError, TypeError):
        return str(issue)  # an issue this table does not know yet: the reader's own sentence


def _issue_values(params: dict[str, Any], language: str | None) -> dict[str, Any]:
    out: dict[str, Any] = dict(params)
    for name in ("name", "kept", "dropped", "read_as"):
        if name in params:
            out[name] = tile_words(str(params[name]), language)
    if "names" in params:
        out["names"] = ", ".join(tile_words(str(n), language) for n in params["names"])
    seen_tiles = params.get("seen")  # left_out: the tiles (name, x, y, conf); too_many_copies: a count
    if isinstance(seen_tiles, (tuple, list)) and seen_tiles and isinstance(seen_tiles[0], (tuple, list)):
        out["names"] = ", ".join(tile_words(str(seen[0]), language) for seen in params["seen"])
    if "at" in params:
        out["count"] = len(params["at"])
        out["where"] = ", ".join(f"({x}, {y})" for x, y in params["at"])
    if "angle_deg" in params:
        out["angle"] = f"{float(params['angle_deg']):.0f}"
    return out


_CONFIRMABLE = frozenset({"low_confidence"})  # doubts about one face, which the hand's shape can settle


def other_winning_faces(reading: Reading, index: int, context: WinContext) -> Iterator[str]:
    """The faces, other than the one read, that make the hand win when tile `index` is read as them."""
    for face in CLASS_NAMES[:34]:
        if face == reading.tiles[index].cls:
            continue
        try:
            if is_winning(reading.with_face(index, face).to_hand(context)):
                yield face
        except (HandError, CorrectionError):
            continue


def _confirmed_by_hand(reading: Reading, index: int) -> bool:
    """The hand wins as read, and with no other face at `index`: its shape confirms that tile."""
    context = WinContext()
    try:
        if not is_winning(reading.to_hand(context)):
            return False
    except (HandError, CorrectionError):
        return False
    if reading.tiles[index].cls not in _TILE_NAMES or reading.tiles[index].group not in (HAND, WIN, *MELD_GROUPS):
        return False
    return next(other_winning_faces(reading, index, context), None) is None


def open_doubts(original: Reading, reading: Reading, issues: Sequence[Any]) -> tuple[list[tuple[int, Any, list[int]]], list[Any]]:
    """(the reader's `issues` still in doubt as (number, issue, tiles it names in `reading`), the ones the hand
    settles), for `reading` as the player has corrected `original` (the photo and the live page share it).

    An issue about tiles is settled once the player has corrected (or removed) each of them, and a
    doubt about a face once the hand wins with that face and with no other; an issue about the
    hand as a whole once the player has corrected anything.
    """
    corrected = reading.edits > 0 or len(reading.tiles) != len(original.tiles)
    open_: list[tuple[int, Any, list[int]]] = []
    settled: list[Any] = []
    for n, issue in enumerate(issues):
        named = reading.tiles_named_in(issue) if getattr(issue, "tiles", ()) else []
        if getattr(issue, "tiles", ()):
            if not named or all(reading.tiles[i].edited for i in named):
                continue
            if str(getattr(issue, "code", "")) in _CONFIRMABLE and all(
                _confirmed_by_hand(reading, i) for i in named
            ):
                settled.append(issue)
                continue
        elif corrected:
            continue
        open_.append((n, issue, named))
    return open_, settled


def doubted_tiles(open_: list[tuple[int, Any, list[int]]]) -> list[int]:
    """The tiles the open doubts name, each once, in the doubts' order (their numbers on the photo)."""
    return list(dict.fromkeys(index for _, _, named in open_ for index in named))


def _checks(photo: PhotoRead, open_: list[tuple[int, Any, list[int]]], doubted: list[int]) -> None:
    """"Check these N tiles": a button per doubted tile (numbered as on the photo; a tap opens its
    editor under the photo) and what the reader doubts, in player words."""
    if not open_:
        st.caption(t("no_doubts"))
        return
    if doubted:
        st.markdown(f"**{t('check_tiles', n=len(doubted)) if len(doubted) > 1 else t('check_one_tile')}**")
        with st.container(horizontal=True, gap="small", key="photo_checks"):
            for n, index in enumerate(doubted, start=1):
                st.button(f"{n} · {tile_short(photo.reading.tiles[index].cls)}", key=f"{PREFIX}check.{index}",
                          on_click=_select, args=(index, "photo"), icon=":material/search:",
                          help=tile_words(photo.reading.tiles[index].cls))


def _doubt_texts(open_: list[tuple[int, Any, list[int]]]) -> None:
    """What the reader doubts, in player words, one short line each."""
    for _, issue, _ in open_:
        st.markdown(f":orange-background[:material/help: {issue_text(issue)}]")


def _settled(settled: list[Any]) -> None:
    if settled:
        with st.expander(t("settled_doubts", n=len(settled))):
            for issue in settled:
                st.caption(issue_text(issue))


def _more_panel(photo: PhotoRead) -> None:
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


# --- the total ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WinningHint:
    """Changing the tile `index` to `face` would make the hand win."""

    index: int
    face: str


def winning_hints(reading: Reading, context: WinContext, limit: int = 3) -> list[WinningHint]:
    """The standing tiles (and the winning tile) that, read as another face, would make the hand win;
    doubtful and corrected tiles first."""
    candidates = [i for i, tile in enumerate(reading.tiles) if tile.group in (HAND, WIN) and tile.cls in _TILE_NAMES]
    candidates.sort(key=lambda i: (not reading.tiles[i].edited, reading.tiles[i].conf))
    hints: list[WinningHint] = []
    for index in candidates:
        face = next(other_winning_faces(reading, index, context), None)
        if face is not None:
            hints.append(WinningHint(index, face))
        if len(hints) >= limit:
            break
    return hints


@dataclass(frozen=True)
class Scored:
    hand: Hand
    result: Any  # scoring.scorer.ScoreResult


def _score(photo: PhotoRead, context: WinContext) -> Scored | None:
    """The hand scored, or (None) why not: a hand that does not win says which tile to look at."""
    try:
        from scoring.scorer import NotWinningHand, score
    except ImportError as exc:
        st.error(t("scorer_missing", msg=str(exc)))
        return None
    try:
        hand = photo.reading.to_hand(context)
        return Scored(hand, score(hand))
    except NotWinningHand:
        hints = winning_hints(photo.reading, context)
        lines = [t("not_winning_hint")] + [
            t("look_at", tile=tile_words(photo.reading.tiles[h.index].cls), face=tile_words(h.face)) for h in hints
        ]
        if not hints:
            lines.append(t("look_at_none"))
        st.error("\n\n".join(lines))
        if hints:
            with st.container(horizontal=True, gap="small"):
                for h in hints:
                    st.button(tile_short(photo.reading.tiles[h.index].cls), key=f"{PREFIX}hint.{h.index}",
                              on_click=_select, args=(h.index, "photo"), icon=":material/search:")
    except HandError as exc:
        st.warning(t("cannot_score", msg=str(exc)))
    return None


def _context_key(context: WinContext) -> str:
    return json.dumps([context.self_drawn, context.seat_wind.name, context.prevalent_wind.name, context.flowers,
                       [getattr(context, name) for name in FLAG_NAMES]])


# after a fix the page scrolls back to the total, wherever the editor was (a fix's number makes each script new)
SCROLL_TO_TOTAL_JS = """<script>/* fix FIX */
setTimeout(() => document.querySelector('.st-key-photo_total')?.scrollIntoView({block: 'start'}), 250);
</script>"""


def _total(scored: Scored, doubted: list[int], hand_doubts: int) -> None:
    """The total, and beside it the 8-fan check, what it rests on, and the change the last fix made."""
    result, context = scored.result, scored.hand.context
    state = st.session_state
    shown = (result.total, _context_key(context))
    before = state.get(FIX_FROM)
    delta = result.total - before[0] if before and before[1] == shown[1] and before[0] != result.total else None
    state[SHOWN_TOTAL] = shown
    without_flowers = result.total - context.flowers
    with st.container(horizontal=True, vertical_alignment="center", key="photo_total"):
        st.metric(t("total"), result.total, delta=delta, delta_color="off", width="content")
        with st.container(gap="xsmall"):
            if result.meets_minimum:
                st.markdown(f":green[:material/check_circle: {t('meets_short', n=without_flowers)}]")
            else:
                st.markdown(f":red[:material/cancel: {t('fails_short', n=without_flowers)}]")
            if doubted:
                st.markdown(f":orange[:material/warning: {t('rests_on_tiles', n=len(doubted))}]")
            elif hand_doubts:
                st.markdown(f":orange[:material/warning: {t('rests_on_hand')}]")
    fixed = state.get(FIXED)
    if fixed and state.get(SCROLLED_FOR) != fixed:  # a fix was just made, perhaps far below: show its total
        state[SCROLLED_FOR] = fixed
        st.html(SCROLL_TO_TOTAL_JS.replace("FIX", str(int(fixed))), unsafe_allow_javascript=True)


# --- the win recorded in the match: one tap ---------------------------------------------------------


def _fingerprint(match_id: int, photo: PhotoRead, asked: Asked) -> str:
    """This photo's hand as corrected, who won and how, in this match (not the deal's winds: once
    recorded the match moves on to the next deal, and the same hand must not go in again)."""
    tiles = [(tile.cls, tile.group) for tile in photo.reading.tiles]
    how = asked.context.self_drawn if asked.context is not None else None
    return hashlib.sha1(json.dumps([match_id, photo.key, tiles, asked.winner, asked.discarder, how]).encode()).hexdigest()


def record_tap(deal: OpenDeal, winner: str, discarder: str | None, hand: Hand, print_: str, recorded_key: str = RECORDED,
               message_key: str = RECORD_MESSAGE) -> bool:
    """The tap on "Record" (this page's, or the live page's with its own state keys): the ledger reads the match
    afresh and refuses a deal already taken. What became of it is kept for `record_status`; True when recorded."""
    from .match import store

    state = st.session_state
    done = record_win(store(), deal, winner, discarder, hand)
    if isinstance(done, Recorded):
        state.setdefault(recorded_key, {}).setdefault(deal.match_id, {})[print_] = deal.number
        row = done.ledger.rows[deal.number - 1]
        points = " · ".join(f"{p} {row.points[i]:+d}" for i, p in enumerate(done.ledger.match.players))
        text = t("recorded_win", n=deal.number, id=deal.match_id, winner=winner, fan=done.deal.total, points=points)
        state[message_key] = (print_, "success", text)
        return True
    state[message_key] = (print_, "error", refusal_text(done))
    return False


def _on_record(deal: OpenDeal, winner: str, discarder: str | None, hand: Hand, print_: str) -> None:
    record_tap(deal, winner, discarder, hand, print_)


def record_status(deal: OpenDeal, print_: str, recorded_key: str = RECORDED, message_key: str = RECORD_MESSAGE) -> int | None:
    """What became of the last tap on "Record" for this hand (`print_`), shown; the deal it was recorded as, or
    None while it can be recorded (a deal undone since is offered again)."""
    state = st.session_state
    done = state.get(recorded_key, {}).get(deal.match_id, {}).get(print_)
    message = state.get(message_key)
    if message and message[0] != print_:
        message = None  # about another hand, winner or match
    if done is not None and done >= deal.number:  # undone since (the match is back at that deal): offer it again
        state[recorded_key][deal.match_id].pop(print_)
        done, message = None, None
        state[message_key] = None
    if message:
        (st.success if message[1] == "success" else st.error)(message[2])
    if done is not None and not (message and message[1] == "success"):
        st.success(t("already_recorded", n=done, id=deal.match_id))
    return done


def refusal_text(refused: NotRecorded) -> str:
    if refused.reason == "under_minimum":
        return t("record_under_minimum", fan=refused.total, without=refused.total - refused.flowers)
    return t("record_refused", msg=refused.detail)


def _record_panel(photo: PhotoRead, deal: OpenDeal, asked: Asked, scored: Scored) -> None:
    """One tap records the win as the deal's; the same hand twice records one deal."""
    assert asked.winner is not None
    print_ = _fingerprint(deal.match_id, photo, asked)
    if record_status(deal, print_) is not None:
        return
    if not scored.hand.context.self_drawn and asked.discarder is None:
        st.caption(t("ask_discarder_player"))
        return
    st.button(t("record_win", n=deal.number, winner=asked.winner, fan=scored.result.total), key=PREFIX + "record",
              type="primary", icon=":material/scoreboard:", width="stretch", on_click=_on_record,
              args=(deal, asked.winner, asked.discarder, scored.hand, print_))


def _deal_in_match() -> OpenDeal | None:
    """The next deal of the match this session has open, None without one (said why, when it is over)."""
    match_id = st.session_state.get(MATCH_CURRENT)
    if match_id is None:
        return None
    from ledger.match import LedgerError

    from .match import store

    try:
        found = open_deal(store(), match_id)
    except LedgerError as exc:
        st.caption(t("match_unreadable", msg=str(exc)))
        return None
    if isinstance(found, MatchClosed):
        if found.reason == "over":
            st.caption(t("match_over_here", id=match_id))
        elif found.reason == "database":
            st.caption(t("match_unreadable", msg=found.detail))
        return None
    return found


def _save_panel(photo: PhotoRead) -> None:
    """Save the corrected photo under the data root (a folder typed outside it is refused)."""
    with st.expander(t("save")):
        root = data_root()
        try:
            default = relative_name(root, SETTINGS.labeled_dir)
        except ValueError:
            default = "labeled"
        st.session_state.setdefault(SAVE_DIR, default)
        data_folder_input(t("save_dir"), SAVE_DIR, placeholder=default)
        if st.button(t("save"), key=PREFIX + "save"):
            try:
                folder = resolve_inside(root, st.session_state[SAVE_DIR])
            except OutsideDataRoot as exc:
                st.error(t("outside_root", root=str(root), msg=str(exc)))
                return
            try:
                image_path, label_path = save_for_training(
                    photo.image_bgr, photo.reading, folder, photo_name(photo.image_bytes), model=photo.model
                )
            except SaveError as exc:
                st.error(t("save_failed", msg=str(exc)))
            else:
                st.success(t("saved", image=str(image_path), labels=str(label_path)))


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
        image_bytes = _photo_input()
    if image_bytes is None:
        with result_box:
            st.caption(t("photo_intro"))
        return
    with result_box:
        deal = _deal_in_match()
    key = hashlib.sha1(image_bytes).hexdigest()
    photo = _current()
    if photo is None or photo.key != key:
        with result_box, st.spinner(t("reading_photo")):
            read = _read_photo(image_bytes, key)
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
        _start_context(deal)
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
    facts, flowers = _facts(photo.reading), photo.reading.flower_count
    questions, below = st.container(), st.container()
    cases_box = st.container()
    with questions:
        asked = (_match_questions(deal, facts, flowers, cases_box) if deal is not None
                 else _table_questions(facts, flowers, cases_box))
    _remember_context()
    open_, settled = open_doubts(photo.original, photo.reading, photo.issues)  # once a run: settling a doubt tries every face in the hand
    doubted = doubted_tiles(open_)
    with below:
        scored = _score(photo, asked.context) if asked.context is not None else None
        if scored is not None:
            _total(scored, doubted, sum(1 for _, _, named in open_ if not named))
            if deal is not None:
                _record_panel(photo, deal, asked, scored)
        _checks(photo, open_, doubted)
        _tap_photo(photo, doubted)
        _doubt_texts(open_)
        selected = st.session_state.get(SELECTED)
        if selected is not None and st.session_state.get(SELECTED_AT, "photo") == "photo":
            _editor(photo, selected)
    if scored is not None:
        show_fans(scored.result, scored.hand.context, asked.discarder_seat)
    _settled(settled)
    return scored, doubted


def _details(photo: PhotoRead, scored: Scored | None, doubted: list[int]) -> None:
    """Below the next photo's input: the hand tile by tile, adding a missed tile, saving for training."""
    _strip(photo, set(doubted), None if scored is None else scored.result.total)
    _more_panel(photo)
    height, width = photo.image_bgr.shape[:2]
    st.caption(photo.version)
    st.caption(t("photo_size", w=width, h=height) + f" · {t('model')}: {photo.model}")
    st.markdown(_legend(photo.reading), unsafe_allow_html=True)
    if st.session_state.get(MATCH_CURRENT) is None:
        st.caption(t("keep_a_match"))
    _save_panel(photo)
