"""Model versions: the shipped models plus every adapted version, and which one is in use.

Layout under the models folder (`vision.settings.MODELS_DIR` unless given):

- `*.onnx`, `*.pt`, card            the shipped version, named `shipped`.
- `versions/<name>/`                one adapted version: the same files as the shipped folder
                                    (only the retrained ones differ) and its `card.json` / `card.md`.
- `ACTIVE`                          the name of the version in use (absent: `shipped`).
- `versions/activations.log`        every switch, oldest first, so `back` can undo the last one.
- `versions/.lock`                  held (fcntl) while a version is made or switched to: two calibrate or
                                    adapt runs at once get distinct folders and leave one clear `ACTIVE`.

`TileDetector.load(active_dir())` loads whichever version is in use.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vision.settings import MODELS_DIR

SHIPPED = "shipped"
ACTIVE_FILE = "ACTIVE"
VERSIONS_DIR = "versions"
ACTIVATIONS_LOG = "activations.log"
CARD_JSON = "card.json"
LOCK_FILE = ".lock"
# the fine-tune that versions calibrated with the method `gated` kept beside their classifier: read by nothing
# now, and not carried into a version made from such a one
EARLIER_SET_CLASSIFIER = "set_classifier.onnx"
VERSION_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class RegistryError(RuntimeError):
    """A version that does not exist or cannot be switched to, said plainly."""


@dataclass(frozen=True)
class ModelVersion:
    name: str
    path: Path
    card: dict[str, Any]

    @property
    def summary(self) -> str:
        metrics = self.card.get("metrics", {}) or {}
        accuracy = metrics.get("read_accuracy")
        created = self.card.get("created", "")
        text = f"{self.name}"
        if created:
            text += f" ({created})"
        if accuracy is not None:
            text += f", read accuracy {accuracy:.2%} on {self.card.get('evaluated_on', 'held-back photos')}"
        return text


_THREAD_LOCKS: dict[str, threading.RLock] = {}  # lock file -> the lock that keeps this process's threads apart
_HELD: dict[str, int] = {}  # lock file -> how deeply its holder holds it (changed only by the thread holding it)
_THREAD_LOCKS_GUARD = threading.Lock()


class Registry:
    def __init__(self, models_root: Path = MODELS_DIR) -> None:
        self.root = Path(models_root)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the registry's lock while changing it: other processes wait on an exclusive `fcntl.flock`,
        other threads of this one on a lock of their own; the thread that holds it may take it again."""
        import fcntl

        self.versions_dir.mkdir(parents=True, exist_ok=True)
        key = str((self.versions_dir / LOCK_FILE).resolve())
        with _THREAD_LOCKS_GUARD:
            thread_lock = _THREAD_LOCKS.setdefault(key, threading.RLock())
        with thread_lock:
            depth = _HELD.get(key, 0)
            _HELD[key] = depth + 1
            try:
                if depth:
                    yield
                    return
                handle = os.open(key, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX)
                    yield
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)
                    os.close(handle)
            finally:
                _HELD[key] -= 1

    @property
    def versions_dir(self) -> Path:
        return self.root / VERSIONS_DIR

    def path_of(self, name: str) -> Path:
        return self.root if name == SHIPPED else self.versions_dir / name

    def versions(self) -> list[ModelVersion]:
        """The shipped version first, then adapted ones by name (names start with their date)."""
        found = [ModelVersion(SHIPPED, self.root, read_card(self.root))]
        if self.versions_dir.is_dir():
            for folder in sorted(p for p in self.versions_dir.iterdir() if p.is_dir() and VERSION_NAME.match(p.name)):
                found.append(ModelVersion(folder.name, folder, read_card(folder)))
        return found

    def get(self, name: str) -> ModelVersion:
        for version in self.versions():
            if version.name == name:
                return version
        known = ", ".join(v.name for v in self.versions())
        raise RegistryError(f"no model version {name!r} (known: {known})")

    def active_name(self) -> str:
        pointer = self.root / ACTIVE_FILE
        if not pointer.is_file():
            return SHIPPED
        name = pointer.read_text(encoding="utf-8").strip() or SHIPPED
        return name if self.path_of(name).is_dir() else SHIPPED

    def active_dir(self) -> Path:
        return self.path_of(self.active_name())

    def activate(self, name: str) -> ModelVersion:
        from tileset.atomic_files import atomic_write_text

        with self.locked():
            version = self.get(name)
            atomic_write_text(self.root / ACTIVE_FILE, name + "\n")
            with open(self.versions_dir / ACTIVATIONS_LOG, "a", encoding="utf-8") as log:
                log.write(f"{utc_now()} {name}\n")
        return version

    def activations(self) -> list[str]:
        log = self.versions_dir / ACTIVATIONS_LOG
        if not log.is_file():
            return []
        return [line.split()[-1] for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]

    def back(self) -> ModelVersion:
        """Switch to the version that was in use before the current one (the shipped one at the start)."""
        with self.locked():
            current = self.active_name()
            history = [name for name in self.activations() if self.path_of(name).is_dir()]
            while history and history[-1] == current:
                history.pop()
            previous = history[-1] if history else SHIPPED
            if previous == current:
                raise RegistryError(f"{current!r} is the first version: there is nothing to go back to")
            return self.activate(previous)

    def new_version_dir(self, label: str) -> Path:
        """A fresh, empty folder for a version named `<UTC date-time>-<label>`."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        name = f"{stamp}-{label}" if label else stamp
        if not VERSION_NAME.match(name):
            raise RegistryError(f"version name {name!r}: use letters, digits, '.', '_' and '-'")
        with self.locked():
            path = self.versions_dir / name
            suffix = 1
            while path.exists():
                suffix += 1
                path = self.versions_dir / f"{name}-{suffix}"
            path.mkdir(parents=True)
        return path


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_card(folder: Path) -> dict[str, Any]:
    path = Path(folder) / CARD_JSON
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def active_dir(models_root: Path | None = None) -> Path:
    """The folder of the model version in use: what `TileDetector.load` should be given.

    No root: `vision.settings.MODELS_DIR`, looked up at call time (tests and the app point it elsewhere).
    """
    from vision import settings as vision_settings

    return Registry(models_root or vision_settings.MODELS_DIR).active_dir()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.registry", description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="models folder (default: %(default)s)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list model versions; * marks the one in use")
    use = sub.add_parser("use", help="switch to a version by name")
    use.add_argument("name")
    sub.add_parser("back", help="switch back to the version in use before the current one")
    args = parser.parse_args(argv)
    registry = Registry(args.models)
    try:
        if args.command == "list":
            active = registry.active_name()
            for version in registry.versions():
                print(("* " if version.name == active else "  ") + version.summary)
        elif args.command == "use":
            print(f"now using {registry.activate(args.name).summary}")
        else:
            print(f"now using {registry.back().summary}")
    except RegistryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
