"""Wall time of learning a set from one calibration photo (`python -m vision calibrate`), on this machine.

    .venv/bin/python benchmarks/calibrate.py [PHOTO] [--art ART] [--artwork kde-traditional] [--seed 77700013] [--runs 1]

Without PHOTO, renders one calibration photo of `--artwork` from `--art` (ART: an artwork folder in the form
of `datasets/fake_art.py`'s; `python -m datasets.synth --layout calibration`). Each run calibrates against a
fresh private copy of the shipped models (the repository's registry is not touched; the base val figures of
the shipped models are computed in every run, as a new user's first calibration does). Prints each run's wall
time and the command's JSON line, then one JSON summary line. The goal is at most 180 s per calibration on 2
CPU cores.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 180.0


def render_photo(art: Path, artwork: str, seed: int, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "datasets.synth", "--layout", "calibration", "--art", str(art),
                    "--only", artwork, "--n", "1", "--seed", str(seed), "--out", str(out)],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return next((out / "images").glob("*.jpg"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/calibrate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("photo", nargs="?", type=Path, help="a calibration photo (default: render one)")
    parser.add_argument("--art", type=Path, help="ART: the artwork folder a photo is rendered from (without PHOTO)")
    parser.add_argument("--artwork", default="kde-traditional", help="artwork of the rendered photo")
    parser.add_argument("--seed", type=int, default=77700013, help="seed of the rendered photo")
    parser.add_argument("--models", type=Path, default=REPO / "models", help="models folder copied for each run")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    if args.photo is None and args.art is None:
        parser.error("give a calibration PHOTO, or --art ART to render one")
    times = []
    with tempfile.TemporaryDirectory(prefix="calibrate-bench-") as tmp:
        photo = args.photo or render_photo(args.art, args.artwork, args.seed, Path(tmp) / "photo")
        for run in range(args.runs):
            models = Path(tmp) / f"models{run}"
            models.mkdir()
            for model in list(args.models.glob("*.onnx")) + list(args.models.glob("*.pt")):
                shutil.copy2(model, models / model.name)
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "vision", "calibrate", str(photo), "--models", str(models)],
                                  cwd=REPO, capture_output=True, text=True)
            seconds = time.perf_counter() - started
            times.append(seconds)
            line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-300:]
            print(f"run {run + 1}: {seconds:.1f} s wall, exit {done.returncode}: {line}", flush=True)
    print(json.dumps({"photo": str(args.photo or f"rendered {args.artwork} seed {args.seed}"), "runs": len(times),
                      "seconds": [round(t, 1) for t in times], "max_seconds": round(max(times), 1),
                      "goal_seconds": GOAL_SECONDS, "within_goal": max(times) <= GOAL_SECONDS}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
