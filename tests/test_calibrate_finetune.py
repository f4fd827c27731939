"""`python -m vision calibrate --method finetune|both`: the classifier's .pt fine-tuned on the photo's crops
with ultralytics, on a tiny model (a real, short run: slow-marked like training.adapt's)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tileset.classes import CLASS_ID, FACE_NAMES
from vision.registry import Registry

pytest.importorskip("ultralytics", reason="ultralytics is in the train extra")
from tests.calibrate_support import (
    QUICK,
    SIZE,
    face_colours,
    layout_boxes,
    layout_finder,
    tiny_classifier,
)

SHIFT = 5  # the calibrated set paints face i as the pretrained set paints face i + SHIFT: new to the model


def tile_picture(width: int, height: int, index: int, rng: np.random.Generator) -> np.ndarray:
    tile = np.full((height, width, 3), 235, np.uint8)
    top, bottom = face_colours(index % len(FACE_NAMES))
    tile[4:height // 2, 3:width - 3] = top
    tile[height // 2:height - 4, 3:width - 3] = bottom
    noise = rng.normal(0, 6, tile.shape)
    return np.clip(tile + noise, 0, 255).astype(np.uint8)


def pretrained_classifier(root: Path, work: Path) -> Path:
    """classifier.pt: yolo11n-cls at 32 px trained briefly on set A's faces; its ONNX export as
    member 0 of a two-member ensemble classifier.onnx (the shipped layout: the .pt is member 0)."""
    from training.classifier_tune import write_crop_folder
    from training.export import export_checkpoint, merge_classifiers
    from training.train import _ultralytics_environment

    rng = np.random.default_rng(0)
    crops = np.stack([cv2.resize(tile_picture(40, 56, k, rng), (32, 32)) for k in range(len(FACE_NAMES))
                      for _ in range(12)])
    labels = np.array([CLASS_ID[name] for name in FACE_NAMES for _ in range(12)])
    write_crop_folder(work / "pre", FACE_NAMES, {"train": (crops, labels), "val": (crops[::6], labels[::6])})
    _ultralytics_environment()
    from ultralytics import YOLO

    YOLO("yolo11n-cls.yaml").train(data=str(work / "pre"), epochs=3, imgsz=32, batch=32, device="cpu", workers=0,
                                   project=str(work / "runs"), name="pre", plots=False, amp=False, verbose=False,
                                   lr0=0.002, optimizer="AdamW", warmup_epochs=0, seed=0)
    (root / "classifier.pt").write_bytes((work / "runs" / "pre" / "weights" / "last.pt").read_bytes())
    member0 = export_checkpoint(root / "classifier.pt", work / "member0.onnx", "classifier")
    member1 = sorted_names(tiny_classifier(work / "member1.onnx"))
    return merge_classifiers([member0, member1], root / "classifier.onnx", ["classifier.pt", "tiny"])


def sorted_names(classifier: Path) -> Path:
    """The tiny random classifier with its classes named in ultralytics' order (sorted folder names)."""
    import onnx

    model = onnx.load(str(classifier))
    for prop in model.metadata_props:
        if prop.key == "names":
            prop.value = str(dict(enumerate(sorted(FACE_NAMES))))
    onnx.save(model, str(classifier))
    return classifier


def calibration_photo(path: Path) -> Path:
    rng = np.random.default_rng(1)
    image = np.full((SIZE, SIZE, 3), 90, np.uint8)
    for name, (x0, y0, x1, y1) in layout_boxes():
        image[y0:y1, x0:x1] = tile_picture(x1 - x0, y1 - y0, FACE_NAMES.index(name) + SHIFT, rng)
    cv2.imwrite(str(path), image)
    return path


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shipped")
    layout_finder(root / "detector.onnx")
    pretrained_classifier(root, tmp_path_factory.mktemp("pretrain"))
    return root


def models_copy(shipped: Path, target: Path) -> Path:
    target.mkdir()
    for model in shipped.glob("*.*"):
        (target / model.name).write_bytes(model.read_bytes())
    return target


def test_a_member_of_an_ensemble_reads_as_it_did_inside_it(shipped: Path, tmp_path: Path) -> None:
    from training.head import Embedder
    from training.onnx_graph import ensemble_members, member_graph

    member = member_graph(shipped / "classifier.onnx", 1, tmp_path / "member1.onnx")
    alone = sorted_names(tiny_classifier(tmp_path / "tiny.onnx"))
    crops = np.random.default_rng(2).integers(0, 255, (6, 32, 32, 3), dtype=np.uint8)
    assert ensemble_members(shipped / "classifier.onnx") == 2 and ensemble_members(member) == 1
    np.testing.assert_allclose(Embedder(member, 1)(crops)[0], Embedder(alone, 1)(crops)[0], atol=1e-5)


