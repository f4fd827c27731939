"""Live table page: the webcam through streamlit-webrtc, tiles boxed live, waits or score of the hand in view."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import streamlit as st

from scoring.hand import WinContext

from .correction import GROUPS
from .glyphs import strip_html
from .i18n import t
from .live_loop import LiveAnalysis, LiveLoop, analyse, reading_key
from .models import get_detector, read_with
from .photo import group_label
from .settings import DEFAULT_APP_SETTINGS
from .widgets import context_form, show_result, show_waits
from .winctx import HandFacts

if TYPE_CHECKING:
    from streamlit_webrtc import Translations

PREFIX = "live."
# No STUN/TURN servers, in the browser and on the server: they meet through their host candidates,
# on localhost or on the LAN (scripts/app.sh --lan), and nothing leaves the network.
RTC_CONFIGURATION: dict[str, Any] = {"iceServers": []}


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
def _analysis(key: tuple[tuple[str, str], ...], context: WinContext) -> LiveAnalysis:
    tiles = [{"cls": cls, "xyxy": [float(i), 0.0, i + 1.0, 1.0], "group": group} for i, (cls, group) in enumerate(key)]
    return analyse(tiles, context)


def _show_reading(snapshot: Any, context: WinContext, discarder: str | None) -> None:
    st.metric(t("fps"), f"{snapshot.fps:.1f}")
    st.caption(t("live_tiles", n=len(snapshot.tiles)) + " · " + t("readings", n=f"{snapshot.readings_per_s:.1f}"))
    if snapshot.error:
        st.error(snapshot.error)
    groups: dict[str, list[str]] = {}
    for tile in sorted(snapshot.tiles, key=lambda x: x["xyxy"][0]):
        groups.setdefault(tile.get("group") or "unplaced", []).append(tile["cls"])
    st.markdown(strip_html([(group_label(g), groups[g]) for g in GROUPS if g in groups]), unsafe_allow_html=True)
    analysis = _analysis(reading_key(snapshot.tiles), context)
    if analysis.kind == "ready":
        show_waits(analysis.waits)
    elif analysis.kind == "complete":
        show_result(analysis.score, analysis.hand.context, discarder, compact=True)
    elif analysis.message:
        st.caption(analysis.message)


def render() -> None:
    st.title(t("page_live"))
    st.caption(t("live_intro"))
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
    with st.expander(t("context")):
        context, discarder = context_form(PREFIX, HandFacts(True, None, 0, 0))
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

    @st.fragment(run_every=1.0)
    def reading_panel() -> None:
        processor = ctx.video_processor
        if not ctx.state.playing or processor is None:
            st.info(t("live_waiting"))
            st.caption(t("no_camera"))
            return
        if context is None:  # "Won by" unanswered: the form asks for it
            return
        _show_reading(processor.loop.snapshot(), context, discarder)

    with panel_col:
        reading_panel()
