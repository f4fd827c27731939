"""Live table page: the webcam through streamlit-webrtc, tiles boxed live, and beside the video what
the view's reading makes: how far the standing hand is from ready and what to let go, the waits
of a ready hand with the copies still unseen, or a finished hand's total once "Won by" is answered,
with the tiles whose face would change it beside it, a tile the player fixes, "Record" into the
open match, and a big total for the table.

The frame loop is `appui.live_loop`, what the tiles make `appui.live_analysis` (no Streamlit); this
module draws them.  The doubts and the faces offered as fixes are `appui.doubts` (the photo page's
too); the recording is the photo page's own (`appui.photo`, `appui.photo_match`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from html import escape
from typing import TYPE_CHECKING, Any

import streamlit as st

from scoring.hand import Hand, WinContext
from scoring.tiles import Tile
from tileset.classes import CLASS_NAMES
from tileset.groups import HAND, UNPLACED, WIN

from .correction import Reading
from .doubts import TileDoubt, doubt_text, face_doubted, fix_choices, tile_doubts
from .glyphs import strip_html, tile_label
from .i18n import lang, t, tile_short, tile_words, translator
from .live_analysis import LiveAnalysis, analyse, counted_tiles, group_rank, meld_sets, reading_key
from .live_loop import LiveLoop, LiveSnapshot
from .models import get_detector, read_with
from .photo import deal_in_match, issue_text, record_status, record_tap
from .photo_match import OpenDeal
from .settings import DEFAULT_APP_SETTINGS, DEFAULT_LIVE_SETTINGS
from .widgets import FLAG_NAMES, WIND_NAMES, main_fans, wind_label
from .winctx import HandFacts, impossible_flags

if TYPE_CHECKING:
    from streamlit_webrtc import Translations

PREFIX = "live."
HOLD, WON_BY, SEAT, PREVALENT, PLAYER = (PREFIX + k for k in ("hold", "won_by", "seat", "prevalent", "player"))
BIG = PREFIX + "big"
FINISHED_SEEN = PREFIX + "finished_seen"  # the finished hand "Won by" was answered for (not a widget key)
FIXES = PREFIX + "fixes"  # (the reading's tiles as read, {tile index: the face the player gave it})
SELECTED = PREFIX + "selected"  # the tile being fixed: (the reading's tiles as read, its index there)
EDIT_FACE = PREFIX + "edit_face"
HOLD_SHOWN = PREFIX + "hold_shown"  # the snapshot the player began fixing: the loop holds that one
SHOWN_TOTAL = PREFIX + "shown_total"  # (total, context) as last shown: a fix says what it changed
FIX_FROM = PREFIX + "fix_from"  # the shown total when the last fix was made
DISCARDER = PREFIX + "discarder_player"
RECORDED = PREFIX + "recorded"  # match id -> {hand fingerprint: deal number} recorded from this page
RECORD_MESSAGE = PREFIX + "record_message"  # (fingerprint, kind, (label, values)) of the last tap on "Record"
RERUN = PREFIX + "rerun"  # a deal was recorded: the whole page runs again to read the match's next deal
RECORDED_WINDS = PREFIX + "recorded_winds"  # (the recorded reading's tiles, its seat and round wind)
# No STUN/TURN servers, in the browser and on the server: they meet through their host candidates,
# on localhost or on the LAN (scripts/app.sh --lan), and nothing leaves the network.
RTC_CONFIGURATION: dict[str, Any] = {"iceServers": []}
DOUBTS_SHOWN = 3
DISCARDS_SHOWN = 4
SETTINGS = DEFAULT_APP_SETTINGS


def tr(key: str, **values: Any) -> str:
    """The live page's label `live_<key>` (appui.i18n) in the page's language."""
    return t(f"live_{key}", **values)


def camera_messages() -> Translations:
    """The webcam component's own texts, in player words and the page's language (streamlit-webrtc translations)."""
    return {
        "start": tr("cam_start"),
        "stop": tr("cam_stop"),
        "select_device": t("cam_select"),
        "media_api_not_available": t("cam_insecure"),
        "device_ask_permission": t("cam_ask"),
        "device_not_available": t("cam_none"),
        "device_access_denied": t("cam_denied"),
    }


def camera_constraints() -> dict[str, Any]:
    """getUserMedia's constraints: the camera's own picture, whole (its aspect, 16:9, 4:3 or square, never
    cropped or scaled to another), about `camera_ideal_width` wide; no sound."""
    return {"video": {"width": {"ideal": DEFAULT_LIVE_SETTINGS.camera_ideal_width}, "resizeMode": "none"},
            "audio": False}


def _processor_factory(detector: Any) -> Any:
    import av
    from streamlit_webrtc import VideoProcessorBase

    class TileVideoProcessor(VideoProcessorBase):
        def __init__(self) -> None:
            self.loop = LiveLoop(detector, background=DEFAULT_APP_SETTINGS.live_background)

        def recv(self, frame: av.VideoFrame) -> av.VideoFrame:
            out = self.loop.process(frame.to_ndarray(format="bgr24"))
            return av.VideoFrame.from_ndarray(out, format="bgr24")

        def on_ended(self) -> None:
            self.loop.close()

    return TileVideoProcessor


@lru_cache(maxsize=64)
def _analysis(key: tuple[tuple[str, str], ...], context: WinContext | None) -> LiveAnalysis:
    return analyse(key, context)


@dataclass(frozen=True)
class Winds:
    """The seat and round wind the hand is scored with; with a match open, its deal and whose hand it is."""

    seat: str | None
    prevalent: str
    deal: OpenDeal | None = None
    player: str | None = None


def _winds() -> Winds:
    """From the open match: the deal's round wind, the seat of the player named here; else picked here."""
    state = st.session_state
    deal = deal_in_match()
    if deal is not None:
        st.caption(tr("match_deal", id=deal.match_id, n=deal.number, round=wind_label(deal.prevalent)))
        if state.get(PLAYER) not in deal.players:
            state[PLAYER] = None
        player = st.segmented_control(tr("player"), list(deal.players), key=PLAYER,
                                      format_func=lambda p: t("player_seat", player=p, wind=wind_label(deal.seat_of(p))))
        if player is None:
            st.info(tr("ask_player"))
            return Winds(None, deal.prevalent, deal)
        return Winds(deal.seat_of(player), deal.prevalent, deal, player)
    state.setdefault(SEAT, "E")
    state.setdefault(PREVALENT, "E")
    with st.expander(tr("winds_here")):
        left, right = st.columns(2)
        seat = left.selectbox(t("seat_wind"), WIND_NAMES, format_func=wind_label, key=SEAT)
        prevalent = right.selectbox(t("prevalent_wind"), WIND_NAMES, format_func=wind_label, key=PREVALENT)
    return Winds(seat, prevalent)


