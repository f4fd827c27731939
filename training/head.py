"""The few-shot head learned from a calibration's crops (`training.augment`): the classifier's pooled
features (`Embedder`), each face's prototypes, the blend with the classifier chosen on held-out copies
(never changing how a base crop reads)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tileset.classes import CLASS_ID
from training.augment import LearningCrops
from training.fewshot import EPS, FewShotHead, prototypes_from, with_features
from vision.settings import CalibrateSettings, DetectorSettings

DEFAULT = CalibrateSettings()


class Embedder:
    """The classifier's probabilities and pooled features (`training.fewshot.with_features`), by onnxruntime."""

    def __init__(self, classifier_onnx: Path, threads: int) -> None:
        import onnxruntime as ort

        from vision.models import class_names_of, read_metadata

        graph, self.members = with_features(classifier_onnx)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        self.session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        self.names = class_names_of(read_metadata(self.session), str(classifier_onnx))
        self.to_canonical = np.array([CLASS_ID[n] for n in self.names], np.int64)
        self.input = self.session.get_inputs()[0].name
        self.fixed_batch = isinstance(self.session.get_inputs()[0].shape[0], int)

    def __call__(self, crops: np.ndarray, batch: int = 64) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities and features of (N, S, S, 3) uint8 BGR crops."""
        from vision.boxes import to_network_input

        probs, feats = [], []
        for start in range(0, len(crops), batch):
            p, f = self.run_inputs(to_network_input(crops[start:start + batch]))
            probs.append(p)
            feats.append(f)
        return np.concatenate(probs), np.concatenate(feats)

    def run_inputs(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities and features of network inputs (N, 3, S, S) float32."""
        step = 1 if self.fixed_batch else max(1, len(inputs))
        outs = [self.session.run(None, {self.input: inputs[k:k + step]}) for k in range(0, len(inputs), step)]
        return np.concatenate([o[0] for o in outs]), np.concatenate([o[1] for o in outs])

    def column_of(self, canonical_ids: np.ndarray) -> np.ndarray:
        """Classifier columns of canonical face ids."""
        lookup = {int(c): k for k, c in enumerate(self.to_canonical)}
        return np.array([lookup[int(c)] for c in canonical_ids], np.int64)


@dataclass(frozen=True)
class BlendChoice:
    scale: float
    margin: float  # added to each face's threshold
    thresholds: np.ndarray | None
    check_accuracy: float  # held-out copies of the calibration photo, crop by crop
    base_crops: int  # base crops (the threshold photos'), each read as the classifier alone reads it
    classifier_check_accuracy: float  # the held-out copies without the head


def face_thresholds(prototypes: np.ndarray, base_cosines: np.ndarray | None, margin: float) -> np.ndarray | None:
    """Per face: the highest cosine with its prototypes of any base crop (`base_cosines`: FewShotHead.cosines
    of the base crops), plus `margin` (faces without prototypes: never): the head never acts on another
    set's crops, so they read exactly as before. A threshold over the crops read as other faces only read 1.4
    points more of this set's held-out copies right, but made the base crops read as that face surer,
    skipping second readings that had put some right (kde-traditional: base val 97.09 -> 96.42 %). None
    without base crops (every face open)."""
    if base_cosines is None or len(base_cosines) == 0:
        return None
    present = np.abs(prototypes).sum(axis=(0, 2)) > 0
    return np.where(present, base_cosines.max(axis=0) + margin, np.inf).astype(np.float32)


def choose_blend(prototypes: np.ndarray, members: int, check: tuple[np.ndarray, np.ndarray, np.ndarray],
                 base: tuple[np.ndarray, np.ndarray] | None,
                 settings: CalibrateSettings = DEFAULT) -> BlendChoice:
    """The (scale, threshold margin) that reads the held-out copies best, among those that leave the
    reading of every base crop as the classifier alone reads it (another set's tiles must not turn into
    this set's faces); ties: the surer right readings (mean log-probability of the true face), then the
    larger margin. `check`: (probs, features, true classifier columns); `base`: (probs, features)."""
    check_probs, check_feats, truth = check
    plain = FewShotHead(prototypes, members, 0.0, 1.0)
    check_cos = plain.cosines(check_feats)  # the cosines depend on the prototypes only: once for every blend tried
    base_cos = None if base is None else plain.cosines(base[1])

    def figures(head: FewShotHead) -> tuple[np.ndarray, float]:
        out = head.blend_cosines(check_probs, check_cos)
        return out.argmax(axis=1) == truth, float(np.mean(np.log(out[np.arange(len(truth)), truth] + EPS)))

    check_plain = float(figures(plain)[0].mean())
    base_read = None if base is None else base[0].argmax(axis=1)
    best = None
    for margin in settings.margins:
        thresholds = face_thresholds(prototypes, base_cos, margin)
        for scale in (0.0, *settings.scales):
            head = FewShotHead(prototypes, members, scale, 1.0, thresholds)
            right, sureness = figures(head)
            if base is not None and base_cos is not None and (head.blend_cosines(base[0], base_cos).argmax(axis=1) != base_read).any():
                continue
            key = (float(right.mean()), sureness, margin)
            if best is None or key > best[0]:
                best = (key, scale, margin, thresholds)
    assert best is not None  # scale 0 is the classifier itself
    (got_check, _, _), scale, margin, thresholds = best
    return BlendChoice(scale, margin, thresholds, got_check, 0 if base is None else len(base[0]), check_plain)


