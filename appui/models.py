"""The tile detector, loaded once per server process (st.cache_resource)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import streamlit as st

from .settings import AppSettings

# A detector object put under this session-state key replaces the shipped model for that session
# (a test's stand-in, or a custom detector); it needs only `detect(image_bgr) -> Detections`.
DETECTOR_OVERRIDE_KEY = "detector_override"


@st.cache_resource(show_spinner="Loading the tile detector…")
def _load_detector(models_dir: str, factory: str | None) -> Any:
    if factory:
        return _from_factory(factory)
    from vision.detector import TileDetector

    return TileDetector.load(models_dir)


def _from_factory(spec: str) -> Any:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"the detector factory must be written module:callable, not {spec!r}")
    return getattr(importlib.import_module(module_name), attr)()


def get_detector() -> tuple[Any | None, str | None]:
    """(detector, None), or (None, why there is none) — never raises."""
    override = st.session_state.get(DETECTOR_OVERRIDE_KEY)
    if override is not None:
        return override, None
    try:
        from vision.registry import active_dir

        return _load_detector(str(active_dir()), AppSettings().detector_factory), None
    except Exception as exc:  # a missing or broken model must not break the page
        return None, f"{type(exc).__name__}: {exc}"


def model_label(detector: Any) -> str:
    """A short name of the detector in use, for captions and saved label metadata."""
    info = getattr(detector, "model_info", None)
    if info is None:
        return type(detector).__name__
    from pathlib import Path

    names = [Path(info.detector_path).name] + ([Path(info.classifier_path).name] if info.classifier_path else [])
    versions = ", ".join(f"{k} {v}" for k, v in sorted(info.versions.items()))
    return " + ".join(names) + (f" ({versions})" if versions else "")


def read_with(models_root: str | None = None) -> str:
    """A caption naming the model version in use (the one `get_detector` loads): "Read with: shipped models",
    or the version's name and how it was made, e.g. "(calibrated from 1 photo, 2026-12-01)"."""
    from vision import settings as vision_settings
    from vision.registry import SHIPPED, Registry, RegistryError

    from .i18n import t

    registry = Registry(Path(models_root) if models_root else vision_settings.MODELS_DIR)
    try:
        version = registry.get(registry.active_name())
    except (OSError, RegistryError):
        return t("read_with_shipped")
    if version.name == SHIPPED:
        return t("read_with_shipped")
    card = version.card
    date = str(card.get("created", ""))[:10] or "?"
    if card.get("kind") == "calibration":
        n = len(card.get("photos") or ())
        return t("read_with_calibrated", name=version.name, n=n, s="" if n == 1 else "s", date=date)
    return t("read_with_adapted", name=version.name, date=date)