def _status(snap: LiveSnapshot) -> None:
    st.caption(tr("status", analysed=f"{snap.analysed_per_s:.1f}", readings=f"{snap.readings_per_s:.1f}",
                  fps=f"{snap.fps:.0f}"))
    # the view, when it began and when its first reading reached the panel, whether it is sure, the camera's
    # frame size and the tiles shown (face and box): for the browser tests' and benchmarks' measurements
    read = json.dumps([[tile["cls"], *(round(float(v)) for v in tile["xyxy"])] for tile in snap.tiles])
    st.html(f"<span data-live-view='{snap.view}' data-view-changed-at='{snap.view_changed_at:.3f}' "
            f"data-shown-at='{snap.shown_at or 0:.3f}' data-tiles='{len(snap.tiles)}' data-sure='{int(snap.sure)}' "
            f"data-settled='{int(snap.settled)}' data-fused='{snap.fused}' data-readings='{snap.readings}' "
            f"data-frame='{snap.frame_wh[0]}x{snap.frame_wh[1]}' data-read='{escape(read)}' "
            f"data-frames='{escape(json.dumps(snap.frame_readings))}'></span>")


def _read_state(snap: LiveSnapshot, key: tuple[tuple[str, str], ...]) -> None:
    """How sure the reading is: sure, still being read (and why), or read enough times without being sure."""
    if snap.held:
        return
    if snap.sure:
        st.caption(tr("read_sure", n=snap.fused))
        return
    why = []
    counted = counted_tiles(key)
    if counted < 13:
        why.append(tr("why_few", n=counted))
    disagree = sum(len(tile.get("votes") or ()) > 1 for tile in snap.tiles)
    if disagree:
        why.append(tr("why_disagree", n=disagree))
    live = DEFAULT_LIVE_SETTINGS
    unsure = sum(int(tile.get("seen", snap.fused)) < live.sure_seen_share * snap.fused or float(tile.get("conf", 1.0)) < live.sure_conf
                 for tile in snap.tiles)
    if unsure:
        why.append(tr("why_unsure", n=unsure))
    reason = "; ".join(why) or tr("why_frames")
    st.caption(tr("read_unsure", n=snap.readings, why=reason) if snap.settled else tr("read_more", n=snap.fused, why=reason))


