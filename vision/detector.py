"""Image -> Detections with onnxruntime: find the tiles, read their faces, apply the reader's rules.

    decode (`vision.images`) -> find the tiles (`vision.models.TileFinder`, a letterboxed copy at its small
    input size) -> the rules of the boxes (`vision.rules`: unstretching, the mirror check) -> cut a crop of
    each face from the full-resolution photo (`vision.crops`) and classify the crops
    (`vision.models.FaceClassifier`, one batch); whether the photo is of the calibrated set is decided here,
    once -> the rules of the faces (which classifier's reading is taken; flowers named one of each) -> the
    rules of the boxes' kinds (boxes left out) -> Detections.

A single 43-class YOLO detector named like `tileset.classes.CLASS_NAMES` is accepted as
well, with no classifier (and none of the rules after the boxes').

Runtime dependencies only: onnxruntime, OpenCV, Pillow, numpy.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from tileset.classes import BACK_ID
from vision.boxes import Found, Letterbox, box_iou, decode_yolo_output, decode_yolo_scores, letterbox
from vision.crops import cut_tiles
from vision.detections import Detections
from vision.images import DecodedImage, decode_image
from vision.models import (
    ClassifierReading,
    FaceClassifier,
    ModelInfo,
    ModelLoadError,
    TileFinder,
    load_models,
)
from vision.rules import (
    BOXES,
    FACES,
    KINDS,
    FaceReading,
    Reading,
    Sighting,
    apply_rules,
    check_rule_names,
    named,
    of_the_set,
)
from vision.settings import DetectorSettings

DEFAULT = DetectorSettings()


class _LastLetterbox(threading.local):
    kept: tuple[np.ndarray, np.ndarray, Letterbox] | None = None  # (image, canvas, fit)


class TileDetector:
    """Finds the tiles of a photo and names each one (43 canonical classes)."""

    def __init__(self, finder: TileFinder, classifier: FaceClassifier | None, settings: DetectorSettings = DEFAULT) -> None:
        if not finder.names_faces and classifier is None:
            raise ModelLoadError(f"detector {finder.path} only finds tiles; a classifier model is needed too")
        check_rule_names(settings.rules_off)
        self.settings = settings
        self.finder = finder
        self.classifier = None if finder.names_faces else classifier
        self._last_letterbox = _LastLetterbox()  # per thread: photos read at once keep their own
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
    def load(cls, models_dir: str | Path | None = None, settings: DetectorSettings = DEFAULT) -> TileDetector:
        """Load `detector.onnx` (and `classifier.onnx` when the detector only finds tiles) from a folder.

        No folder: the model version in use (`vision.registry`: the shipped models unless an adapted
        version was promoted or chosen).
        """
        if models_dir is None:
            from vision.registry import active_dir

            models_dir = active_dir()
        finder, classifier = load_models(models_dir, settings)
        return cls(finder, classifier, settings)

    def with_settings(self, settings: DetectorSettings) -> TileDetector:
        """The same models (no reload) under other settings."""
        return TileDetector(self.finder, self.classifier, settings)

    # ------------------------------------------------------------ the pipeline

    def detect(self, image_bgr: np.ndarray) -> Detections:
        """All tiles of a BGR image, 43 canonical classes, boxes in the image's pixels: the finder's boxes,
        the rules of the boxes, the faces read, the rules of the faces and of the boxes' kinds (`vision.rules`)."""
        sighting = apply_rules(BOXES, self.sight(image_bgr), self)
        self._last_letterbox.kept = None  # the photo is not kept alive between photos
        if self.finder.to_canonical is not None:  # a 43-class detector names the faces itself
            found = sighting.found
            dets = Detections(found.xyxy, found.conf, self.finder.to_canonical[found.classes])
        else:
            dets = apply_rules(KINDS, self.read(sighting), self).detections()
        return dets if sighting.image_bgr is image_bgr else dets.scaled(*sighting.to_photo)

    def sight(self, image_bgr: np.ndarray) -> Sighting:
        """One run of the finder on the photo: its boxes past the threshold."""
        return Sighting(image_bgr, self.find_boxes(image_bgr))

    def read(self, sighting: Sighting) -> Reading:
        """Every box of `sighting` named: its faces by the classifier (`classify_faces`), the others backs."""
        found = sighting.found
        is_face = self.is_face(found.classes)
        if is_face.any():
            faces = self.classify_faces(sighting.image_bgr, found.xyxy[is_face])
        else:
            faces = _no_faces()
        class_id = np.full(len(found), BACK_ID, np.int64)
        runner_up = np.full(len(found), -1, np.int64)
        class_id[is_face], runner_up[is_face] = faces.ids, faces.seconds
        confidence = found.conf.copy()
        confidence[is_face] = confidence[is_face] * faces.confidence
        return Reading(sighting, is_face, faces, found.xyxy, confidence, class_id, runner_up,
                       np.zeros(len(found), bool))

    def classify_faces(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray) -> FaceReading:
        """The faces of face-up tile boxes as the classifier reads them and the rules of the faces leave them:
        each one's class and probability, second reading, likeness to the calibrated set (+inf when the
        classifier was not calibrated with a few-shot head), and whether the photo is of that set: decided
        here, once, from the boxes' likeness (`vision.rules.of_the_set`)."""
        classifier = self.face_classifier
        crops, out = self.read_crops(image_bgr, boxes_xyxy)
        if out is None:
            return _no_faces()
        unread = np.zeros(len(crops), np.int64)  # `named` reads them
        faces = FaceReading(unread, unread.astype(np.float32), unread, out.likeness,
                            of_the_set(out.likeness, self.settings), outputs=out, crops=crops,
                            image_bgr=image_bgr, xyxy=np.asarray(boxes_xyxy, np.float32).reshape(-1, 4))
        faces = named(faces, out.probs, classifier, head_used=classifier.has_fewshot_head)
        return apply_rules(FACES, faces, self)

    # ------------------------------------------------------------ what the stages and the rules call

    @property
    def face_classifier(self) -> FaceClassifier:
        """The classifier (there is one wherever a face is to be read: a finder of tiles only needs one)."""
        assert self.classifier is not None
        return self.classifier

    def is_face(self, classes: np.ndarray) -> np.ndarray:
        """Which of the finder's class ids are face-up tiles (not backs)."""
        return self.finder.is_face(classes)

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

    def confidence_in_mirror(self, image_bgr: np.ndarray, xyxy: np.ndarray, floor: float) -> np.ndarray:
        """For each box of `image_bgr`, the finder's highest confidence (down to `floor`; 0 under it) for a box
        that overlaps it by `MirrorSettings.match_iou` in the mirror image of the same canvas."""
        s = self.settings
        canvas, fit = self._letterboxed(image_bgr)
        mirrored, mirrored_conf, _ = decode_yolo_output(self.finder.run(np.ascontiguousarray(canvas[:, ::-1])),
                                                        floor, s.nms_iou, s.max_detections)
        mirrored[:, [0, 2]] = canvas.shape[1] - mirrored[:, [2, 0]]
        overlapping = box_iou(xyxy, fit.to_image(mirrored)) >= s.mirror.match_iou
        return np.where(overlapping, mirrored_conf[None, :], 0.0).max(axis=1, initial=0.0)

    def _letterboxed(self, image_bgr: np.ndarray) -> tuple[np.ndarray, Letterbox]:
        """The finder's input canvas of `image_bgr`; the last one is kept, so that the mirror check
        (`confidence_in_mirror`) does not shrink a 12-megapixel photo twice."""
        last = self._last_letterbox.kept
        if last is not None and last[0] is image_bgr:
            return last[1], last[2]
        canvas, fit = letterbox(image_bgr, self.finder.imgsz, self.finder.canvas_stride)
        self._last_letterbox.kept = (image_bgr, canvas, fit)
        return canvas, fit

    def read_crops(self, image_bgr: np.ndarray, boxes_xyxy: np.ndarray
                   ) -> tuple[np.ndarray, ClassifierReading | None]:
        """The classifier's crops of the boxes and what it reads in them (None when no crop was cut)."""
        crops = cut_tiles(image_bgr, boxes_xyxy, self.face_classifier.imgsz, self.settings)
        return crops, (self.face_classifier.read(crops) if len(crops) else None)

    def detect_decoded(self, decoded: DecodedImage) -> Detections:
        """Detect on a (possibly reduced) decoded image; boxes in the original photo's pixels."""
        dets = self.detect(decoded.bgr)
        sx, sy = decoded.scale_xy
        return dets if (sx, sy) == (1.0, 1.0) else dets.scaled(sx, sy)

    def detect_file(self, source: str | Path | bytes) -> tuple[Detections, tuple[int, int]]:
        """Read and detect a photo (big ones decoded reduced); boxes and size in original pixels."""
        decoded = decode_image(source, self.settings, reduce_to=self.settings.decode_long_side)
        return self.detect_decoded(decoded), decoded.original_wh


def _no_faces() -> FaceReading:
    """The reading of a photo with no face box."""
    none = np.zeros(0, np.float32)
    return FaceReading(np.zeros(0, np.int64), none, np.zeros(0, np.int64), none, False)
