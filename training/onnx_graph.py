"""Classifier graphs edited with `onnx`: one member of an ensemble taken out as a classifier of its own (the
smallest, for the runtime to read with first), and how many members an ensemble averages. Needs the `onnx` package (the train extra)."""

from __future__ import annotations

from pathlib import Path

from training.fewshot import with_features


def member_graph(ensemble_onnx: Path, member: int, target: Path) -> Path:
    """Member `member` of an ensemble classifier (`training.export.merge_classifiers`) as a classifier of
    its own, taking the ensemble's input (it resizes inside as before), with the ensemble's metadata."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(ensemble_onnx))
    prefix = f"m{member}_"
    graph = model.graph
    nodes = [n for n in graph.node if n.output and all(o.startswith(prefix) for o in n.output)]
    inits = [i for i in graph.initializer if i.name.startswith(prefix)]
    classes = graph.output[0].type.tensor_type.shape.dim[-1].dim_value
    out = helper.make_model(
        helper.make_graph(nodes, f"member{member}", [graph.input[0]],
                          [helper.make_tensor_value_info(f"{prefix}output0", TensorProto.FLOAT, ["batch", classes])],
                          initializer=inits),
        opset_imports=list(model.opset_import))
    out.ir_version = model.ir_version
    for prop in model.metadata_props:
        out.metadata_props.append(onnx.StringStringEntryProto(key=prop.key, value=prop.value))
    onnx.checker.check_model(out)
    onnx.save(out, str(target))
    return target




def members_alone(ensemble_onnx: Path, small_target: Path, large_target: Path) -> list[Path]:
    """The ensemble's member of the smallest input as a classifier of its own (`member_graph`) at `small_target`,
    and, for an ensemble of two, the other one at `large_target`, each marked as that ensemble's
    (`vision.models.SMALL_MEMBER_METADATA`, `LARGE_MEMBER_METADATA`): the runtime reads every crop with the small
    one first, the crops it is unsure of with the other. The files written."""
    import onnx

    from vision.models import LARGE_MEMBER_METADATA, SMALL_MEMBER_METADATA, ensemble_key

    metadata = onnx_metadata(ensemble_onnx)
    sizes = [int(part.split()[0]) for part in metadata.get("mcr_ensemble", "").split(" + ") if part.strip()]
    if len(sizes) < 2:
        raise ValueError(f"{ensemble_onnx} is not an ensemble of classifiers (no mcr_ensemble of two members)")
    small = sizes.index(min(sizes))
    wanted = [(small, small_target, SMALL_MEMBER_METADATA)]
    if len(sizes) == 2:
        wanted.append((1 - small, large_target, LARGE_MEMBER_METADATA))
    for member, target, key in wanted:
        member_graph(ensemble_onnx, member, target)
        model = onnx.load(str(target))
        model.metadata_props.add(key=key, value=ensemble_key(metadata))
        onnx.save(model, str(target))
    return [target for _, target, _ in wanted]


def onnx_metadata(onnx_path: Path) -> dict[str, str]:
    """The metadata a graph carries, without loading its weights."""
    import onnx

    return {p.key: p.value for p in onnx.load(str(onnx_path), load_external_data=False).metadata_props}


def ensemble_members(classifier_onnx: Path) -> int:
    """How many members an ensemble classifier averages (1: a plain classifier)."""
    return with_features(classifier_onnx)[1]
