"""The one folder everything the app keeps lives in: `$MCR_DATA`, else `~/.mcr-scorer`.

Its own package, below the app (`appui`) and the match ledger (`ledger`), so that both name the
same folder without the ledger importing the app.  The standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DATA_ENV = "MCR_DATA"
DEFAULT_DATA_ROOT = "~/.mcr-scorer"


def data_root(environ: Mapping[str, str] | None = None) -> Path:
    """The data folder, resolved (not created here)."""
    environ = os.environ if environ is None else environ
    return Path(environ.get(DATA_ENV) or DEFAULT_DATA_ROOT).expanduser().resolve()
