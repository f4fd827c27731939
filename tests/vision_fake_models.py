"""Tiny hand-built ONNX models that behave like the exported YOLO models, for runtime tests.

* `fake_finder`: a "detector" whose raw head output (1, 4 + nc, anchors) is a
  fixed array given by the test (the input only enters multiplied by zero);
* `fake_classifier`: mean colour of the crop -> logits, so a red crop reads as
  one class and a blue crop as another.

Metadata is written the way ultralytics writes it (`names` as a dict literal,
`imgsz` as a list literal).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


def _save(graph: onnx.GraphProto, path: Path, names: list[str] | tuple[str, ...], imgsz: int, task: str) -> Path:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    helper.set_model_props(
        model,
        {
            "names": str(dict(enumerate(names))),
            "imgsz": str([imgsz, imgsz]),
            "task": task,
            "version": "test",
            "date": "2026-01-01",
        },
    )
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def fake_finder(path: Path, raw_output: np.ndarray, names=("tile", "back"), imgsz: int = 64) -> Path:
    """A detector that always answers `raw_output` (shape (1, 4 + len(names), anchors))."""
    raw_output = np.asarray(raw_output, np.float32)
    assert raw_output.shape[1] == 4 + len(names)
    nodes = [
        helper.make_node("ReduceSum", ["images"], ["total"], keepdims=0),
        helper.make_node("Mul", ["total", "zero"], ["nothing"]),
        helper.make_node("Add", ["answer", "nothing"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes,
        "fake_finder",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(raw_output.shape))],
        initializer=[
            numpy_helper.from_array(raw_output, "answer"),
            numpy_helper.from_array(np.zeros((), np.float32), "zero"),
        ],
    )
    return _save(graph, path, list(names), imgsz, "detect")


def colour_classifier_weights(names: list[str], red_class: str, blue_class: str) -> np.ndarray:
    """(3, nc) weights on mean R, G, B: red crops -> `red_class`, blue crops -> `blue_class`."""
    weights = np.zeros((3, len(names)), np.float32)
    weights[:, names.index(red_class)] = [40.0, -20.0, -20.0]
    weights[:, names.index(blue_class)] = [-20.0, -20.0, 40.0]
    return weights


def fake_classifier(path: Path, names: list[str], weights: np.ndarray, imgsz: int = 32) -> Path:
    """Dynamic-batch classifier: softmax(mean colour @ weights)."""
    nodes = [
        helper.make_node("GlobalAveragePool", ["images"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("MatMul", ["flat", "weights"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "fake_classifier",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", len(names)])],
        initializer=[numpy_helper.from_array(np.asarray(weights, np.float32), "weights")],
    )
    return _save(graph, path, names, imgsz, "classify")


def centred(boxes_xyxy: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Boxes as `raw_head` takes them (centre x, centre y, width, height) from corner boxes."""
    return [((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0) for x0, y0, x1, y1 in boxes_xyxy]


def raw_head(boxes_cxcywh: list[tuple[float, float, float, float]], class_scores: list[list[float]],
             anchors: int = 20) -> np.ndarray:
    """A YOLO head output (1, 4 + nc, anchors) holding the given boxes; the other anchors score 0."""
    nc = len(class_scores[0])
    out = np.zeros((1, 4 + nc, anchors), np.float32)
    out[0, :4, :] = 1.0  # harmless tiny boxes with zero score
    for i, (box, scores) in enumerate(zip(boxes_cxcywh, class_scores, strict=False)):
        out[0, :4, i] = box
        out[0, 4:, i] = scores
    return out
