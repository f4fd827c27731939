"""The Match page's organiser view: a tournament's players registered, its rounds drawn, each table's link,
state and QR code, the standings."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ledger.match import (
    Ledger,
    LedgerError,
)
from ledger.rules import LIMITS
from ledger.tournament import table_link, tournament

from .match_state import MESSAGE, PREFIX, TOURNAMENT, flash, store
from .match_words import plain, refusal_words, tr


def tournament_tables(ledgers: dict[int, Ledger], entrants: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The organiser's two tables: every match (round, table, deals, table points; unfinished ones marked
    provisional) and the players by table points then score (finished matches only)."""
    view = tournament(ledgers, entrants)
    matches = [{tr("round"): m.round_label, tr("table"): m.table, "#": m.match_id, tr("deal_no"): m.deals,
                tr("t_done"): "✓" if m.finished else tr("t_provisional"),
                tr("table_points"): " · ".join(f"{s.player} {s.table_points:g}" for s in m.standings)}
               for m in view.matches]
    players = [{tr("rank"): i, tr("player"): p.player, tr("matches_played"): p.matches, tr("table_points"): p.table_points,
                tr("points"): p.points, tr("t_playing"): p.playing} for i, p in enumerate(view.players, start=1)]
    return matches, players


# --- the organiser's view ---------------------------------------------------------


def _on_new_tournament() -> None:
    state = st.session_state
    names = [line.strip() for line in str(state.get(PREFIX + "t_players", "")).splitlines() if line.strip()]
    try:
        state[TOURNAMENT] = store().create_tournament(state.get(PREFIX + "t_name", ""), names, int(state.get(PREFIX + "t_seed", 1)))
        flash(None)
    except LedgerError as exc:
        flash(refusal_words(exc))


def _on_draw_round(tournament_id: int) -> None:
    try:
        store().start_round(tournament_id)
        flash(None)
    except LedgerError as exc:
        flash(refusal_words(exc))


def app_address() -> str:
    """The address the organiser's browser reached the app at (for the tables' links)."""
    url = str(getattr(st.context, "url", "") or "")
    return url.split("?")[0].rsplit("/", 1)[0] if url.count("/") > 2 else url


def organiser() -> None:
    """Register a tournament, draw its rounds, each table's link and QR code, the standings."""
    rows = store().tournaments()
    ids = [t.id for t in rows]
    with st.expander(tr("t_new"), expanded=not ids), st.form(PREFIX + "t_form"):
        st.text_input(tr("t_name"), key=PREFIX + "t_name", max_chars=LIMITS.match_name_chars)
        st.text_area(tr("t_players"), key=PREFIX + "t_players")
        st.number_input(tr("t_seed"), min_value=0, max_value=2**31 - 1, value=1, step=1, key=PREFIX + "t_seed")
        st.form_submit_button(tr("t_create"), on_click=_on_new_tournament)
    if message := st.session_state.pop(MESSAGE, None):
        st.error(plain(message))
    if not ids:
        st.info(tr("t_none"))
        return
    if st.session_state.get(TOURNAMENT) not in ids:
        st.session_state[TOURNAMENT] = ids[-1]
    names = {t.id: f"#{t.id} {t.name}" for t in rows}
    tournament_id = st.selectbox(tr("t_choose"), ids, key=TOURNAMENT, format_func=lambda i: names[i])
    info = store().tournament(tournament_id)
    st.button(tr("t_draw", n=info.rounds + 1), key=PREFIX + "t_draw", type="primary", on_click=_on_draw_round, args=(tournament_id,))
    base = st.text_input(tr("t_url"), value=app_address(), key=PREFIX + "t_url")
    _live_tournament(tournament_id, base)


ORGANISER_REFRESH_S = 15  # the organiser's standings and tables read the database again this often


@st.fragment(run_every=ORGANISER_REFRESH_S)
def _live_tournament(tournament_id: int, base: str) -> None:
    """Standings and each round's tables with their links and QR codes, kept live while the page is open."""
    from .lan import qr_png

    info = store().tournament(tournament_id)
    ledgers = store().ledgers(tournament_id)
    matches, players = tournament_tables(ledgers, info.players)
    st.subheader(tr("t_standings"))
    st.dataframe(players, hide_index=True, width="stretch")
    summaries = store().list_matches(tournament_id)
    for round_no in sorted({s.round_no for s in summaries if s.round_no}, reverse=True):
        st.subheader(tr("t_round", n=round_no))
        for s in [s for s in summaries if s.round_no == round_no]:
            link = table_link(base, s.uid)
            status = tr("t_done") if s.closed else tr("t_status", deals=s.deals)
            c1, c2 = st.columns([3, 1])
            c1.markdown(plain(tr("t_table", n=s.table_no, players=" · ".join(s.match.players))) + f" · {status}")
            c1.markdown(f"[{tr('t_link', n=s.table_no)}]({link})")
            c1.code(link, language=None)
            c2.image(qr_png(link, box_size=4), width=120)
    st.dataframe(matches, hide_index=True, width="stretch")

