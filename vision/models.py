"""The two ONNX models of the runtime: onnxruntime sessions, their metadata, and their class tables.

* `TileFinder`: `detector.onnx`, a YOLO detector with classes `tile` (face up) and
  `back`, or a single 43-class detector named like `tileset.classes.CLASS_NAMES`;
* `FaceClassifier`: `classifier.onnx`, a YOLO classifier for the 42 faces.

Class names, input sizes and versions come from the ONNX metadata that ultralytics
writes; names are checked against the canonical table on load (`ClassTableMismatch`).
"""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tileset.classes import BACK_ID, CLASS_ID, CLASS_NAMES, FACE_NAMES, FLOWER_NAMES, ClassTableMismatch, check_names
from vision.boxes import to_network_input
from vision.settings import DetectorSettings
from vision.timing import CLASSIFIER, FINDER, stage

TILE_FINDER_NAMES: tuple[str, ...] = ("tile", "back")


class ModelLoadError(RuntimeError):
    """A models folder without usable ONNX files."""


def read_metadata(session: Any) -> dict[str, Any]:
    """ultralytics' ONNX metadata (names, imgsz, task, version, date...) with Python values parsed."""
    raw = session.get_modelmeta().custom_metadata_map
    parsed: dict[str, Any] = {}
    for key, value in raw.items():
        try:
            parsed[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            parsed[key] = value
    return parsed


def class_names_of(metadata: dict[str, Any], what: str) -> tuple[str, ...]:
    """The class names a model's metadata lists, in column order; `ClassTableMismatch` when none."""
    from tileset.classes import ClassTableMismatch

    names = metadata.get("names")
    if isinstance(names, dict):
        return tuple(str(names[i]) for i in sorted(names))
    if isinstance(names, (list, tuple)):
        return tuple(str(n) for n in names)
    raise ClassTableMismatch(f"{what}: no class names in the model metadata")


def input_size_of(metadata: dict[str, Any], session: Any, what: str) -> int:
    """The square input size a model was trained at (metadata `imgsz`, else its fixed input shape)."""
    imgsz = metadata.get("imgsz")
    if isinstance(imgsz, (list, tuple)) and imgsz:
        return int(imgsz[0])
    if isinstance(imgsz, int):
        return imgsz
    shape = session.get_inputs()[0].shape
    if isinstance(shape[-1], int):
        return int(shape[-1])
    raise ModelLoadError(f"{what}: input size unknown (no imgsz in metadata, dynamic input)")


def canvas_stride_of(metadata: dict[str, Any], session: Any) -> int | None:
    """For a model exported with a dynamic input (its height and width unfixed): the multiple each side of its
    canvas must be (metadata `stride`, else 32); None for a fixed square input."""
    shape = session.get_inputs()[0].shape
    if len(shape) == 4 and isinstance(shape[2], int) and isinstance(shape[3], int):
        return None
    stride = metadata.get("stride", 32)
    return int(stride) if isinstance(stride, int) else 32


def open_session(path: Path, settings: DetectorSettings) -> Any:
    """An onnxruntime CPU session with the thread settings of `settings`; `ModelLoadError` when unreadable."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = settings.intra_op_threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    if not settings.intra_op_spinning:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types for broken files
        raise ModelLoadError(f"cannot load {path}: {error}") from None


def _version(metadata: dict[str, Any]) -> str:
    return f"{metadata.get('version', '?')} {metadata.get('date', '')}".strip()


class TileFinder:
    """The tile finder: a letterboxed photo in, YOLO head out; its classes in canonical ids."""

    def __init__(self, session: Any, path: str = "<memory>") -> None:
        self.session = session
        self.path = path
        metadata = read_metadata(session)
        self.names = class_names_of(metadata, f"detector {path}")
        self.imgsz = input_size_of(metadata, session, f"detector {path}")
        self.canvas_stride = canvas_stride_of(metadata, session)
        self.version = _version(metadata)
        self._input = session.get_inputs()[0].name
        if self.names == TILE_FINDER_NAMES:
            self.to_canonical: np.ndarray | None = None  # faces are named by a classifier
        else:
            check_names(self.names, CLASS_NAMES, f"detector {path}")
            self.to_canonical = np.arange(len(CLASS_NAMES))

    @property
    def names_faces(self) -> bool:
        """Whether this finder names each face itself (a 43-class detector) rather than finding tiles only."""
        return self.to_canonical is not None

    def run(self, canvas_bgr: np.ndarray) -> np.ndarray:
        """The raw YOLO head for one letterboxed BGR canvas (`imgsz` square, or each side a multiple of
        `canvas_stride` up to `imgsz` where the finder takes any size)."""
        with stage(FINDER):
            return self.session.run(None, {self._input: to_network_input(canvas_bgr[None])})[0]

    def is_face(self, classes: np.ndarray) -> np.ndarray:
        """Which of this finder's class ids are face-up tiles (not backs)."""
        if self.to_canonical is not None:
            return self.to_canonical[classes] != BACK_ID
        return classes == TILE_FINDER_NAMES.index("tile")


# the second output of a classifier calibrated with a few-shot head (`training.fewshot.bake`): (N,) how far
# each crop's nearest face of the set passes that face's threshold; far below 0, a crop looks like none
# of the set's tiles
LIKENESS_OUTPUT = "set_likeness"
FEWSHOT_METADATA = "mcr_fewshot"  # the metadata key a classifier with a few-shot head carries (`training.fewshot.bake`)
# another, where the head was baked on the classifier the version was calibrated from: (N, 42) that
# classifier's own probabilities, which read a photo of another set as before (no second classifier run).
# Outputs are found by name: other outputs of graphs calibrated before (the table's likeness, the margin
# over other sets' crops, the ungated probabilities) are left unread
BASE_OUTPUT = "base_probs"
SMALL_MEMBER_METADATA = "mcr_small_member_of"  # on a classifier's small member alone: `ensemble_key` of its ensemble
LARGE_MEMBER_METADATA = "mcr_large_member_of"  # on the other member of a two-member ensemble, alone


def ensemble_key(metadata: dict[str, Any]) -> str:
    """What tells one exported classifier from another: its version, date, checkpoints and members."""
    return " | ".join(str(metadata.get(k, "")) for k in ("version", "date", "mcr_source", "mcr_ensemble"))


class FaceClassifier:
    """The face classifier: square crops in, a probability for each of the 42 faces out."""

    def __init__(self, session: Any, path: str = "<memory>",
                 base_reader: FaceClassifier | None = None, small_member: FaceClassifier | None = None,
                 small_member_sure: float = 1.0, large_member: FaceClassifier | None = None) -> None:
        self.session = session
        self.path = path
        self.base_reader = base_reader  # the classifier it was calibrated from: reads other sets' photos
        metadata = read_metadata(session)
        names = class_names_of(metadata, f"classifier {path}")
        if sorted(names) != sorted(FACE_NAMES) or len(names) != len(FACE_NAMES):
            check_names(names, FACE_NAMES, f"classifier {path}")  # raises, listing the differences
        self.names = names
        self.imgsz = input_size_of(metadata, session, f"classifier {path}")
        self.version = _version(metadata)
        self.has_fewshot_head = FEWSHOT_METADATA in metadata  # calibrated from a photo (`training.fewshot`)
        self.to_canonical = np.array([CLASS_ID[n] for n in names], np.int64)
        self.flower_columns = np.array([n in FLOWER_NAMES for n in names])
        self._input = session.get_inputs()[0].name
        self._fixed_batch = isinstance(session.get_inputs()[0].shape[0], int)
        outputs = [o.name for o in session.get_outputs()]
        self._likeness_at = outputs.index(LIKENESS_OUTPUT) if LIKENESS_OUTPUT in outputs else None
        self._base_at = outputs.index(BASE_OUTPUT) if BASE_OUTPUT in outputs else None
        if base_reader is not None:
            if base_reader.imgsz != self.imgsz:
                raise ModelLoadError(f"{base_reader.path} reads {base_reader.imgsz} px crops, {path} {self.imgsz} px")
            self._base_columns = np.array([base_reader.names.index(n) for n in names])
        # the ensemble's small member reads every crop first; only the crops it is unsure of are read again
        self.small_member = small_member
        self.small_member_sure = small_member_sure
        if small_member is not None:
            if self.has_fewshot_head or len(outputs) != 1 or small_member.imgsz != self.imgsz:
                raise ModelLoadError(f"{small_member.path} cannot read first for {path}: a plain classifier of "
                                     f"{self.imgsz} px crops is needed")
            self._small_columns = np.array([small_member.names.index(n) for n in names])
        # with the other member alone beside it, the crops the small one is unsure of run that member only: the
        # mean of the two is what the ensemble's graph gives
        self.large_member = large_member if small_member is not None else None
        if self.large_member is not None:
            if self.large_member.imgsz != self.imgsz:
                raise ModelLoadError(f"{self.large_member.path} reads {self.large_member.imgsz} px crops, {path} {self.imgsz} px")
            self._large_columns = np.array([self.large_member.names.index(n) for n in names])

    @property
    def knows_its_set(self) -> bool:
        """Whether the classifier says how much a crop looks like its calibrated set (LIKENESS_OUTPUT)."""
        return self._likeness_at is not None

    def read_as_base(self, crops_bgr: np.ndarray) -> np.ndarray:
        """The probabilities the classifier this one was calibrated from gives crops, in this model's columns."""
        assert self.base_reader is not None
        return self.base_reader.probabilities(crops_bgr)[:, self._base_columns]

    def probabilities(self, crops_bgr: np.ndarray) -> np.ndarray:
        """(N, 42) class probabilities, in this model's column order, of (N, imgsz, imgsz, 3) BGR crops."""
        return self.read(crops_bgr)[0]

    @property
    def reads_as_base(self) -> bool:
        """Whether it can read crops as the classifier it was calibrated from: its own BASE_OUTPUT, or
        that classifier beside it (`base_reader`)."""
        return self._base_at is not None or self.base_reader is not None

    def _run(self, batch: np.ndarray) -> list[list[np.ndarray]]:
        if self._fixed_batch:
            return [self.session.run(None, {self._input: b[None]}) for b in batch]
        return [self.session.run(None, {self._input: batch})]

    def _small_member_first(self, batch: np.ndarray) -> np.ndarray:
        """The small member's probabilities where it is sure; elsewhere the mean of its and the large member's (what
        the ensemble's graph gives), or without the large member alone, the whole classifier's."""
        assert self.small_member is not None
        probs = np.concatenate([o[0] for o in self.small_member._run(batch)])[:, self._small_columns]
        unsure = probs.max(axis=1, initial=0.0) < self.small_member_sure
        if unsure.any() and self.large_member is not None:
            large = np.concatenate([o[0] for o in self.large_member._run(batch[unsure])])[:, self._large_columns]
            probs[unsure] = (probs[unsure] + large) / 2
        elif unsure.any():
            probs[unsure] = np.concatenate([o[0] for o in self._run(batch[unsure])])
        return probs

    def read(self, crops_bgr: np.ndarray) -> ClassifierReading:
        """The probabilities of `probabilities`, each crop's likeness to the calibrated set (LIKENESS_OUTPUT;
        +inf for a classifier that was not calibrated with a few-shot head) and, where the graph has BASE_OUTPUT,
        the probabilities of the classifier it was calibrated from (None without)."""
        with stage(CLASSIFIER):
            batch = to_network_input(crops_bgr)
            outs = self._run(batch) if self.small_member is None else [[self._small_member_first(batch)]]
        probs = np.concatenate([o[0] for o in outs])

        def output(at: int | None, absent: float) -> np.ndarray:
            if at is None:
                return np.full(len(probs), absent, np.float32)
            return np.concatenate([np.ravel(o[at]) for o in outs]).astype(np.float32)

        def rows(at: int | None) -> np.ndarray | None:  # an output the graph may lack, one row per crop
            return None if at is None else np.concatenate([o[at] for o in outs])

        return ClassifierReading(probs, output(self._likeness_at, np.inf), rows(self._base_at))


class ClassifierReading(NamedTuple):
    probs: np.ndarray  # (N, 42)
    likeness: np.ndarray  # (N,)
    base_probs: np.ndarray | None  # (N, 42) in the same columns, where the graph has BASE_OUTPUT


@dataclass(frozen=True)
class ModelInfo:
    """What the app and the reports show about the loaded models."""

    detector_path: str
    detector_imgsz: int
    detector_names: tuple[str, ...]
    classifier_path: str | None
    classifier_imgsz: int | None
    versions: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {
            "detector": {"path": self.detector_path, "imgsz": self.detector_imgsz, "names": list(self.detector_names)},
            "classifier": None
            if self.classifier_path is None
            else {"path": self.classifier_path, "imgsz": self.classifier_imgsz},
            "versions": self.versions,
        }


def load_models(models_dir: str | Path, settings: DetectorSettings) -> tuple[TileFinder, FaceClassifier | None]:
    """The finder (and the classifier, when the finder only finds tiles) of a models folder."""
    folder = Path(models_dir)
    finder_path = folder / settings.detector_file
    if not finder_path.is_file():
        raise ModelLoadError(f"no detector model at {finder_path}")
    classifier_path = folder / settings.classifier_file
    # the finder's session is made on another thread while the classifier's are (onnxruntime lets go of Python's
    # lock while it optimises a graph): a command's start-up waits for the slower, not for both
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="finder-load") as pool:
        finder_session = pool.submit(open_session, finder_path, settings)
        classifier, unloadable = None, None
        try:
            classifier = _load_classifier(folder, classifier_path, settings) if classifier_path.is_file() else None
        except (ModelLoadError, ClassTableMismatch) as error:
            unloadable = error
        finder = TileFinder(finder_session.result(), str(finder_path))  # a broken finder is named first
    if finder.names_faces:  # a 43-class detector needs no classifier
        return finder, None
    if unloadable is not None:
        raise unloadable
    if classifier is None:
        raise ModelLoadError(f"detector {finder_path} only finds tiles; a classifier model is needed too")
    return finder, classifier


