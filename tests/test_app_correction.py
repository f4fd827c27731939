"""The photo page's corrections (appui.correction) and "Save for training" (appui.saving)."""

import numpy as np
import pytest

from appui.correction import CorrectionError, Reading
from appui.saving import atomic_write, photo_name, save_for_training
from scoring.hand import HandError, MeldKind, WinContext
from scoring.notation import parse_hand
from tileset.classes import CLASS_ID
from tileset.labelfiles import history_paths, read_meta
from vision.issues import IssueCode, issue


def tiles_of(groups: dict[str, list[str]]) -> list[dict]:
    """Tiles laid left to right per group, 40x56 boxes, rows by group."""
    rows = {"hand": 300, "win": 300, "meld0": 200, "meld1": 200, "meld2": 200, "meld3": 200, "flowers": 100}
    out, x = [], 10.0
    for group, names in groups.items():
        for name in names:
            y = rows.get(group, 50)
            out.append({"cls": name, "xyxy": [x, y, x + 40, y + 56], "conf": 0.9, "group": group})
            x += 42
        x += 30
    return out


READ = tiles_of(
    {
        "meld0": ["1m", "2m", "3m"],
        "meld1": ["back", "5p", "5p", "back"],
        "hand": ["E", "E", "E", "7s", "8s", "1p", "1p"],
        "win": ["9s"],
        "flowers": ["f1", "s3"],
    }
)


def test_groups_make_the_hand_with_concealed_kong_and_flowers():
    hand = Reading.from_tiles(READ).to_hand(WinContext(self_drawn=True))
    assert hand == parse_hand("[123m] (5555p) EEE78s11p +9s self-drawn flowers=2")
    assert [m.kind for m in hand.melds] == [MeldKind.CHOW, MeldKind.KONG]


def test_a_face_the_reader_put_in_the_flowers_group_counts_as_a_flower():
    """Flowers of an unknown artwork, read as other faces but lying apart: they count where they lie."""
    read_as_faces = [dict(t, cls="5m") if t["group"] == "flowers" else t for t in READ]
    reading = Reading.from_tiles(read_as_faces)
    assert reading.flower_count == 2
    assert reading.to_hand(WinContext(self_drawn=True)).context.flowers == 2
    unplaced = reading.with_group(reading.group_members()["flowers"][0], "unplaced")
    assert unplaced.flower_count == 1  # moved out of the flowers group: a 5m again
    backs = Reading.from_tiles([dict(t, cls="back") if t["group"] == "flowers" else t for t in READ])
    assert backs.flower_count == 0


def test_change_face_move_group_mark_win_add_remove():
    reading = Reading.from_tiles(READ)
    hand_idx = reading.group_members()["hand"]
    changed = reading.with_face(hand_idx[4], "9s").with_win(hand_idx[3])  # 7s 8s -> 9s 8s, 7s wins
    assert changed.edits == 3  # the new face, the new winning tile, the old one sent back
    assert changed.to_hand(WinContext()).win_tile.name == "7s"
    assert [t.group for t in changed.tiles].count("win") == 1  # the old winning tile went back to the hand

    three_e = hand_idx[:3]
    moved = reading
    for i in three_e:
        moved = moved.with_group(i, "meld2")
    assert moved.to_hand(WinContext()) == parse_hand("[123m] (5555p) [EEE] 78s11p +9s flowers=2")

    removed = reading.without(hand_idx[0])
    with pytest.raises(HandError, match="must hold 7 tiles"):
        removed.to_hand(WinContext())
    restored = removed.with_added("E", "hand")
    a, b = restored.to_hand(WinContext()), reading.to_hand(WinContext())
    assert (a.melds, sorted(a.concealed), a.win_tile) == (b.melds, sorted(b.concealed), b.win_tile)
    new_box = restored.tiles[-1].xyxy
    assert new_box[0] > max(t["xyxy"][2] for t in READ if t["group"] == "hand")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.with_group(r.group_members()["win"][0], "hand"), "no winning tile"),
        (lambda r: r.with_face(0, "5m"), r"meld 1: the group 5m 2m 3m is not a chow, pung or kong"),
        (lambda r: r.with_face(3, "6p"), "concealed kong"),
        (lambda r: r.with_added("back", "hand"), "face-down tile lies in the standing hand"),
    ],
)
def test_broken_corrections_say_what_is_wrong(edit, message):
    with pytest.raises(HandError, match=message):
        edit(Reading.from_tiles(READ)).to_hand(WinContext())


