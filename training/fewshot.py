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

The calibration photo also shows the club's table: tile-sized patches of it, away from the tiles, give
a few *table prototypes*. A crop whose cosine with the nearest of them passes its cosine with the
nearest face by more than `table_threshold` (set above every crop of this set's held-out copies and
every labeled tile of the base photos: `training.head.table_threshold`) looks like the table: the
graph's third output, TABLE_OUTPUT, is above 0, and in a photo of the set the runtime leaves such a box
out when the finder was unsure of it (`vision.detector`). A checked cloth's squares are tile-sized white
faces to the finder; the club's own cloth, seen once, is told from its tiles.

The thresholds make the gate strict: the highest cosine any other set's crop reached shuts it on most of a
set's small or blurred tiles (kde-traditional's scenes, stop 33: 46 % of the crops passed, and 86 of 200
photos counted as the set's). The head therefore also keeps the base photos' crops (`others`): a crop
nearer its nearest face of the set than any of them has a SET_MARGIN_OUTPUT above 0, and a photo whose boxes
mostly do is read by SET_PROBS_OUTPUT, the blend with every crop's gate open (`vision.detector`). Another
set's photo still reads as the classifier alone reads it (BASE_OUTPUT); the rules that leave boxes out or add
flowers still act only where the thresholds say the photo is of the set.

SET_PROBS_OUTPUT compares a crop with the faces in a *whitened* feature space (`Whitening`, `open_reading`):
the features are scaled down along the directions in which one face's crops vary most across the augmented
copies (light, blur, size), so that what tells two faces apart (a drawn set's 4m from its 6m: the numeral
alone) weighs more. Only that output changes: the thresholds, the table and the set margin stay in the plain
space, where the rules using them were tuned.

