"""Tile artwork for synthetic scenes: every art set of an artwork folder (ART) by its mapping.tsv.

An `ArtSet` maps canonical class names (`tileset.classes`) to face images
(RGBA, `FACE_SIZE`).  Faces drawn as glyphs on a transparent background (KDE,
GL-MahjongTile, FluffyStuff) are marked `panel=False`: the renderer composites
them onto a face colour (ivory, white, cream).  GNOME smooth faces come with
their own panel.  Backs come from GL-MahjongTile `s-0` (stripes, drawn onto a
back colour) and FluffyStuff `Back`; every set also gets procedurally coloured
backs from the renderer.

Set names: kde-default, kde-traditional, kde-classic, kde-jade, gl-mahjongtile,
fluffystuff-riichi, gnome-smooth (KDE egypt is excluded: pictures, no glyphs).
The KDE and GNOME artwork is GPL: it is training input only; nothing here
copies it anywhere.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from tileset.classes import BACK, CLASS_ID, FACE_NAMES, FLOWER_NAMES

FACE_SIZE = (120, 168)  # width, height of stored face images
ART_SETS: tuple[str, ...] = (
    "kde-default",
    "kde-traditional",
    "kde-classic",
    "kde-jade",
    "gl-mahjongtile",
    "fluffystuff-riichi",
    "gnome-smooth",
)
_KDE_SETS = ("default", "traditional", "classic", "jade")


class ArtError(ValueError):
    """Artwork that cannot be loaded or a set name that does not exist."""


@dataclass(frozen=True)
class ArtSet:
    """Faces of one artwork set; `faces[cls]` holds one or more variants (RGBA, FACE_SIZE)."""

    name: str
    faces: dict[str, tuple[np.ndarray, ...]]
    panel: bool  # faces include an opaque face panel (else: glyphs to composite onto a face colour)
    backs: tuple[np.ndarray, ...] = ()  # back artwork: opaque (own colour) or stripes on transparent
    borrowed: frozenset[str] = field(default_factory=frozenset)  # classes taken from another set

    @property
    def classes(self) -> frozenset[str]:
        return frozenset(self.faces)


def _read_tsv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise ArtError(f"missing mapping file {path}")
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _read_rgba(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ArtError(f"cannot read artwork image {path}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    return image


def _fit(rgba: np.ndarray, pad: float = 0.0) -> np.ndarray:
    """Resize to FACE_SIZE; with `pad`, first keep the glyph's aspect inside a margin of that share."""
    w, h = FACE_SIZE
    if pad <= 0:
        return cv2.resize(rgba, (w, h), interpolation=cv2.INTER_AREA)
    inner_w, inner_h = w * (1 - 2 * pad), h * (1 - 2 * pad)
    scale = min(inner_w / rgba.shape[1], inner_h / rgba.shape[0])
    gw, gh = max(1, round(rgba.shape[1] * scale)), max(1, round(rgba.shape[0] * scale))
    glyph = cv2.resize(rgba, (gw, gh), interpolation=cv2.INTER_AREA)
    out = np.zeros((h, w, 4), np.uint8)
    x, y = (w - gw) // 2, (h - gh) // 2
    out[y : y + gh, x : x + gw] = glyph
    return out


def _inset(rgba: np.ndarray, share: float) -> np.ndarray:
    """Cut `share` of the width off every side (drops the GL-MahjongTile outline frame)."""
    m = round(rgba.shape[1] * share)
    return rgba[m:-m, m:-m]


def _add(faces: dict[str, list[np.ndarray]], cls: str, image: np.ndarray) -> None:
    if cls not in CLASS_ID:
        raise ArtError(f"mapping names unknown class {cls!r}")
    faces.setdefault(cls, []).append(image)


def _load_kde(root: Path, tileset: str) -> ArtSet:
    faces: dict[str, list[np.ndarray]] = {}
    pad = 0.08 if tileset in ("classic", "jade") else 0.0  # classic/jade PNGs are cropped to the glyph
    for row in _read_tsv(root / "kde-mahjongg" / "mapping.tsv"):
        if row["tileset"] == tileset and row["canonical"] in FACE_NAMES:
            image = _read_rgba(root / "kde-mahjongg" / row["png"])
            if image[..., 3].max() == 0:
                continue  # jade's white dragon renders fully transparent
            _add(faces, row["canonical"], _fit(image, pad))
    if tileset in ("default", "jade") and "P" not in faces:
        faces["P"] = [np.zeros((FACE_SIZE[1], FACE_SIZE[0], 4), np.uint8)]  # blank white dragon
    return ArtSet(f"kde-{tileset}", {k: tuple(v) for k, v in faces.items()}, panel=False)


