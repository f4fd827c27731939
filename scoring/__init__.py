"""Chinese Official (MCR) mahjong: the hand model, its notation and the fan scorer (standard library only).

The names below load their module when first used: `tileset.classes` needs only `scoring.tiles`, and a command that
reads photos without scoring them (`python -m vision detect`) does not pay for the scorer's start-up.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .fans import FAN, FANS, Fan
    from .hand import Hand, HandError, Meld, MeldKind, WinContext
    from .notation import format_hand, parse_hand
    from .scorer import ExcludedFan, FanCount, NotWinningHand, ScoreResult, score
    from .tiles import Tile

_MODULE_OF = {
    "FAN": "fans", "FANS": "fans", "Fan": "fans",
    "Hand": "hand", "HandError": "hand", "Meld": "hand", "MeldKind": "hand", "WinContext": "hand",
    "format_hand": "notation", "parse_hand": "notation",
    "ExcludedFan": "scorer", "FanCount": "scorer", "NotWinningHand": "scorer", "ScoreResult": "scorer", "score": "scorer",
    "Tile": "tiles",
}

__all__ = [
    "FAN", "FANS", "ExcludedFan", "Fan", "FanCount", "Hand", "HandError", "Meld", "MeldKind",
    "NotWinningHand", "ScoreResult", "Tile", "WinContext", "format_hand", "parse_hand", "score",
]


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_MODULE_OF[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
