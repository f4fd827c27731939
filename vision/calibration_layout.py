"""The calibration layout read from a photo (`docs/spec/calibration-layout.md`, `tileset.calibration`).

Every tile named by its row and place (rows far to near, tiles left to right), or the problems that
say which row or place is missing or extra; for a photo in no particular order, the faces given one
of each (`one_of_each`: the most likely assignment of distinct faces to tiles) for the player to
confirm. Runtime code (no onnx, no torch): the app reads a layout with it; `training.calibrate` learns
from what it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tileset.calibration import calibration_rows
from tileset.classes import BACK, BACK_ID, CLASS_NAMES
from vision.detections import Detections
from vision.rows import TileObs
from vision.settings import LayoutSettings

ROW_TITLES = {1: "characters", 2: "dots", 3: "bamboo", 4: "winds and dragons", 5: "flowers and seasons"}
MATCH_IOU = 0.5  # a detection reads a tile it overlaps this much (as training.evaluate pairs them)


@dataclass(frozen=True)
class LaidTile:
    """One tile of the layout: where it lies, what it is by its place, what the models read."""

    row: int  # 1 = farthest from the camera
    place: int  # 1 = leftmost
    expected: str
    read_as: str
    confidence: float
    xyxy: tuple[float, float, float, float]


@dataclass(frozen=True)
class LayoutReading:
    tiles: tuple[LaidTile, ...]
    problems: tuple[str, ...]
    # boxes given no place plus places given no box: how far a reading is from fitting, which each box
    # left out or added must lower (`_fitted`)
    misfits: int = 0
    # tiles read as the face of the place they were given, in rows that fit and in those that do not (the
    # places their gaps or reads give them): which of two moves as good by misfits to take (`_closer`)
    agreeing: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def read_accuracy(self) -> float:
        return sum(t.read_as == t.expected for t in self.tiles) / len(self.tiles) if self.tiles else 0.0

    @property
    def misread(self) -> list[str]:
        return [f"row {t.row} place {t.place}: {t.expected} read as {t.read_as}" for t in self.tiles
                if t.read_as != t.expected]


def _row_title(number: int) -> str:
    return f"row {number} ({ROW_TITLES.get(number, 'extra')})"


def _agreeing(read: Sequence[str], expected: Sequence[str]) -> int:
    return sum(r == e for r, e in zip(read, expected, strict=False))


def _align(n: int, m: int, gain: Callable[[int, int], float]) -> list[tuple[int, int]]:
    """Pairs (i, j), increasing in both, of the most total `gain(i, j)`: found items matched to expected
    places in order, any of either left out (gains carry a small bonus, so a pair beats a skip)."""
    score = np.zeros((n + 1, m + 1))
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            score[i, j] = max(score[i - 1, j - 1] + gain(i - 1, j - 1), score[i - 1, j], score[i, j - 1])
    pairs, i, j = [], n, m
    while i and j:
        if np.isclose(score[i, j], score[i - 1, j - 1] + gain(i - 1, j - 1)):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif score[i, j] == score[i - 1, j]:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


def _align_rows(found: Sequence[Sequence[str]], expected: Sequence[Sequence[str]]) -> list[tuple[int, int]]:
    """Pairs (found row, expected row), in order, that share the most tiles read as faces of that row."""
    return _align(len(found), len(expected), lambda i, j: sum(name in expected[j] for name in found[i]) + 0.01)


def _align_places(read: Sequence[str], expected: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs (found tile, place), in order: the most tiles read as their place's face, then the most pairs."""
    return _align(len(read), len(expected), lambda i, j: (read[i] == expected[j]) + 0.001)


def _places_by_gaps(row: Sequence[Any], read: Sequence[str], expected: Sequence[str]) -> list[tuple[int, int]] | None:
    """Pairs (found tile, place) of a row with tiles missing, from the gaps they leave: each step between
    neighbours, in tile pitches (the median step), says how many places it spans. Tiles missing at the
    ends leave no gap: there the readings choose the offset. None when the steps do not fit the row."""
    if len(row) < 2 or len(row) >= len(expected):
        return None
    steps = np.diff([t.u for t in row])
    pitch = float(np.median(steps))
    if pitch <= 0:
        return None
    offsets = np.concatenate([[0], np.cumsum([max(1, round(step / pitch)) for step in steps])])
    room = len(expected) - 1 - int(offsets[-1])
    if room < 0:
        return None
    best = max(range(room + 1), key=lambda o: (sum(read[k] == expected[o + int(offsets[k])] for k in range(len(row))), -o))
    return [(k, best + int(offsets[k])) for k in range(len(row))]


