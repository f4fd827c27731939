"""datasets.build: sessions never span train and val, val is un-augmented, files are copies."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from datasets.build import main
from tileset.classes import CLASS_NAMES


def _write_real(root: Path) -> Path:
    """A tiny real dataset in the form of shared/datasets/real/chinese-v4 (manifest.csv + YOLO splits)."""
    rows = []
    # dated sessions: augmented train copies and un-augmented val/test photos of the same day
    for day in range(6):
        group = f"IMG_2023120{day}"
        for photo in range(2):
            source = f"{group}_{photo:03d}"
            for copy in range(3):
                rows.append(("train", f"{source}_jpg.rf.{copy}.jpg", source, group))
        rows.append(("val" if day % 2 else "test", f"{group}_900_jpg.rf.v.jpg", f"{group}_900", group))
    # unrelated photos: each its own session; hand_NNN names repeat across splits for different photos
    for i in range(12):
        rows.append(("val", f"{i}_n_jpg.rf.a.jpg", f"{i}_n", "fbid_n"))
        rows.append(("train", f"{i + 100}_n_jpg.rf.b.jpg", f"{i + 100}_n", "fbid_n"))
    for split in ("train", "val", "test"):
        rows.append((split, f"hand_001_{split}.jpg", "hand_001", "hand_NNN"))
    for split, image, _, _ in rows:
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        (root / "images" / split / image).write_bytes(b"\xff\xd8 fake jpeg " + image.encode())
        (root / "labels" / split / (Path(image).stem + ".txt")).write_text("3 0.5 0.5 0.1 0.2\n27 0.2 0.3 0.05 0.1\n")
    with (root / "manifest.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["split", "image", "source_root", "group"])
        w.writerows(rows)
    return root


@pytest.fixture()
def real(tmp_path: Path) -> Path:
    return _write_real(tmp_path / "real")


def _manifest(real: Path) -> dict[str, dict[str, str]]:
    with (real / "manifest.csv").open() as f:
        return {f"real_{r['split']}_{r['image']}": r for r in csv.DictReader(f)}


def _split_rows(out: Path, split: str, real: Path) -> list[dict[str, str]]:
    rows = _manifest(real)
    return [rows[p.name] for p in sorted((out / "images" / split).iterdir()) if p.name in rows]


@pytest.mark.parametrize("seed", range(5))
def test_no_session_spans_train_and_val_and_val_is_unaugmented(real: Path, tmp_path: Path, seed: int) -> None:
    out = tmp_path / "out"
    assert main([str(out), "--real", str(real), "--val-fraction", "0.3", "--seed", str(seed)]) == 0
    train, val = _split_rows(out, "train", real), _split_rows(out, "val", real)
    assert val and train
    assert all(r["split"] != "train" for r in val)  # Roboflow's train split is the augmented one

    def key(r: dict[str, str]) -> str:  # the source photo (hand_NNN names repeat for different photos)
        return f"{r['split']}/{r['source_root']}" if r["group"] == "hand_NNN" else r["source_root"]

    assert not {key(r) for r in train} & {key(r) for r in val}
    dated = lambda rows: {r["group"] for r in rows if r["group"].startswith("IMG_")}  # noqa: E731
    assert not dated(train) & dated(val)
    # every image is used once, except augmented copies of val sessions
    used = len(train) + len(val)
    dropped = json.loads((out / "build.json").read_text())["dropped_augmented_copies"]
    assert used + dropped == len(_manifest(real))
    assert dropped == sum(1 for r in _manifest(real).values() if r["split"] == "train" and r["group"] in dated(val))


def test_outputs_are_copies_with_labels_and_an_absolute_data_yaml(real: Path, tmp_path: Path) -> None:
    synth = tmp_path / "synth"
    (synth / "images").mkdir(parents=True)
    (synth / "labels").mkdir()
    (synth / "images" / "00000001_gl-mahjongtile.jpg").write_bytes(b"img")
    (synth / "labels" / "00000001_gl-mahjongtile.txt").write_text("42 0.5 0.5 0.1 0.1\n")
    (synth / "images" / "00000002_gl-mahjongtile.jpg").write_bytes(b"img")  # no label: background image
    out = tmp_path / "out"
    assert main([str(out), "--real", str(real), "--synth", str(synth), "--seed", "1"]) == 0
    data = yaml.safe_load((out / "data.yaml").read_text())
    assert Path(data["path"]).is_absolute() and Path(data["path"]) == out.resolve()
    assert data["names"] == dict(enumerate(CLASS_NAMES)) and data["nc"] == 43
    for split in ("train", "val"):
        images = sorted((out / "images" / split).iterdir())
        labels = sorted((out / "labels" / split).iterdir())
        assert [p.stem for p in images] == [p.stem for p in labels]
        assert all(not p.is_symlink() and p.resolve().is_relative_to(out.resolve()) for p in images)
    assert (out / "labels" / "train" / "synth0_00000001_gl-mahjongtile.txt").read_text().startswith("42 ")
    assert (out / "labels" / "train" / "synth0_00000002_gl-mahjongtile.txt").read_text() == ""
    summary = json.loads((out / "build.json").read_text())
    assert summary["train"]["synthetic_images"] == 2 and summary["val"]["synthetic_images"] == 0
    assert summary["train"]["boxes"] == 2 * summary["train"]["real_images"] + 1


def test_real_val_only_and_real_test(real: Path, tmp_path: Path) -> None:
    synth = tmp_path / "synth"
    (synth / "images").mkdir(parents=True)
    (synth / "images" / "a.jpg").write_bytes(b"img")
    out = tmp_path / "valonly"
    assert main([str(out), "--real", str(real), "--synth", str(synth), "--real-val-only"]) == 0
    assert not _split_rows(out, "train", real)
    assert len(_split_rows(out, "val", real)) == sum(1 for r in _manifest(real).values() if r["split"] != "train")

    out = tmp_path / "withtest"
    assert main([str(out), "--real", str(real), "--real-test"]) == 0
    test = _split_rows(out, "test", real)
    assert test and all(r["split"] != "train" for r in test)
    test_groups = {r["group"] for r in test if r["group"].startswith("IMG_")}
    assert not test_groups & {r["group"] for r in _split_rows(out, "train", real) + _split_rows(out, "val", real)}
    assert "test: images/test" in (out / "data.yaml").read_text()


def test_bad_input_gives_a_message(real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main([str(out), "--real", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main([str(out), "--real", str(real), "--val-fraction", "1.5"]) == 2
    assert main([str(out), "--real", str(real)]) == 0
    assert main([str(out), "--real", str(real)]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main([str(out), "--real", str(real), "--overwrite"]) == 0
    (real / "labels" / "val" / "0_n_jpg.rf.a.txt").write_text("99 0.5 0.5 0.1 0.1\n")
    assert main([str(tmp_path / "o2"), "--real", str(real)]) == 2
    assert "0_n_jpg.rf.a.txt:1: class id 99" in capsys.readouterr().err
    assert main([str(tmp_path / "o3"), "--synth", str(tmp_path / "nothing")]) == 2
    assert "has no images/" in capsys.readouterr().err


def _make_images_decodable(real: Path) -> None:
    import cv2
    import numpy as np

    for image in (real / "images").rglob("*.jpg"):
        pixels = np.full((120, 200, 3), 90, np.uint8)
        cv2.imwrite(str(image), pixels)


def test_squeezed_copies_shrink_one_axis_and_keep_the_labels(real: Path, tmp_path: Path) -> None:
    import cv2

    _make_images_decodable(real)
    out = tmp_path / "out"
    assert main([str(out), "--real", str(real), "--squeezed-copies", "1", "--seed", "3"]) == 0
    summary = json.loads((out / "build.json").read_text())
    originals = [p for p in (out / "images" / "train").iterdir() if not p.name.startswith("squeezed_")]
    copies = sorted((out / "images" / "train").glob("squeezed_*.jpg"))
    assert len(copies) == len(originals) == summary["train"]["squeezed_copies"]
    assert summary["train"]["images"] == 2 * len(originals)
    assert summary["train"]["boxes"] == 2 * 2 * len(originals)
    axes_squeezed = set()
    for copy in copies:
        height, width = cv2.imread(str(copy)).shape[:2]
        assert (height == 120 and 0.29 * 200 <= width <= 0.76 * 200) or (width == 200 and 0.29 * 120 <= height <= 0.76 * 120)
        axes_squeezed.add("width" if height == 120 else "height")
        original_label = out / "labels" / "train" / (copy.stem.removeprefix("squeezed_") + ".txt")
        assert (out / "labels" / "train" / f"{copy.stem}.txt").read_text() == original_label.read_text()
    assert axes_squeezed == {"width", "height"}
    assert not list((out / "images" / "val").glob("squeezed_*"))


def test_squeezed_copies_report_an_unreadable_photo(real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "out"), "--real", str(real), "--squeezed-copies", "0.5"]) == 2
    assert "not a readable image" in capsys.readouterr().err
    assert main([str(tmp_path / "o2"), "--real", str(real), "--squeezed-copies", "2"]) == 2


def _fixes(path: Path, *rows: tuple[str, str, int, str, str]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["split", "image", "line", "was", "is", "seen"])
        w.writerows([(*r, "what the face shows") for r in rows])
    return path


def test_label_fixes_correct_the_named_line_only(real: Path, tmp_path: Path) -> None:
    fixes = _fixes(tmp_path / "fixes.csv", ("val", "3_n_jpg.rf.a.jpg", 2, CLASS_NAMES[27], "2m"))
    synth = tmp_path / "synth"
    (synth / "images").mkdir(parents=True)
    (synth / "images" / "a.jpg").write_bytes(b"img")
    out = tmp_path / "out"
    assert main([str(out), "--real", str(real), "--synth", str(synth), "--real-val-only", "--label-fixes", str(fixes)]) == 0
    fixed = (out / "labels" / "val" / "real_val_3_n_jpg.rf.a.txt").read_text().splitlines()
    assert fixed == ["3 0.5 0.5 0.1 0.2", f"{CLASS_NAMES.index('2m')} 0.2 0.3 0.05 0.1"]
    untouched = (out / "labels" / "val" / "real_val_4_n_jpg.rf.a.txt").read_text()
    assert untouched == "3 0.5 0.5 0.1 0.2\n27 0.2 0.3 0.05 0.1\n"
    assert json.loads((out / "build.json").read_text())["val"]["labels_fixed"] == 1
    assert (real / "labels" / "val" / "3_n_jpg.rf.a.txt").read_text().startswith("3 ")  # the source is left alone


@pytest.mark.parametrize(("row", "message"), [
    (("val", "3_n_jpg.rf.a.jpg", 1, "9p", "2m"), "the label there is 4m, the fix expects 9p"),
    (("val", "3_n_jpg.rf.a.jpg", 7, "4m", "2m"), "the label there is missing"),
    (("val", "nowhere.jpg", 1, "4m", "2m"), "no such photo"),
    (("val", "3_n_jpg.rf.a.jpg", 1, "4m", "22m"), "two class names"),
])
def test_label_fixes_that_do_not_match_the_data_stop_the_build(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], row: tuple[str, str, int, str, str], message: str,
) -> None:
    fixes = _fixes(tmp_path / "fixes.csv", row)
    assert main([str(tmp_path / "out"), "--real", str(real), "--label-fixes", str(fixes)]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "data.yaml").exists()


def test_the_shipped_label_fixes_name_real_classes_and_say_what_the_face_shows() -> None:
    path = Path(__file__).parents[1] / "datasets" / "label_fixes" / "chinese-v4.csv"
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["was"] in CLASS_NAMES and r["is"] in CLASS_NAMES and r["was"] != r["is"] for r in rows)
    assert all(r["seen"].strip() and int(r["line"]) >= 1 for r in rows)
    assert len({(r["split"], r["image"], r["line"]) for r in rows}) == len(rows)
