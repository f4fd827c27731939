"""Streamlit pieces shared by the pages: the win-context form and the score display."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from scoring.hand import Hand, HandError, WinContext
from scoring.tiles import WIND_NAMES as _WIND_LETTERS
from scoring.tiles import Tile

from .glyphs import tile_label
from .i18n import lang, pick, t, translator
from .winctx import HandFacts, impossible_flags

WIND_NAMES: tuple[str, ...] = tuple(_WIND_LETTERS)
WIND_ZH = {"E": "东", "S": "南", "W": "西", "N": "北"}


def wind_label(name: str) -> str:
    return f"{name} {WIND_ZH[name]}"


CONTEXT_DEFAULTS: dict[str, object] = {"won_by": "discard", "flowers": 0, "seat": "E", "prevalent": "E"}


def context_form(
    prefix: str, facts: HandFacts, *, flowers_read: int | None = None, ask: bool = False
) -> tuple[WinContext | None, str | None]:
    """The win-context widgets; impossible options are disabled with the reason as help.

    With `flowers_read` (the photo page) the flower count comes from the tiles and is only shown.
    With `ask` (the photo page) "Won by" starts unanswered and the context is None until the player
    answers it: no total is shown from a guess.

    Returns the context (impossible flags forced off) and the discarding seat (None when self-drawn
    or not given).
    """
    st.subheader(t("context"))
    state = st.session_state
    for name, value in CONTEXT_DEFAULTS.items():
        if not (ask and name == "won_by"):
            state.setdefault(f"{prefix}{name}", value)
    if ask:  # one narrow column (the photo page on a phone): the question first, nothing cut
        won_box = disc_box = st.container()
        seat_box, prevalent_box = st.columns(2)
        flags_box = st.container(horizontal=True, gap="small")
        flowers_box = st.container()
    else:
        won_box, seat_box, flags_box = st.columns(3)
        prevalent_box = disc_box = seat_box
        flowers_box = won_box
    with won_box:
        won_by = st.segmented_control(
            t("win_by"), ["discard", "self_drawn"], required=not ask,
            format_func=translator(), key=f"{prefix}won_by",
        )
        self_drawn = won_by == "self_drawn"
        if won_by is None:
            st.info(t("ask_won_by"))
    with flowers_box:
        if flowers_read is None:
            flowers = st.number_input(t("flower_count"), min_value=0, max_value=8, step=1, key=f"{prefix}flowers")
        else:
            flowers = flowers_read
            st.caption(f"{t('flower_count')}: {flowers_read}")
    with seat_box:
        seat = st.selectbox(t("seat_wind"), WIND_NAMES, format_func=wind_label, key=f"{prefix}seat")
    with prevalent_box:
        prevalent = st.selectbox(t("prevalent_wind"), WIND_NAMES, format_func=wind_label, key=f"{prefix}prevalent")
    discarder = None
    if won_by == "discard":
        others = [w for w in WIND_NAMES if w != seat]
        if state.get(f"{prefix}discarder") not in others and ask:
            state[f"{prefix}discarder"] = None  # asked, not guessed
        with disc_box:
            discarder = st.selectbox(t("discarder"), others, format_func=wind_label, key=f"{prefix}discarder",
                                     index=None if ask else 0, placeholder=t("discarder_ask"))
    blocked = impossible_flags(facts, self_drawn=self_drawn)
    flags: dict[str, bool] = {}
    with flags_box:
        for name in FLAG_NAMES:
            reason = blocked.get(name)
            value = st.checkbox(
                t(name), key=f"{prefix}{name}", disabled=reason is not None,
                help=t(reason.key, **reason.params()) if reason else None,
            )
            flags[name] = value and reason is None
    if won_by is None:
        return None, None
    context = WinContext(
        self_drawn=self_drawn,
        seat_wind=Tile.parse(seat),
        prevalent_wind=Tile.parse(prevalent),
        flowers=int(flowers),
        **flags,
    )
    return context, discarder


FLAG_NAMES = ("last_tile", "last_of_wall", "kong_replacement", "robbing_kong")


def set_context_state(prefix: str, context: WinContext) -> None:
    """Put a context into the form's widgets (call from a callback, before the widgets are drawn)."""
    state = st.session_state
    state[f"{prefix}won_by"] = "self_drawn" if context.self_drawn else "discard"
    state[f"{prefix}flowers"] = context.flowers
    state[f"{prefix}seat"] = context.seat_wind.name
    state[f"{prefix}prevalent"] = context.prevalent_wind.name
    for name in FLAG_NAMES:
        state[f"{prefix}{name}"] = getattr(context, name)