def _tiles(tiles: Sequence[dict[str, Any]], kind: str) -> None:
    st.caption(t("live_tiles", n=len(tiles)))
    st.markdown(strip_html([(_group_label(g), [tiles[i]["cls"] for i in members]) for g, members in _rows(tiles, kind)]),
                unsafe_allow_html=True)


def _rows(tiles: Sequence[dict[str, Any]], kind: str) -> list[tuple[str, list[int]]]:
    """(group as shown, indices of its tiles left to right), groups in the layout's order.  Tiles the reader
    grouped that make no meld are shown with the standing tiles they count as; a tile set apart is the
    winning tile only on a finished hand (on a standing row it is one of the row)."""
    sets = meld_sets(reading_key(tiles))

    def shown(tile: dict[str, Any]) -> str:
        group = tile.get("group") or UNPLACED
        if (group == WIN and kind != "finished") or (group.startswith("meld") and group not in sets):
            return HAND
        return str(group)

    groups: dict[str, list[int]] = {}
    for i in sorted(range(len(tiles)), key=lambda i: (group_rank(shown(tiles[i])), tiles[i]["xyxy"][0])):
        groups.setdefault(shown(tiles[i]), []).append(i)
    return list(groups.items())


def _group_label(group: str) -> str:
    number = group.removeprefix("meld")
    if number.isdigit():
        return t("group_meld", n=int(number) + 1)
    return t(f"group_{group}") if group in ("hand", "win", "flowers", "unplaced") else group


# --- the player's fixes: tiles renamed by hand, kept for the reading they were made on --------------

TilesId = tuple[tuple[str, str], ...]


def _tiles_id(tiles: Sequence[dict[str, Any]]) -> TilesId:
    """A reading's tiles in the reader's order (fixes name tiles by their index in it)."""
    return tuple((tile["cls"], tile.get("group") or "unplaced") for tile in tiles)


def _fixes(snap: LiveSnapshot) -> dict[int, str]:
    """The player's fixes to this snapshot's reading (none for another reading)."""
    made = st.session_state.get(FIXES)
    if made is None or made[0] != _tiles_id(snap.tiles):
        return {}
    return dict(made[1])


def _fixed_tiles(snap: LiveSnapshot, fixes: dict[int, str]) -> tuple[dict[str, Any], ...]:
    return tuple(dict(tile, cls=fixes[i]) if i in fixes else tile for i, tile in enumerate(snap.tiles))


@lru_cache(maxsize=32)
def _original(tiles_json: str) -> Reading:
    """The reading in the correctable form the doubts take (each tile with what the frames read)."""
    return Reading.from_tiles(json.loads(tiles_json))


def _as_readings(snap: LiveSnapshot, fixes: dict[int, str]) -> tuple[Reading, Reading]:
    """(the reading as read, as fixed)."""
    original = _original(json.dumps(snap.tiles, sort_keys=True, default=list))
    fixed = original
    for index, face in sorted(fixes.items()):
        fixed = fixed.with_face(index, face)
    return original, fixed


