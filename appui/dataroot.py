"""The one folder the app writes to: saved corrections, label folders, model versions, the LAN certificate.

`MCR_DATA` names it, else `~/.mcr-scorer` (`datafolder.data_root`, shared with the ledger).  A folder the user types or picks is taken relative
to it and refused when it resolves outside (`..`, an absolute path elsewhere, a symlink out).
"""

from __future__ import annotations

import os
from pathlib import Path

from datafolder import data_root

__all__ = ["OutsideDataRoot", "data_root", "relative_name", "resolve_inside", "subfolders"]


class OutsideDataRoot(ValueError):
    """A folder that would be outside the data root."""


def resolve_inside(root: Path, user_path: str | os.PathLike[str]) -> Path:
    """`user_path` under `root`, with symlinks and `..` resolved; OutsideDataRoot if it leaves the root.

    A relative path is taken under the root; an absolute one is accepted only when it lies inside.
    """
    text = str(user_path).strip()
    if not text:
        raise OutsideDataRoot("no folder given")
    if "\x00" in text:
        raise OutsideDataRoot("the folder name holds a NUL character")
    root = Path(root).expanduser().resolve()
    candidate = Path(text).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = candidate.resolve()  # follows every symlink that exists, folds ..
    if resolved != root and root not in resolved.parents:
        raise OutsideDataRoot(f"{text} is outside the data folder {root}")
    return resolved


def relative_name(root: Path, path: Path) -> str:
    """How a folder under the root is shown: relative to it ('.' for the root itself)."""
    rel = Path(path).resolve().relative_to(Path(root).resolve())
    return str(rel) if rel.parts else "."


def subfolders(root: Path, depth: int = 2) -> list[str]:
    """Folders under the root up to `depth` levels, relative and sorted (a picker lists them)."""
    root = Path(root).resolve()
    if not root.is_dir():
        return []
    found: list[str] = []

    def walk(folder: Path, level: int) -> None:
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
        except OSError:
            return
        for child in children:
            try:
                inside = resolve_inside(root, child)
            except OutsideDataRoot:
                continue  # a symlink out of the root is not offered
            found.append(relative_name(root, inside))
            if level < depth:
                walk(child, level + 1)

    walk(root, 1)
    return found
