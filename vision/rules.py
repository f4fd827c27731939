"""The reader's rules: one table, in the order they apply, each a small function over the reading.

`vision.detector.TileDetector.detect` finds the tiles, reads their faces and turns the result into
`Detections`; between those steps the rules of each stage run in the order registered here:

* `BOXES`: the finder's boxes of the photo (`Sighting`): which are kept, which copy of the photo is read.
* `FACES`: the classifier's reading of the face boxes (`FaceReading`): which reading is taken, and the
  faces named anew by what is printed on them.
* `KINDS`: every box with what it was read as (`Reading`): boxes left out, turned into backs, marked
  doubtful or added.

A rule has one signature for its stage: `(reading, its own settings, the reader's tools) -> reading`,
returning what it keeps or changes; its settings are the `DetectorSettings` section of its name
(`settings_field`). `DetectorSettings.rules_off` names rules that are not applied: the ablation benchmark
(`benchmarks/reader_rules.py`) measures each so. Deleting a rule is deleting its function here and its
settings section.

Whether a photo is of the calibrated set (the few-shot head's likeness, `FaceReading.of_the_set`) is
decided once, when the faces are read, and carried as data; the rules for a set's photos read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

import numpy as np

from scoring.tiles import SUITS, TILE_NAMES, Tile
from tileset.classes import BACK_ID, CLASS_ID, CLASS_NAMES
from vision.boxes import Found, box_iou
from vision.calibration_layout import one_of_each
from vision.crops import cut_upright, margin_share
from vision.detections import Detections
from vision.flowers import UPRIGHT_BANDS, caption_bands, reading_from_texts
from vision.flowers import confirms as caption_confirms
from vision.models import ClassifierReading, FaceClassifier
from vision.ocr import TextLineReader, TextRead
from vision.ranks import (
    FIRST_ROUND,
    Reads,
    corner_bands,
    corner_rank,
    index_bands,
    numeral_corner,
    other_rank_share,
    own_numerals,
    rank_from_texts,
    reads_of,
    touching_ranks,
)
from vision.ranks import confirms as numeral_confirms
from vision.settings import (
    BacksAsFacesSettings,
    DetectorSettings,
    FlowerRescueSettings,
    FlowersAsBacksSettings,
    FlowerSettings,
    LoneDoubtSettings,
    MirrorSettings,
    OneFlowerSettings,
    OpenGateSettings,
    RankSettings,
    SetClassifierSettings,
    TableStraysSettings,
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

    def find_boxes(self, image_bgr: np.ndarray, conf_threshold: "float | None" = None) -> Found: ...

    def is_face(self, classes: np.ndarray) -> np.ndarray: ...

    def back_chances(self, found: Found) -> np.ndarray: ...

    def confidence_in_mirror(self, image_bgr: np.ndarray, xyxy: np.ndarray, floor: float) -> np.ndarray: ...

    def read_crops(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray
                   ) -> "tuple[np.ndarray, ClassifierReading | None]": ...

    def text_reader(self) -> "TextLineReader | None": ...


# ------------------------------------------------------------------ the data between the rules


@dataclass(frozen=True, eq=False)
class Sighting:
    """The finder's boxes of a photo, before any face is read."""

    image_bgr: np.ndarray  # the copy of the photo that is read (the photo itself unless it was unstretched)
    found: Found  # the finder's boxes past its threshold, in that copy's pixels
    # its boxes under the threshold kept for the flower rescue (None: none kept, as in a resized copy)
    unsure: "Found | None" = None
    to_photo: tuple[float, float] = (1.0, 1.0)  # factors (x, y) from the copy's pixels to the photo's