@lru_cache(maxsize=64)
def _doubts_of(fixed: Reading, context: WinContext, named: tuple[int, ...]) -> tuple[TileDoubt, ...]:
    """The tiles whose face would change what the hand makes in `context` (cached: each face is tried)."""
    return tuple(tile_doubts(fixed, context, named))


def _doubts(snap: LiveSnapshot, fixed: Reading, context: WinContext) -> list[TileDoubt]:
    return list(_doubts_of(fixed, context, face_doubted(fixed, snap.issues)))


def _hand_issues(snap: LiveSnapshot, fixes: dict[int, str]) -> list[Any]:
    """The reader's doubts about the hand as a whole (no tile named), each once; none once the player fixed a tile."""
    if fixes:
        return []
    return list({issue_text(issue): issue for issue in snap.issues if not getattr(issue, "tiles", ())}.values())


@lru_cache(maxsize=32)
def _choices(fixed: Reading, index: int) -> tuple[str, ...]:
    """The one-tap faces for tile `index`, from its own group (`appui.doubts.fix_choices`)."""
    return tuple(fix_choices(fixed, index, WinContext(), SETTINGS.fix_suggestions))


def _hold_for_fixing(snap: LiveSnapshot) -> None:
    """The reading stays as the player saw it while they fix it or record it: the hold is switched on for
    that snapshot."""
    st.session_state[HOLD] = True
    st.session_state[HOLD_SHOWN] = snap


def _selected(snap: LiveSnapshot) -> int | None:
    """The tile of this snapshot's reading the player is fixing, if any."""
    selected = st.session_state.get(SELECTED)
    if selected is None or selected[0] != _tiles_id(snap.tiles) or not 0 <= selected[1] < len(snap.tiles):
        return None
    return int(selected[1])


def _select(snap: LiveSnapshot, index: int) -> None:
    st.session_state[SELECTED] = (_tiles_id(snap.tiles), index)
    st.session_state[EDIT_FACE] = _fixed_tiles(snap, _fixes(snap))[index]["cls"]
    _hold_for_fixing(snap)


def _fix(snap: LiveSnapshot, index: int, face: str) -> None:
    """Tile `index` of the snapshot's reading is `face` (its face as read: the fix undone)."""
    fixes = _fixes(snap)
    if face == snap.tiles[index]["cls"]:
        fixes.pop(index, None)
    else:
        fixes[index] = face
    state = st.session_state
    state[FIXES] = (_tiles_id(snap.tiles), fixes)
    state[FIX_FROM] = state.get(SHOWN_TOTAL)
    state.pop(SELECTED, None)
    _hold_for_fixing(snap)


def _apply(snap: LiveSnapshot, index: int) -> None:
    face = st.session_state.get(EDIT_FACE)
    if face in CLASS_NAMES:
        _fix(snap, index, face)


def _close() -> None:
    st.session_state.pop(SELECTED, None)


def _undo_fixes() -> None:
    st.session_state.pop(FIXES, None)
    st.session_state.pop(SELECTED, None)
    st.session_state[FIX_FROM] = st.session_state.get(SHOWN_TOTAL)


def _fix_panel(snap: LiveSnapshot, fixes: dict[int, str], doubted: list[int], kind: str) -> None:
    """The tiles as buttons, doubted ones framed red; a tap opens the tile's editor: the faces it may be, from
    its own group, as one-tap fixes, then any face.  Open by itself on a finished hand the reader doubts."""
    tiles = _fixed_tiles(snap, fixes)
    selected = _selected(snap)
    finished = kind == "finished"
    with st.expander(tr("fix"), expanded=bool(finished and doubted) or bool(fixes) or selected is not None):
        st.caption(tr("fix_help"))
        for group, members in _rows(tiles, kind):
            with st.container(horizontal=True, gap="xsmall", vertical_alignment="center"):
                st.caption(_group_label(group))
                for i in members:
                    flagged = i in doubted
                    with st.container(width="content", key=f"live_doubt_{i}" if flagged else f"live_tile_{i}"):
                        st.button(tile_short(tiles[i]["cls"]) + (" ✎" if i in fixes else ""), key=f"{PREFIX}tile.{i}",
                                  on_click=_select, args=(snap, i), type="primary" if selected == i else "secondary",
                                  help=tile_words(tiles[i]["cls"]) + (f" · {t('in_doubt')}" if flagged else ""))
        if selected is not None:
            _editor(snap, fixes, selected)
        if fixes:
            st.caption(t("corrected", n=len(fixes)))
            st.button(t("reset"), key=PREFIX + "reset", on_click=_undo_fixes)


