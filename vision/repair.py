"""The repair search: when the tiles as read make no winning hand, which doubtful tiles to read again.

`read_hand` reads the layout (`vision.layout`) and, when its hand does not win, tries the
`repairs` in turn: a tile read as its second reading (`second_reading`), a doubtful tile left
out, then a face deduced as the one tile that makes the hand win.  Whether a hand wins is asked
of the `is_winning` callable it is given (the scorer's `scoring.scorer.is_winning` in
`vision.read`), so this module does not depend on the scorer and tests can pass their own check.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import combinations, permutations, product

import numpy as np

from scoring.hand import Hand, WinContext
from scoring.tiles import TILE_NAMES
from tileset.classes import BACK_ID, CLASS_ID, CLASS_NAMES, FLOWER_NAMES

from .detections import Detections
from .issues import IssueCode, ReaderIssue, issue
from .layout import Layout, MeldRead, copies_allowed, hand_of, read_layout, tile_seen
from .rows import TileObs
from .settings import LayoutSettings

WinCheck = Callable[[Hand], bool]  # whether a complete hand is a winning one
EPS = 1e-6  # keeps -log(1 - confidence) finite


@dataclass(frozen=True)
class HandReading:
    """The layout, the hand it makes (or None), what was unsure, and the doubtful tiles left out."""

    layout: Layout
    hand: Hand | None
    issues: tuple[ReaderIssue, ...]
    left_out: tuple[int, ...] = ()  # detection indices read as false detections
    second_readings: tuple[int, ...] = ()  # detection indices read as another class (runner-up or deduced)
    detections: Detections = field(default_factory=Detections.empty)  # as read: second readings applied


@dataclass(frozen=True)
class Repair:
    """One way to read doubtful tiles differently: some read as their second class, some left out."""

    second_readings: tuple[int, ...] = ()
    left_out: tuple[int, ...] = ()


def repairs(dets: Detections, settings: LayoutSettings, win_known: bool) -> list[Repair]:
    """What to try, in order, when the tiles as read make no winning hand.

    First, a flower or season read more than once (a set has one of each): all its copies but the
    surest read as their second readings (a tile face) at once.  Then second readings
    (`second_reading`) for tiles below `second_reading_confidence`, the least sure first, then
    backs; when the winning tile was not set apart, only for faces read as flowers (no face makes
    up for a missing gap, but a winning tile read as a flower leaves one).  Left out may be tiles
    below `doubtful_confidence`, the least sure first, then backs (a stray back is never part of a
    hand).  One tile read again, one left out, then pairs of each (`max_left_out_trials`).
    """
    order = _least_sure_first(dets)

    def below(threshold: float) -> list[int]:  # ascending confidence: backs above it come last
        return [i for i in order if dets.confidence[i] < threshold or dets.class_id[i] == BACK_ID]

    doubtful = below(settings.doubtful_confidence)[: settings.doubtful_candidates]
    is_flower = [name in FLOWER_NAMES for name in dets.class_names]
    rereadable = [i for i in below(settings.second_reading_confidence)
                  if second_reading(dets, i) >= 0 and (win_known or is_flower[i])]
    second = rereadable[: settings.second_reading_candidates]
    copies: dict[int, list[int]] = {}
    for i in reversed(order):  # surest first
        if is_flower[i]:
            copies.setdefault(int(dets.class_id[i]), []).append(i)
    extra_flowers = [tuple(sorted(found[1:])) for found in copies.values() if len(found) > 1]
    pairs = settings.max_left_out_trials
    return (
        [Repair(second_readings=extra) for extra in extra_flowers if all(second_reading(dets, i) >= 0 for i in extra)]
        + [Repair(second_readings=(i,)) for i in second]
        + [Repair(left_out=(i,)) for i in doubtful]
        + [Repair(second_readings=p) for p in list(combinations(second, 2))[:pairs]]
        + [Repair(left_out=p) for p in list(combinations(doubtful, 2))[:pairs]]
    )


def _least_sure_first(dets: Detections) -> list[int]:
    return [int(i) for i in np.argsort(dets.confidence, kind="stable")]


def second_reading(dets: Detections, i: int) -> int:
    """The class tile `i` could be instead: its runner-up; for a back, a blank white dragon; -1 for none."""
    if dets.class_id[i] == BACK_ID:
        return CLASS_ID["P"]  # many sets leave the white dragon blank, and a blank face passes for a back
    runner_up = dets.runner_up
    assert runner_up is not None  # Detections fills it (-1 for none)
    return int(runner_up[i])


def read_hand(
    dets: Detections, context: WinContext, settings: LayoutSettings, is_winning: WinCheck
) -> HandReading:
    """Layout and hand of deduplicated detections (`_read_hand_counting_backs`). A meld-row group of three with a
    face-down tile (`LayoutSettings.short_concealed_kongs`) is read as a concealed kong only when the tiles make no
    winning hand otherwise: where a kong's back was read as a face, the repairs find the kong whole (taking
    the short kong first left that face as an extra flower). The last tries, a meld made a set and
    the likeliest face (`_groups_made_sets`, `_likeliest_single_change`), come after the short kong: read sooner,
    a face of the next set taken for the kong's (S read as E) made the hand win."""
    strict = replace(settings, short_concealed_kongs=False)
    reading = _read_hand_counting_backs(dets, context, strict, is_winning, _read_hand)
    if reading.hand is not None and is_winning(reading.hand):
        return reading
    if settings.short_concealed_kongs:
        again = _read_hand_counting_backs(dets, context, settings, is_winning, _read_hand)
        if again.hand is not None and is_winning(again.hand):
            return again
    last = _read_hand_counting_backs(dets, context, strict, is_winning, _last_tries)
    return last if last.hand is not None and is_winning(last.hand) else reading


