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
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ledger.exchange import ledger_from_json, ledger_to_csv, ledger_to_json
from ledger.match import (
    Change,
    ChangeKind,
    Closure,
    Deal,
    EndReason,
    Ledger,
    LedgerError,
    Match,
    MatchLocked,
    Penalty,
    Result,
    StaleWrite,
    UnderMinimum,
    clock,
    draw,
    false_win,
    penalty,
    void,
    win,
)
from ledger.rules import DEALS_PER_MATCH, LIMITS, SeatRule, prevalent_wind
from ledger.store import LedgerStore, MatchNotFound, RoundUnfinished, TournamentNameTaken, default_url
from ledger.tournament import RegistrationError, table_link, tournament
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
SEEN = PREFIX + "seen"  # {match id: the revision this session last showed}: every write names it
ASK = PREFIX + "ask"  # an undo / close / reopen waiting for its confirmation: (what, match id, deal number, question, yes)
UNDONE = PREFIX + "undone"  # (match id, the deal this session undid, the revision after): it may be redone
MATCH_PARAM = "match"  # ?match=UID: a table's link opens its own match
TOURNAMENT = PREFIX + "tournament"
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
    "already_imported": ("This file was imported before, as match {id}: nothing was added.", "该文件已导入过（对局 {id}）：未重复添加。"),
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
    # every write says what it saw
    "by_other": ("by another phone at {at}", "由另一部手机于 {at}"),
    "ch_recorded": ("deal {n} was recorded {who}: {what}", "第 {n} 盘已{who}记录：{what}"),
    "ch_replaced": ("deal {n} was changed {who} to {what}", "第 {n} 盘已{who}改为：{what}"),
    "ch_undone": ("deal {n} ({what}) was undone {who}", "第 {n} 盘（{what}）已{who}撤销"),
    "ch_removed": ("deal {n} ({what}) was taken out {who}; the later deals moved up", "第 {n} 盘（{what}）已{who}删除，其后各盘前移"),
    "ch_penalty": ("a penalty in deal {n} was recorded {who}: {what}", "第 {n} 盘的罚分已{who}记录：{what}"),
    "ch_penalty_removed": ("a penalty in deal {n} was taken back {who}: {what}", "第 {n} 盘的罚分已{who}撤回：{what}"),
    "ch_closed": ("the match was ended {who} ({why})", "本局已{who}结束（{why}）"),
    "ch_reopened": ("the match was reopened {who}", "本局已{who}重新打开"),
    "ch_created": ("the match was started {who}", "本局已{who}开始"),
    "stale": ("Not recorded: {changes}. The page now shows the match as it is: record what is still missing.",
              "未记录：{changes}。页面已显示最新情况，请补记尚缺的内容。"),
    "changed_elsewhere": ("Changed on another phone: {changes}.", "另一部手机已修改：{changes}。"),
    "seen_it": ("Seen it", "知道了"),
    "why_all_deals": ("all 16 deals", "16 盘打完"),
    "why_time_limit": ("time limit", "到达规定时间"),
    "locked": ("The match is finished ({why}, {at}): reopen it to change it.", "本局已结束（{why}，{at}）：如需修改请先重新打开。"),
    "what_self_drawn": ("{winner}'s self-draw, {fan}", "{winner} 自摸 {fan} 番"),
    "what_discard": ("{winner} on {discarder}'s discard, {fan}", "{winner} 和 {discarder} 点炮 {fan} 番"),
    "what_draw": ("a draw", "荒牌"),
    "what_void": ("declared void", "作废"),
    "what_penalty_others": ("{player}: {reason}, {points} to each other player", "{player}：{reason}，付给其他每家 {points} 分"),
    "what_penalty": ("{player}: {reason}, -{points}", "{player}：{reason}，扣 {points} 分"),
    "false_win_reason": ("false win (诈和)", "诈和"),
    "penalty_reason": ("penalty", "罚分"),
    # undo, close, reopen: named and confirmed
    "undo_named": ("Undo deal {n}: {what}", "撤销第 {n} 盘：{what}"),
    "undo_ask": ("Undo deal {n} ({what})? It is deleted; its penalties stay with the deal being played.",
                 "撤销第 {n} 盘（{what}）？该盘将被删除；其罚分留在正在进行的一盘。"),
    "undo_yes": ("Yes, undo deal {n}", "确定撤销第 {n} 盘"),
    "redo": ("Redo deal {n}: {what}", "恢复第 {n} 盘：{what}"),
    "keep": ("No, keep it", "不，保留"),
    "close": ("End the session now (time limit)", "现在结束本局（到达规定时间）"),
    "close_ask": ("End the match after {n} deals? Its table points then count in the standings; nothing more can be recorded until it is reopened.",
                  "在第 {n} 盘后结束本局？其标准分将计入排名；重新打开前不能再记录。"),
    "close_yes": ("Yes, end the match", "确定结束本局"),
    "reopen": ("Reopen the match to correct it", "重新打开本局以更正"),
    "reopen_ask": ("Reopen this finished match? It leaves the standings until it is ended again.",
                   "重新打开已结束的对局？再次结束前它不计入排名。"),
    "reopen_yes": ("Yes, reopen it", "确定重新打开"),
    "finished_as": ("The match is over ({why}, {at}).", "本局已结束（{why}，{at}）。"),
    "provisional": ("Not finished: these table points are provisional and not in the tournament standings.",
                    "未结束：以下标准分为暂定，不计入赛事排名。"),
    # penalties
    "void": ("Void (作废)", "作废"),
    "fw_title": ("A false win (诈和)", "诈和"),
    "fw_points": ("Penalty to each other player", "付给其他每家"),
    "fw_then": ("Then the deal", "然后本盘"),
    "fw_goes_on": ("goes on", "继续"),
    "fw_void": ("is void", "作废"),
    "fw_record": ("Record the false win", "记录诈和"),
    "pen_title": ("A penalty", "罚分"),
    "pen_player": ("Player", "选手"),
    "pen_points": ("Points", "分数"),
    "pen_reason": ("Reason", "原因"),
    "pen_to_others": ("Paid to each other player (else taken off only)", "付给其他每家（否则只扣分）"),
    "pen_record": ("Record the penalty", "记录罚分"),
    "pen_pending": ("Penalties in this deal: {list}", "本盘罚分：{list}"),
    "pen_undo": ("Take back: {what}", "撤回：{what}"),
    "penalties": ("Penalties", "罚分"),
    # the organiser's view
    "view": ("View", "视图"),
    "view_table": ("Table", "本桌"),
    "view_organiser": ("Organiser", "组织者"),
    "t_new": ("Register a tournament", "登记赛事"),
    "t_name": ("Tournament name", "赛事名称"),
    "t_players": ("Players, one a line (a multiple of 4)", "选手，每行一人（4 的倍数）"),
    "t_seed": ("Seed of the seating draws", "抽签种子"),
    "t_create": ("Register", "登记"),
    "t_choose": ("Tournament", "赛事"),
    "t_none": ("No tournament yet: register the players below.", "还没有赛事：在下面登记选手。"),
    "t_draw": ("Draw round {n}", "第 {n} 轮抽签"),
    "t_round": ("Round {n}", "第 {n} 轮"),
    "t_table": ("Table {n}: {players}", "第 {n} 桌：{players}"),
    "t_status": ("{deals}/16 deals", "{deals}/16 盘"),
    "t_done": ("finished", "已结束"),
    "t_link": ("Open table {n}", "打开第 {n} 桌"),
    "t_url": ("App address for the tables' links", "各桌链接所用的应用地址"),
    "t_standings": ("Standings: table points, then score (finished matches only)", "排名：先标准分，后比赛分（仅计已结束的对局）"),
    "t_playing": ("Playing", "进行中"),
    "t_provisional": ("provisional", "暂定"),
    "t_unfinished": ("Round {n} is still being played at table(s) {tables}: finish or end those matches first.",
                     "第 {n} 轮仍在进行（第 {tables} 桌）：请先打完或结束这些对局。"),
    "t_taken": ("A tournament named {name} is already registered (#{id}): choose it, or give another name.",
                "名为 {name} 的赛事已登记（#{id}）：请选择它，或另起名称。"),
    "t_reg_empty": ("Every player needs a name.", "每位选手都需要名字。"),
    "t_reg_twice": ("Each player is registered once: {names} appear twice.", "每位选手只登记一次：{names} 重复。"),
    "t_reg_tables": ("Tables are of four: register a multiple of 4 players ({count} registered).",
                     "每桌四人：登记人数须为 4 的倍数（已登记 {count} 人）。"),
    "t_reg_too_many": ("At most {most} players in one tournament ({count} registered).", "一个赛事最多 {most} 人（已登记 {count} 人）。"),
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


