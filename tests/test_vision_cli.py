"""`python -m vision` dispatch: usage, unknown commands, detect's argument errors, default models folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=120)


def test_help_lists_both_commands():
    result = run("--help")
    assert result.returncode == 0 and "detect" in result.stdout and "read" in result.stdout


@pytest.mark.parametrize("args, code, text", [((), 2, "detect"), (("bogus",), 2, "unknown command 'bogus'"),
                                              (("detect",), 2, "the following arguments are required")])
def test_usage_errors_exit_2_without_traceback(args, code, text):
    result = run(*args)
    assert result.returncode == code and text in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not (REPO / "models" / "detector.onnx").is_file(), reason="no shipped models")
def test_detect_uses_the_shipped_models_by_default():
    scene = next((REPO / "tests" / "data" / "vision_scenes" / "images").glob("*.jpg"))
    result = run("detect", str(scene))
    line = json.loads(result.stdout)
    assert result.returncode == 0 and line["image"] == str(scene) and len(line["tiles"]) >= 10


@pytest.mark.parametrize("command, tool", [("vision.evaluate", "training.evaluate"),
                                           ("vision.evaluate_read", "training.evaluate_read"),
                                           ("vision.adapt", "training.adapt")])
def test_the_stable_command_names_hand_over_to_the_training_tools(command: str, tool: str) -> None:
    """contracts.md names these commands; the tools live in `training/`, the names stay."""
    stable = subprocess.run([sys.executable, "-m", command, "--help"], capture_output=True, text=True, cwd=REPO, timeout=120)
    direct = subprocess.run([sys.executable, "-m", tool, "--help"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert stable.returncode == 0 and "usage:" in stable.stdout
    assert stable.stdout.split("\n", 1)[1] == direct.stdout.split("\n", 1)[1]  # the same options, only the prog differs


@pytest.mark.skipif(not (REPO / "models" / "detector.onnx").is_file(), reason="no shipped models")
def test_detect_reads_several_photos_at_once_as_it_reads_each_alone(tmp_path: Path) -> None:
    """Photos read two at a time (`vision.at_once`) come out in the order given, each as the command reads it
    alone, an unreadable one in its place."""
    scenes = sorted(str(p) for p in (REPO / "tests" / "data" / "vision_scenes" / "images").glob("*.jpg"))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    given = [scenes[0], str(broken), *scenes[1:]]
    together = run("detect", *given)
    lines = [json.loads(line) for line in together.stdout.splitlines()]
    assert together.returncode == 1 and [line["image"] for line in lines] == given
    assert "error" in lines[1] and "Traceback" not in together.stderr
    for scene, line in zip(scenes, [lines[0], *lines[2:]], strict=True):
        alone = json.loads(run("detect", scene).stdout)
        assert line == alone and len(line["tiles"]) >= 10


@pytest.mark.skipif(not (REPO / "models" / "detector.onnx").is_file(), reason="no shipped models")
def test_detect_does_not_load_the_scorer_or_the_hand_reader():
    """`detect` names tiles only: the scorer and the layout reader are left unimported (start-up time)."""
    scene = next((REPO / "tests" / "data" / "vision_scenes" / "images").glob("*.jpg"))
    probe = ("import sys, runpy; sys.argv = ['vision', 'detect', sys.argv[1]]\n"
             "try:\n    runpy.run_module('vision', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m in {'scoring.scorer', 'scoring.fans', 'vision.layout', 'vision.read'}),"
             " file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", probe, str(scene)], capture_output=True, text=True, cwd=REPO,
                            timeout=120)
    assert json.loads(result.stdout)["tiles"]
    assert result.stderr.strip().splitlines()[-1] == "[]"
