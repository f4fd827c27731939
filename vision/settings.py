"""Every threshold and size of the vision pipeline, in one place.

Each stage owns one frozen dataclass here; `Settings` bundles them.  Code reads
`settings.detector.conf_threshold`, never a literal.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import TypeVar

REPO_ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = REPO_ROOT / "models"
# the labeled real photos of another set that calibration and adaptation check a new version on (and mix into its
# training), shipped with the models: models/base/README.md (what they are, their licence, how they were picked)
BASE_PHOTOS_DIR = MODELS_DIR / "base"


@dataclass(frozen=True)
class MirrorSettings:
    """The mirror check (`vision.rules`, rule `mirror`): a box the finder is unsure of is kept only when
    the finder, run again on the mirror image of the photo, finds it there too."""

    sure_conf: float = 0.7  # boxes found at least this surely are not checked (at or under `conf_threshold`: none is)
    confirm_conf: float = 0.3  # the least confidence of the box found again in the mirror image
    match_iou: float = 0.5  # how much that box must overlap the box checked


@dataclass(frozen=True)
class CutByEdgeSettings:
    """Rule `cut_by_edge`: a face box the photo's edge cuts (far thinner at a side, far flatter at the top or bottom
    than the faces inside the photo) is dropped."""

    edge_px: float = 1.0  # a box this close to an edge of the copy read touches it
    thinner_than: float = 0.75  # a box at the left or right edge narrower (width / height) than this share of the median face
    flatter_than: float = 1.5  # a box at the top or bottom edge wider than this share of it
    min_faces: int = 3  # face boxes clear of every edge needed for the median face


@dataclass(frozen=True)
class UnstretchSettings:
    """A photo stretched on export, resized back before its faces are read (`vision.unstretch`)."""

    stretched_aspect: float = 0.4  # a median face box (width / height) outside [this, 1 / this] marks a stretched photo
    natural_tile_aspect: float = 0.75  # the width / height such a photo is resized towards
    within: float = 1.25  # ... until its median face box is within this factor of it
    passes: int = 3  # the most times the photo is resized and read again
    min_tiles: int = 1  # face boxes needed to judge the stretch
    max_stretch: float = 16.0  # the most one axis is stretched against the other
    not_stretched_share: float = 0.25  # ... unless this share of its face boxes is tile-shaped: tiles lying flat, seen from low


@dataclass(frozen=True)
class OneFlowerSettings:
    """Rule `one_flower_of_each`: boxes read as flowers that name one flower twice are named anew together."""

    min_chance: float = 1e-5  # a box is renamed only to a flower its reading gives at least this chance


@dataclass(frozen=True)
class ShiftedCropsSettings:
    """Rule `shifted_crops`: a face the classifier is unsure of is read again from its box moved a little."""

    unsure_below: float = 0.7  # faces read with a lower probability are read again
    shift: float = 0.03  # the box is moved left, right, up and down, grown and shrunk by this share of its size


@dataclass(frozen=True)
class UnlikeStraysSettings:
    """Rule `unlike_strays`: in a photo of the set, a face box that looks like none of the set's faces is left out."""

    likeness: float = -0.1  # under this likeness to the set's nearest face
    max_finder_conf: float = 0.7  # a box the finder found at least this surely is kept


