"""Rendering and the synth CLI on a tiny artwork folder drawn by the test (no real artwork needed)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.art import ArtError, load_art
from datasets.fake_art import FAKE_BACK_COLOUR, class_colour, write_fake_art
from datasets.render import render_scene
from datasets.scene import PlacedTile
from datasets.synth import main, make_scene
from scoring.hand import Hand
from scoring.notation import parse_hand
from tileset.classes import BACK, CLASS_NAMES, FACE_NAMES, FLOWER_NAMES

HAND = parse_hand("[123m] [E E E] (5555p) 78s11p +9s self-drawn seat=S prevalent=W flowers=3")
SHARED_ART = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "art"  # shared/ beside the checkout


@pytest.fixture(scope="module")
def art_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_fake_art(tmp_path_factory.mktemp("art"))


def _nearest_class(pixel: np.ndarray) -> str:
    colours = {c: np.array(class_colour(c), float) for c in FACE_NAMES}
    colours[BACK] = np.array(FAKE_BACK_COLOUR, float)
    return min(colours, key=lambda c: np.linalg.norm(colours[c] - pixel))


def test_fake_art_loads_with_flowers_borrowed(art_root: Path) -> None:
    sets = {s.name: s for s in load_art(art_root)}
    assert set(sets) == {"gl-mahjongtile", "fluffystuff-riichi"}
    assert set(sets["gl-mahjongtile"].faces) == set(FACE_NAMES)
    assert sets["fluffystuff-riichi"].borrowed == frozenset(FLOWER_NAMES)
    assert len(sets["gl-mahjongtile"].backs) == 1
    only = load_art(art_root, only=["fluffystuff-riichi"])
    assert [s.name for s in only] == ["fluffystuff-riichi"] and not set(FLOWER_NAMES) & set(only[0].faces)
    assert [s.name for s in load_art(art_root, hold_out=["gl-mahjongtile"])] == ["fluffystuff-riichi"]
    with pytest.raises(ArtError, match="unknown art set"):
        load_art(art_root, only=["kde-egypt"])
    with pytest.raises(ArtError, match="no art set left"):
        load_art(art_root, only=["gl-mahjongtile"], hold_out=["gl-mahjongtile"])


@pytest.mark.parametrize("seed", range(6))
def test_every_label_box_holds_its_face(art_root: Path, seed: int) -> None:
    (art,) = load_art(art_root, only=["gl-mahjongtile"])
    image, tiles = render_scene(HAND, art, random.Random(seed), 1280, 960, effects=False)
    assert image.shape == (960, 1280, 3) and image.dtype == np.uint8
    assert len(tiles) == len(HAND.all_tiles) + HAND.context.flowers
    for t in tiles:
        cx, cy = np.mean(t.corners, axis=0)
        patch = image[int(cy) - 1 : int(cy) + 2, int(cx) - 1 : int(cx) + 2].reshape(-1, 3).mean(axis=0)
        if t.cls == BACK:  # a face-down tile hides the face of its concealed kong (5p)
            assert np.linalg.norm(np.array(class_colour("5p"), float) - patch) > 40
        else:
            assert _nearest_class(patch) == t.cls, (t, patch)


def test_boxes_are_tight_around_the_face(art_root: Path) -> None:
    """Just outside a face box (across the row) lies no face colour of that tile."""
    (art,) = load_art(art_root, only=["gl-mahjongtile"])
    image, tiles = render_scene(HAND, art, random.Random(7), 1280, 960, effects=False, rotation_deg=0.0, tilt_deg=0.0)
    for t in tiles:
        x0, y0, x1, y1 = (round(v) for v in t.xyxy)
        inside = image[(y0 + y1) // 2, (x0 + x1) // 2].astype(float)
        above = image[max(0, y0 - 3), (x0 + x1) // 2].astype(float)
        assert np.linalg.norm(inside - above) > 20


def test_scene_is_deterministic_per_seed(art_root: Path) -> None:
    sets = load_art(art_root)
    a, b, c = (make_scene(i, 100, sets) for i in (0, 0, 1))
    assert a.name == b.name and np.array_equal(a.image, b.image) and a.tiles == b.tiles
    assert a.name != c.name


def _changed_pixels_in_tile_sizes(plain: np.ndarray, diced: np.ndarray, tiles: Sequence[PlacedTile]) -> np.ndarray:
    """For each pixel that differs between two renders of one scene, its distance to the nearest tile's centre, in
    tile widths."""
    changed = np.argwhere(np.abs(plain.astype(int) - diced.astype(int)).sum(axis=2) > 30)
    boxes = np.array([t.xyxy for t in tiles])
    size = float(np.median(boxes[:, 2] - boxes[:, 0]))
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    return np.linalg.norm(changed[:, None, ::-1] - centres[None], axis=2).min(axis=1) / size


def test_dice_beside_lie_close_to_the_tiles_and_leave_the_rest_alone(art_root: Path) -> None:
    """`dice` draws on the table only, within a few tile sizes of the hand: the same tiles, the same labels,
    every changed pixel near a tile, and the faces as they were."""
    (art,) = load_art(art_root, only=["gl-mahjongtile"])
    changed_any = False
    for seed in range(4):
        plain, tiles = render_scene(HAND, art, random.Random(seed), 1280, 960, effects=False)
        diced, diced_tiles = render_scene(HAND, art, random.Random(seed), 1280, 960, effects=False,
                                          dice=random.Random(seed))
        assert diced_tiles == tiles
        far = _changed_pixels_in_tile_sizes(plain, diced, tiles)
        if not len(far):
            continue  # every die fell under a tile
        changed_any = True
        assert far.max() < 5
        for t in tiles:  # the faces stay as drawn
            x0, y0, x1, y1 = (int(v) for v in t.xyxy)
            cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
            assert np.array_equal(plain[cy, cx], diced[cy, cx])
    assert changed_any


def test_dice_share_leaves_the_rest_of_the_scene_as_drawn_without_dice(art_root: Path) -> None:
    """The dice draw from a generator of their own: with every scene diced, the hand, the tiles, the table,
    light and noise are those of the scene without dice; only pixels near the tiles change."""
    sets = load_art(art_root)
    for index in range(3):
        plain, diced = make_scene(index, 300, sets), make_scene(index, 300, sets, dice_share=1.0)
        assert diced.tiles == plain.tiles and diced.name == plain.name and diced.hand == plain.hand
        far = _changed_pixels_in_tile_sizes(plain.image, diced.image, plain.tiles)
        assert len(far) and far.max() < 5


def test_cli_writes_images_labels_and_truth(art_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "synth"
    assert main(["--art", str(art_root), "--out", str(out), "--n", "4", "--seed", "11"]) == 0
    names = sorted(p.stem for p in (out / "images").glob("*.jpg"))
    assert len(names) == 4
    for name in names:
        image = cv2.imread(str(out / "images" / f"{name}.jpg"))
        truth = json.loads((out / "truth" / f"{name}.json").read_text())
        rows = [line.split() for line in (out / "labels" / f"{name}.txt").read_text().splitlines()]
        assert truth["image"] == f"images/{name}.jpg"
        assert (truth["height"], truth["width"]) == image.shape[:2]
        assert 960 <= max(image.shape[:2]) <= 1600
        hand = Hand.from_json(truth["hand"])
        assert len(truth["tiles"]) == len(rows) == len(hand.all_tiles) + hand.context.flowers
        for row, tile in zip(rows, truth["tiles"], strict=False):
            assert CLASS_NAMES[int(row[0])] == tile["cls"]
            cx, _cy, w, h = map(float, row[1:])
            x0, y0, x1, y1 = tile["xyxy"]
            assert cx == pytest.approx((x0 + x1) / 2 / truth["width"], abs=1e-4)
            assert h == pytest.approx((y1 - y0) / truth["height"], abs=1e-4)
            assert 0 < w < 1 and 0 < h < 1
        assert truth["art"] in name
    summary = json.loads((out / "synth.json").read_text())
    assert summary["n"] == 4 and sum(summary["per_set"].values()) == 4


def test_cli_output_does_not_depend_on_workers(art_root: Path, tmp_path: Path) -> None:
    runs = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        assert main(["--art", str(art_root), "--out", str(out), "--n", "3", "--seed", "5", "--workers", str(workers)]) == 0
        runs[workers] = {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file() and p.name != "synth.json"}
    assert runs[1] == runs[2] and len(runs[1]) == 9


def test_fan_option_gives_every_hand_that_fan(art_root: Path, tmp_path: Path) -> None:
    from scoring.fans import FanId
    from scoring.scorer import score

    out = tmp_path / "kongs"
    assert main(["--art", str(art_root), "--out", str(out), "--n", "4", "--seed", "3", "--fan", "53", "--fan", "67"]) == 0
    for truth_file in sorted((out / "truth").glob("*.json")):
        truth = json.loads(truth_file.read_text())
        fans = {int(f.fan.id) for f in score(Hand.from_json(truth["hand"])).fans}
        assert fans & {int(FanId.TWO_CONCEALED_KONGS), int(FanId.CONCEALED_KONG)}
        backs = [t for t in truth["tiles"] if t["cls"] == BACK]  # each concealed kong's two outer tiles lie face down
        assert len(backs) in (2, 4)
        assert sum(line.startswith(f"{CLASS_NAMES.index(BACK)} ") for line in
                   (out / "labels" / f"{truth_file.stem}.txt").read_text().splitlines()) == len(backs)


def test_cli_refuses_bad_input_with_a_message(art_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--art", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"), "--n", "1"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["--art", str(art_root), "--out", str(tmp_path / "o"), "--n", "0"]) == 2
    assert main(["--art", str(art_root), "--out", str(tmp_path / "o"), "--n", "1", "--dice", "1.5"]) == 2
    assert "--dice" in capsys.readouterr().err
    assert main(["--art", str(art_root), "--out", str(tmp_path / "o"), "--n", "1", "--fan", "82"]) == 2
    assert "--fan" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--art", str(art_root), "--out", str(tmp_path / "o"), "--n", "1", "--only", "kde-egypt"])


@pytest.mark.skipif(not (SHARED_ART / "gl-mahjongtile" / "mapping.tsv").is_file(), reason="shared artwork absent")
def test_shared_free_art_sets_cover_every_class() -> None:
    """The Unlicense and CC0 sets (GL-MahjongTile, FluffyStuff) load with all 42 faces (flowers borrowed)."""
    sets = {s.name: s for s in load_art(SHARED_ART, only=["gl-mahjongtile", "fluffystuff-riichi"])}
    for art in sets.values():
        assert set(art.faces) == set(FACE_NAMES), art.name
        assert art.backs
    image, tiles = render_scene(HAND, sets["fluffystuff-riichi"], random.Random(0), 960, 720)
    assert image.shape == (720, 960, 3) and len(tiles) == len(HAND.all_tiles) + HAND.context.flowers
