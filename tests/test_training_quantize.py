"""training.quantize: which nodes of a graph stay float (its tail after the last convolutions), and the int8
folder it writes (the finder quantized, the classifier float unless asked)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from detector_support import make_models, scene
from onnx import helper, numpy_helper

from training.quantize import (
    CROP_BATCH,
    QUANTIZED_METADATA,
    QuantizeError,
    calibration_inputs,
    float_tail,
    quantize_folder,
    quantize_model,
)
from vision.detector import TileDetector
from vision.models import LARGE_MEMBER_METADATA, SMALL_MEMBER_METADATA, ensemble_key
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


def _with_members(models: Path) -> Path:
    """The folder's classifier copied as its small and large member alone, each marked as that classifier's."""
    settings = DetectorSettings()
    key = ensemble_key(_metadata(models / "classifier.onnx"))
    for name, mark in ((settings.small_classifier_file, SMALL_MEMBER_METADATA),
                       (settings.large_classifier_file, LARGE_MEMBER_METADATA)):
        member = onnx.load(str(models / "classifier.onnx"))
        member.metadata_props.add(key=mark, value=key)
        onnx.save(member, str(models / name))
    return models


def test_the_members_too_when_asked_still_marked_as_the_classifiers_and_read_with(tmp_path: Path) -> None:
    models = _with_members(make_models(tmp_path / "models"))
    out = tmp_path / "int8"
    written = quantize_folder(models, out, [scene()] * 3, members_too=True)
    assert [p.name for p in written] == ["detector.onnx", "classifier_small.onnx", "classifier_large.onnx"]
    for member, mark in (("classifier_small.onnx", SMALL_MEMBER_METADATA), ("classifier_large.onnx", LARGE_MEMBER_METADATA)):
        metadata = _metadata(out / member)
        assert QUANTIZED_METADATA in metadata
        assert metadata[mark] == ensemble_key(_metadata(out / "classifier.onnx"))  # the runtime still takes it
    assert (out / "classifier.onnx").read_bytes() == (models / "classifier.onnx").read_bytes()
    detector = TileDetector.load(out, DetectorSettings())
    assert detector.face_classifier.small_member is not None and detector.face_classifier.large_member is not None
    assert detector.detect(scene()).class_names == ["C", "1p", "back"]


def test_members_asked_for_where_there_are_none_is_refused(tmp_path: Path) -> None:
    with pytest.raises(QuantizeError, match=r"--members: no classifier_small\.onnx"):
        quantize_folder(make_models(tmp_path / "models"), tmp_path / "int8", [scene()], members_too=True)


def test_the_classifiers_calibration_batches_are_of_one_size(tmp_path: Path) -> None:
    """onnxruntime's percentile calibration stacks the batches: a short last one would fail it."""
    models = make_models(tmp_path / "models")  # two faces a scene
    _, batches = calibration_inputs([scene()] * (CROP_BATCH // 2 + 3), models)
    assert [len(b) for b in batches] == [CROP_BATCH]
    _, few = calibration_inputs([scene()] * 2, models)
    assert [len(b) for b in few] == [4]


def _three_convolutions(path: Path) -> Path:
    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.normal(size=shape).astype(np.float32), name)
               for name, shape in [("w1", (4, 3, 3, 3)), ("w2", (4, 4, 1, 1)), ("w3", (2, 4, 1, 1))]]
    nodes = [helper.make_node("Conv", ["images", "w1"], ["c1"], name="/first/conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"], name="/first/act"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], name="/middle/conv"),
             helper.make_node("Relu", ["c2"], ["r2"], name="/middle/act"),
             helper.make_node("Conv", ["r2", "w3"], ["out"], name="/last/conv")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("images", onnx.TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("out", onnx.TensorProto.FLOAT, [1, 2, 8, 8])], weights)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def _quantized_weights(path: Path) -> dict[str, bool]:
    """Each convolution of the graph at `path`: whether its weight arrives through a DequantizeLinear."""
    model = onnx.load(str(path))
    dequantized = {out for node in model.graph.node if node.op_type == "DequantizeLinear" for out in node.output}
    return {node.name: node.input[1] in dequantized for node in model.graph.node if node.op_type == "Conv"}


def test_nodes_named_by_keep_float_stay_float_and_a_wrong_name_is_refused(tmp_path: Path) -> None:
    source = _three_convolutions(tmp_path / "f.onnx")
    batches = [np.random.default_rng(i).random((1, 3, 8, 8), np.float32) for i in range(4)]
    quantize_model(source, tmp_path / "all.onnx", batches)
    assert _quantized_weights(tmp_path / "all.onnx") == {"/first/conv": True, "/middle/conv": True, "/last/conv": False}
    quantize_model(source, tmp_path / "kept.onnx", batches, keep_float=("/first/",))
    assert _quantized_weights(tmp_path / "kept.onnx") == {"/first/conv": False, "/middle/conv": True, "/last/conv": False}
    with pytest.raises(QuantizeError, match="no node of the graph is named so"):
        quantize_model(source, tmp_path / "bad.onnx", batches, keep_float=("/model.99/",))


def test_a_wrong_keep_float_name_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    models = make_models(tmp_path / "models")
    with pytest.raises(QuantizeError, match="no node of the graph is named so"):
        quantize_folder(models, tmp_path / "int8", [scene()], keep_float=("/model.99/",))
    assert not (tmp_path / "int8").exists()
