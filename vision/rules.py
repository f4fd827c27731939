"""The reader's rules: one table, in the order they apply, each a small function over the reading.

`vision.detector.TileDetector.detect` finds the tiles, reads their faces and turns the result into
`Detections`; between those steps the rules of each stage run in the order registered here:

* `BOXES`: the finder's boxes of the photo (`Sighting`): which are kept, which copy of the photo is read.
* `FACES`: the classifier's reading of the face boxes (`FaceReading`): which reading is taken, and faces
  named anew together.
* `KINDS`: every box with what it was read as (`Reading`): boxes left out.

A rule has one signature for its stage: `(reading, its own settings, the reader's tools) -> reading`,
returning what it keeps or changes; its settings are the `DetectorSettings` section `settings_field` names.
`DetectorSettings.rules_off` names rules that are not applied: the ablation benchmark
(`benchmarks/reader_rules.py`) measures each so. Deleting a rule is deleting its function here and its
settings section.

Whether a photo is of the calibrated set (the few-shot head's likeness, `FaceReading.of_the_set`) is
decided once, when the faces are read, and carried as data; the rules for a set's photos read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

import numpy as np

from vision import timing
from vision.boxes import Found, median_face_aspect
from vision.calibration_layout import one_of_each
from vision.crops import cut_tiles
from vision.detections import Detections
from vision.models import ClassifierReading, FaceClassifier
from vision.settings import (
    CutByEdgeSettings,
    DetectorSettings,
    MirrorSettings,
    OneFlowerSettings,
    ShiftedCropsSettings,
    UnlikeStraysSettings,
    UnstretchSettings,
)
from vision.unstretch import unstretched

BOXES, FACES, KINDS = "boxes", "faces", "kinds"


class ReaderTools(Protocol):
    """What the rules may call on the reader (`vision.detector.TileDetector`)."""

    settings: DetectorSettings

    @property
    def face_classifier(self) -> FaceClassifier: ...

    def find_boxes(self, image_bgr: np.ndarray, conf_threshold: float | None = None) -> Found: ...

    def is_face(self, classes: np.ndarray) -> np.ndarray: ...

    def confidence_in_mirror(self, image_bgr: np.ndarray, xyxy: np.ndarray, floor: float) -> np.ndarray: ...



# ------------------------------------------------------------------ the data between the rules


@dataclass(frozen=True, eq=False)
class Sighting:
    """The finder's boxes of a photo, before any face is read."""

    image_bgr: np.ndarray  # the copy of the photo that is read (the photo itself unless it was unstretched)
    found: Found  # the finder's boxes past its threshold, in that copy's pixels
    to_photo: tuple[float, float] = (1.0, 1.0)  # factors (x, y) from the copy's pixels to the photo's


@dataclass(frozen=True, eq=False)
class FaceReading:
    """The classifier's reading of a photo's face-up tile boxes, as the rules of the faces leave it."""

    ids: np.ndarray  # (N,) canonical class ids
    confidence: np.ndarray  # (N,) the probability of each
    seconds: np.ndarray  # (N,) second readings (for a flower, the likeliest face that is not one)
    likeness: np.ndarray  # (N,) to the calibrated set (+inf without a few-shot head)
    of_the_set: bool  # the photo is of the calibrated set (always, without a few-shot head, when it has faces)
    head_used: bool = False  # its faces were read by a few-shot head (not by the classifier it was made from)
    probs: np.ndarray | None = None  # (N, 42) the probabilities read, in the classifier's columns
    outputs: ClassifierReading | None = None  # what the classifier gave the crops
    crops: np.ndarray | None = None  # the classifier's input crops
    image_bgr: np.ndarray | None = None  # the copy of the photo the crops were cut from
    xyxy: np.ndarray | None = None  # (N, 4) the face boxes, in that copy's pixels

    @property
    def column_probs(self) -> np.ndarray:
        """`probs`, which every reading with faces has."""
        assert self.probs is not None
        return self.probs


