"""Scoring speed: hands per second through the Python API and through `python -m scoring --jsonl`,
with the reference calculator (pymahjonggb, C++) timed on the same hands in the same run.

    .venv/bin/python benchmarks/scoring.py [--sample tests/data/scored-hands-sample.jsonl] [--repeat 5]

Goal: >= 10,000 hands/s in-process.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = (ROOT / "tests/data/scored-hands-sample.jsonl",)

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the reference adapter lives beside the differential test

from datasets.hands import random_hands
from scoring.hand import Hand
from scoring.scorer import score


def _rate(n: int, run: Callable[[], object], repeat: int) -> float:
    """Hands per second, the best of `repeat` runs over `n` hands."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return n / best


def _cli(stdin: bytes, expected_lines: int) -> None:
    out = subprocess.run([sys.executable, "-m", "scoring", "--jsonl"], input=stdin, cwd=ROOT,
                         capture_output=True, check=True)
    assert out.stdout.count(b"\n") == expected_lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=Path, default=next((p for p in SAMPLES if p.exists()), SAMPLES[0]),
                        help="JSONL of {'hand': ...} lines (default: the 999-hand sample)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the best counts")
    parser.add_argument("--generated", type=int, default=10_000, help="random hands scored once, unseen before")
    parser.add_argument("--seed", type=int, default=7, help="seed of the generated hands")
    args = parser.parse_args(argv)
    if not args.sample.exists():
        parser.error(f"no sample file at {args.sample}")

    records = [json.loads(line) for line in args.sample.read_text().splitlines() if line.strip()]
    lines = [json.dumps(r["hand"]) for r in records]
    hands = [Hand.from_json(r["hand"]) for r in records]
    n = len(hands)
    print(f"sample: {args.sample} ({n} hands), best of {args.repeat} runs")

    cold = _rate(n, lambda: [score(h) for h in hands], 1)
    print(f"python API, score(hand), first pass: {cold:8,.0f} hands/s (the scorer's per-suit caches cold)")
    api = _rate(n, lambda: [score(h) for h in hands], args.repeat)
    print(f"python API, score(hand):             {api:8,.0f} hands/s")
    fresh = random_hands(args.seed, args.generated)
    gen = _rate(len(fresh), lambda: [score(h) for h in fresh], 1)
    print(f"python API, {len(fresh):,} generated hands:  {gen:8,.0f} hands/s (unseen hands, one pass)")
    api_parse = _rate(n, lambda: [score(Hand.from_json(s)).to_json() for s in lines], args.repeat)
    print(f"python API, JSON text -> result:     {api_parse:8,.0f} hands/s")

    for copies in (1, 10):
        stdin = ("\n".join(lines * copies) + "\n").encode()
        cli_rate = _rate(n * copies, partial(_cli, stdin, n * copies), args.repeat)
        print(f"python -m scoring --jsonl, {n * copies:>5} lines: {cli_rate:8,.0f} hands/s (process start included)")

    try:
        from mcr_reference import raw
    except ImportError:
        print("reference: pymahjonggb not installed (pip install -e '.[dev]'), no comparison")
        return 0
    ref = _rate(n, lambda: [raw(h) for h in hands], args.repeat)
    print(f"reference pymahjonggb (C++), API:    {ref:8,.0f} hands/s")
    print(f"ratio ours / reference (API):        {api / ref:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
