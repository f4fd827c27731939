"""The adaptation pipeline end to end: versions, cards, promotion only when better, going back.

Fast tests use hand-built ONNX models (tests/adapt_world.py) and a stand-in for the training step,
so the models' quality is known exactly; the slow test fine-tunes a tiny real classifier.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adapt_world import colour_reader, constant_tile_finder, write_photos

from training.adapt import AdaptError, RetrainRequest, adapt
from training.adapt import main as adapt_main
from vision.detector import TileDetector
from vision.registry import SHIPPED, Registry
from vision.settings import AdaptSettings


def shipped_models(root: Path, reads: str) -> Path:
    """A models folder whose classifier reads artwork `reads` perfectly (and a stand-in classifier.pt)."""
    constant_tile_finder(root / "detector.onnx")
    colour_reader(root / "classifier.onnx", reads)
    (root / "classifier.pt").write_bytes(b"stand-in checkpoint")
    return root


def retrainer_reading(artwork: str):
    """A training step stand-in whose 'fine-tuned' classifier reads `artwork`."""
    calls: list[RetrainRequest] = []

    def retrain(request: RetrainRequest) -> Path:
        calls.append(request)
        assert request.data_yaml.is_file(), "the pipeline builds the training dataset first"
        colour_reader(request.out_onnx, artwork, request.imgsz)
        checkpoint = request.work / "best.pt"
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        checkpoint.write_bytes(f"reads {artwork}".encode())
        return checkpoint

    retrain.calls = calls  # type: ignore[attr-defined]
    return retrain


def test_promotes_a_better_model_and_can_go_back(tmp_path: Path) -> None:
    photos = tmp_path / "club"
    write_photos(photos, 8, "B", seed=1)  # the club's tiles: artwork B, unknown to the shipped model
    models = shipped_models(tmp_path / "models", reads="A")
    retrain = retrainer_reading("B")
    lines: list[str] = []

    result = adapt(photos, models_root=models, name="club", retrain=retrain, log=lines.append)

    assert result.old.read_accuracy == 0.0 and result.new.read_accuracy == 1.0
    assert result.decision.promote
    registry = Registry(models)
    assert registry.active_name() == result.version
    assert [r.role for r in retrain.calls] == ["classifier"], "recall is perfect: the tile finder is left alone"
    card = json.loads((result.version_dir / "card.json").read_text())
    assert card["parent"] == SHIPPED and card["promoted"] is True
    assert card["metrics"]["read_accuracy"] == 1.0 and card["parent_metrics"]["read_accuracy"] == 0.0
    assert sorted(card["data"]["held_back_photos"] + card["data"]["train_photos"]) == sorted(
        p.stem for p in (photos / "images").iterdir())
    assert (result.version_dir / "classifier.pt").read_bytes() == b"reads B"
    assert (result.version_dir / "detector.onnx").is_file(), "unchanged models are carried into the version"
    assert (result.version_dir / "card.md").read_text().startswith(f"# Model version {result.version}")
    assert not (result.version_dir / "work").exists()
    assert any(line.startswith("[adapt 5/5] promoted") for line in lines)

    assert registry.back().name == SHIPPED
    assert TileDetector.load(registry.active_dir()).model_info.classifier_path == str(models / "classifier.onnx")


def test_refuses_a_worse_model(tmp_path: Path) -> None:
    photos = tmp_path / "club"
    write_photos(photos, 8, "A", seed=2)  # the shipped model already reads these tiles perfectly
    models = shipped_models(tmp_path / "models", reads="A")

    result = adapt(photos, models_root=models, retrain=retrainer_reading("B"), log=lambda line: None)

    assert (result.old.read_accuracy, result.new.read_accuracy) == (1.0, 0.0)
    assert not result.decision.promote and "worse" in result.decision.reason
    registry = Registry(models)
    assert registry.active_name() == SHIPPED
    card = json.loads((result.version_dir / "card.json").read_text())
    assert card["promoted"] is False, "the rejected version is kept, with its card, for inspection"


def test_failed_training_leaves_no_version(tmp_path: Path) -> None:
    photos = tmp_path / "club"
    write_photos(photos, 6, "B", seed=3)
    models = shipped_models(tmp_path / "models", reads="A")

    def broken(request: RetrainRequest) -> Path:
        raise AdaptError("out of disk")

    with pytest.raises(AdaptError, match="out of disk"):
        adapt(photos, models_root=models, retrain=broken, log=lambda line: None)
    assert not (models / "versions").exists() or not any(p.is_dir() for p in (models / "versions").iterdir())
    assert Registry(models).active_name() == SHIPPED


def test_cli_reports_bad_input_without_traceback(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    photos = tmp_path / "club"
    write_photos(photos, 2, "B", seed=4)
    models = shipped_models(tmp_path / "models", reads="A")
    assert adapt_main([str(photos), "--models", str(models)]) == 2
    assert "label at least 4" in capsys.readouterr().err
    assert adapt_main([str(tmp_path / "nowhere"), "--models", str(models)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_missing_weights_are_named(tmp_path: Path) -> None:
    photos = tmp_path / "club"
    write_photos(photos, 6, "B", seed=5)
    models = shipped_models(tmp_path / "models", reads="A")
    (models / "classifier.pt").unlink()
    with pytest.raises(AdaptError, match=r"classifier.pt"):
        adapt(photos, models_root=models, retrain=retrainer_reading("B"), log=lambda line: None)


@pytest.mark.slow
def test_real_fine_tuning_one_short_epoch(tmp_path: Path) -> None:
    """Train a tiny classifier on artwork A, then adapt it to artwork B with ultralytics for one epoch."""
    pytest.importorskip("ultralytics", reason="ultralytics is in the train extra")
    import yaml

    from tileset.classes import CLASS_NAMES
    from training.export import export_checkpoint
    from training.train import _ultralytics_environment, prepare_classifier_data

    base = tmp_path / "base"
    write_photos(base, 14, "A", seed=10)  # every face twice
    data_yaml = tmp_path / "base.yaml"
    data_yaml.write_text(yaml.safe_dump({"path": str(base), "train": "images", "val": "images",
                                         "names": list(CLASS_NAMES)}))
    crops = prepare_classifier_data(data_yaml, tmp_path / "pretrain", 32, workers=1, seed=0)
    _ultralytics_environment()
    from ultralytics import YOLO

    YOLO("yolo11n-cls.yaml").train(data=str(crops), epochs=1, imgsz=32, batch=32, device="cpu", workers=0,
                                   project=str(tmp_path / "runs"), name="pre", plots=False, amp=False, verbose=False)
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(tmp_path / "runs" / "pre" / "weights" / "last.pt", models / "classifier.pt")
    export_checkpoint(models / "classifier.pt", models / "classifier.onnx", "classifier")
    constant_tile_finder(models / "detector.onnx")

    club = tmp_path / "club"
    write_photos(club, 8, "B", seed=11)
    settings = AdaptSettings(base_images=10, base_val_images=2, user_repeat=2, hard_negatives=2, reserve_seconds=0.0)
    # a budget of 0.6 s and 3 epochs asked: training stops at the budget, inside the first epoch, and what it
    # learned until then is exported and judged like any fine-tune
    result = adapt(club, base_data=base, epochs=3, models_root=models, settings=settings, log=print, minutes=0.01)

    version = result.version_dir
    assert (version / "classifier.onnx").is_file() and (version / "classifier.pt").is_file()
    assert (version / "classifier.pt").read_bytes() != (models / "classifier.pt").read_bytes()
    assert TileDetector.load(version).model_info.classifier_imgsz == 32
    card = json.loads((version / "card.json").read_text())
    assert card["promoted"] == (result.new.read_accuracy > result.old.read_accuracy)
    assert Registry(models).active_name() == (result.version if card["promoted"] else SHIPPED)


def test_a_time_budget_is_shared_by_the_models_still_to_train_less_the_reserve(tmp_path: Path) -> None:
    photos = tmp_path / "club"
    write_photos(photos, 8, "B", seed=1)
    models = shipped_models(tmp_path / "models", reads="A")
    (models / "detector.pt").write_bytes(b"stand-in checkpoint")
    reading_b = retrainer_reading("B")
    calls: list[RetrainRequest] = []

    def retrain(request: RetrainRequest) -> Path:  # the classifier learns B; the finder stays as it was
        calls.append(request)
        if request.role == "classifier":
            return reading_b(request)
        shutil.copy(request.weights.with_suffix(".onnx"), request.out_onnx)
        return request.weights

    settings = AdaptSettings(detector_recall_min=2.0, reserve_seconds=60.0)  # the finder is fine-tuned too
    result = adapt(photos, models_root=models, retrain=retrain, log=lambda line: None, settings=settings, minutes=10)
    classifier, detector = calls
    assert (classifier.role, detector.role) == ("classifier", "detector")
    assert classifier.seconds is not None and detector.seconds is not None
    assert 250 < classifier.seconds <= 270 and 500 < detector.seconds <= 540  # (600 - 60) / 2, then what is left
    card = json.loads((result.version_dir / "card.json").read_text())
    assert card["minutes"] == 10
    untimed = retrainer_reading("B")
    adapt(photos, models_root=models, retrain=untimed, log=lambda line: None)
    assert [r.seconds for r in untimed.calls] == [None]


def test_finder_flag_fine_tunes_the_tile_finder_whatever_its_recall(monkeypatch: pytest.MonkeyPatch) -> None:
    import training.adapt as adapt_module

    seen: list[AdaptSettings] = []

    def record(labeled_dir, **kwargs):
        seen.append(kwargs["settings"])
        raise AdaptError("stop here")

    monkeypatch.setattr(adapt_module, "adapt", record)
    assert adapt_main(["club"]) == 2 and adapt_main(["club", "--finder"]) == 2
    default, finder = seen
    assert not adapt_module.needs_detector(1.0, default), "a finder that finds every tile is left alone"
    assert adapt_module.needs_detector(1.0, finder), "--finder: fine-tuned all the same"
