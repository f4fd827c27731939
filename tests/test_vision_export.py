"""training.export writes only its target: never the ONNX file shipped beside a checkpoint."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest

pytest.importorskip("ultralytics", reason="ultralytics is in the train extra")


def test_export_leaves_the_files_beside_the_checkpoint_alone(tmp_path: Path) -> None:
    from ultralytics import YOLO

    from training.export import export_checkpoint
    from training.train import _ultralytics_environment

    _ultralytics_environment()
    shipped = tmp_path / "models"
    shipped.mkdir()
    YOLO("yolo11n-cls.yaml").save(str(shipped / "classifier.pt"))
    (shipped / "classifier.onnx").write_bytes(b"the shipped model")
    target = tmp_path / "candidate" / "classifier.onnx"
    assert export_checkpoint(shipped / "classifier.pt", target, "classifier") == target
    assert (shipped / "classifier.onnx").read_bytes() == b"the shipped model"
    assert sorted(p.name for p in shipped.iterdir()) == ["classifier.onnx", "classifier.pt"]
    metadata = {p.key: p.value for p in onnx.load(str(target)).metadata_props}
    assert metadata["mcr_role"] == "classifier" and metadata["mcr_source"] == str(shipped / "classifier.pt")
    assert sorted(p.name for p in target.parent.iterdir()) == ["classifier.onnx"]  # no partial file left


def test_an_ensemble_of_classifiers_is_one_onnx_that_averages_its_members(tmp_path: Path) -> None:
    import numpy as np
    import onnxruntime as ort

    from tests import vision_fake_models as fakes
    from tileset.classes import FACE_NAMES
    from training.export import ExportError, merge_classifiers

    names = list(FACE_NAMES)
    big = fakes.fake_classifier(tmp_path / "big.onnx", names, fakes.colour_classifier_weights(names, "C", "1p"), imgsz=48)
    small = fakes.fake_classifier(tmp_path / "small.onnx", names, fakes.colour_classifier_weights(names, "F", "9s"), imgsz=32)
    target = tmp_path / "models" / "classifier.onnx"
    merge_classifiers([big, small], target, ["big.pt", "small.pt"])

    merged = onnx.load(str(target))
    metadata = {p.key: p.value for p in merged.metadata_props}
    assert metadata["imgsz"] == "[48, 48]" and metadata["names"] == str(dict(enumerate(names)))
    assert metadata["mcr_source"] == "big.pt + small.pt" and metadata["mcr_ensemble"] == "48 px + 32 px"
    weights = [i for i in merged.graph.initializer if np.prod(i.dims) >= 16]
    assert weights and {i.data_type for i in weights} == {onnx.TensorProto.FLOAT16}  # cast back to float on load

    def run(path: Path, size: int) -> np.ndarray:
        red = np.zeros((2, 3, size, size), np.float32)
        red[:, 0] = 0.9  # network input is RGB: channel 0 is red
        return ort.InferenceSession(str(path)).run(None, {"images": red})[0]

    together = run(target, 48)  # the 32 px member gets the crop resized inside the graph
    np.testing.assert_allclose(together, (run(big, 48) + run(small, 32)) / 2, atol=1e-3)
    assert together.shape == (2, len(names)) and np.allclose(together.sum(axis=1), 1.0, atol=1e-4)
    assert together[0, names.index("C")] == pytest.approx(0.5, abs=0.05)  # each member's red class gets half
    assert together[0, names.index("F")] == pytest.approx(0.5, abs=0.05)

    other = fakes.fake_classifier(tmp_path / "other.onnx", names[::-1],
                                  fakes.colour_classifier_weights(names[::-1], "C", "1p"), imgsz=32)
    with pytest.raises(ExportError, match="same class table"):
        merge_classifiers([big, other], tmp_path / "bad.onnx", ["big.pt", "other.pt"])
