"""The Match page: keep a whole match at the table, deal by deal (the logic is in `ledger`).

Every run reads the match from the database, so two browser sessions on one match see the same
ledger; a deal another session recorded first is refused with the reason, nothing is lost.
"Score in the manual scorer / a photo" puts the deal's winds, the winner's seat and the
discarder into that page's win-context form; back here, one click adds the hand scored there,
or "Add to match" on that page does it (`add_to_match_panel`: the same hand and deal building).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ledger.exchange import ledger_from_json, ledger_to_csv, ledger_to_json
from ledger.match import Deal, Ledger, LedgerError, Match, UnderMinimum, draw, false_win, win
from ledger.rules import DEALS_PER_MATCH, SeatRule, prevalent_wind
from ledger.store import LedgerStore, MatchNotFound, default_url
from ledger.tournament import tournament
from scoring.hand import Hand, HandError, WinContext
from scoring.notation import format_hand, parse_hand

from .i18n import lang, pick, translator
from .widgets import WIND_ZH

PREFIX = "match."
MATCH_ID = PREFIX + "id"
MESSAGE = PREFIX + "message"
NOTATION = PREFIX + "notation"
SOURCE = PREFIX + "source"
PENDING = PREFIX + "pending"  # the deal sent to another page for scoring (widget state does not survive a page switch)
CURRENT = PREFIX + "current"  # the match this session's Match page shows (not a widget key: kept on other pages)
ADDED = PREFIX + "added"  # the last win "Add to match" recorded: a second click of the same hand adds nothing
# the other pages' session keys (appui.manual / appui.photo; read, not imported: the photo page loads the models)
MANUAL_PREFIX, PHOTO_PREFIX = "manual.", "photo."
MANUAL_DRAFT, PHOTO_READ = "manual.draft", "photo.photo"
PAGE_PREFIXES = {"manual": MANUAL_PREFIX, "photo": PHOTO_PREFIX}
MATCH_PAGE = "appui/pages/match.py"

_LABELS: dict[str, tuple[str, str]] = {
    "title": ("Match", "对局记分"),
    "intro": ("A whole match at one table: 16 deals, the dealer never stays, seats change between rounds.",
              "一局比赛：16 盘，庄家不连庄，每圈结束后轮转换位。"),
    "choose": ("Match", "对局"),
    "no_match": ("No match yet: start one below.", "还没有对局：在下面开始一局。"),
    "new": ("Start a new match", "开始新对局"),
    "place": ("Player starting {wind}", "起始{wind}位选手"),
    "seat_rule": ("Seat changes between rounds", "圈间换位"),
    "rule_official": ("MCR competition rule", "竞赛规程轮转"),
    "rule_none": ("None", "不换位"),
    "table": ("Table", "桌号"),
    "round": ("Tournament round", "轮次"),
    "name": ("Match name", "对局名称"),
    "start": ("Start the match", "开始对局"),
    "import": ("Import a match (JSON)", "导入对局 (JSON)"),
    "imported": ("Imported as match {id}.", "已导入为对局 {id}。"),
    "deal_header": ("Deal {n} of 16 · {round} round · dealer {dealer}", "第 {n}/16 盘 · {round}风圈 · 庄家 {dealer}"),
    "finished": ("The match is over: 16 deals.", "本局结束：16 盘已完成。"),
    "player": ("Player", "选手"),
    "seat_wind": ("Seat wind", "门风"),
    "seats": ("Seats", "门风"),
    "total": ("Total", "累计"),
    "record": ("Record deal {n}", "记录第 {n} 盘"),
    "deal_no": ("Deal", "盘"),
    "replacing": ("Deal {n} is recorded: this replaces it and recomputes everything after it.",
                  "第 {n} 盘已记录：将替换并重算其后各盘。"),
    "draw": ("Draw (荒牌)", "荒牌"),
    "false_win": ("False win (诈和)", "诈和"),
    "offender": ("Who declared it", "诈和者"),
    "winner": ("Winner", "和牌者"),
    "won_by": ("Won by", "和牌方式"),
    "discard": ("Discard", "点和"),
    "self_drawn": ("Self-drawn", "自摸"),
    "discarder": ("Discarder", "点炮者"),
    "hand_from": ("The hand", "和牌"),
    "src_notation": ("Type it", "输入记号"),
    "src_manual": ("From the manual scorer", "来自手动算番"),
    "src_photo": ("From the photo", "来自拍照算番"),
    "notation": ("Hand notation (winds and self-drawn come from the ledger)", "牌型记号（风位与自摸由记分表决定）"),
    "no_hand_there": ("No complete hand on that page yet.", "该页还没有完整的和牌。"),
    "scores": ("{hand}: {fan} fan · {winner} {seat}", "{hand}：{fan} 番 · {winner} {seat}"),
    "add_win": ("Add the win", "记录和牌"),
    "to_manual": ("Score in the manual scorer", "去手动算番"),
    "to_photo": ("Score a photo", "去拍照算番"),
    "undo": ("Undo the last deal", "撤销最后一盘"),
    "remove": ("Take deal {n} out (recorded by mistake: the later deals move up)", "删除第 {n} 盘（误记：其后各盘前移）"),
    "deals": ("Deals", "各盘记录"),
    "chart": ("Running totals", "累计得分走势"),
    "standings": ("Standings so far", "当前排名"),
    "final": ("Final standings", "最终排名"),
    "rank": ("Rank", "名次"),
    "points": ("Points", "得分"),
    "table_points": ("Table points", "标准分"),
    "csv": ("Download CSV", "下载 CSV"),
    "json": ("Download JSON", "下载 JSON"),
    "win": ("win", "和牌"),
    "result_draw": ("draw", "荒牌"),
    "result_false_win": ("false win", "诈和"),
    "result": ("Result", "结果"),
    "fan": ("Fan", "番"),
    "prevalent": ("Round", "圈风"),
    "dealer": ("Dealer", "庄家"),
    "tournament": ("Tournament: every match in this database", "赛事：本数据库中的所有对局"),
    "matches_played": ("Matches", "局数"),
    "db_error": ("The match database cannot be opened: {msg}", "无法打开对局数据库：{msg}"),
    # "Add to match" on the photo and manual pages
    "add_to_match": ("Add to match", "记入对局"),
    "will_add": ("Match #{id}, deal {n}: {winner} ({seat}) wins {how} · {fan} fan",
                 "对局 #{id} 第 {n} 盘：{winner}（{seat}）{how} · {fan} 番"),
    "how_discard": ("on {who}'s discard", "和 {who} 的点炮"),
    "how_self_drawn": ("self-drawn", "自摸"),
    "added": ("Added to match #{id} as deal {n}: {winner} {fan} fan · {points}",
              "已记入对局 #{id} 第 {n} 盘：{winner} {fan} 番 · {points}"),
    "no_open_match": ("No match is open: start or choose one on the Match page, then add the hand.",
                      "没有打开的对局：请先在“对局记分”页开始或选择一局，再记入这手牌。"),
    "open_match_page": ("Open the Match page", "打开对局记分页"),
    "match_over": ("Match #{id} is over: all 16 deals are recorded.", "对局 #{id} 已结束：16 盘均已记录。"),
    "ask_won_by_first": ("Say how it was won (discard or self-drawn) first.", "请先选择和牌方式（点和或自摸）。"),
    "ask_discarder_first": ("Say who discarded first.", "请先选择放铳者。"),
    "under_minimum": ("Not added: {fan} fan ({without} without the flowers) is under the 8-fan minimum, so this "
                      "is not a win. If it was declared, record a false win on the Match page.",
                      "未记入：{fan} 番（不计花牌 {without} 番）不足 8 番起和，不是和牌。若已宣布和牌，请在对局记分页记为诈和。"),
    "not_added": ("Not added: {msg}", "未记入：{msg}"),
    "already_added": ("Already in match #{id} as deal {n}: a second click adds nothing.",
                      "已记入对局 #{id} 第 {n} 盘：再次点击不会重复记录。"),
}


def tr(key: str, language: str | None = None, **values: Any) -> str:
    return pick(_LABELS, key, language, **values)


def labeler(prefix: str = "") -> Callable[[str], str]:
    """A widget format_func: `tr(prefix + option)` in the language of this run (bound now, used later)."""
    return translator(prefix, _LABELS)


def wind_name(w: str) -> str:
    return f"{w} {WIND_ZH[w]}"


@st.cache_resource(show_spinner=False)
def _store(url: str) -> LedgerStore:
    return LedgerStore(url)


def store() -> LedgerStore:
    """The process's store for the current database URL (one engine shared by every session)."""
    return _store(default_url())