def _editor(snap: LiveSnapshot, fixes: dict[int, str], index: int) -> None:
    tile = _fixed_tiles(snap, fixes)[index]
    with st.container(border=True, key="live_editor"):
        st.markdown(f"**{t('editing')}**: {tile_words(tile['cls'])}")
        faces = _choices(_as_readings(snap, fixes)[1], index)
        if faces:
            st.caption(t("fix_choices"))
            with st.container(horizontal=True, gap="small"):
                for face in faces:
                    st.button(tile_short(face), key=f"{PREFIX}fix.{face}", on_click=_fix, args=(snap, index, face),
                              type="primary", help=tile_words(face))
        st.selectbox(t("face"), CLASS_NAMES, format_func=tile_label, key=EDIT_FACE)
        with st.container(horizontal=True, gap="small"):
            st.button(t("apply"), key=PREFIX + "apply", on_click=_apply, args=(snap, index), type="primary")
            st.button(t("close"), key=PREFIX + "close", on_click=_close, type="tertiary")


def _doubt_lines(snap: LiveSnapshot, doubts: list[TileDoubt], hand_issues: list[Any]) -> None:
    """The tiles whose face would change the hand, each with what it would give, and the reader's doubts about
    the hand as a whole; each line once."""
    if not doubts and not hand_issues:
        st.caption(tr("sure") if snap.sure else tr("no_doubt_matters"))
        return
    st.markdown(f"**{tr('doubts')}**")
    if doubts:
        st.markdown(f":orange[:material/warning: {t('rests_on_tiles', n=len(doubts))}]")
    lines = list(dict.fromkeys([doubt_text(d) for d in doubts] + [issue_text(issue) for issue in hand_issues]))
    st.markdown("\n".join(f"- {line}" for line in lines[:DOUBTS_SHOWN]))


# --- what the reading makes --------------------------------------------------------------------


def _standing(analysis: LiveAnalysis) -> None:
    away = analysis.shanten if analysis.shanten is not None else 0
    shown = tr("ready_now") if away == 0 else tr("complete_now") if away < 0 else str(away)
    st.metric(tr("from_ready"), shown, help=tr("shanten_help"))
    if analysis.message == "too_many":
        st.warning(tr("too_many", n=analysis.counted))
        return
    if analysis.counted not in (13, 14):
        st.caption(tr("counted", n=analysis.counted))
    if analysis.discards:
        st.markdown(f"**{tr('discards')}**")
        st.table([
            {tr("col_let_go"): tile_label(d.tile.name), tr("col_after"): d.shanten,
             tr("col_helps"): " ".join(f"{u.name} ({analysis.unseen[u.index]})" for u in d.useful)}
            for d in analysis.discards[:DISCARDS_SHOWN]
        ])
    elif len(analysis.draws) > DEFAULT_LIVE_SETTINGS.draws_named_max:
        st.caption(tr("many_draws", n=len(analysis.draws)))
    elif analysis.draws:
        st.markdown(f"**{tr('col_helps')}**")
        st.markdown(" · ".join(f"{tile_label(u.name)} ({analysis.unseen[u.index]})" for u in analysis.draws))


def _ready(analysis: LiveAnalysis) -> None:
    st.metric(tr("from_ready"), tr("ready_now"), help=tr("shanten_help"))
    st.markdown(f"**{t('waits')}**")
    zh = lang() == "zh"
    st.table([
        {
            t("col_wait"): tile_label(w.wait.tile.name),
            tr("col_unseen"): w.unseen,
            t("col_discard"): w.wait.discard.total if w.wait.discard else "—",
            t("col_self_drawn"): w.wait.self_drawn.total if w.wait.self_drawn else "—",
            t("col_main_fans"): main_fans(w.wait.discard or w.wait.self_drawn, zh),
        }
        for w in analysis.waits
    ])
    st.caption(tr("unseen_help"))


