"""The Match page's table view: one match, deal by deal (the current deal, recording, penalties, undo,
ending and reopening, the score sheet)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ledger.match import (
    Deal,
    EndReason,
    Ledger,
    LedgerError,
    Match,
    clock,
    draw,
    false_win,
    penalty,
    void,
    win,
)
from ledger.rules import DEALS_PER_MATCH, LIMITS, SeatRule, prevalent_wind
from ledger.store import MatchNotFound
from scoring.hand import Hand, HandError
from scoring.notation import format_hand, parse_hand

from .i18n import lang
from .match_add import carry_to_page, hand_from_pages
from .match_exchange import downloads, import_form
from .match_organiser import tournament_tables
from .match_state import (
    ASK,
    CURRENT,
    MANUAL_PREFIX,
    MATCH_ID,
    MATCH_PARAM,
    NOTATION,
    PENDING,
    PHOTO_PREFIX,
    PREFIX,
    SOURCE,
    UNDONE,
    flash,
    saw,
    seen_revision,
    show_flash,
    store,
    write,
)
from .match_words import change_words, deal_words, labeler, penalty_words, plain, tr, wind_name
from .widgets import WIND_ZH

# --- pure helpers (tests reach them without a browser) ---------------------------


def deal_table(ledger: Ledger) -> list[dict[str, Any]]:
    """One row per deal: number, round wind, dealer, result, fan, each player's points and running total."""
    players = ledger.match.players
    rows = []
    for row in ledger.rows:
        d = row.deal
        result = {"win": tr("win"), "draw": tr("result_draw"), "void": tr("what_void")}[d.result.value]
        if d.winner:
            result += f" {d.winner}" + (f" ← {d.discarder}" if d.discarder else f" ({tr('self_drawn')})")
        line: dict[str, Any] = {tr("deal_no"): d.number, tr("prevalent"): row.prevalent_wind, tr("dealer"): row.dealer,
                                tr("result"): result, tr("fan"): "" if d.total is None else str(d.total)}
        line[tr("seats")] = " ".join(row.seat_winds)  # each player's seat wind, in the player columns' order
        for i, p in enumerate(players):
            line[p] = row.points[i]
        for i, p in enumerate(players):
            line[f"{p} Σ"] = row.totals[i]
        line[tr("penalties")] = "; ".join(penalty_words(p) for p in row.penalties)
        rows.append(line)
    return rows


def chart_data(ledger: Ledger) -> dict[str, list[int]]:
    """Running totals per player, from 0 before the first deal (a column per player for st.line_chart)."""
    players = ledger.match.players
    return {p: [0] + [row.totals[i] for row in ledger.rows] for i, p in enumerate(players)}


def standings_table(ledger: Ledger) -> list[dict[str, Any]]:
    return [{tr("rank"): s.rank, tr("player"): s.player, tr("points"): s.points, tr("table_points"): s.table_points}
            for s in ledger.standings()]


# --- the page: callbacks --------------------------------------------------------


def _record(match_id: int, deal: Deal, replace: bool) -> bool:
    if replace:
        return write(match_id, lambda seen: store().replace_deal(match_id, deal, seen=seen))
    return write(match_id, lambda seen: store().add_deal(match_id, deal, seen=seen))


def _on_record(match_id: int, deal: Deal, replace: bool) -> None:
    _record(match_id, deal, replace)


def _on_false_win(match_id: int, number: int, replace: bool) -> None:
    state = st.session_state
    try:
        entry = false_win(store().match(match_id), number, state.get(PREFIX + "offender", ""), state.get(PREFIX + "fw_points"))
    except LedgerError as exc:
        flash(str(exc))
        return
    if write(match_id, lambda seen: store().add_penalty(match_id, entry, seen=seen)) and state.get(PREFIX + "fw_then") == "void":
        _record(match_id, void(number), replace)


def _on_penalty(match_id: int, number: int) -> None:
    state = st.session_state
    try:
        entry = penalty(store().match(match_id), number, state.get(PREFIX + "pen_player", ""), state.get(PREFIX + "pen_points"),
                        state.get(PREFIX + "pen_reason", ""), to_others=bool(state.get(PREFIX + "pen_to_others")))
    except LedgerError as exc:
        flash(str(exc))
        return
    if write(match_id, lambda seen: store().add_penalty(match_id, entry, seen=seen)):
        state[PREFIX + "pen_reason"] = ""