@dataclass(frozen=True, eq=False)
class FaceReading:
    """The classifier's reading of a photo's face-up tile boxes, as the rules of the faces leave it."""

    ids: np.ndarray  # (N,) canonical class ids
    confidence: np.ndarray  # (N,) the probability of each
    seconds: np.ndarray  # (N,) second readings (for a flower, the likeliest face that is not one)
    likeness: np.ndarray  # (N,) to the calibrated set (+inf without a few-shot head)
    table: np.ndarray  # (N,) looks like the table the set was calibrated on
    of_the_set: bool  # the photo is of the calibrated set (always, without a few-shot head, when it has faces)
    read_open: bool = False  # its faces were read with every crop's gate open (rule `open_gate`)
    head_used: bool = False  # its faces were read by a few-shot head (not by the classifier it was made from)
    probs: "np.ndarray | None" = None  # (N, 42) the probabilities read, in the classifier's columns
    outputs: "ClassifierReading | None" = None  # what the classifier gave the crops
    crops: "np.ndarray | None" = None  # the classifier's input crops
    upright: "UprightCrops | None" = None  # upright crops of the boxes, for the second readings
    numerals_read: "np.ndarray | None" = None  # (N,) faces whose index numerals were read (rule `index_numerals`)

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
    doubtful: np.ndarray  # (M,) counted in a row only, never alone as a flower
    left_out: np.ndarray  # (M,) not a tile: left out of the detections, but named to the player

    def detections(self) -> Detections:
        """The boxes kept as Detections (in the read copy's pixels), with the boxes left out beside them."""
        kept = ~self.left_out
        return Detections(self.xyxy[kept], self.confidence[kept], self.class_id[kept], self.runner_up[kept],
                          self.xyxy[~kept], self.doubtful[kept])

    @property
    def face_rows(self) -> np.ndarray:
        """The row of each face box (of `faces`) among every box."""
        return np.flatnonzero(self.is_face)


class UprightCrops:
    """Upright crops of a photo's tile boxes for the second readings, each cut once, on first use."""

    def __init__(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray, settings: DetectorSettings) -> None:
        self.boxes = boxes_xyxy  # (N, 4) the boxes, in the image's pixels
        self._image, self._settings = image_bgr, settings
        self._cut: dict[int, "np.ndarray | None"] = {}

    def __getitem__(self, index: int) -> "np.ndarray | None":
        if index not in self._cut:
            self._cut[index] = cut_upright(self._image, self.boxes[index], self._settings)
        return self._cut[index]


# ------------------------------------------------------------------ the table


@dataclass(frozen=True)
class Rule:
    """One rule of the table."""

    name: str
    stage: str  # BOXES, FACES or KINDS: the data it reads and returns
    apply: Callable[[Any, Any, ReaderTools], Any]  # (reading, its settings, tools) -> reading
    settings_field: "str | None"  # the `DetectorSettings` section it reads, if any
    calibrated_only: bool  # acts only with a classifier calibrated to a set (a few-shot head)


RULES: list[Rule] = []  # in the order they apply
RULE_NAMES: list[str] = []
ApplyT = TypeVar("ApplyT", bound=Callable[..., Any])


def rule(name: str, stage: str, settings_field: "str | None" = None, calibrated_only: bool = True
         ) -> Callable[[ApplyT], ApplyT]:
    """Registers the function it decorates as the next rule of the table."""

    def register(apply: ApplyT) -> ApplyT:
        assert name not in RULE_NAMES, f"rule {name} registered twice"
        RULES.append(Rule(name, stage, apply, settings_field, calibrated_only))
        RULE_NAMES.append(name)
        return apply

    return register


def check_rule_names(names: "frozenset[str] | set[str]") -> None:
    """ValueError naming any of `names` that is no rule."""
    unknown = sorted(set(names) - set(RULE_NAMES))
    if unknown:
        raise ValueError(f"no rule named {', '.join(unknown)} (the rules: {', '.join(RULE_NAMES)})")


def is_on(name: str, settings: DetectorSettings) -> bool:
    return name not in settings.rules_off


def apply_rules(stage: str, reading: Any, tools: ReaderTools) -> Any:
    """`reading` through every rule of `stage` that is on, in the table's order."""
    settings = tools.settings
    for entry in RULES:
        if entry.stage == stage and entry.name not in settings.rules_off:
            own = None if entry.settings_field is None else getattr(settings, entry.settings_field)
            reading = entry.apply(reading, own, tools)
    return reading


# ------------------------------------------------------------------ BOXES


@rule("unstretch", BOXES, "unstretch", calibrated_only=False)
def unstretch(sighting: Sighting, own: UnstretchSettings, tools: ReaderTools) -> Sighting:
    """A photo whose face boxes come out far thinner (or wider) than any tile is, read in a copy resized back
    to their natural shape (`vision.unstretch`); the boxes under the threshold are not kept for it."""
    copy = unstretched(sighting.image_bgr, tools.find_boxes, tools.is_face, own, first=sighting.found)
    if copy.image_bgr is sighting.image_bgr:
        return sighting
    h, w = sighting.image_bgr.shape[:2]
    return Sighting(copy.image_bgr, copy.found, None, copy.scale_to(w, h))