def _finished_context(analysis: LiveAnalysis, seen: tuple[tuple[str, str], ...], winds: Winds) -> WinContext | None:
    """"Won by" (asked again for every new finished hand, not for a fix of it) and the special cases;
    None until answered."""
    state = st.session_state
    if state.get(FINISHED_SEEN) != seen:
        state[FINISHED_SEEN] = seen
        state[WON_BY] = None
        for name in FLAG_NAMES:
            state[PREFIX + name] = False
    won_by = st.segmented_control(tr("won_by"), ["discard", "self_drawn"], format_func=translator(), key=WON_BY)
    hand = analysis.hand
    facts = HandFacts.of(hand.melds, hand.concealed, hand.win_tile) if hand is not None else HandFacts.of((), (), None)
    blocked = impossible_flags(facts, self_drawn=won_by == "self_drawn")
    flags: dict[str, bool] = {}
    with st.expander(tr("special")):
        for name in FLAG_NAMES:
            reason = blocked.get(name)
            value = st.checkbox(t(name), key=PREFIX + name, disabled=reason is not None,
                                help=t(reason.key, **reason.params()) if reason else None)
            flags[name] = value and reason is None
    if won_by is None or winds.seat is None:
        st.info(tr("ask_won_by") if won_by is None else tr("ask_player"))
        return None
    return WinContext(self_drawn=won_by == "self_drawn", seat_wind=Tile.parse(winds.seat),
                      prevalent_wind=Tile.parse(winds.prevalent), flowers=analysis.flowers, **flags)


def _total(snap: LiveSnapshot, result: Any, context: WinContext, doubts: list[TileDoubt], hand_issues: list[Any]) -> None:
    """The total (with the change the last fix made), the tiles that would change it beside it, the 8-fan
    check, the fans."""
    state = st.session_state
    before = state.get(FIX_FROM)
    delta = result.total - before[0] if before and before[1] == context and before[0] != result.total else None
    state[SHOWN_TOTAL] = (result.total, context)
    total_col, doubt_col = st.columns([1, 2])
    total_col.metric(t("total"), result.total, delta=delta, delta_color="off")
    with doubt_col:
        _doubt_lines(snap, doubts, hand_issues)
    without = result.total - context.flowers
    st.caption(tr("minimum_ok" if result.meets_minimum else "minimum_fail", n=without) + " "
               + tr("scored_with", seat=wind_label(context.seat_wind.name), round=wind_label(context.prevalent_wind.name)))
    st.markdown("\n".join(
        f"- {fc.fan.name_zh} {fc.fan.name_en}: {fc.fan.points}" + (f" × {fc.count}" if fc.count > 1 else "")
        for fc in result.fans
    ))


def big_total_html(result: Any, zh: bool) -> str:
    """The total as large as a phone on a stand can show it to the table, the fans below it."""
    fans = " · ".join(f"{fc.fan.name_zh if zh else fc.fan.name_en} {fc.fan.points}" + (f"×{fc.count}" if fc.count > 1 else "")
                      for fc in result.fans)
    return (f"<div data-testid='live-big-total' style='font-size:9rem;font-weight:700;line-height:1;"
            f"text-align:center'>{int(result.total)}</div>"
            f"<div style='text-align:center;font-size:1.3rem;margin-top:0.5rem'>{escape(fans)}</div>")


# --- the win recorded in the open match: one tap --------------------------------------------------


def _fingerprint(deal: OpenDeal, key: tuple[tuple[str, str], ...], winner: str, discarder: str | None,
                 self_drawn: bool) -> str:
    """The hand as fixed, who won and how, in this match (not the deal: once recorded the match moves on
    to the next deal, and the same hand must not go in again)."""
    return hashlib.sha1(json.dumps([deal.match_id, key, winner, discarder, self_drawn]).encode()).hexdigest()


