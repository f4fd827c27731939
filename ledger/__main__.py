"""`python -m ledger`: keep a match from the command line, JSON in and out.

    python -m ledger new --players Ann Bob Cat Dan [--table 3 --round 1]      # -> {"match": 1, ...}
    python -m ledger add 1 --win Ann --discarder Cat --hand "[EEE] [123p] 456p 789p 1s +1s"
    python -m ledger add 1 --win Bob --self-drawn --fan 12                      # scored on paper
    python -m ledger add 1 --draw
    python -m ledger add 1 --false-win Dan
    python -m ledger add 1 --deal 2 --replace --draw                            # edit a past deal
    python -m ledger remove 1 --deal 2                                          # recorded by mistake
    python -m ledger undo 1 | show 1 | list | tournament
    python -m ledger export 1 --format csv -o match.csv
    python -m ledger import match.json

The database is `--database URL`, else `$MCR_DATABASE_URL`, else the SQLite file in the data
folder (`$MCR_DATA`, else `~/.mcr-scorer`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scoring.hand import HandError
from scoring.notation import parse_hand

from .exchange import deal_to_json, ledger_from_json, ledger_to_csv, ledger_to_json, match_to_json
from .match import Deal, Ledger, LedgerError, Match, draw, false_win, win
from .rules import SeatRule, prevalent_wind
from .tournament import tournament


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ledger", description="Keep an MCR match: deals, payments, running totals, standings (JSON out).",
    )
    parser.add_argument("--database", metavar="URL", help="SQLAlchemy URL (default: $MCR_DATABASE_URL, else the data folder's SQLite file)")
    sub = parser.add_subparsers(dest="command", required=True)

    new = sub.add_parser("new", help="start a match; prints its id")
    new.add_argument("--players", nargs=4, required=True, metavar="NAME",
                     help="the four players by starting place: East, South, West, North")
    new.add_argument("--name", default="", help="a name for the match")
    new.add_argument("--table", default="", help="table label (tournament view)")
    new.add_argument("--round", default="", dest="round_label", help="tournament round label")
    new.add_argument("--seat-rule", choices=[r.value for r in SeatRule], default=SeatRule.OFFICIAL.value,
                     help="seat changes between rounds: the MCR competition rule, or none")
    new.add_argument("--penalty", type=int, default=Match.false_win_penalty,
                     help="false-win penalty paid to each other player (default %(default)s)")

    add = sub.add_parser("add", help="record a deal: a win, a draw or a false win")
    add.add_argument("match", type=int)
    add.add_argument("--deal", type=int, help="deal number (default: the next one)")
    add.add_argument("--replace", action="store_true", help="edit the recorded deal --deal instead of adding")
    what = add.add_mutually_exclusive_group(required=True)
    what.add_argument("--win", metavar="WINNER", help="the winner's name")
    what.add_argument("--draw", action="store_true", help="exhaustive draw (荒牌)")
    what.add_argument("--false-win", metavar="OFFENDER", help="a false win (诈和) by this player")
    add.add_argument("--discarder", help="who discarded the winning tile")
    add.add_argument("--self-drawn", action="store_true", help="the winner drew the winning tile")
    add.add_argument("--hand", metavar="NOTATION", help="the winning hand in notation (winds come from the ledger)")
    add.add_argument("--hand-json", metavar="FILE", help="the winning hand as hand JSON ('-' for stdin)")
    add.add_argument("--fan", type=int, help="the fan total, when the hand was scored on paper")
    add.add_argument("--penalty", type=int, help="false-win penalty to each other player (default: the match's)")

    for name, text in (("undo", "delete the last recorded deal"), ("show", "the ledger: deals, payments, totals, standings")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("match", type=int)
    remove = sub.add_parser("remove", help="take out a deal recorded by mistake: later deals move up, rescored with their new winds")
    remove.add_argument("match", type=int)
    remove.add_argument("--deal", type=int, required=True)
    sub.add_parser("list", help="the matches in the database")
    sub.add_parser("tournament", help="matches by round and table, players' summed table points")

    export = sub.add_parser("export", help="a match as JSON (re-importable) or CSV (score sheet)")
    export.add_argument("match", type=int)
    export.add_argument("--format", choices=["json", "csv"], default="json")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    imp = sub.add_parser("import", help="import an exported JSON match as a new match")
    imp.add_argument("file", help="the JSON file ('-' for stdin)")
    return parser


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"cannot read {source}: {exc}") from None


def _deal(args: argparse.Namespace, match: Match, number: int) -> Deal:
    if args.draw:
        return draw(number)
    if args.false_win is not None:
        return false_win(match, number, args.false_win, args.penalty)
    if args.hand is not None and args.hand_json is not None:
        raise LedgerError("give the hand once: --hand or --hand-json")
    hand: Any = None
    try:
        if args.hand is not None:
            hand = parse_hand(args.hand)
        elif args.hand_json is not None:
            from scoring.hand import Hand

            hand = Hand.from_json(_read(args.hand_json))
    except HandError as exc:
        raise LedgerError(f"the hand: {exc}") from None
    hand_says_self_drawn = hand is not None and hand.context.self_drawn
    if args.discarder is not None and (args.self_drawn or hand_says_self_drawn):
        raise LedgerError("a self-drawn win has no discarder: drop --discarder or --self-drawn")
    if args.discarder is None and not (args.self_drawn or hand_says_self_drawn):
        raise LedgerError("say who discarded the winning tile (--discarder NAME) or that it was --self-drawn")
    if hand is None and args.fan is None:
        raise LedgerError("a win needs --hand, --hand-json or --fan")
    return win(match, number, args.win, discarder=args.discarder, hand=hand, total=args.fan)


def _summary(match_id: int, ledger: Ledger) -> dict[str, Any]:
    out: dict[str, Any] = {"match": match_id, "deals": len(ledger.rows), "next_deal": ledger.next_deal,
                           "totals": dict(zip(ledger.match.players, ledger.totals))}
    if ledger.next_deal is not None:
        n = ledger.next_deal
        out["next"] = {"dealer": ledger.match.dealer(n), "prevalent_wind": prevalent_wind(n),
                       "seat_winds": dict(zip(ledger.match.players, ledger.match.seat_winds(n)))}
    else:
        out["standings"] = ledger_to_json(ledger)["standings"]
    return out


def run(args: argparse.Namespace) -> Any:
    from .store import LedgerStore  # SQLAlchemy only when a command needs the database

    with LedgerStore(args.database) as store:
        if args.command == "new":
            match = Match(tuple(args.players), SeatRule(args.seat_rule), args.penalty, args.name, args.table,
                          args.round_label).validate()
            match_id = store.create_match(match)
            return {"match": match_id, **match_to_json(match), **_summary(match_id, store.ledger(match_id))}
        if args.command == "add":
            ledger = store.ledger(args.match)
            if args.replace and args.deal is None:
                raise LedgerError("--replace needs --deal N: the deal to edit")
            number = args.deal if args.deal is not None else ledger.next_deal
            if number is None:
                raise LedgerError("all 16 deals are recorded: the match is over (edit one with --deal N --replace)")
            deal = _deal(args, ledger.match, number)
            ledger = store.replace_deal(args.match, deal) if args.replace else store.add_deal(args.match, deal)
            row = ledger.rows[deal.number - 1]
            players = ledger.match.players
            return {"deal": deal_to_json(row.deal), "dealer": row.dealer, "prevalent_wind": row.prevalent_wind,
                    "seat_winds": dict(zip(players, row.seat_winds)), "points": dict(zip(players, row.points)),
                    **_summary(args.match, ledger)}
        if args.command == "undo":
            undone = store.undo_last(args.match)
            if undone is None:
                raise LedgerError(f"match {args.match} has no deal to undo")
            return {"undone": deal_to_json(undone), **_summary(args.match, store.ledger(args.match))}
        if args.command == "remove":
            return {"removed": args.deal, **_summary(args.match, store.remove_deal(args.match, args.deal))}
        if args.command == "show":
            return {"id": args.match, **ledger_to_json(store.ledger(args.match))}
        if args.command == "list":
            return [{"match": s.id, **match_to_json(s.match), "deals": s.deals, "created_at": s.created_at}
                    for s in store.list_matches()]
        if args.command == "tournament":
            view = tournament(store.ledgers())
            return {
                "matches": [{"match": m.match_id, "round": m.round_label, "table": m.table, "deals": m.deals,
                             "finished": m.finished,
                             "standings": [{"player": s.player, "points": s.points, "table_points": s.table_points}
                                           for s in m.standings]} for m in view.matches],
                "players": [{"player": p.player, "matches": p.matches, "table_points": p.table_points, "points": p.points}
                            for p in view.players],
            }
        if args.command == "export":
            ledger = store.ledger(args.match)
            text = ledger_to_csv(ledger) if args.format == "csv" else json.dumps(ledger_to_json(ledger), ensure_ascii=False, indent=1) + "\n"
            if args.output is None:
                sys.stdout.write(text)
                return None
            try:
                args.output.write_text(text, encoding="utf-8")
            except OSError as exc:
                raise LedgerError(f"cannot write {args.output}: {exc}") from None
            return {"match": args.match, "written": str(args.output), "format": args.format}
        if args.command == "import":
            ledger = ledger_from_json(_read(args.file))
            match_id = store.import_ledger(ledger)
            return {"match": match_id, **_summary(match_id, ledger)}
    raise AssertionError(args.command)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    from sqlalchemy.exc import SQLAlchemyError

    try:
        result = run(args)
    except LedgerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        print(f"error: the database refused: {exc.__class__.__name__}: {getattr(exc, 'orig', None) or exc}", file=sys.stderr)
        return 1
    if result is not None:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
