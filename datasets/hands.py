"""Seeded random LEGAL winning hands, for tests, differential checks and synthetic photos.

Every hand returned passes `Hand.validate()` (at most 4 copies of a tile, counting
melds, the standing tiles and the winning tile) and has a win context the scorer's flag
rules allow (`scoring.winflags`: kong_replacement only self-drawn with a kong, robbing_kong
only on a discard of a tile the hand holds no other copy of, last_tile only when the standing
tiles hold no other copy and always when the melds show the other three).  The generator
also never sets last_of_wall with robbing_kong (a robbed kong is not the last discard; the
scorer would score both); with kong_replacement it is allowed (the replacement drawn was the
wall's last tile), as the reference calculator scores it.

`random_hand(rng)` mixes all shapes (four sets and a pair with chows, pungs, melded and
concealed kongs; seven pairs; thirteen orphans; lesser / greater honors and knitted tiles;
knitted straight with a set and a pair).  `shape=` fixes the shape, `target_fan=ID` builds a
hand that contains the fan ID (a template per fan), so that all 81 fans are reachable.
Flowers are 0..8, seat and prevalent winds are random.

This is data generation, not rules: it lives with the other synthetic data (`datasets`), so
`scoring` stays the rules engine alone; the tests, `datasets.synth`, `training.evaluate_read
--generate` and the benchmarks draw their hands here.  `python -m datasets.hands --help`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import accumulate

from scoring.fans import FanId
from scoring.hand import Hand, Meld, WinContext
from scoring.tiles import ALL_TILES, DRAGONS, WINDS, Tile
from scoring.winflags import TileFacts, ruled_out

SHAPES = ("standard", "seven_pairs", "thirteen_orphans", "honors_knitted", "knitted_straight")
_SHAPE_WEIGHTS = (70, 10, 5, 7, 8)
_TARGETED_SHARE = 0.25  # of shape-free draws, aimed at a random fan for coverage of rare fans
_MAX_TRIES = 200

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
    return Group("chow", _tile(first), exposed)


def pung(tile: Tile | str, exposed: bool | None = None) -> Group:
    return Group("pung", _tile(tile), exposed)


def kong(tile: Tile | str, exposed: bool | None = None) -> Group:
    return Group("kong", _tile(tile), exposed)


def _tile(t: Tile | str) -> Tile:
    return t if isinstance(t, Tile) else Tile.parse(t)


def suited(rank: int, suit: str) -> Tile:
    return Tile.suited(rank, suit)


# --- public API ------------------------------------------------------------------------


def random_hand(rng: random.Random, *, shape: str | None = None, target_fan: int | None = None) -> Hand:
    """A legal winning hand with a consistent context (see the module doc)."""
    if shape is not None and shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}: use one of {', '.join(SHAPES)}")
    if target_fan is not None and target_fan not in TEMPLATES:
        raise ValueError(f"unknown fan id {target_fan!r}: use 1..81")
    fan = None if target_fan is None else FanId(target_fan)
    if shape is None and fan is None and rng.random() < _TARGETED_SHARE:
        fan = rng.choice(sorted(TEMPLATES))
    for _ in range(_MAX_TRIES):
        if fan is not None:
            hand = _build(rng, TEMPLATES[fan](rng))
        else:
            chosen = shape or rng.choices(SHAPES, weights=_SHAPE_WEIGHTS)[0]
            hand = _build(rng, _SHAPE_BUILDERS[chosen](rng))
        if hand is not None:
            return hand
    raise GenerationError(f"no legal hand after {_MAX_TRIES} tries (shape={shape}, target_fan={fan})")


def random_hands(seed: int, n: int, *, shape: str | None = None, target_fan: int | None = None) -> list[Hand]:
    """`n` hands from `random.Random(seed)`: the same seed gives the same hands."""
    rng = random.Random(seed)
    return [random_hand(rng, shape=shape, target_fan=target_fan) for _ in range(n)]


# --- building a hand from a plan -----------------------------------------------------------


@dataclass(frozen=True)
class _Special:
    """A hand of a special shape: all 14 tiles concealed (knitted straight may have one meld)."""

    tiles: tuple[Tile, ...]  # the concealed tiles with the winning tile among them
    melds: tuple[Meld, ...] = ()
    win_choices: tuple[Tile, ...] | None = None
    context: Mapping[str, object] = field(default_factory=dict)


def _build(rng: random.Random, plan: Plan | _Special | None) -> Hand | None:
    if plan is None:
        return None
    if isinstance(plan, _Special):
        return _build_special(rng, plan)
    groups = tuple(_decide_exposure(rng, g) for g in plan.groups)
    melds = tuple(_meld(g) for g in groups if g.exposed or g.kind == "kong")
    concealed_groups = [g for g in groups if not (g.exposed or g.kind == "kong")]
    standing = [t for g in concealed_groups for t in g.tiles] + [plan.pair, plan.pair]
    win = _choose_win(rng, plan, concealed_groups, standing, melds)
    if win is None:
        return None
    standing.remove(win)
    rng.shuffle(standing)
    standing.sort()
    return _finish(rng, melds, tuple(standing), win, plan.context)


def _decide_exposure(rng: random.Random, g: Group) -> Group:
    if g.exposed is not None:
        return g
    share = 0.5 if g.kind == "kong" else 0.35
    return replace(g, exposed=rng.random() < share)


def _meld(g: Group) -> Meld:
    if g.kind == "chow":
        return Meld.chow(g.first)
    if g.kind == "pung":
        return Meld.pung(g.first)
    return Meld.kong(g.first, concealed=not g.exposed)


def _choose_win(
    rng: random.Random, plan: Plan, groups: list[Group], standing: list[Tile], melds: tuple[Meld, ...]
) -> Tile | None:
    kind = plan.win
    if kind == "fixed":
        return plan.win_tile if plan.win_tile in standing else None
    if kind == "pair":
        return plan.pair
    chows = [g for g in groups if g.kind == "chow"]
    if kind == "edge":
        edges = [g.tiles[2] for g in chows if g.first.rank == 1] + [g.tiles[0] for g in chows if g.first.rank == 7]
        return rng.choice(edges) if edges else None
    if kind == "closed":
        return rng.choice([g.tiles[1] for g in chows]) if chows else None
    if kind == "set":
        tiles = [t for g in groups for t in g.tiles]
        return rng.choice(tiles) if tiles else None
    if kind == "unique":
        counts = _counts(list(standing) + [t for m in melds for t in m.tiles])
        once = [t for t in standing if counts[t] == 1]
        return rng.choice(once) if once else None
    return rng.choice(standing)


def _build_special(rng: random.Random, plan: _Special) -> Hand | None:
    tiles = list(plan.tiles)
    win = rng.choice(plan.win_choices or tiles)
    tiles.remove(win)
    return _finish(rng, plan.melds, tuple(sorted(tiles)), win, plan.context)


def _counts(tiles: Iterable[Tile]) -> dict[Tile, int]:
    out: dict[Tile, int] = {}
    for t in tiles:
        out[t] = out.get(t, 0) + 1
    return out


def _finish(
    rng: random.Random, melds: tuple[Meld, ...], standing: tuple[Tile, ...], win: Tile, forced: Mapping[str, object]
) -> Hand | None:
    all_tiles = [t for m in melds for t in m.tiles] + list(standing) + [win]
    if any(n > 4 for n in _counts(all_tiles).values()):
        return None
    context = _context(rng, melds, standing, win, forced)
    if context is None:
        return None
    return Hand(melds, standing, win, context).validate()


_FLOWER_CHOICES = (0, 0, 0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8)  # half the hands without flowers


def _forced_int(forced: Mapping[str, object], name: str, default: int) -> int:
    value = forced.get(name, default)
    return value if isinstance(value, int) else default


def _context(
    rng: random.Random, melds: tuple[Meld, ...], standing: tuple[Tile, ...], win: Tile, forced: Mapping[str, object]
) -> WinContext | None:
    """A random context consistent with the tiles, honouring `forced` values (None when impossible)."""
    facts = TileFacts.of(melds, standing, win)

    def pick(name: str, allowed: bool, chance: float) -> bool | None:
        if name in forced:
            value = bool(forced[name])
            return None if value and not allowed else value
        return allowed and rng.random() < chance

    self_drawn = bool(forced.get("self_drawn", rng.random() < 0.5))
    blocked = ruled_out(facts, self_drawn)  # the scorer's rules (scoring.winflags)
    kong_replacement = pick("kong_replacement", "kong_replacement" not in blocked, 0.3)
    robbing_kong = pick("robbing_kong", "robbing_kong" not in blocked, 0.2)
    if kong_replacement is None or robbing_kong is None:
        return None
    last_of_wall = pick("last_of_wall", not robbing_kong, 0.1)  # a choice of the generator's, not a rule
    last_tile = pick("last_tile", "last_tile" not in blocked, 0.25)
    if last_of_wall is None or last_tile is None:
        return None
    if facts.meld_copies_of_win == 3:  # the other three copies are on the table: this is the last one
        if forced.get("last_tile") is False:
            return None
        last_tile = True
    winds = "ESWN"
    return WinContext(
        self_drawn=self_drawn,
        seat_wind=_tile(str(forced.get("seat_wind", rng.choice(winds)))),
        prevalent_wind=_tile(str(forced.get("prevalent_wind", rng.choice(winds)))),
        flowers=_forced_int(forced, "flowers", rng.choice(_FLOWER_CHOICES)),
        last_tile=last_tile,
        last_of_wall=last_of_wall,
        kong_replacement=kong_replacement,
        robbing_kong=robbing_kong,
    )


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
        out.append(_some_group(rng, pool, kinds, weights))
    rng.shuffle(out)
    return tuple(out)


def _some_group(
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


def _suits(rng: random.Random, k: int) -> list[str]:
    return rng.sample("mps", k)


# --- shapes ---------------------------------------------------------------------------------


def standard_plan(rng: random.Random) -> Plan:
    return Plan(fill(rng, ()), rng.choice(ALL_TILES))


def seven_pairs_plan(rng: random.Random, pairs: list[Tile] | None = None) -> _Special:
    pairs = pairs or [rng.choice(ALL_TILES) for _ in range(7)]
    return _Special(tuple(t for p in pairs for t in (p, p)))


def thirteen_orphans_plan(rng: random.Random) -> _Special:
    return _Special((*ORPHANS, rng.choice(ORPHANS)))


def knitted_tiles(rng: random.Random) -> tuple[Tile, ...]:
    """The nine tiles of a knitted straight: 147, 258, 369 in three different suits."""
    suits = _suits(rng, 3)
    return tuple(suited(r, s) for ranks, s in zip(KNITTED_RANKS, suits, strict=False) for r in ranks)


def honors_knitted_plan(rng: random.Random, greater: bool | None = None) -> _Special:
    knitted = knitted_tiles(rng)
    if greater is None:
        greater = rng.random() < 0.3
    n_honors = 7 if greater else rng.choice((5, 6))
    honors = rng.sample(HONORS, n_honors)
    return _Special(tuple(honors) + tuple(rng.sample(knitted, 14 - n_honors)))


def knitted_straight_plan(rng: random.Random) -> _Special:
    knitted = knitted_tiles(rng)
    group = random_group(rng)
    assert group is not None
    pair = rng.choice(ALL_TILES)
    melded = group.kind == "kong" or rng.random() < 0.3
    if melded:
        g = _decide_exposure(rng, group)
        meld = _meld(replace(g, exposed=True) if g.kind != "kong" else g)
        return _Special((*knitted, pair, pair), (meld,))
    return _Special(knitted + group.tiles + (pair, pair))


_SHAPE_BUILDERS: dict[str, Callable[[random.Random], Plan | _Special]] = {
    "standard": standard_plan,
    "seven_pairs": seven_pairs_plan,
    "thirteen_orphans": thirteen_orphans_plan,
    "honors_knitted": honors_knitted_plan,
    "knitted_straight": knitted_straight_plan,
}


# --- one template per fan ---------------------------------------------------------------------

Template = Callable[[random.Random], "Plan | _Special | None"]


def _rand_suit(rng: random.Random) -> str:
    return rng.choice("mps")


def _t_big_four_winds(rng: random.Random) -> Plan:
    return Plan(fill(rng, [rng.choice((pung, kong))(w) for w in WINDS]), rng.choice(SUITED + DRAGONS))


def _t_big_three_dragons(rng: random.Random) -> Plan:
    return Plan(fill(rng, [rng.choice((pung, pung, kong))(d) for d in DRAGONS]), rng.choice(SUITED + WINDS))


def _t_all_green(rng: random.Random) -> Plan:
    return Plan(fill(rng, (), pool=GREEN), rng.choice(GREEN))


def _t_nine_gates(rng: random.Random) -> _Special:
    s = _rand_suit(rng)
    base = [suited(r, s) for r in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9)]
    extra = suited(rng.randint(1, 9), s)
    return _Special((*tuple(base), extra), win_choices=(extra,))


def _t_four_kongs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 5)
    return Plan(tuple(kong(t) for t in tiles[:4]), tiles[4])


def _t_seven_shifted_pairs(rng: random.Random) -> _Special:
    s, start = _rand_suit(rng), rng.randint(1, 3)
    return seven_pairs_plan(rng, [suited(start + i, s) for i in range(7)])


def _t_all_terminals(rng: random.Random) -> Plan:
    return Plan(fill(rng, (), pool=TERMINALS, kinds=("pung", "kong")), rng.choice(TERMINALS))


def _t_little_four_winds(rng: random.Random) -> Plan:
    winds = list(WINDS)
    rng.shuffle(winds)
    return Plan(fill(rng, [pung(w) for w in winds[:3]]), winds[3])


def _t_little_three_dragons(rng: random.Random) -> Plan:
    dragons = list(DRAGONS)
    rng.shuffle(dragons)
    return Plan(fill(rng, [pung(d) for d in dragons[:2]], pool=SUITED + WINDS), dragons[2])


def _t_all_honors(rng: random.Random) -> Plan:
    return Plan(fill(rng, (), pool=HONORS, kinds=("pung", "kong")), rng.choice(HONORS))


def _t_four_concealed_pungs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 5)
    groups = tuple(Group(rng.choice(("pung", "pung", "kong")), t, False) for t in tiles[:4])
    self_drawn = rng.random() < 0.5
    return Plan(groups, tiles[4], win="any" if self_drawn else "pair", context={"self_drawn": self_drawn})


def _t_pure_terminal_chows(rng: random.Random) -> Plan:
    s = _rand_suit(rng)
    return Plan(tuple(chow(suited(r, s)) for r in (1, 1, 7, 7)), suited(5, s))


def _t_quadruple_chow(rng: random.Random) -> Plan:
    first = suited(rng.randint(1, 7), _rand_suit(rng))
    return Plan((chow(first),) * 4, rng.choice(ALL_TILES))


def _t_four_pure_shifted_pungs(rng: random.Random) -> Plan:
    s, start = _rand_suit(rng), rng.randint(1, 6)
    return Plan(tuple(rng.choice((pung, pung, kong))(suited(start + i, s)) for i in range(4)), rng.choice(ALL_TILES))


def _t_four_pure_shifted_chows(rng: random.Random) -> Plan:
    s, step = _rand_suit(rng), rng.choice((1, 2))
    start = rng.randint(1, 7 - 3 * step)
    return Plan(tuple(chow(suited(start + i * step, s)) for i in range(4)), rng.choice(ALL_TILES))


def _t_three_kongs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 3)
    return Plan(fill(rng, [kong(t) for t in tiles], kinds=("chow", "pung")), rng.choice(ALL_TILES))


def _t_all_terminals_and_honors(rng: random.Random) -> Plan | _Special:
    if rng.random() < 0.25:
        return seven_pairs_plan(rng, [rng.choice(ORPHANS) for _ in range(7)])
    groups = [pung(rng.choice(TERMINALS)), pung(rng.choice(HONORS))]
    return Plan(fill(rng, groups, pool=ORPHANS, kinds=("pung", "kong")), rng.choice(ORPHANS))


def _t_seven_pairs(rng: random.Random) -> _Special:
    return seven_pairs_plan(rng)


def _t_greater_honors(rng: random.Random) -> _Special:
    return honors_knitted_plan(rng, greater=True)


def _t_all_even_pungs(rng: random.Random) -> Plan:
    evens = tuple(t for t in SUITED if t.rank % 2 == 0)
    return Plan(fill(rng, (), pool=evens, kinds=("pung", "kong")), rng.choice(evens))


def _one_suit_plan(rng: random.Random, s: str, honors: bool) -> Plan:
    pool = tuple(t for t in SUITED if t.suit == s) + (HONORS if honors else ())
    first = random_group(rng, [t for t in pool if t.is_honor]) if honors else None
    groups = fill(rng, [first] if first else (), pool=pool)
    return Plan(groups, rng.choice(pool))


def _t_full_flush(rng: random.Random) -> Plan:
    return _one_suit_plan(rng, _rand_suit(rng), honors=False)


def _t_pure_triple_chow(rng: random.Random) -> Plan:
    first = suited(rng.randint(1, 7), _rand_suit(rng))  # one exposed, else three pungs may score more
    return Plan(fill(rng, [chow(first, exposed=True), chow(first), chow(first)]), rng.choice(ALL_TILES))


def _t_pure_shifted_pungs(rng: random.Random) -> Plan:
    s, start = _rand_suit(rng), rng.randint(1, 7)
    return Plan(fill(rng, [pung(suited(start + i, s)) for i in range(3)]), rng.choice(ALL_TILES))


def _ranks_plan(rng: random.Random, ranks: range, must: int | None = None) -> Plan:
    """Suited tiles of `ranks` only; a set holding rank `must` (Upper/Lower Four need their 6 / 4)."""
    pool = tuple(t for t in SUITED if t.rank in ranks)
    groups = []
    if must is not None:
        group = random_group(rng, pool)
        while group is None or all(t.rank != must for t in group.tiles):
            group = random_group(rng, pool)
        groups.append(group)
    return Plan(fill(rng, groups, pool=pool), rng.choice(pool))


def _t_pure_straight(rng: random.Random) -> Plan:
    s = _rand_suit(rng)
    return Plan(fill(rng, [chow(suited(r, s)) for r in (1, 4, 7)]), rng.choice(ALL_TILES))


def _t_three_suited_terminal_chows(rng: random.Random) -> Plan:
    a, b, c = _suits(rng, 3)
    return Plan(tuple(chow(suited(r, s)) for s in (a, b) for r in (1, 7)), suited(5, c))


def _t_pure_shifted_chows(rng: random.Random) -> Plan:
    s, step = _rand_suit(rng), rng.choice((1, 2))
    start = rng.randint(1, 7 - 2 * step)
    return Plan(fill(rng, [chow(suited(start + i * step, s)) for i in range(3)]), rng.choice(ALL_TILES))


def _t_all_fives(rng: random.Random) -> Plan:
    groups = []
    for _ in range(4):
        s = _rand_suit(rng)
        groups.append(rng.choice((chow(suited(rng.randint(3, 5), s)), pung(suited(5, s)))))
    return Plan(tuple(groups), suited(5, _rand_suit(rng)))


def _t_triple_pung(rng: random.Random) -> Plan:
    r = rng.randint(1, 9)
    return Plan(fill(rng, [pung(suited(r, s)) for s in "mps"]), rng.choice(ALL_TILES))


def _t_three_concealed_pungs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 3)
    fourth = random_group(rng, kinds=("chow",), exposed=True)
    assert fourth is not None
    groups = (*tuple(Group(rng.choice(("pung", "pung", "kong")), t, False) for t in tiles), fourth)
    self_drawn = rng.random() < 0.5
    return Plan(groups, rng.choice(ALL_TILES), win="any" if self_drawn else "pair", context={"self_drawn": self_drawn})


def _t_lesser_honors(rng: random.Random) -> _Special:
    return honors_knitted_plan(rng, greater=False)


def _t_knitted_straight(rng: random.Random) -> _Special:
    return knitted_straight_plan(rng)


def _t_big_three_winds(rng: random.Random) -> Plan:
    winds = rng.sample(WINDS, 3)
    return Plan(fill(rng, [pung(w) for w in winds]), rng.choice(SUITED + DRAGONS))


def _t_mixed_straight(rng: random.Random) -> Plan:
    suits = _suits(rng, 3)
    return Plan(fill(rng, [chow(suited(r, s)) for r, s in zip((1, 4, 7), suits, strict=False)]), rng.choice(ALL_TILES))


def _t_reversible(rng: random.Random) -> Plan:
    return Plan(fill(rng, (), pool=REVERSIBLE), rng.choice(REVERSIBLE))


def _t_mixed_triple_chow(rng: random.Random) -> Plan:
    r = rng.randint(1, 7)
    return Plan(fill(rng, [chow(suited(r, s)) for s in "mps"]), rng.choice(ALL_TILES))


def _t_mixed_shifted_pungs(rng: random.Random) -> Plan:
    r, suits = rng.randint(1, 7), _suits(rng, 3)
    return Plan(fill(rng, [pung(suited(r + i, s)) for i, s in enumerate(suits)]), rng.choice(ALL_TILES))


def _t_chicken_hand(rng: random.Random) -> Plan | None:
    """No fan at all: three unrelated chows (one per suit), a simple pung, an honor pair,
    some sets exposed, won on a discard on a two-sided wait."""
    starts = rng.sample(range(2, 7), 3)
    if sorted(starts) in ([2, 3, 4], [3, 4, 5], [4, 5, 6]):
        return None
    suits = _suits(rng, 3)
    chows = [chow(suited(r, s), exposed=False) for r, s in zip(starts, suits, strict=False)]
    pung_suit = rng.choice("mps")
    used = {t for g in chows for t in g.tiles}
    ranks = [r for r in range(2, 9) if suited(r, pung_suit) not in used]
    the_pung = pung(suited(rng.choice(ranks), pung_suit), exposed=True)
    groups = [*chows, the_pung]
    exposed_chow = rng.randrange(3)
    groups[exposed_chow] = replace(groups[exposed_chow], exposed=rng.random() < 0.5)
    concealed = [g for g in groups if not g.exposed and g.kind == "chow"]
    target = rng.choice(concealed)
    win = target.tiles[0] if rng.random() < 0.5 else target.tiles[2]
    pair = rng.choice(HONORS)
    quiet = {"self_drawn": False, "last_tile": False, "last_of_wall": False, "robbing_kong": False}
    return Plan(tuple(groups), pair, win="fixed", context=quiet, win_tile=win)


def _t_flag(**ctx: object) -> Template:
    def template(rng: random.Random) -> Plan | _Special:
        base = _SHAPE_BUILDERS[rng.choices(SHAPES, weights=_SHAPE_WEIGHTS)[0]](rng)
        if "kong_replacement" in ctx:
            tiles = rng.sample(ALL_TILES, 2)
            base = Plan(fill(rng, [kong(tiles[0])]), tiles[1])
        if "robbing_kong" in ctx and isinstance(base, Plan):
            base = replace(base, win="unique")
        return replace(base, context={**base.context, **ctx})

    return template


def _t_all_pungs(rng: random.Random) -> Plan:
    exposed = pung(rng.choice(ALL_TILES), exposed=True)  # else Four Concealed Pungs may exclude it
    return Plan(fill(rng, [exposed], kinds=("pung", "kong"), weights=(0.8, 0.2)), rng.choice(ALL_TILES))


def _t_half_flush(rng: random.Random) -> Plan:
    return _one_suit_plan(rng, _rand_suit(rng), honors=True)


def _t_mixed_shifted_chows(rng: random.Random) -> Plan:
    r, suits = rng.randint(1, 5), _suits(rng, 3)
    return Plan(fill(rng, [chow(suited(r + i, s)) for i, s in enumerate(suits)]), rng.choice(ALL_TILES))


def _t_all_types(rng: random.Random) -> Plan:
    a, b, c = _suits(rng, 3)
    parts = [random_group(rng, [t for t in SUITED if t.suit == s]) for s in (a, b, c)]
    honor_sets = [pung(rng.choice(WINDS)), pung(rng.choice(DRAGONS))]
    rng.shuffle(honor_sets)
    groups = [g for g in parts if g] + [honor_sets[0]]
    pair = honor_sets[1].first
    return Plan(tuple(groups), pair)


def _t_melded_hand(rng: random.Random) -> Plan:
    groups = tuple(replace(g, exposed=True) for g in fill(rng, ()))
    return Plan(groups, rng.choice(ALL_TILES), win="pair", context={"self_drawn": False})


def _t_two_concealed_kongs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 2)
    return Plan(fill(rng, [kong(t, exposed=False) for t in tiles], kinds=("chow", "pung")), rng.choice(ALL_TILES))


def _t_two_dragon_pungs(rng: random.Random) -> Plan:
    dragons = rng.sample(DRAGONS, 2)
    return Plan(fill(rng, [pung(d) for d in dragons], pool=SUITED + WINDS), rng.choice(SUITED + WINDS))


def _t_outside_hand(rng: random.Random) -> Plan:
    outside_chows = tuple(t for t in SUITED if t.rank in (1, 7))
    groups = [chow(rng.choice(outside_chows))]
    while len(groups) < 4:
        groups.append(chow(rng.choice(outside_chows)) if rng.random() < 0.6 else pung(rng.choice(ORPHANS)))
    return Plan(tuple(groups), rng.choice(ORPHANS))


def _t_fully_concealed(rng: random.Random) -> Plan:
    groups = tuple(replace(g, exposed=False) for g in fill(rng, ()))
    return Plan(groups, rng.choice(ALL_TILES), context={"self_drawn": True})


def _t_two_melded_kongs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 2)
    return Plan(fill(rng, [kong(t, exposed=True) for t in tiles], kinds=("chow", "pung")), rng.choice(ALL_TILES))


def _t_last_tile(rng: random.Random) -> Plan | _Special:
    base = _SHAPE_BUILDERS[rng.choices(SHAPES, weights=_SHAPE_WEIGHTS)[0]](rng)
    return replace(base, context={**base.context, "last_tile": True, "robbing_kong": False})


def _with_group(
    make: Callable[[random.Random], Group],
    pair_pool: tuple[Tile, ...] = ALL_TILES,
    kinds: tuple[str, ...] = ("chow", "pung", "kong"),
) -> Template:
    def template(rng: random.Random) -> Plan:
        return Plan(fill(rng, [make(rng)], pool=pair_pool, kinds=kinds), rng.choice(pair_pool))

    return template


def _t_wind_pung(which: str) -> Template:
    def template(rng: random.Random) -> Plan:
        w = rng.choice(WINDS)
        return Plan(fill(rng, [pung(w)]), rng.choice(SUITED), context={which: w.name})

    return template


def _t_concealed_hand(rng: random.Random) -> Plan:
    groups = tuple(replace(g, exposed=False) if g.kind != "kong" else g for g in fill(rng, ()))
    groups = tuple(replace(g, exposed=False) for g in groups)
    return Plan(groups, rng.choice(ALL_TILES), context={"self_drawn": False})


def _t_all_chows(rng: random.Random) -> Plan:
    return Plan(fill(rng, (), kinds=("chow",)), rng.choice(SUITED))


def _t_tile_hog(rng: random.Random) -> Plan:
    first = suited(rng.randint(1, 7), _rand_suit(rng))
    hog = rng.choice(chow(first).tiles)
    groups = [chow(first), pung(hog)] if rng.random() < 0.6 else [chow(first), chow(first)]
    pair = hog if len(groups) == 2 and groups[1].kind == "chow" else rng.choice(ALL_TILES)
    return Plan(fill(rng, groups), pair)


def _t_double_pung(rng: random.Random) -> Plan:
    r, (a, b) = rng.randint(1, 9), _suits(rng, 2)
    return Plan(fill(rng, [pung(suited(r, a)), pung(suited(r, b))]), rng.choice(ALL_TILES))


def _t_two_concealed_pungs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 2)
    groups = fill(rng, [Group("pung", t, False) for t in tiles], kinds=("chow",))
    self_drawn = rng.random() < 0.5
    return Plan(groups, rng.choice(ALL_TILES), win="any" if self_drawn else "pair", context={"self_drawn": self_drawn})


def _t_pure_double_chow(rng: random.Random) -> Plan:
    first = suited(rng.randint(1, 7), _rand_suit(rng))
    return Plan(fill(rng, [chow(first)] * 2), rng.choice(ALL_TILES))


def _t_mixed_double_chow(rng: random.Random) -> Plan:
    r, (a, b) = rng.randint(1, 7), _suits(rng, 2)
    return Plan(fill(rng, [chow(suited(r, a)), chow(suited(r, b))]), rng.choice(ALL_TILES))


def _t_short_straight(rng: random.Random) -> Plan:
    r, s = rng.randint(1, 4), _rand_suit(rng)
    return Plan(fill(rng, [chow(suited(r, s)), chow(suited(r + 3, s))]), rng.choice(ALL_TILES))


def _t_two_terminal_chows(rng: random.Random) -> Plan:
    s = _rand_suit(rng)
    return Plan(fill(rng, [chow(suited(1, s)), chow(suited(7, s))]), rng.choice(ALL_TILES))


def _t_one_voided_suit(rng: random.Random) -> Plan:
    a, b = _suits(rng, 2)
    pool = tuple(t for t in ALL_TILES if t.suit in (a, b, "z"))
    groups = fill(rng, [_some_group(rng, [t for t in SUITED if t.suit == s]) for s in (a, b)], pool=pool)
    return Plan(groups, rng.choice(pool))


def _t_no_honors(rng: random.Random) -> Plan:
    """Suited tiles only, with a terminal and a pung (else All Simples / All Chows exclude it)."""
    groups = [chow(suited(rng.choice((1, 7)), _rand_suit(rng))), pung(rng.choice(SUITED))]
    return Plan(fill(rng, groups, pool=SUITED), rng.choice(SUITED))


def _t_wait(kind: str) -> Template:
    """The waiting set in one suit, everything else elsewhere, so the hand waits on one tile."""

    def template(rng: random.Random) -> Plan:
        s = _rand_suit(rng)
        elsewhere = tuple(t for t in ALL_TILES if t.suit != s)
        if kind == "single":
            return Plan(fill(rng, (), pool=elsewhere), rng.choice([t for t in ALL_TILES if t.suit == s]), win="pair")
        first = suited(rng.choice((1, 7)) if kind == "edge" else rng.randint(1, 7), s)
        return Plan(fill(rng, [chow(first, exposed=False)], pool=elsewhere), rng.choice(elsewhere), win=kind)

    return template


def _t_self_drawn(rng: random.Random) -> Plan:
    groups = list(fill(rng, (), kinds=("chow", "pung")))
    groups[0] = replace(groups[0], exposed=True)
    return Plan(tuple(groups), rng.choice(ALL_TILES), context={"self_drawn": True, "last_of_wall": False})


def _t_flowers(rng: random.Random) -> Plan | _Special:
    base = _SHAPE_BUILDERS[rng.choices(SHAPES, weights=_SHAPE_WEIGHTS)[0]](rng)
    return replace(base, context={**base.context, "flowers": rng.randint(1, 8)})


TEMPLATES: dict[FanId, Template] = {
    FanId.BIG_FOUR_WINDS: _t_big_four_winds,
    FanId.BIG_THREE_DRAGONS: _t_big_three_dragons,
    FanId.ALL_GREEN: _t_all_green,
    FanId.NINE_GATES: _t_nine_gates,
    FanId.FOUR_KONGS: _t_four_kongs,
    FanId.SEVEN_SHIFTED_PAIRS: _t_seven_shifted_pairs,
    FanId.THIRTEEN_ORPHANS: lambda rng: thirteen_orphans_plan(rng),
    FanId.ALL_TERMINALS: _t_all_terminals,
    FanId.LITTLE_FOUR_WINDS: _t_little_four_winds,
    FanId.LITTLE_THREE_DRAGONS: _t_little_three_dragons,
    FanId.ALL_HONORS: _t_all_honors,
    FanId.FOUR_CONCEALED_PUNGS: _t_four_concealed_pungs,
    FanId.PURE_TERMINAL_CHOWS: _t_pure_terminal_chows,
    FanId.QUADRUPLE_CHOW: _t_quadruple_chow,
    FanId.FOUR_PURE_SHIFTED_PUNGS: _t_four_pure_shifted_pungs,
    FanId.FOUR_PURE_SHIFTED_CHOWS: _t_four_pure_shifted_chows,
    FanId.THREE_KONGS: _t_three_kongs,
    FanId.ALL_TERMINALS_AND_HONORS: _t_all_terminals_and_honors,
    FanId.SEVEN_PAIRS: _t_seven_pairs,
    FanId.GREATER_HONORS_AND_KNITTED_TILES: _t_greater_honors,
    FanId.ALL_EVEN_PUNGS: _t_all_even_pungs,
    FanId.FULL_FLUSH: _t_full_flush,
    FanId.PURE_TRIPLE_CHOW: _t_pure_triple_chow,
    FanId.PURE_SHIFTED_PUNGS: _t_pure_shifted_pungs,
    FanId.UPPER_TILES: lambda rng: _ranks_plan(rng, range(7, 10)),
    FanId.MIDDLE_TILES: lambda rng: _ranks_plan(rng, range(4, 7)),
    FanId.LOWER_TILES: lambda rng: _ranks_plan(rng, range(1, 4)),
    FanId.PURE_STRAIGHT: _t_pure_straight,
    FanId.THREE_SUITED_TERMINAL_CHOWS: _t_three_suited_terminal_chows,
    FanId.PURE_SHIFTED_CHOWS: _t_pure_shifted_chows,
    FanId.ALL_FIVES: _t_all_fives,
    FanId.TRIPLE_PUNG: _t_triple_pung,
    FanId.THREE_CONCEALED_PUNGS: _t_three_concealed_pungs,
    FanId.LESSER_HONORS_AND_KNITTED_TILES: _t_lesser_honors,
    FanId.KNITTED_STRAIGHT: _t_knitted_straight,
    FanId.UPPER_FOUR: lambda rng: _ranks_plan(rng, range(6, 10), must=6),
    FanId.LOWER_FOUR: lambda rng: _ranks_plan(rng, range(1, 5), must=4),
    FanId.BIG_THREE_WINDS: _t_big_three_winds,
    FanId.MIXED_STRAIGHT: _t_mixed_straight,
    FanId.REVERSIBLE_TILES: _t_reversible,
    FanId.MIXED_TRIPLE_CHOW: _t_mixed_triple_chow,
    FanId.MIXED_SHIFTED_PUNGS: _t_mixed_shifted_pungs,
    FanId.CHICKEN_HAND: _t_chicken_hand,
    FanId.LAST_TILE_DRAW: _t_flag(self_drawn=True, last_of_wall=True),
    FanId.LAST_TILE_CLAIM: _t_flag(self_drawn=False, last_of_wall=True),
    FanId.OUT_WITH_REPLACEMENT_TILE: _t_flag(self_drawn=True, kong_replacement=True),
    FanId.ROBBING_THE_KONG: _t_flag(self_drawn=False, robbing_kong=True),
    FanId.ALL_PUNGS: _t_all_pungs,
    FanId.HALF_FLUSH: _t_half_flush,
    FanId.MIXED_SHIFTED_CHOWS: _t_mixed_shifted_chows,
    FanId.ALL_TYPES: _t_all_types,
    FanId.MELDED_HAND: _t_melded_hand,
    FanId.TWO_CONCEALED_KONGS: _t_two_concealed_kongs,
    FanId.TWO_DRAGON_PUNGS: _t_two_dragon_pungs,
    FanId.OUTSIDE_HAND: _t_outside_hand,
    FanId.FULLY_CONCEALED_HAND: _t_fully_concealed,
    FanId.TWO_MELDED_KONGS: _t_two_melded_kongs,
    FanId.LAST_TILE: _t_last_tile,
    FanId.DRAGON_PUNG: _with_group(lambda rng: pung(rng.choice(DRAGONS)), SUITED + WINDS),
    FanId.PREVALENT_WIND: _t_wind_pung("prevalent_wind"),
    FanId.SEAT_WIND: _t_wind_pung("seat_wind"),
    FanId.CONCEALED_HAND: _t_concealed_hand,
    FanId.ALL_CHOWS: _t_all_chows,
    FanId.TILE_HOG: _t_tile_hog,
    FanId.DOUBLE_PUNG: _t_double_pung,
    FanId.TWO_CONCEALED_PUNGS: _t_two_concealed_pungs,
    FanId.CONCEALED_KONG: _with_group(lambda rng: kong(rng.choice(ALL_TILES), exposed=False), kinds=("chow", "pung")),
    FanId.ALL_SIMPLES: lambda rng: Plan(fill(rng, (), pool=SIMPLES), rng.choice(SIMPLES)),
    FanId.PURE_DOUBLE_CHOW: _t_pure_double_chow,
    FanId.MIXED_DOUBLE_CHOW: _t_mixed_double_chow,
    FanId.SHORT_STRAIGHT: _t_short_straight,
    FanId.TWO_TERMINAL_CHOWS: _t_two_terminal_chows,
    FanId.PUNG_OF_TERMINALS_OR_HONORS: _with_group(lambda rng: pung(rng.choice(TERMINALS))),
    FanId.MELDED_KONG: _with_group(lambda rng: kong(rng.choice(ALL_TILES), exposed=True), kinds=("chow", "pung")),
    FanId.ONE_VOIDED_SUIT: _t_one_voided_suit,
    FanId.NO_HONORS: _t_no_honors,
    FanId.EDGE_WAIT: _t_wait("edge"),
    FanId.CLOSED_WAIT: _t_wait("closed"),
    FanId.SINGLE_WAIT: _t_wait("single"),
    FanId.SELF_DRAWN: _t_self_drawn,
    FanId.FLOWER_TILES: _t_flowers,
}


# --- command line ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """`python -m datasets.hands --seed S --n N`: hands as hand.schema.json lines (or notation)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(
        prog="python -m datasets.hands", description="Seeded random legal winning MCR hands, one per line."
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same hands)")
    parser.add_argument("--n", type=int, default=10, help="number of hands")
    parser.add_argument("--shape", choices=SHAPES, help="only this hand shape")
    parser.add_argument("--target-fan", type=int, choices=sorted(TEMPLATES), metavar="ID",
                        help="hands that contain fan ID (1-81, numbering of fans.tsv)")
    parser.add_argument("--notation", action="store_true", help="print the compact notation instead of JSON")
    args = parser.parse_args(argv)
    from scoring.notation import format_hand

    for hand in random_hands(args.seed, args.n, shape=args.shape, target_fan=args.target_fan):
        print(format_hand(hand) if args.notation else json.dumps(hand.to_json()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
