"""Webcam views of standing tiles (`datasets.standing`, `synth --view standing`) on the fake artwork."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datasets.art import ArtSet, load_art
from datasets.fake_art import FAKE_BACK_COLOUR, class_colour, write_fake_art
from datasets.standing import AT_PLAY, LOOSE, SECOND_ROW, plan_standing, render_standing
from datasets.synth import main, make_standing_scene
from scoring.notation import parse_hand
from tileset.classes import BACK, CLASS_NAMES, FACE_NAMES
from tileset.groups import HAND as GROUP_HAND
from tileset.groups import WIN as GROUP_WIN
from vision.boxes import box_iou

HAND = parse_hand("[123m] [EEE] (5555p) 78s11p +9s")
OTHER = parse_hand("123m456p789s11sEE +E")
NO_EXTRAS: dict[str, Any] = {"second_row_prob": 0.0, "turned_prob": 0.0}


@pytest.fixture(scope="module")
def art_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_fake_art(tmp_path_factory.mktemp("art"))


@pytest.fixture(scope="module")
def art(art_root: Path) -> ArtSet:
    (gl,) = load_art(art_root, only=["gl-mahjongtile"])
    return gl


def _nearest_class(pixel: np.ndarray) -> str:
    """The class whose fake colour is nearest in chromaticity (the scene's light scales a face's brightness)."""
    def chroma(colour: np.ndarray) -> np.ndarray:
        return colour / max(float(colour.sum()), 1.0)

    colours = {c: np.array(class_colour(c), float) for c in FACE_NAMES}
    colours[BACK] = np.array(FAKE_BACK_COLOUR, float)
    return min(colours, key=lambda c: float(np.linalg.norm(chroma(colours[c]) - chroma(pixel))))


def _centre_patch(image: np.ndarray, corners: tuple[tuple[float, float], ...]) -> np.ndarray:
    cx, cy = np.mean(corners, axis=0)
    return image[int(cy) - 1 : int(cy) + 2, int(cx) - 1 : int(cx) + 2].reshape(-1, 3).mean(axis=0)


@pytest.mark.parametrize("seed", range(6))
def test_labels_lie_inside_the_image_and_show_their_face(art: ArtSet, seed: int) -> None:
    image, tiles, _ = render_standing(HAND, art, random.Random(seed), 480, 320, other=OTHER, effects=False)
    assert image.shape == (320, 480, 3) and tiles
    for t in tiles:
        x0, y0, x1, y1 = t.xyxy
        assert 0 <= x0 < x1 <= 480 and 0 <= y0 < y1 <= 320, t
        if t.cls != BACK and (x1 - x0) > 10 and (y1 - y0) > 10:
            assert _nearest_class(_centre_patch(image, t.corners)) == t.cls, t


@pytest.mark.parametrize("seed", range(4))
def test_one_label_per_tile_when_nothing_hides_one(art: ArtSet, seed: int) -> None:
    """Every tile of the hand stands in one row (no flat melds, no second row): 14 tiles + 1 per kong."""
    _image, tiles, rows = render_standing(HAND, art, random.Random(seed), 640, 480, effects=False,
                                         melds_flat_prob=0.0, **NO_EXTRAS)
    assert len(tiles) == len(HAND.all_tiles) == len(rows[0])
    assert sorted(t.cls for t in tiles) == sorted(str(x) for x in HAND.all_tiles)
    assert {t.group for t in tiles} <= {GROUP_HAND, GROUP_WIN}


@pytest.mark.parametrize("seed", range(8))
def test_flat_melds_and_a_second_row_get_at_most_one_label_each(art: ArtSet, seed: int) -> None:
    rng = random.Random(seed)
    plan = plan_standing(HAND, random.Random(seed), 640, 480, OTHER, melds_flat_prob=1.0, second_row_prob=1.0)
    _image, tiles, rows = render_standing(HAND, art, rng, 640, 480, other=OTHER, effects=False,
                                         melds_flat_prob=1.0, second_row_prob=1.0)
    assert 0 < len(tiles) <= len(plan.blocks)
    assert sum(len(r) for r in rows) <= len(plan.blocks)
    boxes = np.array([t.xyxy for t in tiles])
    iou = box_iou(boxes, boxes) - np.eye(len(tiles))
    assert iou.max() < 0.5, "two labels box the same tile"


def test_flat_melds_seen_from_above_are_labeled_with_their_faces(art: ArtSet) -> None:
    _image, tiles, _ = render_standing(HAND, art, random.Random(3), 640, 480, effects=False, melds_flat_prob=1.0,
                                      elevation_deg=30.0, **NO_EXTRAS)
    melds = [t for t in tiles if t.group.startswith("meld")]
    assert sorted(t.cls for t in melds) == sorted(["1m", "2m", "3m", "E", "E", "E", BACK, "5p", "5p", BACK])
    assert sorted(t.cls for t in tiles if t.group in (GROUP_HAND, GROUP_WIN)) == ["1p", "1p", "7s", "8s", "9s"]


def test_backs_to_the_camera_are_labeled_back(art: ArtSet) -> None:
    for seed in range(4):
        _, tiles, rows = render_standing(HAND, art, random.Random(seed), 640, 480, other=OTHER, effects=False,
                                         turned_prob=1.0, melds_flat_prob=0.0, second_row_prob=1.0,
                                         second_row_backs_prob=1.0, elevation_deg=30.0)
        near = [t for t in tiles if t.group in (GROUP_HAND, GROUP_WIN)]
        turned = sum(1 for name in rows[0] if name == BACK)
        assert 1 <= turned <= 3 and sum(1 for t in near if t.cls == BACK) == turned
        far = [t for t in tiles if t.group == SECOND_ROW]
        assert len(rows) == 2 and set(rows[1]) == {BACK}
        assert far and all(t.cls == BACK for t in far)


def test_a_hand_of_four_melds_stands_its_last_two_tiles(art: ArtSet) -> None:
    """Four melds laid flat leave one tile and the winning tile standing; all may be turned."""
    hand = parse_hand("[123m] [456p] [789s] [EEE] 9s +9s")
    for seed in range(6):
        _, tiles, rows = render_standing(hand, art, random.Random(seed), 640, 480, effects=False, turned_prob=1.0,
                                         turned_count=(3, 3), melds_flat_prob=1.0, elevation_deg=32.0,
                                         second_row_prob=0.0)
        assert rows[0] == (BACK, BACK) and len(tiles) <= len(hand.all_tiles)


def test_scene_is_deterministic_per_seed(art_root: Path) -> None:
    sets = load_art(art_root)
    a, b, c = (make_standing_scene(i, 4242, sets) for i in (0, 0, 1))
    assert a.name == b.name and np.array_equal(a.image, b.image) and a.tiles == b.tiles and a.rows == b.rows
    assert a.name != c.name and not (a.image.shape == c.image.shape and np.array_equal(a.image, c.image))
    assert a.truth()["layout"] == "standing"


def test_unknown_variation_is_refused() -> None:
    with pytest.raises(TypeError, match="unknown standing variation"):
        plan_standing(HAND, random.Random(0), 640, 480, camera_wobble=3)


def test_cli_writes_images_labels_and_truth(art_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "standing"
    argv = ["--view", "standing", "--art", str(art_root), "--out", str(out), "--n", "3", "--seed", "9",
            "--hold-out", "fluffystuff-riichi"]
    assert main(argv) == 0
    images = sorted((out / "images").glob("*.jpg"))
    assert len(images) == 3 and all("gl-mahjongtile" in p.name and p.stem.endswith("_standing") for p in images)
    for image in images:
        lines = (out / "labels" / f"{image.stem}.txt").read_text().splitlines()
        assert lines
        for line in lines:
            cls, *box = line.split()
            assert CLASS_NAMES[int(cls)] in CLASS_NAMES and all(0.0 <= float(v) <= 1.0 for v in box)
        truth = json.loads((out / "truth" / f"{image.stem}.json").read_text())
        assert truth["layout"] == "standing" and len(truth["tiles"]) == len(lines) and truth["rows"]
    assert json.loads((out / "synth.json").read_text())["n"] == 3
    again = tmp_path / "again"
    assert main([*argv[:5], str(again), *argv[6:]]) == 0
    assert [p.read_bytes() for p in images] == [p.read_bytes() for p in sorted((again / "images").glob("*.jpg"))]


@pytest.mark.parametrize("seed", range(6))
def test_at_play_views_label_only_faces_that_show(art: ArtSet, seed: int) -> None:
    """Rows turned up to 70 degrees, loose tiles, fingers: every label still lies on its own face's colour."""
    image, tiles, _ = render_standing(HAND, art, random.Random(seed), 640, 480, other=OTHER, effects=False,
                                      **{**AT_PLAY, "finger_prob": 0.0})
    assert tiles
    for t in tiles:
        x0, y0, x1, y1 = t.xyxy
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480, t
        if t.cls != BACK and (x1 - x0) > 12 and (y1 - y0) > 12 and t.group != LOOSE:
            assert _nearest_class(_centre_patch(image, t.corners)) == t.cls, t


