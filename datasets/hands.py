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
from collections.abc import Iterable, Mapping

from datasets.fan_templates import TEMPLATES
from datasets.hand_plans import (
    SHAPE_BUILDERS,
    SHAPES,
    GenerationError,
    Group,
    Plan,
    Special,
    any_shape_plan,
    as_tile,
    decide_exposure,
    meld_of,
)
from scoring.fans import FanId
from scoring.hand import Hand, Meld, WinContext
from scoring.tiles import Tile
from scoring.winflags import TileFacts, ruled_out

_TARGETED_SHARE = 0.25  # of shape-free draws, aimed at a random fan for coverage of rare fans
_MAX_TRIES = 200


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
            hand = _build(rng, SHAPE_BUILDERS[shape](rng) if shape else any_shape_plan(rng))
        if hand is not None:
            return hand
    raise GenerationError(f"no legal hand after {_MAX_TRIES} tries (shape={shape}, target_fan={fan})")


def random_hands(seed: int, n: int, *, shape: str | None = None, target_fan: int | None = None) -> list[Hand]:
    """`n` hands from `random.Random(seed)`: the same seed gives the same hands."""
    rng = random.Random(seed)
    return [random_hand(rng, shape=shape, target_fan=target_fan) for _ in range(n)]


# --- building a hand from a plan -----------------------------------------------------------


def _build(rng: random.Random, plan: Plan | Special | None) -> Hand | None:
    if plan is None:
        return None
    if isinstance(plan, Special):
        return _build_special(rng, plan)
    groups = tuple(decide_exposure(rng, g) for g in plan.groups)
    melds = tuple(meld_of(g) for g in groups if g.exposed or g.kind == "kong")
    concealed_groups = [g for g in groups if not (g.exposed or g.kind == "kong")]
    standing = [t for g in concealed_groups for t in g.tiles] + [plan.pair, plan.pair]
    win = _choose_win(rng, plan, concealed_groups, standing, melds)
    if win is None:
        return None
    standing.remove(win)
    rng.shuffle(standing)
    standing.sort()
    return _finish(rng, melds, tuple(standing), win, plan.context)



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


def _build_special(rng: random.Random, plan: Special) -> Hand | None:
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
        seat_wind=as_tile(str(forced.get("seat_wind", rng.choice(winds)))),
        prevalent_wind=as_tile(str(forced.get("prevalent_wind", rng.choice(winds)))),
        flowers=_forced_int(forced, "flowers", rng.choice(_FLOWER_CHOICES)),
        last_tile=last_tile,
        last_of_wall=last_of_wall,
        kong_replacement=kong_replacement,
        robbing_kong=robbing_kong,
    )


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