@pytest.mark.slow
def test_a_busy_cpu_ends_the_fine_tune_at_its_time_box_even_inside_the_first_epoch(shipped: Path, tmp_path: Path) -> None:
    from training.calibrate import calibrate

    models = models_copy(shipped, tmp_path / "models")
    photo = calibration_photo(tmp_path / "layout.png")
    settings = replace(QUICK, finetune_seconds=0.0, finetune_epochs=3)  # the box is over before the first batch ends
    result = calibrate([photo], models_root=models, base_val=None, settings=settings,
                       log=print, method="finetune")
    tune = json.loads((Registry(models).path_of(result.version) / "card.json").read_text())["finetune"]
    assert tune["batches"] == 1 and tune["epochs"] == 1


@pytest.mark.slow
def test_finetune_learns_the_set_into_a_version_whose_card_names_the_method(shipped: Path, tmp_path: Path) -> None:
    from training.calibrate import calibrate
    from training.head import Embedder

    models = models_copy(shipped, tmp_path / "models")
    photo = calibration_photo(tmp_path / "layout.png")
    # a box the 3 tiny epochs fit in even on a loaded CPU (under load 60 s stopped it after 1)
    settings = replace(QUICK, finetune_seconds=600.0, finetune_epochs=3, finetune_lr0=0.002)
    result = calibrate([photo], models_root=models, base_val=None, settings=settings,
                       log=print, method="finetune")
    version = Registry(models).path_of(result.version)
    card = json.loads((version / "card.json").read_text())
    assert result.method == card["method"] == "finetune" and "method finetune" in (version / "card.md").read_text()
    assert card["head"] is None and not (version / "prototypes.npz").exists()
    tune = card["finetune"]
    assert tune["batches"] > tune["epochs"]  # whole epochs of several batches each
    assert tune["epochs"] == 3 and tune["train_crops"] == 2 * (QUICK.views + 1) * len(FACE_NAMES)  # tiny epochs: all run
    assert tune["check_accuracy"] > tune["classifier_check_accuracy"]  # the fine-tune learned the shifted colours
    assert result.after["read_accuracy"] > result.before["read_accuracy"]
    assert card["promoted"] == (result.after["read_accuracy"] == 1.0)
    # the version keeps the classifier it was made from, and an ensemble stays one (member 1 as shipped)
    assert (version / "classifier_base.onnx").read_bytes() == (shipped / "classifier.onnx").read_bytes()
    tuned = Embedder(version / "classifier.onnx", 1)
    assert tuned.members == 2


@pytest.mark.slow
def test_both_puts_the_head_on_the_fine_tuned_classifier(shipped: Path, tmp_path: Path, capsys) -> None:
    from vision.__main__ import main

    models = models_copy(shipped, tmp_path / "models")
    photo = calibration_photo(tmp_path / "layout.png")
    code = main(["calibrate", str(photo), "--models", str(models), "--base-val", str(tmp_path / "none"),
                 "--views", "4", "--method", "both"])
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads(out.out.strip().splitlines()[-1])  # ultralytics' own lines went to stderr
    assert summary["method"] == "both"
    version = Registry(models).path_of(summary["version"])
    card = json.loads((version / "card.json").read_text())
    assert card["head"] is not None and card["finetune"] is not None and (version / "prototypes.npz").is_file()


@pytest.mark.slow
def test_an_earlier_gated_versions_set_classifier_is_not_carried_into_a_new_version(shipped: Path, tmp_path: Path) -> None:
    from training.calibrate import METHODS, calibrate
    from vision.registry import EARLIER_SET_CLASSIFIER

    assert "gated" not in METHODS
    models = models_copy(shipped, tmp_path / "models")
    (models / EARLIER_SET_CLASSIFIER).write_bytes((shipped / "classifier.onnx").read_bytes())
    photo = calibration_photo(tmp_path / "layout.png")
    made = calibrate([photo], models_root=models, base_val=None, settings=QUICK, log=print, method="fewshot")
    assert not (Registry(models).path_of(made.version) / EARLIER_SET_CLASSIFIER).exists()


# ---------------------------------------------------------------- --method auto