def score_and_show(hand: Hand, discarder: str | None) -> Any | None:
    """Score `hand` and draw the result; a clear message instead of a traceback. Returns the result."""
    try:
        from scoring.scorer import NotWinningHand, score
    except ImportError as exc:
        st.error(t("scorer_missing", msg=str(exc)))
        return None
    try:
        result = score(hand)
    except NotWinningHand as exc:
        st.error(t("not_winning", msg=str(exc)))
        return None
    except HandError as exc:
        st.error(t("bad_hand", msg=str(exc)))
        return None
    show_result(result, hand.context, discarder)
    return result


def show_result(
    result: Any, context: WinContext, discarder: str | None, *, compact: bool = False, details_folded: bool = False
) -> None:
    """Fan table, excluded fans, total, 8-fan check and payments of a ScoreResult.

    `compact` (the live page's side panel): total, 8-fan check and the fans as a list.
    `details_folded` (the photo page on a phone): excluded fans and payments in a closed expander.
    """
    if compact:
        _show_compact(result, context)
        return
    st.subheader(t("result"))
    flowers = context.flowers
    without_flowers = result.total - flowers
    m1, m2 = st.columns([1, 3])
    m1.metric(t("total"), result.total)
    with m2:
        if result.meets_minimum:
            st.success(t("minimum_ok", n=without_flowers))
        else:
            st.warning(t("minimum_fail", n=without_flowers))
        if getattr(result, "decomposition", ""):
            st.caption(f"{t('decomposition')}: {result.decomposition}")
    if details_folded:
        show_fans(result, context, discarder)
        return
    for warning in getattr(result, "warnings", ()):
        st.info(f"{t('warnings')}: {warning}")
    st.markdown(f"**{t('fans')}**")
    st.table(fan_rows(result))
    _excluded_and_payments(result, context, discarder)


def show_fans(result: Any, context: WinContext, discarder: str | None) -> None:
    """The fans in two columns (a phone's width), the scorer's notes; excluded fans and payments folded."""
    for warning in getattr(result, "warnings", ()):
        st.info(f"{t('warnings')}: {warning}")
    st.markdown(f"**{t('fans')}**")
    st.table(short_fan_rows(result))
    if getattr(result, "decomposition", ""):
        st.caption(f"{t('decomposition')}: {result.decomposition}")
    with st.expander(t("more_result")):
        _excluded_and_payments(result, context, discarder)


def _excluded_and_payments(result: Any, context: WinContext, discarder: str | None) -> None:
    excluded = excluded_rows(result)
    st.markdown(f"**{t('excluded')}**")
    if excluded:
        st.table(excluded)
    else:
        st.caption(t("no_excluded"))
    show_payments(result.total, context, discarder)


def _show_compact(result: Any, context: WinContext) -> None:
    st.metric(t("total"), result.total)
    without_flowers = result.total - context.flowers
    if result.meets_minimum:
        st.caption(t("minimum_ok", n=without_flowers))
    else:
        st.caption(t("minimum_fail", n=without_flowers))
    st.markdown(
        "\n".join(
            f"- {fc.fan.name_zh} {fc.fan.name_en}: {fc.fan.points}" + (f" × {fc.count}" if fc.count > 1 else "")
            for fc in result.fans
        )
    )


def fan_rows(result: Any) -> list[dict[str, Any]]:
    return [
        {
            t("col_id"): fc.fan.id,
            t("col_zh"): fc.fan.name_zh,
            t("col_en"): fc.fan.name_en,
            t("col_points"): fc.fan.points,
            t("col_count"): fc.count,
            t("col_subtotal"): fc.fan.points * fc.count,
        }
        for fc in result.fans
    ]


def short_fan_rows(result: Any) -> list[dict[str, Any]]:
    """The fans in two columns, for a phone: the name (Chinese and English) and the points."""
    return [
        {
            t("col_fan"): f"{fc.fan.name_zh} {fc.fan.name_en}",
            t("col_points"): f"{fc.fan.points} × {fc.count}" if fc.count > 1 else str(fc.fan.points),
        }
        for fc in result.fans
    ]


def excluded_rows(result: Any) -> list[dict[str, Any]]:
    return [
        {
            t("col_id"): ex.fan.id,
            t("col_zh"): ex.fan.name_zh,
            t("col_en"): ex.fan.name_en,
            t("col_points"): ex.fan.points,
            t("col_excluded_by"): f"{ex.excluded_by.name_zh} {ex.excluded_by.name_en}",
        }
        for ex in getattr(result, "excluded", ())
    ]


def show_payments(total: int, context: WinContext, discarder: str | None) -> None:
    try:
        from scoring.payments import payments
    except ImportError as exc:
        st.error(t("scorer_missing", msg=str(exc)))
        return
    winner = context.seat_wind.name
    if not context.self_drawn and discarder is None:
        st.caption(t("discarder_for_payments"))
        return
    amounts = payments(total, context.self_drawn, winner, None if context.self_drawn else discarder)
    st.markdown(f"**{t('payments')}**")
    st.table(
        [
            {
                t("col_seat"): wind_label(seat) + (f" ({t('winner')})" if seat == winner else ""),
                t("col_amount"): f"{amounts.get(seat, 0):+d}",
            }
            for seat in WIND_NAMES
        ]
    )


