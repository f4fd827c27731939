"""Restyled art sets (captioned flowers, framed white dragon, corner indices) on the fake artwork."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import datasets.restyle as restyle_module
from datasets.art import FACE_SIZE, ArtSet, load_art
from datasets.fake_art import write_fake_art
from datasets.restyle import drawn_set, restyle
from datasets.synth import main, make_scene
from scoring.tiles import SUITS, WIND_NAMES
from tileset.classes import FACE_NAMES, FLOWER_NAMES

SUITS_AND_WINDS = [c for c in FACE_NAMES if (len(c) == 2 and c[1] in SUITS) or c in WIND_NAMES]


@pytest.fixture(scope="module")
def gl(tmp_path_factory: pytest.TempPathFactory) -> ArtSet:
    (art,) = load_art(write_fake_art(tmp_path_factory.mktemp("art")), only=["gl-mahjongtile"])
    return art


def _same(a: ArtSet, b: ArtSet, cls: str) -> bool:
    return len(a.faces[cls]) == len(b.faces[cls]) and all(np.array_equal(x, y) for x, y in zip(a.faces[cls], b.faces[cls], strict=False))


def test_restyle_is_deterministic_and_keeps_the_face_format(gl: ArtSet) -> None:
    a, b = restyle(gl, random.Random(3)), restyle(gl, random.Random(3))
    assert set(a.faces) == set(gl.faces) and a.name == gl.name and a.panel == gl.panel
    for cls in FACE_NAMES:
        assert _same(a, b, cls), cls
        for face in a.faces[cls]:
            assert face.shape == (FACE_SIZE[1], FACE_SIZE[0], 4) and face.dtype == np.uint8


def test_every_flower_and_season_gets_a_new_face(gl: ArtSet) -> None:
    for seed in range(5):
        art = restyle(gl, random.Random(seed))
        faces = [art.faces[f][0] for f in FLOWER_NAMES]
        for f, face in zip(FLOWER_NAMES, faces, strict=False):
            assert not _same(art, gl, f), (seed, f)
            assert face[..., 3].mean() > 1  # something is drawn (a caption alone covers a few per cent)
        # no two classes share a face: a caption always names the class
        assert all(not np.array_equal(x, y) for i, x in enumerate(faces) for y in faces[i + 1 :])


def test_corner_index_goes_on_every_suit_tile_and_wind_or_none(gl: ArtSet, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake faces leave their corners empty; an index is ink in one top corner."""
    monkeypatch.setattr(restyle_module, "DRAWN_SHARE", 0.0)  # drawn suits change faces too: datasets.drawn's tests
    w, h = FACE_SIZE
    indexed = plain = 0
    for seed in range(12):
        art = restyle(gl, random.Random(seed))
        changed = [not _same(art, gl, c) for c in SUITS_AND_WINDS]
        assert all(changed) or not any(changed), seed
        for cls in ("C", "F"):
            assert _same(art, gl, cls)  # dragons 中 and 發 keep their face
        if all(changed):
            indexed += 1
            face = art.faces["5m"][0]
            corners = face[: h // 6, : w // 4, 3].max(), face[: h // 6, -(w // 4) :, 3].max()
            assert max(corners) > 200, seed
        else:
            plain += 1
    assert indexed and plain


def test_white_dragon_is_often_a_frame(gl: ArtSet) -> None:
    framed = [not _same(restyle(gl, random.Random(seed)), gl, "P") for seed in range(12)]
    assert 0 < sum(framed) < 12


def test_works_without_any_system_font(gl: ArtSet, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(restyle_module, "system_fonts", lambda: ((), ()))
    art = restyle(gl, random.Random(1))
    assert all(not _same(art, gl, f) for f in FLOWER_NAMES)


def test_panel_sets_stay_opaque(gl: ArtSet) -> None:
    opaque = {c: tuple(np.dstack([v[..., :3] // 2 + 100, np.full(v.shape[:2], 255, np.uint8)]) for v in vs)
              for c, vs in gl.faces.items()}
    panel_art = replace(gl, faces=opaque, panel=True)
    art = restyle(panel_art, random.Random(2))
    assert all(face[..., 3].min() == 255 for vs in art.faces.values() for face in vs)


def test_synth_restyle_share(tmp_path: Path, gl: ArtSet) -> None:
    sets = [gl]
    plain = make_scene(0, 40, sets)
    assert np.array_equal(plain.image, make_scene(0, 40, sets, restyle_share=0.0).image)
    styled = make_scene(0, 40, sets, restyle_share=1.0)
    assert styled.art == "gl-mahjongtile-restyled" and styled.name.endswith("_gl-mahjongtile-restyled")
    assert [t.cls for t in styled.tiles]  # labels as usual


def test_cli_restyle(tmp_path: Path) -> None:
    art_root = write_fake_art(tmp_path / "art")
    out = tmp_path / "synth"
    assert main(["--art", str(art_root), "--out", str(out), "--n", "3", "--seed", "2", "--restyle", "1"]) == 0
    truths = [json.loads(p.read_text()) for p in (out / "truth").glob("*.json")]
    assert len(truths) == 3 and all(t["art"].endswith("-restyled") for t in truths)
    assert json.loads((out / "synth.json").read_text())["restyle"] == 1.0
    assert main(["--art", str(art_root), "--out", str(out), "--n", "1", "--restyle", "1.5"]) == 2


def test_drawn_set_is_one_fixed_set_per_seed(gl: ArtSet) -> None:
    a, b, other = drawn_set(gl, 7), drawn_set(gl, 7), drawn_set(gl, 8)
    assert a.name == "gl-mahjongtile-drawn7" and a.classes == gl.classes
    assert all(_same(a, b, c) for c in a.classes)  # the same seed draws the same set
    assert not _same(a, gl, "5p") and not _same(a, other, "5p")  # dots drawn anew, differently per seed
    assert all(_same(a, gl, f) for f in FLOWER_NAMES) and _same(a, gl, "P")  # flowers and white dragon kept
    assert all(face.shape[:2] == (FACE_SIZE[1], FACE_SIZE[0]) for vs in a.faces.values() for face in vs)


def test_cli_drawn_renders_the_same_drawn_set_in_every_scene(tmp_path: Path) -> None:
    art_root = write_fake_art(tmp_path / "art")
    out = tmp_path / "synth"
    assert main(["--art", str(art_root), "--out", str(out), "--n", "3", "--seed", "2", "--only", "gl-mahjongtile",
                 "--drawn", "424242001"]) == 0
    truths = [json.loads(p.read_text()) for p in (out / "truth").glob("*.json")]
    assert len(truths) == 3 and {t["art"] for t in truths} == {"gl-mahjongtile-drawn424242001"}
    assert json.loads((out / "synth.json").read_text())["drawn"] == 424242001
    calibration = tmp_path / "calibration"
    assert main(["--art", str(art_root), "--out", str(calibration), "--n", "1", "--only", "gl-mahjongtile",
                 "--layout", "calibration", "--drawn", "424242001"]) == 0
    assert [p.name for p in (calibration / "images").iterdir()] == ["00000000_gl-mahjongtile-drawn424242001_calibration.jpg"]