@dataclass(frozen=True)
class DetectorSettings:
    """Image -> Detections (onnxruntime).

    Two models: a tile finder (classes face-up tile / back) at a low input size, then a face classifier on crops
    cut from the full-resolution photo; then the reader's rules (`vision.rules`, in order), each with its own
    section below, each switched off by naming it in `rules_off`.
    """

    detector_file: str = "detector.onnx"  # in the models folder
    classifier_file: str = "classifier.onnx"  # names the faces of the boxes the finder found
    base_classifier_file: str = "classifier_base.onnx"  # the classifier a calibrated version was made from
    small_classifier_file: str = "classifier_small.onnx"  # the classifier's smaller ensemble member on its own
    # a crop the small member reads at least this surely keeps its reading; the rest are read by the whole classifier
    small_member_sure: float = 0.999
    large_classifier_file: str = "classifier_large.onnx"  # a two-member ensemble's other member alone: it reads the crops the small one is unsure of
    conf_threshold: float = 0.25  # tile-finder boxes below this are dropped
    nms_iou: float = 0.6  # class-agnostic: a tile is either face-up or a back, never both
    max_detections: int = 300  # the finder's boxes kept at most, surest first
    # with a few-shot head: a photo is of the calibrated set when at least this share of its face boxes pass a
    # face's threshold; the rules for the set's photos act only there
    set_photo_share: float = 0.5
    rules_off: frozenset[str] = frozenset()  # names of the reader's rules not applied (`vision.rules.RULES`)
    crop_margin: float = 0.06  # each side of a tile box grows by this share before cutting
    crop_pad_value: int = 114  # grey that fills the crop to the classifier's square input
    sideways_ratio: float = 1.15  # width / height above which a crop is turned upright
    max_crop_aspect: float = 2.0  # height / width above which an upright crop is widened back to this
    decode_long_side: int = 1600  # big JPEGs are decoded reduced (DCT scaling) down to at least this
    max_pixels: int = 120_000_000  # larger images are refused (decompression bombs, panoramas)
    # a larger JPEG is decoded at 1/2, 1/4 or 1/8 of its size; a larger image of another format is refused
    max_full_decode_pixels: int = 50_000_000
    max_file_bytes: int = 80_000_000  # larger files are refused
    intra_op_threads: int = 2  # onnxruntime threads of each model
    intra_op_spinning: bool = False  # whether idle onnxruntime threads busy-wait for the next run
    # `vision detect` and `vision read` given several photos read this many at once, each model on one thread
    # then: the int8 finder runs no faster on two threads than on one, so two photos at once use both cores
    photos_at_once: int = 2
    mirror: MirrorSettings = field(default_factory=MirrorSettings)
    unstretch: UnstretchSettings = field(default_factory=UnstretchSettings)
    cut_by_edge: CutByEdgeSettings = field(default_factory=CutByEdgeSettings)
    shifted_crops: ShiftedCropsSettings = field(default_factory=ShiftedCropsSettings)
    one_flower_of_each: OneFlowerSettings = field(default_factory=OneFlowerSettings)
    unlike_strays: UnlikeStraysSettings = field(default_factory=UnlikeStraysSettings)


