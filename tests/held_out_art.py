"""A tile set no shipped model has seen, drawn here so that the calibration's end-to-end tests need nothing
beside the repository: `datasets.fake_art`'s folder with its white dragon drawn as a blue frame and its
flowers and seasons as a rank and a word in ink (its blocks of one colour read as backs), rendered by
`python -m datasets.synth --drawn SEED` (the suits and honours drawn anew, `datasets.drawn`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from datasets.fake_art import FAKE_SIZE, write_fake_art
from tileset.classes import CLASS_ID, FLOWER_NAMES

REPO = Path(__file__).resolve().parent.parent
DRAWN_SEED = 4242  # the drawn set's suits and honours (datasets.drawn)
FLOWER_WORDS = {"f1": "PLUM", "f2": "ORCH", "f3": "MUM", "f4": "BAMB",
                "s1": "SPRG", "s2": "SUMR", "s3": "AUTM", "s4": "WNTR"}
FLOWER_INK = {"f": (40, 40, 170), "s": (150, 80, 20)}  # BGR: flowers red, seasons blue


def _white_dragon() -> np.ndarray:
    w, h = FAKE_SIZE
    face = np.zeros((h, w, 4), np.uint8)
    cv2.rectangle(face, (w // 6, h // 7), (w - 1 - w // 6, h - 1 - h // 7), (170, 90, 30, 255), 7)
    cv2.rectangle(face, (w // 6 + 14, h // 7 + 14), (w - 1 - w // 6 - 14, h - 1 - h // 7 - 14), (170, 90, 30, 255), 3)
    return face


def _flower(cls: str) -> np.ndarray:
    w, h = FAKE_SIZE
    face = np.zeros((h, w, 4), np.uint8)
    ink = (*FLOWER_INK[cls[0]], 255)
    cv2.putText(face, cls[1], (w // 2 - 18, h // 2 + 4), cv2.FONT_HERSHEY_SIMPLEX, 1.9, ink, 5, cv2.LINE_AA)
    cv2.putText(face, FLOWER_WORDS[cls], (8, h - 22), cv2.FONT_HERSHEY_SIMPLEX, 0.8, ink, 2, cv2.LINE_AA)
    cv2.circle(face, (w // 2, 30), 12, ink, 3)
    return face


def write_held_out_art(root: Path) -> Path:
    """The art folder (one set, gl-mahjongtile's form) whose `--drawn DRAWN_SEED` render is the held-out set."""
    write_fake_art(root)
    faces = root / "gl-mahjongtile" / "png" / "converted"
    cv2.imwrite(str(faces / f"x-{CLASS_ID['P']}.png"), _white_dragon())
    for cls in FLOWER_NAMES:
        cv2.imwrite(str(faces / f"x-{CLASS_ID[cls]}.png"), _flower(cls))
    return root


def render(art: Path, out: Path, n: int, seed: int, *extra: str) -> Path:
    """`n` scenes of the held-out set (`extra`: more `datasets.synth` arguments, e.g. `--layout calibration`)."""
    subprocess.run([sys.executable, "-m", "datasets.synth", "--art", str(art), "--out", str(out), "--n", str(n),
                    "--seed", str(seed), "--only", "gl-mahjongtile", "--drawn", str(DRAWN_SEED), *extra],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return out
