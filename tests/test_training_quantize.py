"""training.quantize: which nodes of a graph stay float (its tail after the last convolutions), and the int8
folder it writes (the finder quantized, the classifier float unless asked)."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from detector_support import make_models, scene
from onnx import helper

from training.quantize import QUANTIZED_METADATA, QuantizeError, float_tail, quantize_folder
from vision.detector import TileDetector
from vision.settings import DetectorSettings


def _node(op: str, name: str, inputs: list[str]) -> object:
    return helper.make_node(op, inputs, [name], name=name)


def test_the_tail_after_the_last_convolutions_stays_float() -> None:
    nodes = [
        _node("Conv", "conv1", ["images", "w1"]),
        _node("Sigmoid", "act1", ["conv1"]),
        _node("Mul", "silu1", ["conv1", "act1"]),
        _node("Conv", "conv2", ["silu1", "w2"]),  # last convolution: its raw output is the head's
        _node("GlobalAveragePool", "pool", ["conv2"]),
        _node("Flatten", "flat", ["pool"]),
        _node("Softmax", "probs", ["flat"]),
    ]
    graph = helper.make_graph(nodes, "g", [], [])
    assert float_tail(graph) == ["conv2", "pool", "flat", "probs"]


def test_a_branch_that_meets_a_convolution_later_is_quantized() -> None:
    nodes = [
        _node("Conv", "a", ["images", "w"]),
        _node("Split", "split", ["a"]),
        _node("Concat", "joined", ["split", "a"]),
        _node("Conv", "b", ["joined", "w2"]),
        _node("Reshape", "decode", ["b"]),
    ]
    assert float_tail(helper.make_graph(nodes, "g", [], [])) == ["b", "decode"]


def _metadata(path: Path) -> dict[str, str]:
    return {p.key: p.value for p in onnx.load(str(path)).metadata_props}


def test_the_finder_is_quantized_and_the_classifier_kept_float_for_calibration(tmp_path: Path) -> None:
    models = make_models(tmp_path / "models")
    out = tmp_path / "int8"
    written = quantize_folder(models, out, [scene()] * 3, percentile=99.99)
    assert written == [out / "detector.onnx"]
    assert QUANTIZED_METADATA in _metadata(out / "detector.onnx")
    assert _metadata(out / "detector.onnx")["names"] == _metadata(models / "detector.onnx")["names"]
    assert (out / "classifier.onnx").read_bytes() == (models / "classifier.onnx").read_bytes()  # a head bakes into it
    float_reading = TileDetector.load(models, DetectorSettings()).detect(scene())
    int8_reading = TileDetector.load(out, DetectorSettings()).detect(scene())
    assert int8_reading.class_names == float_reading.class_names == ["C", "1p", "back"]


def test_the_classifier_too_when_asked_and_never_over_the_float_models(tmp_path: Path) -> None:
    models = make_models(tmp_path / "models")
    written = quantize_folder(models, tmp_path / "int8", [scene()] * 3, classifier_too=True)
    assert [p.name for p in written] == ["detector.onnx", "classifier.onnx"]
    assert QUANTIZED_METADATA in _metadata(tmp_path / "int8" / "classifier.onnx")
    with pytest.raises(QuantizeError, match="another folder"):
        quantize_folder(models, models, [scene()])
