"""Detections -> layout -> hand, following `docs/spec/photo-layout.md`.

Stages, each testable alone with plain data between them:

1. `merge_duplicates`: boxes on one tile become one (IoU / containment).
2. `vision.rows.find_rows`: the row direction, rows far to near, tiles sorted along each row.
3. `read_layout`: flowers and seasons set aside wherever they lie; the row
   nearest the camera is the standing row, its right-end tile set apart by a
   gap is the winning tile; the row above it holds the melds, split at gaps and
   typed (`type_group`); tiles apart from these two rows are kept as `stray`.
4. `layout_to_hand`: the `Hand`, or None with the reason in the issues;
   `hand_of` counts face-up stray tiles as flowers once the rows make a hand.

When that hand does not win, `vision.repair.read_hand` tries reading doubtful tiles again.
Everything uncertain goes into `issues` (`vision.issues.ReaderIssue`); nothing is guessed silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from scoring.hand import Hand, HandError, Meld, MeldKind, WinContext
from scoring.tiles import TILE_NAMES, Tile
from tileset.classes import BACK, CLASS_NAMES, FLOWER_NAMES
from tileset.groups import FLOWERS, HAND, WIN, meld_group

from .detections import Detections
from .issues import IssueCode, ReaderIssue, issue
from .rows import (
    GapModel,
    Row,
    TileObs,
    find_rows,
    fit_gap_model,
    split_groups,
    steep_share,
)
from .settings import LayoutSettings

# --- 1. duplicates -----------------------------------------------------------------


def _overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(IoU, intersection / smaller area) of two xyxy boxes."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    area_a = max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1])
    area_b = max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])
    union = area_a + area_b - inter
    smaller = min(area_a, area_b)
    return (inter / union if union > 0 else 0.0, inter / smaller if smaller > 0 else 0.0)


def _centre(box: np.ndarray) -> dict[str, float]:
    """The centre of an xyxy box as issue parameters."""
    return {"x": float(box[0] + box[2]) / 2, "y": float(box[1] + box[3]) / 2}


def tile_seen(dets: Detections, i: int) -> dict[str, object]:
    """Tile `i` as issues quote it: its class, where it lies and how sure the reading was."""
    return {"name": CLASS_NAMES[dets.class_id[i]], **_centre(dets.xyxy[i]), "conf": float(dets.confidence[i])}


def merge_duplicates(dets: Detections, settings: LayoutSettings) -> tuple[Detections, list[ReaderIssue]]:
    """One box per tile: the most confident of boxes that overlap as one tile; disagreements reported.

    The issues name the kept tile by its index in the merged detections.
    """
    order = np.argsort(-dets.confidence, kind="stable")
    kept: list[int] = []
    found: list[tuple[int, dict[str, object]]] = []
    for i in order:
        for k in kept:
            iou, contained = _overlap(dets.xyxy[i], dets.xyxy[k])
            same_face = dets.class_id[i] == dets.class_id[k]
            if (iou > settings.duplicate_iou or contained > settings.duplicate_containment
                    or (same_face and iou > settings.duplicate_same_face_iou)):
                if not same_face:
                    found.append((k, {
                        **_centre(dets.xyxy[k]),
                        "kept": CLASS_NAMES[dets.class_id[k]], "kept_conf": float(dets.confidence[k]),
                        "dropped": CLASS_NAMES[dets.class_id[i]], "dropped_conf": float(dets.confidence[i]),
                    }))
                break
        else:
            kept.append(int(i))
    position = {k: n for n, k in enumerate(sorted(kept))}
    issues = [issue(IssueCode.DUPLICATE_READING, (position[k],), **params) for k, params in found]
    return dets[np.array(sorted(kept), dtype=np.int64)], issues


# --- 3. meld typing ------------------------------------------------------------------


def type_group(names: tuple[str, ...]) -> Meld | ReaderIssue:
    """The set a meld-row group shows, or an issue saying why it is not one (its tiles left for the caller)."""
    shown = " ".join(names)
    faces = [n for n in names if n != BACK]
    if len(faces) < len(names):
        if len(names) != 4:
            return issue(IssueCode.GROUP_BACK_NOT_KONG, shown=shown)
        if not faces:
            return issue(IssueCode.KONG_ONLY_BACKS)
        if len(set(faces)) != 1 or faces[0] not in TILE_NAMES:
            return issue(IssueCode.KONG_FACES_DIFFER, shown=shown)
        return Meld.kong(Tile.parse(faces[0]), concealed=True)
    if any(n not in TILE_NAMES for n in names):
        return issue(IssueCode.GROUP_NOT_SUIT_OR_HONOR, shown=shown)
    tiles = tuple(Tile.parse(n) for n in names)
    kind = MeldKind.KONG if len(tiles) == 4 else MeldKind.PUNG if len(set(tiles)) == 1 else MeldKind.CHOW
    if len(tiles) not in (3, 4):
        return issue(IssueCode.GROUP_SIZE, shown=shown, size=len(tiles))
    try:
        return Meld(kind, tiles).validate()
    except HandError:
        return issue(IssueCode.GROUP_NOT_SET, shown=shown)


def segment_sets(names: tuple[str, ...], gaps: tuple[float, ...], sets: int | None = None) -> list[int] | None:
    """Cut a row of tiles into consecutive valid sets, preferring cuts at the widest gaps.

    Returns the sizes of the sets, left to right, or None when no cut makes
    every part a set.  Among the ways that do, the one whose cuts add up to the
    widest gaps wins; with `sets` given (known from the standing row), a way with
    that many sets is preferred.  `gaps[i]` is the gap after tile i.
    """
    n = len(names)
    best: dict[tuple[int, int], tuple[float, list[int]]] = {(0, 0): (0.0, [])}
    for start in range(n):
        for count in range(start // 3 + 1):
            if (start, count) not in best:
                continue
            score, sizes = best[(start, count)]
            for size in (3, 4):
                end = start + size
                if end > n or not isinstance(type_group(names[start:end]), Meld):
                    continue
                cut = gaps[end - 1] if end < n else 0.0
                key = (end, count + 1)
                if key not in best or score + cut > best[key][0]:
                    best[key] = (score + cut, [*sizes, size])
    ends = {count: best[(n, count)] for count in range(n // 3 + 1) if (n, count) in best}
    if not ends or n == 0:
        return None
    if sets in ends:
        return ends[sets][1]
    return max(ends.values(), key=lambda e: e[0])[1]


# --- 3. the layout -------------------------------------------------------------------


@dataclass(frozen=True)
class MeldRead:
    """One group of the meld row and the set it was read as (None when it is not a set)."""

    tiles: tuple[TileObs, ...]
    meld: Meld | None


@dataclass(frozen=True)
class Layout:
    """What the photo shows, before it becomes a hand."""

    standing: tuple[TileObs, ...]  # the standing row without the winning tile, left to right
    win: TileObs | None  # None when no gap sets it apart
    melds: tuple[MeldRead, ...]  # left to right
    flowers: tuple[TileObs, ...]
    stray: tuple[TileObs, ...]  # tiles in no row the spec knows
    angle_deg: float  # row direction in the image
    issues: tuple[ReaderIssue, ...]

    def groups(self) -> dict[int, str]:
        """Group name per detection index (stray tiles are absent)."""
        out = {t.index: HAND for t in self.standing}
        if self.win is not None:
            out[self.win.index] = WIN
        for k, m in enumerate(self.melds):
            out.update({t.index: meld_group(k) for t in m.tiles})
        out.update({t.index: FLOWERS for t in self.flowers})
        return out


def _where(t: TileObs) -> dict[str, object]:
    """A tile of a row as issues quote it: its class and where it lies."""
    return {"name": t.name, "x": t.x, "y": t.y}


def _read_standing(
    row: Row, model: GapModel, settings: LayoutSettings
) -> tuple[tuple[TileObs, ...], TileObs | None, list[ReaderIssue]]:
    tiles = row.tiles
    issues = [issue(IssueCode.BACK_IN_STANDING, (t.index,), **_where(t)) for t in tiles if t.name == BACK]
    if len(tiles) < 2:
        return tiles, None, [*issues, issue(IssueCode.STANDING_TOO_SHORT, (t.index for t in tiles))]
    if model.gaps(row)[-1] > settings.win_gap:
        return tiles[:-1], tiles[-1], issues
    issues.append(issue(IssueCode.WIN_NOT_SET_APART, (tiles[-1].index,), **_where(tiles[-1])))
    return tiles, None, issues


def sets_between_apart(
    names: tuple[str, ...], gaps: tuple[float, ...], sets: int, group_gap: float, max_apart: int
) -> tuple[int, int, list[int]] | None:
    """Where `sets` valid sets lie in a row that also holds tiles apart at its ends (flowers beside the melds).

    Returns (start, end, set sizes) of the stretch `names[start:end]` that cuts into exactly `sets`
    sets, with a gap wider than `group_gap` on each side that has tiles beyond it and at most
    `max_apart` tiles outside it (the fewest win); None when there is no such stretch.
    """
    n = len(names)
    best: tuple[int, int, list[int]] | None = None
    for start in range(n):
        if start > 0 and gaps[start - 1] <= group_gap:
            continue
        for end in range(n, start - 1, -1):
            apart = start + n - end
            if apart == 0 or apart > max_apart or (best is not None and apart >= best[0] + n - best[1]):
                continue
            if 0 < end < n and gaps[end - 1] <= group_gap:
                continue
            if end == start:
                sizes: list[int] | None = [] if sets == 0 else None
            else:
                sizes = segment_sets(names[start:end], gaps[start:end - 1], sets)
            if sizes is not None and len(sizes) == sets:
                best = (start, end, sizes)
    return best


def _read_melds(
    row: Row, model: GapModel, settings: LayoutSettings, sets: int | None
) -> tuple[list[MeldRead], tuple[TileObs, ...], list[ReaderIssue]]:
    """The meld row as sets and the tiles lying apart beside them.

    The row is cut at gaps into valid sets when that is possible, else by gaps alone.  When the
    standing row says how many sets there must be and the whole row does not cut into that many,
    tiles set apart at its ends (flowers beside the melds that were read as other faces) are left
    out of the sets if that makes the count right.
    """
    names = tuple(t.name for t in row.tiles)
    gaps = model.gaps(row)
    sizes = segment_sets(names, gaps, sets)
    start, end = 0, len(names)
    if sets is not None and (sizes is None or len(sizes) != sets):
        found = sets_between_apart(names, gaps, sets, settings.group_gap, settings.max_apart_tiles)
        if found is not None:
            start, end, sizes = found
    apart = row.tiles[:start] + row.tiles[end:]
    if sizes is None:
        melds, issues = _melds_by_gaps(row, model, settings)
        return melds, (), issues
    bounds = [(start + sum(sizes[:k]), start + sum(sizes[:k + 1])) for k in range(len(sizes))]
    reads = [MeldRead(row.tiles[a:b], type_group(names[a:b])) for a, b in bounds]  # type: ignore[arg-type]
    issues = [note for r in reads if (note := _concealed_kong_note(r)) is not None]
    for k, (a, b) in enumerate(bounds):
        shown = " ".join(names[a:b])
        indices = [t.index for t in row.tiles[a:b]]
        if max(gaps[a:b - 1]) > settings.set_inner_gap:
            issues.append(issue(IssueCode.WIDE_GAP_IN_SET, indices, shown=shown))
        if k + 1 < len(bounds) and gaps[b - 1] <= settings.group_gap:
            after = slice(*bounds[k + 1])
            issues.append(issue(IssueCode.SETS_TOUCH, indices + [t.index for t in row.tiles[after]],
                                shown=shown, after=" ".join(names[after])))
    return reads, apart, issues


def _concealed_kong_note(read: MeldRead) -> ReaderIssue | None:
    """A concealed kong not shown the usual way (outer two face down) may hide a false `back`: say so."""
    names = [t.name for t in read.tiles]
    if read.meld is None or not read.meld.concealed or (names[0] == names[3] == BACK and BACK not in names[1:3]):
        return None
    return issue(IssueCode.UNUSUAL_CONCEALED_KONG, (t.index for t in read.tiles), shown=" ".join(names))


def _short_concealed_kong(names: tuple[str, ...]) -> Meld | None:
    """A group of three that holds a face-down tile and one face only: the concealed kong of that face, its fourth
    tile not found (a group that holds any face-down tile is a concealed kong)."""
    faces = {n for n in names if n != BACK}
    if len(names) != 3 or len(faces) != 1 or BACK not in names or next(iter(faces)) not in TILE_NAMES:
        return None
    return Meld.kong(Tile.parse(next(iter(faces))), concealed=True)


def _melds_by_gaps(row: Row, model: GapModel, settings: LayoutSettings) -> tuple[list[MeldRead], list[ReaderIssue]]:
    reads: list[MeldRead] = []
    issues: list[ReaderIssue] = []
    for group in split_groups(row, settings.group_gap, model):
        names = tuple(t.name for t in group)
        typed = type_group(names)
        kong = _short_concealed_kong(names) if settings.short_concealed_kongs else None
        if isinstance(typed, ReaderIssue) and kong is not None:
            reads.append(MeldRead(group, kong))
            issues.append(issue(IssueCode.KONG_TILE_MISSING, (t.index for t in group), shown=" ".join(names),
                                tile=str(kong.tiles[0])))
            continue
        reads.append(MeldRead(group, typed if isinstance(typed, Meld) else None))
        note = typed.with_tiles(t.index for t in group) if isinstance(typed, ReaderIssue) else _concealed_kong_note(reads[-1])
        if note is not None:
            issues.append(note)
    return reads, issues


def copies_allowed(name: str, settings: LayoutSettings) -> int:
    return 1 if name in FLOWER_NAMES else settings.max_copies


def _copies_issues(tiles: list[TileObs], settings: LayoutSettings) -> list[ReaderIssue]:
    counts = Counter(t.name for t in tiles if t.name != BACK)
    issues = []
    for name, n in sorted(counts.items()):
        limit = copies_allowed(name, settings)
        if n > limit:
            copies = sorted(t.index for t in tiles if t.name == name)
            issues.append(issue(IssueCode.TOO_MANY_COPIES, copies, name=name, seen=n, limit=limit))
    return issues


def read_layout(dets: Detections, settings: LayoutSettings) -> Layout:
    """Rows, groups, winning tile and flowers of deduplicated detections."""
    names = dets.class_names
    issues = [
        issue(IssueCode.LOW_CONFIDENCE, (i,), **tile_seen(dets, i))
        for i in range(len(dets)) if dets.confidence[i] < settings.low_confidence
    ]
    if len(dets) == 0:
        return Layout((), None, (), (), (), 0.0, tuple([*issues, issue(IssueCode.NO_TILES)]))
    is_flower = np.array([n in FLOWER_NAMES for n in names])
    flower_idx = np.flatnonzero(is_flower)
    rest = np.flatnonzero(~is_flower)
    flowers = tuple(
        TileObs(int(i), names[i], float(dets.confidence[i]), float(c[0]), float(c[1]), 0.0, 0.0, 0.0, 0.0)
        for i, c in zip(flower_idx, dets.centers[flower_idx], strict=False)
    )
    if len(rest) == 0:
        issues.append(issue(IssueCode.ONLY_FLOWERS, flower_idx))
        return Layout((), None, (), flowers, (), 0.0, tuple(issues))

    found = find_rows(rest, [names[i] for i in rest], dets.confidence[rest], dets.xyxy[rest], settings)
    angle_deg = float(np.degrees(found.angle))
    if abs(angle_deg) > settings.max_row_angle_deg:
        issues.append(issue(IssueCode.ROWS_TILTED, angle_deg=angle_deg))
    if len(rest) >= settings.steep_min_tiles and steep_share(dets.xyxy[rest], settings) > settings.steep_max_share:
        issues.append(issue(IssueCode.ROWS_UPRIGHT))
    rows, nearer = _below_the_hand(found.rows)
    model = fit_gap_model(rows[-2:], found.angle, settings)
    standing, win, more = _read_standing(rows[-1], model, settings)
    issues += more
    melds: list[MeldRead] = []
    beside: tuple[TileObs, ...] = ()
    if len(rows) >= 2:
        sets, rest_tiles = divmod(14 - len(rows[-1].tiles), 3)
        melds, beside, more = _read_melds(rows[-2], model, settings, sets if rest_tiles == 0 else None)
        issues += more
    stray = tuple(t for r in rows[:-2] for t in r.tiles) + beside + nearer
    if len(melds) > 4:
        issues.append(issue(IssueCode.TOO_MANY_GROUPS, (t.index for m in melds for t in m.tiles), groups=len(melds)))
    all_tiles = list(standing) + ([win] if win else []) + [t for m in melds for t in m.tiles] + list(flowers) + list(stray)
    issues += _copies_issues(all_tiles, settings)
    return Layout(standing, win, tuple(melds), flowers, stray, angle_deg, tuple(issues))


def _below_the_hand(rows: tuple[Row, ...]) -> tuple[tuple[Row, ...], tuple[TileObs, ...]]:
    """The rows without the lone tiles wholly nearer the camera than the hand, and those tiles. A standing row
    holds at least two tiles; a single box clear of the row above it is a die, a chip or a flower read as
    another face, lying apart. One that overlaps that row is the repair search's to leave out."""
    nearer: tuple[TileObs, ...] = ()
    while len(rows) > 1 and len(rows[-1].tiles) == 1:
        (lone,) = rows[-1].tiles
        if lone.v - lone.height / 2 <= max(t.v + t.height / 2 for t in rows[-2].tiles):
            break
        nearer += rows[-1].tiles
        rows = rows[:-1]
    return rows, nearer


