"""The Match page's words in both languages: labels, a deal, a penalty, a change another phone made, a refusal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.match import (
    Change,
    ChangeKind,
    Closure,
    Deal,
    EndReason,
    LedgerError,
    MatchComplete,
    MatchLocked,
    Penalty,
    Result,
    StaleWrite,
    clock,
)
from ledger.rules import LIMITS
from ledger.store import AllRoundsDrawn, RoundUnfinished, TournamentEnded, TournamentNameTaken
from ledger.tournament import RegistrationError

from .i18n import pick, translator
from .widgets import WIND_ZH

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
    "complete_reopened": ("All 16 deals are recorded: correct a deal below, then end the match again (as complete).",
                          "16 盘均已记录：请在下面更正某一盘，然后再次结束本局（按打满结束）。"),
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
    "close_complete": ("End the match (all 16 deals)", "结束本局（16 盘打完）"),
    "close_complete_ask": ("End the match with all 16 deals? Its table points then count in the standings; nothing "
                           "more can be recorded until it is reopened.",
                           "以 16 盘打完结束本局？其标准分将计入排名；重新打开前不能再记录。"),
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
    "t_rounds": ("Rounds to play", "比赛轮数"),
    "t_set_rounds": ("Set the rounds", "设定轮数"),
    "t_rounds_state": ("{drawn} of {n} rounds drawn.", "共 {n} 轮，已抽签 {drawn} 轮。"),
    "t_rounds_unset": ("Set the number of rounds to play.", "请设定比赛轮数。"),
    "t_registered": ("{name}: {count} players registered. Draw the first round below.", "{name}：已登记 {count} 名选手。请在下面抽第一轮。"),
    "t_all_drawn": ("All {n} rounds are drawn: end the tournament once every table has finished, or set more rounds.",
                    "{n} 轮均已抽签：各桌结束后请结束赛事，或增加轮数。"),
    "t_ended_refused": ("The tournament {name} has ended: its standings are final.", "赛事 {name} 已结束：排名为最终结果。"),
    "t_ended": ("The tournament ended at {at}: these are its final standings.", "赛事已于 {at} 结束：以下为最终排名。"),
    "t_round_state": ("{done} of {tables} tables finished", "{tables} 桌中已结束 {done} 桌"),
    "t_state_playing": ("playing · {deals}/16 deals", "进行中 · {deals}/16 盘"),
    "t_state_complete": ("finished · all {deals} deals", "已结束 · {deals} 盘打完"),
    "t_state_time_limit": ("finished at the time limit · {deals}", "已结束（到达规定时间）· {deals}"),
    "n_deals": ("{n} deals", "{n} 盘"),
    "one_deal": ("1 deal", "1 盘"),
    "t_end_table": ("End table {n}", "结束第 {n} 桌"),
    "t_end_ask_complete": ("End table {n}'s match with all 16 deals? Its table points then count in the standings.",
                           "以 16 盘打完结束第 {n} 桌？其标准分将计入排名。"),
    "t_end_ask_time": ("End table {n}'s match at the time limit, after {deals}? Its table points then count in "
                       "the standings.", "按规定时间结束第 {n} 桌（已打 {deals}）？其标准分将计入排名。"),
    "t_end_yes": ("Yes, end table {n}", "确定结束第 {n} 桌"),
    "t_links": ("Round {n}: the tables' links and QR codes", "第 {n} 轮：各桌链接与二维码"),
    "t_standings_now": ("Standings ({n} finished matches)", "当前排名（已结束 {n} 局）"),
    "t_standings_print": ("Standings after {rounds} rounds (not final)", "{rounds} 轮后的排名（非最终）"),
    "t_final": ("Final standings", "最终排名"),
    "t_ranked_by": ("Ranked by table points (4-2-1-0 at each table), then points, then first places; players equal on "
                    "all three share the place. Finished matches only.",
                    "排名依次按标准分（每桌 4-2-1-0）、比赛分、第一名次数；三项均相同者名次并列。仅计已结束的对局。"),
    "t_firsts": ("First places", "第一名次数"),
    "t_csv": ("Download the standings (CSV)", "下载排名 (CSV)"),
    "t_print": ("Standings to print (HTML)", "打印用排名 (HTML)"),
    "t_end": ("End the tournament", "结束赛事"),
    "t_end_ask": ("End the tournament? Its standings become final; no round is drawn and no match reopened after it.",
                  "结束赛事？排名将成为最终结果；此后不能再抽签或重新打开对局。"),
    "t_end_ask_early": ("Only {drawn} of {n} rounds were drawn. End the tournament now? Its standings become final.",
                        "{n} 轮中只抽了 {drawn} 轮。现在结束赛事？排名将成为最终结果。"),
    "t_end_tournament_yes": ("Yes, end the tournament", "确定结束赛事"),
    "t_end_waits": ("The tournament can end once every table has finished (still playing: round/table {tables}).",
                    "各桌均结束后才能结束赛事（仍在进行：轮/桌 {tables}）。"),
    "t_seed": ("Seed of the seating draws", "抽签种子"),
    "t_create": ("Register", "登记"),
    "t_choose": ("Tournament", "赛事"),
    "t_none": ("No tournament yet: register its players below.", "还没有赛事：请在下面登记选手。"),
    "t_draw": ("Draw round {n}", "第 {n} 轮抽签"),
    "t_round": ("Round {n}", "第 {n} 轮"),
    "t_table": ("Table {n}: {players}", "第 {n} 桌：{players}"),
    "t_status": ("{deals}/16 deals", "{deals}/16 盘"),
    "t_done": ("finished", "已结束"),
    "t_link": ("Open table {n}", "打开第 {n} 桌"),
    "t_url": ("App address for the tables' links", "各桌链接所用的应用地址"),
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


def deals_words(n: int, language: str | None = None) -> str:
    """"1 deal", "5 deals"."""
    return tr("one_deal", language) if n == 1 else tr("n_deals", language, n=n)


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
    if isinstance(exc, TournamentEnded):
        return tr("t_ended_refused", language, name=exc.name)
    if isinstance(exc, AllRoundsDrawn):
        return tr("t_all_drawn", language, n=exc.rounds)
    if isinstance(exc, MatchComplete):
        return tr("complete_reopened", language)
    if isinstance(exc, TournamentNameTaken):
        return tr("t_taken", language, name=exc.name, id=exc.tournament_id)
    if isinstance(exc, RegistrationError):
        return tr(f"t_reg_{exc.problem}", language, names=", ".join(exc.names), count=exc.count, most=LIMITS.max_players)
    return str(exc)


