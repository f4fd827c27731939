"""Score MCR hands from the command line.

    python -m scoring "[123m] [EEE] 456p78s11s +9s self-drawn seat=S" [--json] [--waits]
    python -m scoring --jsonl < hands.jsonl > scores.jsonl

Human mode prints the fan table (Chinese and English names, points, count), the total, the
8-fan minimum check, the fans excluded and what excluded them, warnings, and the payments
(the winner sits at the seat wind).  Flags on the command line add to the words of the
notation.  `--waits` lists the tiles that complete the standing hand (give the notation
without the `+` winning tile, or with it to see both).  Bad input: a one-line message on
stderr and exit status 2.

`--jsonl` reads one hand.schema.json object per line and writes one result per line, in
order (contracts.md); a bad line gives {"error": "..."} and the run goes on (exit 0).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, NoReturn, TextIO

from .fans import FLOWER_FAN_ID, MINIMUM_POINTS
from .hand import Hand, HandError, WinContext
from .notation import format_hand, format_tiles, parse_flowers, parse_hand
from .payments import BASE, payments
from .scorer import ScoreResult, score
from .tiles import ALL_TILES, Tile

EXIT_BAD_INPUT = 2


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`... | head -1`): stop quietly, as other command-line tools do.
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    """Point stdout at devnull so Python's final flush at exit does not raise again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests): nothing left to flush
        pass
    finally:
        os.close(devnull)


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.jsonl:
        if args.notation:
            _fail("--jsonl reads hands from standard input; give no notation with it")
        return run_jsonl(sys.stdin, sys.stdout)
    if not args.notation:
        _fail('give a hand, e.g. python -m scoring "[123m] [EEE] 456p78s11s +9s", or --jsonl')
    text = " ".join(args.notation)
    try:
        return _run_human(text, args)
    except HandError as exc:
        _fail(str(exc))
    except (ValueError, RecursionError) as exc:  # a parser gap must still be one line, not a traceback
        _fail(f"cannot read this hand: {type(exc).__name__}: {str(exc)[:200]}")


# --- --jsonl ---------------------------------------------------------------------------------


def run_jsonl(lines: Iterable[str], out: TextIO) -> int:
    """One result (or {"error": ...}) per input line, in order."""
    out.writelines(json.dumps(score_json_line(line), ensure_ascii=False) + "\n" for line in lines)
    out.flush()
    return 0


def score_json_line(line: str) -> dict[str, Any]:
    if not line.strip():
        return {"error": "empty line: expected a hand as a JSON object"}
    try:
        return score(Hand.from_json(line)).to_json()
    except HandError as exc:
        return {"error": str(exc)}
    except RecursionError:
        return {"error": "not valid JSON: nested too deeply"}
    except Exception as exc:
        return {"error": f"internal error while scoring this hand: {type(exc).__name__}: {exc}"}


# --- human mode -------------------------------------------------------------------------------


