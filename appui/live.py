"""Live table page: the webcam through streamlit-webrtc, tiles boxed live, and beside the video what
the steady reading makes: how far the standing hand is from ready and what to let go, the waits
of a ready hand with the copies still unseen, or a finished hand's total once "Won by" is answered.

The frame loop and the analysis are `appui.live_loop` (no Streamlit); this module draws them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import streamlit as st

from scoring.hand import WinContext
from scoring.tiles import Tile

from .glyphs import strip_html, tile_label
from .i18n import lang, pick, t, translator
from .live_loop import DEFAULT_LIVE_SETTINGS, LiveAnalysis, LiveLoop, LiveSnapshot, analyse, group_rank, reading_key
from .models import get_detector, read_with
from .settings import DEFAULT_APP_SETTINGS
from .widgets import FLAG_NAMES, WIND_NAMES, main_fans, wind_label
from .winctx import HandFacts, impossible_flags

if TYPE_CHECKING:
    from streamlit_webrtc import Translations

PREFIX = "live."
HOLD, WON_BY, SEAT, PREVALENT, PLAYER = (PREFIX + k for k in ("hold", "won_by", "seat", "prevalent", "player"))
BIG = PREFIX + "big"
FINISHED_SEEN = PREFIX + "finished_seen"  # the finished hand "Won by" was answered for (not a widget key)
MATCH_CURRENT = "match.current"  # the match open in this session (appui.match.CURRENT; read, not imported)
# No STUN/TURN servers, in the browser and on the server: they meet through their host candidates,
# on localhost or on the LAN (scripts/app.sh --lan), and nothing leaves the network.
RTC_CONFIGURATION: dict[str, Any] = {"iceServers": []}
DOUBTS_SHOWN = 3
DISCARDS_SHOWN = 4

_TEXT: dict[str, tuple[str, str]] = {
    "intro": ("Point the webcam at your standing tiles: once readings of the view agree the panel shows how far the "
              "hand is from ready, what to let go, or the waits with what each would score. Lay out a finished "
              "hand and say how it was won for its total.",
              "将摄像头对准自己的手牌: 多次识别一致后, 右侧显示离听牌还差几步、该打哪张, 或听哪些牌及各自番数。"
              "摆出和牌后选择和牌方式即显示总番。"),
    "status": ("Read {analysed} frames/s ({readings} readings/s, the rest a still view kept) · video {fps} frames/s",
               "每秒分析 {analysed} 帧 (识别 {readings} 次, 其余为画面未动沿用) · 视频 {fps} 帧/秒"),
    "hold": ("Hold this reading", "锁定此读数"),
    "held": ("Held: the camera no longer changes this reading.", "已锁定: 摄像头画面不再改变此读数。"),
    "age": ("Reading seen {s:.1f} s ago", "读数 {s:.1f} 秒前确认"),
    "reading": ("Reading the tiles… ({agree} of the last {votes} readings agree; {need} needed)",
                "正在识别… (最近 {votes} 次中 {agree} 次一致; 需要 {need} 次)"),
    "nothing": ("No tiles in view.", "画面中没有牌。"),
    "reader_failed": ("The tile reader failed: {msg}", "识别出错: {msg}"),
    "from_ready": ("From ready", "向听数"),
    "ready_now": ("Ready", "已听牌"),
    "complete_now": ("Complete", "已和牌型"),
    "shanten_help": ("How many more useful draws the hand needs before it waits on a tile (0: ready).",
                     "还需要几张有效牌才能听牌 (0 即听牌)。"),
    "counted": ("{n} tiles counted (a meld counts 3): a hand waits with 13; read as a hand with its other melds "
                "out of view.", "共计 {n} 张 (副露按 3 张计): 听牌时为 13 张; 按其余副露在画面外计算。"),
    "too_many": ("{n} tiles counted (a meld counts 3): more than a hand holds. Take some out of view.",
                 "共计 {n} 张 (副露按 3 张计): 超过一手牌, 请移出部分牌。"),
    "discards": ("Discards that keep it closest", "打出后最接近听牌的牌"),
    "col_let_go": ("Let go", "打出"),
    "col_after": ("From ready after", "打后向听"),
    "col_helps": ("Draws that help (unseen copies)", "有效进张 (未见张数)"),
    "draws": ("Draws that help (unseen copies)", "有效进张 (未见张数)"),
    "col_unseen": ("Unseen", "未见"),
    "unseen_help": ("Copies of each wait not in view: four, less those in your hand and on the table.",
                    "每张听牌未出现在画面中的张数: 4 张减去手中和桌上可见的。"),
    "finished": ("A finished hand", "和牌"),
    "win_guessed": ("No tile is set apart: the rightmost is taken as the winning tile. Set the winning tile "
                    "apart to say which.", "没有单独放开的和牌张: 按最右边的牌计算。请把和牌张单独放开。"),
    "ask_won_by": ("How was it won? The total needs it.", "怎样和的? 算总番需要知道。"),
    "won_by": ("Won by", "和牌方式"),
    "special": ("Special cases", "特殊情况"),
    "doubts": ("The reader was unsure", "识别不确定之处"),
    "sure": ("The reader is sure of every tile.", "识别器对每张牌都有把握。"),
    "big": ("Big total for the table", "大字显示总番"),
    "match_deal": ("Match #{id}, deal {n}: round wind {round}.", "对局 #{id} 第 {n} 盘: 圈风 {round}。"),
    "player": ("Whose hand is this?", "这是谁的牌?"),
    "ask_player": ("Say whose hand it is: the seat wind comes from the match.", "请选择是谁的牌: 门风取自对局。"),
    "winds_here": ("Seat and round wind", "门风与圈风"),
    "scored_with": ("Scored as {seat} seat, {round} round.", "按门风 {seat}、圈风 {round} 计算。"),
    "minimum_ok": ("{n} fans without flowers: meets the 8-fan minimum.", "不计花牌 {n} 番: 达到 8 番起和。"),
    "minimum_fail": ("{n} fans without flowers: under the 8-fan minimum.", "不计花牌 {n} 番: 未达 8 番起和。"),
}


def tr(key: str, **values: Any) -> str:
    return pick(_TEXT, key, **values)


def camera_messages() -> Translations:
    """The webcam component's own texts, in player words and the page's language (streamlit-webrtc translations)."""
    return {
        "start": t("cam_start"),
        "stop": t("cam_stop"),
        "select_device": t("cam_select"),
        "media_api_not_available": t("cam_insecure"),
        "device_ask_permission": t("cam_ask"),
        "device_not_available": t("cam_none"),
        "device_access_denied": t("cam_denied"),
    }


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
    """The seat and round wind the hand is scored with, and where they came from (a match deal or the page)."""

    seat: str | None
    prevalent: str
    match_deal: tuple[int, int] | None = None  # (match id, deal number)


def _open_deal() -> Any | None:
    """(match id, ledger) of the match open in this session with a deal still to play, else None."""
    match_id = st.session_state.get(MATCH_CURRENT)
    if match_id is None:
        return None
    try:
        from ledger.match import LedgerError

        from .match import store

        ledger = store().ledger(match_id)
    except (LedgerError, ImportError, OSError, KeyError):
        return None
    return (match_id, ledger) if ledger.next_deal is not None else None


def _winds() -> Winds:
    """From the open match: the deal's round wind, the seat of the player named here; else picked here."""
    state = st.session_state
    deal = _open_deal()
    if deal is not None:
        from ledger.rules import prevalent_wind

        match_id, ledger = deal
        number, match = ledger.next_deal, ledger.match
        prevalent = prevalent_wind(number)
        st.caption(tr("match_deal", id=match_id, n=number, round=wind_label(prevalent)))
        if state.get(PLAYER) not in match.players:
            state[PLAYER] = None
        player = st.segmented_control(tr("player"), list(match.players), key=PLAYER,
                                      format_func=lambda p: f"{p} ({wind_label(match.seat_of(p, number))})")
        if player is None:
            st.info(tr("ask_player"))
            return Winds(None, prevalent, (match_id, number))
        return Winds(match.seat_of(player, number), prevalent, (match_id, number))
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
    # when the panel's reading was agreed and its view began, for the browser test's lag measurement
    st.html(f"<span data-live-view='{snap.view}' data-view-changed-at='{snap.view_changed_at:.3f}' "
            f"data-steady-at='{snap.steady_at or 0:.3f}' data-tiles='{len(snap.tiles)}'></span>")