MARKDOWN_SPECIAL = "\\`*_{}[]()#+-.!<>|~$:"


def plain(text: str) -> str:
    """User text (a name, a reason) shown as itself in Streamlit's Markdown: every markup character escaped."""
    return "".join("\\" + c if c in MARKDOWN_SPECIAL else c for c in str(text))


def deal_words(deal: Deal | None, language: str | None = None) -> str:
    """"Ann's self-draw, 24" / "Ann 自摸 24 番", "a draw", "declared void"."""
    if deal is None:
        return ""
    if deal.result is Result.DRAW:
        return tr("what_draw", language)
    if deal.result is Result.VOID:
        return tr("what_void", language)
    if deal.discarder is None:
        return tr("what_self_drawn", language, winner=deal.winner, fan=deal.total)
    return tr("what_discard", language, winner=deal.winner, discarder=deal.discarder, fan=deal.total)


def penalty_words(entry: Penalty | None, language: str | None = None) -> str:
    if entry is None:
        return ""
    reason = tr("false_win_reason", language) if entry.false_win else (entry.reason or tr("penalty_reason", language))
    key = "what_penalty_others" if entry.to_others else "what_penalty"
    return tr(key, language, player=entry.player, reason=reason, points=entry.points)


def change_words(change: Change, language: str | None = None) -> str:
    """One change another phone made, in the page's language."""
    who = tr("by_other", language, at=clock(change.at) or "?")
    n = change.number
    if change.kind in (ChangeKind.PENALTY, ChangeKind.PENALTY_REMOVED):
        return tr(f"ch_{change.kind.value}", language, n=n, who=who, what=penalty_words(change.penalty, language))
    if change.kind is ChangeKind.CLOSED:
        return tr("ch_closed", language, who=who, why=tr(f"why_{(change.reason or EndReason.TIME_LIMIT).value}", language))
    return tr(f"ch_{change.kind.value}", language, n=n, who=who, what=deal_words(change.deal, language))