def read_layout(dets: Detections, bonus: tuple[str, ...] | None = None,
                settings: LayoutSettings = LayoutSettings(), unsure: Detections | None = None) -> LayoutReading:
    """Name every tile of a calibration photo by its row and place; `problems` say what does not fit.

    `bonus`: row 5 as `tileset.calibration.parse_bonus` gives it (None: all eight flowers and seasons,
    or no row 5 at all). Row 4 may end with one back. Read with every box first, then, while the layout
    does not fit, with boxes left out and added one at a time (`_fitted`): left out, the least sure ones
    (`LayoutSettings.calibration_doubtful`), in the full layout only (leaving out boxes never turns a
    set's flowers row into no row 5: with `bonus` None, a flowers row whose tiles were all read unsurely
    would otherwise go); added, boxes of `unsure` (the finder's boxes below its threshold that lie on
    none of `dets`, `unsure_boxes`). When none fits, the problems of the reading with every box.
    """
    from vision.layout import merge_duplicates

    dets, _ = merge_duplicates(dets, settings)
    if len(dets) == 0:
        return LayoutReading((), ("no tiles found",))
    every_box = _read_rows(dets, bonus, settings)
    if every_box.ok:
        return every_box
    return _fitted(dets, Detections.empty() if unsure is None else unsure, bonus, settings, every_box) or every_box


def _joined(a: Detections, b: Detections) -> Detections:
    return Detections(np.concatenate([a.xyxy, b.xyxy]), np.concatenate([a.confidence, b.confidence]),
                      np.concatenate([a.class_id, b.class_id]),
                      np.concatenate([np.asarray(a.runner_up), np.asarray(b.runner_up)]), a.left_out)


def _fitted(dets: Detections, unsure: Detections, bonus: tuple[str, ...] | None, settings: LayoutSettings,
            every_box: LayoutReading) -> LayoutReading | None:
    """A reading that fits, reached one box at a time from the reading with every box: at each step, of
    leaving out one more doubtful box (the `calibration_doubtful` least sure, each below
    `calibration_doubt`) and adding one more unsure box (the surest `calibration_unsure`), the first that
    leaves the fewest misfits, when fewer than before, and of those the most tiles read as their place's
    face (`_closer`); the least sure boxes are tried first, then the surest unsure ones. A false box on
    the cloth has no place (one misfit less when left out) and a tile the finder scored low fills an
    empty place; an added box must be a tile's size (`_tile_sized`) and leave its row stepping evenly
    (`_evenly_spaced`). None when no step helps before every tile has its place."""
    order = np.argsort(dets.confidence, kind="stable")
    doubtful = [int(i) for i in order[: settings.calibration_doubtful] if dets.confidence[i] < settings.calibration_doubt]
    candidates = _tile_sized(unsure, dets, settings.calibration_unsure_size)
    candidates = candidates[np.argsort(-candidates.confidence, kind="stable")[: settings.calibration_unsure]]
    left_out: list[int] = []
    added: list[int] = []
    current = every_box
    while not current.ok:
        best: tuple[LayoutReading, list[int], list[int]] | None = None
        moves = [([*left_out, i], added, False) for i in doubtful if i not in left_out]
        moves += [(left_out, [*added, k], True) for k in range(len(candidates)) if k not in added]
        for out, more, adds in moves:
            kept = dets[np.setdiff1d(np.arange(len(dets)), out)]
            trial = _read_rows(_joined(kept, candidates[more]) if more else kept, bonus, settings, short=not out)
            if _closer(trial, best[0] if best else None, current) and (
                    not adds or _evenly_spaced(trial, candidates.xyxy[more], settings.calibration_step_spread)):
                best = (trial, out, more)
        if best is None:
            return None
        current, left_out, added = best
    return current