# --- 4. the hand ---------------------------------------------------------------------


def hand_of(layout: Layout, context: WinContext) -> tuple[Layout, Hand | None, list[ReaderIssue]]:
    """The hand of a layout, with the face-up tiles lying apart from its rows counted as flowers.

    A finished hand shows nothing but its two rows and the flowers, so once the rows make a
    complete hand, face-up tiles apart from them can only be flowers and seasons read as other
    faces (an artwork the classifier does not know): they are counted, and the issues say so.
    """
    hand, issues = layout_to_hand(layout, context)
    faces = tuple(t for t in layout.stray if t.name != BACK)
    if hand is not None and faces and len(layout.flowers) + len(faces) <= len(FLOWER_NAMES):
        counted = replace(layout, flowers=layout.flowers + faces, stray=tuple(t for t in layout.stray if t.name == BACK))
        counted_hand, more = layout_to_hand(counted, context)
        if counted_hand is not None:
            note = issue(IssueCode.STRAY_AS_FLOWERS, (t.index for t in faces), names=tuple(t.name for t in faces))
            return counted, counted_hand, [note, *_stray_issues(counted), *more]
    return layout, hand, [*_stray_issues(layout), *issues]


def _stray_issues(layout: Layout) -> list[ReaderIssue]:
    if not layout.stray:
        return []
    return [issue(IssueCode.STRAY_UNUSED, (t.index for t in layout.stray), names=tuple(t.name for t in layout.stray))]


