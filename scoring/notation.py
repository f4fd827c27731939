"""A compact text notation for hands, for people and tests.

    [123m] [EEE] (5555p) 456p78s11s +9s self-drawn seat=S prevalent=W flowers=2

- Tiles: digits then their suit letter (`123m`, `456p`, `78s`), honors as letters
  `E S W N C F P`. Spaces between tiles are optional.
- `[...]` an exposed meld: three in a row is a chow, three alike a pung, four
  alike a melded kong. `(...)` a concealed kong.
- The standing tiles, then `+` and the winning tile.
- Then the win context as words, any order: `self-drawn`, `seat=E`,
  `prevalent=E`, `flowers=N`, `last-tile`, `last-of-wall`, `kong-replacement`,
  `robbing-kong`. Absent means false / East / 0.

`format_hand` writes the canonical form (melds, standing tiles in the order
given, winning tile, flags in the order above, defaults left out), and
`parse_hand(format_hand(h)) == h` for every valid hand.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .hand import Hand, HandError, Meld, MeldKind, WinContext
from .tiles import HONOR_NAMES, SUITS, Tile, TileError

_FLAG_WORDS = {
    "self-drawn": "self_drawn",
    "last-tile": "last_tile",
    "last-of-wall": "last_of_wall",
    "kong-replacement": "kong_replacement",
    "robbing-kong": "robbing_kong",
}
_FLOWER_COUNT = re.compile(r"[0-8]")
_TOKEN = re.compile(r"\[[^\]]*\]|\([^)]*\)|\+\s*\S+|[^\s\[\(+]+")


def parse_tiles(text: str) -> list[Tile]:
    """`123m45pEE` -> [1m, 2m, 3m, 4p, 5p, E, E]; spaces allowed."""
    tiles: list[Tile] = []
    digits = ""
    for ch in text:
        if ch.isspace():
            if digits:
                raise HandError(f"digits {digits!r} need a suit letter (m, p or s) in {text!r}")
            continue
        if ch in "123456789":
            digits += ch
        elif ch in SUITS:
            if not digits:
                raise HandError(f"suit letter {ch!r} without digits before it in {text!r}")
            tiles.extend(Tile.suited(int(d), ch) for d in digits)
            digits = ""
        elif ch in HONOR_NAMES:
            if digits:
                raise HandError(f"digits {digits!r} need a suit letter (m, p or s) in {text!r}")
            tiles.append(Tile.parse(ch))
        else:
            raise HandError(
                f"unknown tile character {ch!r} in {text!r}: use digits with m/p/s, or E S W N C F P"
            )
    if digits:
        raise HandError(f"digits {digits!r} need a suit letter (m, p or s) in {text!r}")
    return tiles


def format_tiles(tiles: tuple[Tile, ...] | list[Tile]) -> str:
    """Inverse of parse_tiles: runs of one suit share their letter, order kept."""
    out: list[str] = []
    for i, t in enumerate(tiles):
        if t.is_honor:
            out.append(t.name)
            continue
        out.append(str(t.rank))
        nxt = tiles[i + 1] if i + 1 < len(tiles) else None
        if nxt is None or nxt.suit != t.suit:
            out.append(t.suit)
    return "".join(out)


def _meld(text: str, concealed: bool) -> Meld:
    tiles = tuple(parse_tiles(text))
    if concealed or len(tiles) == 4:
        kind = MeldKind.KONG
    elif len(tiles) == 3 and len(set(tiles)) == 1:
        kind = MeldKind.PUNG
    else:
        kind = MeldKind.CHOW
    return Meld(kind, tiles, concealed)


def parse_hand(text: str) -> Hand:
    """Parse and validate the notation; HandError says what is wrong."""
    if not isinstance(text, str):
        raise HandError("the hand notation must be text")
    melds: list[Meld] = []
    standing: list[Tile] = []
    win: Tile | None = None
    ctx = WinContext()
    try:
        for token in _TOKEN.findall(text):
            if token.startswith("["):
                melds.append(_meld(token[1:-1], concealed=False))
            elif token.startswith("("):
                melds.append(_meld(token[1:-1], concealed=True))
            elif token.startswith("+"):
                if win is not None:
                    raise HandError("only one winning tile (+) is allowed")
                tiles = parse_tiles(token[1:])
                if len(tiles) != 1:
                    raise HandError(f"'+' must be followed by exactly one winning tile, got {token!r}")
                win = tiles[0]
            elif token in _FLAG_WORDS:
                flag: dict[str, Any] = {_FLAG_WORDS[token]: True}
                ctx = replace(ctx, **flag)
            elif "=" in token:
                ctx = _setting(ctx, token)
            elif win is not None:
                raise HandError(f"unexpected {token!r} after the winning tile: flags are words such as self-drawn, seat=S")
            else:
                standing.extend(parse_tiles(token))
        unclosed = text.count("[") - text.count("]") or text.count("(") - text.count(")")
        if unclosed:
            raise HandError("a meld bracket is not closed")
    except TileError as exc:
        raise HandError(str(exc)) from None
    if win is None:
        raise HandError("no winning tile: write it last, after '+', e.g. '+9s'")
    return Hand(tuple(melds), tuple(standing), win, ctx).validate()


def _setting(ctx: WinContext, token: str) -> WinContext:
    key, _, value = token.partition("=")
    if key in ("seat", "prevalent"):
        if value not in ("E", "S", "W", "N"):
            raise HandError(f"{key} wind must be one of E S W N, not {value!r}")
        wind: dict[str, Any] = {"seat_wind" if key == "seat" else "prevalent_wind": Tile.parse(value)}
        return replace(ctx, **wind)
    if key == "flowers":
        return replace(ctx, flowers=parse_flowers(value))
    raise HandError(f"unknown setting {token!r}: use seat=, prevalent= or flowers=")


def parse_flowers(text: str) -> int:
    """A flower count, 0 to 8 in ASCII digits (str.isdigit and int() take '²' and '٣' too)."""
    if not _FLOWER_COUNT.fullmatch(text):
        raise HandError(f"flowers must be a number 0 to 8, not {text[:20]!r}")
    return int(text)


def format_hand(hand: Hand) -> str:
    parts = []
    for m in hand.melds:
        body = format_tiles(m.tiles)
        parts.append(f"({body})" if m.concealed else f"[{body}]")
    if hand.concealed:
        parts.append(format_tiles(hand.concealed))
    parts.append(f"+{hand.win_tile}")
    c = hand.context
    if c.self_drawn:
        parts.append("self-drawn")
    if c.seat_wind.name != "E":
        parts.append(f"seat={c.seat_wind}")
    if c.prevalent_wind.name != "E":
        parts.append(f"prevalent={c.prevalent_wind}")
    if c.flowers:
        parts.append(f"flowers={c.flowers}")
    for word, attr in _FLAG_WORDS.items():
        if attr != "self_drawn" and getattr(c, attr):
            parts.append(word)
    return " ".join(parts)