@dataclass(frozen=True)
class LayoutSettings:
    """Detections -> rows, groups, winning tile, flowers -> hand.

    Distances are in tile sizes measured locally (perspective makes far tiles
    smaller): "tile heights" = a tile's long side, "tile widths" = its short side.
    """

    duplicate_iou: float = 0.6  # two boxes overlapping more than this are one tile
    duplicate_containment: float = 0.8  # ... or when this share of the smaller box lies in the larger
    # ... or, read as the same face, overlapping more than this: the finder's second box on a tile, shifted by
    # a quarter of it (such pairs overlap 0.50-0.60; two neighbouring tiles' boxes at most 0.41)
    duplicate_same_face_iou: float = 0.45
    low_confidence: float = 0.5  # a tile read with less confidence is reported in issues
    # When the tiles make no winning hand (and the winning tile is known), tiles read with less confidence
    # than this may be read as their runner-up class (a back as a blank white dragon) ...
    second_reading_confidence: float = 0.95
    second_reading_candidates: int = 10  # ... the least sure this many, one at a time, then pairs
    # ... then tiles below this may be left out as false detections ...
    doubtful_confidence: float = 0.5
    doubtful_candidates: int = 6  # ... the least sure this many (then backs), one at a time, then ...
    max_left_out_trials: int = 10  # ... this many pairs of them (and of second readings)
    # ... and when none of that makes a winning hand, a face read with less confidence than this is read
    # as the one tile face that makes the hand win, if exactly one does (the least sure this many)
    deduce_confidence: float = 0.9
    deduce_candidates: int = 3
    # ... and when none does, a meld-row group that is no set (3s 2s 3s) is read as the likeliest set (at most
    # `group_set_changes` tiles read again, each below `second_reading_confidence`; cost: -log(1 - confidence)
    # of each, and `group_set_not_runner_up` more where the new face is not its runner-up, about log 33, the
    # other faces), when the hand then wins and every other such set that wins costs this much more (0: never)
    group_set_margin: float = 1.0
    group_set_not_runner_up: float = 3.0
    group_set_changes: int = 2
    group_set_options: int = 4  # the cheapest this many ways per group (at most two groups) are tried
    # ... and last, one tile below `second_reading_confidence` read as the face that makes the hand win at the
    # least cost (as above), when every other such change costs this much more (0: never)
    likeliest_face_margin: float = 1.0
    likeliest_face_trials: int = 150  # the cheapest this many changes are tried (each reads the layout again)
    # When the hand wins but breaks the photo layout (a concealed kong without its two outer backs), a
    # tile of the breach read with less confidence than `breach_doubt_confidence` is left out when the hand
    # still wins and breaks it less
    tidy_breaches: bool = True
    breach_doubt_confidence: float = 0.8
    # A meld-row group of three holding a face-down tile and one face only (back 9p 9p) is a concealed kong whose
    # fourth tile the finder missed (photo-layout.md: a group that holds any face-down tile is a concealed kong)
    short_concealed_kongs: bool = True
    neighbour_reach: float = 1.6  # tile heights: nearest neighbours within this give the row direction
    angle_vote_spread_deg: float = 8.0  # neighbour votes this far from their median are left out
    steep_max_share: float = 0.6  # more neighbour votes steeper than 45 degrees than this: the photo is turned
    steep_min_tiles: int = 6  # ... judged only with at least this many tiles
    max_row_angle_deg: float = 35.0  # rows steeper than this are reported (the spec allows 15 + perspective)
    row_fit_max_change_deg: float = 12.0  # a row's own line fit may differ this much from the global direction
    slope_min_run: float = 0.5  # tile widths: tile pairs closer than this along the row give no slope
    row_split: float = 0.5  # tile heights: a jump across the row direction larger than this starts a new row
    group_gap: float = 0.25  # tile widths: a gap along a row larger than this separates two groups
    win_gap: float = 0.25  # tile widths: the gap that sets the winning tile apart at the right end
    gap_neighbours: int = 6  # a gap is judged against the median gap of this many nearest other pairs
    gap_max_baseline: float = 0.6  # bound on that median (tile widths)
    gap_window: int = 4  # ... or against a line through this many touching pairs of its row on each side
    gap_inlier: float = 0.15  # tile widths over a row's median gap beyond which a pair is not touching
    max_copies: int = 4  # a set holds four of each tile
    # A finished hand shows only its two rows and the flowers: tiles apart from the rows (above the
    # melds, or set apart at an end of the meld row when the sets are complete without them) are
    # counted as flowers once the hand is complete, at most this many (a set has 8), and reported.
    max_apart_tiles: int = 8
    # a back lying apart from the rows is no part of a hand: one whose face the calibrated classifier reads
    # as a flower (its runner-up) is counted as that flower, and reported
    stray_backs_as_flowers: bool = True
    set_inner_gap: float = 0.45  # tile widths: a gap this wide inside a set (cut by the set rules) is reported
    # A calibration photo (`vision.calibration_layout`) is read with every box, then, while that does not
    # show the layout, with boxes left out and added one at a time, each step the one that leaves the
    # fewest misfits (boxes with no place, places with no box): left out may be the `calibration_doubtful`
    # least sure boxes read with less confidence than `calibration_doubt` (a false box on a paper or a
    # patterned table beside the layout can pull two rows into one or end a row; a checked cloth gave 11);
    calibration_doubtful: int = 16
    calibration_doubt: float = 0.9
    # ... added, the finder's boxes down to `calibration_unsure_conf` that lie on no box found (a tile of
    # the set on a busy cloth can score 0.02), the surest `calibration_unsure` of them as wide and as tall
    # as the boxes found within `calibration_unsure_size` either way (a box over two tiles would end a row
    # in the wrong place). Only a reading that places every tile is taken.
    calibration_unsure_conf: float = 0.01
    calibration_unsure: int = 16
    calibration_unsure_size: float = 1.4
    # a row steps evenly when every step between neighbours is within this many times its median step: an
    # added box must leave its row so, and row 4's optional back lie one place after the white dragon
    calibration_step_spread: float = 1.5