def _closer(trial: LayoutReading, best: LayoutReading | None, current: LayoutReading) -> bool:
    """Whether `trial` has fewer misfits than `current` and is better than `best` so far: fewer misfits, or
    as few with more tiles read as their place's face (`LayoutReading.agreeing`, rows that do not fit yet
    included). A row with one box too many fits with any one of them left out; leaving out a true tile
    names every tile after it one place off (the 6m read as 6m at the 5m's place, the 7m at the 6m's...),
    where the reads say which box was the extra one."""
    if trial.misfits >= current.misfits:
        return False
    return best is None or (trial.misfits, -trial.agreeing) < (best.misfits, -best.agreeing)


def _tile_sized(boxes: Detections, tiles: Detections, factor: float) -> Detections:
    """`boxes` as wide and as tall as the median of `tiles` within `factor` either way: a layout's tiles
    are all one size, and a box over two tiles or on a pattern of the cloth is not."""
    if not len(boxes) or not len(tiles):
        return boxes
    ratio = boxes.wh / np.maximum(np.median(tiles.wh, axis=0), 1e-6)
    return boxes[np.all((ratio <= factor) & (ratio >= 1 / factor), axis=1)]


def _next_in_row(row: Sequence[TileObs], spread: float) -> bool:
    """Whether the row's last tile lies one place on from the one before: its step within `spread` times
    the median step of the others."""
    steps = np.diff([t.u for t in row])
    if len(steps) < 2:
        return True
    return bool(steps[-1] <= spread * float(np.median(steps[:-1])))


def _evenly_spaced(reading: LayoutReading, added: np.ndarray, spread: float) -> bool:
    """Whether each named row holding an `added` box steps evenly from tile to tile: every step between
    neighbours within `spread` times of the row's median step. A box on the cloth beyond a row's end, or
    in a row short of a tile, would otherwise be named by its order and shift every name after it."""
    added_boxes = {tuple(float(v) for v in box) for box in added}
    for number in {t.row for t in reading.tiles}:
        row = sorted((t for t in reading.tiles if t.row == number), key=lambda t: t.place)
        if len(row) < 3 or not any(t.xyxy in added_boxes for t in row):
            continue
        centres = np.array([[(t.xyxy[0] + t.xyxy[2]) / 2, (t.xyxy[1] + t.xyxy[3]) / 2] for t in row])
        steps = np.linalg.norm(np.diff(centres, axis=0), axis=1)
        middle = float(np.median(steps))
        if middle <= 0 or steps.max() > spread * middle or steps.min() < middle / spread:
            return False
    return True


def unsure_boxes(detector: Any, picture: np.ndarray, found: Detections, settings: LayoutSettings) -> Detections:
    """The finder's boxes of `picture` down to `calibration_unsure_conf` (below the detector's threshold)
    that overlap none of `found` by a third: tiles of a set the finder scores low on a busy table, and
    more boxes on the table, none of them checked in the mirror image."""
    from vision.boxes import box_iou

    if (settings.calibration_unsure <= 0 or not hasattr(detector, "with_settings")  # one that cannot lower it
            or settings.calibration_unsure_conf >= detector.settings.conf_threshold):
        return Detections.empty()
    s = detector.settings
    low = detector.with_settings(replace(s, conf_threshold=settings.calibration_unsure_conf,
                                         mirror=replace(s.mirror, sure_conf=0.0)))
    more = low.detect(picture)
    if len(found) and len(more):
        more = more[box_iou(more.xyxy, found.xyxy).max(axis=1) < 1 / 3]
    return more


def read_layout_photo(detector: Any, picture: np.ndarray, bonus: tuple[str, ...] | None = None,
                      settings: LayoutSettings = LayoutSettings()) -> LayoutReading:
    """A calibration photo's layout as `detector` reads it (`read_layout`); when that does not fit, read
    again with the finder's unsure boxes (`unsure_boxes`) to fill the places left empty."""
    dets = detector.detect(picture)
    reading = read_layout(dets, bonus, settings)
    if reading.ok:
        return reading
    return read_layout(dets, bonus, settings, unsure_boxes(detector, picture, dets, settings))


def _read_rows(dets: Detections, bonus: tuple[str, ...] | None, settings: LayoutSettings,
               short: bool = True) -> LayoutReading:
    from vision.rows import find_rows

    names = dets.class_names
    layout = find_rows(np.arange(len(dets)), names, dets.confidence, dets.xyxy, settings)
    found = [list(row.tiles) for row in layout.rows]
    full = list(calibration_rows(bonus))
    if bonus is None and short:  # a set without flowers and seasons leaves row 5 out
        without_row_5 = _named(dets, found, full[:4], settings.calibration_step_spread)
        if without_row_5.ok:
            return without_row_5
    return _named(dets, found, full, settings.calibration_step_spread)


