"""Synthetic photos of laid-out winning hands, with YOLO labels and the true score.

    python -m datasets.synth --art ART --out OUT --n 20000 --seed 0 --workers 16

ART: an artwork folder in the form of `datasets/fake_art.py`'s (one folder per set with its mapping.tsv;
`datasets.art`).

Scene i is drawn from seed S+i alone (hand, art set, size, layout, table, light,
camera, JPEG quality), so the output does not depend on `--workers`.  Writes
`OUT/images/NAME.jpg`, `OUT/labels/NAME.txt` (YOLO: class cx cy w h of each
visible face, normalised, canonical class ids) and `OUT/truth/NAME.json`
(`image, width, height, art, hand, expected_total, tiles[cls, xyxy, group,
sideways]`), plus `OUT/synth.json` describing the run.

Rendered images from the KDE and GNOME sets are GPL-derived: training input
only, never to be shipped or committed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2

from datasets.art import ART_SETS, ArtError, ArtSet, load_art
from datasets.render import render_plan, render_scene
from datasets.restyle import drawn_set, restyle
from datasets.room import render_room
from datasets.scene import PlacedTile, SceneVariation, plan_calibration, plan_layout, plan_scene
from datasets.standing import AT_PLAY, WEBCAM_SIZES, render_standing
from datasets.tables import TRAIN_FAMILIES, TableSpecError, parse_families, render_empty, table_source
from scoring.fans import FanId
from scoring.hand import Hand
from scoring.notation import format_hand, parse_hand
from tileset.calibration import LayoutSpecError, calibration_rows, parse_bonus
from tileset.classes import CLASS_ID, FLOWER_NAMES

ROOM_SUFFIX = "_room"  # a photo of the room around a table and no tile: NAME_room

__all__ = ["PlacedTile", "SceneVariation", "main", "make_scene", "plan_layout", "plan_scene", "render_scene"]

# Used when the scorer's hand generator is not importable.
FALLBACK_HANDS: tuple[str, ...] = (
    "[123m] [EEE] (5555p) 78s11p +9s self-drawn seat=S prevalent=W flowers=2",
    "123m456p789s11sEE +E",
    "[4444s] [777p] [CCC] [234m] 9p +9p flowers=3",
    "(1111m) (9999p) [WWW] 23s55s +1s flowers=1",
    "1133557799m112p +2p self-drawn",
    "19m19p19s ESWNCF P +P",
    "[234p] 345p567s78m99s +6m flowers=4",
    "[FFF] 11122233s44s +4s prevalent=S",
)
LONG_SIDES = (960, 1600)
ASPECTS = ((4, 3), (16, 9), (3, 2))
PORTRAIT_SHARE = 0.2
JPEG_QUALITY = (40, 95)


@dataclass(frozen=True)
class Scene:
    name: str
    image: Any  # BGR uint8
    jpeg_quality: int
    art: str
    hand: Hand | None  # None: a calibration photo (`rows` says what it shows)
    expected_total: int | None
    tiles: tuple[PlacedTile, ...]
    rows: tuple[tuple[str, ...], ...] = ()
    layout: str = ""  # for a photo without a hand: calibration, standing or empty (the default by `rows`)

    @property
    def width(self) -> int:
        return int(self.image.shape[1])

    @property
    def height(self) -> int:
        return int(self.image.shape[0])

    def yolo_lines(self) -> list[str]:
        return [yolo_line(t, self.width, self.height) for t in self.tiles]

    def truth(self) -> dict[str, Any]:
        if self.hand is None:
            return {"image": f"images/{self.name}.jpg", "width": self.width, "height": self.height, "art": self.art,
                    "layout": self.layout or ("calibration" if self.rows else "empty"), "rows": [list(row) for row in self.rows],
                    "tiles": [t.to_json() for t in self.tiles]}
        return {
            "image": f"images/{self.name}.jpg",
            "width": self.width,
            "height": self.height,
            "art": self.art,
            "hand": self.hand.to_json(),
            "notation": format_hand(self.hand),
            "expected_total": self.expected_total,
            "tiles": [t.to_json() for t in self.tiles],
        }


def yolo_line(tile: PlacedTile, width: int, height: int) -> str:
    x0, y0, x1, y1 = tile.xyxy
    x0, x1 = max(0.0, x0), min(float(width), x1)
    y0, y1 = max(0.0, y0), min(float(height), y1)
    cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
    return f"{CLASS_ID[tile.cls]} {cx:.6f} {cy:.6f} {(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}"


# --- hands and their scores --------------------------------------------------------------


def _hand_source(fans: tuple[int, ...] = ()) -> Callable[[random.Random], Hand]:
    """Random winning hands; with `fans`, each holds one of these fans (drawn anew for every hand)."""
    try:
        from datasets.hands import random_hand
    except ImportError:
        fallback = [parse_hand(t) for t in FALLBACK_HANDS]
        return lambda rng: rng.choice(fallback)
    if fans:
        return lambda rng: random_hand(rng, target_fan=rng.choice(fans))
    return random_hand


def _scorer() -> Callable[[Hand], int] | None:
    try:
        from scoring.scorer import score
    except ImportError:
        return None
    return lambda hand: int(score(hand).total)


MAX_HAND_TRIES = 20


def draw_hand(rng: random.Random, art: ArtSet, source: Callable[[random.Random], Hand],
              scorer: Callable[[Hand], int] | None) -> tuple[Hand, int | None]:
    """A hand with its true score; hands the scorer refuses are skipped (redrawn)."""
    last_error: Exception | None = None
    for _ in range(MAX_HAND_TRIES):
        hand = source(rng)
        if not all(f in art.faces for f in FLOWER_NAMES) and hand.context.flowers:
            hand = replace(hand, context=replace(hand.context, flowers=0))  # this set has no flower art
        if scorer is None:
            return hand, None
        try:
            return hand, scorer(hand)
        except Exception as error:  # a hand the scorer cannot score is no use as truth
            last_error = error
    raise RuntimeError(f"the scorer refused {MAX_HAND_TRIES} hands in a row; last error: {last_error}")


def image_size(rng: random.Random) -> tuple[int, int]:
    long_side = rng.randint(*LONG_SIDES) // 16 * 16
    a, b = rng.choice(ASPECTS)
    short_side = int(long_side * b / a) // 16 * 16
    return (short_side, long_side) if rng.random() < PORTRAIT_SHARE else (long_side, short_side)


def make_scene(index: int, seed: int, sets: Sequence[ArtSet],
               source: Callable[[random.Random], Hand] | None = None,
               scorer: Callable[[Hand], int] | None = None, restyle_share: float = 0.0,
               tables: tuple[str, ...] = (), empty_share: float = 0.0, cloth: int | None = None,
               dice_share: float = 0.0) -> Scene:
    """Scene number `index` of a run with `seed`: everything drawn from Random(seed + index) (but the
    table's pattern, with `cloth`: `datasets.tables.table_source`).

    With `restyle_share` > 0, that share of the scenes uses a restyled variant of its art
    set (`datasets.restyle`), named `SET-restyled`.  `tables`: table families of
    `datasets.tables` (default: the older tables of `datasets.render`); `empty_share` of the
    scenes show a table without tiles (`NAME_empty`, an empty label file); `dice_share` of the hands have dice
    lying close beside their tiles (`datasets.render.draw_beside`; at 0 the scenes are drawn as before).
    """
    rng = random.Random(seed + index)
    art = sets[rng.randrange(len(sets))]
    art_name = art.name
    if restyle_share > 0 and rng.random() < restyle_share:
        art, art_name = restyle(art, rng), f"{art.name}-restyled"
    if empty_share > 0 and rng.random() < empty_share:
        width, height = image_size(rng)
        image = render_empty(rng, width, height, table_source(tables or ("plain",), cloth=cloth), art)
        quality = rng.randint(*JPEG_QUALITY)
        return Scene(f"{seed + index:08d}_{art_name}_empty", image, quality, art_name, None, None, ())
    hand, total = draw_hand(rng, art, source or _hand_source(), scorer)
    width, height = image_size(rng)
    dice = random.Random(f"dice {seed + index}")  # its own generator: the scene is the same with or without dice
    image, tiles = render_scene(hand, art, rng, width, height, dice=dice if dice.random() < dice_share else None,
                                table_source=table_source(tables, cloth=cloth) if tables else None)
    quality = rng.randint(*JPEG_QUALITY)
    return Scene(f"{seed + index:08d}_{art_name}", image, quality, art_name, hand, total, tuple(tiles))


def make_calibration_scene(index: int, seed: int, sets: Sequence[ArtSet], bonus: tuple[str, ...] | None = None,
                           back_share: float = 0.0, tables: tuple[str, ...] = (), cloth: int | None = None) -> Scene:
    """Calibration photo number `index` (`tileset.calibration`): one of each face of a set in rows,
    drawn from Random(seed + index) with the camera, table, light and noise of the hand scenes
    (`tables`, `cloth`: as in `make_scene`). A set without flower art leaves row 5 out; `back_share`
    of the photos add a back to row 4."""
    rng = random.Random(seed + index)
    art = sets[rng.randrange(len(sets))]
    if bonus is None and not all(f in art.faces for f in FLOWER_NAMES):
        bonus = ()
    rows = calibration_rows(bonus, back=rng.random() < back_share)
    width, height = image_size(rng)
    plan = plan_calibration(rows, rng, width, height)
    image = render_plan(plan, art, rng, table_source=table_source(tables, cloth=cloth) if tables else None)
    quality = rng.randint(*JPEG_QUALITY)
    return Scene(f"{seed + index:08d}_{art.name}_calibration", image, quality, art.name, None, None, plan.tiles, rows)


def make_standing_scene(index: int, seed: int, sets: Sequence[ArtSet],
                        source: Callable[[random.Random], Hand] | None = None, restyle_share: float = 0.0,
                        tables: tuple[str, ...] = (), at_play: bool = False, empty_share: float = 0.0) -> Scene:
    """Webcam photo number `index` of standing tiles (`datasets.standing`): a hand and maybe a second
    row, drawn from Random(seed + index); the table from `tables` (default: every training family).
    `at_play`: as a webcam sees them while the game goes on (`datasets.standing.AT_PLAY`); `empty_share` of
    the photos show the room around the table and no tile (`render_room`, `NAME_room`, an empty label file)."""
    rng = random.Random(seed + index)
    if empty_share > 0 and rng.random() < empty_share:
        width, height = rng.choice(WEBCAM_SIZES)
        image = render_room(rng, width, height, tables or TRAIN_FAMILIES)
        return Scene(f"{seed + index:08d}{ROOM_SUFFIX}", image, rng.randint(*JPEG_QUALITY), "none", None, None, (),
                     layout="standing")
    art = sets[rng.randrange(len(sets))]
    art_name = art.name
    if restyle_share > 0 and rng.random() < restyle_share:
        art, art_name = restyle(art, rng), f"{art.name}-restyled"
    source = source or _hand_source()
    hand, other = source(rng), source(rng)
    width, height = rng.choice(WEBCAM_SIZES)
    image, tiles, rows = render_standing(hand, art, rng, width, height, other=other, families=tables or TRAIN_FAMILIES,
                                         **(AT_PLAY if at_play else {}))
    quality = rng.randint(*JPEG_QUALITY)
    return Scene(f"{seed + index:08d}_{art_name}_standing", image, quality, art_name, None, None, tuple(tiles), rows,
                 layout="standing")


def write_scene(scene: Scene, out: Path) -> None:
    ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
    if not ok:
        raise RuntimeError(f"JPEG encoding failed for {scene.name}")
    (out / "images" / f"{scene.name}.jpg").write_bytes(jpeg.tobytes())
    (out / "labels" / f"{scene.name}.txt").write_text("".join(line + "\n" for line in scene.yolo_lines()))
    (out / "truth" / f"{scene.name}.json").write_text(json.dumps(scene.truth(), ensure_ascii=False))


# --- the run ---------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _init_worker(art_root: str, only: list[str], hold_out: list[str], seed: int, out: str, restyle_share: float,
                 layout: str = "hand", bonus: tuple[str, ...] | None = None, back_share: float = 0.0,
                 tables: tuple[str, ...] = (), empty_share: float = 0.0, drawn: int | None = None,
                 cloth: int | None = None, dice_share: float = 0.0, at_play: bool = False,
                 fans: tuple[int, ...] = ()) -> None:
    cv2.setNumThreads(1)
    sets = load_art(art_root, only=only, hold_out=hold_out)
    _WORKER.update(
        sets=[drawn_set(s, drawn) for s in sets] if drawn is not None else sets, seed=seed, out=Path(out),
        source=_hand_source(fans), scorer=_scorer(), restyle_share=restyle_share,
        layout=layout, bonus=bonus, back_share=back_share, tables=tables, empty_share=empty_share, cloth=cloth,
        dice_share=dice_share, at_play=at_play,
    )


def _work(index: int) -> str:
    if _WORKER.get("layout") == "calibration":
        scene = make_calibration_scene(index, _WORKER["seed"], _WORKER["sets"], _WORKER["bonus"],
                                       _WORKER["back_share"], _WORKER["tables"], _WORKER["cloth"])
        write_scene(scene, _WORKER["out"])
        return scene.art
    if _WORKER.get("layout") == "standing":
        scene = make_standing_scene(index, _WORKER["seed"], _WORKER["sets"], _WORKER["source"],
                                    _WORKER["restyle_share"], _WORKER["tables"], _WORKER["at_play"], _WORKER["empty_share"])
        write_scene(scene, _WORKER["out"])
        return scene.art
    scene = make_scene(index, _WORKER["seed"], _WORKER["sets"], _WORKER["source"], _WORKER["scorer"],
                       _WORKER["restyle_share"], _WORKER["tables"], _WORKER["empty_share"], _WORKER["cloth"],
                       _WORKER["dice_share"])
    write_scene(scene, _WORKER["out"])
    return scene.art


def _run(indices: range, args: argparse.Namespace) -> Iterator[str]:
    init = (str(args.art), args.only, args.hold_out, args.seed, str(args.out), args.restyle,
            args.layout, parse_bonus(args.bonus), args.back,
            parse_families(args.tables) if args.tables else (), args.empty, args.drawn, args.cloth, args.dice,
            args.at_play, tuple(args.fan))
    if args.workers <= 1:
        _init_worker(*init)
        cv2.setNumThreads(0)
        yield from map(_work, indices)
        return
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    with ctx.Pool(args.workers, initializer=_init_worker, initargs=init) as pool:
        yield from pool.imap_unordered(_work, indices, chunksize=8)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m datasets.synth",
        description="Render synthetic photos of laid-out winning hands (photo-layout.md) with YOLO labels and truth JSON.",
    )
    p.add_argument("--art", type=Path, required=True, help="ART: the artwork folder (the form of datasets/fake_art.py's)")
    p.add_argument("--out", type=Path, required=True, help="output folder (images/, labels/, truth/)")
    p.add_argument("--n", type=int, required=True, help="number of scenes")
    p.add_argument("--seed", type=int, default=0, help="scene i is drawn from seed+i (default 0)")
    p.add_argument("--hold-out", action="append", default=[], metavar="NAME", choices=ART_SETS,
                   help="leave this art set out (repeatable)")
    p.add_argument("--only", action="append", default=[], metavar="NAME", choices=ART_SETS,
                   help="render only this art set (repeatable), e.g. for held-out evaluation scenes")
    p.add_argument("--restyle", type=float, default=0.0, metavar="SHARE",
                   help="share of scenes drawn with a restyled variant of their art set: other flowers and white "
                        "dragons, suits and honours drawn anew, corner indices (datasets.restyle; default 0)")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument("--layout", choices=("hand", "calibration", "standing"), default="hand",
                   help="hand: finished hands (photo-layout.md, default); calibration: one of each face in rows "
                        "(calibration-layout.md), truth JSON without a hand; standing: webcam views of a hand "
                        "standing on the table, seen from the front and low, before shelves and books "
                        "(datasets.standing; --tables default train)")
    p.add_argument("--view", dest="layout", choices=("standing",), help="--view standing is --layout standing")
    p.add_argument("--at-play", action="store_true",
                   help="standing: as a webcam sees the tiles while the game goes on (rows turned up to 70 degrees, "
                        "leaning, loose tiles in front, fingers, a low camera, titled books behind: datasets.standing.AT_PLAY); "
                        "--empty SHARE then gives photos of the room around the table without tiles")
    p.add_argument("--bonus", default=None, metavar="LIST",
                   help="calibration row 5: the bonus tiles the set has (f1,f2,f3,f4), or none (default: all eight "
                        "when the art has them)")
    p.add_argument("--back", type=float, default=0.0, metavar="SHARE",
                   help="calibration: share of photos with a back at the end of row 4 (default 0)")
    p.add_argument("--tables", default=None, metavar="FAMILIES",
                   help="hand and calibration scenes: draw the table from these datasets.tables families: train (all but the "
                        "test-only mosaic), test (only it), all, or names joined by commas (default: the older tables)")
    p.add_argument("--empty", type=float, default=0.0, metavar="SHARE",
                   help="hand scenes: share of photos showing a table without tiles (empty label files; default 0)")
    p.add_argument("--dice", type=float, default=0.0, metavar="SHARE",
                   help="hand scenes: share of photos with 1-3 dice (or a coin) lying close beside the tiles, where a "
                        "die boxed as a tile breaks a row or passes for a flower (default 0)")
    p.add_argument("--cloth", type=int, default=None, metavar="SEED",
                   help="with --tables: one club's table in every photo, its family and pattern drawn from this "
                        "seed alone (the slant, light and things on it still vary)")
    p.add_argument("--drawn", type=int, default=None, metavar="SEED",
                   help="replace every art set's suits and honours by the one drawn set of this seed "
                        "(datasets.drawn, the same in every scene), named SET-drawnSEED: a set no model has seen")
    p.add_argument("--fan", action="append", type=int, default=[], metavar="ID",
                   help="hand and standing scenes: every hand holds one of these fans (fans.tsv ids, repeatable), "
                        "e.g. --fan 53 --fan 67 for concealed kongs, whose two outer tiles lie face down")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.n < 1 or args.workers < 1:
        print("error: --n and --workers must be at least 1", file=sys.stderr)
        return 2
    if not all(0.0 <= share <= 1.0 for share in (args.restyle, args.back, args.empty, args.dice)):
        print("error: --restyle, --back, --empty and --dice are shares between 0 and 1", file=sys.stderr)
        return 2
    if not set(args.fan) <= {int(fan) for fan in FanId}:
        print("error: --fan takes fan ids from 1 to 81 (fans.tsv)", file=sys.stderr)
        return 2
    if args.cloth is not None and not args.tables:
        print("error: --cloth needs --tables (the families the club's table is drawn from)", file=sys.stderr)
        return 2
    try:
        parse_families(args.tables or "plain")
    except TableSpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        parse_bonus(args.bonus)
    except LayoutSpecError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        sets = load_art(args.art, only=args.only, hold_out=args.hold_out)
    except ArtError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for sub in ("images", "labels", "truth"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)
    scorer = _scorer()
    if scorer is None:
        print("warning: scoring.scorer is not available; expected_total will be null", file=sys.stderr)
    kind = "" if args.layout == "hand" else f"{args.layout} "
    names = ", ".join(s.name for s in sets)
    print(f"rendering {args.n} {kind}scenes from art sets {names} with {args.workers} worker(s)", flush=True)
    start = time.perf_counter()
    per_set: dict[str, int] = {}
    step = max(1, min(500, args.n // 20))
    for done, art in enumerate(_run(range(args.n), args), 1):
        per_set[art] = per_set.get(art, 0) + 1
        if done % step == 0 or done == args.n:
            rate = done / (time.perf_counter() - start)
            print(f"{done}/{args.n} scenes, {rate:.1f} scenes/s", flush=True)
    elapsed = time.perf_counter() - start
    summary = {
        "n": args.n, "seed": args.seed, "art_sets": [s.name for s in sets], "per_set": per_set,
        "only": args.only, "hold_out": args.hold_out, "restyle": args.restyle,
        "tables": list(parse_families(args.tables)) if args.tables else None, "empty": args.empty, "cloth": args.cloth, "drawn": args.drawn,
        "dice": args.dice,
        "seconds": round(elapsed, 1),
        "scenes_per_second": round(args.n / elapsed, 2), "workers": args.workers,
        "gpl_derived": any(s.name.startswith(("kde-", "gnome-")) for s in sets),
    }
    (args.out / "synth.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(f"done: {args.n} scenes in {elapsed:.1f} s ({args.n / elapsed:.2f} scenes/s, {args.workers} worker(s)) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
