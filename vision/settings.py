"""Every threshold and size of the vision pipeline, in one place.

Each stage owns one frozen dataclass here; `Settings` bundles them.  Code reads
`settings.detector.conf_threshold`, never a literal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = REPO_ROOT / "models"


@dataclass(frozen=True)
class DetectorSettings:
    """Image -> Detections (onnxruntime)."""


@dataclass(frozen=True)
class LayoutSettings:
    """Detections -> rows, groups, winning tile, flowers -> hand."""


@dataclass(frozen=True)
class Settings:
    detector: DetectorSettings = field(default_factory=DetectorSettings)
    layout: LayoutSettings = field(default_factory=LayoutSettings)


DEFAULT_SETTINGS = Settings()
