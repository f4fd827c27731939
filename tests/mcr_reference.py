"""The reference MCR calculator (PyPI `pymahjonggb`, a wrapper of ChineseOfficialMahjongHelper's
fan calculator), adapted to this project's Hand and fan ids, for differential tests and benchmarks.

Run it for a long hunt: `.venv/bin/python tests/mcr_reference.py --n 100000 --seed 1`.

Its extra fan 明暗杠 (one concealed kong plus one melded kong, 5 points) is counted the way
contracts.md decides: Concealed Kong (2) + Melded Kong (1).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from MahjongGB import MahjongFanCalculator

from scoring.hand import Hand, MeldKind
from scoring.tiles import Tile

_SUIT_CODE = {"m": "W", "p": "B", "s": "T"}
_HONOR_CODE = {"E": "F1", "S": "F2", "W": "F3", "N": "F4", "C": "J1", "F": "J2", "P": "J3"}
_PACK = {MeldKind.CHOW: "CHI", MeldKind.PUNG: "PENG", MeldKind.KONG: "GANG"}
CONCEALED_AND_MELDED_KONG = "Concealed Kong and Melded Kong"
CONCEALED_KONG, MELDED_KONG = 67, 74

# The reference's English fan names that differ from fans.tsv, by fan id.
_NAME_ALIASES = {"All Five": 31, "Robbing The Kong": 47, "Two Dragons Pungs": 54}


class ReferenceRefused(Exception):
    """The reference raised (not a winning hand, wrong tile count, ...)."""


@dataclass(frozen=True)
class ReferenceResult:
    total: int
    fans: dict[int, int]  # fan id -> count


def tile_code(tile: Tile) -> str:
    if tile.is_suited:
        return f"{_SUIT_CODE[tile.suit]}{tile.rank}"
    return _HONOR_CODE[tile.name]


def _packs(hand: Hand) -> tuple[tuple[str, str, int], ...]:
    packs = []
    for m in hand.melds:
        tile = m.tiles[1]  # the middle tile of a chow; any tile of a pung or kong
        offer = 0 if m.concealed else 1
        packs.append((_PACK[m.kind], tile_code(tile), offer))
    return tuple(packs)


def raw(hand: Hand) -> tuple[tuple[int, int, str, str], ...]:
    """The reference's own answer: (points, count, name_zh, name_en) per fan."""
    c = hand.context
    winds = "ESWN"
    try:
        return MahjongFanCalculator(
            pack=_packs(hand),
            hand=tuple(tile_code(t) for t in hand.concealed),
            winTile=tile_code(hand.win_tile),
            flowerCount=c.flowers,
            isSelfDrawn=c.self_drawn,
            is4thTile=c.last_tile,
            # one flag there: out with a replacement when self-drawn, robbing the kong on a discard
            isAboutKong=c.kong_replacement if c.self_drawn else c.robbing_kong,
            isWallLast=c.last_of_wall,
            seatWind=winds.index(c.seat_wind.name),
            prevalentWind=winds.index(c.prevalent_wind.name),
            verbose=True,
        )
    except Exception as exc:
        raise ReferenceRefused(str(exc)) from None


def reference_score(hand: Hand, fan_ids_by_name: dict[str, int]) -> ReferenceResult:
    """Total and fans per the reference, in this project's fan ids and kong rule."""
    fans: Counter[int] = Counter()
    total = 0
    for points, count, _zh, name_en in raw(hand):
        if name_en == CONCEALED_AND_MELDED_KONG:
            fans[CONCEALED_KONG] += 1
            fans[MELDED_KONG] += 1
            total += 2 + 1
            continue
        fan_id = _NAME_ALIASES.get(name_en) or fan_ids_by_name[name_en]
        fans[fan_id] += count
        total += points * count
    return ReferenceResult(total, dict(fans))


def main(argv: list[str] | None = None) -> int:
    """Compare our scorer with the reference on many seeded hands; print every disagreement."""
    import argparse
    import sys
    import time

    from datasets.hands import random_hands
    from scoring.fans import FANS
    from scoring.notation import format_hand
    from scoring.scorer import score

    parser = argparse.ArgumentParser(prog="python tests/mcr_reference.py", description=main.__doc__)
    parser.add_argument("--seed", type=int, default=1, help="first seed; chunks of 1,000 hands take seed, seed+1, ...")
    parser.add_argument("--n", type=int, default=100_000, help="hands to compare")
    parser.add_argument("--target-fan", type=int, help="only hands built to contain this fan id")
    args = parser.parse_args(argv)
    ids = {f.name_en: f.id for f in FANS}
    start, compared, disagreements = time.perf_counter(), 0, 0
    for chunk in range((args.n + 999) // 1000):
        seed = args.seed + chunk
        for index, hand in enumerate(random_hands(seed, min(1000, args.n - compared), target_fan=args.target_fan)):
            ours, ref = score(hand), reference_score(hand, ids)
            our_fans = {fc.fan.id: fc.count for fc in ours.fans}
            compared += 1
            if ours.total != ref.total or our_fans != ref.fans:
                disagreements += 1
                print(f"seed={seed} index={index} {format_hand(hand)!r}: ours {ours.total} {sorted(our_fans.items())}"
                      f" ref {ref.total} {sorted(ref.fans.items())}", file=sys.stderr)
    print(f"{compared} hands compared, {disagreements} disagreements ({time.perf_counter() - start:.1f} s)")
    return 1 if disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
