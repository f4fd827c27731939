"""The packages import one way, folder by folder, read from the source with `ast` (nothing is imported).

    scoring     the rules: the standard library only
    datafolder  the one data folder ($MCR_DATA): the standard library only
    tileset     the tile set as data: scoring (+ numpy, filelock)
    vision      photos to hands, the app's runtime: scoring, tileset
    datasets    synthesis, build, labeling: scoring, tileset, vision
    training    training, export, evaluation, adaptation, calibration (the `train` extra): all of the above
    ledger      the scores of a match: scoring, datafolder
    appui       the app: anything but training (the app does not need torch; it runs those tools as commands)

Every import counts, also one inside a function.  A command's entry point is no layer: a `__main__` module,
or a module whose imports all sit under `if __name__ == "__main__":` (`python -m vision.evaluate` keeps its
stable name and hands over to `training.evaluate`); nothing may import one.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("scoring", "datafolder", "tileset", "vision", "training", "datasets", "ledger", "appui")
TRAIN_EXTRA = frozenset({"torch", "torchvision", "ultralytics", "onnx", "onnxslim"})

# layer -> the layers it may import (itself included)
ALLOWED: dict[str, frozenset[str]] = {
    "scoring": frozenset({"scoring"}),
    "datafolder": frozenset({"datafolder"}),
    "tileset": frozenset({"scoring", "tileset"}),
    "vision": frozenset({"scoring", "tileset", "vision"}),
    "datasets": frozenset({"scoring", "tileset", "vision", "datasets"}),
    "training": frozenset({"scoring", "tileset", "vision", "datasets", "training"}),
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


def is_entry_point(path: Path) -> bool:
    """A `__main__` module, or one that only hands a command over: no import outside `if __name__ == "__main__":`."""
    if path.stem == "__main__":
        return True
    body = ast.parse(path.read_text(encoding="utf-8")).body
    guarded = [node for node in body if isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'"]
    rest = [node for node in body if node not in guarded]
    return bool(guarded) and not any(isinstance(node, ast.Import | ast.ImportFrom) for top in rest for node in ast.walk(top)
                                     if not (isinstance(node, ast.ImportFrom) and node.module == "__future__"))


def module_path(module: str) -> Path | None:
    for candidate in (REPO / (module.replace(".", "/") + ".py"), REPO / module.replace(".", "/") / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def layer(module: str) -> str | None:
    """The layer of a project module: its top folder (None for an entry point and anything outside the packages)."""
    top = module.partition(".")[0]
    if top not in PACKAGES:
        return None
    path = module_path(module)
    return None if path is not None and is_entry_point(path) else top


SOURCES = sorted(p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py"))


def test_the_import_reader_sees_imports_inside_functions_and_relative_ones() -> None:
    read = imports_of(REPO / "vision" / "read.py")
    assert {"scoring.hand", "vision.repair", "vision.layout", "vision.detector", "scoring.scorer"} <= read
    assert layer("training.evaluate") == "training" and layer("vision.read") == "vision" and layer("numpy") is None
    assert layer("vision.evaluate") is None and layer("vision.__main__") is None  # entry points
    assert len(SOURCES) > 50


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_nothing_imports_an_entry_point(path: Path) -> None:
    entry = sorted(m for m in imports_of(path) if m.partition(".")[0] in PACKAGES and (p := module_path(m)) is not None
                   and is_entry_point(p) and p != path)
    assert not entry, f"{module_name(path)} imports the entry points {entry}: import what they hand over to"


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
    if here != "training":
        assert not outside & TRAIN_EXTRA, f"{module_name(path)} needs the train extra: {sorted(outside & TRAIN_EXTRA)}"


# a runtime dependency whose import name is not its distribution's name (lower case, "-" as "_")
IMPORT_NAMES = {"opencv-python-headless": "cv2", "pillow": "PIL", "pyyaml": "yaml"}


def runtime_dependencies() -> dict[str, str]:
    """pyproject.toml's `dependencies` (what the app needs): distribution name -> the module it is imported as."""
    listed = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    names = [re.sub(r"[-_.]+", "-", re.split(r"[^A-Za-z0-9._-]", entry, maxsplit=1)[0]).lower() for entry in listed]
    return {name: IMPORT_NAMES.get(name, name.replace("-", "_")) for name in names}


@dataclass(frozen=True)
class SkipCall:
    """One `pytest.importorskip(...)` in a test file."""

    where: str  # file:line
    module: str
    has_reason: bool