Reader = Callable[[Detections, WinContext, LayoutSettings, WinCheck], "HandReading"]


def _read_hand_counting_backs(
    dets: Detections, context: WinContext, settings: LayoutSettings, is_winning: WinCheck, read: Reader
) -> HandReading:
    """`read` (`_read_hand`, or `_last_tries`), with the backs that lie apart from the rows and whose face a
    calibrated classifier reads as a flower (their `runner_up`) counted as it.
    """
    turned = _flowers_boxed_as_backs(dets, settings)
    if not turned:
        return read(dets, context, settings, is_winning)
    runner_up = dets.runner_up
    assert runner_up is not None  # Detections fills it (-1 for none)
    changed = dets
    for i in turned:
        changed = changed.with_class(i, int(runner_up[i]))
    reading = read(changed, context, settings, is_winning)
    notes = [issue(IssueCode.BACK_AS_FLOWER, (i,), **tile_seen(dets, i), read_as=CLASS_NAMES[changed.class_id[i]])
             for i in turned]
    return replace(reading, issues=(*notes, *reading.issues),
                   second_readings=tuple(sorted({*turned, *reading.second_readings})))


def _flowers_boxed_as_backs(dets: Detections, settings: LayoutSettings) -> list[int]:
    """Backs lying apart from the rows whose runner-up is a flower (a back whose runner-up is a flower)."""
    runner_up = dets.runner_up
    assert runner_up is not None
    flower_ids = {CLASS_ID[name] for name in FLOWER_NAMES}
    if not settings.stray_backs_as_flowers or not any(
            c == BACK_ID and r in flower_ids for c, r in zip(dets.class_id, runner_up, strict=False)):
        return []
    return [t.index for t in read_layout(dets, settings).stray
            if dets.class_id[t.index] == BACK_ID and runner_up[t.index] in flower_ids]


def _read_hand(
    dets: Detections, context: WinContext, settings: LayoutSettings, is_winning: WinCheck
) -> HandReading:
    """Layout and hand of deduplicated detections.

    When the tiles as read make no winning hand, doubtful tiles are read as their second most
    likely class or left out (`repairs`), in turn; the first reading that makes a winning hand
    (`is_winning`, injected: the scorer's win check) is taken, and the issues name what was changed, so that the user can check it; a reading that
    makes a tile seen more often than a set holds it (a fifth 5m, a second plum) is not.  Then a face
    read with low confidence may be read as the one tile face that makes the hand win
    (`_deduced_reading`).  When none does, the tiles as read are kept (or, when they make no
    hand at all, the first change that makes one), and the scorer says why the hand does not win.
    """
    layout, hand, more = hand_of(read_layout(dets, settings), context)
    first = HandReading(layout, hand, layout.issues + tuple(more), detections=dets)
    if hand is not None and is_winning(hand):
        return (_tidier_reading(dets, first, context, settings, is_winning) if settings.tidy_breaches else None) or first
    fallback = first if hand is not None else None
    for repair in repairs(dets, settings, win_known=layout.win is not None):
        changed = dets
        for i in repair.second_readings:
            changed = changed.with_class(i, second_reading(dets, i))
        keep = np.array([i for i in range(len(dets)) if i not in repair.left_out], dtype=np.int64)
        if _too_many(changed[keep], [second_reading(dets, i) for i in repair.second_readings], settings):
            continue  # a fifth 5m, or a flower seen twice, is a misreading too
        layout, hand, more = hand_of(_reindexed(read_layout(changed[keep], settings), keep), context)
        if hand is None:
            continue
        wins = is_winning(hand)
        notes = [issue(IssueCode.SECOND_READING, (i,), **tile_seen(dets, i),
                       read_as=CLASS_NAMES[second_reading(dets, i)], wins=wins)
                 for i in repair.second_readings]
        if repair.left_out:
            seen = tuple(tuple(tile_seen(dets, i).values()) for i in repair.left_out)
            notes.append(issue(IssueCode.LEFT_OUT, repair.left_out, seen=seen))
        reading = HandReading(
            layout, hand, (*notes, *layout.issues, *more), repair.left_out, repair.second_readings, changed
        )
        if wins:
            return reading
        fallback = fallback or reading
    if first.layout.win is not None:
        deduced = _deduced_reading(dets, context, settings, is_winning)
        if deduced is not None:
            return deduced
    return fallback or first


