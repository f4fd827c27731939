"""The finder's training command (`training.finder`): its data in the finder's two classes, a run that stops at
its time budget and keeps a checkpoint with the optimizer, and a later run that goes on from it."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tileset.classes import BACK_ID, CLASS_ID
from training.finder import FinderTrainError, TrainOptions, add_images, main, train

REPO = Path(__file__).resolve().parent.parent


def _labeled(folder: Path, name: str, lines: list[str]) -> None:
    import cv2
    import numpy as np

    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "images" / f"{name}.jpg"), np.full((48, 64, 3), 120, np.uint8))
    (folder / "labels" / f"{name}.txt").write_text("".join(f"{line}\n" for line in lines))


def test_images_are_linked_with_their_labels_in_the_finders_two_classes(tmp_path: Path) -> None:
    source = tmp_path / "source"
    _labeled(source, "a", [f"{CLASS_ID['5m']} 0.5 0.5 0.2 0.3", f"{BACK_ID} 0.2 0.2 0.1 0.1", "broken line"])
    _labeled(source, "b", [])
    _labeled(source, "c", [f"{CLASS_ID['f1']} 0.4 0.4 0.1 0.1"])
    target = tmp_path / "finder" / "train"
    assert add_images(source, target, "real") == 3
    assert (target / "images" / "real_a.jpg").resolve() == (source / "images" / "a.jpg").resolve()
    assert (target / "labels" / "real_a.txt").read_text() == "0 0.5 0.5 0.2 0.3\n1 0.2 0.2 0.1 0.1\n"
    assert (target / "labels" / "real_b.txt").read_text() == ""
    assert add_images(source, tmp_path / "two", "x", limit=2) == 2


def test_missing_data_or_checkpoint_is_said_plainly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--data", str(tmp_path / "none"), "--minutes", "1"]) == 2
    assert "no finder data" in capsys.readouterr().err
    (tmp_path / "data.yaml").write_text("names: {0: tile, 1: back}\n")
    assert main(["train", "--data", str(tmp_path / "data.yaml"), "--minutes", "1", "--resume", "--work",
                 str(tmp_path / "run")]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    assert main(["prepare", "--real", str(tmp_path / "no-real"), "--art", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "no real photo folder" in capsys.readouterr().err
    with pytest.raises(FinderTrainError, match="above 0"):
        train(TrainOptions(tmp_path / "data.yaml", tmp_path / "run", minutes=0))


def _epochs_in(results: Path) -> list[int]:
    with results.open() as f:
        return [int(row["epoch"]) for row in csv.DictReader(f)]


@pytest.mark.slow
def test_a_run_stops_at_its_budget_and_the_next_goes_on_from_its_checkpoint(tmp_path: Path) -> None:
    pytest.importorskip("ultralytics", reason="ultralytics is in the train extra")
    import torch

    from datasets.fake_art import write_fake_art
    from training.finder import write_data_yaml

    art = write_fake_art(tmp_path / "art")
    scenes = tmp_path / "scenes"
    synth = [sys.executable, "-m", "datasets.synth", "--view", "standing", "--at-play", "--art", str(art), "--out",
             str(scenes), "--n", "6", "--seed", "5"]
    subprocess.run(synth, cwd=REPO, check=True, capture_output=True)
    data = tmp_path / "data"
    add_images(scenes, data / "train", "s")
    add_images(scenes, data / "val", "s", limit=2)
    data_yaml = write_data_yaml(data)
    weights = REPO / "models" / "detector.pt"
    env = dict(os.environ, YOLO_OFFLINE="1", YOLO_CONFIG_DIR=str(tmp_path / "yolo"))
    work = tmp_path / "run"
    command = [sys.executable, "-m", "training.finder", "train", "--data", str(data_yaml), "--work", str(work),
               "--imgsz", "128", "--batch", "2", "--workers", "0", "--cache", "off"]

    first = subprocess.run([*command, "--minutes", "0.01", "--weights", str(weights), "--mosaic", "0",
                            "--save-period", "1"], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-3000:]
    done = re.search(r"done: (\d+) epoch\(s\), (\d+) batches", first.stdout)
    assert done, first.stdout[-2000:]
    ran = int(done.group(1))
    assert 1 <= ran < 300 and int(done.group(2)) >= 1  # 0.6 s of budget: stopped long before its 300 epochs
    resume = work / "finder" / "resume.pt"
    state = torch.load(resume, map_location="cpu", weights_only=False)
    assert state["optimizer"] is not None and state["epoch"] == ran - 1
    assert state["train_args"]["mosaic"] == 0.0  # whole images, as asked
    assert len(list((work / "finder" / "weights").glob("epoch*.pt"))) == ran  # one kept for every epoch
    assert _epochs_in(work / "finder" / "results.csv") == list(range(1, ran + 1))

    second = subprocess.run([*command, "--minutes", "0.01", "--resume"], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=900)
    assert second.returncode == 0, second.stderr[-3000:]
    assert f"resuming from {resume}" in second.stdout and f"epoch {ran + 1} of 300" in second.stdout
    epochs = _epochs_in(work / "finder" / "results.csv")
    assert epochs[: ran + 1] == list(range(1, ran + 2)) and epochs == sorted(set(epochs))  # the count goes on
    assert torch.load(resume, map_location="cpu", weights_only=False)["epoch"] == epochs[-1] - 1
    assert (work / "finder" / "weights" / "last.pt").is_file()
    assert torch.load(resume, map_location="cpu", weights_only=False)["train_args"]["mosaic"] == 0.0  # kept on resume


def test_batchnorm_layers_keep_their_statistics_while_the_rest_trains() -> None:
    torch = pytest.importorskip("torch", reason="torch is in the train extra")
    from types import SimpleNamespace

    from training.finder import keep_batchnorm

    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU())
    model.train()
    before = model[1].running_mean.clone()
    keep_batchnorm(SimpleNamespace(model=model))
    assert model.training and model[0].training and not model[1].training
    model(torch.randn(2, 3, 8, 8) + 5.0)
    assert torch.equal(model[1].running_mean, before)


def _write_real_photos(root: Path) -> Path:
    """A tiny real set in chinese-v4's form (manifest.csv, YOLO splits), two sessions a split, real JPEGs."""
    import cv2
    import numpy as np

    rows = []
    for split in ("train", "val", "test"):
        for session in range(2):
            image = f"photo-{split}-{session}_jpg.rf.{session}.jpg"  # its own capture session
            rows.append((split, image, image.split("_jpg")[0], image.split("_jpg")[0]))
            (root / "images" / split).mkdir(parents=True, exist_ok=True)
            (root / "labels" / split).mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(root / "images" / split / image), np.full((120, 160, 3), 90 + 40 * session, np.uint8))
            (root / "labels" / split / f"{Path(image).stem}.txt").write_text(f"{CLASS_ID['7p']} 0.5 0.5 0.2 0.3\n")
    with (root / "manifest.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["split", "image", "source_root", "group"])
        writer.writerows(rows)
    return root


@pytest.mark.slow
def test_prepare_mixes_real_photos_with_views_at_play_hands_and_calibration_layouts(tmp_path: Path) -> None:
    import yaml

    from datasets.fake_art import write_fake_art
    from training.finder import prepare

    real, art, out = _write_real_photos(tmp_path / "real"), write_fake_art(tmp_path / "art"), tmp_path / "fd"
    summary = prepare(real, art, out, standing=3, hands=2, val_standing=1, seed=7, workers=1, calibration=2,
                      log=lambda _line: None, kong_hands=2, real_play=2)
    train, val = out / "finder" / "train", out / "finder" / "val"
    counts = summary["images"]
    assert {k: counts[k] for k in ("standing", "hands", "kong_hands", "calibration", "standing_val")} == {
        "standing": 3, "hands": 2, "kong_hands": 2, "calibration": 2, "standing_val": 1}
    real_photos = [p for p in (train / "images").glob("real_*") if not p.name.startswith("real_squeezed_")]
    assert counts["real_play"] == 2 * len(real_photos)  # two scenes of each train photo's own tiles
    for labels in (train / "labels").glob("realplay_*.txt"):
        assert {line.split()[0] for line in labels.read_text().splitlines()} == {"0"}
    for labels in sorted((train / "labels").glob("kong_hands_*.txt")):  # each concealed kong: two lying backs
        assert [line.split()[0] for line in labels.read_text().splitlines()].count("1") in (2, 4)
    assert counts["real_train"] >= 2 and counts["real_val"] >= 1  # split again by session, squeezed copies added
    sessions = lambda folder: {re.search(r"photo-\w+-\d", p.name).group() for p in (folder / "images").glob("real_*")}  # noqa: E731
    assert not sessions(train) & sessions(val)  # no capture session in both
    layouts = sorted((train / "labels").glob("calibration_*.txt"))
    assert len(layouts) == 2
    for labels in layouts:  # every face of the set in rows, in the finder's two classes
        classes = [int(line.split()[0]) for line in labels.read_text().splitlines()]
        assert len(classes) >= 34 and set(classes) <= {0, 1}
    config = yaml.safe_load((out / "finder" / "data.yaml").read_text())
    assert config["names"] == {0: "tile", 1: "back"} or list(config["names"].values()) == ["tile", "back"]
    again = prepare(real, art, out, standing=3, hands=2, val_standing=1, seed=7, workers=1, calibration=2,
                    log=lambda _line: None, kong_hands=2, real_play=2)
    assert again["images"] == summary["images"]  # parts already drawn are used again


@pytest.mark.slow
def test_prepare_without_rooms_trains_on_the_same_views_less_the_rooms(tmp_path: Path) -> None:
    from datasets.fake_art import write_fake_art
    from training.finder import prepare

    real, art, out = _write_real_photos(tmp_path / "real"), write_fake_art(tmp_path / "art"), tmp_path / "fd"
    names = {}
    for rooms in (True, False):
        prepare(real, art, out, standing=12, hands=0, val_standing=0, seed=7, workers=1, calibration=0,
                log=lambda _line: None, rooms=rooms)
        names[rooms] = {p.name for p in (out / "finder" / "train" / "images").glob("standing_*")}
    drawn_rooms = {f"standing_{p.name}" for p in (out / "parts" / "standing" / "images").glob("*_room.jpg")}
    assert drawn_rooms and drawn_rooms < names[True]  # seed 7 draws rooms among its 12 views
    assert names[False] == names[True] - drawn_rooms


def test_blend_mixes_a_fine_tune_with_the_finder_it_started_from(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="torch is in the train extra")
    pytest.importorskip("ultralytics", reason="ultralytics is in the train extra")
    import copy

    import numpy as np

    from training.finder import blend

    base = REPO / "models" / "detector.pt"
    saved = torch.load(base, map_location="cpu", weights_only=False)
    start = copy.deepcopy(saved["model"]).float().state_dict()
    tuned = []
    for epoch, step in ((3, 0.01), (4, 0.03)):
        network = copy.deepcopy(saved["model"]).float()
        with torch.no_grad():
            for parameter in network.parameters():
                parameter.add_(step)
        tuned.append(tmp_path / f"epoch{epoch}.pt")  # as a run keeps it: the network in 'ema', no 'model'
        torch.save({**saved, "model": None, "ema": network.half(), "train_args": {**saved["train_args"], "imgsz": 416}},
                   tuned[-1])

    name = next(name for name, value in start.items() if value.is_floating_point() and value.numel() > 100)
    one = blend(base, tuned[0], 0.25, tmp_path / "one.pt")
    mixed = torch.load(one, map_location="cpu", weights_only=False)["model"].float().state_dict()
    assert torch.allclose(mixed[name], start[name] + 0.25 * 0.01, atol=2e-3)
    assert not torch.allclose(mixed[name], start[name], atol=1e-3)
    out = blend(base, tuned, 0.5, tmp_path / "soup.pt")  # half way to the mean of the two: +0.01
    soup = torch.load(out, map_location="cpu", weights_only=False)
    assert torch.allclose(soup["model"].float().state_dict()[name], start[name] + 0.01, atol=2e-3)
    assert soup["train_args"]["imgsz"] == 416  # exported at the size it was tuned at

    from ultralytics import YOLO

    YOLO(str(out)).predict(np.full((128, 128, 3), 127, np.uint8), imgsz=128, verbose=False)  # loads and runs

    other = tmp_path / "other.pt"
    torch.save({"model": torch.nn.Conv2d(3, 4, 3)}, other)
    with pytest.raises(FinderTrainError, match="not the same network"):
        blend(base, other, 0.5, tmp_path / "never.pt")
    with pytest.raises(FinderTrainError, match="between 0 and 1"):
        blend(base, tuned, 1.5, tmp_path / "never.pt")
    with pytest.raises(FinderTrainError, match="no fine-tune"):
        blend(base, [], 0.5, tmp_path / "never.pt")
    assert not (tmp_path / "never.pt").exists()


def _photo_with_a_heap(folder: Path, name: str) -> None:
    """A table photo in chinese-v4's form: three labeled tiles in a row and a red heap the labels leave out."""
    import cv2
    import numpy as np

    picture = np.full((240, 320, 3), (40, 120, 40), np.uint8)
    lines = []
    for k in range(3):
        x = 60 + 40 * k
        cv2.rectangle(picture, (x, 100), (x + 30, 140), (235, 235, 235), -1)
        cv2.line(picture, (x + 8, 110 + 5 * k), (x + 22, 130), (20, 20, 20), 3)
        lines.append(f"{CLASS_ID['5m']} {(x + 15) / 320:.4f} {120 / 240:.4f} {30 / 320:.4f} {40 / 240:.4f}")
    cv2.rectangle(picture, (230, 20), (300, 90), (0, 0, 255), -1)
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "images" / f"{name}.jpg"), picture)
    (folder / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")


def test_real_play_stands_each_photos_own_tiles_on_its_table_with_what_the_finder_boxes_painted_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from training import play_scenes
    from training.finder import draw_real_play

    photos = tmp_path / "photos"
    for name in ("p_jpg.rf.1", "p_jpg.rf.2", "squeezed_p_jpg.rf.1", "q_jpg.rf.1"):  # a copy of p and a squeezed one
        _photo_with_a_heap(photos, name)
    painted: list[np.ndarray] = []

    def table_of(picture: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        painted.append(np.asarray(boxes))
        return real_table_of(picture, boxes)

    real_table_of = play_scenes.table_of
    monkeypatch.setattr(play_scenes, "table_of", table_of)
    heap = np.array([[230, 20, 300, 90]], np.float32)
    out = tmp_path / "scenes"
    assert draw_real_play(photos, out, 2, seed=5, find_boxes=lambda _picture: heap) == 4  # p and q, two each
    assert sorted(p.name for p in (out / "images").iterdir()) == [
        "realplay_p_jpg_0.jpg", "realplay_p_jpg_1.jpg", "realplay_q_jpg_0.jpg", "realplay_q_jpg_1.jpg"]
    assert len(painted) == 2 and all(len(boxes) == 4 and (boxes == heap[0]).all(axis=1).any() for boxes in painted)
    for labels in (out / "labels").iterdir():
        rows = [line.split() for line in labels.read_text().splitlines()]
        assert rows and all(row[0] == "0" and all(0.0 <= float(v) <= 1.0 for v in row[1:]) for row in rows)
    again = tmp_path / "again"
    draw_real_play(photos, again, 2, seed=5, find_boxes=lambda _picture: heap)
    assert (again / "labels" / "realplay_q_jpg_1.txt").read_text() == (out / "labels" / "realplay_q_jpg_1.txt").read_text()
    shipped = tmp_path / "shipped"  # by default the shipped finder's boxes are painted out: it boxes the drawn tiles
    assert draw_real_play(photos, shipped, 1, seed=5) == 2 and len(painted) == 6 and len(painted[-1]) > 3