def _on_take_back(match_id: int, penalty_id: int) -> None:
    write(match_id, lambda seen: store().remove_penalty(match_id, penalty_id, seen=seen))


def _on_ask(what: str, match_id: int, number: int, question: str, yes: str) -> None:
    st.session_state[ASK] = (what, match_id, number, question, yes)


def _on_cancel() -> None:
    st.session_state.pop(ASK, None)


def _on_confirm(what: str, match_id: int, number: int) -> None:
    st.session_state.pop(ASK, None)
    if what == "undo":
        undone: list[Deal] = []
        if write(match_id, lambda seen: undone.append(store().undo_last(match_id, seen=seen, number=number))):
            st.session_state[UNDONE] = (match_id, undone[0], seen_revision(match_id, 0))
    elif what == "close":  # complete with 16 deals (a reopened match corrected), else the time limit
        write(match_id, lambda seen: store().close_match(match_id, seen=seen))
    elif what == "reopen":
        write(match_id, lambda seen: store().reopen_match(match_id, seen=seen))


def _on_redo(match_id: int, deal: Deal) -> None:
    if _record(match_id, deal, replace=False):
        st.session_state.pop(UNDONE, None)


def _on_remove(match_id: int, number: int) -> None:
    write(match_id, lambda seen: store().remove_deal(match_id, number, seen=seen))


def _on_seen_it(match_id: int, revision: int) -> None:
    saw(match_id, revision)


def _on_start() -> None:
    state = st.session_state
    try:
        match = Match(
            tuple(state.get(f"{PREFIX}name_{w}", "") for w in "ESWN"),
            SeatRule(state.get(PREFIX + "rule", SeatRule.OFFICIAL.value)),
            name=state.get(PREFIX + "match_name", ""), table=state.get(PREFIX + "table", ""),
            round_label=state.get(PREFIX + "round", ""),
        ).validate()
        started = state.get(PREFIX + "started")
        if started and started[0] == match and not store().ledger(started[1]).rows:
            state[MATCH_ID] = started[1]  # a second click of Start: the match it started, still empty
        else:
            state[MATCH_ID] = store().create_match(match)
            state[PREFIX + "started"] = (match, state[MATCH_ID])
        flash(None)
    except LedgerError as exc:
        flash(str(exc))


def _on_add_win(match_id: int, deal: Deal | None, replace: bool) -> None:
    if deal is None:
        return
    if _record(match_id, deal, replace):
        st.session_state[NOTATION] = ""
        st.session_state[SOURCE] = "notation"  # the other page's hand is used: never offer it for the next deal


# --- the page: parts ------------------------------------------------------------


def new_match_form(open_it: bool) -> None:
    with st.expander(tr("new"), expanded=open_it):
        with st.form(PREFIX + "new_form"):
            for w in "ESWN":
                st.text_input(tr("place", wind=wind_name(w)), key=f"{PREFIX}name_{w}", max_chars=LIMITS.name_chars)
            st.radio(tr("seat_rule"), [r.value for r in SeatRule], horizontal=True, key=PREFIX + "rule",
                     format_func=labeler("rule_"))
            c1, c2, c3 = st.columns(3)
            c1.text_input(tr("table"), key=PREFIX + "table", max_chars=LIMITS.name_chars)
            c2.text_input(tr("round"), key=PREFIX + "round", max_chars=LIMITS.name_chars)
            c3.text_input(tr("name"), key=PREFIX + "match_name", max_chars=LIMITS.match_name_chars)
            st.form_submit_button(tr("start"), type="primary", on_click=_on_start)
        import_form()