@rule("mirror", BOXES, "mirror", calibrated_only=False)
def mirror(sighting: Sighting, own: MirrorSettings, tools: ReaderTools) -> Sighting:
    """Boxes past the threshold but under `sure_conf` are kept only when the finder finds them again in the mirror
    image of the copy read; the others join the unsure boxes, their confidence scaled under the threshold. A tile is
    found in both images; a patch of a cloth the finder never met, a die or a paper's print often in one only."""
    kept, unconfirmed = confirmed_in_mirror(sighting.image_bgr, sighting.found, own, tools)
    unsure = None if sighting.unsure is None else sighting.unsure.joined(unconfirmed)
    return replace(sighting, found=kept, unsure=unsure)


def confirmed_in_mirror(image_bgr: np.ndarray, found: Found, own: MirrorSettings, tools: ReaderTools
                        ) -> tuple[Found, Found]:
    """`found` split into the boxes the mirror check keeps and those it does not, in the same order, these
    with their confidence scaled under the threshold (x threshold / `sure_conf`)."""
    threshold = tools.settings.conf_threshold
    checked = np.flatnonzero((found.conf >= threshold) & (found.conf < own.sure_conf))
    if len(checked) == 0:
        return found, found[:0]
    seen = tools.confidence_in_mirror(image_bgr, found.xyxy[checked], own.confirm_conf) >= own.confirm_conf
    unconfirmed = np.zeros(len(found), bool)
    unconfirmed[checked] = ~seen
    demoted = found[unconfirmed]
    return found[~unconfirmed], demoted.with_conf(demoted.conf * (threshold / own.sure_conf))


# ------------------------------------------------------------------ FACES: which reading


@rule("open_gate", FACES, "open_gate")
def open_gate(faces: FaceReading, own: OpenGateSettings, tools: ReaderTools) -> FaceReading:
    """A head that keeps other sets' crops reads a photo with every crop's gate open when at least
    `set_photo_share` of its face boxes (not like the table) are nearer the set's faces than any of those crops by
    more than `margin`: the faces' thresholds shut the gate on most of a set's blurred or small tiles."""
    out = faces.outputs
    if out is None or out.set_probs is None or out.set_margin is None:
        return faces
    margin = out.set_margin[~faces.table]
    if not len(margin) or float(np.mean(margin > own.margin)) < tools.settings.set_photo_share:
        return faces
    return named(faces, out.set_probs, tools.face_classifier, head_used=faces.head_used, read_open=True)


@rule("base_reading", FACES)
def base_reading(faces: FaceReading, own: None, tools: ReaderTools) -> FaceReading:
    """A photo that is not of the calibrated set is read by the classifier the version was made from (its
    output in the same graph, or the model kept beside it), as before calibration: the head's thresholds, set
    on a few base photos, let another set's faces through."""
    if faces.of_the_set or faces.read_open:
        return faces
    classifier, out = tools.face_classifier, faces.outputs
    if out is not None and out.base_probs is not None and tools.settings.base_reads_other_sets:
        return named(faces, out.base_probs, classifier, head_used=False)
    if classifier.base_reader is not None and faces.crops is not None:
        return named(faces, classifier.read_as_base(faces.crops), classifier, head_used=False)
    return faces


@rule("set_classifier", FACES, "set_classifier")
def set_classifier(faces: FaceReading, own: SetClassifierSettings, tools: ReaderTools) -> FaceReading:
    """A photo of the set is read by the version's fine-tuned set classifier, where it has one."""
    classifier = tools.face_classifier
    if not faces.of_the_set or faces.read_open or classifier.set_reader is None or faces.crops is None:
        return faces
    probs = own.share * classifier.read_as_set(faces.crops) + (1 - own.share) * faces.column_probs
    return named(faces, probs, classifier, head_used=faces.head_used)


def named(faces: FaceReading, probs: np.ndarray, classifier: FaceClassifier, head_used: bool,
          read_open: "bool | None" = None) -> FaceReading:
    """`faces` read from `probs`: each face its likeliest class and that class's probability; its second
    reading the second likeliest, or for a face read as a flower or season, the likeliest that is not one:
    which flower it is never changes a score, and a "flower" inside a row of the hand is another face misread."""
    best, second = np.argsort(-probs, axis=1, kind="stable")[:, :2].T
    flower_columns = classifier.flower_columns
    best_not_flower = np.where(flower_columns[None, :], -1.0, probs).argmax(axis=1)
    second = np.where(flower_columns[best], best_not_flower, second)
    return replace(faces, ids=classifier.to_canonical[best], seconds=classifier.to_canonical[second],
                   confidence=probs[np.arange(len(best)), best].astype(np.float32), probs=probs, head_used=head_used,
                   read_open=faces.read_open if read_open is None else read_open)