def test_bad_edits_are_refused():
    reading = Reading.from_tiles(READ)
    with pytest.raises(CorrectionError, match="no tile #99"):
        reading.with_face(98, "1m")
    with pytest.raises(CorrectionError, match="unknown tile"):
        reading.with_face(0, "10m")
    with pytest.raises(CorrectionError, match="unknown group"):
        reading.with_group(0, "table")


def test_unplaced_tiles_stay_out_of_the_hand():
    extra = [*READ, {"cls": "C", "xyxy": [500, 500, 540, 556], "conf": 0.3, "group": None}]
    reading = Reading.from_tiles(extra)
    assert reading.tiles[-1].group == "unplaced"
    assert reading.to_hand(WinContext()) == Reading.from_tiles(READ).to_hand(WinContext())


def test_yolo_lines_are_normalized_and_clipped():
    reading = Reading.from_tiles([{"cls": "5m", "xyxy": [-10, 20, 30, 76], "group": "hand"}])
    (line,) = reading.yolo_lines(100, 200)
    cls, cx, cy, w, h = line.split()
    assert int(cls) == CLASS_ID["5m"]
    assert (float(cx), float(cy), float(w), float(h)) == pytest.approx((0.15, 0.24, 0.3, 0.28))


def test_save_for_training_writes_image_and_labels_and_keeps_a_backup(tmp_path):
    image = np.full((400, 1200, 3), 90, np.uint8)
    reading = Reading.from_tiles(READ)
    name = photo_name(b"photo bytes")
    img_path, lbl_path = save_for_training(image, reading, tmp_path, name)
    assert img_path == tmp_path / "images" / f"{name}.jpg" and img_path.stat().st_size > 0
    lines = lbl_path.read_text().splitlines()
    assert len(lines) == len(READ) and read_meta(lbl_path.with_name(f"{name}.meta.json")).reviewed
    assert lines[0].split()[0] == str(CLASS_ID["1m"])

    corrected = reading.with_face(0, "4m")
    save_for_training(image, corrected, tmp_path, name)
    (previous,) = history_paths(lbl_path)  # the one label writer keeps the previous version
    assert [line.split()[0] for line in previous.read_text().splitlines()] == [line.split()[0] for line in lines]
    assert lbl_path.read_text().splitlines()[0].split()[0] == str(CLASS_ID["4m"])
    assert not list(tmp_path.rglob("*.tmp"))


def test_atomic_write_leaves_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    target = tmp_path / "labels.txt"
    atomic_write(target, b"old\n")

    def boom(*_args):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert not list(tmp_path.glob("*.tmp"))


def test_issues_point_at_the_tiles_they_name_even_after_edits():
    reading = Reading.from_tiles(READ)
    low = issue(IssueCode.LOW_CONFIDENCE, (0,), name="1m", x=30.0, y=228.0, conf=0.31)
    touching = issue(IssueCode.SETS_TOUCH, (2, 1, 2), shown="1m 2m 3m", after="back 5p 5p back")
    assert reading.tiles_named_in(low) == [0]
    assert reading.tiles_named_in(touching) == [2, 1]  # the issue's order, each tile once
    assert reading.tiles_named_in(issue(IssueCode.TILE_COUNT, melds=2, expected=7, held=6)) == []
    assert reading.tiles_named_in(issue(IssueCode.LOW_CONFIDENCE, (len(READ),), name="E", x=0, y=0, conf=0.1)) == []
    edited = reading.without(0).with_added("5s", "hand").with_face(1, "4m")
    assert edited.tiles_named_in(low) == []  # removed
    assert edited.tiles_named_in(touching) == [1, 0]  # moved up by one, still the 3m and the (now) 4m


def test_saved_photos_open_in_the_labeling_workflow(tmp_path):
    from tileset.labelfiles import list_photos

    reading = Reading.from_tiles(READ).with_face(0, "4m")
    save_for_training(np.full((400, 1200, 3), 90, np.uint8), reading, tmp_path, "p1", model="demo")
    (photo,) = list_photos(tmp_path)
    labels = photo.load()
    assert len(labels.boxes) == len(READ)
    assert labels.boxes[0].class_name == "4m"
    assert labels.meta.origin == "human" and labels.meta.reviewed and labels.meta.model == "demo"
    assert labels.confidences()[0] == 1.0 and labels.confidences()[1] == pytest.approx(0.9)


