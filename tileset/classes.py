"""The canonical class table, defined once.

43 names, class id = position (the order of the datasets' `classes.txt` and `data.yaml`):
the 34 tile faces, flowers f1..f4, seasons s1..s4, and `back` (a face-down
tile).  Dataset YAMLs, model metadata checks and the app's labels derive from
this table.
"""

from __future__ import annotations

from scoring.tiles import TILE_NAMES

FLOWER_NAMES: tuple[str, ...] = ("f1", "f2", "f3", "f4", "s1", "s2", "s3", "s4")
BACK = "back"
CLASS_NAMES: tuple[str, ...] = TILE_NAMES + FLOWER_NAMES + (BACK,)
CLASS_ID: dict[str, int] = {name: i for i, name in enumerate(CLASS_NAMES)}
FACE_NAMES: tuple[str, ...] = CLASS_NAMES[:-1]  # the 42 face-up classes
BACK_ID = CLASS_ID[BACK]

NAMES_ZH: dict[str, str] = {
    **{f"{r}m": f"{'一二三四五六七八九'[r - 1]}万" for r in range(1, 10)},
    **{f"{r}p": f"{'一二三四五六七八九'[r - 1]}筒" for r in range(1, 10)},
    **{f"{r}s": f"{'一二三四五六七八九'[r - 1]}条" for r in range(1, 10)},
    "E": "东", "S": "南", "W": "西", "N": "北", "C": "中", "F": "发", "P": "白",
    "f1": "梅", "f2": "兰", "f3": "菊", "f4": "竹",
    "s1": "春", "s2": "夏", "s3": "秋", "s4": "冬",
    "back": "背",
}


def is_flower(name: str) -> bool:
    return name in FLOWER_NAMES


class ClassTableMismatch(RuntimeError):
    """A model or dataset whose class names differ from the canonical table."""


def check_names(names: list[str] | tuple[str, ...] | dict[int, str], expected: tuple[str, ...], what: str) -> None:
    """Fail loudly when `names` (a list or ultralytics' {id: name}) is not `expected`, in order."""
    if isinstance(names, dict):
        names = [names[i] for i in sorted(names)]
    names = tuple(names)
    if names != expected:
        diffs = [f"id {i}: {a!r} != {b!r}" for i, (a, b) in enumerate(zip(names, expected, strict=False)) if a != b]
        if len(names) != len(expected):
            diffs.insert(0, f"{len(names)} classes, expected {len(expected)}")
        raise ClassTableMismatch(f"{what}: class names differ from the canonical table ({'; '.join(diffs[:5])})")
