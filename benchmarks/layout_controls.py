"""The layout reader's settings compared on rendered hand scenes, each photo detected once: for every scenes
folder, the hands read exactly with the default settings and with each `FIELD=VALUE` of `LayoutSettings` (as
`training.evaluate_read --set layout.FIELD=VALUE` takes them), and every scene whose outcome differs; at the end,
each reading's time per photo (`vision.read.read_detections`, detection excluded) over every scene: median, p90
and max.

    .venv/bin/python benchmarks/layout_controls.py ROUND/SET [ROUND/SET ...] --set group_set_margin=0 [--set ...]

ROUND/SET is a folder of `benchmarks/calibration_round.sh`: SET/scn holds the scenes (`python -m datasets.synth`)
and SET/models the models folder, read with its version in use. `training.evaluate_read` on each reading gives
the same counts; this detects each photo once instead of once per reading.
"""

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parents[1]))

import argparse
import time
from pathlib import Path

import numpy as np

from training.evaluate_read import judge, scenes_from_dir
from vision.read import detect_file, load_detector, read_detections
from vision.registry import active_dir
from vision.settings import DEFAULT_SETTINGS, with_overrides


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="ROUND/SET folders with scn/ and models/")
    parser.add_argument("--set", dest="controls", action="append", default=[], metavar="FIELD=VALUE",
                        help="layout settings to compare with the defaults, FIELD=VALUE[,FIELD=VALUE...] read together "
                             "(repeat for more readings)")
    args = parser.parse_args()
    readings = {"default": DEFAULT_SETTINGS.layout}
    try:
        readings |= {c: with_overrides(DEFAULT_SETTINGS.layout, c.split(",")) for c in args.controls}
    except ValueError as error:
        parser.error(str(error))
    totals = dict.fromkeys(readings, 0)
    seconds: dict[str, list[float]] = {name: [] for name in readings}
    scenes_seen = 0
    for folder in args.folders:
        detector = load_detector(active_dir(folder / "models"))
        exact = dict.fromkeys(readings, 0)
        changed = []
        scenes = list(scenes_from_dir(folder / "scn"))
        for scene in scenes:
            dets = detect_file(detector, str(scene.image))
            outcome = {}
            for name, settings in readings.items():
                start = time.perf_counter()
                result = read_detections(dets, scene.hand.context, settings)
                seconds[name].append(time.perf_counter() - start)
                outcome[name] = judge(scene, result).exact
            for name, ok in outcome.items():
                exact[name] += ok
            if len(set(outcome.values())) > 1:
                changed.append(f"  {scene.name}: " + ", ".join(f"{n} {'exact' if ok else 'not'}" for n, ok in outcome.items()))
        scenes_seen += len(scenes)
        for name in readings:
            totals[name] += exact[name]
        print(f"{folder}: " + ", ".join(f"{n} {exact[n]}/{len(scenes)}" for n in readings), flush=True)
        for line in changed:
            print(line, flush=True)
    print("all: " + ", ".join(f"{n} {totals[n]}/{scenes_seen}" for n in readings))
    for name, taken in seconds.items():
        ms = np.array(taken) * 1000
        print(f"ms per photo, {name}: median {np.median(ms):.1f}, p90 {np.quantile(ms, 0.9):.1f}, max {ms.max():.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
