"""One plan per fan (`TEMPLATES`): a hand built from `TEMPLATES[fan](rng)` holds that fan, so that
`datasets.hands.random_hand(rng, target_fan=ID)` reaches all 81.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from datasets.hand_plans import (
    GREEN,
    HONORS,
    ORPHANS,
    REVERSIBLE,
    SIMPLES,
    SUITED,
    TERMINALS,
    Group,
    Plan,
    Special,
    any_shape_plan,
    chow,
    distinct_suits,
    fill,
    honors_knitted_plan,
    knitted_straight_plan,
    kong,
    pung,
    random_group,
    seven_pairs_plan,
    some_group,
    suited,
    thirteen_orphans_plan,
)
from scoring.fans import FanId
from scoring.tiles import ALL_TILES, DRAGONS, WINDS, Tile

Template = Callable[[random.Random], "Plan | Special | None"]


def any_suit(rng: random.Random) -> str:
    return rng.choice("mps")


def _t_big_four_winds(rng: random.Random) -> Plan:
    return Plan(fill(rng, [rng.choice((pung, kong))(w) for w in WINDS]), rng.choice(SUITED + DRAGONS))


def _t_big_three_dragons(rng: random.Random) -> Plan:
    return Plan(fill(rng, [rng.choice((pung, pung, kong))(d) for d in DRAGONS]), rng.choice(SUITED + WINDS))


def _t_all_green(rng: random.Random) -> Plan:
    return Plan(fill(rng, (), pool=GREEN), rng.choice(GREEN))


def _t_nine_gates(rng: random.Random) -> Special:
    s = any_suit(rng)
    base = [suited(r, s) for r in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9)]
    extra = suited(rng.randint(1, 9), s)
    return Special((*tuple(base), extra), win_choices=(extra,))


def _t_four_kongs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 5)
    return Plan(tuple(kong(t) for t in tiles[:4]), tiles[4])


def _t_seven_shifted_pairs(rng: random.Random) -> Special:
    s, start = any_suit(rng), rng.randint(1, 3)
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
    s = any_suit(rng)
    return Plan(tuple(chow(suited(r, s)) for r in (1, 1, 7, 7)), suited(5, s))


def _t_quadruple_chow(rng: random.Random) -> Plan:
    first = suited(rng.randint(1, 7), any_suit(rng))
    return Plan((chow(first),) * 4, rng.choice(ALL_TILES))


def _t_four_pure_shifted_pungs(rng: random.Random) -> Plan:
    s, start = any_suit(rng), rng.randint(1, 6)
    return Plan(tuple(rng.choice((pung, pung, kong))(suited(start + i, s)) for i in range(4)), rng.choice(ALL_TILES))


def _t_four_pure_shifted_chows(rng: random.Random) -> Plan:
    s, step = any_suit(rng), rng.choice((1, 2))
    start = rng.randint(1, 7 - 3 * step)
    return Plan(tuple(chow(suited(start + i * step, s)) for i in range(4)), rng.choice(ALL_TILES))


def _t_three_kongs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 3)
    return Plan(fill(rng, [kong(t) for t in tiles], kinds=("chow", "pung")), rng.choice(ALL_TILES))


def _t_all_terminals_and_honors(rng: random.Random) -> Plan | Special:
    if rng.random() < 0.25:
        return seven_pairs_plan(rng, [rng.choice(ORPHANS) for _ in range(7)])
    groups = [pung(rng.choice(TERMINALS)), pung(rng.choice(HONORS))]
    return Plan(fill(rng, groups, pool=ORPHANS, kinds=("pung", "kong")), rng.choice(ORPHANS))


def _t_seven_pairs(rng: random.Random) -> Special:
    return seven_pairs_plan(rng)


def _t_greater_honors(rng: random.Random) -> Special:
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
    return _one_suit_plan(rng, any_suit(rng), honors=False)


def _t_pure_triple_chow(rng: random.Random) -> Plan:
    first = suited(rng.randint(1, 7), any_suit(rng))  # one exposed, else three pungs may score more
    return Plan(fill(rng, [chow(first, exposed=True), chow(first), chow(first)]), rng.choice(ALL_TILES))


def _t_pure_shifted_pungs(rng: random.Random) -> Plan:
    s, start = any_suit(rng), rng.randint(1, 7)
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
    s = any_suit(rng)
    return Plan(fill(rng, [chow(suited(r, s)) for r in (1, 4, 7)]), rng.choice(ALL_TILES))


def _t_three_suited_terminal_chows(rng: random.Random) -> Plan:
    a, b, c = distinct_suits(rng, 3)
    return Plan(tuple(chow(suited(r, s)) for s in (a, b) for r in (1, 7)), suited(5, c))


def _t_pure_shifted_chows(rng: random.Random) -> Plan:
    s, step = any_suit(rng), rng.choice((1, 2))
    start = rng.randint(1, 7 - 2 * step)
    return Plan(fill(rng, [chow(suited(start + i * step, s)) for i in range(3)]), rng.choice(ALL_TILES))


def _t_all_fives(rng: random.Random) -> Plan:
    groups = []
    for _ in range(4):
        s = any_suit(rng)
        groups.append(rng.choice((chow(suited(rng.randint(3, 5), s)), pung(suited(5, s)))))
    return Plan(tuple(groups), suited(5, any_suit(rng)))


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


def _t_lesser_honors(rng: random.Random) -> Special:
    return honors_knitted_plan(rng, greater=False)


def _t_knitted_straight(rng: random.Random) -> Special:
    return knitted_straight_plan(rng)


def _t_big_three_winds(rng: random.Random) -> Plan:
    winds = rng.sample(WINDS, 3)
    return Plan(fill(rng, [pung(w) for w in winds]), rng.choice(SUITED + DRAGONS))


def _t_mixed_straight(rng: random.Random) -> Plan:
    suits = distinct_suits(rng, 3)
    return Plan(fill(rng, [chow(suited(r, s)) for r, s in zip((1, 4, 7), suits, strict=False)]), rng.choice(ALL_TILES))


def _t_reversible(rng: random.Random) -> Plan:
    return Plan(fill(rng, (), pool=REVERSIBLE), rng.choice(REVERSIBLE))


def _t_mixed_triple_chow(rng: random.Random) -> Plan:
    r = rng.randint(1, 7)
    return Plan(fill(rng, [chow(suited(r, s)) for s in "mps"]), rng.choice(ALL_TILES))


def _t_mixed_shifted_pungs(rng: random.Random) -> Plan:
    r, suits = rng.randint(1, 7), distinct_suits(rng, 3)
    return Plan(fill(rng, [pung(suited(r + i, s)) for i, s in enumerate(suits)]), rng.choice(ALL_TILES))


def _t_chicken_hand(rng: random.Random) -> Plan | None:
    """No fan at all: three unrelated chows (one per suit), a simple pung, an honor pair,
    some sets exposed, won on a discard on a two-sided wait."""
    starts = rng.sample(range(2, 7), 3)
    if sorted(starts) in ([2, 3, 4], [3, 4, 5], [4, 5, 6]):
        return None
    suits = distinct_suits(rng, 3)
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
    def template(rng: random.Random) -> Plan | Special:
        base = any_shape_plan(rng)
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
    return _one_suit_plan(rng, any_suit(rng), honors=True)


def _t_mixed_shifted_chows(rng: random.Random) -> Plan:
    r, suits = rng.randint(1, 5), distinct_suits(rng, 3)
    return Plan(fill(rng, [chow(suited(r + i, s)) for i, s in enumerate(suits)]), rng.choice(ALL_TILES))


def _t_all_types(rng: random.Random) -> Plan:
    a, b, c = distinct_suits(rng, 3)
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


def _t_last_tile(rng: random.Random) -> Plan | Special:
    base = any_shape_plan(rng)
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
    first = suited(rng.randint(1, 7), any_suit(rng))
    hog = rng.choice(chow(first).tiles)
    groups = [chow(first), pung(hog)] if rng.random() < 0.6 else [chow(first), chow(first)]
    pair = hog if len(groups) == 2 and groups[1].kind == "chow" else rng.choice(ALL_TILES)
    return Plan(fill(rng, groups), pair)


def _t_double_pung(rng: random.Random) -> Plan:
    r, (a, b) = rng.randint(1, 9), distinct_suits(rng, 2)
    return Plan(fill(rng, [pung(suited(r, a)), pung(suited(r, b))]), rng.choice(ALL_TILES))


def _t_two_concealed_pungs(rng: random.Random) -> Plan:
    tiles = rng.sample(ALL_TILES, 2)
    groups = fill(rng, [Group("pung", t, False) for t in tiles], kinds=("chow",))
    self_drawn = rng.random() < 0.5
    return Plan(groups, rng.choice(ALL_TILES), win="any" if self_drawn else "pair", context={"self_drawn": self_drawn})


def _t_pure_double_chow(rng: random.Random) -> Plan:
    first = suited(rng.randint(1, 7), any_suit(rng))
    return Plan(fill(rng, [chow(first)] * 2), rng.choice(ALL_TILES))


def _t_mixed_double_chow(rng: random.Random) -> Plan:
    r, (a, b) = rng.randint(1, 7), distinct_suits(rng, 2)
    return Plan(fill(rng, [chow(suited(r, a)), chow(suited(r, b))]), rng.choice(ALL_TILES))


def _t_short_straight(rng: random.Random) -> Plan:
    r, s = rng.randint(1, 4), any_suit(rng)
    return Plan(fill(rng, [chow(suited(r, s)), chow(suited(r + 3, s))]), rng.choice(ALL_TILES))


def _t_two_terminal_chows(rng: random.Random) -> Plan:
    s = any_suit(rng)
    return Plan(fill(rng, [chow(suited(1, s)), chow(suited(7, s))]), rng.choice(ALL_TILES))


def _t_one_voided_suit(rng: random.Random) -> Plan:
    a, b = distinct_suits(rng, 2)
    pool = tuple(t for t in ALL_TILES if t.suit in (a, b, "z"))
    groups = fill(rng, [some_group(rng, [t for t in SUITED if t.suit == s]) for s in (a, b)], pool=pool)
    return Plan(groups, rng.choice(pool))


def _t_no_honors(rng: random.Random) -> Plan:
    """Suited tiles only, with a terminal and a pung (else All Simples / All Chows exclude it)."""
    groups = [chow(suited(rng.choice((1, 7)), any_suit(rng))), pung(rng.choice(SUITED))]
    return Plan(fill(rng, groups, pool=SUITED), rng.choice(SUITED))


def _t_wait(kind: str) -> Template:
    """The waiting set in one suit, everything else elsewhere, so the hand waits on one tile."""

    def template(rng: random.Random) -> Plan:
        s = any_suit(rng)
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


def _t_flowers(rng: random.Random) -> Plan | Special:
    base = any_shape_plan(rng)
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
