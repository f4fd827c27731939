"""A few-shot head for the face classifier: one set's own faces, learned from its calibration photo.

The face classifier (a YOLO classify model, or an ensemble of them averaged inside one ONNX graph)
ends in global pooling, a linear layer and a softmax. The pooled features of a crop say what it
looks like; the mean features of a face's crops from the calibration photo (its *prototype*) say
what that face looks like in this set. The head reads a crop as

    p = softmax(keep * log(p_classifier) + scale * gate * cosine(features, prototypes))
    gate[face] = 1 when the cosine with that face passes its threshold, else 0

a product of the two experts: where they agree the reading stays as sure as the classifier's, so
the runtime's confidence thresholds keep their meaning. A face's threshold is the highest cosine
with its prototypes of any crop of another set (the base val photos): the head leaves another
set's tiles exactly as the classifier reads them. (An ungated head read 2-3 % fewer base val
crops right; one gate for all faces read a point fewer of this set's own held-out copies.) Each ensemble member's
features are normalised on their own and the cosines averaged over the members; a face has a few
prototypes per way up (upright, upside down: a tile lying sideways is turned upright either way;
k-means clusters of its crops: large and sharp, small and blurred...) and its cosine is the
largest. A face with no prototype (a set without flowers) has cosine 0 and is never gated open.

The thresholds make the gate strict: the highest cosine any other set's crop reached shuts it on many of a
set's small or blurred tiles, which the classifier then reads alone. A photo most of whose boxes pass a
gate is a photo of the set (`vision.rules.of_the_set`); another set's photo reads as the classifier alone
reads it (BASE_OUTPUT).

The head is written into the classifier's ONNX graph (`bake`): a calibrated version's
`classifier.onnx` is a drop-in classifier, so the runtime (`vision.detector`) reads it like any
other, with no code of its own. `onnx` is needed to edit graphs (calibration), never to run them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.models import BASE_OUTPUT, FEWSHOT_METADATA, LIKENESS_OUTPUT

FEATURES_OUTPUT = "features"  # the extra output of `with_features`: (N, members x D), each member's part L2-normalised
PROTOTYPES_FILE = "prototypes.npz"
EPS = 1e-6  # keeps log(p) finite


class FewShotError(RuntimeError):
    """A classifier graph the head cannot be attached to, said plainly."""


@dataclass(frozen=True)
class FewShotHead:
    """Class prototypes (ways up, classes, members x D; rows of absent classes are zero) and the blend."""

    prototypes: np.ndarray  # float32 (K, C, F): per member, the normalised mean of normalised features
    members: int  # ensemble members whose features are concatenated
    scale: float  # weight of the cosines in the logits
    keep: float  # weight of the classifier's log-probabilities in the logits
    thresholds: np.ndarray | None = None  # (C,) the cosine a crop must pass for the head to name that face

    def cosines(self, features: np.ndarray) -> np.ndarray:
        """(N, C) cosine of each crop with each face's nearer prototype, averaged over the ensemble members."""
        feats = np.asarray(features, np.float32)
        return np.max(np.stack([feats @ p.T for p in self.prototypes]), axis=0) / self.members

    def blend(self, probs: np.ndarray, features: np.ndarray) -> np.ndarray:
        """The head's class probabilities for crops read as `probs` with these `features`."""
        return self.blend_cosines(probs, self.cosines(features))

    def blend_cosines(self, probs: np.ndarray, cos: np.ndarray) -> np.ndarray:
        """`blend` of crops whose `cosines` are known (they depend on the prototypes alone, not on the
        scale or thresholds: a search over those computes them once).

        The gate is the crop's: a crop that passes any face's threshold has every face's cosine added. A gate
        per face added the cosine of the faces passed alone, and a crop passing the wrong face's threshold
        was read as it: on gnome-smooth's scenes f2 crops passing only f3's read right 4.8 %."""
        gate = (np.ones((len(cos), 1), np.float32) if self.thresholds is None
                else (cos > self.thresholds[None, :]).any(axis=1, keepdims=True).astype(np.float32))
        logits = self.keep * np.log(np.asarray(probs, np.float32) + EPS) + self.scale * gate * cos
        logits -= logits.max(axis=1, keepdims=True)
        out = np.exp(logits)
        return out / out.sum(axis=1, keepdims=True)

    def save(self, path: Path) -> None:
        np.savez(path, prototypes=self.prototypes, members=self.members, scale=self.scale, keep=self.keep,
                 thresholds=self.open_thresholds())

    @staticmethod
    def load(path: Path) -> FewShotHead:
        """A head saved by `save`; the other arrays a head saved by an earlier calibration may hold (its
        table, other sets' crops, a whitened reading) are not read."""
        data = np.load(path)
        return FewShotHead(data["prototypes"].astype(np.float32), int(data["members"]), float(data["scale"]),
                           float(data["keep"]), data["thresholds"].astype(np.float32))

    def open_thresholds(self) -> np.ndarray:
        """The thresholds, every face open (-2: below any cosine) when there are none."""
        classes = self.prototypes.shape[1]
        return np.full(classes, -2.0, np.float32) if self.thresholds is None else self.thresholds.astype(np.float32)