def pick_match() -> int | None:
    summaries = store().list_matches()
    if not summaries:
        return None
    ids = [s.id for s in summaries]
    by_uid = {s.uid: s.id for s in summaries}
    # no deal count in the labels: the browser keeps showing the chosen option's label from when it was chosen
    labels = {s.id: f"#{s.id} " + (s.match.name or " · ".join(s.match.players)
                                   + (f" · {tr('table')} {s.match.table}" if s.match.table else "")) for s in summaries}
    state = st.session_state
    linked = by_uid.get(st.query_params.get(MATCH_PARAM, ""))
    if linked is not None and state.get(PREFIX + "linked") != linked:
        state[MATCH_ID] = linked  # a table's link (or a reload) opens its own match, once: the player may pick another
        state[PREFIX + "linked"] = linked
    if state.get(MATCH_ID) not in ids:  # a widget key: gone once another page ran
        current = state.get(CURRENT)
        state[MATCH_ID] = current if current in ids else ids[-1]
    match_id = st.selectbox(tr("choose"), ids, key=MATCH_ID, format_func=lambda i: labels[i])
    state[CURRENT] = match_id  # the match "Add to match" on the photo and manual pages adds to
    uid = next(s.uid for s in summaries if s.id == match_id)
    if uid and st.query_params.get(MATCH_PARAM) != uid:
        st.query_params[MATCH_PARAM] = uid  # a reload opens this match again
        state[PREFIX + "linked"] = match_id
    return match_id


def changed_elsewhere(match_id: int, ledger: Ledger) -> None:
    """Another phone wrote since this session last showed the match: say what, until the player has seen it."""
    seen = seen_revision(match_id, ledger.revision)
    if ledger.revision <= seen:
        return
    try:
        changes = store().changes_since(match_id, seen)
    except LedgerError:
        return
    st.warning(plain(tr("changed_elsewhere", changes="; ".join(change_words(c) for c in changes[-3:]))))
    st.button(tr("seen_it"), key=PREFIX + "seen_it", on_click=_on_seen_it, args=(match_id, ledger.revision))


def current_deal(match_id: int, ledger: Ledger) -> None:
    n = ledger.next_deal
    match = ledger.match
    if ledger.finished:
        closure = ledger.closed
        assert closure is not None
        st.success(tr("finished_as", why=tr(f"why_{closure.reason.value}"), at=clock(closure.at)))
        _confirmable("reopen", match_id, 0, tr("reopen"), tr("reopen_ask"), tr("reopen_yes"))
        return
    if n is None:  # reopened with all 16 deals: a deal may be corrected below, then the match ended again
        st.info(tr("complete_reopened"))
        return
    wind = prevalent_wind(n)
    st.subheader(plain(tr("deal_header", n=n, round=wind_name(wind) if lang() == "en" else WIND_ZH[wind], dealer=match.dealer(n))))
    winds = match.seat_winds(n)
    st.dataframe(
        [{tr("player"): p, tr("seat_wind"): wind_name(winds[i]), tr("total"): ledger.totals[i]}
         for i, p in enumerate(match.players)],
        hide_index=True, width="stretch",
    )
    if ledger.pending:
        st.caption(plain(tr("pen_pending", list="; ".join(penalty_words(p) for p in ledger.pending))))


def _confirmable(what: str, match_id: int, number: int, label: str, question: str, yes: str) -> None:
    """A button that asks first: `label`, then `question` with `yes` and "No, keep it". The question asked
    is the one the page showed when the button was clicked (the deal it named), even if another phone
    has written since: the confirmed write then carries that older revision and is refused, saying why."""
    asked = st.session_state.get(ASK)
    if asked and asked[:2] == (what, match_id):
        _, _, number, question, yes = asked
        st.warning(plain(question))
        c1, c2 = st.columns(2)
        c1.button(yes, key=f"{PREFIX}{what}_yes", type="primary", width="stretch", on_click=_on_confirm,
                  args=(what, match_id, number))
        c2.button(tr("keep"), key=f"{PREFIX}{what}_no", width="stretch", on_click=_on_cancel)
    else:
        st.button(label, key=f"{PREFIX}{what}", on_click=_on_ask, args=(what, match_id, number, question, yes))


