"""The Match page's organiser view: a tournament's evening on one screen.

In the order the evening goes: register the players and the number of rounds, draw a round, follow
each table (its state, its link and QR code) and end a table from here (complete with 16 deals,
else at the time limit), the standings with their tie-breaks stated, printed or exported, and
the end of the tournament, after which the standings are final.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from ledger.exchange import standings_csv
from ledger.match import EndReason, Ledger, LedgerError, clock
from ledger.rules import DEALS_PER_MATCH, LIMITS
from ledger.store import MatchSummary, TournamentInfo
from ledger.tournament import Tournament, table_link, tournament

from .match_exchange import standings_html
from .match_state import PREFIX, SEEN, TOURNAMENT, flash, saw, show_flash, store
from .match_words import deals_words, plain, refusal_words, tr

ASK = PREFIX + "t_ask"  # (what, target id) of the organiser's question waiting for its answer
DEFAULT_ROUNDS = 4
ORGANISER_REFRESH_S = 15  # the organiser's tables and standings read the database again this often


def tournament_tables(ledgers: dict[int, Ledger], entrants: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The organiser's two tables: every match (round, table, deals, table points; unfinished ones marked
    provisional) and the players by rank (finished matches only)."""
    view = tournament(ledgers, entrants)
    matches = [{tr("round"): m.round_label, tr("table"): m.table, "#": m.match_id, tr("deal_no"): m.deals,
                tr("t_done"): "✓" if m.finished else tr("t_provisional"),
                tr("table_points"): " · ".join(f"{s.player} {s.table_points:g}" for s in m.standings)}
               for m in view.matches]
    return matches, standings_rows(view)


def standings_rows(view: Tournament) -> list[dict[str, Any]]:
    """A row a player: rank (equal players share it), name, matches counted, table points, points, first places,
    matches still being played."""
    return [{tr("rank"): p.rank, tr("player"): p.player, tr("matches_played"): p.matches, tr("table_points"): p.table_points,
             tr("points"): p.points, tr("t_firsts"): p.firsts, tr("t_playing"): p.playing} for p in view.players]


def table_state(summary: MatchSummary) -> str:
    """"playing · 5/16 deals", "finished · 16 deals", "finished at the time limit · 9 deals"."""
    if summary.closed is None:
        return tr("t_state_playing", deals=summary.deals)
    if summary.closed.reason is EndReason.ALL_DEALS:
        return tr("t_state_complete", deals=summary.deals)
    return tr("t_state_time_limit", deals=deals_words(summary.deals))


# --- callbacks ----------------------------------------------------------------------


def _refused(action: Callable[[], object]) -> bool:
    """Run one organiser's write; a refusal is told in the page's language. True when it was made."""
    try:
        action()
    except LedgerError as exc:
        flash(refusal_words(exc))
        return False
    flash(None)
    return True


def _on_new_tournament() -> None:
    state = st.session_state
    names = [line.strip() for line in str(state.get(PREFIX + "t_players", "")).splitlines() if line.strip()]
    made: list[int] = []
    if _refused(lambda: made.append(store().create_tournament(
            state.get(PREFIX + "t_name", ""), names, int(state.get(PREFIX + "t_seed", 1)),
            int(state.get(PREFIX + "t_rounds_new", DEFAULT_ROUNDS))))):
        state[TOURNAMENT] = made[0]
        flash(tr("t_registered", count=len(names), name=state.get(PREFIX + "t_name", "") or f"#{made[0]}"), "success")


def _on_set_rounds(tournament_id: int) -> None:
    rounds = int(st.session_state.get(PREFIX + "t_rounds", DEFAULT_ROUNDS))
    _refused(lambda: store().set_rounds(tournament_id, rounds))


def _on_draw_round(tournament_id: int) -> None:
    _refused(lambda: store().start_round(tournament_id))


def _on_ask(what: str, target: int) -> None:
    st.session_state[ASK] = (what, target)


def _on_cancel() -> None:
    st.session_state.pop(ASK, None)