def _load_gl(root: Path) -> ArtSet:
    faces: dict[str, list[np.ndarray]] = {}
    backs: list[np.ndarray] = []
    for row in _read_tsv(root / "gl-mahjongtile" / "mapping.tsv"):
        cls = row["canonical"]
        if cls == "-":
            continue
        image = _fit(_inset(_read_rgba(root / "gl-mahjongtile" / row["png"]), 0.07))
        if cls == BACK:
            backs.append(image)
        else:
            _add(faces, cls, image)
    return ArtSet("gl-mahjongtile", {k: tuple(v) for k, v in faces.items()}, panel=False, backs=tuple(backs))


def _load_fluffy(root: Path) -> ArtSet:
    faces: dict[str, list[np.ndarray]] = {}
    backs: list[np.ndarray] = []
    for row in _read_tsv(root / "fluffystuff-riichi" / "mapping.tsv"):
        cls = row["canonical"]
        if cls == BACK:
            backs.append(_fit(_inset(_read_rgba(root / "fluffystuff-riichi" / row["png"]), 0.06)))
        elif cls != "-" and row["variant"] == "Regular":
            _add(faces, cls, _fit(_read_rgba(root / "fluffystuff-riichi" / row["png"]), 0.02))
    return ArtSet("fluffystuff-riichi", {k: tuple(v) for k, v in faces.items()}, panel=False, backs=tuple(backs))


def _load_gnome(root: Path) -> ArtSet:
    folder = root / "gnome-mahjongg-smooth"
    sheet = _read_rgba(folder / "smooth.png")
    faces: dict[str, list[np.ndarray]] = {}
    for row in _read_tsv(folder / "mapping.tsv"):
        if row["row"] != "0" or row["canonical"] not in FACE_NAMES:
            continue
        x, y, w, h = (int(row[k]) for k in ("x", "y", "w", "h"))
        cell = sheet[y : y + h, x : x + w]
        # the cell draws a whole tile: its face is the panel right of the left side and above the front
        face = cell[round(h * 0.02) : round(h * 0.885), round(w * 0.115) : round(w * 0.97)]
        _add(faces, row["canonical"], _fit(face))
    return ArtSet("gnome-smooth", {k: tuple(v) for k, v in faces.items()}, panel=True)


_LOADERS: dict[str, Callable[[Path], ArtSet]] = {
    **{f"kde-{t}": partial(_load_kde, tileset=t) for t in _KDE_SETS},
    "gl-mahjongtile": _load_gl,
    "fluffystuff-riichi": _load_fluffy,
    "gnome-smooth": _load_gnome,
}
_FOLDERS = {
    **{f"kde-{t}": "kde-mahjongg" for t in _KDE_SETS},
    "gl-mahjongtile": "gl-mahjongtile",
    "fluffystuff-riichi": "fluffystuff-riichi",
    "gnome-smooth": "gnome-mahjongg-smooth",
}


def available_sets(root: Path) -> list[str]:
    """The art sets whose folder exists under `root`."""
    return [name for name in ART_SETS if (root / _FOLDERS[name] / ("smooth.png" if name == "gnome-smooth" else "mapping.tsv")).is_file()]


def check_set_names(names: Iterable[str]) -> None:
    unknown = sorted(set(names) - set(ART_SETS))
    if unknown:
        raise ArtError(f"unknown art set(s) {', '.join(unknown)}; known: {', '.join(ART_SETS)}")


def load_art(root: Path | str, *, only: Iterable[str] = (), hold_out: Iterable[str] = ()) -> list[ArtSet]:
    """Load the art sets under `root` (all available, or `only`), minus `hold_out`.

    Sets missing flowers/seasons (FluffyStuff) borrow them from another loaded
    set (GL-MahjongTile first); with no donor they stay without (the caller
    draws hands without flowers for them).
    """
    root = Path(root)
    if not root.is_dir():
        raise ArtError(f"art folder {root} does not exist")
    only, hold_out = list(only), list(hold_out)
    check_set_names(only + hold_out)
    names = [n for n in (only or available_sets(root)) if n not in hold_out]
    if not names:
        raise ArtError(f"no art set left to render under {root} (only={only}, hold-out={hold_out})")
    sets = [_LOADERS[n](root) for n in names]
    return [_borrow_flowers(s, sets) for s in sets]


def _borrow_flowers(art: ArtSet, sets: list[ArtSet]) -> ArtSet:
    missing = [f for f in FLOWER_NAMES if f not in art.faces]
    if not missing:
        return art
    donors = sorted((s for s in sets if s is not art and all(f in s.faces for f in missing)),
                    key=lambda s: s.name != "gl-mahjongtile")
    if not donors:
        return art
    faces = dict(art.faces) | {f: donors[0].faces[f] for f in missing}
    return ArtSet(art.name, faces, art.panel, art.backs, frozenset(missing))


def missing_faces(art: ArtSet) -> list[str]:
    return [c for c in FACE_NAMES if c not in art.faces]