def _tiles(snap: LiveSnapshot) -> None:
    st.caption(t("live_tiles", n=len(snap.tiles)))
    groups: dict[str, list[str]] = {}
    for tile in sorted(snap.tiles, key=lambda x: (group_rank(x.get("group") or "unplaced"), x["xyxy"][0])):
        groups.setdefault(tile.get("group") or "unplaced", []).append(tile["cls"])
    st.markdown(strip_html([(_group_label(g), names) for g, names in groups.items()]), unsafe_allow_html=True)


def _group_label(group: str) -> str:
    number = group.removeprefix("meld")
    if number.isdigit():
        return t("group_meld", n=int(number) + 1)
    return t(f"group_{group}") if group in ("hand", "win", "flowers", "unplaced") else group


def _doubts(snap: LiveSnapshot) -> None:
    from .photo import issue_text

    if not snap.issues:
        st.caption(tr("sure"))
        return
    st.markdown(f"**{tr('doubts')}**")
    st.markdown("\n".join(f"- {issue_text(issue)}" for issue in snap.issues[:DOUBTS_SHOWN]))


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
    elif analysis.draws:
        st.markdown(f"**{tr('draws')}**")
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


def _finished_context(analysis: LiveAnalysis, key: tuple[tuple[str, str], ...], winds: Winds) -> WinContext | None:
    """"Won by" (asked again for every new finished hand) and the special cases; None until answered."""
    state = st.session_state
    if state.get(FINISHED_SEEN) != key:
        state[FINISHED_SEEN] = key
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