class _CropRecorder:
    """Stands in for the version in use's face classifier and keeps every crop it is given to read, whichever of
    its sessions then reads it: the ensemble's graph, or its members alone (the small member first, the large one
    on the crops it is unsure of). The sessions themselves are not watched: which of them runs depends on the
    members shipped beside the classifier, and a session never run would record nothing."""

    def __init__(self, classifier: Any) -> None:
        self.classifier = classifier
        self.crops: list[np.ndarray] = []

    def read(self, crops_bgr: np.ndarray) -> Any:
        self.crops.append(np.array(crops_bgr, copy=True))
        return self.classifier.read(crops_bgr)

    def probabilities(self, crops_bgr: np.ndarray) -> np.ndarray:
        return np.asarray(self.read(crops_bgr)[0])

    def __getattr__(self, name: str) -> Any:
        return getattr(self.classifier, name)


def base_crops(embedder: Embedder, models_dir: Path, images: Sequence[Path], settings: DetectorSettings,
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """(probs, features) of every crop the runtime cuts from base photos (another set's tiles, false
    boxes included), recorded from what the version in use's classifier is given to read while that version
    reads them; None when it cut none."""
    from vision.detector import TileDetector

    detector = TileDetector.load(models_dir, settings)
    assert detector.classifier is not None
    recorder = _CropRecorder(detector.classifier)
    detector.classifier = recorder  # type: ignore[assignment]
    for image in images:
        try:
            detector.detect_file(image)
        except ValueError:  # an unreadable photo
            continue
    if not recorder.crops:
        return None
    return embedder(np.concatenate(recorder.crops))


@dataclass(frozen=True)
class HeadData:
    """What a few-shot head is learned from, besides the classifier that reads the crops."""

    crops: LearningCrops
    base_models: Path  # the version in use: the base crops are those its runtime cuts from `threshold_photos`
    threshold_photos: Sequence[Path]  # base photos that set the faces' thresholds
    detector_settings: DetectorSettings
    crop_size: int  # the classifier's input side


def learn_head(embedder: Embedder, data: HeadData, settings: CalibrateSettings, seed: int,
               step: Callable[[float, str], None], label: str) -> tuple[BlendChoice, FewShotHead]:
    """The few-shot head on the classifier `embedder` reads, from `data`'s crops; `label` starts its line of
    the report."""
    crops = data.crops
    _, train_feats = embedder(crops.train)
    check_probs, check_feats = embedder(crops.check)
    columns = embedder.column_of(crops.train_labels)
    prototypes = _prototypes(embedder, train_feats, columns, crops.train_ways, settings, seed)
    base = (base_crops(embedder, data.base_models, data.threshold_photos, data.detector_settings)
            if data.threshold_photos else None)
    check = (check_probs, check_feats, embedder.column_of(crops.check_labels))
    choice = choose_blend(prototypes, embedder.members, check, base, settings)
    step(0.65, f"{label} few-shot head: scale {choice.scale:g}, threshold margin {choice.margin:g}; "
               f"held-out copies {choice.classifier_check_accuracy:.2%} -> {choice.check_accuracy:.2%} read "
               f"right; every one of {choice.base_crops} base crops read as before")
    return choice, FewShotHead(prototypes, embedder.members, choice.scale, 1.0, choice.thresholds)


def _prototypes(embedder: Embedder, features: np.ndarray, columns: np.ndarray, ways: np.ndarray,
                settings: CalibrateSettings, seed: int) -> np.ndarray:
    return prototypes_from(features, columns, ways, len(embedder.names), embedder.members, settings.clusters, seed)