def _last_tries(
    dets: Detections, context: WinContext, settings: LayoutSettings, is_winning: WinCheck
) -> HandReading:
    """When no reading of `_read_hand` (nor the short concealed kong) makes the hand win: a meld that is no set
    read as the likeliest set (`_groups_made_sets`), else one tile read as the likeliest face that wins
    (`_likeliest_single_change`); the tiles as read when neither does."""
    layout, hand, more = hand_of(read_layout(dets, settings), context)
    if settings.group_set_margin > 0:
        made = _groups_made_sets(dets, layout, context, settings, is_winning)
        if made is not None:
            return made
    if settings.likeliest_face_margin > 0 and layout.win is not None:
        likeliest = _likeliest_single_change(dets, context, settings, is_winning)
        if likeliest is not None:
            return likeliest
    return HandReading(layout, hand, layout.issues + tuple(more), detections=dets)


# what a laid-out hand never shows (docs/spec/photo-layout.md), where a stray box is the likelier cause.
# Not faces apart counted as flowers, nor a flower seen twice: those are mostly flowers misread (every
# measured set lost more hands than it won when they were left out, most of all before calibration)
LAYOUT_BREACHES = frozenset({IssueCode.UNUSUAL_CONCEALED_KONG})


def _breaches(issues: tuple[ReaderIssue, ...]) -> list[ReaderIssue]:
    return [i for i in issues if i.code in LAYOUT_BREACHES]


def _tidier_reading(
    dets: Detections, first: HandReading, context: WinContext, settings: LayoutSettings, is_winning: WinCheck
) -> HandReading | None:
    """A winning reading that breaks the photo layout less, by leaving out one doubtful tile of a breach.

    A stray box (a shadow read as a back, a tile edge read as a face) still lets the hand win when it
    lands beside a pung (a concealed kong with one back) or apart from the rows (counted as a flower);
    the layout says that is not how a hand is laid out, and its low confidence says which tile to doubt.
    """
    breaches = _breaches(first.issues)
    if not breaches:
        return None
    in_breach = {t for b in breaches for t in b.tiles}
    doubtful = [i for i in _least_sure_first(dets)
                if i in in_breach and dets.confidence[i] < settings.breach_doubt_confidence]
    for i in doubtful[: settings.doubtful_candidates]:
        keep = np.array([j for j in range(len(dets)) if j != i], dtype=np.int64)
        layout, hand, more = hand_of(_reindexed(read_layout(dets[keep], settings), keep), context)
        if hand is None or not is_winning(hand):
            continue
        issues = (*layout.issues, *more)
        if len(_breaches(issues)) < len(breaches):
            note = issue(IssueCode.LEFT_OUT, (i,), seen=(tuple(tile_seen(dets, i).values()),))
            return HandReading(layout, hand, (note, *issues), (i,), (), dets)
    return None


