"""Score a winning hand: every reading, every detector, the exclusions, the best reading.

Tie-break between readings of equal points (the reference calculator's): the
first reading in the divider's order is kept, unless a later one holds Pure
Triple Chow or Triple Pung; and when the hand is also seven pairs (listed
first), each later standard reading of equal points replaces the one kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from .codes import CODE_OF_INDEX, SIZE
from .combinations import PURE_TRIPLE_CHOW, TRIPLE_PUNG, taken_by_larger
from .detectors import (
    COMBINATION,
    GROUPS,
    HAND,
    HONOR_PUNGS,
    KONGS,
    PUNGS,
    RANKS,
    SETS,
    SHAPE,
    SITUATION,
    WAIT,
    Detector,
    HandFacts,
    Reading,
)
from .divide import CHOW, KONG, PUNG, Block, decompositions
from .fans import CHICKEN_HAND_ID, FAN, FANS, FLOWER_FAN_ID, MINIMUM_POINTS, Fan
from .hand import Hand, HandError, Meld, MeldKind
from .notation import format_hand
from .winflags import TileFacts, consistent

# plain numbers on the hot path (the dicts of fan counts are keyed by them)
_FLOWERS, _CHICKEN_HAND = int(FLOWER_FAN_ID), int(CHICKEN_HAND_ID)


class NotWinningHand(HandError):
    """The tiles make no winning shape."""


@dataclass(frozen=True, slots=True)
class FanCount:
    fan: Fan
    count: int

    @property
    def points_total(self) -> int:
        return self.fan.points * self.count


@dataclass(frozen=True, slots=True)
class ExcludedFan:
    fan: Fan
    excluded_by: Fan


@dataclass(frozen=True, slots=True)
class ScoreResult:
    total: int
    meets_minimum: bool
    fans: tuple[FanCount, ...]  # sorted by fan id
    excluded: tuple[ExcludedFan, ...]
    decomposition: str
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "meets_minimum": self.meets_minimum,
            "fans": [
                {"id": fc.fan.id, "name_en": fc.fan.name_en, "name_zh": fc.fan.name_zh,
                 "points": fc.fan.points, "count": fc.count}
                for fc in self.fans
            ],
            "warnings": list(self.warnings),
            "excluded": [
                {"id": x.fan.id, "name_en": x.fan.name_en, "name_zh": x.fan.name_zh, "excluded_by": x.excluded_by.id}
                for x in self.excluded
            ],
            "decomposition": self.decomposition,
        }


# --- exclusions ------------------------------------------------------------------------------------------


def apply_exclusions(raw: dict[int, int]) -> tuple[dict[int, int], list[tuple[int, int]]]:
    """One generic pass over the fan table: each fan that is present and not itself excluded
    removes the fans it excludes.  Returns (kept counts, [(excluded id, by id)])."""
    excluded: dict[int, int] = {}
    for fan_id in sorted(raw):
        if fan_id in excluded:
            continue
        for other in _EXCLUDES[fan_id]:
            if other in raw and other not in excluded:
                excluded[other] = fan_id
    kept = {f: n for f, n in raw.items() if f not in excluded}
    return kept, sorted(excluded.items())


def fan_points(counts: dict[int, int]) -> int:
    return sum([_POINTS[f] * n for f, n in counts.items()])


_POINTS = {int(f.id): f.points for f in FANS}
_EXCLUDES = {int(f.id): tuple(sorted(int(e) for e in f.excludes)) for f in FANS}


# --- the hand's facts and its flags ----------------------------------------------------------------------


def _meld_block(meld: Meld) -> Block:
    lowest = CODE_OF_INDEX[min([t.index for t in meld.tiles])]
    if meld.kind is MeldKind.CHOW:
        return Block(CHOW, lowest + 1, True, True)
    return Block(PUNG if meld.kind is MeldKind.PUNG else KONG, lowest, not meld.concealed, True)


def hand_facts(hand: Hand) -> tuple[HandFacts, list[str]]:
    """The facts of `hand`, with situational flags that contradict the tiles dropped (and said why)."""
    fixed = tuple([_meld_block(m) for m in hand.melds])
    standing = [0] * SIZE
    for t in hand.concealed:
        standing[CODE_OF_INDEX[t.index]] += 1
    win = CODE_OF_INDEX[hand.win_tile.index]
    standing[win] += 1
    counts = list(standing)
    for b in fixed:
        c = b.tile
        if b.kind == CHOW:
            counts[c - 1] += 1
            counts[c] += 1
            counts[c + 1] += 1
        else:
            counts[c] += 4 if b.kind == KONG else 3
    in_melds = counts[win] - standing[win]  # copies of the winning tile in the declared melds
    ctx = hand.context
    warnings: list[str] = []
    if ctx.last_tile or ctx.kong_replacement or ctx.robbing_kong or in_melds == 3:  # else nothing to check
        flag_facts = TileFacts(any(b.kind == KONG for b in fixed), hand.win_tile, standing[win] - 1, in_melds)
        ctx, dropped = consistent(ctx, flag_facts)
        warnings = [r.warning() for r in dropped]

    facts = HandFacts(
        fixed, standing, counts, win,
        self_drawn=ctx.self_drawn, last_tile=ctx.last_tile, last_of_wall=ctx.last_of_wall,
        kong_replacement=ctx.kong_replacement, robbing_kong=ctx.robbing_kong,
        seat=CODE_OF_INDEX[ctx.seat_wind.index], prevalent=CODE_OF_INDEX[ctx.prevalent_wind.index],
        flowers=ctx.flowers,
    )
    return facts, warnings


# --- scoring ---------------------------------------------------------------------------------------------


# the detector groups that can find anything in each kind of reading (the others always find nothing there)
_GROUPS_BY_KIND = {
    "standard": (COMBINATION, SETS, PUNGS, HONOR_PUNGS, KONGS, WAIT),
    "knitted_straight": (SETS, PUNGS, HONOR_PUNGS, KONGS, SHAPE, WAIT),
    "seven_pairs": (SHAPE,),
    "thirteen_orphans": (SHAPE,),
    "honors_knitted": (SHAPE,),
    "nine_gates": (SHAPE,),
}


def _detectors(groups: tuple[str, ...]) -> tuple[tuple[int, Detector], ...]:
    """The detectors of `groups`, in order, as one sequence."""
    return tuple(d for group in groups for d in GROUPS[group])


@cache
def _hand_detectors(ranks: bool, situation: bool) -> tuple[tuple[int, Detector], ...]:
    """The detectors run once per hand: HAND, then RANKS and SITUATION when they can find anything."""
    return _detectors((HAND,) + ((RANKS,) if ranks else ()) + ((SITUATION,) if situation else ()))


@cache
def _reading_detectors(kind: str, pungs: bool, honor_pungs: bool, kongs: bool) -> tuple[tuple[int, Detector], ...]:
    """The detectors run on a reading of `kind`: the groups that can find anything in it (COMBINATION aside)."""
    skip = {COMBINATION} | ({PUNGS} if not pungs else set()) | ({HONOR_PUNGS} if not honor_pungs else set()) | (
        {KONGS} if not kongs else set())
    return _detectors(tuple(g for g in _GROUPS_BY_KIND[kind] if g not in skip))


def _detect(reading: Reading, detectors: tuple[tuple[int, Detector], ...], into: dict[int, int]) -> None:
    for fan_id, detect in detectors:
        n = detect(reading)
        if n:
            into[fan_id] = +n  # a bool becomes 1


def hand_fans(reading: Reading) -> dict[int, int]:
    """The fans that depend only on the whole hand (the same for every reading)."""
    raw: dict[int, int] = {}
    hand = reading.hand
    situation = hand.last_tile or hand.last_of_wall or hand.kong_replacement or hand.robbing_kong
    ranks = not hand.has_honors and (min(hand.ranks) >= 4 or max(hand.ranks) <= 4)  # else no RANKS fan fits
    _detect(reading, _hand_detectors(ranks, bool(situation)), raw)
    return raw


def score_reading(reading: Reading, per_hand: dict[int, int]) -> tuple[dict[int, int], list[tuple[int, int]]]:
    """The fans of one reading after exclusions (flowers included), and what was excluded by what."""
    raw = dict(per_hand)
    raw.update(reading.decomposition.implied)
    if reading.kind == "standard":
        # the COMBINATION detectors report what account-once found: only its fans can be present
        raw.update(reading.combos)
    pungs = reading.pungs
    detectors = _reading_detectors(reading.kind, bool(pungs), bool(pungs) and pungs[-1] > 30, bool(reading.hand.kongs))
    _detect(reading, detectors, raw)  # pungs are sorted: honors last
    kept, excluded = apply_exclusions(raw)
    if not [f for f in kept if f != _FLOWERS]:
        kept[_CHICKEN_HAND] = 1  # 无番和: nothing else at all (flowers aside)
    return kept, excluded


def is_winning(hand: Hand) -> bool:
    """Whether a validated hand's tiles make a winning shape (four sets and a pair, or a special hand)."""
    facts, _ = hand_facts(hand)
    return bool(decompositions(facts.fixed, facts.standing, facts.win, facts.unique))