class FixedFigures:
    """Stands in for training.evaluate.evaluate: the base val figures of each call in turn (the version in use,
    then each version judged), so the promotion rule's base check comes out as a test needs."""

    def __init__(self, *read_accuracies: float) -> None:
        self.figures, self.calls = list(read_accuracies), 0

    def __call__(self, detector, images, *args, **kwargs) -> FixedFigures:
        self.calls += 1
        return self

    def summary(self) -> dict:
        figure = self.figures[min(self.calls, len(self.figures)) - 1]
        return {"read_accuracy": figure, "precision": 0.97, "recall": 1.0}


def other_set(base: Path) -> Path:
    """A base dataset folder whose one photo shows the layout in the pretrained set's colours (another set)."""
    (base / "images").mkdir(parents=True)
    rng = np.random.default_rng(3)
    image = np.full((SIZE, SIZE, 3), 90, np.uint8)
    for name, (x0, y0, x1, y1) in layout_boxes():
        image[y0:y1, x0:x1] = tile_picture(x1 - x0, y1 - y0, FACE_NAMES.index(name), rng)
    cv2.imwrite(str(base / "images" / "other.png"), image)
    return base


def weights_of(classifier: Path) -> set[tuple[str, bytes]]:
    """Every weight of an ONNX graph, by name and value."""
    import onnx
    from onnx import numpy_helper

    return {(i.name, numpy_helper.to_array(i).tobytes()) for i in onnx.load(str(classifier)).graph.initializer}


def versions(models: Path) -> list[str]:
    return [v.name for v in Registry(models).versions()[1:]]  # after the shipped one


@pytest.mark.slow
def test_auto_keeps_the_fine_tune_when_it_would_be_promoted(shipped: Path, tmp_path: Path, monkeypatch) -> None:
    import training.promotion
    from training.calibrate import calibrate
    from vision.calibration_layout import reread

    def read_right(detector, picture, reading):  # the tiny fine-tune reads half of them: say it read them all
        again = reread(detector, picture, reading)
        return replace(again, tiles=tuple(replace(t, read_as=t.expected) for t in again.tiles))

    figures = FixedFigures(0.95, 0.95)
    monkeypatch.setattr("training.evaluate.evaluate", figures)
    monkeypatch.setattr(training.promotion, "reread", read_right)
    models = models_copy(shipped, tmp_path / "models")
    result = calibrate([calibration_photo(tmp_path / "layout.png")], models_root=models,
                       base_val=other_set(tmp_path / "base"), settings=replace(QUICK, finetune_epochs=1, base_check_images=1),
                       log=print, method="auto")
    assert figures.calls == 2  # the version in use, then the fine-tune alone: no few-shot head was judged
    assert result.promoted and result.method == "finetune" and result.to_json()["method_asked"] == "auto"
    assert versions(models) == [result.version] and Registry(models).active_name() == result.version
    version = Registry(models).path_of(result.version)
    card = json.loads((version / "card.json").read_text())
    assert card["method"] == "finetune" and card["method_asked"] == "auto" and "would be promoted" in card["method_reason"]
    assert card["head"] is None and not (version / "prototypes.npz").exists() and card["finetune"]["kept"]
    assert "Method asked: auto; kept: finetune" in (version / "card.md").read_text()


@pytest.mark.slow
def test_auto_falls_back_to_the_few_shot_head_when_the_fine_tune_is_refused(shipped: Path, tmp_path: Path,
                                                                            monkeypatch, capsys) -> None:
    from vision.__main__ import main

    figures = FixedFigures(0.95, 0.90, 0.95)  # the fine-tune reads the base val photos worse; the head does not
    monkeypatch.setattr("training.evaluate.evaluate", figures)
    models = models_copy(shipped, tmp_path / "models")
    photo = calibration_photo(tmp_path / "layout.png")
    code = main(["calibrate", str(photo), "--models", str(models), "--base-val", str(other_set(tmp_path / "base")),
                 "--views", "4", "--method", "auto"])
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads(out.out.strip().splitlines()[-1])
    assert summary["method"] == "fewshot" and summary["method_asked"] == "auto"
    assert "the few-shot head on shipped's classifier instead" in out.err
    assert versions(models) == [summary["version"]]  # one version: the one kept
    version = Registry(models).path_of(summary["version"])
    card = json.loads((version / "card.json").read_text())
    tune = card["finetune"]
    assert card["method"] == "fewshot" and not tune["kept"] and tune["reason"] in card["method_reason"]
    assert figures.calls == 3  # the version in use, the fine-tune, the head
    assert tune["base_val_after"]["read_accuracy"] == 0.90 and tune["epochs"] >= 1  # the fine-tune's figures
    assert card["base_val"]["after"]["read_accuracy"] == 0.95
    assert summary["promoted"] == card["promoted"] == (summary["after"]["read_accuracy"] == 1.0)
    # the head sits on the version in use's classifier, not on the fine-tuned one
    assert card["head"] is not None and (version / "prototypes.npz").is_file()
    assert (version / "classifier_base.onnx").read_bytes() == (shipped / "classifier.onnx").read_bytes()
    assert weights_of(version / "classifier.onnx") >= weights_of(shipped / "classifier.onnx")
    text = (version / "card.md").read_text()
    assert "Method asked: auto; kept: fewshot" in text and "not kept: " in text


