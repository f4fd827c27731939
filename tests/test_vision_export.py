"""vision.export writes only its target: never the ONNX file shipped beside a checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("ultralytics")
onnx = pytest.importorskip("onnx")


def test_export_leaves_the_files_beside_the_checkpoint_alone(tmp_path: Path) -> None:
    from ultralytics import YOLO

    from vision.export import export_checkpoint
    from vision.train import _ultralytics_environment

    _ultralytics_environment()
    shipped = tmp_path / "models"
    shipped.mkdir()
    YOLO("yolo11n-cls.yaml").save(str(shipped / "classifier.pt"))
    (shipped / "classifier.onnx").write_bytes(b"the shipped model")
    target = tmp_path / "candidate" / "classifier.onnx"
    assert export_checkpoint(shipped / "classifier.pt", target, "classifier", dynamic=True) == target
    assert (shipped / "classifier.onnx").read_bytes() == b"the shipped model"
    assert sorted(p.name for p in shipped.iterdir()) == ["classifier.onnx", "classifier.pt"]
    metadata = {p.key: p.value for p in onnx.load(str(target)).metadata_props}
    assert metadata["mcr_role"] == "classifier" and metadata["mcr_source"] == str(shipped / "classifier.pt")
    assert sorted(p.name for p in target.parent.iterdir()) == ["classifier.onnx"]  # no partial file left
