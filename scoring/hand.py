"""The hand model: melds, the concealed tiles, the winning tile and the win context.

Frozen values.  `Hand.from_json` / `parse_hand` (notation) validate once, at the
entry point, and raise `HandError` with a message a player understands.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from .tiles import WIND_NAMES, Tile, TileError


class HandError(ValueError):
    """Input that is not a valid hand: the message says why, in player terms."""


class MeldKind(str, Enum):
    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set. Chows and pungs are exposed; a kong is exposed unless `concealed`."""

    kind: MeldKind
    tiles: tuple[Tile, ...]
    concealed: bool = False

    @property
    def first(self) -> Tile:
        return self.tiles[0]

    @staticmethod
    def chow(lowest: Tile) -> Meld:
        second, third = lowest.next_in_suit(1), lowest.next_in_suit(2)
        if second is None or third is None:
            raise HandError(f"no chow starts at {lowest}: a chow is three consecutive tiles of one suit")
        return Meld(MeldKind.CHOW, (lowest, second, third))

    @staticmethod
    def pung(tile: Tile) -> Meld:
        return Meld(MeldKind.PUNG, (tile,) * 3)

    @staticmethod
    def kong(tile: Tile, concealed: bool = False) -> Meld:
        return Meld(MeldKind.KONG, (tile,) * 4, concealed)

    def validate(self) -> Meld:
        """This meld with its tiles sorted, or HandError when it is not a set."""
        tiles = tuple(sorted(self.tiles))
        label = " ".join(map(str, self.tiles))
        if self.concealed and self.kind is not MeldKind.KONG:
            raise HandError(f"only a kong can be concealed among the melds, not the {self.kind.value} {label}")
        if self.kind is MeldKind.CHOW:
            if len(tiles) != 3 or not tiles[0].is_suited or tiles[1] != tiles[0].next_in_suit(1) or tiles[2] != tiles[0].next_in_suit(2):
                raise HandError(f"{label} is not a chow: a chow is three consecutive tiles of one suit")
        else:
            size = 3 if self.kind is MeldKind.PUNG else 4
            if len(tiles) != size or len(set(tiles)) != 1:
                raise HandError(f"{label} is not a {self.kind.value}: a {self.kind.value} is {size} identical tiles")
        return replace(self, tiles=tiles)


@dataclass(frozen=True, slots=True)
class WinContext:
    """The situational facts that no photo can show."""

    self_drawn: bool = False
    seat_wind: Tile = Tile.parse("E")
    prevalent_wind: Tile = Tile.parse("E")
    flowers: int = 0
    last_tile: bool = False
    last_of_wall: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False