# --- pure helpers (tests reach them without a browser) ---------------------------


def deal_table(ledger: Ledger) -> list[dict[str, Any]]:
    """One row per deal: number, round wind, dealer, result, fan, each player's points and running total."""
    players = ledger.match.players
    rows = []
    for row in ledger.rows:
        d = row.deal
        result = {"win": tr("win"), "draw": tr("result_draw"), "false_win": tr("result_false_win")}[d.result.value]
        if d.winner:
            result += f" {d.winner}" + (f" ← {d.discarder}" if d.discarder else f" ({tr('self_drawn')})")
        if d.offender:
            result += f" {d.offender}"
        line: dict[str, Any] = {tr("deal_no"): d.number, tr("prevalent"): row.prevalent_wind, tr("dealer"): row.dealer,
                                tr("result"): result, tr("fan"): d.total}
        line[tr("seats")] = " ".join(row.seat_winds)  # each player's seat wind, in the player columns' order
        for i, p in enumerate(players):
            line[p] = row.points[i]
        for i, p in enumerate(players):
            line[f"{p} Σ"] = row.totals[i]
        rows.append(line)
    return rows


def chart_data(ledger: Ledger) -> dict[str, list[int]]:
    """Running totals per player, from 0 before the first deal (a column per player for st.line_chart)."""
    players = ledger.match.players
    return {p: [0] + [row.totals[i] for row in ledger.rows] for i, p in enumerate(players)}