def record_panel(match_id: int, ledger: Ledger) -> None:
    match = ledger.match
    recorded = len(ledger.rows)
    choices = list(range(1, min(recorded + 1, DEALS_PER_MATCH) + 1))
    default = ledger.next_deal or recorded
    key = PREFIX + "deal_no"
    if st.session_state.get(key) not in choices or st.session_state.get(PREFIX + "seen_deals") != recorded:
        st.session_state[key] = default  # follow the match when a deal was added here or elsewhere
    st.session_state[PREFIX + "seen_deals"] = recorded
    pending = st.session_state.pop(PENDING, None)
    if pending and pending["match"] == match_id and pending["number"] in choices:
        for name in ("winner", "won_by", "discarder", "source"):
            st.session_state[PREFIX + name] = pending[name]
        st.session_state[key] = pending["number"]
    number = st.selectbox(tr("deal_no"), choices, key=key)
    replace = number <= recorded
    st.subheader(tr("record", n=number))
    if replace:
        st.info(tr("replacing", n=number))
        st.button(tr("remove", n=number), key=PREFIX + "remove", on_click=_on_remove, args=(match_id, number))
    c1, c2 = st.columns(2)
    c1.button(tr("draw"), key=PREFIX + "draw", width="stretch", on_click=_on_record,
              args=(match_id, draw(number), replace))
    c2.button(tr("void"), key=PREFIX + "void", width="stretch", on_click=_on_record,
              args=(match_id, void(number), replace))

    winner = st.selectbox(tr("winner"), match.players, key=PREFIX + "winner")
    st.session_state.setdefault(PREFIX + "won_by", "discard")
    won_by = st.segmented_control(tr("won_by"), ["discard", "self_drawn"], required=True, key=PREFIX + "won_by",
                                  format_func=labeler())
    discarder = None
    if won_by == "discard":
        others = [p for p in match.players if p != winner]
        if st.session_state.get(PREFIX + "discarder") not in others:
            st.session_state[PREFIX + "discarder"] = others[0]
        discarder = st.selectbox(tr("discarder"), others, key=PREFIX + "discarder")
    c1, c2 = st.columns(2)
    for column, source, prefix in ((c1, "manual", MANUAL_PREFIX), (c2, "photo", PHOTO_PREFIX)):
        if column.button(tr(f"to_{source}"), key=f"{PREFIX}to_{source}", width="stretch"):
            carry_to_page(prefix, ledger, number, winner, discarder)
            st.session_state[PENDING] = {"match": match_id, "number": number, "winner": winner, "won_by": won_by,
                                         "discarder": discarder, "source": source}
            st.switch_page(f"appui/pages/{source}.py")
    st.session_state.setdefault(SOURCE, "notation")
    source = st.segmented_control(tr("hand_from"), ["notation", "manual", "photo"], required=True, key=SOURCE,
                                  format_func=labeler("src_")) or "notation"
    hand: Hand | None = None
    if source == "notation":
        text = st.text_input(tr("notation"), key=NOTATION, placeholder="[EEE] [123p] 456p 789p 1s +1s")
        if text.strip():
            try:
                hand = parse_hand(text)
            except HandError as exc:
                st.warning(plain(str(exc)))
    else:
        hand = hand_from_pages(source)
        if hand is None:
            st.caption(tr("no_hand_there"))
    deal = None
    if hand is not None:
        try:
            deal = win(match, number, winner, discarder=discarder, hand=hand)
        except LedgerError as exc:
            st.warning(plain(str(exc)))
        else:
            seat = wind_name(match.seat_of(winner, number))
            st.caption(plain(tr("scores", hand=format_hand(Hand.from_json(deal.hand)), fan=deal.total, winner=winner, seat=seat)))
    st.button(tr("add_win"), key=PREFIX + "add_win", type="primary", disabled=deal is None,
              width="stretch", on_click=_on_add_win, args=(match_id, deal, replace))
    _penalty_forms(match_id, ledger, number, replace)
    undone = st.session_state.get(UNDONE)
    if undone and undone[0] == match_id and undone[2] == ledger.revision and undone[1].number == ledger.next_deal:
        st.button(plain(tr("redo", n=undone[1].number, what=deal_words(undone[1]))), key=PREFIX + "redo",
                  on_click=_on_redo, args=(match_id, undone[1]))
    if recorded:
        last = ledger.rows[-1].deal
        _confirmable("undo", match_id, last.number, plain(tr("undo_named", n=last.number, what=deal_words(last))),
                     tr("undo_ask", n=last.number, what=deal_words(last)), tr("undo_yes", n=last.number))
    if ledger.end_reason is EndReason.ALL_DEALS:
        _confirmable("close", match_id, recorded, tr("close_complete"), tr("close_complete_ask"), tr("close_yes"))
    else:
        _confirmable("close", match_id, recorded, tr("close"), tr("close_ask", n=recorded), tr("close_yes"))