def normalised(features: np.ndarray, members: int) -> np.ndarray:
    """Each ensemble member's part of the features scaled to unit length."""
    features = np.asarray(features, np.float32)
    parts = features.reshape(len(features), members, -1)
    return (parts / np.maximum(np.linalg.norm(parts, axis=2, keepdims=True), 1e-9)).reshape(features.shape)


def prototypes_from(features: np.ndarray, labels: np.ndarray, ways: np.ndarray, classes: int, members: int,
                    clusters: int = 1, seed: int = 0) -> np.ndarray:
    """(ways x clusters, classes, F) prototypes: the crops of each way up (0 upright, 1 upside down) and
    class split into `clusters` by k-means on their cosines (a face seen large and sharp looks unlike
    the same face small and blurred: one mean would stand for neither), each cluster's mean feature
    normalised per ensemble member. A cluster left empty is all zeros (cosine 0)."""
    features = np.asarray(features, np.float32)
    count = int(np.max(ways)) + 1 if len(ways) else 1
    out = np.zeros((count * clusters, classes, features.shape[1]), np.float32)
    rng = np.random.default_rng(seed)
    for way in range(count):
        for cls in np.unique(labels[ways == way]):
            group = features[(labels == cls) & (ways == way)]
            k = min(clusters, len(group))
            centres = group[rng.choice(len(group), k, replace=False)]
            for _ in range(10):
                nearest = (group @ centres.T).argmax(axis=1)
                centres = np.stack([group[nearest == j].mean(axis=0) if (nearest == j).any() else centres[j]
                                    for j in range(k)])
            out[way * clusters:way * clusters + k, cls] = normalised(centres, members)
    return out


# ---------------------------------------------------------------- graph editing


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise FewShotError("editing the classifier graph needs the onnx package (pip install onnx)") from None
    return onnx


def _pooled_outputs(graph: Any) -> list[str]:
    """The pooled-feature tensors of the graph: the inputs of the classify heads' Gemm layers."""
    producers = {out: node for node in graph.node for out in node.output}
    pooled = []
    for node in graph.node:
        if node.op_type == "Gemm" and node.input[0] in producers and producers[node.input[0]].op_type == "Flatten":
            pooled.append(node.input[0])
    if not pooled:
        raise FewShotError("no pooled features (Flatten -> Gemm) in the classifier graph")
    return pooled


def _opset(model: Any) -> int:
    return max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=18)


def _reduce(model: Any, op: str, source: str, target: str, keepdims: int) -> Any:
    """`op` over axis 1: the axes are an input from opset 18 on, an attribute before (ReduceL2, ReduceMax)."""
    helper = _onnx().helper
    if _opset(model) < 18:
        return helper.make_node(op, [source], [target], keepdims=keepdims, axes=[1])
    return helper.make_node(op, [source, "fewshot_axis1"], [target], keepdims=keepdims)


def _add_features(model: Any) -> tuple[Any, int]:
    """Nodes that L2-normalise each member's pooled features and concatenate them as FEATURES_OUTPUT."""
    onnx = _onnx()
    helper = onnx.helper
    graph = model.graph
    pooled = _pooled_outputs(graph)
    parts = []
    for k, name in enumerate(pooled):
        norm, safe, unit = f"fewshot_norm{k}", f"fewshot_safe{k}", f"fewshot_unit{k}"
        graph.node.append(_reduce(model, "ReduceL2", name, norm, keepdims=1))
        graph.node.append(helper.make_node("Max", [norm, "fewshot_eps"], [safe]))
        graph.node.append(helper.make_node("Div", [name, safe], [unit]))
        parts.append(unit)
    if _opset(model) >= 18:  # the reductions' axes are an input
        graph.initializer.append(onnx.numpy_helper.from_array(np.array([1], np.int64), "fewshot_axis1"))
    graph.initializer.append(onnx.numpy_helper.from_array(np.array(1e-9, np.float32), "fewshot_eps"))
    graph.node.append(helper.make_node("Concat", parts, [FEATURES_OUTPUT], axis=1))
    return model, len(pooled)


def with_features(classifier_onnx: Path) -> tuple[bytes, int]:
    """The classifier graph with a second output FEATURES_OUTPUT (its first output unchanged), and the
    number of ensemble members: for computing embeddings with onnxruntime."""
    onnx = _onnx()
    model, members = _add_features(onnx.load(str(classifier_onnx)))
    graph = model.graph
    graph.output.append(onnx.helper.make_tensor_value_info(FEATURES_OUTPUT, onnx.TensorProto.FLOAT, ["batch", None]))
    return model.SerializeToString(), members