def standings_table(ledger: Ledger) -> list[dict[str, Any]]:
    return [{tr("rank"): s.rank, tr("player"): s.player, tr("points"): s.points, tr("table_points"): s.table_points}
            for s in ledger.standings()]


def context_from_page(prefix: str, flowers: int) -> WinContext:
    """The flags the other page's form holds (last tile, ...); winds and self-drawn are the ledger's."""
    state = st.session_state

    def ticked(name: str) -> bool:
        return bool(state.get(prefix + name))

    return WinContext(flowers=flowers, last_tile=ticked("last_tile"), last_of_wall=ticked("last_of_wall"),
                      kong_replacement=ticked("kong_replacement"), robbing_kong=ticked("robbing_kong"))


def hand_from_pages(source: str) -> Hand | None:
    """The hand built on the manual scorer or the photo page in this session, None when there is none."""
    state = st.session_state
    try:
        if source == "manual" and state.get(MANUAL_DRAFT) is not None:
            flowers = int(state.get(MANUAL_PREFIX + "flowers") or 0)
            return state[MANUAL_DRAFT].to_hand(context_from_page(MANUAL_PREFIX, flowers))
        if source == "photo" and state.get(PHOTO_READ) is not None:
            reading = state[PHOTO_READ].reading
            return reading.to_hand(context_from_page(PHOTO_PREFIX, int(reading.flower_count)))
    except (HandError, AttributeError, TypeError, ValueError):
        return None
    return None


def carry_to_page(prefix: str, ledger: Ledger, number: int, winner: str, discarder: str | None) -> None:
    """Put the deal's winds, the winner's seat and the discarder's seat into another page's context form."""
    match = ledger.match
    state = st.session_state
    state[prefix + "seat"] = match.seat_of(winner, number)
    state[prefix + "prevalent"] = prevalent_wind(number)
    state[prefix + "won_by"] = "discard" if discarder else "self_drawn"
    if discarder:
        state[prefix + "discarder"] = match.seat_of(discarder, number)
    # the photo page remembers the winds for the session and keeps a context another page set since
    # it last looked (appui.photo._start_context): tell it both
    state[prefix + "winds"] = {"seat": state[prefix + "seat"], "prevalent": state[prefix + "prevalent"]}
    state.setdefault(prefix + "context_seen", {})


# --- "Add to match" on the photo and manual pages ------------------------------------------


class Refused(Exception):
    """Why a hand scored on another page cannot be added now (a message in the page's language)."""

    def __init__(self, text: str, *, to_match_page: bool = False):
        super().__init__(text)
        self.text, self.to_match_page = text, to_match_page


@dataclass(frozen=True)
class PageWin:
    """A win scored on the photo or manual page, built into the current match's next deal."""

    match_id: int
    deal: Deal
    seat: str  # the winner's seat wind in that deal
    guard: str  # the scored hand with its page context, in this match: the same one twice adds one deal


def page_fingerprint(source: str) -> str | None:
    """The hand scored on `source`'s page with the context picked there (None when there is no hand)."""
    hand = hand_from_pages(source)
    return None if hand is None else _fingerprint(source, hand)