@dataclass(frozen=True, eq=False)
class Reading:
    """Every box of a photo with what it was read as: the finder's boxes, in its order, then any the rules
    added. `faces` reads the finder's face boxes (`is_face`), in order."""

    sighting: Sighting
    is_face: np.ndarray  # (N,) of the finder's boxes, which are face up
    faces: FaceReading
    xyxy: np.ndarray  # (M, 4) every box, in the read copy's pixels
    confidence: np.ndarray  # (M,) the finder's confidence times the face's
    class_id: np.ndarray  # (M,) canonical class ids
    runner_up: np.ndarray  # (M,) second readings, -1 for none
    left_out: np.ndarray  # (M,) not a tile: left out of the detections, but named to the player

    def detections(self) -> Detections:
        """The boxes kept as Detections (in the read copy's pixels), with the boxes left out beside them."""
        kept = ~self.left_out
        return Detections(self.xyxy[kept], self.confidence[kept], self.class_id[kept], self.runner_up[kept],
                          self.xyxy[~kept])

    @property
    def face_rows(self) -> np.ndarray:
        """The row of each face box (of `faces`) among every box."""
        return np.flatnonzero(self.is_face)


# ------------------------------------------------------------------ the table


@dataclass(frozen=True)
class Rule:
    """One rule of the table."""

    name: str
    stage: str  # BOXES, FACES or KINDS: the data it reads and returns
    apply: Callable[[Any, Any, ReaderTools], Any]  # (reading, its settings, tools) -> reading
    settings_field: str | None  # the `DetectorSettings` section it reads, if any
    calibrated_only: bool  # acts only with a classifier calibrated to a set (a few-shot head)


RULES: list[Rule] = []  # in the order they apply
RULE_NAMES: list[str] = []
ApplyT = TypeVar("ApplyT", bound=Callable[..., Any])


def rule(name: str, stage: str, settings_field: str | None = None, calibrated_only: bool = True
         ) -> Callable[[ApplyT], ApplyT]:
    """Registers the function it decorates as the next rule of the table."""

    def register(apply: ApplyT) -> ApplyT:
        assert name not in RULE_NAMES, f"rule {name} registered twice"
        RULES.append(Rule(name, stage, apply, settings_field, calibrated_only))
        RULE_NAMES.append(name)
        return apply

    return register


def check_rule_names(names: frozenset[str] | set[str]) -> None:
    """ValueError naming any of `names` that is no rule."""
    unknown = sorted(set(names) - set(RULE_NAMES))
    if unknown:
        raise ValueError(f"no rule named {', '.join(unknown)} (the rules: {', '.join(RULE_NAMES)})")


def apply_rules(stage: str, reading: Any, tools: ReaderTools) -> Any:
    """`reading` through every rule of `stage` that is on, in the table's order."""
    settings = tools.settings
    for entry in RULES:
        if entry.stage == stage and entry.name not in settings.rules_off:
            own = None if entry.settings_field is None else getattr(settings, entry.settings_field)
            with timing.stage(f"rule {entry.name}"):  # the models it runs again count here, not as their stage
                reading = entry.apply(reading, own, tools)
    return reading


# ------------------------------------------------------------------ BOXES


@rule("unstretch", BOXES, "unstretch", calibrated_only=False)
def unstretch(sighting: Sighting, own: UnstretchSettings, tools: ReaderTools) -> Sighting:
    """A photo whose face boxes come out far thinner (or wider) than any tile is, read in a copy resized back
    to their natural shape (`vision.unstretch`)."""
    copy = unstretched(sighting.image_bgr, tools.find_boxes, tools.is_face, own, first=sighting.found)
    if copy.image_bgr is sighting.image_bgr:
        return sighting
    h, w = sighting.image_bgr.shape[:2]
    return Sighting(copy.image_bgr, copy.found, copy.scale_to(w, h))


@rule("mirror", BOXES, "mirror", calibrated_only=False)
def mirror(sighting: Sighting, own: MirrorSettings, tools: ReaderTools) -> Sighting:
    """Boxes past the threshold but under `sure_conf` are kept only when the finder finds them again in the mirror
    image of the copy read; the others are dropped. A tile is found in both images; a patch of a cloth the finder
    never met, a die or a paper's print often in one only."""
    return replace(sighting, found=confirmed_in_mirror(sighting.image_bgr, sighting.found, own, tools))


def confirmed_in_mirror(image_bgr: np.ndarray, found: Found, own: MirrorSettings, tools: ReaderTools) -> Found:
    """The boxes of `found` the mirror check keeps, in the same order, each with its class scores."""
    checked = np.flatnonzero((found.conf >= tools.settings.conf_threshold) & (found.conf < own.sure_conf))
    if len(checked) == 0:
        return found
    seen = tools.confidence_in_mirror(image_bgr, found.xyxy[checked], own.confirm_conf) >= own.confirm_conf
    unconfirmed = np.zeros(len(found), bool)
    unconfirmed[checked] = ~seen
    return found[~unconfirmed]