def _on_end_table(match_id: int, revision: int) -> None:
    """End a table's match as the organiser saw it (`revision`): refused, saying why, if it changed since."""
    st.session_state.pop(ASK, None)
    if _refused(lambda: store().close_match(match_id, seen=revision)) and st.session_state.get(SEEN, {}).get(match_id) == revision:
        saw(match_id, revision + 1)  # this session's table view saw everything before the end: it shows no warning


def _on_end_tournament(tournament_id: int) -> None:
    st.session_state.pop(ASK, None)
    _refused(lambda: store().end_tournament(tournament_id))


# --- the page -------------------------------------------------------------------------


def app_address() -> str:
    """The address the organiser's browser reached the app at (for the tables' links)."""
    url = str(getattr(st.context, "url", "") or "")
    return url.split("?")[0].rsplit("/", 1)[0] if url.count("/") > 2 else url


def _register(open_it: bool) -> None:
    with st.expander(tr("t_new"), expanded=open_it), st.form(PREFIX + "t_form"):
        st.text_input(tr("t_name"), key=PREFIX + "t_name", max_chars=LIMITS.match_name_chars)
        st.text_area(tr("t_players"), key=PREFIX + "t_players")
        c1, c2 = st.columns(2)
        c1.number_input(tr("t_rounds"), min_value=1, max_value=LIMITS.max_rounds, value=DEFAULT_ROUNDS, step=1,
                        key=PREFIX + "t_rounds_new")
        c2.number_input(tr("t_seed"), min_value=0, max_value=2**31 - 1, value=1, step=1, key=PREFIX + "t_seed")
        st.form_submit_button(tr("t_create"), type="primary", on_click=_on_new_tournament)


def organiser() -> None:
    """Register a tournament, then its evening: rounds, the draw, the tables, the standings, the end."""
    rows = store().tournaments()
    ids = [t.id for t in rows]
    if not ids:
        st.info(tr("t_none"))
    _register(open_it=not ids)
    if not ids:
        show_flash()
        return
    if st.session_state.get(TOURNAMENT) not in ids:
        st.session_state[TOURNAMENT] = ids[-1]
    names = {t.id: f"#{t.id} {t.name}" for t in rows}
    tournament_id = st.selectbox(tr("t_choose"), ids, key=TOURNAMENT, format_func=lambda i: names[i])
    base = st.text_input(tr("t_url"), value=app_address(), key=PREFIX + "t_url")
    _evening(tournament_id, base)


@st.fragment(run_every=ORGANISER_REFRESH_S)
def _evening(tournament_id: int, base: str) -> None:
    """The chosen tournament, read afresh every few seconds while the page is open (the tables write to it)."""
    show_flash()
    try:
        info = store().tournament(tournament_id)
        summaries = store().list_matches(tournament_id)
        view = tournament(store().ledgers(tournament_id), info.players)
    except LedgerError as exc:
        st.error(plain(refusal_words(exc)))
        return
    _rounds(info, summaries)
    for round_no in sorted({s.round_no for s in summaries if s.round_no}, reverse=True):
        _round(round_no, [s for s in summaries if s.round_no == round_no], base, latest=round_no == info.rounds)
    _standings(info, view, summaries)


def _rounds(info: TournamentInfo, summaries: list[MatchSummary]) -> None:
    """How many rounds, how many drawn, and the next draw (or why there is none yet)."""
    st.subheader(plain(info.name or f"#{info.id}"))
    if info.ended:
        st.success(tr("t_ended", at=clock(info.ended_at or "")))
        return
    playing = [s.table_no for s in summaries if s.round_no == info.rounds and s.closed is None]
    planned = info.planned_rounds
    st.caption(tr("t_rounds_state", n=planned, drawn=info.rounds) if planned else tr("t_rounds_unset"))
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.number_input(tr("t_rounds"), min_value=max(1, info.rounds), max_value=LIMITS.max_rounds,
                        value=planned or max(DEFAULT_ROUNDS, info.rounds), step=1, key=PREFIX + "t_rounds", width=160)
        st.button(tr("t_set_rounds"), key=PREFIX + "t_set_rounds", on_click=_on_set_rounds, args=(info.id,))
    why_not = None
    if playing:
        why_not = tr("t_unfinished", n=info.rounds, tables=", ".join(map(str, playing)))
    elif planned is not None and info.rounds >= planned:
        why_not = tr("t_all_drawn", n=planned)
    st.button(tr("t_draw", n=info.rounds + 1), key=PREFIX + "t_draw", type="primary", on_click=_on_draw_round,
              args=(info.id,), disabled=why_not is not None)
    if why_not:
        st.caption(why_not)


