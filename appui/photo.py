"""Photo page: read a hand from one photo, correct it, score it, save it for training.

Made for a phone at the table: the win context is asked before the total is shown, every new
photo starts from a context the page shows (winds remembered for the session), the hand is shown
as tile pictures in compact rows and a tap on a tile opens its editor right under that row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np
import streamlit as st

from scoring.hand import HandError, WinContext
from scoring.scorer import is_winning
from scoring.tiles import Tile
from tileset.classes import CLASS_NAMES

from .correction import FLOWERS, GROUPS, HAND, MELD_GROUPS, UNPLACED, WIN, CorrectionError, Reading
from .dataroot import OutsideDataRoot, data_root, relative_name, resolve_inside
from .glyphs import tile_label
from .i18n import lang, t, tile_words, translator
from .match import add_to_match_panel
from .models import get_detector, model_label, read_with
from .overlay import crop, draw_boxes, fit, group_colour
from .saving import SaveError, photo_name, save_for_training
from .settings import DEFAULT_APP_SETTINGS
from .widgets import FLAG_NAMES, context_form, data_folder_input, fresh_context_state, show_result
from .winctx import HandFacts

PREFIX = "photo."
PHOTO = PREFIX + "photo"  # the PhotoRead of the current photo
SELECTED = PREFIX + "selected"
MESSAGE = PREFIX + "message"
EDIT_FACE, EDIT_GROUP = PREFIX + "edit_face", PREFIX + "edit_group"
ADD_FACE, ADD_GROUP = PREFIX + "add_face", PREFIX + "add_group"
SAVE_DIR = PREFIX + "save_dir"
WINDS = PREFIX + "winds"  # seat and prevalent wind, remembered for the session (not a widget key)
CONTEXT_SEEN = PREFIX + "context_seen"  # the context as the page last showed it
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


def _close() -> None:
    st.session_state.pop(SELECTED, None)


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
        shot = st.file_uploader(t("upload"), type=["jpg", "jpeg", "png", "webp", "bmp"], key=PREFIX + "upload",
                                help=t("upload_limit"))
    return shot.getvalue() if shot is not None else None


def _annotated(photo: PhotoRead) -> np.ndarray:
    reading = photo.reading
    labels = [f"{i + 1}:{tile.cls}" for i, tile in enumerate(reading.tiles)]
    image = draw_boxes(
        photo.image_bgr, [t.xyxy for t in reading.tiles], labels, [t.group for t in reading.tiles],
        highlight=st.session_state.get(SELECTED),
    )
    return fit(image, SETTINGS.display_max_side)


# --- the win context: asked before the total, fresh for every photo ------------------------------


def _context_now() -> dict[str, object]:
    state = st.session_state
    return {name: state.get(PREFIX + name) for name in ("won_by", "discarder", "seat", "prevalent", *FLAG_NAMES)}


def _start_context() -> None:
    """A new photo: "Won by" asked again, no special case ticked, the session's winds kept.

    The values go into the widgets' state before they are drawn, so the page shows exactly the
    context the total uses.  A context another page put here since (the Match page's "Score a
    photo") is kept.
    """
    now = _context_now()
    if now.get("won_by") is not None and now != st.session_state.get(CONTEXT_SEEN):
        return  # set by another page since the photo page last showed it (Match): keep it
    fresh_context_state(PREFIX, st.session_state.get(WINDS, {}))


def _remember_context() -> None:
    state = st.session_state
    state[WINDS] = {"seat": state.get(PREFIX + "seat"), "prevalent": state.get(PREFIX + "prevalent")}
    state[CONTEXT_SEEN] = _context_now()


# --- the hand as read: tile pictures in compact rows, the editor under the tapped tile's row ----


STRIP_ROWS: tuple[tuple[str, ...], ...] = ((HAND, WIN), MELD_GROUPS, (FLOWERS, UNPLACED))
_ORDER = {name: i for i, name in enumerate(CLASS_NAMES)}


def _in_order(photo: PhotoRead, group: str, indices: list[int]) -> list[int]:
    """Standing tiles and flowers sorted as a player sorts them; melds left to right as laid."""
    if group in (HAND, FLOWERS, UNPLACED):
        return sorted(indices, key=lambda i: (_ORDER.get(photo.reading.tiles[i].cls, 99), i))
    return indices


def _strip(photo: PhotoRead, flagged: set[int]) -> None:
    """The tiles as read, one row per layout row, groups apart, wrapping on a narrow screen; the
    `flagged` ones (named by an open doubt) marked."""
    st.markdown(f"**{t('as_read')}**")
    st.caption(t("tiles_found", n=len(photo.reading.tiles)) + " · " + t("tap_tile"))
    members = photo.reading.group_members()
    selected = st.session_state.get(SELECTED)
    for n, row in enumerate(STRIP_ROWS):
        groups = [(g, members[g]) for g in row if g in members]
        if not groups:
            continue
        with st.container(horizontal=True, gap="medium", key=f"photo_row{n}"):
            for group, indices in groups:
                with st.container(gap=None, width="content"):
                    st.caption(group_label(group))
                    with st.container(horizontal=True, gap="xxsmall"):
                        for index in _in_order(photo, group, indices):
                            _strip_tile(photo, index, index in flagged)
        if selected is not None and any(selected in indices for _, indices in groups):
            _editor(photo, selected)


def _strip_tile(photo: PhotoRead, index: int, flagged: bool) -> None:
    tile = photo.reading.tiles[index]
    with st.container(gap=None, width=SETTINGS.strip_tile_width):
        st.image(crop(photo.image_bgr, tile.xyxy, SETTINGS.crop_height), channels="BGR", width="stretch")
        st.button(
            _short(tile.cls) + ("*" if tile.edited else "") + ("!" if flagged else ""), key=f"{PREFIX}tile.{index}",
            on_click=_select, args=(index,), width="stretch",
            type="primary" if st.session_state.get(SELECTED) == index else "secondary",
            help=f"{tile_words(tile.cls)} · {tile.conf:.2f}",
        )


def _short(name: str) -> str:
    """A tile's name on its button: the class name; a face-down tile a dash (its help says so)."""
    return "—" if name == "back" else name


def _editor(photo: PhotoRead, index: int) -> None:
    """The tapped tile's face and group, right under its row."""
    if index >= len(photo.reading.tiles):
        return
    tile = photo.reading.tiles[index]
    with st.container(border=True, key="photo_editor"):  # CSS class st-key-photo_editor
        left, right = st.columns([1, 4], vertical_alignment="center")
        left.image(crop(photo.image_bgr, tile.xyxy, SETTINGS.crop_height), channels="BGR")
        right.markdown(f"**{t('editing')}**: {tile_words(tile.cls)}")
        c1, c2 = st.columns(2)
        c1.selectbox(t("face"), CLASS_NAMES, format_func=tile_label, key=EDIT_FACE)
        c2.selectbox(t("group"), GROUPS, format_func=group_labeler(), key=EDIT_GROUP)
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
                f"<span style='display:inline-block;width:0.8em;height:0.8em;background:rgb({r},{g},{b});"
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
    if "seen" in params and params["seen"] and isinstance(params["seen"][0], (tuple, list)):
        out["names"] = ", ".join(tile_words(str(seen[0]), language) for seen in params["seen"])
    if "at" in params:
        out["count"] = len(params["at"])
        out["where"] = ", ".join(f"({x}, {y})" for x, y in params["at"])
    if "angle_deg" in params:
        out["angle"] = f"{float(params['angle_deg']):.0f}"
    return out


_CONFIRMABLE = frozenset({"low_confidence"})  # doubts about one face, which the hand's shape can settle


def _other_winning_faces(reading: Reading, index: int, context: WinContext) -> Iterator[str]:
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
    return next(_other_winning_faces(reading, index, context), None) is None


def _doubts(photo: PhotoRead) -> tuple[list[tuple[int, Any, list[int]]], list[Any]]:
    """(the issues still in doubt as (number, issue, tiles it names here), the ones the hand settles).

    An issue about tiles is settled once the player has corrected (or removed) each of them, and a
    doubt about a face once the hand wins with that face and with no other; an issue about the
    hand as a whole once the player has corrected anything.
    """
    corrected = photo.reading.edits > 0 or len(photo.reading.tiles) != len(photo.original.tiles)
    open_: list[tuple[int, Any, list[int]]] = []
    settled: list[Any] = []
    for n, issue in enumerate(photo.issues):
        named = photo.reading.tiles_named_in(issue) if getattr(issue, "tiles", ()) else []
        if getattr(issue, "tiles", ()):
            if not named or all(photo.reading.tiles[i].edited for i in named):
                continue
            if str(getattr(issue, "code", "")) in _CONFIRMABLE and all(
                _confirmed_by_hand(photo.reading, i) for i in named
            ):
                settled.append(issue)
                continue
        elif corrected:
            continue
        open_.append((n, issue, named))
    return open_, settled


def _issues(photo: PhotoRead, open_: list[tuple[int, Any, list[int]]], settled: list[Any]) -> None:
    """The reader's open doubts (`_doubts`), each with buttons for the tiles it names (a tap opens the
    tile's editor); doubts the hand itself settles are folded away."""
    if not open_ and not settled:
        st.caption(t("no_doubts"))
    elif open_:
        st.markdown(f"**{t('doubts')}**")
    for n, issue, named in open_:
        st.warning(issue_text(issue))
        if named:
            with st.container(horizontal=True, gap="small"):
                for index in named:
                    st.button(f"{photo.reading.tiles[index].cls}", key=f"{PREFIX}issue.{n}.{index}",
                              on_click=_select, args=(index,), type="tertiary", icon=":material/warning:")
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
        face = next(_other_winning_faces(reading, index, context), None)
        if face is not None:
            hints.append(WinningHint(index, face))
        if len(hints) >= limit:
            break
    return hints


def _score(photo: PhotoRead, context: WinContext, discarder: str | None) -> bool:
    """One clear total with its fans; a hand that does not win says which tile to look at.
    True when a total is shown."""
    try:
        from scoring.scorer import NotWinningHand, score
    except ImportError as exc:
        st.error(t("scorer_missing", msg=str(exc)))
        return False
    try:
        hand = photo.reading.to_hand(context)
        result = score(hand)
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
                    st.button(photo.reading.tiles[h.index].cls, key=f"{PREFIX}hint.{h.index}", on_click=_select,
                              args=(h.index,), type="tertiary", icon=":material/search:")
        return False
    except HandError as exc:
        st.warning(t("cannot_score", msg=str(exc)))
        return False
    show_result(result, hand.context, discarder, details_folded=True)
    return True


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


def render() -> None:
    st.title(t("page_photo"))
    st.caption(t("photo_intro"))
    image_bytes = _photo_input()
    if image_bytes is None:
        return
    key = hashlib.sha1(image_bytes).hexdigest()
    photo = _current()
    if photo is None or photo.key != key:
        with st.spinner(t("reading_photo")):
            read = _read_photo(image_bytes, key)
        if isinstance(read, str):
            st.error(read)
            st.session_state.pop(PHOTO, None)  # try again on the next run (a model may have been added)
            return
        photo = read
        st.session_state[PHOTO] = photo
        st.session_state.pop(SELECTED, None)
        st.session_state[MESSAGE] = None
        _start_context()
    st.caption(photo.version)
    if not photo.reading.tiles and not photo.original.tiles:
        st.warning(t("no_tiles_hint"))
        return
    left, right = st.columns([1, 1], gap="large")
    with left:
        context, discarder = context_form(PREFIX, _facts(photo.reading), flowers_read=photo.reading.flower_count,
                                          ask=True)
        _remember_context()
        if context is not None and _score(photo, context, discarder):
            add_to_match_panel("photo")
    with right:
        open_, settled = _doubts(photo)  # once a run: settling a doubt tries every face in the hand
        _issues(photo, open_, settled)
        _strip(photo, {i for _, _, named in open_ for i in named})
        _more_panel(photo)
        with st.expander(t("photo_boxes"), expanded=True):
            st.image(_annotated(photo), channels="BGR")
            st.markdown(_legend(photo.reading), unsafe_allow_html=True)
            st.caption(f"{t('model')}: {photo.model}")
        _save_panel(photo)