def _fingerprint(source: str, hand: Hand) -> str:
    prefix, state = PAGE_PREFIXES[source], st.session_state
    picked = [state.get(prefix + name) for name in ("seat", "won_by", "discarder")]
    return hashlib.sha1(json.dumps([source, hand.to_json(), picked], sort_keys=True).encode()).hexdigest()


def page_win(source: str) -> PageWin:
    """The hand scored on the photo or manual page as the next deal of the match open in this session:
    the winner is the player at the seat picked there, the discarder the one at the discarding seat;
    the ledger scores it with the deal's winds. Refused (with the reason) when it cannot be added."""
    state = st.session_state
    match_id = state.get(CURRENT)
    if match_id is None:
        raise Refused(tr("no_open_match"), to_match_page=True)
    try:
        ledger = store().ledger(match_id)
    except MatchNotFound:
        raise Refused(tr("no_open_match"), to_match_page=True) from None
    except LedgerError as exc:
        raise Refused(tr("db_error", msg=str(exc))) from None
    hand = hand_from_pages(source)
    if hand is None:
        raise Refused(tr("no_hand_there"))
    guard = f"{match_id}:{_fingerprint(source, hand)}"
    added = state.get(ADDED)
    if added and added["guard"] == guard and added["number"] <= len(ledger.rows):
        if ledger.rows[added["number"] - 1].deal.hand == added["hand"]:  # still there (not undone)
            raise Refused(tr("already_added", id=match_id, n=added["number"]))
    number = ledger.next_deal
    if number is None:
        raise Refused(tr("match_over", id=match_id), to_match_page=True)
    prefix, match = PAGE_PREFIXES[source], ledger.match
    won_by, seat, discarding = (state.get(prefix + name) for name in ("won_by", "seat", "discarder"))
    if won_by not in ("discard", "self_drawn") or seat not in WIND_ZH:
        raise Refused(tr("ask_won_by_first"))
    discarder = None
    if won_by == "discard":
        if discarding not in WIND_ZH or discarding == seat:
            raise Refused(tr("ask_discarder_first"))
        discarder = match.player_at(discarding, number)
    try:
        deal = win(match, number, match.player_at(seat, number), discarder=discarder, hand=hand)
    except UnderMinimum as exc:
        raise Refused(tr("under_minimum", fan=exc.total, without=exc.total - exc.flowers)) from None
    except LedgerError as exc:
        raise Refused(tr("not_added", msg=str(exc))) from None
    return PageWin(match_id, deal, seat, guard)


def _page_message_key(source: str) -> str:
    return f"{PREFIX}message.{source}"


def _on_add_to_match(source: str) -> None:
    """The click (read afresh from the database and the page: a double click's second run sees the first deal)."""
    state = st.session_state
    shown_with = (state.get(CURRENT), page_fingerprint(source))
    try:
        planned = page_win(source)
        ledger = store().add_deal(planned.match_id, planned.deal)
    except Refused as refusal:
        state[_page_message_key(source)] = (shown_with, "error", refusal.text, refusal.to_match_page)
        return
    except LedgerError as exc:  # another session recorded this deal number first, the database went away...
        state[_page_message_key(source)] = (shown_with, "error", tr("not_added", msg=str(exc)), False)
        return
    deal = planned.deal
    row = ledger.rows[deal.number - 1]
    points = " · ".join(f"{p} {row.points[i]:+d}" for i, p in enumerate(ledger.match.players))
    state[ADDED] = {"guard": planned.guard, "number": deal.number, "hand": deal.hand}
    pending = state.get(PENDING)
    if pending and pending.get("match") == planned.match_id:
        state.pop(PENDING)  # that deal is recorded: the Match page must not offer it again
    text = tr("added", id=planned.match_id, n=deal.number, winner=deal.winner, fan=deal.total, points=points)
    state[_page_message_key(source)] = (shown_with, "success", text, False)


def add_to_match_panel(source: str) -> None:
    """Under a hand scored on the photo ("photo") or manual ("manual") page: what "Add to match" would
    record in the match open in this session, the button, and what the last click did."""
    state = st.session_state
    try:
        preview: PageWin | None = page_win(source)
    except Refused:
        preview = None  # the click says why
    if preview is not None:
        deal = preview.deal
        how = tr("how_discard", who=deal.discarder) if deal.discarder else tr("how_self_drawn")
        st.caption(tr("will_add", id=preview.match_id, n=deal.number, winner=deal.winner,
                      seat=wind_name(preview.seat), how=how, fan=deal.total))
    st.button(tr("add_to_match"), key=PAGE_PREFIXES[source] + "add_to_match", icon=":material/scoreboard:",
              on_click=_on_add_to_match, args=(source,))
    message = state.get(_page_message_key(source))
    if message is None or message[0] != (state.get(CURRENT), page_fingerprint(source)):
        return  # none yet, or about another hand or match than the one shown now
    _, kind, text, to_match_page = message
    (st.success if kind == "success" else st.error)(text)
    if to_match_page:
        st.page_link(MATCH_PAGE, label=tr("open_match_page"), icon=":material/scoreboard:")