def stale_words(refused: StaleWrite, language: str | None = None) -> str:
    return tr("stale", language, changes="; ".join(change_words(c, language) for c in refused.changes[-3:]))


def locked_words(closure: Closure, language: str | None = None) -> str:
    return tr("locked", language, why=tr(f"why_{closure.reason.value}", language), at=clock(closure.at))


def refusal_words(exc: LedgerError, language: str | None = None) -> str:
    """A refused write in the page's language (the ledger's own message where it has no translation)."""
    if isinstance(exc, StaleWrite):
        return stale_words(exc, language)
    if isinstance(exc, MatchLocked):
        return locked_words(exc.closure, language)
    if isinstance(exc, RoundUnfinished):
        return tr("t_unfinished", language, n=exc.round_no, tables=", ".join(map(str, exc.tables)))
    if isinstance(exc, TournamentNameTaken):
        return tr("t_taken", language, name=exc.name, id=exc.tournament_id)
    if isinstance(exc, RegistrationError):
        return tr(f"t_reg_{exc.problem}", language, names=", ".join(exc.names), count=exc.count, most=LIMITS.max_players)
    return str(exc)


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
    revision: int = 0  # the match's revision it was planned on


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
    if (added and added["guard"] == guard and added["number"] <= len(ledger.rows)
            and ledger.rows[added["number"] - 1].deal.hand == added["hand"]):  # still there (not undone)
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
    return PageWin(match_id, deal, seat, guard, ledger.revision)


def _page_message_key(source: str) -> str:
    return f"{PREFIX}message.{source}"


def _on_add_to_match(source: str) -> None:
    """The click (read afresh from the database and the page: a double click's second run sees the first deal)."""
    state = st.session_state
    shown_with = (state.get(CURRENT), page_fingerprint(source))
    try:
        planned = page_win(source)
        seen = seen_revision(planned.match_id, planned.revision)
        ledger = store().add_deal(planned.match_id, planned.deal, seen=seen)
    except Refused as refusal:
        state[_page_message_key(source)] = (shown_with, "error", refusal.text, refusal.to_match_page)
        return
    except LedgerError as exc:  # another phone recorded this deal first, the match is over, the database went away...
        _catch_up(exc, planned.match_id)
        told = refusal_words(exc) if isinstance(exc, (StaleWrite, MatchLocked)) else tr("not_added", msg=str(exc))
        state[_page_message_key(source)] = (shown_with, "error", told, False)
        return
    _saw(planned.match_id, seen + 1)
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
        st.caption(plain(tr("will_add", id=preview.match_id, n=deal.number, winner=deal.winner,
                            seat=wind_name(preview.seat), how=how, fan=deal.total)))
    st.button(tr("add_to_match"), key=PAGE_PREFIXES[source] + "add_to_match", icon=":material/scoreboard:",
              on_click=_on_add_to_match, args=(source,))
    message = state.get(_page_message_key(source))
    if message is None or message[0] != (state.get(CURRENT), page_fingerprint(source)):
        return  # none yet, or about another hand or match than the one shown now
    _, kind, text, to_match_page = message
    (st.success if kind == "success" else st.error)(plain(text))
    if to_match_page:
        st.page_link(MATCH_PAGE, label=tr("open_match_page"), icon=":material/scoreboard:")


