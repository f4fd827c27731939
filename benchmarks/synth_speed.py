"""Rendering speed of datasets.synth: scenes per second on one core (goal: >= 5 at ~1280x960).

    .venv/bin/python benchmarks/synth_speed.py --art ART --n 60

Renders and JPEG-encodes scenes in this process (one OpenCV thread), and reports
wall-clock and CPU-time rates; on a shared machine the CPU-time rate is the one
to compare with the goal.  Without --art it uses a fake art folder it draws.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the repo, not benchmarks/ (its scoring.py would shadow the package)

import cv2

from datasets.art import load_art
from datasets.fake_art import write_fake_art
from datasets.synth import _hand_source, _scorer, make_scene


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--art", type=Path, help="art folder (default: a fake one drawn here)")
    p.add_argument("--n", type=int, default=60)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as tmp:
        sets = load_art(args.art or write_fake_art(tmp))
        source, scorer = _hand_source(), _scorer()
        make_scene(0, args.seed, sets, source, scorer)  # warm-up (noise bank, imports)
        wall, cpu = time.perf_counter(), time.process_time()
        pixels = 0
        for i in range(args.n):
            scene = make_scene(i, args.seed, sets, source, scorer)
            cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
            pixels += scene.width * scene.height
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{args.n} scenes, mean {pixels / args.n / 1e6:.2f} Mpixel, sets: {', '.join(s.name for s in sets)}")
    print(f"wall: {args.n / wall:.2f} scenes/s   cpu: {args.n / cpu:.2f} scenes/s per core")


if __name__ == "__main__":
    main()
