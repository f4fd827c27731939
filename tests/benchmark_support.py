"""A benchmark script (benchmarks/NAME.py, run by path, not a package) loaded as a module, for its tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent


def load_benchmark(name: str) -> ModuleType:
    module_name = f"benchmark_{name}"  # not `name`: benchmarks/scoring.py must not shadow the scoring package
    spec = importlib.util.spec_from_file_location(module_name, REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # a dataclass finds its module here
    spec.loader.exec_module(module)
    return module
