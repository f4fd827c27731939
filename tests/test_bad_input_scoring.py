"""Bad input to `python -m scoring`: a one-line message and exit status 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from datasets.hands import random_hands
from scoring.hand import HandError
from scoring.notation import parse_hand

ROOT = Path(__file__).resolve().parents[1]
HAND = "123m456m789m123p5p +5p"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scoring", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, check=False, env={"PYTHONIOENCODING": "utf-8", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("value", ["²", "٣", "³", "9" * 5000, "08", "-1", "9", "3.0", ""])
def test_flowers_must_be_an_ascii_digit_0_to_8(value: str) -> None:
    with pytest.raises(HandError, match="flowers must be a number 0 to 8"):
        parse_hand(f"{HAND} flowers={value}")
    out = run(f"{HAND} flowers={value}")
    assert out.returncode == 2
    assert out.stderr.startswith("error: flowers must be a number 0 to 8") and "Traceback" not in out.stderr
    assert len(out.stderr) < 200, "a 5000-digit number is not echoed back in full"


def test_flowers_flag_takes_ascii_digits_only() -> None:
    assert parse_hand(f"{HAND} flowers=8").context.flowers == 8
    out = run(HAND, "--flowers", "٣")
    assert out.returncode == 2 and "flowers must be a number 0 to 8" in out.stderr
    assert "Traceback" not in out.stderr
    assert "flowers=3" in run(HAND, "--flowers", "3").stdout


def test_jsonl_into_a_reader_that_stops_early_is_quiet(tmp_path: Path) -> None:
    """`python -m scoring --jsonl < hands | head -1`: the reader closes the pipe; no BrokenPipeError."""
    hands = tmp_path / "hands.jsonl"
    hands.write_text("".join(json.dumps(h.to_json()) + "\n" for h in random_hands(1, 50)) * 80)
    with hands.open() as stdin:
        process = subprocess.Popen([sys.executable, "-m", "scoring", "--jsonl"], stdin=stdin, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd=ROOT)
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()  # what `head -1` does after its line
        stderr = process.stderr.read().decode()
        process.wait(timeout=60)
    assert json.loads(first)["total"] > 0
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert process.returncode == 0
