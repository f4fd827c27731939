"""Manual scorer page: build a hand from the tile palette (or type its notation) and score it."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from scoring.hand import HandError, Meld, WinContext
from scoring.notation import format_tiles, parse_hand
from scoring.tiles import ALL_TILES, Tile

from .draft import Draft, Target
from .glyphs import strip_html, tile_button_label, tile_label
from .i18n import t, translator
from .match import add_to_match_panel
from .widgets import context_form, score_and_show, set_context_state, show_waits
from .winctx import HandFacts

PREFIX = "manual."
DRAFT = PREFIX + "draft"
MESSAGE = PREFIX + "message"
TARGET_KEY = PREFIX + "target"
NOTATION_KEY = PREFIX + "notation"


def _draft() -> Draft:
    return st.session_state.setdefault(DRAFT, Draft())


def _set(draft: Draft) -> None:
    st.session_state[DRAFT] = draft
    st.session_state[MESSAGE] = None


def _fail(exc: Exception) -> None:
    st.session_state[MESSAGE] = str(exc)


def _on_palette(name: str) -> None:
    target = Target(st.session_state.get(TARGET_KEY) or Target.STANDING.value)
    try:
        _set(_draft().add(Tile.parse(name), target))
    except HandError as exc:
        _fail(exc)


def _on_remove_standing(index: int) -> None:
    _set(_draft().without_standing(index))


def _on_remove_meld(index: int) -> None:
    _set(_draft().without_meld(index))


def _on_remove_win() -> None:
    _set(_draft().without_win())


def _on_clear() -> None:
    _set(Draft())


def _on_load() -> None:
    text = st.session_state.get(NOTATION_KEY, "")
    try:
        hand = parse_hand(text)
    except HandError as exc:
        _fail(exc)
        return
    _set(Draft.from_hand(hand))
    set_context_state(PREFIX, hand.context)


def _palette() -> None:
    st.session_state.setdefault(TARGET_KEY, Target.STANDING.value)
    st.segmented_control(
        t("add_to"), [x.value for x in Target], required=True,
        format_func=translator("target_"), key=TARGET_KEY,
    )
    rows = [ALL_TILES[0:9], ALL_TILES[9:18], ALL_TILES[18:27], ALL_TILES[27:34]]
    for row in rows:
        cols = st.columns(9, gap="small")
        for col, tile in zip(cols, row, strict=False):
            col.button(tile_button_label(tile.name), key=f"{PREFIX}pal.{tile.name}", on_click=_on_palette,
                       args=(tile.name,), width="stretch")


def _meld_text(meld: Meld) -> str:
    body = format_tiles(meld.tiles)
    return f"({body})" if meld.concealed else f"[{body}]"


def _current_hand(draft: Draft) -> None:
    st.subheader(t("your_hand"))
    groups = [(t("group_meld", n=i + 1), [str(x) for x in m.tiles]) for i, m in enumerate(draft.melds)]
    groups.append((t("standing"), [str(x) for x in draft.standing]))
    if draft.win_tile is not None:
        groups.append((t("win_tile"), [str(draft.win_tile)]))
    st.markdown(strip_html(groups), unsafe_allow_html=True)
    st.caption(t("click_to_remove"))
    items: list[tuple[str, str, Callable[..., None], tuple[int, ...]]] = []
    for i, meld in enumerate(draft.melds):
        items.append((f"{_meld_text(meld)} ✕", f"{PREFIX}rm.meld.{i}", _on_remove_meld, (i,)))
    for i, tile in enumerate(draft.standing):
        items.append((f"{tile_label(tile.name)} ✕", f"{PREFIX}rm.tile.{i}", _on_remove_standing, (i,)))
    if draft.win_tile is not None:
        items.append((f"+{tile_label(draft.win_tile.name)} ✕", f"{PREFIX}rm.win", _on_remove_win, ()))
    if items:
        cols = st.columns(min(len(items), 9), gap="small")
        for n, (label, key, callback, args) in enumerate(items):
            cols[n % len(cols)].button(label, key=key, on_click=callback, args=args, type="tertiary")
    st.button(t("clear"), key=f"{PREFIX}clear", on_click=_on_clear)
    st.caption(t("standing_count", n=len(draft.standing), need=draft.standing_needed))


def _ready_hand_waits(draft: Draft, context: WinContext) -> None:
    """13 tiles and no winning tile yet: what would complete the hand, and for how much."""
    from scoring.waits import waits

    try:
        show_waits(waits(draft.melds, draft.standing, context))
    except HandError as exc:
        st.error(t("bad_hand", msg=str(exc)))


def render() -> None:
    st.title(t("page_manual"))
    st.caption(t("manual_intro"))
    with st.expander(t("notation"), expanded=True):
        c1, c2 = st.columns([5, 1], vertical_alignment="bottom")
        c1.text_input(t("notation"), key=NOTATION_KEY, help=t("notation_help"), placeholder="[123m] [EEE] 456p789s11s +9s")
        c2.button(t("load"), key=f"{PREFIX}load", on_click=_on_load)
    _palette()
    message = st.session_state.get(MESSAGE)
    if message:
        st.error(message)
    draft = _draft()
    _current_hand(draft)
    facts = HandFacts.of(draft.melds, draft.standing, draft.win_tile)
    context, discarder = context_form(PREFIX, facts)
    if context is None:  # "Won by" unanswered: the form asks for it
        return
    missing = draft.missing()
    if missing == "need_win":
        st.info(t("need_win"))
        if len(draft.standing) == draft.standing_needed:
            _ready_hand_waits(draft, context)
        return
    if missing == "need_more":
        st.info(t("need_more", n=draft.standing_needed - len(draft.standing)))
        return
    if missing == "too_many":
        st.warning(t("too_many", n=len(draft.standing) - draft.standing_needed, m=len(draft.melds), need=draft.standing_needed))
        return
    try:
        hand = draft.to_hand(context)
    except HandError as exc:
        st.error(t("bad_hand", msg=str(exc)))
        return
    if score_and_show(hand, discarder) is not None:
        add_to_match_panel("manual")