def _round(round_no: int, tables: list[MatchSummary], base: str, latest: bool) -> None:
    """A round's tables: who plays, how far they are, ending a table; the links and QR codes folded away."""
    from .lan import qr_png

    done = sum(s.closed is not None for s in tables)
    st.subheader(tr("t_round", n=round_no))
    st.caption(tr("t_round_state", done=done, tables=len(tables)))
    for s in tables:
        with st.container(border=True, key=f"match_t_table_{s.id}"):
            st.markdown(plain(tr("t_table", n=s.table_no, players=" · ".join(s.match.players))))
            st.caption(table_state(s))
            if s.closed is None:
                complete = s.deals == DEALS_PER_MATCH
                question = (tr("t_end_ask_complete", n=s.table_no) if complete
                            else tr("t_end_ask_time", n=s.table_no, deals=deals_words(s.deals)))
                _ask(("end_table", s.id), tr("t_end_table", n=s.table_no), question, tr("t_end_yes", n=s.table_no),
                     _on_end_table, (s.id, s.revision))
    with st.expander(tr("t_links", n=round_no), expanded=latest and done < len(tables)):
        for s in tables:
            link = table_link(base, s.uid)
            c1, c2 = st.columns([3, 1])
            c1.markdown(f"[{tr('t_link', n=s.table_no)}]({link})")
            c1.code(link, language=None)
            c2.image(qr_png(link, box_size=4), width=120)


def _ask(question_of: tuple[str, int], label: str, question: str, yes: str, on_yes: Callable[..., None],
         args: tuple[Any, ...]) -> None:
    """A button that asks first (`question`, with `yes` and "No, keep it")."""
    what, target = question_of
    key = f"{PREFIX}t_{what}_{target}"
    if st.session_state.get(ASK) == question_of:
        st.warning(plain(question))
        c1, c2 = st.columns(2)
        c1.button(yes, key=key + "_yes", type="primary", width="stretch", on_click=on_yes, args=args)
        c2.button(tr("keep"), key=key + "_no", width="stretch", on_click=_on_cancel)
    else:
        st.button(label, key=key, on_click=_on_ask, args=question_of)


def _standings(info: TournamentInfo, view: Tournament, summaries: list[MatchSummary]) -> None:
    """The standings with the tie-breaks stated, their CSV and printable copies, and the end of the tournament."""
    final = info.ended
    finished = sum(s.closed is not None for s in summaries)
    st.subheader(tr("t_final") if final else tr("t_standings_now", n=finished))
    st.caption(tr("t_ranked_by"))
    st.dataframe(standings_rows(view), hide_index=True, width="stretch", key=f"{PREFIX}t_standings_{info.id}")
    title = info.name or f"#{info.id}"
    stem = f"standings-{info.id}" + ("-final" if final else "")
    c1, c2 = st.columns(2)
    c1.download_button(tr("t_csv"), standings_csv(view).encode("utf-8"), file_name=f"{stem}.csv", mime="text/csv",
                       key=PREFIX + "t_csv", width="stretch")
    c2.download_button(tr("t_print"), standings_html(title, view, final=final, rounds=info.rounds).encode("utf-8"),
                       file_name=f"{stem}.html", mime="text/html", key=PREFIX + "t_print", width="stretch")
    if final or not summaries:
        return
    playing = [s for s in summaries if s.closed is None]
    if playing:
        st.caption(tr("t_end_waits", tables=", ".join(f"{s.round_no}/{s.table_no}" for s in playing)))
        return
    planned = info.planned_rounds
    question = (tr("t_end_ask_early", drawn=info.rounds, n=planned) if planned and info.rounds < planned
                else tr("t_end_ask"))
    _ask(("end", info.id), tr("t_end"), question, tr("t_end_tournament_yes"), _on_end_tournament, (info.id,))