@dataclass(frozen=True)
class AdaptSettings:
    """Fine-tuning on a club's labeled photos (`training.adapt`)."""

    min_photos: int = 4  # fewer labeled photos cannot be split into training and a check
    holdout_share: float = 0.25  # of the labeled photos, held back to compare old and new models
    match_iou: float = 0.5  # a labeled tile is found by a detection overlapping it this much
    detector_recall_min: float = 0.98  # below this recall on the club's photos the tile finder is fine-tuned too
    min_gain: float = 0.0  # the new model must read the held-back photos better by more than this
    user_repeat: int = 4  # the club's photos are few: each appears this many times per epoch
    base_images: int = 60  # base-data images mixed in, so faces missing from the club's photos are kept
    # drawn layouts of every face (`training.adapt.drawn_stand_ins`) mixed in when some face is on no photo to train
    # on: the classifier's fine-tune needs crops of every face
    stand_in_layouts: int = 4
    base_val_images: int = 10
    hard_negatives: int = 40  # photos of bare tables (patterned cloths, books, papers, hands) with no tile, mixed into training
    classifier_epochs: int = 6
    detector_epochs: int = 5
    batch: int = 32
    detector_batch: int = 8  # the finder trains on whole photos: a smaller batch keeps the run under 4 GB
    threads: int = 2  # torch threads while fine-tuning
    # with a time budget (`--minutes`), what is kept back from training for exporting and judging the new models
    reserve_seconds: float = 90.0
    optimizer: str = "AdamW"
    lr0: float = 0.0005  # ultralytics' "auto" picks ~0.0002 for 42 classes: too slow to learn a new set in 6 epochs
    keep_work: bool = False  # keep crops and training runs inside the version folder


@dataclass(frozen=True)
class CalibrateSettings:
    """Learning a set from photos of its calibration layout (`training.calibrate`, `training.fewshot`)."""

    views: int = 48  # augmented copies of each photo whose crops make the prototypes
    check_views: int = 12  # ... and further copies (other seeds) that choose the blend
    sideways_share: float = 0.3  # of the copies, turned by 90 degrees (tiles lying sideways in a meld)
    min_scale: float = 0.35  # copies are shrunk down to this: hand photos show smaller tiles than the layout
    max_turn_deg: float = 15.0
    max_tilt: float = 0.15  # perspective: the far edge narrowed by up to this share of the width
    match_iou: float = 0.5  # a finder box on a copy takes the place of the tile it overlaps this much
    clusters: int = 4  # prototypes per face and way up (k-means; 1, 2, 4, 8 read 97.0, 98.0, 99.2, 99.2 % of held-out copies)
    scales: tuple[float, ...] = (40.0, 80.0, 160.0, 320.0)  # weights of the prototype cosines tried in the logits
    # a face's threshold (the highest cosine of any crop of another set) plus one of these: never 0, or
    # the crop at the maximum passes it by rounding in the ONNX graph (3 base val tiles did at 0)
    margins: tuple[float, ...] = (0.005, 0.01, 0.02)
    # base photos whose every crop the runtime cuts sets the thresholds (`training.promotion.threshold_photos`):
    # this many, spread over the base train split, none of them a photo the promotion check reads; fewer let
    # real white dragons pass a calibrated set's flower thresholds
    base_crops_images: int = 80
    threshold_split: str = "train"  # or "val": the val photos after the checked ones
    base_check_images: int = 30  # base val photos that both versions read whole before promotion
    # --method finetune / both: the classifier's .pt fine-tuned on the crops (ultralytics, CPU), time-boxed
    finetune_epochs: int = 2  # ~15-30 s each on the shared 2-core CPU (8200 crops at 96 px); 3 read base val worse
    # no epoch starts that would end past this, and on a busy CPU the epoch running at this time ends
    # after its current batch (fewer epochs; a fine-tune that read less well then falls back to the head)
    finetune_seconds: float = 90.0
    finetune_base_images: int = 240  # base train photos whose labeled tiles are mixed in, so other sets are kept
    finetune_threads: int = 2
    finetune_batch: int = 64
    finetune_lr0: float = 0.0005  # AdamW, as training.adapt
    finetune_freeze: int = 0  # the classifier's first layers left as they are (BatchNorm too); 0: none
    # the finder's fine-tune (`training.finder_tune`): `finder_copies` augmented copies of each photo +
    # `finder_scenes` scenes of its tiles at play (`training.play_scenes`) + `finder_base_images` labeled base
    # photos + `finder_negatives` bare tables, `finder_epochs` epochs at most, none ending past `finder_seconds`;
    # judged on `finder_check_copies` other copies and `finder_check_scenes` other scenes of each photo
    finder_copies: int = 24
    finder_scenes: int = 48
    finder_check_copies: int = 8
    finder_check_scenes: int = 16
    finder_base_images: int = 24
    finder_negatives: int = 8
    finder_epochs: int = 3
    finder_seconds: float = 60.0
    finder_batch: int = 8
    finder_lr0: float = 0.002  # SGD
    finder_freeze: int = 10  # the backbone's layers