def _on_record(snap: LiveSnapshot, winds: Winds, winner: str, discarder: str | None, hand: Hand, print_: str) -> None:
    """The tap on "Record": the ledger reads the match afresh and refuses a deal already taken; the reading
    is held, so the hand recorded stays on the panel with what became of it (the photo page's `record_tap`),
    scored with the winds it was recorded with, not the next deal's."""
    _hold_for_fixing(snap)
    assert winds.deal is not None
    if record_tap(winds.deal, winner, discarder, hand, print_, RECORDED, RECORD_MESSAGE):
        st.session_state[RECORDED_WINDS] = (_tiles_id(snap.tiles), winds.seat, winds.prevalent)
        st.session_state[RERUN] = True


def _as_recorded(snap: LiveSnapshot, winds: Winds) -> Winds:
    """The winds a reading recorded from this page was scored with (the match has moved on to the next deal)."""
    pinned = st.session_state.get(RECORDED_WINDS)
    if not pinned or pinned[0] != _tiles_id(snap.tiles) or winds.deal is None:
        return winds
    st.caption(tr("recorded_winds", seat=wind_label(pinned[1]), round=wind_label(pinned[2])))
    return replace(winds, seat=pinned[1], prevalent=pinned[2])


def _record_panel(snap: LiveSnapshot, winds: Winds, key: tuple[tuple[str, str], ...], hand: Hand, total: int) -> None:
    """With a match open and the player named: who discarded (on a discard; the reading is held from then
    on), then one tap records the win as the deal's; the same hand again is said to be recorded already."""
    deal, winner, state = winds.deal, winds.player, st.session_state
    if deal is None or winner is None:
        return
    discarder = None
    if not hand.context.self_drawn:
        others = [p for p in deal.players if p != winner]
        if state.get(DISCARDER) not in others:
            state[DISCARDER] = None
        discarder = st.segmented_control(t("discarder"), others, key=DISCARDER, on_change=_hold_for_fixing, args=(snap,),
                                         format_func=lambda p: t("player_seat", player=p, wind=wind_label(deal.seat_of(p))))
    print_ = _fingerprint(deal, key, winner, discarder, hand.context.self_drawn)
    if record_status(deal, print_, RECORDED, RECORD_MESSAGE) is not None:
        return
    if not hand.context.self_drawn and discarder is None:
        st.caption(t("ask_discarder_player"))
        return
    st.button(t("record_win", n=deal.number, winner=winner, fan=total), key=PREFIX + "record", type="primary",
              icon=":material/scoreboard:", width="stretch", on_click=_on_record,
              args=(snap, winds, winner, discarder, hand, print_))


def _finished(snap: LiveSnapshot, analysis: LiveAnalysis, key: tuple[tuple[str, str], ...], winds: Winds,
              fixed: Reading, fixes: dict[int, str]) -> tuple[Any, list[TileDoubt]]:
    """"Won by", then the total with the tiles that would change it beside it, and "Record"; returns the score
    (None until answered) and the doubts (their totals in the hand's context, a discard until it is known)."""
    st.markdown(f"**{tr('finished')}**")
    if analysis.win_guessed:
        st.caption(tr("win_guessed"))
    context = _finished_context(analysis, reading_key(snap.tiles), winds)  # as read: a fix asks nothing again
    seat = Tile.parse(winds.seat or "E")
    doubts = _doubts(snap, fixed, context or WinContext(seat_wind=seat, prevalent_wind=Tile.parse(winds.prevalent)))
    hand_issues = _hand_issues(snap, fixes)
    if context is None:
        _doubt_lines(snap, doubts, hand_issues)
        return None, doubts
    scored = _analysis(key, context)
    if scored.score is None or scored.hand is None:
        st.warning(t("bad_hand", msg=scored.message))
        return None, doubts
    _total(snap, scored.score, context, doubts, hand_issues)
    _record_panel(snap, winds, key, scored.hand, scored.score.total)
    return scored.score, doubts


def show_reading(snap: LiveSnapshot, winds: Winds) -> None:
    """The panel for one snapshot of the loop: status, the tiles (as the player fixed them), and what they make.
    With "Big total" on, a scored hand's total stands alone on top and the rest is folded below it."""
    big = bool(st.session_state.get(BIG))
    top = st.container()
    with st.expander(tr("details")) if big else st.container():
        result = _reading(snap, winds)
    if result is None:
        return
    with top if big else st.container():
        if big:
            st.html(big_total_html(result, lang() == "zh"))
        st.toggle(tr("big"), key=BIG)