def test_loose_tiles_lie_in_front_of_the_row_and_are_labeled(art: ArtSet) -> None:
    found = 0
    for seed in range(8):
        _image, tiles, _rows = render_standing(HAND, art, random.Random(seed), 800, 600, effects=False, loose_prob=1.0,
                                              loose_count=(2, 2), elevation_deg=30.0, **NO_EXTRAS)
        loose = [t for t in tiles if t.group == LOOSE]
        assert len(loose) <= 2
        found += len(loose)
        assert all(t.cls in HAND_FACES for t in loose)
    assert found >= 8  # most loose tiles show their faces from 30 degrees up


HAND_FACES = {str(t) for t in HAND.concealed_with_win}


def test_fingers_over_the_tiles_take_the_labels_of_the_faces_they_hide(art: ArtSet) -> None:
    from datasets.standing import fingers_over

    assert fingers_over(random.Random(0), np.zeros((200, 300, 3), np.uint8), [], 400.0) == []
    dropped_somewhere = False
    for seed in range(6):
        image, tiles, _ = render_standing(HAND, art, random.Random(3), 640, 480, effects=False, **NO_EXTRAS)
        before = image.copy()
        kept = fingers_over(random.Random(seed), image, list(tiles), 60.0)
        assert not np.array_equal(before, image)  # a hand was drawn
        for t in tiles:
            x0, y0, x1, y1 = (round(v) for v in t.xyxy)
            changed = np.any(before[y0:y1, x0:x1] != image[y0:y1, x0:x1], axis=2).mean()
            assert (t in kept) == (changed <= 0.5), (t, changed)
        dropped_somewhere |= len(kept) < len(tiles)
    assert dropped_somewhere


def test_rooms_without_tiles_have_titled_spines_and_no_label(art_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "rooms"
    assert main(["--view", "standing", "--at-play", "--art", str(art_root), "--out", str(out), "--n", "4",
                 "--seed", "70", "--empty", "1"]) == 0
    images = sorted((out / "images").glob("*_room.jpg"))
    assert len(images) == 4
    assert all((out / "labels" / f"{p.stem}.txt").read_text() == "" for p in images)


def test_printed_titles_put_glyphs_on_the_spine() -> None:
    from datasets.room import print_title

    plain = np.full((200, 60, 3), 200, np.uint8)
    printed = plain.copy()
    print_title(random.Random(1), printed, (10, 10, 40, 190), (200, 200, 200))
    spine = printed[10:190, 10:40].reshape(-1, 3)
    assert np.array_equal(printed[:, :10], plain[:, :10]) and np.array_equal(printed[:, 40:], plain[:, 40:])
    assert len({tuple(p) for p in spine}) > 2  # ink on the spine, not one flat colour
