"""training.quantize: which nodes of a graph stay float (its tail after the last convolutions)."""

from __future__ import annotations

from onnx import helper

from training.quantize import float_tail


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