# --- the page -------------------------------------------------------------------


def _flash(text: str | None) -> None:
    st.session_state[MESSAGE] = text


def _record(match_id: int, deal: Deal, replace: bool) -> None:
    try:
        if replace:
            store().replace_deal(match_id, deal)
        else:
            store().add_deal(match_id, deal)
    except LedgerError as exc:
        _flash(str(exc))
    else:
        _flash(None)


def _on_start() -> None:
    state = st.session_state
    try:
        match = Match(
            tuple(state.get(f"{PREFIX}name_{w}", "") for w in "ESWN"),
            SeatRule(state.get(PREFIX + "rule", SeatRule.OFFICIAL.value)),
            name=state.get(PREFIX + "match_name", ""), table=state.get(PREFIX + "table", ""),
            round_label=state.get(PREFIX + "round", ""),
        ).validate()
        state[MATCH_ID] = store().create_match(match)
        _flash(None)
    except LedgerError as exc:
        _flash(str(exc))


def _on_import() -> None:
    upload = st.session_state.get(PREFIX + "import")
    if upload is None:
        return
    try:
        st.session_state[MATCH_ID] = store().import_ledger(ledger_from_json(upload.getvalue()))
        _flash(None)
    except LedgerError as exc:
        _flash(str(exc))


def _new_match_form(open_it: bool) -> None:
    with st.expander(tr("new"), expanded=open_it):
        with st.form(PREFIX + "new_form"):
            for w in "ESWN":
                st.text_input(tr("place", wind=wind_name(w)), key=f"{PREFIX}name_{w}")
            st.radio(tr("seat_rule"), [r.value for r in SeatRule], horizontal=True, key=PREFIX + "rule",
                     format_func=labeler("rule_"))
            c1, c2, c3 = st.columns(3)
            c1.text_input(tr("table"), key=PREFIX + "table")
            c2.text_input(tr("round"), key=PREFIX + "round")
            c3.text_input(tr("name"), key=PREFIX + "match_name")
            st.form_submit_button(tr("start"), type="primary", on_click=_on_start)
        if st.file_uploader(tr("import"), type=["json"], key=PREFIX + "import") is not None:
            st.button(tr("import"), key=PREFIX + "import_go", on_click=_on_import)


def _pick_match() -> int | None:
    summaries = store().list_matches()
    if not summaries:
        return None
    ids = [s.id for s in summaries]
    labels = {s.id: f"#{s.id} " + (s.match.name or " · ".join(s.match.players))
              + (f" · {tr('table')} {s.match.table}" if s.match.table else "") + f" · {s.deals}/16" for s in summaries}
    if st.session_state.get(MATCH_ID) not in ids:  # a widget key: gone once another page ran
        current = st.session_state.get(CURRENT)
        st.session_state[MATCH_ID] = current if current in ids else ids[-1]
    match_id = st.selectbox(tr("choose"), ids, key=MATCH_ID, format_func=lambda i: labels[i])
    st.session_state[CURRENT] = match_id  # the match "Add to match" on the photo and manual pages adds to
    return match_id


def _current_deal(ledger: Ledger) -> None:
    n = ledger.next_deal
    if n is None:
        st.success(tr("finished"))
        return
    match = ledger.match
    wind = prevalent_wind(n)
    st.subheader(tr("deal_header", n=n, round=wind_name(wind) if lang() == "en" else WIND_ZH[wind], dealer=match.dealer(n)))
    winds = match.seat_winds(n)
    st.dataframe(
        [{tr("player"): p, tr("seat_wind"): wind_name(winds[i]), tr("total"): ledger.totals[i]}
         for i, p in enumerate(match.players)],
        hide_index=True, width="stretch",
    )