def _finished(snap: LiveSnapshot, analysis: LiveAnalysis, key: tuple[tuple[str, str], ...], winds: Winds) -> None:
    st.markdown(f"**{tr('finished')}**")
    if analysis.win_guessed:
        st.caption(tr("win_guessed"))
    context = _finished_context(analysis, key, winds)
    if context is None:
        _doubts(snap)
        return
    scored = _analysis(key, context)
    if scored.score is None:
        st.warning(t("bad_hand", msg=scored.message))
        return
    result = scored.score
    total_col, doubt_col = st.columns([1, 2])
    total_col.metric(t("total"), result.total)
    with doubt_col:
        _doubts(snap)
    without = result.total - context.flowers
    st.caption(tr("minimum_ok" if result.meets_minimum else "minimum_fail", n=without) + " "
               + tr("scored_with", seat=wind_label(winds.seat or "E"), round=wind_label(winds.prevalent)))
    st.markdown("\n".join(
        f"- {fc.fan.name_zh} {fc.fan.name_en}: {fc.fan.points}" + (f" × {fc.count}" if fc.count > 1 else "")
        for fc in result.fans
    ))
    if st.toggle(tr("big"), key=BIG):
        st.html(f"<div data-testid='live-big-total' style='font-size:9rem;font-weight:700;line-height:1;"
                f"text-align:center'>{result.total}</div>"
                f"<div style='text-align:center;font-size:1.4rem'>{main_fans(result, lang() == 'zh')}</div>")


def show_reading(snap: LiveSnapshot, winds: Winds) -> None:
    """The panel for one snapshot of the loop: status, the tiles, and what they make."""
    _status(snap)
    if snap.error:
        st.error(tr("reader_failed", msg=snap.error))
    if snap.held:
        st.info(tr("held"))
    age = snap.age_s(time.time())
    if not snap.tiles:
        if snap.votes:
            st.info(tr("reading", agree=snap.agreeing, votes=snap.votes, need=DEFAULT_LIVE_SETTINGS.vote_agree))
        else:
            st.caption(tr("nothing"))
        return
    if age is not None:
        st.caption(tr("age", s=age))
    _tiles(snap)
    key = reading_key(snap.tiles)
    base = WinContext(seat_wind=Tile.parse(winds.seat or "E"), prevalent_wind=Tile.parse(winds.prevalent))
    analysis = _analysis(key, None)
    if analysis.kind == "ready":
        analysis = _analysis(key, base)  # the waits with this seat's winds
    if analysis.kind == "empty":
        st.caption(tr("nothing"))
    elif analysis.kind == "invalid":
        st.warning(t("bad_hand", msg=analysis.message))
    elif analysis.kind == "ready":
        _ready(analysis)
    elif analysis.kind == "finished":
        _finished(snap, analysis, key, winds)
    else:
        _standing(analysis)


def render() -> None:
    st.title(t("page_live"))
    st.caption(tr("intro"))
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
                media_stream_constraints={"video": {"width": 640, "height": 480}, "audio": False},
                video_processor_factory=_processor_factory(detector),
                async_processing=True,
            )
        except Exception as exc:  # the component needs a live Streamlit server; say so instead of a traceback
            st.error(t("webrtc_missing", msg=f"{type(exc).__name__}: {exc}"))
            return
        winds = _winds()

    @st.fragment(run_every=DEFAULT_LIVE_SETTINGS.panel_every_s)
    def reading_panel() -> None:
        processor = ctx.video_processor
        if not ctx.state.playing or processor is None:
            st.info(t("live_waiting"))
            st.caption(t("no_camera"))
            return
        processor.loop.hold(bool(st.toggle(tr("hold"), key=HOLD)))
        show_reading(processor.loop.snapshot(), winds)

    with panel_col:
        reading_panel()
