"""Drawn suit and honour faces (datasets.drawn) and their use in restyled sets."""

from __future__ import annotations

import os
import random

import cv2
import numpy as np
import pytest

import datasets.restyle as restyle_module
from datasets.art import FACE_SIZE, ArtSet, load_art
from datasets.drawn import ARRANGEMENTS, drawn_faces
from datasets.fake_art import write_fake_art
from datasets.restyle import restyle, system_fonts

DOTS_AND_BAMBOO = [f"{r}p" for r in range(1, 10)] + [f"{r}s" for r in range(2, 10)]
CHARACTERS_AND_HONOURS = [f"{r}m" for r in range(1, 10)] + list("ESWNCF")


def test_every_arrangement_has_its_count_of_distinct_points_inside_the_face() -> None:
    for count, arrangements in ARRANGEMENTS.items():
        for points in arrangements:
            assert len(points) == count
            assert len({(round(x, 3), round(y, 3)) for x, y in points}) == count
            assert all(0.05 < x < 0.95 and 0.05 < y < 0.95 for x, y in points)


def test_without_a_cjk_font_only_pips_and_sticks_are_drawn() -> None:
    with_one_stick = 0
    for seed in range(6):
        faces = drawn_faces(random.Random(seed), ())
        with_one_stick += "1s" in faces
        assert sorted(set(faces) - {"1s"}) == sorted(DOTS_AND_BAMBOO)
        for face in faces.values():
            assert face.shape == (FACE_SIZE[1], FACE_SIZE[0], 4) and face.dtype == np.uint8
            assert face[..., 3].max() == 255
        if "1s" in faces:
            assert _blobs(faces["1s"]) == 1
    assert 0 < with_one_stick < 6  # the one-of-bamboo is one big stick on some sets, a bird on the rest


def _blobs(face: np.ndarray) -> int:
    """Outermost shapes of ink: the rings of one pip nest inside its rim and count once."""
    contours, _ = cv2.findContours((face[..., 3] > 128).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return len(contours)


def test_dots_are_as_many_as_the_rank_when_they_do_not_touch() -> None:
    """Pips never overlap: separate dots show as separate blobs of ink (rings inside a pip join it)."""
    for seed in range(8):
        faces = drawn_faces(random.Random(seed), ())
        for rank in range(1, 10):
            assert _blobs(faces[f"{rank}p"]) == rank, (seed, rank)


def test_drawn_sets_differ_and_repeat_by_seed() -> None:
    a, b, c = (drawn_faces(random.Random(s), ()) for s in (5, 5, 6))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert any(not np.array_equal(a[k], c[k]) for k in a)
    assert all(not np.array_equal(a[x], a[y]) for i, x in enumerate(DOTS_AND_BAMBOO) for y in DOTS_AND_BAMBOO[i + 1 :])


@pytest.mark.skipif(not system_fonts()[1], reason="no CJK font on this machine")
def test_with_a_cjk_font_characters_and_honours_are_drawn_too() -> None:
    faces = drawn_faces(random.Random(1), system_fonts()[1])
    assert sorted(set(faces) - {"1s"}) == sorted(DOTS_AND_BAMBOO + CHARACTERS_AND_HONOURS)
    assert all(faces[k][..., 3].mean() > 5 for k in CHARACTERS_AND_HONOURS)


def test_fonts_carried_in_mcr_font_dirs_are_found_where_the_system_has_none(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """scripts/gpu_train.sh brings its fonts to a bare machine in a folder named by MCR_FONT_DIRS."""
    carried = tmp_path / "fonts"
    carried.mkdir()
    for name in ("wqy-zenhei.ttf", "SomeSans.ttf"):
        (carried / name).write_bytes(b"")  # only found by name here, never opened
    monkeypatch.setattr(restyle_module, "FONT_DIRS", (tmp_path / "no-system-fonts",))
    monkeypatch.setenv("MCR_FONT_DIRS", os.pathsep.join([str(tmp_path / "missing"), str(carried)]))
    system_fonts.cache_clear()
    try:
        assert system_fonts() == ((carried / "SomeSans.ttf",), (carried / "wqy-zenhei.ttf",))
        monkeypatch.delenv("MCR_FONT_DIRS")
        system_fonts.cache_clear()
        assert system_fonts() == ((), ())
    finally:
        system_fonts.cache_clear()


@pytest.fixture(scope="module")
def gl(tmp_path_factory: pytest.TempPathFactory) -> ArtSet:
    (art,) = load_art(write_fake_art(tmp_path_factory.mktemp("art")), only=["gl-mahjongtile"])
    return art


def test_restyle_draws_the_suits_anew_in_its_share_of_sets(gl: ArtSet, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(restyle_module, "DRAWN_SHARE", 1.0)
    art = restyle(gl, random.Random(4))
    assert all(not np.array_equal(art.faces[c][0], gl.faces[c][0]) for c in DOTS_AND_BAMBOO)
    monkeypatch.setattr(restyle_module, "DRAWN_SHARE", 0.0)
    monkeypatch.setattr(restyle_module.random.Random, "random", lambda self: 0.9)  # no index, no new P
    art = restyle(gl, random.Random(4))
    assert all(np.array_equal(art.faces[c][0], gl.faces[c][0]) for c in DOTS_AND_BAMBOO)


@pytest.mark.parametrize("rank", [6, 9])
def test_bone_sticks_are_stacked_end_to_end_in_their_columns(rank: int) -> None:
    """A six of three columns of two and a nine of three of three: no gap between the rows."""
    from datasets.drawn import ARRANGEMENTS, stacked_end_to_end

    grid = next(a for a in ARRANGEMENTS[rank] if len({round(x, 3) for x, _ in a}) == 3)
    rows = len({round(y, 3) for _, y in grid})
    stick = 0.84 / rows * 0.9
    stacked = stacked_end_to_end(grid, stick)
    ys = sorted({round(y, 6) for _, y in stacked})
    assert len(ys) == rows and np.allclose(np.diff(ys), stick) and abs(np.mean(ys) - 0.5) < 1e-6
    assert ys[0] - stick / 2 > 0 and ys[-1] + stick / 2 < 1  # inside the face
    assert sorted(x for x, _ in stacked) == sorted(x for x, _ in grid)