# ------------------------------------------------------------------ FACES: named anew


@rule("no_flower_seconds", FACES)
def no_flower_seconds(faces: FaceReading, own: None, tools: ReaderTools) -> FaceReading:
    """In a photo read by the few-shot head, which knows the set's own flowers, a face read as a suited tile or an
    honour has no flower or season as its second reading (what the repair search may turn it into): its second
    is the likeliest face after its own that is not one."""
    if not faces.head_used or faces.probs is None or not len(faces.ids):
        return faces
    classifier = tools.face_classifier
    probs, flower_columns = faces.probs, classifier.flower_columns
    best, second = np.argsort(-probs, axis=1, kind="stable")[:, :2].T
    not_flowers = np.where(flower_columns[None, :], -1.0, probs)
    not_flowers[np.arange(len(best)), best] = -1.0
    changed = ~flower_columns[best] & flower_columns[second]
    seconds = np.where(changed, classifier.to_canonical[not_flowers.argmax(axis=1)], faces.seconds)
    return replace(faces, seconds=seconds)


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


@rule("captions", FACES, "flowers", calibrated_only=False)
def captions(faces: FaceReading, own: FlowerSettings, tools: ReaderTools) -> FaceReading:
    """Faces with some chance of being a flower take the flower their caption names (`vision.flowers`)."""
    if faces.probs is None or faces.upright is None:
        return faces
    classifier, probs, upright = tools.face_classifier, faces.probs, faces.upright
    is_flower = classifier.flower_columns
    sure = np.inf if faces.head_used and not own.sure_fewshot_skips else own.max_confidence
    candidates = np.flatnonzero((probs[:, is_flower].sum(axis=1) >= own.min_flower_share)
                                & (probs.max(axis=1) < sure))
    if not own.enabled or len(candidates) == 0 or (reader := tools.text_reader()) is None:
        return faces
    ids, confidence, seconds = faces.ids.copy(), faces.confidence.copy(), faces.seconds.copy()
    tiles = [(int(index), tile) for index in candidates if (tile := upright[int(index)]) is not None]

    def unsettled(k: int, read: list[TextRead]) -> bool:
        index = tiles[k][0]
        return (not caption_confirms(read, CLASS_NAMES[ids[index]], own)
                and probs[index, is_flower].sum() >= own.second_round_share)

    texts = read_in_two_rounds(reader, [caption_bands(tile, own) for _, tile in tiles],
                               UPRIGHT_BANDS if own.upright_first else None, unsettled)
    for (index, _), read in zip(tiles, texts):
        reading = reading_from_texts(read, CLASS_NAMES[ids[index]], own)
        if reading is None:
            continue
        if not is_flower[probs[index].argmax()]:
            seconds[index] = ids[index]  # the suited or honour tile it was read as, should the caption be wrong
        ids[index] = CLASS_ID[reading.name]
        confidence[index] = max(float(confidence[index]), reading.score)
    return replace(faces, ids=ids, confidence=confidence, seconds=seconds)


