"""The classifier's small ensemble member reads every crop first (`vision.models.FaceClassifier`): where it is
sure its reading stands, the other crops are read by the whole classifier, or by the ensemble's other member alone
(the mean of the two); members of another classifier are not used. `training.export` writes them beside every
ensemble it exports."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import onnx
import vision_fake_models as fakes
from detector_support import make_models, scene

from tileset.classes import FACE_NAMES
from training.export import merge_classifiers, write_members
from vision.detector import TileDetector
from vision.models import LARGE_MEMBER_METADATA, SMALL_MEMBER_METADATA, ensemble_key
from vision.settings import DetectorSettings

NAMES = list(reversed(FACE_NAMES))  # the order make_models' classifier has


def _metadata(path: Path) -> dict[str, str]:
    return {p.key: p.value for p in onnx.load(str(path)).metadata_props}


def _small_member(models: Path, weights: np.ndarray, of: dict[str, str] | None = None, large: bool = False) -> Path:
    """A small (or large) member that reads with `weights`, marked as the member of the folder's classifier (or of
    `of`)."""
    settings = DetectorSettings()
    path = fakes.fake_classifier(models / (settings.large_classifier_file if large else settings.small_classifier_file),
                                 NAMES, weights)
    model = onnx.load(str(path))
    model.metadata_props.add(key=LARGE_MEMBER_METADATA if large else SMALL_MEMBER_METADATA,
                             value=ensemble_key(of if of is not None else _metadata(models / "classifier.onnx")))
    onnx.save(model, str(path))
    return path


def _reads_red_as_1m_surely() -> np.ndarray:
    """Red crops read as 1m with a probability near 1; blue crops read with no preference (unsure)."""
    weights = np.zeros((3, len(NAMES)), np.float32)
    weights[:, NAMES.index("1m")] = [60.0, -30.0, -30.0]
    return weights


def test_the_small_members_sure_readings_stand_and_the_whole_classifier_reads_the_rest(tmp_path: Path) -> None:
    models = make_models(tmp_path / "models")  # its classifier reads red as C, blue as 1p
    assert TileDetector.load(models).detect(scene()).class_names == ["C", "1p", "back"]
    _small_member(models, _reads_red_as_1m_surely())
    detector = TileDetector.load(models)
    assert detector.classifier is not None and detector.classifier.small_member is not None
    assert detector.detect(scene()).class_names == ["1m", "1p", "back"]
    never_sure = TileDetector.load(models, replace(DetectorSettings(), small_member_sure=1.01))
    assert never_sure.detect(scene()).class_names == ["C", "1p", "back"]


def test_the_crops_the_small_member_is_unsure_of_read_as_the_mean_of_it_and_the_large_member(tmp_path: Path) -> None:
    models = make_models(tmp_path / "models")  # the whole classifier reads blue as 1p
    _small_member(models, _reads_red_as_1m_surely())  # blue: every face alike
    large = np.zeros((3, len(NAMES)), np.float32)
    large[:, NAMES.index("9p")] = [-20.0, -20.0, 40.0]  # blue as 9p
    _small_member(models, large, large=True)
    detector = TileDetector.load(models)
    assert detector.classifier is not None and detector.classifier.large_member is not None
    dets = detector.detect(scene())
    assert dets.class_names == ["1m", "9p", "back"]
    assert 0.45 < float(dets.confidence[1]) / 0.8 < 0.55  # the finder's 0.8 times the mean of about 1/42 and 1
    _small_member(models, large, of={"version": "another"}, large=True)
    assert TileDetector.load(models).detect(scene()).class_names == ["1m", "1p", "back"]  # the whole classifier again


def test_a_small_member_of_another_classifier_is_not_used(tmp_path: Path) -> None:
    models = make_models(tmp_path / "models")
    _small_member(models, _reads_red_as_1m_surely(), of={"version": "another", "date": "2020-01-01"})
    detector = TileDetector.load(models)
    assert detector.classifier is not None and detector.classifier.small_member is None
    assert detector.detect(scene()).class_names == ["C", "1p", "back"]


def test_every_ensemble_exported_gets_its_small_member_and_reads_as_before(tmp_path: Path) -> None:
    models = make_models(tmp_path / "models")
    weights = fakes.colour_classifier_weights(NAMES, "C", "1p")
    members = [fakes.fake_classifier(tmp_path / f"m{size}.onnx", NAMES, weights, imgsz=size) for size in (32, 16)]
    merge_classifiers(members, models / "classifier.onnx", ["large.pt", "small.pt"])
    small, large = write_members(models / "classifier.onnx")
    key = ensemble_key(_metadata(models / "classifier.onnx"))
    assert _metadata(small)[SMALL_MEMBER_METADATA] == key == _metadata(large)[LARGE_MEMBER_METADATA]
    assert "m1_" in {n.name[:3] for n in onnx.load(str(small)).graph.initializer}  # the 16 px member
    assert "m0_" in {n.name[:3] for n in onnx.load(str(large)).graph.initializer}  # the 32 px member
    detector = TileDetector.load(models)
    assert detector.classifier is not None and detector.classifier.small_member is not None
    assert detector.classifier.large_member is not None
    assert detector.detect(scene()).class_names == ["C", "1p", "back"]
