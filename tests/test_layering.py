"""The packages import one way (issue 18), read from the source with `ast` (nothing is imported).

    scoring            the rules: the standard library only
    datafolder         the one data folder ($MCR_DATA): the standard library only
    tileset            the tile set as data: scoring (+ numpy, filelock)
    vision (runtime)   photos to hands: scoring, tileset, other runtime modules
    vision tools       training, export, evaluation, adaptation, calibration (the `train` extra):
                       anything below, and datasets
    datasets           synthesis, build, labeling: scoring, tileset, vision runtime
    ledger             the scores of a match: scoring, datafolder
    appui              the app: anything but the vision tools (the app does not need torch)

Every import counts, also one inside a function.  The vision tool modules keep their names
(`python -m vision.evaluate` and the others are a stable contract), so they are a layer by
name, not by folder; `vision/__main__.py` dispatches to them lazily and is left out.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("scoring", "datafolder", "tileset", "vision", "datasets", "ledger", "appui")
VISION_TOOLS = frozenset({"train", "export", "evaluate", "evaluate_read", "adapt", "calibrate", "fewshot",
                          "finder_tune"})
VISION_DISPATCH = "vision.__main__"
TRAIN_EXTRA = frozenset({"torch", "torchvision", "ultralytics", "onnx", "onnxslim"})

# layer -> the layers it may import (itself included)
ALLOWED: dict[str, frozenset[str]] = {
    "scoring": frozenset({"scoring"}),
    "datafolder": frozenset({"datafolder"}),
    "tileset": frozenset({"scoring", "tileset"}),
    "vision": frozenset({"scoring", "tileset", "vision"}),
    "vision tools": frozenset({"scoring", "tileset", "vision", "vision tools", "datasets"}),
    "datasets": frozenset({"scoring", "tileset", "vision", "datasets"}),
    "ledger": frozenset({"scoring", "datafolder", "ledger"}),
    "appui": frozenset({"scoring", "datafolder", "tileset", "vision", "datasets", "ledger", "appui"}),
}
THIRD_PARTY = {"scoring": frozenset(), "datafolder": frozenset(), "tileset": frozenset({"numpy", "filelock"})}  # the rest: any dependency


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module `path` imports, absolute, relative ones resolved (`from pkg import mod` gives pkg.mod)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if (REPO / module.replace(".", "/")).is_dir():  # a package: its names may be modules
                found.update(f"{module}.{alias.name}" if (REPO / module.replace(".", "/") / f"{alias.name}.py").is_file()
                             else module for alias in node.names)
            else:
                found.add(module)
    return found


def layer(module: str) -> str | None:
    """The layer of a project module (None for the vision dispatcher and anything outside the packages)."""
    top, _, rest = module.partition(".")
    if top not in PACKAGES or module == VISION_DISPATCH:
        return None
    if top == "vision" and rest.split(".")[0] in VISION_TOOLS:
        return "vision tools"
    return top


SOURCES = sorted(p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py"))


def test_the_import_reader_sees_imports_inside_functions_and_relative_ones() -> None:
    read = imports_of(REPO / "vision" / "read.py")
    assert {"scoring.hand", "vision.repair", "vision.layout", "vision.detector", "scoring.scorer"} <= read
    assert layer("vision.evaluate") == "vision tools" and layer("vision.read") == "vision" and layer("numpy") is None
    assert len(SOURCES) > 50


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_imports_go_one_way(path: Path) -> None:
    here = layer(module_name(path))
    if here is None:
        return
    wrong = sorted(m for m in imports_of(path) if (there := layer(m)) is not None and there not in ALLOWED[here])
    assert not wrong, f"{module_name(path)} ({here}) must not import {wrong}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_third_party_imports_stay_in_their_layer(path: Path) -> None:
    here = layer(module_name(path))
    if here is None:
        return
    outside = {m.split(".")[0] for m in imports_of(path)} - set(sys.stdlib_module_names) - set(PACKAGES) - {"__future__"}
    if here in THIRD_PARTY:
        assert outside <= THIRD_PARTY[here], f"{module_name(path)} ({here}) imports {sorted(outside - THIRD_PARTY[here])}"
    if here != "vision tools":
        assert not outside & TRAIN_EXTRA, f"{module_name(path)} needs the train extra: {sorted(outside & TRAIN_EXTRA)}"


def test_no_test_skips_when_the_projects_own_modules_fail_to_import() -> None:
    """`pytest.importorskip` is for optional third-party packages: an import error in the project's
    own modules or the tests' helpers must fail, not skip."""
    own = set(PACKAGES) | {"app"} | {p.stem for p in (REPO / "tests").glob("*.py")}
    skipping = []
    for path in sorted((REPO / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "importorskip" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                    and node.args[0].value.split(".")[0] in own):
                skipping.append(f"{path.name}:{node.lineno} importorskip({node.args[0].value!r})")
    assert not skipping, skipping