@rule("index_numerals", FACES, "ranks", calibrated_only=False)
def index_numerals(faces: FaceReading, own: RankSettings, tools: ReaderTools) -> FaceReading:
    """Suited faces read unsurely take the rank their index numeral prints, in the suit the classifier gives
    that rank the most chance (`any_suit`); `numerals_read` marks the faces read so. A tile lying sideways is read
    both ways up: turned upright, which way up it lies is unknown, and a 6 upside down reads as a 9, so the two
    must agree. All are read before any is decided: the corner the set prints in (`numeral_corner`) tells a
    neighbour's numeral from the tile's own (`own_numerals`)."""
    if not own.enabled or faces.probs is None or faces.upright is None:
        return faces
    boxes_xyxy = faces.upright.boxes
    classifier, probs, upright = tools.face_classifier, faces.probs, faces.upright
    ids, confidence, seconds = faces.ids.copy(), faces.confidence.copy(), faces.seconds.copy()
    read = np.zeros(len(ids), bool)
    rank_columns = classifier.rank_columns
    sideways = _sideways(boxes_xyxy, tools.settings)
    margin = margin_share(tools.settings)
    candidates = []  # (index, the tile as read, its band lists)
    for index in map(int, np.flatnonzero(confidence < own.max_confidence)):
        name = CLASS_NAMES[ids[index]]
        read_as = Tile.parse(name) if name in TILE_NAMES else None
        if read_as is None or not read_as.is_suited:
            continue
        suits = SUITS if own.any_suit else read_as.suit
        rank_shares = np.max([probs[index, rank_columns[suit]] for suit in suits], axis=0)
        if own.only_where_it_can_change and other_rank_share(rank_shares, read_as.rank) < own.min_share:
            continue  # a digit could only confirm the rank it was read as
        tile = upright[index]
        if tile is None:
            continue
        band_lists = [index_bands(tile, own, margin)]
        if sideways[index]:
            band_lists.append(index_bands(np.ascontiguousarray(tile[::-1, ::-1]), own, margin))
        candidates.append((index, read_as, band_lists))
    if not candidates or (reader := tools.text_reader()) is None:
        return replace(faces, numerals_read=read)
    read[[index for index, _, _ in candidates]] = True
    every_band = [bands for _, _, band_lists in candidates for bands in band_lists]
    ranks_read = [read_as.rank for _, read_as, band_lists in candidates for _ in band_lists]

    def unsettled(k: int, texts: list[TextRead]) -> bool:
        return not numeral_confirms(reads_of(every_band[k], texts), ranks_read[k], own)

    texts_each = read_in_two_rounds(reader, [[band for _, band in bands] for bands in every_band],
                                    FIRST_ROUND if own.shallow_first else None, unsettled)
    # reads_of pairs the bands with the texts in order: the bands read, as many as the texts
    read_lists = iter([reads_of(bands, texts) for bands, texts in zip(every_band, texts_each)])
    unsure: list[tuple[int, Tile, Reads, dict[str, int], "Reads | None"]] = []
    for index, read_as, _ in candidates:
        reads = next(read_lists)
        if sideways[index]:
            unsure.append((index, read_as, reads, {}, next(read_lists)))
        else:
            unsure.append((index, read_as, reads, touching_ranks(boxes_xyxy, ids, index), None))
    corner = None
    if own.leave_out_neighbours:
        corner = numeral_corner([(reads, beside) for _, _, reads, beside, turned in unsure if turned is None],
                                own.min_digit_score)
    for index, read_as, reads, beside, turned in unsure:
        texts_read = own_numerals(reads, beside, corner) + [text for _, text in turned or []]
        suits = SUITS if own.any_suit else read_as.suit
        by_suit = {suit: probs[index, rank_columns[suit]] for suit in suits}
        reading = rank_from_texts(texts_read, np.max(list(by_suit.values()), axis=0), own)
        if reading is None:
            continue
        rank = int(reading.name)
        suit = max(by_suit, key=lambda s: float(by_suit[s][rank - 1]))
        if (rank, suit) == (read_as.rank, read_as.suit):
            continue
        seconds[index] = ids[index]
        ids[index] = CLASS_ID[Tile.suited(rank, suit).name]
        confidence[index] = max(float(confidence[index]), reading.score)
    return replace(faces, ids=ids, confidence=confidence, seconds=seconds, numerals_read=read)