def layout_to_hand(layout: Layout, context: WinContext) -> tuple[Hand | None, list[ReaderIssue]]:
    """The hand the layout shows (flowers counted from the photo), or None and the reasons."""
    if not layout.standing and layout.win is None:
        return None, []  # nothing laid out: the layout's issues say so
    if layout.win is None:
        return None, [issue(IssueCode.NO_WIN_TILE)]
    if any(m.meld is None for m in layout.melds):
        not_sets = (t.index for m in layout.melds if m.meld is None for t in m.tiles)
        return None, [issue(IssueCode.MELD_NOT_SET, not_sets)]
    face_down = [t for t in (*layout.standing, layout.win) if t.name not in TILE_NAMES]
    if face_down:
        return None, [issue(IssueCode.STANDING_NOT_FACES, (t.index for t in face_down),
                            names=tuple(t.name for t in face_down))]
    melds = tuple(m.meld for m in layout.melds if m.meld is not None)
    expected = 13 - 3 * len(melds)
    if len(melds) > 4 or len(layout.standing) != expected:
        return None, [issue(IssueCode.TILE_COUNT, melds=len(melds), expected=expected, held=len(layout.standing))]
    if len(layout.flowers) > 8:
        return None, [issue(IssueCode.TOO_MANY_FLOWERS, (t.index for t in layout.flowers), flowers=len(layout.flowers))]
    try:
        return build_hand(melds, [t.name for t in layout.standing], layout.win.name, len(layout.flowers), context), []
    except HandError as exc:
        return None, [issue(IssueCode.INVALID_HAND, reason=str(exc))]


def build_hand(
    melds: Sequence[Meld], standing: Sequence[str], win: str, flowers: int, context: WinContext
) -> Hand:
    """The hand of typed melds (`type_group`) and the standing and winning tiles' names, with `flowers`
    replacing `context.flowers`; HandError (in player terms) when they make no hand."""
    return Hand(
        tuple(melds), tuple(Tile.parse(n) for n in standing), Tile.parse(win), replace(context, flowers=flowers)
    ).validate()