def show_waits(waits: Any) -> None:
    """The tiles that complete a ready hand, each with its total on a discard and self-drawn."""
    st.markdown(f"**{t('waits')}**")
    if not waits:
        st.info(t("no_waits"))
        return
    zh = lang() == "zh"
    st.table(
        [
            {
                t("col_wait"): tile_label(w.tile.name),
                t("col_discard"): w.discard.total if w.discard else "—",
                t("col_self_drawn"): w.self_drawn.total if w.self_drawn else "—",
                t("col_main_fans"): main_fans(w.discard or w.self_drawn, zh),
            }
            for w in waits
        ]
    )


def main_fans(result: Any, zh: bool, limit: int = 3) -> str:
    """The highest fans of a result, by name, e.g. 'Mixed Straight, Half Flush'."""
    if result is None:
        return ""
    best = sorted(result.fans, key=lambda fc: (-fc.fan.points, fc.fan.id))[:limit]
    return ", ".join(fc.fan.name_zh if zh else fc.fan.name_en for fc in best)


def data_folder_input(label: str, key: str, *, placeholder: str = "photos") -> str:
    """A folder inside the data root (appui.dataroot): pick one that exists or type a name.

    Returns the text typed or picked (resolve it with `dataroot.resolve_inside`, which refuses a
    folder outside the root).  The picker fills the text box; the caption names the root.
    """
    from .dataroot import data_root, subfolders

    root = data_root()
    pick_key = key + ".pick"

    def picked() -> None:
        if st.session_state.get(pick_key):
            st.session_state[key] = st.session_state[pick_key]

    existing = subfolders(root)
    if existing:
        st.selectbox(t("pick_folder"), existing, index=None, key=pick_key, on_change=picked,
                     placeholder=t("pick_folder_placeholder"))
    text = st.text_input(label, key=key, placeholder=placeholder)
    st.caption(t("save_root", root=str(root)))
    return text



_VERSION_TEXT: dict[str, tuple[str, str]] = {
    "model_in_use": ("Model in use: {name}", "使用中的模型：{name}"),
    "version": ("Version", "版本"), "in_use": ("in use", "使用中"),
    "use": ("Use this version", "使用此版本"), "back": ("Go back to the previous version", "回到上一个版本"),
    "now_using": ("Now using {name}.", "现在使用 {name}。"),
}


def model_versions(models_root: Path, prefix: str, *, expanded: bool = False,
                   on_change: Callable[[], None] | None = None) -> None:
    """The model versions of `models_root`, the one in use marked, a switch and a way back (Label and Teach pages).

    Widget keys are `prefix` + version, use, goback and model_code.  A switch changes the model for
    everyone, so LAN mode asks the access code again.  The switch happens in the button's callback,
    before the page runs again, so the page already reads with the new version; `on_change` runs
    right after it (e.g. to drop a reading made with the old one).
    """
    from vision.registry import Registry

    from .access import confirm_again

    registry = Registry(models_root)
    versions, active = registry.versions(), registry.active_name()
    message_key = prefix + "version_message"
    with st.expander(pick(_VERSION_TEXT, "model_in_use", name=active), expanded=expanded):
        for version in versions:
            mark = f" — **{pick(_VERSION_TEXT, 'in_use')}**" if version.name == active else ""
            st.markdown(f"- {version.summary}{mark}")
        names = [v.name for v in versions]
        choice = st.selectbox(pick(_VERSION_TEXT, "version"), names, index=names.index(active) if active in names else 0,
                              key=prefix + "version")
        message = st.session_state.pop(message_key, None)
        if message:
            getattr(st, message[0])(message[1])
        if not confirm_again(prefix + "model_code"):  # LAN mode: the access code again (changes it for everyone)
            return
        left, right = st.columns(2)
        left.button(pick(_VERSION_TEXT, "use"), key=prefix + "use", disabled=choice == active,
                    on_click=_switch_version, args=(models_root, prefix + "version", message_key, on_change))
        right.button(pick(_VERSION_TEXT, "back"), key=prefix + "goback",
                     on_click=_switch_version, args=(models_root, None, message_key, on_change))


def _switch_version(models_root: Path, choice_key: str | None, message_key: str, on_change: Callable[[], None] | None) -> None:
    """Put the version chosen under `choice_key` in use, or (None) go back to the previous one."""
    from vision.registry import Registry, RegistryError

    registry = Registry(models_root)
    try:
        version = registry.activate(st.session_state[choice_key]) if choice_key else registry.back()
    except (RegistryError, KeyError) as error:
        st.session_state[message_key] = ("error", str(error))
        return
    st.session_state[message_key] = ("success", pick(_VERSION_TEXT, "now_using", name=version.name))
    if on_change is not None:
        on_change()