@dataclass(frozen=True)
class Settings:
    detector: DetectorSettings = field(default_factory=DetectorSettings)
    layout: LayoutSettings = field(default_factory=LayoutSettings)
    adapt: AdaptSettings = field(default_factory=AdaptSettings)


DEFAULT_SETTINGS = Settings()
SettingsT = TypeVar("SettingsT")


def with_overrides(settings: SettingsT, assignments: list[str] | tuple[str, ...]) -> SettingsT:
    """`settings` (any settings dataclass) with `field=value` or `section.field=value` assignments applied
    (`mirror.sure_conf=0.8`, `conf_threshold=0.3`), each value read as the type of the field it replaces:
    evaluation commands measure a setting without editing the code. Raises ValueError naming what is wrong."""
    for assignment in assignments:
        path, sep, text = assignment.partition("=")
        if not sep or not path:
            raise ValueError(f"{assignment!r}: write FIELD=VALUE or SECTION.FIELD=VALUE")
        settings = _assigned(settings, path.split("."), text.strip(), assignment)  # type: ignore[assignment]
    return settings


def _assigned(obj: object, path: list[str], text: str, assignment: str) -> object:
    names = {f.name for f in fields(obj)}  # type: ignore[arg-type]
    if path[0] not in names:
        known = ", ".join(sorted(names))
        raise ValueError(f"{assignment!r}: {type(obj).__name__} has no setting {path[0]!r} (it has {known})")
    current = getattr(obj, path[0])
    if len(path) > 1:
        if not is_dataclass(current):
            raise ValueError(f"{assignment!r}: {path[0]!r} is a value, not a section")
        return replace(obj, **{path[0]: _assigned(current, path[1:], text, assignment)})  # type: ignore[type-var]
    if is_dataclass(current):
        raise ValueError(f"{assignment!r}: {path[0]!r} is a section; name one of its settings")
    return replace(obj, **{path[0]: _parsed(text, current, assignment)})  # type: ignore[type-var]


def _parsed(text: str, current: object, assignment: str) -> object:
    if isinstance(current, bool):
        if text.lower() not in ("true", "false", "1", "0"):
            raise ValueError(f"{assignment!r}: expected true or false")
        return text.lower() in ("true", "1")
    if isinstance(current, frozenset):
        return frozenset(name.strip() for name in text.split(",") if name.strip())
    if isinstance(current, tuple) and current and all(isinstance(v, float) for v in current):
        try:
            values = tuple(float(v) for v in text.split(","))
        except ValueError:
            raise ValueError(f"{assignment!r}: expected numbers separated by commas") from None
        return values
    if not isinstance(current, (int, float, str)):
        raise ValueError(f"{assignment!r}: a {type(current).__name__} setting cannot be set this way")
    try:
        return type(current)(text)
    except ValueError:
        raise ValueError(f"{assignment!r}: expected a {type(current).__name__}") from None