def _reading(snap: LiveSnapshot, winds: Winds) -> Any:
    """Everything but the big total; returns a finished hand's score once it has one."""
    _status(snap)
    if snap.error:
        st.error(tr("reader_failed", msg=snap.error))
    if snap.held:
        st.info(tr("held"))
    if not snap.tiles:
        st.caption(tr("reading_new") if snap.readings == 0 and not snap.held else tr("nothing"))
        return None
    winds = _as_recorded(snap, winds)
    fixes = _fixes(snap)
    tiles = _fixed_tiles(snap, fixes)
    key = reading_key(tiles)
    base = WinContext(seat_wind=Tile.parse(winds.seat or "E"), prevalent_wind=Tile.parse(winds.prevalent))
    analysis = _analysis(key, None)
    if analysis.kind == "ready":
        analysis = _analysis(key, base)  # the waits with this seat's winds
    _read_state(snap, key)
    _tiles(tiles, analysis.kind)
    _, fixed = _as_readings(snap, fixes)
    result = None
    if analysis.kind == "finished":
        result, doubts = _finished(snap, analysis, key, winds, fixed, fixes)
    else:
        doubts = _doubts(snap, fixed, base)
        if analysis.kind == "empty":
            st.caption(tr("nothing"))
        elif analysis.kind == "invalid":
            st.warning(t("bad_hand", msg=analysis.message))
        elif analysis.kind == "ready":
            _ready(analysis)
        else:
            _standing(analysis)
        if doubts:
            _doubt_lines(snap, doubts, [])
    _fix_panel(snap, fixes, [d.index for d in doubts], analysis.kind)
    return result


def _style() -> None:
    """Tiles the reader doubts framed red in the fix panel; a finger-sized tile button."""
    size = SETTINGS.touch_target_px
    st.html(f"""<style>
[class*=st-key-live_tile_] button, [class*=st-key-live_doubt_] button {{ min-height: {size}px; padding: 0 6px; }}
[class*=st-key-live_doubt_] button {{ border: 2px solid #e62828; }}
</style>""")


def render() -> None:
    st.title(t("page_live"))
    st.caption(tr("intro_read"))
    _style()
    try:
        from streamlit_webrtc import WebRtcMode, webrtc_streamer
    except ImportError as exc:
        st.error(t("webrtc_missing", msg=str(exc)))
        return
    detector, why = get_detector()
    if detector is None:
        st.error(t("no_models", msg=why))
        return
    st.caption(read_with())
    video_col, panel_col = st.columns([3, 2])
    with video_col:
        try:
            ctx = webrtc_streamer(
                key="live-table",
                mode=WebRtcMode.SENDRECV,
                frontend_rtc_configuration=RTC_CONFIGURATION,
                server_rtc_configuration=RTC_CONFIGURATION,
                translations=camera_messages(),
                media_stream_constraints=camera_constraints(),
                video_processor_factory=_processor_factory(detector),
                async_processing=True,
            )
        except Exception as exc:  # the component needs a live Streamlit server; say so instead of a traceback
            st.error(t("webrtc_missing", msg=f"{type(exc).__name__}: {exc}"))
            return
        winds = _winds()

    @st.fragment(run_every=DEFAULT_LIVE_SETTINGS.panel_every_s)
    def reading_panel() -> None:
        if st.session_state.pop(RERUN, False):
            st.rerun()  # a deal was recorded: the whole page, so the match's next deal is read
        processor = ctx.video_processor
        if not ctx.state.playing or processor is None:
            st.info(t("live_waiting"))
            st.caption(t("no_camera"))
            return
        processor.loop.hold(bool(st.toggle(tr("hold"), key=HOLD)), st.session_state.pop(HOLD_SHOWN, None))
        show_reading(processor.loop.snapshot(), winds)

    with panel_col:
        reading_panel()