@rule("corner_numerals", FACES, "ranks")
def corner_numerals(faces: FaceReading, own: RankSettings, tools: ReaderTools) -> FaceReading:
    """In a photo read by a few-shot head whose calibration photo showed the top corner its set prints suited
    ranks in, the suited faces the index numerals left unread, where the head gives another rank of their suit
    `corner_min_share` or more, take the rank of the digit read surely in that corner, in the suit they were read
    in. A digit naming another rank than the tile was read as must be read surely in `corner_reads` bands: the
    deeper bands are read only then. A tile lying sideways is read both ways up, and the two must agree."""
    classifier = tools.face_classifier
    corner = classifier.numeral_corner if faces.head_used and own.calibrated_corner else None
    if corner is None or not own.enabled or faces.probs is None or faces.upright is None:
        return faces
    boxes_xyxy, probs, upright = faces.upright.boxes, faces.probs, faces.upright
    among = np.ones(len(faces.ids), bool) if faces.numerals_read is None else ~faces.numerals_read
    ids, confidence, seconds = faces.ids.copy(), faces.confidence.copy(), faces.seconds.copy()
    rank_columns = classifier.rank_columns
    sideways = _sideways(boxes_xyxy, tools.settings)
    margin = margin_share(tools.settings)
    owners, groups = [], []  # (index, the tile as read) of each group: one way up of a tile, its bands by depth
    for index in map(int, np.flatnonzero(among)):
        name = CLASS_NAMES[ids[index]]
        read_as = Tile.parse(name) if name in TILE_NAMES else None
        if read_as is None or not read_as.is_suited:
            continue
        if other_rank_share(probs[index, rank_columns[read_as.suit]], read_as.rank) < own.corner_min_share:
            continue  # the head leaves no other rank a chance: a digit could only confirm it
        tile = upright[index]
        if tile is None:
            continue
        for way in [tile] + ([np.ascontiguousarray(tile[::-1, ::-1])] if sideways[index] else []):
            owners.append((index, read_as))
            groups.append(corner_bands(way, corner, own, margin))
    if not groups or (reader := tools.text_reader()) is None:
        return faces

    def unsettled(k: int, texts: list[TextRead]) -> bool:  # another rank, to be read again deeper
        reading = corner_rank(texts, own.min_digit_score)
        return reading is not None and int(reading.name) != owners[k][1].rank

    texts_each = read_in_two_rounds(reader, groups, 1, unsettled, own.corner_line_width or None)
    texts_of: dict[int, list[TextRead]] = {}
    for (index, _), texts in zip(owners, texts_each):
        texts_of.setdefault(index, []).extend(texts)
    for index, read_as in dict(owners).items():
        reading = corner_rank(texts_of[index], own.min_digit_score, own.corner_reads)
        if reading is None or int(reading.name) == read_as.rank:
            continue
        seconds[index] = ids[index]
        ids[index] = CLASS_ID[Tile.suited(int(reading.name), read_as.suit).name]
        confidence[index] = max(float(confidence[index]), reading.score)
    return replace(faces, ids=ids, confidence=confidence, seconds=seconds)


# ------------------------------------------------------------------ KINDS


@rule("backs_as_faces", KINDS, "backs_as_faces")
def backs_as_faces(reading: Reading, own: BacksAsFacesSettings, tools: ReaderTools) -> Reading:
    """In a photo of the set, face boxes the finder gave the back class at least `back_chance` of its score that
    look like none of the set's faces are backs: the finder takes a set's coloured backs for faces in dim light,
    and the head, which never saw them, reads them as the faces nearest them."""
    faces = reading.faces
    if not faces.of_the_set or own.back_chance <= 0:
        return reading
    back_chance = tools.back_chances(reading.sighting.found[reading.is_face])
    unlike = np.isfinite(faces.likeness) & (faces.likeness < own.likeness)
    rows = reading.face_rows[unlike & (back_chance >= own.back_chance)]
    class_id, runner_up, confidence = reading.class_id.copy(), reading.runner_up.copy(), reading.confidence.copy()
    class_id[rows], runner_up[rows] = BACK_ID, -1
    confidence[rows] = reading.sighting.found.conf[rows]  # the finder's alone, as any back's
    return replace(reading, class_id=class_id, runner_up=runner_up, confidence=confidence)


@rule("table_strays", KINDS, "table_strays")
def table_strays(reading: Reading, own: TableStraysSettings, tools: ReaderTools) -> Reading:
    """In a photo of the set, face boxes the finder found under `max_finder_conf` that look more like the
    calibration photo's table than like any face of the set (the head's table prototypes) are left out."""
    faces = reading.faces
    if not faces.of_the_set:
        return reading
    finder_conf = reading.sighting.found.conf[reading.is_face]
    return _left_out(reading, reading.face_rows[faces.table & (finder_conf < own.max_finder_conf)])


@rule("unlike_strays", KINDS, "unlike_strays")
def unlike_strays(reading: Reading, own: UnlikeStraysSettings, tools: ReaderTools) -> Reading:
    """In a photo of the set, face boxes the finder found under `max_finder_conf` that look like none of the
    set's tiles (likeness under `likeness`) are left out. A photo of another set keeps every box: its white faces
    can look more like a light table than like any of this set's faces."""
    faces = reading.faces
    if not faces.of_the_set:
        return reading
    finder_conf = reading.sighting.found.conf[reading.is_face]
    return _left_out(reading, reading.face_rows[(faces.likeness < own.likeness) & (finder_conf < own.max_finder_conf)])


def _left_out(reading: Reading, rows: np.ndarray) -> Reading:
    left_out = reading.left_out.copy()
    left_out[rows] = True
    return replace(reading, left_out=left_out)


