"""Files written so that a reader sees the old or the new content, never a mix, and the leftovers of a
writer killed half way cleaned up: a temporary file in the same folder, fsynced, then `os.replace`d.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

STALE_TEMP_AGE_S = 60.0  # a temporary file this old, of no live writer we know of, is a killed save's


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old or the new content, never a mix."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see the old or the new content, never a mix."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # The writer's pid in the name lets a later save tell a killed writer's leftover from a live one's.
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(data)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not supported on every platform; the file itself is already synced
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temp_files(folder: Path, now: float | None = None) -> list[Path]:
    """Delete the `.NAME.<pid>.<random>.tmp` files a killed writer left; returns what was removed.

    A file is stale when its writer's process is gone, or (no pid in its name, or a pid another
    process may have reused) when it is older than STALE_TEMP_AGE_S.
    """
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        candidates = [p for p in Path(folder).iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]
    except OSError:
        return removed
    for candidate in candidates:
        try:
            age = now - candidate.stat().st_mtime
        except OSError:
            continue
        pid = _writer_pid(candidate.name)
        if (pid is not None and not _process_alive(pid)) or age > STALE_TEMP_AGE_S:
            try:
                candidate.unlink()
                removed.append(candidate)
            except OSError:
                pass
    return removed


def _writer_pid(name: str) -> int | None:
    parts = name[: -len(".tmp")].rsplit(".", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process, or a platform without signals: assume it lives
    return True
