"""Image -> Detections with onnxruntime, as a pipeline of small stages.

    decode (`vision.images`) -> find the tiles (`vision.models.TileFinder`, a letterboxed copy
    at its small input size; `vision.unstretch` when the photo was stretched; the boxes it is unsure
    of checked in the mirror image) -> cut a crop
    of each face from the full-resolution photo (`vision.crops`) -> classify the crops
    (`vision.models.FaceClassifier`, one batch) -> second readings of unsure faces: the
    caption of a possible flower (`vision.flowers`) and the printed rank of a suited tile
    (`vision.ranks`), all bands of a photo read by the recognizer (`vision.ocr`) at once. With a
    classifier calibrated to a set (a few-shot head), in a photo of that set: boxes unlike the set or
    like its table left out, flowers kept from the finder's boxes under its threshold, and the flower a
    back box's face reads as told to the layout reader.

A single 43-class YOLO detector named like `tileset.classes.CLASS_NAMES` is accepted as
well, with no classifier.

Runtime dependencies only: onnxruntime, OpenCV, Pillow, numpy (rapidocr for the second readings).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from scoring.tiles import SUITS, TILE_NAMES, Tile
from tileset.classes import BACK, BACK_ID, CLASS_ID, CLASS_NAMES
from vision.boxes import Found, Letterbox, box_iou, decode_yolo_output, decode_yolo_scores, letterbox
from vision.calibration_layout import one_of_each
from vision.crops import cut_tiles, cut_upright, margin_share
from vision.detections import Detections
from vision.flowers import UPRIGHT_BANDS, caption_bands, reading_from_texts
from vision.flowers import confirms as caption_confirms
from vision.images import DecodedImage, decode_image
from vision.models import TILE_FINDER_NAMES, FaceClassifier, ModelInfo, ModelLoadError, TileFinder, load_models
from vision.ocr import TextLineReader, TextRead, TextReaderUnavailable
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
from vision.settings import DetectorSettings
from vision.unstretch import unstretched

DEFAULT = DetectorSettings()


class TileDetector:
    """Finds the tiles of a photo and names each one (43 canonical classes)."""

    def __init__(self, finder: TileFinder, classifier: "FaceClassifier | None", settings: DetectorSettings = DEFAULT) -> None:
        if not finder.names_faces and classifier is None:
            raise ModelLoadError(f"detector {finder.path} only finds tiles; a classifier model is needed too")
        self.settings = settings
        self.finder = finder
        self.classifier = None if finder.names_faces else classifier
        self._reader: "TextLineReader | None" = None  # made on first use
        self._no_reader = False  # rapidocr is not installed: warned once, not tried again
        self._last_letterbox: "tuple[np.ndarray, np.ndarray, Letterbox] | None" = None  # (image, canvas, fit)
        versions = {"detector": finder.version}
        if self.classifier is not None:
            versions["classifier"] = self.classifier.version
        self.model_info = ModelInfo(
            detector_path=finder.path,
            detector_imgsz=finder.imgsz,
            detector_names=finder.names,
            classifier_path=None if self.classifier is None else self.classifier.path,
            classifier_imgsz=None if self.classifier is None else self.classifier.imgsz,
            versions=versions,
        )

    @classmethod
    def load(cls, models_dir: "str | Path | None" = None, settings: DetectorSettings = DEFAULT) -> "TileDetector":
        """Load `detector.onnx` (and `classifier.onnx` when the detector only finds tiles) from a folder.

        No folder: the model version in use (`vision.registry`: the shipped models unless an adapted
        version was promoted or chosen).
        """
        if models_dir is None:
            from vision.registry import active_dir

            models_dir = active_dir()
        finder, classifier = load_models(models_dir, settings)
        return cls(finder, classifier, settings)

    def with_settings(self, settings: DetectorSettings) -> "TileDetector":
        """The same models (no reload) under other settings."""
        return TileDetector(self.finder, self.classifier, settings)

    # ------------------------------------------------------------ stages

    def find_tiles(self, image_bgr: np.ndarray, conf_threshold: float | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tile-finder boxes (image pixels), confidences and finder class ids, down to `conf_threshold`
        (the settings' when None): one run of the finder, as it scores them."""
        found = self.find_boxes(image_bgr, conf_threshold)
        return found.xyxy, found.conf, found.classes

    def find_boxes(self, image_bgr: np.ndarray, conf_threshold: float | None = None) -> Found:
        """`find_tiles`, with each box's score for every finder class: what the pipeline's stages carry."""
        s = self.settings
        canvas, fit = self._letterboxed(image_bgr)
        output = self.finder.run(canvas)
        floor = s.conf_threshold if conf_threshold is None else conf_threshold
        xyxy, conf, classes, scores = decode_yolo_scores(output, floor, s.nms_iou, s.max_detections)
        xyxy = fit.to_image(xyxy)
        h, w = image_bgr.shape[:2]
        xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, w)
        xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, h)
        return Found(xyxy, conf, classes, scores)

    def back_chances(self, found: Found) -> np.ndarray:
        """The finder's score for the back class of each box; 0 for a finder without one (a 43-class detector)."""
        if self.finder.names_faces:
            return np.zeros(len(found), np.float32)
        return found.score_of(TILE_FINDER_NAMES.index(BACK))

    def _letterboxed(self, image_bgr: np.ndarray) -> tuple[np.ndarray, Letterbox]:
        """The finder's input canvas of `image_bgr`; the last one is kept, so that the mirror check
        (`_confirmed_in_mirror`) does not shrink a 12-megapixel photo twice."""
        last = self._last_letterbox
        if last is not None and last[0] is image_bgr:
            return last[1], last[2]
        canvas, fit = letterbox(image_bgr, self.finder.imgsz)
        self._last_letterbox = (image_bgr, canvas, fit)
        return canvas, fit

    def _confirmed_in_mirror(self, image_bgr: np.ndarray, found: Found) -> tuple[Found, Found]:
        """`found` (boxes of `image_bgr`) split into those kept and those the mirror image does not confirm:
        past the threshold but under `mirror_sure_conf`, and not found again by the finder in the mirror
        image (`mirror_confirm_conf`, `mirror_match_iou`). These come back as unsure boxes, their
        confidence scaled under the threshold, in the same order. A tile is found in both images; a
        tile-sized patch of a cloth the finder never met, a die or a paper's print often in one only
        (model card, stop 37)."""
        s = self.settings
        checked = np.flatnonzero((found.conf >= s.conf_threshold) & (found.conf < s.mirror_sure_conf))
        if len(checked) == 0:
            return found, found[:0]
        seen = self._mirror_confidence(image_bgr, found.xyxy[checked], s.mirror_confirm_conf) >= s.mirror_confirm_conf
        unconfirmed = np.zeros(len(found), bool)
        unconfirmed[checked] = ~seen
        return found[~unconfirmed], self._demoted(found[unconfirmed])

    def _demoted(self, found: Found) -> Found:
        """Boxes past the threshold taken as unsure ones: their confidence scaled under it (x threshold /
        `mirror_sure_conf`), their order kept."""
        return found.with_conf(found.conf * (self.settings.conf_threshold / self.settings.mirror_sure_conf))

    def _mirror_confidence(self, image_bgr: np.ndarray, xyxy: np.ndarray, floor: float) -> np.ndarray:
        """For each box of `image_bgr`, the finder's highest confidence (down to `floor`; 0 under it) for a box
        that overlaps it by `mirror_match_iou` in the mirror image of the same canvas."""
        s = self.settings
        canvas, fit = self._letterboxed(image_bgr)
        mirrored, mirrored_conf, _ = decode_yolo_output(self.finder.run(np.ascontiguousarray(canvas[:, ::-1])),
                                                        floor, s.nms_iou, s.max_detections)
        mirrored[:, [0, 2]] = canvas.shape[1] - mirrored[:, [2, 0]]
        overlapping = box_iou(xyxy, fit.to_image(mirrored)) >= s.mirror_match_iou
        return np.where(overlapping, mirrored_conf[None, :], 0.0).max(axis=1, initial=0.0)

    def classify_faces(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray) -> "FaceReading":
        """Canonical class id and probability of each face-up tile box, its second reading, its likeness
        to the calibrated set (+inf when the classifier was not calibrated with a head), whether it
        looks like the table the set was calibrated on (`_table_like`), and whether the photo is of that
        set (`_of_the_set`).

        The second reading is the second most likely class; for a face read as a flower or
        season, the most likely class that is not one: which flower it is never changes a
        score, and a "flower" inside a row of the hand is another face misread.
        """
        classifier = self.classifier
        assert classifier is not None
        crops = cut_tiles(image_bgr, boxes_xyxy, classifier.imgsz, self.settings)
        if len(crops) == 0:
            return FaceReading(np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int64),
                               np.zeros(0, np.float32), np.zeros(0, bool), False)
        reading = classifier.read(crops)
        probs, likeness, table_likeness, base_probs = reading.probs, reading.likeness, reading.table_likeness, reading.base_probs
        table = self._table_like(table_likeness)
        of_the_set = self._of_the_set(likeness[~table])
        head_used = classifier.has_fewshot_head
        set_margin = reading.set_margin
        read_open = False
        if reading.set_probs is not None and set_margin is not None and self._read_open(set_margin[~table]):
            probs, read_open = reading.set_probs, True
        elif base_probs is not None and self.settings.base_reads_other_sets and not of_the_set:
            probs, head_used = base_probs, False  # another set's photo: read as before, from the same run
        elif classifier.base_reader is not None and not of_the_set:
            probs, head_used = classifier.read_as_base(crops), False  # ... by the classifier kept beside it
        elif classifier.set_reader is not None and of_the_set:
            share = self.settings.set_classifier_share
            probs = share * classifier.read_as_set(crops) + (1 - share) * probs
        best, second = np.argsort(-probs, axis=1, kind="stable")[:, :2].T
        flower_columns = classifier.flower_columns
        not_flowers = np.where(flower_columns[None, :], -1.0, probs)
        best_not_flower = not_flowers.argmax(axis=1)
        if head_used and not self.settings.set_faces_flower_seconds:
            not_flowers[np.arange(len(best)), best] = -1.0
            second = np.where(flower_columns[second], not_flowers.argmax(axis=1), second)
        second = np.where(flower_columns[best], best_not_flower, second)
        ids, seconds = classifier.to_canonical[best], classifier.to_canonical[second]
        confidence = probs[np.arange(len(best)), best].astype(np.float32)
        if self.settings.one_flower_of_each:
            self._one_flower_of_each(probs, best, ids, confidence)
        upright = _UprightCrops(image_bgr, boxes_xyxy, self.settings)
        self._read_captions(upright, probs, ids, confidence, seconds, head_used)
        corner = classifier.numeral_corner if head_used and self.settings.ranks.calibrated_corner else None
        read_by_index = self._read_index_numerals(upright, boxes_xyxy, probs, ids, confidence, seconds)
        if corner is not None:
            self._read_corner_numerals(upright, boxes_xyxy, corner, ~read_by_index, probs, ids, confidence, seconds)
        return FaceReading(ids, confidence, seconds, likeness, table, of_the_set, read_open)

    def _one_flower_of_each(self, probs: np.ndarray, best: np.ndarray, ids: np.ndarray, confidence: np.ndarray) -> None:
        """A set has one tile of each flower and season: where the boxes read as flowers name one of them twice,
        they are named anew together, by the likeliest assignment of distinct flowers to them (`one_of_each` on
        the reading's log-probabilities of the flowers), their confidence that flower's probability (`ids` and
        `confidence` in place; `best`: each box's likeliest column of `probs`).
        A box whose flower in that assignment the reading gives under `one_flower_min_chance` keeps its reading:
        no reading of it, but the one left over (a second box on one tile, a back; merged or named later)."""
        classifier = self.classifier
        assert classifier is not None
        flower_columns = np.flatnonzero(classifier.flower_columns)
        rows = np.flatnonzero(classifier.flower_columns[best])
        if len(rows) < 2 or len(np.unique(best[rows])) == len(rows) or len(rows) > len(flower_columns):
            return
        chosen = flower_columns[one_of_each(np.log(np.maximum(probs[np.ix_(rows, flower_columns)], 1e-12)))]
        named = probs[rows, chosen] >= self.settings.one_flower_min_chance
        rows, chosen = rows[named], chosen[named]
        ids[rows] = classifier.to_canonical[chosen]
        confidence[rows] = probs[rows, chosen]

    def _read_captions(self, upright: "_UprightCrops", probs: np.ndarray, ids: np.ndarray, confidence: np.ndarray,
                       seconds: np.ndarray, head_used: bool) -> None:
        """Faces with some chance of being a flower take the flower their caption names (in place)."""
        flowers = self.settings.flowers
        assert self.classifier is not None
        is_flower = self.classifier.flower_columns
        sure = np.inf if head_used and not flowers.sure_fewshot_skips else flowers.max_confidence
        candidates = np.flatnonzero((probs[:, is_flower].sum(axis=1) >= flowers.min_flower_share)
                                    & (probs.max(axis=1) < sure))
        if not flowers.enabled or len(candidates) == 0 or (reader := self.text_reader()) is None:
            return
        tiles = [(int(index), tile) for index in candidates if (tile := upright[int(index)]) is not None]

        def unsettled(k: int, read: list[TextRead]) -> bool:
            index = tiles[k][0]
            return (not caption_confirms(read, CLASS_NAMES[ids[index]], flowers)
                    and probs[index, is_flower].sum() >= flowers.second_round_share)

        texts = _read_in_two_rounds(reader, [caption_bands(tile, flowers) for _, tile in tiles],
                                    UPRIGHT_BANDS if flowers.upright_first else None, unsettled)
        for (index, _), read in zip(tiles, texts):
            reading = reading_from_texts(read, CLASS_NAMES[ids[index]], flowers)
            if reading is None:
                continue
            if not is_flower[probs[index].argmax()]:
                seconds[index] = ids[index]  # the suited or honour tile it was read as, should the caption be wrong
            ids[index] = CLASS_ID[reading.name]
            confidence[index] = max(float(confidence[index]), reading.score)

    def _read_index_numerals(self, upright: "_UprightCrops", boxes_xyxy: np.ndarray, probs: np.ndarray,
                             ids: np.ndarray, confidence: np.ndarray, seconds: np.ndarray) -> np.ndarray:
        """Suited faces read unsurely take the rank their index numeral prints, in the suit the
        classifier gives that rank the most chance (`RankSettings.any_suit`; in place); returns which
        faces were read so. A tile lying sideways is read both ways up: turned upright, which way up it
        lies is unknown, and a 6 upside down reads as a 9, so the two must agree.
        All are read before any is decided: the corner the set prints in (`numeral_corner`) tells
        a neighbour's numeral from the tile's own (`own_numerals`)."""
        ranks = self.settings.ranks
        read = np.zeros(len(ids), bool)
        if not ranks.enabled:
            return read
        assert self.classifier is not None
        rank_columns = self.classifier.rank_columns
        wh = boxes_xyxy[:, 2:] - boxes_xyxy[:, :2]
        sideways = wh[:, 0] > wh[:, 1] * self.settings.sideways_ratio
        margin = margin_share(self.settings)
        candidates = []  # (index, the tile as read, the classifier's chance of each rank, its band lists)
        for index in map(int, np.flatnonzero(confidence < ranks.max_confidence)):
            name = CLASS_NAMES[ids[index]]
            read_as = Tile.parse(name) if name in TILE_NAMES else None
            if read_as is None or not read_as.is_suited:
                continue
            suits = SUITS if ranks.any_suit else read_as.suit
            rank_shares = np.max([probs[index, rank_columns[suit]] for suit in suits], axis=0)
            if ranks.only_where_it_can_change and other_rank_share(rank_shares, read_as.rank) < ranks.min_share:
                continue  # a digit could only confirm the rank it was read as
            tile = upright[index]
            if tile is None:
                continue
            band_lists = [index_bands(tile, ranks, margin)]
            if sideways[index]:
                band_lists.append(index_bands(np.ascontiguousarray(tile[::-1, ::-1]), ranks, margin))
            candidates.append((index, read_as, band_lists))
        if not candidates or (reader := self.text_reader()) is None:
            return read
        read[[index for index, _, _ in candidates]] = True
        every_band = [bands for _, _, band_lists in candidates for bands in band_lists]
        ranks_read = [read_as.rank for _, read_as, band_lists in candidates for _ in band_lists]

        def unsettled(k: int, texts: list[TextRead]) -> bool:
            return not numeral_confirms(reads_of(every_band[k], texts), ranks_read[k], ranks)

        texts_each = _read_in_two_rounds(reader, [[band for _, band in bands] for bands in every_band],
                                         FIRST_ROUND if ranks.shallow_first else None, unsettled)
        # reads_of pairs the bands with the texts in order: the bands read, as many as the texts
        read_lists = iter([reads_of(bands, texts) for bands, texts in zip(every_band, texts_each)])
        unsure: list[tuple[int, Tile, Reads, dict[str, int], "Reads | None"]] = []
        for index, read_as, band_lists in candidates:
            reads = next(read_lists)
            if sideways[index]:
                unsure.append((index, read_as, reads, {}, next(read_lists)))
            else:
                unsure.append((index, read_as, reads, touching_ranks(boxes_xyxy, ids, index), None))
        corner = None
        if ranks.leave_out_neighbours:
            corner = numeral_corner([(reads, beside) for _, _, reads, beside, turned in unsure if turned is None],
                                    ranks.min_digit_score)
        for index, read_as, reads, beside, turned in unsure:
            texts_read = own_numerals(reads, beside, corner) + [text for _, text in turned or []]
            suits = SUITS if ranks.any_suit else read_as.suit
            by_suit = {suit: probs[index, rank_columns[suit]] for suit in suits}
            reading = rank_from_texts(texts_read, np.max(list(by_suit.values()), axis=0), ranks)
            if reading is None:
                continue
            rank = int(reading.name)
            suit = max(by_suit, key=lambda s: float(by_suit[s][rank - 1]))
            if (rank, suit) == (read_as.rank, read_as.suit):
                continue
            seconds[index] = ids[index]
            ids[index] = CLASS_ID[Tile.suited(rank, suit).name]
            confidence[index] = max(float(confidence[index]), reading.score)
        return read

    def _read_corner_numerals(self, upright: "_UprightCrops", boxes_xyxy: np.ndarray, corner: str, among: np.ndarray,
                              probs: np.ndarray, ids: np.ndarray, confidence: np.ndarray, seconds: np.ndarray) -> None:
        """In a photo read as a calibrated set that prints its suited ranks in a top `corner` (learned from its
        calibration photo), the suited faces `among` those given (the index numerals' leftovers) where `probs`
        give another rank of their suit `RankSettings.corner_min_share` or more take the rank of the digit read
        surely in that corner, in the suit they were read in (in place). A digit naming another rank than the
        tile was read as must be read surely in `RankSettings.corner_reads` bands: the deeper bands are read only
        then. A tile lying sideways is read both ways up, and the two must agree."""
        ranks = self.settings.ranks
        if not ranks.enabled:
            return
        assert self.classifier is not None
        rank_columns = self.classifier.rank_columns
        wh = boxes_xyxy[:, 2:] - boxes_xyxy[:, :2]
        sideways = wh[:, 0] > wh[:, 1] * self.settings.sideways_ratio
        margin = margin_share(self.settings)
        owners, groups = [], []  # (index, the tile as read) of each group: one way up of a tile, its bands by depth
        for index in map(int, np.flatnonzero(among)):
            name = CLASS_NAMES[ids[index]]
            read_as = Tile.parse(name) if name in TILE_NAMES else None
            if read_as is None or not read_as.is_suited:
                continue
            if other_rank_share(probs[index, rank_columns[read_as.suit]], read_as.rank) < ranks.corner_min_share:
                continue  # the head leaves no other rank a chance: a digit could only confirm it
            tile = upright[index]
            if tile is None:
                continue
            for way in [tile] + ([np.ascontiguousarray(tile[::-1, ::-1])] if sideways[index] else []):
                owners.append((index, read_as))
                groups.append(corner_bands(way, corner, ranks, margin))
        if not groups or (reader := self.text_reader()) is None:
            return

        def unsettled(k: int, texts: list[TextRead]) -> bool:  # another rank, to be read again deeper
            reading = corner_rank(texts, ranks.min_digit_score)
            return reading is not None and int(reading.name) != owners[k][1].rank

        texts_each = _read_in_two_rounds(reader, groups, 1, unsettled, ranks.corner_line_width or None)
        texts_of: dict[int, list[TextRead]] = {}
        for (index, _), texts in zip(owners, texts_each):
            texts_of.setdefault(index, []).extend(texts)
        for index, read_as in dict(owners).items():
            reading = corner_rank(texts_of[index], ranks.min_digit_score, ranks.corner_reads)
            if reading is None or int(reading.name) == read_as.rank:
                continue
            seconds[index] = ids[index]
            ids[index] = CLASS_ID[Tile.suited(int(reading.name), read_as.suit).name]
            confidence[index] = max(float(confidence[index]), reading.score)

    def text_reader(self) -> "TextLineReader | None":
        """The text-line recognizer of the second readings, loaded on first use; None without rapidocr."""
        if self._reader is None and not self._no_reader:
            try:
                self._reader = TextLineReader(self.settings.intra_op_threads, self.settings.ocr_line_width,
                                              spinning=self.settings.intra_op_spinning)
            except TextReaderUnavailable as error:
                warnings.warn(f"flowers and ranks are read by the classifier alone: {error}", stacklevel=2)
                self._no_reader = True
        return self._reader

    # ------------------------------------------------------------ the pipeline

    def detect(self, image_bgr: np.ndarray) -> Detections:
        """All tiles of a BGR image, 43 canonical classes, boxes in the image's pixels.

        A photo whose tiles come out far thinner (or wider) than any tile is is read in a
        copy resized back to their natural shape (`vision.unstretch`); the boxes are still
        in this image's pixels. Boxes the finder is unsure of are kept only when the mirror image
        confirms them (`_confirmed_in_mirror`).
        """
        h, w = image_bgr.shape[:2]
        unsure: list[Found] = []
        copy = unstretched(image_bgr, self._finder_keeping_unsure(image_bgr, unsure), self.finder.is_face,
                           self.settings)
        found, unconfirmed = self._confirmed_in_mirror(copy.image_bgr, copy.found)
        self._last_letterbox = None  # the photo is not kept alive between photos
        if copy.image_bgr is not image_bgr:
            return self._named(copy.image_bgr, found).scaled(*copy.scale_to(w, h))
        return self._named(image_bgr, found, unsure=unsure[0].joined(unconfirmed) if unsure else None)

    def _finder_keeping_unsure(self, image_bgr: np.ndarray, unsure: list[Found]) -> Callable[[np.ndarray], Found]:
        """`find_boxes`; with a calibrated classifier, the same run of the finder on `image_bgr` also puts
        the boxes it found down to `flower_rescue_conf` in `unsure` (`_flowers_the_finder_was_unsure_of`)."""
        s, classifier = self.settings, self.classifier
        if (classifier is None or not classifier.has_fewshot_head or s.flower_rescue_boxes <= 0
                or not 0 < s.flower_rescue_conf < s.conf_threshold):
            return self.find_boxes

        def find(image: np.ndarray) -> Found:
            if image is not image_bgr:
                return self.find_boxes(image)
            found = self.find_boxes(image, s.flower_rescue_conf)
            sure = found.conf >= s.conf_threshold  # the boxes the settings' threshold gives, as NMS keeps the surer
            unsure.append(found[~sure])
            return found[sure]

        return find

    def _named(self, image_bgr: np.ndarray, found: Found, unsure: "Found | None" = None) -> Detections:
        """Finder boxes (pixels of `image_bgr`) as Detections: faces named by the classifier; in a photo of
        the calibrated set, with the flowers found among the `unsure` boxes."""
        xyxy, conf, classes = found.xyxy, found.conf, found.classes
        if self.finder.to_canonical is not None:
            return Detections(xyxy, conf, self.finder.to_canonical[classes])
        canonical = np.full(len(xyxy), BACK_ID, np.int64)
        runner_up = np.full(len(xyxy), -1, np.int64)
        doubtful = np.zeros(len(xyxy), bool)
        faces = self.finder.is_face(classes)
        keep = np.ones(len(xyxy), bool)
        if faces.any():
            read = self.classify_faces(image_bgr, xyxy[faces])
            backs = self._backs_boxed_as_faces(read, self.back_chances(found[faces]))
            canonical[faces] = np.where(backs, BACK_ID, read.ids)
            runner_up[faces] = np.where(backs, -1, read.seconds)
            keep[faces] = ~self._strays(read, conf[faces])
            doubtful[faces] = self._doubtful(read, conf[faces]) & ~backs
            conf = conf.copy()
            conf[faces] = conf[faces] * np.where(backs, 1.0, read.confidence)
            if read.of_the_set and not faces.all():
                runner_up[~faces] = self._flowers_boxed_as_backs(image_bgr, xyxy[~faces])
            if read.of_the_set and unsure is not None and len(unsure):
                more = self._flowers_the_finder_was_unsure_of(image_bgr, xyxy, unsure, canonical[keep])
                keep = np.concatenate([keep, np.ones(len(more[0]), bool)])
                doubtful = np.concatenate([doubtful, np.zeros(len(more[0]), bool)])  # they passed a threshold
                xyxy, conf, canonical, runner_up = (np.concatenate([a, b]) for a, b in
                                                    zip((xyxy, conf, canonical, runner_up), more))
        return Detections(xyxy[keep], conf[keep], canonical[keep], runner_up[keep], xyxy[~keep], doubtful[keep])

    def _flowers_the_finder_was_unsure_of(self, image_bgr: np.ndarray, found_xyxy: np.ndarray, unsure: Found,
                                          read: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """In a photo of the calibrated set: the finder's boxes below its threshold (down to
        `flower_rescue_conf`) on no box found, a tile's size (within `flower_rescue_size` of the median box
        found, either way) and the surest `flower_rescue_boxes` of them, that the classifier with its
        few-shot head reads as a flower or season at least `flower_rescue_confidence` surely, passing that
        face's threshold by `flower_rescue_likeness`, and not like the table: xyxy, confidence (the
        finder's times the classifier's), canonical ids and runner-ups.
        A flower lies apart from the rows, where a tile missed breaks no set: the hand still wins with one
        flower fewer, and nothing asks for it again. The finder scores a set's flowers lowest, their
        artwork differing most from set to set (a drawn set's gold character in a frame: 0.02-0.09).
        `read`: the canonical ids of the boxes found; with `flower_rescue_new_only`, a flower among them, or
        rescued already from a surer box, is not rescued again."""
        s = self.settings
        xyxy, finder_conf = unsure.xyxy, unsure.conf
        candidates = rescue_candidates(xyxy, finder_conf, found_xyxy, s)
        flowers, chance, seconds = self._sure_flowers(image_bgr, xyxy[candidates], s.flower_rescue_confidence,
                                                      s.flower_rescue_likeness)
        taken = flowers >= 0
        if s.flower_rescue_new_only:  # a set has one of each flower: one read already (`read`) is not missing
            seen = set(read.tolist())
            for k in np.flatnonzero(taken):  # candidates come surest first
                taken[k] = int(flowers[k]) not in seen
                seen.add(int(flowers[k]))
        chosen = candidates[taken]
        return (xyxy[chosen], (finder_conf[chosen] * chance[taken]).astype(np.float32), flowers[taken],
                seconds[taken])

    def _flowers_boxed_as_backs(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray) -> np.ndarray:
        """For back boxes in a photo of the calibrated set: the flower or season each face reads as, where
        the classifier with its few-shot head is sure of it (`back_flower_confidence`) and the crop passes
        that face's threshold; -1 for the others. The finder can take a colourful flower for a back (a drawn
        set's, kde-traditional's season); the layout counts one only where it lies apart from the rows
        (`vision.repair`), since a back there is no part of a hand. Without a head (+inf likeness): none."""
        assert self.classifier is not None
        if not self.classifier.has_fewshot_head:
            return np.full(len(boxes_xyxy), -1, np.int64)
        return self._sure_flowers(image_bgr, boxes_xyxy, self.settings.back_flower_confidence, 0.0)[0]

    def _sure_flowers(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray, min_confidence: float,
                      min_likeness: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the classifier (its head included) reads each box's crop as, where that is a flower or season
        read at least `min_confidence` surely, `min_likeness` past that face's threshold and not like the
        table: its canonical id (-1 elsewhere), the chance of the face read, and the likeliest face that is
        not a flower (canonical ids), for each box."""
        classifier = self.classifier
        assert classifier is not None
        nothing = np.full(len(boxes_xyxy), -1, np.int64)
        if len(boxes_xyxy) == 0 or len(crops := cut_tiles(image_bgr, boxes_xyxy, classifier.imgsz, self.settings)) == 0:
            return nothing, np.zeros(len(boxes_xyxy), np.float32), nothing
        reading = classifier.read(crops)
        probs, likeness, table_likeness = reading.probs, reading.likeness, reading.table_likeness
        best = probs.argmax(axis=1)
        chance = probs.max(axis=1)
        is_flower = classifier.flower_columns
        sure = (is_flower[best] & (chance >= min_confidence) & (likeness >= min_likeness)
                & ~self._table_like(table_likeness))
        best_not_flower = np.where(is_flower[None, :], -1.0, probs).argmax(axis=1)
        return (np.where(sure, classifier.to_canonical[best], -1), chance,
                classifier.to_canonical[best_not_flower])

    def _doubtful(self, read: "FaceReading", finder_conf: np.ndarray) -> np.ndarray:
        """In a photo of the calibrated set (or, with `lone_doubt_in_open_photos`, one read with the open reading),
        face boxes the finder scored under `lone_doubt_finder_conf` that pass none of the set's face thresholds
        (likeness under `lone_doubt_likeness`): the layout counts them only in a row, where the hand's sets check
        them, never alone as a flower, which nothing checks. Without a head (+inf likeness) or in another set's
        photo: none."""
        s = self.settings
        if not (read.of_the_set or (s.lone_doubt_in_open_photos and read.read_open)):
            return np.zeros(len(read.likeness), bool)
        return (finder_conf < s.lone_doubt_finder_conf) & (read.likeness < s.lone_doubt_likeness)

    def _backs_boxed_as_faces(self, read: "FaceReading", back_chance: np.ndarray) -> np.ndarray:
        """In a photo of the calibrated set, face boxes the finder gave the back class at least
        `back_chance_of_faces` (`back_chance`, each box's) that look like none of the set's faces (likeness under
        `back_face_likeness`): backs, which calibration never shows the head, and which it would read as the faces
        nearest them."""
        s = self.settings
        if not read.of_the_set or s.back_chance_of_faces <= 0:
            return np.zeros(len(read.likeness), bool)
        unlike = np.isfinite(read.likeness) & (read.likeness < s.back_face_likeness)
        return unlike & (back_chance >= s.back_chance_of_faces)

    def _strays(self, read: "FaceReading", finder_conf: np.ndarray) -> np.ndarray:
        """In a photo of the calibrated set (most of its boxes that do not look like the table look like the
        set), face boxes the finder was unsure of that look like the table the set was calibrated on
        (`table`) or like none of the set's tiles. A photo of another set keeps every box: another set's
        white faces can look more like a light table than like any of this set's faces (chinese-v4's real
        test photos with a version calibrated on a mosaic table: recall 98.63 -> 94.98 % when the table rule
        held in every photo)."""
        s = self.settings
        if not read.of_the_set:
            return np.zeros(len(read.likeness), bool)
        on_table = read.table & (finder_conf < s.table_max_finder_conf)
        unlike = (read.likeness < s.stray_likeness) & (finder_conf < s.stray_max_finder_conf)
        return on_table | unlike

    def _table_like(self, table_likeness: np.ndarray) -> np.ndarray:
        """Which crops look like the calibration photo's table (none with `table_strays` off)."""
        return (table_likeness > 0) & self.settings.table_strays

    def _of_the_set(self, likeness: np.ndarray) -> bool:
        """Whether a photo's face boxes are tiles of the calibrated set: most pass a face's threshold (+inf
        for every box when the classifier was not calibrated with a few-shot head). The rules that leave
        boxes out or add flowers act only in such a photo."""
        return bool(len(likeness)) and float(np.mean(likeness >= 0)) >= self.settings.stray_photo_share

    def _read_open(self, set_margin: np.ndarray) -> bool:
        """Whether a photo's faces are read with every crop's gate open (SET_PROBS_OUTPUT): most of its face
        boxes are nearer the set's faces than any other set's crop the head keeps (SET_MARGIN_OUTPUT above
        `set_photo_margin`). A looser test than `_of_the_set`, which it leaves alone: the rules that leave boxes
        out or add flowers were tuned on that one (given this test too, stop 34's first fresh round read the
        same hands)."""
        s = self.settings
        if not s.open_gate_in_set_photos or not len(set_margin):
            return False
        return float(np.mean(set_margin > s.set_photo_margin)) >= s.stray_photo_share

    def detect_decoded(self, decoded: DecodedImage) -> Detections:
        """Detect on a (possibly reduced) decoded image; boxes in the original photo's pixels."""
        dets = self.detect(decoded.bgr)
        sx, sy = decoded.scale_xy
        return dets if (sx, sy) == (1.0, 1.0) else dets.scaled(sx, sy)

    def detect_file(self, source: "str | Path | bytes") -> tuple[Detections, tuple[int, int]]:
        """Read and detect a photo (big ones decoded reduced); boxes and size in original pixels."""
        decoded = decode_image(source, self.settings, reduce_to=self.settings.decode_long_side)
        return self.detect_decoded(decoded), decoded.original_wh


def rescue_candidates(xyxy: np.ndarray, finder_conf: np.ndarray, found_xyxy: np.ndarray,
                      settings: DetectorSettings) -> np.ndarray:
    """Indices of the finder's unsure boxes `xyxy` that `TileDetector._flowers_the_finder_was_unsure_of`
    reads: on no box found (IoU under 1/3), a tile's size (long and short sides within `flower_rescue_size`
    of the found boxes' medians, either way: tiles lie upright and sideways), the surest
    `flower_rescue_boxes` of them, surest first."""
    if not len(found_xyxy) or not len(xyxy):
        return np.zeros(0, np.int64)
    on_none = box_iou(xyxy, found_xyxy).max(axis=1) < 1 / 3
    found_wh = found_xyxy[:, 2:] - found_xyxy[:, :2]
    wh = xyxy[:, 2:] - xyxy[:, :2]
    ratios = np.stack([wh.max(axis=1) / np.median(found_wh.max(axis=1)),
                       wh.min(axis=1) / np.median(found_wh.min(axis=1))], axis=1)
    size = settings.flower_rescue_size
    candidates = np.flatnonzero(on_none & np.all((ratios <= size) & (ratios >= 1 / size), axis=1))
    return candidates[np.argsort(-finder_conf[candidates], kind="stable")][: settings.flower_rescue_boxes]


class FaceReading(NamedTuple):
    """What `TileDetector.classify_faces` says of a photo's face-up tile boxes."""

    ids: np.ndarray  # (N,) canonical class ids
    confidence: np.ndarray  # (N,) probability of each
    seconds: np.ndarray  # (N,) second readings (for a flower, the likeliest face that is not one)
    likeness: np.ndarray  # (N,) to the calibrated set (+inf without a few-shot head)
    table: np.ndarray  # (N,) looks like the table the set was calibrated on
    of_the_set: bool  # the photo is of the calibrated set (always, without a few-shot head)
    read_open: bool = False  # its faces were read with every crop's gate open (`TileDetector._read_open`)


class _UprightCrops:
    """Upright crops of a photo's tile boxes for the second readings, each cut once, on first use."""

    def __init__(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray, settings: DetectorSettings) -> None:
        self._image, self._boxes, self._settings = image_bgr, boxes_xyxy, settings
        self._cut: dict[int, "np.ndarray | None"] = {}

    def __getitem__(self, index: int) -> "np.ndarray | None":
        if index not in self._cut:
            self._cut[index] = cut_upright(self._image, self._boxes[index], self._settings)
        return self._cut[index]


def _read_in_two_rounds(reader: TextLineReader, groups: list[list[np.ndarray]], first: "int | None",
                        unsettled: Callable[[int, list[TextRead]], bool],
                        line_width: "int | None" = None) -> list[list[TextRead]]:
    """What the recognizer reads on each group's bands (one tile's caption or index bands), one batch a
    round: the first `first` bands of every group, then the other bands of the groups the first round
    left `unsettled(k, texts so far)`.  `first` None: every band in the first round. `line_width`: the
    recognizer's padded width (`TextLineReader.read_lines`)."""
    heads = [bands[:first] for bands in groups]
    texts = _split(reader.read_lines([band for bands in heads for band in bands], line_width), heads)
    rest = [k for k, read in enumerate(texts) if first is not None and unsettled(k, read)]
    tails = [groups[k][first:] for k in rest]
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