# --- what this session has shown ------------------------------------------------


def seen_revision(match_id: int, current: int) -> int:
    """The revision of `match_id` this session last showed its player (`current` the first time)."""
    seen: dict[int, int] = st.session_state.setdefault(SEEN, {})
    return seen.setdefault(match_id, current)


def _saw(match_id: int, revision: int) -> None:
    st.session_state.setdefault(SEEN, {})[match_id] = revision


def _catch_up(exc: LedgerError, match_id: int) -> None:
    """After a refusal that told the player what changed, the page shows the match as it is."""
    if isinstance(exc, StaleWrite) and exc.changes:
        _saw(match_id, exc.changes[-1].revision)


def _flash(text: str | None) -> None:
    st.session_state[MESSAGE] = text


def _write(match_id: int, action: Callable[[int], object]) -> bool:
    """Run one write with the revision this session showed; a refusal is told in the page's language."""
    seen = seen_revision(match_id, 0)
    try:
        action(seen)
    except LedgerError as exc:
        _catch_up(exc, match_id)
        _flash(refusal_words(exc))
        return False
    _saw(match_id, seen + 1)
    _flash(None)
    return True


# --- the page: callbacks --------------------------------------------------------


def _record(match_id: int, deal: Deal, replace: bool) -> bool:
    if replace:
        return _write(match_id, lambda seen: store().replace_deal(match_id, deal, seen=seen))
    return _write(match_id, lambda seen: store().add_deal(match_id, deal, seen=seen))


def _on_record(match_id: int, deal: Deal, replace: bool) -> None:
    _record(match_id, deal, replace)


def _on_false_win(match_id: int, number: int, replace: bool) -> None:
    state = st.session_state
    try:
        entry = false_win(store().match(match_id), number, state.get(PREFIX + "offender", ""), state.get(PREFIX + "fw_points"))
    except LedgerError as exc:
        _flash(str(exc))
        return
    if _write(match_id, lambda seen: store().add_penalty(match_id, entry, seen=seen)) and state.get(PREFIX + "fw_then") == "void":
        _record(match_id, void(number), replace)


def _on_penalty(match_id: int, number: int) -> None:
    state = st.session_state
    try:
        entry = penalty(store().match(match_id), number, state.get(PREFIX + "pen_player", ""), state.get(PREFIX + "pen_points"),
                        state.get(PREFIX + "pen_reason", ""), to_others=bool(state.get(PREFIX + "pen_to_others")))
    except LedgerError as exc:
        _flash(str(exc))
        return
    if _write(match_id, lambda seen: store().add_penalty(match_id, entry, seen=seen)):
        state[PREFIX + "pen_reason"] = ""


def _on_take_back(match_id: int, penalty_id: int) -> None:
    _write(match_id, lambda seen: store().remove_penalty(match_id, penalty_id, seen=seen))


def _on_ask(what: str, match_id: int, number: int, question: str, yes: str) -> None:
    st.session_state[ASK] = (what, match_id, number, question, yes)


def _on_cancel() -> None:
    st.session_state.pop(ASK, None)


def _on_confirm(what: str, match_id: int, number: int) -> None:
    st.session_state.pop(ASK, None)
    if what == "undo":
        undone: list[Deal] = []
        if _write(match_id, lambda seen: undone.append(store().undo_last(match_id, seen=seen, number=number))):
            st.session_state[UNDONE] = (match_id, undone[0], seen_revision(match_id, 0))
    elif what == "close":
        _write(match_id, lambda seen: store().close_match(match_id, seen=seen, reason=EndReason.TIME_LIMIT))
    elif what == "reopen":
        _write(match_id, lambda seen: store().reopen_match(match_id, seen=seen))


def _on_redo(match_id: int, deal: Deal) -> None:
    if _record(match_id, deal, replace=False):
        st.session_state.pop(UNDONE, None)


def _on_remove(match_id: int, number: int) -> None:
    _write(match_id, lambda seen: store().remove_deal(match_id, number, seen=seen))


def _on_seen_it(match_id: int, revision: int) -> None:
    _saw(match_id, revision)


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
        _flash(None)
    except LedgerError as exc:
        _flash(str(exc))