@dataclass(frozen=True, slots=True)
class Hand:
    """A finished hand. `concealed` holds the standing tiles WITHOUT the winning tile."""

    melds: tuple[Meld, ...]
    concealed: tuple[Tile, ...]
    win_tile: Tile
    context: WinContext = field(default_factory=WinContext)

    @property
    def all_tiles(self) -> tuple[Tile, ...]:
        """Every tile of the hand (kongs count four), the winning tile included."""
        return tuple(t for m in self.melds for t in m.tiles) + self.concealed + (self.win_tile,)

    @property
    def concealed_with_win(self) -> tuple[Tile, ...]:
        return (*self.concealed, self.win_tile)

    def tile_counts(self) -> Counter[Tile]:
        return Counter(self.all_tiles)

    def validate(self) -> Hand:
        """The hand with melds normalised, or HandError naming the first problem found."""
        if len(self.melds) > 4:
            raise HandError(f"a hand has at most 4 melds, this one has {len(self.melds)}")
        melds = tuple(m.validate() for m in self.melds)
        expected = 13 - 3 * len(melds)
        if len(self.concealed) != expected:
            raise HandError(
                f"with {len(melds)} meld(s) the standing hand must hold {expected} tiles "
                f"plus the winning tile, but it holds {len(self.concealed)}"
            )
        hand = replace(self, melds=melds)
        for tile, n in sorted(hand.tile_counts().items()):
            if n > 4:
                raise HandError(f"{tile} appears {n} times; a set has only 4 of each tile")
        ctx = self.context
        if not 0 <= ctx.flowers <= 8:
            raise HandError(f"flowers must be 0 to 8, not {ctx.flowers}")
        for label, wind in (("seat wind", ctx.seat_wind), ("prevalent wind", ctx.prevalent_wind)):
            if not wind.is_wind:
                raise HandError(f"{label} must be one of E S W N, not {wind}")
        return hand

    # --- JSON (hand.schema.json) -------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        c = self.context
        return {
            "melds": [
                {"kind": m.kind.value, "tiles": [str(t) for t in m.tiles], "concealed": m.concealed}
                for m in self.melds
            ],
            "hand": [str(t) for t in self.concealed],
            "win_tile": str(self.win_tile),
            "self_drawn": c.self_drawn,
            "flowers": c.flowers,
            "seat_wind": str(c.seat_wind),
            "prevalent_wind": str(c.prevalent_wind),
            "last_tile": c.last_tile,
            "last_of_wall": c.last_of_wall,
            "kong_replacement": c.kong_replacement,
            "robbing_kong": c.robbing_kong,
        }

    @staticmethod
    def from_json(data: Any) -> Hand:
        """Parse and validate a hand.schema.json object (a dict, or a JSON string)."""
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise HandError(f"not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise HandError("a hand must be a JSON object")
        allowed = {
            "melds", "hand", "win_tile", "self_drawn", "flowers", "seat_wind", "prevalent_wind",
            "last_tile", "last_of_wall", "kong_replacement", "robbing_kong",
        }
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise HandError(f"unknown field(s): {', '.join(map(str, unknown))}")
        for key in ("melds", "hand", "win_tile", "self_drawn", "flowers", "seat_wind", "prevalent_wind"):
            if key not in data:
                raise HandError(f"missing field {key!r}")
        try:
            melds = tuple(_meld_from_json(m, i) for i, m in enumerate(_as_list(data["melds"], "melds")))
            concealed = tuple(_tile(t) for t in _as_list(data["hand"], "hand"))
            win_tile = _tile(data["win_tile"])
            context = WinContext(
                self_drawn=_bool(data, "self_drawn"),
                seat_wind=_wind(data["seat_wind"], "seat_wind"),
                prevalent_wind=_wind(data["prevalent_wind"], "prevalent_wind"),
                flowers=_int(data["flowers"], "flowers"),
                last_tile=_bool(data, "last_tile"),
                last_of_wall=_bool(data, "last_of_wall"),
                kong_replacement=_bool(data, "kong_replacement"),
                robbing_kong=_bool(data, "robbing_kong"),
            )
        except TileError as exc:
            raise HandError(str(exc)) from None
        return Hand(melds, concealed, win_tile, context).validate()


def _as_list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise HandError(f"{key!r} must be a list")
    return value


def _tile(value: Any) -> Tile:
    if not isinstance(value, str):
        raise HandError(f"a tile must be a name such as '5m' or 'E', not {value!r}")
    return Tile.parse(value)


def _wind(value: Any, key: str) -> Tile:
    if value not in tuple(WIND_NAMES):
        raise HandError(f"{key!r} must be one of E S W N, not {value!r}")
    return Tile.parse(value)


def _bool(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise HandError(f"{key!r} must be true or false, not {value!r}")
    return value


def _int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise HandError(f"{key!r} must be a whole number, not {value!r}")
    return value


def _meld_from_json(value: Any, index: int) -> Meld:
    if not isinstance(value, dict):
        raise HandError(f"meld {index + 1} must be an object with kind, tiles, concealed")
    extra = sorted(set(value) - {"kind", "tiles", "concealed"})
    if extra:
        raise HandError(f"meld {index + 1} has unknown field(s): {', '.join(map(str, extra))}")
    try:
        kind = MeldKind(value.get("kind"))
    except ValueError:
        raise HandError(f"meld {index + 1}: kind must be chow, pung or kong, not {value.get('kind')!r}") from None
    concealed = value.get("concealed", False)
    if not isinstance(concealed, bool):
        raise HandError(f"meld {index + 1}: concealed must be true or false")
    tiles = tuple(_tile(t) for t in _as_list(value.get("tiles"), "tiles"))
    return Meld(kind, tiles, concealed)


def count_tiles(tiles: Iterable[Tile]) -> list[int]:
    """Counts per tile index (34 entries)."""
    counts = [0] * 34
    for t in tiles:
        counts[t.index] += 1
    return counts