def _record_panel(match_id: int, ledger: Ledger) -> None:
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
    c1.button(tr("draw"), key=PREFIX + "draw", width="stretch", on_click=_record,
              args=(match_id, draw(number), replace))
    offender = c2.selectbox(tr("offender"), match.players, key=PREFIX + "offender")
    c2.button(tr("false_win"), key=PREFIX + "false_win", width="stretch", on_click=_record,
              args=(match_id, false_win(match, number, offender), replace))

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
                st.warning(str(exc))
    else:
        hand = hand_from_pages(source)
        if hand is None:
            st.caption(tr("no_hand_there"))
    deal = None
    if hand is not None:
        try:
            deal = win(match, number, winner, discarder=discarder, hand=hand)
        except LedgerError as exc:
            st.warning(str(exc))
        else:
            seat = wind_name(match.seat_of(winner, number))
            st.caption(tr("scores", hand=format_hand(Hand.from_json(deal.hand)), fan=deal.total, winner=winner, seat=seat))
    st.button(tr("add_win"), key=PREFIX + "add_win", type="primary", disabled=deal is None,
              width="stretch", on_click=_on_add_win, args=(match_id, deal, replace))
    if recorded:
        st.button(tr("undo"), key=PREFIX + "undo", on_click=_on_undo, args=(match_id,))


def _on_add_win(match_id: int, deal: Deal | None, replace: bool) -> None:
    if deal is None:
        return
    _record(match_id, deal, replace)
    if st.session_state.get(MESSAGE) is None:
        st.session_state[NOTATION] = ""
        st.session_state[SOURCE] = "notation"  # the other page's hand is used: never offer it for the next deal


def _on_remove(match_id: int, number: int) -> None:
    try:
        store().remove_deal(match_id, number)
        _flash(None)
    except LedgerError as exc:
        _flash(str(exc))


def _on_undo(match_id: int) -> None:
    try:
        store().undo_last(match_id)
        _flash(None)
    except LedgerError as exc:
        _flash(str(exc))


def _sheet(ledger: Ledger, match_id: int) -> None:
    if not ledger.rows:
        return
    st.subheader(tr("deals"))
    st.dataframe(deal_table(ledger), hide_index=True, width="stretch")
    st.subheader(tr("chart"))
    st.line_chart(chart_data(ledger), x_label=tr("deal_no"), y_label=tr("points"))
    st.subheader(tr("final") if ledger.finished else tr("standings"))
    st.dataframe(standings_table(ledger), hide_index=True, width="stretch")
    c1, c2 = st.columns(2)
    c1.download_button(tr("csv"), ledger_to_csv(ledger), file_name=f"match-{match_id}.csv", mime="text/csv",
                       key=PREFIX + "csv", width="stretch")
    c2.download_button(tr("json"), json.dumps(ledger_to_json(ledger), ensure_ascii=False, indent=1),
                       file_name=f"match-{match_id}.json", mime="application/json", key=PREFIX + "json",
                       width="stretch")


def _tournament(ledgers: dict[int, Ledger]) -> None:
    if len(ledgers) < 2:
        return
    view = tournament(ledgers)
    with st.expander(tr("tournament")):
        st.dataframe(
            [{tr("round"): m.round_label, tr("table"): m.table, "#": m.match_id, tr("deal_no"): m.deals,
              tr("table_points"): " · ".join(f"{s.player} {s.table_points:g}" for s in m.standings)}
             for m in view.matches],
            hide_index=True, width="stretch",
        )
        st.dataframe(
            [{tr("player"): p.player, tr("matches_played"): p.matches, tr("table_points"): p.table_points,
              tr("points"): p.points} for p in view.players],
            hide_index=True, width="stretch",
        )


def render() -> None:
    st.title(tr("title"))
    st.caption(tr("intro"))
    try:
        store()
    except LedgerError as exc:
        st.error(tr("db_error", msg=str(exc)))
        return
    match_id = _pick_match()
    _new_match_form(open_it=match_id is None)
    if st.session_state.get(MESSAGE):
        st.error(st.session_state[MESSAGE])
    if match_id is None:
        st.info(tr("no_match"))
        return
    try:
        ledgers = store().ledgers()  # read once a run: this match's sheet and the tournament view
        if match_id not in ledgers:
            raise MatchNotFound(match_id)
    except LedgerError as exc:
        st.error(str(exc))
        return
    ledger = ledgers[match_id]
    _current_deal(ledger)
    _record_panel(match_id, ledger)
    _sheet(ledger, match_id)
    _tournament(ledgers)


__all__ = ["render", "deal_table", "chart_data", "standings_table", "carry_to_page", "hand_from_pages",
           "add_to_match_panel", "page_win", "Refused", "PageWin"]
