"""How long the layout stage takes: detections -> hand (no model), and with the score.

    .venv/bin/python benchmarks/read_layout.py [--n 500] [--seed 0]

Plans `n` random scenes (`datasets.scene.plan_scene`), then times
`vision.read.read_detections` on their truth boxes, once without scoring and
once with it.  Prints one JSON object: milliseconds per read (median, p95, max).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from datasets.hands import random_hand
from datasets.scene import plan_scene
from tileset.classes import CLASS_ID
from vision.detections import Detections
from vision.read import read_detections


def timings(cases: list, with_score: bool) -> dict[str, float]:
    ms = []
    for hand, dets in cases:
        start = time.perf_counter()
        read_detections(dets, hand.context, with_score=with_score)
        ms.append((time.perf_counter() - start) * 1000)
    arr = np.array(ms)
    return {"median_ms": round(float(np.median(arr)), 3), "p95_ms": round(float(np.percentile(arr, 95)), 3),
            "max_ms": round(float(arr.max()), 3)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = random.Random(args.seed)
    cases = []
    for _ in range(args.n):
        hand = random_hand(rng)
        tiles = plan_scene(hand, rng, 1280, 960)
        dets = Detections.from_lists([t.xyxy for t in tiles], [1.0] * len(tiles), [CLASS_ID[t.cls] for t in tiles])
        cases.append((hand, dets))
    print(json.dumps({"scenes": args.n, "layout_only": timings(cases, False), "with_score": timings(cases, True)}))


if __name__ == "__main__":
    main()