def score(hand: Hand) -> ScoreResult:
    """Score a validated hand.  Raises NotWinningHand when the tiles make no winning shape."""
    facts, warnings = hand_facts(hand)
    readings = decompositions(facts.fixed, facts.standing, facts.win, facts.unique)
    if not readings:
        raise NotWinningHand(f"{format_hand(hand)} is not a winning hand: the tiles make no four sets and a pair, nor a special hand")
    seven_pairs_seen = readings[0].kind == "seven_pairs"
    best: tuple[int, dict[int, int], list[tuple[int, int]], Reading] | None = None
    per_hand: dict[int, int] | None = None
    for d in readings:
        reading = Reading(facts, d)
        if per_hand is None:
            per_hand = hand_fans(reading)
        kept, excluded = score_reading(reading, per_hand)
        points = fan_points(kept)
        if best is None or points > best[0] or (
            points == best[0]
            and (PURE_TRIPLE_CHOW in kept or TRIPLE_PUNG in kept or (seven_pairs_seen and d.kind == "standard"))
        ):
            best = (points, kept, excluded, reading)
    assert best is not None
    points, kept, excluded, reading = best
    taken = taken_by_larger(reading.chows, reading.pungs) if reading.kind == "standard" else ()
    if taken:  # report the smaller combination fans that a larger one took in (`excluded` is sorted already)
        done = set(kept) | {f for f, _ in excluded}
        excluded = sorted(excluded + [(f, by) for f, by in taken if f not in done])
    flowers = kept.get(_FLOWERS, 0)
    return ScoreResult(
        total=points,
        meets_minimum=points - flowers >= MINIMUM_POINTS,
        fans=tuple([_fan_count(f, kept[f]) for f in sorted(kept)]),
        excluded=tuple([_excluded_fan(f, by) for f, by in excluded]),
        decomposition=reading.decomposition.describe(),
        warnings=tuple(warnings),
    )


@cache
def _fan_count(fan_id: int, count: int) -> FanCount:
    return FanCount(FAN[fan_id], count)


@cache
def _excluded_fan(fan_id: int, by: int) -> ExcludedFan:
    return ExcludedFan(FAN[fan_id], FAN[by])


__all__ = [
    "FANS", "ExcludedFan", "FanCount", "NotWinningHand", "ScoreResult", "apply_exclusions", "score",
]
