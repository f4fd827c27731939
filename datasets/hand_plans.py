"""What a random hand is planned from: sets (chow, pung, kong), the plan of a standard hand, the special
shapes (seven pairs, thirteen orphans, knitted tiles), random sets from a pool of tiles.

`datasets.hands` builds a legal hand from a plan; `datasets.fan_templates` holds one plan per fan.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import accumulate

from scoring.hand import Meld
from scoring.tiles import ALL_TILES, Tile

SHAPES = ("standard", "seven_pairs", "thirteen_orphans", "honors_knitted", "knitted_straight")
SHAPE_WEIGHTS = (70, 10, 5, 7, 8)

SUITED = ALL_TILES[:27]
HONORS = ALL_TILES[27:]
TERMINALS = tuple(t for t in SUITED if t.is_terminal)
ORPHANS = TERMINALS + HONORS
SIMPLES = tuple(t for t in SUITED if not t.is_terminal)
GREEN = tuple(Tile.parse(n) for n in ("2s", "3s", "4s", "6s", "8s", "F"))
REVERSIBLE = tuple(Tile.parse(n) for n in ("1p", "2p", "3p", "4p", "5p", "8p", "9p", "2s", "4s", "5s", "6s", "8s", "9s", "P"))
KNITTED_RANKS = ((1, 4, 7), (2, 5, 8), (3, 6, 9))


class GenerationError(RuntimeError):
    """A template could not produce a legal hand (a bug in a template)."""


@dataclass(frozen=True)
class Group:
    """A set of a standard hand: chow (by its lowest tile), pung or kong.

    `exposed`: True for a claimed chow/pung or a melded kong, False for a concealed set or a
    concealed kong, None to let the generator choose.
    """

    kind: str
    first: Tile
    exposed: bool | None = None

    @property
    def tiles(self) -> tuple[Tile, ...]:
        if self.kind == "chow":
            return (self.first, ALL_TILES[self.first.index + 1], ALL_TILES[self.first.index + 2])
        return (self.first,) * (4 if self.kind == "kong" else 3)


@dataclass(frozen=True)
class Plan:
    """What a template fixes; the rest is chosen at random, consistently.

    `win`: "any" (a concealed tile), "pair", "set" (a tile of a concealed set), "edge",
    "closed" (of a concealed chow), "unique" (appears once in the whole hand), "fixed" (`win_tile`).
    `context`: WinContext fields forced to a value (e.g. {"self_drawn": True}).
    """

    groups: tuple[Group, ...]
    pair: Tile
    win: str = "any"
    context: Mapping[str, object] = field(default_factory=dict)
    win_tile: Tile | None = None  # with win="fixed"


def chow(first: Tile | str, exposed: bool | None = None) -> Group:
    return Group("chow", as_tile(first), exposed)


def pung(tile: Tile | str, exposed: bool | None = None) -> Group:
    return Group("pung", as_tile(tile), exposed)


def kong(tile: Tile | str, exposed: bool | None = None) -> Group:
    return Group("kong", as_tile(tile), exposed)


def as_tile(t: Tile | str) -> Tile:
    return t if isinstance(t, Tile) else Tile.parse(t)


def suited(rank: int, suit: str) -> Tile:
    return Tile.suited(rank, suit)


@dataclass(frozen=True)
class Special:
    """A hand of a special shape: all 14 tiles concealed (knitted straight may have one meld)."""

    tiles: tuple[Tile, ...]  # the concealed tiles with the winning tile among them
    melds: tuple[Meld, ...] = ()
    win_choices: tuple[Tile, ...] | None = None
    context: Mapping[str, object] = field(default_factory=dict)


def decide_exposure(rng: random.Random, g: Group) -> Group:
    """`g`, exposed or concealed at random where its plan leaves that open."""
    if g.exposed is not None:
        return g
    share = 0.5 if g.kind == "kong" else 0.35
    return replace(g, exposed=rng.random() < share)


def meld_of(g: Group) -> Meld:
    if g.kind == "chow":
        return Meld.chow(g.first)
    if g.kind == "pung":
        return Meld.pung(g.first)
    return Meld.kong(g.first, concealed=not g.exposed)


# --- random sets ----------------------------------------------------------------------------


def random_group(
    rng: random.Random,
    pool: Iterable[Tile] = ALL_TILES,
    kinds: tuple[str, ...] = ("chow", "pung", "kong"),
    weights: tuple[float, ...] | None = None,
    exposed: bool | None = None,
) -> Group | None:
    """A random set whose tiles all lie in `pool` (None when the pool allows none).

    Each kind gets its weight (default chow 0.5, pung 0.35, kong 0.15), shared by its candidates.
    """
    groups, cum_weights = _candidates(frozenset(pool), kinds, weights)
    if not groups:
        return None
    g = rng.choices(groups, cum_weights=cum_weights)[0]
    return g if exposed is None else replace(g, exposed=exposed)


_DEFAULT_KIND_WEIGHTS = {"chow": 0.5, "pung": 0.35, "kong": 0.15}


@lru_cache(maxsize=256)
def _candidates(
    pool: frozenset[Tile], kinds: tuple[str, ...], weights: tuple[float, ...] | None
) -> tuple[tuple[Group, ...], tuple[float, ...]]:
    groups: list[Group] = []
    raw: list[float] = []
    for kind, w in zip(kinds, weights or tuple(_DEFAULT_KIND_WEIGHTS[k] for k in kinds), strict=False):
        of_kind = [
            Group(kind, t)
            for t in sorted(pool)
            if (kind != "chow" or (t.is_suited and t.rank <= 7)) and all(x in pool for x in Group(kind, t).tiles)
        ]
        groups += of_kind
        raw += [w / max(len(of_kind), 1)] * len(of_kind)
    return tuple(groups), tuple(accumulate(raw))


def fill(
    rng: random.Random,
    groups: Iterable[Group],
    n: int = 4,
    pool: Iterable[Tile] = ALL_TILES,
    kinds: tuple[str, ...] = ("chow", "pung", "kong"),
    weights: tuple[float, ...] | None = None,
) -> tuple[Group, ...]:
    """`groups` plus random sets from `pool` up to `n` sets."""
    out = list(groups)
    while len(out) < n:
        out.append(some_group(rng, pool, kinds, weights))
    rng.shuffle(out)
    return tuple(out)


def some_group(
    rng: random.Random,
    pool: Iterable[Tile],
    kinds: tuple[str, ...] = ("chow", "pung", "kong"),
    weights: tuple[float, ...] | None = None,
) -> Group:
    """random_group, or GenerationError when the pool allows no set."""
    g = random_group(rng, pool, kinds, weights)
    if g is None:
        raise GenerationError("empty pool for a set")
    return g


def distinct_suits(rng: random.Random, k: int) -> list[str]:
    return rng.sample("mps", k)


# --- shapes ---------------------------------------------------------------------------------


def standard_plan(rng: random.Random) -> Plan:
    return Plan(fill(rng, ()), rng.choice(ALL_TILES))


def seven_pairs_plan(rng: random.Random, pairs: list[Tile] | None = None) -> Special:
    pairs = pairs or [rng.choice(ALL_TILES) for _ in range(7)]
    return Special(tuple(t for p in pairs for t in (p, p)))


def thirteen_orphans_plan(rng: random.Random) -> Special:
    return Special((*ORPHANS, rng.choice(ORPHANS)))


def knitted_tiles(rng: random.Random) -> tuple[Tile, ...]:
    """The nine tiles of a knitted straight: 147, 258, 369 in three different suits."""
    suits = distinct_suits(rng, 3)
    return tuple(suited(r, s) for ranks, s in zip(KNITTED_RANKS, suits, strict=False) for r in ranks)


def honors_knitted_plan(rng: random.Random, greater: bool | None = None) -> Special:
    knitted = knitted_tiles(rng)
    if greater is None:
        greater = rng.random() < 0.3
    n_honors = 7 if greater else rng.choice((5, 6))
    honors = rng.sample(HONORS, n_honors)
    return Special(tuple(honors) + tuple(rng.sample(knitted, 14 - n_honors)))


def knitted_straight_plan(rng: random.Random) -> Special:
    knitted = knitted_tiles(rng)
    group = random_group(rng)
    assert group is not None
    pair = rng.choice(ALL_TILES)
    melded = group.kind == "kong" or rng.random() < 0.3
    if melded:
        g = decide_exposure(rng, group)
        meld = meld_of(replace(g, exposed=True) if g.kind != "kong" else g)
        return Special((*knitted, pair, pair), (meld,))
    return Special(knitted + group.tiles + (pair, pair))


SHAPE_BUILDERS: dict[str, Callable[[random.Random], Plan | Special]] = {
    "standard": standard_plan,
    "seven_pairs": seven_pairs_plan,
    "thirteen_orphans": thirteen_orphans_plan,
    "honors_knitted": honors_knitted_plan,
    "knitted_straight": knitted_straight_plan,
}


def any_shape_plan(rng: random.Random) -> Plan | Special:
    """A plan of a shape drawn by `SHAPE_WEIGHTS`."""
    return SHAPE_BUILDERS[rng.choices(SHAPES, weights=SHAPE_WEIGHTS)[0]](rng)