def _deduced_reading(
    dets: Detections, context: WinContext, settings: LayoutSettings, is_winning: WinCheck
) -> HandReading | None:
    """A face the classifier could not read (an artwork it does not know), read as the one tile face
    that makes the hand win, when exactly one does: a laid-out hand is a winning one."""
    unsure = [i for i in _least_sure_first(dets)
              if dets.confidence[i] < settings.deduce_confidence and dets.class_id[i] != BACK_ID]
    for i in unsure[: settings.deduce_candidates]:
        found: list[HandReading] = []
        for cls in range(len(TILE_NAMES)):
            if cls == dets.class_id[i]:
                continue
            reading = _winning_as(dets, [(i, cls)], IssueCode.DEDUCED, context, settings, is_winning)
            if reading is not None:
                found.append(reading)
                if len(found) > 1:
                    break
        if len(found) == 1:
            return found[0]
    return None


@dataclass(frozen=True)
class _SetReading:
    """A meld-row group read as a set: the tiles read again (index, new class id) and what that costs."""

    changes: tuple[tuple[int, int], ...]
    cost: float  # added up over the tiles read again: how unlikely the classifier found each new face


def _change_cost(dets: Detections, i: int, cls: int, settings: LayoutSettings) -> float:
    """How unlikely tile `i` is to be `cls` by its classifier: -log of what its first reading left over, and
    `group_set_not_runner_up` more for a face other than its runner-up (that share goes mostly to the runner-up)."""
    left_over = max(1.0 - float(dets.confidence[i]), EPS)
    runner_up = dets.runner_up
    assert runner_up is not None  # Detections fills it (-1 for none)
    return -math.log(left_over) + (0.0 if runner_up[i] == cls else settings.group_set_not_runner_up)


def _set_readings(group: MeldRead, dets: Detections, settings: LayoutSettings) -> list[_SetReading]:
    """The ways to read a meld-row group that is no set as one (a pung, kong or chow of a face it shows), each
    changing at most `group_set_changes` tiles read with less confidence than `second_reading_confidence`,
    cheapest first. The surest tiles keep their faces; the others take the faces the set still lacks, the
    cheapest way round."""
    tiles = sorted(group.tiles, key=lambda t: -dets.confidence[t.index])
    faces = [t for t in tiles if t.name != CLASS_NAMES[BACK_ID]]
    backs = len(tiles) - len(faces)
    shown = sorted({t.name for t in faces if t.name in TILE_NAMES})
    wanted: set[tuple[str, ...]] = set()
    for name in shown:
        if backs:  # a group with a face-down tile is a concealed kong (photo-layout.md)
            if len(tiles) == 4:
                wanted.add((name,) * len(faces))
            continue
        if len(tiles) in (3, 4):
            wanted.add((name,) * len(tiles))
        if len(tiles) == 3 and name[0].isdigit():
            rank, suit = int(name[0]), name[1]
            for low in range(max(1, rank - 2), min(rank, 7) + 1):
                wanted.add(tuple(f"{r}{suit}" for r in range(low, low + 3)))
    readings = []
    for names in wanted:
        left = Counter(names)
        changed = []
        for t in faces:  # surest first: they keep their faces while the set has room for them
            if left[t.name] > 0:
                left[t.name] -= 1
            else:
                changed.append(t.index)
        if not changed or len(changed) > settings.group_set_changes:
            continue
        if any(dets.confidence[i] >= settings.second_reading_confidence for i in changed):
            continue
        new = [CLASS_ID[n] for n in left.elements()]
        cost, changes = min(
            (sum(_change_cost(dets, i, c, settings) for i, c in zip(changed, order, strict=False)), tuple(zip(changed, order, strict=False)))
            for order in set(permutations(new)))
        readings.append(_SetReading(tuple(sorted(changes)), cost))
    return sorted(readings, key=lambda r: (r.cost, r.changes))


def _groups_made_sets(
    dets: Detections, layout: Layout, context: WinContext, settings: LayoutSettings, is_winning: WinCheck
) -> HandReading | None:
    """The meld-row groups that are no set, read as the sets that change the least sure tiles, when the hand
    then wins and every other way to make them sets that wins costs `group_set_margin` more (`_change_cost`).

    A laid-out meld is a set (photo-layout.md). The tile that breaks it was read surely enough to pass the
    second readings by (a drawn set's 3s read as 2s at 0.88, its runner-up 3s, behind ten tiles less sure), or
    its two wrong tiles are one kong's (6p 6p 4p 4p: the 4p's runner-up is 6p, the 6p's are 5p and 4p).
    Where two ways cost about the same, nothing is changed."""
    broken = [g for g in layout.melds if g.meld is None]
    if not broken or len(broken) > 2:
        return None
    options = [_set_readings(g, dets, settings)[: settings.group_set_options] for g in broken]
    wins: list[tuple[float, HandReading]] = []
    for choice in product(*options):
        changes = [c for reading in choice for c in reading.changes]
        made = _winning_as(dets, changes, IssueCode.GROUP_MADE_SET, context, settings, is_winning)
        if made is not None:
            wins.append((sum(r.cost for r in choice), made))
    wins.sort(key=lambda w: w[0])
    if not wins or (len(wins) > 1 and wins[1][0] - wins[0][0] < settings.group_set_margin):
        return None
    return wins[0][1]