def _named(dets: Detections, found: list[list[TileObs]], expected: list[tuple[str, ...]],
           step_spread: float) -> LayoutReading:
    """The found rows (far to near, tiles left to right) named as the `expected` rows."""
    problems: list[str] = []
    if len(found) == len(expected):  # rows are named by their order; readings only place a missing or extra one
        pairs = [(i, i) for i in range(len(found))]
    else:
        pairs = _align_rows([[t.name for t in row] for row in found], expected)
    paired_found = {i for i, _ in pairs}
    paired_expected = {j for _, j in pairs}
    agreeing = 0
    misfits = (sum(len(names) for j, names in enumerate(expected) if j not in paired_expected)
               + sum(len(row) for i, row in enumerate(found) if i not in paired_found))
    for j, names in enumerate(expected):
        if j not in paired_expected:
            problems.append(f"{_row_title(j + 1)} missing: {' '.join(names)} not found as a row")
    for i, extra_row in enumerate(found):
        if i not in paired_found:
            before = max((j + 1 for fi, j in pairs if fi < i), default=0)
            where = f"after row {before}" if before else "before row 1"
            shown = " ".join(t.name for t in extra_row)
            problems.append(f"an extra row of {len(extra_row)} tile(s) {where} (read as {shown}, from "
                            f"({extra_row[0].x:.0f}, {extra_row[0].y:.0f}))")
    tiles: list[LaidTile] = []
    for i, j in pairs:
        row, names_expected, number = found[i], list(expected[j]), j + 1
        read = [t.name for t in row]
        if number == 4 and len(row) == len(names_expected) + 1 and read[-1] == BACK and (
                _agreeing(read[:-1], names_expected) >= _agreeing(read[1:], names_expected)) and _next_in_row(row, step_spread):
            # the optional back at the end of row 4; not when the reads fit the row better one place on (a
            # false box before E, the white dragon read as a back), which named every tile one place off,
            # nor when it lies further on than a place (a square of the cloth read as a back)
            names_expected.append(BACK)
        if len(row) != len(names_expected):
            placed = _places_by_gaps(row, read, names_expected) or _align_places(read, names_expected)
            got = {p for _, p in placed}
            used = {k for k, _ in placed}
            misfits += len(names_expected) - len(got) + len(row) - len(used)
            agreeing += sum(read[k] == names_expected[p] for k, p in placed)
            for place, name in enumerate(names_expected, start=1):
                if place - 1 not in got:
                    problems.append(f"{_row_title(number)} has {len(row)} tiles, {len(names_expected)} expected: "
                                    f"place {place} ({name}) missing")
            for k, tile in enumerate(row):
                if k not in used:
                    problems.append(f"{_row_title(number)} has {len(row)} tiles, {len(names_expected)} expected: "
                                    f"the tile at place {k + 1} (read as {tile.name}, at ({tile.x:.0f}, "
                                    f"{tile.y:.0f})) is extra")
            continue
        for place, (tile, name) in enumerate(zip(row, names_expected, strict=False), start=1):
            x0, y0, x1, y1 = (float(v) for v in dets.xyxy[tile.index])
            tiles.append(LaidTile(number, place, name, tile.name, float(tile.conf), (x0, y0, x1, y1)))
    agreeing += sum(t.read_as == t.expected for t in tiles)
    return LayoutReading(tuple(tiles), tuple(problems), misfits, agreeing)


# ---------------------------------------------------------------- one of each, in no order