The head is written into the classifier's ONNX graph (`bake`): a calibrated version's
`classifier.onnx` is a drop-in classifier, so the runtime (`vision.detector`) reads it like any
other, with no code of its own. `onnx` is needed to edit graphs (calibration), never to run them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.models import (
    BASE_OUTPUT,
    FEWSHOT_METADATA,
    LIKENESS_OUTPUT,
    SET_MARGIN_OUTPUT,
    SET_PROBS_OUTPUT,
    TABLE_OUTPUT,
)

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
    table: np.ndarray | None = None  # float32 (T, members x D): prototypes of the calibration photo's table
    table_threshold: float = np.inf  # a crop nearer the table than any face by more than this looks like it
    others: np.ndarray | None = None  # float32 (O, members x D): features of other sets' crops (the base photos')
    open_reading: OpenReading | None = None  # how SET_PROBS_OUTPUT reads; None: the prototypes above, ungated

    def cosines(self, features: np.ndarray) -> np.ndarray:
        """(N, C) cosine of each crop with each face's nearer prototype, averaged over the ensemble members."""
        feats = np.asarray(features, np.float32)
        return np.max(np.stack([feats @ p.T for p in self.prototypes]), axis=0) / self.members

    def table_margins(self, features: np.ndarray) -> np.ndarray:
        """(N,) each crop's cosine with the nearest table prototype minus its cosine with the nearest face
        (-inf without table prototypes)."""
        feats = np.asarray(features, np.float32)
        if self.table is None or len(self.table) == 0:
            return np.full(len(feats), -np.inf, np.float32)
        return ((feats @ self.table.T).max(axis=1) / self.members - self.cosines(feats).max(axis=1)).astype(np.float32)

    def table_likeness(self, features: np.ndarray) -> np.ndarray:
        """(N,) what the baked graph's TABLE_OUTPUT says of crops with these features: `table_margins` over
        the table's threshold (above 0: the crop looks like the table)."""
        return (self.table_margins(features) - np.float32(self.table_threshold)).astype(np.float32)

    def set_margins(self, features: np.ndarray) -> np.ndarray:
        """(N,) each crop's cosine with the nearest face of the set minus its cosine with the nearest crop of
        another set (`others`; +inf without them): above 0, the crop is nearer this set than any other seen."""
        feats = np.asarray(features, np.float32)
        if self.others is None or len(self.others) == 0:
            return np.full(len(feats), np.inf, np.float32)
        return (self.cosines(feats).max(axis=1) - (feats @ self.others.T).max(axis=1) / self.members).astype(np.float32)

    def blend(self, probs: np.ndarray, features: np.ndarray) -> np.ndarray:
        """The head's class probabilities for crops read as `probs` with these `features`."""
        return self.blend_cosines(probs, self.cosines(features))

    def blend_ungated(self, probs: np.ndarray, features: np.ndarray) -> np.ndarray:
        """`blend` with every crop's gate open: how the graph's SET_PROBS_OUTPUT reads a photo of the set (with an
        `open_reading`: its prototypes and scale, in its whitened space)."""
        if self.open_reading is None:
            return replace(self, thresholds=None).blend(probs, features)
        open_ = self.open_reading
        head = FewShotHead(open_.prototypes, self.members, open_.scale, self.keep)
        return head.blend(probs, open_.whitening.apply(features, self.members))

    def blend_cosines(self, probs: np.ndarray, cos: np.ndarray) -> np.ndarray:
        """`blend` of crops whose `cosines` are known (they depend on the prototypes alone, not on the
        scale or thresholds: a search over those computes them once).

        The gate is the crop's: a crop that passes any face's threshold has every face's cosine added. A gate
        per face added the cosine of the faces passed alone, and a crop passing the wrong face's threshold
        was read as it: on gnome-smooth's scenes (stop 25) f2 crops passing only f3's read right 4.8 %."""
        gate = (np.ones((len(cos), 1), np.float32) if self.thresholds is None
                else (cos > self.thresholds[None, :]).any(axis=1, keepdims=True).astype(np.float32))
        logits = self.keep * np.log(np.asarray(probs, np.float32) + EPS) + self.scale * gate * cos
        logits -= logits.max(axis=1, keepdims=True)
        out = np.exp(logits)
        return out / out.sum(axis=1, keepdims=True)

    def save(self, path: Path) -> None:
        table = np.zeros((0, self.prototypes.shape[2]), np.float32) if self.table is None else self.table
        others = np.zeros((0, self.prototypes.shape[2]), np.float16) if self.others is None else self.others
        open_: dict[str, Any] = {} if self.open_reading is None else {
            "open_basis": self.open_reading.whitening.basis, "open_gains": self.open_reading.whitening.gains,
            "open_ridge_gain": self.open_reading.whitening.ridge_gain,
            "open_prototypes": self.open_reading.prototypes, "open_scale": self.open_reading.scale}
        np.savez(path, prototypes=self.prototypes, members=self.members, scale=self.scale, keep=self.keep,
                 thresholds=self.open_thresholds(), table=table, table_threshold=self.table_threshold,
                 others=others.astype(np.float16), **open_)

    @staticmethod
    def load(path: Path) -> FewShotHead:
        data = np.load(path)
        table = data["table"].astype(np.float32) if "table" in data.files and len(data["table"]) else None
        others = data["others"].astype(np.float32) if "others" in data.files and len(data["others"]) else None
        open_ = None
        if "open_basis" in data.files:
            open_ = OpenReading(Whitening(data["open_basis"].astype(np.float32), data["open_gains"].astype(np.float32),
                                          float(data["open_ridge_gain"])),
                                data["open_prototypes"].astype(np.float32), float(data["open_scale"]))
        return FewShotHead(data["prototypes"].astype(np.float32), int(data["members"]), float(data["scale"]),
                           float(data["keep"]), data["thresholds"].astype(np.float32), table,
                           float(data["table_threshold"]) if table is not None else np.inf, others, open_)

    def open_thresholds(self) -> np.ndarray:
        """The thresholds, every face open (-2: below any cosine) when there are none."""
        classes = self.prototypes.shape[1]
        return np.full(classes, -2.0, np.float32) if self.thresholds is None else self.thresholds.astype(np.float32)


def normalised(features: np.ndarray, members: int) -> np.ndarray:
    """Each ensemble member's part of the features scaled to unit length."""
    features = np.asarray(features, np.float32)
    parts = features.reshape(len(features), members, -1)
    return (parts / np.maximum(np.linalg.norm(parts, axis=2, keepdims=True), 1e-9)).reshape(features.shape)


@dataclass(frozen=True)
class Whitening:
    """x -> x * ridge_gain + ((x @ basis) * gains) @ basis.T, then `normalised`: the inverse square root of the
    crops' scatter around their face's mean plus a ridge, kept to its `basis` (its largest directions; along
    the others the ridge dominates), so it stays a small matrix in the graph."""

    basis: np.ndarray  # float32 (F, k) orthonormal columns
    gains: np.ndarray  # float32 (k,) 1/sqrt(eigenvalue + ridge) - 1/sqrt(ridge)
    ridge_gain: float  # 1/sqrt(ridge)

    def apply(self, features: np.ndarray, members: int) -> np.ndarray:
        feats = np.asarray(features, np.float32)
        moved = feats * np.float32(self.ridge_gain) + ((feats @ self.basis) * self.gains) @ self.basis.T
        return normalised(moved, members)