@rule("cut_by_edge", BOXES, "cut_by_edge", calibrated_only=False)
def cut_by_edge(sighting: Sighting, own: CutByEdgeSettings, tools: ReaderTools) -> Sighting:
    """A face box that touches the left or right edge of the photo and is far narrower than the faces clear of every
    edge (their median width / height), or touches the top or bottom and is far flatter, is a tile the photo's edge
    cuts: a tile beside the layout, its face unreadable. It is dropped. A box in a corner is kept."""
    found = sighting.found
    h, w = sighting.image_bgr.shape[:2]
    x1, y1, x2, y2 = found.xyxy.T
    at_side = (x1 <= own.edge_px) | (x2 >= w - own.edge_px)
    at_top_or_bottom = (y1 <= own.edge_px) | (y2 >= h - own.edge_px)
    face = tools.is_face(found.classes)
    median = median_face_aspect(found.xyxy, face & ~at_side & ~at_top_or_bottom, own.min_faces)
    if median is None:
        return sighting
    aspect = (x2 - x1) / np.maximum(y2 - y1, 1e-3) / median
    cut = face & ((at_side & ~at_top_or_bottom & (aspect < own.thinner_than))
                  | (at_top_or_bottom & ~at_side & (aspect > own.flatter_than)))
    return replace(sighting, found=found[~cut]) if cut.any() else sighting


# ------------------------------------------------------------------ FACES


@rule("base_reading", FACES)
def base_reading(faces: FaceReading, own: None, tools: ReaderTools) -> FaceReading:
    """A photo that is not of the calibrated set is read by the classifier the version was made from (its
    output in the same graph, or the model kept beside it), as before calibration: the head's thresholds, set
    on a few base photos, let another set's faces through."""
    if faces.of_the_set:
        return faces
    classifier = tools.face_classifier
    probs = _base_probs(faces.outputs, faces.crops, classifier)
    return faces if probs is None else named(faces, probs, classifier, head_used=False)


def _base_probs(out: ClassifierReading | None, crops: np.ndarray | None, classifier: FaceClassifier
                ) -> np.ndarray | None:
    """The probabilities the classifier a version was calibrated from gives `crops` (read as `out`): its output in
    the same graph, or the model kept beside it; None when the version keeps neither."""
    if out is not None and out.base_probs is not None:
        return out.base_probs
    if classifier.base_reader is not None and crops is not None:
        return classifier.read_as_base(crops)
    return None


@rule("shifted_crops", FACES, "shifted_crops", calibrated_only=False)
def shifted_crops(faces: FaceReading, own: ShiftedCropsSettings, tools: ReaderTools) -> FaceReading:
    """A face read with less than `unsure_below` is read again from six more crops, its box moved by `shift` of
    its size left, right, up and down, grown and shrunk, and named by the mean of the seven readings: a face the
    classifier hesitates over (an unseen set's 6s against its 9s) turns on a few pixels of the finder's box, and
    the mean does not."""
    if faces.probs is None or faces.image_bgr is None or faces.xyxy is None:
        return faces
    unsure = np.flatnonzero(faces.probs.max(axis=1) < own.unsure_below)
    if not len(unsure):
        return faces
    classifier = tools.face_classifier
    boxes = faces.xyxy[unsure]
    size = np.tile(boxes[:, 2:] - boxes[:, :2], 2)
    moves = own.shift * np.array([[-1, 0, -1, 0], [1, 0, 1, 0], [0, -1, 0, -1], [0, 1, 0, 1],
                                  [-1, -1, 1, 1], [1, 1, -1, -1]], np.float32)
    moved = (boxes[:, None, :] + moves[None, :, :] * size[:, None, :]).reshape(-1, 4)
    crops = cut_tiles(faces.image_bgr, moved, classifier.imgsz, tools.settings)
    again = _probs_as_read(faces, crops, classifier).reshape(len(unsure), len(moves), -1)
    probs = faces.probs.copy()
    probs[unsure] = (probs[unsure] + again.sum(axis=1)) / (1 + len(moves))
    return named(faces, probs, classifier, faces.head_used)


