"""`read_detections`, `python -m vision read` and `python -m vision.evaluate_read`."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from datasets.hands import random_hand
from datasets.scene import plan_scene
from scoring import score
from scoring.hand import Hand, WinContext
from scoring.notation import parse_hand
from tileset.classes import CLASS_ID, FLOWER_NAMES
from training import evaluate_read
from training.evaluate_read import hand_key
from vision import read
from vision.detections import Detections
from vision.images import ImageError
from vision.issues import IssueCode
from vision.read import ReadResult, read_detections
from vision.settings import MODELS_DIR, LayoutSettings

SIZE = (1280, 960)


def scene_detections(hand: Hand, seed: int) -> Detections:
    tiles = plan_scene(hand, random.Random(seed), *SIZE)
    return Detections.from_lists([t.xyxy for t in tiles], [0.97] * len(tiles), [CLASS_ID[t.cls] for t in tiles])


def test_read_json_has_the_contract_shape_and_the_score() -> None:
    hand = parse_hand("[123m] [EEE] (5555p) 78s11p +9s self-drawn seat=S flowers=2")
    result = read_detections(scene_detections(hand, 4), hand.context)
    out = result.to_json("photo.jpg")
    assert list(out) == ["image", "tiles", "hand", "issues", "score"]
    assert out["image"] == "photo.jpg" and out["issues"] == []
    assert all(list(t) == ["cls", "xyxy", "conf", "group"] for t in out["tiles"])
    assert sorted(t["group"] for t in out["tiles"]).count("win") == 1
    assert hand_key(Hand.from_json(out["hand"])) == hand_key(hand)
    assert out["score"] == score(result.hand).to_json()  # type: ignore[arg-type]
    assert out["score"]["total"] == score(hand).total
    json.dumps(out)  # serialisable as it is


def test_flowers_in_the_context_are_replaced_by_the_flowers_read() -> None:
    hand = parse_hand("[123m] [EEE] 456p789s1s +1s flowers=3")
    result = read_detections(scene_detections(hand, 1), WinContext(flowers=8))
    assert result.hand is not None and result.hand.context.flowers == 3


def test_a_complete_count_that_is_not_a_winning_hand_is_reported_not_scored() -> None:
    names = ["1m", "3m", "5m", "7m", "9m", "1p", "3p", "5p", "7p", "9p", "1s", "3s", "5s", "E"]
    boxes = [[40.0 * i + (30 if i == 13 else 0), 500, 40.0 * i + 38 + (30 if i == 13 else 0), 552] for i in range(14)]
    result = read_detections(Detections.from_lists(boxes, [0.9] * 14, [CLASS_ID[n] for n in names]))
    assert result.hand is not None and result.score is None
    assert any(i.code is IssueCode.NOT_SCORED and i.message().startswith("not scored:") for i in result.issues)
    assert result.to_json("x")["score"] is None


def test_empty_photo_gives_null_hand_and_a_reason() -> None:
    out = read_detections(Detections.empty()).to_json("empty.jpg")
    assert out["hand"] is None and out["score"] is None and out["tiles"] == []
    assert out["issues"] == ["no tiles were found in the photo"]


def test_issues_name_tiles_by_their_index_in_the_result_and_print_as_sentences() -> None:
    hand = parse_hand("[123m] [EEE] 456p789s1s +1s")
    dets = scene_detections(hand, 1)
    conf = dets.confidence.copy()
    conf[5] = 0.3
    result = read_detections(Detections(dets.xyxy, conf, dets.class_id))
    (low,) = [i for i in result.issues if i.code is IssueCode.LOW_CONFIDENCE]
    assert result.tiles[low.tiles[0]]["conf"] == pytest.approx(0.3)
    assert result.tiles[low.tiles[0]]["cls"] == low.params["name"]
    out = result.to_json("x")
    assert out["issues"] == [i.message() for i in result.issues] == [str(i) for i in result.issues]
    assert all(isinstance(i, str) for i in out["issues"])


class FakeDetector:
    def __init__(self, dets: Detections) -> None:
        self.dets = dets
        self.files: list[str] = []

    def detect_file(self, path: str) -> tuple[Detections, tuple[int, int]]:
        self.files.append(path)
        if path.endswith(".txt"):
            raise ImageError(f"{path} is not an image")
        return self.dets, SIZE


def test_cli_prints_one_line_per_image_and_goes_on_after_a_bad_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hand = parse_hand("[789s] [NNN] 123p456p5m +5m")
    fake = FakeDetector(scene_detections(hand, 2))
    monkeypatch.setattr(read, "load_detector", lambda model_dir, settings=None: fake)
    code = read.main(["a.jpg", "notes.txt", "b.jpg", "--self-drawn", "--seat-wind", "S", "--prevalent-wind", "W"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1 and sorted(fake.files) == ["a.jpg", "b.jpg", "notes.txt"]  # read two at a time
    assert [line["image"] for line in lines] == ["a.jpg", "notes.txt", "b.jpg"]
    assert lines[1] == {"image": "notes.txt", "error": "notes.txt is not an image"}
    got = lines[0]["hand"]
    assert got["self_drawn"] is True and got["seat_wind"] == "S" and got["prevalent_wind"] == "W"
    assert lines[0]["score"]["total"] == score(Hand.from_json(got)).total


def test_cli_reports_a_missing_model_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert read.main(["a.jpg", "--model", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot load the tile detector") and "Traceback" not in err


def test_evaluate_read_generated_scenes(capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate_read.main(["--generate", "30", "--seed", "5", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["scenes"] == 30
    assert summary["hands_exact"] == 30 and summary["scores_right"] == 30
    assert summary["failures"] == {"detection": 0, "winning tile": 0, "layout": 0}


def test_evaluate_read_sets_a_layout_reader_setting_with_the_layout_prefix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[LayoutSettings] = []

    def recording(dets: Detections, context: WinContext, settings: LayoutSettings, **kw: object) -> ReadResult:
        seen.append(settings)
        return read_detections(dets, context, settings, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(evaluate_read, "read_detections", recording)
    assert evaluate_read.main(["--generate", "3", "--json", "--set", "layout.breach_doubt_confidence=0.8"]) == 0
    assert [s.breach_doubt_confidence for s in seen] == [0.8] * 3
    assert seen[0].doubtful_confidence == LayoutSettings().doubtful_confidence
    with pytest.raises(SystemExit):
        evaluate_read.main(["--generate", "3", "--set", "layout.no_such_setting=1"])
    assert "LayoutSettings has no setting 'no_such_setting'" in capsys.readouterr().err


def test_evaluate_read_names_the_cause_of_each_failure() -> None:
    rng = random.Random(11)
    hand = random_hand(rng, shape="standard")
    tiles = plan_scene(hand, rng, *SIZE, win_gap=0.0, row_gap=0.0)
    scene = evaluate_read.Scene("s", hand, None, tuple((t.cls, tuple(t.xyxy)) for t in tiles), None)
    no_gap = evaluate_read.judge(scene, read_detections(evaluate_read.truth_detections(scene), hand.context))
    assert not no_gap.exact and no_gap.cause == "winning tile"
    dets = evaluate_read.truth_detections(scene)
    missing = evaluate_read.judge(scene, read_detections(dets[np.arange(1, len(dets))], hand.context))
    assert not missing.exact and missing.cause == "detection"
    assert missing.detail == f"missed: {tiles[0].cls}; extra: -"


def test_evaluate_read_over_a_scenes_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "truth").mkdir()
    for k in range(3):
        rng = random.Random(k)
        hand = random_hand(rng)
        tiles = plan_scene(hand, rng, *SIZE)
        truth = {"image": f"images/{k}.jpg", "width": SIZE[0], "height": SIZE[1], "art": "none",
                 "hand": hand.to_json(), "expected_total": score(hand).total, "tiles": [t.to_json() for t in tiles]}
        (tmp_path / "truth" / f"{k}.json").write_text(json.dumps(truth))
    assert evaluate_read.main([str(tmp_path), "--perfect"]) == 0
    out = capsys.readouterr().out
    assert "hands read exactly: 3/3" in out and "scores right: 3 (100.0%" in out


ART = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "art"  # shared/ beside the checkout


@pytest.mark.slow
@pytest.mark.skipif(not (MODELS_DIR / "detector.onnx").is_file(), reason="no shipped model in models/detector.onnx yet")
@pytest.mark.skipif(not ART.is_dir(), reason=f"artwork folder {ART} not available")
def test_end_to_end_with_the_shipped_models(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Render a few scenes of the training artwork and read them with the shipped models: most come out exactly.

    (The held-out artwork is measured by `python -m vision.evaluate_read`, not asserted here.)
    """
    from datasets import synth

    synth.main(["--art", str(ART), "--out", str(tmp_path), "--n", "6", "--seed", "900",
                "--hold-out", "kde-traditional", "--hold-out", "gnome-smooth"])
    capsys.readouterr()
    assert evaluate_read.main([str(tmp_path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["scenes"] == 6 and summary["hands_exact"] >= 4, summary


def test_evaluate_read_loads_the_detector_with_the_set_settings(tmp_path, monkeypatch, capsys) -> None:
    seen = []

    def load_detector(model_dir, settings=None):
        seen.append(settings)
        raise RuntimeError("no models here")

    monkeypatch.setattr(read, "load_detector", load_detector)
    assert evaluate_read.main([str(tmp_path), "--set", "rules_off=mirror", "--set", "mirror.sure_conf=0.5"]) == 2
    assert seen[0].rules_off == frozenset({"mirror"}) and seen[0].mirror.sure_conf == 0.5
    with pytest.raises(SystemExit) as stopped:
        evaluate_read.main([str(tmp_path), "--set", "mirror"])
    assert stopped.value.code == 2 and "write FIELD=VALUE" in capsys.readouterr().err


def test_a_back_lying_apart_whose_face_reads_as_a_flower_is_counted_as_that_flower() -> None:
    """The finder boxed the hand's one flower as a back; a calibrated classifier read its face as that flower
    (its runner-up). Apart from the rows, it is counted as it and said so; the concealed kong's backs, whose
    faces also read as that flower here, stay backs. Without that reading, or with the setting off, it is
    unused."""
    hand = parse_hand("[123m] (5555p) 78s11p [EEE] +9s self-drawn seat=S flowers=1")
    truth = scene_detections(hand, 4)
    (flower,) = [i for i, name in enumerate(truth.class_names) if name in FLOWER_NAMES]
    face = truth.class_id[flower]
    backs = [i for i, name in enumerate(truth.class_names) if name == "back"]
    assert len(backs) == 2, "the concealed kong shows two backs"
    classes = truth.class_id.copy()
    classes[flower] = CLASS_ID["back"]
    runner_up = np.full(len(truth), -1, np.int64)
    runner_up[[flower, *backs]] = face
    boxed_as_back = Detections(truth.xyxy, truth.confidence, classes, runner_up)

    result = read_detections(boxed_as_back, hand.context)
    assert result.hand is not None and hand_key(result.hand) == hand_key(hand)
    assert result.hand.context.flowers == 1 and len(result.hand.melds) == 3
    (said,) = [i for i in result.issues if i.code is IssueCode.BACK_AS_FLOWER]
    assert said.tiles == (flower,) and said.params["read_as"] == truth.class_names[flower]
    assert "counted the back at" in said.message() and "correct it if it is a back" in said.message()
    assert [result.detections.class_names[i] for i in backs] == ["back", "back"]
    assert result.tiles[flower]["cls"] == truth.class_names[flower] and result.tiles[flower]["group"] == "flowers"
    assert not any(i.code is IssueCode.STRAY_UNUSED for i in result.issues)

    unread = Detections(truth.xyxy, truth.confidence, classes, np.where(np.arange(len(truth)) == flower, -1, runner_up))
    off = LayoutSettings(stray_backs_as_flowers=False)
    for dets, settings in ((unread, LayoutSettings()), (boxed_as_back, off)):
        result = read_detections(dets, hand.context, settings)
        assert result.hand is not None and result.hand.context.flowers == 0
        assert any(i.code is IssueCode.STRAY_UNUSED for i in result.issues)
        assert not any(i.code is IssueCode.BACK_AS_FLOWER for i in result.issues)
