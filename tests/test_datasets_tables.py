"""Table families (datasets.tables): deterministic, the test-only family kept out of training, empty tables."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from datasets import tables
from datasets.art import load_art
from datasets.fake_art import write_fake_art
from datasets.render import render_scene
from datasets.synth import main
from datasets.tables import FAMILIES, TEST_ONLY, TRAIN_FAMILIES, TableFamily, TableSpecError, parse_families
from scoring.notation import parse_hand

HAND = parse_hand("[123m] [E E E] (5555p) 78s11p +9s self-drawn seat=S prevalent=W")


@pytest.fixture(scope="module")
def art_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_fake_art(tmp_path_factory.mktemp("art"))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_renders_the_same_table_from_the_same_seed(family: str) -> None:
    draw = tables.table_source([family], negatives=1.0)
    first = draw(random.Random(5), 320, 240, 20.0)
    again = draw(random.Random(5), 320, 240, 20.0)
    other = draw(random.Random(6), 320, 240, 20.0)
    assert first.shape == (240, 320, 3) and first.dtype == np.uint8
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert first.std() > 2  # a surface, not a blank


def test_the_training_path_never_draws_the_test_only_family(monkeypatch: pytest.MonkeyPatch) -> None:
    assert TEST_ONLY and not set(TEST_ONLY) & set(TRAIN_FAMILIES)
    assert set(TRAIN_FAMILIES) | set(TEST_ONLY) == set(FAMILIES)
    assert parse_families("train") == TRAIN_FAMILIES and parse_families("test") == TEST_ONLY

    def forbidden(*_: object) -> np.ndarray:
        raise AssertionError("a test-only family was drawn for training")

    for name in TEST_ONLY:
        monkeypatch.setitem(FAMILIES, name, TableFamily(name, forbidden, test_only=True))
    drawn = []
    for name in TRAIN_FAMILIES:
        pattern = FAMILIES[name].pattern
        monkeypatch.setitem(FAMILIES, name, TableFamily(name, lambda *a, _n=name, _p=pattern: drawn.append(_n) or _p(*a)))
    draw = tables.table_source(parse_families("train"), negatives=0.0)
    for seed in range(60):
        draw(random.Random(seed), 64, 48, 8.0)
    assert set(drawn) == set(TRAIN_FAMILIES)  # every training family does come up


def test_bad_family_names_are_refused() -> None:
    with pytest.raises(TableSpecError, match="unknown table family gingam"):
        parse_families("checked,gingam")
    with pytest.raises(TableSpecError):
        parse_families(" , ")
    assert parse_families("checked, mosaic") == ("checked", "mosaic")


def test_scene_over_a_family_keeps_its_labels(art_root: Path) -> None:
    art = load_art(art_root)[0]
    plain, tiles = render_scene(HAND, art, random.Random(3), 640, 480, effects=False)
    patterned, same_tiles = render_scene(HAND, art, random.Random(3), 640, 480, effects=False,
                                         table_source=tables.table_source(["checked"]))
    assert [t.xyxy for t in tiles] == [t.xyxy for t in same_tiles]  # the table changes, the layout does not
    assert not np.array_equal(plain, patterned)


def test_empty_tables_have_empty_label_files(art_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "empty"
    assert main(["--art", str(art_root), "--out", str(out), "--n", "4", "--seed", "3", "--tables", "test",
                 "--empty", "1"]) == 0
    labels = sorted((out / "labels").iterdir())
    assert len(labels) == 4 and all(p.name.endswith("_empty.txt") and p.read_bytes() == b"" for p in labels)
    assert len(list((out / "images").iterdir())) == 4
    truth = json.loads(next((out / "truth").iterdir()).read_text())
    assert truth["layout"] == "empty" and truth["tiles"] == []
    summary = json.loads((out / "synth.json").read_text())
    assert summary["tables"] == list(TEST_ONLY) and summary["empty"] == 1.0


def test_mixed_run_labels_only_the_hand_scenes(art_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "mixed"
    assert main(["--art", str(art_root), "--out", str(out), "--n", "8", "--seed", "40", "--tables", "train",
                 "--empty", "0.5"]) == 0
    labels = {p.name: p.read_text() for p in (out / "labels").iterdir()}
    empty = [n for n in labels if n.endswith("_empty.txt")]
    assert 0 < len(empty) < 8
    assert all(labels[n] == "" for n in empty)
    assert all(labels[n].count("\n") >= 14 for n in labels if n not in empty)
    assert json.loads((out / "synth.json").read_text())["tables"] == list(TRAIN_FAMILIES)


def test_cli_refuses_an_unknown_family(art_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--art", str(art_root), "--out", str(tmp_path / "o"), "--n", "1", "--tables", "gingam"]) == 2
    assert "unknown table family gingam" in capsys.readouterr().err
    assert main(["--art", str(art_root), "--out", str(tmp_path / "o"), "--n", "1", "--empty", "1.5"]) == 2


def test_one_club_s_cloth_is_the_same_pattern_in_every_photo_and_another_cloth_differs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`cloth`: the family and its pattern come from the cloth's seed alone; the photo's draw still slants it."""
    drawn: list[tuple[str, np.ndarray]] = []
    for name in ("checked", "striped", "dots"):
        family = FAMILIES[name]

        def recording(rng: random.Random, w: int, h: int, unit: float, pattern=family.pattern, name=name) -> np.ndarray:
            flat = pattern(rng, w, h, unit)
            drawn.append((name, flat))
            return flat

        monkeypatch.setitem(FAMILIES, name, TableFamily(name, recording))
    families = ("checked", "striped", "dots")
    club = tables.table_source(families, negatives=0.0, cloth=11)
    photos = [club(random.Random(seed), 320, 240, 20.0) for seed in (1, 2, 3)]
    (first_name, first), *others = drawn
    assert all(name == first_name and np.array_equal(flat, first) for name, flat in others)
    assert not np.array_equal(photos[0], photos[1]), "each photo sees the cloth at its own slant and light"
    drawn.clear()
    for cloth in range(12, 20):
        tables.table_source(families, negatives=0.0, cloth=cloth)(random.Random(1), 320, 240, 20.0)
    assert any(not np.array_equal(flat, first) for _, flat in drawn)


def test_cli_puts_the_calibration_layout_on_the_club_s_cloth_and_refuses_a_cloth_without_tables(
        art_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cal"
    assert main(["--art", str(art_root), "--out", str(out), "--n", "1", "--seed", "5", "--layout", "calibration",
                 "--tables", "checked", "--cloth", "3"]) == 0
    plain = tmp_path / "plain"
    assert main(["--art", str(art_root), "--out", str(plain), "--n", "1", "--seed", "5", "--layout", "calibration"]) == 0
    on_cloth, = (out / "images").iterdir()
    as_before, = (plain / "images").iterdir()
    assert on_cloth.read_bytes() != as_before.read_bytes()
    assert (out / "labels" / (on_cloth.stem + ".txt")).read_text() == (plain / "labels" / (as_before.stem + ".txt")).read_text()
    capsys.readouterr()
    assert main(["--art", str(art_root), "--out", str(tmp_path / "o"), "--n", "1", "--cloth", "3"]) == 2
    assert "--cloth needs --tables" in capsys.readouterr().err