def importorskip_calls(tests: Path) -> list[SkipCall]:
    calls = []
    for path in sorted(tests.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "importorskip" and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                has_reason = len(node.args) >= 3 or any(k.arg == "reason" for k in node.keywords)
                calls.append(SkipCall(f"{path.name}:{node.lineno}", node.args[0].value, has_reason))
    return calls


def wrong_skips(tests: Path, runtime: set[str], own: set[str]) -> list[str]:
    """The importorskips that hide a failure: of the project's own modules or a test helper, of a runtime
    dependency (missing, the app is broken: the run must fail), or with no reason said."""
    wrong = []
    for call in importorskip_calls(tests):
        top = call.module.split(".")[0]
        if top in own | {p.stem for p in tests.glob("*.py")}:
            wrong.append(f"{call.where} importorskip({call.module!r}): a project module")
        elif top in runtime:
            wrong.append(f"{call.where} importorskip({call.module!r}): a runtime dependency, import it")
        elif not call.has_reason:
            wrong.append(f"{call.where} importorskip({call.module!r}) says no reason=")
    return wrong


def test_the_runtime_dependencies_map_to_the_modules_their_distributions_install() -> None:
    installed = {module: {re.sub(r"[-_.]+", "-", d).lower() for d in dists}
                 for module, dists in packages_distributions().items()}
    dependencies = runtime_dependencies()
    assert {"sqlalchemy": "sqlalchemy", "opencv-python-headless": "cv2", "pillow-heif": "pillow_heif"}.items() \
        <= dependencies.items()
    wrong = {dist: module for dist, module in dependencies.items() if dist not in installed.get(module, set())}
    assert not wrong, f"not the module these distributions install (add them to IMPORT_NAMES): {wrong}"


def test_the_skip_check_finds_each_kind_of_wrong_skip(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "test_a.py").write_text(
        "import pytest\n"
        'pytest.importorskip("sqlalchemy")\n'
        'pytest.importorskip("cv2.aruco", reason="not needed")\n'
        'pytest.importorskip("scoring.hand", reason="ours")\n'
        'pytest.importorskip("helper", reason="a test helper")\n'
        'pytest.importorskip("torch")\n'
        'pytest.importorskip("ultralytics", reason="the train extra")\n'
        'pytest.importorskip("playwright", None, "the dev extra")\n', encoding="utf-8")
    assert wrong_skips(tmp_path, {"sqlalchemy", "cv2"}, {"scoring"}) == [
        "test_a.py:2 importorskip('sqlalchemy'): a runtime dependency, import it",
        "test_a.py:3 importorskip('cv2.aruco'): a runtime dependency, import it",
        "test_a.py:4 importorskip('scoring.hand'): a project module",
        "test_a.py:5 importorskip('helper'): a project module",
        "test_a.py:6 importorskip('torch') says no reason=",
    ]


def test_tests_skip_only_for_optional_packages_and_say_why() -> None:
    """`pytest.importorskip` is for what the app runs without (the train and dev extras), with a reason:
    an import error in a runtime dependency, the project's own modules or the tests' helpers must fail, not skip."""
    runtime = set(runtime_dependencies().values())
    assert {"sqlalchemy", "onnx", "cv2", "PIL"} <= runtime
    assert not wrong_skips(REPO / "tests", runtime, set(PACKAGES) | {"app"}), \
        wrong_skips(REPO / "tests", runtime, set(PACKAGES) | {"app"})


def imports_of_test_modules(tests: Path) -> list[str]:
    """Where a file of `tests` imports a test module (`test_x` or `tests.test_x`)."""
    found = []
    for path in sorted(tests.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}:{node.lineno} {name}" for name in names if name.removeprefix("tests.").startswith("test_")]
    return found


def test_the_test_import_check_finds_both_spellings(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("import test_b\nfrom tests.test_c import x\nfrom a_support import y\n"
                                        "def f():\n    from test_d import z\n", encoding="utf-8")
    assert imports_of_test_modules(tmp_path) == ["test_a.py:1 test_b", "test_a.py:2 tests.test_c", "test_a.py:5 test_d"]


def test_no_test_module_imports_another() -> None:
    """What several test files share lives in a support module (tests/*_support.py, conftest.py), not in one
    of them: a test module run alone must not run another's set-up, nor keep helpers others need."""
    assert not imports_of_test_modules(REPO / "tests"), imports_of_test_modules(REPO / "tests")


def import_graph() -> dict[str, set[str]]:
    """Project module -> the project modules it imports (also inside functions); entry points are no node."""
    graph: dict[str, set[str]] = {}
    for path in SOURCES:
        if is_entry_point(path):
            continue
        name = module_name(path)
        graph[name] = {m for m in imports_of(path) if m != name and m.partition(".")[0] in PACKAGES
                       and (p := module_path(m)) is not None and not is_entry_point(p)}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per group of modules that import each other, directly or through others, as a path
    a -> b -> ... -> a (Tarjan's strongly connected components, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(group)
    cycles = []
    for group in groups:  # a shortest way back to the group's first module, inside the group
        start = min(group)
        came_from: dict[str, str] = {}
        frontier = [start]
        while start not in came_from:
            reached = []
            for node in frontier:
                for nxt in sorted(graph[node] & group):
                    if nxt not in came_from:
                        came_from[nxt] = node
                        reached.append(nxt)
            frontier = reached
        path = [start]
        while (back := came_from[path[-1]]) != start:
            path.append(back)
        cycles.append([start, *reversed(path[1:]), start])
    return cycles


def test_the_cycle_finder_finds_a_cycle_through_several_modules_and_none_in_a_tree() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": set(), "e": {"a"}}) == [["a", "b", "c", "a"]]
    assert import_cycles({"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a", "numpy"}}) == []
    assert import_cycles({"x": {"y"}, "y": {"x"}}) == [["x", "y", "x"]]


def test_no_import_cycles_among_the_project_s_modules() -> None:
    """Two modules that import each other, even one of them inside a function, are one module split in two:
    the shared part belongs in a third that both import."""
    graph = import_graph()
    assert "training.finder_tune" in graph and "vision.detector" in graph["vision.read"]
    cycles = import_cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)
