"""A match as JSON (export and import) and as CSV (the score sheet); standard library only.

The JSON holds the match, its deals and penalties, which is all an import needs; the computed
ledger and standings are added for readers and ignored on import (they are recomputed). Its `uid`
names the match: importing the same file twice finds the match already there (`LedgerStore.import_match`);
a file without one (format 1) is named by a digest of its match and deals. Format 1's false-win deals
are read as what they meant: a false-win penalty and the deal declared void.

The CSV opens right in a spreadsheet: a UTF-8 byte-order mark (Excel reads 陈 as 陈), and text cells that
start like a formula (= + - @) are prefixed with an apostrophe so they stay text.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import replace
from typing import Any

from .match import Closure, Deal, EndReason, Ledger, LedgerError, Match, Penalty, Result, build_ledger, draw, false_win, penalty, void, win
from .rules import SeatRule, check_deal_number
from .tournament import Tournament

FORMAT = "mcr-ledger"
FORMAT_VERSION = 2
READ_VERSIONS = (1, 2)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_BOM = "\ufeff"


def match_to_json(match: Match) -> dict[str, Any]:
    return {
        "name": match.name,
        "players": list(match.players),
        "seat_rule": match.seat_rule.value,
        "false_win_penalty": match.false_win_penalty,
        "table": match.table,
        "round": match.round_label,
    }


def match_from_json(data: Any) -> Match:
    if not isinstance(data, dict):
        raise LedgerError("'match' must be a JSON object")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise LedgerError("'players' must be a list of 4 names")
    return Match(
        players=tuple(players),
        seat_rule=data.get("seat_rule", SeatRule.OFFICIAL.value),
        false_win_penalty=data.get("false_win_penalty", Match.false_win_penalty),
        name=str(data.get("name", "")),
        table=str(data.get("table", "")),
        round_label=str(data.get("round", "")),
    ).validate()


def deal_to_json(deal: Deal) -> dict[str, Any]:
    out: dict[str, Any] = {"number": deal.number, "result": deal.result.value}
    if deal.result is Result.WIN:
        out.update(winner=deal.winner, discarder=deal.discarder, self_drawn=deal.self_drawn,
                   total=deal.total, hand=deal.hand)
    return out


def penalty_to_json(entry: Penalty) -> dict[str, Any]:
    return {"deal": entry.deal, "player": entry.player, "points": entry.points, "reason": entry.reason,
            "to_others": entry.to_others, "false_win": entry.false_win}


def penalty_from_json(match: Match, data: Any) -> Penalty:
    if not isinstance(data, dict):
        raise LedgerError("a penalty must be a JSON object")
    deal = check_deal_number(data.get("deal"))
    player = _player_name(deal, data, "player")
    if data.get("false_win"):
        return false_win(match, deal, player, data.get("points"))
    return penalty(match, deal, player, data.get("points"), data.get("reason", ""), to_others=bool(data.get("to_others")))


def deal_from_json(match: Match, data: Any, *, rescore: bool = True) -> Deal:
    """A deal from its JSON; a win's hand is scored again (so an edited total cannot slip in)."""
    if not isinstance(data, dict):
        raise LedgerError("a deal must be a JSON object")
    number = check_deal_number(data.get("number"))
    if data.get("result") == LEGACY_FALSE_WIN:
        return void(number)
    try:
        result = Result(data.get("result"))
    except ValueError:
        raise LedgerError(
            f"deal {number}: result must be one of {', '.join(r.value for r in Result)}, not {data.get('result')!r}"
        ) from None
    if result is Result.DRAW:
        return draw(number)
    if result is Result.VOID:
        return void(number)
    winner = _player_name(number, data, "winner")
    discarder = None if data.get("discarder") is None else _player_name(number, data, "discarder")
    hand = data.get("hand")
    if hand is not None and not rescore:
        # the stored total is kept, not scored again; the players and the total are still checked
        return replace(win(match, number, winner, discarder=discarder, total=data.get("total")), hand=hand)
    return win(match, number, winner, discarder=discarder, hand=hand, total=data.get("total"))


LEGACY_FALSE_WIN = "false_win"  # format 1: a false win took up the deal, its penalty inside it


def _legacy_false_win(match: Match, data: dict[str, Any]) -> Penalty:
    number = check_deal_number(data.get("number"))
    return false_win(match, number, _player_name(number, data, "offender"), data.get("penalty"))