@dataclass(frozen=True)
class OpenReading:
    """SET_PROBS_OUTPUT's prototypes (made from the whitened features of the same crops) and scale."""

    whitening: Whitening
    prototypes: np.ndarray  # float32 (K, C, members x D), as FewShotHead.prototypes
    scale: float


def whitening_from(features: np.ndarray, labels: np.ndarray, ways: np.ndarray, shrinkage: float,
                   rank: int) -> Whitening:
    """The `Whitening` of crops' features: their scatter around the mean of their face (and way up), plus a
    ridge of `shrinkage` times its mean eigenvalue, kept to its `rank` largest directions."""
    features = np.asarray(features, np.float64)
    centred = features.copy()
    groups = np.asarray(labels, np.int64) * 2 + np.asarray(ways, np.int64)
    for group in np.unique(groups):
        centred[groups == group] -= features[groups == group].mean(axis=0)
    scatter = centred.T @ centred / max(len(centred), 1)
    ridge = max(shrinkage * float(np.trace(scatter)) / len(scatter), 1e-12)
    values, vectors = np.linalg.eigh(scatter)
    rank = min(rank, len(values))
    top, basis = values[len(values) - rank:], vectors[:, len(values) - rank:]
    gains = 1 / np.sqrt(np.maximum(top, 0) + ridge) - 1 / np.sqrt(ridge)
    return Whitening(basis.astype(np.float32), gains.astype(np.float32), float(1 / np.sqrt(ridge)))


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
    LIKENESS_OUTPUT, is the largest margin of a crop's cosines over the faces' thresholds; with the table,
    TABLE_OUTPUT; with `base_output` (`classifier_onnx` is the classifier the version is calibrated
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
    if head.table is not None:  # how much nearer the table than any face, over the table's threshold
        init.append(onnx.numpy_helper.from_array((head.table.T / head.members).astype(np.float32), "fewshot_table"))
        init.append(onnx.numpy_helper.from_array(np.array(head.table_threshold, np.float32), "fewshot_table_threshold"))
        graph.node.extend([
            helper.make_node("MatMul", [FEATURES_OUTPUT, "fewshot_table"], ["fewshot_table_cos_all"]),
            _reduce(model, "ReduceMax", "fewshot_table_cos_all", "fewshot_table_cos", keepdims=0),
            _reduce(model, "ReduceMax", cosines, "fewshot_face_cos", keepdims=0),
            helper.make_node("Sub", ["fewshot_table_cos", "fewshot_face_cos"], ["fewshot_table_margin"]),
            helper.make_node("Sub", ["fewshot_table_margin", "fewshot_table_threshold"], [TABLE_OUTPUT]),
        ])
        graph.output.append(onnx.helper.make_tensor_value_info(TABLE_OUTPUT, onnx.TensorProto.FLOAT, ["batch"]))
    if head.others is not None and len(head.others):  # nearer this set than any other set's crop, and the ungated blend
        init.append(onnx.numpy_helper.from_array((head.others.T / head.members).astype(np.float16), "fewshot_others_half"))
        graph.node.extend([
            helper.make_node("Cast", ["fewshot_others_half"], ["fewshot_others"], to=onnx.TensorProto.FLOAT),
            helper.make_node("MatMul", [FEATURES_OUTPUT, "fewshot_others"], ["fewshot_others_cos_all"]),
            _reduce(model, "ReduceMax", "fewshot_others_cos_all", "fewshot_others_cos", keepdims=0),
            _reduce(model, "ReduceMax", cosines, "fewshot_set_cos", keepdims=0),
            helper.make_node("Sub", ["fewshot_set_cos", "fewshot_others_cos"], [SET_MARGIN_OUTPUT]),
        ])
        open_cos, open_scale = cosines, "fewshot_scale"
        if head.open_reading is not None:
            open_cos, open_scale = _add_open_reading(model, head.open_reading, head.members)
        graph.node.extend([
            helper.make_node("Mul", [open_cos, open_scale], ["fewshot_open_shot"]),
            helper.make_node("Add", ["fewshot_kept", "fewshot_open_shot"], ["fewshot_open_logits"]),
            helper.make_node("Softmax", ["fewshot_open_logits"], [SET_PROBS_OUTPUT], axis=1),
        ])
        graph.output.append(onnx.helper.make_tensor_value_info(SET_MARGIN_OUTPUT, onnx.TensorProto.FLOAT, ["batch"]))
        graph.output.append(onnx.helper.make_tensor_value_info(SET_PROBS_OUTPUT, onnx.TensorProto.FLOAT,
                                                               ["batch", len(head.prototypes[0])]))
    if base_output:
        graph.node.append(helper.make_node("Identity", [original], [BASE_OUTPUT]))
        graph.output.append(onnx.helper.make_tensor_value_info(BASE_OUTPUT, onnx.TensorProto.FLOAT,
                                                               ["batch", len(head.prototypes[0])]))
    props = {p.key: p.value for p in model.metadata_props}
    props[FEWSHOT_METADATA] = (f"prototypes of a calibration photo, scale {head.scale:g}, keep {head.keep:g}, "
                            "a threshold per face, the gate per crop"
                            + (f", {len(head.table)} table prototypes" if head.table is not None else "")
                            + (f", {len(head.others)} crops of other sets" if head.others is not None else "")
                            + (f", photos of the set read whitened (rank {head.open_reading.whitening.basis.shape[1]},"
                               f" scale {head.open_reading.scale:g})" if head.open_reading is not None else ""))
    del model.metadata_props[:]
    for key, value in props.items():
        model.metadata_props.append(onnx.StringStringEntryProto(key=key, value=value))
    onnx.checker.check_model(model)
    Path(out_path).write_bytes(model.SerializeToString())


def _add_open_reading(model: Any, open_: OpenReading, members: int) -> tuple[str, str]:
    """Nodes computing `Whitening.apply` of FEATURES_OUTPUT and each face's cosine with `open_`'s prototypes
    (the nearest way up, averaged over members): the cosine tensor's name and the scale's."""
    onnx = _onnx()
    helper = onnx.helper
    graph, init = model.graph, model.graph.initializer
    width = open_.prototypes.shape[2]
    whitening = open_.whitening
    init.extend([
        onnx.numpy_helper.from_array(whitening.basis.astype(np.float32), "fewshot_w_basis"),
        onnx.numpy_helper.from_array(whitening.gains.astype(np.float32), "fewshot_w_gains"),
        onnx.numpy_helper.from_array(np.array(whitening.ridge_gain, np.float32), "fewshot_w_ridge"),
        onnx.numpy_helper.from_array(np.array([-1, width // members], np.int64), "fewshot_w_parts"),
        onnx.numpy_helper.from_array(np.array([-1, width], np.int64), "fewshot_w_whole"),
        onnx.numpy_helper.from_array(np.array(open_.scale, np.float32), "fewshot_w_scale"),
    ])
    graph.node.extend([
        helper.make_node("MatMul", [FEATURES_OUTPUT, "fewshot_w_basis"], ["fewshot_w_along"]),
        helper.make_node("Mul", ["fewshot_w_along", "fewshot_w_gains"], ["fewshot_w_scaled"]),
        helper.make_node("Gemm", ["fewshot_w_scaled", "fewshot_w_basis"], ["fewshot_w_back"], transB=1),
        helper.make_node("Mul", [FEATURES_OUTPUT, "fewshot_w_ridge"], ["fewshot_w_ridged"]),
        helper.make_node("Add", ["fewshot_w_ridged", "fewshot_w_back"], ["fewshot_w_moved"]),
        helper.make_node("Reshape", ["fewshot_w_moved", "fewshot_w_parts"], ["fewshot_w_member"]),
        _reduce(model, "ReduceL2", "fewshot_w_member", "fewshot_w_norm", keepdims=1),
        helper.make_node("Max", ["fewshot_w_norm", "fewshot_eps"], ["fewshot_w_safe"]),
        helper.make_node("Div", ["fewshot_w_member", "fewshot_w_safe"], ["fewshot_w_unit"]),
        helper.make_node("Reshape", ["fewshot_w_unit", "fewshot_w_whole"], ["fewshot_w_features"]),
    ])
    return _add_cosines(model, "fewshot_w_features", open_.prototypes, members, "fewshot_w_"), "fewshot_w_scale"


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