def _on_import() -> None:
    upload = st.session_state.get(PREFIX + "import")
    if upload is None:
        return
    try:
        imported = store().import_match(ledger_from_json(upload.getvalue()))
        st.session_state[MATCH_ID] = imported.match_id
        _flash(None if imported.new else tr("already_imported", id=imported.match_id))
    except LedgerError as exc:
        _flash(str(exc))


def _on_add_win(match_id: int, deal: Deal | None, replace: bool) -> None:
    if deal is None:
        return
    if _record(match_id, deal, replace):
        st.session_state[NOTATION] = ""
        st.session_state[SOURCE] = "notation"  # the other page's hand is used: never offer it for the next deal


# --- the page: parts ------------------------------------------------------------


def _new_match_form(open_it: bool) -> None:
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
        if st.file_uploader(tr("import"), type=["json"], key=PREFIX + "import") is not None:
            st.button(tr("import"), key=PREFIX + "import_go", on_click=_on_import)


def _pick_match() -> int | None:
    summaries = store().list_matches()
    if not summaries:
        return None
    ids = [s.id for s in summaries]
    by_uid = {s.uid: s.id for s in summaries}
    labels = {s.id: f"#{s.id} " + (s.match.name or " · ".join(s.match.players))
              + (f" · {tr('table')} {s.match.table}" if s.match.table else "") + f" · {s.deals}/16" for s in summaries}
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


def _changed_elsewhere(match_id: int, ledger: Ledger) -> None:
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


def _current_deal(match_id: int, ledger: Ledger) -> None:
    n = ledger.next_deal
    match = ledger.match
    if ledger.finished:
        closure = ledger.closed
        assert closure is not None
        st.success(tr("finished_as", why=tr(f"why_{closure.reason.value}"), at=clock(closure.at)))
        _confirmable("reopen", match_id, 0, tr("reopen"), tr("reopen_ask"), tr("reopen_yes"))
        return
    if n is None:  # reopened with all 16 deals: a deal may be edited, or the match ended again
        st.info(tr("finished"))
        _confirmable("close", match_id, len(ledger.rows), tr("close"), tr("close_ask", n=len(ledger.rows)), tr("close_yes"))
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


def _sheet(ledger: Ledger, match_id: int) -> None:
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
    c1, c2 = st.columns(2)
    c1.download_button(tr("csv"), ledger_to_csv(ledger).encode("utf-8"), file_name=f"match-{match_id}.csv", mime="text/csv",
                       key=PREFIX + "csv", width="stretch")
    c2.download_button(tr("json"), json.dumps(ledger_to_json(ledger), ensure_ascii=False, indent=1),
                       file_name=f"match-{match_id}.json", mime="application/json", key=PREFIX + "json",
                       width="stretch")


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


def _tournament(ledgers: dict[int, Ledger]) -> None:
    if len(ledgers) < 2:
        return
    matches, players = tournament_tables(ledgers)
    with st.expander(tr("tournament")):
        st.dataframe(matches, hide_index=True, width="stretch")
        st.dataframe(players, hide_index=True, width="stretch")


# --- the organiser's view ---------------------------------------------------------


def _on_new_tournament() -> None:
    state = st.session_state
    names = [line.strip() for line in str(state.get(PREFIX + "t_players", "")).splitlines() if line.strip()]
    try:
        state[TOURNAMENT] = store().create_tournament(state.get(PREFIX + "t_name", ""), names, int(state.get(PREFIX + "t_seed", 1)))
        _flash(None)
    except LedgerError as exc:
        _flash(refusal_words(exc))


def _on_draw_round(tournament_id: int) -> None:
    try:
        store().start_round(tournament_id)
        _flash(None)
    except LedgerError as exc:
        _flash(refusal_words(exc))


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


def render() -> None:
    st.title(tr("title"))
    st.caption(tr("intro"))
    try:
        store()
    except LedgerError as exc:
        st.error(tr("db_error", msg=str(exc)))
        return
    st.session_state.setdefault(PREFIX + "view", "table")
    view = st.segmented_control(tr("view"), ["table", "organiser"], required=True, key=PREFIX + "view",
                                format_func=labeler("view_"))
    if view == "organiser":
        organiser()
        return
    match_id = _pick_match()
    _new_match_form(open_it=match_id is None)
    if message := st.session_state.pop(MESSAGE, None):  # shown once: what the last click did
        st.error(plain(message))
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
    _changed_elsewhere(match_id, ledger)
    _current_deal(match_id, ledger)
    if not ledger.finished:
        _record_panel(match_id, ledger)
    _sheet(ledger, match_id)
    _tournament(ledgers)


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
    "tournament_tables",
]
