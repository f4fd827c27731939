"""`python -m ledger`: keep a match from the command line, JSON in and out.

    python -m ledger new --players Ann Bob Cat Dan [--table 3 --round 1]      # -> {"match": 1, ...}
    python -m ledger add 1 --win Ann --discarder Cat --hand "[EEE] [123p] 456p 789p 1s +1s"
    python -m ledger add 1 --win Bob --self-drawn --fan 12                      # scored on paper
    python -m ledger add 1 --draw
    python -m ledger penalty 1 --false-win Dan                                  # 诈和: 10 to each; the deal goes on
    python -m ledger add 1 --void                                               # ... or the table declares it void
    python -m ledger add 1 --false-win Dan                                      # both at once
    python -m ledger penalty 1 --player Cat --points 5 --reason "slow play"     # taken off, paid to nobody
    python -m ledger add 1 --deal 2 --replace --draw                            # edit a past deal
    python -m ledger remove 1 --deal 2                                          # recorded by mistake
    python -m ledger close 1                                                    # end it: complete, or at the time limit
    python -m ledger reopen 1                                                   # on purpose, to correct it
    python -m ledger undo 1 --deal 5 | show 1 | list
    python -m ledger export 1 --format csv -o match.csv
    python -m ledger import match.json                                          # a repeat is recognised by its uid

    python -m ledger tournament new --name "Club cup" --seed 7 --rounds 2 --players A B C D E F G H
    python -m ledger tournament round 1 --url http://192.168.1.5:8501            # seating draw + a link per table
    python -m ledger tournament rounds 1 3                                      # play 3 rounds after all
    python -m ledger tournament standings 1 [--format csv -o standings.csv]
    python -m ledger tournament end 1                                           # the standings are final
    python -m ledger tournament                                                 # every match in the database

Every write checks what it saw: `--seen REV` (the "revision" every command prints) refuses the write
when another phone changed the match since; without it the write checks the revision read just before.

The database is `--database URL`, else `$MCR_DATABASE_URL`, else the SQLite file in the data
folder (`$MCR_DATA`, else `~/.mcr-scorer`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from scoring.hand import HandError
from scoring.notation import parse_hand

from .exchange import deal_to_json, ledger_from_json, ledger_to_csv, ledger_to_json, match_to_json, penalty_to_json, standings_csv
from .match import Deal, Ledger, LedgerError, Match, draw, false_win, penalty, void, win
from .rules import SeatRule, prevalent_wind
from .tournament import TIE_BREAKS, Tournament, table_link, tournament


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ledger", description="Keep an MCR match: deals, payments, running totals, standings (JSON out).",
    )
    parser.add_argument("--database", metavar="URL", help="SQLAlchemy URL (default: $MCR_DATABASE_URL, else the data folder's SQLite file)")
    sub = parser.add_subparsers(dest="command", required=True)

    def seen(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument("--seen", type=int, metavar="REV",
                         help="the match revision you looked at: refused if another phone changed the match since")

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

    add = sub.add_parser("add", help="record a deal: a win, a draw, a void deal (or a false win and the deal void)")
    add.add_argument("match", type=int)
    add.add_argument("--deal", type=int, help="deal number (default: the next one)")
    add.add_argument("--replace", action="store_true", help="edit the recorded deal --deal instead of adding")
    what = add.add_mutually_exclusive_group(required=True)
    what.add_argument("--win", metavar="WINNER", help="the winner's name")
    what.add_argument("--draw", action="store_true", help="exhaustive draw (荒牌)")
    what.add_argument("--void", action="store_true", help="the table declared the deal void (after a false win)")
    what.add_argument("--false-win", metavar="OFFENDER",
                      help="a false win (诈和) by this player: the usual penalty, and the deal declared void")
    add.add_argument("--discarder", help="who discarded the winning tile")
    add.add_argument("--self-drawn", action="store_true", help="the winner drew the winning tile")
    add.add_argument("--hand", metavar="NOTATION", help="the winning hand in notation (winds come from the ledger)")
    add.add_argument("--hand-json", metavar="FILE", help="the winning hand as hand JSON ('-' for stdin)")
    add.add_argument("--fan", type=int, help="the fan total, when the hand was scored on paper")
    add.add_argument("--penalty", type=int, help="false-win penalty to each other player (default: the match's)")
    seen(add)

    pen = sub.add_parser("penalty", help="a penalty entry: any player, points, reason (or a false win's usual penalty)")
    pen.add_argument("match", type=int)
    who = pen.add_mutually_exclusive_group(required=True)
    who.add_argument("--player", help="the player penalised: the points are taken off and go to nobody")
    who.add_argument("--false-win", metavar="OFFENDER", help="a false win (诈和): the usual penalty to each other player")
    pen.add_argument("--points", type=int, help="points (a false win: to each other player; default the match's)")
    pen.add_argument("--reason", default="", help="why (shown on the score sheet)")
    pen.add_argument("--to-others", action="store_true", help="the player pays --points to each other player")
    pen.add_argument("--deal", type=int, help="the deal it was given in (default: the deal being played)")
    seen(pen)

    undo = sub.add_parser("undo", help="delete the last recorded deal")
    undo.add_argument("match", type=int)
    undo.add_argument("--deal", type=int, help="the deal you mean to undo: refused when it is not the last one")
    seen(undo)
    show = sub.add_parser("show", help="the ledger: deals, penalties, payments, totals, standings")
    show.add_argument("match", type=int)
    remove = sub.add_parser("remove", help="take out a deal recorded by mistake: later deals move up, rescored with their new winds")
    remove.add_argument("match", type=int)
    remove.add_argument("--deal", type=int, required=True)
    seen(remove)
    close = sub.add_parser("close", help="end the match: complete with 16 deals (after a correction), else at the time "
                                         "limit; it then counts in the standings")
    close.add_argument("match", type=int)
    seen(close)
    reopen = sub.add_parser("reopen", help="open a finished match again, on purpose, to correct it")
    reopen.add_argument("match", type=int)
    seen(reopen)
    sub.add_parser("list", help="the matches in the database")

    tour = sub.add_parser("tournament", help="tournaments: new, round, standings (alone: every match's table points)")
    tsub = tour.add_subparsers(dest="tournament_command")
    tnew = tsub.add_parser("new", help="register the players once (a multiple of 4)")
    tnew.add_argument("--name", default="", help="the tournament's name")
    tnew.add_argument("--players", nargs="+", required=True, metavar="NAME")
    tnew.add_argument("--seed", type=int, default=1, help="seed of the seating draws (same seed, same draws)")
    tnew.add_argument("--rounds", type=int, help="the number of rounds (no round is drawn past it)")
    tround = tsub.add_parser("round", help="draw the next round's seating and start its matches (one per table)")
    tround.add_argument("tournament", type=int)
    tround.add_argument("--url", default="", help="the app's address: each table's link is URL/match?match=UID")
    trounds = tsub.add_parser("rounds", help="set the number of rounds")
    trounds.add_argument("tournament", type=int)
    trounds.add_argument("rounds", type=int)
    tstand = tsub.add_parser("standings", help="players by table points, then score, then first places (finished matches only)")
    tstand.add_argument("tournament", type=int)
    tstand.add_argument("--url", default="", help="the app's address, for the tables' links")
    tstand.add_argument("--format", choices=["json", "csv"], default="json", help="csv: the standings alone, a row a player")
    tstand.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    tend = tsub.add_parser("end", help="end the tournament once every table is finished: the standings are final")
    tend.add_argument("tournament", type=int)

    export = sub.add_parser("export", help="a match as JSON (re-importable) or CSV (score sheet)")
    export.add_argument("match", type=int)
    export.add_argument("--format", choices=["json", "csv"], default="json")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    imp = sub.add_parser("import", help="import an exported JSON match (recognised when imported before)")
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
    if args.void or args.false_win is not None:
        return void(number)
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
    out: dict[str, Any] = {"match": match_id, "revision": ledger.revision, "deals": len(ledger.rows),
                           "next_deal": ledger.next_deal, "finished": ledger.finished,
                           "totals": dict(zip(ledger.match.players, ledger.totals, strict=False))}
    if ledger.closed is not None:
        out["closed"] = {"reason": ledger.closed.reason.value, "at": ledger.closed.at}
    if ledger.next_deal is not None:
        n = ledger.next_deal
        out["next"] = {"dealer": ledger.match.dealer(n), "prevalent_wind": prevalent_wind(n),
                       "seat_winds": dict(zip(ledger.match.players, ledger.match.seat_winds(n), strict=False))}
    if ledger.finished:
        out["standings"] = ledger_to_json(ledger)["standings"]
    return out


def _tournament_json(view: Tournament) -> dict[str, Any]:
    return {
        "matches": [{"match": m.match_id, "round": m.round_label, "table": m.table, "deals": m.deals,
                     "finished": m.finished,
                     "standings": [{"player": s.player, "points": s.points, "table_points": s.table_points}
                                   for s in m.standings]} for m in view.matches],
        "ranked_by": list(TIE_BREAKS),
        "players": [{"rank": p.rank, "player": p.player, "matches": p.matches, "table_points": p.table_points,
                     "points": p.points, "firsts": p.firsts, **({"playing": p.playing} if p.playing else {})}
                    for p in view.players],
    }


def run(args: argparse.Namespace) -> Any:
    from .store import LedgerStore  # SQLAlchemy only when a command needs the database

    with LedgerStore(args.database) as store:
        def seen_now(match_id: int) -> int:
            return args.seen if getattr(args, "seen", None) is not None else store.ledger(match_id).revision

        if args.command == "new":
            match = Match(tuple(args.players), SeatRule(args.seat_rule), args.penalty, args.name, args.table,
                          args.round_label).validate()
            match_id = store.create_match(match)
            return {"match": match_id, **match_to_json(match), **_summary(match_id, store.ledger(match_id))}
        if args.command == "add":
            ledger = store.ledger(args.match)
            revision = args.seen if args.seen is not None else ledger.revision
            if args.replace and args.deal is None:
                raise LedgerError("--replace needs --deal N: the deal to edit")
            number = args.deal if args.deal is not None else ledger.deal_to_add()
            deal = _deal(args, ledger.match, number)
            if args.false_win is not None and args.replace:
                raise LedgerError("a false win is a penalty of its own: record it with `penalty`, then edit the deal")
            if args.false_win is not None:
                ledger = store.add_penalty(args.match, false_win(ledger.match, number, args.false_win, args.penalty),
                                           seen=revision)
                revision = ledger.revision
            ledger = (store.replace_deal(args.match, deal, seen=revision) if args.replace
                      else store.add_deal(args.match, deal, seen=revision))
            row = ledger.rows[deal.number - 1]
            players = ledger.match.players
            return {"deal": deal_to_json(row.deal), "dealer": row.dealer, "prevalent_wind": row.prevalent_wind,
                    "seat_winds": dict(zip(players, row.seat_winds, strict=False)), "points": dict(zip(players, row.points, strict=False)),
                    "penalties": [penalty_to_json(p) for p in row.penalties], **_summary(args.match, ledger)}
        if args.command == "penalty":
            ledger = store.ledger(args.match)
            number = args.deal if args.deal is not None else (ledger.next_deal or len(ledger.rows))
            if args.false_win is not None:
                entry = false_win(ledger.match, number, args.false_win, args.points)
            else:
                if args.points is None:
                    raise LedgerError("a penalty needs --points")
                entry = penalty(ledger.match, number, args.player, args.points, args.reason, to_others=args.to_others)
            ledger = store.add_penalty(args.match, entry, seen=seen_now(args.match))
            return {"penalty": penalty_to_json(entry), **_summary(args.match, ledger)}
        if args.command == "undo":
            ledger = store.ledger(args.match)
            if not ledger.rows:
                raise LedgerError(f"match {args.match} has no deal to undo")
            number = args.deal if args.deal is not None else len(ledger.rows)
            undone = store.undo_last(args.match, seen=seen_now(args.match), number=number)
            return {"undone": deal_to_json(undone), **_summary(args.match, store.ledger(args.match))}
        if args.command == "remove":
            ledger = store.remove_deal(args.match, args.deal, seen=seen_now(args.match))
            return {"removed": args.deal, **_summary(args.match, ledger)}
        if args.command == "close":
            return _summary(args.match, store.close_match(args.match, seen=seen_now(args.match)))
        if args.command == "reopen":
            return _summary(args.match, store.reopen_match(args.match, seen=seen_now(args.match)))
        if args.command == "show":
            return {"id": args.match, "revision": store.ledger(args.match).revision, **ledger_to_json(store.ledger(args.match))}
        if args.command == "list":
            return [{"match": s.id, **match_to_json(s.match), "deals": s.deals, "created_at": s.created_at,
                     "finished": s.closed is not None, "uid": s.uid} for s in store.list_matches()]
        if args.command == "tournament":
            return _tournament_command(store, args)
        if args.command == "export":
            ledger = store.ledger(args.match)
            text = ledger_to_csv(ledger) if args.format == "csv" else json.dumps(ledger_to_json(ledger), ensure_ascii=False, indent=1) + "\n"
            if args.output is None:
                sys.stdout.write(text)
                return None
            _write_atomically(args.output, text)
            return {"match": args.match, "written": str(args.output), "format": args.format}
        if args.command == "import":
            ledger = ledger_from_json(_read(args.file))
            imported = store.import_match(ledger)
            return {"match": imported.match_id, "imported": imported.new,
                    **({} if imported.new else {"note": f"already imported as match {imported.match_id}: nothing added"}),
                    **_summary(imported.match_id, store.ledger(imported.match_id))}
    raise AssertionError(args.command)


def _tournament_command(store: Any, args: argparse.Namespace) -> Any:
    command = args.tournament_command
    if command is None:
        return _tournament_json(tournament(store.ledgers()))
    if command == "new":
        tournament_id = store.create_tournament(args.name, args.players, args.seed, args.rounds)
        info = store.tournament(tournament_id)
        return {"tournament": tournament_id, "uid": info.uid, "name": info.name, "seed": info.seed,
                "rounds": info.planned_rounds, "players": list(info.players)}
    if command == "rounds":
        info = store.set_rounds(args.tournament, args.rounds)
        return {"tournament": info.id, "rounds": info.planned_rounds, "drawn": info.rounds}
    if command == "end":
        info = store.end_tournament(args.tournament)
        view = tournament(store.ledgers(args.tournament), info.players)
        return {"tournament": info.id, "name": info.name, "ended_at": info.ended_at, **_tournament_json(view)}
    if command == "round":
        round_no = store.start_round(args.tournament)
        return {"tournament": args.tournament, "round": round_no, "tables": _tables(store, args, round_no)}
    if command == "standings":
        info = store.tournament(args.tournament)
        view = tournament(store.ledgers(args.tournament), info.players)
        if args.format == "csv":
            text = standings_csv(view)
            if args.output is None:
                sys.stdout.write(text)
                return None
            _write_atomically(args.output, text)
            return {"tournament": args.tournament, "written": str(args.output), "format": "csv"}
        return {"tournament": args.tournament, "name": info.name, "rounds": info.rounds,
                "planned_rounds": info.planned_rounds, "ended": info.ended, "final": info.ended,
                "tables": _tables(store, args, None), **_tournament_json(view)}
    raise AssertionError(command)


def _tables(store: Any, args: argparse.Namespace, round_no: int | None) -> list[dict[str, Any]]:
    return [{"round": s.round_no, "table": s.table_no, "match": s.id, "players": list(s.match.players),
             "deals": s.deals, "finished": s.closed is not None, "link": table_link(args.url, s.uid)}
            for s in store.list_matches(args.tournament) if round_no is None or s.round_no == round_no]


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise LedgerError(f"cannot write {path}: {exc}") from None


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
        try:
            print(json.dumps(result, ensure_ascii=False, indent=1))
        except BrokenPipeError:  # `| head`: the reader has what it wanted
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit: into nothing
    return 0


if __name__ == "__main__":
    sys.exit(main())