def bake(classifier_onnx: Path, head: FewShotHead, out_path: Path, base_output: bool = False) -> None:
    """Write `classifier_onnx` with `head` inside: its first output is the head's blended probabilities,
    under the same name and shape, with the same metadata (class names, input size); its second,
    LIKENESS_OUTPUT, is the largest margin of a crop's cosines over the faces' thresholds; with
    `base_output` (`classifier_onnx` is the classifier the version is calibrated
    from), BASE_OUTPUT: that classifier's own probabilities, for photos of other sets."""
    onnx = _onnx()
    helper = onnx.helper
    model, members = _add_features(onnx.load(str(classifier_onnx)))
    if members != head.members:
        raise FewShotError(f"the head was made for {head.members} ensemble members, the graph has {members}")
    graph = model.graph
    output = graph.output[0].name
    original = "fewshot_classifier_probs"
    for node in graph.node:  # the classifier's own probabilities now feed the blend
        node.output[:] = [original if o == output else o for o in node.output]
        node.input[:] = [original if i == output else i for i in node.input]
    init = graph.initializer
    cosines = _add_cosines(model, FEATURES_OUTPUT, head.prototypes, head.members, "fewshot_")
    init.append(onnx.numpy_helper.from_array(np.array(head.scale, np.float32), "fewshot_scale"))
    init.append(onnx.numpy_helper.from_array(np.array(head.keep, np.float32), "fewshot_keep"))
    init.append(onnx.numpy_helper.from_array(np.array(EPS, np.float32), "fewshot_eps_p"))
    init.append(onnx.numpy_helper.from_array(head.open_thresholds().reshape(1, -1), "fewshot_thresholds"))
    init.append(onnx.numpy_helper.from_array(np.array(0.0, np.float32), "fewshot_zero"))
    graph.node.extend([
        helper.make_node("Sub", [cosines, "fewshot_thresholds"], ["fewshot_margins"]),
        _reduce(model, "ReduceMax", "fewshot_margins", LIKENESS_OUTPUT, keepdims=0),
        _reduce(model, "ReduceMax", "fewshot_margins", "fewshot_margin", keepdims=1),
        helper.make_node("Greater", ["fewshot_margin", "fewshot_zero"], ["fewshot_open"]),  # passes a threshold
        helper.make_node("Cast", ["fewshot_open"], ["fewshot_gate"], to=onnx.TensorProto.FLOAT),
        helper.make_node("Mul", [cosines, "fewshot_gate"], ["fewshot_gated"]),
        helper.make_node("Mul", ["fewshot_gated", "fewshot_scale"], ["fewshot_shot"]),
        helper.make_node("Add", [original, "fewshot_eps_p"], ["fewshot_p"]),
        helper.make_node("Log", ["fewshot_p"], ["fewshot_logp"]),
        helper.make_node("Mul", ["fewshot_logp", "fewshot_keep"], ["fewshot_kept"]),
        helper.make_node("Add", ["fewshot_kept", "fewshot_shot"], ["fewshot_logits"]),
        helper.make_node("Softmax", ["fewshot_logits"], [output], axis=1),
    ])
    graph.output.append(onnx.helper.make_tensor_value_info(LIKENESS_OUTPUT, onnx.TensorProto.FLOAT, ["batch"]))
    if base_output:
        graph.node.append(helper.make_node("Identity", [original], [BASE_OUTPUT]))
        graph.output.append(onnx.helper.make_tensor_value_info(BASE_OUTPUT, onnx.TensorProto.FLOAT,
                                                               ["batch", len(head.prototypes[0])]))
    props = {p.key: p.value for p in model.metadata_props}
    props[FEWSHOT_METADATA] = (f"prototypes of a calibration photo, scale {head.scale:g}, keep {head.keep:g}, "
                            "a threshold per face, the gate per crop")
    del model.metadata_props[:]
    for key, value in props.items():
        model.metadata_props.append(onnx.StringStringEntryProto(key=key, value=value))
    onnx.checker.check_model(model)
    Path(out_path).write_bytes(model.SerializeToString())


def _add_cosines(model: Any, features: str, prototypes: np.ndarray, members: int, prefix: str) -> str:
    """Nodes computing `FewShotHead.cosines` of the `features` tensor with `prototypes` (each face's nearest way
    up, averaged over the members), their initializers and tensors named from `prefix`: the cosines' name."""
    onnx = _onnx()
    ways, classes, width = prototypes.shape
    matrix = prototypes.reshape(ways * classes, width).T / members  # (F, K*C), way-major columns
    model.graph.initializer.extend([
        onnx.numpy_helper.from_array(matrix.astype(np.float32), f"{prefix}prototypes"),
        onnx.numpy_helper.from_array(np.array([-1, ways, classes], np.int64), f"{prefix}shape"),
    ])
    model.graph.node.extend([
        onnx.helper.make_node("MatMul", [features, f"{prefix}prototypes"], [f"{prefix}cos_all"]),
        onnx.helper.make_node("Reshape", [f"{prefix}cos_all", f"{prefix}shape"], [f"{prefix}cos_ways"]),
        _reduce(model, "ReduceMax", f"{prefix}cos_ways", f"{prefix}cos", keepdims=0),
    ])
    return f"{prefix}cos"