def _probs_as_read(faces: FaceReading, crops: np.ndarray, classifier: FaceClassifier) -> np.ndarray:
    """The probabilities of `crops` from the reader that gave `faces` theirs: the few-shot head, or the
    classifier it was calibrated from (`base_reading`)."""
    out = classifier.read(crops)
    if faces.head_used or not classifier.has_fewshot_head:
        return out.probs
    base = _base_probs(out, crops, classifier)
    return out.probs if base is None else base


def named(faces: FaceReading, probs: np.ndarray, classifier: FaceClassifier, head_used: bool) -> FaceReading:
    """`faces` read from `probs`: each face its likeliest class and that class's probability; its second
    reading the second likeliest, or for a face read as a flower or season, the likeliest that is not one:
    which flower it is never changes a score, and a "flower" inside a row of the hand is another face misread.
    Read by a few-shot head, which knows the set's own flowers, no face has a flower as its second reading (what
    the repair search may turn it into): its second is the likeliest after its own that is not one."""
    best, second = np.argsort(-probs, axis=1, kind="stable")[:, :2].T
    flower_columns = classifier.flower_columns
    not_flowers = np.where(flower_columns[None, :], -1.0, probs)
    best_not_flower = not_flowers.argmax(axis=1)
    if head_used:
        not_flowers[np.arange(len(best)), best] = -1.0
        second = np.where(flower_columns[second], not_flowers.argmax(axis=1), second)
    second = np.where(flower_columns[best], best_not_flower, second)
    return replace(faces, ids=classifier.to_canonical[best], seconds=classifier.to_canonical[second],
                   confidence=probs[np.arange(len(best)), best].astype(np.float32), probs=probs, head_used=head_used)


@rule("one_flower_of_each", FACES, "one_flower_of_each", calibrated_only=False)
def one_flower_of_each(faces: FaceReading, own: OneFlowerSettings, tools: ReaderTools) -> FaceReading:
    """A set has one tile of each flower and season: where the boxes read as flowers name one of them twice,
    they are named anew together, by the likeliest assignment of distinct flowers to them (`one_of_each` on the
    reading's log-probabilities of the flowers), their confidence that flower's probability. A box whose flower in
    that assignment the reading gives under `min_chance` keeps its reading (a second box on one tile, a back)."""
    if faces.probs is None:
        return faces
    classifier, probs = tools.face_classifier, faces.probs
    best = probs.argmax(axis=1)
    flower_columns = np.flatnonzero(classifier.flower_columns)
    rows = np.flatnonzero(classifier.flower_columns[best])
    if len(rows) < 2 or len(np.unique(best[rows])) == len(rows) or len(rows) > len(flower_columns):
        return faces
    chosen = flower_columns[one_of_each(np.log(np.maximum(probs[np.ix_(rows, flower_columns)], 1e-12)))]
    sure = probs[rows, chosen] >= own.min_chance
    rows, chosen = rows[sure], chosen[sure]
    ids, confidence = faces.ids.copy(), faces.confidence.copy()
    ids[rows] = classifier.to_canonical[chosen]
    confidence[rows] = probs[rows, chosen]
    return replace(faces, ids=ids, confidence=confidence)


# ------------------------------------------------------------------ KINDS


@rule("unlike_strays", KINDS, "unlike_strays")
def unlike_strays(reading: Reading, own: UnlikeStraysSettings, tools: ReaderTools) -> Reading:
    """In a photo of the set, face boxes the finder found under `max_finder_conf` that look like none of the
    set's tiles (likeness under `likeness`) are left out. A photo of another set keeps every box: its white faces
    can look more like a light table than like any of this set's faces."""
    faces = reading.faces
    if not faces.of_the_set:
        return reading
    finder_conf = reading.sighting.found.conf[reading.is_face]
    left_out = reading.left_out.copy()
    left_out[reading.face_rows[(faces.likeness < own.likeness) & (finder_conf < own.max_finder_conf)]] = True
    return replace(reading, left_out=left_out)


# ------------------------------------------------------------------ shared


def of_the_set(likeness: np.ndarray, settings: DetectorSettings) -> bool:
    """Whether a photo's face boxes are tiles of the calibrated set: at least
    `set_photo_share` of them pass a face's threshold (every one, without a few-shot head)."""
    return bool(len(likeness)) and float(np.mean(likeness >= 0)) >= settings.set_photo_share