def _load_classifier(folder: Path, classifier_path: Path, settings: DetectorSettings) -> FaceClassifier:
    """The classifier of a models folder, with the classifier it was calibrated from and its ensemble's members."""
    session = open_session(classifier_path, settings)
    base_path = folder / settings.base_classifier_file
    in_graph = BASE_OUTPUT in [o.name for o in session.get_outputs()]  # no second classifier to load
    metadata = read_metadata(session)
    base_reader = (FaceClassifier(open_session(base_path, settings), str(base_path))
                   if not in_graph and base_path.is_file() and FEWSHOT_METADATA in metadata else None)
    return FaceClassifier(session, str(classifier_path), base_reader,
                          _member(folder / settings.small_classifier_file, SMALL_MEMBER_METADATA, metadata, settings),
                          settings.small_member_sure,
                          _member(folder / settings.large_classifier_file, LARGE_MEMBER_METADATA, metadata, settings))


def _member(path: Path, key: str, classifier_metadata: dict[str, Any], settings: DetectorSettings) -> FaceClassifier | None:
    """The member of the classifier beside it at `path`, when it says (its metadata `key`) that it is one of that
    very classifier (a classifier replaced since, or one with a few-shot head, reads every crop itself)."""
    if not path.is_file() or FEWSHOT_METADATA in classifier_metadata:
        return None
    session = open_session(path, settings)
    if read_metadata(session).get(key) != ensemble_key(classifier_metadata):
        return None
    return FaceClassifier(session, str(path))