def _likeliest_single_change(
    dets: Detections, context: WinContext, settings: LayoutSettings, is_winning: WinCheck
) -> HandReading | None:
    """One tile read below `second_reading_confidence` read as another face: of all such changes that make the
    hand win, the likeliest (`_change_cost`), when every other costs `likeliest_face_margin` more.

    The reader's last try. The second readings reach only the ten least sure tiles, and only as their
    runner-ups; the deduced face only the three least sure, and only when one face alone makes the hand win.
    A tile read surely wrong (kde-traditional's 5m as 3m at 0.91) is neither, while the costs still tell it from
    the other tiles whose change would make some winning hand. The changes are tried cheapest first, at most
    `likeliest_face_trials` of them (each reads the layout again): a photo with many unsure tiles and no
    winning change took 2.3 s when all were tried."""
    changes = sorted(
        (_change_cost(dets, i, cls, settings), i, cls)
        for i in range(len(dets)) if dets.class_id[i] != BACK_ID and dets.confidence[i] < settings.second_reading_confidence
        for cls in range(len(TILE_NAMES)) if cls != dets.class_id[i])
    best: tuple[float, HandReading] | None = None
    for cost, i, cls in changes[: settings.likeliest_face_trials]:
        if best is not None and cost >= best[0] + settings.likeliest_face_margin:
            return best[1]  # no other change that wins comes close
        reading = _winning_as(dets, [(i, cls)], IssueCode.LIKELIEST_FACE, context, settings, is_winning)
        if reading is None:
            continue
        if best is not None:
            return None  # two changes that win, at about the same cost
        best = (cost, reading)
    untried = changes[settings.likeliest_face_trials:]
    if best is not None and (not untried or untried[0][0] >= best[0] + settings.likeliest_face_margin):
        return best[1]  # no other change that wins comes close
    return None  # none wins, or the trials ran out before the winner was told from the rest


def _winning_as(
    dets: Detections, changes: list[tuple[int, int]], code: IssueCode, context: WinContext, settings: LayoutSettings,
    is_winning: WinCheck,
) -> HandReading | None:
    """The reading with tile i read as class c for each (i, c) of `changes`, each named in an issue `code`, when
    no face is then seen more often than a set holds it and the hand wins; else None."""
    changed = dets
    for i, cls in changes:
        changed = changed.with_class(i, cls)
    if _too_many(changed, [cls for _, cls in changes], settings):
        return None
    layout, hand, more = hand_of(read_layout(changed, settings), context)
    if hand is None or not is_winning(hand):
        return None
    notes = [issue(code, (i,), **tile_seen(dets, i), read_as=CLASS_NAMES[cls]) for i, cls in changes]
    return HandReading(layout, hand, (*notes, *layout.issues, *more), (), tuple(sorted(i for i, _ in changes)), changed)


def _too_many(dets: Detections, read_as: list[int], settings: LayoutSettings) -> bool:
    """Whether a class some tiles were read again as is now seen more often than a set holds it."""
    counts = Counter(dets.class_names)
    return any(counts[CLASS_NAMES[c]] > copies_allowed(CLASS_NAMES[c], settings) for c in read_as if c != BACK_ID)


def _reindexed(layout: Layout, keep: np.ndarray) -> Layout:
    """A layout read from `dets[keep]` with its tile indices pointing into `dets` again."""

    def tiles(seq: tuple[TileObs, ...]) -> tuple[TileObs, ...]:
        return tuple(replace(t, index=int(keep[t.index])) for t in seq)

    return replace(
        layout,
        standing=tiles(layout.standing),
        win=tiles((layout.win,))[0] if layout.win is not None else None,
        melds=tuple(MeldRead(tiles(m.tiles), m.meld) for m in layout.melds),
        flowers=tiles(layout.flowers),
        stray=tiles(layout.stray),
        issues=tuple(i.with_tiles(int(keep[t]) for t in i.tiles) for i in layout.issues),
    )
