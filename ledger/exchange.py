"""A match as JSON (export and import) and as CSV (the score sheet); standard library only.

The JSON holds the match and its deals, which is all an import needs; the computed ledger and
standings are added for readers and ignored on import (they are recomputed).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from typing import Any

from .match import Deal, Ledger, LedgerError, Match, Result, build_ledger, draw, false_win, win
from .rules import SeatRule, check_deal_number

FORMAT = "mcr-ledger"
FORMAT_VERSION = 1


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
    elif deal.result is Result.FALSE_WIN:
        out.update(offender=deal.offender, penalty=deal.penalty)
    return out


def deal_from_json(match: Match, data: Any, *, rescore: bool = True) -> Deal:
    """A deal from its JSON; a win's hand is scored again (so an edited total cannot slip in)."""
    if not isinstance(data, dict):
        raise LedgerError("a deal must be a JSON object")
    number = check_deal_number(data.get("number"))
    try:
        result = Result(data.get("result"))
    except ValueError:
        raise LedgerError(
            f"deal {number}: result must be one of {', '.join(r.value for r in Result)}, not {data.get('result')!r}"
        ) from None
    if result is Result.DRAW:
        return draw(number)
    if result is Result.FALSE_WIN:
        return false_win(match, number, _player_name(number, data, "offender"), data.get("penalty"))
    winner = _player_name(number, data, "winner")
    discarder = None if data.get("discarder") is None else _player_name(number, data, "discarder")
    hand = data.get("hand")
    if hand is not None and not rescore:
        # the stored total is kept, not scored again; the players and the total are still checked
        return replace(win(match, number, winner, discarder=discarder, total=data.get("total")), hand=hand)
    return win(match, number, winner, discarder=discarder, hand=hand, total=data.get("total"))


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
        "match": match_to_json(ledger.match),
        "deals": [deal_to_json(row.deal) for row in ledger.rows],
        "ledger": [
            {
                "number": row.deal.number,
                "prevalent_wind": row.prevalent_wind,
                "dealer": row.dealer,
                "seat_winds": dict(zip(players, row.seat_winds)),
                "points": dict(zip(players, row.points)),
                "totals": dict(zip(players, row.totals)),
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
    if data.get("version") != FORMAT_VERSION:
        raise LedgerError(f"unknown match format version {data.get('version')!r} (this program reads {FORMAT_VERSION})")
    match = match_from_json(data.get("match"))
    deals = data.get("deals", [])
    if not isinstance(deals, list):
        raise LedgerError("'deals' must be a list")
    numbers = [d.get("number") for d in deals if isinstance(d, dict)]
    if len(numbers) != len(set(numbers)):
        raise LedgerError("a deal number appears twice")
    return build_ledger(match, [deal_from_json(match, d) for d in deals])


def ledger_to_csv(ledger: Ledger) -> str:
    """The score sheet: one line per deal with each player's seat wind, points and running total."""
    players = ledger.match.players
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["deal", "prevalent_wind", "dealer", "result", "winner", "discarder", "self_drawn", "fan", "offender"]
        + [f"{p} {col}" for p in players for col in ("seat", "points", "total")]
    )
    for row in ledger.rows:
        d = row.deal
        writer.writerow(
            [d.number, row.prevalent_wind, row.dealer, d.result.value, d.winner or "", d.discarder or "",
             "yes" if d.self_drawn else "", d.total if d.total is not None else "", d.offender or ""]
            + [v for i in range(4) for v in (row.seat_winds[i], row.points[i], row.totals[i])]
        )
    return out.getvalue()
