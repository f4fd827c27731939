"""The calibration layout (`docs/spec/calibration-layout.md`): one tile of each face in rows.

Rows run far from the camera to near, tiles left to right:

    1  1m .. 9m            characters
    2  1p .. 9p            dots
    3  1s .. 9s            bamboo
    4  E S W N C F P       winds, dragons; optionally one back at the end
    5  f1 f2 f3 f4 s1 s2 s3 s4   flowers and seasons; left out by a set without them, or
                                 four of them (`--bonus f1,f2,f3,f4`) by a set with only four

Both the renderer of calibration photos (`datasets.synth --layout calibration`) and the
reader of them (`training.calibrate`) take the rows from here.
"""

from __future__ import annotations

from tileset.classes import BACK, FLOWER_NAMES

SUITED_ROWS: tuple[tuple[str, ...], ...] = tuple(tuple(f"{rank}{suit}" for rank in range(1, 10)) for suit in "mps")
HONOUR_ROW: tuple[str, ...] = ("E", "S", "W", "N", "C", "F", "P")
BONUS_ROW: tuple[str, ...] = FLOWER_NAMES


class LayoutSpecError(ValueError):
    """A bonus list that is not part of the flowers and seasons, said plainly."""


def parse_bonus(text: str | None) -> tuple[str, ...] | None:
    """`f1,f2,f3,f4` -> the bonus tiles in row 5 (in the canonical order); None or "" -> all eight;
    "none" -> no row 5."""
    if text is None or not text.strip():
        return None
    if text.strip().lower() == "none":
        return ()
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in BONUS_ROW]
    if unknown:
        raise LayoutSpecError(f"--bonus: {', '.join(unknown)} not a flower or season (f1..f4, s1..s4)")
    if len(set(names)) != len(names):
        raise LayoutSpecError("--bonus: a tile named twice")
    return tuple(name for name in BONUS_ROW if name in names)


def calibration_rows(bonus: tuple[str, ...] | None = None, back: bool = False) -> tuple[tuple[str, ...], ...]:
    """The rows of the layout, far to near. `bonus`: the row-5 tiles (None: all eight, (): no row 5);
    `back`: one face-down tile at the end of row 4."""
    row5 = BONUS_ROW if bonus is None else tuple(bonus)
    rows = [*SUITED_ROWS, HONOUR_ROW + ((BACK,) if back else ())]
    if row5:
        rows.append(row5)
    return tuple(rows)