@rule("lone_doubt", KINDS, "lone_doubt")
def lone_doubt(reading: Reading, own: LoneDoubtSettings, tools: ReaderTools) -> Reading:
    """In a photo of the set (or one read with the gate open, with `in_open_photos`), face boxes the finder
    scored under `finder_conf` that pass none of the set's face thresholds are doubtful: the layout counts them
    only in a row, where the hand's sets check them, never alone as a flower, which nothing checks (a die, a
    chip, a tile cut by the photo's edge)."""
    faces = reading.faces
    if not (faces.of_the_set or (own.in_open_photos and faces.read_open)):
        return reading
    finder_conf = reading.sighting.found.conf[reading.is_face]
    rows = reading.face_rows[(finder_conf < own.finder_conf) & (faces.likeness < own.likeness)]
    rows = rows[reading.class_id[rows] != BACK_ID]  # a back (`backs_as_faces`) is no face to doubt
    doubtful = reading.doubtful.copy()
    doubtful[rows] = True
    return replace(reading, doubtful=doubtful)


@rule("flowers_as_backs", KINDS, "flowers_as_backs")
def flowers_as_backs(reading: Reading, own: FlowersAsBacksSettings, tools: ReaderTools) -> Reading:
    """In a photo of the set, back boxes whose face the few-shot head reads surely (`confidence`) as a flower
    or season that passes that face's threshold have it as their second reading: the finder can take a
    colourful flower for a back; the layout counts one only where it lies apart from the rows (`vision.repair`),
    since a back there is no part of a hand."""
    backs = np.flatnonzero(~reading.is_face)
    if not reading.faces.of_the_set or not len(backs) or not tools.face_classifier.has_fewshot_head:
        return reading
    runner_up = reading.runner_up.copy()
    runner_up[backs] = sure_flowers(reading.sighting.image_bgr, reading.xyxy[backs], own.confidence, 0.0, tools)[0]
    return replace(reading, runner_up=runner_up)


@rule("flower_rescue", KINDS, "flower_rescue")
def flower_rescue(reading: Reading, own: FlowerRescueSettings, tools: ReaderTools) -> Reading:
    """In a photo of the set: the finder's boxes under its threshold (down to `finder_conf`) on no box found, of a
    tile's size, the surest `boxes` of them, that the head reads as a flower or season at least `confidence`
    surely, passing that face's threshold by `likeness`, and not like the table, are added as that flower (the
    finder's confidence times the classifier's). A flower lies apart from the rows, where a tile missed breaks no
    set, and the finder scores a set's flowers lowest, their artwork differing most from set to set. With
    `new_only`, a flower the photo shows already, or one added from a surer box, is not added again."""
    unsure = reading.sighting.unsure
    if not reading.faces.of_the_set or unsure is None or not len(unsure):
        return reading
    xyxy, finder_conf = unsure.xyxy, unsure.conf
    candidates = rescue_candidates(xyxy, finder_conf, reading.xyxy, own)
    flowers, chance, seconds = sure_flowers(reading.sighting.image_bgr, xyxy[candidates], own.confidence,
                                            own.likeness, tools)
    taken = flowers >= 0
    if own.new_only:  # a set has one of each flower: one read already is not missing
        seen = set(reading.class_id[~reading.left_out].tolist())
        for k in np.flatnonzero(taken):  # candidates come surest first
            taken[k] = int(flowers[k]) not in seen
            seen.add(int(flowers[k]))
    chosen = candidates[taken]
    added = len(chosen)
    return replace(
        reading,
        xyxy=np.concatenate([reading.xyxy, xyxy[chosen]]),
        confidence=np.concatenate([reading.confidence, (finder_conf[chosen] * chance[taken]).astype(np.float32)]),
        class_id=np.concatenate([reading.class_id, flowers[taken]]),
        runner_up=np.concatenate([reading.runner_up, seconds[taken]]),
        doubtful=np.concatenate([reading.doubtful, np.zeros(added, bool)]),  # they passed a threshold
        left_out=np.concatenate([reading.left_out, np.zeros(added, bool)]),
    )


def rescue_floor(settings: DetectorSettings, classifier: "FaceClassifier | None") -> "float | None":
    """How low the finder's first run keeps boxes for `flower_rescue` (None: the rule cannot act)."""
    own = settings.flower_rescue
    if (not is_on("flower_rescue", settings) or classifier is None or not classifier.has_fewshot_head
            or own.boxes <= 0 or not 0 < own.finder_conf < settings.conf_threshold):
        return None
    return own.finder_conf