def one_of_each(scores: np.ndarray) -> list[int]:
    """The face (column) of each tile (row) that makes the sum of scores largest with no face given twice:
    for a photo of one tile of each face laid out in no particular order, scores are the classifier's
    log-probabilities. Needs no more tiles than faces. The Hungarian method (shortest augmenting paths
    with potentials), O(tiles^2 x faces)."""
    cost = -np.asarray(scores, np.float64)
    n, m = cost.shape
    if n > m:
        raise ValueError(f"{n} tiles but only {m} faces: one of each cannot name them all")
    u, v = np.zeros(n + 1), np.zeros(m + 1)
    owner = np.zeros(m + 1, np.int64)  # owner[j]: the tile (1-based) holding face j; 0 = free
    way = np.zeros(m + 1, np.int64)
    for tile in range(1, n + 1):
        owner[0], free = tile, 0
        reach = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, bool)
        while True:
            used[free] = True
            row, delta, nxt = owner[free], np.inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    step = cost[row - 1, j - 1] - u[row] - v[j]
                    if step < reach[j]:
                        reach[j], way[j] = step, free
                    if reach[j] < delta:
                        delta, nxt = reach[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    reach[j] -= delta
            free = nxt
            if owner[free] == 0:
                break
        while free:
            previous = way[free]
            owner[free] = owner[previous]
            free = previous
    faces = [0] * n
    for j in range(1, m + 1):
        if owner[j]:
            faces[owner[j] - 1] = j - 1
    return faces


# ---------------------------------------------------------------- reading again


def reread(detector: Any, picture: np.ndarray, reading: LayoutReading) -> LayoutReading:
    """The tiles of `reading`, each read again by `detector` (the detection overlapping it most; "none"
    when no detection overlaps it by MATCH_IOU)."""
    from vision.boxes import box_iou

    dets = detector.detect(picture)
    boxes = np.array([t.xyxy for t in reading.tiles], np.float32).reshape(-1, 4)
    tiles = []
    iou = box_iou(boxes, dets.xyxy) if len(dets) and len(boxes) else np.zeros((len(boxes), 0))
    for k, tile in enumerate(reading.tiles):
        best = int(iou[k].argmax()) if iou.shape[1] else -1
        hit = best >= 0 and iou[k, best] >= MATCH_IOU
        tiles.append(replace(tile, read_as=dets.class_names[best] if hit else "none",
                             confidence=float(dets.confidence[best]) if hit else 0.0))
    return LayoutReading(tuple(tiles), ())


def read_unordered(detector: Any, picture: np.ndarray, bonus: tuple[str, ...] | None = None,
                   settings: LayoutSettings = LayoutSettings()) -> LayoutReading:
    """A photo of one tile of each face in no particular order, each face given to one tile (`one_of_each`
    on the classifier's log-probabilities), for the player to confirm. Places are the tiles' rows and
    places as found; `problems` name faces no tile was given and tiles beyond one of each."""
    from vision.crops import cut_tiles
    from vision.layout import merge_duplicates
    from vision.rows import find_rows

    dets, _ = merge_duplicates(detector.detect(picture), settings)
    faces = [name for row in calibration_rows(bonus) for name in row]
    face_up = np.flatnonzero(dets.class_id != BACK_ID)
    classifier = getattr(detector, "classifier", None)
    if classifier is not None and len(face_up):
        probs = classifier.probabilities(cut_tiles(picture, dets.xyxy[face_up], classifier.imgsz, detector.settings))
        columns = [list(classifier.names).index(name) for name in faces]
        scores = np.log(probs[:, columns] + 1e-9)
    else:  # a detector without a separate classifier: its own names, one-hot
        scores = np.array([[0.0 if CLASS_NAMES[dets.class_id[i]] == name else -20.0 for name in faces]
                           for i in face_up]).reshape(len(face_up), len(faces))
    problems: list[str] = []
    if len(face_up) > len(faces):
        problems.append(f"{len(face_up)} face-up tiles, but one of each is {len(faces)}: take the others away")
        return LayoutReading((), tuple(problems))
    given = one_of_each(scores) if len(face_up) else []
    missing = sorted(set(range(len(faces))) - set(given))
    if missing:
        problems.append("no tile for " + " ".join(faces[j] for j in missing))
    layout = find_rows(face_up, [CLASS_NAMES[dets.class_id[i]] for i in face_up], dets.confidence[face_up],
                       dets.xyxy[face_up], settings)
    where = {t.index: (r + 1, p + 1) for r, row in enumerate(layout.rows) for p, t in enumerate(row.tiles)}
    tiles = []
    for k, index in enumerate(face_up):
        row, place = where.get(int(index), (0, 0))
        tiles.append(LaidTile(row, place, faces[given[k]], CLASS_NAMES[dets.class_id[index]],
                              float(dets.confidence[index]), tuple(float(v) for v in dets.xyxy[index])))  # type: ignore[arg-type]
    tiles.sort(key=lambda t: (t.row, t.place))
    return LayoutReading(tuple(tiles), tuple(problems))