def _penalty_forms(match_id: int, ledger: Ledger, number: int, replace: bool) -> None:
    match = ledger.match
    with st.expander(tr("fw_title")):
        st.selectbox(tr("offender"), match.players, key=PREFIX + "offender")
        st.number_input(tr("fw_points"), min_value=1, max_value=LIMITS.max_penalty, step=1,
                        value=max(1, match.false_win_penalty), key=PREFIX + "fw_points")
        st.session_state.setdefault(PREFIX + "fw_then", "goes_on")
        st.segmented_control(tr("fw_then"), ["goes_on", "void"], required=True, key=PREFIX + "fw_then",
                             format_func=labeler("fw_"))
        st.button(tr("fw_record"), key=PREFIX + "false_win", width="stretch", on_click=_on_false_win, args=(match_id, number, replace))
    with st.expander(tr("pen_title")):
        st.selectbox(tr("pen_player"), match.players, key=PREFIX + "pen_player")
        st.number_input(tr("pen_points"), min_value=1, max_value=LIMITS.max_penalty, step=1, value=5, key=PREFIX + "pen_points")
        st.text_input(tr("pen_reason"), key=PREFIX + "pen_reason", max_chars=LIMITS.reason_chars)
        st.checkbox(tr("pen_to_others"), key=PREFIX + "pen_to_others")
        st.button(tr("pen_record"), key=PREFIX + "penalty", width="stretch", on_click=_on_penalty, args=(match_id, number))
        for entry in ledger.penalties:
            st.button(plain(tr("pen_undo", what=penalty_words(entry))), key=f"{PREFIX}take_back_{entry.id}",
                      on_click=_on_take_back, args=(match_id, entry.id))


def sheet(ledger: Ledger, match_id: int) -> None:
    if not ledger.rows:
        return
    st.subheader(tr("deals"))
    # on a phone the sheet scrolls sideways under the deal number and its result, which stay in view
    pinned = {tr(name): st.column_config.Column(pinned=True, width="small" if name == "deal_no" else "medium")
              for name in ("deal_no", "result")}
    st.dataframe(deal_table(ledger), hide_index=True, width="stretch", column_config=pinned)
    st.subheader(tr("chart"))
    st.line_chart(chart_data(ledger), x_label=tr("deal_no"), y_label=tr("points"))
    st.subheader(tr("final") if ledger.finished else tr("standings"))
    if not ledger.finished:
        st.caption(tr("provisional"))
    st.dataframe(standings_table(ledger), hide_index=True, width="stretch")
    downloads(ledger, match_id)


def tournament_expander(ledgers: dict[int, Ledger]) -> None:
    if len(ledgers) < 2:
        return
    matches, players = tournament_tables(ledgers)
    with st.expander(tr("tournament")):
        st.dataframe(matches, hide_index=True, width="stretch")
        st.dataframe(players, hide_index=True, width="stretch")


def table_view() -> None:
    """One match at its table: pick it (or start or import one), its deal, recording, sheet."""
    match_id = pick_match()
    new_match_form(open_it=match_id is None)
    show_flash()  # what the last click did, once
    if match_id is None:
        st.info(tr("no_match"))
        return
    try:
        ledgers = store().ledgers()  # read once a run: this match's sheet and the tournament view
        if match_id not in ledgers:
            raise MatchNotFound(match_id)
    except LedgerError as exc:
        st.error(plain(str(exc)))
        return
    ledger = ledgers[match_id]
    changed_elsewhere(match_id, ledger)
    current_deal(match_id, ledger)
    if not ledger.finished:
        record_panel(match_id, ledger)
    sheet(ledger, match_id)
    tournament_expander(ledgers)
