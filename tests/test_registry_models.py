"""`--models DIR` reads DIR's version in use, not DIR's shipped files (contracts.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.calibrate_support import layout_boxes, layout_finder, layout_models, write_photo
from vision.registry import Registry


def test_evaluate_models_dir_reads_the_version_in_use(tmp_path: Path, capsys) -> None:
    from training.evaluate import main

    root = layout_models(tmp_path / "models")
    registry = Registry(root)
    version = registry.new_version_dir("club")
    for model in root.glob("*.onnx"):
        shutil.copy(model, version / model.name)
    registry.activate(version.name)
    data = tmp_path / "data"
    (data / "images").mkdir(parents=True)
    (data / "labels").mkdir()
    write_photo(data / "images" / "a.png", layout_boxes())
    (data / "labels" / "a.txt").write_text("")
    assert main([str(data), "--models", str(root), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["models"]["detector"]["path"] == str(version / "detector.onnx")
    registry.back()
    assert main([str(data), "--models", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["models"]["detector"]["path"] == str(root / "detector.onnx")


def test_detect_and_read_models_dir_read_the_version_in_use(tmp_path: Path, capsys) -> None:
    from vision.__main__ import main

    root = layout_models(tmp_path / "models")
    registry = Registry(root)
    version = registry.new_version_dir("finds-nothing")
    layout_finder(version / "detector.onnx", tile_confidence=0.0)
    shutil.copy(root / "classifier.onnx", version / "classifier.onnx")
    photo = write_photo(tmp_path / "a.png", layout_boxes())

    def tiles_found(*command: str) -> int:
        assert main([*command, str(photo), "--models", str(root)]) == 0
        return len(json.loads(capsys.readouterr().out.strip().splitlines()[-1])["tiles"])

    assert tiles_found("detect") == 42
    registry.activate(version.name)
    assert tiles_found("detect") == 0
    assert tiles_found("read") == 0