class _OneLineErrors(argparse.ArgumentParser):
    """Usage mistakes as one line on stderr, exit status 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        _fail(f"{message} (see python -m scoring --help)")


def _parser() -> argparse.ArgumentParser:
    p = _OneLineErrors(
        prog="python -m scoring",
        description="Score a Chinese Official (MCR) mahjong hand: fans, total, minimum, payments.",
        epilog='Notation: "[123m] [EEE] (5555p) 456p78s11s +9s self-drawn seat=S prevalent=W flowers=2"; '
        "[...] exposed meld, (...) concealed kong, + the winning tile.",
    )
    p.add_argument("notation", nargs="*", help="the hand in the compact notation (quote it)")
    p.add_argument("--jsonl", action="store_true", help="read hand JSON objects from stdin, one per line")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--waits", action="store_true", help="list the tiles that complete the standing hand")
    p.add_argument("--self-drawn", action="store_true", help="won by drawing the tile (default: on a discard)")
    p.add_argument("--seat-wind", choices=list("ESWN"), help="the winner's seat wind (default E)")
    p.add_argument("--prevalent-wind", choices=list("ESWN"), help="the prevalent (round) wind (default E)")
    p.add_argument("--flowers", type=_flower_count, metavar="N", help="flower and season tiles, 0-8")
    p.add_argument("--discarder", choices=list("ESWN"), help="seat of the player who discarded the winning tile")
    for flag, text in (
        ("--last-tile", "the winning tile is the last of its kind (和绝张)"),
        ("--last-of-wall", "the last tile of the wall (妙手回春 / 海底捞月)"),
        ("--kong-replacement", "self-drawn on the replacement tile after a kong (杠上开花)"),
        ("--robbing-kong", "won on a tile added to another player's kong (抢杠和)"),
    ):
        p.add_argument(flag, action="store_true", help=text)
    return p


def _flower_count(text: str) -> int:
    try:
        return parse_flowers(text)
    except HandError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_INPUT)


def _context(base: WinContext, args: argparse.Namespace) -> WinContext:
    changes: dict[str, Any] = {}
    for name in ("self_drawn", "last_tile", "last_of_wall", "kong_replacement", "robbing_kong"):
        if getattr(args, name):
            changes[name] = True
    if args.seat_wind:
        changes["seat_wind"] = Tile.parse(args.seat_wind)
    if args.prevalent_wind:
        changes["prevalent_wind"] = Tile.parse(args.prevalent_wind)
    if args.flowers is not None:
        changes["flowers"] = args.flowers
    return replace(base, **changes)


def parse_ready_hand(text: str) -> Hand:
    """A hand whose winning tile may be missing (for --waits): a stand-in tile is added."""
    if "+" in text:
        return parse_hand(text)
    error: HandError | None = None
    for stand_in in ALL_TILES:  # the first tile not already held four times
        try:
            return parse_hand(f"{text} +{stand_in}")
        except HandError as exc:
            error = exc
    assert error is not None
    raise error


def _run_human(text: str, args: argparse.Namespace) -> int:
    has_win = "+" in text
    if args.waits:
        hand = parse_ready_hand(text)
    else:
        hand = parse_hand(text)
    hand = replace(hand, context=_context(hand.context, args))
    result = score(hand) if has_win else None
    ready = _waits(hand) if args.waits else None
    if args.discarder and (hand.context.self_drawn or args.discarder == hand.context.seat_wind.name):
        raise HandError("--discarder must be another seat than the winner's, and only for a win on a discard")
    if args.json:
        print(json.dumps(_json(hand, result, ready, args.discarder), ensure_ascii=False))
        return 0
    if result is not None:
        print(report(hand, result, args.discarder))
    if ready is not None:
        if result is not None:
            print()
        print(waits_report(hand, ready))
    return 0


def _waits(hand: Hand) -> list[Any]:
    from .waits import waits  # only this mode needs it

    return waits(hand.melds, hand.concealed, hand.context)


def _json(hand: Hand, result: ScoreResult | None, ready: list[Any] | None, discarder: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"hand": hand.to_json(), "notation": format_hand(hand)}
    if result is not None:
        out["score"] = result.to_json()
        if not hand.context.self_drawn and discarder is None:
            out["payments"] = {"discarder": -(BASE + result.total), "others": -BASE, "winner": 3 * BASE + result.total}
        else:
            out["payments"] = payments(result.total, hand.context.self_drawn, hand.context.seat_wind.name, discarder)
    if ready is not None:
        out["waits"] = [
            {
                "tile": str(w.tile),
                "discard": w.discard.to_json() if w.discard else None,
                "self_drawn": w.self_drawn.to_json() if w.self_drawn else None,
            }
            for w in ready
        ]
    return out


def report(hand: Hand, result: ScoreResult, discarder: str | None = None) -> str:
    """The human-readable score sheet."""
    lines = [f"Hand: {format_hand(hand)}", f"Decomposition: {result.decomposition}", ""]
    rows = [(f"{fc.fan.name_zh} {fc.fan.name_en}", fc.fan.points, fc.count, fc.points_total) for fc in result.fans]
    width = max([len("Fan")] + [_display_width(r[0]) for r in rows])
    lines.append(f"{'Fan'}{' ' * (width - 3)}  {'Points':>6}  {'Count':>5}  {'Total':>5}")
    for name, points, count, total in rows:
        lines.append(f"{name}{' ' * (width - _display_width(name))}  {points:>6}  {count:>5}  {total:>5}")
    lines.append(f"{'Total'}{' ' * (width - 5)}  {'':>6}  {'':>5}  {result.total:>5}")
    flowers = sum(fc.points_total for fc in result.fans if fc.fan.id == FLOWER_FAN_ID)
    without = result.total - flowers
    verdict = "meets" if result.meets_minimum else "is BELOW"
    lines.append(f"Minimum: {without} fan without flowers {verdict} the {MINIMUM_POINTS}-fan minimum")
    if result.excluded:
        lines.append("Not counted (excluded):")
        lines += [f"  {e.fan.name_zh} {e.fan.name_en}: excluded by {e.excluded_by.name_en} ({e.excluded_by.name_zh})"
                  for e in result.excluded]
    if result.warnings:
        lines.append("Warnings:")
        lines += [f"  {w}" for w in result.warnings]
    lines.append(_payments_text(hand, result.total, discarder))
    return "\n".join(lines)


def _payments_text(hand: Hand, total: int, discarder: str | None) -> str:
    winner = hand.context.seat_wind.name
    if hand.context.self_drawn:
        paid = payments(total, True, winner)
        return (f"Payments (self-drawn, winner {winner}): each other player pays {BASE} + {total} = {BASE + total}; "
                + _seats(paid))
    text = (f"Payments (on a discard, winner {winner}): the discarder pays {BASE} + {total} = {BASE + total}, "
            f"the other two pay {BASE} each; the winner gets {3 * BASE + total}")
    if discarder:
        text += "; " + _seats(payments(total, False, winner, discarder))
    return text


def _seats(paid: dict[str, int]) -> str:
    return " ".join(f"{seat} {value:+d}" for seat, value in paid.items())


def waits_report(hand: Hand, ready: list[Any]) -> str:
    standing = format_tiles(hand.concealed)
    if not ready:
        return f"Waits: none, {standing} is not ready (no tile completes it)"
    lines = [f"Waits of {standing}: {' '.join(str(w.tile) for w in ready)}",
             f"{'Tile':<5} {'Discard':>8} {'Self-drawn':>11}"]
    for w in ready:
        d = w.discard.total if w.discard else "-"
        s = w.self_drawn.total if w.self_drawn else "-"
        lines.append(f"{w.tile!s:<5} {d!s:>8} {s!s:>11}")
    return "\n".join(lines)


def _display_width(text: str) -> int:
    """Terminal columns: CJK characters take two."""
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)


if __name__ == "__main__":
    raise SystemExit(main())