def rescue_candidates(xyxy: np.ndarray, finder_conf: np.ndarray, found_xyxy: np.ndarray,
                      own: FlowerRescueSettings) -> np.ndarray:
    """Indices of the finder's unsure boxes `xyxy` that `flower_rescue` reads: on no box found (IoU under 1/3),
    a tile's size (long and short sides within `size` of the found boxes' medians, either way: tiles lie upright
    and sideways), the surest `boxes` of them, surest first."""
    if not len(found_xyxy) or not len(xyxy):
        return np.zeros(0, np.int64)
    on_none = box_iou(xyxy, found_xyxy).max(axis=1) < 1 / 3
    found_wh = found_xyxy[:, 2:] - found_xyxy[:, :2]
    wh = xyxy[:, 2:] - xyxy[:, :2]
    ratios = np.stack([wh.max(axis=1) / np.median(found_wh.max(axis=1)),
                       wh.min(axis=1) / np.median(found_wh.min(axis=1))], axis=1)
    candidates = np.flatnonzero(on_none & np.all((ratios <= own.size) & (ratios >= 1 / own.size), axis=1))
    return candidates[np.argsort(-finder_conf[candidates], kind="stable")][: own.boxes]


def sure_flowers(image_bgr: np.ndarray, boxes_xyxy: np.ndarray, min_confidence: float, min_likeness: float,
                 tools: ReaderTools) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the classifier (its head included) reads each box's crop as, where that is a flower or season read
    at least `min_confidence` surely, `min_likeness` past that face's threshold and not like the table: its
    canonical id (-1 elsewhere), the chance of the face read, and the likeliest face that is not a flower."""
    classifier = tools.face_classifier
    nothing = np.full(len(boxes_xyxy), -1, np.int64)
    if not len(boxes_xyxy):
        return nothing, np.zeros(0, np.float32), nothing
    crops, out = tools.read_crops(image_bgr, boxes_xyxy)
    if out is None:
        return nothing, np.zeros(len(boxes_xyxy), np.float32), nothing
    probs = out.probs
    best = probs.argmax(axis=1)
    chance = probs.max(axis=1)
    is_flower = classifier.flower_columns
    sure = (is_flower[best] & (chance >= min_confidence) & (out.likeness >= min_likeness)
            & ~table_like(out.table_likeness, tools.settings))
    best_not_flower = np.where(is_flower[None, :], -1.0, probs).argmax(axis=1)
    return np.where(sure, classifier.to_canonical[best], -1), chance, classifier.to_canonical[best_not_flower]


# ------------------------------------------------------------------ shared


def table_like(table_likeness: np.ndarray, settings: DetectorSettings) -> np.ndarray:
    """Which crops look like the calibration photo's table (none with rule `table_strays` off)."""
    return (table_likeness > 0) & is_on("table_strays", settings)


def of_the_set(likeness: np.ndarray, settings: DetectorSettings) -> bool:
    """Whether a photo's face boxes (those not like the table) are tiles of the calibrated set: at least
    `set_photo_share` of them pass a face's threshold (every one, without a few-shot head)."""
    return bool(len(likeness)) and float(np.mean(likeness >= 0)) >= settings.set_photo_share


def _sideways(boxes_xyxy: np.ndarray, settings: DetectorSettings) -> np.ndarray:
    wh = boxes_xyxy[:, 2:] - boxes_xyxy[:, :2]
    return wh[:, 0] > wh[:, 1] * settings.sideways_ratio


def read_in_two_rounds(reader: TextLineReader, groups: Sequence[Sequence[np.ndarray]], first: "int | None",
                       unsettled: Callable[[int, list[TextRead]], bool],
                       line_width: "int | None" = None) -> list[list[TextRead]]:
    """What the recognizer reads on each group's bands (one tile's caption or index bands), one batch a
    round: the first `first` bands of every group, then the other bands of the groups the first round
    left `unsettled(k, texts so far)`.  `first` None: every band in the first round. `line_width`: the
    recognizer's padded width (`TextLineReader.read_lines`)."""
    heads = [list(bands[:first]) for bands in groups]
    texts = _split(reader.read_lines([band for bands in heads for band in bands], line_width), heads)
    rest = [k for k, read in enumerate(texts) if first is not None and unsettled(k, read)]
    tails = [list(groups[k][first:]) for k in rest]
    for k, more in zip(rest, _split(reader.read_lines([band for bands in tails for band in bands], line_width), tails)):
        texts[k] = texts[k] + more
    return texts


def _split(texts: list, groups: list) -> list[list]:
    """`texts` read on the bands of several groups, back into one list per group."""
    out, start = [], 0
    for group in groups:
        out.append(texts[start : start + len(group)])
        start += len(group)
    return out
