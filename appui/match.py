"""The Match page: keep a whole match at the table, deal by deal, and a tournament's tables (the logic is in `ledger`).

Every run reads the match from the database, so two phones on one match see the same ledger. Every
write carries the revision this session last showed its player (`SEEN`: set when the match is first
shown, moved on only by this session's own writes or once a refusal has told the player what changed),
so a write from a phone that has not seen another phone's deal is refused with what changed ("deal 2
was recorded by another phone at 14:03: Ann's self-draw, 24"), even when a rerun already redrew it.
Undo names the deal and asks; a finished match is locked until someone reopens it on purpose.
A table's link (`?match=UID`) opens its own match on any phone; the Organiser view registers a
tournament's players, draws its rounds and shows each table's link and QR code and the standings.
"Score in the manual scorer / a photo" puts the deal's winds, the winner's seat and the
discarder into that page's win-context form; back here, one click adds the hand scored there,
or "Add to match" on that page does it (`add_to_match_panel`: the same hand and deal building).

The page is in parts by job: `match_table` (one match, deal by deal), `match_organiser` (a
tournament's evening), `match_exchange` (import and export), `match_add` ("Add to match" on the
photo and manual pages), `match_state` (the store and what this session has seen) and `match_words`
(both languages). This module switches between the views and keeps the names other pages use.
"""

from __future__ import annotations

import streamlit as st

from ledger.match import LedgerError

from .match_add import PageWin, Refused, add_to_match_panel, carry_to_page, hand_from_pages, page_win
from .match_organiser import organiser, tournament_tables
from .match_state import PREFIX, store
from .match_table import chart_data, deal_table, standings_table, table_view
from .match_words import change_words, labeler, plain, refusal_words, tr

VIEWS = ["table", "organiser"]
VIEW_PARAM = "view"  # ?view=organiser: the organiser's screen survives a reload


def render() -> None:
    st.title(tr("title"))
    st.caption(tr("intro"))
    try:
        store()
    except LedgerError as exc:
        st.error(tr("db_error", msg=str(exc)))
        return
    state = st.session_state
    asked = st.query_params.get(VIEW_PARAM)
    if asked in VIEWS and state.get(PREFIX + "view_linked") != asked:
        state[PREFIX + "view"] = asked  # ?view=organiser (a bookmark, a reload) opens the organiser's screen, once
    state.setdefault(PREFIX + "view", "table")
    view = st.segmented_control(tr("view"), VIEWS, required=True, key=PREFIX + "view", format_func=labeler("view_")) or "table"
    if st.query_params.get(VIEW_PARAM, "table") != view:
        if view == "table":
            del st.query_params[VIEW_PARAM]
        else:
            st.query_params[VIEW_PARAM] = view
    state[PREFIX + "view_linked"] = view
    if view == "organiser":
        organiser()
    else:
        table_view()


__all__ = [
    "PageWin",
    "Refused",
    "add_to_match_panel",
    "carry_to_page",
    "change_words",
    "chart_data",
    "deal_table",
    "hand_from_pages",
    "organiser",
    "page_win",
    "plain",
    "refusal_words",
    "render",
    "standings_table",
    "store",
    "tournament_tables",
]