def _player_name(number: int, data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise LedgerError(f"deal {number}: {key} must be a player's name, not {value!r}")
    return value


def ledger_to_json(ledger: Ledger) -> dict[str, Any]:
    players = ledger.match.players
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "uid": ledger.uid,
        "match": match_to_json(ledger.match),
        "deals": [deal_to_json(row.deal) for row in ledger.rows],
        "penalties": [penalty_to_json(p) for p in ledger.penalties],
        "closed": None if ledger.closed is None else {"reason": ledger.closed.reason.value, "at": ledger.closed.at},
        "ledger": [
            {
                "number": row.deal.number,
                "prevalent_wind": row.prevalent_wind,
                "dealer": row.dealer,
                "seat_winds": dict(zip(players, row.seat_winds, strict=False)),
                "points": dict(zip(players, row.points, strict=False)),
                "totals": dict(zip(players, row.totals, strict=False)),
            }
            for row in ledger.rows
        ],
        "next_deal": ledger.next_deal,
        "finished": ledger.finished,
        "standings": [
            {"player": s.player, "points": s.points, "rank": s.rank, "table_points": s.table_points}
            for s in ledger.standings()
        ],
    }


def ledger_from_json(data: Any) -> Ledger:
    """Read an exported match back (a dict or JSON text); every deal is checked and wins rescored."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise LedgerError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LedgerError(f"not an exported match: the JSON needs \"format\": \"{FORMAT}\"")
    if data.get("version") not in READ_VERSIONS:
        raise LedgerError(f"unknown match format version {data.get('version')!r} (this program reads {', '.join(map(str, READ_VERSIONS))})")
    match = match_from_json(data.get("match"))
    deals = data.get("deals", [])
    penalties = data.get("penalties", [])
    if not isinstance(deals, list) or not isinstance(penalties, list):
        raise LedgerError("'deals' and 'penalties' must be lists")
    numbers = [d.get("number") for d in deals if isinstance(d, dict)]
    if len(numbers) != len(set(numbers)):
        raise LedgerError("a deal number appears twice")
    entries = [penalty_from_json(match, p) for p in penalties]
    entries += [_legacy_false_win(match, d) for d in deals if isinstance(d, dict) and d.get("result") == LEGACY_FALSE_WIN]
    uid = data.get("uid") or _digest(data.get("match"), deals, penalties)
    if not isinstance(uid, str) or not 1 <= len(uid) <= UID_CHARS:
        raise LedgerError(f"'uid' must be text of 1 to {UID_CHARS} characters")
    return build_ledger(match, [deal_from_json(match, d) for d in deals], entries, closed=_closure(data.get("closed")), uid=uid)


UID_CHARS = 64


def _digest(*parts: Any) -> str:
    """The name of an export without a uid: the same match and deals give the same name."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha1-" + hashlib.sha1(text.encode("utf-8")).hexdigest()


def _closure(data: Any) -> Closure | None:
    if data is None:
        return None
    try:
        return Closure(EndReason(data["reason"]), str(data.get("at", "")))
    except (TypeError, KeyError, ValueError):
        raise LedgerError(f"'closed' must be null or {{\"reason\": \"all_deals\" or \"time_limit\", \"at\": time}}, not {data!r}") from None


def ledger_to_csv(ledger: Ledger) -> str:
    """The score sheet: one line per deal with each player's seat wind, points (payments and penalties)
    and running total; penalties in the deal being played on a last line. Starts with a byte-order mark."""
    players = ledger.match.players
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_cells(
        ["deal", "prevalent_wind", "dealer", "result", "winner", "discarder", "self_drawn", "fan", "penalties"]
        + [f"{p} {col}" for p in players for col in ("seat", "points", "total")]
    ))
    for row in ledger.rows:
        d = row.deal
        writer.writerow(_cells(
            [d.number, row.prevalent_wind, row.dealer, d.result.value, d.winner or "", d.discarder or "",
             "yes" if d.self_drawn else "", d.total if d.total is not None else "", "; ".join(p.summary() for p in row.penalties)]
            + [v for i in range(4) for v in (row.seat_winds[i], row.points[i], row.totals[i])]
        ))
    if ledger.pending:
        number = len(ledger.rows) + 1
        writer.writerow(_cells(
            [number, "", "", "penalty", "", "", "", "", "; ".join(p.summary() for p in ledger.pending)]
            + [v for i in range(4) for v in ("", ledger.totals[i] - (ledger.rows[-1].totals[i] if ledger.rows else 0), ledger.totals[i])]
        ))
    return CSV_BOM + out.getvalue()


def _cells(values: list[Any]) -> list[Any]:
    """Text that a spreadsheet would take for a formula, made text ('=1+1); numbers stay numbers."""
    return ["'" + v if isinstance(v, str) and v.startswith(FORMULA_STARTS) else v for v in values]


def standings_csv(view: Tournament) -> str:
    """A tournament's standings as CSV, a row a player: rank (equal ranks shared), player, matches, table
    points, score, first places, matches still being played."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rank", "player", "matches", "table_points", "points", "firsts", "playing"])
    for p in view.players:
        writer.writerow(_cells([p.rank, p.player, p.matches, f"{p.table_points:g}", p.points, p.firsts, p.playing]))
    return CSV_BOM + out.getvalue()