def test_auto_without_the_classifier_weights_makes_the_few_shot_head(shipped: Path, tmp_path: Path, capsys) -> None:
    from vision.__main__ import main

    models = models_copy(shipped, tmp_path / "models")
    (models / "classifier.pt").unlink()
    code = main(["calibrate", str(calibration_photo(tmp_path / "layout.png")), "--models", str(models),
                 "--base-val", str(tmp_path / "none"), "--views", "4", "--method", "auto"])
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads(out.out.strip().splitlines()[-1])
    assert summary["method"] == "fewshot" and summary["method_asked"] == "auto"
    card = json.loads((Registry(models).path_of(summary["version"]) / "card.json").read_text())
    assert card["finetune"] is None and "has no classifier.pt" in card["method_reason"]


def test_by_default_the_few_shot_head_is_learned_and_the_classifier_is_not_fine_tuned(
        shipped: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    import training.classifier_tune
    from vision.__main__ import main

    def no_fine_tune(*args, **kwargs):
        raise AssertionError("the classifier was fine-tuned")

    monkeypatch.setattr(training.classifier_tune, "finetune_classifier", no_fine_tune)
    models = models_copy(shipped, tmp_path / "models")
    assert (models / "classifier.pt").is_file()  # the fine-tune could run: it is not asked for
    code = main(["calibrate", str(calibration_photo(tmp_path / "layout.png")), "--models", str(models),
                 "--base-val", str(tmp_path / "none"), "--views", "4"])
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads(out.out.strip().splitlines()[-1])
    assert summary["method"] == summary["method_asked"] == "fewshot"
    version = Registry(models).path_of(summary["version"])
    card = json.loads((version / "card.json").read_text())
    assert card["finetune"] is None and card["head"] is not None and (version / "prototypes.npz").is_file()


@pytest.mark.slow
def test_a_frozen_fine_tune_leaves_the_first_layers_and_their_statistics_as_they_were(shipped: Path, tmp_path: Path) -> None:
    import torch

    from training.classifier_tune import finetune_classifier
    from training.head import Embedder

    rng = np.random.default_rng(3)
    crops = np.stack([cv2.resize(tile_picture(40, 56, k + SHIFT, rng), (32, 32)) for k in range(len(FACE_NAMES))
                      for _ in range(4)])
    labels = np.array([CLASS_ID[name] for name in FACE_NAMES for _ in range(4)])
    names = Embedder(shipped / "classifier.onnx", 1).names
    frozen = 10  # yolo11n-cls: the backbone's ten layers; only the Classify layer learns
    settings = replace(QUICK, finetune_freeze=frozen, finetune_epochs=2, finetune_seconds=600.0, finetune_lr0=0.01)
    tune = finetune_classifier(tmp_path, shipped / "classifier.pt", shipped / "classifier.onnx", names, 32,
                               (crops, labels), (crops[::4], labels[::4]), (crops[:0], labels[:0]), settings, 0, print)

    def state(checkpoint: Path) -> dict[str, torch.Tensor]:
        loaded = torch.load(checkpoint, map_location="cpu", weights_only=False)
        return {k: v.float() for k, v in (loaded["ema"] or loaded["model"]).state_dict().items()}

    before, after = state(shipped / "classifier.pt"), state(tune.checkpoint)
    layer = {k: int(k.split(".")[1]) for k in before}
    assert any(k.endswith("running_mean") for k in before if layer[k] < frozen)  # the statistics are compared too
    for key in before:
        if layer[key] < frozen:
            assert torch.equal(before[key], after[key]), key
    assert any(not torch.equal(before[k], after[k]) for k in before if layer[k] == frozen)
